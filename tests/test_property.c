/* test_property.c - 100,000 seeded games over every lineup (1 to 4 seats)
 * and every built-in policy, checked after every roll against a reference
 * written separately on board strings:
 *   - the board round-trips through the parser, every present seat has 4
 *     pieces (board plus home), no two pieces of a seat share a square;
 *   - the legal moves equal a naive recomputation, the move lands exactly
 *     d squares further (goal only by exact count), captures send home;
 *   - turn order: a 6 rolls again, otherwise the next present seat;
 *   - the game ends exactly when a seat has all 4 pieces in its goal. */
#include <criterion/criterion.h>
#include <string.h>

#include "core/game.h"

#define GAMES 100000
#define SHARDS 20
#define MAX_ROLLS 200000

typedef struct checker {
	unsigned present;
	char before[KB_BOARD_LEN];
	int prev_seat, prev_die; /* previous roll, -1 at the start */
	uint32_t rolls;
} checker;

static int square_of(int s, int r)
{
	return r <= 27 ? (7 * s + r) % 28 : 28 + 4 * s + (r - 28);
}

/* Progress values of seat s's pieces on a board, foremost first. */
static int pieces_of(const char *board, int s, int prog[4])
{
	int n = 0;
	for (int r = 31; r >= 0; r--)
		if (board[square_of(s, r)] == 'A' + s)
			prog[n++] = r;
	return n;
}

static unsigned naive_legal(const char *board, int s, int d)
{
	int prog[4], n = pieces_of(board, s, prog);
	unsigned mask = 0;
	for (int i = 0; i < n; i++) {
		int t = prog[i] + d;
		if (t <= 31 && board[square_of(s, t)] != 'A' + s)
			mask |= 1u << i;
	}
	if (n < 4 && d == 6 && board[square_of(s, 0)] != 'A' + s)
		mask |= 1u << n;
	return mask;
}

static int goal_count(const char *board, int s)
{
	int n = 0;
	for (int k = 0; k < 4; k++)
		n += board[28 + 4 * s + k] == 'A' + s;
	return n;
}

static void rolled(void *ctx, const kb_roll *roll)
{
	checker *c = ctx;
	kb_pos pos;
	kb_err err;
	char again[KB_BOARD_LEN];

	c->rolls++;
	cr_assert(c->rolls < MAX_ROLLS, "game does not end");
	cr_assert_eq(kb_board_parse(roll->board, KB_BOARD_LEN, c->present, &pos, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(kb_pos_check(&pos), 0);
	kb_board_format(&pos, again);
	cr_assert_eq(memcmp(again, roll->board, KB_BOARD_LEN), 0, "board round trip");
	for (int s = 0; s < 4; s++) {
		int prog[4];
		int n = pieces_of(roll->board, s, prog);
		cr_assert(n <= 4);
		cr_assert(((c->present >> s) & 1) || n == 0, "absent seat %d has pieces", s);
		cr_assert(goal_count(roll->board, s) < 4, "seat %d won but the game went on", s);
	}
	cr_assert((c->present >> roll->seat) & 1, "absent seat rolls");
	cr_assert(roll->die >= 1 && roll->die <= 6);
	if (c->prev_seat >= 0) {
		int want = c->prev_seat;
		if (c->prev_die != 6)
			do
				want = (want + 1) & 3;
			while (!((c->present >> want) & 1));
		cr_assert_eq(roll->seat, want, "turn order after %c%d", 'A' + c->prev_seat,
			     c->prev_die);
	}
	cr_assert_eq(kb_legal(&pos, roll->seat, roll->die),
		     naive_legal(roll->board, roll->seat, roll->die), "legal moves");
	memcpy(c->before, roll->board, KB_BOARD_LEN);
	c->prev_seat = roll->seat;
	c->prev_die = roll->die;
}

static void played(void *ctx, const kb_roll *roll, const kb_pos *after)
{
	checker *c = ctx;
	char expect[KB_BOARD_LEN], got[KB_BOARD_LEN];
	int s = roll->seat, prog[4], n = pieces_of(c->before, s, prog);

	memcpy(expect, c->before, KB_BOARD_LEN);
	if (roll->index >= 0) {
		cr_assert(naive_legal(c->before, s, roll->die) & (1u << roll->index));
		int from = roll->index < n ? prog[roll->index] : -1;
		int to = from < 0 ? 0 : from + roll->die;
		cr_assert(to <= 31, "goal overshot");
		cr_assert(from >= 0 || roll->die == 6, "left home without a 6");
		if (from >= 0)
			expect[square_of(s, from)] = '0';
		expect[square_of(s, to)] = (char)('A' + s); /* overwriting = capture */
	} else {
		cr_assert_eq(naive_legal(c->before, s, roll->die), 0u, "passed with a legal move");
	}
	kb_board_format(after, got);
	cr_assert_eq(memcmp(expect, got, KB_BOARD_LEN), 0, "move %c%d index %d: %.44s -> %.44s",
		     'A' + s, roll->die, roll->index, c->before, got);
}

/* kb_hooks' played callback sees the roll; the position after is the
 * game's, reached through the context. */
typedef struct run {
	checker c;
	const kb_game *g;
} run;

static void rolled_hook(void *ctx, const kb_roll *roll)
{
	rolled(&((run *)ctx)->c, roll);
}

static void played_hook(void *ctx, const kb_roll *roll)
{
	run *r = ctx;
	played(&r->c, roll, &r->g->pos);
}

static void play_one(uint64_t k)
{
	uint8_t ctl[4];
	unsigned mask = 1 | (unsigned)(k % 8) << 1;
	uint64_t pol = k / 8;
	kb_game g;
	run r = {.c = {.prev_seat = -1}, .g = &g};
	kb_hooks hooks = {.rolled = rolled_hook, .played = played_hook, .ctx = &r};

	for (int s = 0; s < 4; s++) {
		ctl[s] = (mask >> s) & 1 ? (uint8_t)(KB_EASY + pol % 3) : KB_ABSENT;
		pol /= 3;
	}
	r.c.present = mask;
	kb_game_init(&g, kb_stream_seed(2026, KB_TAG_USER, k), ctl);
	cr_assert_eq(kb_game_advance(&g, &hooks), -1, "all seats are built-in");
	cr_assert(g.winner >= 0 && g.winner < 4);
	cr_assert_eq(g.winner, r.c.prev_seat, "the last roller won");
	cr_assert(kb_has_won(&g.pos, g.winner));
	char end[KB_BOARD_LEN];
	kb_board_format(&g.pos, end);
	cr_assert_eq(goal_count(end, g.winner), 4);
	for (int s = 0; s < 4; s++)
		if (s != g.winner)
			cr_assert(goal_count(end, s) < 4);
	cr_assert_eq(g.rolls, r.c.rolls);
}

#define SHARD(n)                                                          \
	Test(property, games_##n, .timeout = 240)                         \
	{                                                                 \
		for (uint64_t k = n; k < GAMES; k += SHARDS)              \
			play_one(k);                                      \
	}
SHARD(0) SHARD(1) SHARD(2) SHARD(3) SHARD(4) SHARD(5) SHARD(6) SHARD(7) SHARD(8) SHARD(9)
SHARD(10) SHARD(11) SHARD(12) SHARD(13) SHARD(14) SHARD(15) SHARD(16) SHARD(17) SHARD(18)
SHARD(19)

/* The same seed gives the same game, roll for roll. */
Test(property, same_seed_same_game, .timeout = 30)
{
	uint8_t ctl[4] = {KB_HARD, KB_RANDOM, KB_EASY, KB_RANDOM};
	for (uint64_t seed = 0; seed < 50; seed++) {
		kb_game a, b;
		kb_game_init(&a, seed, ctl);
		kb_game_init(&b, seed, ctl);
		kb_game_advance(&a, NULL);
		kb_game_advance(&b, NULL);
		cr_assert_eq(a.rolls, b.rolls);
		cr_assert_eq(a.winner, b.winner);
		cr_assert_eq(memcmp(&a.pos, &b.pos, sizeof a.pos), 0);
	}
}

/* Every present seat starts sometimes; absent seats never do. */
Test(property, first_seat_uniform_over_present, .timeout = 30)
{
	uint8_t ctl[4] = {KB_HARD, KB_ABSENT, KB_HARD, KB_HARD};
	int count[4] = {0};
	for (uint64_t seed = 0; seed < 3000; seed++) {
		kb_game g;
		kb_game_init(&g, seed, ctl);
		count[g.turn]++;
	}
	cr_assert_eq(count[1], 0);
	for (int s = 0; s < 4; s += s == 0 ? 2 : 1)
		cr_assert(count[s] > 850 && count[s] < 1150, "seat %d first %d times", s, count[s]);
}
