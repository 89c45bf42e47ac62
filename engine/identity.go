package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"strings"
	"unicode"

	"github.com/thalix/tv/atomicfile"
)

// Credentials is the identity tv acts as. It lives only in the credential
// file (mode 0600); the token is never written anywhere else.
type Credentials struct {
	User  string `json:"user"`
	Email string `json:"email"`
	Token string `json:"token,omitempty"`
}

// CredentialsPath returns $XDG_CONFIG_HOME/tv/credentials.json, else
// ~/.config/tv/credentials.json.
func CredentialsPath(getenv func(string) string) (string, error) {
	if d := getenv("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "tv", "credentials.json"), nil
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".config", "tv", "credentials.json"), nil
	}
	return "", fmt.Errorf("%w: cannot locate the credential file: set XDG_CONFIG_HOME or HOME", ErrUsage)
}

// ValidateUser checks a user name: 1..MaxUserBytes bytes of letters,
// digits, '.', '_', '-' or '@', starting with a letter or digit.
func ValidateUser(name string) error {
	if name == "" || len(name) > MaxUserBytes {
		return fmt.Errorf("%w: user name must be 1 to %d bytes", ErrUsage, MaxUserBytes)
	}
	for i, r := range name {
		ok := unicode.IsLetter(r) || unicode.IsDigit(r) || (i > 0 && strings.ContainsRune("._-@", r))
		if !ok {
			return fmt.Errorf("%w: user name %q: only letters, digits and . _ - @ are allowed, starting with a letter or digit", ErrUsage, name)
		}
	}
	return nil
}

// LoadCredentials reads the credential file. A missing file yields an
// error wrapping ErrNotLoggedIn.
func LoadCredentials(path string) (*Credentials, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNotLoggedIn
	}
	if err != nil {
		return nil, fmt.Errorf("read credentials: %w", err)
	}
	var c Credentials
	if err := json.Unmarshal(b, &c); err != nil || c.User == "" {
		return nil, fmt.Errorf("%w: credential file %s is damaged; run `tv login --user NAME` again", ErrNotLoggedIn, path)
	}
	if c.Email == "" {
		c.Email = DefaultEmail(c.User)
	}
	return &c, nil
}

// DefaultEmail is the address used when a user logs in without --email.
func DefaultEmail(user string) string { return user + "@tv.local" }

// SaveCredentials writes c to path atomically with mode 0600 (directory 0700).
func SaveCredentials(path string, c *Credentials) error {
	if err := ValidateUser(c.User); err != nil {
		return err
	}
	if len(c.Token) > MaxTokenBytes {
		return fmt.Errorf("%w: token is over %d bytes", ErrRefused, MaxTokenBytes)
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(b, '\n'), 0o600)
}
