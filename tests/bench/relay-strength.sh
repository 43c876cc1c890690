#!/usr/bin/env bash
# relay-strength.sh - the bot's win rate at process level: games of
# kimble-bot through kimble-relay against one local kimble-server, the path
# a real game takes (the in-process figures come from bench/strength).
#
#   tests/bench/relay-strength.sh [--games N] [--opponents LIST] [--seed S] [--lanes K]
#
#   --games N         games to play (default 2000)
#   --opponents LIST  seats B,C,D as the bot sees them: easy, hard, none
#                     (default hard,none,none: bench/strength's "hard alone")
#   --seed S          the server's run seed; game i's bot SEED is S + i
#                     (default 1)
#   --lanes K         games at once (default 2); with 1 the run is
#                     reproducible game by game, with more the server hands
#                     out its game seeds in whatever order the games start
#
# Prints one line: opponents, games, wins of seat A, win rate with its 95%
# Wilson interval.  Exit status 1 when a game did not finish.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
games=2000 opponents=hard,none,none seed=1 lanes=2

die() { echo "relay-strength: $*" >&2; exit 1; }
number() { case "$2" in ''|*[!0-9]*) die "$1 takes an unsigned decimal, got '$2'" ;; esac; }

while [ $# -gt 0 ]; do
	case "$1" in
	--games) games=${2:-}; number "$1" "$games"; shift 2 ;;
	--opponents) opponents=${2:?--opponents needs a list}; shift 2 ;;
	--seed) seed=${2:-}; number "$1" "$seed"; shift 2 ;;
	--lanes) lanes=${2:-}; number "$1" "$lanes"; shift 2 ;;
	-h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
done
[ "$lanes" -ge 1 ] || die "--lanes must be at least 1"
# shellcheck source=../../bot/local-server.sh
. "$root/bot/local-server.sh"
local_server_start kimble-relay-strength --seed "$seed"

# Lane k plays games k, k + K, ...; each game's relay transcript holds its
# Voittaja line.
lane() {
	local i
	for ((i = $1; i < games; i += lanes)); do
		"$root/bin/kimble-relay" --port "$port" --transcript "$work/$i.tx" -- \
			"$root/bin/kimble-bot" "$opponents" $((seed + i)) --no-learn \
			>/dev/null 2>>"$work/lane$1.err" || true
		if [ -t 2 ] && [ "$1" = 0 ] && [ $((i % 100)) = 0 ]; then
			printf '\rrelay-strength: %d/%d games' "$i" "$games" >&2
		fi
	done
}
pids=()
for ((k = 0; k < lanes; k++)); do
	lane "$k" &
	pids+=($!)
done
wait "${pids[@]}"
[ -t 2 ] && printf '\r\033[K' >&2

finished=$(cat "$work"/*.tx 2>/dev/null | grep -a -c 'Voittaja: [A-D]' || true)
wins=$(cat "$work"/*.tx 2>/dev/null | grep -a -c 'Voittaja: A' || true)
awk -v o="$opponents" -v n="$finished" -v w="$wins" 'BEGIN {
	z = 1.959964; p = n ? w / n : 0
	c = (p + z * z / (2 * n)) / (1 + z * z / n)
	h = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
	printf "opponents %s: %d games, %d won by the bot, %.1f%% [%.1f%%, %.1f%%]\n",
		o, n, w, 100 * p, 100 * (c - h), 100 * (c + h)
}'
if [ "$finished" != "$games" ]; then
	tail -n 5 "$work"/lane*.err >&2 || true
	die "$((games - finished)) of $games games did not finish"
fi
