/* draw.h - a board as a picture in the terminal.
 *
 * The ring is drawn as a square, A's start at the top left and play going
 * clockwise, with each seat's goal running diagonally out of the corner
 * before its start square (the layout of the server page's Python client,
 * with room between squares).  Empty squares are '.', pieces their seat's
 * letter; the roll is shown in the middle and each seat's home pieces below.
 */
#ifndef KB_DRAW_H
#define KB_DRAW_H

#include <stdio.h>

#include "board.h"

/* Draw board (44 characters) to out.  seat/die: the roll to show in the
 * middle (seat < 0: none).  present: seats that play (bit s), for the
 * home-piece counts; 0 shows seats that have a piece on the board.
 * color: 1 for ANSI colours.  Returns 0, or -1 on a write error. */
int kb_draw_board(FILE *out, const char board[KB_BOARD_LEN], int seat, int die,
		  unsigned present, int color);

#endif
