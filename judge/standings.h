/* standings.h - the views of a tournament's results beyond the table: one
 * rating list, a table per opponent and a learning curve.
 *
 * Rating list: every bot's rating from rating.h (Bradley-Terry on the
 * pairs of places, 95% cluster-robust interval, clusters = duplicate
 * deals), anchored at the field's mean, best first.  Games with a single
 * seat say nothing about strength and are left out.
 *
 * Per opponent (a gauntlet, or any results where one bot, the subject,
 * sits in every game and meets at least two others): for each opponent
 * the games together, the subject's and the opponent's wins in them with
 * Wilson intervals, and the pairwise Elo of the subject against it
 * (report.h kj_pair_compute, by deal).
 *
 * Learning curve (only for a fixed lineup, -f fixed, where every game has
 * the same set of bots: in a gauntlet or round robin a bot's win rate
 * moves with its opponents, not with its learning): each bot's win rate
 * over a moving window of the last W deals (W = max(5, deals / 10), at
 * most 500), with its Wilson interval, at up to KJ_CURVE_POINTS deals
 * spread evenly over the run from deal 1 to the last.
 */
#ifndef KJ_STANDINGS_H
#define KJ_STANDINGS_H

#include <stdio.h>

#include "rating.h"
#include "report.h"

#define KJ_CURVE_POINTS 100

typedef struct kj_opponent {
	int bot;                     /* report bot number */
	uint32_t games, wins, opp_wins;
	kj_pair_elo pair;            /* subject against bot */
} kj_opponent;

typedef struct kj_curve_point {
	uint32_t deal;               /* last deal of the window (0-based) */
	uint32_t deals;              /* deals in the window */
	uint32_t games[KJ_MAX_BOTS], wins[KJ_MAX_BOTS];
} kj_curve_point;

typedef struct kj_standings {
	int has_rating;
	kj_rating rating;
	int order[KJ_MAX_BOTS];      /* bots best first */
	int subject;                 /* bot in every game, or -1 */
	kj_opponent opp[KJ_MAX_BOTS];
	int nopp;
	int fixed;                   /* a fixed lineup (-f fixed, kj_report.fixed)
				      * and every game the same set of bots */
	int first_seat[KJ_MAX_BOTS]; /* each bot's seat in the first game, -1 none */
	uint32_t window;             /* deals per curve point */
	kj_curve_point *curve;
	int ncurve;
} kj_standings;

/* Build from the report of res[0..n).  Returns 0, or -1 with err (out of
 * memory; a rating fit that fails leaves has_rating 0 and is no error). */
int kj_standings_build(kj_standings *st, const kj_report *rep, const kj_result *res, size_t n,
		       kb_err *err);
void kj_standings_free(kj_standings *st);

/* The rating list, the per-opponent table and the curve as text. */
void kj_standings_print(FILE *f, const kj_standings *st, const kj_report *rep);

/* The same as JSON members (",\n  \"rating\": [...]" and so on), to be
 * written inside the report's object. */
void kj_standings_json(FILE *f, const kj_standings *st, const kj_report *rep);

/* An opponent row in percent: the subject's and the opponent's win rate
 * (0 without games), each with its Wilson 95% interval. */
typedef struct kj_opponent_pct {
	double win, lo, hi;
	double opp_win, opp_lo, opp_hi;
} kj_opponent_pct;
void kj_opponent_percent(const kj_opponent *o, kj_opponent_pct *p);

/* Win rate of bot b at a curve point, with its Wilson interval. */
double kj_curve_rate(const kj_curve_point *p, int b, double *lo, double *hi);

#endif
