/* fit.c - self-play data and softmax regression for eval.h; see fit.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/game.h"
#include "bot/tune/fit.h"
#include "bot/rollout.h"
#include "bot/search.h"

/* Self-play here measures the evaluation, so the bot plays without its
 * rollouts (which also keeps the tuning reproducible as it was first run). */
static const kb_rollout_params no_rollouts = {0, 0, 0, 0, 0};

static int push(kb_fit_data *d, const kb_fit_sample *s)
{
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 1 << 16;
		kb_fit_sample *p = realloc(d->s, cap * sizeof *p);
		if (!p)
			return -1;
		d->s = p;
		d->cap = cap;
	}
	d->s[d->n++] = *s;
	return 0;
}

typedef struct rec {
	kb_fit_data *d;
	uint8_t kinds[KB_SEATS];
	int keep, k, fail;
	const kb_game *game; /* the game played: its position is the rolled board */
} rec;

static void on_rolled(void *ctx, const kb_roll *roll)
{
	rec *r = ctx;
	kb_fit_sample s;

	if (r->k++ % r->keep)
		return;
	memset(&s, 0, sizeof s);
	s.pos = r->game->pos; /* roll->board is this position, formatted */
	memcpy(s.kinds, r->kinds, sizeof s.kinds);
	s.turn = (int8_t)roll->seat;
	s.winner = -1;
	r->fail |= push(r->d, &s);
}

int kb_fit_collect(kb_fit_data *d, const kb_weights *w, int depth, long games,
		   uint64_t seed, int keep)
{
	kb_rng pick;

	kb_rng_stream(&pick, seed, KB_TAG_USER, 0);
	for (long g = 0; g < games; g++) {
		uint8_t ctl[KB_SEATS] = {KB_EXTERNAL, 0, 0, 0};
		const kb_opponent *opp[KB_SEATS] = {NULL, NULL, NULL, NULL};
		rec r = {d, {0, 0xff, 0xff, 0xff}, keep > 0 ? keep : 1, 0, 0, NULL};
		size_t first = d->n;
		kb_game game;
		kb_search bot;

		while (ctl[1] == 0 && ctl[2] == 0 && ctl[3] == 0)
			for (int s = 1; s < KB_SEATS; s++)
				ctl[s] = (uint8_t)kb_rng_below(&pick, 3);
		for (int s = 1; s < KB_SEATS; s++)
			if (ctl[s]) {
				opp[s] = ctl[s] == KB_EASY ? &kb_opponent_easy : &kb_opponent_hard;
				r.kinds[s] = ctl[s];
			}
		uint64_t gseed = kb_stream_seed(seed, KB_TAG_GAME, (uint64_t)g);
		kb_game_init(&game, gseed, ctl);
		r.game = &game;
		kb_search_init(&bot, game.pos.present, opp, gseed, 0);
		bot.w = w;
		bot.rollout = &no_rollouts;
		kb_search_set_level(&bot, depth);
		kb_hooks h = {on_rolled, NULL, &r};
		while (kb_game_advance(&game, &h) == 0) {
			int idx = kb_search_decide(&bot, &game.pos, game.pending_die,
						kb_game_pending_mask(&game), NULL);
			kb_game_decide(&game, idx, &h);
		}
		if (r.fail)
			return -1;
		for (size_t i = first; i < d->n; i++)
			d->s[i].winner = game.winner;
		d->games++;
		d->wins += game.winner == 0;
	}
	return 0;
}

double kb_fit_train(kb_weights *w, const kb_fit_data *d, int epochs, double lr, double l2,
		    uint64_t seed)
{
	kb_rng rng;
	double loss = 0;
	long total = (long)epochs * (long)d->n, step = 0;

	kb_rng_stream(&rng, seed, KB_TAG_USER, 1);
	for (int e = 0; e < epochs; e++) {
		loss = 0;
		for (size_t k = 0; k < d->n; k++, step++) {
			const kb_fit_sample *s = &d->s[kb_rng_below(&rng, (uint32_t)d->n)];
			kb_seat_features f[KB_SEATS];
			double sc[KB_SEATS], p[KB_SEATS], sum = 0, mx = -1e30;
			double rate = lr * (1.0 - 0.9 * (double)step / (double)total);

			kb_eval_features(&s->pos, s->kinds, s->turn, f);
			for (int t = 0; t < KB_SEATS; t++) {
				if (!kb_present(&s->pos, t))
					continue;
				sc[t] = kb_eval_score(w, kb_eval_type(&s->pos, s->kinds[t]), &f[t]);
				if (sc[t] > mx)
					mx = sc[t];
			}
			for (int t = 0; t < KB_SEATS; t++)
				if (kb_present(&s->pos, t))
					sum += p[t] = exp(sc[t] - mx);
			for (int t = 0; t < KB_SEATS; t++) {
				if (!kb_present(&s->pos, t))
					continue;
				p[t] /= sum;
				double g = p[t] - (t == s->winner);
				int ty = kb_eval_type(&s->pos, s->kinds[t]);
				if (t == s->winner)
					loss -= log(p[t] > 1e-12 ? p[t] : 1e-12);
				/* the base weights only (the interaction tables are
				 * kb_td_train's), L2 on the piece values */
				for (int i = 0; i < KB_PIECES; i++) {
					float *wp = &w->piece[ty][f[t].bucket[i]];
					*wp -= (float)(rate * (g + l2 * *wp));
				}
				w->danger[ty] -= (float)(rate * g * f[t].danger);
				w->dprog[ty] -= (float)(rate * g * f[t].dprog);
				w->tempo[ty] -= (float)(rate * g * f[t].tempo);
			}
		}
		loss /= (double)(d->n ? d->n : 1);
	}
	/* home is the zero of each row: subtract a constant per seat score */
	return loss;
}

/* One per-type table [type][rows][cols] as a designated initializer;
 * zeros written as 0 to keep the file small. */
static void write_table(FILE *out, const char *name, const float *v, int rows, int cols)
{
	fprintf(out, "\t.%s = {\n", name);
	for (int t = 0; t < KB_EVAL_TYPES; t++) {
		fprintf(out, "\t\t{%s", rows > 1 ? "\n" : "");
		for (int r = 0; r < rows; r++) {
			if (rows > 1)
				fprintf(out, "\t\t\t{");
			for (int c = 0; c < cols; c++) {
				float x = *v++;
				fprintf(out, "%s", c ? (c % 10 ? ", " : ",\n\t\t\t ") : "");
				if (x == 0)
					fprintf(out, "0");
				else
					fprintf(out, "%.5ff", x);
			}
			if (rows > 1)
				fprintf(out, "},\n");
		}
		fprintf(out, "%s},\n", rows > 1 ? "\t\t" : "");
	}
	fprintf(out, "\t},\n");
}

void kb_fit_write(FILE *out, const kb_weights *w, const char *comment)
{
	fprintf(out, "/* weights.h - evaluation weights fitted by bot/tune/tune.sh; do not edit.\n"
		     " * %s */\n#include \"eval.h\"\nconst kb_weights kb_weights_default = {\n\t{\n",
		comment);
	for (int t = 0; t < KB_EVAL_TYPES; t++) {
		fprintf(out, "\t\t{");
		for (int b = 0; b < KB_EVAL_BUCKETS; b++)
			fprintf(out, "%s%.5ff", b ? (b % 8 ? ", " : ",\n\t\t ") : "", w->piece[t][b]);
		fprintf(out, "},\n");
	}
	fprintf(out, "\t},\n");
	const float *rows[3] = {w->danger, w->dprog, w->tempo};
	for (int k = 0; k < 3; k++) {
		fprintf(out, "\t{");
		for (int t = 0; t < KB_EVAL_TYPES; t++)
			fprintf(out, "%s%.5ff", t ? ", " : "", rows[k][t]);
		fprintf(out, "},\n");
	}
	write_table(out, "pair", &w->pair[0][0][0], KB_EVAL_BUCKETS, KB_EVAL_BUCKETS);
	write_table(out, "hit", &w->hit[0][0], 1, KB_EVAL_BUCKETS);
	write_table(out, "behind", &w->behind[0][0][0], KB_EVAL_REACH, KB_EVAL_ZONES);
	fprintf(out, "};\n");
}

void kb_fit_free(kb_fit_data *d)
{
	free(d->s);
	memset(d, 0, sizeof *d);
}

/* Lineups the direct tuning plays (digits of seats B, C, D). */
static const uint8_t spsa_lineups[][3] = {
	{KB_HARD, KB_HARD, KB_HARD}, {KB_EASY, KB_EASY, KB_EASY}, {KB_HARD, 0, 0},
	{KB_EASY, KB_HARD, KB_EASY}, {KB_EASY, 0, 0},             {KB_HARD, KB_EASY, 0},
};
#define SPSA_LINEUPS (int)(sizeof spsa_lineups / sizeof spsa_lineups[0])

double kb_fit_lineup_winrate(const kb_weights *w, int level, int rollouts,
			     const uint8_t lineup[3], long games, uint64_t seed)
{
	uint8_t ctl[KB_SEATS] = {KB_EXTERNAL, lineup[0], lineup[1], lineup[2]};
	const kb_opponent *opp[KB_SEATS] = {NULL, NULL, NULL, NULL};
	long wins = 0;

	for (int s = 1; s < KB_SEATS; s++)
		if (ctl[s])
			opp[s] = ctl[s] == KB_EASY ? &kb_opponent_easy : &kb_opponent_hard;
	for (long g = 0; g < games; g++) {
		uint64_t gseed = kb_stream_seed(seed, KB_TAG_GAME, (uint64_t)g);
		kb_game game;
		kb_search bot;
		kb_game_init(&game, gseed, ctl);
		kb_search_init(&bot, game.pos.present, opp, gseed, 0);
		bot.w = w;
		if (!rollouts)
			bot.rollout = &no_rollouts;
		kb_search_set_level(&bot, level);
		while (kb_game_advance(&game, NULL) == 0)
			kb_game_decide(&game, kb_search_decide(&bot, &game.pos, game.pending_die,
							    kb_game_pending_mask(&game), NULL), NULL);
		wins += game.winner == 0;
	}
	return (double)wins / (double)(games ? games : 1);
}

double kb_fit_winrate(const kb_weights *w, int level, long games, uint64_t seed)
{
	double sum = 0;

	for (int l = 0; l < SPSA_LINEUPS; l++)
		sum += kb_fit_lineup_winrate(w, level, 0, spsa_lineups[l], games, seed);
	return sum / SPSA_LINEUPS;
}

/* The weights as a flat vector (pointers into w). */
static int flat(kb_weights *w, float **v)
{
	int n = 0;

	for (int t = 0; t < KB_EVAL_TYPES; t++) {
		for (int b = 0; b < KB_EVAL_BUCKETS; b++)
			v[n++] = &w->piece[t][b];
		v[n++] = &w->danger[t];
		v[n++] = &w->dprog[t];
		v[n++] = &w->tempo[t];
	}
	return n;
}

void kb_fit_spsa(kb_weights *w, int iters, long games, double step, uint64_t seed, FILE *log)
{
	float *v[KB_EVAL_TYPES * (KB_EVAL_BUCKETS + 3)];
	int n = flat(w, v);
	kb_rng rng;
	double c = 0.05;

	kb_rng_stream(&rng, seed, KB_TAG_USER, 2);
	for (int it = 0; it < iters; it++) {
		kb_weights plus = *w, minus = *w;
		float *vp[sizeof v / sizeof v[0]], *vm[sizeof v / sizeof v[0]];
		int8_t delta[sizeof v / sizeof v[0]];
		uint64_t games_seed = kb_rng_next(&rng); /* paired: both sides play these */

		flat(&plus, vp);
		flat(&minus, vm);
		for (int i = 0; i < n; i++) {
			delta[i] = kb_rng_below(&rng, 2) ? 1 : -1;
			*vp[i] += (float)(c * delta[i]);
			*vm[i] -= (float)(c * delta[i]);
		}
		double yp = kb_fit_winrate(&plus, 0, games, games_seed);
		double ym = kb_fit_winrate(&minus, 0, games, games_seed);
		double a = step / (1.0 + it / 50.0);
		for (int i = 0; i < n; i++)
			*v[i] += (float)(a * (yp - ym) / (2 * c) * delta[i]);
		if (log)
			fprintf(log, "kimble-tune: spsa %d: %.4f vs %.4f\n", it + 1, yp, ym);
	}
}
