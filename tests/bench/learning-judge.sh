#!/bin/sh
# learning-judge.sh - does learning pay at process level, under the judge:
# kimble-bot learning against kimble-bot --no-learn, each against one
# player, 2 seats, the same DEALS deals (same tournament seed), a fresh
# store per player.  A player is a made-up player's name
# (tests/bots/testbot.c MODE, tests/bench/madeup.h) or the folder of your
# own bot (a judge bot folder with its meta file, docs/tutorial.md).
#
#   tests/bench/learning-judge.sh [--deals N] [--seed S[,S...]] [--keep] [PLAYER|BOTDIR...]
#
# Several seeds (--seed 11,12,13,14) run each player once per seed, each
# from a fresh store, and add a line per seed (NAME:SEED) before the
# player's line, which then pools every seed's games: its interval is
# paired over all of them.
#
# Defaults: 600 deals, seed 11.  Options come before the players.
#
# --keep leaves the work folder (named on stderr at the end) instead of
# removing it: per player, learn-NAME/kimble-state is the store the
# learning bot filled (bin/kimble-state --state DIR/learn-NAME/kimble-state
# list shows what it believes), out-learn-NAME and out-off-NAME the
# judge's results and games, learn-NAME.w and off-NAME.w a line per game
# (1: kimble-bot won it); with several seeds each name ends in -sSEED
# (learn-NAME-s11) and learn-NAME.w and off-NAME.w pool the seeds.
# The rest are the judge's bot folders and the script's scratch files.
#
# Players default to every made-up player of the learning bench, easy and
# hard included.  The lines say the player's name; in the games (and so
# in the store, for kimble-state show) the test bot is called NAME1:
# capturer1, switcher1, easy1, hard1..., a name the bot must learn (it
# knows the names easy and hard as its built-in players).  Your own bot's
# lines and kept folders say its folder's name; in the games and the
# store it has the name on its meta file's first line (kimble-state show
# that name).
#
# One line per player (after its seeds' lines):
#   games       2 x DEALS: each deal is played once from either seat
#               (times the number of seeds on a pooled line)
#   learning    kimble-bot's win rate with learning, off: without
#   difference  learning - off, in points, with its 95% interval
#               (Agresti and Min's for paired proportions).  The
#               same seed gives both runs the same games with the same
#               dice, played one at a time (the same seed gives the same
#               figures), so the interval is paired, game by game (about
#               +-2.6 points at 600 deals; +-3.6 for independent runs;
#               a few dozen deals show nothing).  "same games": every
#               game was played alike, the model was never used
#   alike       games the two runs played move for move the same
#   ms          the bot's mean decision time in each run (the judge's
#               wall-clock ms per decision, its process and pipes
#               included: noisy on a busy machine); on a pooled line
#               the mean of the seeds' figures
# Needs make all build/rel/testbots/testbot.  Run from the repository root.
set -eu
deals=600 seed=11 keep=0
# usage_error MESSAGE: say it and the usage line, exit 64
usage_error() {
	echo "learning-judge: $1" >&2
	echo "usage: tests/bench/learning-judge.sh [--deals N] [--seed S[,S...]] [--keep] [PLAYER|BOTDIR...]" >&2
	exit 64
}
# number OPTION VALUE: VALUE if it is a whole number, else a usage error
number() {
	case $2 in
	'' | *[!0-9]*) usage_error "$1: expected a whole number, got \"$2\"" ;;
	esac
	echo "$2"
}
# numbers OPTION VALUE: VALUE's comma-separated whole numbers, one per
# word, else a usage error
numbers() {
	case $2 in
	'' | ,* | *, | *,,* | *[!0-9,]*)
		usage_error "$1: expected whole numbers separated by commas, got \"$2\"" ;;
	esac
	echo "$2" | tr , ' '
}
while [ $# -gt 0 ]; do
	case $1 in
	--deals | --seed)
		[ $# -gt 1 ] || usage_error "$1: expected a whole number after it"
		case $1 in
		--deals) deals=$(number --deals "$2") ;;
		--seed) seed=$(numbers --seed "$2") ;;
		esac
		shift 2 ;;
	--keep) keep=1; shift ;;
	-h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
	--) shift; break ;;
	-*) usage_error "$1: unknown option" ;;
	*) break ;;
	esac
done
[ "$deals" -gt 0 ] || usage_error "--deals: expected at least 1, got $deals"
# each seed once (a seed given twice would count its games twice), and
# within the judge's range (fewer than 20 digits is below 2^64)
seeds_seen=' '
for s in $seed; do
	s=$(echo "$s" | sed 's/^0*\([0-9]\)/\1/')
	[ ${#s} -lt 20 ] || usage_error "--seed: $s: out of range (expected at most 19 digits)"
	case $seeds_seen in *" $s "*) usage_error "--seed: $s given twice (each seed is one run)" ;; esac
	seeds_seen="$seeds_seen$s "
done
seed=$seeds_seen
root=$(pwd)
[ -f tests/bench/learning-judge.sh ] || {
	echo "learning-judge: run from the repository root (not $root): cd to it first" >&2
	exit 1
}
for f in bin/kimble-bot bin/kimble-judge build/rel/testbots/testbot; do
	[ -x "$f" ] || { echo "learning-judge: $f missing: make all build/rel/testbots/testbot" >&2; exit 1; }
done
madeup="capturer greedy cautious pacifist mixed switcher targeter middle easy hard"
players=${*:-$madeup}
for p in $players; do
	case $p in -*) usage_error "$p: an option after a player (options come first)" ;; esac
	[ -f "$p/meta" ] || case " $madeup " in *" $p "*) ;; *)
		if [ -d "$p" ]; then
			usage_error "$p: a folder without a meta file (a judge bot folder has one: docs/tutorial.md)"
		fi
		usage_error "$p: expected a made-up player ($madeup) or a bot folder with a meta file" ;;
	esac
done
tmp=$(mktemp -d /tmp/kimble-learning-judge-XXXXXX)
if [ $keep = 1 ]; then
	trap 'echo "learning-judge: kept $tmp" >&2' EXIT
else
	trap 'rm -rf "$tmp"' EXIT
fi
# bot folders: name, command, arguments, stderr flag
bot() { mkdir -p "$tmp/$1"; printf '%s\n%s\n%s\n0\n' "$2" "$3" "$4" > "$tmp/$1/meta"; }
# one line per game, in game order: 1 if kimble-bot won it, else 0
wins() { awk '$1 == "seat" && $3 == "kimble-bot" { print ($5 == 1) }' "$1"/games/*.res; }
# one line per game, in game order: its rolls and moves
rolls() {
	awk 'FNR == 1 && NR > 1 { print game; game = "" } /^roll/ { game = game $0 "|" }
	     END { print game }' "$1"/games/*.tx
}
# how many games of the two runs saw the same rolls and moves (one awk
# per run, not a process per game: 1,200 games took 5 s that way)
alike() {
	rolls "$1" > "$tmp/rolls-1"
	rolls "$2" > "$tmp/rolls-2"
	awk 'NR == FNR { game[FNR] = $0; next } game[FNR] == $0 { n++ } END { print n + 0 }' \
		"$tmp/rolls-1" "$tmp/rolls-2"
}
# the mean ms column: the second last of the bot's line
mean_ms() { awk -v n="$1" '$1 == n { print $(NF - 1) }' "$2"; }
# label_of PLAYER: the name its lines and folders go by (a bot folder's
# own name, however it was given)
label_of() {
	if [ -f "$1/meta" ]; then basename "$(cd "$1" && pwd)"; else echo "$1"; fi
}
# said_once FILE: FILE's lines on stderr, but none a run before said (the
# judge's warnings about a bot would come once per run)
said_once() {
	touch "$tmp/said"
	grep -vxFf "$tmp/said" "$1" | tee -a "$tmp/said" >&2 || true
}
# row LABEL LEARN_WINS OFF_WINS SAME MS_LEARN MS_OFF: the table's line
# for the paired games of two win files.  The interval: Agresti and Min's
# for paired proportions (half a game added to each of the four won/lost
# pairings), which stays honest when few games differ
row() {
	paste "$2" "$3" |
		awk -v p="$1" -v same="$4" -v lt="$5" -v ot="$6" -v w="$width" '
		{ n++; l += $1; o += $2; up += $1 > $2; down += $1 < $2 }
		END {
			ci = "    same games"
			if (same < n) {
				a = (up + 0.5) / (n + 2); b = (down + 0.5) / (n + 2); d = a - b
				h = 1.96 * sqrt((a + b - d * d) / (n + 2))
				ci = sprintf("[%+5.1f,%+5.1f]", 100 * (d - h), 100 * (d + h))
			}
			printf "%-*s %6d %8.1f%% %8.1f%% %+9.1f %13s %6d %8.2f %8.2f\n", w, p, n,
			       100 * l / n, 100 * o / n, 100 * (l - o) / n, ci, same, lt, ot }'
}
set -- $seed
seeds=$#
# the first column fits the longest line label (NAME or NAME:SEED), at
# least 11 wide so that the header stays put
width=11
for p in $players; do
	label=$(label_of "$p")
	for s in $seed; do
		[ "$seeds" = 1 ] && l=$label || l=$label:$s
		[ ${#l} -le "$width" ] || width=${#l}
	done
done
printf '%-*s %6s %9s %9s %9s %13s %6s %8s %8s\n' "$width" player games learning off difference "95%" alike \
	"ms learn" "ms off"
for p in $players; do
	label=$(label_of "$p")
	if [ -f "$p/meta" ]; then
		opponent=$(cd "$p" && pwd)
	else
		# the folder is not named easy or hard: the judge would take
		# that word for its built-in player
		bot "player-$p" "${p}1" "$root/build/rel/testbots/testbot" "$p"
		opponent=player-$p
	fi
	: > "$tmp/learn-$label.w"
	: > "$tmp/off-$label.w"
	all_same=0 all_lt=0 all_ot=0
	for s in $seed; do
		# a fresh store per seed: each seed is a run of its own
		run=$label
		[ "$seeds" = 1 ] || run=$label-s$s
		bot "learn-$run" kimble-bot "$root/bin/kimble-bot" ""
		bot "off-$run" kimble-bot "$root/bin/kimble-bot" --no-learn
		# one game at a time: each game of the learning run starts from
		# the store every earlier game left, so a seed gives the same
		# figures every time (two at once race for the store)
		for v in learn off; do
			(cd "$tmp" && nice "$root/bin/kimble-judge" -q -j 1 -f gauntlet -t 2 \
				-g "$deals" -s "$s" -o "out-$v-$run" "$v-$run" "$opponent" \
				> /dev/null 2> "$tmp/judge.err") || { cat "$tmp/judge.err" >&2; exit 1; }
			said_once "$tmp/judge.err"
		done
		wins "$tmp/out-learn-$run" > "$tmp/learn-$run.w"
		wins "$tmp/out-off-$run" > "$tmp/off-$run.w"
		same=$(alike "$tmp/out-learn-$run" "$tmp/out-off-$run")
		lt=$(mean_ms kimble-bot "$tmp/out-learn-$run/results.txt")
		ot=$(mean_ms kimble-bot "$tmp/out-off-$run/results.txt")
		all_same=$((all_same + same))
		all_lt=$(awk -v a="$all_lt" -v b="$lt" -v n="$seeds" 'BEGIN { print a + b / n }')
		all_ot=$(awk -v a="$all_ot" -v b="$ot" -v n="$seeds" 'BEGIN { print a + b / n }')
		# one seed: its files are the player's, and its line the only one
		[ "$seeds" = 1 ] && continue
		row "$label:$s" "$tmp/learn-$run.w" "$tmp/off-$run.w" "$same" "$lt" "$ot"
		cat "$tmp/learn-$run.w" >> "$tmp/learn-$label.w"
		cat "$tmp/off-$run.w" >> "$tmp/off-$label.w"
	done
	row "$label" "$tmp/learn-$label.w" "$tmp/off-$label.w" "$all_same" "$all_lt" "$all_ot"
done
