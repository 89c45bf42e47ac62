#!/usr/bin/env bash
# compare.sh — a one-file push through `tv hook pre-receive` vs the same
# push to a repository without any hook, on a 10,000-file workspace, over
# every transport a team serves a vault with.
#
# Builds tv and the helper bench/hook/pushbench (static, CGO_ENABLED=0,
# as the other benches), sources the private environment of
# bench/privateenv.sh (HOME, vault, git identity, tv logged in as bench),
# imports an ICM workspace of FILES files (the bundled
# starter plus generated notes under stages/01-research/references/bulk/,
# made at run time) and seeds six bare repositories with it, one per
# transport and kind: local-hooked.git, local-plain.git, daemon-…, http-…
# (hooked: `tv hook install`; plain: no hook at all). Transports:
#
#   local   a path (git runs receive-pack itself); pusher from TV_PUSHER
#   daemon  git daemon on 127.0.0.1 (--enable=receive-pack); pusher from
#           TV_PUSHER in the daemon's environment (--user-env)
#   http    git http-backend behind `pushbench serve` on 127.0.0.1, the
#           way teams serve it; pusher from REMOTE_USER (no --user-env)
#
# Then, REPS times, it commits a one-file change with tv and pushes that
# version to all six, alternating plain and hooked first. After every push
# it checks that the server's ref moved to the new version (a push that
# updated nothing fails the run). Each push is timed by `pushbench time`
# (wall and CPU, microsecond resolution). It prints, per transport, the
# median and range of both kinds, the added time and the ratio of the
# medians, and the target:
#
#   the hook adds ≤ 50 ms AND ≤ 1.3× the push's time, on every transport
#
# and exits 1 when a transport misses it. Below the table: the hook alone
# (`tv hook pre-receive` on the last step, from a shell as git runs it),
# `tv --version` (tv's start-up), and the hook's own work after start-up
# (`pushbench inproc`: hook.PreReceive called once in a fresh process).
#
# Environment: REPS (default 15), FILES (default 10000), TV_BIN (use this
# tv binary), KEEP=1 keeps the work directory.
set -euo pipefail

load_before=$(uptime | sed 's/.*load average: //')
REPS=${REPS:-15}
FILES=${FILES:-10000}
ADDED_MS_TARGET=50
RATIO_TARGET=1.3
TRANSPORTS="local daemon http"
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/tv-bench-hook.XXXXXX")
daemon_pid= http_pid=
cleanup() {
	[[ -n $daemon_pid ]] && kill "$daemon_pid" 2>/dev/null || true
	[[ -n $http_pid ]] && kill "$http_pid" 2>/dev/null || true
	if [[ -z ${KEEP:-} ]]; then rm -rf "$WORK"; else echo "work directory kept: $WORK" >&2; fi
}
trap cleanup EXIT
log() { printf '%s\n' "$*" >&2; }
die() {
	printf 'compare.sh: %s\n' "$*" >&2
	exit 2
}

tv=$WORK/bin/tv
pb=$WORK/bin/pushbench
mkdir -p "$WORK/bin"
log "building tv"
. "$repo/bench/buildtv.sh"
install_tv "$tv"
(cd "$repo" && CGO_ENABLED=0 go build -o "$pb" ./bench/hook/pushbench)

# shellcheck source=../privateenv.sh
source "$repo/bench/privateenv.sh"
unset REMOTE_USER GL_USER GITEA_PUSHER_NAME GL_USERNAME
export TV_PUSHER=bench # the pusher of the local and daemon transports

src=$WORK/src
mkdir -p "$src"
cp -R "$repo/starter/files/." "$src/"
starter=$(find "$src" -type f | wc -l)
gen=$((FILES - starter))
((gen > 0)) || die "FILES=$FILES is not more than the starter's $starter files"
log "generating a workspace of $FILES files"
bulk=$src/stages/01-research/references/bulk
awk -v dir="$bulk" -v n="$gen" 'BEGIN {
	for (i = 0; i < n; i++) {
		d = int(i / 100)
		if (i % 100 == 0) system(sprintf("mkdir -p %s/d%03d", dir, d))
		f = sprintf("%s/d%03d/f%03d.md", dir, d, i % 100)
		printf "file %d of folder %d\n", i % 100, d > f
		close(f)
	}
}'
"$tv" workspace import "$src" --name big >"$WORK/import.out"
ws=$(grep -o 'ws_[a-z2-7]\{20\}' "$WORK/import.out" | head -1) || true
[[ -n $ws ]] || die "no workspace id in tv workspace import's output: $(cat "$WORK/import.out")"
ref=refs/tv/workspaces/$ws
"$tv" workspace checkout big --output "$WORK/co" >/dev/null
version() { git --git-dir="$1" rev-parse --verify --quiet "$ref" || true; }

srv=$WORK/srv
mkdir -p "$srv"
for t in $TRANSPORTS; do
	for kind in plain hooked; do
		git init -q --bare "$srv/$t-$kind.git"
	done
	userenv=(--user-env TV_PUSHER)
	[[ $t == http ]] && userenv=() # http-backend sets REMOTE_USER
	"$tv" hook install "$srv/$t-hooked.git" "${userenv[@]}" >/dev/null
	for kind in plain hooked; do
		REMOTE_USER=bench git --git-dir="$TV_VAULT" push -q "$srv/$t-$kind.git" 'refs/tv/*:refs/tv/*'
		[[ $(version "$srv/$t-$kind.git") == $(version "$TV_VAULT") ]] || die "seeding $t-$kind.git did not land"
	done
done

port=$((20000 + RANDOM % 20000))
git daemon --reuseaddr --base-path="$srv" --export-all --enable=receive-pack \
	--listen=127.0.0.1 --port="$port" "$srv" 2>"$WORK/daemon.log" &
daemon_pid=$!
"$pb" serve -root "$srv" -user bench -url-file "$WORK/http.url" -for 2h 2>"$WORK/http.log" &
http_pid=$!
for _ in $(seq 100); do
	[[ -s $WORK/http.url ]] && break
	sleep 0.1
done
[[ -s $WORK/http.url ]] || die "the http server did not start: $(cat "$WORK/http.log")"
http_url=$(cat "$WORK/http.url")
url() { # transport kind
	case $1 in
	local) echo "$srv/$1-$2.git" ;;
	daemon) echo "git://127.0.0.1:$port/$1-$2.git" ;;
	http) echo "$http_url/$1-$2.git" ;;
	esac
}
for t in $TRANSPORTS; do
	for _ in $(seq 50); do
		git ls-remote "$(url "$t" plain)" >/dev/null 2>&1 && break
		sleep 0.1
	done
	git ls-remote "$(url "$t" plain)" >/dev/null || die "$t transport does not answer: $(cat "$WORK"/*.log)"
done

changed=$(printf 'stages/01-research/references/bulk/d%03d/f000.md' $((gen / 100 / 2)))
[[ -f $WORK/co/$changed ]] || die "$changed is not in the checkout"
declare -A samples
log "timing $REPS one-file pushes per transport and kind (local, daemon, http)"
for ((i = 0; i < REPS; i++)); do
	printf 'change %d\n' "$i" >"$WORK/co/$changed"
	"$tv" workspace commit "$WORK/co" --reason "change $i" >/dev/null
	new=$(version "$TV_VAULT")
	if ((i % 2)); then order="hooked plain"; else order="plain hooked"; fi
	for t in $TRANSPORTS; do
		for kind in $order; do
			dest=$srv/$t-$kind.git
			before=$(version "$dest")
			read -r wall cpu < <("$pb" time git --git-dir="$TV_VAULT" push -q "$(url "$t" "$kind")" "$ref") ||
				die "push $i to $t-$kind failed"
			after=$(version "$dest")
			if [[ $after != "$new" || $before == "$new" ]]; then
				die "push $i to $t-$kind did not move $ref from ${before:0:12} to ${new:0:12} (it is at ${after:0:12})"
			fi
			samples[$t.$kind]+="$wall "
			samples[$t.$kind.cpu]+="$cpu "
		done
	done
done

# The hook alone on that last one-file step (its objects are in the
# repository now, not in a quarantine): the installed script, run as git
# runs it (on Linux its #! line names tv, elsewhere sh execs tv);
# tv's start-up; and the hook's own work after start-up.
hooked=$srv/local-hooked.git
old=$(git --git-dir="$hooked" rev-parse "$ref^")
printf '%s %s %s\n' "$old" "$new" "$ref" >"$WORK/step"
for ((i = 0; i < REPS; i++)); do
	read -r wall cpu < <(cd "$hooked" && "$pb" time ./hooks/pre-receive <"$WORK/step") ||
		die "tv hook pre-receive refused the step"
	samples[alone]+="$wall "
	samples[alone.cpu]+="$cpu "
	read -r wall cpu < <("$pb" time "$tv" --version)
	samples[version]+="$wall "
	samples[version.cpu]+="$cpu "
	read -r wall cpu < <("$pb" inproc -git-dir "$hooked" -step "$WORK/step" -user bench)
	samples[inproc]+="$wall "
	samples[inproc.cpu]+="$cpu "
done

# stats: "median min max" of the samples on stdin.
stats() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)], a[1], a[NR]}'; }
med() { stats | cut -d' ' -f1; }
fail=0
printf '\n%d files, %d one-file pushes per transport and kind; medians (range), ms\n' "$FILES" "$REPS"
printf '\n| transport | measure | no hook | hook | added | hook/no hook | target |\n|---|---|---|---|---|---|---|\n'
row() { # transport measure plain-samples hooked-samples gated
	awk -v t="$1" -v m="$2" -v p="$(stats <<<"$3")" -v h="$(stats <<<"$4")" -v g="$5" \
		-v am="$ADDED_MS_TARGET" -v rt="$RATIO_TARGET" 'BEGIN {
		split(p, P, " "); split(h, H, " ")
		added = H[1] - P[1]; ratio = (P[1] > 0) ? H[1] / P[1] : 0
		ok = (added <= am && ratio <= rt) ? "met" : "MISSED"
		target = g ? sprintf("≤ %d ms and ≤ %.1f: %s", am, rt, ok) : "info"
		printf "| %s | %s | %.1f (%.1f–%.1f) | %.1f (%.1f–%.1f) | %.1f | %.2f | %s |\n", t, m, P[1], P[2], P[3], H[1], H[2], H[3], added, ratio, target
	}'
}
for t in $TRANSPORTS; do
	case $t in
	local) name="local (path)" ;;
	daemon) name="git daemon, 127.0.0.1" ;;
	http) name="smart HTTP (http-backend), 127.0.0.1" ;;
	esac
	line=$(row "$name" "wall" "${samples[$t.plain]}" "${samples[$t.hooked]}" 1)
	echo "$line"
	[[ $line == *MISSED* ]] && fail=1
	if [[ $t == local ]]; then
		row "$name" "CPU of push + receive-pack + hook" "${samples[local.plain.cpu]}" "${samples[local.hooked.cpu]}" 0
	fi
done
awk -v a="$(stats <<<"${samples[alone]}")" -v ac="$(med <<<"${samples[alone.cpu]}")" \
	-v v="$(stats <<<"${samples[version]}")" -v vc="$(med <<<"${samples[version.cpu]}")" \
	-v p="$(stats <<<"${samples[inproc]}")" -v pc="$(med <<<"${samples[inproc.cpu]}")" 'BEGIN {
	split(a, A, " "); split(v, V, " "); split(p, P, " ")
	printf "\n| parts of the hook, medians (range), ms | wall | CPU |\n|---|---|---|\n"
	printf "| `tv hook pre-receive` alone on the last step, the installed script | %.1f (%.1f–%.1f) | %.1f |\n", A[1], A[2], A[3], ac
	printf "| starting tv at all: `tv --version` | %.1f (%.1f–%.1f) | %.1f |\n", V[1], V[2], V[3], vc
	printf "| the hook after start-up: hook.PreReceive once in a fresh process | %.2f (%.2f–%.2f) | %.2f |\n", P[1], P[2], P[3], pc
}'
echo
echo "load: $load_before (start); $(uptime | sed 's/.*load average: //') (end)"
exit $fail
