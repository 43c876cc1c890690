/* rating.c - Bradley-Terry ratings with cluster-robust intervals; see rating.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rating.h"

#define ELO_PER_UNIT (400.0 / 2.302585092994046)
#define Z95 1.959964
#define MAX_NEWTON 200

/* Score of the first seat against the second: 1 ahead, 1/2 level, 0 behind. */
static double ahead(int place_i, int place_j)
{
	return place_i < place_j ? 1.0 : place_i == place_j ? 0.5 : 0.0;
}

/* Add game g's pairs to the gradient (may be NULL) and information matrix
 * (k x k, may be NULL) at strengths theta. */
static void add_game(const kj_rating_game *g, const double *theta, int k, double *grad,
		     double *info)
{
	for (int x = 0; x < g->seats; x++)
		for (int y = x + 1; y < g->seats; y++) {
			int i = g->bot[x], j = g->bot[y];
			double p = 1.0 / (1.0 + exp(theta[j] - theta[i]));
			double resid = ahead(g->place[x], g->place[y]) - p, w = p * (1 - p);
			if (grad)
				grad[i] += resid, grad[j] -= resid;
			if (info) {
				info[i * k + i] += w, info[j * k + j] += w;
				info[i * k + j] -= w, info[j * k + i] -= w;
			}
		}
}

/* Invert the symmetric positive definite k x k matrix a into inv through
 * its Cholesky factor (a is overwritten).  Returns 0, or -1 when a is not
 * positive definite. */
static int spd_inverse(double *a, double *inv, int k)
{
	for (int j = 0; j < k; j++) {
		for (int i = j; i < k; i++) {
			double s = a[i * k + j];
			for (int m = 0; m < j; m++)
				s -= a[i * k + m] * a[j * k + m];
			if (i == j) {
				if (!(s > 0))
					return -1;
				a[j * k + j] = sqrt(s);
			} else {
				a[i * k + j] = s / a[j * k + j];
			}
		}
	}
	/* Solve L L^T x = e_c for every column c. */
	for (int c = 0; c < k; c++) {
		double *x = inv + (size_t)c * k;
		for (int i = 0; i < k; i++) {
			double s = i == c;
			for (int m = 0; m < i; m++)
				s -= a[i * k + m] * x[m];
			x[i] = s / a[i * k + i];
		}
		for (int i = k - 1; i >= 0; i--) {
			double s = x[i];
			for (int m = i + 1; m < k; m++)
				s -= a[m * k + i] * x[m];
			x[i] = s / a[i * k + i];
		}
	}
	return 0;
}

/* The information matrix with the ridge, and its inverse, at theta. */
static int inverse_information(const kj_rating_game *games, size_t n, const double *theta,
			       int k, double *work, double *inv)
{
	memset(work, 0, sizeof *work * (size_t)k * k);
	for (size_t g = 0; g < n; g++)
		add_game(&games[g], theta, k, NULL, work);
	for (int i = 0; i < k; i++)
		work[i * k + i] += KJ_RATING_RIDGE;
	return spd_inverse(work, inv, k);
}

/* Newton's method from theta = 0.  Steps are capped at 1 unit per bot
 * so that a bot with only wins walks out to where the ridge holds it. */
static int newton(const kj_rating_game *games, size_t n, int k, double *theta, double *work,
		  double *inv)
{
	double grad[KJ_RATING_MAX_BOTS];

	for (int it = 0; it < MAX_NEWTON; it++) {
		if (inverse_information(games, n, theta, k, work, inv))
			return KJ_RATING_NO_CONVERGENCE;
		for (int i = 0; i < k; i++)
			grad[i] = -KJ_RATING_RIDGE * theta[i];
		for (size_t g = 0; g < n; g++)
			add_game(&games[g], theta, k, grad, NULL);
		double biggest = 0, step[KJ_RATING_MAX_BOTS];
		for (int i = 0; i < k; i++) {
			step[i] = 0;
			for (int j = 0; j < k; j++)
				step[i] += inv[i * k + j] * grad[j];
			biggest = fmax(biggest, fabs(step[i]));
		}
		double scale = biggest > 1 ? 1 / biggest : 1;
		for (int i = 0; i < k; i++)
			theta[i] += scale * step[i];
		if (biggest < 1e-10)
			return KJ_RATING_OK;
	}
	return KJ_RATING_NO_CONVERGENCE;
}

typedef struct game_ref {
	uint32_t cluster;
	size_t index;
} game_ref;

static int by_cluster(const void *a, const void *b)
{
	const game_ref *x = a, *y = b;
	if (x->cluster != y->cluster)
		return x->cluster < y->cluster ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* meat = G/(G-1) sum over the G clusters of s_c s_c^T, s_c the sum of the
 * cluster's pair scores at theta.  Returns G, or 0 when memory ran out. */
static uint32_t cluster_scores(const kj_rating_game *games, size_t n, const double *theta, int k,
			       double *meat)
{
	double s[KJ_RATING_MAX_BOTS];
	uint32_t clusters = 0;
	game_ref *refs = malloc(sizeof *refs * (n ? n : 1));

	if (!refs)
		return 0;
	for (size_t i = 0; i < n; i++)
		refs[i] = (game_ref){games[i].cluster, i};
	qsort(refs, n, sizeof *refs, by_cluster);
	memset(meat, 0, sizeof *meat * (size_t)k * k);
	for (size_t i = 0; i < n;) {
		size_t end = i;
		memset(s, 0, sizeof s);
		for (; end < n && refs[end].cluster == refs[i].cluster; end++)
			add_game(&games[refs[end].index], theta, k, s, NULL);
		for (int a = 0; a < k; a++)
			for (int b = 0; b < k; b++)
				meat[a * k + b] += s[a] * s[b];
		clusters++;
		i = end;
	}
	free(refs);
	double adjust = clusters > 1 ? (double)clusters / (clusters - 1) : 1;
	for (int i = 0; i < k * k; i++)
		meat[i] *= adjust;
	return clusters;
}

/* cov = inv * meat * inv, in Elo^2. */
static void sandwich(const double *inv, const double *meat, int k, double *tmp, double *cov)
{
	for (int i = 0; i < k; i++)
		for (int j = 0; j < k; j++) {
			double s = 0;
			for (int m = 0; m < k; m++)
				s += inv[i * k + m] * meat[m * k + j];
			tmp[i * k + j] = s;
		}
	for (int i = 0; i < k; i++)
		for (int j = 0; j < k; j++) {
			double s = 0;
			for (int m = 0; m < k; m++)
				s += tmp[i * k + m] * inv[m * k + j];
			cov[i * k + j] = s * ELO_PER_UNIT * ELO_PER_UNIT;
		}
}

static int check_games(const kj_rating_game *games, size_t n, int nbots, kj_rating *out,
		       kb_err *err)
{
	if (nbots < 2 || nbots > KJ_RATING_MAX_BOTS)
		return kb_err_set(err, KJ_RATING_BAD_INPUT, "rating: %d bots: expected 2 to %d",
				  nbots, KJ_RATING_MAX_BOTS);
	int played[KJ_RATING_MAX_BOTS] = {0};
	for (size_t g = 0; g < n; g++) {
		if (games[g].seats < 2 || games[g].seats > 4)
			return kb_err_set(err, KJ_RATING_BAD_INPUT,
					  "rating: game %zu has %d seats: expected 2 to 4", g,
					  games[g].seats);
		for (int x = 0; x < games[g].seats; x++) {
			if (games[g].bot[x] < 0 || games[g].bot[x] >= nbots)
				return kb_err_set(err, KJ_RATING_BAD_INPUT,
						  "rating: game %zu names bot %d: expected 0 to %d", g,
						  games[g].bot[x], nbots - 1);
			played[games[g].bot[x]] = 1;
		}
	}
	for (int i = 0; i < nbots; i++)
		out->se[i] = played[i] ? 0 : INFINITY;
	return KJ_RATING_OK;
}

static void fill_intervals(kj_rating *r, const double *theta)
{
	int k = r->nbots;

	for (int i = 0; i < k; i++) {
		r->elo[i] = theta[i] * ELO_PER_UNIT;
		if (!isinf(r->se[i]))
			r->se[i] = sqrt(fmax(r->cov[i * k + i], 0));
		r->lo[i] = r->elo[i] - Z95 * r->se[i];
		r->hi[i] = r->elo[i] + Z95 * r->se[i];
	}
}

int kj_rating_fit(const kj_rating_game *games, size_t n, int nbots, kj_rating *out, kb_err *err)
{
	double theta[KJ_RATING_MAX_BOTS] = {0};
	int k = nbots, status;

	memset(out, 0, sizeof *out);
	if ((status = check_games(games, n, nbots, out, err)))
		return status;
	size_t cells = (size_t)k * k;
	double *work = malloc(sizeof *work * cells * 4);
	if (!work)
		return kb_err_set(err, KJ_RATING_NO_MEMORY, "rating: out of memory");
	double *inv = work + cells, *meat = inv + cells, *tmp = meat + cells;
	out->nbots = k;
	out->games = (uint32_t)n;
	status = newton(games, n, k, theta, work, inv);
	if (status) {
		free(work);
		return kb_err_set(err, status, "rating: the fit of %d bots did not converge", k);
	}
	out->cov = malloc(sizeof *out->cov * cells);
	if (!out->cov) {
		free(work);
		return kb_err_set(err, KJ_RATING_NO_MEMORY, "rating: out of memory");
	}
	out->clusters = cluster_scores(games, n, theta, k, meat);
	if (n && !out->clusters) {
		free(work);
		kj_rating_free(out);
		return kb_err_set(err, KJ_RATING_NO_MEMORY, "rating: out of memory");
	}
	sandwich(inv, meat, k, tmp, out->cov);
	fill_intervals(out, theta);
	free(work);
	return KJ_RATING_OK;
}

void kj_rating_versus(const kj_rating *r, int b, int a, double *diff, double *lo, double *hi)
{
	int k = r->nbots;
	double var = r->cov[b * k + b] + r->cov[a * k + a] - 2 * r->cov[a * k + b];
	double se = isinf(r->se[a]) || isinf(r->se[b]) ? INFINITY : sqrt(fmax(var, 0));

	*diff = r->elo[b] - r->elo[a];
	*lo = *diff - Z95 * se;
	*hi = *diff + Z95 * se;
}

void kj_rating_order(const kj_rating *r, int *order)
{
	for (int i = 0; i < r->nbots; i++) {
		int j = i;
		for (; j > 0 && r->elo[order[j - 1]] < r->elo[i]; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
}

void kj_rating_free(kj_rating *r)
{
	free(r->cov);
	r->cov = NULL;
}
