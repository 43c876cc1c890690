/* td.h - temporal-difference training of the evaluation (eval.h).
 *
 * Against the built-in opponents the game is a one-player problem under
 * dice, so the evaluation can learn from its own play: kb_td_train() plays
 * games in-process (seat A moves greedily by the current weights, every
 * opponent by its policy), records the position before every roll, and
 * after each game moves the softmax prediction at every position towards
 * its lambda-return: the outcome blended with the predictions of the
 * positions that followed (TD(lambda), forward view, cross-entropy loss
 * over the seats).  This learns the value of the positions this lineup
 * actually produces with far less noise than fitting to outcomes alone,
 * which is what the interaction tables (pair, hit, behind) need.
 *
 * Half the games use one of the four lineups the bot is measured on
 * (hard x3, easy x3, hard alone, easy+hard+easy), the other half a random
 * lineup of easy, hard and absent seats.  Deterministic for the seed.
 * A game not over after 4,096 rolls is left out (not learned from, not
 * counted in the log); the next game takes the dice after its last.
 *
 * Nothing here fails; kb_td_train allocates nothing.
 */
#ifndef KB_BOT_TD_H
#define KB_BOT_TD_H

#include <stdint.h>
#include <stdio.h>

#include "bot/eval.h"
#include "core/rng.h"

#define KB_TD_LINEUPS 4

/* The tag of the training games' random stream (core/rng.h): lineups,
 * first seats and dice of kb_td_train's games for its seed. */
#define KB_TD_TAG (KB_TAG_USER + 9)

/* Lineup digits (seats B, C, D) of the measured lineups, and their names. */
extern const uint8_t kb_td_lineups[KB_TD_LINEUPS][3];
extern const char *const kb_td_lineup_names[KB_TD_LINEUPS];

typedef struct kb_td_params {
	long games;     /* training games */
	double lambda;  /* 0: one-step targets, 1: the outcome */
	double rate;    /* learning rate, decaying linearly to rate / 10 */
	uint64_t seed;
	const uint8_t *only;  /* NULL, or the one lineup (digits B, C, D) to play */
} kb_td_params;

/* Train w in place.  Progress every tenth of the run on log (may be NULL). */
void kb_td_train(kb_weights *w, const kb_td_params *p, FILE *log);

/* Win rate of the bot at search level with weights w (no rollouts) in
 * each measured lineup, games each, game seeds from seed (the same games
 * for any w). */
void kb_td_winrates(const kb_weights *w, int level, long games, uint64_t seed,
		    double rate[KB_TD_LINEUPS]);

#endif
