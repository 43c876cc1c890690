/* test_rule_bot.c - the relay's rule "a response is forwarded only when
 * complete, and exactly once" on its own (found by make mutate,
 * docs/mutation.md): a server that drops the connection in the middle of a
 * response, then answers the resent message in full.  The bot is a shell
 * script that keeps every line it gets. */
#include <criterion/criterion.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/err.h"

#include "bot/client.h"
#include "bot/tune/fit.h"
#include "bot/learn.h"
#include "core/policy.h"
#include "bot/observe.h"
#include "bot/rollout.h"
#include "bot/search.h"
#include "judge/bots.h"
#include "judge/match.h"
#include "core/game.h"
#include "support.h"
#include "support_run.h"

#define TOKEN_LINE "t0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define STATE_LINE "A000000000000000000000000000000000000000BBBBA6"

typedef struct half_server {
	int listen_fd;
	int placeholder;  /* keeps a vanished server's port bound (no listen) */
	char got[2][64];  /* the message of each connection */
} half_server;

/* Read one message line from c into out (up to 63 bytes). */
static void read_message(int c, char out[64])
{
	size_t n = 0;

	while (n < 63) {
		struct pollfd pf = {c, POLLIN, 0};
		if (poll(&pf, 1, 20000) <= 0 || read(c, out + n, 1) != 1)
			break;
		if (out[n++] == '\n')
			break;
	}
	out[n] = '\0';
}

/* Accept the next connection and read its message into h->got[k];
 * returns the connection, or -1. */
static int accept_message(half_server *h, int k)
{
	struct pollfd pf = {h->listen_fd, POLLIN, 0};

	if (poll(&pf, 1, 20000) <= 0)
		return -1;
	int c = accept(h->listen_fd, NULL, NULL);
	if (c >= 0)
		read_message(c, h->got[k]);
	return c;
}

/* First connection: the first line of the response, then a close.
 * Second: the whole response, then wait for the relay to hang up. */
static void *serve_half_then_whole(void *arg)
{
	half_server *h = arg;
	static const char first[] = TOKEN_LINE "\n";
	static const char whole[] = TOKEN_LINE "\n" STATE_LINE "\nEND\n";

	for (int k = 0; k < 2; k++) {
		int c = accept_message(h, k);
		if (c < 0)
			return NULL;
		if (k == 0) {
			test_write_all(c, first, sizeof first - 1);
		} else {
			char buf[256];
			test_write_all(c, whole, sizeof whole - 1);
			struct pollfd pc = {c, POLLIN, 0};
			while (poll(&pc, 1, 20000) > 0 && read(c, buf, sizeof buf) > 0)
				;
		}
		close(c);
	}
	return NULL;
}

static int listen_any(int *port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
	struct sockaddr_in a = {0};
	socklen_t len = sizeof a;

	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) || listen(fd, 4) ||
	    getsockname(fd, (struct sockaddr *)&a, &len))
		return -1;
	*port = ntohs(a.sin_port);
	return fd;
}

/* Serve with serve (a thread) on a fresh port and run the relay there with
 * --retry-ms retry_ms and the bot script (sh -c) in folder dir; returns the
 * relay's wait status. */
static int relay_against(void *(*serve)(void *), half_server *h, const char *retry_ms,
			 const char *script, const char *dir)
{
	pthread_t th;
	char relay[512], port[16], errp[300];
	int p;

	h->listen_fd = listen_any(&p);
	cr_assert_geq(h->listen_fd, 0);
	snprintf(port, sizeof port, "%d", p);
	pthread_create(&th, NULL, serve, h);
	char *argv[] = {(char *)test_bin("kimble-relay", relay, sizeof relay), "--port", port,
			"--retry-ms", (char *)retry_ms, "--transcript", "tx", "--", "/bin/sh", "-c",
			(char *)script, NULL};
	test_proc proc;
	snprintf(errp, sizeof errp, "%s/relay.err", dir);
	cr_assert_eq(test_spawn(&proc, argv, dir, 0, 0, errp), 0);
	int st = test_wait(&proc, 30000);
	pthread_join(th, NULL);
	if (h->listen_fd >= 0)
		close(h->listen_fd);
	if (h->placeholder > 0)
		close(h->placeholder);
	return st;
}

Test(bot_rules, relay_forwards_a_dropped_response_once, .timeout = 60)
{
	half_server h = {0};
	char dir[256];

	test_tmpdir(dir, sizeof dir);
	int st = relay_against(serve_half_then_whole, &h, "3000",
			       "echo v001222; while IFS= read -r l; do printf '%s\\n' \"$l\" >> got.txt; "
			       "[ \"$l\" = END ] && exit 0; done; exit 3", dir);
	cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "relay status %d: %s", st,
		  test_read_file(dir, "relay.err"));
	cr_assert_str_eq(h.got[0], "v001222\n");
	cr_assert_str_eq(h.got[1], "v001222\n", "the message was resent");
	cr_assert_str_eq(test_read_file(dir, "got.txt"), TOKEN_LINE "\n" STATE_LINE "\nEND\n",
			 "the bot got the response once, whole");
}

/* ---- command lines --------------------------------------------------------- */

Test(bot_rules, relay_options_out_of_range, .timeout = 60)
{
	static const char *const bad[][3] = {
		{"--port", "0", "--port \"0\": out of range; expected a whole number from 1 to 65535"},
		{"--port", "65536", "--port \"65536\": out of range; expected a whole number from 1 to 65535"},
		{"--port", "", "--port \"\": nothing given; expected a whole number from 1 to 65535"},
		{"--retry-ms", "-1", "--retry-ms \"-1\": out of range; expected a whole number from 0 to 3600000"},
		{"--retry-ms", "3600001", "--retry-ms \"3600001\": out of range; expected a whole number from 0 to 3600000"},
		{"--port", "12x", "--port \"12x\": malformed; expected a whole number from 1 to 65535"},
	};
	const char *err;

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		const char *args[] = {bad[i][0], bad[i][1], "--", "true", NULL};
		cr_assert_eq(test_run_prog("kimble-relay", args, NULL, &err), 64, "%s %s: %s", bad[i][0], bad[i][1], err);
		cr_assert(strstr(err, bad[i][2]) != NULL, "want \"%s\", got: %s", bad[i][2], err);
	}
	const char *none[] = {"--port", "1", NULL};
	cr_assert_eq(test_run_prog("kimble-relay", none, NULL, &err), 64);
	cr_assert(strstr(err, "expected -- COMMAND [ARGS...] after the options") != NULL, "%s", err);
	const char *extra[] = {"--bogus", "--", "true", NULL};
	cr_assert_eq(test_run_prog("kimble-relay", extra, NULL, &err), 64);
	cr_assert(strstr(err, "unknown option \"--bogus\"") != NULL, "%s", err);
}

Test(bot_rules, bot_arguments_checked, .timeout = 60)
{
	static const char *const bad[][4] = {
		{"hard", "-1", NULL, "SEED \"-1\": out of range; expected an unsigned 64-bit decimal number"},
		{"hard", " 1", NULL, "SEED \" 1\": malformed; expected an unsigned 64-bit decimal number"},
		{"hard", "", NULL, "SEED \"\": nothing given; expected an unsigned 64-bit decimal number"},
		{"hard", "18446744073709551616", NULL, "expected an unsigned 64-bit decimal number"},
		{"hard", "12a", NULL, "expected an unsigned 64-bit decimal number"},
		{"hard", NULL, NULL, "expected OPPONENTS and SEED: kimble-bot OPPONENTS SEED"},
		{"hard", "1", "2", "unexpected argument \"2\""},
	};
	const char *err;

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		const char *args[] = {bad[i][0], bad[i][1], bad[i][2], NULL};
		cr_assert_eq(test_run_prog("kimble-bot", args, NULL, &err), KB_EXIT_USAGE, "%s %s: %s", bad[i][0], bad[i][1], err);
		cr_assert(strstr(err, bad[i][3]) != NULL, "want \"%s\", got: %s", bad[i][3], err);
	}
	const char *budget[] = {"--budget-ms", "x", "hard", "1", NULL};
	cr_assert_eq(test_run_prog("kimble-bot", budget, NULL, &err), KB_EXIT_USAGE);
	cr_assert(strstr(err, "--budget-ms \"x\"") != NULL, "%s", err);
	const char *state[] = {"hard", "1", "--state", NULL};
	cr_assert_eq(test_run_prog("kimble-bot", state, NULL, &err), KB_EXIT_USAGE);
	cr_assert(strstr(err, "--state: expected a value after it") != NULL, "%s", err);
}

/* ---- reconstructing moves from boards -------------------------------------- */

Test(bot_rules, observe_step_names_the_move)
{
	kb_pos before = test_pos(0x3, "9 4", "3", "", ""), after;

	/* a 2: piece 0 to 11 or piece 1 to 6 */
	after = test_pos(0x3, "11 4", "3", "", "");
	cr_assert_eq(kb_observe_step(&before, 0, 2, kb_legal(&before, 0, 2), &after), 0);
	after = test_pos(0x3, "9 6", "3", "", "");
	cr_assert_eq(kb_observe_step(&before, 0, 2, kb_legal(&before, 0, 2), &after), 1);
	after = test_pos(0x3, "9 5", "3", "", "");
	cr_assert_eq(kb_observe_step(&before, 0, 2, kb_legal(&before, 0, 2), &after), -2, "no legal move gives it");
	cr_assert_eq(kb_observe_step(&before, 0, 2, kb_legal(&before, 0, 2), &before), -2, "a legal move had to be made");
	/* B with a 6: its piece at 3 to 9 (index 0), or a piece leaves home */
	after = test_pos(0x3, "9 4", "9", "", "");
	cr_assert_eq(kb_observe_step(&before, 1, 6, kb_legal(&before, 1, 6), &after), 0);
	/* all home and a 5: a pass, the board stays */
	kb_pos home = test_pos(0x3, "", "", "", "");
	cr_assert_eq(kb_observe_step(&home, 0, 5, kb_legal(&home, 0, 5), &home), -1);
	cr_assert_eq(kb_observe_step(&home, 0, 5, kb_legal(&home, 0, 5), &before), -2);
	/* leaving home with the third piece: index 2 */
	kb_pos two = test_pos(0x3, "9 4", "", "", "");
	after = test_pos(0x3, "9 4 0", "", "", "");
	cr_assert_eq(kb_observe_step(&two, 0, 6, kb_legal(&two, 0, 6), &after), 2);
}

Test(bot_rules, tracker_always_counts_seat_a)
{
	kb_tracker t;

	kb_tracker_init(&t, 0x4, NULL, NULL);
	cr_assert_eq(t.present, 0x5u);
	cr_assert_eq(t.own_index, -1);
	cr_assert_eq(t.have, 0);
	kb_tracker_init(&t, 0xf, NULL, NULL);
	cr_assert_eq(t.present, 0xfu);
}

/* Serve one connection: read the message, then close it and stop
 * listening, so the relay cannot reconnect. */
static void *serve_once_then_vanish(void *arg)
{
	half_server *h = arg;
	int c = accept_message(h, 0), one = 1;
	struct sockaddr_in a = {0};
	socklen_t len = sizeof a;

	if (c < 0)
		return NULL;
	/* Keep the port bound but not listening: connections are refused, and
	 * no test running beside this one can be given the port (the relay
	 * would reconnect to that test's server). */
	getsockname(h->listen_fd, (struct sockaddr *)&a, &len);
	close(h->listen_fd);
	h->placeholder = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	setsockopt(h->placeholder, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	bind(h->placeholder, (struct sockaddr *)&a, sizeof a);
	h->listen_fd = -1;
	close(c);
	return NULL;
}

Test(bot_rules, relay_gives_up_after_retry_ms, .timeout = 60)
{
	half_server h = {0};
	char dir[256];

	test_tmpdir(dir, sizeof dir);
	/* the bot keeps its output open: exec'ing "cat >/dev/null" would not */
	int st = relay_against(serve_once_then_vanish, &h, "200", "echo v001222; exec sleep 60", dir);
	const char *err = test_read_file(dir, "relay.err");
	cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 69, "relay status %d: %s (transcript: %s)",
		  st, err, test_read_file(dir, "tx"));
	cr_assert(strstr(err, "lost the server at 127.0.0.1 and could not reconnect within 200 ms") != NULL,
		  "%s", err);
	cr_assert_str_eq(h.got[0], "v001222\n");
}

/* ---- the tuner's self-play data (bot/tune/fit.h) --------------------------------- */

/* Every sample: a sound position whose present seats are the game's
 * lineup (A and the non-absent seats), the roller present, and the game's
 * winner; every game has at least one opponent. */
Test(bot_rules, fit_samples_match_their_games, .timeout = 60)
{
	kb_fit_data d = {0};

	cr_assert_eq(kb_fit_collect(&d, &kb_weights_default, 0, 12, 5, 1), 0);
	cr_assert_eq(d.games, 12);
	cr_assert_gt(d.n, 12 * 20);
	for (size_t i = 0; i < d.n; i++) {
		const kb_fit_sample *s = &d.s[i];
		unsigned want = 1;
		for (int t = 1; t < KB_SEATS; t++) {
			cr_assert(s->kinds[t] == 0xff || s->kinds[t] == KB_EASY || s->kinds[t] == KB_HARD,
				  "type %d", s->kinds[t]);
			if (s->kinds[t] != 0xff)
				want |= 1u << t;
		}
		cr_assert_neq(want, 1u, "sample %zu: no opponent", i);
		cr_assert_eq(s->pos.present, want, "sample %zu", i);
		cr_assert_eq(kb_pos_check(&s->pos), 0, "sample %zu", i);
		cr_assert(kb_present(&s->pos, s->turn), "sample %zu: roller %d absent", i, s->turn);
		cr_assert(s->winner >= 0 && kb_present(&s->pos, s->winner), "sample %zu", i);
	}
	cr_assert(d.wins >= 0 && d.wins <= 12);
	kb_fit_free(&d);

	/* keep = 3 keeps every third roll: a third of the samples */
	kb_fit_data every = {0}, third = {0};
	cr_assert_eq(kb_fit_collect(&every, &kb_weights_default, 0, 4, 9, 1), 0);
	cr_assert_eq(kb_fit_collect(&third, &kb_weights_default, 0, 4, 9, 3), 0);
	cr_assert(third.n * 3 >= every.n - 12 && third.n * 3 <= every.n + 12, "%zu of %zu", third.n,
		  every.n);
	cr_assert_eq(third.wins, every.wins, "the same games");
	kb_fit_free(&every);
	kb_fit_free(&third);
}

/* Alone, the bot wins every game; against opponents, not every one. */
Test(bot_rules, fit_winrate_alone_is_one, .timeout = 60)
{
	static const uint8_t alone[3] = {0, 0, 0}, three[3] = {2, 2, 2};

	cr_assert_eq(kb_fit_lineup_winrate(&kb_weights_default, 0, 0, alone, 5, 1), 1.0);
	double r = kb_fit_lineup_winrate(&kb_weights_default, 0, 0, three, 40, 1);
	cr_assert(r > 0.05 && r < 0.95, "%f", r);
	cr_assert_eq(kb_fit_lineup_winrate(&kb_weights_default, 0, 0, three, 0, 1), 0.0, "no games");
}

/* The fit's log-loss: with all weights zero every present seat is equally
 * likely, so the loss is the mean log of the number of present seats;
 * the committed weights predict better than that, and training from zero
 * lowers the loss. */
Test(bot_rules, fit_training_lowers_the_log_loss, .timeout = 60)
{
	kb_fit_data d = {0};
	kb_weights zero, w;

	cr_assert_eq(kb_fit_collect(&d, &kb_weights_default, 0, 30, 17, 2), 0);
	double uniform = 0;
	for (size_t i = 0; i < d.n; i++)
		uniform += log(__builtin_popcount(d.s[i].pos.present));
	uniform /= (double)d.n;

	memset(&zero, 0, sizeof zero);
	w = zero;
	double l0 = kb_fit_train(&w, &d, 1, 0.0, 0.0, 3);
	cr_assert(fabs(l0 - uniform) < 0.03, "zero weights: %f, uniform %f", l0, uniform);
	w = kb_weights_default;
	double ld = kb_fit_train(&w, &d, 1, 0.0, 0.0, 3);
	cr_assert_lt(ld, uniform - 0.05, "the committed weights: %f, uniform %f", ld, uniform);
	w = zero;
	double lt = kb_fit_train(&w, &d, 4, 0.05, 0.0, 3);
	cr_assert_lt(lt, uniform - 0.02, "trained: %f, uniform %f", lt, uniform);
	kb_fit_free(&d);
}

/* ---- learning: an unsure model leaves the seat as learning off plays it --- */

static int learned_type(const char *dir, uint64_t easy_hits, uint64_t hard_hits)
{
	kb_store *st;
	kb_err err;
	kb_store_add a;
	kb_learn l;
	kb_search bot;
	const kb_opponent *opp[KB_SEATS] = {NULL, &kb_opponent_hard, NULL, NULL};
	const char *const names[KB_SEATS] = {NULL, "pat", NULL, NULL};

	cr_assert_eq(kb_store_open(&st, dir, KB_STORE_CREATE, NULL, &err), 0, "%s", err.msg);
	memset(&a, 0, sizeof a);
	a.name = "pat", a.opponent = 1;
	a.delta.games = 1;
	a.delta.model.decisions = 10;
	a.delta.model.easy_hits = easy_hits;
	a.delta.model.hard_hits = hard_hits;
	cr_assert_eq(kb_store_apply(st, &a, 1, NULL, &err), 0, "%s", err.msg);
	kb_store_close(st);
	kb_learn_open(&l, dir, 0x3, names, NULL, NULL);
	kb_learn_models(&l, opp);
	kb_search_init(&bot, 0x3, opp, 1, 0);
	kb_learn_set_evaluation(&l, &bot);
	kb_learn_close(&l);
	return bot.kinds[1];
}

/* Ten decisions that matched easy 5 times and hard 4 times predict no
 * better than the default: the seat keeps hard's evaluation type (2), as
 * with learning off, whichever policy the few matches lean to. */
Test(bot_rules, unsure_learned_seat_keeps_the_default_type, .timeout = 30)
{
	char a[256], b[256];

	test_tmpdir(a, sizeof a);
	test_tmpdir(b, sizeof b);
	cr_assert_eq(learned_type(a, 5, 4), 2, "matched easy 5, hard 4: too few to be sure");
	cr_assert_eq(learned_type(b, 4, 4), 2, "a tie");
}

/* ---- the search ----------------------------------------------------------------- */

/* kb_search_init sets every field the search reads, whatever the memory held. */
Test(bot_rules, bot_init_sets_every_field)
{
	kb_search bot;
	const kb_opponent *opp[KB_SEATS] = {NULL, &kb_opponent_easy, NULL, NULL};

	memset(&bot, 0x5a, sizeof bot);
	kb_search_init(&bot, 0x6, opp, 3, 5);
	cr_assert_eq(bot.present, 0x7u, "seat A always plays");
	cr_assert_eq(bot.opp[1], &kb_opponent_easy);
	cr_assert_eq(bot.opp[2], &kb_opponent_hard, "a present seat without a model plays hard");
	cr_assert_null(bot.opp[3], "absent");
	cr_assert_eq(bot.kinds[1], 1, "easy is evaluated as easy");
	cr_assert_eq(bot.kinds[2], 2);
	for (int s = 0; s < KB_SEATS; s++)
		cr_assert_null(bot.leaf_model[s]);
	cr_assert_eq(bot.rollout, &kb_rollout_default[2], "the default rollouts for two opponents");
	cr_assert_null(bot.explain);
	cr_assert_eq(bot.nodes, 0);
	cr_assert_eq(bot.w, &kb_weights_default);
	kb_search_set_level(&bot, 3);
	cr_assert_eq(bot.depth, 2);
	cr_assert_eq(bot.finish_round, 0);
	kb_search_set_level(&bot, 4);
	cr_assert_eq(bot.depth, 2);
	cr_assert_eq(bot.finish_round, 1);
	kb_search_set_level(&bot, 0);
	cr_assert_eq(bot.depth, 0);
	cr_assert_eq(bot.finish_round, 0);
}

/* The values the search gives are win probabilities: in [0, 1] for every
 * legal index, -1 for the others, 1 for a move that wins at once. */
Test(bot_rules, search_values_are_probabilities, .timeout = 60)
{
	static const uint8_t ctl[KB_SEATS] = {KB_EXTERNAL, KB_HARD, KB_EASY, KB_HARD};
	const kb_opponent *opp[KB_SEATS] = {NULL, &kb_opponent_hard, &kb_opponent_easy, &kb_opponent_hard};
	int decisions = 0;

	for (uint64_t seed = 1; seed <= 3; seed++) {
		kb_game g;
		kb_search bot;
		kb_game_init(&g, seed, ctl);
		kb_search_init(&bot, g.pos.present, opp, seed, 0);
		kb_search_set_level(&bot, 2);
		while (kb_game_advance(&g, NULL) == 0) {
			unsigned mask = kb_game_pending_mask(&g);
			double v[KB_PIECES];
			int idx = kb_search_decide(&bot, &g.pos, g.pending_die, mask, v);
			cr_assert(mask >> idx & 1);
			for (int i = 0; i < KB_PIECES; i++) {
				if (!(mask >> i & 1)) {
					cr_assert_eq(v[i], -1.0);
					continue;
				}
				cr_assert(v[i] >= 0.0 && v[i] <= 1.0, "seed %d: value %f", (int)seed, v[i]);
				kb_pos p = g.pos;
				kb_apply(&p, 0, i, g.pending_die);
				if (kb_has_won(&p, 0))
					cr_assert_eq(v[i], 1.0);
			}
			decisions++;
			kb_game_decide(&g, idx, NULL);
		}
	}
	cr_assert_gt(decisions, 30);
}

/* ---- rollouts: the best candidates by value, whatever the index order ----- */

Test(bot_rules, rollouts_compare_the_best_candidates, .timeout = 30)
{
	static const kb_rollout_params two = {2, 32, 20, 1.0, 1000000};
	const kb_opponent *opp[KB_SEATS] = {NULL, &kb_opponent_hard, NULL, NULL};
	kb_pos pos = test_pos(0x3, "20 10 3", "12 5", NULL, NULL);
	/* index 0 is the worst: the two best are 1 and 2 */
	double v[KB_PIECES] = {0.10, 0.50, 0.49, -1.0};
	unsigned mask = kb_legal(&pos, 0, 4);

	cr_assert_eq(mask, 0x7u);
	for (uint64_t seed = 0; seed < 20; seed++) {
		kb_search bot;
		kb_search_init(&bot, 0x3, opp, seed, 2);
		int pick = kb_rollout_choose(&bot, &two, &pos, 4, mask, v, 0);
		cr_assert(pick == 1 || pick == 2, "seed %d: piece %d is not one of the two best", (int)seed, pick);
	}
}

/* ---- the protocol client: the winner of an unfinished game is -1 ------------ */

Test(bot_rules, client_winner_unset_until_the_winner_line)
{
	/* the token, then A (a piece on 3) rolls a 6: a decision; no more input */
	static const char token[] = TOKEN_LINE "\n000A0000000000000000000000000000000000000000A6\nEND\n";
	const kb_opponent *opp[KB_SEATS] = {NULL, &kb_opponent_hard, NULL, NULL};
	kb_search bot;
	kb_client c;
	kb_err err;
	char *out = NULL;
	size_t outlen = 0;

	kb_search_init(&bot, 0x3, opp, 1, 0);
	memset(&c, 0, sizeof c); /* winner 0 would be seat A */
	c.bot = &bot;
	c.lineup[0] = 2;
	c.present = 0x3;
	FILE *in = fmemopen((void *)token, sizeof token - 1, "r");
	FILE *o = open_memstream(&out, &outlen);
	cr_assert_eq(kb_client_run(&c, in, o, &err), KB_CLIENT_IO, "%s", err.msg);
	fclose(in);
	fclose(o);
	cr_assert_eq(c.winner, -1, "the input ended before any winner");
	cr_assert(strncmp(out, "v001200\n", 8) == 0, "%s", out);
	free(out);
}

/* kb_fit_write prints the committed weights back as bot/weights.h, byte
 * for byte (the file is its output, with tune.sh's comment). */
Test(bot_rules, fit_write_reproduces_weights_h)
{
	char path[512];
	const char *text = test_read_file(NULL, test_root_path("bot/weights.h", path, sizeof path));
	static char file[1 << 18], comment[4096];

	snprintf(file, sizeof file, "%s", text);
	const char *from = strstr(file, "do not edit.\n * "), *to = strstr(file, " */\n#include");
	cr_assert(from && to && to > from, "bot/weights.h has no tune comment");
	from += strlen("do not edit.\n * ");
	snprintf(comment, sizeof comment, "%.*s", (int)(to - from), from);
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	kb_fit_write(f, &kb_weights_default, comment);
	fclose(f);
	cr_assert_eq(len, strlen(file), "length %zu, file %zu", len, strlen(file));
	for (size_t i = 0; i < len; i++)
		cr_assert_eq(out[i], file[i], "first difference at byte %zu: ...%.60s", i, out + (i > 20 ? i - 20 : 0));
	free(out);
}

/* ---- learning through a judged game ------------------------------------------- */

/* The real bot records what it saw of its opponents: after one judged
 * game against hard x3 its store holds the game and hard's decisions. */
Test(bot_rules, bot_records_its_opponents_decisions, .timeout = 60)
{
	char dir[256], path[400], store[300], bin[512];
	kj_bot bot, hard;
	kb_err err;
	kj_result res;

	test_tmpdir(dir, sizeof dir);
	snprintf(store, sizeof store, "%s/store", dir);
	snprintf(path, sizeof path, "%s/meta", dir);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fprintf(f, "real\n%s\n--state %s\n0\n", test_bin("kimble-bot", bin, sizeof bin), store);
	fclose(f);
	cr_assert_eq(kj_bot_load(dir, &bot, &err), 0, "%s", err.msg);
	cr_assert_eq(kj_bot_resolve("hard", NULL, &hard, &err), 0, "%s", err.msg);
	const kj_bot *seats[KB_SEATS] = {&bot, &hard, &hard, &hard};
	kj_match_opts opt = {.move_ms = 5000, .startup_ms = 5000, .grace_ms = 2000,
			     .limits = {.learn = 1}};
	cr_assert_eq(kj_match_play(seats, 8, &opt, NULL, &res, &err), 0, "%s", err.msg);
	cr_assert_eq(res.seat[0].reason, KJ_OK, "%s", kj_reason_name(res.seat[0].reason));

	kb_store *st;
	kb_opp_rec rec;
	cr_assert_eq(kb_store_open(&st, store, 0, NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(kb_store_get(st, "hard", &rec, &err), KB_REC_OK, "%s", err.msg);
	cr_assert_geq(rec.games, 1, "the game was recorded");
	cr_assert_gt(rec.model.decisions, 0, "the opponents' decisions were observed");
	cr_assert_eq(rec.model.hard_hits, rec.model.decisions, "hard always plays the foremost piece");
	kb_store_close(st);
}
