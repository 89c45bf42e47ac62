package main

import (
	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/gitbackend"
	"github.com/thalix/tv/mounts"
)

// openVault opens the embedded vault, creating it on first use.
func (a *app) openVault() (*gitbackend.Vault, error) {
	path, err := gitbackend.DefaultPath(a.io.Getenv)
	if err != nil {
		return nil, err
	}
	v, _, err := gitbackend.OpenOrCreate(path)
	return v, err
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
// (reads work without a login; writes report ErrNotLoggedIn).
func (a *app) openEngine() (*engine.Engine, error) {
	v, err := a.openVault()
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
