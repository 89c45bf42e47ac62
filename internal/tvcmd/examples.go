package tvcmd

import "sync"

// example is one line of a help page's EXAMPLES section.
type example struct {
	note string // what it does, shown as a comment above it (optional)
	line string // the command line, as typed
}

// examplesFor returns the examples of the command with that full name.
func examplesFor(fullName string) []example { return commandExamples()[fullName] }

// commandExamples holds every command's examples, keyed by full name. A
// command added to the tree needs an entry here:
// TestEveryCommandHasExamples walks the tree and fails otherwise. Built on
// first use: only help pages need it, and every command pays for what is
// built at start-up.
var commandExamples = sync.OnceValue(func() map[string][]example {
	return map[string][]example{
		"tv": {
			{"who you are, once per machine", "tv login --user pat"},
			{"make a workspace and check it out", "tv workspace init --name demo && tv workspace checkout demo -o ~/work/demo"},
			{"", "tv help workspace checkout"},
		},
		"tv help": {
			{"", "tv help"},
			{"", "tv help workspace commit"},
		},
		"tv version": {
			{"", "tv version"},
			{"", "tv --version"},
			{"version, commit, Go version and platform as JSON", "tv version --json"},
		},
		"tv completion": {
			{"bash: add to ~/.bashrc", "source <(tv completion bash)"},
			{"zsh: add to ~/.zshrc", "source <(tv completion zsh)"},
		},
		"tv completion bash": {{"add to ~/.bashrc", "source <(tv completion bash)"}},
		"tv completion zsh":  {{"add to ~/.zshrc", "source <(tv completion zsh)"}},
		"tv completion fish": {{"", "tv completion fish > ~/.config/fish/completions/tv.fish"}},
		"tv completion pwsh": {{"add to $PROFILE", "tv completion pwsh | Out-String | Invoke-Expression"}},
		"tv login": {
			{"", "tv login --user pat"},
			{"with an email and a token read from a file", "tv login --user pat --email pat@example.com --token-stdin < token.txt"},
		},
		"tv whoami": {
			{"", "tv whoami"},
			{"", "tv whoami --json"},
		},
		"tv vault": {
			{"", "tv vault info"},
		},
		"tv vault info": {
			{"", "tv vault info"},
			{"another vault", "TV_VAULT=/srv/team.git tv vault info --json"},
		},
		"tv workspace": {
			{"", "tv workspace init --name demo"},
			{"", "tv workspace checkout demo -o ~/work/demo"},
			{"", "tv workspace commit ~/work/demo -m \"draft chapter 1\""},
		},
		"tv workspace init": {
			{"from the bundled ICM starter", "tv workspace init --name demo"},
			{"from a template", "tv workspace init --name report --template quarterly"},
		},
		"tv workspace import": {
			{"", "tv workspace import ./my-project --name project"},
			{"", "tv workspace import export.zip --name project --json"},
		},
		"tv workspace list": {
			{"", "tv workspace list"},
			{"", "tv workspace list --json"},
		},
		"tv workspace checkout": {
			{"", "tv workspace checkout demo --output ~/work/demo"},
			{"by id, short flag", "tv workspace checkout 01J9Z3T4V6 -o demo"},
		},
		"tv workspace walk-test": {
			{"what a commit would do, writing nothing", "tv workspace walk-test ~/work/demo"},
			{"", "tv workspace walk-test . --json"},
		},
		"tv workspace status": {
			{"changes, findings and how far the checkout is behind the head", "tv workspace status"},
			{"", "tv workspace status ~/work/demo --json"},
		},
		"tv workspace update": {
			{"bring the checkout holding the current folder to the head", "tv workspace update"},
			{"merge files changed on both sides as text (conflict markers where lines clash)", "tv workspace update ~/work/demo --merge"},
		},
		"tv workspace diff": {
			{"the checkout's changes as a unified diff", "tv workspace diff"},
			{"one file, against the workspace's current head", "tv workspace diff ~/work/demo stages/01-research/CONTEXT.md --head"},
			{"per-file hunks as JSON", "tv workspace diff . --json"},
		},
		"tv workspace commit": {
			{"", "tv workspace commit ~/work/demo --reason \"draft chapter 1\""},
			{"", "tv workspace commit . -m \"fix links\""},
		},
		"tv workspace log": {
			{"", "tv workspace log demo"},
			{"from inside a checkout, the last 5", "tv workspace log . --limit 5"},
		},
		"tv workspace forget": {
			{"stop serving a checkout that was moved or is no longer wanted", "tv workspace forget ~/work/demo"},
		},
		"tv check": {
			{"the checkout or folder you are in", "tv check"},
			{"what the next git commit records, for CI annotations", "tv check --staged --format github"},
			{"a committed tree, warnings failing too", "tv check site/ --rev HEAD~1 --strict"},
		},
		"tv hook": {
			{"on the git server, once per vault repository", "tv hook install /srv/git/team.git"},
		},
		"tv hook install": {
			{"", "tv hook install /srv/git/team.git"},
			{"Gitea/Forgejo: the pusher's name is in GITEA_PUSHER_NAME", "tv hook install /srv/git/team.git --hook-file pre-receive.d/tv --user-env GITEA_PUSHER_NAME"},
		},
		"tv hook pre-receive": {
			{"what the installed hook script runs (git passes the push on stdin)", "tv hook pre-receive --user-env GL_USERNAME"},
		},
		"tv vault use": {
			{"a shared vault on a git server", "tv vault use ssh://git@example.com/team.git"},
			{"back to a local one", "tv vault use ~/.local/share/tv/vault.git"},
		},
		"tv vault init": {
			{"on the server: an empty vault repository", "tv vault init --bare /srv/git/team.git"},
		},
		"tv vault push": {
			{"publish your local vault into an empty remote one", "tv vault push ssh://git@example.com/team.git"},
		},
		"tv vault doctor": {
			{"", "tv vault doctor"},
			{"remove the stale lock files it reports", "tv vault doctor --fix"},
		},
		"tv template": {
			{"", "tv template list"},
			{"", "tv template show starter"},
		},
		"tv template list": {
			{"", "tv template list"},
			{"", "tv template list --json"},
		},
		"tv template import": {
			{"", "tv template import ./report-skeleton --name quarterly"},
		},
		"tv template show": {
			{"", "tv template show quarterly"},
			{"", "tv template show quarterly --json"},
		},
		"tv access": {
			{"", "tv access grant sam write demo"},
			{"", "tv access list demo"},
		},
		"tv access grant": {
			{"", "tv access grant sam write demo"},
			{"one folder", "tv access grant sam read demo:stages/01-research"},
			{"the whole vault", "tv access grant lee manage @vault"},
		},
		"tv access revoke": {
			{"", "tv access revoke sam demo"},
			{"", "tv access revoke sam demo:stages/01-research"},
		},
		"tv access list": {
			{"every grant", "tv access list"},
			{"", "tv access list demo --json"},
		},
		"tv mcp": {
			{"register the local tools with Claude Code", "tv mcp install --target claude-code --server local"},
			{"", "tv mcp doctor"},
		},
		"tv mcp serve": {
			{"discovery (hosts run this)", "tv mcp serve"},
			{"one stage's tools", "tv mcp serve --workspace demo --stage stages/01-research"},
		},
		"tv mcp local": {
			{"serve the working directory (hosts run this)", "tv mcp local"},
			{"", "tv mcp local --root ~/work/demo --require-branch 'agent/*'"},
		},
		"tv mcp install": {
			{"every host present on this machine", "tv mcp install"},
			{"the local tools for Claude Desktop, which starts servers in /", "tv mcp install --target claude-desktop --server local --root ~/work/demo"},
			{"one stage, from a vault that is not the default", "tv mcp install --target cursor --workspace demo --stage stages/01-research --vault /srv/team.git"},
		},
		"tv mcp uninstall": {
			{"every entry tv installed, in every host", "tv mcp uninstall"},
			{"only the local tools, from one host", "tv mcp uninstall --target cursor --server local"},
		},
		"tv mcp config": {
			{"for a host tv mcp install does not edit", "tv mcp config --server local --root ~/work/demo"},
			{"Codex's TOML", "tv mcp config --format toml"},
		},
		"tv mcp doctor": {
			{"", "tv mcp doctor"},
			{"only the local tools, as JSON", "tv mcp doctor --server local --json"},
		},
	}
})
