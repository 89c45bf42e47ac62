package gitbackend

import "github.com/thalix/tv/gitbackend/wire"

// Transport speaks git's wire protocol to servers (package wire): the
// network half of remote vaults. gitbackend links no network or protocol
// code itself (no net/http, x/crypto/ssh or go-git protocol packages), so
// a program that opens only local vaults stays lean; one that opens remote
// vaults passes nettransport.New() (package gitbackend/nettransport) as
// RemoteOptions.Transport and to Publish. A nil Transport makes OpenRemote
// and Publish fail with ErrNoTransport.
//
// gitbackend decides which credentials to try (see RemoteOptions and
// Credentials); a Transport only builds them.
type Transport = wire.Transport
