package hostconfig

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"unicode/utf8"
)

// Errors returned by this package, wrapped with %w and matched with
// errors.Is. Errors about a config file name the file.
var (
	// ErrUnknownHost: the host is not one of Hosts.
	ErrUnknownHost = errors.New("unknown MCP host")

	// ErrMalformed: the existing config file cannot be parsed (or, for
	// TOML, holds tv's entry in a form tv does not edit). The message names
	// the file and the line and column, and says to fix or move the file.
	// The file is left byte-identical.
	ErrMalformed = errors.New("malformed config file")

	// ErrEntryExists: Install found a different entry under the same name
	// and force was false. The message shows what is registered and says
	// to pass --force or --name. The file is left byte-identical.
	ErrEntryExists = errors.New("a different MCP server entry with this name exists")

	// ErrUnexpectedEntry: Lookup found an entry under the name that is not
	// a stdio command entry (not an object, no string command, or args not
	// a list of strings).
	ErrUnexpectedEntry = errors.New("registered MCP server entry is not a stdio command entry")

	// ErrInvalidEntry: the Entry passed in is unusable (bad name, empty or
	// relative command, NUL byte or invalid UTF-8).
	ErrInvalidEntry = errors.New("invalid MCP server entry")

	// ErrTooLarge: the config file, before or after the edit, is larger
	// than MaxConfigBytes.
	ErrTooLarge = errors.New("config file too large")

	// ErrConcurrentEdit: another program kept changing the file while tv
	// was editing it, MaxWriteAttempts times in a row. Nothing was written.
	ErrConcurrentEdit = errors.New("config file changed while tv was editing it")
)

// Host names an MCP host whose config file tv can edit.
type Host string

// The supported hosts.
const (
	// ClaudeCode is Claude Code's user-scope config, ~/.claude.json.
	ClaudeCode Host = "claude-code"
	// ClaudeDesktop is Claude Desktop's claude_desktop_config.json.
	ClaudeDesktop Host = "claude-desktop"
	// Cursor is Cursor's global ~/.cursor/mcp.json.
	Cursor Host = "cursor"
	// Codex is the Codex CLI's config.toml.
	Codex Host = "codex"
)

// Hosts lists every supported host, in the order tv reports them.
var Hosts = []Host{ClaudeCode, ClaudeDesktop, Cursor, Codex}

// StartsInProject reports whether host h starts its stdio servers in the
// project the user works in. Claude Desktop starts them in the root
// directory "/", so a `tv mcp local` entry for it needs --root.
func StartsInProject(h Host) bool { return h != ClaudeDesktop }

// LaunchDir is the working directory h starts servers in when it is not a
// project: "/" for Claude Desktop; "" for hosts that start in the project.
func LaunchDir(h Host) string {
	if StartsInProject(h) {
		return ""
	}
	return "/"
}

// Executable is the command whose presence on PATH shows h is installed
// ("" when it has none on PATH, like Claude Desktop).
func Executable(h Host) string {
	switch h {
	case ClaudeCode:
		return "claude"
	case Cursor:
		return "cursor"
	case Codex:
		return "codex"
	}
	return ""
}

// ParseHost returns the Host named s, or an error wrapping ErrUnknownHost
// that lists the valid names.
func ParseHost(s string) (Host, error) {
	if h := Host(s); slices.Contains(Hosts, h) {
		return h, nil
	}
	return "", unknownHost(Host(s))
}

func unknownHost(h Host) error {
	names := make([]string, len(Hosts))
	for i, x := range Hosts {
		names[i] = string(x)
	}
	return fmt.Errorf("%w %q: use one of %s", ErrUnknownHost, string(h), strings.Join(names, ", "))
}

// Entry is one stdio MCP server registration: the host runs Command with
// Args. Name is the key under mcpServers / mcp_servers.
type Entry struct {
	// Name is the server's key: 1 to MaxNameBytes letters, digits, '-' or '_'.
	Name string
	// Command is the absolute path of the executable (Install refuses a
	// relative one; JSONSnippet accepts any non-empty command).
	Command string
	// Args are the command's arguments.
	Args []string
	// Env is the server's environment beyond the host's (TV_VAULT); keys
	// match ^[A-Za-z_][A-Za-z0-9_]*$. Empty: no env key is written.
	Env map[string]string
}

// Env is everything path selection depends on, so ConfigPath is a pure
// function and tests can cover every platform on any machine.
type Env struct {
	// GOOS selects the platform rules ("linux", "darwin", "windows", …);
	// empty means runtime.GOOS.
	GOOS string
	// Home is the user's home directory, absolute.
	Home string
	// Getenv reads XDG_CONFIG_HOME, APPDATA and CODEX_HOME; nil reads
	// nothing.
	Getenv func(string) string
}

// DefaultEnv returns the Env of the running process.
func DefaultEnv() (Env, error) {
	home, err := os.UserHomeDir()
	return Env{GOOS: runtime.GOOS, Home: home, Getenv: os.Getenv}, err
}

func (env Env) goos() string {
	if env.GOOS == "" {
		return runtime.GOOS
	}
	return env.GOOS
}

func (env Env) getenv(k string) string {
	if env.Getenv == nil {
		return ""
	}
	return env.Getenv(k)
}

// Change says what Install or Uninstall did to tv's entry (not to the file).
type Change string

// The possible changes.
const (
	// Created: the entry was added.
	Created Change = "created"
	// Updated: a different entry of the same name was replaced (force).
	Updated Change = "updated"
	// Unchanged: an equal entry was already there; the file was not written.
	Unchanged Change = "unchanged"
	// Removed: the entry was removed (and the file deleted if nothing else
	// was left in it).
	Removed Change = "removed"
	// Absent: there was no entry (or no file) to remove; nothing was written.
	Absent Change = "absent"
)

// ConfigPath returns the config file of host h under env. It touches no
// file.
func ConfigPath(h Host, env Env) (string, error) {
	if !slices.Contains(Hosts, h) {
		return "", unknownHost(h)
	}
	goos := env.goos()
	if env.Home == "" {
		return "", errors.New("hostconfig: the home directory is not set")
	}
	if !isAbs(goos, env.Home) {
		return "", fmt.Errorf("hostconfig: the home directory %q is not an absolute path", env.Home)
	}
	home := env.Home
	switch h {
	case ClaudeCode:
		return join(goos, home, ".claude.json"), nil
	case ClaudeDesktop:
		const file = "claude_desktop_config.json"
		switch goos {
		case "darwin":
			return join(goos, home, "Library", "Application Support", "Claude", file), nil
		case "windows":
			base := env.getenv("APPDATA")
			if !isAbs(goos, base) {
				base = join(goos, home, "AppData", "Roaming")
			}
			return join(goos, base, "Claude", file), nil
		default:
			base := env.getenv("XDG_CONFIG_HOME")
			if !isAbs(goos, base) {
				base = join(goos, home, ".config")
			}
			return join(goos, base, "Claude", file), nil
		}
	case Cursor:
		return join(goos, home, ".cursor", "mcp.json"), nil
	default: // Codex
		if c := env.getenv("CODEX_HOME"); c != "" {
			if !isAbs(goos, c) {
				return "", fmt.Errorf("hostconfig: CODEX_HOME %q is not an absolute path", c)
			}
			return join(goos, c, "config.toml"), nil
		}
		return join(goos, home, ".codex", "config.toml"), nil
	}
}

// isAbs reports whether p is absolute on goos.
func isAbs(goos, p string) bool {
	if goos != "windows" {
		return strings.HasPrefix(p, "/")
	}
	if len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') &&
		('a' <= p[0]|0x20 && p[0]|0x20 <= 'z') {
		return true
	}
	return strings.HasPrefix(p, `\\`) || strings.HasPrefix(p, "//")
}

// join joins path elements with goos's separator.
func join(goos string, elem ...string) string {
	if goos != "windows" {
		return path.Join(elem...)
	}
	if runtime.GOOS == "windows" {
		return filepath.Join(elem...)
	}
	var b strings.Builder
	for i, e := range elem {
		e = strings.ReplaceAll(e, "/", `\`)
		if i > 0 {
			e = strings.TrimLeft(e, `\`)
			if !strings.HasSuffix(b.String(), `\`) {
				b.WriteByte('\\')
			}
		}
		if i < len(elem)-1 && len(e) > 3 {
			e = strings.TrimRight(e, `\`)
		}
		b.WriteString(e)
	}
	return b.String()
}

// validateEntry checks e; requireAbs demands an absolute command on goos.
func validateEntry(e Entry, goos string, requireAbs bool) error {
	if err := validateName(e.Name); err != nil {
		return err
	}
	if e.Command == "" {
		return fmt.Errorf("%w: the command is empty", ErrInvalidEntry)
	}
	if requireAbs && !isAbs(goos, e.Command) {
		return fmt.Errorf("%w: the command %s is not an absolute path", ErrInvalidEntry, quoteShort(e.Command))
	}
	for k := range e.Env {
		if !validEnvKey(k) {
			return fmt.Errorf("%w: environment variable name %s: use letters, digits and '_', not starting with a digit", ErrInvalidEntry, quoteShort(k))
		}
	}
	for _, s := range append(append([]string{e.Command}, e.Args...), slices.Collect(maps.Values(e.Env))...) {
		if !utf8.ValidString(s) {
			return fmt.Errorf("%w: %s is not valid UTF-8", ErrInvalidEntry, quoteShort(s))
		}
		if strings.IndexByte(s, 0) >= 0 {
			return fmt.Errorf("%w: %s contains a NUL byte", ErrInvalidEntry, quoteShort(s))
		}
	}
	return nil
}

// validEnvKey reports whether k is a portable environment variable name
// (and a bare TOML key).
func validEnvKey(k string) bool {
	if k == "" || k[0] >= '0' && k[0] <= '9' {
		return false
	}
	for _, c := range []byte(k) {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func validateName(name string) error {
	ok := name != "" && len(name) <= MaxNameBytes
	for i := 0; ok && i < len(name); i++ {
		c := name[i]
		ok = c == '-' || c == '_' || '0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'z'
	}
	if !ok {
		return fmt.Errorf("%w: the name %s must be 1 to %d letters, digits, '-' or '_'",
			ErrInvalidEntry, quoteShort(name), MaxNameBytes)
	}
	return nil
}

// quoteShort quotes s for a message, cut to MaxShownBytes.
func quoteShort(s string) string {
	if len(s) > MaxShownBytes {
		cut := MaxShownBytes
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return fmt.Sprintf("%q…", s[:cut])
	}
	return fmt.Sprintf("%q", s)
}

// Install registers e in host h's config file: it adds the entry, leaves an
// equal one alone, or replaces a different one when force is set (else
// ErrEntryExists). It returns the file's path and what happened to the
// entry. See the package documentation for the editing guarantees.
func Install(h Host, env Env, e Entry, force bool) (path string, ch Change, err error) {
	path, err = ConfigPath(h, env)
	if err != nil {
		return "", "", err
	}
	if err := validateEntry(e, env.goos(), true); err != nil {
		return path, "", err
	}
	err = retry(path, func(cf *configFile) error {
		out, c, err := installBytes(h, cf.data, e, force)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		ch = c
		if c == Unchanged {
			return nil
		}
		if len(out) > MaxConfigBytes {
			return fmt.Errorf("%s: %w", path, tooLarge(len(out)))
		}
		return commit(cf, out, false)
	})
	if err != nil {
		return path, "", err
	}
	return path, ch, nil
}

// Uninstall removes the entry called name from host h's config file
// (Removed), or reports Absent when there is none; a missing file stays
// missing. If nothing else is left in the file, the file is deleted.
func Uninstall(h Host, env Env, name string) (path string, ch Change, err error) {
	path, err = ConfigPath(h, env)
	if err != nil {
		return "", "", err
	}
	if err := validateName(name); err != nil {
		return path, "", err
	}
	err = retry(path, func(cf *configFile) error {
		ch = Absent
		if !cf.exists {
			return nil
		}
		out, c, empty, err := uninstallBytes(h, cf.data, name)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		ch = c
		if c == Absent {
			return nil
		}
		return commit(cf, out, empty)
	})
	if err != nil {
		return path, "", err
	}
	return path, ch, nil
}

// Lookup returns the entry registered as name in host h's config file, for
// `tv mcp doctor`. ok is false when the file or the entry is missing. When
// an entry exists but is not a stdio command entry, ok is true, e holds
// what could be read, and err wraps ErrUnexpectedEntry. Other keys of the
// entry (env, cwd, …) are not reported.
func Lookup(h Host, env Env, name string) (e Entry, ok bool, path string, err error) {
	path, err = ConfigPath(h, env)
	if err != nil {
		return Entry{}, false, "", err
	}
	if err := validateName(name); err != nil {
		return Entry{}, false, path, err
	}
	cf, err := readConfig(path)
	if err != nil {
		return Entry{}, false, path, err
	}
	if !cf.exists {
		return Entry{}, false, path, nil
	}
	e, ok, err = lookupBytes(h, cf.data, name)
	if err != nil {
		err = fmt.Errorf("%s: %w", path, err)
	}
	return e, ok, path, err
}

// JSONSnippet renders {"mcpServers": {NAME: {"command": …, "args": […]}}}
// with 2-space indentation and a final newline, for `tv mcp config` and
// hosts tv does not edit.
func JSONSnippet(e Entry) ([]byte, error) {
	if err := validateEntry(e, "", false); err != nil {
		return nil, err
	}
	st := defaultJSONStyle()
	srv := newJSONServer(e, false)
	out := objectWith(st, true, "", mcpServersKey, func(prefix string) []byte {
		return objectWith(st, true, prefix, e.Name, func(prefix string) []byte {
			return renderServer(st, srv, true, prefix)
		})
	})
	return append(out, '\n'), nil
}

// TOMLSnippet renders e as Codex's [mcp_servers.NAME] table (and its env
// sub-table), for `tv mcp config --format toml`.
func TOMLSnippet(e Entry) ([]byte, error) {
	if err := validateEntry(e, "", false); err != nil {
		return nil, err
	}
	if !validTOMLBareKey(e.Name) {
		return nil, fmt.Errorf("%w: name %s is not a bare TOML key", ErrInvalidEntry, quoteShort(e.Name))
	}
	return tomlEntry(e, "\n"), nil
}

// validTOMLBareKey: the entry names tv accepts are bare keys already
// (letters, digits, '-' and '_'); checked again where TOML is written.
func validTOMLBareKey(k string) bool {
	for _, c := range []byte(k) {
		if !isBareKeyChar(c) {
			return false
		}
	}
	return k != ""
}

// installBytes is Install on a file's content (nil or empty: no file).
func installBytes(h Host, data []byte, e Entry, force bool) ([]byte, Change, error) {
	var out []byte
	var ch Change
	var err error
	if h == Codex {
		out, ch, err = tomlInstall(data, e, force)
	} else {
		out, ch, err = jsonInstall(data, e, h == ClaudeCode, force)
	}
	if err != nil || ch == Unchanged {
		return out, ch, err
	}
	// Self-check: the edited text must parse and hold exactly e.
	got, ok, lerr := lookupBytes(h, out, e.Name)
	if lerr != nil || !ok || got.Command != e.Command || !slices.Equal(got.Args, e.Args) || !maps.Equal(got.Env, e.Env) {
		return nil, "", fmt.Errorf("hostconfig: internal error: the edited %s config does not verify (%v)", h, lerr)
	}
	return out, ch, nil
}

func uninstallBytes(h Host, data []byte, name string) ([]byte, Change, bool, error) {
	if h == Codex {
		return tomlUninstall(data, name)
	}
	return jsonUninstall(data, name)
}

func lookupBytes(h Host, data []byte, name string) (Entry, bool, error) {
	if h == Codex {
		return tomlLookup(data, name)
	}
	return jsonLookup(data, name)
}

// serverInfo is what tv read from an existing entry, in either format.
type serverInfo struct {
	notObject  string // JSON kind when the entry is not an object, or why
	hasCommand bool
	command    string
	badCommand bool
	argsOK     bool // absent, or a list of strings
	args       []string
	env        map[string]string // string values only; else "env" is extra
	extra      []string          // keys that make the entry differ from tv's
}

func (si serverInfo) same(e Entry) bool {
	return si.notObject == "" && si.hasCommand && !si.badCommand && si.argsOK &&
		si.command == e.Command && slices.Equal(si.args, e.Args) && maps.Equal(si.env, e.Env) && len(si.extra) == 0
}

func (si serverInfo) entry(name string) (Entry, error) {
	if si.notObject != "" || !si.hasCommand || si.badCommand || !si.argsOK {
		return Entry{Name: name, Command: si.command, Args: si.args, Env: si.env},
			fmt.Errorf("%w: %q is %s", ErrUnexpectedEntry, name, si.describe())
	}
	return Entry{Name: name, Command: si.command, Args: si.args, Env: si.env}, nil
}

// describe shows an entry for a message: command and args, and only the
// names of other keys (their values may be credentials).
func (si serverInfo) describe() string {
	if si.notObject != "" {
		return si.notObject
	}
	var parts []string
	switch {
	case si.hasCommand && !si.badCommand:
		parts = append(parts, "command "+quoteShort(si.command))
	case si.badCommand:
		parts = append(parts, "a command that is not a string")
	default:
		parts = append(parts, "no command")
	}
	if !si.argsOK {
		parts = append(parts, "args that are not a list of strings")
	} else {
		q := make([]string, len(si.args))
		for i, a := range si.args {
			q[i] = quoteShort(a)
		}
		parts = append(parts, "args ["+strings.Join(q, ", ")+"]")
	}
	if len(si.env) > 0 {
		parts = append(parts, "env "+strings.Join(slices.Sorted(maps.Keys(si.env)), ", "))
	}
	if len(si.extra) > 0 {
		parts = append(parts, "also "+strings.Join(si.extra, ", "))
	}
	return strings.Join(parts, ", ")
}

func entryExists(name string, si serverInfo) error {
	return fmt.Errorf("%w: %q is registered with %s; pass --force to replace it, or --name to register tv under another name",
		ErrEntryExists, name, si.describe())
}

// malformedAt builds an ErrMalformed for byte offset off of data.
func malformedAt(data []byte, off int, format string, args ...any) error {
	line, col := position(data, off)
	return fmt.Errorf("%w: line %d, column %d: %s; fix the file or move it aside, then retry",
		ErrMalformed, line, col, fmt.Sprintf(format, args...))
}

// position returns the 1-based line and byte column of offset off.
func position(data []byte, off int) (line, col int) {
	off = min(max(off, 0), len(data))
	line = 1 + bytes.Count(data[:off], []byte{'\n'})
	col = off - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}

func tooLarge(n int) error {
	return fmt.Errorf("%w: %d bytes, the limit is %d bytes (MaxConfigBytes, 16 MiB)", ErrTooLarge, n, MaxConfigBytes)
}
