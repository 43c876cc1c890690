/* test_rule_core_game.c - rules of core/board.h, rules.h and game.h pinned
 * one by one (round 5 of make mutate, docs/mutation.md): a parsed board's
 * pieces sorted foremost first, the seat that rolls first.  Expectations
 * are written out by hand. */
#include <criterion/criterion.h>
#include <string.h>

#include "core/board.h"
#include "core/facts.h"
#include "core/game.h"
#include "core/rng.h"
#include "core/rules.h"
#include "support.h"

/* kb_board_parse sorts each seat's progress foremost first, home last,
 * whatever the order of the board's squares: A on ring 3 and 10 and on
 * its second goal square; B (ring 7 is its progress 0) on ring 6
 * (progress 27) and ring 8 (progress 1); D on its goal squares 4 and 1. */
Test(core_rules, board_parse_sorts_foremost_first)
{
	char board[KB_BOARD_LEN];
	kb_pos pos;
	static const int8_t want[KB_SEATS][KB_PIECES] = {
		{29, 10, 3, KB_HOME}, {27, 1, KB_HOME, KB_HOME},
		{KB_HOME, KB_HOME, KB_HOME, KB_HOME}, {31, 28, KB_HOME, KB_HOME}};

	memset(board, '0', sizeof board);
	board[3] = 'A', board[10] = 'A', board[29] = 'A';
	board[6] = 'B', board[8] = 'B';
	board[40] = 'D', board[43] = 'D';
	cr_assert_eq(kb_board_parse(board, KB_BOARD_LEN, 0xf, &pos, NULL), 0);
	for (int s = 0; s < KB_SEATS; s++)
		for (int i = 0; i < KB_PIECES; i++)
			cr_assert_eq(pos.prog[s][i], want[s][i], "seat %d piece %d: %d", s, i, pos.prog[s][i]);
}

/* The first roller is the k-th present seat, k drawn below the number of
 * present seats from the seed's KB_TAG_FIRST stream (game.h): with A, B
 * and D playing, k = 0, 1, 2 is A, B, D. */
Test(core_rules, game_first_roller_is_the_drawn_present_seat)
{
	static const uint8_t ctl[KB_SEATS] = {KB_EXTERNAL, KB_EASY, KB_ABSENT, KB_HARD};
	static const int seat_of_k[3] = {0, 1, 3};
	int seen[KB_SEATS] = {0};

	for (uint64_t seed = 0; seed < 60; seed++) {
		kb_rng first;
		kb_game g;
		kb_rng_stream(&first, seed, KB_TAG_FIRST, 0);
		uint32_t k = kb_rng_below(&first, 3);
		kb_game_init(&g, seed, ctl);
		cr_assert_eq(g.turn, seat_of_k[k], "seed %llu: k %u, turn %d", (unsigned long long)seed, k,
			     g.turn);
		seen[g.turn]++;
	}
	cr_assert(seen[0] && seen[1] && seen[3] && !seen[2], "every present seat starts some game");
}

/* What random_seats_draw_from_their_policy_streams expects: a shadow of
 * the game's position, and for each seat the stream game.h says a random
 * seat draws from. */
typedef struct random_watch {
	kb_pos pos;
	kb_rng mine[KB_SEATS];
	int checked;
} random_watch;

static void check_random_pick(void *ctx, const kb_roll *roll)
{
	random_watch *w = ctx;

	if (roll->how == KB_BUILTIN) {
		unsigned mask = kb_legal(&w->pos, roll->seat, roll->die);
		uint32_t k = kb_rng_below(&w->mine[roll->seat], (uint32_t)__builtin_popcount(mask));
		while (k--)
			mask &= mask - 1;
		cr_assert_eq(roll->index, __builtin_ctz(mask), "seat %c, die %d", 'A' + roll->seat,
			     roll->die);
		w->checked++;
	}
	if (roll->index >= 0)
		kb_apply(&w->pos, roll->seat, roll->index, roll->die);
}

/* A built-in random seat s of a game seeded with S plays the k-th of its
 * legal pieces (lowest index first), k drawn below their number from
 * stream (S, KB_TAG_POLICY, s) (game.h), one draw per decision between
 * two or more pieces; seat A, outside, plays its lowest legal piece. */
Test(core_rules, random_seats_draw_from_their_policy_streams)
{
	static const uint8_t ctl[KB_SEATS] = {KB_EXTERNAL, KB_RANDOM, KB_ABSENT, KB_RANDOM};
	random_watch w = {.checked = 0};
	kb_hooks hooks = {NULL, check_random_pick, &w};

	for (uint64_t seed = 1; seed <= 3; seed++) {
		kb_game g;
		kb_game_init(&g, seed, ctl);
		w.pos = g.pos;
		for (int s = 0; s < KB_SEATS; s++)
			kb_rng_stream(&w.mine[s], seed, KB_TAG_POLICY, (uint64_t)s);
		while (kb_game_advance(&g, &hooks) >= 0)
			cr_assert_eq(kb_game_decide(&g, __builtin_ctz(kb_game_pending_mask(&g)), &hooks), 0);
		cr_assert_arr_eq(w.pos.prog, g.pos.prog, sizeof g.pos.prog, "seed %llu: the shadow follows",
				 (unsigned long long)seed);
	}
	cr_assert_geq(w.checked, 30, "only %d random decisions", w.checked);
}

/* A captured piece goes home and the pieces behind it move up, home
 * pieces last, the other seats' pieces untouched: B on progress 20, 15,
 * 10, 5 (ring squares 27, 22, 17, 12), C on 25 and 24 (squares 11, 10);
 * A's piece on 14 rolls 3 onto square 17, B's third piece. */
Test(core_rules, capture_keeps_the_pieces_behind_in_order)
{
	kb_pos p = test_pos(0x7, "14", "20 15 10 5", "25 24", "");

	cr_assert_eq(kb_apply(&p, 0, 0, 3), 1, "B captured");
	cr_assert_eq(p.prog[0][0], 17);
	cr_assert(p.prog[1][0] == 20 && p.prog[1][1] == 15 && p.prog[1][2] == 5 && p.prog[1][3] == KB_HOME,
		  "B: %d %d %d %d", p.prog[1][0], p.prog[1][1], p.prog[1][2], p.prog[1][3]);
	cr_assert(p.prog[2][0] == 25 && p.prog[2][1] == 24 && p.prog[2][2] == KB_HOME, "C untouched");
	cr_assert_eq(kb_pos_check(&p), 0);
}

/* kb_facts_text of a position without a roll. */
Test(core_rules, facts_text_of_the_final_position)
{
	kb_facts fx;
	char board[KB_BOARD_LEN], text[64];

	memset(board, '0', sizeof board);
	cr_assert_eq(kb_facts_of(board, 0x3, -1, 0, -1, &fx), 0);
	memset(text, 'z', sizeof text);
	kb_facts_text(&fx, text, sizeof text);
	cr_assert_str_eq(text, "final position");
}

/* A move onto an empty square captures nothing, even where the next
 * seat's first piece has the progress the square has for the seat before
 * it: A from 14 to square 17 (B's progress 10); B on 20, 15, 5, 3 (squares
 * 27, 22, 12, 10), C's first piece on its progress 10 (square 24). */
Test(core_rules, capture_only_of_a_piece_on_the_square)
{
	kb_pos p = test_pos(0x7, "14", "20 15 5 3", "10", "");

	cr_assert_eq(kb_apply(&p, 0, 0, 3), -1, "nobody on square 17");
	cr_assert(p.prog[1][0] == 20 && p.prog[1][1] == 15 && p.prog[1][2] == 5 && p.prog[1][3] == 3,
		  "B: %d %d %d %d", p.prog[1][0], p.prog[1][1], p.prog[1][2], p.prog[1][3]);
	cr_assert_eq(p.prog[2][0], 10);
}

/* A board byte that is not 0 or A..D is named: printable ones (space to
 * '~') as themselves, others by their value. */
Test(core_rules, board_parse_names_the_bad_byte)
{
	static const struct {
		char c;
		const char *msg;
	} cases[] = {
		{'~', "board position 5: '~' is not 0, A, B, C or D"},
		{' ', "board position 5: ' ' is not 0, A, B, C or D"},
		{'\x7f', "board position 5: 0x7f is not 0, A, B, C or D"},
		{'\x1f', "board position 5: 0x1f is not 0, A, B, C or D"},
		{'\x80', "board position 5: 0x80 is not 0, A, B, C or D"},
	};
	char board[KB_BOARD_LEN];
	kb_pos pos;
	kb_err err;

	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		memset(board, '0', sizeof board);
		board[5] = cases[k].c;
		cr_assert_eq(kb_board_parse(board, KB_BOARD_LEN, 0xf, &pos, &err), -1);
		cr_assert_str_eq(err.msg, cases[k].msg);
	}
}
