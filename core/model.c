/* model.c - candidate features, statistics and the fitted mixture; see
 * model.h. */
#include <math.h>
#include <string.h>

#include "core/policy.h"
#include "core/model.h"

/* Ridge of the logit fit: a N(0, 1/LAMBDA) prior on each weight. */
#define LAMBDA 0.3
/* Newton iterations of the logit fit (it converges in a few). */
#define NEWTON_ITERATIONS 12
/* How often a pure rule (easy, hard, the rules) is allowed to deviate.
 * Small: what the bot observes is exactly what was played, and a player
 * that deviates more is the logit's (a pure explanation charged 0.03 per
 * decision lost to a logit that fits the rule for long histories). */
#define PURE_ERROR 0.002

/* Log-likelihood charged to the logit for its KB_FEATURES weights. */
#define LOGIT_PENALTY 6.0

/* Per decision, what is left of the faded statistics' old values. */
#define FADE (1.0 - 1.0 / KB_MEMORY)

/* Why KB_MODEL_USEFUL_ACCURACY (model.h): a model that misses more than
 * one move in ten gained nothing even when told exactly (the mixed and
 * switcher players of the learning bench: told - empty -0.012 and +0.003,
 * learned - empty -0.002 and -0.017), so it is as likely to mislead the
 * search as to help it. */

/* easy, hard, random, logit, rule: the rule component's prior is small
 * and split over its ten rules, so that a player who has only shown
 * easy's or hard's moves (every rear or front rule agrees with them until
 * its preference comes up) is believed to be easy or hard; every decision
 * where a rule and easy or hard differ moves the belief by a factor 500. */
static const double prior_weight[KB_COMPONENTS] = {0.175, 0.175, 0.2, 0.43, 0.02};

static const char *const rule_names[KB_RULES] = {
	"rear", "front", "capture>rear", "capture>front", "peace>rear", "peace>front",
	"safe>rear", "safe>front", "stay>rear", "leave>front", "goal>rear", "goal>front"};

static const char *const feature_names[KB_FEATURES] = {
	"foremost", "rearmost", "capture", "leave", "enter-goal",
	"in-goal", "land-threat", "escape", "advance", "chase"};

static const char *const component_names[KB_COMPONENTS] = {
	"easy", "hard", "random", "heuristic", "rule"};

const char *kb_feature_name(int k)
{
	return k >= 0 && k < KB_FEATURES ? feature_names[k] : "?";
}

const char *kb_rule_name(enum kb_rule r)
{
	return (unsigned)r < KB_RULES ? rule_names[r] : "?";
}

const char *kb_component_name(enum kb_component c)
{
	return (unsigned)c < KB_COMPONENTS ? component_names[c] : "?";
}

/* Ring squares (bits 0..27) of seat o's progress from..from+count-1. */
static uint32_t ring_span(int o, int from, int count)
{
	uint32_t bits = (1u << count) - 1;
	int start = kb_ring_square(o, from);

	return (bits << start | bits >> (KB_TRACK - start)) & ((1u << KB_TRACK) - 1);
}

/* Ring squares (bits 0..27) around seat s: those an opponent can reach
 * with its next roll (threat: forward moves that stay on the ring, and
 * start squares of seats that still have a piece at home, a 6 bringing it
 * out) and those holding an opponent's piece (occupied). */
static void opponent_squares(const kb_pos *pos, int s, uint32_t *threat, uint32_t *occupied)
{
	uint32_t thr = 0, occ = 0;

	for (int o = 0; o < KB_SEATS; o++) {
		if (o == s || !kb_present(pos, o))
			continue;
		for (int j = 0; j < KB_PIECES; j++) {
			int r = pos->prog[o][j];

			if (r == KB_HOME) { /* home pieces come last */
				thr |= 1u << kb_ring_square(o, 0);
				break;
			}
			if (r <= KB_LAST_TRACK)
				occ |= 1u << kb_ring_square(o, r);
			if (r < KB_LAST_TRACK)
				thr |= ring_span(o, r + 1, KB_LAST_TRACK - r < 6 ? KB_LAST_TRACK - r : 6);
		}
	}
	*threat = thr;
	*occupied = occ;
}

/* The squares of the last position and seat asked, per thread: the search
 * asks for the same position and seat with each of the six dice. */
typedef struct squares_cache {
	kb_pos pos;
	int seat; /* -1: empty */
	uint32_t threat, occupied;
} squares_cache;

static _Thread_local squares_cache last_squares = {.seat = -1};

/* Threatened and occupied squares around seat s (cached). */
static void squares_of(const kb_pos *pos, int s, uint32_t *threat, uint32_t *occupied)
{
	squares_cache *c = &last_squares;

	if (c->seat != s || memcmp(&c->pos, pos, sizeof *pos) != 0) {
		c->pos = *pos;
		c->seat = s;
		opponent_squares(pos, s, &c->threat, &c->occupied);
	}
	*threat = c->threat;
	*occupied = c->occupied;
}

/* How close behind an opponent's piece candidate i of seat s lands with
 * die d (KB_F_CHASE in thirds): 3 for 1..2 squares, 2 for 3..4, 1 for
 * 5..6, 0 when no opponent's piece is that close ahead or the move leaves
 * the ring. */
static int chase_level(const kb_pos *pos, int s, int d, int i, uint32_t occupied)
{
	int r = pos->prog[s][i], target = r == KB_HOME ? 0 : r + d;

	if (target > KB_LAST_TRACK)
		return 0;
	int square = kb_ring_square(s, target);
	for (int gap = 1; gap <= 6; gap++)
		if (occupied >> ((square + gap) % KB_TRACK) & 1)
			return gap <= 2 ? 3 : gap <= 4 ? 2 : 1;
	return 0;
}

/* The chase levels of every legal candidate (0 for the others). */
static void chase_levels(const kb_pos *pos, int s, int d, unsigned mask,
			 uint8_t level[KB_PIECES])
{
	uint32_t threat, occupied;

	squares_of(pos, s, &threat, &occupied);
	for (int i = 0; i < KB_PIECES; i++)
		level[i] = mask >> i & 1 ? (uint8_t)chase_level(pos, s, d, i, occupied) : 0;
}

/* Bit k of bits[i] = binary feature k (k < KB_F_ADVANCE) of legal
 * candidate i; only the features in need (bit k = feature k) are computed,
 * the others are 0. */
static void feature_bits(const kb_pos *pos, int s, int d, unsigned mask, unsigned need,
			 uint8_t bits[KB_PIECES])
{
	uint32_t threat = 0, occupied = 0;
	int first = kb_pick_hard(mask), last = kb_pick_easy(mask);

	if (need & (1u << KB_F_CAPTURE | 1u << KB_F_LAND_THREAT | 1u << KB_F_ESCAPE))
		squares_of(pos, s, &threat, &occupied);

	for (int i = 0; i < KB_PIECES; i++) {
		bits[i] = 0;
		if (!(mask >> i & 1))
			continue;
		int r = pos->prog[s][i];
		int target = r == KB_HOME ? 0 : r + d;
		int on_ring = target <= KB_LAST_TRACK;
		int was_on_ring = r >= 0 && r <= KB_LAST_TRACK;
		uint32_t tbit = on_ring ? 1u << kb_ring_square(s, target) : 0;
		int was_threatened = was_on_ring && (threat >> kb_ring_square(s, r) & 1);
		int lands_threatened = (threat & tbit) != 0;
		unsigned v = (unsigned)(i == first) << KB_F_FOREMOST |
			     (unsigned)(i == last) << KB_F_REARMOST |
			     (unsigned)((occupied & tbit) != 0) << KB_F_CAPTURE |
			     (unsigned)(r == KB_HOME) << KB_F_LEAVE |
			     (unsigned)(was_on_ring && !on_ring) << KB_F_ENTER_GOAL |
			     (unsigned)(r >= KB_GOAL_FIRST) << KB_F_IN_GOAL |
			     (unsigned)lands_threatened << KB_F_LAND_THREAT |
			     (unsigned)(was_threatened && !lands_threatened) << KB_F_ESCAPE;
		bits[i] = (uint8_t)v;
	}
}

/* The features of the legal candidates of seat s from their bits. */
static void bits_to_features(const kb_pos *pos, int s, unsigned mask,
			     const uint8_t bits[KB_PIECES], double f[KB_PIECES][KB_FEATURES])
{
	for (int i = 0; i < KB_PIECES; i++) {
		if (!(mask >> i & 1))
			continue;
		int r = pos->prog[s][i];
		for (int k = 0; k < KB_F_ADVANCE; k++)
			f[i][k] = bits[i] >> k & 1;
		f[i][KB_F_ADVANCE] = r == KB_HOME ? 0.0 : (r + 1) / 32.0;
	}
}

/* Every feature of the legal candidates, and their binary ones as bits
 * (what the rules read). */
static void features_and_bits(const kb_pos *pos, int s, int d, unsigned mask,
			      uint8_t bits[KB_PIECES], double f[KB_PIECES][KB_FEATURES])
{
	uint8_t level[KB_PIECES];

	feature_bits(pos, s, d, mask, ~0u, bits);
	bits_to_features(pos, s, mask, bits, f);
	chase_levels(pos, s, d, mask, level);
	for (int i = 0; i < KB_PIECES; i++)
		if (mask >> i & 1)
			f[i][KB_F_CHASE] = level[i] / 3.0;
}

void kb_features(const kb_pos *pos, int s, int d, unsigned mask,
		 double f[KB_PIECES][KB_FEATURES])
{
	uint8_t bits[KB_PIECES];

	features_and_bits(pos, s, d, mask, bits, f);
}

/* The legal pieces of mask whose feature k is want. */
static unsigned with_feature(unsigned mask, const uint8_t bits[KB_PIECES], int k, int want)
{
	unsigned set = 0;

	for (int i = 0; i < KB_PIECES; i++)
		if ((mask >> i & 1) && (bits[i] >> k & 1) == (unsigned)want)
			set |= 1u << i;
	return set;
}

/* What each rule prefers: feature k being want (k = -1: nothing; k = -2:
 * escaping a threat, else not landing on one). */
static const struct {
	int k, want;
} rule_pref[KB_RULES] = {
	{-1, 0}, {-1, 0}, {KB_F_CAPTURE, 1}, {KB_F_CAPTURE, 1}, {KB_F_CAPTURE, 0},
	{KB_F_CAPTURE, 0}, {-2, 0}, {-2, 0}, {KB_F_LEAVE, 0}, {KB_F_LEAVE, 1},
	{KB_F_ENTER_GOAL, 1}, {KB_F_ENTER_GOAL, 1}};

/* The index rule r plays, from the candidates' feature bits. */
static int rule_pick_bits(enum kb_rule r, unsigned mask, const uint8_t bits[KB_PIECES])
{
	int k = rule_pref[r].k;
	unsigned pref = mask;

	if (k >= 0) {
		pref = with_feature(mask, bits, k, rule_pref[r].want);
	} else if (k == -2) {
		pref = with_feature(mask, bits, KB_F_ESCAPE, 1);
		if (!pref)
			pref = with_feature(mask, bits, KB_F_LAND_THREAT, 0);
	}
	if (!pref)
		pref = mask;
	return r & 1 ? kb_pick_hard(pref) : kb_pick_easy(pref);
}

/* The features rule r looks at. */
static unsigned rule_needs(enum kb_rule r)
{
	int k = rule_pref[r].k;

	return k >= 0 ? 1u << k : k == -2 ? 1u << KB_F_ESCAPE | 1u << KB_F_LAND_THREAT : 0;
}

int kb_rule_pick(enum kb_rule r, const kb_pos *pos, int s, int d, unsigned mask)
{
	uint8_t bits[KB_PIECES];

	if (rule_pref[r].k == -1)
		return r & 1 ? kb_pick_hard(mask) : kb_pick_easy(mask);
	feature_bits(pos, s, d, mask, rule_needs(r), bits);
	return rule_pick_bits(r, mask, bits);
}

/* Fold one decision, as feature bits, into the faded statistics. */
static void fade_in(kb_model_stats *st, unsigned mask, int chosen, const uint8_t bits[KB_PIECES])
{
	st->recent = st->recent * FADE + 1.0;
	st->recent_log_choices = st->recent_log_choices * FADE + log((double)kb_count(mask));
	for (int r = 0; r < KB_RULES; r++)
		st->recent_miss[r] = st->recent_miss[r] * FADE +
				     (rule_pick_bits((enum kb_rule)r, mask, bits) != chosen);
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
		smp->b[2 + 2 * i] = (uint8_t)((pos->prog[s][i] + 1) | (int)lround(f[i][KB_F_CHASE] * 3) << 6);
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
		f[i][KB_F_ADVANCE] = (smp->b[2 + 2 * i] & 63) / 32.0;
		f[i][KB_F_CHASE] = (smp->b[2 + 2 * i] >> 6) / 3.0;
	}
	if (kb_count(mask) < 2 || !(mask >> *chosen & 1))
		return 0;
	return mask;
}

/* The feature bits of a sample's candidates. */
static void sample_bits(const kb_sample *smp, uint8_t bits[KB_PIECES])
{
	for (int i = 0; i < KB_PIECES; i++)
		bits[i] = smp->b[1 + 2 * i];
}

int kb_model_observe(kb_model_stats *st, const kb_pos *pos, int s, int d,
		     unsigned mask, int chosen)
{
	kb_sample *smp = &st->sample[st->decisions % KB_SAMPLES];
	uint8_t bits[KB_PIECES];

	if (kb_count(mask) < 2 || chosen < 0 || chosen >= KB_PIECES ||
	    !(mask >> chosen & 1))
		return -1;
	sample_encode(smp, pos, s, d, mask, chosen);
	sample_bits(smp, bits);
	fade_in(st, mask, chosen, bits);
	st->decisions++;
	st->easy_hits += chosen == kb_pick_easy(mask);
	st->hard_hits += chosen == kb_pick_hard(mask);
	return 0;
}

int kb_model_samples(const kb_model_stats *st)
{
	return st->decisions < KB_SAMPLES ? (int)st->decisions : KB_SAMPLES;
}

void kb_model_observe_prediction(kb_model_stats *st, enum kb_score sc, int hit, int hard_hit)
{
	st->recent_judged = st->recent_judged * FADE + 1.0;
	st->recent_predicted = st->recent_predicted * FADE + (hit != 0);
	/* both scores age with every decision, as every faded value does */
	for (int k = 0; k < KB_SCORES; k++) {
		st->score_judged[k] *= FADE;
		st->score_predicted[k] *= FADE;
		st->score_hard[k] *= FADE;
	}
	st->score_judged[sc] += 1.0;
	st->score_predicted[sc] += hit != 0;
	st->score_hard[sc] += hard_hit != 0;
}

/* Sum of seat s's progress, a piece at home -1 (KB_HOME). */
static int progress_sum(const kb_pos *pos, int s)
{
	int sum = 0;

	for (int i = 0; i < KB_PIECES; i++)
		sum += pos->prog[s][i];
	return sum;
}

enum kb_score kb_model_score(const kb_pos *pos, int s)
{
	return progress_sum(pos, s) > progress_sum(pos, 0) ? KB_AHEAD : KB_NOT_AHEAD;
}

void kb_model_stats_rebuild(kb_model_stats *st)
{
	int n = kb_model_samples(st), chosen;
	uint64_t first = st->decisions - (uint64_t)n;
	double f[KB_PIECES][KB_FEATURES];
	uint8_t bits[KB_PIECES];

	st->recent = st->recent_log_choices = 0;
	memset(st->recent_miss, 0, sizeof st->recent_miss);
	for (int j = 0; j < n; j++) {
		const kb_sample *smp = &st->sample[(first + (uint64_t)j) % KB_SAMPLES];
		unsigned mask = sample_decode(smp, &chosen, f);
		if (!mask)
			continue;
		sample_bits(smp, bits);
		fade_in(st, mask, chosen, bits);
	}
}

/* 1 if every logit weight of w is zero. */
static int all_zero(const double *w)
{
	for (int a = 0; a < KB_FEATURES; a++)
		if (w[a] != 0)
			return 0;
	return 1;
}

void kb_model_stats_add(kb_model_stats *a, const kb_model_stats *b)
{
	int n = kb_model_samples(b);
	uint64_t first = b->decisions - (uint64_t)n;
	double fade = pow(FADE, (double)b->decisions);

	/* b's samples are its last n decisions: they take the places of the
	 * last n of the merged count, so the ring stays aligned */
	for (int j = 0; j < n; j++)
		a->sample[(a->decisions + first + (uint64_t)j) % KB_SAMPLES] =
			b->sample[(first + (uint64_t)j) % KB_SAMPLES];
	a->decisions += b->decisions;
	a->easy_hits += b->easy_hits;
	a->hard_hits += b->hard_hits;
	/* b's decisions came after a's: a's faded values age by them */
	a->recent = a->recent * fade + b->recent;
	a->recent_log_choices = a->recent_log_choices * fade + b->recent_log_choices;
	for (int r = 0; r < KB_RULES; r++)
		a->recent_miss[r] = a->recent_miss[r] * fade + b->recent_miss[r];
	a->recent_judged = a->recent_judged * fade + b->recent_judged;
	a->recent_predicted = a->recent_predicted * fade + b->recent_predicted;
	for (int k = 0; k < KB_SCORES; k++) {
		a->score_judged[k] = a->score_judged[k] * fade + b->score_judged[k];
		a->score_predicted[k] = a->score_predicted[k] * fade + b->score_predicted[k];
		a->score_hard[k] = a->score_hard[k] * fade + b->score_hard[k];
	}
	if (!all_zero(b->fit_w))
		memcpy(a->fit_w, b->fit_w, sizeof a->fit_w);
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
 * and the negated Hessian of the log-posterior (the N(centre, 1/LAMBDA)
 * prior included). */
static double logit_terms(const kb_model_stats *st, const double *w, const double *centre,
			  double *grad, double hess[KB_FEATURES][KB_FEATURES])
{
	double ll = 0, f[KB_PIECES][KB_FEATURES], p[KB_PIECES];
	int n = kb_model_samples(st), chosen;

	if (grad) {
		memset(hess, 0, sizeof(double) * KB_FEATURES * KB_FEATURES);
		for (int a = 0; a < KB_FEATURES; a++) {
			grad[a] = -LAMBDA * (w[a] - centre[a]);
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

static double log_prior(const double *w, const double *centre)
{
	double sq = 0;

	for (int a = 0; a < KB_FEATURES; a++)
		sq += (w[a] - centre[a]) * (w[a] - centre[a]);
	return -0.5 * LAMBDA * sq;
}

/* Maximise the log-posterior (the samples and a N(centre, 1/LAMBDA) prior
 * on each weight) by Newton's method with step halving, from w; returns
 * the log-likelihood of the samples at the optimum. */
static double logit_fit(const kb_model_stats *st, double *w, const double *centre)
{
	double grad[KB_FEATURES], hess[KB_FEATURES][KB_FEATURES], step[KB_FEATURES];
	double ll = logit_terms(st, w, NULL, NULL, NULL);

	for (int it = 0; it < NEWTON_ITERATIONS; it++) {
		double trial[KB_FEATURES], gain = 0;

		logit_terms(st, w, centre, grad, hess);
		solve_spd(hess, grad, step);
		for (double t = 1.0; t > 1e-3; t /= 2) {
			for (int a = 0; a < KB_FEATURES; a++)
				trial[a] = w[a] + t * step[a];
			double tll = logit_terms(st, trial, NULL, NULL, NULL);
			gain = tll + log_prior(trial, centre) - ll - log_prior(w, centre);
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

/* Log-likelihood of a pure policy that missed miss of n (faded) decisions. */
static double pure_loglik(double n, double miss)
{
	return (n - miss) * log(1.0 - PURE_ERROR) + miss * log(PURE_ERROR);
}

void kb_model_prior(kb_model *m)
{
	memset(m, 0, sizeof *m);
	memcpy(m->weight, prior_weight, sizeof m->weight);
	m->rule = KB_R_CAPTURE_REAR;
}

/* Log-likelihood of the rule component (its rules 2.. equally likely a
 * priori); sets m->rule to the best of them. */
static double rule_loglik(kb_model *m, const kb_model_stats *st)
{
	double ll[KB_RULES], top = -INFINITY, sum = 0;

	for (int r = KB_R_CAPTURE_REAR; r < KB_RULES; r++) {
		ll[r] = pure_loglik(st->recent, st->recent_miss[r]);
		if (ll[r] > top) {
			top = ll[r];
			m->rule = (enum kb_rule)r;
		}
	}
	for (int r = KB_R_CAPTURE_REAR; r < KB_RULES; r++)
		sum += exp(ll[r] - top);
	return top + log(sum / (KB_RULES - KB_R_CAPTURE_REAR));
}

/* Mixture probabilities of the legal indices of mask, from the candidates'
 * features f and feature bits. */
static void mixture_probs(const kb_model *m, double f[KB_PIECES][KB_FEATURES],
			  const uint8_t bits[KB_PIECES], unsigned mask, double p[KB_PIECES])
{
	double z[KB_PIECES] = {0}, top = -INFINITY, sum = 0;
	int k = kb_count(mask);

	if (k == 0)
		return;
	for (int i = 0; i < KB_PIECES; i++) {
		p[i] = 0;
		if (!(mask >> i & 1))
			continue;
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
	p[rule_pick_bits(m->rule, mask, bits)] += m->weight[KB_C_RULE];
}

/* The most likely index of p over mask (lowest on ties). */
static int mode_of(const double p[KB_PIECES], unsigned mask)
{
	int best = -1;

	for (int i = 0; i < KB_PIECES; i++)
		if ((mask >> i & 1) && (best < 0 || p[i] > p[best]))
			best = i;
	return best;
}

/* How often m's most likely move, and hard's, were the move played, over
 * the samples. */
static void sample_accuracy(kb_model *m, const kb_model_stats *st)
{
	double f[KB_PIECES][KB_FEATURES], p[KB_PIECES];
	uint8_t bits[KB_PIECES];
	int n = kb_model_samples(st), chosen, used = 0, hits = 0, hard = 0;

	for (int j = 0; j < n; j++) {
		unsigned mask = sample_decode(&st->sample[j], &chosen, f);
		if (!mask)
			continue;
		sample_bits(&st->sample[j], bits);
		mixture_probs(m, f, bits, mask, p);
		used++;
		hits += mode_of(p, mask) == chosen;
		hard += kb_pick_hard(mask) == chosen;
	}
	m->accuracy = used ? (double)hits / used : 0;
	m->hard_accuracy = used ? (double)hard / used : 0;
	/* the bot's own predictions, out of sample, once there are enough;
	 * hard's rate over every decision, faded alike */
	if (st->recent_judged >= KB_MODEL_JUDGED_ENOUGH) {
		m->accuracy = st->recent_predicted / st->recent_judged;
		m->hard_accuracy = 1.0 - st->recent_miss[KB_R_HARD] / st->recent;
		m->own_rate = 1;
	}
	for (int k = 0; k < KB_SCORES; k++) {
		double judged = st->score_judged[k];
		m->score_own[k] = judged >= KB_MODEL_JUDGED_ENOUGH;
		m->score_accuracy[k] = m->score_own[k] ? st->score_predicted[k] / judged : 0;
		m->score_hard_accuracy[k] = m->score_own[k] ? st->score_hard[k] / judged : 0;
	}
}

/* The logit's two fits on the samples; returns the mean log-likelihood
 * per sample of the first, or 0 with no valid sample.
 *  - The fit that the mixture weighs against the other explanations: the
 *    prior centred on zero, as for every explanation, so that the logit
 *    is charged for what only the samples show.
 *  - The fit that predicts (m->w): the prior centred on the previous
 *    game's fit (st->fit_w), which is where the evidence of every earlier
 *    game is kept.  Each game's fit moves from there only as far as its
 *    samples ask, so a player whose moves follow the features exactly
 *    (the greedy player) is predicted ever more sharply, and a new
 *    version's moves, which the old fit misses, move it within a game or
 *    two.  Centred on zero, the fit saw only the last KB_SAMPLES
 *    decisions and missed the greedy player's move one time in 20 (one
 *    in 300 when centred on the previous fit). */
static double logit_mean_loglik(kb_model *m, const kb_model_stats *st)
{
	double f[KB_PIECES][KB_FEATURES], centre[KB_FEATURES], zero[KB_FEATURES] = {0};
	double ridge[KB_FEATURES] = {0};
	int n = kb_model_samples(st), chosen, used = 0;

	for (int j = 0; j < n; j++)
		used += sample_decode(&st->sample[j], &chosen, f) != 0;
	if (used == 0)
		return 0;
	for (int a = 0; a < KB_FEATURES; a++)
		centre[a] = isfinite(st->fit_w[a]) && fabs(st->fit_w[a]) < 1e3 ? st->fit_w[a] : 0;
	double ll = logit_fit(st, ridge, zero);
	/* no earlier fit: both fits are the same */
	memcpy(m->w, all_zero(centre) ? ridge : centre, sizeof centre);
	if (!all_zero(centre))
		logit_fit(st, m->w, centre);
	return ll / used;
}

void kb_model_fit(kb_model *m, const kb_model_stats *st)
{
	double ll[KB_COMPONENTS], top = -INFINITY, sum = 0, n = st->recent;

	kb_model_prior(m);
	if (!(n > 0) || !isfinite(n))
		return;
	ll[KB_C_EASY] = pure_loglik(n, st->recent_miss[KB_R_EASY]);
	ll[KB_C_HARD] = pure_loglik(n, st->recent_miss[KB_R_HARD]);
	ll[KB_C_RULE] = rule_loglik(m, st);
	ll[KB_C_RANDOM] = -st->recent_log_choices;
	/* the samples' mean times the faded count, so that every component
	 * answers for the same decisions; an AIC-like charge for the logit's
	 * free weights, so that a random player is not explained by noise in
	 * the features */
	ll[KB_C_LOGIT] = logit_mean_loglik(m, st) * n - LOGIT_PENALTY;
	for (int c = 0; c < KB_COMPONENTS; c++) {
		if (!isfinite(ll[c]))
			ll[c] = -INFINITY;
		ll[c] += log(prior_weight[c]);
		top = fmax(top, ll[c]);
	}
	if (!isfinite(top)) {
		kb_model_prior(m);
		return;
	}
	for (int c = 0; c < KB_COMPONENTS; c++)
		sum += m->weight[c] = exp(ll[c] - top);
	for (int c = 0; c < KB_COMPONENTS; c++)
		m->weight[c] /= sum;
	sample_accuracy(m, st);
}

int kb_model_awaits_own_rate(const kb_model *m)
{
	enum kb_component belief = kb_model_belief(m);

	return !m->own_rate && (belief == KB_C_LOGIT || belief == KB_C_RANDOM);
}

/* The one test of a rate, overall or in one score: the model's most
 * likely move played at least bound of the time and clearly more often
 * than hard's. */
static int beats_hard(double accuracy, double hard_accuracy, double bound)
{
	return accuracy >= hard_accuracy + KB_MODEL_USEFUL_MARGIN && accuracy >= bound;
}

/* kb_model_useful_at before the bot's own rate in the score decides. */
static int useful_overall(const kb_model *m)
{
	/* the mixed player's first game (13 decisions) gave a model that
	 * believed random, with the logit's weights deciding its most likely
	 * move: right on 92% of its own samples, on 75% of the moves that
	 * followed; the bot used it for one game in 1,200 */
	if (kb_model_awaits_own_rate(m))
		return 0;
	return beats_hard(m->accuracy, m->hard_accuracy, KB_MODEL_USEFUL_ACCURACY);
}

int kb_model_useful_at(const kb_model *m, enum kb_score sc)
{
	if (!m->score_own[sc])
		return useful_overall(m);
	return beats_hard(m->score_accuracy[sc], m->score_hard_accuracy[sc],
			  KB_MODEL_USEFUL_SCORE_ACCURACY);
}

int kb_model_useful(const kb_model *m)
{
	return kb_model_useful_at(m, KB_NOT_AHEAD) || kb_model_useful_at(m, KB_AHEAD);
}

void kb_model_probs(const kb_model *m, const kb_pos *pos, int s, int d,
		    unsigned mask, double p[KB_PIECES])
{
	double f[KB_PIECES][KB_FEATURES];
	uint8_t bits[KB_PIECES];

	memset(p, 0, sizeof(double) * KB_PIECES);
	if (kb_count(mask) == 0)
		return;
	/* the rule reads the same bits kb_features computes */
	features_and_bits(pos, s, d, mask, bits, f);
	mixture_probs(m, f, bits, mask, p);
}

/* A component this sure decides the most likely move alone (the others
 * together cannot outweigh it). */
#define SURE 0.995

int kb_model_pick(const kb_model *m, const kb_pos *pos, int s, int d, unsigned mask)
{
	uint8_t bits[KB_PIECES], level[KB_PIECES];
	double p[KB_PIECES];
	int best = -1;

	if (m->weight[KB_C_RULE] >= SURE)
		return kb_rule_pick(m->rule, pos, s, d, mask);
	if (m->weight[KB_C_LOGIT] < SURE) {
		kb_model_probs(m, pos, s, d, mask, p);
		return mode_of(p, mask);
	}
	/* the logit's mode: the largest w . f, no exponentials */
	feature_bits(pos, s, d, mask, ~0u, bits);
	chase_levels(pos, s, d, mask, level);
	for (int i = 0; i < KB_PIECES; i++) {
		if (!(mask >> i & 1))
			continue;
		int r = pos->prog[s][i];
		double z = r == KB_HOME ? 0.0 : m->w[KB_F_ADVANCE] * (r + 1) / 32.0;
		z += m->w[KB_F_CHASE] * level[i] / 3.0;
		for (int k = 0; k < KB_F_ADVANCE; k++)
			z += bits[i] >> k & 1 ? m->w[k] : 0.0;
		p[i] = z;
		if (best < 0 || z > p[best])
			best = i;
	}
	return best;
}

enum kb_component kb_model_belief(const kb_model *m)
{
	enum kb_component best = KB_C_EASY;

	for (int c = 1; c < KB_COMPONENTS; c++)
		if (m->weight[c] > m->weight[best])
			best = (enum kb_component)c;
	return best;
}
