/* rules.h - the Kimble rules (docs/spec.md section 1) on a compact position.
 *
 * A position holds, for each of the four seats A..D (0..3), the progress of
 * its four pieces: KB_HOME (off the board), 0..27 on the shared ring, 28..31
 * in the seat's own goal.  The pieces of a seat are kept sorted foremost
 * first with home pieces last, so array index == piece index as the server
 * names it (docs/spec.md section 1.3).  Absent seats keep four home
 * pieces and never move.
 *
 * Two pieces of one seat stand on the same square exactly when their
 * progress is equal, so own-square checks compare progress values only.
 *
 * None of these functions allocate or fail; preconditions (seat present,
 * index legal) are the caller's and are checked with assert() in debug
 * builds.
 */
#ifndef KB_RULES_H
#define KB_RULES_H

#include <stdint.h>

#define KB_SEATS 4
#define KB_PIECES 4
#define KB_HOME (-1)
#define KB_TRACK 28        /* ring squares 0..27 */
#define KB_LAST_TRACK 27   /* a seat's last ring progress */
#define KB_GOAL_FIRST 28   /* progress of the first goal square */
#define KB_GOAL_LAST 31    /* progress of the last goal square */
#define KB_NO_WINNER (-1)

typedef struct kb_pos {
	int8_t prog[KB_SEATS][KB_PIECES]; /* sorted descending, KB_HOME last */
	uint8_t present;                  /* bit s set: seat s plays */
} kb_pos;

/* The start position: every piece home; seats in the present mask play.
 * Seat A (bit 0) is always present, whatever the mask says. */
void kb_pos_init(kb_pos *pos, unsigned present);

/* 1 if seat s plays in this position. */
static inline int kb_present(const kb_pos *pos, int s)
{
	return (pos->present >> s) & 1;
}

/* Absolute ring square 0..27 of progress r (0..27) of seat s. */
static inline int kb_ring_square(int s, int r)
{
	return (7 * s + r) % KB_TRACK;
}

/* Board index (0..43) of seat s's piece at progress r (0..31): its ring
 * square, or its goal square 28 + 4s + (r - 28). */
static inline int kb_board_index(int s, int r)
{
	return r >= KB_GOAL_FIRST ? KB_TRACK + 4 * s + (r - KB_GOAL_FIRST) : kb_ring_square(s, r);
}

/* Progress 0..27 of seat s on absolute ring square sq (0..27): the
 * inverse of kb_ring_square. */
static inline int kb_ring_progress(int s, int sq)
{
	return (sq - 7 * s + KB_TRACK) % KB_TRACK;
}

/* Progress a piece at progress r reaches with die d (r + d, or the start
 * 0 for a home piece); whether that move is legal is kb_legal's answer. */
static inline int kb_move_target(int r, int d)
{
	return r == KB_HOME ? 0 : r + d;
}

/* Bit r of the result set: one of the four progress values p (KB_HOME
 * ignored) is r.  The own-square set kb_legal_occ takes. */
static inline uint32_t kb_occupancy(const int8_t p[KB_PIECES])
{
	uint32_t occ = 0;

	for (int i = 0; i < KB_PIECES && p[i] != KB_HOME; i++)
		occ |= 1u << p[i];
	return occ;
}

/* kb_legal for pieces p (one seat's prog row) whose own squares are
 * already known as occ = kb_occupancy(p): the evaluation builds that set
 * once per position and asks for six dice.  The same rule as kb_legal,
 * which stays the plain form (tests/test_rules.c compares the two). */
static inline unsigned kb_legal_occ(const int8_t p[KB_PIECES], uint32_t occ, int d)
{
	unsigned mask = 0;

	for (int i = 0; i < KB_PIECES; i++) {
		int r = p[i];

		if (r == KB_HOME) {
			/* Only the first home piece may leave, and only on a 6
			 * onto a start square free of the seat's own pieces. */
			if (d == 6 && !(occ & 1))
				mask |= 1u << i;
			break; /* the rest are home too */
		}
		if (r + d <= KB_GOAL_LAST && !((occ >> (r + d)) & 1))
			mask |= 1u << i;
	}
	return mask;
}

/* kb_pick_hard(kb_legal_occ(p, occ, d)) without the rest of the mask: the
 * foremost legal piece, or -1 when none may move.  The evaluation asks it
 * for every seat that plays like hard and every die of every leaf. */
static inline int kb_hard_occ(const int8_t p[KB_PIECES], uint32_t occ, int d)
{
	for (int i = 0; i < KB_PIECES; i++) {
		int r = p[i];

		if (r == KB_HOME)
			return d == 6 && !(occ & 1) ? i : -1;
		if (r + d <= KB_GOAL_LAST && !((occ >> (r + d)) & 1))
			return i;
	}
	return -1;
}

/* Legal moves of seat s for die d (1..6), as a bit mask of piece indices
 * (bit i set: piece i may move).  0 means the roll passes. */
unsigned kb_legal(const kb_pos *pos, int s, int d);

/* Move piece idx of seat s by die d; idx must be legal.  Captures an
 * opponent on the target ring square (sending it home) and re-sorts.
 * Returns the seat whose piece was captured, or -1. */
int kb_apply(kb_pos *pos, int s, int idx, int d);

/* 1 if seat s has all four pieces in its goal. */
static inline int kb_has_won(const kb_pos *pos, int s)
{
	return pos->prog[s][KB_PIECES - 1] >= KB_GOAL_FIRST;
}

/* The seat that rolls after seat s rolled d: s again after a 6, otherwise
 * the next present seat clockwise (s itself when it plays alone). */
int kb_next_seat(const kb_pos *pos, int s, int d);

/* Number of set bits of a legal-move mask. */
static inline int kb_count(unsigned mask)
{
	return __builtin_popcount(mask);
}

/* Check the position's invariants: sorted pieces, no two pieces of a seat
 * on one square, at most one piece per ring square, absent seats all home.
 * Returns 0 when sound, otherwise -1. */
int kb_pos_check(const kb_pos *pos);

#endif
