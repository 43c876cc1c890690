/* test_state.c - the learning store: record formats (round trip, old and
 * newer versions, damage), the opponent model (easy and hard recognised
 * within five choices, a pure rule in tens of decisions and kept, a new
 * version learned, other players predicted better than any fixed
 * assumption), the LMDB store (updates, merge by export/import, reset, a
 * full map, a read-only store, a corrupted file) and the kimble-state tool. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bot/learn.h"
#include "core/game.h"
#include "core/policy.h"
#include "state/export.h"
#include "core/model.h"
#include "core/record.h"
#include "core/store.h"
#include "support.h"
#include "tests/bench/madeup.h"

/* ---- players that are neither easy nor hard ------------------------------ */

/* play_capturer (captures when it can, the rearmost such piece, else
 * plays like easy) and play_greedy (a greedy scorer: capture, reach the
 * goal, leave home, stay safe) are the learning bench's players. */

enum player { P_EASY, P_HARD, P_CAPTURER, P_GREEDY, P_TARGETER };

static int play(enum player who, const kb_pos *p, int s, int d, unsigned m)
{
	switch (who) {
	case P_EASY:
		return kb_pick_easy(m);
	case P_HARD:
		return kb_pick_hard(m);
	case P_CAPTURER:
		return play_capturer(p, s, d, m);
	case P_TARGETER: /* hunts B's pieces (madeup_rival, set by its test) */
		return kb_count(m) < 2 ? kb_pick_hard(m) : play_targeter(p, s, d, m);
	default:
		return play_greedy(p, s, d, m);
	}
}

/* Seats C and D play (4) or are absent (2: the judge's two seats). */
static int seats_in_play = 4;

/* Visit the decisions of games where A is played by who (and the others
 * by hard); fn returns non-zero to stop.  Bounded by games. */
static void decisions(enum player who, uint64_t seed, int games,
		      int (*fn)(void *ctx, const kb_pos *, int, int, unsigned, int), void *ctx)
{
	const uint8_t other = seats_in_play == 4 ? KB_HARD : KB_ABSENT;
	const uint8_t ctl[KB_SEATS] = {KB_EXTERNAL, KB_HARD, other, other};

	for (int g = 0; g < games; g++) {
		kb_game game;
		kb_game_init(&game, seed + (uint64_t)g, ctl);
		for (int steps = 0; steps < 10000 && kb_game_advance(&game, NULL) >= 0; steps++) {
			unsigned mask = kb_game_pending_mask(&game);
			int c = play(who, &game.pos, 0, game.pending_die, mask);
			if (fn(ctx, &game.pos, 0, game.pending_die, mask, c))
				return;
			kb_game_decide(&game, c, NULL);
		}
	}
}

typedef struct learn_ctx {
	kb_model_stats st;
	int limit;
	const kb_model *judge; /* set: record its predictions, as the bot does */
} learn_ctx;

static int learn(void *ctx, const kb_pos *p, int s, int d, unsigned m, int c)
{
	learn_ctx *l = ctx;

	if (kb_model_observe(&l->st, p, s, d, m, c) == 0 && l->judge)
		kb_model_observe_prediction(&l->st, kb_model_score(p, s),
					    kb_model_pick(l->judge, p, s, d, m) == c, kb_pick_hard(m) == c);
	return (int)l->st.decisions >= l->limit;
}

/* Log-likelihood per choice of a model's predictions. */
typedef struct score_ctx {
	const kb_model *m;
	double ll;
	int n, hits, limit;
} score_ctx;

static int score(void *ctx, const kb_pos *p, int s, int d, unsigned m, int c)
{
	score_ctx *sc = ctx;
	double prob[KB_PIECES];
	int best = 0;

	kb_model_probs(sc->m, p, s, d, m, prob);
	for (int i = 1; i < KB_PIECES; i++)
		if (prob[i] > prob[best])
			best = i;
	sc->ll += log(fmax(prob[c], 1e-9));
	sc->hits += best == c;
	return ++sc->n >= sc->limit;
}

static kb_model learned(enum player who, int choices)
{
	static learn_ctx l;
	kb_model m;

	memset(&l, 0, sizeof l);
	l.limit = choices;
	decisions(who, 1000, 500, learn, &l);
	cr_assert_eq(l.st.decisions, (uint64_t)choices);
	kb_model_fit(&m, &l.st);
	return m;
}

static score_ctx scored(const kb_model *m, enum player who)
{
	score_ctx sc = {m, 0, 0, 0, 2000};

	decisions(who, 90000, 500, score, &sc);
	return sc;
}

Test(state_model, prior_without_data, .timeout = 10)
{
	kb_model_stats st;
	kb_model m, prior;

	memset(&st, 0, sizeof st);
	kb_model_fit(&m, &st);
	kb_model_prior(&prior);
	cr_assert_eq(memcmp(&m, &prior, sizeof m), 0);
	double sum = 0;
	for (int c = 0; c < KB_COMPONENTS; c++)
		sum += m.weight[c];
	cr_assert_float_eq(sum, 1.0, 1e-12);
}

Test(state_model, easy_and_hard_told_apart_in_five_choices, .timeout = 20)
{
	for (int n = 3; n <= 5; n++) {
		kb_model e = learned(P_EASY, n), h = learned(P_HARD, n);
		cr_assert_eq(kb_model_belief(&e), KB_C_EASY, "easy after %d choices", n);
		cr_assert_eq(kb_model_belief(&h), KB_C_HARD, "hard after %d choices", n);
	}
	kb_model e = learned(P_EASY, 5), h = learned(P_HARD, 5);
	cr_assert_gt(e.weight[KB_C_EASY], 0.9, "easy weight %.3f", e.weight[KB_C_EASY]);
	cr_assert_gt(h.weight[KB_C_HARD], 0.9, "hard weight %.3f", h.weight[KB_C_HARD]);
	score_ctx se = scored(&e, P_EASY), sh = scored(&h, P_HARD);
	cr_assert_eq(se.hits, se.n, "easy predicted exactly");
	cr_assert_eq(sh.hits, sh.n, "hard predicted exactly");
}

/* Fixed assumptions, as models: pure easy, pure hard, uniform. */
static kb_model fixed(enum kb_component c)
{
	kb_model m;

	memset(&m, 0, sizeof m);
	m.weight[c] = 1.0;
	return m;
}

Test(state_model, other_players_predicted_better_than_fixed_assumptions, .timeout = 60)
{
	const enum player who[2] = {P_CAPTURER, P_GREEDY};

	for (int k = 0; k < 2; k++) {
		kb_model m = learned(who[k], 200);
		score_ctx got = scored(&m, who[k]);
		for (int c = KB_C_EASY; c <= KB_C_RANDOM; c++) {
			kb_model f = fixed((enum kb_component)c);
			score_ctx base = scored(&f, who[k]);
			cr_assert_geq(got.hits, base.hits, "player %d: learned %d/%d vs %s %d/%d", k,
				      got.hits, got.n, kb_component_name((enum kb_component)c),
				      base.hits, base.n);
			cr_assert_gt(got.ll, base.ll + 0.01 * got.n,
				     "player %d: log-likelihood per choice %.3f vs %s %.3f", k,
				     got.ll / got.n, kb_component_name((enum kb_component)c),
				     base.ll / base.n);
		}
		cr_assert_gt((double)got.hits / got.n, 0.95, "player %d: accuracy %d/%d", k,
			     got.hits, got.n);
	}
}

Test(state_model, pure_rule_recognised_in_tens_of_decisions_and_kept, .timeout = 60)
{
	kb_model m = learned(P_CAPTURER, 60);

	cr_assert_eq(kb_model_belief(&m), KB_C_RULE, "belief %s %.3f",
		     kb_component_name(kb_model_belief(&m)), m.weight[kb_model_belief(&m)]);
	cr_assert_eq(m.rule, KB_R_CAPTURE_REAR, "rule %s", kb_rule_name(m.rule));
	cr_assert_gt(m.weight[KB_C_RULE], 0.9, "rule weight %.3f", m.weight[KB_C_RULE]);
	/* thousands of decisions later it is as sure (the old model of a
	 * window of recent decisions believed "heuristic 0.73") */
	m = learned(P_CAPTURER, 5000);
	cr_assert_eq(m.rule, KB_R_CAPTURE_REAR);
	cr_assert_gt(m.weight[KB_C_RULE], 0.999, "rule weight %.5f", m.weight[KB_C_RULE]);
	score_ctx sc = scored(&m, P_CAPTURER);
	cr_assert_eq(sc.hits, sc.n, "capturer predicted exactly");
	cr_assert_eq(kb_model_pick(&m, &(kb_pos){0}, 0, 1, 0x3), 1, "rear of two");
}

Test(state_model, a_new_version_under_the_same_name_is_learned, .timeout = 60)
{
	static learn_ctx l;
	kb_model m;
	int switched_after = -1;

	memset(&l, 0, sizeof l);
	l.limit = 3000; /* a long history of easy */
	decisions(P_EASY, 11, 1000, learn, &l);
	kb_model_fit(&m, &l.st);
	cr_assert_gt(m.weight[KB_C_EASY], 0.99, "easy %.3f hard %.3f random %.3f heuristic %.3f "
		     "rule %.3f, %.1f decisions", m.weight[0], m.weight[1], m.weight[2], m.weight[3],
		     m.weight[4], l.st.recent);
	/* then the player plays hard: its moves are predicted within a few
	 * hundred decisions (the logit's window holds the new play) */
	for (int extra = 25; extra <= 1000 && switched_after < 0; extra += 25) {
		l.limit = 3000 + extra;
		decisions(P_HARD, 500 + (uint64_t)extra, 1000, learn, &l);
		kb_model_fit(&m, &l.st);
		score_ctx sc = scored(&m, P_HARD);
		if (sc.hits > 0.98 * sc.n)
			switched_after = extra;
	}
	cr_assert(switched_after > 0 && switched_after <= 200, "hard predicted after %d decisions",
		  switched_after);
	l.limit = 3000 + 1000;
	decisions(P_HARD, 7000, 1000, learn, &l);
	kb_model_fit(&m, &l.st);
	cr_assert_lt(m.weight[KB_C_EASY], 1e-6, "easy %.3g after 1000 decisions of hard",
		     m.weight[KB_C_EASY]);
	score_ctx sc = scored(&m, P_HARD);
	cr_assert_eq(sc.hits, sc.n, "hard predicted exactly after 1000 decisions");
	/* old play fades: half its weight after 693 newer decisions */
	cr_assert_lt(l.st.recent, KB_MEMORY);
}

/* Games of who, one at a time as kimble-bot plays them: fitted from rec
 * before the game, the game's decisions folded into rec after it, and the
 * game's fit kept in rec for the next fit to start from.  Returns the fit
 * after the last game. */
static kb_model played_games(enum player who, uint64_t seed, int games, kb_model_stats *rec)
{
	static learn_ctx game;
	kb_model m;

	for (int g = 0; g < games; g++) {
		memset(&game, 0, sizeof game);
		game.limit = 1 << 30;
		kb_model_fit(&m, rec);
		game.judge = &m;
		decisions(who, seed + (uint64_t)g, 1, learn, &game);
		kb_model_stats_add(rec, &game.st);
		memcpy(rec->fit_w, m.w, sizeof m.w);
	}
	kb_model_fit(&m, rec);
	return m;
}

Test(state_model, each_fit_starts_from_the_last_and_keeps_its_evidence, .timeout = 60)
{
	static kb_model_stats rec, window_only;

	memset(&rec, 0, sizeof rec);
	kb_model m = played_games(P_GREEDY, 300, 300, &rec);
	/* the same samples and faded statistics, no earlier fit: only the
	 * last KB_SAMPLES decisions are known to the logit */
	window_only = rec;
	memset(window_only.fit_w, 0, sizeof window_only.fit_w);
	kb_model w;
	kb_model_fit(&w, &window_only);
	score_ctx kept = scored(&m, P_GREEDY), window = scored(&w, P_GREEDY);
	cr_assert_eq(kb_model_belief(&m), KB_C_LOGIT);
	cr_assert_gt(kept.hits, window.hits, "greedy predicted %d/%d, the window alone %d/%d",
		     kept.hits, kept.n, window.hits, window.n);
	cr_assert_geq(kept.hits, 0.98 * kept.n, "greedy predicted %d/%d", kept.hits, kept.n);
	/* a pure rule stays the rule's, however sharp the kept fit */
	memset(&rec, 0, sizeof rec);
	m = played_games(P_CAPTURER, 300, 300, &rec);
	cr_assert_eq(kb_model_belief(&m), KB_C_RULE, "belief %s",
		     kb_component_name(kb_model_belief(&m)));
	cr_assert_gt(m.weight[KB_C_RULE], 0.999, "rule weight %.5f", m.weight[KB_C_RULE]);
}

/* A player that hunts another seat's pieces (the bench's targeter: a
 * capture, else the move that ends closest behind one of B's pieces, else
 * hard) is what the chase feature is for.  Two seats, as under the
 * judge: the fit gives chase a large weight, the model predicts the
 * hunter 9 times in 10 and more and is used; without that weight the
 * same model predicts it far less (7 times in 10 before the feature). */
Test(state_model, a_hunter_is_predicted_by_its_chase_weight, .timeout = 60)
{
	static kb_model_stats rec;

	seats_in_play = 2;
	madeup_rival = 1;
	memset(&rec, 0, sizeof rec);
	kb_model m = played_games(P_TARGETER, 41, 30, &rec), blind = m;
	blind.w[KB_F_CHASE] = 0;
	score_ctx sc = scored(&m, P_TARGETER), sb = scored(&blind, P_TARGETER);
	cr_assert_eq(kb_model_belief(&m), KB_C_LOGIT);
	cr_assert_gt(m.w[KB_F_CHASE], 1.0, "chase weight %.2f", m.w[KB_F_CHASE]);
	cr_assert_geq(sc.hits, 0.95 * sc.n, "the hunter predicted %d/%d", sc.hits, sc.n);
	cr_assert_geq(sc.hits, sb.hits + 0.1 * sc.n, "predicted %d/%d, without chase %d", sc.hits,
		      sc.n, sb.hits);
	cr_assert(kb_model_useful(&m), "accuracy %.3f, hard's %.3f", m.accuracy, m.hard_accuracy);
}

Test(state_model, a_new_version_moves_the_kept_fit_within_games, .timeout = 60)
{
	static kb_model_stats rec;
	int games = 0;

	memset(&rec, 0, sizeof rec);
	kb_model m = played_games(P_GREEDY, 11, 200, &rec);
	cr_assert_eq(kb_model_belief(&m), KB_C_LOGIT);
	/* then the same name plays hard: the logit fit that kept the greedy
	 * player's evidence follows within games, before the greedy play has
	 * faded to one half (693 decisions, about 23 of these games; it took
	 * 21, a fit that keeps nothing 13) */
	for (games = 1; games <= 30; games++) {
		m = played_games(P_HARD, 5000 + (uint64_t)games, 1, &rec);
		score_ctx sc = scored(&m, P_HARD);
		if (sc.hits > 0.98 * sc.n)
			break;
	}
	cr_assert_leq(games, 23, "hard predicted after %d games", games);
}

Test(state_model, merging_equals_observing_in_order, .timeout = 30)
{
	static learn_ctx a, b, all;

	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	memset(&all, 0, sizeof all);
	a.limit = 700;
	b.limit = 500;
	all.limit = 700;
	decisions(P_GREEDY, 21, 1000, learn, &a);
	decisions(P_GREEDY, 21, 1000, learn, &all);
	all.limit = 1200;
	decisions(P_CAPTURER, 33, 1000, learn, &b);
	decisions(P_CAPTURER, 33, 1000, learn, &all);
	kb_model_stats_add(&a.st, &b.st);
	cr_assert_eq(a.st.decisions, all.st.decisions);
	cr_assert_float_eq(a.st.recent, all.st.recent, 1e-9);
	cr_assert_float_eq(a.st.recent_log_choices, all.st.recent_log_choices, 1e-9);
	for (int r = 0; r < KB_RULES; r++)
		cr_assert_float_eq(a.st.recent_miss[r], all.st.recent_miss[r], 1e-9, "rule %d", r);
	cr_assert_eq(memcmp(a.st.sample, all.st.sample, sizeof a.st.sample), 0);
}

Test(state_model, only_a_model_better_than_hard_is_useful, .timeout = 30)
{
	kb_model prior, h = learned(P_HARD, 300), c = learned(P_CAPTURER, 300);

	kb_model_prior(&prior);
	cr_assert_not(kb_model_useful(&prior), "the prior says nothing");
	cr_assert_not(kb_model_useful(&h), "hard's model adds nothing to the default");
	cr_assert(kb_model_useful(&c), "capturer: accuracy %.2f vs hard's %.2f", c.accuracy,
		  c.hard_accuracy);
}

Test(state_model, the_bots_own_predictions_decide_over_the_samples, .timeout = 30)
{
	static learn_ctx l;
	kb_model m;

	memset(&l, 0, sizeof l);
	l.limit = 300;
	decisions(P_CAPTURER, 1000, 500, learn, &l);
	kb_model_fit(&m, &l.st);
	cr_assert(kb_model_useful(&m), "the samples say 1.00");
	/* the bot's own predictions before its games were right 8 times in
	 * 10, all while the capturer was ahead, and hard's move as often */
	for (int k = 0; k < 100; k++)
		kb_model_observe_prediction(&l.st, KB_AHEAD, k % 10 < 8, k % 10 < 8);
	kb_model_fit(&m, &l.st);
	cr_assert_float_eq(m.accuracy, 0.8, 0.01); /* faded: nearly 0.8 */
	cr_assert_not(kb_model_useful(&m), "8 in 10 is not enough, and no better than hard");
	for (int k = 0; k < 3000; k++)
		kb_model_observe_prediction(&l.st, KB_AHEAD, 1, 0);
	kb_model_fit(&m, &l.st);
	cr_assert(kb_model_useful(&m), "right ever since: accuracy %.3f", m.accuracy);
}

Test(state_model, bot_keeps_the_default_where_the_model_is_unsure, .timeout = 30)
{
	static kb_learn l;
	const kb_opponent *opp[KB_SEATS] = {NULL, &kb_opponent_hard, &kb_opponent_hard,
					    &kb_opponent_hard};
	kb_pos p = test_pos(0xf, "30 12 3", "5 20", "", "1");

	memset(&l, 0, sizeof l);
	strcpy(l.name[1], "fresh");
	strcpy(l.name[2], "cap");
	strcpy(l.name[3], "hardish");
	kb_model_prior(&l.model[1]);
	l.model[2] = learned(P_CAPTURER, 300);
	l.model[3] = learned(P_HARD, 300);
	kb_learn_models(&l, opp);
	cr_assert_eq(opp[1], &kb_opponent_hard, "nothing known: played as learning off");
	cr_assert_eq(opp[3], &kb_opponent_hard, "no better than hard: played as learning off");
	cr_assert_eq(opp[2], &l.opp[2], "the capturer's model is used");
	/* and it plays that rule exactly */
	for (int d = 1; d <= 6; d++) {
		unsigned mask = kb_legal(&p, 2, d);
		if (kb_count(mask) >= 2)
			cr_assert_eq(kb_opponent_pick(opp[2], &p, 2, d, mask),
				     kb_rule_pick(KB_R_CAPTURE_REAR, &p, 2, d, mask), "die %d", d);
	}
}

Test(state_model, probabilities_sum_to_one, .timeout = 20)
{
	kb_model m = learned(P_GREEDY, 50);
	kb_pos p = test_pos(0xf, "30 12 3", "5 20", "", "1");
	for (int d = 1; d <= 6; d++) {
		unsigned mask = kb_legal(&p, 0, d);
		double prob[KB_PIECES], sum = 0;
		kb_model_probs(&m, &p, 0, d, mask, prob);
		for (int i = 0; i < KB_PIECES; i++) {
			if (!(mask >> i & 1))
				cr_assert_eq(prob[i], 0.0);
			sum += prob[i];
		}
		if (mask)
			cr_assert_float_eq(sum, 1.0, 1e-9, "die %d", d);
	}
}

Test(state_model, features_of_hand_positions, .timeout = 10)
{
	double f[KB_PIECES][KB_FEATURES];
	/* A at 3 and 25 (and home pieces); B at 9 stands on A's square 9+... */
	kb_pos p = test_pos(0x3, "25 3", "2", "", "");
	/* B's piece at progress 2 is on absolute square 9; A's piece at 3 with
	 * a 6 lands on 9: a capture.  A's 25 + 6 = 31: into the goal. */
	unsigned mask = kb_legal(&p, 0, 6);
	cr_assert_eq(mask, 0x7u);
	kb_features(&p, 0, 6, mask, f);
	cr_assert_eq(f[1][KB_F_CAPTURE], 1.0);
	cr_assert_eq(f[0][KB_F_ENTER_GOAL], 1.0);
	cr_assert_eq(f[2][KB_F_LEAVE], 1.0);
	cr_assert_eq(f[0][KB_F_FOREMOST], 1.0);
	cr_assert_eq(f[2][KB_F_REARMOST], 1.0);
	/* A's start square 0 is 7 squares behind B's piece on 9? no: B at 9
	 * threatens 10..15; A's piece moving 3 -> 9 captures, lands safe. */
	cr_assert_eq(f[1][KB_F_LAND_THREAT], 0.0);
}

/* ---- records ------------------------------------------------------------- */

static kb_opp_rec sample_rec(void)
{
	static learn_ctx l;
	kb_opp_rec r;

	memset(&l, 0, sizeof l);
	l.limit = 150;
	decisions(P_GREEDY, 7, 100, learn, &l);
	memset(&r, 0, sizeof r);
	r.games = 12;
	r.won = 7;
	r.lost = 4;
	r.model = l.st;
	return r;
}

Test(state_record, round_trip, .timeout = 10)
{
	kb_opp_rec r = sample_rec(), back;
	uint8_t buf[KB_REC_MAX];
	size_t n = kb_opp_encode(&r, buf);

	cr_assert_eq(n, (size_t)KB_OPP_V5_LEN);
	cr_assert_eq(buf[0], 1);
	cr_assert_eq(buf[2], KB_OPP_VERSION);
	cr_assert_eq(kb_opp_decode(buf, n, &back), KB_REC_OK);
	cr_assert_eq(back.format, KB_OPP_VERSION, "the version read");
	r.format = KB_OPP_VERSION;
	cr_assert_eq(memcmp(&r, &back, sizeof r), 0);
	/* little-endian: games = 12 at offset 8 */
	cr_assert_eq(buf[8], 12);
	cr_assert_eq(buf[9], 0);

	kb_res_rec res = {5, 3, 1}, rb;
	n = kb_res_encode(&res, buf);
	cr_assert_eq(kb_res_decode(buf, n, &rb), KB_REC_OK);
	cr_assert_eq(memcmp(&res, &rb, sizeof res), 0);
}

Test(state_record, old_version_is_read_and_upgraded, .timeout = 10)
{
	kb_opp_rec r = sample_rec(), back;
	uint8_t buf[KB_REC_MAX];
	size_t n = kb_opp_encode_v1(&r, buf);

	cr_assert_eq(n, (size_t)KB_OPP_V1_LEN);
	cr_assert_eq(kb_opp_decode(buf, n, &back), KB_REC_OLD);
	cr_assert_eq(back.games, 12);
	cr_assert_eq(back.won, 7);
	cr_assert_eq(back.lost, 4);
	cr_assert_eq(back.model.decisions, 0);
}

Test(state_record, version_2_is_read_with_its_faded_statistics_rebuilt, .timeout = 10)
{
	kb_opp_rec r = sample_rec(), back, rebuilt;
	uint8_t buf[KB_REC_MAX];
	size_t n = kb_opp_encode_v2(&r, buf);

	cr_assert_eq(n, (size_t)KB_OPP_V2_LEN);
	cr_assert_eq(kb_opp_decode(buf, n, &back), KB_REC_OLD);
	cr_assert_eq(back.games, 12);
	cr_assert_eq(back.model.decisions, r.model.decisions);
	cr_assert_eq(memcmp(back.model.sample, r.model.sample, sizeof r.model.sample), 0);
	/* the faded statistics come from the samples: as many decisions as
	 * samples (slightly faded), and the misses of easy those samples show */
	rebuilt = r;
	kb_model_stats_rebuild(&rebuilt.model);
	cr_assert_float_eq(back.model.recent, rebuilt.model.recent, 1e-12);
	cr_assert(back.model.recent > 0.9 * KB_SAMPLES && back.model.recent <= KB_SAMPLES,
		  "recent %.2f", back.model.recent);
	for (int k = 0; k < KB_RULES; k++)
		cr_assert_float_eq(back.model.recent_miss[k], rebuilt.model.recent_miss[k], 1e-12);
	/* and it is written back in the current version */
	cr_assert_eq(back.format, 2);
	n = kb_opp_encode(&back, buf);
	cr_assert_eq(n, (size_t)KB_OPP_V5_LEN);
	cr_assert_eq(kb_opp_decode(buf, n, &rebuilt), KB_REC_OK);
	back.format = KB_OPP_VERSION;
	cr_assert_eq(memcmp(&back, &rebuilt, sizeof back), 0);
}

Test(state_record, faded_statistics_checked, .timeout = 10)
{
	kb_opp_rec r = sample_rec(), back;
	uint8_t buf[KB_REC_MAX];
	const double bad[] = {-1.0, NAN, INFINITY, 1e9};

	for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
		kb_opp_rec d = r;
		d.model.recent_miss[3] = bad[k];
		size_t n = kb_opp_encode(&d, buf);
		cr_assert_eq(kb_opp_decode(buf, n, &back), KB_REC_BAD, "miss %g", bad[k]);
		cr_assert_eq(back.games, 0);
	}
	kb_opp_rec d = r;
	d.model.recent_judged = 10;
	d.model.recent_predicted = 11;
	cr_assert_eq(kb_opp_decode(buf, kb_opp_encode(&d, buf), &back), KB_REC_BAD,
		     "more predicted than judged");
	d.model.recent_predicted = 9;
	cr_assert_eq(kb_opp_decode(buf, kb_opp_encode(&d, buf), &back), KB_REC_OK);
	cr_assert_eq(back.model.recent_predicted, 9.0);
	r.model.recent = NAN;
	cr_assert_eq(kb_opp_decode(buf, kb_opp_encode(&r, buf), &back), KB_REC_BAD, "recent NaN");
}

Test(state_record, newer_and_damaged_refused, .timeout = 10)
{
	kb_opp_rec r = sample_rec(), back;
	uint8_t buf[KB_REC_MAX];
	size_t n = kb_opp_encode(&r, buf);

	cr_assert_eq(kb_opp_decode(buf, n - 1, &back), KB_REC_BAD, "short");
	cr_assert_eq(back.games, 0);
	buf[2] = KB_OPP_VERSION + 1;
	cr_assert_eq(kb_opp_decode(buf, n, &back), KB_REC_NEWER);
	buf[2] = KB_OPP_VERSION;
	buf[0] = 2;
	cr_assert_eq(kb_opp_decode(buf, n, &back), KB_REC_BAD, "wrong kind");
	cr_assert_eq(kb_opp_decode(buf, 3, &back), KB_REC_BAD, "no header");
	buf[0] = 1;
	buf[16] = 99; /* won > games */
	cr_assert_eq(kb_opp_decode(buf, n, &back), KB_REC_BAD);
	/* a v1 header with a v2 length */
	n = kb_opp_encode(&r, buf);
	buf[2] = 1;
	cr_assert_eq(kb_opp_decode(buf, n, &back), KB_REC_BAD);
}

Test(state_record, names_and_keys, .timeout = 10)
{
	char key[KB_KEY_MAX];

	cr_assert_eq(kb_key_opponent("easy", key), 6u);
	cr_assert_eq(memcmp(key, "o/easy", 6), 0);
	cr_assert_eq(kb_key_results("1.0", "bob_2", key), 11u);
	cr_assert_eq(memcmp(key, "v/1.0/bob_2", 11), 0);
	cr_assert_eq(kb_key_opponent("a/b", key), 0u);
	cr_assert_eq(kb_key_opponent("", key), 0u);
	cr_assert_eq(kb_key_opponent("x y", key), 0u);
}

/* ---- store --------------------------------------------------------------- */

static kb_store *open_at(const char *dir, size_t map, size_t max, FILE *warn)
{
	kb_store_opts opts = {map, max, warn};
	kb_store *st;
	kb_err err;

	cr_assert_eq(kb_store_open(&st, dir, KB_STORE_CREATE, &opts, &err), 0, "%s", err.msg);
	return st;
}

static void add_game(kb_store *st, const char *name, int won, int lost, const kb_model_stats *m)
{
	kb_store_add a;
	kb_err err;

	memset(&a, 0, sizeof a);
	a.name = name;
	a.version = "test-1";
	a.opponent = 1;
	a.delta.games = 1;
	a.delta.won = (uint64_t)won;
	a.delta.lost = (uint64_t)lost;
	if (m)
		a.delta.model = *m;
	cr_assert_eq(kb_store_apply(st, &a, 1, NULL, &err), 0, "%s", err.msg);
}

Test(state_store, updates_add_up, .timeout = 20)
{
	char dir[256], path[300];
	kb_opp_rec r = sample_rec(), got;
	kb_err err;

	test_tmpdir(dir, sizeof dir);
	snprintf(path, sizeof path, "%s/a/b/kimble-state", dir);
	kb_store *st = open_at(path, 0, 0, NULL);
	cr_assert_eq(kb_store_get(st, "bob", &got, &err), KB_STORE_ABSENT);
	for (int i = 0; i < 10; i++)
		add_game(st, "bob", i % 2, i % 3 == 0, &r.model);
	add_game(st, "eve", 1, 0, NULL);
	cr_assert_eq(kb_store_get(st, "bob", &got, &err), KB_REC_OK, "%s", err.msg);
	cr_assert_eq(got.games, 10);
	cr_assert_eq(got.won, 5);
	cr_assert_eq(got.lost, 4);
	cr_assert_eq(got.model.decisions, 10 * r.model.decisions);
	cr_assert_eq(got.model.easy_hits, 10 * r.model.easy_hits);
	kb_store_close(st);
	/* reopen: still there */
	st = open_at(path, 0, 0, NULL);
	cr_assert_eq(kb_store_get(st, "eve", &got, &err), KB_REC_OK);
	cr_assert_eq(got.games, 1);
	long deleted = 0;
	cr_assert_eq(kb_store_reset(st, "bob", &deleted, &err), 0, "%s", err.msg);
	cr_assert_eq(deleted, 2, "opponent and one results record");
	cr_assert_eq(kb_store_get(st, "bob", &got, &err), KB_STORE_ABSENT);
	cr_assert_eq(kb_store_get(st, "eve", &got, &err), KB_REC_OK);
	cr_assert_eq(kb_store_reset(st, NULL, &deleted, &err), 0);
	cr_assert_eq(deleted, 2);
	cr_assert_eq(kb_store_get(st, "eve", &got, &err), KB_STORE_ABSENT);
	kb_store_close(st);
}

/* Write a raw value under a key, as an older or newer program would have. */
static void put_raw(kb_store *st, const char *name, const uint8_t *val, size_t len);

Test(state_store, old_record_upgraded_on_update, .timeout = 20)
{
	char dir[256];
	kb_opp_rec r = sample_rec(), got;
	uint8_t buf[KB_REC_MAX];
	kb_err err;

	test_tmpdir(dir, sizeof dir);
	kb_store *st = open_at(dir, 0, 0, NULL);
	put_raw(st, "old", buf, kb_opp_encode_v1(&r, buf));
	cr_assert_eq(kb_store_get(st, "old", &got, &err), KB_REC_OLD);
	cr_assert_eq(got.games, 12);
	add_game(st, "old", 1, 0, &r.model);
	cr_assert_eq(kb_store_get(st, "old", &got, &err), KB_REC_OK);
	cr_assert_eq(got.games, 13);
	cr_assert_eq(got.won, 8);
	cr_assert_eq(got.model.decisions, r.model.decisions);
	/* a newer record is left alone, and the update still commits */
	buf[0] = 1, buf[1] = 0, buf[2] = 9, buf[3] = 0;
	put_raw(st, "future", buf, 40);
	int skipped = -1;
	kb_store_add a[2];
	memset(a, 0, sizeof a);
	a[0].name = "future", a[0].opponent = 1, a[0].delta.games = 1;
	a[1].name = "other", a[1].opponent = 1, a[1].delta.games = 1;
	cr_assert_eq(kb_store_apply(st, a, 2, &skipped, &err), 0, "%s", err.msg);
	cr_assert_eq(skipped, 1);
	cr_assert_eq(kb_store_get(st, "future", &got, &err), KB_REC_NEWER);
	cr_assert_eq(kb_store_get(st, "other", &got, &err), KB_REC_OK);
	kb_store_close(st);
}

/* Every outcome of kb_store_get is its own value: absent, old, newer,
 * damaged, invalid name.  (Absent and old once were both 1, so a check for
 * one passed on the other.) */
Test(state_store, get_outcomes_are_distinct, .timeout = 20)
{
	static const int outcomes[] = {KB_REC_OK, KB_REC_OLD, KB_REC_NEWER, KB_REC_BAD,
				       KB_STORE_ABSENT, KB_STORE_ERROR, KB_STORE_NAME,
				       KB_STORE_READONLY, KB_EXPORT_MALFORMED, KB_EXPORT_WRITE,
				       KB_EXPORT_NOMEM};
	const int n = (int)(sizeof outcomes / sizeof *outcomes);
	char dir[256];
	kb_opp_rec r = sample_rec(), got;
	uint8_t buf[KB_REC_MAX];
	kb_err err;

	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			cr_assert_neq(outcomes[i], outcomes[j], "statuses %d and %d collide", i, j);
	test_tmpdir(dir, sizeof dir);
	kb_store *st = open_at(dir, 0, 0, NULL);
	put_raw(st, "old", buf, kb_opp_encode_v1(&r, buf));
	put_raw(st, "now", buf, kb_opp_encode(&r, buf));
	put_raw(st, "cut", buf, kb_opp_encode(&r, buf) - 1);
	buf[0] = 1, buf[1] = 0, buf[2] = 9, buf[3] = 0;
	put_raw(st, "future", buf, 40);
	cr_assert_eq(kb_store_get(st, "nobody", &got, &err), KB_STORE_ABSENT);
	cr_assert_eq(kb_store_get(st, "old", &got, &err), KB_REC_OLD);
	cr_assert(kb_rec_usable(KB_REC_OLD) && got.games == r.games, "an old record is read");
	cr_assert_eq(kb_store_get(st, "now", &got, &err), KB_REC_OK);
	cr_assert_eq(kb_store_get(st, "cut", &got, &err), KB_REC_BAD);
	cr_assert_eq(kb_store_get(st, "future", &got, &err), KB_REC_NEWER);
	cr_assert(!kb_rec_usable(KB_REC_NEWER) && got.games == 0, "a newer record is not read");
	cr_assert_eq(kb_store_get(st, "no/name", &got, &err), KB_STORE_NAME);
	cr_assert(strstr(err.msg, "no/name"), "%s", err.msg);
	kb_store_close(st);
	st = open_at(dir, 0, 0, NULL);
	kb_store_close(st);
	cr_assert_eq(kb_store_open(&st, dir, KB_STORE_RDONLY, NULL, &err), KB_STORE_OK, "%s", err.msg);
	cr_assert_eq(kb_store_reset(st, NULL, NULL, &err), KB_STORE_READONLY);
	kb_store_close(st);
}

Test(state_store, full_map_grows_then_fails_at_bound, .timeout = 30)
{
	char dir[256];
	kb_opp_rec r = sample_rec(), got;
	kb_err err;
	char name[32];
	FILE *warn = tmpfile();

	test_tmpdir(dir, sizeof dir);
	kb_store *st = open_at(dir, 64 << 10, 256 << 10, warn);
	kb_store_add a;
	memset(&a, 0, sizeof a);
	a.opponent = 1;
	a.delta = r;
	a.name = name;
	int ok = 0, failed = 0;
	for (int i = 0; i < 1000 && !failed; i++) {
		snprintf(name, sizeof name, "opp%d", i);
		if (kb_store_apply(st, &a, 1, NULL, &err) == 0)
			ok++;
		else
			failed = 1;
	}
	cr_assert(failed, "a 256 KiB bound must fill up");
	cr_assert(strstr(err.msg, "full"), "%s", err.msg);
	cr_assert_gt(ok, 64, "the map grew beyond its first 64 KiB (%d records)", ok);
	cr_assert_eq(kb_store_mapsize(st), (size_t)256 << 10);
	/* what was committed is intact */
	cr_assert_eq(kb_store_get(st, "opp0", &got, &err), KB_REC_OK);
	cr_assert_eq(got.games, 12);
	rewind(warn);
	char line[256];
	cr_assert_not_null(fgets(line, sizeof line, warn));
	cr_assert(strstr(line, "grew"), "%s", line);
	fclose(warn);
	kb_store_close(st);
}

Test(state_store, corrupted_file_is_an_error, .timeout = 10)
{
	char dir[256], path[300];
	kb_store *st;
	kb_err err;

	test_tmpdir(dir, sizeof dir);
	snprintf(path, sizeof path, "%s/data.mdb", dir);
	FILE *f = fopen(path, "wb");
	for (int i = 0; i < 16384; i++)
		fputc((i * 7919) & 0xff, f);
	fclose(f);
	cr_assert_eq(kb_store_open(&st, dir, KB_STORE_CREATE, NULL, &err), KB_STORE_ERROR);
	cr_assert(strstr(err.msg, dir), "%s", err.msg);
}

Test(state_store, read_only_store_opens_read_only, .timeout = 10)
{
	char dir[256];
	kb_opp_rec got;
	kb_err err;
	kb_store *st;
	FILE *warn = tmpfile();

	test_tmpdir(dir, sizeof dir);
	st = open_at(dir, 0, 0, NULL);
	add_game(st, "bob", 1, 0, NULL);
	kb_store_close(st);
	char path[300];
	snprintf(path, sizeof path, "%s/data.mdb", dir);
	chmod(path, 0444);
	snprintf(path, sizeof path, "%s/lock.mdb", dir);
	chmod(path, 0444);
	test_drop_root(dir);
	chmod(dir, 0555);
	kb_store_opts opts = {0, 0, warn};
	cr_assert_eq(kb_store_open(&st, dir, KB_STORE_CREATE, &opts, &err), 0, "%s", err.msg);
	cr_assert(kb_store_readonly(st));
	cr_assert_eq(kb_store_get(st, "bob", &got, &err), KB_REC_OK, "%s", err.msg);
	kb_store_add a;
	memset(&a, 0, sizeof a);
	a.name = "bob", a.opponent = 1, a.delta.games = 1;
	cr_assert_eq(kb_store_apply(st, &a, 1, NULL, &err), KB_STORE_READONLY);
	kb_store_close(st);
	chmod(dir, 0755);
	fclose(warn);
}

/* The same samples, oldest first (the rings may be rotated). */
static int same_samples(const kb_model_stats *a, const kb_model_stats *b)
{
	int n = kb_model_samples(a);
	uint64_t fa = a->decisions - (uint64_t)n, fb = b->decisions - (uint64_t)n;

	if (kb_model_samples(b) != n)
		return 0;
	for (int j = 0; j < n; j++)
		if (memcmp(&a->sample[(fa + (uint64_t)j) % KB_SAMPLES],
			   &b->sample[(fb + (uint64_t)j) % KB_SAMPLES], sizeof(kb_sample)))
			return 0;
	return 1;
}

Test(state_store, export_import_merges, .timeout = 30)
{
	char dir[256], a_dir[300], b_dir[300];
	kb_opp_rec r = sample_rec(), got;
	kb_err err;
	long records = 0;

	test_tmpdir(dir, sizeof dir);
	snprintf(a_dir, sizeof a_dir, "%s/a", dir);
	snprintf(b_dir, sizeof b_dir, "%s/b", dir);
	kb_store *a = open_at(a_dir, 0, 0, NULL), *b = open_at(b_dir, 0, 0, NULL);
	add_game(a, "bob", 1, 0, &r.model);
	add_game(a, "bob", 0, 1, &r.model);
	add_game(b, "bob", 1, 0, NULL);
	add_game(b, "carol", 0, 0, NULL);
	FILE *tmp = tmpfile();
	cr_assert_eq(kb_export(a, tmp, &err), 0, "%s", err.msg);
	rewind(tmp);
	cr_assert_eq(kb_import(b, tmp, "export", &records, &err), 0, "%s", err.msg);
	cr_assert_eq(records, 2, "one opponent line and one results line");
	cr_assert_eq(kb_store_get(b, "bob", &got, &err), KB_REC_OK);
	cr_assert_eq(got.games, 3);
	cr_assert_eq(got.won, 2);
	cr_assert_eq(got.lost, 1);
	cr_assert_eq(got.model.decisions, 2 * r.model.decisions);
	/* the samples came over: b's model equals a's */
	kb_opp_rec ga;
	cr_assert_eq(kb_store_get(a, "bob", &ga, &err), KB_REC_OK);
	cr_assert(same_samples(&ga.model, &got.model));
	/* export is a fixed point: export(import(export(a))) == export(a) */
	char c_dir[300];
	snprintf(c_dir, sizeof c_dir, "%s/c", dir);
	kb_store *c = open_at(c_dir, 0, 0, NULL);
	rewind(tmp);
	cr_assert_eq(kb_import(c, tmp, "export", NULL, &err), 0, "%s", err.msg);
	FILE *t2 = tmpfile();
	cr_assert_eq(kb_export(c, t2, &err), 0);
	rewind(tmp);
	rewind(t2);
	char l1[4096], l2[4096];
	while (fgets(l1, sizeof l1, tmp)) {
		cr_assert_not_null(fgets(l2, sizeof l2, t2));
		cr_assert_str_eq(l1, l2);
	}
	fclose(tmp);
	fclose(t2);
	kb_store_close(a);
	kb_store_close(b);
	kb_store_close(c);
}

Test(state_store, import_rejects_bad_lines_and_writes_nothing, .timeout = 10)
{
	static const char *const bad[] = {
		"kimble-state-export 1\nopponent bob games 1 won 2 lost 0 decisions 0 easy 0 hard 0 samples -\n",
		"kimble-state-export 1\nopponent bob games 1 won 0 lost 0 decisions 1 easy 0 hard 0 samples -\n",
		"kimble-state-export 1\nopponent b/b games 1 won 0 lost 0 decisions 0 easy 0 hard 0 samples -\n",
		"kimble-state-export 1\nresults 1 bob games x won 0 lost 0\n",
		"kimble-state-export 1\nfoo\n",
		"kimble-state-export 2\n",
		"kimble-state-export 1\nresults 1 bob games 1 won 0 lost 0 extra\n",
		"kimble-state-export 1\nopponent ok games 1 won 0 lost 0 decisions 0 easy 0 hard 0 samples -\n"
		"opponent bob games 99999999999999999999 won 0 lost 0 decisions 0 easy 0 hard 0 samples -\n",
	};
	char dir[256];
	kb_opp_rec got;
	kb_err err;

	test_tmpdir(dir, sizeof dir);
	kb_store *st = open_at(dir, 0, 0, NULL);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		FILE *f = fmemopen((void *)bad[i], strlen(bad[i]), "r");
		cr_assert_eq(kb_import(st, f, "input", NULL, &err), KB_EXPORT_MALFORMED, "case %zu", i);
		cr_assert(strstr(err.msg, "input"), "case %zu: %s", i, err.msg);
		fclose(f);
	}
	cr_assert_eq(kb_store_get(st, "ok", &got, &err), KB_STORE_ABSENT, "nothing written");
	kb_store_close(st);
}

/* ---- kimble-state tool ----------------------------------------------------- */

/* Run kimble-state with args in folder cwd (NULL: ours); its stdout to
 * out_path, its stderr to err_path.  Returns exit status. */
static int tool_at(const char *cwd, const char *err_path, const char *out_path,
		   const char *a1, const char *a2, const char *a3, const char *a4)
{
	char bin[512];
	char *argv[] = {(char *)test_bin("kimble-state", bin, sizeof bin), (char *)a1,
			(char *)a2, (char *)a3, (char *)a4, NULL};
	test_proc p;
	test_reader r;
	char line[4096];
	FILE *out = fopen(out_path, "w");

	cr_assert_eq(test_spawn(&p, argv, cwd, 0, 1, err_path), 0);
	test_reader_init(&r, p.out);
	long n;
	while ((n = test_getline(&r, line, sizeof line, 10000)) >= 0)
		fprintf(out, "%s\n", line);
	fclose(out);
	close(p.out);
	int status = test_wait(&p, 10000);
	cr_assert(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* Run kimble-state with args; its stdout to out_path.  Returns exit status. */
static int tool(const char *out_path, const char *a1, const char *a2, const char *a3,
		const char *a4)
{
	return tool_at(NULL, "/dev/null", out_path, a1, a2, a3, a4);
}

static int file_has(const char *path, const char *needle)
{
	char buf[8192];
	FILE *f = fopen(path, "r");
	size_t n = fread(buf, 1, sizeof buf - 1, f);

	fclose(f);
	buf[n] = 0;
	return strstr(buf, needle) != NULL;
}

Test(state_tool, list_show_export_import_reset, .timeout = 60)
{
	char dir[256], store[300], out[300], exp[300], other[300];
	kb_opp_rec r = sample_rec();

	test_tmpdir(dir, sizeof dir);
	snprintf(store, sizeof store, "%s/st", dir);
	snprintf(other, sizeof other, "%s/other", dir);
	snprintf(out, sizeof out, "%s/out", dir);
	snprintf(exp, sizeof exp, "%s/export.txt", dir);
	kb_store *st = open_at(store, 0, 0, NULL);
	for (int i = 0; i < 4; i++)
		add_game(st, "greedy1", i < 3, i == 3, &r.model);
	kb_store_close(st);

	cr_assert_eq(tool(out, "--help", NULL, NULL, NULL), 0);
	cr_assert(file_has(out, "SYNOPSIS"));
	cr_assert_eq(tool(out, "--state", store, "list", NULL), 0);
	cr_assert(file_has(out, "greedy1"));
	cr_assert(file_has(out, "75.0%"));
	cr_assert_eq(tool(out, "--state", store, "show", "greedy1"), 0);
	cr_assert(file_has(out, "games 4, won 3 (75.0%), lost 1"));
	cr_assert(file_has(out, "test-1"));
	char errf[300];
	snprintf(errf, sizeof errf, "%s/err", dir);
	cr_assert_eq(tool_at(NULL, errf, out, "--state", store, "show", "nobody"), 4);
	cr_assert(file_has(errf, "show: no records of opponent nobody (kimble-state list names every "
				 "opponent it has)"));
	cr_assert_eq(tool(out, "--state", store, "export", exp), 0);
	cr_assert(file_has(exp, "kimble-state-export 1\nopponent greedy1 games 4 won 3 lost 1"));
	cr_assert_eq(tool(out, "--state", other, "import", exp), 0);
	cr_assert_eq(tool(out, "--state", other, "import", exp), 0);
	cr_assert_eq(tool(out, "--state", other, "show", "greedy1"), 0);
	cr_assert(file_has(out, "games 8, won 6 (75.0%), lost 2"), "two imports add up");
	cr_assert_eq(tool(out, "--state", other, "reset", "greedy1"), 0);
	cr_assert_eq(tool(out, "--state", other, "show", "greedy1"), 4);
	cr_assert_eq(tool_at(NULL, errf, out, "--state", store, "reset", "greedy"), 4,
		     "a mistyped name fails");
	cr_assert(file_has(errf, "reset: no records of opponent greedy, nothing removed (kimble-state list "
			       "names every opponent it has)"));
	/* an export that cannot be written (a full device) fails with 2 */
	cr_assert_eq(tool_at(NULL, errf, out, "--state", store, "export", "/dev/full"), 2);
	cr_assert(file_has(errf, "export: cannot write: No space left on device"));
	cr_assert_eq(tool(out, "--state", store, "show", "greedy1"), 0, "and removes nothing");
	cr_assert_eq(tool(out, "--state", other, "frobnicate", NULL), 64);
	cr_assert_eq(tool(out, "--state", other, "import", out), 3, "not an export");
	snprintf(other, sizeof other, "%s/not-there", dir);
	cr_assert_eq(tool(out, "--state", other, "list", NULL), 2);
}

/* kimble-state show on a record of format version 1 shows it and says what
 * the old format means (it once said there were no records, exit 4). */
Test(state_tool, show_old_record, .timeout = 60)
{
	char dir[256], store[300], out[300];
	kb_opp_rec r = sample_rec();
	uint8_t buf[KB_REC_MAX];

	test_tmpdir(dir, sizeof dir);
	snprintf(store, sizeof store, "%s/st", dir);
	snprintf(out, sizeof out, "%s/out", dir);
	kb_store *st = open_at(store, 0, 0, NULL);
	put_raw(st, "veteran", buf, kb_opp_encode_v1(&r, buf));
	kb_store_close(st);
	cr_assert_eq(tool(out, "--state", store, "list", NULL), 0);
	cr_assert(file_has(out, "veteran"));
	cr_assert(file_has(out, "(old format, version 1)"), "list marks old records");
	cr_assert_eq(tool(out, "--state", store, "show", "veteran"), 0);
	cr_assert(file_has(out, "opponent veteran\n"));
	cr_assert(file_has(out, "old record format (version 1)"));
	cr_assert(file_has(out, "games 12, won 7"));
}

static void put_raw(kb_store *st, const char *name, const uint8_t *val, size_t len)
{
	kb_err err;

	cr_assert_eq(kb_store_put_raw(st, name, val, len, &err), 0, "%s", err.msg);
}

static uint64_t digest_of(kb_store *st)
{
	uint64_t digest = 0;
	kb_err err;

	cr_assert_eq(kb_store_digest(st, &digest, &err), 0, "%s", err.msg);
	return digest;
}

/* The digest is of the records: two stores that reached the same records
 * by different writes agree, one more game changes it. */
Test(state_store, digest_follows_records_not_history, .timeout = 20)
{
	char dir[256], a[300], b[300];
	kb_err err;

	test_tmpdir(dir, sizeof dir);
	snprintf(a, sizeof a, "%s/a", dir);
	snprintf(b, sizeof b, "%s/b", dir);
	kb_store *sa = open_at(a, 0, 0, NULL), *sb = open_at(b, 0, 0, NULL);
	add_game(sa, "bob", 1, 0, NULL);
	add_game(sa, "eve", 0, 1, NULL);
	add_game(sb, "eve", 0, 1, NULL);
	add_game(sb, "tmp", 1, 1, NULL);
	add_game(sb, "bob", 1, 0, NULL);
	cr_assert_eq(kb_store_reset(sb, "tmp", NULL, &err), 0, "%s", err.msg);
	uint64_t da = digest_of(sa);
	cr_assert_eq(da, digest_of(sb), "same records, same digest");
	add_game(sb, "bob", 1, 0, NULL);
	cr_assert_neq(da, digest_of(sb), "one more game");
	kb_store_close(sa);
	kb_store_close(sb);
}

/* A frozen store is read without touching any file: no lock file made,
 * nothing written, a missing store not created. */
Test(state_store, frozen_touches_no_file, .timeout = 20)
{
	char dir[256], lock[300], none[300];
	struct stat st;
	kb_store *frozen;
	kb_opp_rec got;
	kb_err err;

	test_tmpdir(dir, sizeof dir);
	kb_store *w = open_at(dir, 0, 0, NULL);
	add_game(w, "bob", 1, 0, NULL);
	uint64_t digest = digest_of(w);
	kb_store_close(w);
	snprintf(lock, sizeof lock, "%s/lock.mdb", dir);
	cr_assert_eq(unlink(lock), 0);
	cr_assert_eq(kb_store_open(&frozen, dir, KB_STORE_FROZEN, NULL, &err), 0, "%s", err.msg);
	cr_assert(kb_store_readonly(frozen));
	cr_assert_eq(kb_store_get(frozen, "bob", &got, &err), KB_REC_OK, "%s", err.msg);
	cr_assert_eq(got.games, 1);
	cr_assert_eq(digest_of(frozen), digest);
	kb_store_add add = {.name = "bob", .opponent = 1, .delta.games = 1};
	cr_assert_eq(kb_store_apply(frozen, &add, 1, NULL, &err), KB_STORE_READONLY);
	kb_store_close(frozen);
	cr_assert_neq(stat(lock, &st), 0, "lock.mdb made by a frozen reader");
	snprintf(none, sizeof none, "%s/none", dir);
	cr_assert_eq(kb_store_open(&frozen, none, KB_STORE_FROZEN | KB_STORE_CREATE, NULL, &err), KB_STORE_ERROR);
	cr_assert_neq(stat(none, &st), 0, "a frozen open created %s", none);
}

/* A record with impossible counts is damaged in every format version:
 * list and show say so (they once showed a version-1 record with won 9 of
 * 5 games as 180.0%), export skips it. */
Test(state_tool, impossible_counts_damaged_in_every_version, .timeout = 60)
{
	char dir[256], store[300], out[300];
	kb_opp_rec r;
	uint8_t buf[KB_REC_MAX];

	test_tmpdir(dir, sizeof dir);
	snprintf(store, sizeof store, "%s/st", dir);
	snprintf(out, sizeof out, "%s/out", dir);
	memset(&r, 0, sizeof r);
	r.games = 5, r.won = 9;
	kb_store *st = open_at(store, 0, 0, NULL);
	put_raw(st, "oldbad", buf, kb_opp_encode_v1(&r, buf));
	r.won = 0, r.lost = 6;
	put_raw(st, "newbad", buf, kb_opp_encode(&r, buf));
	kb_store_close(st);
	cr_assert_eq(tool(out, "--state", store, "list", NULL), 0);
	cr_assert(!file_has(out, "180.0%"), "%s", test_read_file(NULL, out));
	cr_assert(file_has(out, "oldbad               damaged record"), "%s", test_read_file(NULL, out));
	cr_assert(file_has(out, "newbad               damaged record"), "%s", test_read_file(NULL, out));
	cr_assert_eq(tool(out, "--state", store, "show", "oldbad"), 0);
	cr_assert(file_has(out, "opponent oldbad: damaged record"), "%s", test_read_file(NULL, out));
	cr_assert_eq(tool(out, "--state", store, "export", NULL), 0);
	cr_assert(file_has(out, "# skipped opponent oldbad: damaged record"));
}

/* A bad NAME is a usage error before anything is opened: no store is
 * created in the working folder, and without a store it is still 64. */
Test(state_tool, bad_name_creates_nothing, .timeout = 30)
{
	char dir[256], out[300], made[300];
	struct stat sb;

	test_tmpdir(dir, sizeof dir);
	snprintf(out, sizeof out, "%s/out", dir);
	snprintf(made, sizeof made, "%s/kimble-state", dir);
	unsetenv("KIMBLE_STATE");
	cr_assert_eq(tool_at(dir, "/dev/null", out, "reset", "bad name!", NULL, NULL), 64);
	cr_assert_neq(stat(made, &sb), 0, "reset with a bad name created %s", made);
	cr_assert_eq(tool_at(dir, "/dev/null", out, "show", "bad name!", NULL, NULL), 64);
	cr_assert_neq(stat(made, &sb), 0);
}

/* reset never creates a missing store: a mistyped --state fails naming the
 * path.  import creates it and says so on stderr. */
Test(state_tool, reset_missing_store_fails_import_creates_and_says_so, .timeout = 30)
{
	char dir[256], store[300], out[300], errf[300], exp[300];
	struct stat sb;

	test_tmpdir(dir, sizeof dir);
	snprintf(store, sizeof store, "%s/typo", dir);
	snprintf(out, sizeof out, "%s/out", dir);
	snprintf(errf, sizeof errf, "%s/err", dir);
	snprintf(exp, sizeof exp, "%s/exp.txt", dir);
	cr_assert_eq(tool_at(NULL, errf, out, "--state", store, "reset", "bob"), 2);
	cr_assert(strstr(test_read_file(NULL, errf), store), "%s", test_read_file(NULL, errf));
	cr_assert_eq(tool_at(NULL, errf, out, "--state", store, "reset", NULL), 2);
	cr_assert_neq(stat(store, &sb), 0, "reset created %s", store);
	FILE *f = fopen(exp, "w");
	fputs("kimble-state-export 1\nopponent bob games 1 won 1 lost 0 decisions 0 easy 0 hard 0 samples -\n", f);
	fclose(f);
	cr_assert_eq(tool_at(NULL, errf, out, "--state", store, "import", exp), 0);
	const char *msg = test_read_file(NULL, errf);
	cr_assert(strstr(msg, "creating a new store") && strstr(msg, store), "%s", msg);
	cr_assert_eq(tool(out, "--state", store, "show", "bob"), 0);
	cr_assert(file_has(out, "games 1, won 1"));
	unlink(errf);
	cr_assert_eq(tool_at(NULL, errf, out, "--state", store, "import", exp), 0);
	cr_assert_null(strstr(test_read_file(NULL, errf), "creating"), "an existing store");
}
