package gitbackend

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/thalix/tv/engine"
)

// Location is where a vault lives: a directory on this machine, or a git
// URL served by a git server.
type Location struct {
	// Path is the absolute directory of a local vault; "" for a remote one.
	Path string
	// URL is the URL of a remote vault (https://, http://, ssh://,
	// file://, or scp-like user@host:path kept as written); "" for a
	// local one. It never holds a password or token.
	URL string
}

// IsRemote reports whether the vault is reached through a git transport.
func (l Location) IsRemote() bool { return l.URL != "" }

// String returns the URL of a remote vault or the path of a local one.
func (l Location) String() string {
	if l.IsRemote() {
		return l.URL
	}
	return l.Path
}

// scpLike splits git's scp-like syntax user@host:path (user optional),
// which git recognises only when no slash comes before the first colon:
// ok when s has a colon, the part before the first one holds no slash and
// is host or user@host, each non-empty and without '@'. (It was the
// regexp ^(?:([^@/:]+)@)?([^@/:]+):(.*)$, whose compilation was ~0.7 ms of
// every tv command that opens a vault on the benchmark VM;
// FuzzScpLikeAgreesWithRegexp checks the two agree.)
func scpLike(s string) (user, host, path string, ok bool) {
	i := strings.IndexByte(s, ':')
	if i <= 0 || strings.IndexByte(s[:i], '/') >= 0 {
		return "", "", "", false
	}
	host = s[:i]
	if at := strings.IndexByte(host, '@'); at >= 0 {
		user, host = host[:at], host[at+1:]
		if user == "" || strings.IndexByte(host, '@') >= 0 {
			return "", "", "", false
		}
	}
	if host == "" {
		return "", "", "", false
	}
	return user, host, s[i+1:], true
}

// ParseLocation reads a vault location: an absolute or relative path, or
// a git URL (https://host/path.git, ssh://user@host/path.git,
// user@host:path.git, file:///abs/path.git). A URL carrying a password or
// token, or an http(s) URL with a user name, is refused: credentials live
// in tv's credential file or git's credential helpers, never in a URL that
// ends up in configs, caches and error messages.
func ParseLocation(s string) (Location, error) {
	if s == "" {
		return Location{}, fmt.Errorf("%w: empty vault location", engine.ErrUsage)
	}
	if strings.ContainsAny(s, "\x00\n\r") {
		return Location{}, fmt.Errorf("%w: vault location contains a control character", engine.ErrUsage)
	}
	if i := strings.Index(s, "://"); i > 0 && !strings.ContainsAny(s[:i], "/\\") {
		return parseURL(s)
	}
	if _, _, path, ok := scpLike(s); ok && !isWindowsDrive(s) {
		if path == "" {
			return Location{}, fmt.Errorf("%w: %q names no repository path after the colon (write user@host:path/vault.git)", engine.ErrUsage, s)
		}
		// Kept as written: git and go-git read it relative to the
		// login's home directory, which no ssh:// URL can say.
		return Location{URL: s}, nil
	}
	abs, err := filepath.Abs(s)
	if err != nil {
		return Location{}, fmt.Errorf("%w: vault path %s: %v", engine.ErrUsage, s, err)
	}
	return Location{Path: abs}, nil
}

func isWindowsDrive(s string) bool {
	return len(s) >= 2 && s[1] == ':' && (s[0]|0x20) >= 'a' && (s[0]|0x20) <= 'z' && (len(s) == 2 || s[2] == '\\' || s[2] == '/')
}

func parseURL(s string) (Location, error) {
	u, err := url.Parse(s)
	if err != nil {
		// url.Error repeats the input, which may hold a secret.
		return Location{}, fmt.Errorf("%w: vault URL is not a valid URL (scheme://host/path)", engine.ErrUsage)
	}
	scheme := strings.ToLower(u.Scheme)
	switch scheme {
	case "https", "http", "ssh", "git+ssh", "ssh+git", "file":
	default:
		return Location{}, fmt.Errorf("%w: vault URL scheme %q is not supported (use https://, ssh://, user@host:path, file:// or a path)", engine.ErrUsage, u.Scheme)
	}
	if u.User != nil {
		_, hasPassword := u.User.Password()
		if hasPassword || scheme == "https" || scheme == "http" {
			return Location{}, fmt.Errorf("%w: a vault URL must not carry credentials (%s://%s%s with a user or token before the host): remove them and run `tv login --vault %s://%s%s --user NAME --token-stdin`, or set TV_TOKEN, or use a git credential helper",
				engine.ErrUsage, scheme, u.Host, u.EscapedPath(), scheme, u.Host, u.EscapedPath())
		}
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return Location{}, fmt.Errorf("%w: vault URL %s://%s%s must not have a query or fragment", engine.ErrUsage, scheme, u.Host, u.EscapedPath())
	}
	if scheme == "git+ssh" || scheme == "ssh+git" {
		scheme = "ssh"
	}
	u.Scheme = scheme
	if scheme == "file" {
		if u.Host != "" && u.Host != "localhost" {
			return Location{}, fmt.Errorf("%w: file:// vault URL names host %q; only file:///absolute/path is supported", engine.ErrUsage, u.Host)
		}
		if !filepath.IsAbs(u.Path) {
			return Location{}, fmt.Errorf("%w: file:// vault URL needs an absolute path (file:///abs/path.git)", engine.ErrUsage)
		}
		u.Host = ""
		return Location{URL: "file://" + filepath.Clean(u.Path)}, nil
	}
	if u.Host == "" || u.Path == "" || u.Path == "/" {
		return Location{}, fmt.Errorf("%w: vault URL %s needs a host and a repository path (%s://host/path/vault.git)", engine.ErrUsage, u.Redacted(), scheme)
	}
	return Location{URL: u.String()}, nil
}
