/* test_rule_core_model.c - rules of core/model.c pinned on their own
 * (found by make mutate, docs/mutation.md).  Expectations are written out
 * by hand, never computed with the code under test. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "core/model.h"
#include "support.h"

/* With one legal piece the model is sure of it: probability 1 there, 0
 * elsewhere, whatever the mixture; with none, every probability is 0. */
Test(core_rules, model_probs_of_a_single_legal_piece)
{
	kb_pos pos = test_pos(0xf, "0 5 9 12", "", "", "");
	kb_model m;
	double p[KB_PIECES];

	kb_model_prior(&m);
	for (int i = 0; i < KB_PIECES; i++) {
		kb_model_probs(&m, &pos, 0, 3, 1u << i, p);
		for (int j = 0; j < KB_PIECES; j++)
			cr_assert(fabs(p[j] - (i == j)) < 1e-12, "mask %#x: p[%d] = %g", 1u << i, j, p[j]);
	}
	kb_model_probs(&m, &pos, 0, 3, 0, p);
	for (int j = 0; j < KB_PIECES; j++)
		cr_assert_eq(p[j], 0.0);
}

/* The prior is a model of no data (model.h): no logit weight, accuracy
 * and hard's accuracy 0 ("0: no data"), the first rule, mixture weights
 * summing to 1; whatever the caller's variable held before. */
Test(core_rules, model_prior_holds_no_data)
{
	kb_model m;
	double sum = 0;

	memset(&m, 0xa5, sizeof m);
	kb_model_prior(&m);
	for (int k = 0; k < KB_FEATURES; k++)
		cr_assert_eq(m.w[k], 0.0, "logit weight %d: %g", k, m.w[k]);
	cr_assert_eq(m.accuracy, 0.0, "%g", m.accuracy);
	cr_assert_eq(m.hard_accuracy, 0.0, "%g", m.hard_accuracy);
	cr_assert_eq(m.rule, KB_R_CAPTURE_REAR);
	for (int c = 0; c < KB_COMPONENTS; c++) {
		cr_assert(m.weight[c] > 0 && m.weight[c] < 1, "component %d: %g", c, m.weight[c]);
		sum += m.weight[c];
	}
	cr_assert(fabs(sum - 1) < 1e-12, "%.17g", sum);
}

/* kb_model_probs writes the KB_PIECES probabilities and nothing past
 * them: a caller's next double keeps its value, for every mask. */
Test(core_rules, model_probs_write_only_the_pieces)
{
	kb_pos pos = test_pos(0xf, "0 5 9 12", "", "", "");
	kb_model m;
	double p[KB_PIECES + 1];

	kb_model_prior(&m);
	for (unsigned mask = 0; mask < 1u << KB_PIECES; mask++) {
		p[KB_PIECES] = 42.5;
		kb_model_probs(&m, &pos, 0, 3, mask, p);
		cr_assert_eq(p[KB_PIECES], 42.5, "mask %#x wrote past the pieces", mask);
	}
}

/* With no samples the mixture's weights are prior x likelihood of the
 * faded counts (model.h), normalised: easy missed none of 10 decisions,
 * hard and every other rule missed all 10, each of two legal moves, the
 * logit charged 6 for its weights.  Worked out here from the documented
 * priors (0.175 easy, 0.175 hard, 0.2 random, 0.43 logit, 0.02 rule) and
 * slips (0.002). */
Test(core_rules, model_weights_from_the_faded_counts)
{
	kb_model_stats st;
	kb_model m;

	memset(&st, 0, sizeof st);
	st.recent = 10, st.recent_log_choices = 10 * log(2.0);
	for (int r = KB_R_HARD; r < KB_RULES; r++)
		st.recent_miss[r] = 10;
	kb_model_fit(&m, &st);
	double w[KB_COMPONENTS], sum = 0;
	w[KB_C_EASY] = 0.175 * pow(0.998, 10);
	w[KB_C_HARD] = 0.175 * pow(0.002, 10);
	w[KB_C_RANDOM] = 0.2 * pow(0.5, 10);
	w[KB_C_LOGIT] = 0.43 * exp(-6.0);
	w[KB_C_RULE] = 0.02 * pow(0.002, 10);
	for (int c = 0; c < KB_COMPONENTS; c++)
		sum += w[c];
	for (int c = 0; c < KB_COMPONENTS; c++)
		cr_assert(fabs(m.weight[c] - w[c] / sum) < 1e-12 * (1 + w[c] / sum),
			  "%s: %.17g, want %.17g", kb_component_name((enum kb_component)c), m.weight[c],
			  w[c] / sum);
}

/* One decision in compact form (model.h): legal mask, chosen index, the
 * pieces' binary features and progress + 1. */
static kb_sample decision(unsigned mask, int chosen, const uint8_t bits[KB_PIECES],
			  const uint8_t prog1[KB_PIECES])
{
	kb_sample s = {{(uint8_t)(mask | (unsigned)chosen << 4)}};

	for (int i = 0; i < KB_PIECES; i++)
		s.b[1 + 2 * i] = bits[i], s.b[2 + 2 * i] = prog1[i];
	return s;
}

/* Samples that do not decode (fewer than two legal pieces, a chosen piece
 * outside the mask: a damaged record) count for nothing: the fit is the
 * one of the valid samples alone.  hard's accuracy is over the valid
 * samples: 3 of 4 chose the foremost legal piece. */
Test(core_rules, model_fit_ignores_samples_that_do_not_decode)
{
	static const uint8_t bits[KB_PIECES] = {0x05, 0x02, 0x44, 0x0a};
	static const uint8_t prog1[KB_PIECES] = {20, 9, 3, 0};
	kb_model_stats good, mixed;
	kb_model a, b;

	memset(&good, 0, sizeof good);
	good.sample[0] = decision(0x3, 0, bits, prog1);
	good.sample[1] = decision(0x7, 0, bits, prog1);
	good.sample[2] = decision(0x6, 2, bits, prog1);
	good.sample[3] = decision(0xf, 0, bits, prog1);
	good.decisions = 4;
	good.recent = 4, good.recent_log_choices = log(2.0) + log(3.0) + log(2.0) + log(4.0);
	good.recent_miss[KB_R_EASY] = 3, good.recent_miss[KB_R_HARD] = 1;
	mixed = good;
	mixed.sample[4] = decision(0x4, 2, bits, prog1); /* one legal piece */
	mixed.sample[5] = decision(0x3, 3, bits, prog1); /* chosen not legal */
	mixed.sample[6] = mixed.sample[7] = decision(0x0, 0, bits, prog1);
	mixed.decisions = 8;
	kb_model_fit(&a, &good);
	kb_model_fit(&b, &mixed);
	cr_assert_eq(a.hard_accuracy, 0.75);
	cr_assert_eq(b.hard_accuracy, 0.75);
	cr_assert_eq(a.accuracy, b.accuracy);
	for (int c = 0; c < KB_COMPONENTS; c++)
		cr_assert_eq(a.weight[c], b.weight[c], "component %d", c);
	for (int k = 0; k < KB_FEATURES; k++)
		cr_assert_eq(a.w[k], b.w[k], "feature %d", k);
}

/* A model that is not sure of its logit picks the mixture's most likely
 * move: easy at 0.9 picks the rearmost legal piece, although the logit's
 * weights (all 0) would pick the lowest index; sure of its logit (0.995
 * and more), it picks by the logit alone. */
Test(core_rules, model_pick_by_the_mixture_unless_sure)
{
	kb_pos pos = test_pos(0xf, "0 5 9 12", "", "", "");
	kb_model m;

	kb_model_prior(&m);
	memset(m.weight, 0, sizeof m.weight);
	m.weight[KB_C_EASY] = 0.9, m.weight[KB_C_LOGIT] = 0.1;
	cr_assert_eq(kb_model_pick(&m, &pos, 0, 3, 0x6), 2);
	cr_assert_eq(kb_model_pick(&m, &pos, 0, 3, 0xb), 3);
	m.weight[KB_C_EASY] = 0.004, m.weight[KB_C_LOGIT] = 0.996;
	cr_assert_eq(kb_model_pick(&m, &pos, 0, 3, 0x6), 1);
}

/* A capture is a move onto an opponent's piece, and nothing else: B's
 * piece from 18 with a 3 reaches 21, ring square 0 (A's start), empty
 * until A's piece stands there. */
Test(core_rules, model_capture_feature_on_ring_square_zero)
{
	double f[KB_PIECES][KB_FEATURES];
	kb_pos pos = test_pos(0x3, "", "18", "", "");

	kb_features(&pos, 1, 3, 0x1, f);
	cr_assert_eq(f[0][KB_F_CAPTURE], 0.0, "nobody on ring square 0");
	pos = test_pos(0x3, "0", "18", "", "");
	kb_features(&pos, 1, 3, 0x1, f);
	cr_assert_eq(f[0][KB_F_CAPTURE], 1.0, "A's piece on ring square 0");
}

/* The capture rules play a capture: A's piece 0 from 10 with a 3 lands on
 * B's piece at ring square 13 (B's progress 6), piece 1 from 2 does not;
 * capture>rear plays piece 0 although piece 1 is the rearmost, peace>rear
 * plays piece 1. */
Test(core_rules, capture_rules_pick_the_capture)
{
	kb_pos pos = test_pos(0x3, "10 2", "6", "", "");

	cr_assert_eq(kb_rule_pick(KB_R_CAPTURE_REAR, &pos, 0, 3, 0x3), 0);
	cr_assert_eq(kb_rule_pick(KB_R_CAPTURE_FRONT, &pos, 0, 3, 0x3), 0);
	cr_assert_eq(kb_rule_pick(KB_R_PEACE_REAR, &pos, 0, 3, 0x3), 1);
	cr_assert_eq(kb_rule_pick(KB_R_PEACE_FRONT, &pos, 0, 3, 0x3), 1);
}

/* Adding statistics keeps the last game's fit of the later ones, and the
 * earlier one's when the later statistics have none (all weights 0),
 * whatever else they hold (here the bot's own predictions, the fields
 * after the fit). */
Test(core_rules, stats_add_keeps_a_fit_unless_a_later_one_exists)
{
	kb_model_stats a, b;

	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	for (int k = 0; k < KB_FEATURES; k++)
		a.fit_w[k] = 0.5 + k;
	b.recent_judged = 3;
	b.recent_predicted = 2;
	kb_model_stats_add(&a, &b);
	for (int k = 0; k < KB_FEATURES; k++)
		cr_assert_eq(a.fit_w[k], 0.5 + k, "feature %d: the earlier fit kept", k);
	b.fit_w[KB_F_CAPTURE] = -2;
	kb_model_stats_add(&a, &b);
	for (int k = 0; k < KB_FEATURES; k++)
		cr_assert_eq(a.fit_w[k], k == KB_F_CAPTURE ? -2.0 : 0.0, "feature %d: the later fit", k);
}

/* st holding only the n samples smp (decisions, faded count n) with the
 * faded sums the test worked out: log_choices, and the misses of easy's
 * and hard's rules (every other rule's left at 0). */
static void stats_of_samples(kb_model_stats *st, const kb_sample *smp, int n, double log_choices,
			     double easy_misses, double hard_misses)
{
	memset(st, 0, sizeof *st);
	for (int i = 0; i < n; i++)
		st->sample[i] = smp[i];
	st->decisions = (uint64_t)n;
	st->recent = n, st->recent_log_choices = log_choices;
	st->recent_miss[KB_R_EASY] = easy_misses, st->recent_miss[KB_R_HARD] = hard_misses;
}

/* A feature that no candidate of any sample has tells the logit nothing:
 * its weight stays exactly at the prior's centre, 0, while the weights of
 * the features that vary move.  (The Newton step's Hessian starts from
 * zeros: a stray term in it, however small, would move those weights.) */
Test(core_rules, model_logit_leaves_unseen_features_at_zero)
{
	/* features 0..3 only (foremost, rearmost, capture, leave) */
	static const uint8_t bits[KB_PIECES] = {0x01, 0x04, 0x08, 0x02};
	static const uint8_t prog1[KB_PIECES] = {20, 9, 0, 3};
	const kb_sample smp[] = {decision(0xf, 1, bits, prog1), decision(0x7, 1, bits, prog1),
				 decision(0xe, 2, bits, prog1), decision(0xb, 1, bits, prog1)};
	kb_model_stats st;
	kb_model m;

	stats_of_samples(&st, smp, 4, log(4.0) + 3 * log(3.0), 4, 4);
	kb_model_fit(&m, &st);
	for (int k = KB_F_ENTER_GOAL; k <= KB_F_ESCAPE; k++)
		cr_assert_eq(m.w[k], 0.0, "feature %d never seen: weight %.17g", k, m.w[k]);
	cr_assert_gt(m.w[KB_F_CAPTURE], 0.1, "capture chosen whenever legal: %g", m.w[KB_F_CAPTURE]);
}

/* st holding two decisions between the same two candidates (all else
 * equal), one taking the foremost, one the rearmost, with the faded sums
 * given (stats_of_samples). */
static void balanced_stats(kb_model_stats *st, double log_choices, double easy_misses,
			   double hard_misses)
{
	static const uint8_t bits[KB_PIECES] = {0x01, 0x02, 0, 0};
	static const uint8_t prog1[KB_PIECES] = {5, 5, 0, 0};
	const kb_sample smp[] = {decision(0x3, 0, bits, prog1), decision(0x3, 1, bits, prog1)};

	stats_of_samples(st, smp, 2, log_choices, easy_misses, hard_misses);
}

/* Samples that favour neither of two candidates (each chose the foremost
 * once and the rearmost once, all else equal) leave the logit's best
 * weights at exactly 0: the fit starts there and finds nothing to gain. */
Test(core_rules, model_logit_of_balanced_choices_is_zero)
{
	kb_model_stats st;
	kb_model m;

	balanced_stats(&st, 2 * log(2.0), 1, 1);
	kb_model_fit(&m, &st);
	for (int k = 0; k < KB_FEATURES; k++)
		cr_assert_eq(m.w[k], 0.0, "feature %d: weight %.17g", k, m.w[k]);
}

/* Land-threat of A's piece r moving d (its only legal piece) against pos. */
static double lands_threatened(kb_pos pos, int r, int d)
{
	double f[KB_PIECES][KB_FEATURES];

	pos.prog[0][0] = (int8_t)r;
	kb_features(&pos, 0, d, 0x1, f);
	return f[0][KB_F_LAND_THREAT];
}

/* An opponent's piece threatens the six ring squares after it (a roll of
 * 1 to 6), not its own square nor the seventh; the span wraps from ring
 * square 27 to 0, and stops at the opponent's last ring square (28 and on
 * are its goal).  A's progress is its ring square. */
Test(core_rules, model_threat_is_the_six_squares_ahead)
{
	/* B's piece at progress 12 is ring 19: 20..25 threatened */
	kb_pos pos = test_pos(0x3, "", "12", "", "");
	for (int t = 19; t <= 26; t++)
		cr_assert_eq(lands_threatened(pos, t < 23 ? 16 : 20, t < 23 ? t - 16 : t - 20), t >= 20 && t <= 25,
			     "ring %d", t);
	double f[KB_PIECES][KB_FEATURES];
	pos.prog[0][0] = 20;
	kb_features(&pos, 0, 6, 0x1, f);
	cr_assert_eq(f[0][KB_F_ESCAPE], 1.0, "20 -> 26 escapes B's reach");

	/* B at progress 19 is ring 26: 27 and 0..4 threatened */
	pos = test_pos(0x3, "", "19", "", "");
	cr_assert_eq(lands_threatened(pos, 24, 3), 1.0, "ring 27");
	cr_assert_eq(lands_threatened(pos, KB_HOME, 6), 1.0, "ring 0, out of home");
	cr_assert_eq(lands_threatened(pos, 1, 3), 1.0, "ring 4");
	cr_assert_eq(lands_threatened(pos, 1, 4), 0.0, "ring 5");
	/* A's piece on its start square (progress 0, on the ring) escapes */
	pos.prog[0][0] = 0;
	kb_features(&pos, 0, 6, 0x1, f);
	cr_assert_eq(f[0][KB_F_ESCAPE], 1.0, "0 -> 6 leaves ring 0, which B threatens");

	/* B at progress 24 is ring 3, with three pieces in its goal (none at
	 * home to threaten its start, ring 7): only its last ring squares
	 * 25..27, rings 4..6 */
	pos = test_pos(0x3, "", "24 28 29 30", "", "");
	cr_assert_eq(lands_threatened(pos, 1, 3), 1.0, "ring 4");
	cr_assert_eq(lands_threatened(pos, 1, 5), 1.0, "ring 6");
	cr_assert_eq(lands_threatened(pos, 1, 6), 0.0, "ring 7: B's progress 28 is its goal");
	cr_assert_eq(lands_threatened(pos, 2, 6), 0.0, "ring 8");
}

/* Each rule of model.h plays its preference where plain easy (rearmost)
 * or hard (foremost) would not:
 *  - safe: B at progress 23 (ring 2, its other pieces in its goal)
 *    threatens rings 3..6; with a 4 A's piece 0 goes 10 -> 14 (safe all
 *    along), piece 1 escapes 3 -> 7;
 *  - stay/leave: A's piece 0 on 5, piece 1 at home, a 6;
 *  - goal: A's 28 -> 30 moves inside the goal, 26 -> 28 enters it, 5 -> 7. */
Test(core_rules, model_rules_play_their_preference)
{
	kb_pos safe = test_pos(0x3, "10 3", "23 28 29 30", "", "");
	kb_pos home = test_pos(0x3, "5", "", "", "");
	kb_pos goal = test_pos(0x3, "28 26 5", "", "", "");

	cr_assert_eq(kb_rule_pick(KB_R_SAFE_REAR, &safe, 0, 4, 0x3), 1);
	cr_assert_eq(kb_rule_pick(KB_R_SAFE_FRONT, &safe, 0, 4, 0x3), 1, "the escape, not the foremost");
	cr_assert_eq(kb_rule_pick(KB_R_STAY_REAR, &home, 0, 6, 0x3), 0, "stays home: not the rearmost");
	cr_assert_eq(kb_rule_pick(KB_R_LEAVE_FRONT, &home, 0, 6, 0x3), 1, "leaves home: not the foremost");
	cr_assert_eq(kb_rule_pick(KB_R_GOAL_REAR, &goal, 0, 2, 0x7), 1, "enters the goal: not the rearmost");
	cr_assert_eq(kb_rule_pick(KB_R_GOAL_FRONT, &goal, 0, 2, 0x7), 1, "enters the goal: not the foremost");
	/* no piece has the preference: the plain pick */
	cr_assert_eq(kb_rule_pick(KB_R_GOAL_FRONT, &home, 0, 6, 0x3), 0);
	cr_assert_eq(kb_rule_pick(KB_R_GOAL_REAR, &home, 0, 6, 0x3), 1);
}

/* The last game's fit centres the next one's prior (model.h), unless a
 * weight is not finite or beyond 1000 (a damaged record): then that
 * weight's centre is 0, and with every weight so the prediction fit is
 * the one centred on zero. */
Test(core_rules, model_fit_ignores_a_damaged_centre)
{
	static const uint8_t bits[KB_PIECES] = {0x01, 0x04, 0x08, 0x02};
	static const uint8_t prog1[KB_PIECES] = {20, 9, 0, 3};
	const kb_sample smp[] = {decision(0xf, 1, bits, prog1), decision(0x7, 1, bits, prog1),
				 decision(0xe, 2, bits, prog1), decision(0xb, 1, bits, prog1)};
	const double damaged[] = {1000.0, -1000.0, 1e300, INFINITY, -INFINITY, NAN};
	kb_model_stats st;
	kb_model zero, m;

	stats_of_samples(&st, smp, 4, log(4.0) + 3 * log(3.0), 4, 4);
	kb_model_fit(&zero, &st);
	for (size_t d = 0; d < sizeof damaged / sizeof damaged[0]; d++) {
		for (int k = 0; k < KB_FEATURES; k++)
			st.fit_w[k] = damaged[d];
		kb_model_fit(&m, &st);
		for (int k = 0; k < KB_FEATURES; k++)
			cr_assert_eq(m.w[k], zero.w[k], "centre %g: feature %d", damaged[d], k);
	}
	for (int k = 0; k < KB_FEATURES; k++)
		st.fit_w[k] = 999.0;
	kb_model_fit(&m, &st);
	cr_assert_gt(m.w[KB_F_IN_GOAL], 100.0, "a centre of 999 is used: %g", m.w[KB_F_IN_GOAL]);
}

/* The prediction fit maximises the samples' likelihood plus a prior
 * centred on the last fit (model.h): four decisions that all took the
 * foremost of two otherwise equal pieces, and a centre of 5 on that
 * feature.  The likelihood still rises beyond the centre (slope
 * 4 (1 - s(5)) = 0.027 in the difference of the two weights), so the
 * optimum lies beyond it: foremost's weight above 5, rearmost's below 0
 * (the two gradients: 4 (1 - s(x)) = 0.3 (w_F - 5) = -0.3 w_R, x = w_F
 * - w_R, solved: w_F = 5.077). */
Test(core_rules, model_fit_moves_beyond_its_centre)
{
	static const uint8_t bits[KB_PIECES] = {0x01, 0x02, 0, 0};
	static const uint8_t prog1[KB_PIECES] = {5, 5, 0, 0};
	const kb_sample smp[] = {decision(0x3, 0, bits, prog1), decision(0x3, 0, bits, prog1),
				 decision(0x3, 0, bits, prog1), decision(0x3, 0, bits, prog1)};
	kb_model_stats st;
	kb_model m;
	double lo = 5, hi = 6;

	for (int i = 0; i < 60; i++) { /* the optimum by bisection */
		double wf = (lo + hi) / 2, x = 2 * wf - 5;
		if (4 * (1 - 1 / (1 + exp(-x))) > 0.3 * (wf - 5))
			lo = wf;
		else
			hi = wf;
	}
	stats_of_samples(&st, smp, 4, 4 * log(2.0), 4, 0);
	st.fit_w[KB_F_FOREMOST] = 5;
	kb_model_fit(&m, &st);
	cr_assert_float_eq(m.w[KB_F_FOREMOST], lo, 1e-3, "foremost: %.6f, optimum %.6f", m.w[KB_F_FOREMOST], lo);
	cr_assert_float_eq(m.w[KB_F_REARMOST], 5 - lo, 1e-3, "rearmost: %.6f", m.w[KB_F_REARMOST]);
}

/* kb_model_pick takes the lowest index on ties (model.h): a model that is
 * sure only of random play finds every legal piece equally likely. */
Test(core_rules, model_pick_lowest_index_on_ties)
{
	kb_pos pos = test_pos(0xf, "0 5 9 12", "", "", "");
	kb_model m;

	test_model_sure_of(&m, KB_C_RANDOM);
	cr_assert_eq(kb_model_pick(&m, &pos, 0, 3, 0x6), 1);
	cr_assert_eq(kb_model_pick(&m, &pos, 0, 3, 0xc), 2);
	cr_assert_eq(kb_model_pick(&m, &pos, 0, 3, 0xf), 0);
}

/* A long history makes every likelihood tiny (2^-2000 for a random player
 * of 2000 two-way decisions), but the weights are ratios of them: random
 * 0.2 against the logit's 0.43 e^-6 (balanced samples: its best fit is
 * all zeros, -log 2 a decision, charged 6), the pure rules, which missed
 * half the decisions, nothing. */
Test(core_rules, model_weights_of_a_long_history)
{
	kb_model_stats st;
	kb_model m;

	balanced_stats(&st, 0, 0, 0);
	st.recent = 2000, st.recent_log_choices = 2000 * log(2.0);
	for (int r = 0; r < KB_RULES; r++)
		st.recent_miss[r] = 1000;
	kb_model_fit(&m, &st);
	double logit = 0.43 * exp(-6.0);
	cr_assert(fabs(m.weight[KB_C_RANDOM] - 0.2 / (0.2 + logit)) < 1e-12, "random %.17g", m.weight[KB_C_RANDOM]);
	cr_assert(fabs(m.weight[KB_C_LOGIT] - logit / (0.2 + logit)) < 1e-12, "logit %.17g", m.weight[KB_C_LOGIT]);
	cr_assert_eq(m.weight[KB_C_EASY], 0.0);
	cr_assert_eq(m.weight[KB_C_HARD], 0.0);
	cr_assert_eq(m.weight[KB_C_RULE], 0.0);
}

/* The bot uses a model whose most likely move was played at least
 * KB_MODEL_USEFUL_ACCURACY of the time and at least KB_MODEL_USEFUL_MARGIN
 * more often than hard's: both bounds count as met, a hair below either
 * does not. */
Test(core_rules, model_useful_at_its_bounds)
{
	kb_model m;

	memset(&m, 0, sizeof m);
	m.hard_accuracy = 0.5;
	m.accuracy = KB_MODEL_USEFUL_ACCURACY;
	cr_assert(kb_model_useful(&m), "at the accuracy bound");
	m.accuracy = nextafter(KB_MODEL_USEFUL_ACCURACY, 0);
	cr_assert_not(kb_model_useful(&m), "below it");
	m.hard_accuracy = 0.9;
	m.accuracy = m.hard_accuracy + KB_MODEL_USEFUL_MARGIN;
	cr_assert(kb_model_useful(&m), "at the margin over hard's");
	m.accuracy = nextafter(m.accuracy, 0);
	cr_assert_not(kb_model_useful(&m), "below it");
}

/* A model that believes the heuristic (or random, which leaves its most
 * likely move to the logit) is used on the bot's own rate only: right
 * every time on its samples is not enough (they are what it was fitted
 * to); a rule is used on its samples' rate. */
Test(core_rules, model_useful_heuristic_needs_the_bots_own_rate)
{
	kb_model m;

	memset(&m, 0, sizeof m);
	m.weight[KB_C_LOGIT] = 1.0;
	m.accuracy = 1.0;
	cr_assert_not(kb_model_useful(&m), "the samples' rate");
	m.own_rate = 1;
	cr_assert(kb_model_useful(&m), "the bot's own rate");
	m.own_rate = 0;
	m.weight[KB_C_LOGIT] = 0.4, m.weight[KB_C_RANDOM] = 0.6;
	cr_assert_not(kb_model_useful(&m), "random, the logit choosing: the samples' rate");
	m.weight[KB_C_LOGIT] = 0.0, m.weight[KB_C_RANDOM] = 0.0, m.weight[KB_C_RULE] = 1.0;
	cr_assert(kb_model_useful(&m), "a rule on its samples' rate");
}

/* A model whose rates by score exist is judged in each score alone: the
 * switcher's (right 84% ahead, hard 12%; 62% behind, hard 100%) is used
 * ahead only, the mixed player's (75% and 78%, hard about 60%) in both
 * scores, a model at 69% nowhere; a score with too few predictions
 * falls back on the rates over both scores. */
Test(core_rules, model_useful_by_score)
{
	kb_model m;

	memset(&m, 0, sizeof m);
	m.weight[KB_C_LOGIT] = 1.0;
	m.own_rate = 1, m.accuracy = 0.78, m.hard_accuracy = 0.35;
	cr_assert_not(kb_model_useful(&m), "78%% over both scores: below the overall bound");
	m.score_own[KB_AHEAD] = m.score_own[KB_NOT_AHEAD] = 1;
	m.score_accuracy[KB_AHEAD] = 0.84, m.score_hard_accuracy[KB_AHEAD] = 0.12;
	m.score_accuracy[KB_NOT_AHEAD] = 0.62, m.score_hard_accuracy[KB_NOT_AHEAD] = 1.0;
	cr_assert(kb_model_useful_at(&m, KB_AHEAD), "the switcher ahead");
	cr_assert_not(kb_model_useful_at(&m, KB_NOT_AHEAD), "the switcher behind: hard is exact");
	cr_assert(kb_model_useful(&m), "used in one score is used");
	m.score_accuracy[KB_AHEAD] = 0.75, m.score_hard_accuracy[KB_AHEAD] = 0.6;
	m.score_accuracy[KB_NOT_AHEAD] = 0.78, m.score_hard_accuracy[KB_NOT_AHEAD] = 0.6;
	cr_assert(kb_model_useful_at(&m, KB_AHEAD) && kb_model_useful_at(&m, KB_NOT_AHEAD), "mixed");
	m.score_accuracy[KB_AHEAD] = KB_MODEL_USEFUL_SCORE_ACCURACY;
	cr_assert(kb_model_useful_at(&m, KB_AHEAD), "at the bound");
	m.score_accuracy[KB_AHEAD] = KB_MODEL_USEFUL_SCORE_ACCURACY - 0.01;
	cr_assert_not(kb_model_useful_at(&m, KB_AHEAD), "below the bound");
	m.score_accuracy[KB_AHEAD] = 0.9, m.score_hard_accuracy[KB_AHEAD] = 0.9 - KB_MODEL_USEFUL_MARGIN;
	cr_assert(kb_model_useful_at(&m, KB_AHEAD), "at the margin over hard's");
	m.score_hard_accuracy[KB_AHEAD] += 0.01;
	cr_assert_not(kb_model_useful_at(&m, KB_AHEAD), "below the margin over hard's");
	m.score_own[KB_AHEAD] = 0;
	cr_assert_not(kb_model_useful_at(&m, KB_AHEAD), "too few ahead: 78%% over both scores");
	m.accuracy = 0.95;
	cr_assert(kb_model_useful_at(&m, KB_AHEAD), "too few ahead: 95%% over both scores");
}

/* Each prediction fades both scores' counts, as every faded value, and
 * adds to its own score's; the score is whether the deciding seat has
 * more progress in all than seat 0, a piece at home -1. */
Test(core_rules, predictions_by_score)
{
	kb_model_stats st;
	kb_pos level = test_pos(0x3, "5", "5", "", "");
	kb_pos ahead = test_pos(0x3, "3", "5", "", "");
	kb_pos home = test_pos(0x3, "4 3", "5", "", "");

	memset(&st, 0, sizeof st);
	cr_assert_eq(kb_model_score(&ahead, 1), KB_AHEAD, "B 5 - 3 against A 3 - 3");
	cr_assert_eq(kb_model_score(&level, 1), KB_NOT_AHEAD, "level is not ahead");
	cr_assert_eq(kb_model_score(&home, 1), KB_NOT_AHEAD, "B 5 - 3 against A 4 + 3 - 2");
	cr_assert_eq(kb_model_score(&ahead, 0), KB_NOT_AHEAD, "the bot is never ahead of itself");
	kb_model_observe_prediction(&st, KB_AHEAD, 1, 0);
	kb_model_observe_prediction(&st, KB_NOT_AHEAD, 0, 1);
	double fade = 1.0 - 1.0 / KB_MEMORY;
	cr_assert_float_eq(st.score_judged[KB_AHEAD], fade, 1e-12);
	cr_assert_float_eq(st.score_predicted[KB_AHEAD], fade, 1e-12);
	cr_assert_eq(st.score_hard[KB_AHEAD], 0.0);
	cr_assert_eq(st.score_judged[KB_NOT_AHEAD], 1.0);
	cr_assert_eq(st.score_predicted[KB_NOT_AHEAD], 0.0);
	cr_assert_eq(st.score_hard[KB_NOT_AHEAD], 1.0);
	cr_assert_float_eq(st.recent_judged, 1.0 + fade, 1e-12);
	cr_assert_float_eq(st.recent_predicted, fade, 1e-12);
	for (int k = 0; k < 40; k++)
		kb_model_observe_prediction(&st, KB_AHEAD, 1, 0);
	kb_model m;
	st.recent = 42, st.recent_log_choices = 42 * log(2.0); /* as many decisions observed */
	kb_model_fit(&m, &st);
	cr_assert_eq(m.score_own[KB_AHEAD], 1, "%g judged ahead", st.score_judged[KB_AHEAD]);
	cr_assert_float_eq(m.score_accuracy[KB_AHEAD], 1.0, 1e-12);
	cr_assert_eq(m.score_hard_accuracy[KB_AHEAD], 0.0);
	cr_assert_eq(m.score_own[KB_NOT_AHEAD], 0, "one judged behind");
	cr_assert_eq(m.score_accuracy[KB_NOT_AHEAD], 0.0);
}
