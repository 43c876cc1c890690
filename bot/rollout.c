/* rollout.c - common-random-number rollouts; see rollout.h. */
#include "core/policy.h"
#include "rollout.h"

#define ROLLOUT_TAG (KB_TAG_USER + 7) /* the rollouts' dice streams */

/* Off in every lineup: with the TD-trained evaluation they no longer pay.
 * Hard alone (strength --lineup "hard alone" --rollout C,K,T,M,L, the
 * same 10,000 seeds): off 75.6%; 3 candidates within 0.03 x 192 samples
 * x 20 rolls, no rollouts after searches of more than 2,000 / 4,000 /
 * 6,000 / 8,000 / 12,000 leaves: 75.6 / 75.5 / 75.3 / 75.1 / 75.1%;
 * within 0.01 at 8,000: 74.9%; on 20,000 other seeds (--seed 777) off
 * 75.1%, 8,000 74.4%.  Hard x3 (10,000 seeds): off 39.4%, 3 x 192 x 20
 * 39.9%, 3 x 128 x 32 38.7%, 2 x 256 x 24 39.8%, all within the noise
 * (+-1.0) at 3 times the CPU p99.  The code stays, tested, for
 * experiments with other evaluations (strength --rollout). */
const kb_rollout_params kb_rollout_default[KB_SEATS] = {
	{0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}, {0, 0, 0, 0, 0},
};

/* Play on from pos with seat turn to roll, seat s rolling dice[s][0],
 * dice[s][1]... for at most horizon rolls; the value reached. */
static double play_out(const kb_search *bot, kb_pos pos, int turn, int horizon,
		       const int8_t dice[KB_SEATS][KB_ROLLOUT_MAX_HORIZON])
{
	int used[KB_SEATS] = {0, 0, 0, 0};

	for (int t = 0; t < horizon; t++) {
		int d = dice[turn][used[turn]++];
		unsigned mask = kb_legal(&pos, turn, d);
		if (mask) {
			int idx = turn == 0 ? kb_eval_greedy(bot->w, bot->kinds, &pos, d, mask)
				  : !(mask & (mask - 1)) ? kb_pick_hard(mask)
				  : kb_opponent_pick(bot->opp[turn], &pos, turn, d, mask);
			kb_apply(&pos, turn, idx, d);
			if (kb_has_won(&pos, turn))
				return turn == 0 ? 1.0 : 0.0;
		}
		turn = kb_next_seat(&pos, turn, d);
	}
	return kb_eval(bot->w, bot->kinds, &pos, turn);
}

/* The candidates: legal indices within margin of the best value, best
 * first, at most max of them.  Returns how many. */
static int candidates(const kb_rollout_params *rp, unsigned mask, const double v[KB_PIECES],
		      int cand[KB_PIECES])
{
	int n = 0;
	double best = -1.0;

	for (int i = 0; i < KB_PIECES; i++)
		if ((mask >> i) & 1 && v[i] > best)
			best = v[i];
	for (int i = 0; i < KB_PIECES; i++) {
		if (!((mask >> i) & 1) || v[i] < best - rp->margin)
			continue;
		int j = n++;
		for (; j > 0 && v[cand[j - 1]] < v[i]; j--)
			cand[j] = cand[j - 1];
		cand[j] = i;
	}
	return n < rp->candidates ? n : rp->candidates;
}

int kb_rollout_choose(kb_search *bot, const kb_rollout_params *rp, const kb_pos *pos, int die,
		      unsigned mask, const double v[KB_PIECES], uint64_t leaves)
{
	int cand[KB_PIECES], n;
	int horizon;
	double sum[KB_PIECES] = {0, 0, 0, 0};
	int8_t dice[KB_SEATS][KB_ROLLOUT_MAX_HORIZON];
	kb_pos after[KB_PIECES];
	int next[KB_PIECES];

	if (!kb_rollout_on(rp) || kb_count(mask) < 2 ||
	    leaves > (uint64_t)rp->max_leaves)
		return -1;
	n = candidates(rp, mask, v, cand);
	if (n < 2)
		return -1;
	horizon = rp->horizon < KB_ROLLOUT_MAX_HORIZON ? rp->horizon : KB_ROLLOUT_MAX_HORIZON;
	uint64_t seed = kb_rng_next(&bot->tiebreak);
	for (int c = 0; c < n; c++) {
		after[c] = *pos;
		kb_apply(&after[c], 0, cand[c], die);
		next[c] = kb_next_seat(&after[c], 0, die);
	}
	for (int k = 0; k < rp->samples; k++) {
		kb_rng rng;
		kb_rng_stream(&rng, seed, ROLLOUT_TAG, (uint64_t)k);
		for (int s = 0; s < KB_SEATS; s++)
			for (int t = 0; t < horizon && kb_present(pos, s); t++)
				dice[s][t] = (int8_t)kb_rng_die(&rng);
		for (int c = 0; c < n; c++)
			sum[c] += kb_has_won(&after[c], 0) ? 1.0
				  : play_out(bot, after[c], next[c], horizon, dice);
	}
	int best = 0;
	for (int c = 1; c < n; c++)
		if (sum[c] > sum[best] + 1e-9)
			best = c;
	return cand[best];
}
