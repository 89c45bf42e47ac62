package nettransport_test

import (
	"strings"
	"testing"

	"github.com/thalix/tv/gitbackend"
	"github.com/thalix/tv/gitbackend/nettransport"
)

// Transport is what gitbackend needs to reach servers.
var _ gitbackend.Transport = nettransport.New()

func TestDial(t *testing.T) {
	tests := []struct {
		url      string
		valid    bool
		protocol string
		user     string
	}{
		{"https://example.invalid/vault.git", true, "https", ""},
		{"http://example.invalid/vault.git", true, "http", ""},
		{"ssh://git@example.invalid/vault.git", true, "ssh", "git"},
		{"git@example.invalid:vault.git", true, "ssh", "git"},
		{"git://example.invalid/vault.git", true, "git", ""},
		{"file:///srv/vault.git", true, "file", ""},
		{"gopher://example.invalid/vault.git", false, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.url, func(t *testing.T) {
			c, err := nettransport.New().Dial(tc.url)
			if !tc.valid {
				if err == nil {
					t.Fatalf("Dial(%s) = %v; want an unsupported-scheme error", tc.url, c)
				}
				return
			}
			if err != nil {
				t.Fatalf("Dial(%s): %v", tc.url, err)
			}
			if c.Protocol() != tc.protocol || c.User() != tc.user {
				t.Errorf("Dial(%s): protocol %q user %q, want %q %q", tc.url, c.Protocol(), c.User(), tc.protocol, tc.user)
			}
		})
	}
}

func TestBasicAuth(t *testing.T) {
	a := nettransport.New().BasicAuth("alice", "s3cr3t-token")
	if a.Name() != "http-basic-auth" {
		t.Errorf("Name() = %q, want http-basic-auth", a.Name())
	}
	if s := a.String(); s == "" || strings.Contains(s, "s3cr3t-token") {
		t.Errorf("String() = %q: empty or shows the token", s)
	}
}
