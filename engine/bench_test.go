package engine_test

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/gitbackend"
	"github.com/thalix/tv/starter"
)

// The benchmarks run the engine's workspace operations on a generated
// tree: the bundled ICM starter plus benchFiles files of mixed sizes under
// stages/01-research/references/gen/, nested a few folders deep. The
// side-by-side comparison with git on a real tree (GOROOT/src) is
// bench/workspace/compare.sh; these benchmarks are for profiling
// (go test -run '^$' -bench . -cpuprofile cpu.out ./engine/).

const (
	benchFiles   = 3000
	benchGenRoot = "stages/01-research/references/gen"
)

// benchTree writes the generated tree into a new folder and returns it;
// BENCH_TREE=dir uses that folder instead (for example a tree of
// bench/workspace/icmgen, to profile a large ICM workspace).
func benchTree(b *testing.B) string {
	b.Helper()
	if dir := os.Getenv("BENCH_TREE"); dir != "" {
		return dir
	}
	dir := filepath.Join(b.TempDir(), "tree")
	err := fs.WalkDir(starter.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := fs.ReadFile(starter.FS(), p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"func", "return", "if", "err", "!=", "nil", "{", "}", "for", "range", "package", "import", "type", "struct", "int", "string", "\n", "\t", "x", "y", ":=", "0", "1"}
	for i := range benchFiles {
		p := filepath.Join(dir, filepath.FromSlash(benchGenRoot), fmt.Sprintf("d%02d/e%02d/f%05d.go", i%37, i%11, i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		// Sizes like a source tree: mostly a few KiB, some larger.
		size := 200 + rng.IntN(8<<10)
		if i%50 == 0 {
			size = 64<<10 + rng.IntN(256<<10)
		}
		buf := make([]byte, 0, size+16)
		for len(buf) < size {
			buf = append(buf, words[rng.IntN(len(words))]...)
			buf = append(buf, ' ')
		}
		if err := os.WriteFile(p, buf, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

func benchEngine(b *testing.B, vaultDir string) *engine.Engine {
	b.Helper()
	v, _, err := gitbackend.OpenOrCreate(vaultDir)
	if err != nil {
		b.Fatal(err)
	}
	who := &engine.Credentials{User: "bench", Email: "bench@example.com"}
	return engine.New(v, engine.Options{Actor: who})
}

// benchCheckout imports the generated tree and checks it out once.
func benchCheckout(b *testing.B) (*engine.Engine, string) {
	b.Helper()
	ctx := context.Background()
	tree := benchTree(b)
	e := benchEngine(b, filepath.Join(b.TempDir(), "vault.git"))
	if _, err := e.ImportWorkspace(ctx, tree, "bench"); err != nil {
		b.Fatal(err)
	}
	dir := filepath.Join(b.TempDir(), "co")
	if _, err := e.Checkout(ctx, "bench", dir); err != nil {
		b.Fatal(err)
	}
	return e, dir
}

func BenchmarkImport(b *testing.B) {
	ctx := context.Background()
	tree := benchTree(b)
	vaults := b.TempDir()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		e := benchEngine(b, filepath.Join(vaults, fmt.Sprintf("v%d.git", i)))
		if _, err := e.ImportWorkspace(ctx, tree, "bench"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCheckout(b *testing.B) {
	ctx := context.Background()
	tree := benchTree(b)
	e := benchEngine(b, filepath.Join(b.TempDir(), "vault.git"))
	if _, err := e.ImportWorkspace(ctx, tree, "bench"); err != nil {
		b.Fatal(err)
	}
	outs := b.TempDir()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := e.Checkout(ctx, "bench", filepath.Join(outs, fmt.Sprint(i))); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWalkTestUnchanged(b *testing.B) {
	ctx := context.Background()
	e, dir := benchCheckout(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		p, err := e.WalkTest(ctx, dir)
		if err != nil {
			b.Fatal(err)
		}
		if p.Changed() || !p.Valid {
			b.Fatalf("changed=%v valid=%v", p.Changed(), p.Valid)
		}
	}
}

// BenchmarkWalkTestTouched times the first walk-test after every file's
// mtime changed (content unchanged): every file is hashed again.
func BenchmarkWalkTestTouched(b *testing.B) {
	ctx := context.Background()
	e, dir := benchCheckout(b)
	b.ReportAllocs()
	when := time.Now()
	for b.Loop() {
		b.StopTimer()
		when = when.Add(time.Second)
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				os.Chtimes(p, when, when)
			}
			return nil
		})
		b.StartTimer()
		p, err := e.WalkTest(ctx, dir)
		if err != nil {
			b.Fatal(err)
		}
		if p.Changed() {
			b.Fatal("touched files reported as changed")
		}
	}
}

func BenchmarkCommitOneFile(b *testing.B) {
	ctx := context.Background()
	e, dir := benchCheckout(b)
	target := filepath.Join(dir, filepath.FromSlash(benchGenRoot), "d05/e05/f00005.go")
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		if err := os.WriteFile(target, fmt.Appendf(nil, "package gen // edit %d\n", i), 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		res, err := e.Commit(ctx, dir, fmt.Sprintf("edit %d", i))
		if err != nil {
			b.Fatal(err)
		}
		if res.Modified != 1 {
			b.Fatalf("commit: %+v", res)
		}
	}
}

// BenchmarkCheckDir times `tv check`'s validation of a tree on disk, every
// Markdown file read (BENCH_TREE=dir checks that folder instead).
func BenchmarkCheckDir(b *testing.B) {
	ctx := context.Background()
	tree := benchTree(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := engine.CheckDir(ctx, tree, engine.CheckOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
