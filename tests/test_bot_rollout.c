/* test_bot_rollout.c - the rollout refiner (bot/rollout.h): deterministic,
 * declines when there is nothing to compare, picks only among candidates. */
#include <criterion/criterion.h>

#include "bot/rollout.h"
#include "support.h"

static const kb_rollout_params params = {2, 32, 20, 1.0, 1000000};

static kb_search hard_alone_bot(uint64_t seed)
{
	const kb_opponent *opp[KB_SEATS] = {NULL, &kb_opponent_hard, NULL, NULL};
	kb_search bot;
	kb_search_init(&bot, 0x3, opp, seed, 2);
	return bot;
}

Test(bot_rollout, same_seed_same_choice, .timeout = 10)
{
	kb_pos pos = test_pos(0x3, "20 10 3", "12 5", NULL, NULL);
	double v[KB_PIECES] = {0.5, 0.5, 0.5, -1.0};
	unsigned mask = kb_legal(&pos, 0, 4);
	cr_assert_eq(kb_count(mask), 3);
	kb_search a = hard_alone_bot(7), b = hard_alone_bot(7);
	int pa = kb_rollout_choose(&a, &params, &pos, 4, mask, v, 0);
	int pb = kb_rollout_choose(&b, &params, &pos, 4, mask, v, 0);
	cr_assert_eq(pa, pb);
	cr_assert(pa >= 0 && ((mask >> pa) & 1), "choice %d not legal", pa);
}

Test(bot_rollout, declines_without_two_candidates, .timeout = 10)
{
	kb_pos pos = test_pos(0x3, "20 10", "12 5", NULL, NULL);
	double v[KB_PIECES] = {0.9, 0.1, -1.0, -1.0};
	kb_rollout_params narrow = params;
	unsigned mask = kb_legal(&pos, 0, 4);
	kb_search bot = hard_alone_bot(1);

	narrow.margin = 0.05;
	cr_assert_eq(kb_rollout_choose(&bot, &narrow, &pos, 4, mask, v, 0), -1);
	cr_assert_eq(kb_rollout_choose(&bot, &params, &pos, 4, mask & 1, v, 0), -1);
	cr_assert_eq(kb_rollout_choose(&bot, &params, &pos, 4, mask, v, 2000000), -1);
}

Test(bot_rollout, picks_among_the_candidates, .timeout = 10)
{
	kb_pos pos = test_pos(0x3, "20 10 3", "12 5", NULL, NULL);
	double v[KB_PIECES] = {0.10, 0.50, 0.49, -1.0};
	kb_rollout_params narrow = params;
	unsigned mask = kb_legal(&pos, 0, 4);

	narrow.margin = 0.05;
	for (uint64_t seed = 0; seed < 20; seed++) {
		kb_search bot = hard_alone_bot(seed);
		int pick = kb_rollout_choose(&bot, &narrow, &pos, 4, mask, v, 0);
		cr_assert(pick == 1 || pick == 2, "seed %llu: piece %d is not a candidate",
			  (unsigned long long)seed, pick);
	}
}

/* All four pieces within the margin and four candidates asked for: the
 * choice is one of the four (the comparison stops at the last candidate). */
Test(bot_rollout, four_candidates_pick_one_of_the_four, .timeout = 10)
{
	kb_pos pos = test_pos(0x3, "20 10 5 1", "12", NULL, NULL);
	double v[KB_PIECES] = {0.5, 0.5, 0.5, 0.5};
	kb_rollout_params four = params;
	unsigned mask = kb_legal(&pos, 0, 2);

	four.candidates = 4;
	cr_assert_eq(kb_count(mask), 4);
	for (uint64_t seed = 0; seed < 20; seed++) {
		kb_search bot = hard_alone_bot(seed);
		int pick = kb_rollout_choose(&bot, &four, &pos, 2, mask, v, 0);
		cr_assert(pick >= 0 && pick < KB_PIECES && ((mask >> pick) & 1),
			  "seed %llu: piece %d is not a candidate", (unsigned long long)seed, pick);
	}
}
