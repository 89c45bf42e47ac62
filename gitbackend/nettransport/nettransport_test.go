package nettransport_test

import (
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/thalix/tv/gitbackend"
	"github.com/thalix/tv/gitbackend/nettransport"
)

// Transport is what gitbackend needs to reach servers.
var _ gitbackend.Transport = nettransport.New()

func TestClient(t *testing.T) {
	tests := []struct {
		url   string
		valid bool
	}{
		{"https://example.invalid/vault.git", true},
		{"http://example.invalid/vault.git", true},
		{"ssh://git@example.invalid/vault.git", true},
		{"git@example.invalid:vault.git", true},
		{"git://example.invalid/vault.git", true},
		{"file:///srv/vault.git", true},
		{"gopher://example.invalid/vault.git", false},
	}
	for _, tc := range tests {
		t.Run(tc.url, func(t *testing.T) {
			ep, err := transport.NewEndpoint(tc.url)
			if err != nil {
				t.Fatal(err)
			}
			cli, err := nettransport.New().Client(ep)
			if tc.valid && (err != nil || cli == nil) {
				t.Fatalf("Client(%s) = %v, %v; want a transport", tc.url, cli, err)
			}
			if !tc.valid && err == nil {
				t.Fatalf("Client(%s) = %v; want an unsupported-scheme error", tc.url, cli)
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
