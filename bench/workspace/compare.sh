#!/usr/bin/env bash
# compare.sh — tv workspace operations vs git on the same tree, side by side.
#
# Builds tv, makes a throwaway HOME, vault and git identity, and for each
# corpus of CORPORA builds an ICM workspace and the same tree in a plain
# git repository, then times each operation for tv and git alternately,
# REPS times, and prints the medians, one table per corpus:
#
#   operation | tv | git | ratio | target | tv max RSS
#
# It exits 1 if any target is missed (ratio over target, or a tv run over
# the RSS limit). See README.md beside this file.
#
# Corpora (CORPORA, default "gosrc icm:1000 icm:10000 icm:100000"):
#   gosrc      the bundled starter plus a copy of $(go env GOROOT)/src under
#              stages/01-research/references/gosrc/ (few Markdown files)
#   icm:N      an ICM-shaped tree of N files, nearly all Markdown notes of
#              1-20 KB in stages' references/ and output/, generated at run
#              time by icmgen (deterministic: the same N, the same bytes)
#
# Environment: REPS (default 5; the slow operations run SLOW_REPS, default
# 5; corpora of BIG_FILES files or more, default 50000, run BIG_REPS,
# default 3, and of import and checkout BIG_SLOW_REPS, default 1; their git
# repository is packed with --window=REPACK_WINDOW, default 0: no delta
# search), GOSRC (tree to copy, default
# $(go env GOROOT)/src), TV_BIN (use this
# tv binary instead of building one), KEEP=1 keeps the work directory,
# WORK=dir uses (and keeps) dir.
set -euo pipefail

REPS=${REPS:-5}
SLOW_REPS=${SLOW_REPS:-5}
BIG_FILES=${BIG_FILES:-50000}
BIG_REPS=${BIG_REPS:-3}
BIG_SLOW_REPS=${BIG_SLOW_REPS:-1}
REPACK_WINDOW=${REPACK_WINDOW:-0}
CORPORA=${CORPORA:-gosrc icm:1000 icm:10000 icm:100000}
RSS_LIMIT_KB=$((${RSS_LIMIT_MIB:-80} * 1024)) # every tv run stays under this (default 80 MiB)
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
log "building tv"
. "$repo/bench/buildtv.sh"
install_tv "$tv"
icmgen=$WORK/bin/icmgen
(cd "$repo" && go build -o "$icmgen" ./bench/workspace/icmgen)

# A private environment: nothing of the caller's tv or git setup is used.
. "$repo/bench/privateenv.sh"
git config --global advice.detachedHead false

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
range_of() { tr ' ' '\n' | grep . | sort -g | awk 'NR==1{lo=$1} {hi=$1} END{printf "%.3f-%.3f", lo, hi}'; }

# wait_gc GITDIR: waits (untimed, up to 10 minutes) for the `git gc --auto`
# that git commit starts detached after 6,700 loose objects (an import of
# 10,000 files or more) to finish: it packs them on one of the machine's
# two cores for seconds, which every row timed after would share.
wait_gc() {
	local waited=0
	while [[ -e $1/gc.pid ]] && ((waited < 6000)); do
		sleep 0.1
		waited=$((waited + 1))
	done
}

# git with its own git dir beside the tree (the tree stays free of .git,
# which tv refuses to import).
gitw() { local gd=$1 wt=$2; shift 2; git --git-dir="$gd" --work-tree="$wt" "$@"; }

# The small workspace (the starter alone), for the commit-growth check.
small=$WORK/small
mkdir -p "$small"
cp -R "$repo/starter/files/." "$small/"
export TV_VAULT=$WORK/vault-small.git
"$tv" vault info >/dev/null
"$tv" workspace import "$small" --name small >/dev/null
"$tv" workspace checkout small --output "$WORK/small-co" >/dev/null
gitsmall=$WORK/git-small.git
gitw "$gitsmall" "$small" init -q
gitw "$gitsmall" "$small" add -A
gitw "$gitsmall" "$small" commit -q -m init
git --git-dir="$gitsmall" config core.bare true
git --git-dir="$gitsmall" config --unset core.worktree || true
git clone -q "$gitsmall" "$WORK/small-clone"
small_edit=stages/01-research/references/research-rules.md

fail=0

# bench CORPUS: builds the corpus's tree, times every operation on it and
# prints its table.
bench() {
	local corpus=$1
	T=() R=()
	local cw=$WORK/$corpus
	cw=${cw//:/-}
	mkdir -p "$cw"
	local tree=$cw/tree edit desc
	case $corpus in
	gosrc)
		log "building the tree: starter + $GOSRC"
		mkdir -p "$tree"
		cp -R "$repo/starter/files/." "$tree/"
		mkdir -p "$tree/stages/01-research/references"
		cp -R "$GOSRC" "$tree/stages/01-research/references/gosrc"
		# Nothing tv refuses: no .git, no symlinks or special files.
		find "$tree" -name .git -prune -exec rm -rf {} +
		find "$tree" ! -type f ! -type d -delete
		edit=stages/01-research/references/research-rules.md
		desc="starter + $GOSRC"
		;;
	icm:*)
		log "generating the tree: $corpus"
		"$icmgen" -files "${corpus#icm:}" -out "$tree"
		edit=stages/01-research/references/topic-000/note-00001.md
		desc="ICM Markdown notes, icmgen -files ${corpus#icm:}"
		;;
	*)
		log "unknown corpus $corpus (gosrc or icm:N)"
		exit 2
		;;
	esac
	local nfiles nbytes reps=$REPS slow=$SLOW_REPS
	nfiles=$(find "$tree" -type f | wc -l)
	nbytes=$(du -sk "$tree" | cut -f1)
	if ((nfiles >= BIG_FILES)); then reps=$BIG_REPS slow=$BIG_SLOW_REPS; fi
	log "tree: $nfiles files, $((nbytes / 1024)) MiB on disk"

	# ---- import
	log "import ($slow reps)"
	local i gd
	for i in $(seq "$slow"); do
		export TV_VAULT=$cw/vault-import-$i.git
		"$tv" vault info >/dev/null # create the empty vault outside the timing
		run "tv import" "$tv" workspace import "$tree" --name bench
		gd=$cw/git-import-$i.git
		run "git import" bash -c 'git --git-dir="$1" --work-tree="$2" init -q && git --git-dir="$1" --work-tree="$2" add -A && git --git-dir="$1" --work-tree="$2" commit -q -m import' _ "$gd" "$tree"
		wait_gc "$gd"
	done
	# The last rep's vault and git repository are the ones the rest runs on.
	export TV_VAULT=$cw/vault-import-$slow.git
	local gitsrc=$cw/git-import-$slow.git
	git --git-dir="$gitsrc" config core.bare true
	git --git-dir="$gitsrc" config --unset core.worktree || true
	# A real repository is packed; so is the vault. Packed once, untimed:
	# with git's delta search below BIG_FILES files; without it (--window=0,
	# REPACK_WINDOW) at and above, where the search over 100k notes ran for
	# 18 minutes on a loaded machine. A pack without deltas only makes
	# git's clone cheaper (nothing to resolve), so tv's ratio is the
	# harder one.
	local window=()
	if ((nfiles >= BIG_FILES)); then window=(--window="$REPACK_WINDOW"); fi
	git --git-dir="$gitsrc" repack -a -d -q "${window[@]}"
	git --git-dir="$gitsrc" prune-packed

	# ---- checkout vs clone: every run writes into a new directory, nothing
	# is deleted during the run (on ext4 without a journal, creating files
	# right after deleting many is slow for whoever comes next: each new
	# inode is checked against the recently deleted ones), and tv and git
	# take turns going first, so that neither always meets what the step
	# before left.
	log "checkout ($slow reps)"
	for i in $(seq "$slow"); do
		if ((i % 2)); then
			run "tv checkout" "$tv" workspace checkout bench --output "$cw/co-$i"
			run "git clone --no-local" git clone -q --no-local "$gitsrc" "$cw/clone-nl-$i"
		else
			run "git clone --no-local" git clone -q --no-local "$gitsrc" "$cw/clone-nl-$i"
			run "tv checkout" "$tv" workspace checkout bench --output "$cw/co-$i"
		fi
		run "git clone" git clone -q "$gitsrc" "$cw/clone-$i"
	done
	local co=$cw/co-1 clone=$cw/clone-1

	# ---- walk-test vs status
	log "walk-test unchanged ($reps reps)"
	"$tv" workspace walk-test "$co" >/dev/null # the first status of a fresh
	git -C "$clone" status --porcelain >/dev/null # clone refreshes its index
	for i in $(seq "$reps"); do
		run "tv walk-test unchanged" "$tv" workspace walk-test "$co"
		grep -q "no changes" "$WORK/last.out" || { log "walk-test saw changes:"; cat "$WORK/last.out" >&2; exit 1; }
		run "git status unchanged" git -C "$clone" status --porcelain
		[[ ! -s $WORK/last.out ]] || { log "git status saw changes"; exit 1; }
		# Start-up alone: a command that reads one small file.
		run "tv whoami" "$tv" whoami
		run "git rev-parse" git -C "$clone" rev-parse --git-dir
	done

	log "walk-test after touching one file ($reps reps)"
	local when
	for i in $(seq "$reps"); do
		when=$(($(date +%s) - 100 + i)) # a new mtime each rep, always in the past
		touch -m -d "@$when" "$co/$edit" "$clone/$edit"
		run "tv walk-test touched one" "$tv" workspace walk-test "$co"
		grep -q "no changes" "$WORK/last.out" || { log "walk-test saw changes after touch"; exit 1; }
		run "git status touched one" git -C "$clone" status --porcelain
	done

	log "walk-test after touching every file ($reps reps)"
	touchall() { find "$1" -path "$1/.git" -prune -o -type f ! -name '.thalix-workspace*' -print0 | xargs -0 touch -m -d "@$2"; }
	for i in $(seq "$reps"); do
		when=$(($(date +%s) - 200 + i))
		touchall "$co" "$when"
		touchall "$clone" "$when"
		run "tv walk-test touched, 1st" "$tv" workspace walk-test "$co"
		grep -q "no changes" "$WORK/last.out" || { log "walk-test saw changes after touch"; exit 1; }
		run "git status touched, 1st" git -C "$clone" status --porcelain
		run "tv walk-test touched, 2nd" "$tv" workspace walk-test "$co"
		run "git status touched, 2nd" git -C "$clone" status --porcelain
	done

	# ---- commit one file
	log "commit one file ($reps reps)"
	local side d g e
	for i in $(seq "$reps"); do
		for side in big small; do
			if [[ $side == big ]]; then d=$co g=$clone e=$edit; else d=$WORK/small-co g=$WORK/small-clone e=$small_edit; fi
			echo "edit $corpus $i" >>"$d/$e"
			echo "edit $corpus $i" >>"$g/$e"
			TV_VAULT=$([[ $side == big ]] && echo "$TV_VAULT" || echo "$WORK/vault-small.git") \
				run "tv commit one file ($side)" "$tv" workspace commit "$d" --reason "edit $i"
			grep -q "1 modified" "$WORK/last.out" || { log "commit did not modify one file:"; cat "$WORK/last.out" >&2; exit 1; }
			run "git commit one file ($side)" bash -c 'git -C "$1" add -A && git -C "$1" commit -q -m "edit $2"' _ "$g" "$i"
			# The same walk without the commit, to split the commit's own cost.
			run "tv walk-test ($side)" "$tv" workspace walk-test "$d"
			run "git status ($side)" git -C "$g" status --porcelain
		done
	done

	# ---- the table
	printf '\n%s: %s files, %s MiB (%s), %s reps (import/checkout %s), medians (range)\n\n' "$corpus" "$nfiles" "$((nbytes / 1024))" "$desc" "$reps" "$slow"
	printf '| %-34s | %9s | %9s | %6s | %-7s | %10s | %-25s |\n' operation "tv (s)" "git (s)" ratio target "tv max RSS" "tv range / git range (s)"
	printf '|%s|%s|%s|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..36})" -----------  -----------  --------  ---------  ------------ ---------------------------
	row "import vs init+add+commit" "tv import" "git import" 0.5
	row "checkout vs clone --no-local" "tv checkout" "git clone --no-local" 1.0
	row "checkout vs clone (local, hardlinks)" "tv checkout" "git clone" -
	row "walk-test vs status, unchanged" "tv walk-test unchanged" "git status unchanged" 1.0
	row "start-up: whoami vs rev-parse" "tv whoami" "git rev-parse" -
	row "walk-test vs status, touched one" "tv walk-test touched one" "git status touched one" 1.0
	row "touched all, 1st (re-hash)" "tv walk-test touched, 1st" "git status touched, 1st" -
	row "touched all, 2nd (fast path)" "tv walk-test touched, 2nd" "git status touched, 2nd" 1.0
	row "commit one file" "tv commit one file (big)" "git commit one file (big)" 1.0
	row "commit one file (starter, 10 files)" "tv commit one file (small)" "git commit one file (small)" -

	# Does committing one file grow with the tree? A commit is a walk-test of
	# the checkout plus the commit's own work; the walk (lstat of every file)
	# grows with the tree for tv and git alike. Its own work should not.
	local og os_
	og=$(own big)
	os_=$(own small)
	printf '\ncommit one file, beyond its walk-test: %s %.3f s, starter %.3f s (walk-test: %.3f s, starter %.3f s)\n' \
		"$corpus" "$og" "$os_" "$(median <<<"${T["tv walk-test (big)"]}")" "$(median <<<"${T["tv walk-test (small)"]}")"
	if awk -v g="$og" -v s="$os_" -v k="$GROWTH_SLACK" 'BEGIN{exit !(g > s + k)}'; then
		printf 'MISS: the commit'"'"'s own work grows with the tree (more than %s s apart)\n' "$GROWTH_SLACK"
		fail=1
	fi

	printf '\nall samples (s), in run order:\n'
	local k
	for k in "${!T[@]}"; do printf '  %-32s %s\n' "$k" "${T[$k]}"; done | sort

	# The next corpus starts on a quiet disk.
	if [[ -z ${KEEP:-} ]]; then
		chmod -R u+w "$cw" 2>/dev/null || true
		rm -rf "$cw"
		sync
	fi
}

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
	printf '| %-34s | %9.3f | %9.3f | %6s | %-7s | %6.1f MiB | %-25s |%s\n' "$label" "$tvm" "$gm" "$ratio" "${target/#-/info}" "$(awk -v k="$rss" 'BEGIN{print k/1024}')" "$(range_of <<<"${T[$tk]}") / $(range_of <<<"${T[$gk]}")" "$mark"
}

# own SIDE: commit median minus walk-test median, seconds.
own() {
	awk -v a="$(median <<<"${T["tv commit one file ($1)"]}")" -v b="$(median <<<"${T["tv walk-test ($1)"]}")" 'BEGIN{printf "%.4f", a-b}'
}

# The gate: on a tree 1,000 times larger, the commit's own work may differ
# by no more than GROWTH_SLACK seconds (noise on a shared machine).
GROWTH_SLACK=${GROWTH_SLACK:-0.010}

for c in $CORPORA; do
	bench "$c"
done

if ((fail)); then
	printf '\nsome targets missed\n'
	exit 1
fi
printf '\nall targets met\n'
