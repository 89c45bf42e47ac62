#!/usr/bin/env bash
# compare.sh — a history of one-file commits through tv and through git,
# side by side: per-commit time (median, worst), vault size against the
# same history in git after `git gc`, and `git fsck --strict` of the vault
# along the way.
#
# It makes a throwaway HOME and vault, inits a workspace from the bundled
# starter and checks it out, puts the same tree in a git repository, then
# COMMITS times appends one line to the same file in both and commits it
# (tv workspace commit; git add -A && git commit), alternating, timing
# each. Every FSCK_EVERY commits (and at the end) the vault must pass
# `git fsck --strict`. It prints:
#
#   per-commit median tv / git (target ≤ 1.0)
#   worst tv commit / median tv commit (target ≤ 2.0)
#   vault objects / git objects after `git gc` (target ≤ 1.2)
#
# and exits 1 when a target is missed.
#
# Environment: COMMITS (default 1000), FSCK_EVERY (default 250), TV_BIN
# (use this tv binary), KEEP=1 keeps the work directory.
set -euo pipefail

COMMITS=${COMMITS:-1000}
FSCK_EVERY=${FSCK_EVERY:-250}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
[ -n "${EPOCHREALTIME:-}" ] || { echo "compare.sh: needs bash >= 5 (EPOCHREALTIME)" >&2; exit 2; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/tv-history.XXXXXX")
cleanup() { if [[ -z ${KEEP:-} ]]; then rm -rf "$WORK"; else echo "work directory kept: $WORK" >&2; fi; }
trap cleanup EXIT

tv=$WORK/tv
if [[ -n ${TV_BIN:-} ]]; then cp "$TV_BIN" "$tv"; else (cd "$repo" && go build -o "$tv" ./cmd/tv); fi

. "$repo/bench/privateenv.sh"
"$tv" workspace init --name history >/dev/null
co=$WORK/co
"$tv" workspace checkout history --output "$co" >/dev/null
g=$WORK/git
mkdir -p "$g"
cp -R "$co/." "$g/"
rm -f "$g"/.thalix-workspace.*
git -C "$g" init -q
git -C "$g" add -A
git -C "$g" commit -q -m init

file=stages/01-research/references/research-rules.md
fsck() {
	if ! git --git-dir="$TV_VAULT" fsck --strict --no-progress >"$WORK/fsck.out" 2>&1; then
		echo "compare.sh: git fsck --strict failed on the vault after $1 commits:" >&2
		cat "$WORK/fsck.out" >&2
		exit 1
	fi
}
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.5f\n", b-a}'; }

: >"$WORK/tv.times"
: >"$WORK/git.times"
for i in $(seq "$COMMITS"); do
	line="note $i: $(printf '%08d' $((i * 7919 % 100000000))) checked against the sources"
	echo "$line" >>"$co/$file"
	echo "$line" >>"$g/$file"
	t0=$EPOCHREALTIME
	"$tv" workspace commit "$co" --reason "note $i" >/dev/null
	t1=$EPOCHREALTIME
	git -C "$g" add -A && git -C "$g" commit -q -m "note $i"
	t2=$EPOCHREALTIME
	elapsed "$t0" "$t1" >>"$WORK/tv.times"
	elapsed "$t1" "$t2" >>"$WORK/git.times"
	if ((i % FSCK_EVERY == 0)); then fsck "$i"; fi
done
fsck "$COMMITS"

objbytes() { find "$1" -type f \( -path '*/objects/*' \) -printf '%s\n' | awk '{s+=$1} END{print s+0}'; }
vault=$(objbytes "$TV_VAULT")
gitloose=$(objbytes "$g/.git")
git -C "$g" gc -q
gitgc=$(objbytes "$g/.git")

stats() { sort -g "$1" | awk '{a[NR]=$1} END{m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.4f %.4f %.4f", m, a[NR], a[int(NR*0.99)]}'; }
read -r tvmed tvmax tvp99 <<<"$(stats "$WORK/tv.times")"
read -r gmed gmax gp99 <<<"$(stats "$WORK/git.times")"
# The commit that took longest, and its neighbours' median.
worst_at=$(awk 'NR==1||$1>m{m=$1; at=NR} END{print at}' "$WORK/tv.times")

fail=0
check() { # label value target
	local mark=""
	if awk -v r="$2" -v t="$3" 'BEGIN{exit !(r > t)}'; then mark=" MISS"; fail=1; fi
	printf '| %-46s | %8s | %-6s |%s\n' "$1" "$2" "≤ $3" "$mark"
}
printf '\n%s one-file commits; tv median %.1f ms (p99 %.1f, worst %.1f at commit %s), git median %.1f ms (worst %.1f)\n' \
	"$COMMITS" "$(awk -v x="$tvmed" 'BEGIN{print x*1000}')" "$(awk -v x="$tvp99" 'BEGIN{print x*1000}')" "$(awk -v x="$tvmax" 'BEGIN{print x*1000}')" "$worst_at" \
	"$(awk -v x="$gmed" 'BEGIN{print x*1000}')" "$(awk -v x="$gmax" 'BEGIN{print x*1000}')"
printf 'vault objects %d bytes; git %d bytes loose, %d bytes after git gc; git fsck --strict clean every %d commits\n\n' "$vault" "$gitloose" "$gitgc" "$FSCK_EVERY"
printf '| %-46s | %8s | %-6s |\n|---|---|---|\n' measure ratio target
check "per-commit median, tv / git" "$(awk -v a="$tvmed" -v b="$gmed" 'BEGIN{printf "%.2f", a/b}')" 1.0
check "worst tv commit / median tv commit" "$(awk -v a="$tvmax" -v b="$tvmed" 'BEGIN{printf "%.2f", a/b}')" 2.0
check "vault size / git size after git gc" "$(awk -v a="$vault" -v b="$gitgc" 'BEGIN{printf "%.2f", a/b}')" 1.2
if ((fail)); then printf '\nsome targets missed\n'; exit 1; fi
printf '\nall targets met\n'
