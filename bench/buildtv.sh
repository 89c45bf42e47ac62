# buildtv.sh — sourced by the bench scripts (after setting $repo).
#
# install_tv DEST puts tv at DEST with tv-full beside it (tv runs tv-full
# for the MCP servers and remote vaults): copies of $TV_BIN and of the
# tv-full beside it when TV_BIN is set, else a static build of ./cmd/tv and
# ./cmd/tv-full, as the README builds them.
install_tv() {
	local dest=$1 dir full
	dir=$(dirname "$dest")
	mkdir -p "$dir"
	if [[ -n ${TV_BIN:-} ]]; then
		cp "$TV_BIN" "$dest"
		full=$(dirname "$TV_BIN")/tv-full
		if [[ ! -x $full ]]; then
			echo "buildtv.sh: $full is not beside TV_BIN=$TV_BIN: tv runs it for MCP servers and remote vaults (go build -o DIR/ ./cmd/tv ./cmd/tv-full)" >&2
			exit 2
		fi
		cp "$full" "$dir/tv-full"
		return
	fi
	(cd "$repo" && CGO_ENABLED=0 go build -o "$dir/" ./cmd/tv ./cmd/tv-full)
	if [[ $dest != "$dir/tv" ]]; then mv "$dir/tv" "$dest"; fi
}
