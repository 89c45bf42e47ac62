package gitbackend

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/thalix/tv/engine"
)

func TestDefaultPath(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
		err  bool
	}{
		{"TV_VAULT wins", map[string]string{"TV_VAULT": "/v/x.git", "XDG_DATA_HOME": "/xdg", "HOME": "/home/u"}, "/v/x.git", false},
		{"XDG_DATA_HOME", map[string]string{"XDG_DATA_HOME": "/xdg", "HOME": "/home/u"}, "/xdg/tv/vault.git", false},
		{"relative XDG_DATA_HOME is ignored", map[string]string{"XDG_DATA_HOME": "xdg", "HOME": "/home/u"}, "/home/u/.local/share/tv/vault.git", false},
		{"HOME", map[string]string{"HOME": "/home/u"}, "/home/u/.local/share/tv/vault.git", false},
		{"nothing set", map[string]string{}, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DefaultPath(func(k string) string { return tc.env[k] })
			if tc.err {
				if !errors.Is(err, engine.ErrUsage) {
					t.Fatalf("got %q, %v; want ErrUsage", got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

var vaultIDRe = regexp.MustCompile(`^vault_[0-9a-f]{16}$`)

func TestOpenOrCreate(t *testing.T) {
	requireGit(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "data", "tv", "vault.git")
	if _, err := Open(path); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("Open(missing) = %v, want ErrNotFound", err)
	}
	v, created, err := OpenOrCreate(path)
	if err != nil || !created {
		t.Fatalf("OpenOrCreate = %v, %v", created, err)
	}
	if !vaultIDRe.MatchString(v.ID()) || v.Path() != path {
		t.Fatalf("id %q path %q", v.ID(), v.Path())
	}
	if got := git(t, path, "", "cat-file", "blob", VaultIDRef); got != "tv vault\nTv-Vault-Id: "+v.ID() {
		t.Fatalf("trailer of %s = %q, want %q", VaultIDRef, got, v.ID())
	}
	if got := git(t, path, "", "rev-parse", "--is-bare-repository"); got != "true" {
		t.Fatalf("not a bare repository: %q", got)
	}
	git(t, path, "", "log", "--all")
	fsckClean(t, path)
	v2, created, err := OpenOrCreate(path)
	if err != nil || created || v2.ID() != v.ID() {
		t.Fatalf("second OpenOrCreate = %v, %v, %v", v2, created, err)
	}
	v3, err := Open(path)
	if err != nil || v3.ID() != v.ID() {
		t.Fatalf("Open = %v, %v", v3, err)
	}
	// With a commit on a ref, stock git shows it.
	c := mustCommit(t, v, "hello vault\n", engine.ZeroHash)
	mustUpdate(t, v, engine.RefUpdate{Name: "refs/tv/workspaces/ws_1", New: c})
	if got := git(t, path, "", "log", "--all", "--format=%s"); got != "hello vault" {
		t.Fatalf("git log --all = %q", got)
	}
	fsckClean(t, path)
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("leftovers beside the vault: %v", entries)
	}
	// Relative paths are made absolute.
	t.Chdir(dir)
	rel, err := Open(filepath.Join("data", "tv", "vault.git"))
	if err != nil || rel.Path() != path {
		t.Fatalf("Open(relative) = %v, %v", rel, err)
	}
}

func TestOpenRefusesNonVaults(t *testing.T) {
	requireGit(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	plain := filepath.Join(dir, "plain.git")
	git(t, plain, "", "init", "-q", "--bare", plain)
	junk := filepath.Join(dir, "junk")
	os.MkdirAll(filepath.Join(junk, "stuff"), 0o755)
	for _, p := range []string{file, plain, junk} {
		if _, err := Open(p); !errors.Is(err, ErrNotVault) || !errors.Is(err, engine.ErrUsage) {
			t.Errorf("Open(%s) = %v, want ErrNotVault", p, err)
		}
		if _, _, err := OpenOrCreate(p); !errors.Is(err, ErrNotVault) {
			t.Errorf("OpenOrCreate(%s) = %v, want ErrNotVault", p, err)
		}
	}
	if out, err := gitErr(t, plain, "", "config", "--get-regexp", "^tv\\."); err == nil || out != "" {
		t.Fatalf("plain repo got a tv config: %q, %v", out, err)
	}
	// An empty directory is a fine place for a new vault.
	empty := filepath.Join(dir, "empty.git")
	os.Mkdir(empty, 0o755)
	if _, created, err := OpenOrCreate(empty); err != nil || !created {
		t.Fatalf("OpenOrCreate(empty dir) = %v, %v", created, err)
	}
	fsckClean(t, empty)
}

// TestConcurrentOpenOrCreate: processes racing to create one vault all end
// up with the same one.
func TestConcurrentOpenOrCreate(t *testing.T) {
	requireGit(t)
	for round := range 3 {
		path := filepath.Join(t.TempDir(), "deep", "vault.git")
		const procs = 6
		var wg sync.WaitGroup
		outs := make([]string, procs)
		errs := make([]error, procs)
		start := make(chan struct{})
		for i := range procs {
			cmd := helperCmd(t, "create", "TV_HELPER_VAULT="+path)
			wg.Go(func() {
				<-start
				out, err := cmd.CombinedOutput()
				outs[i], errs[i] = strings.TrimSpace(string(out)), err
			})
		}
		close(start)
		wg.Wait()
		ids := map[string]bool{}
		createdCount := 0
		for i := range procs {
			if errs[i] != nil {
				t.Fatalf("round %d: helper %d: %v\n%s", round, i, errs[i], outs[i])
			}
			id, created, _ := strings.Cut(outs[i], " ")
			ids[id] = true
			if created == "true" {
				createdCount++
			}
		}
		if len(ids) != 1 || createdCount != 1 {
			t.Fatalf("round %d: ids %v, %d creators; want one id, one creator", round, ids, createdCount)
		}
		v, err := Open(path)
		if err != nil || !ids[v.ID()] {
			t.Fatalf("round %d: Open = %v, %v", round, v, err)
		}
		if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
			t.Fatalf("round %d: leftovers beside the vault: %v", round, entries)
		}
		fsckClean(t, path)
	}
}

func TestStats(t *testing.T) {
	ctx := context.Background()
	for _, kind := range vaultKinds {
		t.Run(kind.name, func(t *testing.T) {
			v := kind.new(t)
			st, err := v.Stats(ctx)
			if err != nil || st.Workspaces != 0 || st.Templates != 0 {
				t.Fatalf("empty vault stats %+v, %v", st, err)
			}
			emptyBytes := st.DiskBytes
			c := mustCommit(t, v, "x\n", engine.ZeroHash)
			mustUpdate(t, v,
				engine.RefUpdate{Name: "refs/tv/workspaces/ws_1", New: c},
				engine.RefUpdate{Name: "refs/tv/workspaces/ws_2", New: c},
				engine.RefUpdate{Name: "refs/tv/templates/tpl_1", New: c},
				engine.RefUpdate{Name: "refs/heads/other", New: c})
			st, err = v.Stats(ctx)
			if err != nil || st.Workspaces != 2 || st.Templates != 1 {
				t.Fatalf("stats %+v, %v", st, err)
			}
			if v.Path() == "" {
				if st.DiskBytes != 0 {
					t.Fatalf("memory vault DiskBytes = %d", st.DiskBytes)
				}
				return
			}
			var want int64
			filepath.Walk(v.Path(), func(_ string, fi os.FileInfo, err error) error {
				if err == nil && fi.Mode().IsRegular() {
					want += fi.Size()
				}
				return nil
			})
			if st.DiskBytes != want || st.DiskBytes <= emptyBytes {
				t.Fatalf("DiskBytes = %d, want %d (> %d)", st.DiskBytes, want, emptyBytes)
			}
		})
	}
}
