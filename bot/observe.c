/* observe.c - move reconstruction and line-by-line game checking; see
 * observe.h. */
#include <stdio.h>
#include <string.h>

#include "observe.h"

static int same_pos(const kb_pos *a, const kb_pos *b)
{
	return memcmp(a->prog, b->prog, sizeof a->prog) == 0;
}

int kb_observe_step(const kb_pos *before, int seat, int die, unsigned mask,
		    const kb_pos *after)
{
	if (!mask)
		return same_pos(before, after) ? -1 : -2;
	for (int i = 0; i < KB_PIECES; i++) {
		kb_pos p = *before;
		if (!((mask >> i) & 1))
			continue;
		kb_apply(&p, seat, i, die);
		if (same_pos(&p, after))
			return i;
	}
	return -2;
}

void kb_tracker_init(kb_tracker *t, unsigned present, kb_observe_fn fn, void *ctx)
{
	memset(t, 0, sizeof *t);
	t->present = present | 1;
	t->own_index = -1;
	t->fn = fn;
	t->ctx = ctx;
}

static int fail(kb_err *err, const kb_line *line, const char *why)
{
	if (err)
		snprintf(err->msg, sizeof err->msg, "state line %.44s%c%d: %s", line->board,
			 'A' + line->seat, line->die, why);
	return -1;
}

/* Check that after follows from the pending line and report the roll.
 * kb_tracker_line has checked after itself (no seat has won on it); it
 * is the pending board with the found move applied, so it also gives
 * the next roller. */
static int follow(kb_tracker *t, const kb_line *line, const kb_pos *after, kb_err *err)
{
	int idx = kb_observe_step(&t->pos, t->seat, t->die, t->mask, after);

	if (idx == -2)
		return fail(err, line, "its board is not the result of any legal move of the previous roll");
	if (t->seat == 0 && kb_count(t->mask) >= 2 && idx != t->own_index)
		return fail(err, line, "its board is not the result of the bot's own move");
	if (line->seat != kb_next_seat(after, t->seat, t->die))
		return fail(err, line, "this seat is not the next to roll");
	if (t->seat != 0 && kb_count(t->mask) >= 2 && t->fn) {
		kb_observation ob = {t->pos, t->seat, t->die, t->mask, idx};
		t->fn(t->ctx, &ob);
	}
	return 0;
}

int kb_tracker_line(kb_tracker *t, const kb_line *line, kb_err *err)
{
	kb_pos pos;
	kb_err why;

	if (line->type != KB_LINE_ROLL)
		return fail(err, line, "expected a state line");
	/* kb_board_parse gives a sound position (one piece per board square,
	 * sorted, absent seats home): kb_pos_check could not fail here. */
	if (kb_board_parse(line->board, KB_BOARD_LEN, t->present, &pos, &why)) {
		if (err)
			snprintf(err->msg, sizeof err->msg, "state line %.44s%c%d: %.120s",
				 line->board, 'A' + line->seat, line->die, why.msg);
		return -1;
	}
	if (!kb_present(&pos, line->seat))
		return fail(err, line, "the rolling seat does not play in this game");
	for (int s = 0; s < KB_SEATS; s++)
		if (kb_present(&pos, s) && kb_has_won(&pos, s))
			return fail(err, line, "a seat has already won on this board");
	if (t->have && follow(t, line, &pos, err))
		return -1;
	t->have = 1;
	t->pos = pos;
	t->seat = line->seat;
	t->die = line->die;
	t->mask = kb_legal(&pos, line->seat, line->die);
	t->own_index = -1;
	t->lines++;
	return 0;
}

void kb_tracker_own_move(kb_tracker *t, int index)
{
	t->own_index = index;
}

int kb_tracker_winner(kb_tracker *t, int seat, kb_err *err)
{
	if (!t->have) {
		if (err)
			snprintf(err->msg, sizeof err->msg,
				 "\"Voittaja: %c\" before any state line", 'A' + seat);
		return -1;
	}
	if (seat != t->seat) {
		if (err)
			snprintf(err->msg, sizeof err->msg,
				 "\"Voittaja: %c\" but the last roll was %c's", 'A' + seat, 'A' + t->seat);
		return -1;
	}
	/* A winning move is its roll's only legal move (the last piece onto
	 * the one free goal square, which no goal piece can reach with the
	 * same die): no choice of A's to check, no opponent's choice to
	 * report. */
	for (int i = 0; i < KB_PIECES; i++) {
		kb_pos p = t->pos;
		if (!((t->mask >> i) & 1))
			continue;
		kb_apply(&p, t->seat, i, t->die);
		if (kb_has_won(&p, seat)) {
			t->have = 0;
			return 0;
		}
	}
	if (err)
		snprintf(err->msg, sizeof err->msg,
			 "\"Voittaja: %c\" but no legal move of the last roll wins", 'A' + seat);
	return -1;
}
