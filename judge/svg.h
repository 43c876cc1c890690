/* svg.h - board pictures of a transcript as SVG (PNG through rsvg-convert
 * or ImageMagick's convert when one is installed).
 *
 * The layout is the terminal picture's (core/draw.h): the ring as a square
 * with A's start at the top left, each goal running diagonally out of the
 * corner before its seat's start; the roll in the middle, home pieces in
 * the corners.  An animated picture shows every position of the game in
 * turn, half a second each (SMIL <set> elements, so browsers play it
 * without scripts), and stays on the final position.  From the roll on
 * which a seat's bot forfeited, every picture says so at the bottom.
 */
#ifndef KJ_SVG_H
#define KJ_SVG_H

#include <stdio.h>

#include "core/transcript.h"

/* One picture: the board before roll n, with the roll shown. */
void kj_svg_board(FILE *f, const char board[KB_BOARD_LEN], int seat, int die, unsigned present);

/* Write to path (NULL: stdout) the position before roll n of tx (n =
 * nrolls + 1: the final position), or with n = 0 the whole game animated.
 * A path ending in .png is converted (a still picture only).  Returns 0,
 * or -1 with err (n out of range, an animation to a path not ending in
 * .svg, cannot write, no converter for PNG). */
int kj_svg_write(const char *path, const kb_transcript *tx, uint32_t n, kb_err *err);

/* 1 if an animation may be written to path: NULL (stdout) or a name ending
 * in .svg (PNG and other formats hold no animation). */
int kj_svg_anim_path_ok(const char *path);

#endif
