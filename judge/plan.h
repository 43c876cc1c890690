/* plan.h - which games a tournament plays, in a fixed order.
 *
 * A deal is one game seed (and start position) played once per rotation
 * of its lineup through the table's seats (the duplicate format): with n
 * participants the seats used are A (n = 1), A C (2), A B C (3), A B C D
 * (4), and rotation r puts lineup member (k + r) mod n in the k-th seat.
 * Each seat rolls from its own dice stream of the deal's seed, so every
 * participant gets, in each seat, exactly the rolls the others got there.
 *
 * Deal d has seed kb_stream_seed(S, KB_TAG_GAME, d) and start position
 * d mod M of the M start positions (none: the normal start).  Game index
 * = d * n + r.  A shard K/N plays the games with index mod N = K - 1.
 *
 * Formats: round robin (every combination of n participants, each played
 * `rounds` deals), gauntlet (participant 0 with every combination of n - 1
 * others), fixed (participants 0..n-1 in that order, `rounds` deals).
 */
#ifndef KJ_PLAN_H
#define KJ_PLAN_H

#include <stdint.h>

#include "core/board.h"
#include "core/rules.h"

#define KJ_MAX_BOTS 64

enum kj_format { KJ_ROUND_ROBIN, KJ_GAUNTLET, KJ_FIXED };

typedef struct kj_game_spec {
	uint32_t index;         /* game number in the whole plan */
	uint32_t deal;
	uint32_t rotation;
	uint64_t seed;
	int8_t seat[KB_SEATS];  /* participant index, -1 absent */
	int start;              /* start position index, -1 none */
} kj_game_spec;

typedef struct kj_plan {
	kj_game_spec *games;
	uint32_t ngames;
	uint32_t ndeals;
	int table;              /* n: seats per game */
} kj_plan;

/* Build the plan.  nbots participants, table size (1..4, at most nbots for
 * round robin and gauntlet, exactly nbots for fixed), rounds deals per
 * lineup, nstarts start positions (0: none).  Returns 0, or -1 with err
 * (bad sizes, more than 1e6 games, out of memory). */
int kj_plan_build(kj_plan *plan, enum kj_format fmt, int nbots, int table, uint32_t rounds,
		  uint64_t seed, int nstarts, kb_err *err);

void kj_plan_free(kj_plan *plan);

/* Seat of the k-th table place for a table of n. */
int kj_table_seat(int n, int k);

/* The seats a table of n (1..4) plays, as a mask (bit s for seat s); 0
 * for any other n. */
unsigned kj_table_present(int n);

/* A start position: board (absolute seats), seat to roll, its die (0:
 * from the dice). */
typedef struct kj_start {
	kb_pos pos;
	int turn, die;
} kj_start;

/* Read start positions, one per line "BOARD X D" (44-character board,
 * seat letter, die 0..6); blank lines and lines starting with '#' are
 * skipped.  present: the table's seats.  Returns the count (>= 1) with
 * *out malloc'ed, or -1 with err naming the file, line and what was
 * expected (or "start positions PATH: out of memory"). */
int kj_starts_read(const char *path, unsigned present, kj_start **out, kb_err *err);

#endif
