// Package gitbackend implements engine.Vault on a git repository. Its
// network half, gitbackend/nettransport, is the only package of tv that
// imports go-git (its tests use go-git too, as a second implementation to
// check against). gitbackend links no network or protocol code
// (net/http, x/crypto/ssh, go-git's transport and packp packages, which
// bring go-git's config, gcfg and gob, openpgp): remote vaults are reached
// through a Transport the program passes in (nettransport.New()), which
// speaks git's protocol behind package gitbackend/wire, so a program that
// opens only local vaults stays lean and starts fast.
//
// An on-disk vault is a bare repository that stock git reads
// (`git --git-dir=VAULT log --all`, `git fsck --strict`). Its random id is
// the blob at VaultIDRef (refs/tv/vault), so mirrors and clones of the
// vault are the same vault; older vaults' tv.vaultid config entry is read
// and copied into the ref.
//
// Refs are read straight from the files (loose refs, then packed-refs) and
// updated by git's own lockfile protocol: `<ref>.lock` is created with
// O_CREATE|O_EXCL, the old value is checked while the lock is held, the new
// value is written and fsynced, and the lock is renamed over the ref. A
// transaction of several refs locks them all in sorted order before it
// renames any. This interoperates with concurrent `git update-ref`, never
// shows a reader a missing or empty ref, and never breaks a lock someone
// else holds: a held or stale lock is reported as engine.ErrRefLocked.
//
// New objects are written by an ObjectWriter as one packfile plus its
// version 2 index per batch, never as loose objects, each object whole
// (zlib at its fastest level): a commit stays cheap. Objects are read
// straight from the packs (packread.go); delta entries are resolved in
// memory, at most MaxDeltaChain deep and MaxPatchedBytes large, with a
// cache of resolved bases (delta.go). Reading and writing the vault links
// no go-git package (the lean tv binary has none); go-git's protocol
// clients and indexer are reached through gitbackend/wire, in tv-full.
// Packs added by other processes become visible on the next lookup that
// misses.
//
// When a batch's pack makes objects/pack hold more than AutoPackLimit
// packs, the batch merges packs under ConsolidateMaxBytes into one, chosen
// like `git repack --geometric=2` so the large packs stay, under an O_EXCL
// lock file; a batch the merge picks goes straight into the merged pack
// (one pack written and fsynced instead of two). The merge is where
// deltas are made, as in `git gc` (packmerge.go): every old pack is read
// once and checked against its CRC-32s and checksum; similar objects
// (same type, same name in their trees, sizes close) become OFS_DELTA
// entries of each other, a window of DeltaWindow, chains at most
// DeltaDepth deep, made by the merge's own encoder (deltaenc.go), which
// keeps its index from one try to the next; the old packs' deltas are
// copied with their base offsets rewritten. Old packs leave objects/pack
// only once the new pack is durable in place: an object is never lost, a
// crash at worst leaves a duplicate. They are renamed into the vault's
// tv-trash folder, and each later batch that merges nothing deletes at
// most TrashFilesPerBatch of its files (trash.go): freeing a file's blocks
// is what made deleting 34 files the slowest part of a merge. This is best effort and never fails the
// batch. On bench/history's 1,000 one-file commits the vault is about the
// size of the same history in git after `git gc` (the README's History
// paragraph has the measured ratio).

// # Remote vaults
//
// A Remote (OpenRemote) is a vault on a git server reached through a
// Transport (nettransport: go-git's clients for https, ssh, git and
// file), with a local cache: a bare
// repository per URL under the cache directory. It lists the server's refs
// once, fetches only the objects of the refs a command reads that the
// cache lacks (one upload-pack request, the cache's refs as haves), and
// commits as one atomic receive-pack request (Remote.UpdateRefs): every
// ref with its exact old value, verify-only commands (old = new) for refs
// that must not move, only the objects the server lacks. A server without
// the atomic capability is refused. go-git's Remote.Push is not used: it
// drops unchanged refs (no verify step), walks every listed ref's objects
// and downgrades atomic silently.
//
// A fetched pack is indexed as it streams (packrecv.go, with the
// measurement): each entry is inflated once, hashed and its CRC-32 taken
// on the way to the file, deltas patched in memory; go-git's pack writer
// (Transport.IndexPack), which indexed the whole file after the download
// in two passes, remains the fallback for the packs the fast path
// declines. The objects the
// read-ahead fetch of a checkout inflated go to their first reader from
// memory (Remote.keepFresh).
//
// # Binding a commit to the grants without contention
//
// A commit checks the writer's grants and binds that check to its ref
// transaction with a verify-only step on engine.AccessRef, so a revoke
// that lands first makes the commit fail instead of slipping through.
// Taking that ref's lock made every commit of every workspace contend on
// one file. The binding now scales as follows:
//
//   - Local vaults: a verify-only step takes no lock. It is re-read while
//     the locks of the refs that change are held (verifyUnlocked). A ref
//     is replaced only by rename, so the read sees the old or new value;
//     a grant change renamed after the read is ordered after the commit,
//     exactly as if the commit had taken the lock first. Commits to
//     different workspaces share no lock at all.
//   - Servers that run tv's hook (they carry EnforcedRef): the hook checks
//     every push against the live grants under git's own ref transaction,
//     so the client sends no verify step on the access ref.
//   - Other servers: git locks a verified ref during the push, so
//     concurrent commits may collide on refs/tv/access; a push refused for
//     a locked ref is re-sent with jittered back-off (RemoteLockRetries),
//     which lands concurrent committers instead of failing them.
//
// A lock left by a killed process never blocks commits to other
// workspaces (they do not lock the access ref), and StaleLocks /
// RemoveStaleLocks (`tv vault doctor`) report and clear those older than
// StaleLockAge.
//
// NewMemory returns a vault held in memory (memstore.go) with the same
// semantics, for tests.
package gitbackend
