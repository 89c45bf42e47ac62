package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/thalix/tv/engine"
)

// freshManifest checks the workspace out anew and returns that manifest:
// what a checkout's manifest (with its log) must equal after a commit.
func freshManifest(t *testing.T, e *engine.Engine) *engine.Manifest {
	t.Helper()
	d := filepath.Join(t.TempDir(), "fresh")
	must[*engine.CheckoutResult](t)(e.Checkout(context.Background(), "demo", d))
	return must[*engine.Manifest](t)(engine.ReadManifest(d))
}

// TestManifestLog: commits append to the manifest log instead of
// rewriting the manifest; ReadManifest applies the log; a big enough log
// is folded back into the manifest; torn and stale logs are handled.
func TestManifestLog(t *testing.T) {
	ctx := context.Background()
	logPath := func(d string) string { return filepath.Join(d, engine.ManifestLogName) }
	tests := []struct {
		name string
		run  func(t *testing.T, e *engine.Engine, d string)
	}{
		{"commits append", func(t *testing.T, e *engine.Engine, d string) {
			manifest, _ := os.ReadFile(filepath.Join(d, engine.ManifestName))
			for i := range 3 {
				write(t, filepath.Join(d, "_config/voice.md"), fmt.Sprintf("voice %d\n", i))
				write(t, filepath.Join(d, fmt.Sprintf("stages/01-research/references/n%d.md", i)), "n\n")
				must[*engine.CommitResult](t)(e.Commit(ctx, d, fmt.Sprint("c", i)))
			}
			if now, _ := os.ReadFile(filepath.Join(d, engine.ManifestName)); string(now) != string(manifest) {
				t.Fatal("the manifest was rewritten")
			}
			if b, err := os.ReadFile(logPath(d)); err != nil || strings.Count(string(b), "\n") != 4 {
				t.Fatalf("log: %v\n%s", err, b)
			}
		}},
		{"deletes", func(t *testing.T, e *engine.Engine, d string) {
			write(t, filepath.Join(d, "stages/01-research/references/gone.md"), "x\n")
			must[*engine.CommitResult](t)(e.Commit(ctx, d, "add"))
			if err := os.Remove(filepath.Join(d, "stages/01-research/references/gone.md")); err != nil {
				t.Fatal(err)
			}
			must[*engine.CommitResult](t)(e.Commit(ctx, d, "delete"))
		}},
		{"big commit folds the log", func(t *testing.T, e *engine.Engine, d string) {
			write(t, filepath.Join(d, "_config/voice.md"), "first\n")
			must[*engine.CommitResult](t)(e.Commit(ctx, d, "small"))
			for i := range 400 { // ~100 KiB of log entry: over MinManifestLogBytes
				write(t, filepath.Join(d, fmt.Sprintf("stages/01-research/references/bulk/file-with-a-long-name-%04d.md", i)), "b\n")
			}
			must[*engine.CommitResult](t)(e.Commit(ctx, d, "bulk"))
			if _, err := os.Lstat(logPath(d)); !os.IsNotExist(err) {
				t.Fatalf("log still there: %v", err)
			}
		}},
		{"torn last line", func(t *testing.T, e *engine.Engine, d string) {
			write(t, filepath.Join(d, "_config/voice.md"), "one\n")
			must[*engine.CommitResult](t)(e.Commit(ctx, d, "one"))
			f, err := os.OpenFile(logPath(d), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(`{"baseline":"00112233`) // a killed append
			f.Close()
			if p := must[*engine.Plan](t)(e.WalkTest(ctx, d)); p.Changed() {
				t.Fatalf("torn line changed the plan: %s", planString(p))
			}
			write(t, filepath.Join(d, "_config/voice.md"), "two\n")
			must[*engine.CommitResult](t)(e.Commit(ctx, d, "two"))
			if b, _ := os.ReadFile(logPath(d)); strings.Contains(string(b), "00112233") {
				t.Fatalf("torn line kept:\n%s", b)
			}
		}},
		{"stale log is ignored", func(t *testing.T, e *engine.Engine, d string) {
			write(t, filepath.Join(d, "_config/voice.md"), "one\n")
			must[*engine.CommitResult](t)(e.Commit(ctx, d, "one"))
			b, _ := os.ReadFile(logPath(d))
			// As if a compaction had rewritten the manifest and died before
			// removing the log: the log names another manifest.
			header, rest, _ := strings.Cut(string(b), "\n")
			stale := `{"tv_manifest_log":1,"manifest_baseline":"` + strings.Repeat("ff", 20) + `"}` + "\n" + rest
			if header == strings.SplitN(stale, "\n", 2)[0] {
				t.Fatal("header unchanged")
			}
			if err := os.WriteFile(logPath(d), []byte(stale), 0o644); err != nil {
				t.Fatal(err)
			}
			os.Remove(filepath.Join(d, engine.StatCacheName))
			m := must[*engine.Manifest](t)(engine.ReadManifest(d))
			if m.Baseline == freshManifest(t, e).Baseline {
				t.Fatal("a stale log was applied")
			}
			// The checkout then says the commit's file changed, and
			// committing heals it: the change is already upstream.
			res := must[*engine.CommitResult](t)(e.Commit(ctx, d, "heal"))
			if !res.NothingToCommit {
				t.Fatalf("heal: %+v", res)
			}
		}},
		{"torn cache record", func(t *testing.T, e *engine.Engine, d string) {
			write(t, filepath.Join(d, "_config/voice.md"), "one\n")
			must[*engine.CommitResult](t)(e.Commit(ctx, d, "one"))
			f, err := os.OpenFile(filepath.Join(d, engine.StatCacheName), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.Write([]byte{200, 0, 0, 0, 1, 2, 3})
			f.Close()
			if p := must[*engine.Plan](t)(e.WalkTest(ctx, d)); p.Changed() {
				t.Fatalf("plan: %s", planString(p))
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEngine(backends()[0].open(t), alice)
			d := setup(t, e, 1)[0]
			must[*engine.Plan](t)(e.WalkTest(ctx, d))
			tt.run(t, e, d)
			got := must[*engine.Manifest](t)(engine.ReadManifest(d))
			if want := freshManifest(t, e); !reflect.DeepEqual(got, want) {
				t.Fatalf("manifest with its log:\n%+v\nfresh checkout's:\n%+v", got, want)
			}
			if p := must[*engine.Plan](t)(e.WalkTest(ctx, d)); p.Changed() || !p.Valid {
				t.Fatalf("after: changed=%v valid=%v %s", p.Changed(), p.Valid, planString(p))
			}
			// And from the stat cache's view, without it.
			os.Remove(filepath.Join(d, engine.StatCacheName))
			if p := must[*engine.Plan](t)(e.WalkTest(ctx, d)); p.Changed() {
				t.Fatalf("without cache: %s", planString(p))
			}
		})
	}
}
