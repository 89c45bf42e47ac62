package gitwork

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Running `git config` costs a process start (several milliseconds, far
// more on a busy machine) in every `tv check`, for one value that is
// almost always in one of a few small files. excludesFileFromConfig reads
// those files itself, as git would, and says when it cannot be sure (an
// include, an unusual layout or environment): the caller then asks git.

// configEnvAskGit are the environment variables that change which
// configuration git reads, or add to it, beyond what
// excludesFileFromConfig follows.
var configEnvAskGit = []string{"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CONFIG", "GIT_CONFIG_SYSTEM", "GIT_DIR", "GIT_COMMON_DIR", "GIT_WORK_TREE", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM", "SUDO_UID"}

// excludesFileFromConfig returns core.excludesFile as `git -C top config
// --path --get core.excludesFile` prints it ("" when unset); sure is
// false when it cannot tell without running git. It reads the system
// configuration of a git installed in /usr, the global one and the
// repository's own, and follows the process's environment as git does.
func excludesFileFromConfig(top string) (value string, sure bool) {
	for _, k := range configEnvAskGit {
		if _, set := os.LookupEnv(k); set {
			return "", false
		}
	}
	gitDir := filepath.Join(top, ".git")
	fi, err := os.Lstat(gitDir)
	if err != nil || !fi.IsDir() || !ownedByMe(fi) {
		return "", false // a linked worktree, a submodule, or one git may refuse as unsafe
	}
	var files []string
	if !envTrue("GIT_CONFIG_NOSYSTEM") {
		if p, err := exec.LookPath("git"); err != nil || p != "/usr/bin/git" {
			return "", false // its system configuration may be elsewhere
		}
		files = append(files, "/etc/gitconfig")
	}
	home := os.Getenv("HOME")
	if g, set := os.LookupEnv("GIT_CONFIG_GLOBAL"); set {
		files = append(files, g)
	} else {
		xdg := os.Getenv("XDG_CONFIG_HOME")
		switch {
		case xdg != "":
			files = append(files, filepath.Join(xdg, "git", "config"))
		case home != "":
			files = append(files, filepath.Join(home, ".config", "git", "config"))
		}
		if home != "" {
			files = append(files, filepath.Join(home, ".gitconfig"))
		}
	}
	files = append(files, filepath.Join(gitDir, "config"))
	found := false
	for _, name := range files {
		if name == "" {
			continue
		}
		data, err := os.ReadFile(name)
		switch {
		case err != nil && os.IsNotExist(err):
			continue
		case err != nil || len(data) > MaxExcludesBytes:
			return "", false
		}
		v, ok, sure := configValue(data, "core", "excludesfile")
		if !sure {
			return "", false
		}
		if ok {
			value, found = v, true
		}
	}
	if !found {
		return "", true
	}
	switch {
	case value == "" || strings.HasPrefix(value, "%(") || strings.HasPrefix(value, "~") && !strings.HasPrefix(value, "~/"):
		return "", false
	case strings.HasPrefix(value, "~/"):
		if home == "" {
			return "", false
		}
		value = filepath.Join(home, value[2:])
	}
	return strings.TrimSpace(value), true
}

// configValue returns the last value of key (lower case) in section (lower
// case, no subsection) of a git configuration file; sure is false for
// what this reader does not follow: includes, continued lines, a
// worktree-configuration switch, a line it cannot parse.
func configValue(data []byte, section, key string) (value string, ok, sure bool) {
	lower := bytes.ToLower(data)
	if bytes.Contains(lower, []byte("include")) || bytes.Contains(lower, []byte("worktreeconfig")) {
		return "", false, false
	}
	in := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), MaxExcludesBytes+1)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasSuffix(line, `\`) {
			return "", false, false
		}
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				return "", false, false
			}
			if rest := strings.TrimSpace(line[end+1:]); rest != "" {
				if rest[0] != '#' && rest[0] != ';' {
					return "", false, false // a variable after the header: not followed
				}
			}
			in = strings.EqualFold(strings.TrimSpace(line[1:end]), section)
			continue
		}
		name, rest := line, ""
		if i := strings.IndexAny(line, "= \t#;"); i >= 0 {
			name, rest = line[:i], strings.TrimSpace(line[i:])
		}
		if !in || !strings.EqualFold(name, key) {
			continue
		}
		if !strings.HasPrefix(rest, "=") {
			return "", false, false // a bare boolean: git would complain
		}
		v, good := unquoteConfig(strings.TrimSpace(rest[1:]))
		if !good {
			return "", false, false
		}
		value, ok = v, true
	}
	if sc.Err() != nil {
		return "", false, false
	}
	return value, ok, true
}

// unquoteConfig decodes a configuration value as git does: double quotes
// removed, \\ \" \n \t \b escapes decoded, an unquoted # or ; starts a
// comment, unquoted trailing spaces dropped.
func unquoteConfig(s string) (string, bool) {
	var b strings.Builder
	quoted := false
	trail := 0 // unquoted spaces at the end of b
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			quoted = !quoted
			trail = 0
			continue
		case c == '\\':
			if i+1 >= len(s) {
				return "", false
			}
			i++
			switch s[i] {
			case '\\', '"':
				c = s[i]
			case 'n':
				c = '\n'
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			default:
				return "", false
			}
			b.WriteByte(c)
			trail = 0
			continue
		case !quoted && (c == '#' || c == ';'):
			i = len(s)
			continue
		}
		if !quoted && (c == ' ' || c == '\t') {
			trail++
		} else {
			trail = 0
		}
		b.WriteByte(c)
	}
	if quoted {
		return "", false
	}
	out := b.String()
	return out[:len(out)-trail], true
}

func envTrue(k string) bool {
	switch strings.ToLower(os.Getenv(k)) {
	case "", "0", "false", "no", "off":
		return false
	}
	return true
}
