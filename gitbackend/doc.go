// Package gitbackend implements engine.Vault on a git repository. It is the
// only package of tv that imports go-git.
//
// An on-disk vault is a bare repository that stock git reads
// (`git --git-dir=VAULT log --all`, `git fsck --strict`). Its config holds
// the vault's random id as tv.vaultid.
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
// version 2 index per batch, never as loose objects. Objects are read
// through go-git's packfile and index decoders; packs added by other
// processes become visible on the next lookup that misses.
//
// When a batch's pack makes objects/pack hold more than AutoPackLimit
// packs, the batch merges the packs under ConsolidateMaxBytes into one
// (entries copied raw, checked against their CRC-32 and pack checksum),
// under an O_EXCL lock file, and deletes them only once the new pack is
// durable in place: an object is never lost, a crash at worst leaves a
// duplicate. This is best effort and never fails the batch.
//
// NewMemory returns a vault on go-git's in-memory storage with the same
// semantics, for tests.
package gitbackend
