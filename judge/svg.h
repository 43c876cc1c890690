/* svg.h - board pictures of a transcript as SVG (PNG through rsvg-convert
 * or ImageMagick's convert when one is installed).
 *
 * The layout is the terminal picture's (core/draw.h): the ring as a square
 * with A's start at the top left, each goal running diagonally out of the
 * corner before its seat's start.  Every seat's name stands next to its
 * start square in its colour; its home pieces wait in its corner of the
 * ring's inside, the die in the middle.  A panel on the right tells the
 * roll number, the seats (name, home and goal counts, whose turn), the
 * pieces that could move, the move (from and to, a capture), and on the
 * last frame the winner and how the game ended.  On the board the pieces
 * that could move are ringed, the move is an arrow and a captured piece is
 * crossed out.  The facts come from the rules engine (core/facts.h).
 *
 * This file is the one owner of the drawing: kimble-judge svg, the HTML
 * viewer (html.h) and anything that shows a live position draw through
 * kj_svg_frame with facts from kj_frame_of (a transcript) or
 * kj_frame_at (a position with its roll).
 *
 * An animated picture shows every position of the game in turn, half a
 * second each (SMIL <set> elements, so browsers play it without scripts),
 * and stays on the final position.
 *
 * From the roll on which a seat's bot forfeited, every picture says so
 * under the panel (who, when, why, and which policy finished the seat).
 */
#ifndef KJ_SVG_H
#define KJ_SVG_H

#include <stdio.h>

#include "core/facts.h"
#include "core/transcript.h"

#define KJ_SVG_WIDTH 780
#define KJ_SVG_HEIGHT 480

/* Layers of kj_svg_frame: the ring, goals and names (the same for a whole
 * game), and what changes from roll to roll. */
enum { KJ_SVG_BACK = 1, KJ_SVG_FRONT = 2, KJ_SVG_ALL = 3 };

/* One frame: a position and what is known about it. */
typedef struct kj_frame {
	char board[KB_BOARD_LEN];
	unsigned present;          /* seats that play (bit s) */
	char name[KB_SEATS][64];   /* empty: the seat letter only */
	uint32_t roll;             /* 1-based roll shown; rolls + 1: the final position */
	uint32_t rolls;            /* rolls in the game (0: unknown, a live game) */
	kb_facts fx;               /* the roll's facts (fx.seat < 0: none) */
	int over;                  /* the game has ended (last frame) */
	int winner;                /* its winner, or -1 */
	char result[128];          /* how it ended ("win", a forfeit, ...) */
	char forfeit[KB_SEATS][96]; /* seats whose bot had forfeited by this roll */
} kj_frame;

/* Frame n (1..nrolls + 1) of a transcript.  Returns 0, or -1 when n is out
 * of range. */
int kj_frame_of(const kb_transcript *tx, uint32_t n, kj_frame *fr);

/* A frame of a position: board before roll `roll` (0: none yet), seat s
 * rolled die and played index (-1: none or not yet).  names may be NULL. */
void kj_frame_at(kj_frame *fr, const char board[KB_BOARD_LEN], unsigned present,
		 const char *const names[KB_SEATS], uint32_t roll, int s, int die, int index);

/* Draw the layers of frame fr as one <svg> element (KJ_SVG_WIDTH x KJ_SVG_HEIGHT). */
void kj_svg_frame(FILE *f, const kj_frame *fr, int layers);

/* One picture: the board before roll n, with the roll shown (no names). */
void kj_svg_board(FILE *f, const char board[KB_BOARD_LEN], int seat, int die, unsigned present);

/* Write to path (NULL: stdout) the position before roll n of tx (n =
 * nrolls + 1: the final position), or with n = 0 the whole game animated.
 * A path ending in .png is converted.  Returns 0, or -1 with err (n out of
 * range, cannot write, no converter for PNG). */
int kj_svg_write(const char *path, const kb_transcript *tx, uint32_t n, kb_err *err);

/* 1 if an animation may be written to path: NULL (stdout) or a name ending
 * in .svg (PNG and other formats hold no animation). */
int kj_svg_anim_path_ok(const char *path);

/* s with & < > " escaped for XML text and attributes. */
void kj_xml_text(FILE *f, const char *s);

#endif
