/* standings.c - rating list, per-opponent table, learning curve; see
 * standings.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "standings.h"

static int bot_number(const kj_report *rep, const char *name)
{
	for (int i = 0; i < rep->nbots; i++)
		if (strcmp(rep->bots[i].name, name) == 0)
			return i;
	return -1;
}

/* Every game of two or more seats as places of report bot numbers. */
static void fit_rating(kj_standings *st, const kj_report *rep, const kj_result *res, size_t n)
{
	kj_rating_game *games = calloc(n ? n : 1, sizeof *games);
	size_t m = 0;
	kb_err err;

	if (!games || rep->nbots < 2) {
		free(games);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		kj_rating_game *g = &games[m];
		g->cluster = res[i].deal;
		for (int s = 0; s < KB_SEATS; s++)
			if (res[i].seat[s].present) {
				g->bot[g->seats] = bot_number(rep, res[i].seat[s].name);
				g->place[g->seats++] = res[i].seat[s].place;
			}
		m += g->seats >= 2;
	}
	if (m && kj_rating_fit(games, m, rep->nbots, &st->rating, &err) == KJ_RATING_OK) {
		st->has_rating = 1;
		kj_rating_order(&st->rating, st->order);
	}
	free(games);
}

/* The bot that sits in every game, when there is exactly one. */
static int find_subject(const kj_report *rep)
{
	int subject = -1;

	for (int b = 0; b < rep->nbots; b++)
		if (rep->bots[b].games == rep->games) {
			if (subject >= 0)
				return -1;
			subject = b;
		}
	return subject;
}

static void per_opponent(kj_standings *st, const kj_report *rep, const kj_result *res, size_t n)
{
	const char *me = rep->bots[st->subject].name;

	for (int b = 0; b < rep->nbots; b++) {
		kj_opponent *o = &st->opp[st->nopp];
		if (b == st->subject)
			continue;
		memset(o, 0, sizeof *o);
		o->bot = b;
		for (size_t i = 0; i < n; i++) {
			int sm = -1, so = -1;
			for (int s = 0; s < KB_SEATS; s++) {
				if (!res[i].seat[s].present)
					continue;
				if (!strcmp(res[i].seat[s].name, me))
					sm = s;
				else if (!strcmp(res[i].seat[s].name, rep->bots[b].name))
					so = s;
			}
			if (sm < 0 || so < 0)
				continue;
			o->games++;
			o->wins += res[i].winner == sm && !res[i].seat[sm].reason;
			o->opp_wins += res[i].winner == so && !res[i].seat[so].reason;
		}
		kj_pair_compute(res, n, me, rep->bots[b].name, &o->pair);
		st->nopp++;
	}
}

/* 1 when every game has the same set of bot names. */
static int same_lineup(const kj_report *rep)
{
	for (int b = 0; b < rep->nbots; b++)
		if (rep->bots[b].games != rep->games)
			return 0;
	return rep->games > 0;
}

/* Per deal (in order of appearance) the games and wins of each bot, as
 * running totals: tot[(k + 1) * nb + b] counts deals 0..k. */
static uint32_t deal_totals(const kj_report *rep, const kj_result *res, size_t n,
			    uint32_t **games, uint32_t **wins, uint32_t **deal_of)
{
	int nb = rep->nbots;
	uint32_t nd = 0;

	*games = calloc((n + 1) * (size_t)nb, sizeof **games);
	*wins = calloc((n + 1) * (size_t)nb, sizeof **wins);
	*deal_of = calloc(n + 1, sizeof **deal_of);
	if (!*games || !*wins || !*deal_of)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || res[i].deal != res[i - 1].deal) {
			memcpy(*games + (nd + 1) * nb, *games + nd * nb, (size_t)nb * sizeof **games);
			memcpy(*wins + (nd + 1) * nb, *wins + nd * nb, (size_t)nb * sizeof **wins);
			(*deal_of)[nd++] = res[i].deal;
		}
		for (int s = 0; s < KB_SEATS; s++) {
			int b = res[i].seat[s].present ? bot_number(rep, res[i].seat[s].name) : -1;
			if (b < 0)
				continue;
			(*games)[nd * nb + b]++;
			(*wins)[nd * nb + b] += res[i].winner == s && !res[i].seat[s].reason;
		}
	}
	return nd;
}

static int learning_curve(kj_standings *st, const kj_report *rep, const kj_result *res,
			  size_t n)
{
	uint32_t *games, *wins, *deal_of, nd = deal_totals(rep, res, n, &games, &wins, &deal_of);
	int nb = rep->nbots, rc;

	if (nd) {
		uint32_t points = nd < KJ_CURVE_POINTS ? nd : KJ_CURVE_POINTS;
		st->window = nd / 10 > 5 ? (nd / 10 < 500 ? nd / 10 : 500) : 5;
		st->curve = calloc(points, sizeof *st->curve);
		for (uint32_t p = 0; st->curve && p < points; p++) {
			kj_curve_point *c = &st->curve[st->ncurve++];
			/* from the first deal to the last, evenly: every report's
			 * curve starts at deal 1 */
			uint32_t end = points > 1 ? 1 + (uint32_t)((uint64_t)p * (nd - 1) / (points - 1)) : nd;
			uint32_t start = end > st->window ? end - st->window : 0;
			c->deal = deal_of[end - 1];
			c->deals = end - start;
			for (int b = 0; b < nb; b++) {
				c->games[b] = games[end * nb + b] - games[start * nb + b];
				c->wins[b] = wins[end * nb + b] - wins[start * nb + b];
			}
		}
		rc = st->curve ? 0 : -1;
	} else {
		rc = n ? -1 : 0;
	}
	free(games), free(wins), free(deal_of);
	return rc;
}

double kj_curve_rate(const kj_curve_point *p, int b, double *lo, double *hi)
{
	kj_wilson(p->wins[b], p->games[b], lo, hi);
	return p->games[b] ? (double)p->wins[b] / p->games[b] : 0;
}

int kj_standings_build(kj_standings *st, const kj_report *rep, const kj_result *res, size_t n,
		       kb_err *err)
{
	memset(st, 0, sizeof *st);
	fit_rating(st, rep, res, n);
	st->subject = rep->nbots >= 3 ? find_subject(rep) : -1;
	if (st->subject >= 0)
		per_opponent(st, rep, res, n);
	st->fixed = rep->fixed && same_lineup(rep);
	for (int b = 0; b < KJ_MAX_BOTS; b++)
		st->first_seat[b] = -1;
	for (int s = 0; n && s < KB_SEATS; s++)
		if (res[0].seat[s].present && bot_number(rep, res[0].seat[s].name) >= 0)
			st->first_seat[bot_number(rep, res[0].seat[s].name)] = s;
	if (st->fixed && learning_curve(st, rep, res, n)) {
		snprintf(err->msg, sizeof err->msg, "results: out of memory");
		return -1;
	}
	return 0;
}

void kj_standings_free(kj_standings *st)
{
	if (st->has_rating)
		kj_rating_free(&st->rating);
	st->has_rating = 0;
	free(st->curve);
	st->curve = NULL;
}

static void curve_row(FILE *f, const kj_curve_point *c, int nbots)
{
	fprintf(f, "%-8u", c->deal + 1);
	for (int b = 0; b < nbots; b++) {
		double lo, hi, r = kj_curve_rate(c, b, &lo, &hi);
		fprintf(f, "  %5.1f%% [%5.1f,%5.1f]", 100 * r, 100 * lo, 100 * hi);
	}
	fputc('\n', f);
}

void kj_opponent_percent(const kj_opponent *o, kj_opponent_pct *p)
{
	kj_wilson(o->wins, o->games, &p->lo, &p->hi);
	kj_wilson(o->opp_wins, o->games, &p->opp_lo, &p->opp_hi);
	p->lo *= 100, p->hi *= 100, p->opp_lo *= 100, p->opp_hi *= 100;
	p->win = o->games ? 100.0 * o->wins / o->games : 0.0;
	p->opp_win = o->games ? 100.0 * o->opp_wins / o->games : 0.0;
}

void kj_standings_print(FILE *f, const kj_standings *st, const kj_report *rep)
{
	if (st->has_rating) {
		fprintf(f, "rating (Elo scale, field mean 0, 95%% interval; %u games, %u deals):\n",
			st->rating.games, st->rating.clusters);
		for (int k = 0; k < rep->nbots; k++) {
			int b = st->order[k];
			char iv[80];
			fprintf(f, "%3d %-16s %+7.1f %s\n", k + 1, rep->bots[b].name,
				st->rating.elo[b],
				kj_interval_text(iv, sizeof iv, "[%+7.1f, %+7.1f]", st->rating.clusters,
						 st->rating.se[b], st->rating.lo[b], st->rating.hi[b]));
		}
	}
	if (st->subject >= 0) {
		fprintf(f, "%s per opponent:\n%-16s %6s %15s %15s %22s\n", rep->bots[st->subject].name,
			"opponent", "games", "its win%", "opponent win%", "elo (deals)");
		for (int i = 0; i < st->nopp; i++) {
			const kj_opponent *o = &st->opp[i];
			kj_opponent_pct p;
			char iv[80];
			kj_opponent_percent(o, &p);
			fprintf(f, "%-16s %6u %5.1f%% [%2.0f-%2.0f] %5.1f%% [%2.0f-%2.0f] %+7.1f %s (%u)\n",
				rep->bots[o->bot].name, o->games, p.win, p.lo, p.hi, p.opp_win, p.opp_lo,
				p.opp_hi, o->pair.elo,
				kj_interval_text(iv, sizeof iv, "[%+.0f,%+.0f]", o->pair.deals,
						 kj_pair_se(&o->pair), o->pair.lo, o->pair.hi),
				o->pair.deals);
		}
	}
	if (st->fixed && st->ncurve > 1) {
		int step = st->ncurve > 10 ? st->ncurve / 10 : 1;
		fprintf(f, "learning curve (win%% over the last %u deals):\n%-8s", st->window, "deal");
		for (int b = 0; b < rep->nbots; b++)
			fprintf(f, " %22.22s", rep->bots[b].name);
		fputc('\n', f);
		for (int p = 0; p < st->ncurve; p += step) /* from deal 1, as the HTML plot */
			curve_row(f, &st->curve[p], rep->nbots);
		if ((st->ncurve - 1) % step)
			curve_row(f, &st->curve[st->ncurve - 1], rep->nbots);
	}
}

static void rating_json(FILE *f, const kj_standings *st, const kj_report *rep)
{
	fprintf(f, ",\n  \"rating\": [");
	for (int k = 0; st->has_rating && k < rep->nbots; k++) {
		int b = st->order[k];
		fprintf(f, "%s\n    {\"rank\": %d, \"name\": ", k ? "," : "", k + 1);
		kj_json_str(f, rep->bots[b].name);
		fprintf(f, ", \"elo\": %.1f, \"se\": %.1f", st->rating.elo[b], st->rating.se[b]);
		kj_interval_json(f, "lo", "hi", st->rating.clusters, st->rating.se[b],
				 st->rating.lo[b], st->rating.hi[b]);
		fputc('}', f);
	}
	fprintf(f, "\n  ]");
}

static void opponents_json(FILE *f, const kj_standings *st, const kj_report *rep)
{
	fprintf(f, ",\n  \"per_opponent\": {\"bot\": ");
	kj_json_str(f, rep->bots[st->subject].name);
	fprintf(f, ", \"opponents\": [");
	for (int i = 0; i < st->nopp; i++) {
		const kj_opponent *o = &st->opp[i];
		double lo, hi;
		kj_wilson(o->wins, o->games, &lo, &hi);
		fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
		kj_json_str(f, rep->bots[o->bot].name);
		fprintf(f, ", \"games\": %u, \"wins\": %u, \"win_lo\": %.4f, \"win_hi\": %.4f, "
			   "\"opponent_wins\": %u, \"deals\": %u, \"elo\": %.1f",
			o->games, o->wins, lo, hi, o->opp_wins, o->pair.deals, o->pair.elo);
		kj_interval_json(f, "elo_lo", "elo_hi", o->pair.deals, kj_pair_se(&o->pair),
				 o->pair.lo, o->pair.hi);
		fputc('}', f);
	}
	fprintf(f, "\n  ]}");
}

static void curve_json(FILE *f, const kj_standings *st, const kj_report *rep)
{
	fprintf(f, ",\n  \"learning_curve\": {\"window_deals\": %u, \"points\": [", st->window);
	for (int p = 0; p < st->ncurve; p++) {
		const kj_curve_point *c = &st->curve[p];
		fprintf(f, "%s\n    {\"deal\": %u, \"deals\": %u, \"bots\": [", p ? "," : "",
			c->deal + 1, c->deals);
		for (int b = 0; b < rep->nbots; b++) {
			double lo, hi, r = kj_curve_rate(c, b, &lo, &hi);
			fprintf(f, "%s{\"games\": %u, \"wins\": %u, \"win_rate\": %.4f, \"lo\": %.4f, "
				   "\"hi\": %.4f}", b ? ", " : "", c->games[b], c->wins[b], r, lo, hi);
		}
		fprintf(f, "]}");
	}
	fprintf(f, "\n  ]}");
}

void kj_standings_json(FILE *f, const kj_standings *st, const kj_report *rep)
{
	rating_json(f, st, rep);
	if (st->subject >= 0)
		opponents_json(f, st, rep);
	if (st->fixed && st->ncurve > 0)
		curve_json(f, st, rep);
}
