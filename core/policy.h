/* policy.h - the built-in opponents (docs/spec.md section 1.4).
 *
 * easy (lineup digit 1) moves the legal piece with the highest index,
 * hard (digit 2) the one with the lowest, random a uniformly drawn one.
 * None can fail; a mask of 0 gives -1 (no move).
 */
#ifndef KB_POLICY_H
#define KB_POLICY_H

#include "rng.h"

enum kb_policy {
	KB_ABSENT = 0, /* lineup digit 0 */
	KB_EASY = 1,   /* lineup digit 1 */
	KB_HARD = 2,   /* lineup digit 2 */
	KB_RANDOM = 3, /* judge and benches only */
	KB_EXTERNAL = 4 /* decided outside: a bot, a client */
};

/* The index easy plays from a legal mask, or -1. */
static inline int kb_pick_easy(unsigned mask)
{
	return mask ? 31 - __builtin_clz(mask) : -1;
}

/* The index hard plays from a legal mask, or -1. */
static inline int kb_pick_hard(unsigned mask)
{
	return mask ? __builtin_ctz(mask) : -1;
}

/* A uniformly drawn legal index, or -1 (draws only when mask has >1 bit). */
int kb_pick_random(unsigned mask, kb_rng *rng);

/* The index built-in policy pol (EASY, HARD, RANDOM) plays, or -1. */
int kb_pick(enum kb_policy pol, unsigned mask, kb_rng *rng);

/* Name of a policy ("easy", "hard", "random", "absent", "external"). */
const char *kb_policy_name(enum kb_policy pol);

/* Policy named by word ("easy", "hard", "random"), or -1. */
int kb_policy_parse(const char *word);

#endif
