#!/bin/sh
# tune.sh - refit kimble-bot's evaluation weights by self-play and rebuild.
#
#   bot/tune/tune.sh                       (run from anywhere in the repository)
#   bot/tune/tune.sh [kimble-tune options]
#
# Without options it reproduces the committed bot/weights.h from scratch in
# three stages, each starting from the weights the previous one compiled in
# (kimble-tune always starts from the compiled-in weights unless --init):
#   1. --init: 3 rounds of 30000 self-play games fitting the softmax
#      evaluation to the outcomes, then 300 steps of direct win-rate tuning
#      (SPSA) of the base weights;
#   2. 1,000,000 games of TD(lambda) self-play over all lineups, which also
#      trains the interaction tables (pair, hit, behind);
#   3. 1,000,000 more TD games in hard alone only (the one-opponent sets).
# Stage 1 is the longest (about 2 hours on one core: 14 million greedy
# games of SPSA); stages 2 and 3 take about 8 and 3 minutes.  With options,
# one stage with those options.
# Writes bot/weights.h (its header records the commands), rebuilds, and
# prints the quick strength table.  Deterministic: the same options give
# the same weights.
set -eu
cd "$(dirname "$0")/../.."

done_cmds=""
stage() {
	make -s bin/kimble-tune
	nice bin/kimble-tune "$@" > bot/weights.h.new
	mv bot/weights.h.new bot/weights.h
	done_cmds="$done_cmds * kimble-tune $*\n"
}

if [ $# -gt 0 ]; then
	stage "$@"
else
	stage --init --rounds 3 --games 30000 --depth 0 --epochs 3 --seed 2 \
		--spsa 300 --spsa-games 4000 --spsa-step 0.15
	stage --rounds 0 --td 1000000 --td-lambda 0.6 --td-rate 0.003 --report 20000
	stage --rounds 0 --td 1000000 --td-lineup 200 --td-lambda 0.6 --td-rate 0.003 \
		--seed 3 --report 20000
	# the header lists every stage, not only the last
	printf '/* weights.h - evaluation weights fitted by bot/tune/tune.sh; do not edit.\n%b */\n' \
		"$done_cmds" > bot/weights.h.new
	sed '1,2d' bot/weights.h >> bot/weights.h.new
	mv bot/weights.h.new bot/weights.h
fi
make -s all build/rel/bench/strength
nice build/rel/bench/strength --quick
