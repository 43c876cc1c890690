/* report.h - results of many games: the table per bot, JSON, Elo from
 * duplicate deals and the sequential probability ratio test.
 *
 * Bots are identified by name and listed in order of first appearance in
 * the games (sorted by game number).  Win rate intervals are Wilson score
 * intervals at 95%.  Elo between two bots x and y comes from the deals in
 * which both played: a deal's score for x is the mean over its games of
 * 1 (x placed ahead of y), 1/2 (same place) or 0; Elo = -400 log10(1/m - 1)
 * of the mean deal score m, with m +- 1.96 standard errors of the deal
 * scores mapped the same way for the interval.
 *
 * A forfeit is a loss: the bot is placed last in that game and never
 * counted as its winner (match.h).  The table counts forfeits by reason,
 * and a line per bot that forfeited names its first forfeit (game, roll,
 * reason, detail).
 *
 * SPRT (as fastchess/fishtest, normal approximation on deal scores):
 * H0 elo = elo0 against H1 elo = elo1, LLR = n (s1 - s0)(2m - s0 - s1) /
 * (2 var) with s = 1 / (1 + 10^(-elo/400)); stop with H1 when LLR >=
 * ln((1-beta)/alpha), with H0 when LLR <= ln(beta/(1-alpha)).
 */
#ifndef KJ_REPORT_H
#define KJ_REPORT_H

#include <stdio.h>

#include "match.h"
#include "plan.h"

typedef struct kj_sprt {
	double elo0, elo1, alpha, beta;
	double llr, lower, upper;
	int decided;     /* 0 running, 1 H1 accepted, -1 H0 accepted */
	uint32_t deals;
} kj_sprt;

typedef struct kj_pair_elo {
	int a, b;        /* bot numbers in the report */
	uint32_t deals;
	double mean, var, elo, lo, hi;
} kj_pair_elo;

typedef struct kj_bot_stats {
	char name[64];
	uint32_t games, wins, place_sum, forfeits[KJ_REASONS], lineup_bad, decisions;
	double ms_total, ms_max;
	int forfeited;           /* first_forfeit is set */
	uint32_t first_forfeit_game;
	char first_forfeit[400]; /* kj_forfeit_text of its first forfeit */
} kj_bot_stats;

/* A bot --max-timeouts removed: the game that removed it (after
 * in_a_row games lost on time) and how many of its games were then not
 * played. */
typedef struct kj_removal {
	char name[64];
	uint32_t game, not_played;
	int in_a_row;
} kj_removal;

typedef struct kj_report {
	kj_bot_stats bots[KJ_MAX_BOTS];
	int nbots;
	uint32_t games;
	kj_pair_elo *pairs;
	int npairs;
	struct kj_standings *standings; /* rating list and more (standings.h) */
	int fixed;       /* the games are a fixed lineup (-f fixed): only then
			  * is a learning curve shown */
	const kj_removal *removed; /* set by kj_report_write, or none */
	int nremoved;
} kj_report;

/* Aggregate n results (in game order); fixed: they were played as one
 * fixed lineup (-f fixed, which the results alone cannot tell from a round
 * robin of as many bots as seats).  Returns 0, or -1 with err when more
 * than KJ_MAX_BOTS names appear or memory runs out. */
int kj_report_build(kj_report *rep, const kj_result *res, size_t n, int fixed, kb_err *err);
void kj_report_free(kj_report *rep);

/* The table (timing columns only when timing is set), the Elo lines, the
 * standings (rating list, per opponent, learning curve) and a line per
 * removed bot. */
void kj_report_print(FILE *f, const kj_report *rep, int timing);

/* The same as JSON (sprt may be NULL); "removed" only when a bot was. */

/* "NAME timed out in 3 games in a row (the last, game 2); 9 later games
 * with it not played": a removal as the text and the HTML report say it. */
void kj_removal_text(const kj_removal *rm, char *out, size_t size);
void kj_report_json(FILE *f, const kj_report *rep, const kj_sprt *sprt, uint64_t seed);

/* A bot's forfeits as "reason:count,..." ("-" for none). */
void kj_forfeit_counts(const kj_bot_stats *st, char *out, size_t size);

/* Fewer deals than this give no Elo interval: the normal approximation
 * behind +-1.96 standard errors needs a sample spread to estimate. */
#define KJ_MIN_DEALS 5

/* Whether an Elo estimate from deals deals (clusters) with standard error
 * se has a 95% interval.  Returns 0 when it has; else 1 with why saying
 * what the sample lacks, "2 deals" (fewer than KJ_MIN_DEALS) or "no
 * spread over 7 deals" (se 0: every deal scored the same, which is no
 * certainty).  Tables then print "[n/a: why]", JSON null bounds and
 * "no_interval": why (docs/judge-results.md). */
int kj_no_interval(uint32_t deals, double se, char *why, size_t size);

/* The interval text of a table: lo and hi through fmt (two doubles), or
 * "[n/a: why]" as above.  Returns buf. */
const char *kj_interval_text(char *buf, size_t size, const char *fmt, uint32_t deals, double se,
			     double lo, double hi);

/* JSON members lo_key and hi_key (", \"lo\": -1.0, \"hi\": 2.0"), null
 * with a member "no_interval" when there is no interval (as above). */
void kj_interval_json(FILE *f, const char *lo_key, const char *hi_key, uint32_t deals, double se,
		      double lo, double hi);

/* The standard error of the mean score of pair p (0 without deals). */
double kj_pair_se(const kj_pair_elo *p);

/* Wilson 95% interval of k successes in n trials. */
void kj_wilson(uint32_t k, uint32_t n, double *lo, double *hi);

/* Elo of a mean score m in (0, 1), clamped to +-1000 at the edges. */
double kj_elo(double m);

/* Set the bounds of s from its elo0, elo1, alpha, beta. */
void kj_sprt_init(kj_sprt *s);

/* Update s from the Elo pair data p (mean, var, deals); sets decided. */
void kj_sprt_update(kj_sprt *s, const kj_pair_elo *p);

/* The pair data of bots named x and y from the results, by deal. */
void kj_pair_compute(const kj_result *res, size_t n, const char *x, const char *y,
		     kj_pair_elo *out);

/* Write the report of res[0..n) to stdout, OUT/results.{txt,json} and
 * OUT/report.html; fixed as kj_report_build; removed[0..nremoved) the bots
 * --max-timeouts removed (removed may be NULL when nremoved is 0).
 * Returns 0, or -1 with err. */
int kj_report_write(const char *out, const kj_result *res, size_t n, const kj_sprt *sprt,
		    uint64_t seed, int timing, int fixed, const kj_removal *removed,
		    int nremoved, kb_err *err);

#endif
