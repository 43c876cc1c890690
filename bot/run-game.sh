#!/usr/bin/env bash
# run-game.sh - the main job (make run): start a local kimble-server on a
# free port, play one game of kimble-bot through kimble-relay, draw the board
# at each of the bot's decisions, print the winner, stop the server.
#
#   bot/run-game.sh [--opponents LIST] [--seed N] [--budget-ms N] [--state DIR]
#
#   --opponents LIST  seats B,C,D as the bot sees them: easy, hard, none
#                     (default hard,hard,hard)
#   --seed N          the bot's SEED and the server's --seed (default: drawn
#                     at random and printed, so the game can be replayed)
#   --budget-ms N     the bot's thinking budget per decision
#   --state DIR       the bot's learning store (default: a fresh temp folder)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
opponents=hard,hard,hard
seed=""
bot_opts=()
state=""

die() { echo "run-game: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
	case "$1" in
	--opponents) opponents=${2:?--opponents needs a list}; shift 2 ;;
	--seed) seed=${2:?--seed needs a number}; shift 2 ;;
	--budget-ms) bot_opts+=(--budget-ms "${2:?--budget-ms needs a number}"); shift 2 ;;
	--state) state=${2:?--state needs a folder}; shift 2 ;;
	-h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
done
[ -z "$seed" ] && seed=$(( (RANDOM << 30) | (RANDOM << 15) | RANDOM ))
case "$seed" in *[!0-9]*|"") die "--seed takes an unsigned decimal, got '$seed'" ;; esac

# shellcheck source=local-server.sh
. "$root/bot/local-server.sh"
local_server_start kimble-run --seed "$seed"
[ -z "$state" ] && state="$work/state"
echo "server: $server_line"
echo "bot:    kimble-bot $opponents $seed ${bot_opts[*]:-}"
echo

status=0
"$root/bin/kimble-relay" --port "$port" --show --transcript "$work/relay.log" -- \
	"$root/bin/kimble-bot" "$opponents" "$seed" --state "$state" "${bot_opts[@]}" || status=$?

winner=$(grep -a -o 'Voittaja: [A-D]' "$work/relay.log" | tail -n 1 || true)
echo
if [ -n "$winner" ]; then
	w=${winner#Voittaja: }
	if [ "$w" = A ]; then echo "Result: the bot (seat A) won. ($winner)"; else echo "Result: seat $w won. ($winner)"; fi
else
	echo "Result: the game did not finish (relay exit status $status)"
fi
echo "Replay this game: make run SEED=$seed OPPONENTS=$opponents"
exit "$status"
