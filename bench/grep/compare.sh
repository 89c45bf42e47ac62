#!/usr/bin/env bash
# compare.sh — textsearch.Search (through the bench/grep driver) against
# ripgrep on a copy of $(go env GOROOT)/src/{runtime,go,net}.
#
# For each case it runs both tools REPS times, interleaved, and reports the
# median wall time, the ratio tv/rg and the peak RSS of one run of each
# (/usr/bin/time -v). It checks that both find the same number of matching
# lines (rg --count semantics) and fails (exit 1) if a case's ratio
# exceeds its gate (MAX_RATIO for the literal and prefiltered regexp
# cases, MAX_RATIO_NOLIT for the regexp with no required literal) or tv's
# peak RSS exceeds MAX_RSS_MIB.
#
# Environment: REPS (default 21), MAX_RATIO (1.5), MAX_RATIO_NOLIT (2.0),
# MAX_RSS_MIB (64),
# KEEP_TREE=dir to reuse/keep a tree copy there.
set -euo pipefail

REPS=${REPS:-21}
MAX_RATIO=${MAX_RATIO:-1.5}
MAX_RATIO_NOLIT=${MAX_RATIO_NOLIT:-2.0}
MAX_RSS_MIB=${MAX_RSS_MIB:-64}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)

command -v rg >/dev/null || { echo "compare.sh: rg not found (apt-get install -y ripgrep)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "compare.sh: /usr/bin/time not found (apt-get install -y time)" >&2; exit 2; }
[ -n "${EPOCHREALTIME:-}" ] || { echo "compare.sh: needs bash >= 5 (EPOCHREALTIME)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tree=${KEEP_TREE:-$work/tree}
if [ ! -d "$tree/runtime" ]; then
	goroot=$(go env GOROOT)
	mkdir -p "$tree"
	cp -r "$goroot/src/runtime" "$goroot/src/go" "$goroot/src/net" "$tree/"
fi
(cd "$repo" && go build -o "$work/tvgrep" ./bench/grep)
nfiles=$(find "$tree" -type f | wc -l)
nbytes=$(find "$tree" -type f -printf '%s\n' | awk '{s+=$1} END {print s}')
echo "tree: $tree ($nfiles files, $((nbytes / 1024 / 1024)) MiB); rg $(rg --version | head -1 | cut -d' ' -f2); $(go version | cut -d' ' -f3); $(nproc) CPUs; REPS=$REPS"

# Cases: name, gate (the largest tv/rg ratio allowed), mode (F literal /
# E regexp), pattern.
cases=(
	"literal-2|$MAX_RATIO|F|func (c *conn) Close"
	"literal-103|$MAX_RATIO|F|SetReadDeadline"
	"regexp-69|$MAX_RATIO|E|func \(\w+ \*\w+\) Close\(\) error"
	"regexp-10|$MAX_RATIO|E|func \(\w+ \*\w*Conn\) Set\w+Deadline"
	"no-literal|$MAX_RATIO_NOLIT|E|[0-9]{9}[a-f]{3}"
)

# now_us prints the time in microseconds.
now_us() { local t=${EPOCHREALTIME/./}; echo "$t"; }

# median of the numbers on stdin.
median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

# rss_kib CMD...: peak RSS in KiB of one run.
rss_kib() { /usr/bin/time -v "$@" 2>&1 >/dev/null | awk -F': ' '/Maximum resident set size/ {print $2}'; }

fail=0
printf '%-12s %-42s %6s %9s %9s %7s %10s %10s %s\n' case pattern lines tv_ms rg_ms ratio tv_rss_MiB rg_rss_MiB gate
for c in "${cases[@]}"; do
	IFS='|' read -r name gate mode pat <<<"$c"
	fflag=()
	[ "$mode" = F ] && fflag=(-F)
	tvflags=("${fflag[@]}")
	rgflags=(-uu -n "${fflag[@]}")
	# Same answer? The driver checks its count of matching lines against
	# rg's (the sum of rg --count, which counts matching lines).
	rglines=$(rg -uu -c "${fflag[@]}" -- "$pat" "$tree" | awk -F: '{s+=$NF} END {print s+0}')
	tvlines=$rglines
	if ! "$work/tvgrep" -q -expect "$rglines" "${tvflags[@]}" -- "$pat" "$tree" 2>"$work/count.err" >/dev/null; then
		cat "$work/count.err" >&2
		tvlines=$(sed -n 's/.*matches=\([0-9]*\).*/\1/p' "$work/count.err")
		echo "FAIL $name: tv found $tvlines matching lines, rg $rglines" >&2
		fail=1
	fi
	# Warm up, then interleave timed runs. Both write their matches to /dev/null.
	"$work/tvgrep" "${tvflags[@]}" -- "$pat" "$tree" >/dev/null 2>&1
	rg "${rgflags[@]}" -- "$pat" "$tree" >/dev/null
	: >"$work/tv.times"
	: >"$work/rg.times"
	for _ in $(seq "$REPS"); do
		t0=$(now_us)
		"$work/tvgrep" "${tvflags[@]}" -- "$pat" "$tree" >/dev/null 2>&1
		t1=$(now_us)
		rg "${rgflags[@]}" -- "$pat" "$tree" >/dev/null
		t2=$(now_us)
		echo $((t1 - t0)) >>"$work/tv.times"
		echo $((t2 - t1)) >>"$work/rg.times"
	done
	tvus=$(median <"$work/tv.times")
	rgus=$(median <"$work/rg.times")
	ratio=$(awk -v a="$tvus" -v b="$rgus" 'BEGIN {printf "%.2f", a / b}')
	tvrss=$(rss_kib "$work/tvgrep" "${tvflags[@]}" -- "$pat" "$tree")
	rgrss=$(rss_kib rg "${rgflags[@]}" -- "$pat" "$tree")
	printf '%-12s %-42s %6s %9.1f %9.1f %7s %10.1f %10.1f %s\n' "$name" "$pat" "$tvlines" \
		"$(awk -v x="$tvus" 'BEGIN {print x / 1000}')" "$(awk -v x="$rgus" 'BEGIN {print x / 1000}')" "$ratio" \
		"$(awk -v x="$tvrss" 'BEGIN {print x / 1024}')" "$(awk -v x="$rgrss" 'BEGIN {print x / 1024}')" "$gate"
	if awk -v r="$ratio" -v m="$gate" 'BEGIN {exit !(r > m)}'; then
		echo "FAIL $name: tv/rg = $ratio > $gate" >&2
		fail=1
	fi
	if [ "$tvrss" -gt $((MAX_RSS_MIB * 1024)) ]; then
		echo "FAIL $name: tv peak RSS $((tvrss / 1024)) MiB > $MAX_RSS_MIB MiB" >&2
		fail=1
	fi
done
if [ "$fail" -ne 0 ]; then
	echo "compare.sh: FAILED (ratio limits $MAX_RATIO, no literal $MAX_RATIO_NOLIT; memory limit $MAX_RSS_MIB MiB)" >&2
	exit 1
fi
echo "compare.sh: ok (every ratio <= $MAX_RATIO, no literal <= $MAX_RATIO_NOLIT, tv peak RSS <= $MAX_RSS_MIB MiB)"
