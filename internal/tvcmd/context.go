package tvcmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/thalix/tv/atomicfile"
	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/gitbackend"
	"github.com/thalix/tv/mounts"
)

// vaultHandle is an open vault, local or remote.
type vaultHandle interface {
	engine.Vault
	Stats(ctx context.Context) (gitbackend.VaultStats, error)
}

// vaultLocation returns where the vault is: $TV_VAULT, else the default
// recorded by `tv vault use`, else the embedded vault's path.
func (a *app) vaultLocation() (gitbackend.Location, error) {
	if v := a.io.Getenv("TV_VAULT"); v != "" {
		return gitbackend.ParseLocation(v)
	}
	if p, err := defaultVaultFile(a.io.Getenv); err == nil {
		b, err := os.ReadFile(p)
		if err == nil && strings.TrimSpace(string(b)) != "" {
			return gitbackend.ParseLocation(strings.TrimSpace(string(b)))
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return gitbackend.Location{}, fmt.Errorf("read %s: %w", p, err)
		}
	}
	path, err := gitbackend.DefaultPath(a.io.Getenv)
	if err != nil {
		return gitbackend.Location{}, err
	}
	return gitbackend.ParseLocation(path)
}

// defaultVaultFile is where `tv vault use` records the default vault:
// $XDG_CONFIG_HOME/tv/vault, else ~/.config/tv/vault.
func defaultVaultFile(getenv func(string) string) (string, error) {
	c, err := engine.CredentialsPath(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(c), "vault"), nil
}

// cacheDir is where remote vaults' caches live: $XDG_CACHE_HOME/tv, else
// ~/.cache/tv.
func cacheDir(getenv func(string) string) string {
	if d := getenv("XDG_CACHE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "tv")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".cache", "tv")
	}
	return ""
}

// openVault opens the vault: a local one is created on first use; a
// remote one is listed (or, offline, answered from its cache with a note
// on stderr saying so and how old the cache is).
func (a *app) openVault(readAhead ...string) (vaultHandle, error) {
	loc, err := a.vaultLocation()
	if err != nil {
		return nil, err
	}
	if !loc.IsRemote() {
		v, _, err := gitbackend.OpenOrCreate(loc.Path)
		return v, err
	}
	if err := a.needsTransport(loc); err != nil {
		return nil, err
	}
	r, err := gitbackend.OpenRemote(context.Background(), loc, gitbackend.RemoteOptions{
		Transport:   a.ext.Transport,
		CacheDir:    cacheDir(a.io.Getenv),
		Credentials: a.vaultCredentials(),
		ReadAhead:   readAhead,
	})
	if err != nil {
		return nil, err
	}
	if when, why := r.Offline(); why != nil {
		age := "never synced"
		if !when.IsZero() {
			age = fmt.Sprintf("last synced %s (%s ago)", when.Local().Format(time.RFC3339), time.Since(when).Round(time.Second))
		}
		fmt.Fprintf(a.io.Stderr, "tv: %v\ntv: answering from the local cache %s, %s; writes need the server\n", why, r.CacheDir(), age)
	}
	return r, nil
}

// credentials returns the logged-in identity, or nil when there is none.
func (a *app) credentials() (*engine.Credentials, error) {
	path, err := engine.CredentialsPath(a.io.Getenv)
	if err != nil {
		return nil, err
	}
	c, err := engine.LoadCredentials(path)
	if err == engine.ErrNotLoggedIn { // absent file; a damaged one is reported
		return nil, nil
	}
	return c, err
}

// openEngine opens the vault and an engine acting as the logged-in user
// (reads work without a login; writes report ErrNotLoggedIn). readAhead
// names refs the command is about to read (a remote vault fetches them
// with its first request).
func (a *app) openEngine(readAhead ...string) (*engine.Engine, error) {
	v, err := a.openVault(readAhead...)
	if err != nil {
		return nil, err
	}
	creds, err := a.credentials()
	if err != nil {
		return nil, err
	}
	mpath, err := mounts.DefaultPath(a.io.Getenv)
	if err != nil {
		return nil, err
	}
	return engine.New(v, engine.Options{Actor: creds, MountsPath: mpath, Progress: a.progress()}), nil
}

// vaultTokens is the file of tokens per vault URL (`tv login --vault`),
// beside the credential file, mode 0600.
type vaultTokens struct {
	Vaults map[string]vaultToken `json:"vaults"`
}

type vaultToken struct {
	User  string `json:"user"`
	Token string `json:"token"`
}

func vaultTokensPath(getenv func(string) string) (string, error) {
	c, err := engine.CredentialsPath(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(c), "vault-tokens.json"), nil
}

func loadVaultTokens(path string) (*vaultTokens, error) {
	t := &vaultTokens{Vaults: map[string]vaultToken{}}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return t, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read vault tokens: %w", err)
	}
	if err := json.Unmarshal(b, t); err != nil {
		return nil, fmt.Errorf("%w: %s is damaged (not JSON); remove it and run `tv login --vault URL` again", engine.ErrUsage, path)
	}
	if t.Vaults == nil {
		t.Vaults = map[string]vaultToken{}
	}
	return t, nil
}

func saveVaultTokens(path string, t *vaultTokens) error {
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(path, append(b, '\n'), 0o600)
}

// tokenSource looks a vault URL's token up: the token file, else TV_TOKEN
// (user: TV_USER, else the logged-in user, else "tv").
type tokenSource struct{ a *app }

func (a *app) vaultCredentials() gitbackend.Credentials { return tokenSource{a} }

// Lookup implements gitbackend.Credentials.
func (s tokenSource) Lookup(url string) (string, string, bool) {
	if p, err := vaultTokensPath(s.a.io.Getenv); err == nil {
		if t, err := loadVaultTokens(p); err == nil {
			if v, ok := t.Vaults[url]; ok && v.Token != "" {
				return v.User, v.Token, true
			}
		}
	}
	tok := s.a.io.Getenv("TV_TOKEN")
	if tok == "" {
		return "", "", false
	}
	user := s.a.io.Getenv("TV_USER")
	if user == "" {
		if c, err := s.a.credentials(); err == nil && c != nil {
			user = c.User
		}
	}
	if user == "" {
		user = "tv"
	}
	return user, tok, true
}
