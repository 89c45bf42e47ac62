// Package wire is the seam between package gitbackend and the network
// transports of remote vaults (package gitbackend/nettransport): the
// sessions of git's upload-pack and receive-pack protocols, described in
// tv's own terms (ref names, object ids, capability names, a push's
// report) so that gitbackend imports none of go-git's protocol packages.
//
// Why a seam of tv's own: go-git's plumbing/transport and protocol/packp
// import go-git's config, storage/memory, gcfg and encoding/gob, whose
// package initialisation runs in every process that links them. Before
// this seam gitbackend linked them, so every tv command paid for them at
// start-up: without them (and go-git's storage/memory and format/config,
// replaced in gitbackend) `tv --version` went 12.51 -> 11.34 ms and a
// 1,000-file walk-test 20.28 -> 19.44 ms (paired runs, 200 and 150
// rounds, on the benchmark VM, a PVM guest; README "Performance"). Only tv-full, which serves remote
// vaults, links nettransport and with it go-git's protocol stack.
//
// wire imports nothing of tv's or go-git's, so gitbackend (and its tests)
// and nettransport can both import it.
package wire

import (
	"context"
	"errors"
	"io"
	"slices"
)

// Hash is a git object id (SHA-1).
type Hash = [20]byte

// Capability names of git's protocol that gitbackend reads or asks for.
const (
	CapAtomic       = "atomic"
	CapPushOptions  = "push-options"
	CapReportStatus = "report-status"
)

// Errors a transport wraps (with %w, beside the transport's own error) so
// that gitbackend can tell them apart.
var (
	// ErrAuthRequired: the server wants credentials, or refused the
	// ones given.
	ErrAuthRequired = errors.New("authentication required")
	// ErrRepoNotFound: no repository at the URL.
	ErrRepoNotFound = errors.New("repository not found")
	// ErrNothingToFetch: a fetch asked for nothing the server would send
	// (every want is already a have).
	ErrNothingToFetch = errors.New("nothing to fetch")
)

// Transport opens connections to git servers for the URL schemes it
// supports (nettransport: http, https, ssh, git, file).
type Transport interface {
	// Dial parses url and returns a connection to that repository. It
	// reaches no server yet; an unsupported or malformed URL is an error.
	Dial(url string) (Conn, error)
	// BasicAuth is HTTP basic authentication (a user name and a token).
	BasicAuth(user, password string) Auth
	// SSHAuth authenticates an ssh connection as user: with the ssh
	// agent's keys (SSH_AUTH_SOCK) when keyFile is empty, else with the
	// unencrypted private key in keyFile. The server's host key must be
	// checked against known_hosts: an unknown host is refused.
	SSHAuth(user, keyFile string) (Auth, error)
	// IndexPack stores pack, read to its end, in the bare repository at
	// gitDir (objects/pack, with its index), resolving deltas against
	// the repository's objects too; gitbackend's own receiver hands it
	// the packs it does not index itself.
	IndexPack(gitDir string, pack io.Reader) error
}

// Auth is a credential a Transport built; gitbackend only hands it back.
type Auth interface {
	// Name names the method ("http-basic-auth", "ssh-public-keys", ...).
	Name() string
	// String describes it without its secret.
	String() string
}

// Conn is one repository on a server. Its sessions each make a request
// (or, over ssh and file, a connection) of their own.
type Conn interface {
	// Protocol is the URL's scheme: "http", "https", "ssh", "git" or
	// "file".
	Protocol() string
	// User is the user name in the URL ("" when it names none).
	User() string
	// Upload opens an upload-pack session and reads the server's
	// advertisement (an empty repository advertises no refs).
	Upload(ctx context.Context, auth Auth) (UploadSession, *Advert, error)
	// UploadWith opens an upload-pack session whose requests are built
	// from adv, an advertisement an earlier Upload read: over http it
	// costs one request instead of two.
	UploadWith(auth Auth, adv *Advert) (UploadSession, error)
	// Receive opens a receive-pack session and reads the server's
	// advertisement.
	Receive(ctx context.Context, auth Auth) (ReceiveSession, *Advert, error)
}

// Advert is a server's advertisement: its refs and capabilities.
type Advert struct {
	// Refs maps every advertised name (refs and HEAD) to its object.
	Refs map[string]Hash
	// Caps lists the advertised capabilities' names.
	Caps []string
	// Native is the transport's own form of the advertisement, which its
	// sessions build requests from; gitbackend never reads it.
	Native any
}

// Supports reports whether the server advertised capability name.
func (a *Advert) Supports(name string) bool { return slices.Contains(a.Caps, name) }

// UploadSession is one upload-pack session.
type UploadSession interface {
	// Fetch asks for the objects reachable from wants that haves do not
	// reach (with depth > 0 only that many commits deep, when the server
	// supports shallow fetches) and returns the pack: self-contained (no
	// thin pack), without progress or side-band framing. It returns
	// ErrNothingToFetch when there is nothing to ask for.
	Fetch(ctx context.Context, wants, haves []Hash, depth int) (io.ReadCloser, error)
	// Close ends the session.
	Close() error
}

// ReceiveSession is one receive-pack session.
type ReceiveSession interface {
	// Push sends cmds as one atomic update (the server must advertise
	// CapAtomic) with pack (nil when no object is sent), using side-band
	// framing when the server offers it; the server's progress and hook
	// messages go to progress. The report is nil when the server's answer
	// was not read (then err says why).
	Push(ctx context.Context, cmds []Command, pack io.Reader, progress io.Writer) (*Report, error)
	// Close ends the session.
	Close() error
}

// Command is one ref update of a push: Old and New ids, zero for absent.
type Command struct {
	Name     string
	Old, New Hash
}

// Report is the server's report-status of a push.
type Report struct {
	// Unpack is the unpack status ("ok" or the error).
	Unpack string
	// Refs holds each command's status ("ok" or the reason).
	Refs []RefStatus
	// Err is the report's own verdict: nil when the pack unpacked and
	// every command succeeded.
	Err error
}

// RefStatus is one command's line of a report.
type RefStatus struct {
	Name, Status string
}
