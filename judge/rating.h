/* rating.h - one rating list for a whole tournament, from finishing places.
 *
 * Model (Bradley-Terry on the pairs of places).  Bot i has a strength
 * theta_i; in any game where bots i and j both sit,
 *
 *     P(i placed ahead of j) = 1 / (1 + exp(theta_j - theta_i)).
 *
 * Every pair of seats of every game is one observation: 1 when i placed
 * ahead, 0 behind, 1/2 on an equal place.  When finishing orders follow a
 * Plackett-Luce model with weights exp(theta) these pairwise chances hold
 * exactly (Luce's choice axiom), so the fit estimates the Plackett-Luce
 * strengths too, while equal places need no special rule.
 *
 * The strengths maximise the sum of the pairs' log-likelihoods (Newton's
 * method) with a weak ridge (KJ_RATING_RIDGE * sum theta^2 / 2), which
 * keeps a bot that never lost finite and anchors the list: the ratings sum
 * to zero, so a rating says how much stronger than the field's average a
 * bot is.  The pairs of one game, and the games of one duplicate deal,
 * share dice, so they are not independent; the covariance is therefore
 * the cluster-robust "sandwich" H^-1 B H^-1 (H the information, B the sum
 * over clusters of the outer product of each cluster's score, scaled by
 * G/(G-1) for G clusters), which stays honest where the naive H^-1 would
 * claim too much.  Ratings and intervals are reported on the Elo scale
 * (400 / ln 10 per unit of theta); intervals are +-1.96 standard errors.
 *
 * The module knows nothing of files or processes: the report feeds it the
 * places of kj_result records, and the tests feed it simulated tournaments.
 */
#ifndef KJ_RATING_H
#define KJ_RATING_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#define KJ_RATING_MAX_BOTS 64
#define KJ_RATING_RIDGE 1e-3

/* Outcomes of kj_rating_fit (a range of their own, apart from errno). */
enum kj_rating_status {
	KJ_RATING_OK = 0,
	KJ_RATING_BAD_INPUT = -601, /* a bot number out of range, fewer than 2 seats */
	KJ_RATING_NO_MEMORY = -602,
	KJ_RATING_NO_CONVERGENCE = -603 /* Newton did not settle (not seen in practice) */
};

/* One game: the bots that sat in it and their finishing places (1 best,
 * equal numbers for equal places).  Games with the same cluster number
 * are treated as dependent (use the duplicate deal). */
typedef struct kj_rating_game {
	uint32_t cluster;
	int seats;
	int bot[4];
	int place[4];
} kj_rating_game;

typedef struct kj_rating {
	int nbots;
	uint32_t games, clusters;
	double elo[KJ_RATING_MAX_BOTS];   /* the fitted rating, mean zero */
	double se[KJ_RATING_MAX_BOTS];    /* its standard error (Elo) */
	double lo[KJ_RATING_MAX_BOTS], hi[KJ_RATING_MAX_BOTS]; /* 95% interval */
	double *cov;                      /* nbots x nbots covariance, Elo^2 */
} kj_rating;

/* Fit nbots (2..KJ_RATING_MAX_BOTS) bots numbered 0..nbots-1 from n games.
 * Returns KJ_RATING_OK with out filled (free it with kj_rating_free), or
 * one of the statuses above with err naming what was wrong and out holding
 * no memory (out->cov NULL).  A bot in no game gets rating 0 with an
 * infinite interval. */
int kj_rating_fit(const kj_rating_game *games, size_t n, int nbots, kj_rating *out,
		  kb_err *err);

/* Rating of bot b minus bot a, with its 95% interval from the covariance
 * (anchoring the list at bot a instead of the average). */
void kj_rating_versus(const kj_rating *r, int b, int a, double *diff, double *lo, double *hi);

/* The order of the bots, best first (ties by number): fills order[nbots]. */
void kj_rating_order(const kj_rating *r, int *order);

void kj_rating_free(kj_rating *r);

#endif
