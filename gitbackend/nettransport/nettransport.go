// Package nettransport is the network half of package gitbackend: git's
// upload-pack and receive-pack protocols over http(s), ssh, git:// and
// file:// URLs, spoken by go-git's clients, behind package gitbackend/wire.
// Importing it links net/http, golang.org/x/crypto/ssh, go-git's
// transport/client (with its file and server transports, plumbing/object
// and ProtonMail's openpgp) and go-git's protocol, config and storage
// packages; gitbackend itself links none of them, so a program that only
// opens local vaults stays small and starts fast (see package wire).
//
// A program that opens remote vaults passes New() as
// gitbackend.RemoteOptions.Transport and to gitbackend.Publish. This package
// does not import gitbackend (it implements wire.Transport), so gitbackend's
// own tests can import it.
package nettransport

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/thalix/tv/gitbackend/wire"
)

// Transport opens connections to git servers with go-git's default
// clients. The zero value is ready to use; it holds no state.
type Transport struct{}

var _ wire.Transport = Transport{}

// New returns the network transport (a wire.Transport).
func New() Transport { return Transport{} }

// Dial parses url and picks go-git's client for its scheme: http(s), ssh,
// git or file (the file transport runs git-upload-pack and
// git-receive-pack). No server is reached yet.
func (Transport) Dial(url string) (wire.Conn, error) {
	ep, err := transport.NewEndpoint(url)
	if err != nil {
		return nil, err
	}
	cli, err := client.NewClient(ep)
	if err != nil {
		return nil, err
	}
	return &conn{ep: ep, cli: cli}, nil
}

// BasicAuth is HTTP basic authentication (a user name and a token).
func (Transport) BasicAuth(user, password string) wire.Auth {
	return &githttp.BasicAuth{Username: user, Password: password}
}

// SSHAuth authenticates an ssh connection as user: with the keys of the ssh
// agent at SSH_AUTH_SOCK when keyFile is empty, else with the private key
// in keyFile (which must have no passphrase). The server's host key is
// always checked against known_hosts (go-git's default callback;
// SSH_KNOWN_HOSTS names other files): an unknown host is refused.
func (Transport) SSHAuth(user, keyFile string) (wire.Auth, error) {
	if keyFile == "" {
		return gitssh.NewSSHAgentAuth(user)
	}
	return gitssh.NewPublicKeysFromFile(user, keyFile, "")
}

// IndexPack stores pack in the bare repository at gitDir with go-git's
// pack writer, which resolves deltas against the repository's objects.
func (Transport) IndexPack(gitDir string, pack io.Reader) error {
	st := filesystem.NewStorageWithOptions(osfs.New(gitDir), cache.NewObjectLRU(4<<20), filesystem.Options{})
	err := packfile.UpdateObjectStorage(st, pack)
	if errors.Is(err, packfile.ErrEmptyPackfile) {
		return nil
	}
	return err
}

// conn is one repository: its endpoint and go-git's client for it.
type conn struct {
	ep  *transport.Endpoint
	cli transport.Transport
}

func (c *conn) Protocol() string { return c.ep.Protocol }
func (c *conn) User() string     { return c.ep.User }

func (c *conn) Upload(ctx context.Context, auth wire.Auth) (wire.UploadSession, *wire.Advert, error) {
	sess, adv, caps, err := openAdvertised(ctx, c, auth, c.cli.NewUploadPackSession)
	if err != nil {
		return nil, nil, err
	}
	return &uploadSession{sess: sess, caps: caps}, adv, nil
}

func (c *conn) UploadWith(auth wire.Auth, adv *wire.Advert) (wire.UploadSession, error) {
	native, ok := adv.Native.(*packp.AdvRefs)
	if !ok {
		return nil, errors.New("nettransport: an advertisement this transport did not read")
	}
	a, err := authMethod(auth)
	if err != nil {
		return nil, err
	}
	sess, err := c.cli.NewUploadPackSession(c.ep, a)
	if err != nil {
		return nil, classify(err)
	}
	return &uploadSession{sess: sess, caps: native.Capabilities}, nil
}

func (c *conn) Receive(ctx context.Context, auth wire.Auth) (wire.ReceiveSession, *wire.Advert, error) {
	sess, adv, caps, err := openAdvertised(ctx, c, auth, c.cli.NewReceivePackSession)
	if err != nil {
		return nil, nil, err
	}
	return &receiveSession{sess: sess, caps: caps}, adv, nil
}

// openAdvertised opens a session of c with newSession and reads its
// advertisement.
func openAdvertised[S transport.Session](ctx context.Context, c *conn, auth wire.Auth, newSession func(*transport.Endpoint, transport.AuthMethod) (S, error)) (S, *wire.Advert, *capability.List, error) {
	var none S
	a, err := authMethod(auth)
	if err != nil {
		return none, nil, nil, err
	}
	sess, err := newSession(c.ep, a)
	if err != nil {
		return none, nil, nil, classify(err)
	}
	adv, err := advertise(ctx, sess)
	if err != nil {
		return none, nil, nil, err
	}
	return sess, adv, adv.Native.(*packp.AdvRefs).Capabilities, nil
}

// authMethod is the go-git auth method behind auth (nil: none). Every
// wire.Auth a Transport hands out is one.
func authMethod(auth wire.Auth) (transport.AuthMethod, error) {
	if auth == nil {
		return nil, nil
	}
	a, ok := auth.(transport.AuthMethod)
	if !ok {
		return nil, fmt.Errorf("nettransport: auth %s was not made by this transport", auth.Name())
	}
	return a, nil
}

// advertise reads sess's advertisement (an empty repository advertises
// nothing); on failure it closes sess.
func advertise(ctx context.Context, sess transport.Session) (*wire.Advert, error) {
	adv, err := sess.AdvertisedReferencesContext(ctx)
	if errors.Is(err, transport.ErrEmptyRemoteRepository) {
		adv, err = packp.NewAdvRefs(), nil
	}
	if err != nil {
		sess.Close()
		return nil, classify(err)
	}
	out := &wire.Advert{Refs: make(map[string]wire.Hash, len(adv.References)), Native: adv}
	for name, h := range adv.References {
		out.Refs[name] = h
	}
	for _, c := range adv.Capabilities.All() {
		out.Caps = append(out.Caps, string(c))
	}
	return out, nil
}

// classify wraps go-git's errors that gitbackend tells apart in wire's
// sentinels, keeping go-git's own error (and its text) beside them.
func classify(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, transport.ErrAuthenticationRequired), errors.Is(err, transport.ErrAuthorizationFailed):
		return fmt.Errorf("%w: %w", wire.ErrAuthRequired, err)
	case errors.Is(err, transport.ErrRepositoryNotFound):
		return fmt.Errorf("%w: %w", wire.ErrRepoNotFound, err)
	case errors.Is(err, transport.ErrEmptyUploadPackRequest):
		return fmt.Errorf("%w: %w", wire.ErrNothingToFetch, err)
	}
	return err
}

// uploadSession is go-git's upload-pack session with the capabilities its
// requests are built from.
type uploadSession struct {
	sess transport.UploadPackSession
	caps *capability.List
}

func (s *uploadSession) Fetch(ctx context.Context, wants, haves []wire.Hash, depth int) (io.ReadCloser, error) {
	req := packp.NewUploadPackRequestFromCapabilities(s.caps)
	// A self-contained pack, without interleaved progress: the caller
	// indexes exactly what arrives.
	for _, c := range []capability.Capability{capability.ThinPack, capability.Sideband, capability.Sideband64k} {
		req.Capabilities.Delete(c)
	}
	req.Capabilities.Set(capability.NoProgress)
	if depth > 0 && s.caps.Supports(capability.Shallow) {
		req.Capabilities.Set(capability.Shallow)
		req.Depth = packp.DepthCommits(depth)
	}
	for _, w := range wants {
		req.Wants = append(req.Wants, plumbing.Hash(w))
	}
	for _, h := range haves {
		req.Haves = append(req.Haves, plumbing.Hash(h))
	}
	resp, err := s.sess.UploadPack(ctx, req)
	if err != nil {
		return nil, classify(err)
	}
	return resp, nil
}

func (s *uploadSession) Close() error { return s.sess.Close() }

// receiveSession is go-git's receive-pack session with the capabilities
// its requests are built from.
type receiveSession struct {
	sess transport.ReceivePackSession
	caps *capability.List
}

func (s *receiveSession) Push(ctx context.Context, cmds []wire.Command, pack io.Reader, progress io.Writer) (*wire.Report, error) {
	if !s.caps.Supports(capability.Atomic) {
		return nil, fmt.Errorf("nettransport: the server does not offer capability %q", capability.Atomic)
	}
	req := packp.NewReferenceUpdateRequestFromCapabilities(s.caps)
	req.Capabilities.Set(capability.Atomic)
	if s.caps.Supports(capability.Sideband64k) {
		req.Capabilities.Set(capability.Sideband64k)
	}
	for _, c := range cmds {
		req.Commands = append(req.Commands, &packp.Command{Name: plumbing.ReferenceName(c.Name), Old: plumbing.Hash(c.Old), New: plumbing.Hash(c.New)})
	}
	switch rc := pack.(type) {
	case nil:
	case io.ReadCloser: // closed by go-git when it stops reading: a writer behind a pipe is released
		req.Packfile = rc
	default:
		req.Packfile = io.NopCloser(pack)
	}
	req.Progress = progress
	report, err := s.sess.ReceivePack(ctx, req)
	if report == nil {
		return nil, classify(err)
	}
	out := &wire.Report{Unpack: report.UnpackStatus, Err: report.Error()}
	for _, c := range report.CommandStatuses {
		out.Refs = append(out.Refs, wire.RefStatus{Name: c.ReferenceName.String(), Status: c.Status})
	}
	return out, classify(err)
}

func (s *receiveSession) Close() error { return s.sess.Close() }
