/* model.h - the learned opponent model: candidate-move features, additive
 * per-opponent statistics, and the fitted model the bot's search asks.
 *
 * Every decision an opponent made with two or more legal moves is described
 * by the KB_FEATURES features of each legal candidate (see enum kb_feature).
 * kb_model_stats keeps three kinds of statistics:
 *   - plain counts (decisions, how many matched easy, how many matched hard);
 *   - the KB_SAMPLES most recent decisions in compact form (a ring), for the
 *     logit fit;
 *   - statistics of EVERY decision observed, fading with age: a decayed
 *     count of decisions, of log(legal moves) (the random explanation) and
 *     of the misses of each of KB_RULES simple rules (enum kb_rule).  Each
 *     new decision multiplies the old values by 1 - 1/KB_MEMORY first, so a
 *     decision n decisions old weighs (1 - 1/KB_MEMORY)^n: half after 693
 *     decisions, and the sums never count more than KB_MEMORY decisions.
 * Two stores merge by decaying one store's faded values by the other's
 * number of decisions and adding (exact when the other's decisions came
 * later), adding the counts and replaying one store's samples into the
 * other's ring.
 *
 * Why KB_MEMORY = 1000: an opponent name makes about 30 decisions per seat
 * and game, so 1000 decisions are 11 to 33 games.  A rule that the player
 * follows is certain within tens of decisions (every decision the rules
 * disagree on is a factor 500 of evidence) and stays certain, because its
 * misses stay near zero however long the memory.  A new version that
 * plays differently makes the old rule miss: within about 100 decisions
 * (a few games) the old rule explains the play worse than the logit,
 * whose window is the KB_SAMPLES most recent decisions and so already
 * the new version's, and the old play is forgotten to one half after 693
 * of the new version's decisions.  The new version's moves are then
 * predicted by the logit (within 200 decisions from easy to hard, in the
 * tests); a new pure rule is believed as a rule again once the old play it
 * missed has faded to less than one decision (a few thousand decisions).
 *
 * The fitted model (kb_model) is a Bayesian mixture of five explanations of
 * the choices:
 *   easy    always the rearmost legal piece (allowed rare slips, 0.2%),
 *   hard    always the foremost legal piece (likewise),
 *   rule    one of the other simple rules (enum kb_rule; likewise),
 *   random  uniform over the legal pieces,
 *   logit   a conditional-logit model P(i) ~ exp(w . f_i) over the features,
 *           w the maximum a posteriori fit (Newton's method, a normal
 *           prior on every weight, variance 1/0.3) on the samples, the
 *           prior centred on the last game's fit (fit_w): each game's fit
 *           moves from the evidence of every earlier game as far as its
 *           samples ask.  The mixture weighs the logit by a second fit,
 *           the prior centred on zero, so that the logit is judged on the
 *           samples alone like every other explanation (a logit that kept
 *           thousands of decisions fits a pure rule as well as the rule).
 * Each explanation's weight is prior x likelihood of the faded statistics
 * (the logit: its mean log-likelihood on the samples times the faded
 * count), the logit charged a fixed penalty for its free weights, each
 * rule a share of its component's prior.  With no data the model is the
 * prior mixture (0.175 easy, 0.175 hard, 0.02 rule, 0.2 random, 0.43 logit
 * with w = 0).
 *
 * Nothing here allocates or fails; all functions are deterministic.
 */
#ifndef KB_CORE_MODEL_H
#define KB_CORE_MODEL_H

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
	KB_F_CHASE,        /* ends close behind an opponent's piece on the
			      ring, threatening it (a hunter's choice): 1
			      within 1..2 squares, 2/3 within 3..4, 1/3
			      within 5..6, else 0; after KB_F_ADVANCE because
			      it is not binary, and last because record
			      version 3 kept the weights before it */
	KB_FEATURES
};

/* Recent decisions kept per opponent for the logit fit. */
#define KB_SAMPLES 96

/* How many decisions the faded statistics remember (see above). */
#define KB_MEMORY 1000.0

/* The simple rules: a preference, then the rearmost (even rule) or the
 * foremost (odd rule) of the preferred legal pieces; a preference that no
 * legal piece has prefers nothing. */
enum kb_rule {
	KB_R_EASY = 0,          /* rearmost */
	KB_R_HARD,              /* foremost */
	KB_R_CAPTURE_REAR,      /* a capture, else rearmost */
	KB_R_CAPTURE_FRONT,
	KB_R_PEACE_REAR,        /* no capture, else rearmost */
	KB_R_PEACE_FRONT,
	KB_R_SAFE_REAR,         /* escape a threat, else do not land on one */
	KB_R_SAFE_FRONT,
	KB_R_STAY_REAR,         /* do not leave home (the rearmost that
				   leaves home would be easy's move) */
	KB_R_LEAVE_FRONT,       /* leave home */
	KB_R_GOAL_REAR,         /* enter the goal */
	KB_R_GOAL_FRONT,
	KB_RULES
};

/* One decision, compact: byte 0 the legal mask (bits 0..3) and the chosen
 * index (bits 4..5); then per piece index i, byte 1+2i the binary features
 * (bit k = feature k, k < KB_F_ADVANCE) and byte 2+2i the moved piece's
 * progress + 1 in bits 0..5 (0 for a home piece) and its chase level
 * (KB_F_CHASE x 3, 0..3) in bits 6..7 (0 in samples written before that
 * feature: a level every candidate shares tells the fit nothing). */
#define KB_SAMPLE_LEN 9
typedef struct kb_sample {
	uint8_t b[KB_SAMPLE_LEN];
} kb_sample;

/* The score when an opponent decides, which a player may switch its
 * policy on (the bench's switcher plays cautiously while ahead of the bot
 * and like hard behind): KB_AHEAD when the deciding seat's pieces have
 * more progress in all than the bot's (seat 0; a piece at home counts
 * -1), else KB_NOT_AHEAD (kb_model_score). */
enum kb_score { KB_NOT_AHEAD = 0, KB_AHEAD, KB_SCORES };

/* Additive statistics of one opponent's observed decisions. */
typedef struct kb_model_stats {
	uint64_t decisions;  /* choices observed (rolls with >= 2 legal moves) */
	uint64_t easy_hits;  /* chosen == rearmost legal index */
	uint64_t hard_hits;  /* chosen == foremost legal index */
	kb_sample sample[KB_SAMPLES]; /* decision n goes to sample[n % KB_SAMPLES] */
	/* every decision, faded (see above) */
	double recent;                /* decisions */
	double recent_log_choices;    /* log(number of legal moves) */
	double recent_miss[KB_RULES]; /* decisions where rule r chose otherwise */
	double fit_w[KB_FEATURES];    /* the last game's logit fit: the centre of
					 the next fit's prior (kb_model_fit); a
					 weight not finite or not within
					 -1000..1000 (a damaged record) counts
					 as 0 there */
	/* the bot's own predictions, faded alike: decisions it predicted with
	 * the model fitted before the game, and how many it predicted right
	 * (an out-of-sample accuracy; kb_model_observe_prediction) */
	double recent_judged, recent_predicted;
	/* the same predictions split by the score (enum kb_score), with how
	 * often hard's move was the one played among them: a model can beat
	 * the default assumption in one score and not in the other */
	double score_judged[KB_SCORES], score_predicted[KB_SCORES], score_hard[KB_SCORES];
} kb_model_stats;

/* Mixture components. */
enum kb_component { KB_C_EASY = 0, KB_C_HARD, KB_C_RANDOM, KB_C_LOGIT, KB_C_RULE,
		    KB_COMPONENTS };

/* kb_model_useful's bounds: the model's most likely move must be the move
 * played at least this often, and this much more often than hard's. */
#define KB_MODEL_USEFUL_ACCURACY 0.9
#define KB_MODEL_USEFUL_MARGIN 0.03
/* Faded decisions the bot must have predicted before its own rate is
 * trusted over the samples' (and, in one score, before that score's rate
 * decides). */
#define KB_MODEL_JUDGED_ENOUGH 30.0
/* In one score, on the bot's own predictions in that score: the bound on
 * the rate (the margin over hard's is KB_MODEL_USEFUL_MARGIN).  Lower
 * than the overall bound because the split shows what the overall rate
 * hides: the switcher's model, 78% overall, is right 84% of the time
 * ahead (hard 12%) and 62% behind (hard 100%), so it is used ahead only;
 * the mixed player's, 75% and 78% in the two scores (hard about 60%), is
 * used in both: +1.3 points under the judge, four seeds pooled, where it
 * was the same games as learning off (docs/learning-model.md). */
#define KB_MODEL_USEFUL_SCORE_ACCURACY 0.7

/* A fitted model, ready to evaluate. */
typedef struct kb_model {
	double weight[KB_COMPONENTS]; /* posterior weights, summing to 1 */
	double w[KB_FEATURES];        /* logit feature weights */
	enum kb_rule rule;            /* the rule of KB_C_RULE */
	double accuracy;      /* how often the model's most likely move is the
				 one played (kb_model_useful; 0: no data) */
	double hard_accuracy; /* the same for hard's move */
	int own_rate;         /* 1: both rates are the bot's own predictions
				 (enough of them), 0: the samples' */
	/* the bot's own rates in each score, the model's and hard's, and
	 * whether there were enough predictions in that score (else 0) */
	double score_accuracy[KB_SCORES], score_hard_accuracy[KB_SCORES];
	int score_own[KB_SCORES];
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

/* After kb_model_observe accepted a decision made in score sc: whether
 * the model the observer played with predicted it (hit 1) or not (0),
 * and whether it was hard's move (hard_hit 1) or not. */
void kb_model_observe_prediction(kb_model_stats *st, enum kb_score sc, int hit, int hard_hit);

/* The score (enum kb_score) when seat s decides in pos, seat 0 the bot. */
enum kb_score kb_model_score(const kb_pos *pos, int s);

/* Add the counts of b to a and append b's samples, oldest first, to a's
 * ring (merging two stores). */
void kb_model_stats_add(kb_model_stats *a, const kb_model_stats *b);

/* Number of valid samples in st (min(decisions, KB_SAMPLES)). */
int kb_model_samples(const kb_model_stats *st);

/* Fit the model from st (all zero: the prior). */
void kb_model_fit(kb_model *m, const kb_model_stats *st);

/* The prior model (what kb_model_fit gives for no data). */
void kb_model_prior(kb_model *m);

/* Rebuild the faded statistics of st from its samples alone (records of
 * older versions and imports, which keep only the samples). */
void kb_model_stats_rebuild(kb_model_stats *st);

/* The index rule r plays among mask (two or more bits) for seat s with
 * die d.  Fast: it computes only the features the rule needs. */
int kb_rule_pick(enum kb_rule r, const kb_pos *pos, int s, int d, unsigned mask);

/* Name of rule r ("capture>rear", ...). */
const char *kb_rule_name(enum kb_rule r);

/* The most likely index under m (lowest on ties), for a mask of two or
 * more bits. */
int kb_model_pick(const kb_model *m, const kb_pos *pos, int s, int d, unsigned mask);

/* 1 when the search should ask m for the opponent's move in score sc:
 * m's most likely move was the move played clearly more often than
 * hard's (KB_MODEL_USEFUL_MARGIN), and often enough.  Only then is the
 * model worth more to the search than the default assumption (hard),
 * which learning off uses.
 *   - Once the bot made KB_MODEL_JUDGED_ENOUGH predictions in score sc:
 *     its own rates in that score, and a rate of at least
 *     KB_MODEL_USEFUL_SCORE_ACCURACY.
 *   - Before that, over both scores, at least 9 decisions of 10: the
 *     bot's own rates (recent_predicted / recent_judged) once it judged
 *     30 decisions, before that the samples' (fitted to them, so
 *     optimistic), and only for a model that believes easy, hard or a
 *     rule (kb_model_awaits_own_rate). */
int kb_model_useful_at(const kb_model *m, enum kb_score sc);

/* 1 when m is useful in either score (kb_model_useful_at). */
int kb_model_useful(const kb_model *m);

/* 1 when m's rates are still the samples' and its most likely move comes
 * from the logit's fitted weights (it believes the heuristic, or random,
 * which leaves the choice to the logit): kb_model_useful waits for the
 * bot's own rate, since ten weights flatter themselves on the samples
 * they were fitted to far more than the choice of one rule does. */
int kb_model_awaits_own_rate(const kb_model *m);

/* Probability of each legal index of mask (p[i] = 0 for the others; they
 * sum to 1 when mask != 0).  Fast: no allocation, one feature pass. */
void kb_model_probs(const kb_model *m, const kb_pos *pos, int s, int d,
		    unsigned mask, double p[KB_PIECES]);

/* The component with the largest weight, and a short word for it
 * ("easy", "hard", "random", "heuristic", "rule"). */
enum kb_component kb_model_belief(const kb_model *m);
const char *kb_component_name(enum kb_component c);

/* Name of feature k ("foremost", "capture", ...). */
const char *kb_feature_name(int k);

#endif
