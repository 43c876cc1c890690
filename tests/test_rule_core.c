/* test_rule_core.c - rules of core/ that only whole-game properties used to
 * notice, each pinned on its own (found by make mutate, docs/mutation.md):
 * every character of a token, the policy dispatcher, a capture on a seat's
 * last ring square, and the autopilot.  Expectations are written out by
 * hand, never computed with the code under test. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/draw.h"
#include "core/facts.h"
#include "core/game.h"
#include "core/net.h"
#include "core/num.h"
#include "core/policy.h"
#include "core/rules.h"
#include "core/transcript.h"
#include "core/wire.h"
#include "support.h"

static void good_token(char t[KB_TOKEN_LEN + 1])
{
	t[0] = 't';
	for (int i = 1; i < KB_TOKEN_LEN; i++)
		t[i] = "0123456789abcdef"[i % 16];
	t[KB_TOKEN_LEN] = '\0';
}

/* A bad character anywhere, the last one included, makes a token invalid. */
Test(core_rules, every_token_character_is_checked)
{
	char t[KB_TOKEN_LEN + 1];

	good_token(t);
	cr_assert(kb_token_valid(t, KB_TOKEN_LEN));
	for (int i = 0; i < KB_TOKEN_LEN; i++) {
		static const char bad[] = {'g', 'A', 'F', ' ', '/', ':', '`', 'z'};
		for (size_t b = 0; b < sizeof bad; b++) {
			good_token(t);
			t[i] = bad[b];
			cr_assert_not(kb_token_valid(t, KB_TOKEN_LEN), "'%c' at %d accepted", bad[b], i);
		}
	}
	good_token(t);
	cr_assert_not(kb_token_valid(t, KB_TOKEN_LEN - 1), "one character short");
}

/* A move with the last hex digit wrong is not a move (kb_msg_scan). */
Test(core_rules, move_with_a_bad_last_digit_is_not_a_move)
{
	char line[KB_MOVE_LEN + 2];
	kb_msg m;

	good_token(line);
	line[KB_TOKEN_LEN] = '2';
	line[KB_TOKEN_LEN + 1] = '\n';
	cr_assert_eq(kb_msg_scan(line, sizeof line, &m), KB_MOVE_LEN);
	cr_assert_eq(m.type, KB_MSG_MOVE);
	cr_assert_eq(m.index, 2);
	line[KB_TOKEN_LEN - 1] = 'G';
	kb_msg_scan(line, sizeof line, &m);
	cr_assert_neq(m.type, KB_MSG_MOVE, "a token ending in G was taken");
}

/* A token line with a bad last digit is not a token line (kb_line_parse). */
Test(core_rules, token_line_with_a_bad_last_digit_is_refused)
{
	char line[KB_TOKEN_LEN + 1];
	kb_line out;
	kb_err err;

	good_token(line);
	cr_assert_eq(kb_line_parse(line, KB_TOKEN_LEN, &out, &err), 0);
	cr_assert_eq(out.type, KB_LINE_TOKEN);
	cr_assert_arr_eq(out.token, line, KB_TOKEN_LEN);
	line[KB_TOKEN_LEN - 1] = 'x';
	cr_assert_eq(kb_line_parse(line, KB_TOKEN_LEN, &out, &err), -1);
	good_token(line);
	cr_assert_eq(kb_line_parse(line, KB_TOKEN_LEN - 1, &out, &err), -1, "short");
}

/* The dispatcher plays each policy's rule on every mask: easy the highest
 * legal index, hard the lowest, random one of the legal ones; the expected
 * indices are spelled out, not taken from kb_pick_easy/kb_pick_hard. */
Test(core_rules, dispatcher_plays_each_policy)
{
	static const int highest[16] = {-1, 0, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3};
	static const int lowest[16] = {-1, 0, 1, 0, 2, 0, 1, 0, 3, 0, 1, 0, 2, 0, 1, 0};
	kb_rng rng;

	kb_rng_seed(&rng, 7);
	for (unsigned mask = 0; mask < 16; mask++) {
		cr_assert_eq(kb_pick(KB_EASY, mask, &rng), highest[mask], "easy, mask %x", mask);
		cr_assert_eq(kb_pick(KB_HARD, mask, &rng), lowest[mask], "hard, mask %x", mask);
		cr_assert_eq(kb_pick_easy(mask), highest[mask], "kb_pick_easy, mask %x", mask);
		cr_assert_eq(kb_pick_hard(mask), lowest[mask], "kb_pick_hard, mask %x", mask);
		for (int k = 0; k < 40; k++) {
			int r = kb_pick(KB_RANDOM, mask, &rng);
			if (mask == 0)
				cr_assert_eq(r, -1);
			else
				cr_assert(r >= 0 && r < 4 && (mask >> r & 1), "random %d from %x", r, mask);
		}
	}
}

/* random draws every legal index of a mask, not only some. */
Test(core_rules, random_reaches_every_legal_index)
{
	kb_rng rng;

	kb_rng_seed(&rng, 11);
	for (unsigned mask = 1; mask < 16; mask++) {
		unsigned seen = 0;
		for (int k = 0; k < 400; k++)
			seen |= 1u << kb_pick_random(mask, &rng);
		cr_assert_eq(seen, mask, "mask %x: drew %x", mask, seen);
	}
}

Test(core_rules, policy_names_round_trip)
{
	cr_assert_eq(kb_policy_parse("easy"), KB_EASY);
	cr_assert_eq(kb_policy_parse("hard"), KB_HARD);
	cr_assert_eq(kb_policy_parse("random"), KB_RANDOM);
	cr_assert_eq(kb_policy_parse("absent"), -1, "absent is not a playing policy");
	cr_assert_eq(kb_policy_parse("external"), -1);
	cr_assert_eq(kb_policy_parse("Easy"), -1);
	/* every kind's name, and "?" past the last */
	static const char *const names[] = {"absent", "easy", "hard", "random", "external", "?"};
	static const enum kb_policy kinds[] = {KB_ABSENT, KB_EASY, KB_HARD, KB_RANDOM, KB_EXTERNAL,
					      (enum kb_policy)5};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		cr_assert_str_eq(kb_policy_name(kinds[i]), names[i]);
}

/* A piece ending on its seat's last ring square (progress 27) captures; a
 * piece entering the goal captures nothing on the ring square after it. */
Test(core_rules, capture_on_the_last_ring_square)
{
	/* B's progress 20 is ring square 27 = A's progress 27 */
	kb_pos p = test_pos(0x3, "25", "20", "", "");
	cr_assert_eq(kb_apply(&p, 0, 0, 2), 1, "B captured");
	cr_assert_eq(p.prog[0][0], 27);
	cr_assert_eq(p.prog[1][0], KB_HOME);

	/* B's progress 21 is ring square 0, where A's goal move does not stop */
	p = test_pos(0x3, "26", "21", "", "");
	cr_assert_eq(kb_apply(&p, 0, 0, 2), -1, "no capture from the goal");
	cr_assert_eq(p.prog[0][0], 28);
	cr_assert_eq(p.prog[1][0], 21);

	/* seat D's last ring square is ring square 20 (A's progress 20) */
	p = test_pos(0x9, "20", "", "", "26");
	cr_assert_eq(kb_apply(&p, 3, 0, 1), 0, "A captured by D");
	cr_assert_eq(p.prog[0][0], KB_HOME);
	cr_assert_eq(p.prog[3][0], 27);
}

/* The captured piece of a seat with several pieces is the one on the
 * square; the others keep their order, home pieces last. */
Test(core_rules, capture_takes_the_right_piece)
{
	kb_pos p = test_pos(0x3, "3", "30 12 5 1", "", "");
	/* B's 12 is ring square 19, B's 5 ring square 12, B's 1 ring square 8 */
	cr_assert_eq(kb_apply(&p, 0, 0, 5), 1);
	cr_assert_eq(p.prog[1][0], 30);
	cr_assert_eq(p.prog[1][1], 12);
	cr_assert_eq(p.prog[1][2], 5);
	cr_assert_eq(p.prog[1][3], KB_HOME);
	cr_assert_eq(p.prog[0][0], 8);
}

typedef struct played_log {
	int n;
	kb_roll roll[64];
} played_log;

/* A hook (rolled or played) that keeps the rolls it sees. */
static void log_roll(void *ctx, const kb_roll *roll)
{
	played_log *log = ctx;
	if (log->n < 64)
		log->roll[log->n++] = *roll;
}

/* The first roll a game started at (p, seat, die) reports to the played
 * hook (rolled: the rolled hook instead), after one advance. */
static kb_roll first_roll(kb_game *g, uint64_t seed, const uint8_t ctl[KB_SEATS], const kb_pos *p,
			  int seat, int die, int rolled)
{
	played_log log = {0};
	kb_hooks hooks = {rolled ? log_roll : NULL, rolled ? NULL : log_roll, &log};

	cr_assert_eq(kb_game_init_at(g, seed, ctl, p, seat, die), 0);
	kb_game_advance(g, &hooks);
	cr_assert_geq(log.n, 1, "a roll was reported");
	return log.roll[0];
}

/* Autopilot: one legal index is played without a decision; two stop for
 * one; none passes.  Seat A is outside-controlled, alone with B absent. */
Test(core_rules, autopilot_plays_a_single_legal_move)
{
	static const uint8_t ctl[KB_SEATS] = {KB_EXTERNAL, KB_ABSENT, KB_ABSENT, KB_ABSENT};
	played_log log = {0};
	kb_hooks hooks = {NULL, log_roll, &log};
	kb_game g;

	/* one piece on the track, the rest home, a 3: only piece 0 moves */
	kb_pos p = test_pos(0x1, "4", "", "", "");
	kb_roll r = first_roll(&g, 5, ctl, &p, 0, 3, 0);
	cr_assert_eq(r.die, 3);
	cr_assert_eq(r.index, 0);
	cr_assert_eq(r.how, KB_AUTO);

	/* a 6 with a track piece and home pieces: two legal, A must decide */
	cr_assert_eq(kb_game_init_at(&g, 5, ctl, &p, 0, 6), 0);
	cr_assert_eq(kb_game_advance(&g, &hooks), 0, "seat A decides");
	cr_assert_eq(log.n, 0, "nothing played before the decision");
	cr_assert_eq(kb_game_pending_mask(&g), 0x3u);
	cr_assert_eq(g.pending_die, 6);

	/* all home and a 2: the roll passes */
	p = test_pos(0x1, "", "", "", "");
	r = first_roll(&g, 5, ctl, &p, 0, 2, 0);
	cr_assert_eq(r.index, -1);
	cr_assert_eq(r.how, KB_PASS);
}

/* A built-in seat with two legal moves plays its policy: easy the rearmost
 * (highest index), hard the foremost. */
Test(core_rules, builtin_seats_play_their_policy_in_a_game)
{
	kb_pos p = test_pos(0x3, "", "9 4", "", "");
	for (int pol = KB_EASY; pol <= KB_HARD; pol++) {
		uint8_t ctl[KB_SEATS] = {KB_EXTERNAL, (uint8_t)pol, KB_ABSENT, KB_ABSENT};
		kb_game g;
		kb_roll r = first_roll(&g, 3, ctl, &p, 1, 2, 0);
		cr_assert_eq(r.seat, 1);
		cr_assert_eq(r.how, KB_BUILTIN);
		cr_assert_eq(r.index, pol == KB_EASY ? 1 : 0, "%s", kb_policy_name(pol));
	}
}

/* The rolled hook sees the roll before its move: index -1, no capture. */
Test(core_rules, rolled_hook_sees_no_move_yet)
{
	static const uint8_t ctl[KB_SEATS] = {KB_EXTERNAL, KB_HARD, KB_ABSENT, KB_ABSENT};
	kb_game g;

	/* A on 3 rolls a 4 onto B's piece (ring square 7): one legal move */
	kb_pos p = test_pos(0x3, "3", "0", "", "");
	kb_roll r = first_roll(&g, 9, ctl, &p, 0, 4, 1);
	cr_assert_eq(r.seat, 0);
	cr_assert_eq(r.die, 4);
	cr_assert_eq(r.index, -1, "index still unknown");
	cr_assert_eq(r.captured, -1);
	cr_assert_eq(g.rolls >= 1, 1);
}

/* kb_pos_check: each invariant broken alone, between pieces 0 and 1 too. */
Test(core_rules, position_check_each_invariant)
{
	kb_pos p;

	p = test_pos(0xf, "31 28 27 0", "5", "", "");
	cr_assert_eq(kb_pos_check(&p), 0, "sound");
	p = test_pos(0x1, "31 30 29 28", "", "", "");
	cr_assert_eq(kb_pos_check(&p), 0, "all in the goal");

	p = test_pos(0x3, "9 4", "", "", "");
	p.prog[0][0] = 4, p.prog[0][1] = 9;
	cr_assert_eq(kb_pos_check(&p), -1, "pieces 0 and 1 unsorted");
	p.prog[0][0] = 9;
	cr_assert_eq(kb_pos_check(&p), -1, "pieces 0 and 1 on one square");
	p = test_pos(0x3, "9 4 2", "", "", "");
	p.prog[0][2] = 4;
	cr_assert_eq(kb_pos_check(&p), -1, "pieces 1 and 2 on one square");
	p = test_pos(0x3, "9", "", "", "");
	p.prog[0][0] = KB_HOME, p.prog[0][1] = 9;
	cr_assert_eq(kb_pos_check(&p), -1, "a home piece before a track piece");
	p = test_pos(0x3, "9", "", "", "");
	p.prog[0][0] = KB_GOAL_LAST + 1;
	cr_assert_eq(kb_pos_check(&p), -1, "past the last goal square");
	p.prog[0][0] = KB_HOME - 1;
	cr_assert_eq(kb_pos_check(&p), -1, "below home");
	p = test_pos(0x3, "9", "", "", "");
	p.prog[2][0] = 5;
	cr_assert_eq(kb_pos_check(&p), -1, "a piece of an absent seat");
	p = test_pos(0x3, "9", "2", "", "");
	cr_assert_eq(kb_pos_check(&p), -1, "A's 9 and B's 2 share ring square 9");
	p = test_pos(0x3, "27", "20", "", "");
	cr_assert_eq(kb_pos_check(&p), -1, "A's 27 and B's 20 share ring square 27");
	p = test_pos(0x3, "31", "31", "", "");
	cr_assert_eq(kb_pos_check(&p), 0, "goals are private");
	p = test_pos(0x3, "", "", "", "");
	p.present = 0x2;
	cr_assert_eq(kb_pos_check(&p), -1, "seat A absent");
}

/* After a 6 the same seat rolls; otherwise the next present seat. */
Test(core_rules, next_seat_skips_absent_seats)
{
	kb_pos p;

	kb_pos_init(&p, 0x5); /* A and C */
	cr_assert_eq(kb_next_seat(&p, 0, 3), 2);
	cr_assert_eq(kb_next_seat(&p, 2, 5), 0);
	cr_assert_eq(kb_next_seat(&p, 2, 6), 2);
	kb_pos_init(&p, 0x9); /* A and D */
	cr_assert_eq(kb_next_seat(&p, 3, 1), 0);
	cr_assert_eq(kb_next_seat(&p, 0, 1), 3);
	kb_pos_init(&p, 0x1);
	cr_assert_eq(kb_next_seat(&p, 0, 2), 0, "alone");
	kb_pos_init(&p, 0xf);
	for (int s = 0; s < 4; s++)
		cr_assert_eq(kb_next_seat(&p, s, 1), (s + 1) % 4);
}

/* A bad byte is named: printable ones ('!' .. '~') as a character, others
 * in hex; a bad piece index is a bad index, not a bad token digit. */
Test(core_rules, bad_message_bytes_are_named)
{
	static const struct {
		char byte;
		const char *shown;
	} cases[] = {{'!', "'!'"}, {'~', "'~'"}, {' ', "0x20"}, {'\x7f', "0x7f"}, {'\x1f', "0x1f"}};
	kb_msg m;

	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		char msg[] = "v00X222\n";
		msg[3] = cases[k].byte;
		kb_msg_scan(msg, sizeof msg - 1, &m);
		cr_assert_eq(m.type, KB_MSG_BAD);
		cr_assert(strstr(m.why, cases[k].shown) != NULL, "%s in: %s", cases[k].shown, m.why);
		cr_assert(strstr(m.why, "byte 3 of the message") != NULL, "%s", m.why);
	}
	char move[KB_MOVE_LEN + 2];
	good_token(move);
	move[KB_TOKEN_LEN] = '7';
	move[KB_TOKEN_LEN + 1] = '\n';
	kb_msg_scan(move, sizeof move, &m);
	cr_assert_eq(m.type, KB_MSG_BAD);
	cr_assert(strstr(m.why, "piece index") != NULL, "%s", m.why);
	cr_assert(strstr(m.why, "byte 65 of the message is '7'") != NULL, "%s", m.why);
	move[KB_TOKEN_LEN] = 'x'; /* neither a hex digit nor an index: an index was expected */
	kb_msg_scan(move, sizeof move, &m);
	cr_assert_eq(m.type, KB_MSG_BAD);
	cr_assert(strstr(m.why, "piece index") != NULL, "%s", m.why);
	move[KB_TOKEN_LEN] = 'a'; /* a hex digit, still not an index */
	kb_msg_scan(move, sizeof move, &m);
	cr_assert_eq(m.type, KB_MSG_BAD);
	cr_assert(strstr(m.why, "piece index") != NULL, "%s", m.why);
}

/* A bad response line is quoted up to 60 characters, then "...". */
Test(core_rules, bad_lines_are_quoted_up_to_60_characters)
{
	char line[80];
	kb_line out;
	kb_err err;

	memset(line, 'x', sizeof line);
	cr_assert_eq(kb_line_parse(line, 60, &out, &err), -1);
	cr_assert(strncmp(err.msg, "line \"", 6) == 0, "%s", err.msg);
	cr_assert_eq(err.msg[6 + 60], '"', "60 characters shown whole: %s", err.msg);
	cr_assert(strstr(err.msg, "(60 characters)") != NULL, "%s", err.msg);
	cr_assert_eq(kb_line_parse(line, 61, &out, &err), -1);
	cr_assert(strncmp(err.msg + 6 + 60, "...\" (61 characters)", 20) == 0, "%s", err.msg);
	cr_assert_eq(err.msg[6 + 59], 'x');
	line[0] = '\x01';
	cr_assert_eq(kb_line_parse(line, 61, &out, &err), -1);
	cr_assert_eq(err.msg[6], '?', "control characters shown as ?: %s", err.msg);
}

/* ---- the terminal picture (core/draw.h) ------------------------------------ */

static const char *draw(const char board[KB_BOARD_LEN], int seat, int die, unsigned present, int color)
{
	static char *buf;
	size_t len;

	free(buf);
	buf = NULL;
	FILE *f = open_memstream(&buf, &len);
	cr_assert_not_null(f);
	cr_assert_eq(kb_draw_board(f, board, seat, die, present, color), 0);
	fclose(f);
	return buf;
}

/* A board for the pictures below: pieces of A, B and D on the ring and in
 * their goals, one of C on the ring.  PICTURE_ROWS is its picture with B's
 * roll of 5, PICTURE_CORNERS the corner lines of seats A, B and D (0xb). */
static void picture_board(char b[KB_BOARD_LEN])
{
	memset(b, '0', KB_BOARD_LEN);
	b[0] = 'A', b[8] = 'B', b[14] = 'C', b[22] = 'A', b[27] = 'D';
	b[28] = 'A', b[35] = 'B', b[43] = 'D';
}

#define PICTURE_ROWS \
	".                             B\n" \
	"  .                         .\n" \
	"    .                     .\n" \
	"      A                 .\n" \
	"        A . . . . . . .\n" \
	"        D             B\n" \
	"        .             .\n" \
	"        .     B       .\n" \
	"        .       5     .\n" \
	"        .             .\n" \
	"        A             .\n" \
	"        . . . . . . . C\n" \
	"      .                 .\n" \
	"    .                     .\n" \
	"  .                         .\n" \
	"D                             .\n"
#define PICTURE_CORNERS \
	"A top left: home 1, goal 1\n" \
	"B top right: home 2, goal 1\n" \
	"D bottom left: home 2, goal 1\n"

/* Ring indices 0, 8, 14, 22, 27 (top-left start, right edge, bottom-right
 * corner, left edge bottom, left edge top), goal squares 28 (A's first),
 * 35 (B's last), 43 (D's last); B rolled 5. */
Test(core_rules, board_picture)
{
	char b[KB_BOARD_LEN];

	picture_board(b);
	cr_assert_str_eq(draw(b, 1, 5, 0xb, 0), PICTURE_ROWS PICTURE_CORNERS);
	const char *c = draw(b, -1, 0, 0, 1);
	cr_assert(strncmp(c, ".                             \033[1;34mB\033[0m\n", 41) == 0, "%s", c);
	cr_assert(strstr(c, "        \033[1;31mA\033[0m . . . . . . .\n") != NULL, "%s", c);
	cr_assert(strstr(c, "        . . . . . . . \033[1;32mC\033[0m\n") != NULL, "%s", c);
	cr_assert(strstr(c, "\n\033[1;33mD\033[0m                             .\n") != NULL, "%s", c);
	cr_assert(strstr(c, "        .             .\n        .             .\n") != NULL, "no roll shown: %s", c);
	cr_assert(strstr(c, "\nC bottom right: home 3, goal 0\n") != NULL, "present 0: seats on the board: %s", c);
}

Test(core_rules, seat_count_and_how_names)
{
	static const uint8_t one[KB_SEATS] = {KB_ABSENT, KB_ABSENT, KB_ABSENT, KB_ABSENT};
	static const uint8_t three[KB_SEATS] = {KB_EXTERNAL, KB_EASY, KB_ABSENT, KB_RANDOM};
	static const uint8_t four[KB_SEATS] = {KB_EXTERNAL, KB_HARD, KB_HARD, KB_EASY};

	cr_assert_eq(kb_ctl_seats(one), 1, "seat A always plays");
	cr_assert_eq(kb_ctl_seats(three), 3);
	cr_assert_eq(kb_ctl_seats(four), 4);
	cr_assert_str_eq(kb_how_name(KB_PASS), "pass");
	cr_assert_str_eq(kb_how_name(KB_AUTO), "auto");
	cr_assert_str_eq(kb_how_name(KB_BUILTIN), "builtin");
	cr_assert_str_eq(kb_how_name(KB_DECIDED), "decided");
	cr_assert_str_eq(kb_how_name((enum kb_how)4), "?");
}

/* Rotations take any seat number, modulo 4, like kb_seat_rotate. */
Test(core_rules, rotation_is_modulo_four)
{
	kb_pos p = test_pos(0xf, "30 9", "3 0", "27", "12");
	char b[KB_BOARD_LEN], want[KB_BOARD_LEN], got[KB_BOARD_LEN];

	kb_board_format(&p, b);
	for (int v = -4; v < 12; v++) {
		kb_board_rotate(b, v & 3, want);
		kb_board_rotate(b, v, got);
		cr_assert_arr_eq(got, want, KB_BOARD_LEN, "v %d", v);
		kb_pos q, r;
		kb_pos_rotate(&p, v & 3, &q);
		kb_pos_rotate(&p, v, &r);
		cr_assert_arr_eq(q.prog, r.prog, sizeof q.prog, "v %d", v);
		cr_assert_eq(kb_mask_rotate(0x5, v), kb_mask_rotate(0x5, v & 3));
		cr_assert_eq(kb_seat_rotate('C', v), kb_seat_rotate('C', v & 3));
	}
	cr_assert_eq(kb_mask_rotate(0x3, 1), 0x9u, "A, B seen from B: D, A");
	cr_assert_eq(kb_seat_rotate('A', 1), 'D');
}

/* A move with a bad character anywhere in its token is not a move. */
Test(core_rules, move_scan_checks_every_token_character)
{
	char move[KB_MOVE_LEN + 1];
	kb_msg m;

	for (int i = 1; i < KB_TOKEN_LEN; i++) {
		good_token(move);
		move[KB_TOKEN_LEN] = '1';
		move[KB_TOKEN_LEN + 1] = '\n';
		move[i] = 'G';
		kb_msg_scan(move, sizeof move, &m);
		cr_assert_eq(m.type, KB_MSG_BAD, "'G' at %d", i);
		char want[48];
		snprintf(want, sizeof want, "byte %d of the message is 'G'", i);
		cr_assert(strstr(m.why, want) != NULL, "%s", m.why);
	}
}

/* A game may start with any present seat to roll, D included. */
Test(core_rules, game_starts_at_every_present_seat)
{
	static const uint8_t ctl[KB_SEATS] = {KB_EXTERNAL, KB_HARD, KB_HARD, KB_HARD};
	kb_pos p = test_pos(0xf, "", "", "", "");
	kb_game g;

	for (int turn = 0; turn < KB_SEATS; turn++) {
		cr_assert_eq(kb_game_init_at(&g, 1, ctl, &p, turn, 6), 0, "turn %d", turn);
		cr_assert_eq(g.turn, turn);
	}
	cr_assert_eq(kb_game_init_at(&g, 1, ctl, &p, 4, 6), -1);
	cr_assert_eq(kb_game_init_at(&g, 1, ctl, &p, -1, 6), -1);
	cr_assert_eq(kb_game_init_at(&g, 1, ctl, &p, 0, 7), -1);
	cr_assert_eq(kb_game_init_at(&g, 1, ctl, &p, 0, -1), -1);
	cr_assert_eq(kb_game_init_at(&g, 1, ctl, &p, 0, 0), 0, "die 0: drawn");
	static const uint8_t two[KB_SEATS] = {KB_EXTERNAL, KB_HARD, KB_ABSENT, KB_ABSENT};
	cr_assert_eq(kb_game_init_at(&g, 1, two, &p, 0, 6), -1, "present seats disagree");
	kb_pos q = test_pos(0x3, "", "", "", "");
	cr_assert_eq(kb_game_init_at(&g, 1, two, &q, 2, 6), -1, "an absent seat to roll");
	q = test_pos(0x3, "", "31 30 29 28", "", "");
	cr_assert_eq(kb_game_init_at(&g, 1, two, &q, 0, 6), -1, "a seat has won");
}

/* ---- a roll in words, cut to any buffer (core/facts.h) --------------------- */

/* kb_facts_of answers -1 for a board that does not parse and for a piece
 * that cannot move (its move fields then say none), 0 for a position
 * without a roll (s < 0). */
Test(core_rules, facts_of_refuses_what_it_cannot_describe)
{
	char board[KB_BOARD_LEN];
	kb_facts fx;

	memset(board, '0', sizeof board);
	board[3] = 'A';
	cr_assert_eq(kb_facts_of(board, 0x3, 0, 2, 1, &fx), -1, "piece 1 is home: a 2 cannot move it");
	cr_assert(fx.index == -1 && fx.captured == -1 && fx.legal == 1);
	cr_assert_eq(kb_facts_of(board, 0x3, -1, 0, -1, &fx), 0, "counts only");
	board[5] = 'x';
	cr_assert_eq(kb_facts_of(board, 0x3, 0, 2, 0, &fx), -1, "not a board");
	cr_assert(fx.index == -1 && fx.legal == 0);
}

/* kb_facts_text fills at most size bytes: every cut is the full line's
 * prefix, terminated, and nothing after out[size - 1] is written. */
Test(core_rules, facts_text_cut_to_every_size)
{
	static const char full[] = "A rolls 6, could move 0 (ring 3 -> ring 9), 1 (home -> ring 0); "
				   "moves 0 from ring 3 to ring 9, captures B";
	static const char none[] = "B rolls 2, no piece can move";
	char board[KB_BOARD_LEN], out[sizeof full + 32];
	kb_facts fx, pass;

	memset(board, '0', sizeof board);
	board[3] = 'A', board[9] = 'B';
	cr_assert_eq(kb_facts_of(board, 0x3, 0, 6, 0, &fx), 0);
	board[9] = '0'; /* B all at home: a 2 moves nothing */
	cr_assert_eq(kb_facts_of(board, 0x3, 1, 2, -1, &pass), 0);
	for (size_t size = 1; size <= sizeof full; size++) {
		memset(out, 'x', sizeof out);
		kb_facts_text(&fx, out, size);
		cr_assert_eq(strlen(out), size - 1, "size %zu: %s", size, out);
		cr_assert(strncmp(out, full, size - 1) == 0, "size %zu: %s", size, out);
		for (size_t i = size; i < sizeof out; i++)
			cr_assert_eq(out[i], 'x', "size %zu: byte %zu written", size, i);
	}
	for (size_t size = 1; size <= sizeof none; size++) {
		memset(out, 'x', sizeof out);
		kb_facts_text(&pass, out, size);
		cr_assert(strlen(out) == size - 1 && strncmp(out, none, size - 1) == 0,
			  "size %zu: %s", size, out);
		for (size_t i = size; i < sizeof out; i++)
			cr_assert_eq(out[i], 'x', "size %zu: byte %zu written", size, i);
	}
}

/* ---- sockets (core/net.h) ------------------------------------------------ */

/* A listen or a connect that fails closes every socket it tried: a
 * server retrying in a loop must not run out of descriptors. */
Test(core_rules, failed_listen_and_connect_leave_no_socket_open)
{
	int port = test_free_port(), held, fd, got;
	kb_err err;

	cr_assert_eq(kb_net_listen("127.0.0.1", port, port, &held, &got, &err), KB_NET_OK, "%s", err.msg);
	int before = test_open_fds();
	for (int i = 0; i < 3; i++)
		cr_assert_eq(kb_net_listen("127.0.0.1", port, port, &fd, &got, &err), KB_NET_EBIND);
	cr_assert_eq(test_open_fds(), before, "a socket per failed bind left open");
	close(held); /* nothing listens there now */
	before = test_open_fds();
	for (int i = 0; i < 3; i++)
		cr_assert_eq(kb_net_connect("127.0.0.1", port, &fd, &err), KB_NET_ECONNECT);
	cr_assert_eq(test_open_fds(), before, "a socket per failed connect left open");
}

/* A program started with its standard input closed gets descriptor 0 for
 * its first socket: a listener or a connection on 0 is a success. */
Test(core_rules, descriptor_zero_is_a_socket_like_any_other)
{
	int lfd, port, fd = -1, held;
	kb_err err;

	cr_assert_eq(close(0), 0);
	cr_assert_eq(kb_net_listen("127.0.0.1", test_free_port(), 65535, &lfd, &port, &err), KB_NET_OK,
		     "%s", err.msg);
	cr_assert_eq(lfd, 0, "the lowest free descriptor");
	held = dup(lfd);
	cr_assert_eq(close(0), 0);
	cr_assert_eq(kb_net_connect("127.0.0.1", port, &fd, &err), KB_NET_OK, "%s", err.msg);
	cr_assert_eq(fd, 0);
	struct sockaddr_storage peer;
	socklen_t len = sizeof peer;
	cr_assert_eq(getpeername(fd, (struct sockaddr *)&peer, &len), 0, "descriptor 0 is not connected");
	close(fd);
	close(held);
}

/* ---- every transcript record, written and read (core/transcript.h) -------- */

/* Each record's exact text, and what reading it gives: a fingerprint's
 * spaces and control characters become '_', a start record, a roll's seat
 * letter and die, message bytes escaped (backslash, space and control
 * characters), an empty message, and the external controller. */
Test(core_rules, transcript_records_exactly)
{
	static const uint8_t ctl[KB_SEATS] = {KB_EXTERNAL, KB_ABSENT, KB_RANDOM, KB_EASY};
	static const char board[] = "A00000000000000000000D0000000000000000000000";
	static const char want[] =
		"kimble-transcript 1\nseed 5\nseats external absent random easy\n"
		"fingerprint B ab_cd_\n"
		"fingerprint C -\n"
		"start A00000000000000000000D0000000000000000000000 D 5\n"
		"roll 1 A00000000000000000000D0000000000000000000000C4 1 decided\n"
		"msg B 2.500 a\\\\b\\x01\\x20c\n"
		"msg D 0.000 \n";
	kb_pos pos = test_pos(0x9, "0", "", "", "0");
	kb_roll roll = {.seat = 2, .die = 4, .index = 1, .how = KB_DECIDED};
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	kb_transcript tx;
	kb_err err;

	memcpy(roll.board, board, KB_BOARD_LEN);
	cr_assert_eq(kb_tx_write_header(f, 5, ctl), 0);
	cr_assert_eq(kb_tx_write_fingerprint(f, 1, "ab cd\x01"), 0);
	cr_assert_eq(kb_tx_write_fingerprint(f, 2, ""), 0);
	cr_assert_eq(kb_tx_write_start(f, &pos, 3, 5), 0);
	cr_assert_eq(kb_tx_write_roll(f, 1, &roll), 0);
	cr_assert_eq(kb_tx_write_msg(f, 1, 2.5, "a\\b\x01 c", 6), 0);
	cr_assert_eq(kb_tx_write_msg(f, 3, 0, "", 0), 0);
	fclose(f);
	cr_assert_str_eq(text, want);

	cr_assert_eq(kb_tx_parse(text, len, &tx, &err), 0, "%s", err.msg);
	cr_assert_arr_eq(tx.ctl, ctl, KB_SEATS);
	cr_assert_str_eq(tx.fingerprint[1], "ab_cd_");
	cr_assert_str_eq(tx.fingerprint[2], "-");
	cr_assert(tx.has_start);
	cr_assert_arr_eq(tx.start_board, board, KB_BOARD_LEN);
	cr_assert_eq(tx.start_turn, 3);
	cr_assert_eq(tx.start_die, 5);
	cr_assert_eq(tx.nrolls, 1);
	cr_assert_arr_eq(tx.rolls[0].line, "A00000000000000000000D0000000000000000000000C4", KB_ROLL_LINE_LEN);
	cr_assert_eq(tx.rolls[0].index, 1);
	cr_assert_eq(tx.rolls[0].how, KB_DECIDED);
	cr_assert_eq(tx.nmsgs, 2);
	cr_assert_eq(tx.msgs[0].seat, 1);
	cr_assert_eq(tx.msgs[0].ms, 2.5);
	cr_assert_str_eq(tx.msgs[0].text, "a\\b\x01 c");
	cr_assert_eq(tx.msgs[1].seat, 3);
	cr_assert_str_eq(tx.msgs[1].text, "");
	kb_tx_free(&tx);
	free(text);
}

/* Every transcript writer returns exactly -1 when the record cannot be
 * written (a full device), as transcript.h promises. */
Test(core_rules, transcript_writers_fail_with_minus_one)
{
	static const uint8_t ctl[KB_SEATS] = {KB_EXTERNAL, KB_HARD, KB_HARD, KB_HARD};
	kb_pos pos = test_pos(0xf, "", "", "", "");
	kb_roll roll = {.seat = 0, .die = 6, .index = -1, .how = KB_PASS};
	FILE *f = fopen("/dev/full", "w");

	cr_assert_not_null(f);
	setvbuf(f, NULL, _IONBF, 0); /* each record reaches the device at once */
	memset(roll.board, '0', KB_BOARD_LEN);
	cr_assert_eq(kb_tx_write_header(f, 1, ctl), -1);
	cr_assert_eq(kb_tx_write_name(f, 0, "bot"), -1);
	cr_assert_eq(kb_tx_write_fingerprint(f, 0, "ab"), -1);
	cr_assert_eq(kb_tx_write_start(f, &pos, 0, 6), -1);
	cr_assert_eq(kb_tx_write_roll(f, 1, &roll), -1);
	cr_assert_eq(kb_tx_write_msg(f, 0, 1.0, "x", 1), -1);
	cr_assert_eq(kb_tx_write_note(f, "n"), -1);
	cr_assert_eq(kb_tx_write_forfeit(f, 0, 1, "illegal", "hard", "d"), -1);
	cr_assert_eq(kb_tx_write_end(f, 0, 1, "win"), -1);
	fclose(f);

	/* a message record failing at its text, and at its newline:
	 * "msg A 1.000 " is 12 bytes */
	char buf[16];
	for (size_t room = 12; room <= 13; room++) {
		f = fmemopen(buf, room, "w");
		cr_assert_not_null(f);
		setvbuf(f, NULL, _IONBF, 0);
		cr_assert_eq(kb_tx_write_msg(f, 0, 1.0, "x", 1), -1, "room for %zu bytes", room);
		fclose(f);
	}
	f = fmemopen(buf, 14, "w");
	setvbuf(f, NULL, _IONBF, 0);
	cr_assert_eq(kb_tx_write_msg(f, 0, 1.0, "x", 1), 0, "room for all 14 bytes");
	fclose(f);
}

/* A message longer than kb_tx_msg's text keeps its first 95 bytes, the
 * escaped ones counted once. */
Test(core_rules, long_message_read_back_truncated_to_95_bytes)
{
	static const char head[] = "kimble-transcript 1\nmsg B 1.000 ";
	char text[400], want[96];
	kb_transcript tx;
	kb_err err;
	int n = snprintf(text, sizeof text, "%s\\x01", head);

	for (int i = 0; i < 120; i++)
		text[n++] = (char)('a' + i % 26);
	text[n++] = '\n';
	want[0] = '\x01';
	for (int i = 0; i < 94; i++)
		want[1 + i] = (char)('a' + i % 26);
	want[95] = '\0';
	cr_assert_eq(kb_tx_parse(text, (size_t)n, &tx, &err), 0, "%s", err.msg);
	cr_assert_eq(tx.nmsgs, 1);
	cr_assert_str_eq(tx.msgs[0].text, want);
	kb_tx_free(&tx);
}

/* Records short of their fields are refused and named, also right after
 * a record that had them; a roll's second field must be a state line,
 * not any response line. */
Test(core_rules, short_records_refused)
{
	static const char *const bad[] = {
		"kimble-transcript 1\nmsg B 2.500 hi\nmsg A\n",
		"kimble-transcript 1\nmsg B 2.500 hi\nmsg\n",
		"kimble-transcript 1\nroll 1 END - auto\n",
	};
	static const char *const why[] = {"expected \"msg SEAT MS TEXT\"", "expected \"msg SEAT MS TEXT\"",
					  "expected a 46-character state line"};
	kb_transcript tx;
	kb_err err;

	for (int i = 0; i < 3; i++) {
		err.msg[0] = '\0';
		cr_assert_eq(kb_tx_parse(bad[i], strlen(bad[i]), &tx, &err), -1, "%s", bad[i]);
		cr_assert(strstr(err.msg, why[i]) != NULL && strstr(err.msg, i < 2 ? "line 3" : "line 2") != NULL,
			  "%s", err.msg);
	}
}

/* A 46-character line with a board character other than 0, A..D is no
 * state line. */
Test(core_rules, state_line_board_characters)
{
	char line[KB_ROLL_LINE_LEN + 1];
	kb_line out;
	kb_err err;

	memset(line, '0', KB_BOARD_LEN);
	memcpy(line + KB_BOARD_LEN, "B3", 3);
	cr_assert_eq(kb_line_parse(line, KB_ROLL_LINE_LEN, &out, &err), 0, "%s", err.msg);
	cr_assert_eq(out.type, KB_LINE_ROLL);
	line[17] = 'E';
	err.msg[0] = '\0';
	cr_assert_eq(kb_line_parse(line, KB_ROLL_LINE_LEN, &out, &err), -1);
	cr_assert(strstr(err.msg, "board characters must be 0, A, B, C or D") != NULL, "%s", err.msg);
	line[17] = '0';
	/* the first and the last board character are checked too */
	for (int i = 0; i < KB_BOARD_LEN; i += KB_BOARD_LEN - 1) {
		line[i] = 'x';
		cr_assert_eq(kb_line_parse(line, KB_ROLL_LINE_LEN, &out, &err), -1, "x at %d", i);
		line[i] = '0';
	}
}

/* ---- no decision pending, and a picture's corner lines (core/game.h, draw.h) ---- */

/* A game just started, from the start or from a position, has no decision
 * pending: pending_seat is -1 (game.h) and the pending mask 0. */
Test(core_rules, no_decision_pending_at_the_start)
{
	static const uint8_t ctl[KB_SEATS] = {KB_EXTERNAL, KB_HARD, KB_EASY, KB_RANDOM};
	kb_pos p = test_pos(0xf, "", "", "", "");
	kb_game g;

	kb_game_init(&g, 9, ctl);
	cr_assert_eq(g.pending_seat, -1);
	cr_assert_eq(kb_game_pending_mask(&g), 0);
	cr_assert_eq(kb_game_init_at(&g, 9, ctl, &p, 2, 6), 0);
	cr_assert_eq(g.pending_seat, -1);
	cr_assert_eq(kb_game_pending_mask(&g), 0);
}

/* kb_draw_board fails with -1 when a row, a row's newline or a corner line
 * cannot be written. */
Test(core_rules, board_picture_fails_where_a_write_fails)
{
	static const char rows[] = PICTURE_ROWS, corners[] = PICTURE_CORNERS;
	char b[KB_BOARD_LEN], buf[1024];

	picture_board(b);
	/* room for the rows and 0, 10 or 27 + 5 bytes of the corner lines */
	static const size_t corner_room[] = {0, 10, 27 + 5};
	for (size_t i = 0; i < sizeof corner_room / sizeof *corner_room; i++) {
		size_t room = strlen(rows) + corner_room[i];
		FILE *f = fmemopen(buf, room, "w");
		cr_assert_not_null(f);
		setvbuf(f, NULL, _IONBF, 0);
		cr_assert_eq(kb_draw_board(f, b, 1, 5, 0xb, 0), -1, "room for %zu bytes", room);
		fclose(f);
	}
	/* room for none of it, for 10 bytes of the first row, and for the
	 * first row without its newline (31 bytes) */
	static const size_t row_room[] = {0, 10, 31};
	for (size_t i = 0; i < sizeof row_room / sizeof *row_room; i++) {
		FILE *f = fmemopen(buf, row_room[i] ? row_room[i] : 1, "w");
		cr_assert_not_null(f);
		setvbuf(f, NULL, _IONBF, 0);
		if (!row_room[i])
			fputc('x', f); /* the one byte used up */
		cr_assert_eq(kb_draw_board(f, b, 1, 5, 0xb, 0), -1, "room for %zu bytes", row_room[i]);
		fclose(f);
	}
	FILE *f = fmemopen(buf, strlen(rows) + strlen(corners), "w");
	setvbuf(f, NULL, _IONBF, 0);
	cr_assert_eq(kb_draw_board(f, b, 1, 5, 0xb, 0), 0, "room for the whole picture");
	fclose(f);
}

/* ---- seconds at the ends of their range (core/num.h) ------------------------- */

/* kb_num_seconds takes both ends of its range in milliseconds, and no
 * more: 0.001 s is 1 ms, 60 s is 60000 ms; 0.0009 and 60.001 are out, and
 * the message says the range in seconds. */
Test(core_rules, seconds_range_ends_exactly)
{
	int64_t ms = -1;
	kb_err err;

	cr_assert_eq(kb_num_seconds("--ttl", "0.001", 1, 60000, &ms, &err), KB_NUM_OK, "%s", err.msg);
	cr_assert_eq(ms, 1);
	cr_assert_eq(kb_num_seconds("--ttl", "60", 1, 60000, &ms, &err), KB_NUM_OK, "%s", err.msg);
	cr_assert_eq(ms, 60000);
	cr_assert_eq(kb_num_seconds("--ttl", "0.5", 500, 2000, &ms, &err), KB_NUM_OK, "%s", err.msg);
	cr_assert_eq(ms, 500);
	cr_assert_eq(kb_num_seconds("--ttl", "60.001", 1, 60000, &ms, &err), KB_NUM_RANGE);
	cr_assert_str_eq(err.msg, "--ttl \"60.001\": out of range; expected seconds from 0.001 to 60 "
				  "(e.g. 120 or 0.5)");
	cr_assert_eq(kb_num_seconds("--ttl", "0.0009", 1, 60000, &ms, &err), KB_NUM_RANGE);
	cr_assert_eq(kb_num_seconds("--ttl", "0.499", 500, 2000, &ms, &err), KB_NUM_RANGE);
	cr_assert_str_eq(err.msg, "--ttl \"0.499\": out of range; expected seconds from 0.5 to 2 "
				  "(e.g. 120 or 0.5)");
}

/* Squares by name: home, the ring's 28 squares by number, and each seat's
 * goal squares 1..4 (board indices 28..43, four per seat from A). */
Test(core_rules, square_names)
{
	static const struct {
		int sq;
		const char *name;
	} names[] = {{0, "ring 0"}, {27, "ring 27"}, {28, "goal A1"}, {31, "goal A4"},
		     {32, "goal B1"}, {35, "goal B4"}, {38, "goal C3"}, {40, "goal D1"},
		     {43, "goal D4"}};
	char out[24];

	kb_square_name(KB_SQ_HOME, out, sizeof out);
	cr_assert_str_eq(out, "home");
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		kb_square_name(names[i].sq, out, sizeof out);
		cr_assert_str_eq(out, names[i].name, "square %d", names[i].sq);
	}
}

/* ---- failures the network helpers report (core/net.h) ------------------------ */

/* A write to a pipe nobody reads fails with -1 and EPIPE, not 0. */
Test(core_rules, write_all_to_a_closed_pipe_fails)
{
	int p[2];

	signal(SIGPIPE, SIG_IGN);
	cr_assert_eq(pipe(p), 0);
	close(p[0]);
	errno = 0;
	cr_assert_eq(kb_net_write_all(p[1], "line\n", 5), -1);
	cr_assert_eq(errno, EPIPE);
	close(p[1]);
}

/* With no descriptor left for a socket, listening fails (KB_NET_EBIND, no
 * descriptor handed out) instead of taking descriptor 0 for a listener. */
Test(core_rules, listen_without_a_free_descriptor_fails)
{
	int fd = 123, port = 0, highest = 0;
	kb_err err;
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	cr_assert_not_null(d);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && atoi(e->d_name) > highest)
			highest = atoi(e->d_name);
	closedir(d);
	/* descriptors 0..highest are the only ones allowed: fill any hole
	 * below the highest, which a socket would take */
	for (int k = 0; k <= highest; k++)
		if (fcntl(k, F_GETFD) < 0)
			cr_assert_eq(dup2(highest, k), k);
	struct rlimit rl = {.rlim_cur = (rlim_t)highest + 1, .rlim_max = (rlim_t)highest + 1};
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	cr_assert_eq(kb_net_listen("127.0.0.1", 40000, 40000, &fd, &port, &err), KB_NET_EBIND, "%s", err.msg);
	cr_assert_eq(fd, -1);
}

/* A roll in words that cannot be written fails with -1. */
Test(core_rules, facts_line_write_fails)
{
	kb_facts fx;
	char b[KB_BOARD_LEN];
	FILE *f = fopen("/dev/full", "w");

	cr_assert_not_null(f);
	setvbuf(f, NULL, _IONBF, 0);
	memset(b, '0', sizeof b);
	cr_assert_eq(kb_facts_of(b, 0xf, 1, 6, -1, &fx), 0);
	cr_assert_eq(kb_draw_facts(f, &fx), -1);
	fclose(f);
}

/* Two pieces of a seat on one goal square: unsound like two on one ring
 * square (only the order check sees it: goals are outside the ring). */
Test(core_rules, position_check_two_on_a_goal_square)
{
	kb_pos p = test_pos(0x3, "30 29", "", "", "");

	cr_assert_eq(kb_pos_check(&p), 0);
	p.prog[0][1] = 30;
	cr_assert_eq(kb_pos_check(&p), -1, "pieces 0 and 1 on goal square 30");
	p = test_pos(0x3, "31 30 29 28", "", "", "");
	p.prog[0][3] = 29;
	cr_assert_eq(kb_pos_check(&p), -1, "pieces 2 and 3 on goal square 29");
}

/* A start message's second byte must be a digit of the API version: "vx"
 * is refused at once, before the rest of the line has come. */
Test(core_rules, start_with_a_bad_first_version_digit_is_refused_at_once)
{
	kb_msg m;

	cr_assert_eq(kb_msg_scan("vx", 2, &m), 2);
	cr_assert_eq(m.type, KB_MSG_BAD);
	cr_assert(strstr(m.why, "expected the API version digits after 'v'"), "%s", m.why);
	cr_assert_eq(kb_msg_scan("v0", 2, &m), 0);
	cr_assert_eq(m.type, KB_MSG_NONE, "a prefix of a start waits for more");
}

/* A roll in words that is written returns 0 (not a count, not 1) and puts
 * the line, then a newline, on out. */
Test(core_rules, facts_line_written_returns_zero)
{
	kb_facts fx;
	char b[KB_BOARD_LEN], *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	cr_assert_not_null(f);
	memset(b, '0', sizeof b);
	cr_assert_eq(kb_facts_of(b, 0x3, 1, 2, -1, &fx), 0);
	cr_assert_eq(kb_draw_facts(f, &fx), 0);
	fclose(f);
	cr_assert_str_eq(text, "B rolls 2, no piece can move\n");
	free(text);
}

/* kb_apply's index must be legal (rules.h): an illegal one stops the
 * program (assert) rather than moving a piece the rules do not allow. */
Test(core_rules, apply_of_an_illegal_index_aborts, .signal = SIGABRT)
{
	kb_pos pos;

	kb_pos_init(&pos, 0x3);
	/* every piece home and a 3: no piece may move */
	cr_assert_eq(kb_legal(&pos, 0, 3), 0u);
	kb_apply(&pos, 0, 0, 3);
}
