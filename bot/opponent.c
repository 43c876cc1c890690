/* opponent.c - built-in opponent models; see opponent.h. */
#include <string.h>

#include "core/policy.h"
#include "opponent.h"

static void one_hot(unsigned mask, int idx, double prob[KB_PIECES])
{
	(void)mask;
	for (int i = 0; i < KB_PIECES; i++)
		prob[i] = i == idx ? 1.0 : 0.0;
}

static void easy_probs(void *ctx, const kb_pos *pos, int seat, int die, unsigned mask,
		       double prob[KB_PIECES])
{
	(void)ctx, (void)pos, (void)seat, (void)die;
	one_hot(mask, kb_pick_easy(mask), prob);
}

static void hard_probs(void *ctx, const kb_pos *pos, int seat, int die, unsigned mask,
		       double prob[KB_PIECES])
{
	(void)ctx, (void)pos, (void)seat, (void)die;
	one_hot(mask, kb_pick_hard(mask), prob);
}

static void random_probs(void *ctx, const kb_pos *pos, int seat, int die, unsigned mask,
			 double prob[KB_PIECES])
{
	int n = kb_count(mask);

	(void)ctx, (void)pos, (void)seat, (void)die;
	for (int i = 0; i < KB_PIECES; i++)
		prob[i] = (mask >> i) & 1 ? 1.0 / n : 0.0;
}

const kb_opponent kb_opponent_easy = {easy_probs, NULL, KB_EASY, "easy", NULL};
const kb_opponent kb_opponent_hard = {hard_probs, NULL, KB_HARD, "hard", NULL};
const kb_opponent kb_opponent_random = {random_probs, NULL, KB_RANDOM, "random", NULL};

enum kb_policy kb_opponent_kind_of(const char *w, size_t n)
{
	char word[16];
	int kind;

	if (n == 0 || (n == 1 && w[0] == '-') || (n == 4 && memcmp(w, "none", 4) == 0))
		return KB_ABSENT;
	if (n >= sizeof word)
		return KB_EXTERNAL;
	memcpy(word, w, n);
	word[n] = 0;
	kind = kb_policy_parse(word);
	return kind < 0 ? KB_EXTERNAL : (enum kb_policy)kind;
}

const kb_opponent *kb_opponent_for_name(const char *word)
{
	switch (kb_opponent_kind_of(word, strlen(word))) {
	case KB_EASY:
		return &kb_opponent_easy;
	case KB_RANDOM:
		return &kb_opponent_random;
	default:
		return &kb_opponent_hard;
	}
}

int kb_opponent_pick(const kb_opponent *m, const kb_pos *pos, int seat, int die,
		     unsigned mask)
{
	double prob[KB_PIECES];
	int best = -1;

	if (!mask)
		return -1;
	if (m->kind == KB_EASY)
		return kb_pick_easy(mask);
	if (m->kind == KB_HARD)
		return kb_pick_hard(mask);
	if (m->pick)
		return m->pick(m->ctx, pos, seat, die, mask);
	m->probs(m->ctx, pos, seat, die, mask, prob);
	for (int i = 0; i < KB_PIECES; i++)
		if ((mask >> i) & 1 && (best < 0 || prob[i] > prob[best]))
			best = i;
	return best;
}
