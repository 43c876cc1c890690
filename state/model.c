/* model.c - candidate features, statistics and the fitted mixture; see
 * model.h. */
#include <math.h>
#include <string.h>

#include "core/policy.h"
#include "model.h"

/* Ridge of the logit fit: a N(0, 1/LAMBDA) prior on each weight. */
#define LAMBDA 0.3
/* Newton iterations of the logit fit (it converges in a few). */
#define NEWTON_ITERATIONS 12
/* How often a pure easy/hard player is allowed to deviate. */
#define PURE_ERROR 0.03

/* Log-likelihood charged to the logit for its KB_FEATURES weights. */
#define LOGIT_PENALTY 6.0

static const double prior_weight[KB_COMPONENTS] = {0.2, 0.2, 0.2, 0.4};

static const char *const feature_names[KB_FEATURES] = {
	"foremost", "rearmost", "capture", "leave", "enter-goal",
	"in-goal", "land-threat", "escape", "advance"};

static const char *const component_names[KB_COMPONENTS] = {
	"easy", "hard", "random", "heuristic"};

const char *kb_feature_name(int k)
{
	return k >= 0 && k < KB_FEATURES ? feature_names[k] : "?";
}

const char *kb_component_name(enum kb_component c)
{
	return (unsigned)c < KB_COMPONENTS ? component_names[c] : "?";
}

/* Ring squares (bits 0..27) an opponent of seat s can reach with its next
 * roll: forward moves that stay on the ring, and start squares of seats
 * that still have a piece at home (a 6 brings it out). */
static uint32_t threat_squares(const kb_pos *pos, int s)
{
	uint32_t m = 0;

	for (int o = 0; o < KB_SEATS; o++) {
		if (o == s || !kb_present(pos, o))
			continue;
		for (int j = 0; j < KB_PIECES; j++) {
			int r = pos->prog[o][j];

			if (r == KB_HOME) {
				m |= 1u << kb_ring_square(o, 0);
				break;
			}
			for (int t = r + 1; t <= r + 6 && t <= KB_LAST_TRACK; t++)
				m |= 1u << kb_ring_square(o, t);
		}
	}
	return m;
}

/* Ring squares holding an opponent's piece. */
static uint32_t opponent_squares(const kb_pos *pos, int s)
{
	uint32_t m = 0;

	for (int o = 0; o < KB_SEATS; o++) {
		if (o == s || !kb_present(pos, o))
			continue;
		for (int j = 0; j < KB_PIECES; j++) {
			int r = pos->prog[o][j];
			if (r >= 0 && r <= KB_LAST_TRACK)
				m |= 1u << kb_ring_square(o, r);
		}
	}
	return m;
}

void kb_features(const kb_pos *pos, int s, int d, unsigned mask,
		 double f[KB_PIECES][KB_FEATURES])
{
	uint32_t threat = threat_squares(pos, s), occupied = opponent_squares(pos, s);
	int first = kb_pick_hard(mask), last = kb_pick_easy(mask);

	for (int i = 0; i < KB_PIECES; i++) {
		if (!(mask >> i & 1))
			continue;
		int r = pos->prog[s][i];
		int target = r == KB_HOME ? 0 : r + d;
		int on_ring = target <= KB_LAST_TRACK;
		uint32_t tbit = on_ring ? 1u << kb_ring_square(s, target) : 0;
		int was_threatened = r >= 0 && r <= KB_LAST_TRACK &&
				     (threat >> kb_ring_square(s, r) & 1);
		int lands_threatened = (threat & tbit) != 0;

		f[i][KB_F_FOREMOST] = i == first;
		f[i][KB_F_REARMOST] = i == last;
		f[i][KB_F_CAPTURE] = (occupied & tbit) != 0;
		f[i][KB_F_LEAVE] = r == KB_HOME;
		f[i][KB_F_ENTER_GOAL] = r >= 0 && r <= KB_LAST_TRACK && !on_ring;
		f[i][KB_F_IN_GOAL] = r >= KB_GOAL_FIRST;
		f[i][KB_F_LAND_THREAT] = lands_threatened;
		f[i][KB_F_ESCAPE] = was_threatened && !lands_threatened;
		f[i][KB_F_ADVANCE] = r == KB_HOME ? 0.0 : (r + 1) / 32.0;
	}
}

/* Encode one decision; the features are those kb_features() computes. */
static void sample_encode(kb_sample *smp, const kb_pos *pos, int s, int d,
			  unsigned mask, int chosen)
{
	double f[KB_PIECES][KB_FEATURES];

	memset(smp, 0, sizeof *smp);
	kb_features(pos, s, d, mask, f);
	smp->b[0] = (uint8_t)(mask | (unsigned)chosen << 4);
	for (int i = 0; i < KB_PIECES; i++) {
		if (!(mask >> i & 1))
			continue;
		for (int k = 0; k < KB_F_ADVANCE; k++)
			smp->b[1 + 2 * i] |= (uint8_t)((f[i][k] != 0) << k);
		smp->b[2 + 2 * i] = (uint8_t)(pos->prog[s][i] + 1);
	}
}

/* Decode a sample: returns the legal mask, sets *chosen and f.  A sample
 * from a damaged record may name a chosen index outside its mask; the
 * caller skips those (mask 0 is returned). */
static unsigned sample_decode(const kb_sample *smp, int *chosen,
			      double f[KB_PIECES][KB_FEATURES])
{
	unsigned mask = smp->b[0] & 0xfu;

	*chosen = smp->b[0] >> 4 & 3;
	for (int i = 0; i < KB_PIECES; i++) {
		for (int k = 0; k < KB_F_ADVANCE; k++)
			f[i][k] = smp->b[1 + 2 * i] >> k & 1;
		f[i][KB_F_ADVANCE] = smp->b[2 + 2 * i] / 32.0;
	}
	if (kb_count(mask) < 2 || !(mask >> *chosen & 1))
		return 0;
	return mask;
}

int kb_model_observe(kb_model_stats *st, const kb_pos *pos, int s, int d,
		     unsigned mask, int chosen)
{
	if (kb_count(mask) < 2 || chosen < 0 || chosen >= KB_PIECES ||
	    !(mask >> chosen & 1))
		return -1;
	sample_encode(&st->sample[st->decisions % KB_SAMPLES], pos, s, d, mask, chosen);
	st->decisions++;
	st->easy_hits += chosen == kb_pick_easy(mask);
	st->hard_hits += chosen == kb_pick_hard(mask);
	return 0;
}

int kb_model_samples(const kb_model_stats *st)
{
	return st->decisions < KB_SAMPLES ? (int)st->decisions : KB_SAMPLES;
}

void kb_model_stats_add(kb_model_stats *a, const kb_model_stats *b)
{
	int n = kb_model_samples(b);
	uint64_t first = b->decisions - (uint64_t)n;

	/* b's samples are its last n decisions: they take the places of the
	 * last n of the merged count, so the ring stays aligned */
	for (int j = 0; j < n; j++)
		a->sample[(a->decisions + first + (uint64_t)j) % KB_SAMPLES] =
			b->sample[(first + (uint64_t)j) % KB_SAMPLES];
	a->decisions += b->decisions;
	a->easy_hits += b->easy_hits;
	a->hard_hits += b->hard_hits;
}

/* Solve a x = g for a symmetric positive definite a by Cholesky. */
static void solve_spd(double a[KB_FEATURES][KB_FEATURES], const double *g, double *x)
{
	double l[KB_FEATURES][KB_FEATURES] = {{0}}, y[KB_FEATURES];
	int n = KB_FEATURES;

	for (int j = 0; j < n; j++) {
		double sum = a[j][j];
		for (int k = 0; k < j; k++)
			sum -= l[j][k] * l[j][k];
		l[j][j] = sqrt(sum > 1e-12 ? sum : 1e-12);
		for (int i = j + 1; i < n; i++) {
			double v = a[j][i];
			for (int k = 0; k < j; k++)
				v -= l[i][k] * l[j][k];
			l[i][j] = v / l[j][j];
		}
	}
	for (int i = 0; i < n; i++) {
		double v = g[i];
		for (int k = 0; k < i; k++)
			v -= l[i][k] * y[k];
		y[i] = v / l[i][i];
	}
	for (int i = n - 1; i >= 0; i--) {
		double v = y[i];
		for (int k = i + 1; k < n; k++)
			v -= l[k][i] * x[k];
		x[i] = v / l[i][i];
	}
}

/* Softmax of w . f over mask into p; returns log p[chosen]. */
static double logit_probs(const double *w, double f[KB_PIECES][KB_FEATURES],
			  unsigned mask, int chosen, double p[KB_PIECES])
{
	double z[KB_PIECES] = {0}, top = -INFINITY, sum = 0;

	for (int i = 0; i < KB_PIECES; i++) {
		if (!(mask >> i & 1))
			continue;
		for (int a = 0; a < KB_FEATURES; a++)
			z[i] += w[a] * f[i][a];
		top = fmax(top, z[i]);
	}
	for (int i = 0; i < KB_PIECES; i++)
		sum += p[i] = mask >> i & 1 ? exp(z[i] - top) : 0.0;
	for (int i = 0; i < KB_PIECES; i++)
		p[i] /= sum;
	return z[chosen] - top - log(sum);
}

/* Log-likelihood of w on the samples; with grad non-NULL also the gradient
 * and the negated Hessian of the log-posterior (the N(0, 1/LAMBDA) prior
 * included). */
static double logit_terms(const kb_model_stats *st, const double *w, double *grad,
			  double hess[KB_FEATURES][KB_FEATURES])
{
	double ll = 0, f[KB_PIECES][KB_FEATURES], p[KB_PIECES];
	int n = kb_model_samples(st), chosen;

	if (grad) {
		memset(hess, 0, sizeof(double) * KB_FEATURES * KB_FEATURES);
		for (int a = 0; a < KB_FEATURES; a++) {
			grad[a] = -LAMBDA * w[a];
			hess[a][a] = LAMBDA;
		}
	}
	for (int j = 0; j < n; j++) {
		unsigned mask = sample_decode(&st->sample[j], &chosen, f);
		double mean[KB_FEATURES] = {0};

		if (!mask)
			continue;
		ll += logit_probs(w, f, mask, chosen, p);
		if (!grad)
			continue;
		for (int i = 0; i < KB_PIECES; i++)
			for (int a = 0; a < KB_FEATURES; a++)
				mean[a] += p[i] * f[i][a];
		for (int a = 0; a < KB_FEATURES; a++)
			grad[a] += f[chosen][a] - mean[a];
		for (int i = 0; i < KB_PIECES; i++)
			for (int a = 0; p[i] > 0 && a < KB_FEATURES; a++)
				for (int b = a; b < KB_FEATURES; b++)
					hess[a][b] += p[i] * (f[i][a] - mean[a]) * (f[i][b] - mean[b]);
	}
	if (grad)
		for (int a = 0; a < KB_FEATURES; a++)
			for (int b = 0; b < a; b++)
				hess[a][b] = hess[b][a];
	return ll;
}

static double log_prior(const double *w)
{
	double sq = 0;

	for (int a = 0; a < KB_FEATURES; a++)
		sq += w[a] * w[a];
	return -0.5 * LAMBDA * sq;
}

/* Maximise the log-posterior by Newton's method with step halving;
 * returns the log-likelihood of the samples at the optimum. */
static double logit_fit(const kb_model_stats *st, double *w)
{
	double grad[KB_FEATURES], hess[KB_FEATURES][KB_FEATURES], step[KB_FEATURES];
	double ll = logit_terms(st, w, NULL, NULL);

	for (int it = 0; it < NEWTON_ITERATIONS; it++) {
		double trial[KB_FEATURES], gain = 0;

		logit_terms(st, w, grad, hess);
		solve_spd(hess, grad, step);
		for (double t = 1.0; t > 1e-3; t /= 2) {
			for (int a = 0; a < KB_FEATURES; a++)
				trial[a] = w[a] + t * step[a];
			double tll = logit_terms(st, trial, NULL, NULL);
			gain = tll + log_prior(trial) - ll - log_prior(w);
			if (gain >= 0) {
				memcpy(w, trial, sizeof trial);
				ll = tll;
				break;
			}
		}
		if (gain < 1e-6)
			break;
	}
	return ll;
}

/* Log-likelihood of a pure policy that matched hits of n decisions. */
static double pure_loglik(uint64_t hits, uint64_t n)
{
	return (double)hits * log(1.0 - PURE_ERROR) + (double)(n - hits) * log(PURE_ERROR);
}

void kb_model_prior(kb_model *m)
{
	memset(m, 0, sizeof *m);
	memcpy(m->weight, prior_weight, sizeof m->weight);
}

void kb_model_fit(kb_model *m, const kb_model_stats *st)
{
	double ll[KB_COMPONENTS], top = -INFINITY, sum = 0, log_choices = 0;
	double f[KB_PIECES][KB_FEATURES];
	int n = kb_model_samples(st), chosen, used = 0;
	uint64_t easy = 0, hard = 0;

	kb_model_prior(m);
	for (int j = 0; j < n; j++) {
		unsigned mask = sample_decode(&st->sample[j], &chosen, f);
		if (!mask)
			continue;
		used++;
		easy += chosen == kb_pick_easy(mask);
		hard += chosen == kb_pick_hard(mask);
		log_choices += log((double)kb_count(mask));
	}
	if (used == 0)
		return;
	ll[KB_C_EASY] = pure_loglik(easy, (uint64_t)used);
	ll[KB_C_HARD] = pure_loglik(hard, (uint64_t)used);
	ll[KB_C_RANDOM] = -log_choices;
	/* An AIC-like charge for the logit's free weights, so that a random
	 * player is not explained by noise in the features. */
	ll[KB_C_LOGIT] = logit_fit(st, m->w) - LOGIT_PENALTY;
	for (int c = 0; c < KB_COMPONENTS; c++) {
		ll[c] += log(prior_weight[c]);
		top = fmax(top, ll[c]);
	}
	for (int c = 0; c < KB_COMPONENTS; c++)
		sum += m->weight[c] = exp(ll[c] - top);
	for (int c = 0; c < KB_COMPONENTS; c++)
		m->weight[c] /= sum;
}

void kb_model_probs(const kb_model *m, const kb_pos *pos, int s, int d,
		    unsigned mask, double p[KB_PIECES])
{
	double f[KB_PIECES][KB_FEATURES], z[KB_PIECES], top = -INFINITY, sum = 0;
	int k = kb_count(mask);

	memset(p, 0, sizeof(double) * KB_PIECES);
	if (k == 0)
		return;
	kb_features(pos, s, d, mask, f);
	for (int i = 0; i < KB_PIECES; i++) {
		if (!(mask >> i & 1))
			continue;
		z[i] = 0;
		for (int a = 0; a < KB_FEATURES; a++)
			z[i] += m->w[a] * f[i][a];
		top = fmax(top, z[i]);
	}
	for (int i = 0; i < KB_PIECES; i++)
		if (mask >> i & 1)
			sum += z[i] = exp(z[i] - top);
	for (int i = 0; i < KB_PIECES; i++)
		if (mask >> i & 1)
			p[i] = m->weight[KB_C_RANDOM] / k + m->weight[KB_C_LOGIT] * z[i] / sum;
	p[kb_pick_easy(mask)] += m->weight[KB_C_EASY];
	p[kb_pick_hard(mask)] += m->weight[KB_C_HARD];
}

enum kb_component kb_model_belief(const kb_model *m)
{
	enum kb_component best = KB_C_EASY;

	for (int c = 1; c < KB_COMPONENTS; c++)
		if (m->weight[c] > m->weight[best])
			best = (enum kb_component)c;
	return best;
}
