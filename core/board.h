/* board.h - the 44-character board string and points of view.
 *
 * Board characters (docs/spec.md section 2): index 0..27 the ring, 28..31 A's
 * goal, 32..35 B's, 36..39 C's, 40..43 D's; each 'A'..'D' for a piece of
 * that seat or '0' for empty.  Home pieces do not appear.
 *
 * Rotation to seat v's point of view renames seat s as (s - v) mod 4: the
 * judge shows every bot itself as A.  Rotating by v and then by (4 - v) mod 4
 * gives back the original.
 */
#ifndef KB_BOARD_H
#define KB_BOARD_H

#include <stddef.h>

#include "err.h"
#include "rules.h"

#define KB_BOARD_LEN 44


/* Write the board of pos to out (exactly 44 characters, no terminator). */
void kb_board_format(const kb_pos *pos, char out[KB_BOARD_LEN]);

/* Parse a board string of len characters into pos.  present is the mask
 * of seats that play (bit 0, A, always); pieces not on the board are home.
 * Returns 0, or -1 with err set (err may be NULL) when the string is not a
 * board a legal game can show: wrong length, a character other than
 * 0/A/B/C/D, a piece of an absent seat, a seat's piece in another seat's
 * goal, more than four pieces of a seat. */
int kb_board_parse(const char *str, size_t len, unsigned present, kb_pos *pos,
		   kb_err *err);

/* The letter of seat s rotated to seat v's point of view. */
static inline char kb_seat_rotate(char letter, int v)
{
	return (char)('A' + (((letter - 'A') - v) & 3));
}

/* Rotate a board string to seat v's point of view (v = 0 copies).  The
 * input must consist of valid board characters; others are copied. */
void kb_board_rotate(const char in[KB_BOARD_LEN], int v, char out[KB_BOARD_LEN]);

/* Rotate a position (a renaming of seats, progress is seat-relative). */
void kb_pos_rotate(const kb_pos *in, int v, kb_pos *out);

/* Rotate a seat mask to seat v's point of view. */
unsigned kb_mask_rotate(unsigned mask, int v);

#endif
