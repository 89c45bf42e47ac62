// Package hook is tv's server-side enforcement: `tv hook pre-receive`, run
// by a git server as its pre-receive hook, accepts or refuses a whole push
// by tv's rules, and `tv hook install` puts it into a bare repository.
//
// # What it judges
//
// Every ref update of a push (git's "old new ref" lines on stdin) must be
// one of tv's refs — refs/tv/workspaces/ws_…, refs/tv/templates/tpl_…,
// refs/tv/access — with a well-formed id, or refs/tv/vault (the vault's
// identity, created once and never moved). Workspaces move forward only
// (linear history descending from the current value), every new commit
// carries tv's trailers (Tv-Kind, Tv-Id, Tv-Name) and a name no other
// workspace has; templates are created once, by a vault manager, as one
// commit; workspaces and templates are deleted only by a vault manager;
// the access ref is never deleted and changes only where the pusher
// manages, leaving the vault a manager; EnforcedRef never changes. Every
// new or changed path passes engine.CheckPath (the one path rule of every
// entry point), is a regular file or folder (no symlink, gitlink or other
// mode), no two names of a folder collide when case is folded, files stay
// under engine.MaxFileBytes and a version's new files under the import
// limits; the pusher needs write on each changed path of a workspace,
// by the grants of the current access ref as the engine evaluates them
// (engine.Access); creating a workspace needs write on the vault.
//
// Who pushes comes from the server only (IdentityVars, or a variable the
// installer names): without it the push is refused.
//
// Each problem is one line "tv: <code>: <message>" on stderr (git shows it
// to the pusher prefixed "remote: "); Code lists the codes and the tv
// exit code a client maps each to.
//
// # Bounded work
//
// A version is judged against its parent by comparing trees by id: equal
// subtrees are never read, so a one-file change to a 10,000-file
// workspace reads the few trees along that file's path. ICM validation
// (the error rules of `tv workspace walk-test`, icm.ValidateEntries) runs
// on the whole tree only when the change can alter an error finding: a
// new ref, a deletion anywhere (an Inputs path may name it), or a change
// among the entries of the root, of stages/ or of a stage folder (the
// contracts, stage and output folders). It then reads every tree but only
// the contract files' blobs. The file and byte limits apply to what a
// version adds or changes; a new ref is judged whole. Every object read
// is bounded (MaxTreeBytes, MaxCommitBytes, engine.MaxGrantsBytes), as
// are the commits per ref (MaxNewCommits), the input (MaxCommands,
// MaxLineBytes) and the run (Timeout).
//
// # Reading the quarantine
//
// receive-pack runs the hook before the pushed objects enter the
// repository: they sit in a quarantine directory (GIT_QUARANTINE_PATH),
// as a pack when the push has at least receive.unpackLimit objects, else
// loose, and git points GIT_OBJECT_DIRECTORY at it with the repository's
// own objects in GIT_ALTERNATE_OBJECT_DIRECTORIES. The hook has two
// readers:
//
//   - in-process, gitbackend.PushReader: the quarantine's loose objects,
//     then the repository's own objects (packed or loose) and refs, read
//     with the same code that reads a vault. It serves the layout
//     receive-pack gives a small push to a plain bare repository (files
//     refs, SHA-1 objects, no alternates beyond the repository's own
//     objects, no pack in the quarantine) and starts no process: a
//     one-file push costs tv's start and the few objects along the path;
//   - any other layout (a pack in the quarantine, alternates, reftable, a
//     SHA-256 repository, GIT_NAMESPACE): one `git cat-file
//     --batch-command` child, which inherits receive-pack's variables and
//     resolves the quarantine exactly as receive-pack does. Such pushes
//     bring receive.unpackLimit objects or more, so the process start is
//     small beside them.
//
// BenchmarkObjectReaders compares them (opening the reader and reading
// the access ref, a commit and a tree: 26 ms through the child against
// 0.4 ms in-process on this project's shared machine at a load average of
// about 20); the tests judge every rule with both.
//
// Objects are decoded with gitbackend.DecodeTree and DecodeCommit.
package hook
