/* td.c - TD(lambda) self-play training of the evaluation; see td.h. */
#include <math.h>

#include "core/policy.h"
#include "core/rng.h"
#include "bot/tune/fit.h"
#include "bot/opponent.h"
#include "bot/tune/td.h"

#define TD_MAX_ROLLS 4096 /* a longer game is not learned from (none seen) */

const uint8_t kb_td_lineups[KB_TD_LINEUPS][3] = {
	{KB_HARD, KB_HARD, KB_HARD}, {KB_EASY, KB_EASY, KB_EASY},
	{KB_HARD, 0, 0}, {KB_EASY, KB_HARD, KB_EASY},
};
const char *const kb_td_lineup_names[KB_TD_LINEUPS] = {
	"hard x3", "easy x3", "hard alone", "easy,hard,easy",
};

/* One training game's record. */
typedef struct td_game {
	uint8_t kinds[KB_SEATS];   /* evaluation kind per seat */
	kb_pos pos[TD_MAX_ROLLS];  /* before each roll */
	int8_t turn[TD_MAX_ROLLS]; /* who rolled */
	float pred[TD_MAX_ROLLS][KB_SEATS];
	int n, winner;
} td_game;

/* The softmax over the present seats' scores, and their features. */
static void predict(const kb_weights *w, const uint8_t kinds[KB_SEATS], const kb_pos *pos,
		    int turn, kb_seat_features f[KB_SEATS], double p[KB_SEATS])
{
	double mx = -1e30, sum = 0;

	kb_eval_features(pos, kinds, turn, f);
	for (int s = 0; s < KB_SEATS; s++) {
		p[s] = 0;
		if (!kb_present(pos, s))
			continue;
		p[s] = kb_eval_score(w, kb_eval_type(pos, kinds[s]), &f[s]);
		if (p[s] > mx)
			mx = p[s];
	}
	for (int s = 0; s < KB_SEATS; s++)
		if (kb_present(pos, s))
			sum += p[s] = exp(p[s] - mx);
	for (int s = 0; s < KB_SEATS; s++)
		p[s] /= sum;
}

/* Play one game with lineup digits ctl[1..3] from rng, recording it. */
static void play(const kb_weights *w, const uint8_t ctl[KB_SEATS], kb_rng *rng, td_game *g)
{
	unsigned present = 1;
	kb_pos pos;

	g->kinds[0] = KB_EVAL_SELF;
	for (int s = 1; s < KB_SEATS; s++) {
		g->kinds[s] = kb_nearest_builtin(ctl[s]);
		if (ctl[s])
			present |= 1u << s;
	}
	kb_pos_init(&pos, present);
	int turn, k = (int)kb_rng_below(rng, (uint32_t)__builtin_popcount(present));
	for (turn = 0; !kb_present(&pos, turn) || k-- > 0; turn++)
		;
	g->n = 0;
	g->winner = KB_NO_WINNER;
	while (g->n < TD_MAX_ROLLS) {
		g->pos[g->n] = pos;
		g->turn[g->n++] = (int8_t)turn;
		int d = kb_rng_die(rng);
		unsigned mask = kb_legal(&pos, turn, d);
		if (mask) {
			int idx = turn == 0 ? kb_eval_greedy(w, g->kinds, &pos, d, mask)
				  : kb_pick(ctl[turn], mask, NULL);
			kb_apply(&pos, turn, idx, d);
			if (kb_has_won(&pos, turn)) {
				g->winner = turn;
				return;
			}
		}
		turn = kb_next_seat(&pos, turn, d);
	}
}

/* Move every recorded prediction towards its lambda-return. */
static void learn(kb_weights *w, td_game *g, double lambda, double rate)
{
	kb_seat_features f[KB_SEATS];
	double p[KB_SEATS], target[KB_SEATS];

	for (int t = 0; t < g->n; t++) {
		predict(w, g->kinds, &g->pos[t], g->turn[t], f, p);
		for (int s = 0; s < KB_SEATS; s++)
			g->pred[t][s] = (float)p[s];
	}
	for (int s = 0; s < KB_SEATS; s++)
		target[s] = s == g->winner;
	for (int t = g->n - 1; t >= 0; t--) {
		const kb_pos *pos = &g->pos[t];
		predict(w, g->kinds, pos, g->turn[t], f, p);
		for (int s = 0; s < KB_SEATS; s++)
			if (kb_present(pos, s))
				kb_eval_step(w, kb_eval_type(pos, g->kinds[s]), &f[s],
					     rate * (target[s] - p[s]));
		for (int s = 0; s < KB_SEATS; s++)
			target[s] = (1 - lambda) * g->pred[t][s] + lambda * target[s];
	}
}

/* The lineup of training game k: half the measured ones in turn, half
 * random (at least one opponent). */
static void lineup(const kb_td_params *p, long k, kb_rng *rng, uint8_t ctl[KB_SEATS])
{
	ctl[0] = KB_EXTERNAL;
	if (p->only) {
		for (int s = 1; s < KB_SEATS; s++)
			ctl[s] = p->only[s - 1];
		return;
	}
	if (k % 2 == 0) {
		for (int s = 1; s < KB_SEATS; s++)
			ctl[s] = kb_td_lineups[(k / 2) % KB_TD_LINEUPS][s - 1];
		return;
	}
	do
		for (int s = 1; s < KB_SEATS; s++)
			ctl[s] = (uint8_t)kb_rng_below(rng, 3);
	while (!ctl[1] && !ctl[2] && !ctl[3]);
}

void kb_td_train(kb_weights *w, const kb_td_params *p, FILE *log)
{
	static td_game g; /* large; one training run per process */
	kb_rng rng;
	long wins = 0, done = 0;

	kb_rng_stream(&rng, p->seed, KB_TD_TAG, 0);
	for (long k = 0; k < p->games; k++) {
		uint8_t ctl[KB_SEATS];
		lineup(p, k, &rng, ctl);
		play(w, ctl, &rng, &g);
		if (g.winner == KB_NO_WINNER)
			continue;
		learn(w, &g, p->lambda, p->rate * (1.0 - 0.9 * (double)k / (double)p->games));
		wins += g.winner == 0;
		done++;
		if (log && p->games >= 10 && (k + 1) % (p->games / 10) == 0) {
			fprintf(log, "kimble-tune: td %ld/%ld games, bot won %.1f%%\n", k + 1,
				p->games, 100.0 * (double)wins / (double)done);
			wins = done = 0;
		}
	}
}

void kb_td_winrates(const kb_weights *w, int level, long games, uint64_t seed,
		    double rate[KB_TD_LINEUPS])
{
	for (int l = 0; l < KB_TD_LINEUPS; l++)
		rate[l] = kb_fit_lineup_winrate(w, level, 0, kb_td_lineups[l], games, seed);
}
