/* fit.h - fitting the evaluation weights (eval.h) to self-play outcomes.
 *
 * kb_fit_collect() plays games in-process: seat A is the bot (search.h at
 * the given depth with the given weights), seats B, C, D are drawn from
 * {absent, easy, hard} (at least one present) for each game; every roll's
 * position is recorded with the seat to roll and, at the end, the winner.
 * kb_fit_train() then fits the softmax model of eval.h to those samples by
 * stochastic gradient descent on the log-loss of the winner, starting from
 * the given weights.
 *
 * Errors: kb_fit_collect returns -1 when memory runs out.
 */
#ifndef KB_BOT_FIT_H
#define KB_BOT_FIT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bot/eval.h"

typedef struct kb_fit_sample {
	kb_pos pos;
	uint8_t kinds[KB_SEATS];
	int8_t turn;
	int8_t winner;
} kb_fit_sample;

typedef struct kb_fit_data {
	kb_fit_sample *s;
	size_t n, cap;
	long games, wins;
} kb_fit_data;

/* Play games seeded from seed and append their samples (every keep-th
 * roll) to d, whose buffer holds 65,536 samples at first and doubles when
 * full.  Returns 0 or -1. */
int kb_fit_collect(kb_fit_data *d, const kb_weights *w, int depth, long games,
		   uint64_t seed, int keep);

/* Fit the base weights of w (piece, danger, dprog, tempo; the interaction
 * tables are left to bot/tune/td.h) to the samples: epochs passes with
 * learning rate lr decaying to lr/10, L2 penalty l2 on the piece values.
 * Returns the final mean log-loss. */
double kb_fit_train(kb_weights *w, const kb_fit_data *d, int epochs, double lr, double l2,
		    uint64_t seed);

/* Mean win rate of the bot at search level with weights w (no rollouts) over the
 * direct-tuning lineups (hard x3, easy x3, hard, easy+hard+easy, easy,
 * hard+easy), games each, game seeds from seed. */
double kb_fit_winrate(const kb_weights *w, int level, long games, uint64_t seed);

/* Win rate of the bot at search level with weights w in one lineup
 * (digits of seats B, C, D), games seeded from seed; rollouts 0 turns
 * the bot's rollouts (rollout.h) off, 1 leaves its defaults. */
double kb_fit_lineup_winrate(const kb_weights *w, int level, int rollouts,
			     const uint8_t lineup[3], long games, uint64_t seed);

/* Direct tuning of w for win rate at level 0: iters steps of SPSA
 * (simultaneous perturbation of every weight by +-0.05, both sides
 * playing the same games seeds, step size step / (1 + it/50)).  Progress on
 * log (may be NULL). */
void kb_fit_spsa(kb_weights *w, int iters, long games, double step, uint64_t seed, FILE *log);

/* Write w as the C source of bot/weights.h. */
void kb_fit_write(FILE *out, const kb_weights *w, const char *comment);

void kb_fit_free(kb_fit_data *d);

#endif
