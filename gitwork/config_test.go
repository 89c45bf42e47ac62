package gitwork

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestExcludesFileFromConfigMatchesGit: where the configuration reader is
// sure, it says what `git config --path --get core.excludesFile` says; it
// is unsure for what it does not follow.
func TestExcludesFileFromConfigMatchesGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed (apt-get install git)")
	}
	cases := []struct {
		name          string
		global, local string
		unsure        bool
	}{
		{name: "unset"},
		{name: "global", global: "[core]\n\texcludesFile = /etc/ignore-a\n"},
		{name: "local wins", global: "[core]\n\texcludesFile = /a\n", local: "[core]\n\trepositoryformatversion = 0\n\texcludesfile = /b\n"},
		{name: "last in a file wins", global: "[core]\nexcludesFile=/a\n[user]\nname = x\n[Core]\nEXCLUDESFILE = /c\n"},
		{name: "home", global: "[core]\n\texcludesFile = ~/ignore\n"},
		{name: "quotes comments spaces", global: "[core]  # c\n\texcludesFile = \"/with space\" ; comment\n"},
		{name: "escapes", global: "[core]\n\texcludesFile = \"/a\\\\b\\\"c\"\n"},
		{name: "subsection is not core", global: "[core \"x\"]\n\texcludesFile = /a\n"},
		{name: "other key", global: "[core]\n\texcludesFiles = /a\n\tx = excludesFile\n"},
		{name: "include", global: "[include]\n\tpath = other\n[core]\n\texcludesFile = /a\n", unsure: true},
		{name: "continued line", global: "[core]\n\texcludesFile = /a\\\nb\n", unsure: true},
		{name: "bare boolean", global: "[core]\n\texcludesFile\n", unsure: true},
		{name: "other user's home", global: "[core]\n\texcludesFile = ~root/x\n", unsure: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			home := filepath.Join(dir, "home")
			top := filepath.Join(dir, "repo")
			for _, d := range []string{home, top} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			t.Setenv("HOME", home)
			t.Setenv("XDG_CONFIG_HOME", "")
			t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			global := filepath.Join(home, "gitconfig")
			t.Setenv("GIT_CONFIG_GLOBAL", global)
			if out, err := exec.Command("git", "init", "-q", top).CombinedOutput(); err != nil {
				t.Fatalf("git init: %v\n%s", err, out)
			}
			if err := os.WriteFile(global, []byte(tc.global), 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.local != "" {
				f, err := os.OpenFile(filepath.Join(top, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				f.WriteString(tc.local)
				f.Close()
			}
			got, sure := excludesFileFromConfig(top)
			if sure == tc.unsure {
				t.Fatalf("sure = %v, want %v", sure, !tc.unsure)
			}
			if !sure {
				return
			}
			out, _ := exec.Command("git", "-C", top, "config", "--path", "--get", "core.excludesFile").Output()
			if want := strings.TrimSpace(string(out)); got != want {
				t.Errorf("got %q, git says %q", got, want)
			}
		})
	}
}
