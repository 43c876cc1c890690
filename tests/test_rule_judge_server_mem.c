/* test_rule_judge_server_mem.c - kimble-server out of memory (found by
 * make mutate, docs/mutation.md): the game table gives back what it took
 * when it cannot take all, and the server answers "Virhe: palvelin ei voi
 * aloittaa pelia (...)" (docs/spec.md) when a response or a game cannot
 * be allocated, then serves on.  Suite judge_rules.
 *
 * The allocator cannot be made to fail at one chosen call from outside, so
 * this file puts its own calloc and realloc in front of the C library's
 * (for the whole test binary: with nothing armed they only hand the call
 * on).  Under ASan they are left out, since ASan's allocator must see
 * every block, and the tests skip. */
#include <criterion/criterion.h>
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "judge/bots.h"
#include "judge/match.h"
#include "judge/plan.h"
#include "judge/server/game.h"
#include "judge/server/server.h"
#include "support.h"

/* What to refuse: callocs of exactly calloc_bytes bytes (SIZE_MAX: of any
 * size) (after letting
 * calloc_skip of them through, calloc_fails of them), and reallocs to more
 * than realloc_above bytes.  Zero: nothing. */
static struct {
	size_t calloc_bytes;
	int calloc_skip, calloc_fails;
	size_t realloc_above;
	int add_skip, add_fails;  /* the same for epoll_ctl's EPOLL_CTL_ADD */
} refuse;

#ifndef __SANITIZE_ADDRESS__
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);

void *calloc(size_t n, size_t size)
{
	if (refuse.calloc_fails > 0 && (n * size == refuse.calloc_bytes || refuse.calloc_bytes == SIZE_MAX)) {
		if (refuse.calloc_skip > 0) {
			refuse.calloc_skip--;
		} else {
			refuse.calloc_fails--;
			errno = ENOMEM;
			return NULL;
		}
	}
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
	if (refuse.realloc_above && size > refuse.realloc_above) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_realloc(p, size);
}
#endif

/* A full epoll set (ENOSPC: the user's max_user_watches) cannot be made
 * on purpose either. */
int epoll_ctl(int ep, int op, int fd, struct epoll_event *ev)
{
	if (op == EPOLL_CTL_ADD && refuse.add_fails > 0) {
		if (refuse.add_skip > 0) {
			refuse.add_skip--;
		} else {
			refuse.add_fails--;
			errno = ENOSPC;
			return -1;
		}
	}
	return (int)syscall(SYS_epoll_ctl, ep, op, fd, ev);
}

/* For test_rule_judge_server.c. */
void test_refuse_epoll_add(int skip);
void test_refuse_epoll_add(int skip)
{
	refuse.add_skip = skip;
	refuse.add_fails = 1;
}

static void need_own_allocator(void)
{
#ifdef __SANITIZE_ADDRESS__
	cr_skip_test("ASan's allocator cannot be put behind this file's");
#endif
}

/* Bytes the program holds from malloc now. */
static size_t in_use(void)
{
	return mallinfo2().uordblks;
}

/* ---- the game table ---------------------------------------------------------- */

/* Either of the two bucket arrays refused: -1, and the other one is given
 * back (nothing stays allocated). */
Test(judge_rules, game_table_init_out_of_memory_keeps_nothing)
{
	need_own_allocator();
	for (int skip = 0; skip < 2; skip++) {
		static srv_games t;
		size_t before = in_use();
		refuse.calloc_bytes = 1024 * sizeof(srv_game *);
		refuse.calloc_skip = skip;
		refuse.calloc_fails = 1;
		cr_assert_eq(srv_games_init(&t, 1, 60000, NULL), -1, "array %d refused", skip + 1);
		cr_assert_eq(refuse.calloc_fails, 0, "the array was asked for");
		cr_assert_eq(in_use(), before, "array %d refused: the other one is freed", skip + 1);
	}
}

/* A full table that cannot grow keeps its buckets: games still start and
 * are found, and the new arrays, whichever was refused, are given back. */
Test(judge_rules, game_table_that_cannot_grow_keeps_working)
{
	static const uint8_t lineup[3] = {0, 0, 0};
	static srv_games t;

	need_own_allocator();
	cr_assert_eq(srv_games_init(&t, 1, 60000, NULL), 0);
	for (int i = 0; i < 1024; i++)
		cr_assert_not_null(srv_game_start(&t, lineup, 0));
	cr_assert_eq(t.nbuckets, 1024);
	for (int skip = 0; skip < 2; skip++) {
		size_t before = in_use();
		refuse.calloc_bytes = 2048 * sizeof(srv_game *);
		refuse.calloc_skip = skip;
		refuse.calloc_fails = 1;
		srv_game *g = srv_game_start(&t, lineup, 0);
		cr_assert_not_null(g);
		cr_assert_eq(refuse.calloc_fails, 0, "the table tried to grow");
		cr_assert_eq(t.nbuckets, 1024, "the old buckets kept");
		cr_assert_eq(srv_game_by_token(&t, g->token), g);
		cr_assert_eq(srv_game_by_spec(&t, g->spec_id), g);
		srv_game_end(&t, g, "test");
		/* (the game's own block may stay in the allocator's cache) */
		cr_assert_lt(in_use(), before + 2048 * sizeof(srv_game *),
			     "array %d refused: the other one is freed", skip + 1);
	}
	srv_game *g = srv_game_start(&t, lineup, 0); /* now it may grow */
	cr_assert_eq(t.nbuckets, 2048);
	cr_assert_eq(srv_game_by_token(&t, g->token), g);
	for (srv_game *o = t.lru_head; o; o = o->lru_next)
		cr_assert_eq(srv_game_by_spec(&t, o->spec_id), o, "every game found after growing");
	srv_games_free(&t, "test");
}

/* ---- the server ------------------------------------------------------------------ */

/* srv_run in a child process of this test, runs times (each ended by
 * next_run, the last by stop_server), with refuse as set now: its process
 * id; *port is where it listens.  The child fails (exit status 2) when a
 * run after the first keeps memory. */
static test_reader announced;

static pid_t start_runs(int *port, int runs)
{
	int to_test[2];
	char line[200];
	test_reader *r = &announced;

	cr_assert_eq(pipe(to_test), 0);
	*port = test_free_port();
	pid_t kid = fork();
	cr_assert_geq(kid, 0);
	if (kid == 0) {
		srv_opts o = {.host = "127.0.0.1", .port_first = *port, .port_last = *port,
			      .seed = 1, .ttl_ms = 60000};
		kb_err err;
		prctl(PR_SET_PDEATHSIG, SIGKILL); /* a failed test leaves no server */
		close(to_test[0]);
		o.announce = fdopen(to_test[1], "w");
		srv_limits_defaults(&o.limits);
		o.limits.max_games = SRV_MAX_GAMES;
		if (!o.announce)
			_exit(1);
		setvbuf(o.announce, NULL, _IONBF, 0); /* no buffer kept between runs */
		for (int run = 0; run < runs; run++) {
			/* the first run loads what the C library keeps (name
			 * service, stdio); a second one must give back all */
			size_t before = in_use();
			if (srv_run(&o, &err) != SRV_OK)
				_exit(1);
			if (run > 0 && in_use() > before + 2048)
				_exit(2);
			/* the run's SIGTERM stays pending (blocked; the
			 * server does not read its signalfd): take it */
			sigset_t term;
			struct timespec now = {0, 0};
			sigemptyset(&term);
			sigaddset(&term, SIGTERM);
			sigtimedwait(&term, NULL, &now);
		}
		_exit(0);
	}
	close(to_test[1]);
	test_reader_init(r, to_test[0]);
	cr_assert_gt(test_getline(r, line, sizeof line, 30000), 0, "no announce line");
	cr_assert(strstr(line, "kimble-server: listening on 127.0.0.1:"), "%s", line);
	return kid;
}

static pid_t start_server(int *port)
{
	return start_runs(port, 1);
}

/* End this run of the server and wait for the next one's announce line. */
static void next_run(pid_t kid)
{
	char line[200];

	cr_assert_eq(kill(kid, SIGTERM), 0);
	cr_assert_gt(test_getline(&announced, line, sizeof line, 30000), 0, "no second run");
	cr_assert(strstr(line, "kimble-server: listening on 127.0.0.1:"), "%s", line);
}

static void stop_server(pid_t kid)
{
	int st;

	cr_assert_eq(kill(kid, SIGTERM), 0);
	cr_assert_eq(waitpid(kid, &st, 0), kid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) != 2, "the server's run kept memory");
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the server's run failed (%d)", st);
	close(announced.fd);
}

/* Send text and read its answer's lines up to END into got (joined by
 * '\n', END left out): how many lines. */
static int ask(test_conn *c, const char *text, char *got, size_t size)
{
	char line[256];
	int n = 0;
	size_t len = 0;

	cr_assert_eq(test_write_all(c->fd, text, strlen(text)), 0);
	got[0] = '\0';
	for (;;) {
		cr_assert_geq(test_getline(&c->r, line, sizeof line, 10000), 0, "answer to %s", text);
		if (strcmp(line, "END") == 0)
			return n;
		len += (size_t)snprintf(got + len, size - len, "%s%s", n ? "\n" : "", line);
		cr_assert_lt(len, size);
		n++;
	}
}

#define OOM_VIRHE "Virhe: palvelin ei voi aloittaa pelia (out of memory)"

/* A response that outgrows what the server may allocate (a ?list of 200
 * games, 5 KB, with the response buffer held to its first 4 KB) is
 * answered with the Virhe line alone, not a cut list; the next response
 * is whole again. */
Test(judge_rules, server_response_out_of_memory_is_a_virhe, .timeout = 60)
{
	char got[8192];
	int port;

	need_own_allocator();
	refuse.realloc_above = 4096;
	pid_t kid = start_server(&port);
	test_conn *c = test_conn_open(NULL, port, 10000);
	for (int i = 0; i < 200; i++) {
		cr_assert_geq(ask(c, "v001000\n", got, sizeof got), 2, "start %d", i);
		cr_assert_eq(got[0], 't', "start %d: %.80s", i, got);
	}
	cr_assert_eq(ask(c, "?list\n", got, sizeof got), 1, "%s", got);
	cr_assert_str_eq(got, OOM_VIRHE);
	cr_assert_eq(ask(c, "t0\n", got, sizeof got), 1);
	cr_assert(strncmp(got, "Virhe: tuntematon viesti (", 26) == 0, "%s", got);
	cr_assert_eq(ask(c, "?list\n", got, sizeof got), 1, "%s", got);
	cr_assert_str_eq(got, OOM_VIRHE);
	test_conn_close(c);
	stop_server(kid);
}

/* A game that cannot be allocated: the Virhe line names the cause, no
 * game runs, and the next start is served. */
Test(judge_rules, server_game_out_of_memory_is_a_virhe, .timeout = 60)
{
	char got[8192];
	int port;

	need_own_allocator();
	refuse.calloc_bytes = sizeof(srv_game);
	refuse.calloc_fails = 1;
	pid_t kid = start_server(&port);
	test_conn *c = test_conn_open(NULL, port, 10000);
	cr_assert_eq(ask(c, "v001000\n", got, sizeof got), 1, "%s", got);
	cr_assert_str_eq(got, "Virhe: palvelin ei voi aloittaa pelia (Cannot allocate memory)");
	cr_assert_eq(ask(c, "?list\n", got, sizeof got), 0, "no game runs: %s", got);
	cr_assert_geq(ask(c, "v001000\n", got, sizeof got), 2);
	cr_assert_eq(got[0], 't', "%s", got);
	test_conn_close(c);
	stop_server(kid);
}

/* A run gives back all it took: its game and address tables, running
 * games, spectators, the response buffer. */
Test(judge_rules, server_run_gives_back_its_memory, .timeout = 60)
{
	char got[8192];
	int port;

	need_own_allocator();
	pid_t kid = start_runs(&port, 2);
	for (int run = 0; run < 2; run++) {
		test_conn *c = test_conn_open(NULL, port, 10000), *w = test_conn_open(NULL, port, 10000);
		cr_assert_geq(ask(c, "v001000\n", got, sizeof got), 2);
		cr_assert_eq(ask(c, "?list\n", got, sizeof got), 1, "%s", got);
		char watch[40];
		snprintf(watch, sizeof watch, "?watch %.17s\n", got);
		cr_assert_eq(test_write_all(w->fd, watch, strlen(watch)), 0);
		cr_assert_gt(test_getline(&w->r, got, sizeof got, 10000), 0, "the watch answered");
		test_conn_close(c); /* w is told at the shutdown */
		if (run == 0)
			next_run(kid);
		else
			stop_server(kid);
		test_conn_close(w);
	}
}

/* A connection the epoll set cannot take is closed at once (not left
 * open unserved), and the next one is served. */
Test(judge_rules, server_connection_epoll_refused_is_closed, .timeout = 60)
{
	char got[256];
	int port;

	refuse.add_skip = 2; /* the signalfd and the listener */
	refuse.add_fails = 1;
	pid_t kid = start_server(&port);
	test_conn *c = test_conn_open(NULL, port, 10000);
	cr_assert_eq(test_getline(&c->r, got, sizeof got, 10000), -1, "closed at once");
	test_conn_close(c);
	c = test_conn_open(NULL, port, 10000);
	cr_assert_eq(ask(c, "?list\n", got, sizeof got), 0, "%s", got);
	test_conn_close(c);
	stop_server(kid);
}

/* An answer the server cannot keep for a client that does not read (its
 * queue may not grow past 8 KB here) closes the connection: a client
 * waiting for it is not left hanging with answers missing.  The client
 * reads through a 4 KB buffer and sends 2000 "?list" of 200 games (5 KB
 * each, 10 MB in all: more than the sockets hold) before reading. */
Test(judge_rules, server_answer_not_kept_closes_the_connection, .timeout = 60)
{
	char got[8192];
	int port, small = 4096, ends = 0;

	need_own_allocator();
	refuse.realloc_above = 8192;
	pid_t kid = start_server(&port);
	test_conn *c = test_conn_open(NULL, port, 10000);
	for (int i = 0; i < 200; i++)
		cr_assert_geq(ask(c, "v001000\n", got, sizeof got), 2, "start %d", i);
	test_conn_close(c);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	cr_assert_eq(setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small), 0);
	cr_assert_eq(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0);
	for (int i = 0; i < 2000; i++) /* refused once the server closes */
		if (send(fd, "?list\n", 6, MSG_NOSIGNAL) != 6)
			break;
	test_reader r;
	test_reader_init(&r, fd);
	long len;
	while ((len = test_getline(&r, got, sizeof got, 10000)) >= 0)
		ends += strcmp(got, "END") == 0;
	cr_assert_eq(len, -1, "the connection is closed, not left waiting (%d answers)", ends);
	cr_assert_lt(ends, 2000, "answers are missing");
	close(fd);
	stop_server(kid);
}

/* ---- kimble-judge's game ------------------------------------------------------ */

/* A game whose state, or whose list of rolls, cannot be allocated is not
 * played: -1 and "game SEED: out of memory" (match.h). */
Test(judge_rules, match_out_of_memory_fails_the_game)
{
	kj_bot hard, easy;
	kj_result res;
	kb_err err;

	need_own_allocator();
	cr_assert_eq(kj_bot_resolve("hard", NULL, &hard, &err), 0, "%s", err.msg);
	cr_assert_eq(kj_bot_resolve("easy", NULL, &easy, &err), 0, "%s", err.msg);
	const kj_bot *seats[KB_SEATS] = {&hard, NULL, &easy, NULL};
	kj_match_opts opt = {.move_ms = 5000, .startup_ms = 5000, .grace_ms = 100};
	refuse.calloc_bytes = SIZE_MAX;
	refuse.calloc_fails = 1;
	err.msg[0] = '\0';
	int rc = kj_match_play(seats, 7, &opt, NULL, &res, &err);
	refuse.calloc_fails = 0;
	cr_assert_eq(rc, -1, "the game's state refused");
	cr_assert_str_eq(err.msg, "game 7: out of memory");
	refuse.realloc_above = 1;
	err.msg[0] = '\0';
	rc = kj_match_play(seats, 7, &opt, NULL, &res, &err);
	refuse.realloc_above = 0;
	cr_assert_eq(rc, -1, "the list of rolls refused");
	cr_assert_str_eq(err.msg, "game 7: out of memory");
	cr_assert_eq(kj_match_play(seats, 7, &opt, NULL, &res, &err), 0, "%s", err.msg);
}

/* Start positions that cannot all be held are an error, not a shorter
 * list: 20 positions need a list of 32 after one of 16; that growth
 * refused, kj_starts_read fails naming the file and keeps nothing. */
Test(judge_rules, starts_out_of_memory_is_an_error)
{
	char dir[256], path[300];
	kj_start *st = NULL;
	kb_err err;

	need_own_allocator();
	snprintf(path, sizeof path, "%s/starts", test_tmpdir(dir, sizeof dir));
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	for (int i = 0; i < 20; i++)
		fprintf(f, "00000000000000000000000000000000000000000000 %c %d\n", 'A' + i % 4, i % 7);
	fclose(f);
	size_t before = in_use();
	refuse.realloc_above = 16 * sizeof(kj_start);
	int n = kj_starts_read(path, 0xf, &st, &err);
	refuse.realloc_above = 0;
	cr_assert_eq(n, -1, "%d positions", n);
	char want[400];
	snprintf(want, sizeof want, "start positions %s: out of memory", path);
	cr_assert_str_eq(err.msg, want);
	cr_assert_eq(in_use(), before, "nothing kept");
	cr_assert_eq(kj_starts_read(path, 0xf, &st, &err), 20, "%s", err.msg);
	free(st);
}

/* A bot folder that cannot be noted among the folders hidden from other
 * bots (no memory for the list) is not loaded: -1 and "DIR: cannot note
 * the folder: REASON", DIR the folder's real path. */
Test(judge_rules, bot_load_out_of_memory_names_the_folder)
{
	char dir[256], real[512], path[300], want[700];
	kj_bot bot;
	kb_err err;

	need_own_allocator();
	cr_assert_not_null(realpath(test_tmpdir(dir, sizeof dir), real));
	snprintf(path, sizeof path, "%s/meta", dir);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("b\n/bin/true\n\n0\n", f);
	fclose(f);
	refuse.realloc_above = 1;
	int rc = kj_bot_load(dir, &bot, &err);
	refuse.realloc_above = 0;
	cr_assert_eq(rc, -1);
	snprintf(want, sizeof want, "%s: cannot note the folder: %s", real, strerror(ENOMEM));
	cr_assert_str_eq(err.msg, want);
	cr_assert_eq(kj_bot_load(dir, &bot, &err), 0, "%s", err.msg);
}
