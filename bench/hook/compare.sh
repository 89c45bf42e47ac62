#!/usr/bin/env bash
# compare.sh — a one-file push through `tv hook pre-receive` vs the same
# push to a repository without any hook, on a 10,000-file workspace.
#
# Builds tv, makes a throwaway HOME and vault, imports an ICM workspace
# (the bundled starter plus FILES generated files under
# stages/01-research/references/bulk/, made at run time), and seeds two
# bare repositories with it: hooked.git (tv hook install) and plain.git.
# Then, REPS times, it commits a one-file change with tv and pushes that
# version to both, alternating which goes first, over two transports:
# local (file) and git daemon on 127.0.0.1 (the hook learns the pusher
# from TV_PUSHER, set in the daemon's environment: --user-env). It prints
# the medians:
#
#   transport | no hook | hook | added | ratio | target
#
# and exits 1 when a target is missed (added ≤ 50 ms and ratio ≤ 1.3).
#
# Environment: REPS (default 15), FILES (default 10000), TV_BIN (use this
# tv binary), KEEP=1 keeps the work directory.
set -euo pipefail

load_before=$(uptime | sed 's/.*load average: //')
REPS=${REPS:-15}
FILES=${FILES:-10000}
ADDED_MS_TARGET=50
RATIO_TARGET=1.3
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/tv-bench-hook.XXXXXX")
daemon_pid=
cleanup() {
	[[ -n $daemon_pid ]] && kill "$daemon_pid" 2>/dev/null || true
	if [[ -z ${KEEP:-} ]]; then rm -rf "$WORK"; else echo "work directory kept: $WORK" >&2; fi
}
trap cleanup EXIT
log() { printf '%s\n' "$*" >&2; }

tv=$WORK/bin/tv
mkdir -p "$WORK/bin"
if [[ -n ${TV_BIN:-} ]]; then cp "$TV_BIN" "$tv"; else
	log "building tv"
	(cd "$repo" && go build -o "$tv" ./cmd/tv)
fi

export HOME=$WORK/home TV_VAULT=$WORK/vault.git
export XDG_CONFIG_HOME=$HOME/.config XDG_DATA_HOME=$HOME/.local/share XDG_STATE_HOME=$HOME/.local/state
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=$HOME/.gitconfig LC_ALL=C
unset REMOTE_USER GL_USER GITEA_PUSHER_NAME GL_USERNAME
mkdir -p "$HOME"
"$tv" login --user alice --email alice@example.com >/dev/null

log "generating a workspace of $FILES files"
src=$WORK/src
cp -R "$repo/starter/files/." "$src/"
bulk=$src/stages/01-research/references/bulk
awk -v dir="$bulk" -v n="$FILES" 'BEGIN {
	for (i = 0; i < n; i++) {
		d = int(i / 100)
		if (i % 100 == 0) system(sprintf("mkdir -p %s/d%03d", dir, d))
		f = sprintf("%s/d%03d/f%03d.md", dir, d, i % 100)
		printf "file %d of folder %d\n", i % 100, d > f
		close(f)
	}
}'
"$tv" workspace import "$src" --name big >/dev/null
ws=$("$tv" workspace list --json | sed -n 's/.*"workspace_id": "\(ws_[a-z2-7]*\)".*/\1/p' | head -1)
"$tv" workspace checkout big --output "$WORK/co" >/dev/null

srv=$WORK/srv
mkdir -p "$srv"
git init -q --bare "$srv/hooked.git"
git init -q --bare "$srv/plain.git"
"$tv" hook install "$srv/hooked.git" --user-env TV_PUSHER >/dev/null
export TV_PUSHER=alice
git --git-dir="$TV_VAULT" push -q "$srv/hooked.git" 'refs/tv/*:refs/tv/*'
git --git-dir="$TV_VAULT" push -q "$srv/plain.git" 'refs/tv/*:refs/tv/*'

port=$((20000 + RANDOM % 20000))
git daemon --reuseaddr --base-path="$srv" --export-all --enable=receive-pack \
	--listen=127.0.0.1 --port="$port" "$srv" 2>"$WORK/daemon.log" &
daemon_pid=$!
for _ in $(seq 50); do
	git ls-remote "git://127.0.0.1:$port/plain.git" >/dev/null 2>&1 && break
	sleep 0.1
done

TIME=/usr/bin/time
if ! "$TIME" -f %e true >/dev/null 2>&1; then
	echo "compare.sh: needs GNU time at $TIME (apt-get install time)" >&2
	exit 2
fi
# timed CMD...: runs CMD and prints "wall-ms cpu-ms", CPU being user+sys
# of CMD and every process it waited for (receive-pack and the hook, for a
# local push; the daemon's children are not ours to count).
timed() {
	"$TIME" -f '%e %U %S' -o "$WORK/time" "$@" 2>"$WORK/cmd.err" >/dev/null || {
		cat "$WORK/cmd.err" >&2
		exit 1
	}
	awk '{ printf "%d %d\n", $1 * 1000, ($2 + $3) * 1000 }' "$WORK/time"
}
# push URL: pushes the workspace's current version.
push() { timed git --git-dir="$TV_VAULT" push -q "$1" "refs/tv/workspaces/$ws"; }

changed=$(printf 'stages/01-research/references/bulk/d%03d/f000.md' $(((FILES + 99) / 100 / 2)))
declare -A samples
log "timing $REPS one-file pushes per transport and server"
for ((i = 0; i < REPS; i++)); do
	printf 'change %d\n' "$i" >"$WORK/co/$changed"
	"$tv" workspace commit "$WORK/co" --reason "change $i" >/dev/null
	for transport in local daemon; do
		if [[ $transport == local ]]; then base=$srv; else base=git://127.0.0.1:$port; fi
		if ((i % 2)); then order="hooked plain"; else order="plain hooked"; fi
		for kind in $order; do
			read -r wall cpu < <(push "$base/$kind.git")
			samples[$transport.$kind]+="$wall "
			samples[$transport.$kind.cpu]+="$cpu "
		done
	done
done

# The hook alone, judging the last one-file step again (its objects are
# in the repository now, not in a quarantine): what the hook adds to a
# push, without the transport's noise.
old=$(git --git-dir="$TV_VAULT" rev-parse "refs/tv/workspaces/$ws^")
new=$(git --git-dir="$TV_VAULT" rev-parse "refs/tv/workspaces/$ws")
printf '%s %s refs/tv/workspaces/%s\n' "$old" "$new" "$ws" >"$WORK/step"
for ((i = 0; i < REPS; i++)); do
	read -r wall cpu < <(cd "$srv/hooked.git" && timed sh -c "exec '$tv' hook pre-receive --user-env TV_PUSHER <'$WORK/step'")
	samples[alone]+="$wall "
	samples[alone.cpu]+="$cpu "
	read -r wall cpu < <(timed "$tv" --version)
	samples[version]+="$wall "
	samples[version.cpu]+="$cpu "
	read -r wall cpu < <(timed true)
	samples[true]+="$wall "
done

median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
fail=0
printf '\n| transport | measure | no hook | hook | added | hook/no hook | target |\n|---|---|---|---|---|---|---|\n'
row() { # transport measure plain-samples hooked-samples gated
	local p h
	p=$(median <<<"$3")
	h=$(median <<<"$4")
	awk -v t="$1" -v m="$2" -v p="$p" -v h="$h" -v g="$5" -v am="$ADDED_MS_TARGET" -v rt="$RATIO_TARGET" -v n="$FILES" -v r="$REPS" 'BEGIN {
		added = h - p; ratio = (p > 0) ? h / p : 0
		ok = (added <= am && ratio <= rt) ? "met" : "MISSED"
		target = g ? sprintf("≤ %d ms and ≤ %.1f: %s", am, rt, ok) : "info"
		printf "| %s (%d files, %d pushes) | %s | %d ms | %d ms | %d ms | %.2f | %s |\n", t, n, r, m, p, h, added, ratio, target
	}'
}
for transport in local daemon; do
	line=$(row "$transport" "wall, median" "${samples[$transport.plain]}" "${samples[$transport.hooked]}" 1)
	echo "$line"
	[[ $line == *MISSED* ]] && fail=1
	if [[ $transport == local ]]; then
		row local "CPU of push + receive-pack + hook, median" "${samples[local.plain.cpu]}" "${samples[local.hooked.cpu]}" 0
	fi
done
awk -v a="$(median <<<"${samples[alone]}")" -v c="$(median <<<"${samples[alone.cpu]}")" \
	-v va="$(median <<<"${samples[version]}")" -v vc="$(median <<<"${samples[version.cpu]}")" -v z="$(median <<<"${samples[true]}")" 'BEGIN {
	printf "\n`tv hook pre-receive` alone on that one-file step: %d ms wall, %d ms CPU; starting tv at all (`tv --version`): %d ms wall, %d ms CPU; starting `true`: %d ms wall\n", a, c, va, vc, z
}'
echo "load: $load_before (start); $(uptime | sed 's/.*load average: //') (end)"
exit $fail
