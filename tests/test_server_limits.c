/* test_server_limits.c - kimble-server under abuse: floods of game starts
 * from several addresses, a full server, the per-address bucket of new
 * games, spectator limits, trusted addresses and the refusal log.
 *
 * Clients are told apart by their source address: all of 127.0.0.0/8 is
 * loopback on Linux, so a flooder binds 127.0.0.2 and an honest client
 * 127.0.0.3.  Floods are bounded by counts (each flooder sends N starts),
 * never by time; the server's peak memory is its VmHWM. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/board.h"
#include "core/policy.h"
#include "core/rules.h"
#include "core/wire.h"
#include "core/err.h"
#include "support.h"

#define WAIT_MS 20000

typedef struct lim_server {
	test_proc p;
	int port;
	char log[512];   /* the server's stderr */
	int log_fd;      /* with lim_log_fifo: the read end of the log, a FIFO */
} lim_server;

static int lim_log_fifo; /* lim_start makes the log a FIFO the test reads */

/* Start kimble-server with the given limit options on a free port. */
static void lim_start(lim_server *s, const char *const *opts)
{
	char dir[256], bin[512], port[16], line[256];
	const char *argv[32] = {test_bin("kimble-server", bin, sizeof bin), "--port", port,
				"--seed", "7"};
	int n = 5;

	snprintf(s->log, sizeof s->log, "%s/server.err", test_tmpdir(dir, sizeof dir));
	s->log_fd = -1;
	if (lim_log_fifo) { /* held open for reading: the server's open goes on */
		cr_assert_eq(mkfifo(s->log, 0600), 0);
		s->log_fd = open(s->log, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		cr_assert_geq(s->log_fd, 0);
	}
	while (opts && *opts && n < 31)
		argv[n++] = *opts++;
	for (int attempt = 0; attempt < 5; attempt++) {
		test_reader r;
		s->port = test_free_port();
		snprintf(port, sizeof port, "%d", s->port);
		cr_assert_eq(test_spawn(&s->p, (char *const *)argv, NULL, 0, 1, s->log), 0);
		test_reader_init(&r, s->p.out);
		if (test_getline(&r, line, sizeof line, WAIT_MS) > 0 && strstr(line, "listening on"))
			return;
		test_wait(&s->p, WAIT_MS); /* the port was taken meanwhile */
	}
	cr_assert_fail("kimble-server did not start");
}

/* SIGTERM; the server must end cleanly. */
static void lim_stop(lim_server *s)
{
	test_kill(&s->p, SIGTERM);
	cr_assert_eq(test_wait(&s->p, WAIT_MS), 0, "clean exit");
}

static long server_kib(const lim_server *s, const char *field)
{
	char name[64];

	snprintf(name, sizeof name, "/proc/%d/status", (int)s->p.pid);
	const char *at = strstr(test_read_file(NULL, name), field);
	cr_assert_not_null(at, "%s in %s", field, name);
	return strtol(at + strlen(field) + 1, NULL, 10);
}

/* A client on its own source address. */
typedef test_conn peer;

static peer *peer_open(const lim_server *s, const char *src)
{
	return test_conn_open(src, s->port, WAIT_MS);
}

/* Send msg and read the answer up to END: its first and last lines (the
 * last one before END) and how many lines it had. */
typedef struct answer {
	int lines;
	char first[128], last[128];
} answer;

static int read_answer(peer *p, answer *a)
{
	char line[256];

	a->lines = 0;
	for (;;) {
		if (test_getline(&p->r, line, sizeof line, WAIT_MS) < 0)
			return -1;
		if (strcmp(line, "END") == 0)
			return 0;
		snprintf(a->lines++ ? a->last : a->first, sizeof a->first, "%.127s", line);
		if (a->lines == 1)
			strcpy(a->last, a->first);
	}
}

static answer ask(peer *p, const char *msg)
{
	answer a;

	cr_assert_eq(test_write_all(p->fd, msg, strlen(msg)), 0);
	cr_assert_eq(read_answer(p, &a), 0, "an answer to %.20s", msg);
	return a;
}

/* Play the game whose start answer is a to the end with the "hard" choice;
 * returns the Voittaja line's winner letter. */
static char play_to_end(peer *p, answer a)
{
	char token[KB_TOKEN_LEN + 1], move[KB_MOVE_LEN + 16];

	cr_assert_eq(a.first[0], 't', "a token, not %s", a.first);
	memcpy(token, a.first, KB_TOKEN_LEN);
	token[KB_TOKEN_LEN] = '\0';
	for (int moves = 0; strncmp(a.last, "Voittaja: ", 10) != 0; moves++) {
		kb_pos pos;
		cr_assert_eq(strlen(a.last), KB_ROLL_LINE_LEN, "a decision line, not %s", a.last);
		cr_assert_eq(kb_board_parse(a.last, KB_BOARD_LEN, 0xf, &pos, NULL), 0);
		cr_assert_lt(moves, 2000);
		int idx = kb_pick_hard(kb_legal(&pos, 0, a.last[45] - '0'));
		snprintf(move, sizeof move, "%s%d\n", token, idx);
		a = ask(p, move);
	}
	return a.last[10];
}

/* A start that waits for A's first decision (a few games end before it). */
static answer start_waiting(peer *p)
{
	answer a;

	while (strncmp((a = ask(p, "v001222\n")).last, "Voittaja", 8) == 0)
		;
	return a;
}

/* ---- flooders ------------------------------------------------------------ */

typedef struct flood_result {
	long tokens, running, refused, other; /* running: started, not over */
	char first_virhe[128];   /* the first refusal's text */
} flood_result;

/* In a child: send n starts from src in batches of 100 and count the
 * answers; after half of them write a line to half_fd; at the end write
 * the counts to out_fd. */
static void flood(const lim_server *s, const char *src, long n, int half_fd, int out_fd)
{
	static const char start[] = "v001222";
	char batch[100 * 7];
	flood_result res = {0};
	peer *p = peer_open(s, src);

	for (int i = 0; i < 100; i++)
		memcpy(batch + 7 * i, start, 7);
	for (long sent = 0; sent < n; sent += 100) {
		if (test_write_all(p->fd, batch, sizeof batch) != 0)
			_exit(2);
		for (int i = 0; i < 100; i++) {
			answer a;
			if (read_answer(p, &a) != 0)
				_exit(3);
			if (a.first[0] == 't') {
				res.tokens++;
				res.running += strncmp(a.last, "Voittaja", 8) != 0;
			}
			else if (strncmp(a.first, "Virhe", 5) != 0)
				res.other++;
			else if (res.refused++ == 0)
				strcpy(res.first_virhe, a.first);
		}
		if (sent + 100 >= n / 2 && sent < n / 2 && write(half_fd, "h\n", 2) != 2)
			_exit(4);
	}
	if (write(out_fd, &res, sizeof res) != (ssize_t)sizeof res)
		_exit(5);
	_exit(0);
}

Test(server_limits, flood_bounded_and_an_honest_client_plays, .timeout = 240)
{
	/* four flooders on three addresses; each address may run 500 games,
	 * the server 3000: the flood meets the per-address limit only */
	static const char *const src[] = {"127.0.0.2", "127.0.0.2", "127.0.0.4", "127.0.0.5"};
	const char *const opts[] = {"--max-games", "3000", "--addr-games", "500", NULL};
	enum { FLOODERS = 4, STARTS = 20000 };
	int half[2], out[2];
	pid_t kids[FLOODERS];
	lim_server s;

	lim_start(&s, opts);
	long hwm_before = server_kib(&s, "VmHWM:");
	cr_assert_eq(pipe(half), 0);
	cr_assert_eq(pipe(out), 0);
	for (int i = 0; i < FLOODERS; i++)
		if ((kids[i] = fork()) == 0)
			flood(&s, src[i], STARTS, half[1], out[1]);
	/* when every flooder is half way, an honest client plays a game */
	test_reader *hr = malloc(sizeof *hr);
	char line[8];
	test_reader_init(hr, half[0]);
	for (int i = 0; i < FLOODERS; i++)
		cr_assert_eq(test_getline(hr, line, sizeof line, 4 * WAIT_MS), 1, "flooder half way");
	free(hr);
	peer *honest = peer_open(&s, "127.0.0.3");
	char winner = play_to_end(honest, ask(honest, "v001111\n"));
	cr_assert(winner >= 'A' && winner <= 'D');
	test_conn_close(honest);

	flood_result res;
	long refused = 0, running = 0;
	for (int i = 0; i < FLOODERS; i++) {
		int status;
		cr_assert_eq(read(out[0], &res, sizeof res), (ssize_t)sizeof res);
		cr_assert_eq(res.other, 0);
		if (res.refused)
			cr_assert_str_eq(res.first_virhe, "Virhe: liikaa peleja tasta osoitteesta "
					 "(per-address limit: 500 running games)");
		refused += res.refused;
		running += res.running;
		cr_assert_eq(res.tokens + res.refused, STARTS);
		cr_assert_eq(waitpid(kids[i], &status, 0), kids[i]);
		cr_assert_eq(status, 0, "flooder %d", i);
	}
	/* every address got exactly its 500 running games, the rest was
	 * refused (a few games end before A's first decision) */
	cr_assert_eq(running, 3 * 500);
	cr_assert_gt(refused, FLOODERS * STARTS - 3 * 500 - 500, "refusals: %ld", refused);
	long hwm = server_kib(&s, "VmHWM:");
	cr_assert_lt(hwm - hwm_before, 16 * 1024,
		     "peak memory grew by %ld KiB (the flood asked for %d games)",
		     hwm - hwm_before, FLOODERS * STARTS);
	lim_stop(&s);
	const char *log = test_read_file(NULL, s.log);
	char total[96];
	snprintf(total, sizeof total, "refusals this run: %ld full 0 address-games %ld ", refused,
		 refused);
	cr_assert(strstr(log, total), "summary line '%s' in:\n%.2000s", total, log);
	cr_assert(strstr(log, "refused address-games (per-address limit: 500 running games) from 127.0.0."),
		  "%.2000s", log);
	cr_assert_lt(test_count(log, "\n"), refused / 10, "the log is rate-limited");
}

Test(server_limits, full_server_refuses_starts_and_running_games_go_on, .timeout = 120)
{
	const char *const opts[] = {"--max-games", "6", "--addr-games", "4", NULL};
	lim_server s;
	answer games[4], a;

	lim_start(&s, opts);
	peer *p2 = peer_open(&s, "127.0.0.2"), *p4 = peer_open(&s, "127.0.0.4");
	for (int i = 0; i < 4; i++)
		games[i] = start_waiting(p2);
	a = ask(p2, "v001222\n");
	cr_assert_str_eq(a.first, "Virhe: liikaa peleja tasta osoitteesta "
			 "(per-address limit: 4 running games)");
	cr_assert_eq(a.lines, 1);
	start_waiting(p4);
	start_waiting(p4);
	a = ask(p4, "v001222\n");
	cr_assert_str_eq(a.first, "Virhe: palvelin on taynna (server full: 6 running games)");
	cr_assert_eq(a.lines, 1);
	/* the running games go on; a game that ends makes room */
	cr_assert_geq(play_to_end(p2, games[0]), 'A');
	play_to_end(p4, start_waiting(p4));
	lim_stop(&s);
	const char *log = test_read_file(NULL, s.log);
	cr_assert(strstr(log, "refused full (server full: 6 running games) from 127.0.0.4"), "%s", log);
	cr_assert(strstr(log, "refusals this run: 2 full 1 address-games 1 "), "%s", log);
	test_conn_close(p2);
	test_conn_close(p4);
}

/* A log nobody reads any more (the server's stderr a pipe whose reader
 * closed it) is a write that fails, not a SIGPIPE that ends the server:
 * a refusal logged then is answered, and so is the next request. */
Test(server_limits, closed_log_does_not_end_the_server, .timeout = 60)
{
	const char *const opts[] = {"--max-games", "1", NULL};
	lim_server s;
	answer a;

	lim_log_fifo = 1;
	lim_start(&s, opts);
	close(s.log_fd);
	peer *p = peer_open(&s, "127.0.0.2");
	start_waiting(p);
	a = ask(p, "v001222\n");
	cr_assert_str_eq(a.first, "Virhe: palvelin on taynna (server full: 1 running games)");
	a = ask(p, "?list\n");
	cr_assert_eq(a.lines, 1, "the game runs on: %s", a.first);
	test_conn_close(p);
	lim_stop(&s);
}

Test(server_limits, new_games_per_address_bucket, .timeout = 60)
{
	/* a bucket of 3 that refills once in 1000 seconds: the 4th start from
	 * one address is refused, another address is not affected */
	const char *const opts[] = {"--addr-rate", "0.001", "--addr-burst", "3", NULL};
	lim_server s;

	lim_start(&s, opts);
	peer *p2 = peer_open(&s, "127.0.0.2"), *p3 = peer_open(&s, "127.0.0.3");
	for (int i = 0; i < 3; i++)
		cr_assert_eq(ask(p2, "v001000\n").first[0], 't');
	cr_assert_str_eq(ask(p2, "v001000\n").first, "Virhe: liian monta uutta pelia tasta "
			 "osoitteesta (per-address limit: 0.001 new games a second)");
	cr_assert_eq(play_to_end(p3, ask(p3, "v001000\n")), 'A', "A plays alone and wins");
	lim_stop(&s);
	cr_assert(strstr(test_read_file(NULL, s.log), "address-rate 1 "));
	test_conn_close(p2);
	test_conn_close(p3);
}

/* ?watch the game of spectator id: the answer up to END is a refusal; an
 * accepted watch is read up to its replayed lines (lines of them). */
static void watch(peer *w, const char *id, int lines, const char *refusal)
{
	char cmd[64], line[256];

	snprintf(cmd, sizeof cmd, "?watch %s\n", id);
	cr_assert_eq(test_write_all(w->fd, cmd, strlen(cmd)), 0);
	if (refusal) {
		answer a;
		cr_assert_eq(read_answer(w, &a), 0);
		cr_assert_str_eq(a.first, refusal);
		return;
	}
	for (int i = 0; i < lines; i++)
		cr_assert_eq(test_getline(&w->r, line, sizeof line, WAIT_MS), KB_ROLL_LINE_LEN);
}

Test(server_limits, spectators_per_game_and_per_address, .timeout = 60)
{
	const char *const opts[] = {"--game-spectators", "2", "--addr-spectators", "3", NULL};
	lim_server s;
	char ids[2][32];
	int lines[2];
	answer games[2], end;
	peer *w[5];

	lim_start(&s, opts);
	peer *player = peer_open(&s, "127.0.0.3");
	for (int g = 0; g < 2; g++)
		lines[g] = (games[g] = start_waiting(player)).lines - 1;
	answer list = ask(player, "?list\n");
	cr_assert_eq(list.lines, 2);
	sscanf(list.first, "%31s", ids[0]);
	sscanf(list.last, "%31s", ids[1]);
	cr_assert_eq(strlen(ids[0]), 17);
	for (int i = 0; i < 5; i++)
		w[i] = peer_open(&s, i == 2 ? "127.0.0.4" : "127.0.0.2");
	watch(w[0], ids[0], lines[0], NULL);
	watch(w[1], ids[0], lines[0], NULL);
	watch(w[2], ids[0], 0, "Virhe: liikaa katsojia tassa pelissa (limit: 2 spectators per game)");
	watch(w[3], ids[1], lines[1], NULL);
	watch(w[4], ids[1], 0, "Virhe: liikaa katsojia tasta osoitteesta "
	      "(per-address limit: 3 spectators)");
	/* a game that ends frees its spectators' places (once they have read
	 * its end, the server has let them go) */
	play_to_end(player, games[0]);
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(read_answer(w[i], &end), 0);
		cr_assert_eq(strncmp(end.last, "Voittaja: ", 10), 0, "%s", end.last);
	}
	watch(w[4], ids[1], lines[1], NULL);
	lim_stop(&s);
	cr_assert(strstr(test_read_file(NULL, s.log), "game-spectators 1 address-spectators 1"));
	for (int i = 0; i < 5; i++)
		test_conn_close(w[i]);
	test_conn_close(player);
}

Test(server_limits, trusted_addresses_and_usage_errors, .timeout = 60)
{
	const char *const opts[] = {"--addr-games", "1", "--trust", "127.0.0.2", NULL};
	lim_server s;
	char bin[512];

	lim_start(&s, opts);
	peer *p2 = peer_open(&s, "127.0.0.2"), *p3 = peer_open(&s, "127.0.0.3");
	for (int i = 0; i < 3; i++)
		start_waiting(p2);
	start_waiting(p3);
	cr_assert_eq(strncmp(ask(p3, "v001222\n").first, "Virhe: liikaa peleja", 20), 0);
	lim_stop(&s);
	test_conn_close(p2);
	test_conn_close(p3);

	static const char *const bad[][2] = {
		{"--max-games", "0"}, {"--addr-games", "x"}, {"--addr-rate", "0"},
		{"--addr-burst", "-1"}, {"--game-spectators", "1e3"}, {"--addr-spectators", ""},
		{"--trust", "example.org"}, {"--trust", "127.0.0.0/8"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		const char *argv[] = {test_bin("kimble-server", bin, sizeof bin), bad[i][0], bad[i][1],
				      NULL};
		test_proc p;
		char err[256], dir[256];
		snprintf(err, sizeof err, "%s/err", test_tmpdir(dir, sizeof dir));
		cr_assert_eq(test_spawn(&p, (char *const *)argv, NULL, 0, 0, err), 0);
		int status = test_wait(&p, WAIT_MS);
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == KB_EXIT_USAGE, "%s %s", bad[i][0], bad[i][1]);
		cr_assert(strstr(test_read_file(NULL, err), bad[i][0]), "the error names %s", bad[i][0]);
	}
}

Test(server_limits, help_names_every_limit_and_its_default, .timeout = 30)
{
	static const char *const documented[] = {
		"--max-games N ", "(default 100000", "with --log-dir 10000", "--addr-games N ",
		"(default 1000)", "--addr-rate R ", "--addr-burst N ", "(default 4000)",
		"--game-spectators N ", "--addr-spectators N ", "(default 64)", "--trust ADDR ",
		"\"loopback\"", "docs/server-limits.md",
	};
	char bin[512], help[16384] = "";
	const char *argv[] = {test_bin("kimble-server", bin, sizeof bin), "--help", NULL};
	test_proc p;

	cr_assert_eq(test_spawn(&p, (char *const *)argv, NULL, 0, 1, NULL), 0);
	for (size_t len = 0;;) {
		ssize_t n = read(p.out, help + len, sizeof help - 1 - len);
		if (n <= 0)
			break;
		len += (size_t)n;
		help[len] = '\0';
	}
	cr_assert_eq(test_wait(&p, WAIT_MS), 0);
	for (size_t i = 0; i < sizeof documented / sizeof documented[0]; i++)
		cr_assert(strstr(help, documented[i]), "--help shows '%s'", documented[i]);
}
