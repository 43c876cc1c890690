/* rollout.h - refine the search's choice with short simulated games.
 *
 * The expectimax (search.h) sees one round of dice and then trusts the
 * evaluation.  When its best candidates are close, this module plays the
 * game on from each of them: K samples of T rolls each, the bot moving by
 * its greedy one-ply policy (the move whose position the evaluation scores
 * best), every opponent by its model's pick (exact for easy and hard), and
 * scores the position reached with the evaluation (1 or 0 once a seat has
 * won).  Every candidate is played on the SAME K dice sequences (common
 * random numbers: each seat rolls the same dice in sample k whichever move
 * was made), so the comparison between candidates is far less noisy than
 * the values themselves.  The candidate with the best mean is chosen.
 *
 * The dice come from a stream seeded by one draw from the bot's tie-break
 * stream, so the same seed and input give the same move; the work is fixed
 * by counts (kb_rollout_params), never by the clock.
 *
 * Nothing here allocates; the functions cannot fail.
 */
#ifndef KB_BOT_ROLLOUT_H
#define KB_BOT_ROLLOUT_H

#include "search.h"

#define KB_ROLLOUT_MAX_HORIZON 64  /* rolls per sample, at most */

typedef struct kb_rollout_params {
	int candidates;  /* best search candidates compared (2..4), 0: off */
	int samples;     /* K dice sequences per comparison */
	int horizon;     /* T rolls per sample before the evaluation scores */
	double margin;   /* only candidates within this of the best value */
	int max_leaves;  /* no rollouts after a search that scored more leaves
			  * (bounds the worst-case decision time by counts) */
} kb_rollout_params;

/* The defaults per number of opponents (index 1..3; README, "The bot"):
 * all off, measured in rollout.c. */
extern const kb_rollout_params kb_rollout_default[KB_SEATS];

/* 1 when rp asks for rollouts at all (the defaults do not): the search
 * skips kb_rollout_choose otherwise. */
static inline int kb_rollout_on(const kb_rollout_params *rp)
{
	return rp->candidates >= 2 && rp->samples >= 1;
}

/* The index to play for die in pos, chosen among the legal moves in mask
 * whose search value v[i] is within margin of the best (at most
 * candidates of them, best first) by the mean evaluation after rollouts,
 * with parameters rp (kb_search_init sets bot->rollout to kb_rollout_default
 * for the number of seats present); leaves is how many positions the search
 * scored for this decision (more than rp->max_leaves: no rollouts, which
 * bounds the slowest decisions by counts).  Returns -1 when fewer than
 * two candidates qualify (the caller keeps its own choice).  Draws one value from bot->tiebreak when it plays rollouts. */
int kb_rollout_choose(kb_search *bot, const kb_rollout_params *rp, const kb_pos *pos, int die,
		      unsigned mask, const double v[KB_PIECES], uint64_t leaves);

#endif
