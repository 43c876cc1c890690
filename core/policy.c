/* policy.c - built-in opponents; see policy.h. */
#include <string.h>

#include "policy.h"

int kb_pick_random(unsigned mask, kb_rng *rng)
{
	int n = __builtin_popcount(mask);

	if (n <= 1)
		return kb_pick_hard(mask);
	for (uint32_t k = kb_rng_below(rng, (uint32_t)n); k; k--)
		mask &= mask - 1; /* drop the lowest set bit */
	return __builtin_ctz(mask);
}

int kb_pick(enum kb_policy pol, unsigned mask, kb_rng *rng)
{
	switch (pol) {
	case KB_EASY:
		return kb_pick_easy(mask);
	case KB_RANDOM:
		return kb_pick_random(mask, rng);
	default:
		return kb_pick_hard(mask);
	}
}

static const char *const names[] = {"absent", "easy", "hard", "random", "external"};

const char *kb_policy_name(enum kb_policy pol)
{
	return (unsigned)pol < 5 ? names[pol] : "?";
}

int kb_policy_parse(const char *word)
{
	for (int p = KB_EASY; p <= KB_RANDOM; p++)
		if (strcmp(word, names[p]) == 0)
			return p;
	return -1;
}
