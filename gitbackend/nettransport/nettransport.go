// Package nettransport is the network half of package gitbackend: go-git's
// clients for http(s), ssh, git:// and file:// URLs and their auth methods.
// Importing it links net/http, golang.org/x/crypto/ssh, go-git's
// transport/client (with its file and server transports, plumbing/object and
// ProtonMail's openpgp); gitbackend itself links none of them, so a program
// that only opens local vaults stays small and starts fast.
//
// A program that opens remote vaults passes New() as
// gitbackend.RemoteOptions.Transport and to gitbackend.Publish. This package
// does not import gitbackend (its Transport satisfies gitbackend.Transport
// structurally), so gitbackend's own tests can import it.
package nettransport

import (
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
)

// Transport opens connections to git servers with go-git's default
// clients. The zero value is ready to use; it holds no state.
type Transport struct{}

// New returns the network transport (a gitbackend.Transport).
func New() Transport { return Transport{} }

// Client returns go-git's transport for ep's scheme: http(s), ssh, git or
// file (the file transport runs git-upload-pack and git-receive-pack).
func (Transport) Client(ep *transport.Endpoint) (transport.Transport, error) {
	return client.NewClient(ep)
}

// BasicAuth is HTTP basic authentication (a user name and a token).
func (Transport) BasicAuth(user, password string) transport.AuthMethod {
	return &githttp.BasicAuth{Username: user, Password: password}
}

// SSHAuth authenticates an ssh connection as user: with the keys of the ssh
// agent at SSH_AUTH_SOCK when keyFile is empty, else with the private key
// in keyFile (which must have no passphrase). The server's host key is
// always checked against known_hosts (go-git's default callback;
// SSH_KNOWN_HOSTS names other files): an unknown host is refused.
func (Transport) SSHAuth(user, keyFile string) (transport.AuthMethod, error) {
	if keyFile == "" {
		return gitssh.NewSSHAgentAuth(user)
	}
	return gitssh.NewPublicKeysFromFile(user, keyFile, "")
}
