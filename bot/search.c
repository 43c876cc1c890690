/* search.c - expectimax over the dice; see search.h. */
#include "core/policy.h"
#include "rollout.h"
#include "search.h"

int kb_search_level_for_budget(int budget_ms, int opponents)
{
	/* Calibration, measured (leaves per decision, mean over 200 games
	 * against hard): one round of opponent rolls multiplies the leaves
	 * by R = 15, 71, 113 for 1, 2, 3 opponents (sixes, capped, included),
	 * one bot roll by about 12 (six dice, about two moves); a leaf costs
	 * about 0.2 us, so a budget of B ms affords 5000 * B leaves on
	 * average with the 99th percentile a few times the mean. */
	static const double round_factor[4] = {1, 15, 71, 113};
	double r = round_factor[opponents < 1 ? 1 : opponents > 3 ? 3 : opponents];
	double leaves = 2, affordable = 5000.0 * budget_ms;
	int level = 0;

	while (level < 6) {
		double next = leaves * (level == 0 ? r * 12 : level % 2 ? r : 12);
		if (next > affordable)
			break;
		leaves = next;
		level++;
	}
	if (level == 0 && budget_ms >= 1)
		level = 1;
	return level;
}

void kb_search_init(kb_search *bot, unsigned present, const kb_opponent *const opp[KB_SEATS],
		 uint64_t seed, int budget_ms)
{
	bot->present = present | 1;
	bot->w = &kb_weights_default;
	bot->kinds[0] = KB_EVAL_SELF;
	bot->leaf_model[0] = NULL;
	for (int s = 1; s < KB_SEATS; s++) {
		bot->opp[s] = (bot->present >> s) & 1 ? opp[s] : NULL;
		if (!bot->opp[s] && (bot->present >> s) & 1)
			bot->opp[s] = &kb_opponent_hard;
		bot->kinds[s] = kb_nearest_builtin(bot->opp[s] ? bot->opp[s]->kind : KB_ABSENT);
		bot->leaf_model[s] = NULL;
	}
	int opponents = __builtin_popcount(bot->present & 0xf) - 1;
	kb_search_set_level(bot, kb_search_level_for_budget(budget_ms, opponents));
	kb_rng_stream(&bot->tiebreak, seed, KB_TAG_TIEBREAK, 0);
	bot->rollout = &kb_rollout_default[opponents];
	bot->explain = NULL;
	bot->nodes = 0;
}

static double chance(kb_search *bot, const kb_pos *pos, int turn, int k, int opp_rolls,
		     double cut);

void kb_search_set_level(kb_search *bot, int level)
{
	bot->depth = (level + 1) / 2;
	bot->finish_round = level > 0 && level % 2 == 0;
}

static double leaf(kb_search *bot, const kb_pos *pos, int turn)
{
	bot->nodes++;
	return kb_eval_models(bot->w, bot->kinds, bot->leaf_model, pos, turn);
}

/* Value after a move by seat mover that leaves pos with seat turn to roll,
 * k bot rolls still to expand.  cut: see chance(). */
static double after(kb_search *bot, const kb_pos *pos, int mover, int turn, int k,
		    int opp_rolls, double cut)
{
	if (kb_has_won(pos, mover))
		return mover == 0 ? 1.0 : 0.0;
	if (k == 0 && (turn == 0 || (mover == 0 && !bot->finish_round)))
		return leaf(bot, pos, turn);
	return chance(bot, pos, turn, k, opp_rolls, cut);
}

/* Best value over A's legal moves for die d.  A move whose value cannot
 * exceed the best so far is not searched to the end (chance's cut): the
 * maximum, and so every value above it, is the same to the last bit. */
static double best_move(kb_search *bot, const kb_pos *pos, int d, unsigned mask, int k)
{
	double best = -1.0;

	for (int i = 0; i < KB_PIECES; i++) {
		if (!((mask >> i) & 1))
			continue;
		kb_pos p = *pos;
		kb_apply(&p, 0, i, d);
		double v = after(bot, &p, 0, kb_next_seat(&p, 0, d), k, 0, best);
		if (v > best)
			best = v;
	}
	return best;
}

/* Every value is a win probability, at most 1: once the dice left
 * cannot lift the mean above cut even if each gave 1, the mean is below
 * cut, and a caller that keeps only values above cut (best_move) need not
 * know it.  The margin covers the rounding of the sums. */
static int below_cut(double sum, int dice_left, double cut)
{
	return sum + dice_left < 6 * cut - 1e-9;
}

/* The value when seat turn rolls d and cannot move (k and opp_rolls as
 * after() takes them).  The dice 1..5 that move nothing all lead to the
 * same position with the same seat to roll, so one chance node searches
 * that once (*idle, -1 until then) and adds it for each; a six rolls
 * again. */
static double no_move(kb_search *bot, const kb_pos *pos, int turn, int d, int k, int opp_rolls,
		      double *idle)
{
	if (d < 6 && *idle >= 0)
		return *idle;
	double v = after(bot, pos, turn, kb_next_seat(pos, turn, d), k, opp_rolls, -1.0);
	if (d < 6)
		*idle = v;
	return v;
}

/* Expected value with seat turn about to roll; a value below cut (its
 * caller's best so far; -1: none) may be answered by -1 without
 * searching every die. */
static double chance(kb_search *bot, const kb_pos *pos, int turn, int k, int opp_rolls,
		     double cut)
{
	double sum = 0, idle = -1.0;

	if (turn == 0) {
		if (k == 0)
			return leaf(bot, pos, 0);
		for (int d = 1; d <= 6; d++) {
			unsigned mask = kb_legal(pos, 0, d);
			sum += mask ? best_move(bot, pos, d, mask, k - 1)
				    : no_move(bot, pos, 0, d, k - 1, 0, &idle);
			if (below_cut(sum, 6 - d, cut))
				return -1.0;
		}
		return sum / 6;
	}
	if (opp_rolls >= KB_SEARCH_OPP_ROLLS)
		return leaf(bot, pos, turn);
	for (int d = 1; d <= 6; d++) {
		unsigned mask = kb_legal(pos, turn, d);
		if (mask) {
			kb_pos p = *pos;
			int idx = kb_count(mask) == 1 ? kb_pick_hard(mask)
				  : kb_opponent_pick(bot->opp[turn], pos, turn, d, mask);
			kb_apply(&p, turn, idx, d);
			sum += after(bot, &p, turn, kb_next_seat(&p, turn, d), k, opp_rolls + 1, -1.0);
		} else {
			sum += no_move(bot, pos, turn, d, k, opp_rolls + 1, &idle);
		}
		if (below_cut(sum, 6 - d, cut))
			return -1.0;
	}
	return sum / 6;
}

int kb_search_decide(kb_search *bot, const kb_pos *pos, int die, unsigned mask,
		  double value[KB_PIECES])
{
	double v[KB_PIECES], best = -1.0;
	int ties[KB_PIECES], nties = 0;
	uint64_t nodes_before = bot->nodes;

	for (int i = 0; i < KB_PIECES; i++) {
		v[i] = -1.0;
		if (!((mask >> i) & 1))
			continue;
		if (kb_count(mask) > 1) {
			kb_pos p = *pos;
			kb_apply(&p, 0, i, die);
			v[i] = after(bot, &p, 0, kb_next_seat(&p, 0, die), bot->depth, 0, -1.0);
		}
		if (v[i] > best + 1e-12) {
			best = v[i];
			nties = 0;
		}
		if (v[i] >= best - 1e-12)
			ties[nties++] = i;
	}
	if (value)
		for (int i = 0; i < KB_PIECES; i++)
			value[i] = v[i];
	if (bot->explain && kb_count(mask) > 1)
		for (int i = 0; i < KB_PIECES; i++)
			if ((mask >> i) & 1)
				fprintf(bot->explain, "kimble-bot: die %d, piece %d (progress %d): win %.4f\n",
					die, i, pos->prog[0][i], v[i]);
	if (kb_rollout_on(bot->rollout)) {
		int refined = kb_rollout_choose(bot, bot->rollout, pos, die, mask, v,
						    bot->nodes - nodes_before);
		if (refined >= 0)
			return refined;
	}
	if (nties == 1)
		return ties[0];
	return ties[kb_rng_below(&bot->tiebreak, (uint32_t)nties)];
}
