# privateenv.sh — sourced by the comparison scripts (workspace, lifecycle,
# history): a private environment under $WORK, so nothing of the caller's
# tv or git setup is used — its own HOME, vault, XDG folders and git
# identity — with tv logged in as bench. Needs WORK and tv (the binary).
export HOME=$WORK/home
export TV_VAULT=$WORK/vault.git
export XDG_CONFIG_HOME=$HOME/.config XDG_DATA_HOME=$HOME/.local/share XDG_STATE_HOME=$HOME/.local/state
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=$HOME/.gitconfig
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
export LC_ALL=C
mkdir -p "$HOME"
git config --global init.defaultBranch main
"$tv" login --user bench --email bench@example.com >/dev/null
