/* test_board.c - board strings, positions and rotation to every seat. */
#include <criterion/criterion.h>
#include <string.h>

#include "core/board.h"
#include "support.h"

#define EMPTY "00000000000000000000000000000000000000000000"

Test(board, format_places_track_and_goals)
{
	/* A at 0 and goal 29, B progress 3 (square 10), D progress 30 (goal 42). */
	kb_pos p = test_pos(0xb, "29 0", "3", "", "30");
	char out[KB_BOARD_LEN + 1] = {0};
	kb_board_format(&p, out);
	cr_assert_str_eq(out, "A000000000B00000000000000000" "0A00" "0000" "0000" "00D0");
}

Test(board, parse_round_trip_and_home_pieces)
{
	const char *b = "A000000000B00000000000000000" "0A00" "0000" "0000" "00D0";
	kb_pos p;
	kb_err err;
	char out[KB_BOARD_LEN];
	cr_assert_eq(kb_board_parse(b, KB_BOARD_LEN, 0xb, &p, &err), 0, "%s", err.msg);
	cr_assert_eq(p.prog[0][0], 29);
	cr_assert_eq(p.prog[0][1], 0);
	cr_assert_eq(p.prog[0][2], KB_HOME);
	cr_assert_eq(p.prog[1][0], 3);
	cr_assert_eq(p.prog[3][0], 30);
	kb_board_format(&p, out);
	cr_assert_eq(memcmp(out, b, KB_BOARD_LEN), 0);
}

Test(board, parse_rejects_wrong_length)
{
	kb_pos p;
	kb_err err;
	cr_assert_eq(kb_board_parse(EMPTY, 43, 0xf, &p, &err), -1);
	cr_assert(strstr(err.msg, "43 characters") && strstr(err.msg, "expected 44"), "%s", err.msg);
}

/* A board with text at index at (present seats: present) is refused with a
 * message naming where and why. */
static void expect_refused(int at, const char *text, unsigned present, const char *where,
			   const char *why)
{
	char b[] = EMPTY;
	kb_pos p;
	kb_err err;

	memcpy(b + at, text, strlen(text));
	cr_assert_eq(kb_board_parse(b, KB_BOARD_LEN, present, &p, &err), -1, "%s", b);
	cr_assert(strstr(err.msg, where) && strstr(err.msg, why), "%s: %s", b, err.msg);
}

Test(board, parse_rejects_unknown_character)
{
	expect_refused(17, "x", 0xf, "position 17", "'x'");
	expect_refused(17, "\x01", 0xf, "position 17", "0x01"); /* unprintable: its value */
	expect_refused(2, "\xe9", 0xf, "position 2", "0xe9");
}

Test(board, parse_rejects_five_pieces)
{
	expect_refused(0, "CCCCC", 0xf, "position 4", "more than four");
}

Test(board, parse_rejects_piece_in_another_goal)
{
	expect_refused(33, "A", 0xf, "position 33", "another seat's goal"); /* B's goal */
}

Test(board, parse_rejects_absent_seat)
{
	expect_refused(5, "C", 0x3, "position 5", "does not play");
}

/* Rotation to each seat's view: that seat becomes A, its start square 0. */
Test(board, rotation_for_all_four_seats)
{
	for (int v = 0; v < 4; v++) {
		kb_pos p = test_pos(0xf, "", "", "", "");
		/* seat v: a piece on its start (progress 0) and one in its goal (29) */
		p.prog[v][0] = 29;
		p.prog[v][1] = 0;
		char b[KB_BOARD_LEN], r[KB_BOARD_LEN], back[KB_BOARD_LEN];
		kb_board_format(&p, b);
		kb_board_rotate(b, v, r);
		cr_assert_eq(r[0], 'A', "seat %d: its start square becomes 0", v);
		cr_assert_eq(r[29], 'A', "seat %d: its goal becomes A's goal", v);
		kb_board_rotate(r, (4 - v) & 3, back);
		cr_assert_eq(memcmp(back, b, KB_BOARD_LEN), 0, "inverse for seat %d", v);
		/* the position rotation agrees with the string rotation */
		kb_pos q;
		char fq[KB_BOARD_LEN];
		kb_pos_rotate(&p, v, &q);
		kb_board_format(&q, fq);
		cr_assert_eq(memcmp(fq, r, KB_BOARD_LEN), 0, "seat %d", v);
		cr_assert_eq(kb_seat_rotate((char)('A' + v), v), 'A');
		cr_assert_eq(kb_seat_rotate('A', v), (char)('A' + ((4 - v) & 3)));
	}
}

Test(board, rotation_keeps_relative_progress)
{
	/* B (seat 1) at progress 5 is at absolute 12; in B's view it is A at 5. */
	kb_pos p = test_pos(0x3, "", "5", "", "");
	char b[KB_BOARD_LEN], r[KB_BOARD_LEN];
	kb_board_format(&p, b);
	cr_assert_eq(b[12], 'B');
	kb_board_rotate(b, 1, r);
	cr_assert_eq(r[5], 'A');
	cr_assert_eq(kb_mask_rotate(0x3, 1), 0x9u, "A,B seen from B: B->A, A->D");
}
