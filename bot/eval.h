/* eval.h - the leaf evaluation: an estimate of A's win probability.
 *
 * Each present seat s gets a strength score
 *
 *     S_s = sum over its pieces of piece[type][bucket(progress)]
 *           + sum over its pairs of pieces of pair[type][bucket][bucket]
 *           + danger[type] * (expected pieces lost to the opponents' next rolls)
 *           + dprog[type]  * (the same weighted by progress / 28)
 *           + sum over those next-roll hits of hit[type][bucket] / 6
 *           + sum over its ring pieces and every opponent piece k = 1..12
 *             squares behind that can still reach it of
 *             behind[type][k][progress / 4] (k = 0: it stands on the
 *             start square of an opponent with a piece at home)
 *           + tempo[type]  * (1 if s rolls next)
 *
 * where type is the kind of player in the seat (the bot itself, easy or
 * hard; other models count as hard) combined with the number of opponents
 * (1, 2 or 3: each game size has its own weights), and bucket 0 is home, 1..28 ring
 * progress 0..27, 29..32 the goal squares.  The estimate is the softmax
 * P(A wins) = exp(S_A) / sum_s exp(S_s): a multinomial logistic model whose
 * weights are fitted to self-play outcomes by kimble-tune (bot/tune/tune.sh)
 * and committed in bot/weights.h.
 *
 * Nothing here allocates or fails.
 */
#ifndef KB_BOT_EVAL_H
#define KB_BOT_EVAL_H

#include "core/policy.h"
#include "core/rules.h"

/* kinds[s], whose weights score seat s: KB_EVAL_SELF for the bot (seat A),
 * else KB_EASY or KB_HARD (core/policy.h), the built-in the seat plays
 * most like (kb_nearest_builtin, opponent.h). */
#define KB_EVAL_SELF 0
_Static_assert(KB_EASY == 1 && KB_HARD == 2, "a seat's kind indexes its weights");
#define KB_EVAL_KINDS 3   /* the bot, easy, hard (and others) */
#define KB_EVAL_TYPES 9   /* kind + 3 * (opponents - 1): a set per game size */
#define KB_EVAL_BUCKETS 33
#define KB_EVAL_REACH 13  /* behind distances 0..12 */
#define KB_EVAL_ZONES 7   /* ring progress / 4 */

typedef struct kb_weights {
	float piece[KB_EVAL_TYPES][KB_EVAL_BUCKETS];
	float danger[KB_EVAL_TYPES];
	float dprog[KB_EVAL_TYPES];
	float tempo[KB_EVAL_TYPES];
	/* [bucket of the foremost of the two][bucket of the other] */
	float pair[KB_EVAL_TYPES][KB_EVAL_BUCKETS][KB_EVAL_BUCKETS];
	float hit[KB_EVAL_TYPES][KB_EVAL_BUCKETS];
	float behind[KB_EVAL_TYPES][KB_EVAL_REACH][KB_EVAL_ZONES];
} kb_weights;

/* The committed weights (bot/weights.h). */
extern const kb_weights kb_weights_default;

/* The per-seat inputs of the score. */
typedef struct kb_seat_features {
	int bucket[KB_PIECES]; /* bucket of each piece */
	double danger;         /* sum over opponent rolls of 1/6 per piece hit */
	double dprog;          /* the same weighted by (progress + 1) / 28 */
	int tempo;             /* 1 if this seat rolls next */
	int nhit;              /* next-roll hits on this seat (each 1/6) */
	uint8_t hit[3 * 6];    /* bucket of the piece each would hit */
	int nnear;             /* opponent pieces within reach */
	uint8_t near[KB_PIECES * 3 * (KB_PIECES + 1)]; /* behind cell: k * ZONES + zone */
} kb_seat_features;

/* Bucket of a progress value. */
static inline int kb_eval_bucket(int r)
{
	return r + 1; /* KB_HOME (-1) -> 0, 0..31 -> 1..32 */
}

/* Features of every present seat when seat turn rolls next; types says
 * how each seat picks its move (0 and 2: foremost, 1: rearmost), which
 * decides which piece an opponent's roll moves and so what it hits. */
void kb_eval_features(const kb_pos *pos, const uint8_t kinds[KB_SEATS], int turn,
		      kb_seat_features f[KB_SEATS]);

/* The weight set of a seat of kind 0..2 in a game with these seats. */
static inline int kb_eval_type(const kb_pos *pos, int kind)
{
	int opps = __builtin_popcount(pos->present & 0xf) - 1;
	return kind + 3 * (opps < 1 ? 0 : opps > 3 ? 2 : opps - 1);
}

/* Score S_s of one seat of type (kb_eval_type) from its features. */
double kb_eval_score(const kb_weights *w, int type, const kb_seat_features *f);

/* Add delta times the gradient of kb_eval_score(w, type, f) with respect
 * to the weights to w (one step of gradient ascent on the seat's score). */
void kb_eval_step(kb_weights *w, int type, const kb_seat_features *f, double delta);

/* P(A wins) when seat turn rolls next; kinds[s] is the kind of seat s.
 * 1 or 0 when a seat has already won. */
double kb_eval(const kb_weights *w, const uint8_t kinds[KB_SEATS], const kb_pos *pos,
	       int turn);

/* Seat A's greedy one-ply move with die d: the index in mask (legal
 * moves, non-zero) whose resulting position kb_eval scores best, a winning
 * move at once; ties go to the lowest index.  Used where a search is too
 * dear: rollouts and self-play training. */
int kb_eval_greedy(const kb_weights *w, const uint8_t kinds[KB_SEATS], const kb_pos *pos,
		   int d, unsigned mask);

/* kb_eval, except that for every seat s with models[s] non-NULL the danger
 * terms move the piece that model predicts (kb_opponent_pick) instead of
 * the piece its type picks: a learned model then decides what the
 * opponents' next rolls threaten, not only their replies in the search.
 * models may be NULL (then exactly kb_eval).  Costs one model evaluation
 * per die with two or more legal moves of each such seat. */
struct kb_opponent;
double kb_eval_models(const kb_weights *w, const uint8_t kinds[KB_SEATS],
		      const struct kb_opponent *const models[KB_SEATS], const kb_pos *pos,
		      int turn);

#endif
