#!/bin/sh
# tune.sh - refit kimble-bot's evaluation weights by self-play and rebuild.
#
#   bot/tune/tune.sh [kimble-tune options]     (run from the repository root)
#
# Builds bin/kimble-tune, runs it (default: 4 rounds of 20000 games, see
# kimble-tune --help) starting from the current bot/weights.h, writes the new
# bot/weights.h, rebuilds, and prints the quick strength table.  Deterministic:
# the same options give the same weights.
set -eu
cd "$(dirname "$0")/../.."
make -s bin/kimble-tune
[ $# -gt 0 ] || set -- --rounds 4 --games 20000 --depth 0 --epochs 4 --seed 1
nice bin/kimble-tune "$@" > bot/weights.h.new
mv bot/weights.h.new bot/weights.h
make -s all build/rel/bench/strength
nice build/rel/bench/strength --quick
