#!/usr/bin/env bash
# compare.sh — tv workspace operations vs git on the same tree, side by side.
#
# Builds tv, makes a throwaway HOME, vault and git identity, builds an ICM
# workspace (the bundled starter plus a copy of $(go env GOROOT)/src under
# stages/01-research/references/gosrc/) and the same tree in a plain git
# repository, then times each operation for tv and git alternately,
# REPS times, and prints the medians:
#
#   operation | tv | git | ratio | target | tv max RSS
#
# It exits 1 if any target is missed (ratio over target, or a tv run over
# the RSS limit). See README.md beside this file.
#
# Environment: REPS (default 5; the slow operations run SLOW_REPS, default
# 5), GOSRC (tree to copy, default $(go env GOROOT)/src), TV_BIN (use this
# tv binary instead of building one), KEEP=1 keeps the work directory,
# WORK=dir uses (and keeps) dir.
set -euo pipefail

REPS=${REPS:-5}
SLOW_REPS=${SLOW_REPS:-5}
RSS_LIMIT_KB=$((100 * 1024)) # 100 MiB
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
GOSRC=${GOSRC:-$(cd "$repo" && go env GOROOT)/src}

TIME=/usr/bin/time
if ! "$TIME" -f %M true >/dev/null 2>&1; then
	echo "compare.sh: needs GNU time at $TIME (apt-get install time)" >&2
	exit 2
fi

if [[ -n ${WORK:-} ]]; then
	mkdir -p "$WORK"
	KEEP=1
else
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/tv-bench.XXXXXX")
fi
WORK=$(cd "$WORK" && pwd)
cleanup() {
	if [[ -z ${KEEP:-} ]]; then
		chmod -R u+w "$WORK" 2>/dev/null || true
		rm -rf "$WORK"
	else
		echo "work directory kept: $WORK" >&2
	fi
}
trap cleanup EXIT

log() { printf '%s\n' "$*" >&2; }

tv=$WORK/bin/tv
if [[ -n ${TV_BIN:-} ]]; then
	mkdir -p "$WORK/bin"
	cp "$TV_BIN" "$tv"
else
	log "building tv"
	(cd "$repo" && go build -o "$tv" ./cmd/tv)
fi

# A private environment: nothing of the caller's tv or git setup is used.
export HOME=$WORK/home
export TV_VAULT=$WORK/vault.git
export XDG_CONFIG_HOME=$HOME/.config XDG_DATA_HOME=$HOME/.local/share XDG_STATE_HOME=$HOME/.local/state
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=$HOME/.gitconfig
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
export LC_ALL=C
mkdir -p "$HOME"
git config --global init.defaultBranch main
git config --global advice.detachedHead false

"$tv" login --user bench --email bench@example.com >/dev/null

# ---- the tree -------------------------------------------------------------

tree=$WORK/tree
log "building the tree: starter + $GOSRC"
mkdir -p "$tree"
cp -R "$repo/starter/files/." "$tree/"
mkdir -p "$tree/stages/01-research/references"
cp -R "$GOSRC" "$tree/stages/01-research/references/gosrc"
# Nothing tv refuses: no .git, no symlinks or special files.
find "$tree" -name .git -prune -exec rm -rf {} +
find "$tree" ! -type f ! -type d -delete
nfiles=$(find "$tree" -type f | wc -l)
nbytes=$(du -sk "$tree" | cut -f1)
log "tree: $nfiles files, $((nbytes / 1024)) MiB on disk"

small=$WORK/small
mkdir -p "$small"
cp -R "$repo/starter/files/." "$small/"

# One file to change for commit-one-file: same path and depth in both trees.
edit=stages/01-research/references/research-rules.md

# ---- measuring --------------------------------------------------------------

# run LABEL CMD... : runs CMD once (stdout/stderr to $WORK/last.out), records
# wall seconds in T[LABEL] (appended) and max RSS (KiB) in R[LABEL].
declare -A T R
run() {
	local label=$1
	shift
	sync # each run starts without another's write-back pending
	local t0 t1
	t0=$EPOCHREALTIME
	if ! "$TIME" -f %M -o "$WORK/rss" "$@" >"$WORK/last.out" 2>&1; then
		log "FAILED: $label: $*"
		cat "$WORK/last.out" >&2
		exit 1
	fi
	t1=$EPOCHREALTIME
	T[$label]+="$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.4f", b-a}') "
	local rss
	rss=$(tail -n1 "$WORK/rss")
	if [[ -z ${R[$label]:-} || $rss -gt ${R[$label]} ]]; then
		R[$label]=$rss
	fi
}

median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END{if (NR%2) print a[(NR+1)/2]; else printf "%.4f\n", (a[NR/2]+a[NR/2+1])/2}'; }

# git with its own git dir beside the tree (the tree stays free of .git,
# which tv refuses to import).
gitw() { local gd=$1 wt=$2; shift 2; git --git-dir="$gd" --work-tree="$wt" "$@"; }

# ---- import -------------------------------------------------------------------

log "import ($SLOW_REPS reps)"
for i in $(seq "$SLOW_REPS"); do
	export TV_VAULT=$WORK/vault-import-$i.git
	"$tv" vault info >/dev/null # create the empty vault outside the timing
	run "tv import" "$tv" workspace import "$tree" --name gosrc
	gd=$WORK/git-import-$i.git
	run "git import" bash -c 'git --git-dir="$1" --work-tree="$2" init -q && git --git-dir="$1" --work-tree="$2" add -A && git --git-dir="$1" --work-tree="$2" commit -q -m import' _ "$gd" "$tree"
done
# The last rep's vault and git repository are the ones the rest runs on.
export TV_VAULT=$WORK/vault-import-$SLOW_REPS.git
gitsrc=$WORK/git-import-$SLOW_REPS.git
git --git-dir="$gitsrc" config core.bare true
git --git-dir="$gitsrc" config --unset core.worktree || true
# A real repository is packed; so is the vault (one pack, no deltas).
git --git-dir="$gitsrc" repack -a -d -q
git --git-dir="$gitsrc" prune-packed
"$tv" workspace init --name small >/dev/null
gitsmall=$WORK/git-small.git
gitw "$gitsmall" "$small" init -q
gitw "$gitsmall" "$small" add -A
gitw "$gitsmall" "$small" commit -q -m init
git --git-dir="$gitsmall" config core.bare true
git --git-dir="$gitsmall" config --unset core.worktree || true

# ---- checkout vs clone ----------------------------------------------------------
# Every run writes into a new directory: nothing is deleted during the
# run (on ext4 without a journal, creating files right after deleting many
# is slow for whoever comes next).

log "checkout ($SLOW_REPS reps)"
for i in $(seq "$SLOW_REPS"); do
	run "tv checkout" "$tv" workspace checkout gosrc --output "$WORK/co-$i"
	run "git clone --no-local" git clone -q --no-local "$gitsrc" "$WORK/clone-nl-$i"
	run "git clone" git clone -q "$gitsrc" "$WORK/clone-$i"
done
co=$WORK/co-1
clone=$WORK/clone-1
"$tv" workspace checkout small --output "$WORK/small-co" >/dev/null
git clone -q "$gitsmall" "$WORK/small-clone"

# ---- walk-test vs status ----------------------------------------------------------

log "walk-test unchanged ($REPS reps)"
"$tv" workspace walk-test "$co" >/dev/null # the first status of a fresh
git -C "$clone" status --porcelain >/dev/null # clone refreshes its index
for i in $(seq "$REPS"); do
	run "tv walk-test unchanged" "$tv" workspace walk-test "$co"
	grep -q "no changes" "$WORK/last.out" || { log "walk-test saw changes:"; cat "$WORK/last.out" >&2; exit 1; }
	run "git status unchanged" git -C "$clone" status --porcelain
	[[ ! -s $WORK/last.out ]] || { log "git status saw changes"; exit 1; }
done

log "walk-test after touching every file ($REPS reps)"
touchall() { find "$1" -path "$1/.git" -prune -o -type f ! -name '.thalix-workspace*' -print0 | xargs -0 touch -m -d "@$2"; }
for i in $(seq "$REPS"); do
	when=$(($(date +%s) - 100 + i)) # a new mtime each rep, always in the past
	touchall "$co" "$when"
	touchall "$clone" "$when"
	run "tv walk-test touched, 1st" "$tv" workspace walk-test "$co"
	grep -q "no changes" "$WORK/last.out" || { log "walk-test saw changes after touch"; exit 1; }
	run "git status touched, 1st" git -C "$clone" status --porcelain
	run "tv walk-test touched, 2nd" "$tv" workspace walk-test "$co"
	run "git status touched, 2nd" git -C "$clone" status --porcelain
done

# ---- commit one file ------------------------------------------------------------

log "commit one file ($REPS reps)"
for i in $(seq "$REPS"); do
	for side in gosrc small; do
		if [[ $side == gosrc ]]; then d=$co g=$clone; else d=$WORK/small-co g=$WORK/small-clone; fi
		echo "edit $i" >>"$d/$edit"
		echo "edit $i" >>"$g/$edit"
		run "tv commit one file ($side)" "$tv" workspace commit "$d" --reason "edit $i"
		grep -q "1 modified" "$WORK/last.out" || { log "commit did not modify one file:"; cat "$WORK/last.out" >&2; exit 1; }
		run "git commit one file ($side)" bash -c 'git -C "$1" add -A && git -C "$1" commit -q -m "edit $2"' _ "$g" "$i"
		# The same walk without the commit, to split the commit's own cost.
		run "tv walk-test ($side)" "$tv" workspace walk-test "$d"
		run "git status ($side)" git -C "$g" status --porcelain
	done
done

# ---- the table --------------------------------------------------------------------

fail=0
printf '\n%s files, %s MiB (%s), %s reps (import/checkout %s), medians\n\n' "$nfiles" "$((nbytes / 1024))" "$GOSRC" "$REPS" "$SLOW_REPS"
printf '| %-34s | %9s | %9s | %6s | %-7s | %10s |\n' operation "tv (s)" "git (s)" ratio target "tv max RSS"
printf '|%s|%s|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..36})" -----------  -----------  --------  ---------  ------------
# row LABEL TVKEY GITKEY TARGET(or -)
row() {
	local label=$1 tk=$2 gk=$3 target=$4
	local tvm gm ratio rss mark=""
	tvm=$(median <<<"${T[$tk]}")
	gm=$(median <<<"${T[$gk]}")
	ratio=$(awk -v a="$tvm" -v b="$gm" 'BEGIN{printf "%.2f", a/b}')
	rss=${R[$tk]}
	if [[ $target != - ]] && awk -v r="$ratio" -v t="$target" 'BEGIN{exit !(r > t)}'; then
		mark=" MISS"
		fail=1
	fi
	if ((rss > RSS_LIMIT_KB)); then
		mark+=" RSS"
		fail=1
	fi
	printf '| %-34s | %9.3f | %9.3f | %6s | %-7s | %6.1f MiB |%s\n' "$label" "$tvm" "$gm" "$ratio" "${target/#-/info}" "$(awk -v k="$rss" 'BEGIN{print k/1024}')" "$mark"
}
row "import vs init+add+commit" "tv import" "git import" 0.5
row "checkout vs clone --no-local" "tv checkout" "git clone --no-local" 1.0
row "checkout vs clone (local, hardlinks)" "tv checkout" "git clone" -
row "walk-test vs status, unchanged" "tv walk-test unchanged" "git status unchanged" 1.0
row "touched all, 1st (re-hash)" "tv walk-test touched, 1st" "git status touched, 1st" -
row "touched all, 2nd (fast path)" "tv walk-test touched, 2nd" "git status touched, 2nd" 1.0
row "commit one file (gosrc)" "tv commit one file (gosrc)" "git commit one file (gosrc)" 1.0
row "commit one file (starter, 10 files)" "tv commit one file (small)" "git commit one file (small)" -

# Does committing one file grow with the tree? A commit is a walk-test of
# the checkout plus the commit's own work; the walk (lstat of every file)
# grows with the tree for tv and git alike. Its own work should not.
own() { # commit median minus walk-test median, seconds
	awk -v a="$(median <<<"${T["tv commit one file ($1)"]}")" -v b="$(median <<<"${T["tv walk-test ($1)"]}")" 'BEGIN{printf "%.4f", a-b}'
}
og=$(own gosrc)
os_=$(own small)
printf '\ncommit one file, beyond its walk-test: gosrc %.3f s, starter %.3f s (walk-test: gosrc %.3f s, starter %.3f s)\n' \
	"$og" "$os_" "$(median <<<"${T["tv walk-test (gosrc)"]}")" "$(median <<<"${T["tv walk-test (small)"]}")"
# The gate: on a tree 1,000 times larger, the commit's own work may differ
# by no more than GROWTH_SLACK seconds (noise on a shared machine).
GROWTH_SLACK=${GROWTH_SLACK:-0.010}
if awk -v g="$og" -v s="$os_" -v k="$GROWTH_SLACK" 'BEGIN{exit !(g > s + k)}'; then
	printf 'MISS: the commit'"'"'s own work grows with the tree (more than %s s apart)\n' "$GROWTH_SLACK"
	fail=1
fi

printf '\nall samples (s), in run order:\n'
for k in "${!T[@]}"; do printf '  %-32s %s\n' "$k" "${T[$k]}"; done | sort

if ((fail)); then
	printf '\nsome targets missed\n'
	exit 1
fi
printf '\nall targets met\n'
