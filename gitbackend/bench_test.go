package gitbackend

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/thalix/tv/engine"
)

// benchContents returns n small file contents, unique per iteration iter,
// averaging about 1 KiB of text.
func benchContents(iter, n int) [][]byte {
	rng := rand.New(rand.NewPCG(uint64(iter), 99))
	words := strings.Fields("func return if else for range package import var const type struct interface map chan go defer select case default nil err true false string int byte error context ctx value name id hash tree blob commit ref vault")
	out := make([][]byte, n)
	for i := range out {
		var b bytes.Buffer
		fmt.Fprintf(&b, "// iteration %d file %d\n", iter, i)
		size := 200 + rng.IntN(1700)
		for b.Len() < size {
			b.WriteString(words[rng.IntN(len(words))])
			if rng.IntN(8) == 0 {
				b.WriteByte('\n')
			} else {
				b.WriteByte(' ')
			}
		}
		out[i] = b.Bytes()
	}
	return out
}

func benchVault(b *testing.B) *Vault {
	b.Helper()
	v, _, err := OpenOrCreate(filepath.Join(b.TempDir(), "vault.git"))
	if err != nil {
		b.Fatal(err)
	}
	return v
}

// BenchmarkWrite10kObjectsPack: 10,000 new blobs in one ObjectWriter batch
// (one pack + index, fsynced).
func BenchmarkWrite10kObjectsPack(b *testing.B) {
	ctx := context.Background()
	const n = 10000
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		v := benchVault(b)
		contents := benchContents(i, n)
		b.StartTimer()
		w, err := v.NewObjectWriter(ctx)
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range contents {
			if _, err := w.WriteBlob(bytes.NewReader(c), int64(len(c))); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Finish(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/object")
}

// BenchmarkWrite10kObjectsLoose is the baseline: the same blobs as loose
// objects through go-git's filesystem storage (SetEncodedObject).
func BenchmarkWrite10kObjectsLoose(b *testing.B) {
	const n = 10000
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		v := benchVault(b)
		st := filesystem.NewStorage(osfs.New(v.Path()), cache.NewObjectLRUDefault())
		contents := benchContents(i, n)
		b.StartTimer()
		for _, c := range contents {
			obj := st.NewEncodedObject()
			obj.SetType(plumbing.BlobObject)
			obj.SetSize(int64(len(c)))
			w, err := obj.Writer()
			if err != nil {
				b.Fatal(err)
			}
			w.Write(c)
			w.Close()
			if _, err := st.SetEncodedObject(obj); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/object")
}

// BenchmarkRefTransaction: one compare-and-swap ref update (lock, check,
// write, fsync, rename, fsync dir).
func BenchmarkRefTransaction(b *testing.B) {
	ctx := context.Background()
	v := benchVault(b)
	tree := mustEmptyTree(b, v)
	c1, err := writeTestCommit(ctx, v, tree, "one\n", engine.ZeroHash)
	if err != nil {
		b.Fatal(err)
	}
	c2, err := writeTestCommit(ctx, v, tree, "two\n", c1)
	if err != nil {
		b.Fatal(err)
	}
	const ref = "refs/tv/workspaces/ws_bench"
	if err := v.UpdateRefs(ctx, engine.RefUpdate{Name: ref, New: c1}); err != nil {
		b.Fatal(err)
	}
	cur, next := c1, c2
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := v.UpdateRefs(ctx, engine.RefUpdate{Name: ref, Old: cur, New: next}); err != nil {
			b.Fatal(err)
		}
		cur, next = next, cur
	}
}

// The import benchmarks compare a whole-tree import through the pack writer
// with `git add -A && git commit` on the same ~11,500 files / ~157 MB.
// They generate the data set once (into the test HOME) and take a while:
// run them explicitly, e.g. -bench 'Import|GitAdd' -benchtime 1x.

const (
	importFiles = 11500
	importBytes = 157 << 20
)

var (
	importOnce sync.Once
	importDir  string
	importErr  error
)

func importDataset(b *testing.B) string {
	importOnce.Do(func() {
		importDir = filepath.Join(testHome, "import-src")
		rng := rand.New(rand.NewPCG(7, 7))
		words := strings.Fields("func return if else for range package import var const type struct interface map chan go defer select case default nil err true false string int byte error context ctx value name id hash tree blob commit ref vault")
		avg := importBytes / importFiles
		for i := 0; i < importFiles && importErr == nil; i++ {
			dir := filepath.Join(importDir, fmt.Sprintf("d%02d", i%40), fmt.Sprintf("s%02d", i%7))
			if importErr = os.MkdirAll(dir, 0o755); importErr != nil {
				return
			}
			size := rng.IntN(2 * avg)
			var buf bytes.Buffer
			if i%10 == 0 { // some binary-ish files
				p := make([]byte, size)
				for j := range p {
					p[j] = byte(rng.Uint32())
				}
				buf.Write(p)
			} else {
				for buf.Len() < size {
					buf.WriteString(words[rng.IntN(len(words))])
					buf.WriteByte(" \n"[rng.IntN(2)])
				}
			}
			importErr = os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d.txt", i)), buf.Bytes(), 0o644)
		}
	})
	if importErr != nil {
		b.Fatal(importErr)
	}
	return importDir
}

// importTree writes every file under dir (blobs streamed from disk) plus
// the trees and one commit, in one batch.
func importTree(ctx context.Context, w engine.ObjectWriter, dir string) (engine.Hash, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return engine.ZeroHash, err
	}
	var tree []engine.TreeEntry
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if e.IsDir() {
			id, err := importTree(ctx, w, p)
			if err != nil {
				return engine.ZeroHash, err
			}
			tree = append(tree, engine.TreeEntry{Name: e.Name(), Mode: engine.ModeDir, ID: id})
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			return engine.ZeroHash, err
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			return engine.ZeroHash, err
		}
		id, err := w.WriteBlob(f, fi.Size())
		f.Close()
		if err != nil {
			return engine.ZeroHash, err
		}
		tree = append(tree, engine.TreeEntry{Name: e.Name(), Mode: engine.ModeFile, ID: id})
	}
	return w.WriteTree(tree)
}

func BenchmarkImport157MB(b *testing.B) {
	ctx := context.Background()
	src := importDataset(b)
	b.SetBytes(dirBytes(b, src))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		v := benchVault(b)
		b.StartTimer()
		w, err := v.NewObjectWriter(ctx)
		if err != nil {
			b.Fatal(err)
		}
		tree, err := importTree(ctx, w, src)
		if err != nil {
			b.Fatal(err)
		}
		c, err := w.WriteCommit(&engine.Commit{Tree: tree, Author: testSig, Committer: testSig, Message: "import\n"})
		if err != nil {
			b.Fatal(err)
		}
		if err := w.Finish(); err != nil {
			b.Fatal(err)
		}
		if err := v.UpdateRefs(ctx, engine.RefUpdate{Name: "refs/tv/workspaces/ws_import", New: c}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGitAddCommit157MB is the peer: `git add -A && git commit` of the
// same files into a fresh repository (work tree = the data set).
func BenchmarkGitAddCommit157MB(b *testing.B) {
	requireGit(b)
	src := importDataset(b)
	b.SetBytes(dirBytes(b, src))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		gitDir := filepath.Join(b.TempDir(), "repo.git")
		run := func(args ...string) {
			// gc.auto=0: no background gc racing the next iteration.
			cmd := exec.Command("git", append([]string{"--git-dir=" + gitDir, "--work-tree=" + src, "-c", "gc.auto=0"}, args...)...)
			cmd.Env = gitEnv(testHome)
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
		run("init", "-q")
		b.StartTimer()
		run("add", "-A")
		run("commit", "-q", "-m", "import")
	}
}

func dirBytes(b *testing.B, dir string) int64 {
	var n int64
	var names []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			fi, _ := d.Info()
			n += fi.Size()
			names = append(names, p)
		}
		return nil
	})
	sort.Strings(names)
	if len(names) != importFiles {
		b.Fatalf("data set has %d files", len(names))
	}
	return n
}
