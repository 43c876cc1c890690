/* test_rating.c - the rating list: known answers, bad input, and simulated
 * tournaments whose true strengths are known (suite rating). */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "judge/rating.h"

#define ELO (400.0 / 2.302585092994046)

/* Uniform in (0, 1), never 0 or 1. */
static double uniform(kb_rng *rng)
{
	return ((double)(kb_rng_next(rng) >> 11) + 0.5) / 9007199254740992.0;
}

static double gumbel(kb_rng *rng)
{
	return -log(-log(uniform(rng)));
}

/* Places of the seats whose utilities are u (1 = the largest). */
static void places_of(const double *u, int seats, int *place)
{
	for (int x = 0; x < seats; x++) {
		place[x] = 1;
		for (int y = 0; y < seats; y++)
			place[x] += u[y] > u[x];
	}
}

/* A simulated duplicate tournament: each deal draws 4 bots out of nbots
 * and one Gumbel draw per seat, then plays the 4 rotations of the bots
 * over the seats with the same draws.  Sorting theta + Gumbel is a
 * Plackett-Luce draw, so every game is Plackett-Luce with the true
 * strengths while the games of one deal are strongly dependent. */
static size_t simulate(kb_rng *rng, const double *theta, int nbots, int deals,
		       kj_rating_game *games)
{
	size_t n = 0;

	for (int d = 0; d < deals; d++) {
		int bots[4], chosen = 0;
		double noise[4];
		while (chosen < 4) {
			int b = (int)kb_rng_below(rng, (uint32_t)nbots), dup = 0;
			for (int i = 0; i < chosen; i++)
				dup |= bots[i] == b;
			if (!dup)
				bots[chosen++] = b;
		}
		for (int s = 0; s < 4; s++)
			noise[s] = gumbel(rng);
		for (int r = 0; r < 4; r++, n++) {
			double u[4];
			kj_rating_game *g = &games[n];
			g->cluster = (uint32_t)d;
			g->seats = 4;
			for (int s = 0; s < 4; s++) {
				g->bot[s] = bots[(s + r) % 4];
				u[s] = theta[g->bot[s]] + noise[s];
			}
			places_of(u, 4, g->place);
		}
	}
	return n;
}

static void centred_strengths(kb_rng *rng, int nbots, double *theta)
{
	double mean = 0;

	for (int i = 0; i < nbots; i++)
		mean += theta[i] = 2 * uniform(rng) - 1;
	for (int i = 0; i < nbots; i++)
		theta[i] -= mean / nbots;
}

Test(rating, stronger_bot_rates_higher_and_list_sums_to_zero)
{
	/* bot 0 ahead of bot 1 in 3 of 4 two-seat games, 40 deals */
	kj_rating_game g[160];
	for (int i = 0; i < 160; i++) {
		int zero_wins = i % 4 != 3;
		g[i] = (kj_rating_game){(uint32_t)(i / 4), 2, {0, 1}, {zero_wins ? 1 : 2, zero_wins ? 2 : 1}};
	}
	kj_rating r;
	cr_assert_eq(kj_rating_fit(g, 160, 2, &r, NULL), KJ_RATING_OK);
	/* maximum likelihood: elo difference of a 0.75 score, ridge aside */
	double want = ELO * log(3.0);
	cr_assert(fabs((r.elo[0] - r.elo[1]) - want) < 1.0, "difference %f, want %f",
		  r.elo[0] - r.elo[1], want);
	cr_assert(fabs(r.elo[0] + r.elo[1]) < 1e-6);
	cr_assert(r.lo[0] < r.elo[0] && r.elo[0] < r.hi[0]);
	cr_assert_eq(r.clusters, 40);
	int order[2];
	kj_rating_order(&r, order);
	cr_assert_eq(order[0], 0);
	double diff, lo, hi;
	kj_rating_versus(&r, 0, 1, &diff, &lo, &hi);
	cr_assert(lo > 0, "bot 0 separated from bot 1: [%f, %f]", lo, hi);
	kj_rating_free(&r);
}

/* n games of bots 0 and 1 in places p0 and p1, fitted into r. */
static void fit_repeated(int n, int p0, int p1, kj_rating *r)
{
	kj_rating_game g[32];

	cr_assert(n <= 32);
	for (int i = 0; i < n; i++)
		g[i] = (kj_rating_game){(uint32_t)i, 2, {0, 1}, {p0, p1}};
	cr_assert_eq(kj_rating_fit(g, (size_t)n, 2, r, NULL), KJ_RATING_OK);
}

Test(rating, equal_places_score_half)
{
	kj_rating r;
	fit_repeated(8, 1, 1, &r);
	cr_assert(fabs(r.elo[0] - r.elo[1]) < 1e-6);
	kj_rating_free(&r);
}

/* Nothing but ties: the ratings stay at 0, where each pair's score
 * (1/2 observed, 1/2 expected) is 0 in every cluster, so the sandwich's
 * middle term, and with it the covariance and the intervals, are exactly
 * 0 (nothing left over from an earlier fit or from the memory). */
Test(rating, only_ties_leave_no_uncertainty)
{
	kj_rating r;
	fit_repeated(5, 1, 1, &r);
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(r.elo[i], 0.0, "elo %d: %g", i, r.elo[i]);
		cr_assert_eq(r.se[i], 0.0, "se %d: %g", i, r.se[i]);
		cr_assert(r.lo[i] == 0.0 && r.hi[i] == 0.0, "[%g, %g]", r.lo[i], r.hi[i]);
	}
	for (int c = 0; c < 4; c++)
		cr_assert_eq(r.cov[c], 0.0, "cov[%d] %g", c, r.cov[c]);
	kj_rating_free(&r);
}

Test(rating, unbeaten_bot_stays_finite)
{
	kj_rating r;
	fit_repeated(20, 1, 2, &r);
	cr_assert(isfinite(r.elo[0]) && r.elo[0] > 400 && isfinite(r.hi[0]), "elo %f", r.elo[0]);
	kj_rating_free(&r);
}

Test(rating, bot_in_no_game_has_unbounded_interval)
{
	kj_rating_game g[4];
	for (int i = 0; i < 4; i++)
		g[i] = (kj_rating_game){(uint32_t)i, 2, {0, 1}, {1 + i % 2, 2 - i % 2}};
	kj_rating r;
	cr_assert_eq(kj_rating_fit(g, 4, 3, &r, NULL), KJ_RATING_OK);
	cr_assert(isinf(r.se[2]) && isinf(r.hi[2]));
	cr_assert(isfinite(r.se[0]));
	kj_rating_free(&r);
	/* its score is 0 in every cluster: no covariance with anyone (bot 0
	 * winning 3 of 4, so that the others' scores do not cancel out) */
	g[1].place[0] = 1, g[1].place[1] = 2;
	cr_assert_eq(kj_rating_fit(g, 4, 3, &r, NULL), KJ_RATING_OK);
	cr_assert_gt(r.elo[0], 0);
	for (int j = 0; j < 3; j++)
		cr_assert(r.cov[2 * 3 + j] == 0.0 && r.cov[j * 3 + 2] == 0.0, "cov 2,%d: %g, %g", j,
			  r.cov[2 * 3 + j], r.cov[j * 3 + 2]);
	kj_rating_free(&r);
}

/* Newton takes at most 200 steps of at most one unit (400 / ln 10 Elo)
 * for the bot that moves most: a fit whose answer lies farther out fails
 * as not converged, out holding no memory.  64 bots in a chain, each
 * ahead of the next in all of REPS games: at 900 games a pair the fit
 * converges (at step 196), at 925 it needs more than 200 steps (up to 906
 * it converges; one step more, 201, would reach up to 940). */
static int chain_fit(int reps, kj_rating *r, kb_err *err)
{
	static kj_rating_game g[63 * 1000];
	size_t n = 0;

	for (int rep = 0; rep < reps; rep++)
		for (int i = 0; i + 1 < 64; i++, n++)
			g[n] = (kj_rating_game){(uint32_t)n, 2, {i, i + 1}, {1, 2}};
	return kj_rating_fit(g, n, 64, r, err);
}

Test(rating, fit_beyond_newtons_steps_does_not_converge)
{
	kj_rating r;
	kb_err err;

	cr_assert_eq(chain_fit(900, &r, &err), KJ_RATING_OK, "%s", err.msg);
	kj_rating_free(&r);
	cr_assert_eq(chain_fit(925, &r, &err), KJ_RATING_NO_CONVERGENCE);
	cr_assert_str_eq(err.msg, "rating: the fit of 64 bots did not converge");
	cr_assert_null(r.cov);
}

Test(rating, bad_input_is_named)
{
	kj_rating_game g = {0, 2, {0, 5}, {1, 2}};
	kj_rating r;
	kb_err err;
	cr_assert_eq(kj_rating_fit(&g, 1, 3, &r, &err), KJ_RATING_BAD_INPUT);
	cr_assert(strstr(err.msg, "bot 5"), "%s", err.msg);
	g = (kj_rating_game){0, 1, {0}, {1}};
	cr_assert_eq(kj_rating_fit(&g, 1, 3, &r, &err), KJ_RATING_BAD_INPUT);
	cr_assert_eq(kj_rating_fit(&g, 0, 1, &r, &err), KJ_RATING_BAD_INPUT);
}

/* 200 simulated tournaments of 6 bots, 150 deals (600 games) each: the
 * stated 95% intervals must hold the true (centred) strength between 90
 * and 98% of the time, and the fitted order must match the true order of
 * bots whose strengths differ by a lot. */
Test(rating, intervals_cover_the_truth_in_simulated_tournaments)
{
	enum { TOURNAMENTS = 200, BOTS = 6, DEALS = 150 };
	static kj_rating_game games[DEALS * 4];
	kb_rng rng;
	int covered = 0, total = 0, misordered = 0, far_pairs = 0;

	kb_rng_seed(&rng, 20261124);
	for (int t = 0; t < TOURNAMENTS; t++) {
		double theta[BOTS];
		kj_rating r;
		centred_strengths(&rng, BOTS, theta);
		size_t n = simulate(&rng, theta, BOTS, DEALS, games);
		cr_assert_eq(kj_rating_fit(games, n, BOTS, &r, NULL), KJ_RATING_OK);
		for (int i = 0; i < BOTS; i++) {
			covered += r.lo[i] <= theta[i] * ELO && theta[i] * ELO <= r.hi[i];
			total++;
			for (int j = 0; j < BOTS; j++)
				if (theta[i] - theta[j] > 0.5) {
					far_pairs++;
					misordered += r.elo[i] <= r.elo[j];
				}
		}
		kj_rating_free(&r);
	}
	double rate = (double)covered / total;
	cr_log_info("rating coverage %.3f over %d intervals; %d of %d far pairs misordered", rate,
		    total, misordered, far_pairs);
	cr_assert(rate >= 0.90 && rate <= 0.98, "coverage %.3f of stated 0.95", rate);
	cr_assert(misordered * 100 <= far_pairs, "%d of %d far pairs misordered", misordered,
		  far_pairs);
}

/* The naive information-only interval would be too narrow here: the
 * sandwich must be wider than H^-1 alone when the games of a deal are
 * dependent.  Checked through the result: four copies of every game in
 * one cluster must give a wider interval than the same games as
 * independent clusters. */
Test(rating, dependent_games_widen_the_interval)
{
	static kj_rating_game apart[400], together[400];
	kb_rng rng;
	double theta[4] = {0.3, 0.1, -0.1, -0.3};

	kb_rng_seed(&rng, 7);
	for (int i = 0; i < 100; i++) {
		kj_rating_game g = {0, 4, {0, 1, 2, 3}, {0}};
		double u[4];
		for (int s = 0; s < 4; s++)
			u[s] = theta[s] + gumbel(&rng);
		places_of(u, 4, g.place);
		for (int c = 0; c < 4; c++) {
			apart[i * 4 + c] = together[i * 4 + c] = g;
			apart[i * 4 + c].cluster = (uint32_t)(i * 4 + c);
			together[i * 4 + c].cluster = (uint32_t)i;
		}
	}
	kj_rating a, t;
	cr_assert_eq(kj_rating_fit(apart, 400, 4, &a, NULL), KJ_RATING_OK);
	cr_assert_eq(kj_rating_fit(together, 400, 4, &t, NULL), KJ_RATING_OK);
	cr_assert(fabs(a.elo[0] - t.elo[0]) < 1e-9);
	cr_assert(t.se[0] > 1.8 * a.se[0], "together %f, apart %f", t.se[0], a.se[0]);
	kj_rating_free(&a);
	kj_rating_free(&t);
}

/* malloc as the C library's, except that the next call for exactly
 * refused_bytes bytes fails (the test binary is linked with --wrap=malloc,
 * which reaches the project's own calls, not the library's). */
void *__real_malloc(size_t size);
void *__wrap_malloc(size_t size);
static size_t refused_bytes;

void *__wrap_malloc(size_t size)
{
	if (refused_bytes && size == refused_bytes) {
		refused_bytes = 0;
		errno = ENOMEM;
		return NULL;
	}
	return __real_malloc(size);
}

/* No memory for the covariance matrix (3 bots: 9 doubles, the fit's one
 * block of 72 bytes): the fit fails with KJ_RATING_NO_MEMORY and its
 * message, not a success whose matrix is missing. */
Test(rating, fit_without_memory_for_the_covariance_fails)
{
	kj_rating_game g[4];
	kj_rating r;
	kb_err err = {{0}};

	for (int i = 0; i < 4; i++)
		g[i] = (kj_rating_game){(uint32_t)i, 2, {0, 1}, {1 + i % 2, 2 - i % 2}};
	refused_bytes = 9 * sizeof(double);
	cr_assert_eq(kj_rating_fit(g, 4, 3, &r, &err), KJ_RATING_NO_MEMORY);
	cr_assert_eq(refused_bytes, 0u, "the covariance's allocation was the one refused");
	cr_assert_str_eq(err.msg, "rating: out of memory");
	cr_assert_null(r.cov);
	kj_rating_free(&r);
}
