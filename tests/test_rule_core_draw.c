/* test_rule_core_draw.c - the terminal picture of core/draw.h, square by
 * square, and the counts and refusals of core/facts.h (round 5 of make
 * mutate, docs/mutation.md): each of the 44 board squares drawn at its own
 * cell of the layout draw.h describes, nothing else on the picture; the
 * roll row's colours; every seat's home and goal counts; the rolls
 * kb_facts_of refuses.  The cells (support.h test_square_cell) and counts
 * are written out by hand. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/draw.h"
#include "core/facts.h"
#include "support.h"

/* A piece of C alone on square i: the 16 rows show it at its cell (each
 * cell two characters wide), '.' at the other 43 squares, and the corner
 * line of C (present 0: the seats with a piece on the board) says so. */
Test(core_rules, draw_each_square_at_its_cell)
{
	for (int i = 0; i < KB_BOARD_LEN; i++) {
		char board[KB_BOARD_LEN], want[16][40], *text = NULL, *line, *save = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		memset(board, '0', sizeof board);
		board[i] = 'C';
		memset(want, ' ', sizeof want);
		for (int k = 0; k < KB_BOARD_LEN; k++)
			want[test_square_cell[k][0]][2 * test_square_cell[k][1]] = k == i ? 'C' : '.';
		for (int r = 0; r < 16; r++) { /* cut after the last mark */
			int end = 39;
			while (end >= 0 && want[r][end] == ' ')
				end--;
			want[r][end + 1] = '\0';
		}
		cr_assert_eq(kb_draw_board(f, board, -1, 0, 0, 0), 0);
		fclose(f);
		line = strtok_r(text, "\n", &save);
		for (int r = 0; r < 16; r++, line = strtok_r(NULL, "\n", &save)) {
			cr_assert_not_null(line, "square %d: row %d missing", i, r);
			cr_assert_str_eq(line, want[r], "square %d, row %d", i, r);
		}
		cr_assert_str_eq(line, i >= 36 && i < 40 ? "C bottom right: home 3, goal 1"
							 : "C bottom right: home 3, goal 0", "square %d", i);
		cr_assert_null(strtok_r(NULL, "\n", &save), "square %d: one corner line", i);
		free(text);
	}
}

/* In colour, a piece gets its seat's colour wherever it stands on row 7,
 * the left and right edges included; the roller's letter in the middle of
 * that row is not a piece and stays plain. */
Test(core_rules, draw_colour_on_the_roll_row)
{
	char board[KB_BOARD_LEN], *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	memset(board, '0', sizeof board);
	board[25] = 'A', board[10] = 'D';
	cr_assert_eq(kb_draw_board(f, board, 1, 5, 0xf, 1), 0);
	fclose(f);
	cr_assert(strstr(text, "\n        \033[1;31mA\033[0m     B       \033[1;33mD\033[0m\n"
			       "        .       5     .\n"), "%s", text);
	free(text);
}

/* kb_facts_of counts every seat's pieces at home (none for an absent
 * seat) and in its goal, seat A's included: A 1 on the ring, 2 in its goal,
 * 1 home; B absent; C 4 home; D 3 in its goal, 1 home. */
Test(core_rules, facts_count_home_and_goal_pieces)
{
	static const int home[KB_SEATS] = {1, 0, 4, 1}, goal[KB_SEATS] = {2, 0, 0, 3};
	char board[KB_BOARD_LEN];
	kb_facts fx;

	memset(board, '0', sizeof board);
	board[3] = 'A', board[28] = 'A', board[31] = 'A';
	board[40] = 'D', board[42] = 'D', board[43] = 'D';
	cr_assert_eq(kb_facts_of(board, 0xd, 2, 6, -1, &fx), 0);
	for (int s = 0; s < KB_SEATS; s++) {
		cr_assert_eq(fx.home[s], home[s], "seat %d home %d", s, fx.home[s]);
		cr_assert_eq(fx.goal[s], goal[s], "seat %d goal %d", s, fx.goal[s]);
	}
}

/* A roll kb_facts_of cannot describe: a seat past D, a die outside 1..6,
 * an absent seat's roll: -1, the counts filled, no legal piece. */
Test(core_rules, facts_of_refuses_a_roll_that_cannot_be)
{
	static const struct {
		int seat, die;
	} cases[] = {{4, 3}, {0, 0}, {0, 7}, {1, 3}};
	char board[KB_BOARD_LEN];
	kb_facts fx;

	memset(board, '0', sizeof board);
	board[0] = 'A', board[7] = 'C';
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		cr_assert_eq(kb_facts_of(board, 0x5, cases[k].seat, cases[k].die, -1, &fx), -1, "case %zu", k);
		cr_assert(fx.legal == 0 && fx.index == -1, "case %zu", k);
		cr_assert(fx.home[0] == 3 && fx.home[2] == 3 && fx.home[1] == 0, "case %zu", k);
	}
	cr_assert_eq(kb_facts_of(board, 0x5, 2, 6, -1, &fx), 0);
	cr_assert_neq(fx.legal, 0, "C may move with a 6");
}

/* The roll in the middle: seat A's shown like any other; a seat outside
 * 0..3 shows none. */
Test(core_rules, draw_roll_of_seat_a_and_of_no_seat)
{
	static const struct {
		int seat, die;
		const char *rows;
	} cases[] = {
		{0, 3, "        .     A       .\n        .       3     .\n"},
		{4, 3, "        .             .\n        .             .\n"},
		{-1, 3, "        .             .\n        .             .\n"},
	};
	char board[KB_BOARD_LEN];

	memset(board, '0', sizeof board);
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		cr_assert_eq(kb_draw_board(f, board, cases[k].seat, cases[k].die, 0x1, 0), 0);
		fclose(f);
		/* rows 7 and 8 follow the top edge's row 4 and rows 5, 6 */
		const char *row7 = text;
		for (int r = 0; r < 7; r++)
			row7 = strchr(row7, '\n') + 1;
		cr_assert_eq(strncmp(row7, cases[k].rows, strlen(cases[k].rows)), 0, "seat %d: %s", cases[k].seat,
			     text);
		free(text);
	}
}
