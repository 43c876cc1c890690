/* test_rule_bot.c - the relay's rule "a response is forwarded only when
 * complete, and exactly once" on its own (found by make mutate,
 * docs/mutation.md): a server that drops the connection in the middle of a
 * response, then answers the resent message in full.  The bot is a shell
 * script that keeps every line it gets. */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <netinet/in.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/err.h"
#include "core/net.h"

#include "bot/client.h"
#include "bot/relay/relay.h"
#include "bot/eval.h"
#include "bot/opponent.h"
#include "bot/tune/td.h"
#include "core/board.h"
#include "core/wire.h"
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
#define TOKEN_LINE_60 "t0123456789abcdef0123456789abcdef0123456789abcdef0123456789a"
#define STATE_LINE "A000000000000000000000000000000000000000BBBBA6"

typedef struct half_server {
	int listen_fd;
	int placeholder;  /* keeps a vanished server's port bound (no listen) */
	char got[2][80];  /* the message of each connection */
	char dir[256];    /* the relay's folder (relay_against) */
} half_server;

/* Read one message line from c into out (up to 79 bytes). */
static void read_message(int c, char out[80])
{
	size_t n = 0;

	while (n < 79) {
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
 * the options opts (NULL-terminated, at most 4) and the bot script (sh -c)
 * in folder dir; returns the relay's wait status. */
static int relay_against_opts(void *(*serve)(void *), half_server *h, const char *const opts[],
			      const char *script)
{
	char *dir = h->dir;
	pthread_t th;
	char relay[512], port[16], errp[300];
	char *argv[16];
	int p, n = 0;

	test_tmpdir(dir, sizeof h->dir);
	h->listen_fd = listen_any(&p);
	cr_assert_geq(h->listen_fd, 0);
	snprintf(port, sizeof port, "%d", p);
	pthread_create(&th, NULL, serve, h);
	argv[n++] = (char *)test_bin("kimble-relay", relay, sizeof relay);
	argv[n++] = "--port", argv[n++] = port, argv[n++] = "--transcript", argv[n++] = "tx";
	for (int i = 0; opts[i] && i < 4; i++)
		argv[n++] = (char *)opts[i];
	argv[n++] = "--", argv[n++] = "/bin/sh", argv[n++] = "-c", argv[n++] = (char *)script;
	argv[n] = NULL;
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

/* As relay_against_opts with --retry-ms retry_ms (NULL: the default). */
static int relay_against(void *(*serve)(void *), half_server *h, const char *retry_ms,
			 const char *script)
{
	const char *opts[] = {"--retry-ms", retry_ms, NULL};

	return relay_against_opts(serve, h, retry_ms ? opts : opts + 2, script);
}

/* Stop listening but keep h's port bound: connections are refused, and
 * no test running beside this one can be given the port (the relay
 * would reconnect to that test's server). */
static void stop_listening(half_server *h)
{
	struct sockaddr_in a = {0};
	socklen_t len = sizeof a;
	int one = 1;

	getsockname(h->listen_fd, (struct sockaddr *)&a, &len);
	close(h->listen_fd);
	h->placeholder = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	setsockopt(h->placeholder, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	bind(h->placeholder, (struct sockaddr *)&a, sizeof a);
	h->listen_fd = -1;
}

/* Wait for the relay to hang up connection c (what it sends is dropped),
 * then close c. */
static void drain_and_close(int c)
{
	char sink[64];
	struct pollfd pc = {c, POLLIN, 0};

	while (poll(&pc, 1, 20000) > 0 && read(c, sink, sizeof sink) > 0)
		;
	close(c);
}

/* Answer on connection c that the game is over (Voittaja: B), wait for
 * the relay to hang up, close c. */
static void end_game_on(int c)
{
	static const char win[] = "Voittaja: B\nEND\n";

	test_write_all(c, win, sizeof win - 1);
	drain_and_close(c);
}

/* Serve one connection: read the message, then close it and stop
 * listening, so the relay cannot reconnect. */
static void *serve_once_then_vanish(void *arg)
{
	half_server *h = arg;
	int c = accept_message(h, 0);

	if (c < 0)
		return NULL;
	stop_listening(h);
	close(c);
	return NULL;
}

/* Serve one connection: read the message, stop listening (the port kept
 * bound), answer "Voittaja: B", then wait for the relay to hang up. */
static void *serve_win_then_vanish(void *arg)
{
	half_server *h = arg;
	int c = accept_message(h, 0);

	if (c < 0)
		return NULL;
	stop_listening(h);
	end_game_on(c);
	return NULL;
}

/* Serve two connections: the first reads the message and stays silent
 * (open, no byte); the second reads the resent message and ends the game,
 * its answer in two parts 300 ms apart: a relay that took the resend for
 * news on the new connection and on the bot's pipe would wait on the bot
 * (which waits for the answer) after the first part. */
static void *serve_silent_then_win(void *arg)
{
	half_server *h = arg;
	static const char win[] = "Voittaja: B\nEND\n";

	int first = accept_message(h, 0);
	int second = accept_message(h, 1);
	if (second >= 0) {
		struct pollfd pc = {second, POLLIN, 0};
		test_write_all(second, win, 6);
		poll(&pc, 1, 300); /* the relay sends nothing here: a pause */
		test_write_all(second, win + 6, sizeof win - 1 - 6);
		drain_and_close(second);
	}
	if (first >= 0)
		close(first);
	return NULL;
}

Test(bot_rules, relay_forwards_a_dropped_response_once, .timeout = 60)
{
	half_server h = {0};
	const char *dir = h.dir;

	int st = relay_against(serve_half_then_whole, &h, "3000",
			       "echo v001222; while IFS= read -r l; do printf '%s\\n' \"$l\" >> got.txt; "
			       "[ \"$l\" = END ] && exit 0; done; exit 3");
	cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "relay status %d: %s", st,
		  test_read_file(dir, "relay.err"));
	cr_assert_str_eq(h.got[0], "v001222\n");
	cr_assert_str_eq(h.got[1], "v001222\n", "the message was resent");
	cr_assert_str_eq(test_read_file(dir, "got.txt"), TOKEN_LINE "\n" STATE_LINE "\nEND\n",
			 "the bot got the response once, whole");
	const char *tx = test_read_file(dir, "tx");
	const char *drop = strstr(tx, " # server closed the connection\n");
	cr_assert_not_null(drop, "the transcript says why the message went out again:\n%s", tx);
	const char *next = strchr(strchr(drop + 1, '\n') + 1, ' ');
	cr_assert(next && strncmp(next, " # connected to 127.0.0.1 port ", 31) == 0 &&
		  strstr(next, " > v001222\\x0a\n"),
		  "then at once the reconnection and the message resent:\n%s", tx);
}

/* First connection: the start message answered with "END\n", the next
 * message with "END" cut before its line end, then a close.  Second: the
 * resent message answered with the game's end; h->got holds the message
 * after the start and its resending. */
static void *serve_end_then_cut(void *arg)
{
	half_server *h = arg;
	int c = accept_message(h, 0);

	if (c < 0)
		return NULL;
	test_write_all(c, "END\n", 4);
	read_message(c, h->got[0]);
	test_write_all(c, "END", 3);
	close(c);
	c = accept_message(h, 1);
	if (c >= 0)
		end_game_on(c);
	return NULL;
}

/* A response is complete at its END line's line end, not at its last
 * byte received: "END" from a server that then drops the connection is
 * no response (the byte after it in the relay's buffer, left by the last
 * response, does not count), and the message goes out again. */
Test(bot_rules, relay_response_ends_with_the_end_lines_newline, .timeout = 60)
{
	half_server h = {0};

	/* the bot exits 5 at once when the next line it gets is not the end */
	int st = relay_against(serve_end_then_cut, &h, "3000",
			       "printf 'v001200\\n'; head -n 1 >got1; printf '" TOKEN_LINE "0\\n'; "
			       "IFS= read -r l; [ \"$l\" = 'Voittaja: B' ] || exit 5; cat >got2");
	cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "relay status %d: %s", st,
		  test_read_file(h.dir, "relay.err"));
	cr_assert_str_eq(h.got[0], TOKEN_LINE "0\n");
	cr_assert_str_eq(h.got[1], TOKEN_LINE "0\n", "the message went out again");
	cr_assert_str_eq(test_read_file(h.dir, "got1"), "END\n");
	cr_assert_str_eq(test_read_file(h.dir, "got2"), "END\n", "the cut response is not passed on");
}

/* Serve one connection: read the message, answer that the game is over
 * (Voittaja: B), then wait for the relay to hang up. */
static void *serve_win_at_once(void *arg)
{
	half_server *h = arg;
	int c = accept_message(h, 0);

	if (c >= 0)
		end_game_on(c);
	return NULL;
}

/* A bot that closed its stdin: the relay's write of the response fails
 * (EPIPE, not a SIGPIPE that would kill the relay), the game ends as the
 * server says, and the bot, which does not exit, is killed after the
 * grace with status 124, as the transcript notes too. */
Test(bot_rules, relay_outlives_a_bot_without_stdin, .timeout = 60)
{
	half_server h = {0};
	const char *opts[] = {"--grace-ms", "100", NULL};

	int st = relay_against_opts(serve_win_at_once, &h, opts, "exec 0<&-; echo v001222; exec sleep 60");
	const char *err = test_read_file(h.dir, "relay.err");
	cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 124, "relay status %d: %s", st, err);
	cr_assert_str_eq(h.got[0], "v001222\n");
	cr_assert(strstr(err, "kimble-relay: the bot did not exit within 100 ms after the game; killed\n"),
		  "%s", err);
	const char *tx = test_read_file(h.dir, "tx");
	cr_assert(strstr(tx, " < Voittaja: B\n"), "%s", tx);
	cr_assert(strstr(tx, " # the bot did not exit within 100 ms after the game; killed\n"), "%s", tx);
}

/* A test double for what the relay's own signal handlers never cause (they
 * end the process): a poll() interrupted by a signal.  While poll_eintr is
 * above 0, poll called from the thread poll_thread (this definition takes
 * the place of the C library's for the whole test binary) fails with
 * EINTR and counts down; otherwise it hands the call to the C library. */
static int poll_eintr;
static pthread_t poll_thread;

/* For the stand-ins below: in the thread poll_thread, while *left is
 * above 0, count it down and fail with err (1); otherwise 0. */
static int stand_in_fails(int *left, int err)
{
	if (*left <= 0 || !pthread_equal(pthread_self(), poll_thread))
		return 0;
	--*left;
	errno = err;
	return 1;
}

unsigned long test_poll_calls; /* every call, for test_rule_judge_proc.c */
static int poll_no_wait; /* calls from poll_thread that would not wait */

int poll(struct pollfd *fds, nfds_t n, int timeout)
{
	static int (*libc_poll)(struct pollfd *, nfds_t, int);

	__atomic_fetch_add(&test_poll_calls, 1, __ATOMIC_RELAXED);
	if (timeout == 0 && pthread_equal(pthread_self(), poll_thread))
		poll_no_wait++;
	if (stand_in_fails(&poll_eintr, EINTR))
		return -1;
	if (!libc_poll)
		*(void **)&libc_poll = dlsym(RTLD_NEXT, "poll");
	return libc_poll(fds, n, timeout);
}

/* A test double for a read interrupted by a signal (the relay's own
 * handlers end the process, so only a double makes one): while
 * read_eintr is above 0, read of a pipe (read_eintr_socket 0) or a socket
 * (1) from the thread poll_thread fails with EINTR and counts down. */
static int read_eintr, read_eintr_socket;

ssize_t read(int fd, void *buf, size_t n)
{
	static ssize_t (*libc_read)(int, void *, size_t);
	struct stat st;

	if (read_eintr > 0 && fstat(fd, &st) == 0 &&
	    (read_eintr_socket ? S_ISSOCK(st.st_mode) : S_ISFIFO(st.st_mode)) &&
	    stand_in_fails(&read_eintr, EINTR))
		return -1;
	if (!libc_read)
		*(void **)&libc_read = dlsym(RTLD_NEXT, "read");
	return libc_read(fd, buf, n);
}

/* kb_relay_run in this process: an interrupted poll, or read of the
 * bot's output, is tried again (the bot's message still reaches the
 * server; a read taken for the bot's end would lose it), and when the bot
 * exits before the game ends the relay returns its status having closed
 * every descriptor it opened (the server sees the connection end). */
Test(bot_rules, relay_run_retries_an_interrupted_poll_and_closes_all, .timeout = 60)
{
	int *const interrupted[2] = {&poll_eintr, &read_eintr};

	for (int k = 0; k < 2; k++) {
		int port, listen_fd = listen_any(&port);
		char *argv[] = {"/bin/sh", "-c", "echo v001222; exit 3", NULL};
		kb_relay_cfg cfg = {.host = "127.0.0.1", .port = port, .diag = stderr, .retry_ms = 3000,
				    .grace_ms = 1000};
		char got[80];

		cr_assert_geq(listen_fd, 0);
		int before = test_open_fds();
		poll_thread = pthread_self();
		*interrupted[k] = 1;
		cr_assert_eq(kb_relay_run(&cfg, argv), 3, "case %d", k);
		cr_assert_eq(*interrupted[k], 0, "case %d: the relay polled and read", k);
		cr_assert_eq(test_open_fds(), before, "case %d: the relay left a descriptor open", k);
		int c = accept(listen_fd, NULL, NULL);
		cr_assert_geq(c, 0);
		read_message(c, got);
		cr_assert_str_eq(got, "v001222\n", "case %d: the message after the interruption", k);
		close(c);
		close(listen_fd);
	}
}

/* With no message waiting for its response the relay sleeps in poll
 * until the bot or the server has something (no timeout): it does not
 * spin asking poll for "nothing yet".  The bot here writes nothing and
 * ends when its input closes, which the relay reads as its end. */
Test(bot_rules, relay_run_waits_without_a_timeout_while_nothing_is_pending, .timeout = 60)
{
	int port, listen_fd = listen_any(&port);
	char *argv[] = {"/bin/sh", "-c", "exit 4", NULL};
	kb_relay_cfg cfg = {.host = "127.0.0.1", .port = port, .diag = stderr, .retry_ms = 3000,
			    .grace_ms = 1000};

	cr_assert_geq(listen_fd, 0);
	poll_thread = pthread_self();
	cr_assert_eq(kb_relay_run(&cfg, argv), 4);
	cr_assert_eq(poll_no_wait, 0, "the relay polled without waiting %d times", poll_no_wait);
	close(listen_fd);
}

/* kb_relay_run in this process against serve(h) on a fresh port, with
 * /bin/sh -c script as the bot, retry_ms, a transcript into *tx_text
 * (malloc'ed) and *interrupted set to 1 first (a stand-in's counter);
 * returns the relay's status. */
static int relay_in_process(half_server *h, void *(*serve)(void *), const char *script, int retry_ms,
			    int *interrupted, char **tx_text)
{
	int port;
	pthread_t th;
	char *argv[] = {"/bin/sh", "-c", (char *)script, NULL};
	size_t tx_len = 0;
	FILE *tx = open_memstream(tx_text, &tx_len);
	kb_relay_cfg cfg = {.host = "127.0.0.1", .transcript = tx, .diag = stderr, .retry_ms = retry_ms,
			    .grace_ms = 1000};

	h->listen_fd = listen_any(&port);
	cr_assert_geq(h->listen_fd, 0);
	cfg.port = port;
	pthread_create(&th, NULL, serve, h);
	poll_thread = pthread_self();
	*interrupted = 1;
	int rc = kb_relay_run(&cfg, argv);
	pthread_join(th, NULL);
	fclose(tx);
	return rc;
}

/* An interrupted read of the server's response is tried again, not taken
 * for a closed connection: no reconnection (the server has stopped
 * listening: one would fail), the response reaches the bot. */
Test(bot_rules, relay_retries_an_interrupted_read_of_the_server, .timeout = 60)
{
	half_server h = {0};
	char *tx_text = NULL;

	read_eintr_socket = 1;
	int rc = relay_in_process(&h, serve_win_then_vanish,
				  "echo v001222; read line; [ \"$line\" = 'Voittaja: B' ] && exit 3", 300, &read_eintr,
				  &tx_text);
	read_eintr = 0, read_eintr_socket = 0;
	cr_assert_eq(rc, 3, "%s", tx_text);
	cr_assert_null(strstr(tx_text, "server closed the connection"), "%s", tx_text);
	cr_assert_eq(test_count(tx_text, " # connected to 127.0.0.1 port "), 1, "%s", tx_text);
	free(tx_text);
	if (h.placeholder > 0)
		close(h.placeholder);
}

/* kb_net_connect as core/net.c's, except that the next connects_refused
 * calls fail as with no server listening yet (the test binary is linked
 * with --wrap=kb_net_connect): a server that comes up while the relay is
 * trying to reach it, without a race between the two. */
int __real_kb_net_connect(const char *host, int port, int *fd, kb_err *err);
int __wrap_kb_net_connect(const char *host, int port, int *fd, kb_err *err);
static int connects_refused;

int __wrap_kb_net_connect(const char *host, int port, int *fd, kb_err *err)
{
	if (connects_refused > 0) {
		connects_refused--;
		*fd = -1;
		return kb_err_set(err, KB_NET_ECONNECT, "%s port %d: Connection refused", host, port);
	}
	return __real_kb_net_connect(host, port, fd, err);
}

/* A server not up when the relay starts is tried again until retry_ms
 * is over (README, kimble-relay(1): --retry-ms), not given up after the
 * first try: here the fourth try connects, 150 ms into a 3-second window,
 * and the game is played. */
Test(bot_rules, relay_keeps_trying_a_server_not_up_yet, .timeout = 60)
{
	half_server h = {0};
	char *tx_text = NULL;
	int unused;

	connects_refused = 3;
	int rc = relay_in_process(&h, serve_win_at_once,
				  "echo v001222; read line; [ \"$line\" = 'Voittaja: B' ] && exit 3", 3000, &unused,
				  &tx_text);
	cr_assert_eq(connects_refused, 0, "three refused tries");
	cr_assert_eq(rc, 3, "%s", tx_text);
	cr_assert_str_eq(h.got[0], "v001222\n");
	free(tx_text);
}

/* A bot that closed its stdin cannot take the response (the write fails
 * with EPIPE): the relay forgets that pipe, and closes no descriptor of
 * ours for it (0 included) when the game ends.  The bot stays until the
 * grace is over and is killed. */
Test(bot_rules, relay_forgets_the_bots_closed_stdin, .timeout = 60)
{
	half_server h = {0};
	char *tx_text = NULL;
	int unused = 0;

	if (fcntl(0, F_GETFD) < 0)
		cr_assert_eq(open("/dev/null", O_RDONLY), 0);
	int before = test_open_fds();
	int rc = relay_in_process(&h, serve_win_then_vanish, "exec 0<&-; echo v001222; exec sleep 30", 3000,
				  &unused, &tx_text);
	cr_assert_eq(rc, KB_RELAY_GRACE, "%s", tx_text);
	cr_assert_geq(fcntl(0, F_GETFD), 0, "the relay closed our descriptor 0");
	if (h.placeholder > 0)
		close(h.placeholder);
	cr_assert_eq(test_open_fds(), before, "%s", tx_text);
	free(tx_text);
}

/* errno tells why a call failed, and only then: a server that closes the
 * connection (read returns 0) after an interrupted poll left errno at
 * EINTR is a closed connection all the same, noted at once, the message
 * resent on a new one (the first connection answers a line, then
 * closes; the second the whole response, which reaches the bot). */
Test(bot_rules, relay_sees_a_close_after_an_interrupted_poll, .timeout = 60)
{
	half_server h = {0};
	char *tx_text = NULL;

	int rc = relay_in_process(&h, serve_half_then_whole, "echo v001222; read line; exit 3", 3000, &poll_eintr,
				  &tx_text);
	cr_assert_eq(rc, 3, "%s", tx_text);
	cr_assert_eq(poll_eintr, 0, "the relay polled");
	cr_assert_str_eq(h.got[1], "v001222\n", "the message again on the second connection");
	cr_assert_eq(test_count(tx_text, " # server closed the connection\n"), 1, "%s", tx_text);
	cr_assert_null(strstr(tx_text, "no response"), "%s", tx_text);
	free(tx_text);
	close(h.listen_fd);
}

/* A connection the server closed is closed by the relay too before it
 * connects again: after the game no descriptor of the relay's is left
 * (the first connection answers a line, then closes; the second the
 * whole response). */
Test(bot_rules, relay_closes_the_connection_the_server_closed, .timeout = 60)
{
	half_server h = {0};
	char *tx_text = NULL;
	int unused = 0;

	int before = test_open_fds();
	int rc = relay_in_process(&h, serve_half_then_whole, "echo v001222; read line; exit 3", 3000, &unused,
				  &tx_text);
	cr_assert_eq(rc, 3, "%s", tx_text);
	cr_assert_eq(test_count(tx_text, " # server closed the connection\n"), 1, "%s", tx_text);
	close(h.listen_fd);
	cr_assert_eq(test_open_fds(), before, "a descriptor left open: %s", tx_text);
	free(tx_text);
}

/* A stop signal while the relay connects, before any bot runs: when
 * connect_raise is not 0, the next connect raises it first (a signal
 * that comes at that moment cannot be timed from outside). */
static int connect_raise;

int connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	static int (*libc_connect)(int, const struct sockaddr *, socklen_t);

	if (connect_raise) {
		int sig = connect_raise;
		connect_raise = 0;
		raise(sig);
	}
	if (!libc_connect)
		*(void **)&libc_connect = dlsym(RTLD_NEXT, "connect");
	return libc_connect(fd, addr, len);
}

/* A stop signal before the bot started ends the relay as the signal says
 * and stops no other process: there is no bot group yet (the relay must
 * not take its own group, which it shares with whoever started it, for
 * the bot's). */
Test(bot_rules, relay_stopped_before_the_bot_runs_stops_only_itself, .timeout = 30)
{
	int port, listen_fd = listen_any(&port), st;

	cr_assert_geq(listen_fd, 0);
	pid_t kid = fork();
	cr_assert_geq(kid, 0);
	if (kid == 0) {
		char *argv[] = {"/bin/sh", "-c", "exit 3", NULL};
		kb_relay_cfg cfg = {.host = "127.0.0.1", .port = port, .diag = stderr, .retry_ms = 3000,
				    .grace_ms = 1000};
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		setpgid(0, 0); /* a group of its own: a kill of it reaches no test */
		connect_raise = SIGTERM;
		kb_relay_run(&cfg, argv);
		_exit(0);
	}
	cr_assert_eq(waitpid(kid, &st, 0), kid);
	cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "ended by %d, not SIGTERM (status %d)",
		  WIFSIGNALED(st) ? WTERMSIG(st) : -1, st);
	close(listen_fd);
}

/* A test double for the race where the bot runs (execs) before the relay
 * calls setpgid for it: while setpgid_late is set, setpgid called in the
 * process setpgid_late names fails with EACCES (what the kernel says
 * once the child has exec'd) and does nothing; the child's own call
 * (another process) goes to the C library. */
static pid_t setpgid_late;

int setpgid(pid_t pid, pid_t pgid)
{
	static int (*libc_setpgid)(pid_t, pid_t);

	if (setpgid_late && getpid() == setpgid_late) {
		errno = EACCES;
		return -1;
	}
	if (!libc_setpgid)
		*(void **)&libc_setpgid = dlsym(RTLD_NEXT, "setpgid");
	return libc_setpgid(pid, pgid);
}

/* The bot runs in a process group of its own (which the relay kills as one
 * after the grace) even when it runs before the relay's own setpgid for
 * it: the child puts itself there. */
Test(bot_rules, relay_bot_leads_its_own_group_whoever_runs_first, .timeout = 30)
{
	int port, listen_fd = listen_any(&port);
	char dir[512], script[800], want[64];
	kb_relay_cfg cfg = {.host = "127.0.0.1", .diag = stderr, .retry_ms = 3000, .grace_ms = 1000};

	cr_assert_geq(listen_fd, 0);
	cfg.port = port;
	test_tmpdir(dir, sizeof dir);
	snprintf(script, sizeof script,
		 "echo $$ $(cut -d' ' -f5 /proc/$$/stat) > '%s/group'; echo v001222; exit 3", dir);
	char *argv[] = {"/bin/sh", "-c", script, NULL};
	setpgid_late = getpid();
	int rc = kb_relay_run(&cfg, argv);
	setpgid_late = 0;
	cr_assert_eq(rc, 3);
	const char *got = test_read_file(dir, "group");
	int pid = atoi(got);
	snprintf(want, sizeof want, "%d %d\n", pid, pid);
	cr_assert(pid > 0 && strcmp(got, want) == 0, "pid and process group: %s", got);
	close(listen_fd);
}

/* Test doubles for a bot the relay cannot start, and for a stop signal
 * that comes while it starts, in the thread poll_thread only: while
 * pipe_fail_at is above 0, pipe2 counts it down and the call that
 * brings it to 0 fails with EMFILE; while fork_fail is set, fork fails
 * with EAGAIN; fork_raise, when not 0, is raised in the parent as soon
 * as a real fork returns there; with fork_hold[0] >= 0 (a pipe whose
 * write end only the parent holds) the child waits until the parent is
 * gone before fork returns there (a child that has not run yet). */
static int pipe_fail_at, fork_fail, fork_raise, fork_hold[2] = {-1, -1};

int pipe2(int fds[2], int flags)
{
	static int (*libc_pipe2)(int[2], int);

	if (pipe_fail_at > 0 && pthread_equal(pthread_self(), poll_thread) && --pipe_fail_at == 0) {
		errno = EMFILE;
		return -1;
	}
	if (!libc_pipe2)
		*(void **)&libc_pipe2 = dlsym(RTLD_NEXT, "pipe2");
	return libc_pipe2(fds, flags);
}

pid_t fork(void)
{
	static pid_t (*libc_fork)(void);
	int ours = pthread_equal(pthread_self(), poll_thread);

	if (fork_fail && ours) {
		errno = EAGAIN;
		return -1;
	}
	if (!libc_fork)
		*(void **)&libc_fork = dlsym(RTLD_NEXT, "fork");
	pid_t pid = libc_fork();
	if (pid > 0 && fork_raise && ours)
		raise(fork_raise);
	if (pid == 0 && fork_hold[0] >= 0 && ours) {
		char byte;
		close(fork_hold[1]);
		while (read(fork_hold[0], &byte, 1) > 0)
			;
		close(fork_hold[0]);
	}
	return pid;
}

static const int relay_stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
/* While write_fail is above 0, a write to a socket from the thread
 * poll_thread fails with ECONNRESET (a server that reset the
 * connection) and counts it down. */
static int write_fail;

ssize_t write(int fd, const void *buf, size_t n)
{
	static ssize_t (*libc_write)(int, const void *, size_t);
	struct stat st;

	if (write_fail > 0 && fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode) && stand_in_fails(&write_fail, ECONNRESET))
		return -1;
	if (!libc_write)
		*(void **)&libc_write = dlsym(RTLD_NEXT, "write");
	return libc_write(fd, buf, n);
}

/* A message whose every write to the server fails is tried three times,
 * each on a new connection after the first, each failure noted in the
 * transcript; then the relay gives up with KB_RELAY_NOSERVER. */
Test(bot_rules, relay_tries_a_message_three_times, .timeout = 60)
{
	int port, listen_fd = listen_any(&port);
	char *argv[] = {"/bin/sh", "-c", "echo v001222; exec sleep 60", NULL};
	char *tx_text = NULL, *diag_text = NULL;
	size_t tx_len = 0, diag_len = 0;
	FILE *tx = open_memstream(&tx_text, &tx_len), *diag = open_memstream(&diag_text, &diag_len);
	kb_relay_cfg cfg = {.host = "127.0.0.1", .port = port, .transcript = tx, .diag = diag,
			    .retry_ms = 3000, .grace_ms = 1000};

	cr_assert_geq(listen_fd, 0);
	poll_thread = pthread_self();
	write_fail = 1000;
	int rc = kb_relay_run(&cfg, argv);
	write_fail = 0;
	fclose(tx);
	fclose(diag);
	cr_assert_eq(rc, KB_RELAY_NOSERVER, "status %d: %s", rc, diag_text);
	cr_assert_str_eq(diag_text, "kimble-relay: lost the server at 127.0.0.1 and could not reconnect within 3000 ms\n");
	cr_assert_eq(test_count(tx_text, " # write to server failed; reconnecting\n"), 3, "%s", tx_text);
	cr_assert_eq(test_count(tx_text, " # connected to 127.0.0.1 port "), 3, "%s", tx_text);
	cr_assert_null(strstr(tx_text, " > "), "nothing sent: %s", tx_text);
	free(tx_text);
	free(diag_text);
	close(listen_fd);
}


/* A bot that cannot be started (its stdin pipe, its stdout pipe, the
 * fork refused): kb_relay_run names it with the reason and returns
 * KB_RELAY_SPAWN (71) having closed every descriptor it opened (the
 * server sees the connection end without a message) and blocked no stop
 * signal. */
Test(bot_rules, relay_that_cannot_start_its_bot_leaves_nothing_open, .timeout = 60)
{
	static const char *const why[] = {"Too many open files", "Too many open files",
					  "Resource temporarily unavailable"};
	int port, listen_fd = listen_any(&port);
	char *argv[] = {"/bin/sh", "-c", "exit 0", NULL};

	cr_assert_geq(listen_fd, 0);
	poll_thread = pthread_self();
	for (int step = 0; step < 3; step++) {
		char *diag_text = NULL, want[128], byte;
		size_t diag_len = 0;
		FILE *diag = open_memstream(&diag_text, &diag_len);
		kb_relay_cfg cfg = {.host = "127.0.0.1", .port = port, .diag = diag, .retry_ms = 3000,
				    .grace_ms = 1000};
		sigset_t mask;
		int before = test_open_fds();

		cr_assert_not_null(diag);
		pipe_fail_at = step < 2 ? step + 1 : 0;
		fork_fail = step == 2;
		int rc = kb_relay_run(&cfg, argv);
		fork_fail = 0;
		fclose(diag);
		cr_assert_eq(rc, KB_RELAY_SPAWN, "step %d: status %d: %s", step, rc, diag_text);
		cr_assert_eq(pipe_fail_at, 0, "step %d: the pipes made", step);
		snprintf(want, sizeof want, "kimble-relay: cannot start /bin/sh: %s\n", why[step]);
		cr_assert_str_eq(diag_text, want, "step %d", step);
		free(diag_text);
		cr_assert_eq(test_open_fds(), before, "step %d: the relay left a descriptor open", step);
		cr_assert_eq(sigprocmask(SIG_BLOCK, NULL, &mask), 0);
		for (size_t i = 0; i < sizeof relay_stop_signals / sizeof *relay_stop_signals; i++)
			cr_assert_not(sigismember(&mask, relay_stop_signals[i]), "step %d: signal %d left blocked",
				      step, relay_stop_signals[i]);
		int c = accept(listen_fd, NULL, NULL);
		cr_assert_geq(c, 0);
		cr_assert_eq(read(c, &byte, 1), 0, "step %d: the connection ends without a message", step);
		close(c);
	}
	close(listen_fd);
}

/* A stop signal (SIGINT, SIGTERM, SIGHUP) that comes while the bot
 * starts, before the relay has noted the bot's process group (raised
 * right after fork returns in the relay), waits until the group is
 * noted, and then takes the bot along, even a bot that has not run yet
 * (it has not made its group itself: the relay makes it too): the
 * relay (a child of the test, the signal ends it) dies of that signal
 * and the bot, whose stderr is the relay's, is gone too (that pipe
 * reaches end of file). */
Test(bot_rules, relay_holds_stop_signals_while_the_bot_starts, .timeout = 120)
{
	int port, listen_fd = listen_any(&port);

	cr_assert_geq(listen_fd, 0);
	for (size_t k = 0; k < sizeof relay_stop_signals / sizeof *relay_stop_signals; k++) {
		int sig = relay_stop_signals[k], err[2], st;
		char buf[256];

		cr_assert_eq(pipe2(err, O_CLOEXEC), 0);
		pid_t pid = fork();
		cr_assert_geq(pid, 0);
		if (pid == 0) {
			char *argv[] = {"/bin/sh", "-c", "exec sleep 30", NULL};
			kb_relay_cfg cfg = {.host = "127.0.0.1", .port = port, .diag = stderr, .retry_ms = 3000,
					    .grace_ms = 1000};
			dup2(err[1], 2);
			poll_thread = pthread_self();
			fork_raise = sig;
			if (pipe2(fork_hold, O_CLOEXEC))
				_exit(99);
			_exit(100 + kb_relay_run(&cfg, argv));
		}
		close(err[1]);
		cr_assert_eq(waitpid(pid, &st, 0), pid);
		cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == sig, "signal %d: relay status %d", sig, st);
		int eof = 0;
		for (;;) {
			struct pollfd pf = {err[0], POLLIN, 0};
			ssize_t got;
			if (poll(&pf, 1, 20000) <= 0 || (got = read(err[0], buf, sizeof buf)) < 0)
				break;
			if (got == 0) {
				eof = 1;
				break;
			}
		}
		close(err[0]);
		cr_assert(eof, "signal %d: the bot outlived the relay", sig);
	}
	close(listen_fd);
}

/* ---- command lines --------------------------------------------------------- */

Test(bot_rules, relay_options_out_of_range, .timeout = 60)
{
	static const char *const command[] = {"--", "true", NULL};

	test_usage_errors("kimble-relay", command);
	const char *none[] = {"--port", "1", NULL};
	test_usage_says("kimble-relay", none, "expected -- COMMAND [ARGS...] after the options");
	const char *extra[] = {"--bogus", "--", "true", NULL};
	test_usage_says("kimble-relay", extra, "unknown option \"--bogus\"");
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
	test_usage_says("kimble-bot", budget, "--budget-ms \"x\"");
	const char *state[] = {"hard", "1", "--state", NULL};
	test_usage_says("kimble-bot", state, "--state: expected a value after it");
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

Test(bot_rules, relay_gives_up_after_retry_ms, .timeout = 60)
{
	half_server h = {0};
	const char *dir = h.dir;

	/* the bot keeps its output open: exec'ing "cat >/dev/null" would not */
	int st = relay_against(serve_once_then_vanish, &h, "200", "echo v001222; exec sleep 60");
	const char *err = test_read_file(dir, "relay.err");
	cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 69, "relay status %d: %s (transcript: %s)",
		  st, err, test_read_file(dir, "tx"));
	cr_assert(strstr(err, "lost the server at 127.0.0.1 and could not reconnect within 200 ms") != NULL,
		  "%s", err);
	cr_assert_str_eq(h.got[0], "v001222\n");
	/* by default for 3000 ms */
	half_server d = {0};
	st = relay_against(serve_once_then_vanish, &d, NULL, "echo v001222; exec sleep 60");
	err = test_read_file(d.dir, "relay.err");
	cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 69, "relay status %d: %s", st, err);
	cr_assert(strstr(err, "could not reconnect within 3000 ms") != NULL, "%s", err);
	/* between tries the relay waits (50 ms) rather than spinning: its
	 * 3.2 s of trying cost it (and its bots) little processor time; a
	 * relay retrying without a pause spends all of it on the processor */
	struct rusage ru;
	cr_assert_eq(getrusage(RUSAGE_CHILDREN, &ru), 0);
	double cpu = ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
	cr_assert_lt(cpu, 0.3, "the relays used %.3f s of processor time", cpu);
}

/* ---- the tuner's self-play data (bot/tune/fit.h) --------------------------------- */

/* Bytes the C library's allocator holds for the program. */
static size_t malloc_held(void)
{
	struct mallinfo2 m = mallinfo2();

	return m.uordblks + m.hblkhd;
}

/* Out of memory for the samples (a first block of 65,536): the
 * collection fails (-1, fit.h), nothing kept. */
Test(bot_rules, fit_collect_out_of_memory, .timeout = 60)
{
	kb_fit_data d = {0};

	test_limit_memory(1u << 20);
	cr_assert_eq(kb_fit_collect(&d, &kb_weights_default, 0, 1, 5, 1), -1);
	cr_assert_eq(d.n, 0);
	cr_assert_null(d.s);
}

/* Every sample: a sound position whose present seats are the game's
 * lineup (A and the non-absent seats), the roller present, and the game's
 * winner; every game has at least one opponent. */
Test(bot_rules, fit_samples_match_their_games, .timeout = 60)
{
	kb_fit_data d = {0};

	cr_assert_eq(kb_fit_collect(&d, &kb_weights_default, 0, 12, 5, 1), 0);
	cr_assert_eq(d.games, 12);
	cr_assert_gt(d.n, 12 * 20);
	unsigned lineups = 0; /* bit l: lineup l (3 x 3 x 3 kinds of B, C, D) seen */
	unsigned kinds = 0;   /* bit k: an opponent of kind k seen */
	for (size_t i = 0; i < d.n; i++) {
		const kb_fit_sample *s = &d.s[i];
		unsigned want = 1, l = 0;
		for (int t = 1; t < KB_SEATS; t++) {
			cr_assert(s->kinds[t] == 0xff || s->kinds[t] == KB_EASY || s->kinds[t] == KB_HARD,
				  "type %d", s->kinds[t]);
			if (s->kinds[t] != 0xff)
				kinds |= 1u << s->kinds[t];
			if (s->kinds[t] != 0xff)
				want |= 1u << t;
			l = 3 * l + (s->kinds[t] == 0xff ? 0 : s->kinds[t]);
		}
		lineups |= 1u << l;
		cr_assert_neq(want, 1u, "sample %zu: no opponent", i);
		cr_assert_eq(s->kinds[0], KB_EVAL_SELF, "sample %zu: seat A is the bot", i);
		cr_assert_eq(s->pos.present, want, "sample %zu", i);
		cr_assert_eq(kb_pos_check(&s->pos), 0, "sample %zu", i);
		cr_assert(kb_present(&s->pos, s->turn), "sample %zu: roller %d absent", i, s->turn);
		cr_assert(s->winner >= 0 && kb_present(&s->pos, s->winner), "sample %zu", i);
	}
	cr_assert(d.wins >= 0 && d.wins <= 12);
	/* each game's lineup drawn afresh: twelve games, several lineups, some
	 * with seat C or D */
	cr_assert_geq(__builtin_popcount(lineups), 3, "lineups seen: %#x", lineups);
	cr_assert(lineups & ~0x7u, "only seat B ever played: %#x", lineups);
	cr_assert_eq(kinds, 1u << KB_EASY | 1u << KB_HARD, "easy and hard opponents both drawn: %#x", kinds);
	kb_fit_free(&d);

	/* keep = 3 keeps every third roll: a third of the samples */
	kb_fit_data every = {0}, third = {0};
	cr_assert_eq(kb_fit_collect(&every, &kb_weights_default, 0, 4, 9, 1), 0);
	cr_assert_eq(kb_fit_collect(&third, &kb_weights_default, 0, 4, 9, 3), 0);
	cr_assert(third.n * 3 >= every.n - 12 && third.n * 3 <= every.n + 12, "%zu of %zu", third.n,
		  every.n);
	cr_assert_eq(third.wins, every.wins, "the same games");
	/* kb_fit_free gives the samples' memory back (checked where the
	 * allocator's counts show the samples: not under ASan's allocator) */
	kb_fit_data probe = {0};
	size_t held0 = malloc_held();
	cr_assert_eq(kb_fit_collect(&probe, &kb_weights_default, 0, 1, 9, 1), 0);
	size_t held1 = malloc_held(), bytes = probe.cap * sizeof *probe.s;
	cr_assert_eq(probe.cap, (size_t)1 << 16, "the first block holds 65,536 samples (fit.h)");
	kb_fit_free(&probe);
	if (held1 >= held0 + bytes)
		cr_assert_leq(malloc_held() + bytes, held1, "%zu bytes not freed", bytes);
	cr_assert(probe.s == NULL && probe.n == 0 && probe.cap == 0);
	/* past the first 65,536 samples the buffer grows, keeping them */
	kb_fit_data many = {0};
	cr_assert_eq(kb_fit_collect(&many, &kb_weights_default, 0, 600, 9, 1), 0);
	cr_assert_gt(many.n, (size_t)1 << 16, "%zu samples", many.n);
	cr_assert_geq(many.cap, many.n);
	cr_assert_eq(memcmp(many.s, every.s, every.n * sizeof *every.s), 0, "the first games' samples");
	kb_fit_free(&many);
	/* keep 0 (or less) keeps every roll, as 1 does */
	kb_fit_data zero_keep = {0};
	cr_assert_eq(kb_fit_collect(&zero_keep, &kb_weights_default, 0, 4, 9, 0), 0);
	cr_assert_eq(zero_keep.n, every.n);
	cr_assert(memcmp(zero_keep.s, every.s, every.n * sizeof *every.s) == 0);
	kb_fit_free(&zero_keep);
	kb_fit_free(&every);
	kb_fit_free(&third);
}

/* wins counts the games seat A (the bot) won: one game at a time, wins is
 * 1 exactly when the game's samples name A as the winner (seeds where the
 * bot wins and where it loses). */
Test(bot_rules, fit_wins_are_seat_as_wins, .timeout = 60)
{
	int won = 0, lost = 0;

	for (uint64_t seed = 1; seed <= 12; seed++) {
		kb_fit_data d = {0};
		cr_assert_eq(kb_fit_collect(&d, &kb_weights_default, 0, 1, seed, 1), 0);
		cr_assert_gt(d.n, 0);
		cr_assert_eq(d.wins, d.s[0].winner == 0, "seed %d: winner %d, wins %ld", (int)seed,
			     d.s[0].winner, d.wins);
		won += d.s[0].winner == 0, lost += d.s[0].winner != 0;
		kb_fit_free(&d);
	}
	cr_assert(won && lost, "the bot won %d of 12", won);
}

/* A game's samples get its winner, and nothing past them does: a buffer
 * the game fills exactly, followed by a page that may not be touched,
 * takes the game's samples (those of a fresh collection) and no write
 * beyond its last one. */
Test(bot_rules, fit_collect_writes_only_its_samples, .timeout = 60)
{
	kb_fit_data probe = {0};
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	cr_assert_eq(kb_fit_collect(&probe, &kb_weights_default, 0, 1, 4, 1), 0);
	size_t bytes = probe.n * sizeof *probe.s, room = (bytes + page - 1) / page * page;
	char *base = mmap(NULL, room + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(base, MAP_FAILED);
	cr_assert_eq(mprotect(base + room, page, PROT_NONE), 0);
	kb_fit_data d = {(kb_fit_sample *)(base + room - bytes), 0, probe.n, 0, 0};
	cr_assert_eq(kb_fit_collect(&d, &kb_weights_default, 0, 1, 4, 1), 0);
	cr_assert_eq(d.n, probe.n);
	cr_assert_eq(memcmp(d.s, probe.s, bytes), 0);
	for (size_t i = 0; i < d.n; i++)
		cr_assert_eq(d.s[i].winner, probe.s[d.n - 1].winner, "sample %zu", i);
	munmap(base, room + page);
	kb_fit_free(&probe);
}

/* The positions of a reference game, one per roll: the k-th game of
 * seed (rng.h's KB_TAG_GAME stream) with the lineup kinds, the bot at
 * level 0 without rollouts knowing each opponent's kind (search.h). */
typedef struct ref_rolls {
	const kb_game *game;
	kb_pos pos[4096];
	size_t n;
} ref_rolls;

static void ref_rolled(void *ctx, const kb_roll *roll)
{
	ref_rolls *r = ctx;

	(void)roll;
	if (r->n < 4096)
		r->pos[r->n++] = r->game->pos;
}

static void ref_collect(ref_rolls *r, uint64_t seed, const uint8_t kinds[KB_SEATS])
{
	static const kb_rollout_params off = {0, 0, 0, 0, 0};
	uint8_t ctl[KB_SEATS] = {KB_EXTERNAL, 0, 0, 0};
	const kb_opponent *opp[KB_SEATS] = {NULL, NULL, NULL, NULL};
	kb_game game;
	kb_search bot;

	for (int s = 1; s < KB_SEATS; s++)
		if (kinds[s] != 0xff) {
			ctl[s] = kinds[s];
			opp[s] = kinds[s] == KB_EASY ? &kb_opponent_easy : &kb_opponent_hard;
		}
	uint64_t gseed = kb_stream_seed(seed, KB_TAG_GAME, 0);
	kb_game_init(&game, gseed, ctl);
	kb_search_init(&bot, game.pos.present, opp, gseed, 0);
	bot.w = &kb_weights_default;
	bot.rollout = &off;
	kb_search_set_level(&bot, 0);
	r->game = &game;
	r->n = 0;
	kb_hooks h = {ref_rolled, NULL, r};
	while (kb_game_advance(&game, &h) == 0)
		kb_game_decide(&game, kb_search_decide(&bot, &game.pos, game.pending_die,
						       kb_game_pending_mask(&game), NULL), &h);
}

/* The bot of the tuner's self-play knows its opponents: each collected
 * game is the game of a bot told each seat's kind (easy as easy), played
 * from the same seed (checked on seeds whose lineup has an easy seat). */
Test(bot_rules, fit_collect_bot_knows_its_opponents, .timeout = 60)
{
	static ref_rolls ref;
	int checked = 0;

	for (uint64_t seed = 1; seed <= 40 && checked < 4; seed++) {
		kb_fit_data d = {0};
		cr_assert_eq(kb_fit_collect(&d, &kb_weights_default, 0, 1, seed, 1), 0);
		const uint8_t *kinds = d.s[0].kinds;
		if (kinds[1] == KB_EASY || kinds[2] == KB_EASY || kinds[3] == KB_EASY) {
			ref_collect(&ref, seed, kinds);
			cr_assert_eq(d.n, ref.n, "seed %d: rolls", (int)seed);
			for (size_t i = 0; i < d.n; i++)
				cr_assert(memcmp(&d.s[i].pos, &ref.pos[i], sizeof ref.pos[i]) == 0,
					  "seed %d roll %zu", (int)seed, i);
			checked++;
		}
		kb_fit_free(&d);
	}
	cr_assert_eq(checked, 4);
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

/* The lineup's win rate is that of the bot knowing each opponent's kind
 * (search.h: an easy seat modelled and evaluated as easy): the games
 * replayed here with every seat's model spelled out, B easy and C hard,
 * for each of the seats. */
Test(bot_rules, fit_winrate_models_each_seat_as_it_plays, .timeout = 60)
{
	static const uint8_t lineups[3][3] = {{KB_EASY, 0, 0}, {KB_HARD, KB_EASY, 0}, {KB_HARD, KB_HARD, KB_EASY}};
	static const kb_rollout_params off = {0, 0, 0, 0, 0};

	for (int l = 0; l < 3; l++) {
		uint8_t ctl[KB_SEATS] = {KB_EXTERNAL, lineups[l][0], lineups[l][1], lineups[l][2]};
		const kb_opponent *opp[KB_SEATS] = {NULL, NULL, NULL, NULL};
		long wins = 0, games = 24;
		for (int s = 1; s < KB_SEATS; s++)
			opp[s] = ctl[s] == KB_EASY ? &kb_opponent_easy : ctl[s] == KB_HARD ? &kb_opponent_hard : NULL;
		for (long g = 0; g < games; g++) {
			uint64_t gseed = kb_stream_seed(5, KB_TAG_GAME, (uint64_t)g);
			kb_game game;
			kb_search bot;
			kb_game_init(&game, gseed, ctl);
			kb_search_init(&bot, game.pos.present, opp, gseed, 0);
			bot.rollout = &off;
			kb_search_set_level(&bot, 0);
			while (kb_game_advance(&game, NULL) == 0)
				kb_game_decide(&game, kb_search_decide(&bot, &game.pos, game.pending_die,
								    kb_game_pending_mask(&game), NULL), NULL);
			wins += game.winner == 0;
		}
		cr_assert_float_eq(kb_fit_lineup_winrate(&kb_weights_default, 0, 0, lineups[l], games, 5),
				   (double)wins / games, 1e-12, "lineup %d", l);
	}
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
	cr_assert_eq(bot.kinds[0], 0, "seat A is evaluated as the bot");
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
		kb_search_set_level(&bot, 1); /* level 2: search_values_by_hand */
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

/* A rollout that A wins counts 1, as the game does.  Zero weights score
 * every unfinished position 1/2.  A (goal 31, 30; pieces at 27 and 24)
 * rolls a 1: piece 2 into goal square 28 leaves 24 needing a 5, piece 3
 * to 25 leaves two pieces out.  Two rolls per rollout (B's, then A's
 * unless B rolled a 6): after piece 2 a rollout is worth 1 when A rolls
 * the 5, else 1/2; after piece 3 always 1/2.  So piece 2, for every
 * seed (a tie keeps the first candidate, piece 2 too). */
Test(bot_rules, rollouts_count_a_win_as_one, .timeout = 30)
{
	static kb_weights zero;
	static const kb_rollout_params two = {2, 32, 2, 1.0, 1000000};
	const kb_opponent *opp[KB_SEATS] = {NULL, &kb_opponent_hard, NULL, NULL};
	kb_pos pos = test_pos(0x3, "31 30 27 24", "", NULL, NULL);
	double v[KB_PIECES] = {-1.0, -1.0, 0.5, 0.5};

	cr_assert_eq(kb_legal(&pos, 0, 1), 0xcu);
	for (uint64_t seed = 0; seed < 10; seed++) {
		kb_search bot;
		kb_search_init(&bot, 0x3, opp, seed, 0);
		bot.w = &zero;
		cr_assert_eq(kb_rollout_choose(&bot, &two, &pos, 1, 0xc, v, 0), 2, "seed %d", (int)seed);
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
	test_write_file(path, "real\n%s\n--state %s\n0\n", test_bin("kimble-bot", bin, sizeof bin), store);
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

/* ---- the evaluation's features on constructed positions -------------------- */

static const uint8_t kinds_hard[KB_SEATS] = {0, 2, 2, 2};
static const uint8_t kinds_easy[KB_SEATS] = {0, 1, 1, 1};

/* B (progress 2 and 0: squares 9 and 7) rolls next against A's pieces at
 * progress 11 and 10 (squares 11 and 10).  Hard moves the foremost piece:
 * a 1 hits square 10, a 2 square 11.  Easy moves the rearmost: a 1 moves
 * it to square 8; a 2 moves the front piece (the rear one would land on
 * its own), hitting square 11; a 3 and a 4 hit squares 10 and 11. */
Test(bot_rules, eval_danger_is_the_next_rolls_hits)
{
	kb_pos pos = test_pos(0x3, "11 10", "2 0", NULL, NULL);
	kb_seat_features f[KB_SEATS];

	kb_eval_features(&pos, kinds_hard, 0, f);
	cr_assert_eq(f[0].nhit, 2);
	cr_assert_float_eq(f[0].danger, 2.0 / 6, 1e-12);
	cr_assert_float_eq(f[0].dprog, (11 + 12) / 168.0, 1e-12, "(progress + 1) / (6 x 28) per hit");
	cr_assert_eq(f[0].hit[0], 11, "a 1 hits the piece at progress 10: bucket 11");
	cr_assert_eq(f[0].hit[1], 12);
	cr_assert_eq(f[1].nhit, 0, "A's rolls hit nothing of B");
	cr_assert_eq(f[1].danger, 0.0);
	cr_assert_eq(f[1].dprog, 0.0);

	kb_eval_features(&pos, kinds_easy, 0, f);
	cr_assert_eq(f[0].nhit, 3);
	cr_assert_float_eq(f[0].danger, 3.0 / 6, 1e-12);
	cr_assert_float_eq(f[0].dprog, (12 + 11 + 12) / 168.0, 1e-12);
	cr_assert_eq(f[0].hit[0], 12);
	cr_assert_eq(f[0].hit[1], 11);
	cr_assert_eq(f[0].hit[2], 12);

	/* seat A's next roll threatens too (as hard plays): its one piece at
	 * progress 3 (square 3) hits B's piece at progress 26 (square 7 + 26
	 * - 28 = 5) with a 2, nothing with another die (a 6 moves it to 9 or
	 * brings one out to square 0) */
	kb_pos a_hits = test_pos(0x3, "3", "26", NULL, NULL);
	kb_eval_features(&a_hits, kinds_hard, 0, f);
	cr_assert_eq(f[1].nhit, 1);
	cr_assert_float_eq(f[1].danger, 1.0 / 6, 1e-12);
	cr_assert_float_eq(f[1].dprog, 27 / 168.0, 1e-12);
	cr_assert_eq(f[1].hit[0], 27, "progress 26: bucket 27");
}

/* A die shows 1..6: B's piece 6 squares behind A's (progress 8, square
 * 15, against A's progress 21) is hit by hard's 6 (easy's 6 brings a
 * piece out instead); 7 behind (progress 7, square 14), by no die of
 * either. */
Test(bot_rules, eval_danger_only_from_the_six_faces)
{
	kb_pos six = test_pos(0x3, "21", "8", NULL, NULL), seven = test_pos(0x3, "21", "7", NULL, NULL);
	kb_seat_features f[KB_SEATS];

	kb_eval_features(&six, kinds_hard, 1, f);
	cr_assert_eq(f[0].nhit, 1);
	cr_assert_float_eq(f[0].danger, 1.0 / 6, 1e-12);
	for (int k = 0; k < 2; k++) {
		kb_eval_features(&seven, k ? kinds_easy : kinds_hard, 1, f);
		cr_assert_eq(f[0].nhit, 0, "kind %d: no die of 7", k);
		cr_assert_eq(f[0].danger, 0.0);
	}
}

/* B at progress 25 (square 4) against A at progress 7 and 6 (squares 7
 * and 6): a 2 takes it to progress 27, square 6, a hit; a 3 takes it into
 * its goal (progress 28, which would be square 7 on the ring): no hit.
 * With a 6 hard moves that piece into the goal, easy brings a piece out
 * onto B's start square 7: a hit. */
Test(bot_rules, eval_danger_stops_at_the_goal)
{
	kb_pos pos = test_pos(0x3, "7 6", "25", NULL, NULL);
	kb_seat_features f[KB_SEATS];

	kb_eval_features(&pos, kinds_hard, 1, f);
	cr_assert_eq(f[0].nhit, 1);
	cr_assert_eq(f[0].hit[0], kb_eval_bucket(6));
	cr_assert_float_eq(f[0].danger, 1.0 / 6, 1e-12);
	cr_assert_float_eq(f[0].dprog, 7 / 168.0, 1e-12);
	cr_assert_eq(f[0].tempo, 0);
	cr_assert_eq(f[1].tempo, 1, "B rolls next");
	kb_eval_features(&pos, kinds_easy, 1, f);
	cr_assert_eq(f[0].nhit, 2);
	cr_assert_eq(f[0].hit[0], kb_eval_bucket(6));
	cr_assert_eq(f[0].hit[1], kb_eval_bucket(7));
	for (int i = 0; i < KB_PIECES; i++)
		cr_assert_eq(f[1].bucket[i], i == 0 ? 26 : 0, "B's buckets: 26 and home");
}

/* A at progress 6 (square 6): B at progress 20 (square 27) is 7 behind
 * and reaches square 6 at progress 27, its last ring square: counted; C
 * at progress 8 (square 22) 12 behind: counted; D at progress 0 (square
 * 21) 13 behind: too far.  Then a piece right behind: 1. */
Test(bot_rules, eval_near_counts_reach_1_to_12)
{
	kb_pos pos = test_pos(0xf, "6", "20", "8", "0");
	kb_seat_features f[KB_SEATS];

	kb_eval_features(&pos, kinds_hard, 0, f);
	cr_assert_eq(f[0].nnear, 2);
	cr_assert_eq(f[0].near[0], 7 * KB_EVAL_ZONES + 1, "k 7, zone 6 / 4");
	cr_assert_eq(f[0].near[1], 12 * KB_EVAL_ZONES + 1, "k 12, zone 1");
	pos = test_pos(0x3, "10", "2", NULL, NULL);
	kb_eval_features(&pos, kinds_hard, 0, f);
	cr_assert_eq(f[0].nnear, 1);
	cr_assert_eq(f[0].near[0], 1 * KB_EVAL_ZONES + 2, "k 1, zone 10 / 4");
	cr_assert_eq(f[1].nnear, 0);
	/* the last zone: A at progress 24 (square 24), B at progress 14
	 * (square 21) 3 behind */
	pos = test_pos(0x3, "24", "14", NULL, NULL);
	kb_eval_features(&pos, kinds_hard, 0, f);
	cr_assert_eq(f[0].nnear, 1);
	cr_assert_eq(f[0].near[0], 3 * KB_EVAL_ZONES + 6, "k 3, zone 24 / 4");
}

/* A deterministic weight set with a different value in every cell. */
static void distinct_weights(kb_weights *w)
{
	float *v = (float *)w;
	uint32_t x = 12345;

	for (size_t i = 0; i < sizeof *w / sizeof(float); i++) {
		x = x * 1664525u + 1013904223u;
		v[i] = (float)(x >> 8) / (float)(1u << 24) - 0.5f;
	}
}

/* The score is the sum the header spells out, term by term. */
Test(bot_rules, eval_score_is_the_documented_sum)
{
	static kb_weights w;
	kb_seat_features f;
	const int t = 4;

	distinct_weights(&w);
	memset(&f, 0, sizeof f);
	f.bucket[0] = 5, f.bucket[1] = 3;
	f.danger = 0.5, f.dprog = 0.25, f.tempo = 1;
	f.nhit = 2, f.hit[0] = 4, f.hit[1] = 7;
	f.nnear = 2, f.near[0] = 1 * KB_EVAL_ZONES + 2, f.near[1] = 2 * KB_EVAL_ZONES + 6;
	double want = w.danger[t] * 0.5 + w.dprog[t] * 0.25 + w.tempo[t] +
		      w.piece[t][5] + w.piece[t][3] + 2.0 * w.piece[t][0] +
		      w.pair[t][5][3] + 2.0 * w.pair[t][5][0] + 2.0 * w.pair[t][3][0] + w.pair[t][0][0] +
		      (w.hit[t][4] + (double)w.hit[t][7]) / 6 + w.behind[t][1][2] + w.behind[t][2][6];
	cr_assert_float_eq(kb_eval_score(&w, t, &f), want, 1e-9);
	f.tempo = 0;
	cr_assert_float_eq(kb_eval_score(&w, t, &f), want - w.tempo[t], 1e-9);
	f.nhit = f.nnear = 0;
	f.danger = f.dprog = 0;
	cr_assert_float_eq(kb_eval_score(&w, 2, &f), w.piece[2][5] + w.piece[2][3] + 2.0 * w.piece[2][0] +
			   w.pair[2][5][3] + 2.0 * w.pair[2][5][0] + 2.0 * w.pair[2][3][0] + w.pair[2][0][0],
			   1e-9);
}

/* The estimate is the softmax of the scores: zero weights give every
 * present seat the same chance; a tempo weight of log 3 for the seat
 * rolling next triples its share; a won position is 1 or 0. */
Test(bot_rules, eval_is_the_softmax_of_the_scores)
{
	static kb_weights w;
	kb_pos two = test_pos(0x3, "10 3", "12", NULL, NULL);
	kb_pos four = test_pos(0xf, "10 3", "12", "4", "");

	memset(&w, 0, sizeof w);
	cr_assert_float_eq(kb_eval(&w, kinds_hard, &two, 0), 0.5, 1e-12);
	cr_assert_float_eq(kb_eval(&w, kinds_hard, &four, 0), 0.25, 1e-12);
	w.tempo[0] = (float)log(3.0); /* the bot, one opponent */
	cr_assert_float_eq(kb_eval(&w, kinds_hard, &two, 0), 0.75, 1e-6);
	cr_assert_float_eq(kb_eval(&w, kinds_hard, &two, 1), 0.5, 1e-12, "B's tempo weight is 0");
	cr_assert_float_eq(kb_eval(&w, kinds_hard, &four, 0), 0.25, 1e-12, "type 6 for three opponents");
	w.tempo[2 + 3 * 2] = (float)log(2.0); /* hard, three opponents */
	cr_assert_float_eq(kb_eval(&w, kinds_hard, &four, 1), 0.2, 1e-6, "1 / (1 + 2 + 1 + 1)");
	cr_assert_float_eq(kb_eval(&w, kinds_easy, &four, 1), 0.25, 1e-6, "easy seats: type 7");
	kb_pos won = test_pos(0x3, "31 30 29 28", "12", NULL, NULL);
	kb_pos lost = test_pos(0x3, "12", "31 30 29 28", NULL, NULL);
	cr_assert_eq(kb_eval(&kb_weights_default, kinds_hard, &won, 1), 1.0);
	cr_assert_eq(kb_eval(&kb_weights_default, kinds_hard, &lost, 0), 0.0);
}

/* Greedy: the move whose position scores best (a capture, whatever its
 * index), the lowest index among equals, the only move at once. */
Test(bot_rules, eval_greedy_takes_the_best_then_the_lowest)
{
	static kb_weights w;

	memset(&w, 0, sizeof w);
	for (int t = 0; t < KB_EVAL_TYPES; t++)
		for (int b = 0; b < KB_EVAL_BUCKETS; b++)
			w.piece[t][b] = 0.125f * (float)b;
	/* a 2: piece 1 from 3 to 5 (square 5) captures B's piece at 26 */
	kb_pos cap = test_pos(0x3, "12 3", "26", NULL, NULL);
	cr_assert_eq(kb_legal(&cap, 0, 2), 0x3u);
	cr_assert_eq(kb_eval_greedy(&w, kinds_hard, &cap, 2, 0x3), 1);
	/* no capture either way: the same score, the lowest index */
	kb_pos even = test_pos(0x3, "12 3", "20", NULL, NULL);
	cr_assert_eq(kb_eval_greedy(&w, kinds_hard, &even, 2, 0x3), 0);
	cr_assert_eq(kb_eval_greedy(&w, kinds_hard, &cap, 2, 0x2), 1, "the only legal move");
	cr_assert_eq(kb_eval_greedy(&w, kinds_hard, &cap, 2, 0x1), 0, "the only legal move");
}

/* Greedy scores each move with the seat that rolls next on turn: after
 * A's 2 that is B, not C.  Only B and C score (a point for a piece on
 * B's progress 26 or C's 24) and the seat on turn a tempo point; A
 * scores 0 either way.  B on turn: hitting B leaves B 1, C 1 (P(A) =
 * 1 / (1 + 2e)), hitting C leaves B 2, C 0 (1 / (2 + e^2)): hit B.
 * Were C on turn, hitting C would be the better by the same sums. */
Test(bot_rules, eval_greedy_scores_with_the_next_seat_on_turn)
{
	static kb_weights w;
	/* piece 0 from 8 to 10 hits C's piece (progress 24, square 10);
	 * piece 1 from 3 to 5 hits B's (progress 26, square 5) */
	kb_pos pos = test_pos(0x7, "3 8", "26", "24", NULL);

	memset(&w, 0, sizeof w);
	for (int t = 0; t < KB_EVAL_TYPES; t++) {
		w.piece[t][kb_eval_bucket(26)] = 1;
		w.piece[t][kb_eval_bucket(24)] = 1;
		w.tempo[t] = 1;
	}
	cr_assert_eq(kb_legal(&pos, 0, 2), 0x3u);
	cr_assert_eq(kb_eval_greedy(&w, kinds_hard, &pos, 2, 0x3), 1, "B rolls next: hit B");
}

/* ---- the search on constructed positions -------------------------------------- */

/* The calibration: leaves 2 x 12R after level 1, then x R and x 12 in
 * turn (R = 15, 71, 113 for 1, 2, 3 opponents), affordable 5000 x budget;
 * at least level 1 for a budget of 1 ms, at most level 6. */
Test(bot_rules, search_level_for_budget_table)
{
	static const int cases[][3] = {
		/* budget, opponents, level */
		{0, 1, 0}, {0, 3, 0}, {1, 1, 1}, {1, 3, 1}, {2, 1, 2}, {12, 1, 2}, {13, 1, 3},
		{194, 1, 3}, {195, 1, 4}, {2332, 1, 4}, {2333, 1, 5}, {34991, 1, 5},
		{34992, 1, 6}, /* 174,960,000 leaves: exactly affordable */
		{100000, 1, 6}, {1000000, 1, 6}, {24, 2, 1}, {25, 2, 2}, {290, 2, 2}, {291, 2, 3},
		{20615, 2, 3}, {20616, 2, 4}, {100000, 2, 4}, {61, 3, 1}, {62, 3, 2}, {735, 3, 2},
		{736, 3, 3}, {83110, 3, 3}, {83111, 3, 4}, {2, 0, 2}, {13, 0, 3}, {62, 5, 2}, {61, 5, 1},
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		cr_assert_eq(kb_search_level_for_budget(cases[i][0], cases[i][1]), cases[i][2],
			     "budget %d ms, %d opponents", cases[i][0], cases[i][1]);
}

/* A lone move is played without a search (search.h): no position is
 * scored and its value stays -1; two moves are searched.  A on 31, 30,
 * 27 and 25 with a 1 may move pieces 2 and 3 (0xc); a mask of piece 2
 * alone is what the client passes after the server refused piece 3. */
Test(bot_rules, search_plays_a_lone_legal_move_unsearched)
{
	const kb_opponent *opp[KB_SEATS] = {NULL, &kb_opponent_hard, NULL, NULL};
	kb_pos pos = test_pos(0x3, "31 30 27 25", "25", NULL, NULL);
	double v[KB_PIECES];
	kb_search bot;

	kb_search_init(&bot, 0x3, opp, 1, 2);
	cr_assert_eq(kb_search_decide(&bot, &pos, 1, 0x4, v), 2);
	cr_assert_eq(v[2], -1.0, "the lone move's value: %f", v[2]);
	cr_assert_eq(bot.nodes, 0u, "%llu positions scored", (unsigned long long)bot.nodes);
	cr_assert_eq(kb_search_decide(&bot, &pos, 1, 0xc, v), 2);
	cr_assert_gt(bot.nodes, 0u, "two moves are searched");
}

/* With zero weights every leaf is worth 1/2 and a won game 1, so the
 * values are what the dice give.  A (goal 31, 30; pieces at 27 and 25)
 * rolls a 1: piece 2 into goal square 28 leaves 25 needing a 4; piece 3
 * to 26 leaves two pieces out, no win in one roll.  B (progress 25,
 * square 4) cannot reach A.  Level 1 and 2: B's round (three sixes end
 * it at a leaf: 1/216), then A's roll wins with a 4. */
Test(bot_rules, search_values_by_hand, .timeout = 30)
{
	static kb_weights zero;
	const kb_opponent *opp[KB_SEATS] = {NULL, &kb_opponent_hard, NULL, NULL};
	kb_pos pos = test_pos(0x3, "31 30 27 25", "25", NULL, NULL);
	const double win_next = 0.5 + (215.0 / 216) * (1.0 / 6) * 0.5;
	double v[KB_PIECES];
	kb_search bot;

	cr_assert_eq(kb_legal(&pos, 0, 1), 0xcu);
	for (int level = 1; level <= 2; level++) {
		kb_search_init(&bot, 0x3, opp, 1, 0);
		bot.w = &zero;
		kb_search_set_level(&bot, level);
		cr_assert_eq(kb_search_decide(&bot, &pos, 1, 0xc, v), 2, "level %d", level);
		cr_assert_eq(v[0], -1.0);
		cr_assert_eq(v[1], -1.0);
		cr_assert_float_eq(v[2], win_next, 1e-12, "level %d: %.6f", level, v[2]);
		cr_assert_float_eq(v[3], 0.5, 1e-12, "level %d: %.6f", level, v[3]);
	}
	char *out = NULL;
	size_t len = 0;
	kb_search_init(&bot, 0x3, opp, 1, 0);
	bot.w = &zero;
	kb_search_set_level(&bot, 1);
	bot.explain = open_memstream(&out, &len);
	kb_search_decide(&bot, &pos, 1, 0xc, NULL);
	fclose(bot.explain);
	cr_assert_str_eq(out, "kimble-bot: die 1, piece 2 (progress 27): win 0.5829\n"
			      "kimble-bot: die 1, piece 3 (progress 25): win 0.5000\n");
	free(out);
	bot.explain = open_memstream(&out, &len);
	cr_assert_eq(kb_search_decide(&bot, &pos, 1, 0x8, NULL), 3);
	fclose(bot.explain);
	cr_assert_str_eq(out, "", "a single legal move is not explained");
	free(out);
}

/* Level 0 scores the two positions after the move: two leaves, equal
 * (zero weights), so the tie-break stream chooses, the same for a seed. */
Test(bot_rules, search_ties_go_to_the_seeded_stream)
{
	static kb_weights zero;
	const kb_opponent *opp[KB_SEATS] = {NULL, &kb_opponent_hard, NULL, NULL};
	kb_pos pos = test_pos(0x3, "31 30 27 25", "25", NULL, NULL);
	int seen[KB_PIECES] = {0};

	for (uint64_t seed = 0; seed < 24; seed++) {
		kb_search bot, again;
		kb_search_init(&bot, 0x3, opp, seed, 0);
		kb_search_init(&again, 0x3, opp, seed, 0);
		bot.w = again.w = &zero;
		int pick = kb_search_decide(&bot, &pos, 1, 0xc, NULL);
		cr_assert_eq(bot.nodes, 2, "one leaf per move");
		cr_assert_eq(kb_search_decide(&again, &pos, 1, 0xc, NULL), pick);
		seen[pick]++;
	}
	cr_assert(seen[2] > 0 && seen[3] > 0 && seen[2] + seen[3] == 24, "%d %d", seen[2], seen[3]);
	/* a decision without a tie draws nothing from the stream: a bot that
	 * first made one (level 1: piece 2 is best) breaks the tie as a fresh
	 * bot of its seed does */
	for (uint64_t seed = 0; seed < 24; seed++) {
		kb_search used, fresh;
		kb_search_init(&used, 0x3, opp, seed, 0);
		kb_search_init(&fresh, 0x3, opp, seed, 0);
		used.w = fresh.w = &zero;
		kb_search_set_level(&used, 1);
		cr_assert_eq(kb_search_decide(&used, &pos, 1, 0xc, NULL), 2);
		cr_assert_eq(kb_search_decide(&used, &pos, 1, 0x8, NULL), 3, "one legal move");
		kb_search_set_level(&used, 0);
		cr_assert_eq(kb_search_decide(&used, &pos, 1, 0xc, NULL), kb_search_decide(&fresh, &pos, 1, 0xc, NULL),
			     "seed %d", (int)seed);
	}
}

/* The leaves a level-1 search evaluates, counted by the rule search.c
 * states, written out here: after A's move, each opponent roll is
 * expanded (KB_SEARCH_OPP_ROLLS of them at most, then a leaf) and each A
 * roll after the round is one leaf per legal move; the dice 1..5 that
 * move nothing lead to one position, searched once per chance node
 * (shared_idle), a six again.  A won game is no leaf.  Level 1 never cuts
 * (every cut is -1 or its moves end at a leaf), so the count is exact. */
static uint64_t leaves_chance(const kb_pos *pos, int turn, int k, int opp_rolls, int shared_idle);

static uint64_t leaves_after(const kb_pos *pos, int mover, int turn, int k, int opp_rolls,
			  int shared_idle)
{
	if (kb_has_won(pos, mover))
		return 0;
	if (k == 0 && (turn == 0 || mover == 0))
		return 1;
	return leaves_chance(pos, turn, k, opp_rolls, shared_idle);
}

static uint64_t leaves_chance(const kb_pos *pos, int turn, int k, int opp_rolls, int shared_idle)
{
	uint64_t leaves = 0;
	int idle_searched = 0;

	if ((turn == 0 && k == 0) || (turn != 0 && opp_rolls >= KB_SEARCH_OPP_ROLLS))
		return 1;
	for (int d = 1; d <= 6; d++) {
		unsigned mask = kb_legal(pos, turn, d);
		int k_next = turn == 0 ? k - 1 : k, rolls_next = turn == 0 ? 0 : opp_rolls + 1;
		for (int i = 0; i < KB_PIECES; i++) {
			if (!((mask >> i) & 1) || (turn != 0 && i != kb_pick_hard(mask)))
				continue;
			kb_pos p = *pos;
			kb_apply(&p, turn, i, d);
			leaves += leaves_after(&p, turn, kb_next_seat(&p, turn, d), k_next, rolls_next,
					    shared_idle);
		}
		if (mask || (d < 6 && idle_searched && shared_idle))
			continue;
		leaves += leaves_after(pos, turn, kb_next_seat(pos, turn, d), k_next, rolls_next, shared_idle);
		idle_searched = d < 6;
	}
	return leaves;
}

/* No die of 1..5 moves B's pieces out of home, and none of 3..5 moves A's
 * (goal 31, 30 or 29; 27; one home): each chance node searches that
 * roll's position once, not once per die (the level-1 count of leaves
 * against the count written out above; a search of each die alone would
 * evaluate more). */
Test(bot_rules, search_searches_a_roll_that_moves_nothing_once)
{
	const kb_opponent *opp[KB_SEATS] = {NULL, &kb_opponent_hard, NULL, NULL};
	const struct {
		const char *a;
		int die;
		unsigned mask;
	} cases[] = {
		{"31 30 10 2", 1, 0xc},
		{"31 29 27", 1, 0x6},
	};

	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		kb_pos pos = test_pos(0x3, cases[c].a, NULL, NULL, NULL);
		uint64_t want = 0, each_die = 0;
		kb_search bot;

		cr_assert_eq(kb_legal(&pos, 0, cases[c].die), cases[c].mask, "case %zu", c);
		for (int i = 0; i < KB_PIECES; i++) {
			if (!((cases[c].mask >> i) & 1))
				continue;
			kb_pos p = pos;
			kb_apply(&p, 0, i, cases[c].die);
			int next = kb_next_seat(&p, 0, cases[c].die);
			want += leaves_after(&p, 0, next, 1, 0, 1);
			each_die += leaves_after(&p, 0, next, 1, 0, 0);
		}
		cr_assert_gt(each_die, want, "case %zu: a roll that moves nothing is in the search", c);
		kb_search_init(&bot, 0x3, opp, 1, 0);
		kb_search_set_level(&bot, 1);
		kb_search_decide(&bot, &pos, cases[c].die, cases[c].mask, NULL);
		cr_assert_eq(bot.nodes, want, "case %zu: %llu leaves, want %llu (%llu searching each die)",
			     c, (unsigned long long)bot.nodes, (unsigned long long)want,
			     (unsigned long long)each_die);
	}
}

/* ---- the protocol client in-process ---------------------------------------------- */

/* The state line of pos with seat to roll die, with its '\n'. */
static const char *state_of(char out[KB_ROLL_LINE_LEN + 2], const kb_pos *pos, int seat, int die)
{
	char board[KB_BOARD_LEN];

	kb_board_format(pos, board);
	kb_fmt_roll_line(out, board, seat, die);
	out[KB_ROLL_LINE_LEN + 1] = 0;
	return out;
}

typedef struct client_run {
	int rc;
	kb_client c;
	kb_err err;
	char out[512], diag[512];
} client_run;

/* Run the client (bot with hard x1 model, learning off) on input, its
 * output to o (NULL: a memory stream, kept in r->out). */
static void run_client_to(client_run *r, const char *input, unsigned present, FILE *o)
{
	const kb_opponent *opp[KB_SEATS] = {NULL, &kb_opponent_hard, &kb_opponent_hard, &kb_opponent_hard};
	static kb_search bot;
	char *out = NULL, *diag = NULL;
	size_t outlen = 0, diaglen = 0;

	kb_search_init(&bot, present, opp, 1, 0);
	memset(r, 0, sizeof *r);
	r->c.decisions = 99, r->c.lines = 77, r->c.winner = 5; /* results start afresh */
	r->c.bot = &bot;
	for (int s = 1; s < KB_SEATS; s++)
		r->c.lineup[s - 1] = present >> s & 1 ? 2 : 0;
	r->c.present = present;
	FILE *in = fmemopen((void *)input, strlen(input), "r");
	if (!o)
		o = open_memstream(&out, &outlen);
	r->c.diag = open_memstream(&diag, &diaglen);
	r->rc = kb_client_run(&r->c, in, o, &r->err);
	fclose(in);
	fclose(o);
	fclose(r->c.diag);
	snprintf(r->out, sizeof r->out, "%s", out ? out : "");
	snprintf(r->diag, sizeof r->diag, "%s", diag);
	free(out);
	free(diag);
}

static void run_client(client_run *r, const char *input, unsigned present)
{
	run_client_to(r, input, present, NULL);
}

/* An output stream that takes `room` bytes, then fails every write. */
static ssize_t write_until_full(void *cookie, const char *buf, size_t n)
{
	size_t *room = cookie;

	(void)buf;
	if (n > *room) {
		errno = ENOSPC;
		return -1;
	}
	*room -= n;
	return (ssize_t)n;
}

static FILE *full_after(size_t *room)
{
	cookie_io_functions_t io = {NULL, write_until_full, NULL, NULL};
	FILE *f = fopencookie(room, "w", io);

	cr_assert_not_null(f);
	return f;
}

/* A failed write of the start message or of a move is an I/O error with
 * its own message, not a game played on. */
Test(bot_rules, client_write_errors_named)
{
	kb_pos pos = test_pos(0x3, "12 3", "20", NULL, NULL);
	char st[KB_ROLL_LINE_LEN + 2], input[512];
	size_t room = 0;
	client_run r;

	state_of(st, &pos, 0, 2);
	snprintf(input, sizeof input, TOKEN_LINE "\n%sEND\n", st);
	run_client_to(&r, input, 0x3, full_after(&room));
	cr_assert_eq(r.rc, KB_CLIENT_IO, "%d %s", r.rc, r.err.msg);
	cr_assert_str_eq(r.err.msg, "cannot write the start message to standard output");
	cr_assert_eq(r.c.decisions, 0);
	room = 8; /* "v001200\n" goes out, the move does not */
	run_client_to(&r, input, 0x3, full_after(&room));
	cr_assert_eq(r.rc, KB_CLIENT_IO, "%d %s", r.rc, r.err.msg);
	cr_assert_str_eq(r.err.msg, "cannot write the move to standard output");
	cr_assert_eq(room, 0u);
}

/* An empty line is a line (refused as no line of the protocol), not the
 * end of the input. */
Test(bot_rules, client_empty_line_is_not_the_end)
{
	client_run r;

	run_client(&r, TOKEN_LINE "\n\nEND\n", 0x3);
	cr_assert_eq(r.rc, KB_CLIENT_PROTOCOL, "%d %s", r.rc, r.err.msg);
	cr_assert(strstr(r.err.msg, "expected a 46-character state line") != NULL, "%s", r.err.msg);
	run_client(&r, TOKEN_LINE "\n\r\nEND\n", 0x3);
	cr_assert_eq(r.rc, KB_CLIENT_PROTOCOL, "%d %s", r.rc, r.err.msg);
}

/* A refused move (the same decision line again) gets the other legal
 * index; refusing that too leaves nothing to send. */
Test(bot_rules, client_refused_move_gets_the_other_index)
{
	kb_pos pos = test_pos(0x3, "12 3", "20", NULL, NULL);
	char st[KB_ROLL_LINE_LEN + 2], input[1024], want[256];
	client_run r;

	state_of(st, &pos, 0, 2);
	snprintf(input, sizeof input, TOKEN_LINE "\n%sEND\n%sEND\n", st, st);
	run_client(&r, input, 0x3);
	cr_assert_eq(r.rc, KB_CLIENT_IO, "%s", r.err.msg);
	cr_assert_eq(r.c.decisions, 2);
	cr_assert_eq(r.c.lines, 1, "the repeated line is not a new one");
	int first = r.out[8 + KB_TOKEN_LEN] - '0';
	cr_assert(first == 0 || first == 1, "%s", r.out);
	snprintf(want, sizeof want, "v001200\n" TOKEN_LINE "%d\n" TOKEN_LINE "%d\n", first, 1 - first);
	cr_assert_str_eq(r.out, want);
	snprintf(want, sizeof want, "kimble-bot: the server refused piece %d; choosing again\n", first);
	cr_assert_str_eq(r.diag, want);

	snprintf(input, sizeof input, TOKEN_LINE "\n%sEND\n%sEND\n%sEND\n", st, st, st);
	run_client(&r, input, 0x3);
	cr_assert_eq(r.rc, KB_CLIENT_PROTOCOL);
	cr_assert(strstr(r.err.msg, "the server refused every legal move of state line") != NULL, "%s",
		  r.err.msg);
	cr_assert_eq(r.c.decisions, 2);
}

/* A state line that repeats the previous one is a refusal only after a
 * move was sent: B rolling a 6 with no move rolls again, and a second 6
 * gives the same line, a new one. */
Test(bot_rules, client_repeated_line_without_a_move_is_new)
{
	kb_pos pos = test_pos(0x3, "10", "30 29 28 27", NULL, NULL);
	char st[KB_ROLL_LINE_LEN + 2], input[512];
	client_run r;

	cr_assert_eq(kb_legal(&pos, 1, 6), 0u);
	state_of(st, &pos, 1, 6);
	snprintf(input, sizeof input, TOKEN_LINE "\n%s%sEND\n", st, st);
	run_client(&r, input, 0x3);
	cr_assert_eq(r.rc, KB_CLIENT_PROTOCOL);
	cr_assert(strstr(r.err.msg, "offers A no choice") != NULL, "%s", r.err.msg);
	cr_assert_eq(r.c.lines, 2, "both lines followed");
	cr_assert_str_eq(r.diag, "");
}

/* After A's move was taken, a state line that repeats the line before it
 * is a new roll too: B rolls 6 with no move twice (the same line), then 5
 * (no move), then A chooses again.  Only the line A decided on, seen again
 * before any other, is a refusal. */
Test(bot_rules, client_repeated_line_after_a_taken_move_is_new)
{
	kb_pos pos = test_pos(0x3, "12 3", "30 29 28 27", NULL, NULL);
	char a1[KB_ROLL_LINE_LEN + 2], b6[KB_ROLL_LINE_LEN + 2], b5[KB_ROLL_LINE_LEN + 2],
		a2[KB_ROLL_LINE_LEN + 2], input[1024];
	client_run r;

	state_of(a1, &pos, 0, 2);
	snprintf(input, sizeof input, TOKEN_LINE "\n%sEND\n", a1);
	run_client(&r, input, 0x3); /* which index A takes (deterministic) */
	int first = r.out[8 + KB_TOKEN_LEN] - '0';
	cr_assert(first == 0 || first == 1, "%s", r.out);
	cr_assert_eq(kb_apply(&pos, 0, first, 2), -1, "no capture");
	cr_assert_eq(kb_legal(&pos, 1, 6), 0u);
	cr_assert_eq(kb_legal(&pos, 1, 5), 0u);
	cr_assert_geq(kb_count(kb_legal(&pos, 0, 1)), 2);
	state_of(b6, &pos, 1, 6), state_of(b5, &pos, 1, 5), state_of(a2, &pos, 0, 1);
	snprintf(input, sizeof input, TOKEN_LINE "\n%sEND\n%s%s%s%sEND\n", a1, b6, b6, b5, a2);
	run_client(&r, input, 0x3);
	cr_assert_eq(r.rc, KB_CLIENT_IO, "the input ends: %d %s", r.rc, r.err.msg);
	cr_assert_str_eq(r.diag, "", "no refusal");
	cr_assert_eq(r.c.lines, 5, "every line followed");
	cr_assert_eq(r.c.decisions, 2);
}

/* A's single legal move wins: the winner line ends the game (END may be
 * missing), no move is sent. */
Test(bot_rules, client_game_ends_at_the_winner_line)
{
	kb_pos pos = test_pos(0x3, "31 30 29 27", "10", NULL, NULL);
	char st[KB_ROLL_LINE_LEN + 2], input[512];
	client_run r;

	state_of(st, &pos, 0, 1);
	snprintf(input, sizeof input, TOKEN_LINE "\n%sVoittaja: A\nEND\n", st);
	run_client(&r, input, 0x3);
	cr_assert_eq(r.rc, KB_CLIENT_OK, "%s", r.err.msg);
	cr_assert_eq(r.c.winner, 0);
	cr_assert_eq(r.c.lines, 1);
	cr_assert_eq(r.c.decisions, 0);
	cr_assert_str_eq(r.out, "v001200\n");
	snprintf(input, sizeof input, TOKEN_LINE "\n%sVoittaja: A\n", st);
	run_client(&r, input, 0x3);
	cr_assert_eq(r.rc, KB_CLIENT_OK, "no END after the winner: %s", r.err.msg);
	snprintf(input, sizeof input, TOKEN_LINE "\n%sVoittaja: A\n%sEND\n", st, st);
	run_client(&r, input, 0x3);
	cr_assert_eq(r.rc, KB_CLIENT_PROTOCOL);
	cr_assert(strstr(r.err.msg, "after the winner line, expected END") != NULL, "%s", r.err.msg);
	/* a line after the winner line is quoted up to 60 characters */
	snprintf(input, sizeof input, TOKEN_LINE "\n%sVoittaja: A\n" TOKEN_LINE "\nEND\n", st);
	run_client(&r, input, 0x3);
	cr_assert_eq(r.rc, KB_CLIENT_PROTOCOL);
	cr_assert_str_eq(r.err.msg, "line \"" TOKEN_LINE_60 "\" after the winner line, expected END");
	/* a shorter one whole, without the CR that ended it */
	snprintf(input, sizeof input, TOKEN_LINE "\n%sVoittaja: A\nVirhe: %.52s\r\nEND\n", st,
		 TOKEN_LINE);
	run_client(&r, input, 0x3);
	cr_assert_str_eq(r.err.msg, "line \"Virhe: " "t0123456789abcdef0123456789abcdef0123456789abcdef012"
		 "\" after the winner line, expected END", "%s", r.err.msg);
	/* the server's Virhe line up to 100 characters */
	char virhe[160];
	memset(virhe, 'v', sizeof virhe);
	memcpy(virhe, "Virhe: ", 7);
	snprintf(input, sizeof input, TOKEN_LINE "\n%.120s\n", virhe);
	run_client(&r, input, 0x3);
	cr_assert_eq(r.rc, KB_CLIENT_SERVER);
	snprintf(input, sizeof input, "the server answered \"%.100s\"", virhe);
	cr_assert_str_eq(r.err.msg, input);
	/* one of 99 characters whole, without the CR that ended it */
	snprintf(input, sizeof input, TOKEN_LINE "\n%.99s\r\n", virhe);
	run_client(&r, input, 0x3);
	cr_assert_eq(r.rc, KB_CLIENT_SERVER);
	snprintf(input, sizeof input, "the server answered \"%.99s\"", virhe);
	cr_assert_str_eq(r.err.msg, input);
	snprintf(input, sizeof input, TOKEN_LINE "\n%sVoittaja: B\nEND\n", st);
	run_client(&r, input, 0x3);
	cr_assert_eq(r.rc, KB_CLIENT_PROTOCOL);
	cr_assert_str_eq(r.err.msg, "\"Voittaja: B\" but the last roll was A's");
	cr_assert_eq(r.c.winner, -1);
}

/* Responses out of order, each with its message. */
Test(bot_rules, client_protocol_errors_named)
{
	kb_pos dec = test_pos(0x3, "12 3", "20", NULL, NULL), single = test_pos(0x3, "12", "20", NULL, NULL);
	char st[KB_ROLL_LINE_LEN + 2], one[KB_ROLL_LINE_LEN + 2], c_rolls[KB_ROLL_LINE_LEN + 2];
	char input[1024], longline[200];
	client_run r;
	static const struct {
		const char *fmt; /* %1$s the decision line, %2$s a line without choice,
				  * %3$s seat C (absent) rolling */
		int rc;
		const char *msg;
	} cases[] = {
		{"%1$s", KB_CLIENT_PROTOCOL, "state line before the token line"},
		{"END\n", KB_CLIENT_PROTOCOL, "response ended (END) before a token line"},
		{TOKEN_LINE "\nEND\n", KB_CLIENT_PROTOCOL, "response had no state line and no winner"},
		{TOKEN_LINE "\n%2$sEND\n", KB_CLIENT_PROTOCOL, "offers A no choice"},
		{TOKEN_LINE "\n" TOKEN_LINE "\n", KB_CLIENT_PROTOCOL, "a second token line"},
		{TOKEN_LINE "\n%1$s%1$s", KB_CLIENT_PROTOCOL, "follows an A decision line in the same response"},
		{TOKEN_LINE "\nVirhe: tuntematon viesti\n", KB_CLIENT_SERVER, "the server answered \"Virhe: tuntematon viesti\""},
		{TOKEN_LINE "\n%1$sEND\n", KB_CLIENT_IO, "standard input ended before the game was over"},
		{TOKEN_LINE, KB_CLIENT_IO, "standard input ended before the game was over"},
		{"", KB_CLIENT_IO, "standard input ended before the game was over"},
		{TOKEN_LINE "\n%1$.0s%2$.0s%3$sEND\n", KB_CLIENT_PROTOCOL, "the rolling seat does not play in this game"},
	};

	state_of(st, &dec, 0, 2);
	state_of(one, &single, 0, 1);
	cr_assert_eq(kb_count(kb_legal(&single, 0, 1)), 1);
	state_of(c_rolls, &dec, 2, 3);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		snprintf(input, sizeof input, cases[i].fmt, st, one, c_rolls);
		run_client(&r, input, 0x3);
		cr_assert_eq(r.rc, cases[i].rc, "case %zu: %d %s", i, r.rc, r.err.msg);
		cr_assert(strstr(r.err.msg, cases[i].msg) != NULL, "case %zu: %s", i, r.err.msg);
	}
	/* lines of 128 characters are read (and parsed), longer ones refused */
	memset(longline, 'x', sizeof longline);
	snprintf(input, sizeof input, "%.128s\n", longline);
	run_client(&r, input, 0x3);
	cr_assert_eq(r.rc, KB_CLIENT_PROTOCOL);
	cr_assert_null(strstr(r.err.msg, "longer than"), "%s", r.err.msg);
	snprintf(input, sizeof input, "%.129s\n", longline);
	run_client(&r, input, 0x3);
	cr_assert_eq(r.rc, KB_CLIENT_PROTOCOL);
	cr_assert_str_eq(r.err.msg, "a line longer than 128 characters");
	/* too long is too long also when the input ends inside the line */
	snprintf(input, sizeof input, "%.129s", longline);
	run_client(&r, input, 0x3);
	cr_assert_eq(r.rc, KB_CLIENT_PROTOCOL);
	cr_assert_str_eq(r.err.msg, "a line longer than 128 characters");
}

Test(bot_rules, lineup_names_up_to_64_characters)
{
	char name[80];
	uint8_t l[3];
	unsigned present;
	const kb_opponent *opp[KB_SEATS];
	kb_err err;

	memset(name, 'n', sizeof name);
	snprintf(name + 64, sizeof name - 64, ",easy");
	cr_assert_eq(kb_lineup_parse(name, l, &present, opp, &err), 0, "%s", err.msg);
	cr_assert_eq(present, 0x7u);
	cr_assert(l[0] == 2 && l[1] == 1 && l[2] == 0);
	cr_assert(opp[0] == NULL && opp[1] == &kb_opponent_hard && opp[2] == &kb_opponent_easy && opp[3] == NULL);
	memset(name, 'n', sizeof name);
	name[65] = 0;
	cr_assert_eq(kb_lineup_parse(name, l, &present, opp, &err), -1);
	cr_assert(strstr(err.msg, "seat B: expected a name") != NULL, "%s", err.msg);
	cr_assert_eq(kb_lineup_parse("random", l, &present, opp, &err), 0);
	cr_assert_eq(opp[1], &kb_opponent_random);
	cr_assert_eq(l[0], 2);
}

/* A word is w[0..n): what follows it in the OPPONENTS string (a comma,
 * the next name) is not part of it. */
Test(bot_rules, opponent_kind_reads_n_characters)
{
	cr_assert_eq(kb_opponent_kind_of("none,hard", 4), KB_ABSENT);
	cr_assert_eq(kb_opponent_kind_of("-,hard", 1), KB_ABSENT);
	cr_assert_eq(kb_opponent_kind_of(",hard", 0), KB_ABSENT);
	cr_assert_eq(kb_opponent_kind_of("easy,none", 4), KB_EASY);
	cr_assert_eq(kb_opponent_kind_of("hard,none", 4), KB_HARD);
	cr_assert_eq(kb_opponent_kind_of("nonesuch", 4), KB_ABSENT, "the first four letters only");
	cr_assert_eq(kb_opponent_kind_of("nonesuch", 8), KB_EXTERNAL);
}

/* ---- the tracker: following a game line by line ------------------------------ */

typedef struct seen_obs {
	int n;
	kb_observation last;
} seen_obs;

static void count_obs(void *ctx, const kb_observation *ob)
{
	seen_obs *s = ctx;

	s->n++;
	s->last = *ob;
}

static int track(kb_tracker *t, const kb_pos *pos, int seat, int die, kb_err *err)
{
	char st[KB_ROLL_LINE_LEN + 2];
	kb_line ln;

	state_of(st, pos, seat, die);
	cr_assert_eq(kb_line_parse(st, KB_ROLL_LINE_LEN, &ln, NULL), 0);
	return kb_tracker_line(t, &ln, err);
}

/* An opponent's roll with a choice is reported with the index it played;
 * a roll without one is not. */
Test(bot_rules, tracker_reports_opponents_choices)
{
	kb_tracker t;
	seen_obs seen = {0};
	kb_err err;
	kb_pos b = test_pos(0x3, "10", "5 0", NULL, NULL);

	kb_tracker_init(&t, 0x3, count_obs, &seen);
	cr_assert_eq(track(&t, &b, 1, 1, &err), 0, "%s", err.msg);
	cr_assert_eq(t.mask, 0x3u);
	kb_pos after = test_pos(0x3, "10", "5 1", NULL, NULL);
	cr_assert_eq(track(&t, &after, 0, 3, &err), 0, "%s", err.msg);
	cr_assert_eq(seen.n, 1);
	cr_assert_eq(seen.last.seat, 1);
	cr_assert_eq(seen.last.die, 1);
	cr_assert_eq(seen.last.mask, 0x3u);
	cr_assert_eq(seen.last.index, 1, "the rear piece moved");
	cr_assert(memcmp(&seen.last.pos, &b, sizeof b) == 0);
	cr_assert_eq(t.lines, 2);
	/* A's roll of 3 (one piece: no choice), then B rolls */
	kb_pos a3 = test_pos(0x3, "13", "5 1", NULL, NULL);
	cr_assert_eq(track(&t, &a3, 1, 2, &err), 0, "%s", err.msg);
	cr_assert_eq(seen.n, 1, "A's moves are not observations");
	/* B's 2 with pieces at 5 and 1: both may move; B to roll a 6 next
	 * is not B's turn again after a 2 */
	kb_pos b2 = test_pos(0x3, "13", "7 1", NULL, NULL);
	cr_assert_eq(track(&t, &b2, 1, 4, &err), -1);
	cr_assert(strstr(err.msg, "B4: this seat is not the next to roll") != NULL, "%s", err.msg);
	cr_assert_eq(seen.n, 1, "nothing reported for a refused line");
	/* B with one legal move (a 4: 1 -> 5 is its own square): no choice,
	 * nothing reported */
	kb_tracker_init(&t, 0x3, count_obs, &seen);
	cr_assert_eq(track(&t, &a3, 1, 4, &err), 0, "%s", err.msg);
	cr_assert_eq(kb_count(t.mask), 1);
	kb_pos b4 = test_pos(0x3, "13", "9 1", NULL, NULL);
	cr_assert_eq(track(&t, &b4, 0, 1, &err), 0, "%s", err.msg);
	cr_assert_eq(seen.n, 1, "a forced move is not a choice");
}

Test(bot_rules, tracker_refuses_what_no_game_shows)
{
	kb_tracker t;
	kb_err err;
	kb_pos a = test_pos(0x3, "12 3", "20", NULL, NULL);
	kb_line ln;

	kb_tracker_init(&t, 0x3, NULL, NULL);
	cr_assert_eq(kb_line_parse("Voittaja: A", 11, &ln, NULL), 0);
	cr_assert_eq(kb_tracker_line(&t, &ln, &err), -1);
	cr_assert(strstr(err.msg, "expected a state line") != NULL, "%s", err.msg);
	cr_assert_eq(kb_tracker_winner(&t, 0, &err), -1);
	cr_assert_str_eq(err.msg, "\"Voittaja: A\" before any state line");
	cr_assert_eq(track(&t, &a, 2, 3, &err), -1, "C does not play");
	cr_assert(strstr(err.msg, "the rolling seat does not play in this game") != NULL, "%s", err.msg);
	kb_pos won = test_pos(0x3, "12", "31 30 29 28", NULL, NULL);
	cr_assert_eq(track(&t, &won, 0, 3, &err), -1);
	cr_assert(strstr(err.msg, "a seat has already won on this board") != NULL, "%s", err.msg);
	kb_pos a_won = test_pos(0x3, "31 30 29 28", "12", NULL, NULL);
	cr_assert_eq(track(&t, &a_won, 1, 3, &err), -1, "seat A's win counts too");
	cr_assert(strstr(err.msg, "a seat has already won on this board") != NULL, "%s", err.msg);
	cr_assert_eq(t.have, 0);
	cr_assert_eq(t.lines, 0);
	/* A decides with a 2: piece 0 to 14 or piece 1 to 5 */
	cr_assert_eq(track(&t, &a, 0, 2, &err), 0, "%s", err.msg);
	kb_tracker_own_move(&t, 1);
	kb_pos moved0 = test_pos(0x3, "14 3", "20", NULL, NULL);
	cr_assert_eq(track(&t, &moved0, 1, 2, &err), -1);
	cr_assert(strstr(err.msg, "its board is not the result of the bot's own move") != NULL, "%s", err.msg);
	kb_pos other = test_pos(0x3, "12 4", "20", NULL, NULL);
	cr_assert_eq(track(&t, &other, 1, 2, &err), -1);
	cr_assert(strstr(err.msg, "not the result of any legal move of the previous roll") != NULL, "%s", err.msg);
	kb_pos moved1 = test_pos(0x3, "12 5", "20", NULL, NULL);
	cr_assert_eq(track(&t, &moved1, 1, 2, &err), 0, "%s", err.msg);
	cr_assert_eq(t.own_index, -1, "a new line has no own move yet");
	cr_assert_eq(kb_tracker_winner(&t, 1, &err), -1);
	cr_assert_str_eq(err.msg, "\"Voittaja: B\" but no legal move of the last roll wins");
	cr_assert_eq(kb_tracker_winner(&t, 0, &err), -1);
	cr_assert_str_eq(err.msg, "\"Voittaja: A\" but the last roll was B's");
	/* a board that does not parse (a piece of absent C) */
	char st[KB_ROLL_LINE_LEN + 2];
	kb_pos c = test_pos(0x7, "12 5", "20", "3", NULL);
	state_of(st, &c, 0, 2);
	cr_assert_eq(kb_line_parse(st, KB_ROLL_LINE_LEN, &ln, NULL), 0);
	cr_assert_eq(kb_tracker_line(&t, &ln, &err), -1);
	cr_assert(strncmp(err.msg, "state line ", 11) == 0 && strlen(err.msg) > 60, "%s", err.msg);
}

/* The winner line: the pending roll's move that wins. */
Test(bot_rules, tracker_accepts_the_winning_roll)
{
	kb_tracker t;
	kb_err err;
	kb_pos b = test_pos(0x3, "12", "31 30 29 26", NULL, NULL);

	kb_tracker_init(&t, 0x3, NULL, NULL);
	cr_assert_eq(track(&t, &b, 1, 2, &err), 0, "%s", err.msg);
	cr_assert_eq(kb_tracker_winner(&t, 1, &err), 0, "%s", err.msg);
	cr_assert_eq(t.have, 0, "the game is over");
	cr_assert_eq(track(&t, &b, 1, 3, &err), 0, "%s", err.msg);
	cr_assert_eq(kb_tracker_winner(&t, 1, &err), -1, "a 3 does not win");
}

/* What the winner check (and the client, the greedy evaluation and the
 * rollouts) rely on: a move that wins is its roll's only legal move.
 * Every sound placement of one seat's four pieces (the others at home:
 * other seats' pieces can only take moves away), every die. */
Test(bot_rules, a_winning_move_is_its_rolls_only_legal_move)
{
	long winning = 0;

	for (int s = 0; s < KB_SEATS; s++)
		for (int a = KB_HOME; a <= KB_GOAL_LAST; a++)
			for (int b = KB_HOME; b <= a; b++)
				for (int c = KB_HOME; c <= b; c++)
					for (int e = KB_HOME; e <= c; e++) {
						kb_pos p;
						kb_pos_init(&p, 0xf);
						p.prog[s][0] = (int8_t)a, p.prog[s][1] = (int8_t)b;
						p.prog[s][2] = (int8_t)c, p.prog[s][3] = (int8_t)e;
						if (kb_pos_check(&p) || kb_has_won(&p, s))
							continue;
						for (int d = 1; d <= 6; d++) {
							unsigned mask = kb_legal(&p, s, d);
							for (int i = 0; i < KB_PIECES; i++) {
								kb_pos q = p;
								if (!(mask >> i & 1))
									continue;
								kb_apply(&q, s, i, d);
								if (!kb_has_won(&q, s))
									continue;
								winning++;
								cr_assert_eq(mask, 1u << i, "seat %d at %d %d %d %d, die %d",
									     s, a, b, c, e, d);
							}
						}
					}
	/* per seat: the last piece 1..6 squares before the one free goal square */
	cr_assert_gt(winning, 4 * 4, "%ld winning rolls", winning);
}

/* ---- the tuner: fit, SPSA, TD(lambda), the command line ---------------------- */

/* One sample, zero weights: both seats 1/2, so the loss is log 2 and one
 * SGD step moves each seat's base weights by lr x (p - won) x feature:
 * A (won; pieces at 10 and 3, two home; rolls next; B's 4 from square 27
 * hits its piece at 3) up, B (20, three home) down. */
Test(bot_rules, fit_train_one_step_by_hand)
{
	static kb_weights w;
	kb_fit_sample s;
	kb_fit_data d = {&s, 1, 1, 1, 1};

	memset(&w, 0, sizeof w);
	memset(&s, 0, sizeof s);
	s.pos = test_pos(0x3, "10 3", "20", NULL, NULL);
	s.kinds[0] = 0, s.kinds[1] = 2, s.kinds[2] = s.kinds[3] = 0xff;
	s.turn = 0, s.winner = 0;
	double loss = kb_fit_train(&w, &d, 1, 0.1, 0.0, 5); /* once: the macro reads it twice */
	cr_assert_float_eq(loss, log(2.0), 1e-12);
	cr_assert_float_eq(w.piece[0][11], 0.05, 1e-7);
	cr_assert_float_eq(w.piece[0][4], 0.05, 1e-7);
	cr_assert_float_eq(w.piece[0][0], 0.1, 1e-7, "two home pieces");
	cr_assert_float_eq(w.piece[2][21], -0.05, 1e-7);
	cr_assert_float_eq(w.piece[2][0], -0.15, 1e-7, "three home pieces");
	cr_assert_float_eq(w.tempo[0], 0.05, 1e-7);
	cr_assert_eq(w.tempo[2], 0.0f, "B does not roll next");
	cr_assert_float_eq(w.danger[0], 0.05 / 6, 1e-7);
	cr_assert_float_eq(w.dprog[0], 0.05 * 4 / 168, 1e-7);
	cr_assert_eq(w.danger[2], 0.0f);
	float piece_sum = 0;
	for (int b = 0; b < KB_EVAL_BUCKETS; b++)
		piece_sum += fabsf(w.piece[0][b]) + fabsf(w.piece[2][b]);
	cr_assert_float_eq(piece_sum, 0.4f, 1e-6, "no other piece value moved");
	/* B won: the loss is the same, the signs turn; the learning rate
	 * decays to a tenth over the run (second step 0.55 x lr) */
	memset(&w, 0, sizeof w);
	s.winner = 1;
	loss = kb_fit_train(&w, &d, 1, 0.1, 0.0, 5);
	cr_assert_float_eq(loss, log(2.0), 1e-12);
	cr_assert_float_eq(w.piece[2][21], 0.05, 1e-7);
	cr_assert_float_eq(w.piece[0][11], -0.05, 1e-7);
	memset(&w, 0, sizeof w);
	kb_fit_train(&w, &d, 2, 0.1, 0.0, 5);
	cr_assert(w.piece[2][21] > 0.05f && w.piece[2][21] < 0.05f + 0.055f * 0.5f,
		  "second step smaller: %f", w.piece[2][21]);
	/* L2 pulls a piece value towards 0 */
	memset(&w, 0, sizeof w);
	w.piece[2][21] = 2.0f;
	kb_weights no_l2 = w;
	kb_fit_train(&w, &d, 1, 0.1, 0.5, 5);
	kb_fit_train(&no_l2, &d, 1, 0.1, 0.0, 5);
	cr_assert_float_eq(no_l2.piece[2][21] - w.piece[2][21], 0.1 * 0.5 * 2.0, 1e-6);
	/* no samples: a loss of 0, nothing learned */
	kb_fit_data empty = {NULL, 0, 0, 0, 0};
	no_l2 = w;
	cr_assert_eq(kb_fit_train(&w, &empty, 2, 0.1, 0.0, 5), 0.0);
	cr_assert(memcmp(&w, &no_l2, sizeof w) == 0);
}

/* The mean over the six documented lineups, each measured alone. */
Test(bot_rules, fit_winrate_is_the_mean_of_six_lineups, .timeout = 60)
{
	static const uint8_t lineups[6][3] = {
		{KB_HARD, KB_HARD, KB_HARD}, {KB_EASY, KB_EASY, KB_EASY}, {KB_HARD, 0, 0},
		{KB_EASY, KB_HARD, KB_EASY}, {KB_EASY, 0, 0}, {KB_HARD, KB_EASY, 0},
	};
	double sum = 0;

	for (int l = 0; l < 6; l++)
		sum += kb_fit_lineup_winrate(&kb_weights_default, 0, 0, lineups[l], 6, 3);
	cr_assert_float_eq(kb_fit_winrate(&kb_weights_default, 0, 6, 3), sum / 6, 1e-12);
	double rate[KB_TD_LINEUPS];
	kb_td_winrates(&kb_weights_default, 0, 6, 3, rate);
	for (int l = 0; l < KB_TD_LINEUPS; l++)
		cr_assert_float_eq(rate[l], kb_fit_lineup_winrate(&kb_weights_default, 0, 0, lineups[l < 3 ? l : 3], 6, 3),
				   1e-12, "lineup %d", l);
	cr_assert_str_eq(kb_td_lineup_names[2], "hard alone");
	cr_assert(memcmp(kb_td_lineups[3], lineups[3], 3) == 0);
}

/* SPSA: every base weight moves by +-a (y+ - y-) / (2 x 0.05) with a =
 * step / (1 + it / 50), the interaction tables not at all; each weight's
 * sign is drawn (a simultaneous perturbation), so not every weight moves
 * the same way. */
Test(bot_rules, fit_spsa_moves_every_base_weight_alike, .timeout = 60)
{
	static kb_weights w;
	char *log_text = NULL;
	size_t len = 0;
	double yp[2], ym[2];

	w = kb_weights_default;
	FILE *log = open_memstream(&log_text, &len);
	kb_fit_spsa(&w, 2, 4, 0.01, 7, log);
	fclose(log);
	cr_assert_eq(sscanf(log_text, "kimble-tune: spsa 1: %lf vs %lf\nkimble-tune: spsa 2: %lf vs %lf\n",
			    &yp[0], &ym[0], &yp[1], &ym[1]), 4, "%s", log_text);
	free(log_text);
	double g0 = 0.01 * (yp[0] - ym[0]) / 0.1, g1 = 0.01 / (1 + 1 / 50.0) * (yp[1] - ym[1]) / 0.1;
	cr_assert(fabs(g0) > 1e-3 || fabs(g1) > 1e-3, "no difference measured: %f %f", g0, g1);
	double first = w.piece[0][0] - kb_weights_default.piece[0][0];
	int unlike = 0;
	for (int t = 0; t < KB_EVAL_TYPES; t++) {
		const float *now[3] = {&w.danger[t], &w.dprog[t], &w.tempo[t]};
		const float *was[3] = {&kb_weights_default.danger[t], &kb_weights_default.dprog[t],
				       &kb_weights_default.tempo[t]};
		for (int b = 0; b < KB_EVAL_BUCKETS + 3; b++) {
			double moved = b < KB_EVAL_BUCKETS ? w.piece[t][b] - kb_weights_default.piece[t][b]
							   : *now[b - KB_EVAL_BUCKETS] - *was[b - KB_EVAL_BUCKETS];
			double m = fabs(moved);
			cr_assert(fabs(m - fabs(g0 + g1)) < 2e-4 || fabs(m - fabs(g0 - g1)) < 2e-4,
				  "type %d weight %d moved %f, expected +-%f +-%f", t, b, moved, g0, g1);
			unlike += fabs(moved - first) > 2e-4;
		}
	}
	cr_assert_gt(unlike, 0, "every weight moved by %f: one sign for all", first);
	cr_assert(memcmp(w.pair, kb_weights_default.pair, sizeof w.pair) == 0);
	cr_assert(memcmp(w.hit, kb_weights_default.hit, sizeof w.hit) == 0);
	cr_assert(memcmp(w.behind, kb_weights_default.behind, sizeof w.behind) == 0);
}

/* ---- TD(lambda), against a reference written from td.h ---------------------- */

#define REF_TD_TAG (KB_TAG_USER + 9) /* td.c's dice and lineup stream */

typedef struct ref_game {
	uint8_t kinds[KB_SEATS];
	kb_pos pos[4096];
	int8_t turn[4096];
	int n, winner;
} ref_game;

static void ref_predict(const kb_weights *w, const uint8_t kinds[KB_SEATS], const kb_pos *pos,
			int turn, kb_seat_features f[KB_SEATS], double p[KB_SEATS])
{
	double score[KB_SEATS];

	kb_eval_features(pos, kinds, turn, f);
	for (int s = 0; s < KB_SEATS; s++)
		score[s] = kb_present(pos, s) ? kb_eval_score(w, kb_eval_type(pos, kinds[s]), &f[s]) : 0;
	/* exp(a) / sum_b exp(b) written as 1 / sum_b exp(b - a) */
	for (int a = 0; a < KB_SEATS; a++) {
		double denom = 0;
		for (int b2 = 0; b2 < KB_SEATS && kb_present(pos, a); b2++)
			if (kb_present(pos, b2))
				denom += exp(score[b2] - score[a]);
		p[a] = kb_present(pos, a) ? 1.0 / denom : 0;
	}
}

/* Train w with p, its log kept (malloc'ed, returned); rng set to the
 * stream the trainer draws its games from. */
static char *td_train_logged(kb_weights *w, const kb_td_params *p, kb_rng *rng)
{
	char *text = NULL;
	size_t len = 0;
	FILE *log = open_memstream(&text, &len);

	cr_assert_not_null(log);
	kb_td_train(w, p, log);
	fclose(log);
	kb_rng_stream(rng, p->seed, REF_TD_TAG, 0);
	return text;
}

/* The piece seat plays: A greedy by w, easy its rearmost legal piece,
 * hard its foremost. */
static int ref_td_piece(const kb_weights *w, const ref_game *g, const uint8_t ctl[KB_SEATS],
			const kb_pos *pos, int seat, int d, unsigned legal)
{
	if (seat == 0)
		return kb_eval_greedy(w, g->kinds, pos, d, legal);
	return ctl[seat] == KB_EASY ? 31 - __builtin_clz(legal) : __builtin_ctz(legal);
}

/* The game: the first roller the k-th present seat (k uniform), A greedy
 * by w, the others their policy; the position before every roll. */
static void ref_play(const kb_weights *w, const uint8_t ctl[KB_SEATS], kb_rng *rng, ref_game *g)
{
	unsigned present = 1;
	kb_pos pos;

	g->kinds[0] = 0;
	for (int s = 1; s < KB_SEATS; s++) {
		g->kinds[s] = ctl[s] == KB_EASY ? 1 : 2;
		present |= ctl[s] ? 1u << s : 0;
	}
	kb_pos_init(&pos, present);
	int k = (int)kb_rng_below(rng, (uint32_t)__builtin_popcount(present)), turn = 0;
	while (!kb_present(&pos, turn) || k > 0) {
		if (kb_present(&pos, turn))
			k--;
		turn++;
	}
	g->n = 0;
	g->winner = -1;
	do {
		g->pos[g->n] = pos;
		g->turn[g->n] = (int8_t)turn;
		g->n++;
		int d = kb_rng_die(rng);
		unsigned legal = kb_legal(&pos, turn, d);
		if (legal != 0) {
			kb_apply(&pos, turn, ref_td_piece(w, g, ctl, &pos, turn, d, legal), d);
			if (kb_has_won(&pos, turn))
				g->winner = turn;
		}
		turn = kb_next_seat(&pos, turn, d);
	} while (g->winner < 0);
}

/* Backwards from the end: each position's prediction moves towards its
 * target, the outcome blended with the following predictions (those of
 * the weights the game was played with). */
static void ref_learn(kb_weights *w, ref_game *g, double lambda, double rate)
{
	static float pred[4096][KB_SEATS];
	kb_seat_features f[KB_SEATS];
	double p[KB_SEATS], target[KB_SEATS];

	for (int t = 0; t < g->n; t++) {
		ref_predict(w, g->kinds, &g->pos[t], g->turn[t], f, p);
		for (int s = 0; s < KB_SEATS; s++)
			pred[t][s] = (float)p[s];
	}
	for (int s = 0; s < KB_SEATS; s++)
		target[s] = s == g->winner ? 1.0 : 0.0;
	for (int t = g->n - 1; t >= 0; t--) {
		ref_predict(w, g->kinds, &g->pos[t], g->turn[t], f, p);
		for (int s = 0; s < KB_SEATS; s++)
			if (kb_present(&g->pos[t], s))
				kb_eval_step(w, kb_eval_type(&g->pos[t], g->kinds[s]), &f[s], rate * (target[s] - p[s]));
		for (int s = 0; s < KB_SEATS; s++)
			target[s] = (1 - lambda) * pred[t][s] + lambda * target[s];
	}
}

/* Games alternate: even ones the measured lineups in turn, odd ones a
 * random lineup with an opponent; the rate decays linearly to a tenth;
 * progress every tenth of the run with the bot's win rate since the last. */
Test(bot_rules, td_train_matches_the_reference, .timeout = 60)
{
	static kb_weights got, want;
	static ref_game g;
	kb_td_params p = {10, 0.7, 0.02, 4, NULL};
	char *log_text = NULL, expect[2048] = "";
	kb_rng rng;

	got = want = kb_weights_default;
	log_text = td_train_logged(&got, &p, &rng);
	for (long k = 0; k < p.games; k++) {
		uint8_t ctl[KB_SEATS] = {KB_EXTERNAL, 0, 0, 0};
		if (k % 2 == 0) {
			memcpy(ctl + 1, kb_td_lineups[(k / 2) % KB_TD_LINEUPS], 3);
		} else {
			while (!ctl[1] && !ctl[2] && !ctl[3])
				for (int s = 1; s < KB_SEATS; s++)
					ctl[s] = (uint8_t)kb_rng_below(&rng, 3);
		}
		ref_play(&want, ctl, &rng, &g);
		ref_learn(&want, &g, p.lambda, p.rate * (1.0 - 0.9 * (double)k / (double)p.games));
		snprintf(expect + strlen(expect), sizeof expect - strlen(expect),
			 "kimble-tune: td %ld/10 games, bot won %.1f%%\n", k + 1, g.winner == 0 ? 100.0 : 0.0);
	}
	cr_assert_str_eq(log_text, expect);
	free(log_text);
	const float *a = (const float *)&got, *b = (const float *)&want;
	for (size_t i = 0; i < sizeof got / sizeof(float); i++)
		cr_assert(fabsf(a[i] - b[i]) <= 1e-6f * (1 + fabsf(b[i])), "weight %zu: %f, reference %f", i, a[i], b[i]);
	cr_assert(memcmp(&got, &kb_weights_default, sizeof got) != 0);
}

/* One lineup only, and a log only every tenth of the run. */
Test(bot_rules, td_train_one_lineup_matches_the_reference, .timeout = 60)
{
	static kb_weights got, want;
	static ref_game g;
	static const uint8_t easy_two[3] = {KB_EASY, 0, KB_EASY};
	kb_td_params p = {20, 1.0, 0.01, 9, easy_two};
	char *log_text = NULL;
	kb_rng rng;
	const uint8_t ctl[KB_SEATS] = {KB_EXTERNAL, KB_EASY, 0, KB_EASY};

	got = want = kb_weights_default;
	log_text = td_train_logged(&got, &p, &rng);
	for (long k = 0; k < p.games; k++) {
		ref_play(&want, ctl, &rng, &g);
		ref_learn(&want, &g, p.lambda, p.rate * (1.0 - 0.9 * (double)k / (double)p.games));
	}
	int lines = 0;
	for (const char *q = log_text; (q = strstr(q, "kimble-tune: td ")) != NULL; q++)
		lines++;
	cr_assert_eq(lines, 10, "%s", log_text);
	cr_assert(strstr(log_text, "kimble-tune: td 2/20 games, bot won ") == log_text, "%s", log_text);
	free(log_text);
	const float *a = (const float *)&got, *b = (const float *)&want;
	for (size_t i = 0; i < sizeof got / sizeof(float); i++)
		cr_assert(fabsf(a[i] - b[i]) <= 1e-6f * (1 + fabsf(b[i])), "weight %zu: %f, reference %f", i, a[i], b[i]);
	p.games = 9; /* fewer than 10: no progress lines */
	log_text = td_train_logged(&got, &p, &rng);
	cr_assert_str_eq(log_text, "");
	free(log_text);
}

/* td.h: only holds three digits, seats B, C and D; the trainer reads
 * nothing before them (a lineup at the very start of a page whose page
 * before is unmapped: a read of only[-1] would crash) and trains as with
 * the same digits anywhere else. */
Test(bot_rules, td_train_reads_only_the_three_lineup_digits, .timeout = 30)
{
	static kb_weights fenced, plain;
	static const uint8_t easy_two[3] = {KB_EASY, 0, KB_EASY};
	long page = sysconf(_SC_PAGESIZE);
	uint8_t *two = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	cr_assert_neq(two, MAP_FAILED);
	cr_assert_eq(mprotect(two, (size_t)page, PROT_NONE), 0);
	memcpy(two + page, easy_two, sizeof easy_two);
	kb_td_params p = {6, 0.7, 0.02, 5, two + page};
	fenced = plain = kb_weights_default;
	kb_td_train(&fenced, &p, NULL);
	p.only = easy_two;
	kb_td_train(&plain, &p, NULL);
	cr_assert(memcmp(&fenced, &plain, sizeof fenced) == 0, "the same lineup trained otherwise");
	munmap(two, (size_t)page * 2);
}

/* kimble-tune --spsa N takes N SPSA steps from the starting weights: from
 * --init's piece values (0.12 per bucket) every value of the first row
 * moves by +-step (y+ - y-) / (2 x 0.05), y+ and y- as its log says. */
Test(bot_rules, tune_spsa_option_takes_its_steps, .timeout = 60)
{
	const char *out, *err;
	const char *args[] = {"--init", "--rounds", "0", "--spsa", "1", "--spsa-games", "4",
			      "--spsa-step", "0.01", "--seed", "7", NULL};
	double yp, ym, before, after;

	cr_assert_eq(test_run_prog("kimble-tune", args, &out, &err), 0, "%s", err);
	cr_assert_eq(sscanf(err, "kimble-tune: win rate before SPSA %lf\nkimble-tune: spsa 1: %lf vs %lf\n"
			    "kimble-tune: win rate after SPSA %lf\n", &before, &yp, &ym, &after), 4, "%s", err);
	double g = 0.01 * (yp - ym) / 0.1;
	cr_assert(fabs(g) > 1e-3, "seed 7 measures a difference: %s", err);
	const char *row = strstr(out, "\t\t{");
	cr_assert_not_null(row, "%.300s", out);
	row += 3;
	for (int b = 0; b < 8; b++) {
		char *end;
		double v = strtod(row, &end);
		cr_assert(fabs(fabs(v - 0.12 * b) - fabs(g)) < 3e-5, "bucket %d: %f, expected %f +- %f", b, v,
			  0.12 * b, g);
		row = end + 2; /* past "f," */
	}
}

/* kimble-tune with nothing to do prints the compiled-in weights as
 * bot/weights.h is, with its command line as the comment. */
Test(bot_rules, tune_prints_the_weights_and_its_command, .timeout = 60)
{
	char path[512];
	const char *out, *err;
	static char file[1 << 18];
	const char *none[] = {"--rounds", "0", NULL};

	snprintf(file, sizeof file, "%s", test_read_file(NULL, test_root_path("bot/weights.h", path, sizeof path)));
	cr_assert_eq(test_run_prog("kimble-tune", none, &out, &err), 0, "%s", err);
	cr_assert_str_eq(err, "");
	const char *head = "/* weights.h - evaluation weights fitted by bot/tune/tune.sh; do not edit.\n"
			   " * kimble-tune --rounds 0 --games 4000 --depth 0 --epochs 4 --seed 1 --spsa 0 "
			   "--spsa-games 3000 --spsa-step 2 --td 0 --td-lambda 0.8 --td-rate 0.005 */\n";
	cr_assert(strncmp(out, head, strlen(head)) == 0, "%.300s", out);
	cr_assert_str_eq(out + strlen(head), strstr(file, " */\n#include") + 4);

	const char *init[] = {"--init", "--rounds", "0", "--td-lineup", "021", "--seed", "5", NULL};
	cr_assert_eq(test_run_prog("kimble-tune", init, &out, &err), 0, "%s", err);
	cr_assert(strstr(out, " --seed 5 --spsa 0 --spsa-games 3000 --spsa-step 2 --td 0 --td-lambda 0.8 "
			      "--td-rate 0.005 --td-lineup 021 */\n") != NULL, "%.400s", out);
	const char *init_head = "/* weights.h - evaluation weights fitted by bot/tune/tune.sh; do not edit.\n"
				" * kimble-tune --init --rounds 0 ";
	cr_assert(strncmp(out, init_head, strlen(init_head)) == 0, "%.200s", out);
	/* --init: piece values 0.12 per bucket up to 29, then flat; danger
	 * -0.5, dprog -1, tempo 0.1; the interaction tables zero */
	const char *row = "{0.00000f, 0.12000f, 0.24000f, 0.36000f, 0.48000f, 0.60000f, 0.72000f, 0.84000f,\n"
			  "\t\t 0.96000f, 1.08000f, 1.20000f, 1.32000f, 1.44000f, 1.56000f, 1.68000f, 1.80000f,\n"
			  "\t\t 1.92000f, 2.04000f, 2.16000f, 2.28000f, 2.40000f, 2.52000f, 2.64000f, 2.76000f,\n"
			  "\t\t 2.88000f, 3.00000f, 3.12000f, 3.24000f, 3.36000f, 3.48000f, 3.48000f, 3.48000f,\n"
			  "\t\t 3.48000f},\n";
	int rows = 0;
	for (const char *q = out; (q = strstr(q, row)) != NULL; q++)
		rows++;
	cr_assert_eq(rows, KB_EVAL_TYPES);
	cr_assert(strstr(out, "\t{-0.50000f, -0.50000f, -0.50000f, -0.50000f, -0.50000f, -0.50000f, -0.50000f, -0.50000f, -0.50000f},\n"
			      "\t{-1.00000f, -1.00000f, -1.00000f, -1.00000f, -1.00000f, -1.00000f, -1.00000f, -1.00000f, -1.00000f},\n"
			      "\t{0.10000f, 0.10000f, 0.10000f, 0.10000f, 0.10000f, 0.10000f, 0.10000f, 0.10000f, 0.10000f},\n") != NULL);
	const char *tables = strstr(out, ".pair = {");
	cr_assert_not_null(tables);
	cr_assert_null(strchr(tables, 'f'), "every interaction weight is 0");
}

/* ---- TD(lambda) training (bot/tune/td.h), worked out again here ------------------ */

/* A training game as td.h describes it: seat A greedy by w, the others
 * by their policies, the first seat drawn among the present ones, then
 * the dice, all from rng. */
typedef struct td_ref_game {
	uint8_t kinds[KB_SEATS];
	kb_pos pos[4096];
	int turn[4096];
	int n, winner;
} td_ref_game;

static void td_ref_play(const kb_weights *w, const uint8_t ctl[KB_SEATS], kb_rng *rng, td_ref_game *g)
{
	unsigned present = 0;
	int seats[KB_SEATS], nseats = 0;

	for (int s = 0; s < KB_SEATS; s++) {
		g->kinds[s] = s == 0 ? KB_EVAL_SELF : kb_nearest_builtin(ctl[s]);
		if (s == 0 || ctl[s]) {
			present |= 1u << s;
			seats[nseats++] = s;
		}
	}
	kb_pos pos;
	kb_pos_init(&pos, present);
	int turn = seats[kb_rng_below(rng, (uint32_t)nseats)];
	g->n = 0;
	g->winner = KB_NO_WINNER;
	while (g->n < 4096) {
		g->pos[g->n] = pos;
		g->turn[g->n++] = turn;
		int d = kb_rng_die(rng);
		unsigned legal = kb_legal(&pos, turn, d);
		if (legal) {
			int i = turn ? kb_pick(ctl[turn], legal, NULL) : kb_eval_greedy(w, g->kinds, &pos, d, legal);
			kb_apply(&pos, turn, i, d);
			if (kb_has_won(&pos, turn)) {
				g->winner = turn;
				return;
			}
		}
		turn = kb_next_seat(&pos, turn, d);
	}
}

/* P(seat s wins) of every present seat: the softmax of their scores. */
static void td_ref_probs(const kb_weights *w, const td_ref_game *g, int t, kb_seat_features f[KB_SEATS],
			 double p[KB_SEATS])
{
	const kb_pos *pos = &g->pos[t];
	double sum = 0;

	kb_eval_features(pos, g->kinds, g->turn[t], f);
	for (int s = 0; s < KB_SEATS; s++)
		if (kb_present(pos, s))
			sum += exp(kb_eval_score(w, kb_eval_type(pos, g->kinds[s]), &f[s]));
	for (int s = 0; s < KB_SEATS; s++)
		p[s] = kb_present(pos, s) ? exp(kb_eval_score(w, kb_eval_type(pos, g->kinds[s]), &f[s])) / sum : 0;
}

/* The forward view: the lambda-return of position t is the outcome z
 * weighted lambda^(n-1-t) plus every later prediction P_j (made before
 * the game's updates) weighted (1 - lambda) lambda^(j-t-1); each
 * position's prediction, last position first, steps towards its
 * return by rate times the difference, for every present seat. */
static void td_ref_learn(kb_weights *w, const td_ref_game *g, double lambda, double rate)
{
	static double before[4096][KB_SEATS];
	kb_seat_features f[KB_SEATS];
	double p[KB_SEATS];

	for (int t = 0; t < g->n; t++)
		td_ref_probs(w, g, t, f, before[t]);
	for (int t = g->n - 1; t >= 0; t--) {
		td_ref_probs(w, g, t, f, p);
		for (int s = 0; s < KB_SEATS; s++) {
			if (!kb_present(&g->pos[t], s))
				continue;
			double ret = pow(lambda, g->n - 1 - t) * (s == g->winner);
			for (int j = t + 1; j < g->n; j++)
				ret += (1 - lambda) * pow(lambda, j - t - 1) * before[j][s];
			kb_eval_step(w, kb_eval_type(&g->pos[t], g->kinds[s]), &f[s], rate * (ret - p[s]));
		}
	}
}

/* games training games with seed: game k in lineup only, or, without it,
 * the measured lineups in turn for even k and a random one (digits 0..2
 * drawn until not all 0) for odd k; rate decays linearly from rate to
 * rate / 10 over the run; a log line every tenth of the run.  A game not
 * over after 4,096 rolls is left out: not learned from, not counted, no
 * log line at its place. */
static void td_ref_train(kb_weights *w, long games, double lambda, double rate, uint64_t seed,
			 const uint8_t *only, FILE *log)
{
	static td_ref_game g;
	kb_rng rng;
	long wins = 0, played = 0;

	kb_rng_stream(&rng, seed, KB_TD_TAG, 0);
	for (long k = 0; k < games; k++) {
		uint8_t ctl[KB_SEATS] = {KB_EXTERNAL, 0, 0, 0};
		if (only)
			memcpy(ctl + 1, only, 3);
		else if (k % 2 == 0)
			memcpy(ctl + 1, kb_td_lineups[k / 2 % KB_TD_LINEUPS], 3);
		else
			while (!ctl[1] && !ctl[2] && !ctl[3])
				for (int s = 1; s < KB_SEATS; s++)
					ctl[s] = (uint8_t)kb_rng_below(&rng, 3);
		td_ref_play(w, ctl, &rng, &g);
		if (g.winner == KB_NO_WINNER)
			continue; /* cut at 4,096 rolls: left out */
		td_ref_learn(w, &g, lambda, rate * (1 - 0.9 * (double)k / (double)games));
		wins += g.winner == 0;
		played++;
		if (games >= 10 && (k + 1) % (games / 10) == 0) {
			fprintf(log, "kimble-tune: td %ld/%ld games, bot won %.1f%%\n", k + 1, games,
				100.0 * (double)wins / (double)played);
			wins = played = 0;
		}
	}
}

/* kb_td_train against the reference above: the weights (every one of
 * them, the interaction tables too) and the log, with the measured and
 * random lineups (10 games: a log line after each) and with one lineup
 * (hard alone, 3 games: too few for a log). */
Test(bot_rules, td_train_steps_towards_lambda_returns, .timeout = 60)
{
	static kb_weights got, want;
	static const uint8_t hard_alone[3] = {KB_HARD, 0, 0};
	const struct {
		long games;
		double lambda, rate;
		uint64_t seed;
		const uint8_t *only;
	} runs[] = {{10, 0.7, 0.05, 5, NULL}, {3, 0.4, 0.2, 8, hard_alone}};

	for (int r = 0; r < 2; r++) {
		char *got_log = NULL, *want_log = NULL;
		size_t got_len = 0, want_len = 0;
		FILE *gl = open_memstream(&got_log, &got_len), *wl = open_memstream(&want_log, &want_len);
		kb_td_params tp = {runs[r].games, runs[r].lambda, runs[r].rate, runs[r].seed, runs[r].only};

		got = want = kb_weights_default;
		kb_td_train(&got, &tp, gl);
		td_ref_train(&want, runs[r].games, runs[r].lambda, runs[r].rate, runs[r].seed, runs[r].only, wl);
		fclose(gl);
		fclose(wl);
		cr_assert_str_eq(got_log, want_log, "run %d", r);
		cr_assert_eq(test_count(want_log, "\n"), r ? 0 : 10, "run %d: %s", r, want_log);
		free(got_log);
		free(want_log);
		const float *g = (const float *)&got, *x = (const float *)&want, *d = (const float *)&kb_weights_default;
		size_t moved = 0;
		for (size_t i = 0; i < sizeof got / sizeof *g; i++) {
			cr_assert_float_eq(g[i], x[i], 1e-5 + 1e-4 * fabsf(x[i]), "run %d: weight %zu", r, i);
			moved += g[i] != d[i];
		}
		cr_assert_gt(moved, 100, "run %d: training moved %zu weights", r, moved);
	}
}

/* The dice kb_rng_die gives (the test binary is linked with
 * --wrap=kb_rng_die): fixed_dice of fixed_die first, then the seeded
 * generator's. */
int __real_kb_rng_die(kb_rng *rng);
int __wrap_kb_rng_die(kb_rng *rng);
static long fixed_dice;
static int fixed_die;

int __wrap_kb_rng_die(kb_rng *rng)
{
	if (fixed_dice > 0) {
		fixed_dice--;
		return fixed_die;
	}
	return __real_kb_rng_die(rng);
}

void test_fix_dice(long n, int die)
{
	fixed_dice = n, fixed_die = die;
}

/* A training game not over after 4,096 rolls is left out and the next
 * game goes on with the dice after its 4,096th: the first game rolls 1s
 * only (no piece leaves home: no winner), the second is played from the
 * generator's dice.  The weights are the reference's, which learns from
 * the second game only (a game cut one roll later, or taken as won by
 * the winner of an earlier game, gives other weights). */
Test(bot_rules, td_train_leaves_out_a_game_cut_at_4096_rolls, .timeout = 60)
{
	static kb_weights got, want;
	static td_ref_game ref;
	static const uint8_t hard_alone[3] = {KB_HARD, 0, 0};
	kb_td_params tp = {2, 0.5, 0.1, 3, hard_alone};
	kb_rng rng;

	/* the setup: the first game of the reference is cut, with no winner */
	got = want = kb_weights_default;
	kb_rng_stream(&rng, 3, KB_TD_TAG, 0);
	fixed_dice = 4096, fixed_die = 1;
	td_ref_play(&want, (const uint8_t[KB_SEATS]){KB_EXTERNAL, KB_HARD, 0, 0}, &rng, &ref);
	cr_assert(ref.n == 4096 && ref.winner == KB_NO_WINNER && fixed_dice == 0, "%d rolls", ref.n);

	fixed_dice = 4096;
	kb_td_train(&got, &tp, NULL);
	fixed_dice = 4096;
	td_ref_train(&want, 2, 0.5, 0.1, 3, hard_alone, NULL);
	const float *g = (const float *)&got, *x = (const float *)&want, *d = (const float *)&kb_weights_default;
	size_t moved = 0;
	for (size_t i = 0; i < sizeof got / sizeof *g; i++) {
		cr_assert_float_eq(g[i], x[i], 1e-5 + 1e-4 * fabsf(x[i]), "weight %zu", i);
		moved += g[i] != d[i];
	}
	cr_assert_gt(moved, 100, "the second game was learned from: %zu weights moved", moved);
}

/* --report G at level V: the win rate in each measured lineup over the
 * G games seeded from 99 (as --help says), in percent with two
 * decimals, before and after (the same here: no rounds, no tuning). */
Test(bot_rules, tune_report_is_the_win_rate_of_each_lineup, .timeout = 60)
{
	const char *args[] = {"--rounds", "0", "--report", "3", "--report-level", "1", NULL};
	const char *out, *err;
	char want[1024];
	double rate[KB_TD_LINEUPS];
	size_t n = 0;

	static const uint8_t lineups[KB_TD_LINEUPS][3] = {
		{KB_HARD, KB_HARD, KB_HARD}, {KB_EASY, KB_EASY, KB_EASY}, {KB_HARD, 0, 0}, {KB_EASY, KB_HARD, KB_EASY}};
	static const char *const names[KB_TD_LINEUPS] = {"hard x3", "easy x3", "hard alone", "easy,hard,easy"};

	cr_assert_eq(test_run_prog("kimble-tune", args, &out, &err), 0, "%s", err);
	/* the bot without rollouts (kb_td_winrates, td.h) */
	for (int l = 0; l < KB_TD_LINEUPS; l++)
		rate[l] = kb_fit_lineup_winrate(&kb_weights_default, 1, 0, lineups[l], 3, 99);
	for (int when = 0; when < 2; when++) {
		n += (size_t)snprintf(want + n, sizeof want - n, "kimble-tune: %s, level 1, 3 games:",
				      when ? "after" : "before");
		for (int l = 0; l < KB_TD_LINEUPS; l++)
			n += (size_t)snprintf(want + n, sizeof want - n, " %s %.2f%%%s", names[l], 100 * rate[l],
					      l < KB_TD_LINEUPS - 1 ? "," : "\n");
	}
	cr_assert_str_eq(err, want);
	cr_assert(strstr(out, " * kimble-tune --rounds 0 ") != NULL, "%.200s", out);
}

/* Round 1's line of kimble-tune --seed 1 --games games --epochs 1 --depth
 * 0: the games from seed 1000 x seed + r, every roll kept, one epoch at
 * rate 0.01 with L2 1e-5, shuffled from seed + r; the bot's wins in
 * percent of the games.  Returns the wins. */
static long tune_round1(char *out, size_t size, long games)
{
	static kb_weights w;
	kb_fit_data d = {0};

	w = kb_weights_default;
	cr_assert_eq(kb_fit_collect(&d, &w, 0, games, 1000, 1), 0);
	double loss = kb_fit_train(&w, &d, 1, 0.01, 1e-5, 1);
	cr_assert_eq(d.games, games);
	snprintf(out, size, "\nkimble-tune: round 1: %ld games, bot won %.1f%%, %zu samples, log-loss %.4f\n",
		 games, 100.0 * (double)d.wins / (double)games, d.n, loss);
	long wins = d.wins;
	kb_fit_free(&d);
	return wins;
}

/* The rounds, the report and TD as asked, each on stderr; bad values. */
Test(bot_rules, tune_runs_rounds_report_and_td, .timeout = 60)
{
	const char *out, *err;
	const char *args[] = {"--rounds", "2", "--games", "2", "--epochs", "1", "--report", "2", "--report-level", "0",
			      "--td", "10", "--td-lineup", "200", "--depth", "0", NULL};

	cr_assert_eq(test_run_prog("kimble-tune", args, &out, &err), 0, "%s", err);
	cr_assert(strncmp(err, "kimble-tune: before, level 0, 2 games: hard x3 ", 47) == 0, "%s", err);
	char round1[200];
	tune_round1(round1, sizeof round1, 2);
	cr_assert(strstr(err, round1) != NULL, "want %s in %s", round1, err);
	cr_assert(strstr(err, "\nkimble-tune: round 2: 2 games, bot won ") != NULL, "%s", err);
	cr_assert_null(strstr(err, "round 3"), "%s", err);
	cr_assert(strstr(err, "\nkimble-tune: td 10/10 games, bot won ") != NULL, "%s", err);
	cr_assert(strstr(err, "\nkimble-tune: after, level 0, 2 games: hard x3 ") != NULL, "%s", err);
	cr_assert(strstr(err, "%, easy x3 ") && strstr(err, "%, hard alone ") && strstr(err, "%, easy,hard,easy "), "%s", err);
	cr_assert(strstr(out, " * kimble-tune --rounds 2 --games 2 --depth 0 --epochs 1 --seed 1 --spsa 0 "
			      "--spsa-games 3000 --spsa-step 2 --td 10 --td-lambda 0.8 --td-rate 0.005 --td-lineup 200 */\n"),
		  "%.300s", out);

		test_usage_errors("kimble-tune", NULL);
	const char *help[] = {"--help", NULL};
	cr_assert_eq(test_run_prog("kimble-tune", help, &out, &err), 0);
	cr_assert(strncmp(out, "NAME\n    kimble-tune - ", 23) == 0, "%.100s", out);
}

/* Run /bin/sh -c "PREFIX 'kimble-tune' ARGS >out 2>err" in a fresh
 * folder (copied to dir when not NULL) for at most ms; it must exit 0.
 * Returns its stderr. */
static const char *run_tune_sh(const char *prefix, const char *args, int ms, char dir[256])
{
	char here[256], bin[512], cmd[800];
	static char err[1 << 14]; /* 100 rounds' lines: 7 KB */
	test_proc proc;

	test_tmpdir(here, sizeof here);
	if (dir)
		memcpy(dir, here, sizeof here);
	snprintf(cmd, sizeof cmd, "%s '%s' %s >out 2>err", prefix, test_bin("kimble-tune", bin, sizeof bin), args);
	char *argv[] = {"/bin/sh", "-c", cmd, NULL};
	cr_assert_eq(test_spawn(&proc, argv, here, 0, 0, NULL), 0);
	int st = test_wait(&proc, ms);
	snprintf(err, sizeof err, "%s", test_read_file(here, "err"));
	cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d: %s", st, err);
	return err;
}

/* A round's line gives the bot's wins as a percentage of the round's
 * games: 4 games from seed 1000 (--seed 1, round 1), of which the bot
 * wins 2 (not 1, where 100 x 1 / 4 and 100 / 1 / 4 would agree). */
Test(bot_rules, tune_round_reports_the_bots_win_percentage, .timeout = 60)
{
	const char *out, *err;
	const char *args[] = {"--rounds", "1", "--games", "4", "--epochs", "1", "--depth", "0", NULL};
	char want[200];

	long wins = tune_round1(want, sizeof want, 4);
	cr_assert_geq(wins, 2);
	cr_assert_eq(test_run_prog("kimble-tune", args, &out, &err), 0, "%s", err);
	cr_assert_str_eq(err, want + 1, "the round's line alone");
}

/* Each round's samples are freed before the next round: 100 rounds of
 * one game each fit in 32 MiB of address space (each round's sample
 * buffer, 65,536 samples, would not fit 100 times).  Not under ASan,
 * whose shadow memory needs far more address space (its leak check sees
 * a lost buffer there). */
Test(bot_rules, tune_rounds_free_their_samples, .timeout = 60)
{
#ifdef __SANITIZE_ADDRESS__
	cr_skip_test("ASan reserves more address space than the limit");
#endif
	cr_assert_gt(100 * (double)(1 << 16) * sizeof(kb_fit_sample), 64.0 * (1 << 20));
	const char *err = run_tune_sh("ulimit -v 32768 && exec", "--rounds 100 --games 1 --epochs 1", 30000, NULL);
	cr_assert(strstr(err, "\nkimble-tune: round 100: 1 games, bot won ") != NULL, "%s", err);
}

/* ---- learning: names, the end-of-game record --------------------------------- */

Test(bot_rules, learn_names_of_the_lineup)
{
	char names[KB_SEATS][KB_NAME_MAX + 1], spec[200];

	memset(names, 'x', sizeof names);
	kb_learn_names("pat,-,none", names);
	cr_assert_str_eq(names[0], "");
	cr_assert_str_eq(names[1], "pat");
	cr_assert_str_eq(names[2], "", "\"-\" is an absent seat");
	cr_assert_str_eq(names[3], "", "\"none\" is an absent seat");
	kb_learn_names("-x,nonex,", names);
	cr_assert_str_eq(names[1], "-x");
	cr_assert_str_eq(names[2], "nonex");
	cr_assert_str_eq(names[3], "");
	kb_learn_names(",a", names);
	cr_assert_str_eq(names[1], "");
	cr_assert_str_eq(names[2], "a");
	cr_assert_str_eq(names[3], "", "a missing field is absent");
	/* the longest name kept whole, a longer one dropped */
	memset(spec, 'n', sizeof spec);
	spec[KB_NAME_MAX] = ',';
	memset(spec + KB_NAME_MAX + 1, 'm', KB_NAME_MAX + 1);
	spec[2 * KB_NAME_MAX + 2] = 0;
	kb_learn_names(spec, names);
	cr_assert_eq(strlen(names[1]), KB_NAME_MAX);
	cr_assert_str_eq(names[2], "", "longer than KB_NAME_MAX");
}

/* Seat s's choice with pieces at progress 5 and 0 and a 1: the rearmost
 * (easy's); A stands at 20, out of the way. */
static void observe_easy_choice(kb_learn *l, int seat)
{
	const char *spec[KB_SEATS] = {"20", "", "", ""};

	spec[seat] = "5 0";
	kb_pos pos = test_pos(0xf, spec[0], spec[1], spec[2], spec[3]);
	kb_observation ob = {pos, seat, 1, kb_legal(&pos, seat, 1), 1};

	cr_assert_eq(ob.mask, 0x3u);
	kb_learn_observe(l, &ob);
}

static kb_opp_rec stored(const char *dir, const char *name)
{
	kb_store *st;
	kb_err err;
	kb_opp_rec rec;

	cr_assert_eq(kb_store_open(&st, dir, 0, NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(kb_store_get(st, name, &rec, &err), KB_REC_OK, "%s: %s", name, err.msg);
	kb_store_close(st);
	return rec;
}

/* A name of one character is a name: its record is read back (also by a
 * frozen store). */
Test(bot_rules, learn_reads_a_one_letter_name, .timeout = 30)
{
	char dir[256];
	const char *const names[KB_SEATS] = {NULL, "q", NULL, NULL};
	kb_learn l;

	test_tmpdir(dir, sizeof dir);
	kb_learn_open(&l, dir, 0x3, names, NULL, NULL);
	observe_easy_choice(&l, 1);
	cr_assert_eq(kb_learn_commit(&l, 1), 0);
	kb_learn_close(&l);
	cr_assert_eq(stored(dir, "q").model.easy_hits, 1);
	kb_learn_open(&l, dir, 0x3, names, NULL, NULL);
	cr_assert_eq(l.readable[1], 1);
	cr_assert_eq(l.easy_like[1], 1, "1 easy hit, 0 hard");
	kb_learn_close(&l);
	/* frozen, the store is read too, whatever errno held before */
	errno = ENOENT;
	kb_learn_open_frozen(&l, dir, 0x3, names, NULL, NULL);
	cr_assert_not_null(l.store, "the store exists");
	cr_assert_eq(l.easy_like[1], 1);
	kb_learn_close(&l);
}

/* One game per name (two seats of one name count once, lost if either
 * won), won when A won; the seats' decisions summed; seat A and unnamed
 * seats observe nothing; a frozen store is left alone. */
Test(bot_rules, learn_commit_records_one_game_per_name, .timeout = 30)
{
	char dir[256];
	const char *const names[KB_SEATS] = {NULL, "pat", "pat", "kim"};
	kb_learn l;

	test_tmpdir(dir, sizeof dir);
	kb_learn_open(&l, dir, 0xf, names, NULL, NULL);
	cr_assert_not_null(l.store);
	observe_easy_choice(&l, 1);
	observe_easy_choice(&l, 2);
	observe_easy_choice(&l, 2);
	observe_easy_choice(&l, 0);
	cr_assert_eq(kb_learn_commit(&l, 2), 0);
	kb_learn_close(&l);
	kb_opp_rec pat = stored(dir, "pat"), kim = stored(dir, "kim");
	cr_assert(pat.games == 1 && pat.won == 0 && pat.lost == 1, "%lu %lu %lu", (unsigned long)pat.games,
		  (unsigned long)pat.won, (unsigned long)pat.lost);
	cr_assert_eq(pat.model.decisions, 3);
	cr_assert_eq(pat.model.easy_hits, 3);
	cr_assert_eq(pat.model.hard_hits, 0);
	cr_assert(kim.games == 1 && kim.won == 0 && kim.lost == 0);
	cr_assert_eq(kim.model.decisions, 0);

	kb_learn_open(&l, dir, 0xf, names, NULL, NULL);
	cr_assert_eq(l.easy_like[1], 1, "3 easy hits, 0 hard");
	cr_assert_eq(l.easy_like[3], 0);
	cr_assert_eq(kb_learn_commit(&l, 0), 0);
	kb_learn_close(&l);
	pat = stored(dir, "pat");
	cr_assert(pat.games == 2 && pat.won == 1 && pat.lost == 1);

	kb_learn_open_frozen(&l, dir, 0xf, names, NULL, NULL);
	observe_easy_choice(&l, 1);
	cr_assert_eq(kb_learn_commit(&l, 0), 0);
	kb_learn_close(&l);
	pat = stored(dir, "pat");
	cr_assert(pat.games == 2 && pat.model.decisions == 3, "frozen: nothing recorded");

	/* a seat absent from present is not named, nothing is recorded */
	kb_learn_open(&l, dir, 0x3, names, NULL, NULL);
	cr_assert_str_eq(l.name[1], "pat");
	cr_assert_str_eq(l.name[2], "");
	cr_assert_str_eq(l.name[3], "");
	kb_learn_close(&l);
	cr_assert_eq(kb_learn_commit(&l, 0), -1, "no store: nothing recorded");
}

/* A store the bot may only read (its files and folder not writable by
 * the test, unprivileged): the game is not recorded, said on diag, and the
 * commit answers -1 (learn.h). */
Test(bot_rules, learn_commit_to_a_read_only_store, .timeout = 30)
{
	char dir[256], store[300], path[400];
	const char *const names[KB_SEATS] = {NULL, "pat", NULL, NULL};
	kb_learn l;
	char *text = NULL;
	size_t len = 0;

	test_tmpdir(dir, sizeof dir);
	snprintf(store, sizeof store, "%s/st", dir);
	kb_learn_open(&l, store, 0x3, names, NULL, NULL);
	observe_easy_choice(&l, 1);
	cr_assert_eq(kb_learn_commit(&l, 0), 0);
	kb_learn_close(&l);
	snprintf(path, sizeof path, "%s/data.mdb", store);
	cr_assert_eq(chmod(path, 0444), 0);
	snprintf(path, sizeof path, "%s/lock.mdb", store);
	cr_assert_eq(chmod(path, 0444), 0);
	cr_assert_eq(chmod(store, 0555), 0);
	test_drop_root(dir); /* root would write anyway */
	FILE *diag = open_memstream(&text, &len);
	kb_learn_open(&l, store, 0x3, names, NULL, diag);
	cr_assert_not_null(l.store);
	cr_assert(kb_store_readonly(l.store));
	observe_easy_choice(&l, 1);
	cr_assert_eq(kb_learn_commit(&l, 0), -1, "nothing recorded");
	kb_learn_close(&l);
	fclose(diag);
	chmod(store, 0755);
	cr_assert_not_null(strstr(text, "kimble-bot: learning: game not recorded: the store is read-only\n"),
			   "%s", text);
	free(text);
}

/* The store's map bound from the environment: a bad value (not a
 * number, or 0: at least one byte) is named and ignored; learning goes
 * on. */
Test(bot_rules, learn_map_bound_from_the_environment, .timeout = 30)
{
	char dir[256];
	const char *const names[KB_SEATS] = {NULL, "pat", NULL, NULL};
	const char *const bad[] = {"12x", "0"};
	kb_learn l;
	char *text = NULL;
	size_t len = 0;
	FILE *diag;

	test_tmpdir(dir, sizeof dir);
	for (int b = 0; b < 2; b++) {
		setenv(KB_STORE_ENV_MAP_MAX, bad[b], 1);
		diag = open_memstream(&text, &len);
		kb_learn_open(&l, dir, 0x3, names, NULL, diag);
		cr_assert_not_null(l.store);
		kb_learn_close(&l);
		fclose(diag);
		cr_assert(strstr(text, "kimble-bot: learning: map bound ignored, using the default: ") == text,
			  "%s: %s", bad[b], text);
		cr_assert(strstr(text, KB_STORE_ENV_MAP_MAX) != NULL, "%s", text);
		free(text);
	}
	setenv(KB_STORE_ENV_MAP_MAX, "1048576", 1);
	diag = open_memstream(&text, &len);
	kb_learn_open(&l, dir, 0x3, names, NULL, diag);
	cr_assert_not_null(l.store);
	kb_learn_close(&l);
	fclose(diag);
	cr_assert_str_eq(text, "", "a good bound is used quietly");
	free(text);
	/* the least bound, one byte, is taken, not ignored */
	setenv(KB_STORE_ENV_MAP_MAX, "1", 1);
	diag = open_memstream(&text, &len);
	kb_learn_open(&l, dir, 0x3, names, NULL, diag);
	kb_learn_close(&l);
	fclose(diag);
	cr_assert_null(strstr(text, "map bound ignored"), "%s", text);
	free(text);
	/* frozen with no store: said, nothing created */
	char missing[300];
	snprintf(missing, sizeof missing, "%s/none", dir);
	diag = open_memstream(&text, &len);
	kb_learn_open_frozen(&l, missing, 0x3, names, NULL, diag);
	fclose(diag);
	cr_assert_null(l.store);
	cr_assert(strstr(text, "kimble-bot: learning frozen: no store at ") == text, "%s", text);
	free(text);
	cr_assert_eq(access(missing, F_OK), -1);
	/* a path too long for the store: said, not learning */
	char longpath[700];
	memset(longpath, 'p', sizeof longpath - 1);
	longpath[0] = '/';
	longpath[sizeof longpath - 1] = 0;
	diag = open_memstream(&text, &len);
	kb_learn_open(&l, longpath, 0x3, names, NULL, diag);
	fclose(diag);
	cr_assert_null(l.store);
	cr_assert_str_eq(text, "kimble-bot: learning: not learning this game: the store path is too long\n");
	free(text);
	cr_assert_eq(kb_learn_commit(&l, 0), -1);
	/* a bound too small for the game's record: the store opens, the
	 * commit fails and says so */
	char small[300];
	snprintf(small, sizeof small, "%s/small", dir);
	setenv(KB_STORE_ENV_MAP_MAX, "12288", 1);
	diag = open_memstream(&text, &len);
	kb_learn_open(&l, small, 0x3, names, NULL, diag);
	cr_assert_not_null(l.store, "%s", text);
	observe_easy_choice(&l, 1);
	cr_assert_eq(kb_learn_commit(&l, 0), -1);
	kb_learn_close(&l);
	fclose(diag);
	cr_assert_not_null(strstr(text, "kimble-bot: learning: game not recorded: "), "%s", text);
	free(text);
}

/* ---- the built-in opponent models ------------------------------------------------ */

static void probs_fixed(void *ctx, const kb_pos *pos, int seat, int die, unsigned mask,
			double prob[KB_PIECES])
{
	const double *p = ctx;

	(void)pos, (void)seat, (void)die, (void)mask;
	for (int i = 0; i < KB_PIECES; i++)
		prob[i] = p[i];
}

Test(bot_rules, opponent_models_pick_and_probs)
{
	kb_pos pos = test_pos(0x3, "10", "9 5 2", NULL, NULL);
	double prob[KB_PIECES];

	cr_assert_eq(kb_opponent_for_name("easy"), &kb_opponent_easy);
	cr_assert_eq(kb_opponent_for_name("random"), &kb_opponent_random);
	cr_assert_eq(kb_opponent_for_name("hard"), &kb_opponent_hard);
	cr_assert_eq(kb_opponent_for_name("other"), &kb_opponent_hard);
	cr_assert_eq(kb_opponent_pick(&kb_opponent_easy, &pos, 1, 1, 0x7), 2);
	cr_assert_eq(kb_opponent_pick(&kb_opponent_hard, &pos, 1, 1, 0x6), 1);
	cr_assert_eq(kb_opponent_pick(&kb_opponent_hard, &pos, 1, 1, 0), -1);
	kb_opponent_easy.probs(NULL, &pos, 1, 1, 0x7, prob);
	cr_assert(prob[0] == 0 && prob[1] == 0 && prob[2] == 1 && prob[3] == 0);
	kb_opponent_hard.probs(NULL, &pos, 1, 1, 0x6, prob);
	cr_assert(prob[0] == 0 && prob[1] == 1 && prob[2] == 0 && prob[3] == 0);
	kb_opponent_random.probs(NULL, &pos, 1, 1, 0x5, prob);
	cr_assert(prob[0] == 0.5 && prob[1] == 0 && prob[2] == 0.5 && prob[3] == 0);
	/* a model without a hint or a pick: its most probable legal index,
	 * the lowest among equals, an illegal one never */
	double p[KB_PIECES] = {0.2, 0.3, 0.3, 0.9};
	kb_opponent m = {probs_fixed, p, 0, "fixed", NULL};
	cr_assert_eq(kb_opponent_pick(&m, &pos, 1, 1, 0x7), 1);
	cr_assert_eq(kb_opponent_pick(&m, &pos, 1, 1, 0x5), 2);
	cr_assert_eq(kb_opponent_pick(&m, &pos, 1, 1, 0x1), 0);
	p[0] = 0.95;
	cr_assert_eq(kb_opponent_pick(&m, &pos, 1, 1, 0x7), 0, "the first index the most probable");
}

/* ---- the relay against a scripted server ---------------------------------------- */

typedef struct script_server {
	int listen_fd;
	int steps;
	const char *reply[4]; /* written after reading message k */
	char got[4][128];     /* message k as received, with its line end */
} script_server;

/* One connection: read a message line, write its reply, steps times;
 * then read until the relay closes. */
static void *serve_script(void *arg)
{
	script_server *h = arg;
	struct pollfd pf = {h->listen_fd, POLLIN, 0};

	if (poll(&pf, 1, 20000) <= 0)
		return NULL;
	int c = accept(h->listen_fd, NULL, NULL);
	if (c < 0)
		return NULL;
	for (int k = 0; k < h->steps; k++) {
		size_t n = 0;
		while (n < sizeof h->got[k] - 1) {
			struct pollfd pc = {c, POLLIN, 0};
			if (poll(&pc, 1, 20000) <= 0 || read(c, h->got[k] + n, 1) != 1)
				break;
			if (h->got[k][n++] == '\n')
				break;
		}
		h->got[k][n] = 0;
		test_write_all(c, h->reply[k], strlen(h->reply[k]));
	}
	drain_and_close(c);
	return NULL;
}

/* The transcript's records without their times (checked: "S.mmm "). */
static const char *untimed(const char *tx, char *out, size_t size)
{
	size_t n = 0;

	while (*tx && n + 1 < size) {
		const char *sp = strchr(tx, ' '), *dot = strchr(tx, '.');
		cr_assert(sp && dot && dot < sp && sp - dot == 4, "record time: %.40s", tx);
		cr_assert(atof(tx) >= 0 && atof(tx) < 60, "seconds since the relay started: %.40s", tx);
		const char *eol = strchr(tx, '\n');
		cr_assert_not_null(eol);
		n += (size_t)snprintf(out + n, size - n, "%.*s", (int)(eol + 1 - (sp + 1)), sp + 1);
		tx = eol + 1;
	}
	return out;
}

typedef struct relay_proc {
	pthread_t th;
	int *listen_fd;
	int port;
	test_proc proc;
} relay_proc;

/* Start serve(srv) on a fresh port (its socket in *listen_fd) and
 * kimble-relay --port PORT OPTS... -- /bin/sh -c SCRIPT in dir, stderr to
 * err_path (NULL: a fresh dir/relay.err). */
static void relay_start(relay_proc *rp, void *(*serve)(void *), void *srv, int *listen_fd,
			const char *const *opts, const char *script, const char *dir, const char *err_path)
{
	static char relay[512], port[16], errp[300];
	char *argv[16];
	int n = 0;

	*listen_fd = listen_any(&rp->port);
	cr_assert_geq(*listen_fd, 0);
	rp->listen_fd = listen_fd;
	snprintf(port, sizeof port, "%d", rp->port);
	pthread_create(&rp->th, NULL, serve, srv);
	argv[n++] = (char *)test_bin("kimble-relay", relay, sizeof relay);
	argv[n++] = "--port";
	argv[n++] = port;
	while (opts && *opts && n < 10)
		argv[n++] = (char *)*opts++;
	argv[n++] = "--";
	argv[n++] = "/bin/sh";
	argv[n++] = "-c";
	argv[n++] = (char *)script;
	argv[n] = NULL;
	if (!err_path) {
		snprintf(errp, sizeof errp, "%s/relay.err", dir);
		unlink(errp);
		err_path = errp;
	}
	cr_assert_eq(test_spawn(&rp->proc, argv, dir, 0, 0, err_path), 0);
}

/* Wait for the server thread, send the relay sig (when not 0), wait up
 * to 30 s for it; returns its wait status. */
static int relay_finish(relay_proc *rp, int sig)
{
	pthread_join(rp->th, NULL);
	close(*rp->listen_fd);
	if (sig)
		test_kill(&rp->proc, sig);
	return test_wait(&rp->proc, 30000);
}

/* A game through kimble-relay in a fresh folder, in which the server
 * answers the start message with one reply and nothing more. */
typedef struct reply_game {
	script_server h;
	relay_proc rp;
	char dir[256];
} reply_game;

/* Play g with kimble-relay OPTS... -- /bin/sh -c script; returns the
 * relay's status. */
static int one_reply_game(reply_game *g, const char *reply, const char *const *opts,
			  const char *script)
{
	test_tmpdir(g->dir, sizeof g->dir);
	g->h.steps = 1;
	g->h.reply[0] = reply;
	relay_start(&g->rp, serve_script, &g->h, &g->h.listen_fd, opts, script, g->dir, NULL);
	return relay_finish(&g->rp, 0);
}

/* A game of one roll: A (at 12 and 3, B at 20) rolls 2; the server
 * answers the start message with first (first_fmt with the roll line) and
 * A's move with the winner lines. */
typedef struct roll_game {
	reply_game g;
	char state[KB_ROLL_LINE_LEN + 2]; /* the roll line sent */
	char first[512];                  /* the first response */
	int status;                       /* the relay's */
} roll_game;

/* Play r with kimble-relay OPTS... -- /bin/sh -c script in a fresh
 * folder, which must exit with status; returns the relay's stderr. */
static const char *one_roll_game(roll_game *r, const char *first_fmt, const char *winner,
				 const char *const *opts, const char *script, int status)
{
	kb_pos pos = test_pos(0x3, "12 3", "20", NULL, NULL);

	test_tmpdir(r->g.dir, sizeof r->g.dir);
	state_of(r->state, &pos, 0, 2);
	snprintf(r->first, sizeof r->first, first_fmt, r->state);
	r->g.h.steps = 2;
	r->g.h.reply[0] = r->first;
	r->g.h.reply[1] = winner;
	relay_start(&r->g.rp, serve_script, &r->g.h, &r->g.h.listen_fd, opts, script, r->g.dir, NULL);
	r->status = relay_finish(&r->g.rp, 0);
	const char *err = test_read_file(r->g.dir, "relay.err");
	cr_assert(r->status >= 0 && WIFEXITED(r->status) && WEXITSTATUS(r->status) == status,
		  "relay status %d: %s", r->status, err);
	return err;
}

/* The bot's bytes go out unchanged (CR LF included) and the server's
 * come back unchanged, whole at the END line (not at another line of three
 * characters); the transcript escapes what is not printable
 * ASCII and the backslash, and drops a response line's CR; the game's
 * end closes the bot's stdin; --show captions the decision and the end;
 * the relay exits with the bot's status. */
Test(bot_rules, relay_passes_bytes_and_keeps_a_transcript, .timeout = 60)
{
	char want[1024], buf[2048];
	const char *opts[] = {"--show", "--transcript", "tx", NULL};
	roll_game r = {0};
	const char *err = one_roll_game(&r, TOKEN_LINE "\r\n~ \\\x1f\x7f\nENX\n%sEND\r\n", "Voittaja: B\nEND\n", opts,
				       "printf 'v001222\\r\\n'; head -n 5 > got1; printf '" TOKEN_LINE
				       "1\\n'; cat > got2; exit 7", 7);
	cr_assert(strstr(err, "== decision 1: the bot (A) rolled 2; pieces it may move: 0 1\n"
			      "A rolls 2, could move 0 (ring 12 -> ring 14), 1 (ring 3 -> ring 5)\n") != NULL,
		  "the decision and its roll in words:\n%s", err);
	cr_assert(strstr(err, "== the bot moves piece 1\n") != NULL, "%s", err);
	const char *last = strstr(err, "\n== last roll: A rolled 2; winner B\n");
	cr_assert(last != NULL, "%s", err);
	/* no move of A's 2 wins: no roll in words, no final position */
	cr_assert(strncmp(strchr(last + 1, '\n') + 1, "A rolls", 7) != 0, "%s", last);
	cr_assert_null(strstr(last, "== final position"), "%s", last);
	cr_assert_null(strstr(err, "(the bot)"), "%s", err);
	cr_assert_str_eq(r.g.h.got[0], "v001222\r\n");
	cr_assert_str_eq(r.g.h.got[1], TOKEN_LINE "1\n");
	cr_assert_str_eq(test_read_file(r.g.dir, "got1"), r.first);
	cr_assert_str_eq(test_read_file(r.g.dir, "got2"), "Voittaja: B\nEND\n");
	r.state[KB_ROLL_LINE_LEN] = 0;
	snprintf(want, sizeof want,
		 "# connected to 127.0.0.1 port %d\n"
		 "> v001222\\x0d\\x0a\n"
		 "< " TOKEN_LINE "\n"
		 "< ~ \\x5c\\x1f\\x7f\n"
		 "< ENX\n"
		 "< %s\n"
		 "< END\n"
		 "> " TOKEN_LINE "1\\x0a\n"
		 "< Voittaja: B\n"
		 "< END\n"
		 "# bot exited with status 7\n", r.g.rp.port, r.state);
	cr_assert_str_eq(untimed(test_read_file(r.g.dir, "tx"), buf, sizeof buf), want);
}

/* The transcript holds the lines of each response up to its END and no
 * more: a shorter response after a longer one (here the second, 16
 * bytes, where the first had a line end at byte 16) logs its own lines
 * only, not what the buffer held after them. */
Test(bot_rules, relay_transcript_ends_each_response_at_its_end, .timeout = 60)
{
	const char *opts[] = {"--transcript", "tx", NULL};
	char want[512], buf[1024];
	reply_game g = {0};

	test_tmpdir(g.dir, sizeof g.dir);
	g.h.steps = 2;
	g.h.reply[0] = "0123456789abcdef\nEND\n";
	g.h.reply[1] = "Voittaja: B\nEND\n";
	relay_start(&g.rp, serve_script, &g.h, &g.h.listen_fd, opts,
		    "printf 'v001200\\n'; head -n 2 >/dev/null; printf 'x\\n'; cat >/dev/null", g.dir, NULL);
	int st = relay_finish(&g.rp, 0);
	cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "relay status %d: %s", st,
		  test_read_file(g.dir, "relay.err"));
	snprintf(want, sizeof want,
		 "# connected to 127.0.0.1 port %d\n"
		 "> v001200\\x0a\n"
		 "< 0123456789abcdef\n"
		 "< END\n"
		 "> x\\x0a\n"
		 "< Voittaja: B\n"
		 "< END\n"
		 "# bot exited with status 0\n", g.rp.port);
	cr_assert_str_eq(untimed(test_read_file(g.dir, "tx"), buf, sizeof buf), want);
}

/* Two messages in one write of the bot: the first goes out, the second
 * waits in the relay for the first's response and then goes out whole,
 * as it was written. */
Test(bot_rules, relay_keeps_the_next_message_for_its_turn, .timeout = 60)
{
	script_server h = {0};
	relay_proc rp;
	char dir[256];

	test_tmpdir(dir, sizeof dir);
	h.steps = 2;
	h.reply[0] = TOKEN_LINE "\nEND\n";
	h.reply[1] = "Voittaja: B\nEND\n";
	relay_start(&rp, serve_script, &h, &h.listen_fd, NULL,
		    "printf 'v001200\\n" TOKEN_LINE "3\\r\\n'; cat >got", dir, NULL);
	int st = relay_finish(&rp, 0);
	cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "relay status %d: %s", st,
		  test_read_file(dir, "relay.err"));
	cr_assert_str_eq(h.got[0], "v001200\n");
	cr_assert_str_eq(h.got[1], TOKEN_LINE "3\r\n");
	cr_assert_str_eq(test_read_file(dir, "got"), TOKEN_LINE "\nEND\nVoittaja: B\nEND\n");
}

/* A response whose first line is empty is whole at its END line too,
 * and reaches the bot as it came. */
Test(bot_rules, relay_response_with_an_empty_first_line, .timeout = 60)
{
	reply_game g = {0};

	int st = one_reply_game(&g, "\nEND\n", NULL, "printf 'v001200\\n'; head -n 2 >got; exit 4");
	cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 4, "relay status %d: %s", st,
		  test_read_file(g.dir, "relay.err"));
	cr_assert_str_eq(test_read_file(g.dir, "got"), "\nEND\n");
}

/* The grace is for after the game: a bot that ends its output before the
 * game is over is waited for, however long it takes to exit, and the
 * relay ends with its status (kimble-relay(1)), not killed at the grace's
 * end (here 0 ms, and a bot that takes a second to exit). */
Test(bot_rules, relay_waits_for_a_bot_that_quits_before_the_end, .timeout = 60)
{
	reply_game g = {0};
	const char *opts[] = {"--grace-ms", "0", NULL};

	int st = one_reply_game(&g, "END\n", opts,
				"printf 'v001200\\n'; head -n 1 >/dev/null; exec >&-; sleep 1; exit 5");
	cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 5, "relay status %d: %s", st,
		  test_read_file(g.dir, "relay.err"));
	cr_assert_null(strstr(test_read_file(g.dir, "relay.err"), "grace"), "%s",
		       test_read_file(g.dir, "relay.err"));
}

/* A bot killed by a signal: the relay's status is 128 + the signal. */
Test(bot_rules, relay_status_of_a_killed_bot, .timeout = 60)
{
	reply_game g = {0};

	/* a response of END alone is whole too */
	int st = one_reply_game(&g, "END\n", NULL,
				"printf 'v001200\\n'; head -n 1 >got; kill -TERM $$");
	cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 128 + SIGTERM, "relay status %d: %s", st,
		  test_read_file(g.dir, "relay.err"));
	cr_assert_str_eq(g.h.got[0], "v001200\n");
	cr_assert_str_eq(test_read_file(g.dir, "got"), "END\n");
}

/* ---- rollouts: the simulated games decide among the close candidates ------- */

/* A (pieces at progress 4 and 1) rolls a 2: piece 0 to square 6
 * captures B's piece at progress 27, which wins with its next 1; piece 1
 * to 3 leaves it there.  With zero weights the search sees two equal
 * leaves; rollouts (no weights either: only wins count) see B win most
 * samples after piece 1, none after piece 0. */
Test(bot_rules, rollouts_see_the_capture_the_leaves_miss, .timeout = 30)
{
	static kb_weights zero;
	static const kb_rollout_params on = {2, 64, 20, 0.5, 2};
	const kb_opponent *opp[KB_SEATS] = {NULL, &kb_opponent_hard, NULL, NULL};
	kb_pos pos = test_pos(0x3, "4 1", "31 30 29 27", NULL, NULL);
	const double v[KB_PIECES] = {0.5, 0.5, -1, -1};
	int off_picks[KB_PIECES] = {0};

	cr_assert_eq(kb_legal(&pos, 0, 2), 0x3u);
	for (uint64_t seed = 0; seed < 12; seed++) {
		kb_search bot;
		kb_search_init(&bot, 0x3, opp, seed, 0);
		bot.w = &zero;
		cr_assert_eq(kb_rollout_choose(&bot, &on, &pos, 2, 0x3, v, 2), 0, "seed %d", (int)seed);
		cr_assert_eq(kb_rollout_choose(&bot, &on, &pos, 2, 0x3, v, 3), -1, "more leaves than max_leaves");
		bot.rollout = &on;
		cr_assert_eq(kb_search_decide(&bot, &pos, 2, 0x3, NULL), 0, "seed %d: the search with rollouts",
			     (int)seed);
		/* a second decision: its own leaves (2) count, not the bot's total */
		cr_assert_eq(kb_search_decide(&bot, &pos, 2, 0x3, NULL), 0);
		kb_rollout_params few = on;
		few.max_leaves = 1;
		bot.rollout = &few;
		off_picks[kb_search_decide(&bot, &pos, 2, 0x3, NULL)]++;
	}
	cr_assert(off_picks[0] > 0 && off_picks[1] > 0, "without rollouts the tie-break decides: %d %d",
		  off_picks[0], off_picks[1]);
}

/* Candidates: within margin of the best (the bound included), at most
 * `candidates` of them, best first. */
Test(bot_rules, rollout_candidates_within_the_margin, .timeout = 30)
{
	static kb_weights zero;
	const kb_opponent *opp[KB_SEATS] = {NULL, &kb_opponent_hard, NULL, NULL};
	kb_pos pos = test_pos(0x3, "4 1", "31 30 29 27", NULL, NULL);
	kb_search bot;

	kb_search_init(&bot, 0x3, opp, 1, 0);
	bot.w = &zero;
	kb_rollout_params rp = {2, 16, 20, 0.25, 100};
	const double close[KB_PIECES] = {0.25, 0.5, -1, -1};
	cr_assert_eq(kb_rollout_choose(&bot, &rp, &pos, 2, 0x3, close, 0), 0, "0.5 - 0.25 is within");
	rp.margin = 0.2;
	cr_assert_eq(kb_rollout_choose(&bot, &rp, &pos, 2, 0x3, close, 0), -1, "one candidate");
	rp.candidates = 1;
	rp.margin = 1;
	cr_assert_eq(kb_rollout_choose(&bot, &rp, &pos, 2, 0x3, close, 0), -1, "at most one compared");
	rp.candidates = 2;
	rp.horizon = 1000; /* capped at KB_ROLLOUT_MAX_HORIZON */
	cr_assert_eq(kb_rollout_choose(&bot, &rp, &pos, 2, 0x3, close, 0), 0);
	cr_assert_eq(kb_rollout_choose(&bot, &rp, &pos, 2, 0x1, close, 0), -1, "one legal move");
}

/* ---- kimble-bot's options ------------------------------------------------------- */

/* Run kimble-bot with args, input on stdin; its stdout into out. */
static int run_bot(const char *const *args, const char *input, char *out, size_t size, const char *dir)
{
	char bin[512], errp[300];
	char *argv[16] = {(char *)test_bin("kimble-bot", bin, sizeof bin)};
	int n = 1;
	test_proc proc;
	test_reader rd;

	while (*args && n < 15)
		argv[n++] = (char *)*args++;
	argv[n] = NULL;
	snprintf(errp, sizeof errp, "%s/bot.err", dir);
	unlink(errp); /* test_spawn appends */
	cr_assert_eq(test_spawn(&proc, argv, dir, 1, 1, errp), 0);
	test_write_all(proc.in, input, strlen(input));
	close(proc.in);
	test_reader_init(&rd, proc.out);
	size_t len = 0;
	long k;
	while (len + 1 < size && (k = test_getline(&rd, out + len, size - len - 1, 20000)) >= 0) {
		len += (size_t)k;
		out[len++] = '\n';
	}
	out[len] = 0;
	close(proc.out);
	return test_wait(&proc, 20000);
}

/* kimble-bot LINEUP 5 --explain --state store --budget-ms 0 in dir on
 * input (written there): one decision, A at 12 and 3 rolling 2, B at 20,
 * then the input ends (status KB_CLIENT_IO); out gets its stdout.
 * Returns its stderr. */
static const char *explain_first_decision(const char *dir, const char *lineup, const char *store,
					  char input[512], char out[512])
{
	char st[KB_ROLL_LINE_LEN + 2];
	kb_pos pos = test_pos(0x3, "12 3", "20", NULL, NULL);

	state_of(st, &pos, 0, 2);
	snprintf(input, 512, TOKEN_LINE "\n%sEND\n", st);
	unsetenv("KIMBLE_LEARN");
	const char *args[] = {lineup, "5", "--explain", "--state", store, "--budget-ms", "0", NULL};
	int rc = run_bot(args, input, out, 512, dir);
	cr_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == KB_CLIENT_IO, "status %d", rc);
	return test_read_file(dir, "bot.err");
}

/* kimble-bot --no-learn follows an opponent's decided roll (B moves one
 * of two pieces) and answers its own: with learning off nothing observes
 * the opponent, whatever the client's memory held before it was set up
 * (the bot's main zeroes it). */
Test(bot_rules, bot_without_learning_follows_an_opponents_decision, .timeout = 60)
{
	kb_pos pos = test_pos(0x3, "12 3", "10 3", NULL, NULL);
	char dir[256], store[300], b_line[KB_ROLL_LINE_LEN + 2], a_line[KB_ROLL_LINE_LEN + 2];
	char input[512], out[512];

	test_tmpdir(dir, sizeof dir);
	snprintf(store, sizeof store, "%s/store", dir);
	cr_assert_eq(kb_count(kb_legal(&pos, 1, 2)), 2, "B has a choice");
	state_of(b_line, &pos, 1, 2);
	cr_assert_eq(kb_apply(&pos, 1, 0, 2), -1, "no capture");
	cr_assert_eq(kb_next_seat(&pos, 1, 2), 0);
	cr_assert_geq(kb_count(kb_legal(&pos, 0, 2)), 2, "A has a choice");
	state_of(a_line, &pos, 0, 2);
	snprintf(input, sizeof input, TOKEN_LINE "\n%s%sEND\n", b_line, a_line);
	const char *args[] = {"hard", "5", "--no-learn", "--state", store, NULL};
	int rc = run_bot(args, input, out, sizeof out, dir);
	cr_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == KB_CLIENT_IO, "status %d: %s", rc,
		  test_read_file(dir, "bot.err"));
	cr_assert(strncmp(out, "v001200\n" TOKEN_LINE, 8 + 65) == 0 && strlen(out) == 8 + 67, "%s", out);
}

/* The start message from OPPONENTS, the move with --explain's lines,
 * the store created (or not, with --no-learn and KIMBLE_LEARN=0). */
Test(bot_rules, bot_options_explain_state_and_learning, .timeout = 60)
{
	char dir[256], store[300], data[400], out[512], input[512];

	test_tmpdir(dir, sizeof dir);
	snprintf(store, sizeof store, "%s/store", dir);
	snprintf(data, sizeof data, "%s/data.mdb", store);
	const char *err = explain_first_decision(dir, "easy,-", store, input, out);
	cr_assert(strncmp(out, "v001100\n" TOKEN_LINE, 8 + 65) == 0 && strlen(out) == 8 + 67, "%s", out);
	int rc;
	cr_assert(strstr(err, "kimble-bot: die 2, piece 0 (progress 12): win 0.") == err, "%s", err);
	cr_assert(strstr(err, "\nkimble-bot: die 2, piece 1 (progress 3): win 0.") != NULL, "%s", err);
	cr_assert(strstr(err, "kimble-bot: standard input ended before the game was over\n") != NULL, "%s", err);
	cr_assert_eq(access(data, F_OK), 0, "the store was created");

	char other[300], other_data[400];
	snprintf(other, sizeof other, "%s/other", dir);
	snprintf(other_data, sizeof other_data, "%s/data.mdb", other);
	const char *quiet[] = {"hard,-", "5", "--no-learn", "--state", other, NULL};
	rc = run_bot(quiet, input, out, sizeof out, dir);
	cr_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == KB_CLIENT_IO, "status %d: %s", rc, test_read_file(dir, "bot.err"));
	cr_assert(strncmp(out, "v001200\n", 8) == 0, "%s", out);
	cr_assert_null(strstr(test_read_file(dir, "bot.err"), "win 0."), "no --explain: no values");
	cr_assert_eq(access(other, F_OK), -1, "--no-learn: no store");
	setenv("KIMBLE_LEARN", "0", 1);
	const char *frozen[] = {"hard", "5", "--state", other, NULL};
	rc = run_bot(frozen, input, out, sizeof out, dir);
	cr_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == KB_CLIENT_IO);
	cr_assert_eq(access(other, F_OK), -1, "KIMBLE_LEARN=0: no store created");
	setenv("KIMBLE_LEARN", "1", 1);
	rc = run_bot(frozen, input, out, sizeof out, dir);
	cr_assert_eq(access(other_data, F_OK), 0, "KIMBLE_LEARN=1 learns");
	unsetenv("KIMBLE_LEARN");
	const char *help[] = {"-h", NULL};
	rc = run_bot(help, "", out, sizeof out, dir);
	cr_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 0);
	cr_assert(strncmp(out, "NAME\n    kimble-bot - ", 22) == 0, "%s", out);
	const char *unknown[] = {"-x", "hard", "1", NULL};
	rc = run_bot(unknown, "", out, sizeof out, dir);
	cr_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == KB_EXIT_USAGE);
	cr_assert(strstr(test_read_file(dir, "bot.err"), "unknown option \"-x\"") != NULL);
	const char *dash[] = {"-,easy", "1", NULL};
	rc = run_bot(dash, "", out, sizeof out, dir);
	cr_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == KB_CLIENT_IO);
	cr_assert_str_eq(out, "v001010\n");
}

/* kimble-bot plays a learned opponent as learn.h says: "shy", 60
 * decisions in the store moving its rearmost safe piece, is modelled by
 * that rule and evaluated as an easy-like seat (kb_learn_set_evaluation).
 * The --explain values are those of a search set up so; without the
 * easy-like evaluation they differ. */
Test(bot_rules, bot_evaluates_a_learned_easy_like_seat_as_easy, .timeout = 60)
{
	char dir[256], store[300], out[512], input[512];
	kb_pos pos = test_pos(0x3, "12 3", "20", NULL, NULL);
	const char *const names[KB_SEATS] = {NULL, "shy", NULL, NULL};

	test_tmpdir(dir, sizeof dir);
	snprintf(store, sizeof store, "%s/store", dir);
	test_store_decisions(store, "shy", KB_R_SAFE_REAR, 60);
	const char *err = explain_first_decision(dir, "shy,-", store, input, out);

	char *want[2] = {NULL, NULL};
	for (int learned = 0; learned < 2; learned++) {
		const kb_opponent *opp[KB_SEATS] = {NULL, &kb_opponent_hard, NULL, NULL};
		static kb_learn l;
		static kb_search bot;
		size_t len = 0;
		kb_learn_open(&l, store, 0x3, names, NULL, NULL);
		kb_learn_models(&l, opp);
		cr_assert(opp[1] == &l.opp[1] && l.easy_like[1], "shy is learned as easy-like");
		kb_search_init(&bot, 0x3, opp, 5, 0);
		if (learned)
			kb_learn_set_evaluation(&l, &bot);
		cr_assert_eq(bot.kinds[1], learned ? KB_EASY : KB_HARD);
		bot.explain = open_memstream(&want[learned], &len);
		kb_search_decide(&bot, &pos, 2, kb_legal(&pos, 0, 2), NULL);
		fclose(bot.explain);
		kb_learn_close(&l);
	}
	cr_assert_str_neq(want[0], want[1], "the evaluation kind shows in the values");
	cr_assert(strncmp(err, want[1], strlen(want[1])) == 0, "want\n%s\ngot\n%s", want[1], err);
	free(want[0]);
	free(want[1]);
}

/* 1 MiB from the bot without a whole message (spaces: a prefix of the
 * next one), or from the server without END: the relay gives up, named. */
Test(bot_rules, relay_bounds_its_buffers, .timeout = 60)
{
	static char big[(1 << 20) + 1];
	char dir[256];

	for (int side = 0; side < 2; side++) {
		script_server h = {0};
		relay_proc rp;
		test_tmpdir(dir, sizeof dir);
		memset(big, 'y', sizeof big - 1);
		h.steps = 1;
		h.reply[0] = side ? big : TOKEN_LINE "\n";
		relay_start(&rp, serve_script, &h, &h.listen_fd, NULL,
			    side ? "printf 'v001200\\n'; exec sleep 30"
				 : "printf 'v001200\\n'; head -c 1048576 /dev/zero | tr '\\0' ' '; exec cat >/dev/null",
			    dir, NULL);
		int st = relay_finish(&rp, 0);
		const char *err = test_read_file(dir, "relay.err");
		cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 69, "side %d: relay status %d: %s", side, st, err);
		cr_assert_str_eq(err, "kimble-relay: more than 1048576 bytes without a complete message or response\n");
	}
}

/* A response of more than half the relay's buffer (a line of 600,000
 * bytes, then the game's end) reaches the bot whole, and the relay ends
 * with the bot's status. */
Test(bot_rules, relay_passes_a_large_response_whole, .timeout = 60)
{
	static char big[600000 + 32];
	script_server h = {0};
	relay_proc rp;
	char dir[256], path[300];
	struct stat st_got;

	test_tmpdir(dir, sizeof dir);
	memset(big, 'y', 600000);
	strcpy(big + 600000, "\nVoittaja: B\nEND\n");
	h.steps = 1;
	h.reply[0] = big;
	relay_start(&rp, serve_script, &h, &h.listen_fd, NULL, "printf 'v001200\\n'; cat >got; exit 6", dir, NULL);
	int st = relay_finish(&rp, 0);
	cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 6, "relay status %d: %s", st,
		  test_read_file(dir, "relay.err"));
	snprintf(path, sizeof path, "%s/got", dir);
	cr_assert_eq(stat(path, &st_got), 0);
	cr_assert_eq(st_got.st_size, (off_t)strlen(big));
}

typedef struct flood_server {
	int listen_fd;
	const char *fifo; /* the bot writes a line here once it has flooded */
	char start[80];
	size_t x_bytes;   /* bytes of the next message that were 'x' */
} flood_server;

/* Read the start message; wait for the bot's word that its flood is
 * written; answer; then read 500,000 bytes of the next message. */
static void *serve_flood(void *arg)
{
	flood_server *h = arg;
	static char buf[500000];
	char word[8];
	struct pollfd pf = {h->listen_fd, POLLIN, 0};

	if (poll(&pf, 1, 20000) <= 0)
		return NULL;
	int c = accept(h->listen_fd, NULL, NULL);
	read_message(c, h->start);
	int fd = open(h->fifo, O_RDONLY);
	if (fd < 0 || read(fd, word, sizeof word) <= 0)
		return NULL;
	close(fd);
	test_write_all(c, TOKEN_LINE "\nEND\n", KB_TOKEN_LEN + 5);
	size_t n = 0;
	while (n < sizeof buf) {
		struct pollfd pc = {c, POLLIN, 0};
		ssize_t k;
		if (poll(&pc, 1, 20000) <= 0 || (k = read(c, buf + n, sizeof buf - n)) <= 0)
			break;
		n += (size_t)k;
	}
	while (h->x_bytes < n && buf[h->x_bytes] == 'x')
		h->x_bytes++;
	close(c);
	return NULL;
}

/* A fresh folder dir holding a named pipe fifo (dir/name). */
static void fifo_in(char dir[256], char fifo[300], const char *name)
{
	test_tmpdir(dir, 256);
	snprintf(fifo, 300, "%s/%s", dir, name);
	cr_assert_eq(mkfifo(fifo, 0600), 0, "%s", fifo);
}

/* While a message waits for its response the bot writes 600,000 bytes
 * without a line end (one bad message, passed on as it is): the relay
 * keeps them (its buffer holds 1 MiB) and sends them unchanged. */
Test(bot_rules, relay_passes_a_large_message_unchanged, .timeout = 60)
{
	flood_server h = {0};
	relay_proc rp;
	char dir[256], fifo[300];

	fifo_in(dir, fifo, "fifo");
	h.fifo = fifo;
	relay_start(&rp, serve_flood, &h, &h.listen_fd, NULL,
		    "printf 'v001200\\n'; head -c 600000 /dev/zero | tr '\\0' x; echo >fifo; exec sleep 30", dir, NULL);
	relay_finish(&rp, SIGTERM);
	cr_assert_str_eq(h.start, "v001200\n");
	cr_assert_eq(h.x_bytes, 500000, "the flood arrived as sent: %zu bytes of 'x' first (%s)", h.x_bytes,
		     test_read_file(dir, "relay.err"));
}

/* A server that accepted the message and says nothing for
 * KB_RELAY_SILENCE_MS (3 s) is given up: the message is resent on a new
 * connection (its log: no failed write on the way). */
Test(bot_rules, relay_resends_after_silence, .timeout = 60)
{
	half_server h = {0};
	const char *dir = h.dir;

	int st = relay_against(serve_silent_then_win, &h, "3000", "echo v001200; head -n 2 >got.txt");
	cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "relay status %d: %s", st,
		  test_read_file(dir, "relay.err"));
	cr_assert_str_eq(h.got[0], "v001200\n");
	cr_assert_str_eq(h.got[1], "v001200\n", "resent on the second connection");
	cr_assert_str_eq(test_read_file(dir, "got.txt"), "Voittaja: B\nEND\n");
	cr_assert(strstr(test_read_file(dir, "tx"), "# no response; reconnecting and resending\n") != NULL, "%s",
		  test_read_file(dir, "tx"));
	/* the silent connection is closed and forgotten: the resend goes to a
	 * new one at once, not first to the closed descriptor */
	cr_assert_null(strstr(test_read_file(dir, "tx"), "write to server failed"), "%s", test_read_file(dir, "tx"));
}

/* Serve one connection that answers the first message with "Voittaja: B"
 * and run /bin/sh -c with cmd_fmt (%s the relay's path, %d the port) in
 * dir, its stderr to dir/sh.err; returns its wait status. */
static int shell_relay(const char *dir, const char *cmd_fmt)
{
	script_server h = {0};
	pthread_t th;
	char relay[512], cmd[1200], path[300];
	int p;

	h.steps = 1;
	h.reply[0] = "Voittaja: B\nEND\n";
	h.listen_fd = listen_any(&p);
	pthread_create(&th, NULL, serve_script, &h);
	snprintf(cmd, sizeof cmd, cmd_fmt, test_bin("kimble-relay", relay, sizeof relay), p);
	char *argv[] = {"/bin/sh", "-c", cmd, NULL};
	test_proc proc;
	snprintf(path, sizeof path, "%s/sh.err", dir);
	cr_assert_eq(test_spawn(&proc, argv, dir, 0, 0, path), 0);
	int st = test_wait(&proc, 30000);
	pthread_join(th, NULL);
	close(h.listen_fd);
	return st;
}

/* After the game the relay waits for the bot (here: stdout closed, then
 * idle until the grace ends) without reading its own standard input:
 * what follows the relay in a shell's input is still there. */
Test(bot_rules, relay_never_reads_its_own_stdin, .timeout = 60)
{
	char dir[256];

	test_tmpdir(dir, sizeof dir);
	int st = shell_relay(dir, "echo 'keep me' > in; { '%s' --port %d --grace-ms 300 -- /bin/sh -c "
			     "\"printf 'v001200\\n'; head -n 2 >/dev/null; exec >&-; exec sleep 30\"; echo rc=$?; cat; } <in >out");
	cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d: %s", st, test_read_file(dir, "sh.err"));
	cr_assert_str_eq(test_read_file(dir, "out"), "rc=124\nkeep me\n", "%s", test_read_file(dir, "sh.err"));
	cr_assert_str_eq(test_read_file(dir, "sh.err"),
			 "kimble-relay: the bot did not exit within 300 ms after the game; killed\n");
}

/* shell_relay with cmd_fmt, whose bot keeps what it gets in dir/got: the
 * shell ends well and the bot got the server's answer. */
static void relay_game_in_shell(const char *dir, const char *cmd_fmt)
{
	int st = shell_relay(dir, cmd_fmt);
	cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d: %s", st, test_read_file(dir, "sh.err"));
	cr_assert_str_eq(test_read_file(dir, "got"), "Voittaja: B\nEND\n");
}

/* A relay started with its standard input closed (its socket then takes
 * descriptor 0) still hears the server. */
Test(bot_rules, relay_with_stdin_closed, .timeout = 60)
{
	char dir[256];

	test_tmpdir(dir, sizeof dir);
	relay_game_in_shell(dir, "'%s' --port %d -- /bin/sh -c \"printf 'v001200\\n'; cat > got\" <&-");
}

/* The relay holds no socket before it connects: connecting closes no
 * descriptor of its own, so its standard input is still what it was
 * given (seen by the bot, its child, in /proc) and the socket is
 * elsewhere. */
Test(bot_rules, relay_keeps_its_stdin_when_connecting, .timeout = 60)
{
	char dir[256];

	test_tmpdir(dir, sizeof dir);
	relay_game_in_shell(dir, "'%s' --port %d -- /bin/sh -c "
			    "\"readlink /proc/\\$PPID/fd/0 >fd0; printf 'v001200\\n'; cat > got\" </dev/null");
	cr_assert_str_eq(test_read_file(dir, "fd0"), "/dev/null\n");
}

/* SIGTERM to the relay ends the bot's whole process group too: the pipe
 * the bot holds as its stderr reaches end of file. */
Test(bot_rules, relay_sigterm_takes_the_bot_along, .timeout = 120)
{
	script_server h = {0};
	relay_proc rp;
	char dir[256], fifo[300], buf[64];

	fifo_in(dir, fifo, "err");
	int rd = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	cr_assert_geq(rd, 0);
	h.steps = 1;
	h.reply[0] = "";
	relay_start(&rp, serve_script, &h, &h.listen_fd, NULL, "printf 'v001200\\n'; echo up >&2; exec sleep 30", dir,
		    fifo);
	size_t n = 0;
	while (n < 3) {
		struct pollfd pf = {rd, POLLIN, 0};
		ssize_t k;
		cr_assert_gt(poll(&pf, 1, 30000), 0, "the bot did not start");
		if ((k = read(rd, buf + n, sizeof buf - n)) > 0)
			n += (size_t)k;
	}
	cr_assert(strncmp(buf, "up\n", 3) == 0);
	test_kill(&rp.proc, SIGTERM);
	int st = test_wait(&rp.proc, 30000);
	cr_assert(st >= 0 && WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "relay status %d", st);
	int eof = 0;
	for (;;) {
		struct pollfd pf = {rd, POLLIN, 0};
		if (poll(&pf, 1, 20000) <= 0)
			break;
		ssize_t k = read(rd, buf, sizeof buf);
		if (k == 0) {
			eof = 1;
			break;
		}
		if (k < 0)
			break;
	}
	cr_assert(eof, "the bot still holds its stderr: it outlived the relay");
	close(rd);
	pthread_join(rp.th, NULL);
	close(h.listen_fd);
}

/* Equal search values keep index order, and equal rollout results go to
 * the first candidate: with zero weights and a horizon too short for
 * anyone to win every sample is worth 1/2, so the lowest index wins,
 * whether two, three or four candidates are compared. */
Test(bot_rules, rollout_ties_go_to_the_lowest_index, .timeout = 30)
{
	static kb_weights zero;
	const kb_opponent *opp[KB_SEATS] = {NULL, &kb_opponent_hard, NULL, NULL};
	kb_pos pos = test_pos(0x3, "12 9 5 2", "20", NULL, NULL);
	const double v[KB_PIECES] = {0.5, 0.5, 0.5, 0.5};

	cr_assert_eq(kb_legal(&pos, 0, 1), 0xfu);
	for (int n = 2; n <= 4; n++) {
		kb_rollout_params rp = {n, 8, 5, 0.1, 100};
		kb_search bot;
		kb_search_init(&bot, 0x3, opp, 3, 0);
		bot.w = &zero;
		cr_assert_eq(kb_rollout_choose(&bot, &rp, &pos, 1, 0xf, v, 0), 0, "%d candidates", n);
		cr_assert_eq(kb_rollout_choose(&bot, &rp, &pos, 1, 0xe, v, 0), 1, "%d candidates", n);
	}
}

/* --spsa: the win rate before and after (the same games), one line per
 * step between them.  Run without test_run_prog's 20 s bound: 48,000
 * games take a while under ASan. */
Test(bot_rules, tune_spsa_reports_the_win_rate, .timeout = 300)
{
	char dir[256], want[128];
	const char *err = run_tune_sh("exec", "--rounds 0 --spsa 1 --spsa-games 1 --spsa-step 0", 280000, dir);
	double before;
	cr_assert_eq(sscanf(err, "kimble-tune: win rate before SPSA %lf\nkimble-tune: spsa 1: ", &before), 1, "%s", err);
	cr_assert(before > 0.3 && before < 0.9, "%s", err);
	snprintf(want, sizeof want, "\nkimble-tune: win rate after SPSA %.4f\n", before);
	cr_assert(strstr(err, want) != NULL, "step 0 changes nothing, the same games: %s", err);
	cr_assert(strstr(test_read_file(dir, "out"), " --spsa 1 --spsa-games 1 --spsa-step 0 --td 0 ") != NULL);
}

/* ---- every option's bounds: the bound itself accepted, one past refused ---- */

/* An option's lowest and highest values; step: how far past them the
 * refused values lie (1 for whole numbers). */
typedef struct bound_case {
	const char *opt;
	double lo, hi, step;
} bound_case;

/* OPT VALUE --bogus fails on --bogus (VALUE was accepted); OPT PAST fails
 * on OPT, out of range. */
static void check_bound(const char *prog, const char *const *lead, const char *opt,
			const char *value, const char *past)
{
	const char *args[8], *err;
	char want[128];
	int k = 0;

	for (const char *const *l = lead; *l; l++)
		args[k++] = *l;
	int at = k;
	args[k++] = opt;
	args[k++] = value;
	args[k++] = "--bogus";
	args[k] = NULL;
	cr_assert_eq(test_run_prog(prog, args, NULL, &err), KB_EXIT_USAGE, "%s %s", opt, value);
	cr_assert(strstr(err, "unknown option \"--bogus\"") != NULL, "%s %s accepted? %s", opt, value, err);
	args[at + 1] = past;
	args[at + 2] = NULL;
	cr_assert_eq(test_run_prog(prog, args, NULL, &err), KB_EXIT_USAGE, "%s %s", opt, past);
	snprintf(want, sizeof want, "%s \"%s\": out of range", opt, past);
	cr_assert(strstr(err, want) != NULL, "want %s, got %s", want, err);
}

static void check_bounds(const char *prog, const char *const *lead, const bound_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const bound_case *c = &cases[i];
		int places = c->step >= 1 ? 0 : c->step >= 0.01 ? 2 : 3;
		char lo[32], below[32], hi[32], above[32];
		snprintf(lo, sizeof lo, "%.*f", places, c->lo);
		snprintf(below, sizeof below, "%.*f", places, c->lo - c->step);
		snprintf(hi, sizeof hi, "%.*f", places, c->hi);
		snprintf(above, sizeof above, "%.*f", places, c->hi + c->step);
		check_bound(prog, lead, c->opt, lo, below);
		check_bound(prog, lead, c->opt, hi, above);
	}
}

Test(bot_rules, option_bounds_of_the_three_programs, .timeout = 120)
{
	static const bound_case tune[] = {
		{"--rounds", 0, 1e6, 1}, {"--games", 1, 1e12, 1}, {"--depth", 0, 100, 1},
		{"--epochs", 0, 1e6, 1}, {"--spsa", 0, 1e12, 1}, {"--spsa-games", 0, 1e12, 1},
		{"--td", 0, 1e12, 1}, {"--report", 0, 1e12, 1}, {"--report-level", 0, 100, 1},
		{"--seed", 0, 1e15, 1}, {"--spsa-step", 0, 1e6, 0.01}, {"--td-lambda", 0, 1, 0.001},
		{"--td-rate", 0, 10, 0.001},
	};
	static const bound_case relay[] = {
		{"--port", 1, 65535, 1}, {"--retry-ms", 0, 3600000, 1}, {"--grace-ms", 0, 60000, 1},
	};
	static const bound_case bot[] = {{"--budget-ms", 0, 100000, 1}};
	const char *none[] = {NULL}, *bot_lead[] = {"hard", "1", NULL};

	check_bounds("kimble-tune", none, tune, sizeof tune / sizeof tune[0]);
	check_bounds("kimble-relay", none, relay, sizeof relay / sizeof relay[0]);
	check_bounds("kimble-bot", bot_lead, bot, sizeof bot / sizeof bot[0]);
}

/* kimble-bot: a word starting with '-' is an option unless it is a
 * lineup ("-", "-,...") or a negative number (a SEED out of range). */
Test(bot_rules, bot_dash_words, .timeout = 60)
{
	static const char *const cases[][3] = {
		{"-0", "hard", "SEED \"-0\""}, {"-9", "hard", "SEED \"-9\""},
		{"-/", "hard", "unknown option \"-/\""}, {"-:", "hard", "unknown option \"-:\""},
		{"--x", "hard", "unknown option \"--x\""},
	};
	const char *err, *out;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *args[] = {cases[i][1], cases[i][0], NULL};
		cr_assert_eq(test_run_prog("kimble-bot", args, NULL, &err), KB_EXIT_USAGE, "%s", cases[i][0]);
		cr_assert(strstr(err, cases[i][2]) != NULL, "%s: want %s, got %s", cases[i][0], cases[i][2], err);
	}
	const char *lineup[] = {"-", "7", NULL};
	cr_assert_eq(test_run_prog("kimble-bot", lineup, &out, &err), KB_CLIENT_IO, "%s", err);
	cr_assert_str_eq(out, "v001000\n");
}

/* kimble-relay: a bot that cannot be run (status 127, named), the other
 * usage errors. */
Test(bot_rules, relay_command_and_usage_errors, .timeout = 60)
{
	script_server h = {0};
	pthread_t th;
	char port[16], want[128];
	const char *err;
	int p;

	h.steps = 0;
	h.listen_fd = listen_any(&p);
	snprintf(port, sizeof port, "%d", p);
	pthread_create(&th, NULL, serve_script, &h);
	const char *missing[] = {"--port", port, "--", "./no-such-bot", "x", NULL};
	cr_assert_eq(test_run_prog("kimble-relay", missing, NULL, &err), 127, "%s", err);
	cr_assert(strstr(err, "kimble-relay: cannot run ./no-such-bot: No such file or directory\n") != NULL, "%s", err);
	pthread_join(th, NULL);
	close(h.listen_fd);
	const char *tx[] = {"--transcript", "/nonexistent/dir/tx", "--", "true", NULL};
	test_usage_says("kimble-relay", tx, "--transcript /nonexistent/dir/tx: cannot open for writing");
	const char *extra[] = {"bot", "--", "true", NULL};
	test_usage_says("kimble-relay", extra, "unexpected argument \"bot\": the bot's COMMAND goes after --");
	/* --host: a host with no server (127.0.0.2 with our port: refused) */
	const char *host[] = {"--host", "127.0.0.2", "--port", port, "--retry-ms", "0", "--", "true", NULL};
	cr_assert_eq(test_run_prog("kimble-relay", host, NULL, &err), 69, "%s", err);
	snprintf(want, sizeof want, "kimble-relay: no Kimble server reachable at 127.0.0.2 port %s\n", port);
	cr_assert_str_eq(err, want);
	const char *help[] = {"-h", NULL};
	const char *out;
	cr_assert_eq(test_run_prog("kimble-relay", help, &out, &err), 0);
	cr_assert(strncmp(out, "NAME\n    kimble-relay - ", 24) == 0, "%.80s", out);
}

/* A learned model's picks, not the type's, decide what a seat threatens
 * at the leaves: with easy and hard weighted alike, hard's type with
 * easy's model scores as easy's type does. */
Test(bot_rules, eval_models_decide_the_danger)
{
	static kb_weights w;
	kb_pos pos = test_pos(0x3, "11 10", "2 0", NULL, NULL);
	const kb_opponent *easy_model[KB_SEATS] = {NULL, &kb_opponent_easy, NULL, NULL};

	w = kb_weights_default;
	memcpy(&w.piece[1], &w.piece[2], sizeof w.piece[1]);
	memcpy(&w.pair[1], &w.pair[2], sizeof w.pair[1]);
	memcpy(&w.hit[1], &w.hit[2], sizeof w.hit[1]);
	memcpy(&w.behind[1], &w.behind[2], sizeof w.behind[1]);
	w.danger[1] = w.danger[2], w.dprog[1] = w.dprog[2], w.tempo[1] = w.tempo[2];
	w.danger[0] = -2.0f;
	double as_easy = kb_eval(&w, kinds_easy, &pos, 1);
	double as_hard = kb_eval(&w, kinds_hard, &pos, 1);
	cr_assert(fabs(as_easy - as_hard) > 1e-6, "%f %f", as_easy, as_hard);
	cr_assert_float_eq(kb_eval_models(&w, kinds_hard, easy_model, &pos, 1), as_easy, 1e-12);
	cr_assert_float_eq(kb_eval_models(&w, kinds_hard, NULL, &pos, 1), as_hard, 1e-12);
}

/* The gradient step, weight by weight: each term's weight moves by delta
 * times its feature (a hit's by delta / 6), nothing else moves. */
Test(bot_rules, eval_step_moves_each_weight_by_its_feature)
{
	static kb_weights w, want;
	kb_seat_features f;
	const int t = 4;
	const double d = 0.5;

	memset(&f, 0, sizeof f);
	f.bucket[0] = 5, f.bucket[1] = 3;
	f.danger = 0.5, f.dprog = 0.25, f.tempo = 1;
	f.nhit = 2, f.hit[0] = 4, f.hit[1] = 7;
	f.nnear = 2, f.near[0] = 1 * KB_EVAL_ZONES + 2, f.near[1] = 2 * KB_EVAL_ZONES + 6;
	memset(&w, 0, sizeof w);
	memset(&want, 0, sizeof want);
	kb_eval_step(&w, t, &f, d);
	want.danger[t] = 0.25f, want.dprog[t] = 0.125f, want.tempo[t] = 0.5f;
	want.piece[t][5] = 0.5f, want.piece[t][3] = 0.5f, want.piece[t][0] = 1.0f;
	want.pair[t][5][3] = 0.5f, want.pair[t][5][0] = 1.0f, want.pair[t][3][0] = 1.0f, want.pair[t][0][0] = 0.5f;
	want.hit[t][4] = want.hit[t][7] = (float)(d / 6);
	want.behind[t][1][2] = 0.5f, want.behind[t][2][6] = 0.5f;
	const float *a = (const float *)&w, *b = (const float *)&want;
	for (size_t i = 0; i < sizeof w / sizeof(float); i++)
		cr_assert_eq(a[i], b[i], "weight %zu: %f, expected %f", i, a[i], b[i]);
}

/* ---- rollouts against a reference written from rollout.h ------------------ */

#define REF_ROLLOUT_TAG (KB_TAG_USER + 7) /* rollout.c's dice streams */

/* The piece seat moves: A greedy, another seat by its model, or its only
 * legal piece. */
static int ref_choice(const kb_search *bot, const kb_pos *pos, int seat, int d, unsigned mask)
{
	if (seat == 0)
		return kb_eval_greedy(bot->w, bot->kinds, pos, d, mask);
	if (kb_count(mask) == 1)
		return __builtin_ctz(mask);
	return kb_opponent_pick(bot->opp[seat], pos, seat, d, mask);
}

/* Play on from pos, seat s rolling dice[s][0], dice[s][1]...: the value
 * reached after horizon rolls, or 1 / 0 at a win. */
static double ref_play_out(const kb_search *bot, kb_pos pos, int turn, int horizon, int8_t dice[KB_SEATS][64])
{
	int next_die[KB_SEATS] = {0, 0, 0, 0}, rolls = 0;

	while (rolls++ < horizon) {
		int d = dice[turn][next_die[turn]++];
		unsigned legal = kb_legal(&pos, turn, d);
		if (legal != 0) {
			kb_apply(&pos, turn, ref_choice(bot, &pos, turn, d, legal), d);
			if (kb_has_won(&pos, turn))
				return turn ? 0.0 : 1.0;
		}
		turn = kb_next_seat(&pos, turn, d);
	}
	return kb_eval(bot->w, bot->kinds, &pos, turn);
}

/* The pick: the candidates (all legal moves here: equal values), each
 * played on with the same K dice sequences, sample k's from stream
 * (seed, tag, k) with seed the bot's next tie-break draw; the best sum,
 * the first candidate among equals. */
static int ref_rollout_pick(kb_search *bot, const kb_rollout_params *rp, const kb_pos *pos, int die, unsigned mask)
{
	int cand[KB_PIECES], n = 0, best = 0;
	double sum[KB_PIECES] = {0, 0, 0, 0};
	static int8_t dice[KB_SEATS][64];
	uint64_t seed = kb_rng_next(&bot->tiebreak);

	for (int i = 0; i < KB_PIECES; i++)
		if (mask >> i & 1)
			cand[n++] = i;
	for (int k = 0; k < rp->samples; k++) {
		kb_rng rng;
		kb_rng_stream(&rng, seed, REF_ROLLOUT_TAG, (uint64_t)k);
		for (int s = 0; s < KB_SEATS; s++)
			for (int t = 0; t < rp->horizon && kb_present(pos, s); t++)
				dice[s][t] = (int8_t)kb_rng_die(&rng);
		for (int c = 0; c < n; c++) {
			kb_pos p = *pos;
			kb_apply(&p, 0, cand[c], die);
			sum[c] += ref_play_out(bot, p, kb_next_seat(&p, 0, die), rp->horizon, dice);
		}
	}
	for (int c = 1; c < n; c++)
		if (sum[c] > sum[best] + 1e-9)
			best = c;
	return cand[best];
}

/* Four seats, the committed weights, one short sample per decision: the
 * pick depends on every die of it, and equals the reference's. */
Test(bot_rules, rollouts_match_the_reference, .timeout = 60)
{
	const kb_opponent *opp[KB_SEATS] = {NULL, &kb_opponent_hard, &kb_opponent_easy, &kb_opponent_hard};
	kb_pos pos = test_pos(0xf, "20 9 2", "12 4", "15 3", "6 1");
	const double v[KB_PIECES] = {0.4, 0.4, 0.4, -1};
	int picks[KB_PIECES] = {0};

	cr_assert_eq(kb_pos_check(&pos), 0);
	for (int die = 1; die <= 5; die += 4) {
		unsigned mask = kb_legal(&pos, 0, die);
		cr_assert_eq(mask, 0x7u, "die %d", die);
		for (uint64_t seed = 0; seed < 40; seed++) {
			kb_rollout_params rp = {3, 1 + (int)(seed % 3), 8 + (int)(seed % 5), 1.0, 100};
			kb_search bot, ref;
			kb_search_init(&bot, 0xf, opp, seed, 0);
			kb_search_init(&ref, 0xf, opp, seed, 0);
			int pick = kb_rollout_choose(&bot, &rp, &pos, die, mask, v, 0);
			cr_assert_eq(pick, ref_rollout_pick(&ref, &rp, &pos, die, mask), "die %d seed %d", die, (int)seed);
			picks[pick]++;
		}
	}
	cr_assert(picks[0] && picks[1] && picks[2], "every candidate wins some: %d %d %d", picks[0], picks[1], picks[2]);
}

/* ---- learned models replace the defaults only where they are sure --------- */

/* "Sure" is a weight of at least KB_LEARN_EXACT (0.9): exactly 0.9 on
 * easy makes the seat easy, on hard hard; just under it the seat keeps
 * its learned model (the weights set by hand on a useful model). */
Test(bot_rules, learned_model_sure_from_exactly_the_bound, .timeout = 60)
{
	char dir[256];
	const char *const names[KB_SEATS] = {NULL, "rearguard", NULL, NULL};
	const struct {
		int component;
		double weight;
		int kind;
	} cases[] = {
		{KB_C_EASY, KB_LEARN_EXACT, KB_EASY},
		{KB_C_EASY, nextafter(KB_LEARN_EXACT, 0), KB_EXTERNAL},
		{KB_C_HARD, KB_LEARN_EXACT, KB_HARD},
		{KB_C_HARD, nextafter(KB_LEARN_EXACT, 0), KB_EXTERNAL},
	};
	kb_learn l;

	test_tmpdir(dir, sizeof dir);
	test_store_decisions(dir, "rearguard", KB_R_EASY, 60);
	kb_learn_open(&l, dir, 0x3, names, NULL, NULL);
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		const kb_opponent *opp[KB_SEATS] = {NULL, &kb_opponent_hard, NULL, NULL};
		for (int k = 0; k < KB_COMPONENTS; k++)
			l.model[1].weight[k] = k == cases[c].component ? cases[c].weight
					       : (1 - cases[c].weight) / (KB_COMPONENTS - 1);
		kb_learn_models(&l, opp);
		cr_assert_eq(opp[1], &l.opp[1], "case %zu: the useful model is used", c);
		cr_assert_eq(opp[1]->kind, cases[c].kind, "case %zu: kind %d", c, opp[1]->kind);
	}
	kb_learn_close(&l);
}

/* With leaf models on, a learned seat whose model believes the heuristic
 * (KB_C_LOGIT) with a weight of at least KB_LEARN_LEAF (0.5) also scores
 * the leaves: exactly 0.5 is enough, just under it is not.  (The seat's
 * name is one character: a name all the same.) */
Test(bot_rules, leaf_model_from_exactly_the_leaf_bound, .timeout = 60)
{
	char dir[256];
	const char *const names[KB_SEATS] = {NULL, "r", NULL, NULL};
	const double weights[2] = {KB_LEARN_LEAF, nextafter(KB_LEARN_LEAF, 0)};
	kb_learn l;

	test_tmpdir(dir, sizeof dir);
	test_store_decisions(dir, "r", KB_R_EASY, 60);
	kb_learn_open(&l, dir, 0x3, names, NULL, NULL);
	l.leaf_models = 1;
	for (int c = 0; c < 2; c++) {
		const kb_opponent *opp[KB_SEATS] = {NULL, &kb_opponent_hard, NULL, NULL};
		kb_search bot;
		for (int k = 0; k < KB_COMPONENTS; k++)
			l.model[1].weight[k] = k == KB_C_LOGIT ? weights[c] : (1 - weights[c]) / (KB_COMPONENTS - 1);
		l.model[1].own_rate = 1; /* a heuristic is used on the bot's own rate only */
		cr_assert_eq(kb_model_belief(&l.model[1]), KB_C_LOGIT);
		kb_learn_models(&l, opp);
		cr_assert_eq(opp[1], &l.opp[1], "case %d: the useful model is used", c);
		cr_assert_eq(opp[1]->kind, KB_EXTERNAL);
		kb_search_init(&bot, 0x3, opp, 1, 0);
		kb_learn_set_evaluation(&l, &bot);
		if (c == 0)
			cr_assert_eq(bot.leaf_model[1], &l.opp[1], "a weight of exactly KB_LEARN_LEAF");
		else
			cr_assert_null(bot.leaf_model[1], "a weight just under KB_LEARN_LEAF");
	}
	kb_learn_close(&l);
}

/* A name whose decisions followed a rule exactly plays that rule (easy:
 * as easy, with easy's evaluation; another rule: its pick, and with leaf
 * models its danger terms too); the built-in names keep their models;
 * a name that played as hard keeps the default, which is hard. */
Test(bot_rules, learned_models_where_sure, .timeout = 60)
{
	char dir[256];
	const char *const names[KB_SEATS] = {NULL, "rearguard", "easy", "careful"};
	const kb_opponent *opp[KB_SEATS] = {NULL, &kb_opponent_hard, &kb_opponent_easy, &kb_opponent_hard};
	kb_learn l;
	kb_search bot;

	test_tmpdir(dir, sizeof dir);
	test_store_decisions(dir, "rearguard", KB_R_EASY, 60);
	test_store_decisions(dir, "easy", KB_R_EASY, 60);
	test_store_decisions(dir, "careful", KB_R_SAFE_FRONT, 60);
	kb_learn_open(&l, dir, 0xf, names, NULL, NULL);
	kb_learn_models(&l, opp);
	cr_assert_eq(opp[1], &l.opp[1], "a sure model replaces the default");
	cr_assert_eq(opp[1]->kind, KB_EASY);
	cr_assert_str_eq(opp[1]->name, "rearguard");
	cr_assert_eq(opp[2], &kb_opponent_easy, "the built-in easy keeps its model");
	cr_assert_eq(opp[3], &l.opp[3]);
	cr_assert_eq(opp[3]->kind, KB_EXTERNAL, "a learned model is its own kind");
	cr_assert_not_null(opp[3]->pick);
	cr_assert_eq(l.easy_like[1], 1);
	kb_pos pos = test_pos(0xf, "10", "5 0", "", "");
	cr_assert_eq(kb_opponent_pick(opp[1], &pos, 1, 1, 0x3), 1, "rearmost");
	kb_search_init(&bot, 0xf, opp, 1, 0);
	l.leaf_models = 1;
	kb_learn_set_evaluation(&l, &bot);
	cr_assert_eq(bot.kinds[1], 1, "evaluated as easy");
	cr_assert_null(bot.leaf_model[1], "an exact easy model needs no leaf model");
	cr_assert_null(bot.leaf_model[2]);
	cr_assert_eq(bot.leaf_model[3], &l.opp[3], "a rule's pick decides its danger terms");
	l.leaf_models = 0;
	kb_search_init(&bot, 0xf, opp, 1, 0);
	kb_learn_set_evaluation(&l, &bot);
	cr_assert_null(bot.leaf_model[3], "leaf models off");
	kb_learn_close(&l);

	/* a name that played as hard: no better than the default; a rule
	 * that mostly moves the rearmost piece: evaluated as easy */
	char dir2[256];
	const char *const more[KB_SEATS] = {NULL, "hardy", "shy", NULL};
	const kb_opponent *opp2[KB_SEATS] = {NULL, &kb_opponent_hard, &kb_opponent_hard, NULL};
	test_tmpdir(dir2, sizeof dir2);
	test_store_decisions(dir2, "hardy", KB_R_HARD, 60);
	test_store_decisions(dir2, "shy", KB_R_SAFE_REAR, 60);
	kb_learn_open(&l, dir2, 0x7, more, NULL, NULL);
	kb_learn_models(&l, opp2);
	cr_assert_eq(opp2[1], &kb_opponent_hard);
	cr_assert_eq(l.easy_like[1], 0);
	cr_assert_eq(opp2[2], &l.opp[2]);
	cr_assert_eq(l.easy_like[2], 1);
	kb_search_init(&bot, 0x7, opp2, 1, 0);
	kb_learn_set_evaluation(&l, &bot);
	cr_assert_eq(bot.kinds[1], 2);
	cr_assert_eq(bot.kinds[2], 1, "mostly rearmost: the easy evaluation");
	kb_learn_close(&l);
}

/* ---- the search against a reference written from search.h ----------------- */

static double ref_chance(const kb_search *b, const kb_pos *pos, int turn, int k, int opp_rolls);

/* After a move by mover, seat turn to roll, k bot rolls still to expand:
 * a win is 1 or 0; with no bot roll left, the position is scored when
 * the bot is to roll, or after its own move unless the level finishes
 * the round. */
static double ref_after(const kb_search *b, const kb_pos *pos, int mover, int turn, int k, int opp_rolls)
{
	if (kb_has_won(pos, mover))
		return mover == 0 ? 1.0 : 0.0;
	if (k == 0 && (turn == 0 || (mover == 0 && !b->finish_round)))
		return kb_eval_models(b->w, b->kinds, b->leaf_model, pos, turn);
	return ref_chance(b, pos, turn, k, opp_rolls);
}

/* The mean over the six dice: the bot's best move, an opponent's model
 * move (its only move when it has one), a pass; at most
 * KB_SEARCH_OPP_ROLLS opponent rolls per round, then the position is
 * scored. */
static double ref_chance(const kb_search *b, const kb_pos *pos, int turn, int k, int opp_rolls)
{
	double sum = 0;

	if ((turn == 0 && k == 0) || (turn != 0 && opp_rolls >= KB_SEARCH_OPP_ROLLS))
		return kb_eval_models(b->w, b->kinds, b->leaf_model, pos, turn);
	for (int d = 1; d <= 6; d++) {
		unsigned mask = kb_legal(pos, turn, d);
		if (turn == 0) {
			double best = -1;
			for (int i = 0; i < KB_PIECES; i++) {
				if (!(mask >> i & 1))
					continue;
				kb_pos p = *pos;
				kb_apply(&p, 0, i, d);
				double v = ref_after(b, &p, 0, kb_next_seat(&p, 0, d), k - 1, 0);
				best = v > best ? v : best;
			}
			sum += mask ? best : ref_after(b, pos, 0, kb_next_seat(pos, 0, d), k - 1, 0);
		} else {
			kb_pos p = *pos;
			if (mask)
				kb_apply(&p, turn, kb_count(mask) == 1 ? __builtin_ctz(mask)
							 : kb_opponent_pick(b->opp[turn], pos, turn, d, mask), d);
			sum += ref_after(b, &p, turn, kb_next_seat(&p, turn, d), k, opp_rolls + 1);
		}
	}
	return sum / 6;
}

/* Levels 0..3 with one opponent and 0..2 with two (an easy one), the
 * committed weights: every legal move's value is the reference's, and the
 * choice is the best of them. */
Test(bot_rules, search_matches_the_reference, .timeout = 60)
{
	const kb_opponent *opp1[KB_SEATS] = {NULL, &kb_opponent_hard, NULL, NULL};
	const kb_opponent *opp2[KB_SEATS] = {NULL, &kb_opponent_hard, &kb_opponent_easy, NULL};
	const kb_pos one = test_pos(0x3, "26 14 5", "20 3", NULL, NULL);
	const kb_pos two = test_pos(0x7, "26 14 5", "20 3", "9", NULL);
	/* near the goal: most of A's later rolls pass */
	const kb_pos passes = test_pos(0x3, "31 30 27 25", "12 3", NULL, NULL);
	const struct {
		const kb_pos *pos;
		const kb_opponent *const *opp;
		int levels;
	} cases[] = {{&one, opp1, 3}, {&two, opp2, 2}, {&passes, opp1, 3}};

	for (int c = 0; c < 3; c++) {
		const kb_pos *pos = cases[c].pos;
		cr_assert_eq(kb_pos_check(pos), 0);
		for (int level = 0; level <= cases[c].levels; level++) {
			for (int die = 1; die <= 6; die++) {
				unsigned mask = kb_legal(pos, 0, die);
				double v[KB_PIECES], best = -1;
				kb_search bot;
				if (kb_count(mask) < 2)
					continue;
				kb_search_init(&bot, pos->present, cases[c].opp, 1, 0);
				kb_search_set_level(&bot, level);
				int pick = kb_search_decide(&bot, pos, die, mask, v);
				for (int i = 0; i < KB_PIECES; i++) {
					if (!(mask >> i & 1))
						continue;
					kb_pos p = *pos;
					kb_apply(&p, 0, i, die);
					double want = ref_after(&bot, &p, 0, kb_next_seat(&p, 0, die), bot.depth, 0);
					cr_assert_float_eq(v[i], want, 1e-12, "case %d level %d die %d piece %d", c, level, die, i);
					best = want > best ? want : best;
				}
				cr_assert_float_eq(v[pick], best, 1e-12, "case %d level %d die %d", c, level, die);
			}
		}
	}
}

/* --show when A wins with the move it sent: the end is drawn from its
 * decision line, the winner named as the bot. */
Test(bot_rules, relay_show_names_the_bot_as_winner, .timeout = 60)
{
	roll_game r = {0};
	const char *err = one_roll_game(&r, TOKEN_LINE "\n%sEND\n", "Voittaja: A\nEND\n",
				       (const char *const[]){"--show", NULL},
				       "printf 'v001200\\n'; head -n 3 >/dev/null; printf '" TOKEN_LINE
				       "0\\n'; cat >/dev/null", 0);
	cr_assert(strstr(err, "== the bot moves piece 0\n") != NULL, "%s", err);
	cr_assert(strstr(err, "\n== last roll: A rolled 2; winner A (the bot)\n") != NULL, "%s", err);
}

/* Play a response where seat's roll of 2 (its one legal move, piece 3)
 * wins on pos, the bot's start message start; --show must draw the roll
 * in words (facts first), then the final position with the winner's four
 * pieces in goal. */
static void show_winning_roll(const kb_pos *pos, int seat, const char *start, const char *facts)
{
	char state[KB_ROLL_LINE_LEN + 2], reply[256], script[128], last[64];
	reply_game g = {0};

	cr_assert_eq(kb_legal(pos, seat, 2), 0x8u);
	state_of(state, pos, seat, 2);
	snprintf(reply, sizeof reply, TOKEN_LINE "\n%sVoittaja: %c\nEND\n", state, 'A' + seat);
	snprintf(script, sizeof script, "printf '%s\\n'; cat >/dev/null", start);
	int st = one_reply_game(&g, reply, (const char *const[]){"--show", NULL}, script);
	const char *err = test_read_file(g.dir, "relay.err");
	cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "relay status %d: %s", st, err);
	snprintf(last, sizeof last, "\n== last roll: %c rolled 2; winner %c\n", 'A' + seat, 'A' + seat);
	const char *end = strstr(err, last);
	cr_assert_not_null(end, "%s", err);
	end = strchr(end + 1, '\n') + 1;
	cr_assert(strncmp(end, facts, strlen(facts)) == 0, "the roll's facts first:\n%s", end);
	const char *fin = strstr(end, "\n== final position\n");
	cr_assert_not_null(fin, "%s", err);
	cr_assert_not_null(strstr(fin, "goal 4\n"), "the winner's four pieces in goal:\n%s", fin);
}

/* --show when an opponent's roll wins: the roll in words (its one legal
 * move, into goal), the board it was rolled on, then the final position
 * with the winner's four pieces in goal. */
Test(bot_rules, relay_show_draws_the_winning_roll, .timeout = 60)
{
	kb_pos pos = test_pos(0x3, "12 3", "31 30 29 26", NULL, NULL);

	/* B's progress 26 is ring square 7 + 26 - 28 = 5; 28 is its goal's first */
	show_winning_roll(&pos, 1, "v001200",
			  "B rolls 2, could move 3 (ring 5 -> goal B1); moves 3 from ring 5 to goal B1\n");
}

/* --show knows the seats from the start message's lineup: "v001202" is
 * B and D playing, C empty.  D's winning roll is drawn with its facts and
 * the final position; a board with D's pieces read with D taken for
 * absent (or C for present) would be refused, and neither drawn. */
Test(bot_rules, relay_show_seats_from_the_lineup, .timeout = 60)
{
	kb_pos pos = test_pos(0xb, "12 3", "20", NULL, "31 30 29 26");

	/* D's progress 26 is ring square 21 + 26 - 28 = 19 */
	show_winning_roll(&pos, 3, "v001202",
			  "D rolls 2, could move 3 (ring 19 -> goal D1); moves 3 from ring 19 to goal D1\n");
}

/* A server that answers the start message, then, once the bot has that
 * response (it opens the FIFO "got1" in dir), sends a second response
 * unasked. */
typedef struct unasked_server {
	int listen_fd;
	char dir[256];
	char got[256]; /* serve_record: what the relay sent */
	const char *first, *then; /* serve_unasked's writes (NULL: a response each) */
} unasked_server;

static void *serve_unasked(void *arg)
{
	unasked_server *h = arg;
	struct pollfd pf = {h->listen_fd, POLLIN, 0};
	char fifo[300], sink[256];

	snprintf(fifo, sizeof fifo, "%s/got1", h->dir);
	int f = open(fifo, O_RDONLY | O_NONBLOCK);
	if (f < 0 || poll(&pf, 1, 20000) <= 0)
		return NULL;
	int c = accept(h->listen_fd, NULL, NULL);
	pf = (struct pollfd){c, POLLIN, 0};
	if (c < 0 || poll(&pf, 1, 20000) <= 0 || read(c, sink, sizeof sink) <= 0)
		return NULL;
	const char *first = h->first ? h->first : TOKEN_LINE "\nEND\n";
	const char *then = h->then ? h->then : "Voittaja: B\nEND\n";
	test_write_all(c, first, strlen(first));
	pf = (struct pollfd){f, POLLIN, 0};
	if (poll(&pf, 1, 20000) > 0) /* the bot wrote its first response */
		test_write_all(c, then, strlen(then));
	pf = (struct pollfd){c, POLLIN, 0};
	while (poll(&pf, 1, 20000) > 0 && read(c, sink, sizeof sink) > 0)
		;
	close(c);
	close(f);
	return NULL;
}

/* Each response is handed to the bot once: one that came unasked after
 * the previous one (a server the relay does not know) is the next. */
/* In a fresh h->dir with the FIFO fifo in it, play serve against
 * kimble-relay -- /bin/sh -c script; the relay must exit with status. */
static void fifo_relay(unasked_server *h, void *(*serve)(void *), const char *fifo,
		       const char *script, int status)
{
	relay_proc rp;
	char path[300];

	test_tmpdir(h->dir, sizeof h->dir);
	snprintf(path, sizeof path, "%s/%s", h->dir, fifo);
	cr_assert_eq(mkfifo(path, 0600), 0);
	relay_start(&rp, serve, h, &h->listen_fd, NULL, script, h->dir, NULL);
	int st = relay_finish(&rp, 0);
	cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == status, "relay status %d: %s", st,
		  test_read_file(h->dir, "relay.err"));
}

Test(bot_rules, relay_forwards_each_response_once, .timeout = 60)
{
	unasked_server h = {0};

	fifo_relay(&h, serve_unasked, "got1",
		   "printf 'v001200\\n'; head -n 2 > got1; head -n 2 > got2", 0);
	cr_assert_str_eq(test_read_file(h.dir, "got2"), "Voittaja: B\nEND\n");
}

/* The start of the next response in the same read as the END of the
 * last one ("Voit" after it, the rest once the bot has the first): the
 * relay keeps those bytes, and the next response reaches the bot whole.
 * The bot exits 5 at once when what comes is not the end. */
Test(bot_rules, relay_keeps_the_start_of_the_next_response, .timeout = 60)
{
	unasked_server h = {.first = TOKEN_LINE "\nEND\nVoit", .then = "taja: B\nEND\n"};

	fifo_relay(&h, serve_unasked, "got1",
		   "printf 'v001200\\n'; head -n 2 > got1; IFS= read -r l; [ \"$l\" = 'Voittaja: B' ] || exit 5; "
		   "cat > got2", 0);
	cr_assert_str_eq(test_read_file(h.dir, "got2"), "END\n");
}

/* A server that reads what the relay sends until it hangs up; once the
 * first line is in, it opens the FIFO "go" in dir (the bot waits on it). */
static void *serve_record(void *arg)
{
	unasked_server *h = arg;
	struct pollfd pf = {h->listen_fd, POLLIN, 0};
	char fifo[300];
	size_t n = 0;
	int told = 0;

	snprintf(fifo, sizeof fifo, "%s/go", h->dir);
	if (poll(&pf, 1, 20000) <= 0)
		return NULL;
	int c = accept(h->listen_fd, NULL, NULL);
	pf = (struct pollfd){c, POLLIN, 0};
	while (c >= 0 && n < sizeof h->got - 1 && poll(&pf, 1, 20000) > 0) {
		ssize_t k = read(c, h->got + n, sizeof h->got - 1 - n);
		if (k <= 0)
			break;
		n += (size_t)k;
		if (!told && memchr(h->got, '\n', n)) {
			int f = open(fifo, O_WRONLY);
			told = f >= 0 && write(f, "go\n", 3) == 3;
			close(f);
		}
	}
	h->got[n] = 0;
	if (c >= 0)
		close(c);
	return NULL;
}

/* One message at a time: a message the bot writes while the previous one
 * waits for its response waits too (here for good: the server never
 * answers, and the bot ends). */
Test(bot_rules, relay_holds_a_message_until_the_response, .timeout = 60)
{
	unasked_server h = {0};

	fifo_relay(&h, serve_record, "go",
		   "printf 'v001200\\n'; read go < go; printf '" TOKEN_LINE "0\\n'; exit 5", 5);
	cr_assert_str_eq(h.got, "v001200\n", "the second message is not sent before a response");
}

/* A bot that closes its output before the game ends: the relay closes the
 * bot's input too (the bot here waits for that) and exits with its status. */
Test(bot_rules, relay_closes_the_bots_input_when_its_output_ends, .timeout = 60)
{
	reply_game g = {0};

	int st = one_reply_game(&g, "", NULL,
				 "printf 'v001200\\n'; exec >&-; cat >/dev/null; exit 3");
	cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 3, "relay status %d: %s", st,
		  test_read_file(g.dir, "relay.err"));
	cr_assert_str_eq(g.h.got[0], "v001200\n");
}

/* The default grace after the game: 500 ms, named when it runs out. */
Test(bot_rules, relay_default_grace_is_500_ms, .timeout = 60)
{
	reply_game g = {0};

	/* the bot closes its stdout and stays */
	int st = one_reply_game(&g, "Voittaja: B\nEND\n", NULL,
				 "printf 'v001200\\n'; head -n 2 >/dev/null; exec >&-; exec sleep 30");
	cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 124, "relay status %d", st);
	cr_assert_str_eq(test_read_file(g.dir, "relay.err"),
			 "kimble-relay: the bot did not exit within 500 ms after the game; killed\n");
	/* meanwhile the relay waits without spinning: once the bot's stdout
	 * is at its end it is closed (not polled again, which returns at
	 * once), and the bot's exit is looked for every millisecond; a relay
	 * spinning through the grace spends most of it on the processor */
	struct rusage ru;
	cr_assert_eq(getrusage(RUSAGE_CHILDREN, &ru), 0);
	double cpu = ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
	cr_assert_lt(cpu, 0.1, "the relay and its bot used %.3f s of processor time", cpu);
}

/* After the game the relay ends as soon as its bot does (it watches the
 * bot's stdout close), not when the grace runs out: with a grace of a
 * minute the relay of a bot that exits at once is done within the
 * test's 30 s wait, with the bot's status. */
Test(bot_rules, relay_ends_with_its_bot_before_the_grace, .timeout = 60)
{
	reply_game g = {0};
	const char *opts[] = {"--grace-ms", "60000", NULL};

	int st = one_reply_game(&g, "Voittaja: B\nEND\n", opts, "printf 'v001200\\n'; head -n 2 >/dev/null; exit 3");
	cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 3, "relay status %d: %s", st,
		  test_read_file(g.dir, "relay.err"));
}

/* Read fd until end of file (1) or 20 s without a byte (0). */
static int reaches_eof(int fd)
{
	char buf[64];

	for (;;) {
		struct pollfd pf = {fd, POLLIN, 0};
		if (poll(&pf, 1, 20000) <= 0)
			return 0;
		ssize_t k = read(fd, buf, sizeof buf);
		if (k <= 0)
			return k == 0;
	}
}

/* After the game, what the bot left running in its group is ended with
 * it (here a background sleep holding the bot's stderr): when the bot
 * exits, and when it overstays the grace and is killed. */
Test(bot_rules, relay_ends_what_the_bot_left_behind, .timeout = 120)
{
	static const char *const scripts[2] = {
		"printf 'v001200\\n'; head -n 2 >/dev/null; sleep 30 >/dev/null </dev/null & exit 0",
		"printf 'v001200\\n'; head -n 2 >/dev/null; sleep 30 >/dev/null </dev/null & exec sleep 30",
	};
	const char *grace[] = {"--grace-ms", "200", NULL};

	for (int c = 0; c < 2; c++) {
		script_server h = {0};
		relay_proc rp;
		char dir[256], fifo[300];
		fifo_in(dir, fifo, "err");
		int rd = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		cr_assert_geq(rd, 0);
		h.steps = 1;
		h.reply[0] = "Voittaja: B\nEND\n";
		relay_start(&rp, serve_script, &h, &h.listen_fd, grace, scripts[c], dir, fifo);
		int st = relay_finish(&rp, 0);
		cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == (c ? 124 : 0), "case %d: relay status %d", c, st);
		cr_assert(reaches_eof(rd), "case %d: the bot's background child outlived the game", c);
		close(rd);
	}
}

/* The bot's own predictions are recorded by score: B's easy choice with
 * A far ahead (A at 20) is judged "not ahead", hard's move missed; the
 * same choice with A at 1 and two pieces home is judged "ahead". */
Test(bot_rules, learn_records_predictions_by_score, .timeout = 30)
{
	char dir[256];
	const char *const names[KB_SEATS] = {NULL, "scored", NULL, NULL};
	kb_pos ahead = test_pos(0x3, "1", "5 0", "", "");
	kb_observation ob = {ahead, 1, 1, kb_legal(&ahead, 1, 1), 1};
	kb_learn l;

	test_tmpdir(dir, sizeof dir);
	kb_learn_open(&l, dir, 0x3, names, NULL, NULL);
	observe_easy_choice(&l, 1);
	cr_assert_eq(ob.mask, 0x3u);
	cr_assert_eq(kb_model_score(&ahead, 1), KB_AHEAD);
	kb_learn_observe(&l, &ob);
	ob.index = 0; /* hard's move */
	kb_learn_observe(&l, &ob);
	cr_assert_eq(kb_learn_commit(&l, 1), 0);
	kb_learn_close(&l);
	kb_opp_rec rec = stored(dir, "scored");
	double fade = 1.0 - 1.0 / KB_MEMORY;
	cr_assert_float_eq(rec.model.score_judged[KB_NOT_AHEAD], fade * fade, 1e-12);
	cr_assert_eq(rec.model.score_hard[KB_NOT_AHEAD], 0.0);
	cr_assert_float_eq(rec.model.score_judged[KB_AHEAD], 1.0 + fade, 1e-12);
	cr_assert_float_eq(rec.model.score_hard[KB_AHEAD], 1.0, 1e-12, "hard's move once, last");
	cr_assert_float_eq(rec.model.recent_judged, 1.0 + fade + fade * fade, 1e-12);
}

/* A model useful in one score only (the switcher's: right ahead of the
 * bot, not behind it, where hard's move is exact) answers in that score
 * and leaves hard's move in the other, for the pick and the
 * probabilities alike; the built-ins' fast path, which knows no score,
 * is taken only when the model is useful in both.  B at 10 and 5 with a
 * 1: easy's move is index 1, hard's index 0. */
Test(bot_rules, learned_model_answers_by_score, .timeout = 60)
{
	char dir[256];
	const char *const names[KB_SEATS] = {NULL, "rearguard", NULL, NULL};
	kb_pos ahead = test_pos(0x3, "1", "10 5", "", "");
	kb_pos behind = test_pos(0x3, "20 15 12", "10 5", "", "");
	double prob[KB_PIECES];
	kb_learn l;

	test_tmpdir(dir, sizeof dir);
	test_store_decisions(dir, "rearguard", KB_R_EASY, 60);
	kb_learn_open(&l, dir, 0x3, names, NULL, NULL);
	kb_model *m = &l.model[1];
	m->score_own[KB_AHEAD] = m->score_own[KB_NOT_AHEAD] = 1;
	m->score_accuracy[KB_AHEAD] = 0.95, m->score_hard_accuracy[KB_AHEAD] = 0.1;
	m->score_accuracy[KB_NOT_AHEAD] = 0.6, m->score_hard_accuracy[KB_NOT_AHEAD] = 1.0;
	const kb_opponent *opp[KB_SEATS] = {NULL, &kb_opponent_hard, NULL, NULL};
	kb_learn_models(&l, opp);
	cr_assert_eq(opp[1], &l.opp[1], "used in one score is used");
	cr_assert_eq(opp[1]->kind, KB_EXTERNAL, "not easy's fast path");
	cr_assert_eq(kb_legal(&ahead, 1, 1), 0x3u);
	cr_assert_eq(kb_legal(&behind, 1, 1), 0x3u);
	cr_assert_eq(kb_model_score(&behind, 1), KB_NOT_AHEAD);
	cr_assert_eq(kb_opponent_pick(opp[1], &ahead, 1, 1, 0x3), 1, "ahead: the model's move");
	cr_assert_eq(kb_opponent_pick(opp[1], &behind, 1, 1, 0x3), 0, "behind: hard's move");
	opp[1]->probs(opp[1]->ctx, &behind, 1, 1, 0x3, prob);
	cr_assert(prob[0] == 1 && prob[1] == 0, "behind: hard's move for certain");
	opp[1]->probs(opp[1]->ctx, &ahead, 1, 1, 0x3, prob);
	cr_assert_gt(prob[1], 0.9, "ahead: the model's probabilities");
	m->score_accuracy[KB_NOT_AHEAD] = 0.95, m->score_hard_accuracy[KB_NOT_AHEAD] = 0.1;
	opp[1] = &kb_opponent_hard;
	kb_learn_models(&l, opp);
	cr_assert_eq(opp[1]->kind, KB_EASY, "useful in both scores: easy's fast path");
	m->score_accuracy[KB_AHEAD] = m->score_accuracy[KB_NOT_AHEAD] = 0.5;
	opp[1] = &kb_opponent_hard;
	kb_learn_models(&l, opp);
	cr_assert_eq(opp[1], &kb_opponent_hard, "useful in neither: the default");
	kb_learn_close(&l);
}
