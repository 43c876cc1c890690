/* svg.h - a position as an SVG picture: the one owner of the drawing.
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
 * This file is the one owner of the drawing: kimble-judge svg and its HTML
 * viewer (judge/svg.h, judge/html.h) and kimble-server's live pages
 * (judge/server/http.h) draw through kb_svg_frame, with the facts of a
 * frame from kb_frame_at (a position with its roll) or judge/svg.h's
 * kj_frame_of (a roll of a transcript).
 *
 * From the roll on which a seat's bot forfeited, every picture says so
 * under the panel, in two lines: who, when and why ("C dier forfeited at
 * roll 19 (exit)", a long name shortened with "..."), and which policy
 * finished the seat.  Every line of the panel stays within the picture
 * (KB_SVG_PANEL_W from x KB_SVG_PANEL_X, at 0.6 x the font size a
 * character): long lines are wrapped, or set smaller, never cut off.
 */
#ifndef KB_SVG_H
#define KB_SVG_H

#include <stdint.h>
#include <stdio.h>

#include "core/facts.h"

#define KB_SVG_WIDTH 780
#define KB_SVG_HEIGHT 480
#define KB_SVG_PANEL_X 480 /* the panel's text starts here */
#define KB_SVG_PANEL_W (KB_SVG_WIDTH - KB_SVG_PANEL_X)

/* Layers of kb_svg_frame: the ring, goals and names (the same for a whole
 * game), and what changes from roll to roll. */
enum { KB_SVG_BACK = 1, KB_SVG_FRONT = 2, KB_SVG_ALL = 3 };

/* A seat's forfeit as a picture tells it. */
typedef struct kb_frame_forfeit {
	uint32_t roll;        /* the roll of the forfeit, 0: before the first */
	char reason[16];      /* "timeout", "exit", ...; "": no forfeit (yet) */
	char replacement[16]; /* the policy that finished the seat */
} kb_frame_forfeit;

/* One frame: a position and what is known about it. */
typedef struct kb_frame {
	char board[KB_BOARD_LEN];
	unsigned present;          /* seats that play (bit s; bits above D
				      are ignored) */
	char name[KB_SEATS][64];   /* empty: the seat letter only */
	uint32_t roll;             /* 1-based roll shown; rolls + 1: the final position */
	uint32_t rolls;            /* rolls in the game (0: unknown, a live game) */
	kb_facts fx;               /* the roll's facts (fx.seat < 0: none) */
	int over;                  /* the game has ended (last frame) */
	int winner;                /* its winner, or -1 */
	char result[128];          /* how it ended ("win", a forfeit, ...) */
	kb_frame_forfeit forfeit[KB_SEATS]; /* seats whose bot had forfeited by this roll */
} kb_frame;

/* A frame of a position: board before roll `roll` (0: none yet), seat s
 * rolled die and played index (-1: none or not yet).  names may be NULL. */
void kb_frame_at(kb_frame *fr, const char board[KB_BOARD_LEN], unsigned present,
		 const char *const names[KB_SEATS], uint32_t roll, int s, int die, int index);

/* Draw the layers of frame fr as one <svg> element (KB_SVG_WIDTH x KB_SVG_HEIGHT). */
void kb_svg_frame(FILE *f, const kb_frame *fr, int layers);

/* One picture: the board before roll n, with the roll shown (no names). */
void kb_svg_board(FILE *f, const char board[KB_BOARD_LEN], int seat, int die, unsigned present);

/* s with & < > " escaped for XML text and attributes. */
void kb_xml_text(FILE *f, const char *s);

/* The parts of kb_svg_frame, for pictures of several frames (an animation):
 * the <svg> start tag, the layers of fr without a tag, and the end tag. */
void kb_svg_open(FILE *f);
void kb_svg_back(FILE *f, const kb_frame *fr);
void kb_svg_front(FILE *f, const kb_frame *fr);

#endif
