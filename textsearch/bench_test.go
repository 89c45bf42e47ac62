package textsearch

import (
	"context"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/thalix/tv/ignore"
)

var (
	benchOnce sync.Once
	benchDir  string
	benchErr  error
)

// benchTree copies $GOROOT/src/{runtime,go,net} (the tree compare.sh uses)
// into a temporary directory shared by the benchmarks of this process.
func benchTree(b *testing.B) string {
	benchOnce.Do(func() {
		src := filepath.Join(goroot(b), "src")
		benchDir, benchErr = os.MkdirTemp("", "textsearch-bench-")
		if benchErr != nil {
			return
		}
		for _, d := range []string{"runtime", "go", "net"} {
			if benchErr = copyTree(filepath.Join(src, d), filepath.Join(benchDir, d)); benchErr != nil {
				return
			}
		}
	})
	if benchErr != nil {
		b.Skip("cannot copy the GOROOT tree:", benchErr)
	}
	return benchDir
}

func copyTree(from, to string) error {
	return filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(dst, 0o755)
		case d.Type().IsRegular():
			in, err := os.Open(p)
			if err != nil {
				return err
			}
			defer in.Close()
			out, err := os.Create(dst)
			if err != nil {
				return err
			}
			if _, err := io.Copy(out, in); err != nil {
				out.Close()
				return err
			}
			return out.Close()
		}
		return nil
	})
}

func benchSearch(b *testing.B, opts Options) {
	dir := benchTree(b)
	root, err := os.OpenRoot(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer root.Close()
	var bytes int64
	b.ResetTimer()
	for b.Loop() {
		m, err := ignore.NewMatcher(root, ignore.Options{GitIgnore: true})
		if err != nil {
			b.Fatal(err)
		}
		opts.Ignore = m
		res, err := Search(context.Background(), root, ".", opts)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Matches) == 0 {
			b.Fatal("no matches")
		}
		bytes = res.BytesScanned
	}
	b.SetBytes(bytes)
}

// BenchmarkSearchLiteral: a fixed string matching 103 lines.
func BenchmarkSearchLiteral(b *testing.B) {
	benchSearch(b, Options{Pattern: "SetReadDeadline", Fixed: true, Limit: MaxLimit})
}

// BenchmarkSearchRegexp: a regexp with a required literal, 69 lines.
func BenchmarkSearchRegexp(b *testing.B) {
	benchSearch(b, Options{Pattern: `func \(\w+ \*\w+\) Close\(\) error`, Limit: MaxLimit})
}

// BenchmarkSearchRegexpNoLiteral: no required literal (whole-buffer regexp).
func BenchmarkSearchRegexpNoLiteral(b *testing.B) {
	benchSearch(b, Options{Pattern: `[0-9]{9}[a-f]{3}`, Limit: MaxLimit})
}

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// goroot asks the go command for GOROOT (runtime.GOROOT is deprecated).
func goroot(b *testing.B) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("go env GOROOT: %v", err)
	}
	return strings.TrimSpace(string(out))
}
