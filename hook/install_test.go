package hook

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/internal/testexe"
)

func TestInstall(t *testing.T) {
	t.Parallel()
	env := testEnv(t, t.TempDir())
	tv := "/opt/tv's bin/tv"
	bare := func(t *testing.T) string {
		repo := filepath.Join(t.TempDir(), "vault.git")
		gitRun(t, env, ".", "", "init", "-q", "--bare", repo)
		return repo
	}
	t.Run("idempotent, with the marker ref", func(t *testing.T) {
		repo := bare(t)
		first, err := Install(t.Context(), repo, InstallOptions{Tv: tv, Env: env, UserEnv: "TV_PUSHER"})
		if err != nil || !first.HookChanged || !first.MarkerCreated {
			t.Fatalf("first install: %+v, %v", first, err)
		}
		text, err := os.ReadFile(first.Hook)
		if err != nil {
			t.Fatal(err)
		}
		if want := `exec '/opt/tv'\''s bin/tv' hook pre-receive --user-env TV_PUSHER`; !strings.Contains(string(text), want) {
			t.Fatalf("script lacks %q:\n%s", want, text)
		}
		if st, _ := os.Stat(first.Hook); st.Mode()&0o111 == 0 {
			t.Fatalf("script is not executable: %v", st.Mode())
		}
		msg := gitRun(t, env, repo, "", "log", "-1", "--format=%B", EnforcedRef)
		if trailer := HookVersionTrailer + ": " + HookVersion; !strings.Contains(msg, trailer) {
			t.Fatalf("marker commit lacks %q:\n%s", trailer, msg)
		}
		refs := gitRun(t, env, repo, "", "for-each-ref")
		again, err := Install(t.Context(), repo, InstallOptions{Tv: tv, Env: env, UserEnv: "TV_PUSHER"})
		if err != nil || again.HookChanged || again.MarkerCreated || again.Enforced != first.Enforced {
			t.Fatalf("second install: %+v, %v", again, err)
		}
		if gitRun(t, env, repo, "", "for-each-ref") != refs {
			t.Fatal("second install changed the refs")
		}
	})
	t.Run("Gitea's pre-receive.d", func(t *testing.T) {
		repo := bare(t)
		out, err := Install(t.Context(), repo, InstallOptions{Tv: tv, Env: env, HookFile: "pre-receive.d/tv"})
		if err != nil || out.Hook != filepath.Join(repo, "hooks", "pre-receive.d", "tv") {
			t.Fatalf("%+v, %v", out, err)
		}
	})
	for _, tc := range []struct {
		name string
		repo func(t *testing.T) string
		opts InstallOptions
		want error
	}{
		{"a work tree", func(t *testing.T) string {
			dir := t.TempDir()
			gitRun(t, env, ".", "", "init", "-q", dir)
			return dir
		}, InstallOptions{Tv: tv}, ErrNotBare},
		{"a work tree's .git", func(t *testing.T) string {
			dir := t.TempDir()
			gitRun(t, env, ".", "", "init", "-q", dir)
			return filepath.Join(dir, ".git")
		}, InstallOptions{Tv: tv}, ErrNotBare},
		{"no repository", func(t *testing.T) string { return t.TempDir() }, InstallOptions{Tv: tv}, ErrNotBare},
		{"a foreign hook", func(t *testing.T) string {
			repo := bare(t)
			testexe.Write(t, filepath.Join(repo, "hooks", "pre-receive"), []byte("#!/bin/sh\nexit 0\n"))
			return repo
		}, InstallOptions{Tv: tv}, ErrHookExists},
		{"a bad identity variable", bare, InstallOptions{Tv: tv, UserEnv: "X; rm -rf /"}, ErrUsage},
		{"a relative tv path", bare, InstallOptions{Tv: "tv"}, ErrUsage},
		{"a hook file outside hooks", bare, InstallOptions{Tv: tv, HookFile: "../config"}, ErrUsage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := tc.repo(t)
			tc.opts.Env = env
			before, _ := gitTry(env, repo, "", "for-each-ref")
			_, err := Install(t.Context(), repo, tc.opts)
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			if after, _ := gitTry(env, repo, "", "for-each-ref"); after != before {
				t.Fatal("a refused install changed the refs")
			}
			if _, err := gitTry(env, repo, "", "rev-parse", "--verify", "--quiet", EnforcedRef); err == nil {
				t.Fatal("a refused install created the marker")
			}
		})
	}
}

// TestRefusalLine pins the line format the remote client parses.
func TestRefusalLine(t *testing.T) {
	for _, tc := range []struct {
		r    Refusal
		want string
	}{
		{Refusal{CodeNotTvRef, "refs/heads/main", "not one of tv's refs"}, "tv: not-a-tv-ref: refs/heads/main: not one of tv's refs"},
		{Refusal{CodeRefused, "", "two\nlines"}, "tv: input-refused: two lines"},
		{Refusal{CodePermission, engine.AccessRef, "x"}, "tv: permission-denied: refs/tv/access: x"},
	} {
		if got := tc.r.String(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

// TestScript: the script names tv in its "#!" line where the kernel can
// run it so, and is a /bin/sh script that execs tv otherwise.
func TestScript(t *testing.T) {
	long := "/" + strings.Repeat("d", MaxShebangLine) + "/tv"
	tests := []struct {
		name, tv, userEnv string
		first             string // the script's first line on Linux
		exec              string // the sh script's exec line, if that form
	}{
		{"plain path", "/usr/local/bin/tv", "", "#!/usr/local/bin/tv hook pre-receive", ""},
		{"with --user-env", "/usr/local/bin/tv", "GL_USER", "#!/usr/local/bin/tv hook pre-receive --user-env GL_USER", ""},
		{"a blank in the path", "/opt/tv's bin/tv", "", "#!/bin/sh", `exec '/opt/tv'\''s bin/tv' hook pre-receive`},
		{"a tab in the path", "/opt/a\tb/tv", "", "#!/bin/sh", "exec '/opt/a\tb/tv' hook pre-receive"},
		{"non-ASCII path", "/opt/tvé/tv", "", "#!/bin/sh", `exec '/opt/tvé/tv' hook pre-receive`},
		{"too long a line", long, "X", "#!/bin/sh", "exec '" + long + "' hook pre-receive --user-env X"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := string(Script(tt.tv, tt.userEnv))
			if !strings.Contains(text, scriptMarker) {
				t.Fatalf("no marker:\n%s", text)
			}
			first, _, _ := strings.Cut(text, "\n")
			if runtime.GOOS != "linux" && tt.exec == "" {
				tt.first, tt.exec = "#!/bin/sh", "exec '"+tt.tv+"' "+strings.TrimPrefix(tt.first, "#!"+tt.tv+" ")
			}
			if first != tt.first || len(first) > MaxShebangLine && tt.exec == "" {
				t.Fatalf("first line %q; want %q", first, tt.first)
			}
			if tt.exec != "" && !strings.Contains(text, "\n"+tt.exec+"\n") {
				t.Fatalf("script lacks %q:\n%s", tt.exec, text)
			}
		})
	}
}

// TestShebangArgs: the kernel's packing of the "#!" line is undone, and
// nothing else is taken for it.
func TestShebangArgs(t *testing.T) {
	tests := []struct {
		args []string
		want []string
		ok   bool
	}{
		{[]string{"hook pre-receive", "/r.git/hooks/pre-receive"}, []string{"hook", "pre-receive"}, true},
		{[]string{"hook pre-receive --user-env GL_USER", "/r.git/hooks/pre-receive"}, []string{"hook", "pre-receive", "--user-env", "GL_USER"}, true},
		{[]string{"hook", "pre-receive"}, []string{"hook", "pre-receive"}, false},
		{[]string{"hook pre-receive"}, []string{"hook pre-receive"}, false},
		{[]string{"hook pre-receive", "a", "b"}, []string{"hook pre-receive", "a", "b"}, false},
		{[]string{"workspace list", "x"}, []string{"workspace list", "x"}, false},
		{nil, nil, false},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, "|"), func(t *testing.T) {
			got, ok := ShebangArgs(tt.args)
			if ok != tt.ok || strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Fatalf("ShebangArgs = %q, %v; want %q, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}
