#!/usr/bin/env bash
# compare.sh — the checkout lifecycle of tv against git, side by side.
#
# Builds tv and a throwaway HOME, vault and git identity, generates a tree
# of NFILES files (the bundled ICM starter plus generated Markdown files),
# and makes of it a tv workspace with two checkouts (up, down) and a git
# repository with two clones (up, down). Then, REPS times, alternately:
#
#   update  one file changed and committed upstream (untimed), then
#           `tv workspace update down`  vs  `git pull --ff-only` in down
#   diff    one file changed in down (untimed), then
#           `tv workspace diff down`    vs  `git diff` in down
#
# and prints the medians and ratios (tv / git; ≤ 1.0 is the target):
#
#   operation | tv | git | ratio | target
#
# It exits 1 if a target is missed. Environment: NFILES (default 10000),
# REPS (default 7), TV_BIN (use this tv binary), KEEP=1 keeps the work
# directory.
set -euo pipefail

NFILES=${NFILES:-10000}
REPS=${REPS:-7}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/tv-lifecycle.XXXXXX")
cleanup() {
	if [[ -z ${KEEP:-} ]]; then
		rm -rf "$WORK"
	else
		echo "work directory kept: $WORK" >&2
	fi
}
trap cleanup EXIT
log() { printf '%s\n' "$*" >&2; }

tv=$WORK/bin/tv
mkdir -p "$WORK/bin"
log "building tv"
. "$repo/bench/buildtv.sh"
install_tv "$tv"

. "$repo/bench/privateenv.sh"
git config --global pull.ff only

# ---- the tree (generated, never committed) ----------------------------------
tree=$WORK/tree
cp -R "$repo/starter/files/." "$tree/"
gen=stages/01-research/references/gen
n=$(find "$tree" -type f | wc -l)
log "generating $((NFILES - n)) files"
for ((i = n; i < NFILES; i++)); do
	d="$tree/$gen/d$((i / 100))"
	[[ -d $d ]] || mkdir -p "$d"
	printf '# note %d\n\nline one of note %d\nline two\nline three\n' "$i" "$i" >"$d/f$i.md"
done
log "tree: $(find "$tree" -type f | wc -l) files"

# ---- tv: a workspace and two checkouts ----------------------------------------
"$tv" workspace import "$tree" --name bench >/dev/null
"$tv" workspace checkout bench --output "$WORK/tv-up" >/dev/null
"$tv" workspace checkout bench --output "$WORK/tv-down" >/dev/null

# ---- git: a bare repository and two clones -------------------------------------
git init -q --bare "$WORK/git.git"
git clone -q "$WORK/git.git" "$WORK/git-up" 2>/dev/null
cp -R "$tree/." "$WORK/git-up/"
git -C "$WORK/git-up" add -A
# Untimed, so without git's automatic gc (see bench/check/compare.sh): the
# 10,000 loose objects of this commit would start a detached `git gc
# --auto` that packs them beside the first timed rounds, on one of the
# machine's two cores. Packed once here instead; the timed commands keep
# git's defaults.
git -C "$WORK/git-up" -c gc.auto=0 commit -qm import
git -C "$WORK/git-up" push -q origin main
git -C "$WORK/git-up" repack -a -d -q
git clone -q "$WORK/git.git" "$WORK/git-down"

# Warm both: tv's stat cache, git's index.
"$tv" workspace walk-test "$WORK/tv-down" >/dev/null
git -C "$WORK/git-down" status --short >/dev/null

declare -A T
# time LABEL CMD...: runs CMD, appends its wall seconds to T[LABEL].
timeit() {
	local label=$1
	shift
	local t0 t1
	t0=$EPOCHREALTIME
	if ! "$@" >"$WORK/last.out" 2>&1; then
		log "FAILED: $label: $*"
		cat "$WORK/last.out" >&2
		exit 1
	fi
	t1=$EPOCHREALTIME
	T[$label]+="$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.4f", b-a}') "
}
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }

# The files the rounds change: generated ones, picked from the tree so that
# any NFILES works (the upstream edit and REPS distinct local edits).
mapfile -t genfiles < <(cd "$tree" && find "$gen" -type f -name '*.md' | sort)
if ((${#genfiles[@]} < REPS + 1)); then
	log "NFILES=$NFILES leaves ${#genfiles[@]} generated files; need at least $((REPS + 1)) (raise NFILES or lower REPS)"
	exit 2
fi
edit=${genfiles[$((${#genfiles[@]} / 2))]}
for ((r = 1; r <= REPS; r++)); do
	log "round $r of $REPS"
	# update: one upstream change, then bring down up to date.
	printf 'upstream change %d\n' "$r" >>"$WORK/tv-up/$edit"
	"$tv" workspace commit "$WORK/tv-up" --reason "change $r" >/dev/null
	printf 'upstream change %d\n' "$r" >>"$WORK/git-up/$edit"
	git -C "$WORK/git-up" commit -qam "change $r"
	git -C "$WORK/git-up" push -q origin main
	sync
	timeit tv-update "$tv" workspace update "$WORK/tv-down"
	timeit git-pull git -C "$WORK/git-down" pull -q --ff-only
	# diff: one local change.
	other=${genfiles[$((r - 1))]}
	[[ $other == "$edit" ]] && other=${genfiles[-1]}
	printf 'local change %d\n' "$r" >>"$WORK/tv-down/$other"
	printf 'local change %d\n' "$r" >>"$WORK/git-down/$other"
	timeit tv-diff "$tv" workspace diff "$WORK/tv-down"
	grep -q "local change $r" "$WORK/last.out" || { log "tv diff missed the change"; exit 1; }
	timeit git-diff git -C "$WORK/git-down" diff
	grep -q "local change $r" "$WORK/last.out" || { log "git diff missed the change"; exit 1; }
	# Undo the local change (untimed) so the next update is clean.
	git -C "$WORK/git-down" checkout -q -- "$other"
	"$tv" workspace diff "$WORK/tv-down" >/dev/null
	cp "$WORK/git-down/$other" "$WORK/tv-down/$other"
done

status=0
printf '\n%d files, %d rounds (medians; the machine may be loaded)\n' "$(find "$tree" -type f | wc -l)" "$REPS"
printf '%-40s %9s %9s %7s %7s\n' operation tv git ratio target
row() {
	local name=$1 a=$2 b=$3
	local ta tb ratio
	ta=$(printf '%s' "${T[$a]}" | median)
	tb=$(printf '%s' "${T[$b]}" | median)
	ratio=$(awk -v x="$ta" -v y="$tb" 'BEGIN{printf "%.2f", x/y}')
	printf '%-40s %8.1fms %8.1fms %7s %7s\n' "$name" "$(awk -v x="$ta" 'BEGIN{print x*1000}')" "$(awk -v x="$tb" 'BEGIN{print x*1000}')" "$ratio" "≤ 1.0"
	if awk -v r="$ratio" 'BEGIN{exit !(r > 1.0)}'; then
		status=1
	fi
}
row "update, 1 file upstream (vs pull --ff-only)" tv-update git-pull
row "diff, 1 file changed (vs git diff)" tv-diff git-diff
exit $status
