/* test_live.c - kimble-server --http: the live pages over plain HTTP and in
 * a real browser (headless Chromium), games played by the real bot through
 * the real relay, or by this test on the game port where it must hold a
 * game still.  Each test runs its own server on free ports. */
#include <criterion/criterion.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/wire.h"
#include "support.h"

#define WAIT_MS 20000
#define BIG (1 << 20)

typedef struct live {
	test_proc p;
	int port, http;
	char dir[512];
} live;

static void live_start(live *s, const char *const *extra)
{
	char bin[512], port[16], http[16], line[256], errp[600];
	const char *argv[24] = {test_bin("kimble-server", bin, sizeof bin), "--port", port,
				"--http", http};
	int n = 5;
	test_reader r;

	test_tmpdir(s->dir, sizeof s->dir);
	s->port = test_free_port();
	do
		s->http = test_free_port();
	while (s->http == s->port);
	snprintf(port, sizeof port, "%d", s->port);
	snprintf(http, sizeof http, "%d", s->http);
	for (int i = 0; extra && extra[i] && n < 22; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	snprintf(errp, sizeof errp, "%s/server.err", s->dir);
	cr_assert_eq(test_spawn(&s->p, (char *const *)argv, s->dir, 0, 1, errp), 0);
	test_reader_init(&r, s->p.out);
	cr_assert_gt(test_getline(&r, line, sizeof line, WAIT_MS), 0, "server's first line");
	cr_assert(strstr(line, "listening on"), "%s", line);
	cr_assert_gt(test_getline(&r, line, sizeof line, WAIT_MS), 0, "server's http line");
	cr_assert(strstr(line, "kimble-server: http on 127.0.0.1:"), "%s", line);
}

static void live_stop(live *s)
{
	test_kill(&s->p, SIGTERM);
	int st = test_wait(&s->p, WAIT_MS);
	cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "server exit status %d", st);
}

/* Read fd to EOF into buf (NUL-terminated); returns the length. */
static size_t read_all(int fd, char *buf, size_t size, int timeout_ms)
{
	size_t len = 0;

	for (;;) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		cr_assert_eq(poll(&pfd, 1, timeout_ms), 1, "no EOF in time; got: %.*s", (int)len, buf);
		ssize_t n = read(fd, buf + len, size - 1 - len);
		if (n <= 0)
			break;
		len += (size_t)n;
		cr_assert_lt(len, size - 1, "answer too long");
	}
	buf[len] = '\0';
	return len;
}

/* Send an HTTP/1.0 request (the answer ends at EOF) and return the socket. */
static int http_open(int port, const char *method, const char *path)
{
	char req[512];
	int fd = test_connect(port, WAIT_MS);

	cr_assert_geq(fd, 0, "connect to the http port %d", port);
	snprintf(req, sizeof req, "%s %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", method, path);
	cr_assert_eq(test_write_all(fd, req, strlen(req)), 0);
	return fd;
}

/* The whole answer (status line, headers, body) into a static buffer. */
static char *http_get(int port, const char *method, const char *path)
{
	static char buf[BIG];
	int fd = http_open(port, method, path);

	read_all(fd, buf, sizeof buf, WAIT_MS);
	close(fd);
	return buf;
}

/* The spectator id of the first game that /games lists, into id[18]. */
static void first_game(int port, char *id, const char *want)
{
	const char *games = http_get(port, "GET", "/games");
	const char *p = strstr(games, "{\"id\":\"");

	cr_assert(p, "a game in /games: %s", games);
	cr_assert(p[7] == 'g' && strspn(p + 8, "0123456789abcdef") == 16 && p[24] == '"',
		  "an id is g and 16 hex digits: %.40s", p);
	snprintf(id, 18, "%s", p + 7);
	if (want)
		cr_assert(strstr(p, want), "/games says %s: %s", want, games);
}

/* The bot plays one game through the relay, to its end. */
static void relay_game(const live *s)
{
	char relay[512], bot[512], port[16], errp[700];
	char *argv[] = {(char *)test_bin("kimble-relay", relay, sizeof relay), "--port", port, "--",
			(char *)test_bin("kimble-bot", bot, sizeof bot), "hard,hard,hard", "9", NULL};
	test_proc p;

	snprintf(port, sizeof port, "%d", s->port);
	snprintf(errp, sizeof errp, "%s/relay.err", s->dir);
	cr_assert_eq(test_spawn(&p, argv, s->dir, 0, 0, errp), 0);
	int st = test_wait(&p, 60000);
	cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "relay: %s",
		  test_read_file(s->dir, "relay.err"));
}

/* Headless Chromium's DOM of url once the page is quiet (virtual time:
 * the page's own timers run without the test waiting on a clock). */
static void chromium_dom(const live *s, const char *path, test_proc *p)
{
	char url[256], profile[600], errp[700];
	char *argv[] = {"/usr/bin/chromium", "--headless", "--no-sandbox", "--disable-gpu",
			"--no-first-run", profile, "--virtual-time-budget=20000", "--dump-dom", url,
			NULL};

	snprintf(url, sizeof url, "http://127.0.0.1:%d%s", s->http, path);
	snprintf(profile, sizeof profile, "--user-data-dir=%s/chromium", s->dir);
	snprintf(errp, sizeof errp, "%s/chromium.err", s->dir);
	cr_assert_eq(test_spawn(p, argv, s->dir, 0, 1, errp), 0, "start chromium");
}

static char *chromium_result(const live *s, test_proc *p)
{
	static char dom[BIG];

	read_all(p->out, dom, sizeof dom, 60000);
	int st = test_wait(p, 60000);
	cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "chromium exit %d: %s", st,
		  test_read_file(s->dir, "chromium.err"));
	return dom;
}

/* ---- a game held on the game port ------------------------------------------- */

typedef struct held {
	int fd;
	test_reader r;
	char token[KB_TOKEN_LEN + 1];
	char last[128];           /* last line before END */
} held;

/* Read lines up to END; returns how many. */
static int held_resp(held *h)
{
	char line[128];
	int n = 0;

	for (;;) {
		cr_assert_geq(test_getline(&h->r, line, sizeof line, WAIT_MS), 0, "game-port answer");
		if (strcmp(line, "END") == 0)
			return n;
		snprintf(h->last, sizeof h->last, "%s", line);
		if (n++ == 0 && strlen(line) == KB_TOKEN_LEN && !h->token[0])
			memcpy(h->token, line, KB_TOKEN_LEN + 1);
	}
}

/* Start games (start message "v001XYZ\n") until one waits for A's
 * decision. */
static void held_start_lineup(held *h, int port, const char *start)
{
	memset(h, 0, sizeof *h);
	h->fd = test_connect(port, WAIT_MS);
	cr_assert_geq(h->fd, 0);
	test_reader_init(&h->r, h->fd);
	do {
		h->token[0] = '\0';
		cr_assert_eq(test_write_all(h->fd, start, strlen(start)), 0);
		held_resp(h);
	} while (strncmp(h->last, "Voittaja: ", 10) == 0);
}

static void held_start(held *h, int port)
{
	held_start_lineup(h, port, "v001222\n");
}

/* One decision, trying pieces in order until one is legal (an illegal
 * choice is answered with the same decision again). */
static void held_step(held *h)
{
	char msg[96], before[128];

	snprintf(before, sizeof before, "%s", h->last);
	for (int idx = 0; idx < 4 && strcmp(h->last, before) == 0; idx++) {
		snprintf(msg, sizeof msg, "%s%d\n", h->token, idx);
		cr_assert_eq(test_write_all(h->fd, msg, strlen(msg)), 0);
		held_resp(h);
	}
}

/* Play to the end; returns the winner. */
static char held_play_out(held *h)
{
	for (int decisions = 0; strncmp(h->last, "Voittaja: ", 10) != 0; decisions++) {
		cr_assert_lt(decisions, 4000);
		held_step(h);
	}
	close(h->fd);
	return h->last[10];
}

/* The held game played to its end, then the server stopped: a test that
 * held a game open lets it finish before the server goes. */
static void held_finish(held *h, live *s)
{
	held_play_out(h);
	live_stop(s);
}

/* A server (with options extra) holding a game that waits for A's
 * decision, the game's id into id[18], and a page following it: the
 * page's descriptor. */
static int held_and_followed(live *s, held *h, const char *const *extra, char *id)
{
	char path[64];

	live_start(s, extra);
	held_start(h, s->port);
	first_game(s->http, id, NULL);
	snprintf(path, sizeof path, "/events/%s", id);
	return http_open(s->http, "GET", path);
}

/* /games shows n watchers of the held game: the watch is in place. */
static void wait_watchers(int port, int n)
{
	char want[32];
	struct timespec t0, t;

	snprintf(want, sizeof want, "\"watchers\":%d,", n);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!strstr(http_get(port, "GET", "/games"), want)) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		cr_assert_lt(t.tv_sec - t0.tv_sec, 30, "no %s in /games", want);
	}
}

/* "?watch id" on a new game-port connection: its descriptor; the first
 * line of the answer into line[size] (*len: its length, -1 for none). */
static int port_watch(const live *s, const char *id, char *line, size_t size, long *len)
{
	char watch[64];
	test_reader r;
	int g = test_connect(s->port, WAIT_MS);

	cr_assert_geq(g, 0);
	snprintf(watch, sizeof watch, "?watch %s\n", id);
	cr_assert_eq(test_write_all(g, watch, strlen(watch)), 0);
	test_reader_init(&r, g);
	*len = test_getline(&r, line, size, WAIT_MS);
	return g;
}

/* Move the held game until /games counts its one spectator no more, then
 * 0 (not another count): the server sees a spectator gone only when it
 * writes to it, at the game's next moves (with a fixed seed the game goes
 * on meanwhile). */
static void step_until_left(const live *s, held *h)
{
	const char *games;

	for (int steps = 0; strstr(games = http_get(s->http, "GET", "/games"), "\"watchers\":1,");
	     steps++) {
		cr_assert_lt(steps, 20, "the spectator's leaving seen");
		held_step(h);
		cr_assert_neq(strncmp(h->last, "Voittaja: ", 10), 0, "the game goes on");
	}
	cr_assert(strstr(games, "\"watchers\":0,"), "counted no more: %s", games);
}

/* The server (process pid) goes to sleep: its state in /proc is S (it
 * waits in epoll_wait), not R for ever (a loop that never waits). */
static void wait_asleep(pid_t pid)
{
	char path[64], stat[512];
	struct timespec t0, t;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		FILE *f = fopen(path, "r");
		cr_assert_not_null(f);
		size_t n = fread(stat, 1, sizeof stat - 1, f);
		fclose(f);
		stat[n] = '\0';
		const char *state = strrchr(stat, ')');
		cr_assert(state && state[1] == ' ', "%s", stat);
		if (state[2] == 'S')
			return;
		clock_gettime(CLOCK_MONOTONIC, &t);
		cr_assert_lt(t.tv_sec - t0.tv_sec, 10, "the server never waits: %s", stat);
	}
}

/* ---- the tests ------------------------------------------------------------------ */

/* The page's style and script carry the nonce its Content-Security-Policy
 * allows (32 hex digits, one for both), else a browser runs neither. */
static void nonces_match(const char *r)
{
	char nonce[33], want[64];
	const char *csp = strstr(r, "script-src 'nonce-");

	cr_assert(csp, "%.600s", r);
	csp += strlen("script-src 'nonce-");
	cr_assert_eq(strspn(csp, "0123456789abcdef"), 32, "%.60s", csp);
	cr_assert_eq(csp[32], '\'', "%.60s", csp);
	snprintf(nonce, sizeof nonce, "%.32s", csp);
	const char *body = strstr(r, "\r\n\r\n");
	cr_assert(body, "%.600s", r);
	static const char *const forms[] = {"style-src 'nonce-%s'", "<style nonce=\"%s\">",
					    "<script nonce=\"%s\">"};
	for (int i = 0; i < 3; i++) {
		snprintf(want, sizeof want, forms[i], nonce);
		cr_assert(strstr(i ? body : r, want), "%s: %.900s", want, i ? body : r);
	}
}

Test(live, page_is_self_contained_with_csp, .timeout = 60)
{
	live s;

	live_start(&s, NULL);
	const char *paths[] = {"/", "/watch/g0123456789abcdef"};
	for (int i = 0; i < 2; i++) {
		char *r = http_get(s.http, "GET", paths[i]);
		cr_assert(strncmp(r, "HTTP/1.0 200", 12) == 0 || strncmp(r, "HTTP/1.1 200", 12) == 0,
			  "%s: %.80s", paths[i], r);
		static const char *const headers[] = {
			"\r\nContent-Type: text/html; charset=utf-8\r\n",
			"\r\nX-Content-Type-Options: nosniff\r\n", "\r\nReferrer-Policy: no-referrer\r\n",
			"\r\nCache-Control: no-store\r\n"};
		for (size_t k = 0; k < sizeof headers / sizeof *headers; k++)
			cr_assert(strstr(r, headers[k]), "%s: header %s: %.600s", paths[i], headers[k] + 2, r);
		char *csp = strstr(r, "Content-Security-Policy: default-src 'none'; script-src 'nonce-");
		cr_assert(csp, "%s: CSP header: %.600s", paths[i], r);
		cr_assert(strstr(csp, "connect-src 'self'"), "%.300s", csp);
		char *body = strstr(r, "\r\n\r\n");
		cr_assert(body && strstr(body, "<script nonce=\""), "inline script with its nonce");
		cr_assert_null(strstr(body, "http://"), "no URL in the page");
		cr_assert_null(strstr(body, "https://"), "no URL in the page");
		cr_assert_null(strstr(body, "src="), "nothing loaded from elsewhere");
	}
	cr_assert(strstr(http_get(s.http, "GET", "/nothing"), " 404 "));
	cr_assert(strstr(http_get(s.http, "POST", "/games"), " 405 "));
	nonces_match(http_get(s.http, "GET", "/"));
	cr_assert(strstr(http_get(s.http, "GET", "/events/g0123456789abcdef"), " 404 "));
	cr_assert(strstr(http_get(s.http, "GET", "/events/nonsense"), " 404 "));
	/* no game has id 0: an empty slot of the finished list is not one */
	cr_assert(strstr(http_get(s.http, "GET", "/events/g0000000000000000"), " 404 "));
	live_stop(&s);
}

/* A game's stream is /events/ID (docs/live.md): a path that only begins
 * with "/events", with a running game's id after another character or
 * nothing after it, is not a stream but not found. */
Test(live, events_path_needs_its_slash, .timeout = 60)
{
	live s;
	held h;
	char id[18], path[64];

	live_start(&s, NULL);
	held_start(&h, s.port);
	first_game(s.http, id, "\"finished\":false");
	snprintf(path, sizeof path, "/events-%s", id);
	const char *paths[] = {path, "/events"};
	for (int i = 0; i < 2; i++) {
		char line[256];
		test_reader r;
		int fd = http_open(s.http, "GET", paths[i]);
		/* line by line: a stream served by mistake would never end */
		test_reader_init(&r, fd);
		cr_assert_gt(test_getline(&r, line, sizeof line, WAIT_MS), 0, "%s", paths[i]);
		cr_assert(strstr(line, " 404 "), "%s: %s", paths[i], line);
		while (test_getline(&r, line, sizeof line, WAIT_MS) > 1)
			; /* the headers, up to the empty line */
		cr_assert_eq(test_getline(&r, line, sizeof line, WAIT_MS), 16, "%s", paths[i]);
		cr_assert_str_eq(line, "not found: try /", "%s", paths[i]);
		close(fd);
	}
	held_finish(&h, &s);
}

/* The page needs a fresh nonce for its script and styles (16 bytes from
 * the operating system): without randomness it is not served with a made
 * up one but refused, "500 no memory or randomness" (the server, given
 * --seed, needs none otherwise). */
Test(live, page_without_randomness_is_a_server_error, .timeout = 60)
{
	live s;
	static const char *const extra[] = {"--seed", "5", NULL};

	test_fail_syscall(SYS_getrandom, EIO);
	live_start(&s, extra);
	char *r = http_get(s.http, "GET", "/");
	cr_assert(strstr(r, " 500 "), "%.200s", r);
	const char *body = strstr(r, "\r\n\r\n");
	cr_assert(body, "%.300s", r);
	cr_assert_str_eq(body + 4, "no memory or randomness\n");
	live_stop(&s);
}

/* A live position's picture names the seats as the game has them: A the
 * client, the others by the built-in policy of their lineup digit, and a
 * seat whose digit is 0 absent (lineup 120: B easy, C hard, D absent);
 * its roll is the event's (here the roll A decides). */
Test(live, event_stream_picture_names_the_seats_and_the_roll, .timeout = 60)
{
	live s;
	held h;
	char id[18], path[64], roll[32];
	unsigned n_roll;
	static char stream[BIG];

	live_start(&s, NULL);
	held_start_lineup(&h, s.port, "v001120\n");
	first_game(s.http, id, "\"lineup\":\"120\"");
	snprintf(path, sizeof path, "/events/%s", id);
	int fd = http_open(s.http, "GET", path);
	size_t len = 0;
	while (!strstr(stream, "data: </svg>")) {
		struct pollfd in = {.fd = fd, .events = POLLIN};
		cr_assert_eq(poll(&in, 1, WAIT_MS), 1, "the first picture: %s", stream);
		ssize_t n = read(fd, stream + len, sizeof stream - 1 - len);
		cr_assert_gt(n, 0, "the first picture: %s", stream);
		len += (size_t)n;
		stream[len] = '\0';
	}
	close(fd);
	static const char *const rows[] = {">A client</text>", ">B easy</text>", ">C hard</text>",
					   ">D (absent)</text>"};
	for (int k = 0; k < 4; k++)
		cr_assert(strstr(stream, rows[k]), "seat row %s: %s", rows[k], stream);
	const char *event_roll = strstr(stream, "\ndata: roll ");
	cr_assert(event_roll && sscanf(event_roll, "\ndata: roll %u", &n_roll) == 1, "%s", stream);
	snprintf(roll, sizeof roll, ">roll %u</text>", n_roll);
	cr_assert(strstr(stream, roll), "the picture shows %s: %s", roll + 1, stream);
	held_finish(&h, &s);
}

/* /games names a finished game's winner by its seat, the letter of the
 * game port's "Voittaja: X" line: games played on the game port (the
 * first legal piece each time) until an opponent, not A, wins one. */
Test(live, games_names_the_winner_of_a_finished_game, .timeout = 60)
{
	live s;
	held h;
	char id[18], entry[64], want[32];
	char winner = 'A';

	live_start(&s, NULL);
	for (int game = 0; winner == 'A'; game++) {
		cr_assert_lt(game, 20, "an opponent wins one of 20 games");
		held_start(&h, s.port);
		first_game(s.http, id, "\"finished\":false"); /* the one running */
		winner = held_play_out(&h);
	}
	snprintf(entry, sizeof entry, "{\"id\":\"%s\",", id);
	const char *p = strstr(http_get(s.http, "GET", "/games"), entry);
	cr_assert(p, "%s in /games", id);
	snprintf(want, sizeof want, "\"winner\":\"%c\"}", winner);
	const char *end = strchr(p, '}');
	cr_assert(end && strncmp(end - strlen(want) + 1, want, strlen(want)) == 0,
		  "won by %c: %.*s", winner, end ? (int)(end - p + 1) : 80, p);
	live_stop(&s);
}

/* A request with a body is answered as one without: the body is read
 * and dropped (a POST refused with 405, a GET of /games served). */
Test(live, request_body_is_dropped, .timeout = 60)
{
	live s;
	static char buf[BIG];
	static const char *const reqs[][2] = {
		{"POST /games HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\nhello", " 405 "},
		{"GET /games HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Length: 3\r\n\r\nabc", " 200 "}};

	live_start(&s, NULL);
	for (int i = 0; i < 2; i++) {
		int fd = test_connect(s.http, WAIT_MS);
		cr_assert_geq(fd, 0);
		cr_assert_eq(test_write_all(fd, reqs[i][0], strlen(reqs[i][0])), 0);
		read_all(fd, buf, sizeof buf, WAIT_MS);
		close(fd);
		cr_assert(strstr(buf, reqs[i][1]), "%s: %.200s", reqs[i][0], buf);
	}
	live_stop(&s);
}

/* /games is one JSON document (docs/live.md): the running game first,
 * not finished and without a winner (null), then the finished one with
 * its winner, a comma between them. */
Test(live, games_lists_running_then_finished_games, .timeout = 120)
{
	live s;
	held h;
	static const char *const seeded[] = {"--seed", "7", NULL}; /* the same games each run */

	live_start(&s, seeded);
	relay_game(&s);
	held_start(&h, s.port);
	const char *games = strstr(http_get(s.http, "GET", "/games"), "\r\n\r\n");
	cr_assert(games, "an answer");
	games += 4;
	static const char head[] = "{\"games\":[\n{\"id\":\"g", comma[] = ",\n{\"id\":\"g";
	static const char running[] = "\"finished\":false,\"winner\":null}";
	static const char won[] = "\"finished\":true,\"winner\":\"";
	cr_assert_eq(strncmp(games, head, strlen(head)), 0, "%s", games);
	const char *next = strchr(games, '}') + 1;
	cr_assert_eq(strncmp(next - strlen(running), running, strlen(running)), 0, "%s", games);
	cr_assert_eq(strncmp(next, comma, strlen(comma)), 0, "the comma between: %s", games);
	const char *finished = strstr(next, won);
	cr_assert(finished, "%s", games);
	finished += strlen(won);
	cr_assert(strchr("ABCD", finished[0]) && strcmp(finished + 1, "\"}\n]}\n") == 0, "%s", games);
	held_finish(&h, &s);
}

Test(live, games_and_event_stream_of_a_finished_game, .timeout = 120)
{
	live s;
	char id[18], path[64], want[32];

	live_start(&s, NULL);
	cr_assert(strstr(http_get(s.http, "GET", "/games"), "{\"games\":[\n]}"), "empty list");
	relay_game(&s);
	first_game(s.http, id, "\"finished\":true,\"winner\":\"");
	const char *games = http_get(s.http, "GET", "/games");
	cr_assert(strstr(games, "\"lineup\":\"222\""), "the finished game's lineup (hard x3): %s", games);
	char winner = strstr(games, "\"winner\":\"")[10];
	snprintf(path, sizeof path, "/events/%s", id);
	char *r = http_get(s.http, "GET", path);
	cr_assert(strstr(r, "Content-Type: text/event-stream"), "%.300s", r);
	cr_assert(strstr(r, "event: position\nid: "), "%.300s", r);
	cr_assert(strstr(r, "data: <svg xmlns="), "the board as SVG");
	/* the final position (docs/live.md): the board and "--"; the
	 * winner's four pieces fill its goal (docs/spec.md section 2) */
	const char *state = strstr(r, "\ndata: state ");
	cr_assert(state, "%.300s", r);
	state += strlen("\ndata: state ");
	cr_assert_eq(strspn(state, "0ABCD"), 44, "a board of 44: %.60s", state);
	cr_assert_eq(strncmp(state + 44, "--\n", 3), 0, "%.60s", state);
	for (int k = 0; k < 4; k++)
		cr_assert_eq(state[28 + 4 * (winner - 'A') + k], winner, "%c's goal: %.46s", winner, state);
	snprintf(want, sizeof want, "event: end\ndata: winner %c\n\n", winner);
	cr_assert(strstr(r, want), "ends with the winner %c: %s", winner, r + strlen(r) - 60);
	live_stop(&s);
}

Test(live, event_stream_follows_a_running_game, .timeout = 120)
{
	live s;
	held h;
	char id[18], path[64], want[32];
	static char stream[BIG];

	live_start(&s, NULL);
	held_start(&h, s.port);
	first_game(s.http, id, "\"finished\":false");
	snprintf(path, sizeof path, "/events/%s", id);
	int fd = http_open(s.http, "GET", path);
	wait_watchers(s.http, 1);
	char winner = held_play_out(&h);
	read_all(fd, stream, sizeof stream, WAIT_MS);
	close(fd);
	int positions = 0;
	for (const char *p = stream; (p = strstr(p, "event: position")); p++)
		positions++;
	cr_assert_gt(positions, 1, "more than one position seen live: %.400s", stream);
	snprintf(want, sizeof want, "event: end\ndata: winner %c\n\n", winner);
	cr_assert(strstr(stream, want), "ends with winner %c", winner);
	live_stop(&s);
}

/* A watcher of a game waiting for the client's (seat A's) decision sees
 * the roll the client was sent: its state line is the client's roll line
 * (seat A's view is the board as it is), not a position without a roll. */
Test(live, event_stream_shows_the_roll_the_client_decides, .timeout = 120)
{
	live s;
	held h;
	char id[18], path[64], line[512], want[160];
	test_reader r;

	live_start(&s, NULL);
	held_start(&h, s.port);
	cr_assert_eq(strlen(h.last), KB_ROLL_LINE_LEN, "A's roll line: %s", h.last);
	first_game(s.http, id, "\"finished\":false");
	snprintf(path, sizeof path, "/events/%s", id);
	int fd = http_open(s.http, "GET", path);
	test_reader_init(&r, fd);
	do
		cr_assert_geq(test_getline(&r, line, sizeof line, WAIT_MS), 0, "a state line");
	while (strncmp(line, "data: state ", 12) != 0);
	close(fd);
	snprintf(want, sizeof want, "data: state %s", h.last);
	cr_assert_str_eq(line, want);
	held_finish(&h, &s);
}

Test(live, browser_shows_a_finished_game_to_its_winner, .timeout = 180)
{
	live s;
	test_proc p;
	char id[18], path[64], want[64];

	live_start(&s, NULL);
	relay_game(&s);
	first_game(s.http, id, "\"finished\":true");
	const char *games = http_get(s.http, "GET", "/games");
	char winner = strstr(games, "\"winner\":\"")[10];
	snprintf(path, sizeof path, "/watch/%s", id);
	chromium_dom(&s, path, &p);
	char *dom = chromium_result(&s, &p);
	snprintf(want, sizeof want, "<title>winner %c</title>", winner);
	cr_assert(strstr(dom, want), "%s in the page: %.2000s", want, dom);
	snprintf(want, sizeof want, "<p id=\"result\">winner %c</p>", winner);
	cr_assert(strstr(dom, want), "%s in the page", want);
	cr_assert(strstr(dom, "<div id=\"board\"><svg"), "the board is drawn");
	snprintf(want, sizeof want, "<a href=\"/watch/%s\">", id);
	cr_assert(strstr(dom, want), "the game is listed");
	live_stop(&s);
}

Test(live, browser_follows_a_game_live_to_its_winner, .timeout = 180)
{
	live s;
	held h;
	test_proc p;
	char id[18], path[64], want[64];

	live_start(&s, NULL);
	held_start(&h, s.port);
	first_game(s.http, id, "\"finished\":false");
	snprintf(path, sizeof path, "/watch/%s", id);
	chromium_dom(&s, path, &p);
	wait_watchers(s.http, 1); /* the page is following the running game */
	char winner = held_play_out(&h);
	char *dom = chromium_result(&s, &p);
	snprintf(want, sizeof want, "<title>winner %c</title>", winner);
	cr_assert(strstr(dom, want), "%s in the page: %.2000s", want, dom);
	cr_assert(strstr(dom, "<div id=\"board\"><svg"), "the board is drawn");
	live_stop(&s);
}

/* An HTTP watcher counts as one of its address's spectators: with one
 * allowed per address, a game-port watch from the same address is refused
 * while the page watches. */
Test(live, http_watcher_counts_for_its_address, .timeout = 60)
{
	live s;
	held h;
	char id[18], buf[4096];
	static const char *const extra[] = {"--addr-spectators", "1", NULL};

	int w = held_and_followed(&s, &h, extra, id);
	wait_watchers(s.http, 1);
	long len;
	close(port_watch(&s, id, buf, sizeof buf, &len));
	cr_assert_gt(len, 0);
	cr_assert(strstr(buf, "Virhe: liikaa katsojia tasta osoitteesta"), "refused while the page watches: %s", buf);
	/* (a page that leaves while its stream waits for the game's next
	 * event is noticed at that event: libmicrohttpd does not watch a
	 * suspended connection, so its leaving is not tested here) */
	close(w);
	held_finish(&h, &s);
}

/* A game-port spectator that leaves gives its game's place back: /games
 * counts it no more (from 1 straight to 0, not to some other count), and
 * with one spectator per game allowed the next one is taken.  The server
 * sees the spectator gone when it writes to it: at the game's next move
 * (a fixed seed: the game goes on after it). */
Test(live, leaving_spectator_frees_its_place, .timeout = 60)
{
	live s;
	held h;
	char id[18], line[256];
	long len;
	static const char *const extra[] = {"--game-spectators", "1", "--seed", "7", NULL};

	live_start(&s, extra);
	held_start(&h, s.port);
	first_game(s.http, id, NULL);
	for (int i = 0; i < 2; i++) {
		int g = port_watch(&s, id, line, sizeof line, &len);
		cr_assert_eq(len, KB_ROLL_LINE_LEN, "spectator %d taken: %s", i + 1, line);
		wait_watchers(s.http, 1);
		close(g);
		step_until_left(&s, &h);
	}
	held_finish(&h, &s);
}

/* A page that leaves gives its address's spectator place back (one per
 * address here): once the server has seen it gone (at the game's next
 * moves: a suspended stream is not watched) and /games counts it no more,
 * a game-port watch from the same address is taken. */
Test(live, leaving_page_frees_its_address_place, .timeout = 60)
{
	live s;
	held h;
	char id[18], line[256];
	long len;
	static const char *const extra[] = {"--addr-spectators", "1", "--seed", "7", NULL};

	int w = held_and_followed(&s, &h, extra, id);
	wait_watchers(s.http, 1);
	close(w);
	step_until_left(&s, &h);
	close(port_watch(&s, id, line, sizeof line, &len));
	cr_assert_eq(len, KB_ROLL_LINE_LEN, "the address's place is free: %s", line);
	held_finish(&h, &s);
}

/* An HTTP connection that has sent nothing yet (it times out after
 * --http-timeout) leaves the server asleep until something happens, not
 * turning its loop meanwhile. */
Test(live, server_sleeps_beside_an_idle_http_connection, .timeout = 60)
{
	live s;

	live_start(&s, NULL);
	int idle = test_connect(s.http, WAIT_MS);
	cr_assert_geq(idle, 0);
	/* accepted in order: once a later connection is answered, the
	 * server holds the idle one */
	cr_assert(strstr(http_get(s.http, "GET", "/games"), " 200 "));
	wait_asleep(s.p.pid);
	close(idle);
	live_stop(&s);
}

/* Waking a page's stream (the game moved) is work for one turn of the
 * server's loop, not for every turn after: the server goes back to
 * waiting for events once the page has its event. */
Test(live, server_waits_again_after_waking_a_page, .timeout = 60)
{
	live s;
	held h;
	char id[18], line[512];
	test_reader r;

	int w = held_and_followed(&s, &h, NULL, id);
	test_reader_init(&r, w);
	for (int events = 0; events < 2; events++) {
		do
			cr_assert_geq(test_getline(&r, line, sizeof line, WAIT_MS), 0, "event %d", events);
		while (strcmp(line, "data: </svg>") != 0);
		/* asleep, the server has put the stream to sleep too (it
		 * waits for the game); then the game moves and wakes it */
		wait_asleep(s.p.pid);
		if (events == 0)
			held_step(&h);
	}
	close(w);
	held_finish(&h, &s);
}

Test(live, spectator_and_connection_limits, .timeout = 60)
{
	live s;
	held h;
	char id[18], path[64], buf[4096];
	static const char *const extra[] = {"--game-spectators", "1", "--http-addr-connections",
					    "3", NULL};

	int w = held_and_followed(&s, &h, extra, id);
	snprintf(path, sizeof path, "/events/%s", id);
	wait_watchers(s.http, 1);
	/* the game port's spectator limit counts the HTTP watcher */
	long len;
	close(port_watch(&s, id, buf, sizeof buf, &len));
	cr_assert_gt(len, 0);
	cr_assert(strstr(buf, "Virhe: "), "game port refuses the second spectator: %s", buf);
	cr_assert(strstr(http_get(s.http, "GET", path), " 429 "), "second HTTP watcher refused");
	/* three connections per address: w and two idle ones (accepted in
	 * order); a fourth is shut at once */
	int i1 = test_connect(s.http, WAIT_MS), i2 = test_connect(s.http, WAIT_MS);
	int i3 = test_connect(s.http, WAIT_MS);
	cr_assert_geq(i3, 0);
	cr_assert_eq(read_all(i3, buf, sizeof buf, WAIT_MS), 0, "fourth connection closed");
	/* said before the refused connection is closed: the first refusal */
	cr_assert(strstr(test_read_file(s.dir, "server.err"), "refusing connections beyond 3 per address"),
		  "%s", test_read_file(s.dir, "server.err"));
	close(i3);
	i3 = test_connect(s.http, WAIT_MS);
	cr_assert_geq(i3, 0);
	cr_assert_eq(read_all(i3, buf, sizeof buf, WAIT_MS), 0, "and the next one too");
	close(i1), close(i2), close(i3), close(w);
	held_finish(&h, &s);
	/* the refusals are logged once (a flood must not fill the log), the
	 * total at shutdown */
	const char *log = test_read_file(s.dir, "server.err");
	cr_assert_eq(test_count(log, "refusing connections beyond 3 per address"), 1, "%s", log);
	cr_assert(strstr(log, "kimble-server: http: 2 connections refused by the per-address limit\n"),
		  "%s", log);
}
