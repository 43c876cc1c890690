/* model.h - the learned opponent model: candidate-move features, additive
 * per-opponent statistics, and the fitted model the bot's search asks.
 *
 * Every decision an opponent made with two or more legal moves is described
 * by the KB_FEATURES features of each legal candidate (see enum kb_feature).
 * kb_model_stats keeps plain counts (decisions, how many matched easy, how
 * many matched hard) and the KB_SAMPLES most recent decisions in compact
 * form (a ring): two stores merge by adding the counts and replaying one
 * store's samples into the other's ring.
 *
 * The fitted model (kb_model) is a Bayesian mixture of four explanations of
 * the sampled choices:
 *   easy    always the rearmost legal piece (allowed PURE_ERROR slips),
 *   hard    always the foremost legal piece (likewise),
 *   random  uniform over the legal pieces,
 *   logit   a conditional-logit model P(i) ~ exp(w . f_i) over the features,
 *           w the maximum a posteriori fit (Newton's method, a normal
 *           prior on every weight, variance 1/0.3) on the samples.
 * Each explanation's weight is prior x likelihood of the samples, the logit
 * charged a fixed penalty for its free weights.  With no data the model is
 * the prior mixture (0.2 easy, 0.2 hard, 0.2 random, 0.4 logit with w = 0).
 *
 * Nothing here allocates or fails; all functions are deterministic.
 */
#ifndef KB_STATE_MODEL_H
#define KB_STATE_MODEL_H

#include <stdint.h>

#include "core/rules.h"

/* Features of one legal candidate move of seat s with die d. */
enum kb_feature {
	KB_F_FOREMOST = 0, /* the lowest legal index (what hard plays) */
	KB_F_REARMOST,     /* the highest legal index (what easy plays) */
	KB_F_CAPTURE,      /* ends on an opponent's piece */
	KB_F_LEAVE,        /* leaves home */
	KB_F_ENTER_GOAL,   /* from the ring into the goal */
	KB_F_IN_GOAL,      /* moves inside the goal */
	KB_F_LAND_THREAT,  /* ends on a ring square an opponent can hit next roll */
	KB_F_ESCAPE,       /* leaves a threatened square for a safe one */
	KB_F_ADVANCE,      /* progress of the moved piece before the move, 0..1 */
	KB_FEATURES
};

/* Recent decisions kept per opponent for the logit fit. */
#define KB_SAMPLES 96

/* One decision, compact: byte 0 the legal mask (bits 0..3) and the chosen
 * index (bits 4..5); then per piece index i, byte 1+2i the binary features
 * (bit k = feature k, k < KB_F_ADVANCE) and byte 2+2i the moved piece's
 * progress + 1 (0 for a home piece). */
#define KB_SAMPLE_LEN 9
typedef struct kb_sample {
	uint8_t b[KB_SAMPLE_LEN];
} kb_sample;

/* Additive statistics of one opponent's observed decisions. */
typedef struct kb_model_stats {
	uint64_t decisions;  /* choices observed (rolls with >= 2 legal moves) */
	uint64_t easy_hits;  /* chosen == rearmost legal index */
	uint64_t hard_hits;  /* chosen == foremost legal index */
	kb_sample sample[KB_SAMPLES]; /* decision n goes to sample[n % KB_SAMPLES] */
} kb_model_stats;

/* Mixture components. */
enum kb_component { KB_C_EASY = 0, KB_C_HARD, KB_C_RANDOM, KB_C_LOGIT, KB_COMPONENTS };

/* A fitted model, ready to evaluate. */
typedef struct kb_model {
	double weight[KB_COMPONENTS]; /* posterior weights, summing to 1 */
	double w[KB_FEATURES];        /* logit feature weights */
} kb_model;

/* Feature vectors of every legal candidate of seat s with die d (mask the
 * legal mask, from kb_legal); f[i] is filled for each set bit i only. */
void kb_features(const kb_pos *pos, int s, int d, unsigned mask,
		 double f[KB_PIECES][KB_FEATURES]);

/* Fold one decision (seat s chose index chosen among mask with die d) into
 * st.  Decisions with fewer than two legal moves, or a chosen index not in
 * mask, are ignored (returns -1); otherwise returns 0. */
int kb_model_observe(kb_model_stats *st, const kb_pos *pos, int s, int d,
		     unsigned mask, int chosen);

/* Add the counts of b to a and append b's samples, oldest first, to a's
 * ring (merging two stores). */
void kb_model_stats_add(kb_model_stats *a, const kb_model_stats *b);

/* Number of valid samples in st (min(decisions, KB_SAMPLES)). */
int kb_model_samples(const kb_model_stats *st);

/* Fit the model from st (all zero: the prior). */
void kb_model_fit(kb_model *m, const kb_model_stats *st);

/* The prior model (what kb_model_fit gives for no data). */
void kb_model_prior(kb_model *m);

/* Probability of each legal index of mask (p[i] = 0 for the others; they
 * sum to 1 when mask != 0).  Fast: no allocation, one feature pass. */
void kb_model_probs(const kb_model *m, const kb_pos *pos, int s, int d,
		    unsigned mask, double p[KB_PIECES]);

/* The component with the largest weight, and a short word for it
 * ("easy", "hard", "random", "heuristic"). */
enum kb_component kb_model_belief(const kb_model *m);
const char *kb_component_name(enum kb_component c);

/* Name of feature k ("foremost", "capture", ...). */
const char *kb_feature_name(int k);

#endif
