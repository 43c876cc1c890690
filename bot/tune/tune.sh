#!/bin/sh
# tune.sh - refit kimble-bot's evaluation weights by self-play and rebuild.
#
#   bot/tune/tune.sh [kimble-tune options]     (run from the repository root)
#
# Builds bin/kimble-tune and runs it, by default from scratch (--init): 3
# rounds of 30000 self-play games fitting the softmax evaluation to the
# outcomes, then 300 steps of direct win-rate tuning (SPSA); see
# kimble-tune --help.  Writes bot/weights.h (its header records the command),
# rebuilds, and prints the quick strength table.  Deterministic: the same
# options give the same weights.  With options, they replace the defaults
# and tuning starts from the current bot/weights.h unless --init is given.
set -eu
cd "$(dirname "$0")/../.."
make -s bin/kimble-tune
[ $# -gt 0 ] || set -- --init --rounds 3 --games 30000 --depth 0 --epochs 3 --seed 2 \
	--spsa 300 --spsa-games 4000 --spsa-step 0.15
nice bin/kimble-tune "$@" > bot/weights.h.new
mv bot/weights.h.new bot/weights.h
make -s all build/rel/bench/strength
nice build/rel/bench/strength --quick
