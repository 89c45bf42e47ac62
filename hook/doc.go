// Package hook is tv's server-side enforcement: `tv hook pre-receive`, run
// by a git server as its pre-receive hook, accepts or refuses a whole push
// by tv's rules, and `tv hook install` puts it into a bare repository.
//
// # What it judges
//
// Every ref update of a push (git's "old new ref" lines on stdin) must be
// one of tv's refs — refs/tv/workspaces/ws_…, refs/tv/templates/tpl_…,
// refs/tv/access — with a well-formed id. Workspaces move forward only
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
// own objects in GIT_ALTERNATE_OBJECT_DIRECTORIES. The hook reads objects
// through one `git cat-file --batch-command` child, which inherits those
// variables, rather than through gitbackend:
//
//   - git is always present where receive-pack runs, and it resolves the
//     quarantine, alternates, packs, loose objects, multi-pack indexes and
//     future object formats exactly as receive-pack does; gitbackend reads
//     one objects directory and would need alternates support added to
//     serve a quarantine, a second implementation of git's lookup rules;
//   - the cost is one process start plus one pipe round trip per object,
//     and the hook reads few objects (see Bounded work): BenchmarkObjectReaders
//     measured, on this project's shared 2-core machine at a load average
//     of 33, 68 ms to start the child and read a commit and a tree against
//     0.3 ms for gitbackend opening the repository in-process, and 1.9 ms
//     per object round trip; that load multiplies every process start
//     (`git --version` took 170 ms), and on an idle machine a git start is
//     a few milliseconds and a round trip tens of microseconds. The
//     in-process reader is the faster one to start; it is not taken because
//     it would add a second implementation of git's object lookup (the
//     quarantine, alternates) to gitbackend, and a server hook is the place
//     where reading exactly what git will store matters most. The end-to-end
//     overhead is measured by bench/hook/compare.sh (README: Performance).
//
// Objects are decoded with gitbackend.DecodeTree and DecodeCommit.
package hook
