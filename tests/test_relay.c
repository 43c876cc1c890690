/* test_relay.c - kimble-relay against a scripted TCP server (a thread in
 * the test): a whole game with the real bot, a connection closed after
 * every response, a server restart mid-game, the port list 65430..65439,
 * and no server at all. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "support.h"
#include "test_bot_fake.h"

typedef struct tcp_fake {
	int port;
	int listen_fd;
	int close_every;     /* close each connection after a response */
	int restart_after;   /* close and reopen the listener after N responses */
	fake_game game;
	long responses, connections, restarts;
	int done;
} tcp_fake;

static long ms_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static int listen_on(int port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
	struct sockaddr_in a = {0};

	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&a, sizeof a) || listen(fd, 8)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Serve one connection until it closes, the game ends or we drop it. */
static void serve_conn(tcp_fake *t, int c, long until)
{
	char buf[4096];
	size_t len = 0;

	while (ms_now() < until) {
		kb_msg m;
		size_t used = kb_msg_scan(buf, len, &m);
		if (m.type != KB_MSG_NONE) {
			memmove(buf, buf + used, len - used);
			len -= used;
			fake_respond(&t->game, &m);
			if (test_write_all(c, t->game.out, t->game.n))
				return;
			t->responses++;
			if (t->close_every || t->game.over)
				return;
			if (t->restart_after && t->responses == t->restart_after)
				return;
			continue;
		}
		struct pollfd pf = {c, POLLIN, 0};
		if (poll(&pf, 1, 100) <= 0)
			continue;
		ssize_t k = read(c, buf + len, sizeof buf - len);
		if (k <= 0)
			return;
		len += (size_t)k;
	}
}

static void *serve(void *arg)
{
	tcp_fake *t = arg;
	long until = ms_now() + 30000;

	while (!t->game.over && ms_now() < until) {
		struct pollfd pf = {t->listen_fd, POLLIN, 0};
		if (poll(&pf, 1, 100) <= 0)
			continue;
		int c = accept4(t->listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0)
			continue;
		t->connections++;
		if (getenv("KB_RELAY_DEBUG"))
			fprintf(stderr, "fake: accepted connection %ld after %ld responses\n", t->connections, t->responses);
		serve_conn(t, c, until);
		if (t->restart_after && t->responses == t->restart_after && !t->restarts) {
			/* the server goes away (listener first, then the
			 * connection) and comes back on the same port */
			close(t->listen_fd);
			close(c);
			t->restarts++;
			/* the port frees once the relay closed its end too */
			for (int k = 0; k < 300 && (t->listen_fd = listen_on(t->port)) < 0; k++)
				poll(NULL, 0, 10);
			if (getenv("KB_RELAY_DEBUG"))
				fprintf(stderr, "fake: restarted, listen fd %d\n", t->listen_fd);
			continue;
		}
		close(c);
	}
	close(t->listen_fd);
	t->done = 1;
	return NULL;
}

/* A temp dir and a fake server on port (0: a free one) with seed; returns
 * the port. */
static int fake_begin(tcp_fake *t, pthread_t *th, char *dir, size_t size, int port, uint64_t seed)
{
	test_tmpdir(dir, size);
	if (!port)
		port = test_free_port();
	memset(t, 0, sizeof *t);
	fake_init(&t->game, seed);
	t->port = port;
	t->listen_fd = listen_on(port);
	cr_assert_geq(t->listen_fd, 0, "listen on %d", port);
	pthread_create(th, NULL, serve, t);
	return port;
}

static int run_relay(char **extra, int nextra, const char *opps, const char *dir)
{
	char relay[512], bot[512], errp[700];
	char *argv[32];
	int n = 0;

	argv[n++] = (char *)test_bin("kimble-relay", relay, sizeof relay);
	for (int i = 0; i < nextra; i++)
		argv[n++] = extra[i];
	argv[n++] = "--";
	argv[n++] = (char *)test_bin("kimble-bot", bot, sizeof bot);
	argv[n++] = (char *)opps;
	argv[n++] = "9";
	argv[n] = NULL;
	snprintf(errp, sizeof errp, "%s/relay.err", dir);
	test_proc p;
	cr_assert_eq(test_spawn(&p, argv, dir, 0, 0, errp), 0);
	int st = test_wait(&p, 30000);
	return st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void play_through_relay(int close_every, int restart_after, const char *opps)
{
	tcp_fake t;
	pthread_t th;
	char dir[512], port[16], tpath[600];
	int p = fake_begin(&t, &th, dir, sizeof dir, 0, 4242);

	t.close_every = close_every;
	t.restart_after = restart_after;
	snprintf(port, sizeof port, "%d", p);
	snprintf(tpath, sizeof tpath, "%s/transcript", dir);
	char *extra[] = {"--port", port, "--transcript", tpath};
	int rc = run_relay(extra, 4, opps, dir);
	pthread_join(th, NULL);
	if (rc)
		fprintf(stderr, "transcript: %s\n", test_read_file(dir, "transcript"));
	cr_assert_eq(rc, 0, "relay exit %d: %s", rc, test_read_file(dir, "relay.err"));
	cr_assert(t.game.over, "the game was played to the end: %s", test_read_file(dir, "transcript"));
	cr_assert_eq(t.game.refused, 0);
	const char *tx = test_read_file(dir, "transcript");
	cr_assert(strstr(tx, " > v001"), "transcript has the start message");
	cr_assert(strstr(tx, " < END"), "transcript has responses");
	cr_assert_null(strstr(test_read_file(dir, "relay.err"), "=="),
		       "no board nor move drawn without --show: %s", test_read_file(dir, "relay.err"));
	if (close_every)
		cr_assert_gt(t.connections, 1);
	if (restart_after)
		cr_assert_eq(t.restarts, 1);
	fake_free(&t.game);
}

Test(relay, plays_a_game_on_one_connection, .timeout = 60) { play_through_relay(0, 0, "hard,hard,hard"); }
Test(relay, new_connection_per_message, .timeout = 60) { play_through_relay(1, 0, "easy,hard,easy"); }
Test(relay, survives_server_restart, .timeout = 60) { play_through_relay(0, 2, "hard"); }

Test(relay, no_server_reachable, .timeout = 30)
{
	char dir[512], port[16];
	test_tmpdir(dir, sizeof dir);
	snprintf(port, sizeof port, "%d", test_free_port());
	char *extra[] = {"--port", port, "--retry-ms", "200"};
	int rc = run_relay(extra, 4, "hard", dir);
	cr_assert_eq(rc, 69, "exit %d", rc);
	char want[64];
	snprintf(want, sizeof want, "no Kimble server reachable at 127.0.0.1 port %s\n", port);
	cr_assert(strstr(test_read_file(dir, "relay.err"), want), "the port is named: %s",
		  test_read_file(dir, "relay.err"));
}

/* Without --port the relay tries 65430..65439 in order: serve on the
 * first of 65431..65439 we can bind while 65430 is not listening. */
Test(relay, port_fallback, .timeout = 60)
{
	tcp_fake t;
	pthread_t th;
	char dir[512], tpath[600];
	int port = -1, probe;

	probe = test_connect(KB_PORT_FIRST, 0);
	if (probe >= 0)
		close(probe);
	cr_assert_lt(probe, 0, "port %d is in use by another server; cannot test the fallback", KB_PORT_FIRST);
	for (int p = KB_PORT_FIRST + 1; p <= KB_PORT_LAST && port < 0; p++) {
		int fd = listen_on(p);
		if (fd >= 0) {
			close(fd);
			port = p;
		}
	}
	cr_assert_geq(port, 0, "no free port in 65431..65439");
	fake_begin(&t, &th, dir, sizeof dir, port, 555);
	snprintf(tpath, sizeof tpath, "%s/transcript", dir);
	char *extra[] = {"--transcript", tpath};
	int rc = run_relay(extra, 2, "easy", dir);
	pthread_join(th, NULL);
	cr_assert_eq(rc, 0, "relay exit %d: %s", rc, test_read_file(dir, "relay.err"));
	char want[64];
	snprintf(want, sizeof want, "connected to 127.0.0.1 port %d", port);
	cr_assert(strstr(test_read_file(dir, "transcript"), want), "%s", test_read_file(dir, "transcript"));
	fake_free(&t.game);
}

Test(relay, returns_the_bots_exit_status, .timeout = 30)
{
	tcp_fake t;
	pthread_t th;
	char dir[512], port[16], relay[512];
	int p = fake_begin(&t, &th, dir, sizeof dir, 0, 1);

	snprintf(port, sizeof port, "%d", p);
	char *argv[] = {(char *)test_bin("kimble-relay", relay, sizeof relay), "--port", port, "--",
			"/bin/sh", "-c", "exit 7", NULL};
	test_proc pr;
	cr_assert_eq(test_spawn(&pr, argv, dir, 0, 0, "/dev/null"), 0);
	int st = test_wait(&pr, 10000);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 7, "status %d", st);
	t.game.over = 1; /* stop the server thread */
	pthread_join(th, NULL);
	fake_free(&t.game);
}

/* A server double with one canned response: read the bot's first message
 * (a line), answer it with reply, wait for the relay to hang up. */
typedef struct canned {
	int listen_fd;
	const char *reply;
} canned;

static void *serve_canned(void *arg)
{
	canned *cs = arg;
	struct pollfd pf = {cs->listen_fd, POLLIN, 0};
	char buf[512];

	if (poll(&pf, 1, 20000) > 0) {
		int c = accept4(cs->listen_fd, NULL, NULL, SOCK_CLOEXEC);
		test_reader rd;
		test_reader_init(&rd, c);
		if (c >= 0 && test_getline(&rd, buf, sizeof buf, 10000) >= 0) {
			test_write_all(c, cs->reply, strlen(cs->reply));
			while (test_getline(&rd, buf, sizeof buf, 10000) >= 0)
				;
		}
		if (c >= 0)
			close(c);
	}
	close(cs->listen_fd);
	return NULL;
}

/* Only a "Voittaja: X" line names a winner: another line of its length
 * (11 characters) is no end of the game, and --show draws the bot's
 * decision of the response's state line, not a last roll.  (The real
 * server sends no such line; a server double does.) */
Test(relay, only_voittaja_names_a_winner, .timeout = 30)
{
	char dir[512], port[16], reply[256];
	pthread_t th;
	int p = test_free_port();
	canned cs = {listen_on(p), reply};

	test_tmpdir(dir, sizeof dir);
	cr_assert_geq(cs.listen_fd, 0);
	/* A at squares 0 and 5 rolls a 2: pieces 0 and 1 may move */
	snprintf(reply, sizeof reply, "%s\nA0000A%038dA2\nVirhe: abcd\nEND\n",
		 "t0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", 0);
	pthread_create(&th, NULL, serve_canned, &cs);
	snprintf(port, sizeof port, "%d", p);
	char *extra[] = {"--port", port, "--show"};
	run_relay(extra, 3, "hard", dir);
	pthread_join(th, NULL);
	const char *err = test_read_file(dir, "relay.err");
	cr_assert(strstr(err, "== decision 1: the bot (A) rolled 2; pieces it may move: 0 1\n"), "%s", err);
	cr_assert_null(strstr(err, "== last roll"), "%s", err);
}

/* ---- the real server: bot through the relay, every lineup -------------- */

static void against_server(const char *const lineups[], int n)
{
	char srv[512], dir[512], port[16], seed[24], line[256], tpath[600];
	int p = test_free_port();
	test_proc sp;
	test_reader rd;

	test_tmpdir(dir, sizeof dir);
	snprintf(port, sizeof port, "%d", p);
	char *argv[] = {(char *)test_bin("kimble-server", srv, sizeof srv), "--port", port, "--seed", "11", NULL};
	cr_assert_eq(test_spawn(&sp, argv, dir, 0, 1, NULL), 0);
	test_reader_init(&rd, sp.out);
	cr_assert_gt(test_getline(&rd, line, sizeof line, 10000), 0, "server's first line");
	cr_assert(strstr(line, "listening on"), "%s", line);
	for (int k = 0; k < n; k++) {
		snprintf(seed, sizeof seed, "%d", k);
		snprintf(tpath, sizeof tpath, "%s/t%d", dir, k);
		char *extra[] = {"--port", port, "--transcript", tpath};
		int rc = run_relay(extra, 4, lineups[k], dir);
		cr_assert_eq(rc, 0, "lineup %s: relay exit %d: %s", lineups[k], rc, test_read_file(dir, "relay.err"));
		const char *tx = test_read_file(dir, strrchr(tpath, '/') + 1);
		cr_assert(strstr(tx, "< Voittaja: "), "lineup %s: no winner line", lineups[k]);
		cr_assert_null(strstr(tx, "< Virhe"), "lineup %s: %s", lineups[k], tx);
	}
	test_kill(&sp, SIGTERM);
	test_wait(&sp, 5000);
}

Test(relay_server, all_lineups, .timeout = 120)
{
	static const char *const lineups[] = {
		"hard,hard,hard", "easy,easy,easy", "hard", "easy,hard,easy", "none,easy,-",
		"otherbot,hard", "", "easy",
	};
	against_server(lineups, (int)(sizeof lineups / sizeof lineups[0]));
}

/* ---- the end of the game, the bot's file descriptors, --show ------------ */

typedef struct live_server {
	test_proc proc;
	char port[16];
} live_server;

static void server_up(live_server *s, const char *dir)
{
	char srv[512], line[256];
	test_reader rd;

	snprintf(s->port, sizeof s->port, "%d", test_free_port());
	char *argv[] = {(char *)test_bin("kimble-server", srv, sizeof srv), "--port", s->port, "--seed", "5", NULL};
	cr_assert_eq(test_spawn(&s->proc, argv, dir, 0, 1, NULL), 0);
	test_reader_init(&rd, s->proc.out);
	cr_assert_gt(test_getline(&rd, line, sizeof line, 10000), 0, "server's first line");
	cr_assert(strstr(line, "listening on"), "%s", line);
}

static void server_down(live_server *s)
{
	test_kill(&s->proc, SIGTERM);
	test_wait(&s->proc, 5000);
}

/* Run the shell script body as the bot (through /bin/sh in dir, $BOT the
 * real kimble-bot) with the real relay and server; returns the relay's
 * wait status (-1 when it had to be killed after 20 s). */
static int relay_script(const char *dir, const char *body, char **extra, int nextra)
{
	char relay[512], bot[512], errp[700], script[1200];
	live_server s;
	char *argv[32];
	int n = 0;

	server_up(&s, dir);
	snprintf(script, sizeof script, "BOT='%s'\n%s", test_bin("kimble-bot", bot, sizeof bot), body);
	argv[n++] = (char *)test_bin("kimble-relay", relay, sizeof relay);
	argv[n++] = "--port";
	argv[n++] = s.port;
	for (int i = 0; i < nextra; i++)
		argv[n++] = extra[i];
	argv[n++] = "--";
	argv[n++] = "/bin/sh";
	argv[n++] = "-c";
	argv[n++] = script;
	argv[n] = NULL;
	snprintf(errp, sizeof errp, "%s/relay.err", dir);
	test_proc p;
	cr_assert_eq(test_spawn(&p, argv, dir, 0, 0, errp), 0);
	int st = test_wait(&p, 20000);
	server_down(&s);
	return st;
}

/* docs/spec.md 4.2: after Voittaja and END the bot's stdin is closed; a
 * bot that reads until EOF before saving must see it and end the relay. */
Test(relay_server, closes_the_bots_stdin_after_the_game, .timeout = 60)
{
	char dir[512];

	test_tmpdir(dir, sizeof dir);
	int st = relay_script(dir, "\"$BOT\" hard,easy 3 || exit 9\ncat > rest\necho eof > saved\n", NULL, 0);
	cr_assert(st >= 0, "the relay did not end: it never closed the bot's stdin");
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d: %s", st, test_read_file(dir, "relay.err"));
	cr_assert_str_eq(test_read_file(dir, "saved"), "eof\n");
	cr_assert_str_eq(test_read_file(dir, "rest"), "", "nothing after END");
}

/* A bot that does not exit after the game is killed after --grace-ms,
 * with the children it started (its process group), and the relay says
 * so with status 124. */
Test(relay_server, kills_a_bot_that_stays_after_the_grace, .timeout = 60)
{
	char dir[512];
	char *extra[] = {"--grace-ms", "100"};

	test_tmpdir(dir, sizeof dir);
	int st = relay_script(dir, "\"$BOT\" hard 4 || exit 9\nexec sleep 60\n", extra, 2);
	cr_assert(st >= 0, "the relay did not end");
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 124, "status %d: %s", st, test_read_file(dir, "relay.err"));
	cr_assert(strstr(test_read_file(dir, "relay.err"), "did not exit within 100 ms"), "%s",
		  test_read_file(dir, "relay.err"));
}

/* The bot gets stdin, stdout and stderr only: not the relay's transcript
 * (fd 3 before it was opened close-on-exec), nor its socket. */
Test(relay_server, bot_inherits_no_other_fds, .timeout = 60)
{
	char dir[512], tpath[600];

	test_tmpdir(dir, sizeof dir);
	snprintf(tpath, sizeof tpath, "%s/transcript", dir);
	char *extra[] = {"--transcript", tpath};
	int st = relay_script(dir,
			      /* the shell's descriptors as the bot gets them:
			       * a subshell lists them, so that neither a pipe
			       * nor a redirection of the listing is among them */
			      "(ls -l /proc/$$/fd) > fds\n"
			      "exec \"$BOT\" hard 2\n",
			      extra, 2);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d: %s", st, test_read_file(dir, "relay.err"));
	const char *fds = test_read_file(dir, "fds");
	int lines = 0;
	for (const char *line = fds, *end; *line; line = end ? end + 1 : "") {
		end = strchr(line, '\n');
		lines += strncmp(line, "total", 5) != 0; /* ls's "total N" line */
	}
	cr_assert_eq(lines, 3, "the bot should have fds 0, 1, 2 only, has:\n%s", fds);
	cr_assert_null(strstr(fds, "transcript"), "%s", fds);
}

/* --show says when the server refused the bot's move and what a Virhe
 * line said: the test bot ("mistakes", tests/bots/testbot.c) sends an
 * illegal index, then a wrong token, then plays on to the end. */
Test(relay_server, show_says_refused_moves_and_errors, .timeout = 60)
{
	char dir[512], testbot[1024], body[1200];
	char *extra[] = {"--show"};

	test_tmpdir(dir, sizeof dir);
	test_root_path("build/rel/testbots/testbot", testbot, sizeof testbot);
	snprintf(body, sizeof body, "exec '%s' mistakes hard,hard 6\n", testbot);
	int st = relay_script(dir, body, extra, 1);
	const char *err = test_read_file(dir, "relay.err");
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d: %s", st, err);
	const char *refused = strstr(err, "== the server refused piece ");
	cr_assert_not_null(refused, "%s", err);
	cr_assert_not_null(strstr(refused, "(not a legal move) and asks decision "), "%s", refused);
	const char *virhe = strstr(refused, "== the server says: Virhe: tuntematon pelitoken\n");
	cr_assert_not_null(virhe, "after the refusal: %s", refused);
	cr_assert_not_null(strstr(virhe, "== last roll: "), "the game goes on to its end: %s", virhe);
}

/* --show ends with the final position: the winner with all four pieces in
 * goal, after the picture of the winning roll. */
Test(relay_server, show_draws_the_final_position, .timeout = 60)
{
	char dir[512];
	char *extra[] = {"--show"};

	test_tmpdir(dir, sizeof dir);
	int st = relay_script(dir, "exec \"$BOT\" hard,hard 6\n", extra, 1);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
	const char *err = test_read_file(dir, "relay.err");
	const char *last = strstr(err, "== last roll: ");
	cr_assert_not_null(last, "%s", err);
	char winner = last[strlen("== last roll: X rolled 6; winner ")];
	const char *fin = strstr(last, "== final position");
	cr_assert_not_null(fin, "no final position after the last roll:\n%s", last);
	char want[8];
	snprintf(want, sizeof want, "\n%c ", winner);
	const char *row = strstr(fin, want);
	cr_assert_not_null(row, "%s", fin);
	cr_assert(strstr(row, "goal 4\n") && strstr(row, "goal 4\n") < strchr(row + 1, '\n') + 1,
		  "the winner %c has all four pieces in goal in the final picture:\n%s", winner, fin);
}
