/* game.h - one game of Kimble from a seed: dice, turn order, built-in
 * seats, autopilot, and stops where an outside player must decide.
 *
 * This is the referee that the server, the judge and the benches share.
 * A game seeded with S (rng.h) draws its first seat from stream
 * (S, KB_TAG_FIRST, 0) uniformly among the present seats (in seat order),
 * and seat s's dice from stream (S, KB_TAG_DICE, s); a built-in random seat
 * draws from (S, KB_TAG_POLICY, s).  A seat's n-th roll is therefore the
 * same whoever sits there.
 *
 * kb_game_advance() plays rolls until a seat controlled from outside
 * (KB_EXTERNAL) must choose between two or more legal moves, or the game
 * ends.  Rolls with no legal move pass; rolls with one legal index are
 * played by autopilot; built-in seats play their policy.
 */
#ifndef KB_GAME_H
#define KB_GAME_H

#include <stdint.h>

#include "board.h"
#include "policy.h"
#include "rng.h"
#include "rules.h"

/* How a roll's move was chosen. */
enum kb_how {
	KB_PASS = 0,     /* no legal move */
	KB_AUTO = 1,     /* exactly one legal index */
	KB_BUILTIN = 2,  /* a built-in policy chose */
	KB_DECIDED = 3   /* an outside player chose */
};

/* One roll as it happened; board is the position before the move. */
typedef struct kb_roll {
	char board[KB_BOARD_LEN];
	int seat;
	int die;
	int index;      /* piece moved, -1 for a pass */
	enum kb_how how;
	int captured;   /* seat sent home, or -1 */
} kb_roll;

/* Called when a roll is made (index still unknown, -1) and when it has been
 * played; either may be NULL. */
typedef struct kb_hooks {
	void (*rolled)(void *ctx, const kb_roll *roll);
	void (*played)(void *ctx, const kb_roll *roll);
	void *ctx;
} kb_hooks;

typedef struct kb_game {
	kb_pos pos;
	kb_rng dice[KB_SEATS];
	kb_rng policy_rng[KB_SEATS];
	uint8_t ctl[KB_SEATS];  /* enum kb_policy per seat */
	int8_t turn;            /* seat that rolls next */
	int8_t winner;          /* KB_NO_WINNER until the end */
	int8_t pending_seat;    /* outside seat that must decide, or -1 */
	int8_t pending_die;     /* its die */
	int8_t forced_die;      /* next roll's die if > 0 (start positions) */
	uint32_t rolls;         /* rolls made so far */
	uint64_t seed;
	kb_roll last;           /* the pending roll while a decision waits */
} kb_game;

/* Start a game from the start position.  ctl[s] is the controller of seat
 * s (KB_ABSENT for an absent seat; seat A is present whatever ctl[0] says
 * and then counts as KB_EXTERNAL). */
void kb_game_init(kb_game *g, uint64_t seed, const uint8_t ctl[KB_SEATS]);

/* Start from a given position: seat turn rolls next, and its first roll is
 * die (1..6) when die > 0.  The position's present mask must agree with ctl
 * (absent seats all home); returns 0, or -1 if the position is unsound or a
 * seat has already won. */
int kb_game_init_at(kb_game *g, uint64_t seed, const uint8_t ctl[KB_SEATS],
		    const kb_pos *pos, int turn, int die);

/* Play until an outside seat must decide (returns that seat, with
 * g->pending_seat/pending_die/last set) or the game ends (returns -1,
 * g->winner set). */
int kb_game_advance(kb_game *g, const kb_hooks *hooks);

/* Legal mask of the pending decision (0 when none is pending). */
unsigned kb_game_pending_mask(const kb_game *g);

/* Play index idx for the pending decision.  Returns 0, or -1 when no
 * decision is pending or idx is not legal (nothing changes then). */
int kb_game_decide(kb_game *g, int idx, const kb_hooks *hooks);

/* Number of present seats of a controller array (A always counts). */
int kb_ctl_seats(const uint8_t ctl[KB_SEATS]);

#endif
