# local-server.sh - sourced by bot/run-game.sh and
# tests/bench/relay-strength.sh: a local kimble-server for the length of a
# script.  The caller sets root (the repository) and defines die().
#
#   local_server_start NAME [SERVER ARGS...]
#       checks bin/ for the server, relay and bot; makes the folder $work
#       (removed at exit, with the server stopped); starts bin/kimble-server
#       with the arguments; sets server_pid, port and server_line (its
#       first line, "kimble-server: listening on HOST:PORT seed SEED").

local_server_start() {
	local name=$1 p
	shift
	for p in kimble-server kimble-relay kimble-bot; do
		[ -x "$root/bin/$p" ] || die "bin/$p is missing: run 'make' first"
	done
	work=$(mktemp -d "${TMPDIR:-/tmp}/$name.XXXXXX")
	server_pid=""
	trap local_server_stop EXIT INT TERM
	# The server takes the first free port of 65430..65439 and announces
	# it on its first line; read that line (bounded wait), never guess.
	mkfifo "$work/announce"
	"$root/bin/kimble-server" "$@" >"$work/announce" 2>"$work/server.err" &
	server_pid=$!
	exec 3<"$work/announce"
	read -r -t 10 server_line <&3 || die "the server did not start: $(cat "$work/server.err")"
	port=${server_line##*:}
	port=${port%% *}
}

local_server_stop() {
	[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
	rm -rf "$work"
}
