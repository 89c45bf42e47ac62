package wsfs

import (
	"bytes"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const secret = "OUTSIDE-SECRET"

// fixture lays out base/ws (the workspace) and base/outside (must never be
// read or written through the workspace).
type fixture struct {
	base, ws, outside string
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	base := t.TempDir()
	fx := &fixture{base: base, ws: filepath.Join(base, "ws"), outside: filepath.Join(base, "outside")}
	must(t, os.MkdirAll(filepath.Join(fx.outside, "d"), 0o755))
	must(t, os.WriteFile(filepath.Join(fx.outside, "secret"), []byte(secret), 0o644))
	must(t, os.WriteFile(filepath.Join(fx.outside, "d", "secret"), []byte(secret), 0o644))
	for _, d := range []string{"a", "b", "dir", "sub/deeper", "sub/.git", ".git/hooks"} {
		must(t, os.MkdirAll(filepath.Join(fx.ws, d), 0o755))
	}
	for name, content := range map[string]string{
		"file":        "inside\n",
		"a/file":      "inside a\n",
		".git/config": "[core]\n",
		"sub/.git/x":  "x",
	} {
		must(t, os.WriteFile(filepath.Join(fx.ws, name), []byte(content), 0o644))
	}
	links := map[string]string{
		"link-file":         filepath.Join(fx.outside, "secret"),
		"link-dir":          filepath.Join(fx.outside, "d"),
		"link-rel":          "../outside/secret",
		"sub/link-parent":   "../../outside/d",
		"dangling":          filepath.Join(fx.outside, "created-through-dangling"),
		"dangling-rel":      "../outside/created-through-dangling-rel",
		"inner-link":        "file",
		"inner-dirlink":     "a",
		"loop":              "loop",
		"dev-link":          "/dev/zero",
		"sub/deeper/escape": "../../../outside",
	}
	for name, target := range links {
		must(t, os.Symlink(target, filepath.Join(fx.ws, name)))
	}
	mkfifo(t, filepath.Join(fx.ws, "fifo"))
	if l, err := net.Listen("unix", filepath.Join(fx.ws, "sock")); err == nil {
		t.Cleanup(func() { l.Close() })
	}
	return fx
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// snapshot records every path and content under dir.
func snapshot(t testing.TB, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		b.WriteString(p)
		if d.Type().IsRegular() {
			c, _ := os.ReadFile(p)
			b.WriteString("=" + string(c))
		}
		b.WriteString("\n")
		return nil
	})
	return b.String()
}

func TestHostilePaths(t *testing.T) {
	long := strings.Repeat("a", MaxPathBytes+1)
	cases := []struct {
		name, op, path string
		want           error
	}{
		{"empty", "read", "", ErrUnsafePath},
		{"dotdot", "read", "..", ErrUnsafePath},
		{"dotdot outside", "read", "../outside/secret", ErrUnsafePath},
		{"a/../../x", "read", "a/../../x", ErrUnsafePath},
		{"a/../b stays inside but is refused", "read", "a/../file", ErrUnsafePath},
		{"dot dotdot chain", "read", "a/./../../outside/secret", ErrUnsafePath},
		{"absolute", "read", "/etc/passwd", ErrUnsafePath},
		{"absolute root", "read", "/", ErrUnsafePath},
		{"absolute into outside", "read", "/OUTSIDE/secret", ErrUnsafePath},
		{"double slash", "read", "//server/share", ErrUnsafePath},
		{"windows drive backslash", "read", `C:\x`, ErrUnsafePath},
		{"windows drive relative", "read", "C:x", ErrUnsafePath},
		{"windows drive slash", "write", "c:/x", ErrUnsafePath},
		{"UNC", "read", `\\server\share`, ErrUnsafePath},
		{"backslash", "read", `a\file`, ErrUnsafePath},
		{"backslash dotdot", "write", `..\outside\x`, ErrUnsafePath},
		{"NUL", "read", "file\x00.txt", ErrUnsafePath},
		{"NUL write", "write", "x\x00", ErrUnsafePath},
		{"overlong path", "read", long, ErrUnsafePath},
		{"overlong component", "write", strings.Repeat("b", MaxComponentBytes+1), ErrUnsafePath},
		{"too deep", "read", strings.Repeat("a/", MaxDepth+1) + "x", ErrUnsafePath},
		{"symlink file to outside", "read", "link-file", ErrSymlink},
		{"symlink file to outside write", "write", "link-file", ErrSymlink},
		{"relative symlink to outside", "read", "link-rel", ErrSymlink},
		{"symlink dir to outside", "read", "link-dir/secret", ErrSymlink},
		{"symlink dir to outside write", "write", "link-dir/new", ErrSymlink},
		{"symlink dir opendir", "opendir", "link-dir", ErrSymlink},
		{"symlink dir stat", "stat", "link-dir", ErrSymlink},
		{"symlink dir cwd", "dirpath", "link-dir", ErrSymlink},
		{"symlinked parent", "read", "sub/link-parent/secret", ErrSymlink},
		{"symlinked parent write", "write", "sub/link-parent/new", ErrSymlink},
		{"symlinked grandparent escape", "write", "sub/deeper/escape/new", ErrSymlink},
		{"dangling symlink write target", "write", "dangling", ErrSymlink},
		{"dangling relative symlink write target", "write", "dangling-rel", ErrSymlink},
		{"dangling symlink read", "read", "dangling", ErrSymlink},
		{"inner symlink file", "read", "inner-link", ErrSymlink},
		{"inner symlink dir", "read", "inner-dirlink/file", ErrSymlink},
		{"symlink loop", "read", "loop", ErrSymlink},
		{"symlink to device", "read", "dev-link", ErrSymlink},
		{".git/config write", "write", ".git/config", ErrGitDir},
		{".git new hook", "write", ".git/hooks/pre-commit", ErrGitDir},
		{".GIT case folded", "write", ".GIT/config", ErrGitDir},
		{"nested .git", "write", "sub/.git/x", ErrGitDir},
		{".git itself", "write", ".git", ErrGitDir},
		{"zero-width .git (HFS+)", "write", ".g\u200cit/config", ErrGitDir},
		{"BOM .git (HFS+)", "write", "sub/.git\ufeff/hooks/x", ErrGitDir},
		{"trailing dot .git (NTFS)", "write", ".git./config", ErrGitDir},
		{"trailing space .GIT (NTFS)", "write", ".GIT /config", ErrGitDir},
		{"short name git~1 (NTFS)", "write", "GIT~1/config", ErrGitDir},
		{"stream .git (NTFS)", "write", ".git::$INDEX_ALLOCATION/x", ErrGitDir},
		{".gitmodules write", "write", ".gitmodules", ErrUnsafePath},
		{".gitmodules short name", "write", "sub/gitmod~1", ErrUnsafePath},
		{".gitattributes as folder", "write", ".gitattributes/x", ErrUnsafePath},
		{"trailing dot", "write", "notes./x.md", ErrUnsafePath},
		{"trailing space", "write", "notes.md ", ErrUnsafePath},
		{"FIFO read must not block", "read", "fifo", ErrNotRegular},
		{"FIFO write", "write", "fifo", ErrNotRegular},
		{"socket read", "read", "sock", ErrNotRegular},
		{"directory read", "read", "dir", ErrIsDir},
		{"root read", "read", ".", ErrIsDir},
		{"root write", "write", ".", ErrIsDir},
		{"file as parent", "read", "file/x", ErrNotDir},
		{"cwd dotdot", "dirpath", "../", ErrUnsafePath},
		{"opendir escape", "opendir", "sub/../../outside", ErrUnsafePath},
		{"missing", "read", "nope", ErrMissing},
	}
	if len(cases) < 40 {
		t.Fatalf("only %d cases", len(cases))
	}
	fx := newFixture(t)
	f, err := Open(fx.ws)
	must(t, err)
	defer f.Close()
	before := snapshot(t, fx.outside)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				var err error
				switch c.op {
				case "read":
					var b []byte
					b, _, err = f.ReadFile(c.path, 1<<20)
					if bytes.Contains(b, []byte(secret)) {
						t.Errorf("read the outside secret")
					}
				case "write":
					_, err = f.WriteFile(c.path, []byte("PWNED"), WriteOptions{})
				case "stat":
					_, err = f.Stat(c.path)
				case "opendir":
					var r *os.Root
					r, err = f.OpenDir(c.path)
					if r != nil {
						r.Close()
					}
				case "dirpath":
					_, err = f.DirPath(c.path)
				}
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil {
					t.Fatalf("%s %q: accepted", c.op, c.path)
				}
				if !errors.Is(err, c.want) {
					t.Fatalf("%s %q: error %v, want %v", c.op, c.path, err, c.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("%s %q blocked", c.op, c.path)
			}
			if after := snapshot(t, fx.outside); after != before {
				t.Fatalf("outside changed:\n%s", after)
			}
		})
	}
	if fi, err := os.Lstat(filepath.Join(fx.ws, "dangling")); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("dangling symlink was replaced")
	}
	if c, _ := os.ReadFile(filepath.Join(fx.ws, ".git", "config")); string(c) != "[core]\n" {
		t.Errorf(".git/config changed: %q", c)
	}
}

func TestReadWrite(t *testing.T) {
	fx := newFixture(t)
	f, err := Open(fx.ws)
	must(t, err)
	defer f.Close()
	must(t, os.Chmod(filepath.Join(fx.ws, "a", "file"), 0o751))
	b, fi, err := f.ReadFile("a/file", 0)
	must(t, err)
	if string(b) != "inside a\n" || fi.Size() != 9 {
		t.Fatalf("read %q", b)
	}
	old := SHA256Hex(b)
	if _, err := f.WriteFile("a/file", []byte("v2"), WriteOptions{ExpectedSHA256: strings.Repeat("0", 64)}); !errors.Is(err, ErrStale) {
		t.Fatalf("stale write: %v", err)
	}
	if c, _ := os.ReadFile(filepath.Join(fx.ws, "a", "file")); string(c) != "inside a\n" {
		t.Fatalf("stale write changed the file")
	}
	res, err := f.WriteFile("a/file", []byte("v2"), WriteOptions{ExpectedSHA256: old})
	must(t, err)
	if res.Created || res.Mode != 0o751 {
		t.Fatalf("result %+v", res)
	}
	st, _ := os.Stat(filepath.Join(fx.ws, "a", "file"))
	if st.Mode().Perm() != 0o751 {
		t.Fatalf("mode not kept: %v", st.Mode())
	}
	res, err = f.WriteFile("new/dir/f.txt", []byte("n"), WriteOptions{})
	must(t, err)
	if !res.Created || res.Mode != DefaultFileMode {
		t.Fatalf("result %+v", res)
	}
	if _, err := f.WriteFile("big", make([]byte, 11), WriteOptions{MaxBytes: 10}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("big: %v", err)
	}
	if _, _, err := f.ReadFile("file", 3); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("read limit: %v", err)
	}
	if _, err := f.WriteFile("missing-expected", []byte("x"), WriteOptions{ExpectedSHA256: old}); !errors.Is(err, ErrStale) {
		t.Fatalf("expected on missing: %v", err)
	}
	if _, err := f.WriteFile("nodir/missing-expected", []byte("x"), WriteOptions{ExpectedSHA256: old}); !errors.Is(err, ErrStale) {
		t.Fatalf("expected on missing dir: %v", err)
	}
	if _, err := os.Stat(filepath.Join(fx.ws, "nodir")); err == nil {
		t.Fatalf("refused write created a directory")
	}
	ents, _ := os.ReadDir(filepath.Join(fx.ws, "a"))
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Fatalf("temp file left: %s", e.Name())
		}
	}
}

// TestSymlinkSwapRace flips a directory between a real directory and a
// symlink to the outside while reads and writes run through it: nothing
// outside is ever read or written.
func TestSymlinkSwapRace(t *testing.T) {
	fx := newFixture(t)
	f, err := Open(fx.ws)
	must(t, err)
	defer f.Close()
	real := filepath.Join(fx.ws, "flip")
	spare := filepath.Join(fx.ws, "flip-real")
	must(t, os.MkdirAll(real, 0o755))
	must(t, os.WriteFile(filepath.Join(real, "secret"), []byte("inside"), 0o644))
	before := snapshot(t, fx.outside)
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			// real dir -> aside, symlink in its place, then back.
			if os.Rename(real, spare) == nil {
				os.Symlink(filepath.Join(fx.outside, "d"), real)
				time.Sleep(10 * time.Microsecond)
				os.Remove(real)
				os.Rename(spare, real)
			}
		}
	}()
	var reads, writes, okReads int
	deadline := time.Now().Add(700 * time.Millisecond)
	for time.Now().Before(deadline) {
		b, _, err := f.ReadFile("flip/secret", 0)
		reads++
		if err == nil {
			okReads++
			if string(b) != "inside" {
				t.Fatalf("read %q through the swapped symlink", b)
			}
		}
		f.WriteFile("flip/new", []byte("w"), WriteOptions{})
		f.WriteFile("flip/secret", []byte("inside"), WriteOptions{})
		writes += 2
	}
	stop.Store(true)
	wg.Wait()
	if after := snapshot(t, fx.outside); after != before {
		t.Fatalf("outside changed during the race:\n%s", after)
	}
	t.Logf("%d reads (%d succeeded), %d writes", reads, okReads, writes)
}

func TestCleanPath(t *testing.T) {
	for in, want := range map[string]string{".": ".", "a/b/": "a/b", "./a//b": "a/b", "a/./b": "a/b", "..x": "..x", "a..": "a.."} {
		got, err := CleanPath(in)
		if err != nil || got != want {
			t.Errorf("CleanPath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func FuzzCleanPath(f *testing.F) {
	for _, s := range []string{".", "a/b", "../x", "a/../../b", "/abs", `C:\x`, `\\s\s`, "a\x00", "link-dir/secret", "sub/link-parent/x", ".git/config", "fifo", "file"} {
		f.Add(s)
	}
	fx := newFixture(f)
	wfs, err := Open(fx.ws)
	must(f, err)
	before := snapshot(f, fx.outside)
	f.Fuzz(func(t *testing.T, p string) {
		clean, err := CleanPath(p)
		if err != nil {
			if !errors.Is(err, ErrUnsafePath) {
				t.Fatalf("error %v is not ErrUnsafePath", err)
			}
			return
		}
		if !filepath.IsLocal(clean) && clean != "." {
			t.Fatalf("CleanPath(%q) = %q is not local", p, clean)
		}
		if strings.Contains(clean, "\\") || strings.Contains(clean, "\x00") || strings.HasPrefix(clean, "/") {
			t.Fatalf("CleanPath(%q) = %q", p, clean)
		}
		for _, c := range Split(clean) {
			if c == ".." || c == "." || c == "" {
				t.Fatalf("CleanPath(%q) = %q has component %q", p, clean, c)
			}
		}
		b, _, _ := wfs.ReadFile(p, 1<<20)
		if bytes.Contains(b, []byte(secret)) {
			t.Fatalf("ReadFile(%q) read the outside secret", p)
		}
		wfs.Stat(p)
		if after := snapshot(t, fx.outside); after != before {
			t.Fatalf("outside changed")
		}
	})
}
