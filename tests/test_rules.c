/* test_rules.c - every [decision] of docs/spec.md section 1, on hand-written
 * positions, plus the piece-index order and the built-in opponents. */
#include <criterion/criterion.h>

#include "core/game.h"
#include "core/policy.h"
#include "core/rules.h"
#include "support.h"

#define ALL 0xf

Test(rules, start_position_all_home)
{
	kb_pos p;
	kb_pos_init(&p, 0x5);
	cr_assert_eq(p.present, 0x5);
	for (int s = 0; s < 4; s++)
		for (int i = 0; i < 4; i++)
			cr_assert_eq(p.prog[s][i], KB_HOME);
	kb_pos_init(&p, 0x2);
	cr_assert_eq(p.present, 0x3, "seat A is always present");
}

Test(rules, leaving_home_needs_a_six)
{
	kb_pos p = test_pos(ALL, "", "", "", "");
	for (int d = 1; d <= 5; d++)
		cr_assert_eq(kb_legal(&p, 0, d), 0u, "die %d", d);
	cr_assert_eq(kb_legal(&p, 0, 6), 0x1u, "only piece 0 leaves");
}

/* [decision] pieces leave home in order: only the first home piece. */
Test(rules, decision_only_first_home_piece_leaves)
{
	kb_pos p = test_pos(ALL, "5", "", "", "");
	/* piece 0 at 5 may move 6; piece 1 (first home) may leave; 2, 3 not */
	cr_assert_eq(kb_legal(&p, 0, 6), 0x3u);
	kb_apply(&p, 0, 1, 6);
	cr_assert_eq(p.prog[0][0], 5);
	cr_assert_eq(p.prog[0][1], 0);
	cr_assert_eq(p.prog[0][2], KB_HOME);
}

Test(rules, start_square_blocked_by_own_piece)
{
	kb_pos p = test_pos(ALL, "0", "", "", "");
	cr_assert_eq(kb_legal(&p, 0, 6), 0x1u, "the piece on start moves, no piece leaves");
}

/* [decision] the goal is hit exactly, never overshot. */
Test(rules, decision_goal_exact_never_overshot)
{
	kb_pos p = test_pos(ALL, "27", "", "", "");
	cr_assert_eq(kb_legal(&p, 0, 4), 0x1u, "27+4 = 31, the last goal square");
	cr_assert_eq(kb_legal(&p, 0, 5), 0u, "27+5 = 32 overshoots");
	p = test_pos(ALL, "25", "", "", "");
	cr_assert_eq(kb_legal(&p, 0, 6), 0x3u, "25+6 = 31, and the first home piece may leave");
	cr_assert_eq(kb_legal(&p, 0, 3), 1u, "25+3 = 28, the first goal square");
}

/* [decision] pieces in the goal still move inside it with an exact roll. */
Test(rules, decision_goal_pieces_move_inside)
{
	kb_pos p = test_pos(ALL, "28", "", "", "");
	cr_assert_eq(kb_legal(&p, 0, 3), 1u, "28 -> 31");
	cr_assert_eq(kb_legal(&p, 0, 4), 0u, "28 -> 32 overshoots");
	kb_apply(&p, 0, 0, 2);
	cr_assert_eq(p.prog[0][0], 30);
}

/* [decision] a move never ends on an own piece; passing over is allowed. */
Test(rules, decision_no_ending_on_own_piece_passing_allowed)
{
	kb_pos p = test_pos(ALL, "5 3", "", "", "");
	cr_assert_eq(kb_legal(&p, 0, 2) & 0x2u, 0u, "3+2 lands on own 5");
	cr_assert_neq(kb_legal(&p, 0, 4) & 0x2u, 0u, "3+4 passes own 5");
	/* in the goal too */
	p = test_pos(ALL, "30 28", "", "", "");
	cr_assert_eq(kb_legal(&p, 0, 2), 0x0u, "28+2 lands on own 30; 30+2 overshoots");
	cr_assert_eq(kb_legal(&p, 0, 3), 0x2u, "28+3 passes 30 to 31");
	kb_apply(&p, 0, 1, 3);
	cr_assert_eq(p.prog[0][0], 31, "the passing piece becomes index 0");
	cr_assert_eq(p.prog[0][1], 30);
	/* passing an opponent leaves it alone */
	p = test_pos(ALL, "3", "", "", "");
	p.prog[2][0] = 19; /* C progress 19 = absolute (14+19)%28 = 5 */
	kb_apply(&p, 0, 0, 4);
	cr_assert_eq(p.prog[2][0], 19);
}

Test(rules, capture_sends_home)
{
	/* B progress 3 = absolute 10; A from 7 with 3 lands on 10. */
	kb_pos p = test_pos(ALL, "7", "3 1", "", "");
	cr_assert_eq(kb_apply(&p, 0, 0, 3), 1);
	cr_assert_eq(p.prog[0][0], 10);
	cr_assert_eq(p.prog[1][0], 1, "B's remaining piece is now index 0");
	cr_assert_eq(p.prog[1][1], KB_HOME);
}

/* [decision] start squares are not safe: leaving home captures. */
Test(rules, decision_leaving_home_captures_on_start_square)
{
	/* D progress 7 = absolute (21+7)%28 = 0, A's start square. */
	kb_pos p = test_pos(ALL, "", "", "", "7");
	cr_assert_eq(kb_apply(&p, 0, 0, 6), 3);
	cr_assert_eq(p.prog[0][0], 0);
	cr_assert_eq(p.prog[3][0], KB_HOME);
	/* and a piece standing on its own start square is captured too */
	p = test_pos(ALL, "", "0", "", "");
	p.prog[0][0] = 1; /* A at absolute 1; 1+6 = 7 = B's start */
	cr_assert_eq(kb_apply(&p, 0, 0, 6), 1);
	cr_assert_eq(p.prog[1][0], KB_HOME);
}

Test(rules, goal_squares_are_private)
{
	/* A at progress 29 and B at progress 29: different squares. */
	kb_pos p = test_pos(ALL, "27", "29", "", "");
	cr_assert_eq(kb_apply(&p, 0, 0, 2), -1);
	cr_assert_eq(p.prog[1][0], 29);
	cr_assert_eq(p.prog[0][0], 29);
}

Test(rules, absent_seat_is_never_captured_or_moved)
{
	kb_pos p = test_pos(0x1, "3", "", "", "");
	cr_assert_eq(kb_apply(&p, 0, 0, 4), -1);
	cr_assert_eq(kb_pos_check(&p), 0);
}

/* [decision] after a 6 the same seat rolls again, without limit, even
 * without a legal move; otherwise the next present seat clockwise. */
Test(rules, decision_six_rolls_again_without_limit)
{
	kb_pos p = test_pos(0xd, "", "", "", ""); /* A, C, D */
	for (int k = 0; k < 10; k++)
		cr_assert_eq(kb_next_seat(&p, 2, 6), 2);
	cr_assert_eq(kb_legal(&p, 2, 6), 1u);
	cr_assert_eq(kb_next_seat(&p, 0, 3), 2, "B is absent");
	cr_assert_eq(kb_next_seat(&p, 2, 1), 3);
	cr_assert_eq(kb_next_seat(&p, 3, 5), 0);
	kb_pos solo = test_pos(0x1, "", "", "", "");
	cr_assert_eq(kb_next_seat(&solo, 0, 2), 0, "a lone seat rolls again");
}

struct roll_log {
	int seat[8], die[8], index[8], n;
};

static void log_roll(void *ctx, const kb_roll *roll)
{
	struct roll_log *log = ctx;
	if (log->n < 8) {
		log->seat[log->n] = roll->seat;
		log->die[log->n] = roll->die;
		log->index[log->n] = roll->index;
		log->n++;
	}
}

Test(rules, decision_six_without_move_rolls_again_in_a_game)
{
	/* A cannot move with a 6: goal pieces 31 30 29 and 26 (26+6 overshoots). */
	kb_pos p = test_pos(0x3, "31 30 29 26", "", "", "");
	uint8_t ctl[4] = {KB_HARD, KB_HARD, 0, 0};
	struct roll_log log = {.n = 0};
	kb_hooks hooks = {.played = log_roll, .ctx = &log};
	kb_game g;

	cr_assert_eq(kb_legal(&p, 0, 6), 0u);
	cr_assert_eq(kb_game_init_at(&g, 1, ctl, &p, 0, 6), 0);
	kb_game_advance(&g, &hooks);
	cr_assert(log.n >= 2);
	cr_assert_eq(log.seat[0], 0);
	cr_assert_eq(log.die[0], 6);
	cr_assert_eq(log.index[0], -1, "the 6 passes");
	cr_assert_eq(log.seat[1], 0, "and A rolls again");
}

Test(rules, piece_index_order_goal_track_home)
{
	kb_pos p = test_pos(ALL, "26 4", "", "", "");
	/* move the rear piece (index 1) from 4 past nothing: stays index 1 */
	kb_apply(&p, 0, 1, 2);
	cr_assert_eq(p.prog[0][1], 6);
	/* index 0 goes into the goal: still foremost */
	kb_apply(&p, 0, 0, 4);
	cr_assert_eq(p.prog[0][0], 30);
	/* a track piece passing another becomes the lower index */
	p = test_pos(ALL, "10 8", "", "", "");
	kb_apply(&p, 0, 1, 5);
	cr_assert_eq(p.prog[0][0], 13);
	cr_assert_eq(p.prog[0][1], 10);
	/* goal pieces come before track pieces before home pieces */
	p = test_pos(ALL, "28 27", "", "", "");
	cr_assert_eq(p.prog[0][0], 28);
	cr_assert_eq(p.prog[0][1], 27);
	cr_assert_eq(p.prog[0][2], KB_HOME);
}

Test(rules, win_needs_all_four_in_goal)
{
	kb_pos p = test_pos(ALL, "31 30 29 27", "", "", "");
	cr_assert(!kb_has_won(&p, 0));
	kb_apply(&p, 0, 3, 1);
	cr_assert(kb_has_won(&p, 0));
}

Test(rules, game_ends_at_once_on_win)
{
	kb_pos p = test_pos(0x3, "31 30 29 27", "", "", "");
	uint8_t ctl[4] = {KB_EXTERNAL, KB_HARD, 0, 0};
	kb_game g;
	cr_assert_eq(kb_game_init_at(&g, 7, ctl, &p, 0, 1), 0);
	cr_assert_eq(kb_game_advance(&g, NULL), -1, "autopilot plays the only move");
	cr_assert_eq(g.winner, 0);
	cr_assert_eq(g.rolls, 1u);
}

/* [decision] easy moves the highest legal index, hard the lowest (which can
 * be a goal piece moving inside the goal). */
Test(rules, decision_builtin_easy_and_hard)
{
	kb_pos p = test_pos(ALL, "28 10 3", "", "", "");
	unsigned m = kb_legal(&p, 0, 2);
	cr_assert_eq(m, 0x7u);
	cr_assert_eq(kb_pick_hard(m), 0, "hard moves the goal piece 28 -> 30");
	cr_assert_eq(kb_pick_easy(m), 2, "easy moves the rearmost piece");
	m = kb_legal(&p, 0, 6);
	cr_assert_eq(m, 0xeu, "28+6 overshoots; first home piece may leave");
	cr_assert_eq(kb_pick_easy(m), 3, "with a 6 easy brings out the home piece");
	cr_assert_eq(kb_pick_hard(m), 1);
	cr_assert_eq(kb_pick_easy(0), -1);
	cr_assert_eq(kb_pick_hard(0), -1);
}

Test(rules, builtin_random_uniform_over_legal)
{
	kb_rng r;
	int count[4] = {0};
	kb_rng_seed(&r, 42);
	for (int k = 0; k < 30000; k++)
		count[kb_pick_random(0xb, &r)]++; /* indices 0, 1, 3 */
	cr_assert_eq(count[2], 0);
	for (int i = 0; i < 4; i++)
		if (i != 2)
			cr_assert(count[i] > 9500 && count[i] < 10500, "index %d: %d", i, count[i]);
}

/* Autopilot: no legal move passes, one legal index plays itself, only two
 * or more stop for the outside seat. */
Test(rules, autopilot_stops_only_on_real_choices)
{
	kb_pos p = test_pos(0x1, "10 3", "", "", "");
	uint8_t ctl[4] = {KB_EXTERNAL, 0, 0, 0};
	kb_game g;
	cr_assert_eq(kb_game_init_at(&g, 3, ctl, &p, 0, 2), 0);
	cr_assert_eq(kb_game_advance(&g, NULL), 0);
	cr_assert_eq(g.rolls, 1u);
	cr_assert_eq(kb_game_pending_mask(&g), 0x3u);
	cr_assert_eq(kb_game_decide(&g, 2, NULL), -1, "index 2 is home, not legal");
	cr_assert_eq(kb_game_decide(&g, 1, NULL), 0);
	cr_assert_eq(g.pos.prog[0][1], 5);
	p = test_pos(0x1, "30 29 28 25", "", "", "");
	cr_assert_eq(kb_game_init_at(&g, 3, ctl, &p, 0, 1), 0);
	kb_game_advance(&g, NULL);
	cr_assert(g.rolls >= 1);
}

/* The geometry helpers the evaluation uses instead of its own formulas:
 * kb_ring_progress inverts kb_ring_square, a home piece enters at 0, and
 * kb_legal_occ (the fast form on own-square bits) equals kb_legal, and
 * kb_hard_occ is hard's pick of it. */
Test(rules, ring_progress_target_and_legal_occ)
{
	for (int s = 0; s < KB_SEATS; s++)
		for (int r = 0; r <= KB_LAST_TRACK; r++)
			cr_assert_eq(kb_ring_progress(s, kb_ring_square(s, r)), r, "seat %d r %d", s, r);
	cr_assert_eq(kb_ring_progress(3, 0), 7, "D's start is ring square 21");
	cr_assert_eq(kb_move_target(KB_HOME, 6), 0);
	cr_assert_eq(kb_move_target(25, 6), 31);

	kb_pos p = test_pos(ALL, "30 12 3", "", "", "");
	cr_assert_eq(kb_occupancy(p.prog[0]), (1u << 30) | (1u << 12) | (1u << 3));
	for (int d = 1; d <= 6; d++)
		cr_assert_eq(kb_legal_occ(p.prog[0], kb_occupancy(p.prog[0]), d), kb_legal(&p, 0, d),
			     "die %d", d);
	/* on positions of random games, for every seat and die */
	kb_rng rng;
	kb_pos g;
	int turn = 0;
	kb_rng_seed(&rng, 7);
	kb_pos_init(&g, ALL);
	for (int k = 0; k < 20000; k++) {
		for (int t = 0; t < KB_SEATS; t++)
			for (int d = 1; d <= 6; d++) {
				unsigned m = kb_legal(&g, t, d);
				if (kb_legal_occ(g.prog[t], kb_occupancy(g.prog[t]), d) != m)
					cr_assert_fail("roll %d seat %d die %d", k, t, d);
				/* and hard's piece alone, the evaluation's form */
				if (kb_hard_occ(g.prog[t], kb_occupancy(g.prog[t]), d) !=
				    (m ? kb_pick_hard(m) : -1))
					cr_assert_fail("hard: roll %d seat %d die %d", k, t, d);
			}
		int d = kb_rng_die(&rng);
		unsigned m = kb_legal(&g, turn, d);
		if (m) {
			kb_apply(&g, turn, kb_pick_random(m, &rng), d);
			if (kb_has_won(&g, turn))
				kb_pos_init(&g, ALL);
		}
		turn = kb_next_seat(&g, turn, d);
	}
	/* the own squares are the set given, not the pieces */
	cr_assert_eq(kb_legal_occ(p.prog[0], 1u << 4, 1), 0x3, "30->31, 12->13; 3->4 held");
	cr_assert_eq(kb_legal_occ(p.prog[0], 1u << 0, 6), 0x6, "start held: 12->18, 3->9");
}
