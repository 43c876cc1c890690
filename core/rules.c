/* rules.c - legal moves, moving with capture, turn order; see rules.h. */
#include <assert.h>
#include <string.h>

#include "rules.h"

void kb_pos_init(kb_pos *pos, unsigned present)
{
	memset(pos->prog, KB_HOME, sizeof pos->prog);
	pos->present = (uint8_t)((present & 0xf) | 1);
}

/* 1 if seat s has a piece at progress r. */
static inline int own_at(const int8_t *p, int r)
{
	return p[0] == r || p[1] == r || p[2] == r || p[3] == r;
}

/* The plain form, on the pieces alone; kb_legal_occ is the same rule on
 * own-square bits (tests/test_rules.c compares them). */
unsigned kb_legal(const kb_pos *pos, int s, int d)
{
	const int8_t *p = pos->prog[s];
	unsigned mask = 0;

	for (int i = 0; i < KB_PIECES; i++) {
		int r = p[i];

		if (r == KB_HOME) {
			/* Only the first home piece may leave, and only on a 6
			 * onto a start square free of the seat's own pieces. */
			if (d == 6 && !own_at(p, 0))
				mask |= 1u << i;
			break; /* the rest are home too */
		}
		if (r + d <= KB_GOAL_LAST && !own_at(p, r + d))
			mask |= 1u << i;
	}
	return mask;
}

/* Send home the opponent piece (if any) on ring square sq; seat s moved. */
static int capture_at(kb_pos *pos, int s, int sq)
{
	for (int o = 0; o < KB_SEATS; o++) {
		if (o == s || !kb_present(pos, o))
			continue;
		int8_t *q = pos->prog[o];
		int r = kb_ring_progress(o, sq);

		for (int j = 0; j < KB_PIECES; j++) {
			if (q[j] != r)
				continue;
			/* Keep home pieces last: shift the rest up. */
			for (; j < KB_PIECES - 1; j++)
				q[j] = q[j + 1];
			q[KB_PIECES - 1] = KB_HOME;
			return o;
		}
	}
	return -1;
}

int kb_apply(kb_pos *pos, int s, int idx, int d)
{
	int8_t *p = pos->prog[s];
	int target;

	assert(kb_legal(pos, s, d) & (1u << idx));
	target = kb_move_target(p[idx], d);
	p[idx] = (int8_t)target;
	/* Moving forward can only pass pieces ahead of it. */
	while (idx > 0 && p[idx - 1] < target) {
		p[idx] = p[idx - 1];
		p[idx - 1] = (int8_t)target;
		idx--;
	}
	if (target <= KB_LAST_TRACK)
		return capture_at(pos, s, kb_ring_square(s, target));
	return -1;
}

int kb_next_seat(const kb_pos *pos, int s, int d)
{
	if (d == 6)
		return s;
	for (int k = 1; k < KB_SEATS; k++) {
		int n = (s + k) & 3;
		if (kb_present(pos, n))
			return n;
	}
	return s;
}

int kb_pos_check(const kb_pos *pos)
{
	int ring[KB_TRACK];

	memset(ring, 0, sizeof ring);
	if (!kb_present(pos, 0))
		return -1;
	for (int s = 0; s < KB_SEATS; s++) {
		const int8_t *p = pos->prog[s];
		for (int i = 0; i < KB_PIECES; i++) {
			if (p[i] < KB_HOME || p[i] > KB_GOAL_LAST)
				return -1;
			if (!kb_present(pos, s) && p[i] != KB_HOME)
				return -1;
			/* unsorted, two on one square, or a piece after a home
			 * piece (KB_HOME, -1, is below every square) */
			if (i > 0 && p[i] != KB_HOME && p[i] >= p[i - 1])
				return -1;
			if (p[i] != KB_HOME && p[i] <= KB_LAST_TRACK &&
			    ring[kb_ring_square(s, p[i])]++)
				return -1;
		}
	}
	return 0;
}
