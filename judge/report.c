/* report.c - tables, JSON, Elo and SPRT over results; see report.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "report.h"
#include "standings.h"

void kj_wilson(uint32_t k, uint32_t n, double *lo, double *hi)
{
	const double z = 1.959964;
	double p, den, mid, half;

	if (n == 0) {
		*lo = 0, *hi = 1;
		return;
	}
	p = (double)k / n;
	den = 1 + z * z / n;
	mid = (p + z * z / (2.0 * n)) / den;
	half = z * sqrt(p * (1 - p) / n + z * z / (4.0 * n * n)) / den;
	*lo = mid - half < 0 ? 0 : mid - half;
	*hi = mid + half > 1 ? 1 : mid + half;
}

double kj_elo(double m)
{
	if (m <= 0)
		return -1000;
	if (m >= 1)
		return 1000;
	double e = -400.0 * log10(1.0 / m - 1.0);
	if (e == 0)
		return 0.0; /* an even score: not -0.0 (printed "-0.0") */
	return e < -1000 ? -1000 : e > 1000 ? 1000 : e;
}

int kj_no_interval(uint32_t deals, double se, char *why, size_t size)
{
	if (deals < KJ_MIN_DEALS)
		snprintf(why, size, "%u deal%s", deals, deals == 1 ? "" : "s");
	else if (se == 0)
		snprintf(why, size, "no spread over %u deals", deals);
	else
		return 0;
	return 1;
}

const char *kj_interval_text(char *buf, size_t size, const char *fmt, uint32_t deals, double se,
			     double lo, double hi)
{
	char why[64];

	if (kj_no_interval(deals, se, why, sizeof why))
		snprintf(buf, size, "[n/a: %s]", why);
	else
		snprintf(buf, size, fmt, lo, hi);
	return buf;
}

void kj_interval_json(FILE *f, const char *lo_key, const char *hi_key, uint32_t deals, double se,
		      double lo, double hi)
{
	char why[64];

	if (kj_no_interval(deals, se, why, sizeof why))
		fprintf(f, ", \"%s\": null, \"%s\": null, \"no_interval\": \"%s\"", lo_key, hi_key,
			why);
	else
		fprintf(f, ", \"%s\": %.1f, \"%s\": %.1f", lo_key, lo, hi_key, hi);
}

double kj_pair_se(const kj_pair_elo *p)
{
	return p->deals ? sqrt(p->var / p->deals) : 0;
}

static int bot_index(kj_report *rep, const char *name)
{
	for (int i = 0; i < rep->nbots; i++)
		if (strcmp(rep->bots[i].name, name) == 0)
			return i;
	if (rep->nbots == KJ_MAX_BOTS)
		return -1;
	snprintf(rep->bots[rep->nbots].name, sizeof rep->bots[0].name, "%s", name);
	return rep->nbots++;
}

/* Score of seat x against seat y in one game. */
static double versus(const kj_result *r, int x, int y)
{
	return r->seat[x].place < r->seat[y].place ? 1.0 : r->seat[x].place == r->seat[y].place ? 0.5 : 0.0;
}

void kj_pair_compute(const kj_result *res, size_t n, const char *x, const char *y,
		     kj_pair_elo *out)
{
	double sum = 0, sum2 = 0, deal_sum = 0;
	int deal_games = 0;
	uint32_t deals = 0;

	for (size_t i = 0; i <= n; i++) {
		if (deal_games && (i == n || res[i].deal != res[i - 1].deal)) {
			double m = deal_sum / deal_games;
			sum += m, sum2 += m * m, deals++;
			deal_sum = 0, deal_games = 0;
		}
		if (i == n)
			break;
		int sx = -1, sy = -1;
		for (int s = 0; s < KB_SEATS; s++) {
			if (!res[i].seat[s].present)
				continue;
			if (sx < 0 && strcmp(res[i].seat[s].name, x) == 0)
				sx = s;
			else if (sy < 0 && strcmp(res[i].seat[s].name, y) == 0)
				sy = s;
		}
		if (sx >= 0 && sy >= 0) {
			deal_sum += versus(&res[i], sx, sy);
			deal_games++;
		}
	}
	out->deals = deals;
	out->mean = deals ? sum / deals : 0.5;
	out->var = deals > 1 ? (sum2 - sum * sum / deals) / (deals - 1) : 0;
	double se = deals ? sqrt(out->var / deals) : 0.5;
	out->elo = kj_elo(out->mean);
	out->lo = kj_elo(out->mean - 1.959964 * se);
	out->hi = kj_elo(out->mean + 1.959964 * se);
}

int kj_report_build(kj_report *rep, const kj_result *res, size_t n, int fixed, kb_err *err)
{
	memset(rep, 0, sizeof *rep);
	rep->fixed = fixed;
	for (size_t i = 0; i < n; i++) {
		rep->games++;
		for (int s = 0; s < KB_SEATS; s++) {
			const kj_seat_result *sr = &res[i].seat[s];
			if (!sr->present)
				continue;
			int b = bot_index(rep, sr->name);
			if (b < 0) {
				snprintf(err->msg, sizeof err->msg, "results: more than %d bot names",
					 KJ_MAX_BOTS);
				return -1;
			}
			kj_bot_stats *st = &rep->bots[b];
			st->games++;
			st->wins += res[i].winner == s && !sr->reason; /* a forfeit never wins */
			st->place_sum += (uint32_t)sr->place;
			st->forfeits[sr->reason]++;
			if (sr->reason && !st->forfeited) {
				st->forfeited = 1;
				st->first_forfeit_game = res[i].game;
				kj_forfeit_text(&res[i], s, st->first_forfeit, sizeof st->first_forfeit);
			}
			st->lineup_bad += !sr->lineup_ok;
			st->decisions += sr->decisions;
			st->ms_total += sr->ms_total;
			if (sr->ms_max > st->ms_max)
				st->ms_max = sr->ms_max;
		}
	}
	if (rep->nbots > 1 && rep->nbots <= 12) {
		rep->pairs = calloc((size_t)(rep->nbots * rep->nbots), sizeof *rep->pairs);
		if (!rep->pairs) {
			snprintf(err->msg, sizeof err->msg, "results: out of memory");
			return -1;
		}
		for (int a = 0; a < rep->nbots; a++)
			for (int b = a + 1; b < rep->nbots; b++) {
				kj_pair_elo *p = &rep->pairs[rep->npairs];
				kj_pair_compute(res, n, rep->bots[a].name, rep->bots[b].name, p);
				p->a = a, p->b = b;
				if (p->deals)
					rep->npairs++;
			}
	}
	rep->standings = malloc(sizeof *rep->standings);
	if (!rep->standings || kj_standings_build(rep->standings, rep, res, n, err)) {
		snprintf(err->msg, sizeof err->msg, "results: out of memory");
		return -1;
	}
	return 0;
}

void kj_report_free(kj_report *rep)
{
	free(rep->pairs);
	rep->pairs = NULL;
	if (rep->standings)
		kj_standings_free(rep->standings);
	free(rep->standings);
	rep->standings = NULL;
}

void kj_forfeit_counts(const kj_bot_stats *st, char *out, size_t size)
{
	size_t n = 0;

	out[0] = '\0';
	for (int r = 1; r < KJ_REASONS && n < size; r++)
		if (st->forfeits[r])
			n += (size_t)snprintf(out + n, size - n, "%s%s:%u", n ? "," : "",
					      kj_reason_name(r), st->forfeits[r]);
	if (!out[0])
		snprintf(out, size, "-");
}

void kj_removal_text(const kj_removal *rm, char *out, size_t size)
{
	snprintf(out, size, "%s timed out in %d games in a row (the last, game %u); %u later game%s "
		 "with it not played", rm->name, rm->in_a_row, rm->game, rm->not_played,
		 rm->not_played == 1 ? "" : "s");
}

void kj_report_print(FILE *f, const kj_report *rep, int timing)
{
	fprintf(f, "%-16s %6s %6s %7s %15s %6s  %-20s", "bot", "games", "wins", "win%", "95% interval",
		"place", "forfeits");
	if (timing)
		fprintf(f, " %9s %9s", "mean ms", "max ms");
	fputc('\n', f);
	for (int i = 0; i < rep->nbots; i++) {
		const kj_bot_stats *st = &rep->bots[i];
		double lo, hi;
		char ff[128];
		kj_wilson(st->wins, st->games, &lo, &hi);
		kj_forfeit_counts(st, ff, sizeof ff);
		fprintf(f, "%-16s %6u %6u %6.1f%% [%5.1f%%,%5.1f%%] %6.2f  %-20s", st->name, st->games,
			st->wins, st->games ? 100.0 * st->wins / st->games : 0.0, 100 * lo, 100 * hi,
			st->games ? (double)st->place_sum / st->games : 0.0, ff);
		if (timing)
			fprintf(f, " %9.3f %9.3f", st->decisions ? st->ms_total / st->decisions : 0.0,
				st->ms_max);
		fputc('\n', f);
	}
	for (int i = 0; i < rep->nbots; i++)
		if (rep->bots[i].forfeited)
			fprintf(f, "first forfeit of %s: game %u: %s\n", rep->bots[i].name,
				rep->bots[i].first_forfeit_game, rep->bots[i].first_forfeit);
	for (int i = 0; i < rep->npairs; i++) {
		const kj_pair_elo *p = &rep->pairs[i];
		char iv[80];
		fprintf(f, "elo %s - %s: %+.1f %s from %u deals (score %.3f)\n",
			rep->bots[p->a].name, rep->bots[p->b].name, p->elo,
			kj_interval_text(iv, sizeof iv, "[%+.1f, %+.1f]", p->deals, kj_pair_se(p),
					 p->lo, p->hi),
			p->deals, p->mean);
	}
	if (rep->standings)
		kj_standings_print(f, rep->standings, rep);
	for (int i = 0; i < rep->nremoved; i++) {
		char text[200];
		kj_removal_text(&rep->removed[i], text, sizeof text);
		fprintf(f, "removed: %s\n", text);
	}
}

/* Names are single words, but forfeit texts hold folder names: escape
 * " and \ and control characters. */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if ((unsigned char)*s < 0x20) {
			fprintf(f, "\\u%04x", (unsigned char)*s);
			continue;
		}
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void kj_report_json(FILE *f, const kj_report *rep, const kj_sprt *sprt, uint64_t seed)
{
	fprintf(f, "{\n  \"seed\": %llu,\n  \"games\": %u,\n  \"bots\": [", (unsigned long long)seed,
		rep->games);
	for (int i = 0; i < rep->nbots; i++) {
		const kj_bot_stats *st = &rep->bots[i];
		double lo, hi;
		kj_wilson(st->wins, st->games, &lo, &hi);
		fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
		json_str(f, st->name);
		fprintf(f,
			", \"games\": %u, \"wins\": %u, \"win_rate\": %.4f, \"win_lo\": %.4f, "
			"\"win_hi\": %.4f, \"avg_place\": %.4f, \"lineup_mismatches\": %u, "
			"\"decisions\": %u, \"mean_ms\": %.3f, \"max_ms\": %.3f, \"forfeits\": {",
			st->games, st->wins, st->games ? (double)st->wins / st->games : 0.0, lo, hi,
			st->games ? (double)st->place_sum / st->games : 0.0, st->lineup_bad,
			st->decisions, st->decisions ? st->ms_total / st->decisions : 0.0, st->ms_max);
		for (int r = 1; r < KJ_REASONS; r++)
			fprintf(f, "%s\"%s\": %u", r > 1 ? ", " : "", kj_reason_name(r), st->forfeits[r]);
		fprintf(f, "}, \"first_forfeit\": ");
		if (st->forfeited) {
			fprintf(f, "{\"game\": %u, \"text\": ", st->first_forfeit_game);
			json_str(f, st->first_forfeit);
			fprintf(f, "}}");
		} else
			fprintf(f, "null}");
	}
	fprintf(f, "\n  ],\n  \"elo\": [");
	for (int i = 0; i < rep->npairs; i++) {
		const kj_pair_elo *p = &rep->pairs[i];
		fprintf(f, "%s\n    {\"a\": ", i ? "," : "");
		json_str(f, rep->bots[p->a].name);
		fprintf(f, ", \"b\": ");
		json_str(f, rep->bots[p->b].name);
		fprintf(f, ", \"deals\": %u, \"score\": %.4f, \"elo\": %.1f", p->deals, p->mean,
			p->elo);
		kj_interval_json(f, "lo", "hi", p->deals, kj_pair_se(p), p->lo, p->hi);
		fputc('}', f);
	}
	fprintf(f, "\n  ]");
	if (rep->standings)
		kj_standings_json(f, rep->standings, rep);
	if (rep->nremoved) {
		fprintf(f, ",\n  \"removed\": [");
		for (int i = 0; i < rep->nremoved; i++) {
			fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
			json_str(f, rep->removed[i].name);
			fprintf(f, ", \"in_a_row\": %d, \"game\": %u, \"not_played\": %u}",
				rep->removed[i].in_a_row, rep->removed[i].game, rep->removed[i].not_played);
		}
		fprintf(f, "\n  ]");
	}
	if (sprt)
		fprintf(f,
			",\n  \"sprt\": {\"elo0\": %.1f, \"elo1\": %.1f, \"alpha\": %.3f, \"beta\": %.3f, "
			"\"llr\": %.3f, \"lower\": %.3f, \"upper\": %.3f, \"deals\": %u, \"result\": \"%s\"}",
			sprt->elo0, sprt->elo1, sprt->alpha, sprt->beta, sprt->llr, sprt->lower,
			sprt->upper, sprt->deals,
			sprt->decided > 0 ? "H1" : sprt->decided < 0 ? "H0" : "inconclusive");
	fprintf(f, "\n}\n");
}

static double logistic(double elo)
{
	return 1.0 / (1.0 + pow(10.0, -elo / 400.0));
}

void kj_sprt_init(kj_sprt *s)
{
	s->lower = log(s->beta / (1 - s->alpha));
	s->upper = log((1 - s->beta) / s->alpha);
	s->llr = 0;
	s->decided = 0;
	s->deals = 0;
}

void kj_sprt_update(kj_sprt *s, const kj_pair_elo *p)
{
	double s0 = logistic(s->elo0), s1 = logistic(s->elo1);
	/* Four pseudo-deals of variance 1/8 keep a short run of identical
	 * deals from making the ratio explode; no verdict before 8 deals. */
	double var = ((p->deals - 1) * p->var + 4 * 0.125) / (p->deals - 1 + 4);

	s->deals = p->deals;
	if (p->deals < 8)
		return;
	s->llr = p->deals * (s1 - s0) * (2 * p->mean - s0 - s1) / (2 * var);
	s->decided = s->llr >= s->upper ? 1 : s->llr <= s->lower ? -1 : 0;
}

/* Close a file written to; nonzero when any of its writes failed (a full
 * disk shows only here), so that a report is never silently cut. */
static int close_written(FILE *f)
{
	int failed = ferror(f);

	return fclose(f) || failed;
}

int kj_report_write(const char *out, const kj_result *res, size_t n, const kj_sprt *sprt,
		    uint64_t seed, int timing, int fixed, const kj_removal *removed,
		    int nremoved, kb_err *err)
{
	kj_report rep;
	char path[1024];
	FILE *f;
	int rc;

	if (kj_report_build(&rep, res, n, fixed, err))
		return -1;
	rep.removed = removed;
	rep.nremoved = nremoved;
	kj_report_print(stdout, &rep, timing);
	if (sprt)
		printf("sprt elo0 %.1f elo1 %.1f: LLR %.3f [%.3f, %.3f] after %u deals: %s\n",
		       sprt->elo0, sprt->elo1, sprt->llr, sprt->lower, sprt->upper, sprt->deals,
		       sprt->decided > 0 ? "H1 accepted" : sprt->decided < 0 ? "H0 accepted"
									: "inconclusive");
	fflush(stdout);
	snprintf(path, sizeof path, "%s/results.txt", out);
	if (!(f = fopen(path, "w"))) {
		kj_report_free(&rep);
		return kj_file_error(err, "cannot write", path);
	}
	kj_report_print(f, &rep, timing);
	if (close_written(f)) {
		kj_report_free(&rep);
		return kj_file_error(err, "cannot write", path);
	}
	snprintf(path, sizeof path, "%s/results.json", out);
	if (!(f = fopen(path, "w"))) {
		kj_report_free(&rep);
		return kj_file_error(err, "cannot write", path);
	}
	kj_report_json(f, &rep, sprt, seed);
	if (close_written(f)) {
		kj_report_free(&rep);
		return kj_file_error(err, "cannot write", path);
	}
	rc = kj_report_html(out, &rep, res, n, err);
	kj_report_free(&rep);
	return rc;
}
