/* draw.h - a board as a picture in the terminal.
 *
 * The ring is drawn as a square, A's start at the top left and play going
 * clockwise, with each seat's goal running diagonally out of the corner
 * before its start square (the layout of the server page's Python client,
 * with room between squares).  Empty squares are '.', pieces their seat's
 * letter; the roll is shown in the middle, and below it a line per seat
 * names its corner (where its goal diagonal ends) with its home and goal
 * counts: "A top left: home 2, goal 1".
 */
#ifndef KB_DRAW_H
#define KB_DRAW_H

#include <stdio.h>

#include "board.h"
#include "facts.h"

/* Draw board (44 characters) to out.  seat/die: the roll to show in the
 * middle (seat outside 0..3: none).  present: seats that play (bit s), for the
 * home-piece counts; 0 shows seats that have a piece on the board.
 * color: 1 for ANSI colours.  Returns 0, or -1 on a write error. */
int kb_draw_board(FILE *out, const char board[KB_BOARD_LEN], int seat, int die,
		  unsigned present, int color);

/* The facts of a roll in words (facts.h kb_facts_text), one line.
 * Returns 0, or -1 on a write error. */
int kb_draw_facts(FILE *out, const kb_facts *fx);

#endif
