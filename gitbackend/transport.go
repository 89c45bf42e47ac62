package gitbackend

import "github.com/go-git/go-git/v5/plumbing/transport"

// Transport opens connections to git servers: go-git's clients and auth
// methods for a URL's scheme. gitbackend links no network code itself (no
// net/http, x/crypto/ssh or go-git client packages), so a program that
// opens only local vaults stays lean; one that opens remote vaults passes
// nettransport.New() (package gitbackend/nettransport) as
// RemoteOptions.Transport and to Publish. A nil Transport makes OpenRemote
// and Publish fail with ErrNoTransport.
//
// gitbackend decides which credentials to try (see RemoteOptions and
// Credentials); a Transport only builds them.
type Transport interface {
	// Client returns the go-git transport for ep's scheme (http, https,
	// ssh, git, file); an unsupported scheme is an error.
	Client(ep *transport.Endpoint) (transport.Transport, error)
	// BasicAuth is HTTP basic authentication (a user name and a token).
	BasicAuth(user, password string) transport.AuthMethod
	// SSHAuth authenticates an ssh connection as user: with the ssh
	// agent's keys (SSH_AUTH_SOCK) when keyFile is empty, else with the
	// unencrypted private key in keyFile. The server's host key must be
	// checked against known_hosts: an unknown host is refused.
	SSHAuth(user, keyFile string) (transport.AuthMethod, error)
}
