/* facts.h - what a roll means, in the words and squares a picture needs.
 *
 * For one roll (the position before it, the seat and die, the piece index
 * played) the rules engine (rules.h) gives the pieces that could have
 * moved, where the moved piece came from and went to, and whom it sent
 * home.  The SVG pictures (judge/svg.h), the HTML viewer and the terminal
 * board (draw.h) all describe a roll from these facts, so the rules live
 * in one place.
 *
 * Squares are board indexes (board.h): 0..27 the ring, 28 + 4s + k the
 * k-th goal square of seat s; KB_SQ_HOME means off the board.
 */
#ifndef KB_FACTS_H
#define KB_FACTS_H

#include <stddef.h>

#include "board.h"

#define KB_SQ_HOME (-1)

typedef struct kb_facts {
	int seat, die;                 /* the roll; seat -1: no roll (final position) */
	unsigned legal;                /* piece indices that could move (bit i) */
	int legal_from[KB_PIECES];     /* square of legal piece i, before */
	int legal_to[KB_PIECES];       /* and where the die would take it */
	int index;                     /* piece moved, -1: none (a pass) */
	int from, to;                  /* squares of the move (index >= 0) */
	int captured;                  /* seat sent home by the move, or -1 */
	int home[KB_SEATS], goal[KB_SEATS]; /* pieces home / in goal, before */
} kb_facts;

/* Board index of progress prog (KB_HOME, 0..31) of seat s. */
int kb_square_of(int s, int prog);

/* Facts of one roll: board before it, present seats, seat s rolled die,
 * played piece index (-1 none); s < 0 describes a position without a
 * roll (counts only).  Returns 0, or -1 when the board does not parse,
 * when s is past D, the die outside 1..6 or seat s absent (the counts are
 * filled, no legal piece), or when index is not legal (then the move
 * fields say none). */
int kb_facts_of(const char board[KB_BOARD_LEN], unsigned present, int s, int die, int index,
		kb_facts *out);

/* Name of square sq: "home", "ring 12" or "goal B3" (goal squares 1..4 of a seat; out >= 16 bytes). */
void kb_square_name(int sq, char *out, size_t size);

/* One line in words: "rolls 6, could move 0 (ring 3 -> ring 9), 2 (home
 * -> ring 7); moves 0 from ring 3 to ring 9, captures C" (no newline). */
void kb_facts_text(const kb_facts *fx, char *out, size_t size);

/* Where seat s's corner is drawn: "top left", "top right", ... */
const char *kb_corner_name(int s);

#endif
