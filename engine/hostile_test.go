package engine_test

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/starter"
)

// zipEntry describes one entry of a crafted zip. With raw set, the header
// is written as given (sizes may lie) and data is the stored payload.
type zipEntry struct {
	name string
	data []byte
	mode fs.FileMode
	raw  *zip.FileHeader
}

func makeZip(t testing.TB, entries ...zipEntry) string {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		if e.raw != nil {
			w, err := zw.CreateRaw(e.raw)
			if err != nil {
				t.Fatal(err)
			}
			w.Write(e.data)
			continue
		}
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		if e.mode != 0 {
			h.SetMode(e.mode)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(e.data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "in.zip")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// starterEntries returns the bundled starter as zip entries (a valid ICM tree).
func starterEntries(t testing.TB) []zipEntry {
	var out []zipEntry
	fs.WalkDir(starter.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		if !d.IsDir() {
			b, _ := fs.ReadFile(starter.FS(), p)
			out = append(out, zipEntry{name: p, data: b})
		}
		return nil
	})
	return out
}

func withStarter(t testing.TB, extra ...zipEntry) string {
	return makeZip(t, append(starterEntries(t), extra...)...)
}

func rawEntry(name string, declared, compressed uint64, method uint16, payload []byte) zipEntry {
	return zipEntry{raw: &zip.FileHeader{Name: name, Method: method, UncompressedSize64: declared, CompressedSize64: compressed, CRC32: crc32.ChecksumIEEE(payload)}, data: payload}
}

// deflated returns raw deflate bytes of data.
func deflated(t testing.TB, data []byte) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.CreateHeader(&zip.FileHeader{Name: "x", Method: zip.Deflate})
	w.Write(data)
	zw.Close()
	zr, _ := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	rc, _ := zr.File[0].OpenRaw()
	var out bytes.Buffer
	out.ReadFrom(rc)
	return out.Bytes()
}

func TestHostileImports(t *testing.T) {
	lieData := bytes.Repeat([]byte("A"), 5000)
	lieDeflate := deflated(t, lieData)
	bomb := deflated(t, make([]byte, 8<<20)) // 8 MiB of zeros in a few KiB
	randBytes := func(n int) []byte { b := make([]byte, n); rand.Read(b); return b }
	deep := strings.Repeat("d/", engine.MaxDepth) + "f.md"
	long := strings.Repeat("x", engine.MaxPathBytes+1)

	zipCases := []struct {
		name  string
		zip   func(t *testing.T) string
		match string
	}{
		{"zip slip", func(t *testing.T) string { return withStarter(t, zipEntry{name: "../evil.md", data: []byte("x")}) }, "'..' component"},
		{"zip slip nested", func(t *testing.T) string { return withStarter(t, zipEntry{name: "a/../../evil.md", data: []byte("x")}) }, "'..' component"},
		{"absolute", func(t *testing.T) string { return withStarter(t, zipEntry{name: "/etc/evil", data: []byte("x")}) }, "absolute"},
		{"drive letter", func(t *testing.T) string { return withStarter(t, zipEntry{name: "C:/evil", data: []byte("x")}) }, "absolute"},
		{"backslash", func(t *testing.T) string { return withStarter(t, zipEntry{name: `a\..\evil`, data: []byte("x")}) }, "backslash"},
		{"NUL", func(t *testing.T) string { return withStarter(t, zipEntry{name: "a\x00b", data: []byte("x")}) }, "NUL"},
		{"control char", func(t *testing.T) string { return withStarter(t, zipEntry{name: "a\x07b", data: []byte("x")}) }, "control character"},
		{"invalid utf8", func(t *testing.T) string { return withStarter(t, zipEntry{name: "a\xffb", data: []byte("x")}) }, "UTF-8"},
		{"dot git", func(t *testing.T) string { return withStarter(t, zipEntry{name: ".git/config", data: []byte("x")}) }, "'.git' component"},
		{"dot git nested case", func(t *testing.T) string { return withStarter(t, zipEntry{name: "a/.GIT/hooks/x", data: []byte("x")}) }, "'.git' component"},
		{"symlink entry", func(t *testing.T) string {
			return withStarter(t, zipEntry{name: "link", data: []byte("/etc/passwd"), mode: fs.ModeSymlink | 0o777})
		}, "symlink"},
		{"device entry", func(t *testing.T) string {
			return withStarter(t, zipEntry{name: "dev", data: nil, mode: fs.ModeDevice | 0o644})
		}, "device"},
		{"duplicate", func(t *testing.T) string {
			return withStarter(t, zipEntry{name: "dup.md", data: []byte("1")}, zipEntry{name: "dup.md", data: []byte("2")})
		}, "appears twice"},
		{"case duplicate", func(t *testing.T) string {
			return withStarter(t, zipEntry{name: "Readme.md", data: []byte("1")}, zipEntry{name: "README.md", data: []byte("2")})
		}, "case is folded"},
		{"case duplicate folder", func(t *testing.T) string {
			return withStarter(t, zipEntry{name: "Docs/a.md", data: []byte("1")}, zipEntry{name: "docs/b.md", data: []byte("2")})
		}, "case is folded"},
		{"file and folder", func(t *testing.T) string {
			return withStarter(t, zipEntry{name: "x", data: []byte("1")}, zipEntry{name: "x/y", data: []byte("2")})
		}, "both a file and a folder"},
		{"zip bomb ratio", func(t *testing.T) string {
			return withStarter(t, rawEntry("bomb.bin", 8<<20, uint64(len(bomb)), zip.Deflate, bomb))
		}, "ratio limit"},
		{"lying size (inflates more)", func(t *testing.T) string {
			e := rawEntry("lie.md", 10, uint64(len(lieDeflate)), zip.Deflate, lieDeflate)
			e.raw.CRC32 = crc32.ChecksumIEEE(lieData[:10])
			return withStarter(t, e)
		}, "more bytes than it declares"},
		{"lying size (inflates less)", func(t *testing.T) string {
			e := rawEntry("lie.md", 9000, uint64(len(lieDeflate)), zip.Deflate, lieDeflate)
			return withStarter(t, e)
		}, "fewer bytes than it declares"},
		{"over per-file limit", func(t *testing.T) string {
			return withStarter(t, rawEntry("big.bin", engine.MaxFileBytes+1, engine.MaxFileBytes, zip.Store, randBytes(16)))
		}, "per-file limit"},
		{"over total limit", func(t *testing.T) string {
			var es []zipEntry
			for i := 0; i < engine.MaxImportBytes/engine.MaxFileBytes+1; i++ {
				es = append(es, rawEntry(fmt.Sprintf("part%02d.bin", i), engine.MaxFileBytes, engine.MaxFileBytes/50, zip.Deflate, randBytes(16)))
			}
			return withStarter(t, es...)
		}, "in total"},
		{"reserved folder", func(t *testing.T) string {
			return withStarter(t, zipEntry{name: ".thalix-workspace.json/x", data: []byte("x")})
		}, "reserved for tv's checkout metadata"},
		{"too deep", func(t *testing.T) string { return withStarter(t, zipEntry{name: deep, data: []byte("x")}) }, "deeper than"},
		{"path too long", func(t *testing.T) string { return withStarter(t, zipEntry{name: long, data: []byte("x")}) }, "longer than"},
		{"too many files", func(t *testing.T) string {
			es := starterEntries(t)
			for i := 0; len(es) <= engine.MaxImportFiles; i++ {
				es = append(es, zipEntry{raw: &zip.FileHeader{Name: fmt.Sprintf("f/%06d", i), Method: zip.Store}})
			}
			return makeZip(t, es...)
		}, "more than 100000 files"},
		{"not a zip", func(t *testing.T) string {
			p := filepath.Join(t.TempDir(), "bad.zip")
			os.WriteFile(p, []byte("PK\x03\x04garbage"), 0o644)
			return p
		}, "not a readable zip"},
	}
	for _, tc := range zipCases {
		t.Run(tc.name, func(t *testing.T) {
			expectRefused(t, tc.zip(t), tc.match)
		})
	}

	folderCases := []struct {
		name  string
		make  func(t *testing.T, dir string)
		match string
	}{
		{"symlink to outside", func(t *testing.T, dir string) { os.Symlink("/etc/passwd", filepath.Join(dir, "link")) }, "symlink"},
		{"symlinked folder", func(t *testing.T, dir string) { os.Symlink("/etc", filepath.Join(dir, "stages", "etc")) }, "symlink"},
		{"dangling symlink", func(t *testing.T, dir string) { os.Symlink("nowhere", filepath.Join(dir, "dangling")) }, "symlink"},
		{"fifo", func(t *testing.T, dir string) { mkfifo(t, filepath.Join(dir, "fifo")) }, "FIFO"},
		{"socket", func(t *testing.T, dir string) {
			l, err := net.Listen("unix", filepath.Join(dir, "sock"))
			if err != nil {
				t.Skip("unix sockets unavailable:", err)
			}
			t.Cleanup(func() { l.Close() })
		}, "socket"},
		{"device", func(t *testing.T, dir string) {
			mknodNull(t, filepath.Join(dir, "null"))
		}, "device"},
		// A git work tree is imported as git would commit it, but not a
		// repository nested in it.
		{"repository in a git work tree", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, ".git", "config"), "[core]\n")
			write(t, filepath.Join(dir, "stages", "sub", ".git", "HEAD"), "x\n")
		}, "stages/sub is a nested git repository"},
		{"nested git folder", func(t *testing.T, dir string) { write(t, filepath.Join(dir, "sub", ".git", "HEAD"), "x\n") }, "'.git' component"},
		{"reserved folder", func(t *testing.T, dir string) { write(t, filepath.Join(dir, ".thalix-workspace.cache", "x"), "x") }, "reserved"},
		{"case duplicate", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "Notes.md"), "1")
			write(t, filepath.Join(dir, "notes.md"), "2")
		}, "case is folded"},
	}
	for _, tc := range folderCases {
		t.Run("folder "+tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.CopyFS(dir, starter.FS()); err != nil {
				t.Fatal(err)
			}
			tc.make(t, dir)
			expectRefused(t, dir, tc.match)
		})
	}

	t.Run("valid controls", func(t *testing.T) {
		for _, b := range backends() {
			e := newEngine(b.open(t), alice)
			if _, err := e.ImportWorkspace(context.Background(), withStarter(t, zipEntry{name: "ok/notes.md", data: []byte("fine")}), "zipped"); err != nil {
				t.Fatalf("%s: valid zip refused: %v", b.name, err)
			}
			dir := t.TempDir()
			os.CopyFS(dir, starter.FS())
			if _, err := e.ImportWorkspace(context.Background(), dir, "folder"); err != nil {
				t.Fatalf("%s: valid folder refused: %v", b.name, err)
			}
		}
	})
}

// expectRefused imports src into a fresh disk vault and requires a refusal
// mentioning match, with the vault's refs unchanged (none).
func expectRefused(t *testing.T, src, match string) {
	t.Helper()
	v := backends()[0].open(t)
	e := newEngine(v, alice)
	ctx := context.Background()
	_, err := e.ImportWorkspace(ctx, src, "hostile")
	if err == nil {
		t.Fatal("import succeeded; want refusal")
	}
	if !errors.Is(err, engine.ErrRefused) || !strings.Contains(err.Error(), match) {
		t.Fatalf("err = %v; want ErrRefused mentioning %q", err, match)
	}
	if refs, _ := v.ListRefs(ctx, engine.WorkspaceRefPrefix); len(refs) != 0 {
		t.Fatalf("refs changed: %v", refs)
	}
	if _, err := e.ImportTemplate(ctx, src, "hostile"); !errors.Is(err, engine.ErrRefused) {
		t.Fatalf("template import: %v", err)
	}
}
