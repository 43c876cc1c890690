/* test_eval.c - the evaluation's features (bot/eval.h), its gradient step
 * and the TD(lambda) trainer (bot/tune/td.h). */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "bot/eval.h"
#include "bot/tune/td.h"
#include "core/policy.h"
#include "support.h"

static const uint8_t all_hard[KB_SEATS] = {0, 2, 2, 2};

/* Count the near cells of f equal to cell. */
static int near_count(const kb_seat_features *f, int cell)
{
	int n = 0;
	for (int i = 0; i < f->nnear; i++)
		n += f->near[i] == cell;
	return n;
}

Test(eval, near_counts_pieces_behind_that_can_reach, .timeout = 10)
{
	/* A at progress 10 (square 10); B at progress 0 (square 7): 3 behind,
	 * and B can travel on.  C at progress 26 (square 12) is ahead of A's
	 * piece: nothing. */
	kb_pos pos = test_pos(0x7, "10", "0", "26", NULL);
	kb_seat_features f[KB_SEATS];

	kb_eval_features(&pos, all_hard, 1, f);
	cr_assert_eq(f[0].nnear, 1);
	cr_assert_eq(near_count(&f[0], 3 * KB_EVAL_ZONES + 10 / 4), 1);
	/* nothing stands 1..12 behind B's piece (A and C are ahead of it) */
	cr_assert_eq(f[1].nnear, 0);
}

Test(eval, near_ignores_pieces_that_turn_into_their_goal, .timeout = 10)
{
	/* B at progress 25 stands on square 4; A at progress 8 (square 8) is
	 * 4 ahead, but B turns into its goal after progress 27 (square 6). */
	kb_pos pos = test_pos(0x3, "8", "25", NULL, NULL);
	kb_seat_features f[KB_SEATS];

	kb_eval_features(&pos, all_hard, 0, f);
	cr_assert_eq(f[0].nnear, 0);
}

Test(eval, near_counts_a_start_square_under_a_home_piece, .timeout = 10)
{
	/* A at progress 7 stands on B's start square; B has pieces at home. */
	kb_pos pos = test_pos(0x3, "7", NULL, NULL, NULL);
	kb_seat_features f[KB_SEATS];

	kb_eval_features(&pos, all_hard, 0, f);
	cr_assert_eq(near_count(&f[0], 0 * KB_EVAL_ZONES + 7 / 4), 1);
	/* and B's six captures it: a next-roll hit on a piece at bucket 8 */
	cr_assert_eq(f[0].nhit, 1);
	cr_assert_eq(f[0].hit[0], kb_eval_bucket(7));
}

/* A deterministic pseudo-random weight set. */
static void fill(kb_weights *w, uint32_t seed)
{
	float *v = (float *)w;
	size_t n = sizeof *w / sizeof(float);

	for (size_t i = 0; i < n; i++) {
		seed = seed * 1664525u + 1013904223u;
		v[i] = (float)((int)(seed >> 16) % 2001 - 1000) / 1000.0f;
	}
}

Test(eval, step_is_the_gradient_of_the_score, .timeout = 10)
{
	kb_pos pos = test_pos(0xf, "30 12 3", "20 9", "31 29 1", "15");
	kb_seat_features f[KB_SEATS];
	static kb_weights w, moved;

	fill(&w, 5);
	kb_eval_features(&pos, all_hard, 2, f);
	for (int s = 0; s < KB_SEATS; s++) {
		int type = kb_eval_type(&pos, all_hard[s]);
		double before = kb_eval_score(&w, type, &f[s]), g2 = 0;
		/* score(w + d*grad) - score(w) = d * |grad|^2 for a linear score */
		memcpy(&moved, &w, sizeof w);
		kb_eval_step(&moved, type, &f[s], 1e-3);
		const float *a = (const float *)&w, *b = (const float *)&moved;
		for (size_t i = 0; i < sizeof w / sizeof(float); i++)
			g2 += ((double)b[i] - a[i]) * ((double)b[i] - a[i]) / 1e-6;
		double after = kb_eval_score(&moved, type, &f[s]);
		cr_assert(after - before > 0, "seat %d: the step did not raise the score", s);
		cr_assert(fabs((after - before) - 1e-3 * g2) < 1e-5,
			  "seat %d: change %g, expected %g", s, after - before, 1e-3 * g2);
	}
}

Test(eval, td_training_is_deterministic, .timeout = 60)
{
	static kb_weights a, b, c;
	kb_td_params p = {300, 0.7, 0.003, 11, NULL};

	a = b = c = kb_weights_default;
	kb_td_train(&a, &p, NULL);
	kb_td_train(&b, &p, NULL);
	p.seed = 12;
	kb_td_train(&c, &p, NULL);
	cr_assert(memcmp(&a, &b, sizeof a) == 0, "same seed, different weights");
	cr_assert(memcmp(&a, &c, sizeof a) != 0, "another seed gave the same weights");
	cr_assert(memcmp(&a, &kb_weights_default, sizeof a) != 0, "training changed nothing");
}

Test(eval, td_training_one_lineup_leaves_other_sizes_alone, .timeout = 60)
{
	static kb_weights w;
	static const uint8_t hard_alone[3] = {KB_HARD, 0, 0};
	kb_td_params p = {200, 0.7, 0.003, 3, hard_alone};

	w = kb_weights_default;
	kb_td_train(&w, &p, NULL);
	/* types 0..2 are the one-opponent sets; 3..8 must be untouched */
	for (int t = 3; t < KB_EVAL_TYPES; t++)
		cr_assert(memcmp(w.pair[t], kb_weights_default.pair[t], sizeof w.pair[t]) == 0 &&
				  memcmp(w.piece[t], kb_weights_default.piece[t],
					 sizeof w.piece[t]) == 0,
			  "type %d changed", t);
	cr_assert(memcmp(w.piece[0], kb_weights_default.piece[0], sizeof w.piece[0]) != 0);
}
