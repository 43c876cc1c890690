/* board.c - board strings and rotation; see board.h. */
#include <stdio.h>
#include <string.h>

#include "board.h"

void kb_board_format(const kb_pos *pos, char out[KB_BOARD_LEN])
{
	memset(out, '0', KB_BOARD_LEN);
	for (int s = 0; s < KB_SEATS; s++)
		for (int i = 0; i < KB_PIECES && pos->prog[s][i] != KB_HOME; i++)
			out[kb_board_index(s, pos->prog[s][i])] = (char)('A' + s);
}

static int fail(kb_err *err, const char *fmt, int at, int c)
{
	if (err) {
		char shown[8];
		if (c >= 0x20 && c < 0x7f)
			snprintf(shown, sizeof shown, "'%c'", c);
		else
			snprintf(shown, sizeof shown, "0x%02x", c & 0xff);
		snprintf(err->msg, sizeof err->msg, fmt, at, shown);
	}
	return -1;
}

int kb_board_parse(const char *str, size_t len, unsigned present, kb_pos *pos,
		   kb_err *err)
{
	int count[KB_SEATS] = {0};

	kb_pos_init(pos, present);
	if (len != KB_BOARD_LEN) {
		if (err)
			snprintf(err->msg, sizeof err->msg,
				 "board has %zu characters, expected %d", len, KB_BOARD_LEN);
		return -1;
	}
	for (int sq = 0; sq < KB_BOARD_LEN; sq++) {
		int c = (unsigned char)str[sq];
		if (c == '0')
			continue;
		if (c < 'A' || c > 'D')
			return fail(err, "board position %d: %s is not 0, A, B, C or D", sq, c);
		int s = c - 'A';
		if (!kb_present(pos, s))
			return fail(err, "board position %d: %s is a seat that does not play", sq, c);
		int r;
		if (sq < KB_TRACK) {
			r = kb_ring_progress(s, sq);
		} else {
			int owner = (sq - KB_TRACK) / 4;
			if (owner != s)
				return fail(err, "board position %d: %s stands in another seat's goal", sq, c);
			r = KB_GOAL_FIRST + (sq - KB_TRACK) % 4;
		}
		if (count[s] == KB_PIECES)
			return fail(err, "board position %d: %s has more than four pieces", sq, c);
		pos->prog[s][count[s]++] = (int8_t)r;
	}
	/* Sort each seat foremost first (insertion sort of at most four). */
	for (int s = 0; s < KB_SEATS; s++) {
		int8_t *p = pos->prog[s];
		for (int i = 1; i < count[s]; i++)
			for (int j = i; j > 0 && p[j - 1] < p[j]; j--) {
				int8_t t = p[j];
				p[j] = p[j - 1];
				p[j - 1] = t;
			}
	}
	return 0;
}

void kb_board_rotate(const char in[KB_BOARD_LEN], int v, char out[KB_BOARD_LEN])
{
	v &= 3;
	for (int sq = 0; sq < KB_BOARD_LEN; sq++) {
		int to;
		if (sq < KB_TRACK)
			to = (sq - 7 * v + KB_TRACK) % KB_TRACK;
		else
			to = KB_TRACK + 4 * ((((sq - KB_TRACK) / 4) - v) & 3) + (sq - KB_TRACK) % 4;
		char c = in[sq];
		out[to] = (c >= 'A' && c <= 'D') ? kb_seat_rotate(c, v) : c;
	}
}

void kb_pos_rotate(const kb_pos *in, int v, kb_pos *out)
{
	kb_pos tmp;

	for (int s = 0; s < KB_SEATS; s++)
		memcpy(tmp.prog[(s - v) & 3], in->prog[s], KB_PIECES);
	tmp.present = (uint8_t)kb_mask_rotate(in->present, v);
	*out = tmp;
}

unsigned kb_mask_rotate(unsigned mask, int v)
{
	unsigned out = 0;

	for (int s = 0; s < KB_SEATS; s++)
		if (mask & (1u << s))
			out |= 1u << ((s - v) & 3);
	return out;
}
