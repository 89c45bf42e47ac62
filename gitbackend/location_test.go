package gitbackend

import (
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/thalix/tv/engine"
)

func TestParseLocation(t *testing.T) {
	abs, _ := filepath.Abs("rel/vault.git")
	tests := []struct {
		in      string
		url     string
		path    string
		refused string // substring of the error; "" when accepted
	}{
		{in: "/srv/vault.git", path: "/srv/vault.git"},
		{in: "rel/vault.git", path: abs},
		{in: "https://git.example.com/team/vault.git", url: "https://git.example.com/team/vault.git"},
		{in: "HTTPS://git.example.com:8443/vault.git", url: "https://git.example.com:8443/vault.git"},
		{in: "ssh://git@host.example/srv/vault.git", url: "ssh://git@host.example/srv/vault.git"},
		{in: "git+ssh://git@host/v.git", url: "ssh://git@host/v.git"},
		{in: "git@host.example:team/vault.git", url: "git@host.example:team/vault.git"},
		{in: "host.example:/srv/vault.git", url: "host.example:/srv/vault.git"},
		{in: "file:///srv/vault.git", url: "file:///srv/vault.git"},
		{in: "file:///srv/../srv/vault.git/", url: "file:///srv/vault.git"},
		{in: "./a:b", path: mustAbs(t, "./a:b")},
		{in: "https://alice:s3cret@host/vault.git", refused: "must not carry credentials"},
		{in: "https://ghp_token@host/vault.git", refused: "must not carry credentials"},
		{in: "ssh://git:pw@host/vault.git", refused: "must not carry credentials"},
		{in: "ftp://host/vault.git", refused: "not supported"},
		{in: "https://host", refused: "needs a host and a repository path"},
		{in: "https://host/v.git?x=1", refused: "query"},
		{in: "file://otherhost/v.git", refused: "only file:///"},
		{in: "git@host:", refused: "no repository path"},
		{in: "", refused: "empty"},
		{in: "/a\nb", refused: "control character"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseLocation(tt.in)
			if tt.refused != "" {
				if err == nil || !errors.Is(err, engine.ErrUsage) || !strings.Contains(err.Error(), tt.refused) {
					t.Fatalf("ParseLocation(%q) = %+v, %v; want ErrUsage containing %q", tt.in, got, err, tt.refused)
				}
				for _, secret := range []string{"s3cret", "ghp_token", ":pw@"} {
					if strings.Contains(err.Error(), secret) {
						t.Fatalf("error repeats the secret: %v", err)
					}
				}
				return
			}
			if err != nil || got.URL != tt.url || got.Path != tt.path || got.IsRemote() != (tt.url != "") {
				t.Fatalf("ParseLocation(%q) = %+v, %v; want url %q path %q", tt.in, got, err, tt.url, tt.path)
			}
		})
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func FuzzParseLocation(f *testing.F) {
	for _, s := range []string{"/srv/v.git", "https://u:p@h/v.git", "git@h:v.git", "file:///v", "a:b", "ssh://h/v"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseLocation(s)
		if err != nil {
			if !errors.Is(err, engine.ErrUsage) {
				t.Fatalf("error without ErrUsage: %v", err)
			}
			return
		}
		if l.IsRemote() == (l.Path != "") {
			t.Fatalf("%q: exactly one of URL and Path must be set: %+v", s, l)
		}
		if l.IsRemote() && strings.Contains(l.URL, "://") && strings.Contains(strings.SplitN(strings.SplitN(l.URL, "://", 2)[1], "/", 2)[0], ":@") {
			t.Fatalf("%q: URL keeps a password: %q", s, l.URL)
		}
	})
}

// FuzzScpLikeAgreesWithRegexp: scpLike splits exactly what git's
// scp-like pattern (the regexp it replaced) matches, into the same parts.
func FuzzScpLikeAgreesWithRegexp(f *testing.F) {
	re := regexp.MustCompile(`^(?:([^@/:]+)@)?([^@/:]+):(.*)$`)
	for _, s := range []string{"git@h:v.git", "h:v", "a:b", "@h:v", "u@:v", "u@h@x:v", "/a:b", "a/b:c", ":x", "u@h:", "h:p:q", "c:\\x", "u@h:/abs"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsAny(s, "\n") {
			return // ParseLocation refuses control characters first
		}
		user, host, path, ok := scpLike(s)
		m := re.FindStringSubmatch(s)
		if ok != (m != nil) {
			t.Fatalf("%q: scpLike ok=%v, regexp match=%v", s, ok, m != nil)
		}
		if ok && (user != m[1] || host != m[2] || path != m[3]) {
			t.Fatalf("%q: scpLike (%q, %q, %q), regexp (%q, %q, %q)", s, user, host, path, m[1], m[2], m[3])
		}
	})
}
