/* search.h - the bot's move choice: expectimax over the dice with a model
 * of each opponent.
 *
 * Against opponents whose choice is known given board and die, the game is
 * a one-player problem under dice.  For each legal move the search averages
 * over every die of every roll until the bot's next roll (opponents reply
 * with their model's move; sixes roll again, up to KB_SEARCH_OPP_ROLLS
 * opponent rolls per round), then over the bot's next die taking the best
 * of its moves, and so on to the level the budget affords, and scores the
 * positions reached with the evaluation (eval.h).  The amount of work is fixed by the depth chosen from the
 * budget, never by the clock, so the same input gives the same choice.
 * Exact ties are broken with the bot's seeded tie-break stream.
 *
 * Nothing here allocates; the functions cannot fail.
 */
#ifndef KB_BOT_SEARCH_H
#define KB_BOT_SEARCH_H

#include <stdint.h>
#include <stdio.h>

#include "core/rng.h"
#include "core/rules.h"
#include "eval.h"
#include "opponent.h"

#define KB_SEARCH_OPP_ROLLS 3   /* opponent rolls expanded per round */
#define KB_BUDGET_DEFAULT_MS 2  /* default --budget-ms */

typedef struct kb_search {
	unsigned present;                      /* seats that play */
	const kb_opponent *opp[KB_SEATS];      /* model per opponent seat */
	uint8_t kinds[KB_SEATS];               /* whose weights score each seat (eval.h) */
	const kb_opponent *leaf_model[KB_SEATS]; /* decides the seat's danger
						  * terms at the leaves, or NULL
						  * (its kind does; eval.h) */
	const kb_weights *w;
	int depth;                             /* bot rolls expanded after the move */
	int finish_round;                      /* then the opponents' round too */
	kb_rng tiebreak;
	const struct kb_rollout_params *rollout; /* kb_rollout_default unless set */
	FILE *explain;                         /* candidates printed here, or NULL */
	uint64_t nodes;                        /* positions evaluated, all decisions */
} kb_search;

/* Set up a bot for a game with the given present seats and opponent models
 * (opp[0] ignored, NULL for absent seats), tie-break stream (seed,
 * KB_TAG_TIEBREAK, 0), and a search sized for budget_ms per decision. */
void kb_search_init(kb_search *bot, unsigned present, const kb_opponent *const opp[KB_SEATS],
		 uint64_t seed, int budget_ms);

/* The search level used for a budget in a game with this many opponents
 * (a fixed calibration, see search.c).  Level 0 scores the position right
 * after the move; each level adds, alternately, the opponents' round of
 * rolls and the bot's next roll: level 1 is the round and the bot's next
 * roll, level 2 also the round after it, level 3 one more bot roll... */
int kb_search_level_for_budget(int budget_ms, int opponents);

/* Search at this level (sets depth and finish_round). */
void kb_search_set_level(kb_search *bot, int level);

/* Choose A's move for die with legal mask (>= 1 bit) in pos.  value (may be
 * NULL) receives each legal index's estimated win probability, -1 for the
 * others; a mask of one bit is that move, played without a search (its
 * value -1). */
int kb_search_decide(kb_search *bot, const kb_pos *pos, int die, unsigned mask,
		  double value[KB_PIECES]);

#endif
