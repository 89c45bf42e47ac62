#!/usr/bin/env bash
# compare.sh — a history of one-file commits through tv and through git,
# side by side: per-commit time (median, worst), vault size against the
# same history in git after `git gc`, and `git fsck --strict` of the vault
# along the way.
#
# Each of RUNS runs makes a throwaway HOME and vault, inits a workspace
# from the bundled starter and checks it out, puts the same tree in a git
# repository, then COMMITS times appends one line to the same file in
# both and commits it (tv workspace commit; git add -A && git commit),
# alternating, timing each. Every FSCK_EVERY commits (and at the end) the
# vault must pass `git fsck --strict`. Each run prints a line; then a
# table over the runs:
#
#   per-commit median tv / git (target ≤ 1.0)
#   worst tv commit / median tv commit (target ≤ 2.0), measured on the
#     commit whose time, relative to its run's median, is the highest in
#     the median of the runs: the runs commit the same history, so a
#     commit that is slow by what it does (a pack merge) is slow in every
#     run, while a commit that only met a busy moment of a shared machine
#     is slow in one. Each run's own worst is printed beside it, with git's
#     own worst / median for what the machine's noise does to one sample,
#     git's worst commit by the same measure, and the worst commit in its
#     quietest run (the minimum over the runs) for both.
#   vault objects / git objects after `git gc` (target ≤ 1.2)
#
# and exits 1 when a target is missed (ratios: the median over the runs).
#
# Environment: COMMITS (default 1000), RUNS (default 3), FSCK_EVERY
# (default 250), TV_BIN (use this tv binary), KEEP=1 keeps the work
# directory.
set -euo pipefail

COMMITS=${COMMITS:-1000}
RUNS=${RUNS:-3}
FSCK_EVERY=${FSCK_EVERY:-250}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
[ -n "${EPOCHREALTIME:-}" ] || { echo "compare.sh: needs bash >= 5 (EPOCHREALTIME)" >&2; exit 2; }

TOP=$(mktemp -d "${TMPDIR:-/tmp}/tv-history.XXXXXX")
cleanup() { if [[ -z ${KEEP:-} ]]; then rm -rf "$TOP"; else echo "work directory kept: $TOP" >&2; fi; }
trap cleanup EXIT

tv=$TOP/tv
. "$repo/bench/buildtv.sh"
install_tv "$tv"

file=stages/01-research/references/research-rules.md
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.5f\n", b-a}'; }
load() { cut -d' ' -f1 /proc/loadavg; }
objbytes() { find "$1" -type f \( -path '*/objects/*' \) -printf '%s\n' | awk '{s+=$1} END{print s+0}'; }
# median, max, p99 of a file of numbers
stats() { sort -g "$1" | awk '{a[NR]=$1} END{m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.5f %.5f %.5f", m, a[NR], a[int(NR*0.99)]}'; }

# run R: one history through tv and git in $TOP/R; leaves R/tv.times,
# R/git.times and R/summary (one line of numbers).
run() {
	local r=$1
	WORK=$TOP/$r
	mkdir -p "$WORK"
	. "$repo/bench/privateenv.sh"
	local load0
	load0=$(load)
	"$tv" workspace init --name history >/dev/null
	local co=$WORK/co g=$WORK/git
	"$tv" workspace checkout history --output "$co" >/dev/null
	mkdir -p "$g"
	cp -R "$co/." "$g/"
	rm -f "$g"/.thalix-workspace.*
	git -C "$g" init -q
	git -C "$g" add -A
	git -C "$g" commit -q -m init
	fsck() {
		if ! git --git-dir="$TV_VAULT" fsck --strict --no-progress >"$WORK/fsck.out" 2>&1; then
			echo "compare.sh: run $r: git fsck --strict failed on the vault after $1 commits:" >&2
			cat "$WORK/fsck.out" >&2
			exit 1
		fi
	}
	: >"$WORK/tv.times"
	: >"$WORK/git.times"
	local i line t0 t1 t2
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
	local vault gitgc tvmed tvmax tvp99 gmed gmax gp99 worst_at
	vault=$(objbytes "$TV_VAULT")
	# git's own automatic gc may still run detached (git commit starts it
	# after enough loose objects): let it finish before the measured gc.
	local waited=0
	while [[ -e $g/.git/gc.pid ]] && ((waited < 600)); do sleep 1; waited=$((waited + 1)); done
	git -C "$g" gc -q
	gitgc=$(objbytes "$g/.git")
	read -r tvmed tvmax tvp99 <<<"$(stats "$WORK/tv.times")"
	read -r gmed gmax gp99 <<<"$(stats "$WORK/git.times")"
	worst_at=$(awk 'NR==1||$1>m{m=$1; at=NR} END{print at}' "$WORK/tv.times")
	echo "$load0 $(load) $tvmed $tvmax $tvp99 $worst_at $gmed $gmax $vault $gitgc" >"$WORK/summary"
	awk -v r="$r" -v l0="$load0" -v l1="$(load)" -v tm="$tvmed" -v tx="$tvmax" -v tp="$tvp99" -v at="$worst_at" -v gm="$gmed" -v gx="$gmax" -v vb="$vault" -v gb="$gitgc" 'BEGIN{
		printf "run %d (load %s -> %s): tv median %.1f ms, git median %.1f ms, tv/git %.2f; tv worst %.1f ms at commit %d = %.2f x its median (p99 %.2f x); git worst %.2f x its median; vault %d / git gc %d bytes = %.2f\n",
			r, l0, l1, tm*1000, gm*1000, tm/gm, tx*1000, at, tx/tm, tp/tm, gx/gm, vb, gb, vb/gb }'
}

for r in $(seq "$RUNS"); do run "$r"; done

# Over the runs: each commit's time divided by its run's median; per
# commit the median of that over the runs (judged) and its minimum (what
# the commit costs in the quietest run, info); for tv and for git.
relative() { # tv|git -> lines "median min commit", highest median first
	local r m
	for r in $(seq "$RUNS"); do
		m=$(awk -v c="$([[ $1 == tv ]] && echo 3 || echo 7)" '{print $c}' "$TOP/$r/summary")
		awk -v m="$m" '{printf "%.5f\n", $1/m}' "$TOP/$r/$1.times" >"$TOP/$r/$1.rel"
	done
	paste $(for r in $(seq "$RUNS"); do echo "$TOP/$r/$1.rel"; done) | awk '{
		n=split($0, v, "\t"); for(i=1;i<=n;i++) for(j=i+1;j<=n;j++) if(v[j]<v[i]){t=v[i];v[i]=v[j];v[j]=t}
		print (n%2)?v[(n+1)/2]:(v[n/2]+v[n/2+1])/2, v[1], NR}' | sort -g -r
}
# (Reading sort's output whole: `| head -1` would end it with SIGPIPE,
# which pipefail turns into the script's exit 141.)
relative tv >"$TOP/tv.relsorted"
relative git >"$TOP/git.relsorted"
read -r struct _ struct_at <<<"$(head -1 "$TOP/tv.relsorted")"
top5=$(head -5 "$TOP/tv.relsorted" | awk '{printf "%s%d (%.2f)", (NR>1?", ":""), $3, $1}')
tvmin=$(sort -g -r -k2 "$TOP/tv.relsorted" | awk 'NR==1{printf "%.2f at commit %d", $2, $3}')
gitstruct=$(head -1 "$TOP/git.relsorted" | awk '{printf "%.2f at commit %d", $1, $3}')
gitmin=$(sort -g -r -k2 "$TOP/git.relsorted" | awk 'NR==1{printf "%.2f at commit %d", $2, $3}')

ratios() { # expression over the summary fields, one value per run
	for r in $(seq "$RUNS"); do awk "{printf \"%.2f\\n\", $1}" "$TOP/$r/summary"; done
}
median() { sort -g | awk '{a[NR]=$1} END{printf "%.2f", (NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2}'; }
range() { sort -g | awk 'NR==1{lo=$1} {hi=$1} END{printf "%.2f–%.2f", lo, hi}'; }

med_ratio=$(ratios '$3/$7' | median)
raw_worst=$(ratios '$4/$3' | range)
git_worst=$(ratios '$8/$7' | range)
vault_ratio=$(ratios '$9/$10' | median)

fail=0
check() { # label value target detail
	local mark=""
	if awk -v r="$2" -v t="$3" 'BEGIN{exit !(r > t)}'; then mark=" MISS"; fail=1; fi
	printf '| %-58s | %8s | %-6s | %s |%s\n' "$1" "$2" "≤ $3" "$4" "$mark"
}
printf '\n%s runs of %s one-file commits; git fsck --strict clean every %s commits\n\n' "$RUNS" "$COMMITS" "$FSCK_EVERY"
printf '| %-58s | %8s | %-6s | %s |\n|---|---|---|---|\n' measure ratio target "per run"
check "per-commit median, tv / git (median of the runs)" "$med_ratio" 1.0 "$(ratios '$3/$7' | range)"
check "worst tv commit / median (the same commit in every run)" "$(printf '%.2f' "$struct")" 2.0 "commit $struct_at; top 5: $top5"
printf '| %-58s | %8s | %-6s | %s |\n' "(info) each run's own worst tv commit / its median" "$raw_worst" "" "git's own: $git_worst"
printf '| %-58s | %8s | %-6s | %s |\n' "(info) git's worst commit / median, the same way" "${gitstruct%% *}" "" "${gitstruct#* }"
printf '| %-58s | %8s | %-6s | %s |\n' "(info) worst commit in its quietest run / median, tv" "${tvmin%% *}" "" "${tvmin#* }; git: $gitmin"
check "vault size / git size after git gc (median of the runs)" "$vault_ratio" 1.2 "$(ratios '$9/$10' | range)"
if ((fail)); then printf '\nsome targets missed\n'; exit 1; fi
printf '\nall targets met\n'
