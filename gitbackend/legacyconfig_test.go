package gitbackend

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// legacyConfigTests are config files and the tv.vaultid readLegacyConfig
// finds in them (found: the key occurs; value "" for a boolean), or the
// line of its syntax error (errLine > 0). Each is also checked against
// `git config --get` when git is on PATH, and seeds FuzzReadLegacyConfig.
var legacyConfigTests = []struct {
	name    string
	in      string
	value   string
	found   bool
	errLine int
}{
	// Sections and keys.
	{name: "plain", in: "[tv]\n\tvaultid = vault_abc\n", value: "vault_abc", found: true},
	{name: "no spaces", in: "[tv]\nvaultid=vault_abc", value: "vault_abc", found: true},
	{name: "section case", in: "[TV]\nvaultid=vault_abc\n", value: "vault_abc", found: true},
	{name: "key case", in: "[Tv]\nVaultID = vault_abc\n", value: "vault_abc", found: true},
	{name: "subsection", in: "[tv \"x\"]\nvaultid = vault_abc\n"},
	{name: "empty subsection", in: "[tv \"\"]\nvaultid = vault_abc\n"},
	{name: "subsection escapes", in: "[tv \"a\\\"b\\\\\"]\nvaultid = vault_abc\n"},
	{name: "dotted section", in: "[tv.x]\nvaultid = vault_abc\n"},
	{name: "trailing dot", in: "[tv.]\nvaultid = vault_abc\n"},
	{name: "other section", in: "[core]\nvaultid = vault_abc\n"},
	{name: "key before any section", in: "vaultid = vault_abc\n[tv]\n"},
	{name: "section ended", in: "[tv]\n[core]\nvaultid = vault_abc\n"},
	{name: "other key", in: "[tv]\nvault-id = vault_abc\nvaultidx = b\n"},
	{name: "empty file", in: ""},
	{name: "among others", in: "[core]\n\tbare = true\n[tv]\n\tvaultid = vault_abc\n[remote \"origin\"]\n\turl = /x\n", value: "vault_abc", found: true},
	{name: "header and key on one line", in: "[core] bare = true\n[tv] vaultid = vault_abc", value: "vault_abc", found: true},
	{name: "headers on one line", in: "[core][tv]vaultid=vault_abc\n", value: "vault_abc", found: true},

	// The last occurrence wins.
	{name: "last wins", in: "[tv]\nvaultid = vault_a\nvaultid = vault_b\n", value: "vault_b", found: true},
	{name: "section reopened", in: "[tv]\nvaultid = vault_a\n[core]\nbare\n[tv]\nvaultid = vault_b\n", value: "vault_b", found: true},
	{name: "subsection does not override", in: "[tv]\nvaultid = vault_a\n[tv \"x\"]\nvaultid = vault_b\n", value: "vault_a", found: true},
	{name: "boolean", in: "[tv]\nvaultid\n", found: true},
	{name: "boolean at the end", in: "[tv]\n  vaultid  ", found: true},
	{name: "last is boolean", in: "[tv]\nvaultid = vault_a\nvaultid\n", found: true},
	{name: "empty value", in: "[tv]\nvaultid =\n", found: true},
	{name: "empty quotes", in: "[tv]\nvaultid = \"\"\n", found: true},

	// Whitespace and comments.
	{name: "whitespace", in: "  [tv]  \n\t  vaultid\t=\t vault_abc \t \n", value: "vault_abc", found: true},
	{name: "inner whitespace", in: "[tv]\nvaultid = a  b\tc\rd\n", value: "a  b c d", found: true},
	{name: "comments", in: "# c\n; c\n[tv] ; c\n  # c [tv \"\n\tvaultid = vault_abc\n", value: "vault_abc", found: true},
	{name: "trailing comment", in: "[tv]\nvaultid = vault_abc # c \"\n", value: "vault_abc", found: true},
	{name: "trailing semicolon comment", in: "[tv]\nvaultid = vault_abc;c\n", value: "vault_abc", found: true},
	{name: "commented out", in: "[tv]\n# vaultid = vault_a\nvaultid = vault_b\n;vaultid = vault_c\n", value: "vault_b", found: true},
	{name: "comment keeps no continuation", in: "[tv]\nvaultid = vault_abc # c \\\nvaultid = vault_d\n", value: "vault_d", found: true},
	{name: "CRLF", in: "[tv]\r\nvaultid = vault_abc\r\n", value: "vault_abc", found: true},
	{name: "byte order mark", in: "\xef\xbb\xbf[tv]\nvaultid = vault_abc\n", value: "vault_abc", found: true},

	// Quotes, escapes and continued lines.
	{name: "quoted", in: "[tv]\nvaultid = \"vault_abc\"\n", value: "vault_abc", found: true},
	{name: "quoted spaces", in: "[tv]\nvaultid = \" a  b \"\n", value: " a  b ", found: true},
	{name: "quoted comment characters", in: "[tv]\nvaultid = \"a#b;c\" # c\n", value: "a#b;c", found: true},
	{name: "quoted part", in: "[tv]\nvaultid = vault_\"a b\"c  d\n", value: "vault_a bc  d", found: true},
	{name: "escapes", in: "[tv]\nvaultid = \"a\\\"b\\\\c\\nd\\te\\bf\"\n", value: "a\"b\\c\nd\te\bf", found: true},
	{name: "escapes unquoted", in: "[tv]\nvaultid = a\\tb\\\"\n", value: "a\tb\"", found: true},
	{name: "continued", in: "[tv]\nvaultid = vault_\\\nabc\n", value: "vault_abc", found: true},
	{name: "continued with spaces", in: "[tv]\nvaultid = vault \\\n  abc\n", value: "vault   abc", found: true},
	{name: "continued in quotes", in: "[tv]\nvaultid = \"vault_\\\nabc\"\n", value: "vault_abc", found: true},
	{name: "continued at the end", in: "[tv]\nvaultid = vault_abc\\", value: "vault_abc", found: true},
	{name: "continued CRLF", in: "[tv]\r\nvaultid = vault_\\\r\nabc\r\n", value: "vault_abc", found: true},

	// Malformed files.
	{name: "unterminated quote", in: "[tv]\nvaultid = \"vault_abc\n", errLine: 2},
	{name: "unterminated quote at the end", in: "[tv]\nvaultid = \"vault_abc", errLine: 2},
	{name: "unterminated continued quote", in: "[tv]\nvaultid = \"vault_\\\nabc\n", errLine: 3},
	{name: "unknown escape", in: "[tv]\nvaultid = vault\\qabc\n", errLine: 2},
	{name: "header without bracket", in: "[core]\n[tv\nvaultid = vault_abc\n", errLine: 2},
	{name: "header at the end", in: "[tv", errLine: 1},
	{name: "header without name", in: "[]\n", errLine: 1},
	{name: "bad section name", in: "[t_v]\n", errLine: 1},
	{name: "space in header", in: "[tv x]\n", errLine: 1},
	{name: "space before bracket", in: "[tv ]\n", errLine: 1},
	{name: "subsection without bracket", in: "[tv \"x\"\nvaultid = a\n", errLine: 1},
	{name: "unterminated subsection", in: "[tv \"x]\nvaultid = a\n", errLine: 1},
	{name: "value without key", in: "[tv]\n= vault_abc\n", errLine: 2},
	{name: "key starting with a digit", in: "[tv]\n1vaultid = vault_abc\n", errLine: 2},
	{name: "bad key", in: "[tv]\nvault_id = vault_abc\n", errLine: 2},
	{name: "boolean with a comment", in: "[core]\nbare # c\n", errLine: 2},
	{name: "key and junk", in: "[tv]\n\nvaultid vault_abc\n", errLine: 3},
	{name: "vertical tab", in: "[tv]\n\vvaultid = vault_abc\n", errLine: 2},
	{name: "NUL byte", in: "[tv]\n# c\nvaultid = vault_\x00abc\n", errLine: 3},
	{name: "partial byte order mark", in: "\xef\xbb[tv]\n", errLine: 1},
}

func TestReadLegacyConfig(t *testing.T) {
	_, noGit := exec.LookPath("git")
	for _, tt := range legacyConfigTests {
		t.Run(tt.name, func(t *testing.T) {
			value, found, err := readLegacyConfig([]byte(tt.in))
			if tt.errLine > 0 {
				var se *configSyntaxError
				if !errors.As(err, &se) || se.line != tt.errLine {
					t.Fatalf("readLegacyConfig(%q) = %q, %v, %v; want a syntax error on line %d", tt.in, value, found, err, tt.errLine)
				}
			} else if err != nil || value != tt.value || found != tt.found {
				t.Fatalf("readLegacyConfig(%q) = %q, %v, %v; want %q, %v", tt.in, value, found, err, tt.value, tt.found)
			}
			if noGit != nil || strings.IndexByte(tt.in, 0) >= 0 {
				return // git cuts names and values at a NUL; readLegacyConfig refuses one
			}
			gitValue, gitFound, ok := gitConfigGet(t, []byte(tt.in))
			if ok != (tt.errLine == 0) || ok && (gitValue != tt.value || gitFound != tt.found) {
				t.Fatalf("git config --get: %q, %v, accepted %v", gitValue, gitFound, ok)
			}
		})
	}
}

// gitConfigGet runs `git config --file F --get tv.vaultid` on a file
// holding data: the value printed and whether git found the key, or ok
// false when git refuses the file.
func gitConfigGet(t *testing.T, data []byte) (value string, found, ok bool) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "config", "--file", p, "--get", legacyIDKey)
	cmd.Env = gitEnv(homeDir(t))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		out, cut := strings.CutSuffix(stdout.String(), "\n")
		if !cut {
			t.Fatalf("git config --get printed %q, without a final newline", stdout.String())
		}
		return out, true, true
	case errors.As(err, &exit) && exit.ExitCode() == 1 && stdout.Len() == 0 && stderr.Len() == 0:
		return "", false, true
	case errors.As(err, &exit) && strings.Contains(stderr.String(), "bad config line"):
		return "", false, false
	}
	t.Fatalf("git config --get: %v\n%s", err, stderr.String())
	return "", false, false
}

// Config files written by git itself read back as git reads them.
func TestReadLegacyConfigWrittenByGit(t *testing.T) {
	requireGit(t)
	tests := []struct {
		name string
		sets [][]string // git config --file F arguments, in order
		want string
	}{
		{"alone", [][]string{{"tv.vaultid", "vault_abc"}}, "vault_abc"},
		{"among others", [][]string{
			{"core.repositoryformatversion", "0"}, {"core.bare", "true"},
			{"tv.vaultid", "vault_abc"}, {"remote.origin.url", "/srv/v.git"}, {"core.filemode", "true"},
		}, "vault_abc"},
		{"subsection and dotted key", [][]string{{"tv.x.vaultid", "vault_x"}, {"tv.vaultid", "vault_abc"}, {"tv.a.b.vaultid", "vault_y"}}, "vault_abc"},
		{"replaced", [][]string{{"tv.vaultid", "vault_a"}, {"tv.vaultid", "vault_abc"}}, "vault_abc"},
		{"added", [][]string{{"tv.vaultid", "vault_a"}, {"--add", "tv.vaultid", "vault_abc"}}, "vault_abc"},
		{"mixed case", [][]string{{"TV.VaultID", "vault_abc"}}, "vault_abc"},
		{"quoted", [][]string{{"tv.vaultid", " vault a#b;c\"d\\e\tf\ng "}}, " vault a#b;c\"d\\e\tf\ng "},
		{"boolean section", [][]string{{"core.bare", "true"}, {"--bool", "tv.other", "yes"}, {"tv.vaultid", "vault_abc"}}, "vault_abc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "config")
			for _, args := range tt.sets {
				cmd := exec.Command("git", append([]string{"config", "--file", p}, args...)...)
				cmd.Env = gitEnv(homeDir(t))
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git config %v: %v\n%s", args, err, out)
				}
			}
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			value, found, err := readLegacyConfig(data)
			if err != nil || !found || value != tt.want {
				t.Fatalf("readLegacyConfig(%q) = %q, %v, %v; want %q", data, value, found, err, tt.want)
			}
			switch id, err := readLegacyID(p); {
			case !validVaultID(tt.want): // read alike, but no id: refused
				if !errors.Is(err, ErrNotVault) {
					t.Fatalf("readLegacyID = %q, %v; want ErrNotVault for an invalid id", id, err)
				}
			case err != nil || id != tt.want:
				t.Fatalf("readLegacyID = %q, %v; want %q", id, err, tt.want)
			}
			if gitValue, gitFound, ok := gitConfigGet(t, data); !ok || !gitFound || gitValue != tt.want {
				t.Fatalf("git config --get: %q, %v, accepted %v", gitValue, gitFound, ok)
			}
		})
	}
}

// readLegacyID wraps every failure in ErrNotVault and names the file (and
// the line of a syntax error); it refuses a file over MaxLegacyConfigBytes.
func TestReadLegacyIDErrors(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "config")
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check := func(wantID string, wantMsg ...string) {
		t.Helper()
		id, err := readLegacyID(p)
		if wantID != "" {
			if err != nil || id != wantID {
				t.Fatalf("readLegacyID = %q, %v; want %q", id, err, wantID)
			}
			return
		}
		if !errors.Is(err, ErrNotVault) {
			t.Fatalf("readLegacyID = %q, %v; want ErrNotVault", id, err)
		}
		for _, m := range wantMsg {
			if !strings.Contains(err.Error(), m) {
				t.Fatalf("error %q does not say %q", err, m)
			}
		}
	}
	check("", "no such file")
	missing := dir + " has no " + VaultIDRef + " ref (and no " + legacyIDKey + " in its config)"
	write("[core]\n\tbare = true\n")
	check("", missing)
	write("[tv]\n\tvaultid\n")
	check("", missing)
	write("[tv]\n\tvaultid = \"\"\n")
	check("", missing)
	write("[tv]\n\tvaultid = \"vault_abc\n")
	check("", p+": line 2: unterminated quote")
	write("[tv]\n\tvaultid = hello world\n")
	check("", legacyIDKey+` = "hello world" is not a vault id`)
	write("[tv]\n\tvaultid = vault_\n")
	check("", "is not a vault id")

	// Up to the limit is read; a byte more is refused.
	head := "[tv]\n\tvaultid = vault_abc\n"
	pad := strings.Repeat("#"+strings.Repeat("x", 62)+"\n", MaxLegacyConfigBytes/64)
	write(head + pad[:MaxLegacyConfigBytes-len(head)])
	check("vault_abc")
	write(head + pad[:MaxLegacyConfigBytes-len(head)] + "\n")
	check("", p, "1048576")
}

// FuzzReadLegacyConfig checks that readLegacyConfig never panics, reports
// lines that exist, and, for files `git config` accepts (when git is on
// PATH), finds what `git config --file F --get tv.vaultid` prints.
func FuzzReadLegacyConfig(f *testing.F) {
	for _, tt := range legacyConfigTests {
		f.Add([]byte(tt.in))
	}
	_, noGit := exec.LookPath("git")
	f.Fuzz(func(t *testing.T, data []byte) {
		value, found, err := readLegacyConfig(data)
		if err != nil {
			var se *configSyntaxError
			if !errors.As(err, &se) || se.line < 1 || se.line > 1+bytes.Count(data, []byte("\n")) {
				t.Fatalf("readLegacyConfig(%q): %v: not a syntax error on a line of the file", data, err)
			}
		}
		// Only small files go to git, to keep the fuzzing fast; git cuts
		// names and values at a NUL where readLegacyConfig refuses one.
		if noGit != nil || len(data) >= 4<<10 || bytes.IndexByte(data, 0) >= 0 {
			return
		}
		gitValue, gitFound, ok := gitConfigGet(t, data)
		if !ok {
			return // git refuses the file
		}
		if err != nil || value != gitValue || found != gitFound {
			t.Fatalf("readLegacyConfig(%q) = %q, %v, %v; git config --get: %q, %v", data, value, found, err, gitValue, gitFound)
		}
	})
}
