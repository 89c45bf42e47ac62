package gitbackend

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/thalix/tv/gitbackend/wire"
)

var randRead = rand.Read

// Credentials supplies the user name and token tv itself knows for a
// vault URL: the token saved by `tv login --vault URL`, else TV_TOKEN.
// When it has none and the server asks, git's credential helpers are
// asked (`git credential fill`, then approve or reject).
type Credentials interface {
	Lookup(vaultURL string) (user, token string, ok bool)
}

// authState is where a Remote's credentials came from.
type authState struct {
	tried  bool   // git credential fill was asked
	helper []byte // the fill's answer, for approve/reject
}

// sessionAuth returns the auth method for the Remote's transport.
func (r *Remote) sessionAuth() (wire.Auth, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.auth != nil {
		return r.auth, nil
	}
	switch r.conn.Protocol() {
	case "http", "https":
		if r.creds != nil {
			if user, tok, ok := r.creds.Lookup(r.loc.URL); ok {
				r.auth = r.tr.BasicAuth(user, tok)
			}
		}
	case "ssh":
		a, err := sshAuth(r.tr, r.conn.User())
		if err != nil {
			return nil, err
		}
		r.auth = a
	}
	return r.auth, nil
}

// sshAuth uses the ssh agent when SSH_AUTH_SOCK is set, else the first
// default key of ~/.ssh, both built by tr. The host key is always checked
// against known_hosts (go-git's default callback; SSH_KNOWN_HOSTS names
// other files): an unknown host is refused, never accepted.
func sshAuth(tr Transport, user string) (wire.Auth, error) {
	if user == "" {
		user = os.Getenv("USER")
	}
	if os.Getenv("SSH_AUTH_SOCK") != "" {
		a, err := tr.SSHAuth(user, "")
		if err == nil {
			return a, nil
		}
	}
	home, _ := os.UserHomeDir()
	for _, k := range []string{"id_ed25519", "id_ecdsa", "id_rsa"} {
		p := filepath.Join(home, ".ssh", k)
		if _, err := os.Stat(p); err != nil {
			continue
		}
		a, err := tr.SSHAuth(user, p)
		if err != nil {
			return nil, fmt.Errorf("ssh key %s: %v (use an ssh agent for keys with a passphrase)", p, err)
		}
		return a, nil
	}
	return nil, fmt.Errorf("%w: no ssh agent (SSH_AUTH_SOCK) and no key in %s", ErrNoSSHKey, filepath.Join(home, ".ssh"))
}

// helperAuth asks git's credential helpers for the Remote's URL once,
// after the server refused anonymous or tv-known credentials.
func (r *Remote) helperAuth(ctx context.Context) bool {
	if p := r.conn.Protocol(); p != "http" && p != "https" {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.helper.tried {
		return false
	}
	r.helper.tried = true
	out, err := gitCredential(ctx, "fill", credentialQuery(r.loc.URL, nil))
	if err != nil {
		return false
	}
	kv := parseCredential(out)
	if kv["password"] == "" {
		return false
	}
	r.helper.helper = out
	r.auth = r.tr.BasicAuth(kv["username"], kv["password"])
	return true
}

// settleHelper tells git's credential helpers whether their answer worked.
func (r *Remote) settleHelper(ctx context.Context, ok bool) {
	r.mu.Lock()
	answer := r.helper.helper
	r.helper.helper = nil
	r.mu.Unlock()
	if answer == nil {
		return
	}
	op := "reject"
	if ok {
		op = "approve"
	}
	_, _ = gitCredential(ctx, op, answer)
}

func credentialQuery(vaultURL string, _ []byte) []byte {
	u, err := url.Parse(vaultURL)
	if err != nil {
		return nil
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "protocol=%s\nhost=%s\npath=%s\n\n", u.Scheme, u.Host, strings.TrimPrefix(u.Path, "/"))
	return b.Bytes()
}

func parseCredential(b []byte) map[string]string {
	kv := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			kv[k] = v
		}
	}
	return kv
}

// gitCredential runs `git credential OP` without a terminal prompt.
func gitCredential(ctx context.Context, op string, input []byte) ([]byte, error) {
	if input == nil {
		return nil, errors.New("no credential query")
	}
	cmd := exec.CommandContext(ctx, "git", "credential", op)
	cmd.Stdin = bytes.NewReader(input)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=")
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// uploadSession opens an upload-pack session, authenticating as needed.
func (r *Remote) uploadSession(ctx context.Context) (wire.UploadSession, *wire.Advert, error) {
	return openSession(ctx, r, "list", r.conn.Upload)
}

// receiveSession opens a receive-pack session, authenticating as needed.
func (r *Remote) receiveSession(ctx context.Context) (wire.ReceiveSession, *wire.Advert, error) {
	return openSession(ctx, r, "push", r.conn.Receive)
}

// openSession opens a session with open, which reads the server's
// advertisement, retrying once more each time git's credential helper
// supplies new credentials after an authentication failure. op names the
// operation in errors.
func openSession[S any](ctx context.Context, r *Remote, op string, open func(context.Context, wire.Auth) (S, *wire.Advert, error)) (S, *wire.Advert, error) {
	var none S
	for {
		auth, err := r.sessionAuth()
		if err != nil {
			return none, nil, fmt.Errorf("%w: %s: %v", ErrUnreachable, r.loc.URL, err)
		}
		sess, adv, err := open(ctx, auth)
		if err == nil {
			r.settleHelper(ctx, true)
			return sess, adv, nil
		}
		if errors.Is(err, wire.ErrAuthRequired) && r.helperAuth(ctx) {
			continue
		}
		r.settleHelper(ctx, false)
		return none, nil, r.transportError(op, err)
	}
}
