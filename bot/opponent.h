/* opponent.h - an abstract model of how an opponent seat chooses its move.
 *
 * A model answers, for a position, the seat to move, its die and the legal
 * mask (two or more bits set), the probability of each legal index.  The
 * search only needs the model's most likely index (kb_opponent_pick), so a
 * deterministic policy is modelled exactly; a stochastic or learned model
 * contributes its mode.  Models are a function pointer plus a context
 * pointer, so the learning code (state/) can add its own without this file
 * knowing about it.
 *
 * Built-in models: easy, hard (exact, deterministic) and random (uniform).
 * None of these functions allocate or fail.
 */
#ifndef KB_BOT_OPPONENT_H
#define KB_BOT_OPPONENT_H

#include <stddef.h>

#include "core/policy.h"
#include "core/rules.h"

typedef struct kb_opponent {
	/* Fill prob[0..3]: probability of each index (0 outside mask),
	 * summing to 1 over mask.  mask has at least one bit. */
	void (*probs)(void *ctx, const kb_pos *pos, int seat, int die, unsigned mask,
		      double prob[KB_PIECES]);
	void *ctx;
	enum kb_policy kind; /* KB_EASY, KB_HARD: exactly that policy (the fast
			      * path); KB_RANDOM: uniform; KB_EXTERNAL: any
			      * other model (a learned one) */
	const char *name; /* for diagnostics */
	/* Optional (NULL: the mode of probs): the most likely index, faster
	 * than probs - what the search asks at every opponent node. */
	int (*pick)(void *ctx, const kb_pos *pos, int seat, int die, unsigned mask);
} kb_opponent;

/* A player's kind is an enum kb_policy (core/policy.h), the one list of
 * kinds; these say what the bot makes of one. */

/* The kind an OPPONENTS word names: KB_ABSENT for "none", "-" or an empty
 * word (w[0..n)), KB_EASY, KB_HARD, KB_RANDOM for the built-in names,
 * KB_EXTERNAL for any other name (a player to learn). */
enum kb_policy kb_opponent_kind_of(const char *w, size_t n);

/* The built-in a player of kind k is played and scored as when nothing
 * better is known: easy for easy, hard for every other kind.  It is the
 * seat the start message asks the server for (lineup digit) and the
 * weights the evaluation scores the seat with (kinds[], eval.h). */
static inline enum kb_policy kb_nearest_builtin(enum kb_policy k)
{
	return k == KB_EASY ? KB_EASY : KB_HARD;
}

/* The built-in models. */
extern const kb_opponent kb_opponent_easy;
extern const kb_opponent kb_opponent_hard;
extern const kb_opponent kb_opponent_random;

/* The model for an OPPONENTS word: "easy" and "hard" their policies,
 * "random" uniform, any other word plays like hard (kb_nearest_builtin). */
const kb_opponent *kb_opponent_for_name(const char *word);

/* The most likely index under model m (lowest index on ties); -1 for an
 * empty mask.  Fast paths for easy and hard. */
int kb_opponent_pick(const kb_opponent *m, const kb_pos *pos, int seat, int die,
		     unsigned mask);

#endif
