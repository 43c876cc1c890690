/* observe.h - reconstruct what was played from consecutive state lines.
 *
 * A state line shows the board BEFORE a roll's move, the seat that rolled
 * and its die.  The next state line's board is therefore the result of one
 * legal move of that roll (or the same board when the roll had no legal
 * move), and the next roller follows from the turn order.  Different legal
 * moves of one roll always give different boards (the moved piece ends on a
 * different square), so the board pair names the index that was chosen.
 *
 * A kb_tracker follows one game line by line from the bot's point of view
 * (the bot is seat A), checks every transition and hands each roll that
 * offered a real choice (two or more legal indices) to a callback as a
 * kb_observation: this is what opponent learning consumes.
 *
 * Nothing here allocates.
 */
#ifndef KB_BOT_OBSERVE_H
#define KB_BOT_OBSERVE_H

#include "core/board.h"
#include "core/rules.h"
#include "core/wire.h"

/* One decided roll: the position before it, who rolled what, the legal
 * mask (>= 2 bits) and the index that was played. */
typedef struct kb_observation {
	kb_pos pos;
	int seat;
	int die;
	unsigned mask;
	int index;
} kb_observation;

typedef void (*kb_observe_fn)(void *ctx, const kb_observation *ob);

/* Which legal index of (seat, die) turns before into after, mask being
 * kb_legal(before, seat, die) (the tracker already holds it): returns the
 * index, -1 for a pass (no legal move and after == before), or -2 when no
 * legal move (and no pass) gives after. */
int kb_observe_step(const kb_pos *before, int seat, int die, unsigned mask,
		    const kb_pos *after);

typedef struct kb_tracker {
	unsigned present;   /* seats that play */
	int have;           /* a state line is pending (pos/seat/die valid) */
	kb_pos pos;         /* board of the pending line */
	int seat, die;      /* roller and die of the pending line */
	unsigned mask;      /* its legal mask */
	int own_index;      /* A's chosen index for a pending A decision, or -1 */
	long lines;         /* state lines accepted */
	kb_observe_fn fn;   /* may be NULL */
	void *ctx;
} kb_tracker;

/* Start tracking a game whose present seats are given (bit 0 always). */
void kb_tracker_init(kb_tracker *t, unsigned present, kb_observe_fn fn, void *ctx);

/* Accept the next state line.  The first line of a game may show any sound
 * board (a game joined mid-way); every later one must follow from the
 * pending line: its board the result of a legal move of that roll (A's own
 * choice when recorded with kb_tracker_own_move), its seat the next roller.
 * Returns 0, or -1 with err naming the line and what was expected. */
int kb_tracker_line(kb_tracker *t, const kb_line *line, kb_err *err);

/* Record A's choice for the pending A line (legal index). */
void kb_tracker_own_move(kb_tracker *t, int index);

/* Check a "Voittaja: X" line: the pending roll must be able to make seat
 * X win.  Such a move is its roll's only legal move, so it is no choice:
 * not checked against A's recorded move, not reported to the observer.
 * Returns 0 or -1 with err set. */
int kb_tracker_winner(kb_tracker *t, int seat, kb_err *err);

#endif
