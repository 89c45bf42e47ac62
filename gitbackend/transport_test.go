package gitbackend

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/gitbackend/nettransport"
	"github.com/thalix/tv/internal/tvbuild"
)

// TestLinksNoNetworkStack keeps the network half out of gitbackend: a
// program that opens only local vaults must not link net/http, x/crypto/ssh,
// go-git's transport clients or openpgp (they cost start-up time); those
// live in gitbackend/nettransport.
func TestLinksNoNetworkStack(t *testing.T) {
	const gogit = "github.com/go-git/go-git/v5/"
	forbidden := []struct {
		name string
		pkg  string
		tree bool // the package's subpackages too
	}{
		{"net/http", "net/http", true},
		{"x/crypto/ssh", "golang.org/x/crypto/ssh", true},
		{"transport/client", gogit + "plumbing/transport/client", false},
		{"transport/http", gogit + "plumbing/transport/http", true},
		{"transport/ssh", gogit + "plumbing/transport/ssh", true},
		{"transport/git", gogit + "plumbing/transport/git", false},
		{"transport/file", gogit + "plumbing/transport/file", false},
		{"transport/server", gogit + "plumbing/transport/server", false},
		{"plumbing/object", gogit + "plumbing/object", false},
		{"openpgp", "github.com/ProtonMail/go-crypto", true},
		// The protocol half too (package wire): go-git's transport and
		// packp packages link its config, storage, gcfg and gob, whose
		// initialisation every command paid for at start-up.
		{"transport", gogit + "plumbing/transport", false},
		{"packp", gogit + "plumbing/protocol/packp", true},
		{"go-git config", gogit + "config", false},
		{"go-git storage", gogit + "storage", true},
		{"gcfg", "github.com/go-git/gcfg", true},
		{"encoding/gob", "encoding/gob", false},
	}
	deps := tvbuild.Deps(t)
	for _, f := range forbidden {
		t.Run(f.name, func(t *testing.T) {
			for _, d := range deps {
				if d == f.pkg || (f.tree && strings.HasPrefix(d, f.pkg+"/")) {
					t.Errorf("gitbackend links %s: network code belongs in gitbackend/nettransport (see `go list -deps ./gitbackend`)", d)
				}
			}
		})
	}
}

// TestNoTransport: without a Transport, remote vaults are refused with
// ErrNoTransport (a usage error) before anything is opened.
func TestNoTransport(t *testing.T) {
	loc, err := ParseLocation("https://example.invalid/vault.git")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		run  func() error
	}{
		{"OpenRemote", func() error {
			_, err := OpenRemote(context.Background(), loc, RemoteOptions{CacheDir: t.TempDir()})
			return err
		}},
		{"Publish", func() error {
			_, err := Publish(context.Background(), newDiskVault(t), loc, nil, nil)
			return err
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			if !errors.Is(err, ErrNoTransport) || !errors.Is(err, engine.ErrUsage) {
				t.Fatalf("err = %v, want ErrNoTransport (engine.ErrUsage)", err)
			}
			if !strings.Contains(err.Error(), "built without network transports") {
				t.Errorf("message %q does not say the program lacks network transports", err)
			}
		})
	}
}

// TestSSHAuthNoKey: with no ssh agent and no default key, an ssh vault's
// auth fails with ErrNoSSHKey naming where keys were looked for.
func TestSSHAuthNoKey(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("SSH_AUTH_SOCK", "")
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := sshAuth(nettransport.New(), "alice")
	if !errors.Is(err, ErrNoSSHKey) {
		t.Fatalf("err = %v, want ErrNoSSHKey", err)
	}
	if !strings.Contains(err.Error(), filepath.Join(home, ".ssh")) {
		t.Errorf("message %q does not name %s", err, filepath.Join(home, ".ssh"))
	}
}
