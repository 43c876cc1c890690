/* test_bot.c - the bot: opponent names, move reconstruction from state
 * lines, the search, and kimble-bot as a process under a scripted server
 * fed with real games and with malformed and hostile input. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bot/client.h"
#include "bot/observe.h"
#include "bot/search.h"
#include "core/game.h"
#include "support.h"
#include "test_bot_fake.h"

Test(bot_lineup, names_digits_and_models, .timeout = 10)
{
	uint8_t l[3];
	unsigned present;
	const kb_opponent *opp[4];
	kb_err err;

	cr_assert_eq(kb_lineup_parse("easy,hard,none", l, &present, opp, &err), 0);
	cr_assert(l[0] == 1 && l[1] == 2 && l[2] == 0);
	cr_assert_eq(present, 0x7u);
	cr_assert_eq(opp[1], &kb_opponent_easy);
	cr_assert_eq(opp[2], &kb_opponent_hard);
	cr_assert_null(opp[3]);
	cr_assert_eq(kb_lineup_parse("-,,otherbot", l, &present, opp, &err), 0);
	cr_assert(l[0] == 0 && l[1] == 0 && l[2] == 2);
	cr_assert_eq(present, 0x9u);
	cr_assert_eq(kb_lineup_parse("easy", l, &present, opp, &err), 0);
	cr_assert_eq(present, 0x3u);
	cr_assert_eq(kb_lineup_parse("", l, &present, opp, &err), 0);
	cr_assert_eq(present, 0x1u);
	cr_assert_eq(kb_lineup_parse("a,b,c,d", l, &present, opp, &err), -1);
	cr_assert(strstr(err.msg, "more than three"), "%s", err.msg);
	cr_assert_eq(kb_lineup_parse("ea sy", l, &present, opp, &err), -1);
}

/* Different legal moves of one roll never give the same board. */
Test(bot_observe, legal_moves_give_distinct_boards, .timeout = 30)
{
	kb_rng rng;
	kb_rng_seed(&rng, 99);
	for (int trial = 0; trial < 3000; trial++) {
		kb_game g;
		uint8_t ctl[4] = {KB_RANDOM, KB_RANDOM, KB_RANDOM, KB_RANDOM};
		kb_game_init(&g, kb_rng_next(&rng), ctl);
		int stop = (int)kb_rng_below(&rng, 300);
		for (int k = 0; k < stop && g.winner < 0; k++) {
			int s = g.turn, d = kb_rng_die(&rng);
			unsigned mask = kb_legal(&g.pos, s, d);
			for (int i = 0; i < 4; i++) {
				if (!((mask >> i) & 1))
					continue;
				kb_pos p = g.pos;
				kb_apply(&p, s, i, d);
				cr_assert_eq(kb_observe_step(&g.pos, s, d, mask, &p), i);
			}
			if (mask) {
				kb_apply(&g.pos, s, kb_pick_random(mask, &rng), d);
				if (kb_has_won(&g.pos, s))
					break;
			}
			g.turn = (int8_t)kb_next_seat(&g.pos, s, d);
		}
	}
}

typedef struct collect {
	kb_tracker tr;
	long observed, expected, bad;
	char lines[4000][KB_ROLL_LINE_LEN];
	int idx[4000];
	int n;
} collect;

static void on_obs(void *ctx, const kb_observation *ob)
{
	collect *c = ctx;
	c->observed++;
	if (kb_count(ob->mask) < 2 || ob->seat == 0 || !((ob->mask >> ob->index) & 1))
		c->bad++;
}

static void on_played(void *ctx, const kb_roll *r)
{
	collect *c = ctx;
	if (c->n < 4000) {
		memcpy(c->lines[c->n], r->board, KB_BOARD_LEN);
		c->lines[c->n][44] = (char)('A' + r->seat);
		c->lines[c->n][45] = (char)('0' + r->die);
		c->idx[c->n++] = r->index;
	}
	if (r->how == KB_BUILTIN)
		c->expected++;
}

/* A whole recorded game is accepted and every opponent choice recovered. */
Test(bot_observe, tracker_follows_real_games, .timeout = 60)
{
	static collect c;
	for (uint64_t seed = 1; seed <= 40; seed++) {
		uint8_t ctl[4] = {KB_RANDOM, KB_EASY, (uint8_t)(seed % 3), KB_HARD};
		kb_game g;
		kb_hooks h = {NULL, on_played, &c};
		memset(&c, 0, sizeof c);
		kb_game_init(&g, seed, ctl);
		kb_tracker_init(&c.tr, g.pos.present, on_obs, &c);
		kb_game_advance(&g, &h);
		cr_assert_lt(c.n, 4000);
		kb_err err;
		for (int k = 0; k < c.n; k++) {
			kb_line ln;
			cr_assert_eq(kb_line_parse(c.lines[k], KB_ROLL_LINE_LEN, &ln, &err), 0);
			if (k > 0 && c.lines[k - 1][44] == 'A' && kb_count(c.tr.mask) >= 2)
				kb_tracker_own_move(&c.tr, c.idx[k - 1]);
			cr_assert_eq(kb_tracker_line(&c.tr, &ln, &err), 0, "seed %llu line %d: %s",
				     (unsigned long long)seed, k, err.msg);
		}
		if (c.lines[c.n - 1][44] == 'A' && kb_count(c.tr.mask) >= 2)
			kb_tracker_own_move(&c.tr, c.idx[c.n - 1]);
		cr_assert_eq(kb_tracker_winner(&c.tr, g.winner, &err), 0, "%s", err.msg);
		/* the seat A random rolls count as external decisions only for A */
		cr_assert_eq(c.bad, 0);
		long opp_builtin = 0;
		(void)opp_builtin;
		cr_assert_geq(c.observed, 1);
	}
}

Test(bot_observe, tracker_rejects_impossible_boards, .timeout = 10)
{
	kb_tracker t;
	kb_line ln;
	kb_err err;
	const char *l1 = "A000000000000000000000000000000000000000000" "0B3";
	char l2[47];

	kb_tracker_init(&t, 0x3, NULL, NULL);
	cr_assert_eq(kb_line_parse(l1, 46, &ln, &err), 0, "%s", err.msg);
	cr_assert_eq(kb_tracker_line(&t, &ln, &err), 0, "%s", err.msg);
	/* B rolled 3 with no piece out: nothing moves, A rolls next */
	memcpy(l2, l1, 46);
	l2[44] = 'A';
	l2[45] = '2';
	l2[3] = 'A'; /* A's piece jumped from 0 to 3 with no move */
	l2[0] = '0';
	cr_assert_eq(kb_line_parse(l2, 46, &ln, &err), 0);
	cr_assert_eq(kb_tracker_line(&t, &ln, &err), -1);
	cr_assert(strstr(err.msg, "not the result"), "%s", err.msg);
	/* right board, wrong roller (B rolled 3, so A is next, not B) */
	memcpy(l2, l1, 46);
	l2[44] = 'B';
	cr_assert_eq(kb_line_parse(l2, 46, &ln, &err), 0);
	cr_assert_eq(kb_tracker_line(&t, &ln, &err), -1);
	cr_assert(strstr(err.msg, "next to roll"), "%s", err.msg);
	/* a piece of an absent seat */
	memcpy(l2, l1, 46);
	l2[10] = 'C';
	l2[44] = 'A';
	cr_assert_eq(kb_line_parse(l2, 46, &ln, &err), 0);
	cr_assert_eq(kb_tracker_line(&t, &ln, &err), -1);
}

/* The search prefers the obvious: capturing a piece that is far ahead. */
Test(bot_search, captures_a_leader, .timeout = 10)
{
	const kb_opponent *opp[4] = {NULL, &kb_opponent_hard, NULL, NULL};
	kb_search bot;
	/* A at progress 10 and 0; B at progress 25 = square 4 (7 + 25 - 28):
	 * A's piece at 0 hits it with a 4; the other piece moves 10 -> 14 */
	kb_pos p = test_pos(0x3, "10 0", "25", "", "");
	kb_search_init(&bot, 0x3, opp, 1, KB_BUDGET_DEFAULT_MS);
	unsigned mask = kb_legal(&p, 0, 4);
	cr_assert_eq(mask, 0x3u);
	double v[4];
	cr_assert_eq(kb_search_decide(&bot, &p, 4, mask, v), 1, "v %f %f", v[0], v[1]);
	cr_assert_gt(v[1], v[0]);
	/* a single legal move is played without search */
	cr_assert_eq(kb_search_decide(&bot, &p, 4, 0x2, NULL), 1);
}

/* The search as search.h describes it, every die of every roll searched
 * in full: what kb_search_decide must equal to the last bit, whatever it
 * leaves out (a die that moves nothing searched once, replies cut that
 * cannot beat the best move).  *leaves counts the positions evaluated. */
static double ref_chance(const kb_search *b, const kb_pos *pos, int turn, int k, int rolls,
			 long *leaves);

static double ref_after(const kb_search *b, const kb_pos *pos, int mover, int turn, int k,
			int rolls, long *leaves)
{
	if (kb_has_won(pos, mover))
		return mover == 0 ? 1.0 : 0.0;
	if (k == 0 && (turn == 0 || (mover == 0 && !b->finish_round))) {
		++*leaves;
		return kb_eval_models(b->w, b->kinds, b->leaf_model, pos, turn);
	}
	return ref_chance(b, pos, turn, k, rolls, leaves);
}

static double ref_chance(const kb_search *b, const kb_pos *pos, int turn, int k, int rolls,
			 long *leaves)
{
	double sum = 0;

	if ((turn == 0 && k == 0) || (turn != 0 && rolls >= KB_SEARCH_OPP_ROLLS)) {
		++*leaves;
		return kb_eval_models(b->w, b->kinds, b->leaf_model, pos, turn);
	}
	for (int d = 1; d <= 6; d++) {
		unsigned mask = kb_legal(pos, turn, d);
		double best = turn == 0 && mask ? -1.0 : 0.0;
		for (int i = 0; i < KB_PIECES; i++) {
			kb_pos p = *pos;
			if (turn == 0 && mask && !(mask >> i & 1))
				continue;
			if (turn != 0 && i > 0)
				break;
			if (mask)
				kb_apply(&p, turn, turn == 0 ? i
					 : kb_count(mask) == 1 ? kb_pick_hard(mask)
					 : kb_opponent_pick(b->opp[turn], pos, turn, d, mask), d);
			double v = ref_after(b, &p, turn, kb_next_seat(&p, turn, d),
					     turn == 0 ? k - 1 : k, turn == 0 ? 0 : rolls + 1, leaves);
			if (turn != 0 || !mask || v > best)
				best = v;
			if (!mask)
				break;
		}
		sum += best;
	}
	return sum / 6;
}

Test(bot_search, same_values_as_the_full_search_with_fewer_leaves, .timeout = 60)
{
	static const uint8_t lineups[4][3] = {{KB_HARD, KB_HARD, KB_HARD},
					      {KB_EASY, KB_EASY, KB_EASY},
					      {KB_HARD, KB_ABSENT, KB_ABSENT},
					      {KB_EASY, KB_HARD, KB_EASY}};
	long compared = 0, leaves = 0, searched = 0;

	for (int l = 0; l < 4; l++) {
		uint8_t ctl[KB_SEATS] = {KB_EXTERNAL, lineups[l][0], lineups[l][1], lineups[l][2]};
		const kb_opponent *opp[KB_SEATS] = {NULL, NULL, NULL, NULL};
		for (int s = 1; s < KB_SEATS; s++)
			if (ctl[s] != KB_ABSENT)
				opp[s] = ctl[s] == KB_EASY ? &kb_opponent_easy : &kb_opponent_hard;
		kb_game g;
		kb_search bot;
		kb_game_init(&g, 40 + (uint64_t)l, ctl);
		kb_search_init(&bot, g.pos.present, opp, 7, KB_BUDGET_DEFAULT_MS);
		while (kb_game_advance(&g, NULL) == 0) {
			unsigned mask = kb_game_pending_mask(&g);
			int die = g.pending_die;
			double v[KB_PIECES];
			uint64_t before = bot.nodes;
			int idx = kb_search_decide(&bot, &g.pos, die, mask, v);
			searched += (long)(bot.nodes - before);
			for (int i = 0; i < KB_PIECES; i++) {
				if (!(mask >> i & 1))
					continue;
				kb_pos p = g.pos;
				kb_apply(&p, 0, i, die);
				double want = ref_after(&bot, &p, 0, kb_next_seat(&p, 0, die), bot.depth,
							0, &leaves);
				cr_assert(v[i] == want, "lineup %d: piece %d: %.17g, the full search %.17g",
					  l, i, v[i], want);
				compared++;
			}
			kb_game_decide(&g, idx, NULL);
		}
	}
	cr_assert_gt(compared, 100);
	/* at least a third fewer positions evaluated over these games */
	cr_assert_lt(3 * searched, 2 * leaves, "%ld leaves, the full search %ld", searched, leaves);
}

/* ---- kimble-bot as a process ------------------------------------------ */

typedef struct botrun {
	test_proc p;
	char err_path[600];
	char dir[512];
} botrun;

static void start_bot(botrun *b, const char *opps, const char *seed, const char *extra)
{
	char bin[512];
	char *argv[6] = {(char *)test_bin("kimble-bot", bin, sizeof bin), (char *)opps,
			 (char *)seed, (char *)extra, NULL, NULL};
	test_tmpdir(b->dir, sizeof b->dir);
	snprintf(b->err_path, sizeof b->err_path, "%s/stderr", b->dir);
	cr_assert_eq(test_spawn(&b->p, argv, b->dir, 1, 1, b->err_path), 0, "spawn %s", bin);
}

static int exit_code(int st)
{
	return st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Play seeds through the pipe server; the bot must finish every game. */
static void play_games(const char *opps, int n)
{
	for (int k = 0; k < n; k++) {
		botrun b;
		fake_game f;
		char seed[24];
		snprintf(seed, sizeof seed, "%d", 1000 + k);
		start_bot(&b, opps, seed, NULL);
		fake_init(&f, 77 + (uint64_t)k);
		int w = fake_play_pipes(&f, b.p.out, b.p.in, 20000);
		cr_assert_geq(w, 0, "game %d (%s): fake server result %d; bot stderr: %s", k, opps, w,
			      test_read_file(NULL, b.err_path));
		cr_assert_eq(f.refused, 0, "the bot sent an illegal move");
		close(b.p.in);
		int st = test_wait(&b.p, 2000);
		cr_assert_eq(exit_code(st), 0, "bot exit %d: %s", st, test_read_file(NULL, b.err_path));
		fake_free(&f);
	}
}

Test(bot_proc, plays_hard_x3, .timeout = 60) { play_games("hard,hard,hard", 4); }
Test(bot_proc, plays_easy_x3, .timeout = 60) { play_games("easy,easy,easy", 4); }
Test(bot_proc, plays_hard_alone, .timeout = 60) { play_games("hard", 4); }
Test(bot_proc, plays_mixed_and_unknown, .timeout = 60) { play_games("easy,otherbot,none", 4); }
Test(bot_proc, plays_solo, .timeout = 60) { play_games("none,-,", 2); }

/* The whole output of a bot for a scripted game, as bytes. */
static size_t bot_transcript(const char *seed, uint64_t game, char *out, size_t cap)
{
	botrun b;
	fake_game f;
	int fds[2];
	size_t n = 0;

	start_bot(&b, "hard,easy,hard", seed, NULL);
	fake_init(&f, game);
	cr_assert_eq(pipe(fds), 0);
	/* tee: read bot output ourselves, feed the server by hand */
	char buf[4096];
	size_t len = 0;
	test_reader r;
	(void)r;
	while (!f.over) {
		kb_msg m;
		size_t used = kb_msg_scan(buf, len, &m);
		if (m.type != KB_MSG_NONE) {
			memcpy(out + n, buf, used);
			n += used;
			memmove(buf, buf + used, len - used);
			len -= used;
			fake_respond(&f, &m);
			cr_assert_eq(test_write_all(b.p.in, f.out, f.n), 0);
			continue;
		}
		ssize_t k = read(b.p.out, buf + len, sizeof buf - len);
		cr_assert_gt(k, 0, "bot stopped: %s", test_read_file(NULL, b.err_path));
		len += (size_t)k;
		cr_assert_lt(n + len, cap);
	}
	close(b.p.in);
	cr_assert_eq(exit_code(test_wait(&b.p, 2000)), 0);
	close(fds[0]);
	close(fds[1]);
	fake_free(&f);
	return n;
}

Test(bot_proc, same_seed_same_bytes, .timeout = 60)
{
	static char a[1 << 16], b[1 << 16];
	size_t na = bot_transcript("5", 31337, a, sizeof a);
	size_t nb = bot_transcript("5", 31337, b, sizeof b);
	cr_assert_eq(na, nb);
	cr_assert_eq(memcmp(a, b, na), 0);
	cr_assert_eq(memcmp(a, "v001212", 7), 0);
}

/* Feed input text to a bot; returns its exit status, stderr in err. */
static int feed(const char *opps, const char *input, const char **err)
{
	botrun b;
	start_bot(&b, opps, "1", NULL);
	test_write_all(b.p.in, input, strlen(input));
	close(b.p.in);
	/* drain stdout so the bot never blocks */
	char buf[4096];
	test_reader rd;
	test_reader_init(&rd, b.p.out);
	while (test_getline(&rd, buf, sizeof buf, 3000) >= 0)
		;
	int st = test_wait(&b.p, 3000);
	*err = test_read_file(NULL, b.err_path);
	return exit_code(st);
}

#define TOK "t0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define EMPTY "00000000000000000000000000000000000000000000"

Test(bot_hostile, rejects_malformed_lines, .timeout = 30)
{
	const char *err;
	cr_assert_eq(feed("hard", "garbage\n", &err), 2);
	cr_assert(strstr(err, "garbage"), "%s", err);
	cr_assert_eq(feed("hard", TOK "\n" EMPTY "A\n", &err), 2, "%s", err);
	cr_assert_eq(feed("hard", TOK "\n" EMPTY "A7\nEND\n", &err), 2, "%s", err);
	cr_assert_eq(feed("hard", TOK "\n" EMPTY "X6\nEND\n", &err), 2, "%s", err);
	cr_assert_eq(feed("hard", EMPTY "A6\nEND\n", &err), 2, "state before token: %s", err);
	cr_assert_eq(feed("hard", TOK "\n" TOK "\n", &err), 2, "%s", err);
	cr_assert_eq(feed("hard", "\x01\x02\xff\n", &err), 2, "%s", err);
}

Test(bot_hostile, rejects_impossible_games, .timeout = 30)
{
	const char *err;
	/* a piece of absent seat C */
	cr_assert_eq(feed("hard", TOK "\n" "00000000000000C00000000000000000000000000000A6\nEND\n", &err), 2,
		     "%s", err);
	/* A has no choice on an empty board with a 3, yet the response ends */
	cr_assert_eq(feed("hard", TOK "\n" EMPTY "A3\nEND\n", &err), 2, "%s", err);
	cr_assert(strstr(err, "no choice"), "%s", err);
	/* board changes without a legal move */
	cr_assert_eq(feed("hard", TOK "\n" EMPTY "B3\n" "A0000000000000000000000000000000000000000000A3\nEND\n", &err),
		     2, "%s", err);
	/* winner that cannot have won */
	cr_assert_eq(feed("hard", TOK "\n" EMPTY "B3\nVoittaja: B\nEND\n", &err), 2, "%s", err);
	/* five pieces of A */
	cr_assert_eq(feed("hard", TOK "\n" "AAAAA000000000000000000000000000000000000000A6\nEND\n", &err), 2,
		     "%s", err);
}

Test(bot_hostile, virhe_eof_and_long_lines, .timeout = 30)
{
	const char *err;
	static char big[300000];
	cr_assert_eq(feed("hard", "Virhe: tuntematon viesti\nEND\n", &err), 3, "%s", err);
	cr_assert(strstr(err, "Virhe"), "%s", err);
	cr_assert_eq(feed("hard", "", &err), 4, "%s", err);
	cr_assert_eq(feed("hard", TOK "\n" EMPTY "B3\n", &err), 4, "%s", err);
	memset(big, 'x', sizeof big - 2);
	big[sizeof big - 2] = '\n';
	cr_assert_eq(feed("hard", big, &err), 2, "%s", err);
	cr_assert(strstr(err, "longer"), "%s", err);
}

/* Lines ending in "\r\n" read as the same lines (kb_line_parse drops the
 * '\r'); the '\r' is not quoted back in an error. */
Test(bot_hostile, crlf_lines_read_as_lf, .timeout = 30)
{
	const char *err;
	cr_assert_eq(feed("hard", "Virhe: tuntematon viesti\r\nEND\r\n", &err), 3, "%s", err);
	cr_assert(strstr(err, "answered \"Virhe: tuntematon viesti\"") != NULL, "%s", err);
	cr_assert_eq(feed("hard", TOK "\r\n" EMPTY "B3\r\nEND\r\n", &err), 2, "%s", err);
	cr_assert(strstr(err, "no state line") || strstr(err, "no choice"), "%s", err);
	cr_assert_eq(feed("hard", TOK "\r\n" EMPTY "B3\r\n", &err), 4, "no END: %s", err);
}

Test(bot_hostile, game_over_before_first_decision, .timeout = 30)
{
	const char *err;
	/* B wins with its last piece: 27+4 into goal */
	const char *in = TOK "\n"
		"000000000000000000000000000000000BBB0000000000" "\n";
	(void)in;
	char line[47];
	memcpy(line, EMPTY, 44);
	/* B pieces at progress 29,30,31 (squares 33..35) and one at 27 (sq 6) */
	line[33] = line[34] = line[35] = 'B';
	line[6] = 'B';
	line[44] = 'B';
	line[45] = '1';
	line[46] = 0;
	char input[256];
	snprintf(input, sizeof input, TOK "\n%s\nVoittaja: B\nEND\n", line);
	cr_assert_eq(feed("hard", input, &err), 0, "%s", err);
}

/* The server refuses the move: the decision line comes again, and the bot
 * must answer with another index, saying so on stderr. */
Test(bot_hostile, refused_move_gets_another_index, .timeout = 30)
{
	botrun b;
	test_reader rd;
	char line[256];
	/* A at progress 0 and 5 (squares 0, 5), rolls 2: pieces 0 and 1 legal;
	 * a 6 would let a home piece leave too */
	char st[47];
	memcpy(st, EMPTY, 44);
	st[0] = st[5] = 'A';
	st[44] = 'A';
	st[45] = '2';
	st[46] = '\n';
	start_bot(&b, "hard", "3", NULL);
	test_reader_init(&rd, b.p.out);
	cr_assert_eq(test_getline(&rd, line, sizeof line, 3000), 7);
	cr_assert_str_eq(line, "v001200");
	test_write_all(b.p.in, TOK "\n", 66);
	test_write_all(b.p.in, st, 47);
	test_write_all(b.p.in, "END\n", 4);
	cr_assert_eq(test_getline(&rd, line, sizeof line, 3000), 66);
	cr_assert_eq(strncmp(line, TOK, 65), 0);
	int first = line[65] - '0';
	cr_assert(first == 0 || first == 1);
	test_write_all(b.p.in, st, 47);
	test_write_all(b.p.in, "END\n", 4);
	cr_assert_eq(test_getline(&rd, line, sizeof line, 3000), 66);
	cr_assert_eq(line[65] - '0', 1 - first, "another legal index");
	char said[80];
	snprintf(said, sizeof said, "kimble-bot: the server refused piece %d; choosing again\n", first);
	test_write_all(b.p.in, st, 47);
	test_write_all(b.p.in, "END\n", 4);
	close(b.p.in);
	cr_assert_eq(exit_code(test_wait(&b.p, 3000)), 2, "every move refused");
	/* the program says so on stderr (its diagnostics stream) */
	cr_assert(strstr(test_read_file(NULL, b.err_path), said), "%s", test_read_file(NULL, b.err_path));
}

Test(bot_proc, help_and_usage_errors, .timeout = 10)
{
	char bin[512];
	test_proc p;
	char *argv1[] = {(char *)test_bin("kimble-bot", bin, sizeof bin), "--help", NULL};
	cr_assert_eq(test_spawn(&p, argv1, NULL, 0, 1, "/dev/null"), 0);
	test_reader rd;
	char line[256];
	test_reader_init(&rd, p.out);
	cr_assert_geq(test_getline(&rd, line, sizeof line, 3000), 0);
	cr_assert_str_eq(line, "NAME");
	while (test_getline(&rd, line, sizeof line, 3000) >= 0)
		;
	cr_assert_eq(exit_code(test_wait(&p, 3000)), 0);
	char *argv2[] = {bin, "hard", "notanumber", NULL};
	cr_assert_eq(test_spawn(&p, argv2, NULL, 0, 0, "/dev/null"), 0);
	cr_assert_eq(exit_code(test_wait(&p, 3000)), 64);
	char *argv3[] = {bin, "hard", NULL};
	cr_assert_eq(test_spawn(&p, argv3, NULL, 0, 0, "/dev/null"), 0);
	cr_assert_eq(exit_code(test_wait(&p, 3000)), 64);
}
