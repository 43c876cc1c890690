/* test_rule_judge_server_mem.c - kimble-server out of memory (found by
 * make mutate, docs/mutation.md): the game table gives back what it took
 * when it cannot take all, and the server answers "Virhe: palvelin ei voi
 * aloittaa pelia (...)" (docs/spec.md) when a response or a game cannot
 * be allocated, then serves on; and kimble-judge's report fails whole
 * when its learning curve cannot be allocated.  Suite judge_rules.
 *
 * The allocator cannot be made to fail at one chosen call from outside, so
 * this file puts its own calloc and realloc in front of the C library's
 * (for the whole test binary: with nothing armed they only hand the call
 * on).  Under ASan they are left out, since ASan's allocator must see
 * every block, and the tests skip.  Other stand-ins here inject what the
 * real programs cannot be made to do (a full epoll set, small send
 * buffers, libmicrohttpd out of memory), or let a test see into the
 * server child it forked: the streams it suspends, a clock the test sets,
 * its memory in use. */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <microhttpd.h>

#include "judge/bots.h"
#include "judge/match.h"
#include "judge/plan.h"
#include "judge/report.h"
#include "judge/standings.h"
#include "judge/server/game.h"
#include "judge/server/http.h"
#include "judge/server/limits.h"
#include "judge/server/server.h"
#include "support.h"

/* What to refuse: callocs of exactly calloc_bytes bytes (SIZE_MAX: of any
 * size) (after letting
 * calloc_skip of them through, calloc_fails of them), and reallocs to more
 * than realloc_above bytes.  Zero: nothing. */
static struct {
	size_t calloc_bytes;
	int calloc_skip, calloc_fails;
	int calloc_next;          /* refuse the next calloc whatever its size */
	size_t realloc_above;
	int add_skip, add_fails;  /* the same for epoll_ctl's EPOLL_CTL_ADD */
} refuse;

/* When free() is about to give the block watch_free back to the C
 * library: its game's token as it was then (what a later allocation of
 * that memory would find). */
static void *watch_free;
static char freed_token[KB_TOKEN_LEN];

#ifndef __SANITIZE_ADDRESS__
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);

void *calloc(size_t n, size_t size)
{
	if (refuse.calloc_next) {
		refuse.calloc_next = 0;
		errno = ENOMEM;
		return NULL;
	}
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

extern void __libc_free(void *p);

void free(void *p)
{
	if (p && p == watch_free)
		memcpy(freed_token, ((srv_game *)p)->token, sizeof freed_token);
	__libc_free(p);
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

/* A host with small TCP send buffers (net.ipv4.tcp_wmem) cannot be had
 * per test either: with accept_sndbuf set, every connection accepted in
 * this process gets that SO_SNDBUF, so what the kernel holds of a reply
 * is a few KB rather than the megabytes loopback sockets grow to. */
static int accept_sndbuf;
static int refuse_after_accept; /* refuse the calloc after the next accepts */

int accept4(int fd, struct sockaddr *addr, socklen_t *addr_len, int flags)
{
	int c = (int)syscall(SYS_accept4, fd, addr, addr_len, flags);

	if (c >= 0 && refuse_after_accept > 0) {
		refuse_after_accept--;
		refuse.calloc_next = 1; /* the connection's own record */
	}

	if (c >= 0 && accept_sndbuf &&
	    setsockopt(c, SOL_SOCKET, SO_SNDBUF, &accept_sndbuf, sizeof accept_sndbuf) != 0)
		abort();
	return c;
}

/* libmicrohttpd out of memory cannot be had on purpose either: the next
 * refuse_streams responses made from a callback (the live event streams)
 * are refused. */
static int refuse_streams;

struct MHD_Response *MHD_create_response_from_callback(uint64_t size, size_t block_size,
						       MHD_ContentReaderCallback crc, void *crc_cls,
						       MHD_ContentReaderFreeCallback crfc)
{
	static struct MHD_Response *(*real)(uint64_t, size_t, MHD_ContentReaderCallback, void *,
					    MHD_ContentReaderFreeCallback);

	if (refuse_streams > 0) {
		refuse_streams--;
		return NULL;
	}
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "MHD_create_response_from_callback");
	return real(size, block_size, crc, crc_cls, crfc);
}

/* What a server child of this file (start_runs) shares with its test,
 * mapped before the fork: the live pages' streams it has suspended, the
 * clock it is to read, and the memory it held when it last waited for
 * events.  Other processes keep none of it (shared is NULL there, or
 * server_child 0). */
enum { SUSPENDED_MAX = 256 };
static volatile struct shared {
	struct MHD_Connection *suspended[SUSPENDED_MAX];
	int64_t clock_ms;         /* its CLOCK_MONOTONIC when not 0 */
	size_t in_use;            /* in_use() at its last epoll_wait */
	uint16_t held_port;       /* the client port whose answers it holds */
	int refuse_memstreams;    /* open_memstreams it is to refuse */
} *shared;
static int server_child;

static size_t in_use(void);

/* A connection may be resumed only while it is suspended ("calling this
 * function on a connection that was not previously suspended will result
 * in undefined behavior", microhttpd.h), so a server child that resumes
 * another one says so and stops with exit status 3 (stop_server). */
void MHD_suspend_connection(struct MHD_Connection *c)
{
	static void (*real)(struct MHD_Connection *);
	int i = 0;

	while (shared && i < SUSPENDED_MAX && shared->suspended[i])
		i++;
	if (shared && i == SUSPENDED_MAX)
		abort(); /* more streams than any test opens */
	if (shared)
		shared->suspended[i] = c;
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "MHD_suspend_connection");
	real(c);
}

void MHD_resume_connection(struct MHD_Connection *c)
{
	static void (*real)(struct MHD_Connection *);
	int i = 0;

	while (shared && i < SUSPENDED_MAX && shared->suspended[i] != c)
		i++;
	if (shared && i == SUSPENDED_MAX) {
		fprintf(stderr, "server child: a connection resumed that is not suspended\n");
		_exit(3);
	}
	if (shared)
		shared->suspended[i] = NULL;
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "MHD_resume_connection");
	real(c);
}

/* Time that passes on the test's word (a second, an hour) without the
 * test waiting for it. */
int clock_gettime(clockid_t clk, struct timespec *ts)
{
	static int (*real)(clockid_t, struct timespec *);

	if (server_child && shared->clock_ms && clk == CLOCK_MONOTONIC) {
		ts->tv_sec = shared->clock_ms / 1000;
		ts->tv_nsec = shared->clock_ms % 1000 * 1000000;
		return 0;
	}
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "clock_gettime");
	return real(clk, ts);
}

/* Answers held back to the byte: to the client at held_port (when not
 * 0) the socket takes nothing while the server holds SRV_OUT_HIGH bytes
 * for it or fewer, and only what is beyond them when it holds more (a
 * send writes the server's whole queue, conn_flush), so that what waits
 * is then SRV_OUT_HIGH exactly, where the kernel's buffers decide the
 * byte otherwise.  (Its socket stays writable: the server turns over
 * meanwhile.)  Its descriptor is known once seen, so that a connection
 * reset by the client (no peer any more) is still held: the server learns
 * of the reset from its events, not from a send. */
ssize_t send(int fd, const void *buf, size_t len, int flags)
{
	static ssize_t (*real)(int, const void *, size_t, int);
	static int held_fd = -1;
	static uint16_t held_fd_port;
	struct sockaddr_in peer;
	socklen_t peer_len = sizeof peer;

	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "send");
	if (server_child && shared->held_port && held_fd_port != shared->held_port &&
	    getpeername(fd, (struct sockaddr *)&peer, &peer_len) == 0 &&
	    peer.sin_family == AF_INET && ntohs(peer.sin_port) == shared->held_port)
		held_fd = fd, held_fd_port = shared->held_port;
	if (server_child && shared->held_port && held_fd_port == shared->held_port &&
	    fd == held_fd) {
		if (len <= SRV_OUT_HIGH) {
			errno = EAGAIN;
			return -1;
		}
		len -= SRV_OUT_HIGH;
	}
	return real(fd, buf, len, flags);
}

/* Out of memory for an in-memory stream (test_rule_judge_out.c's
 * open_memstream asks this once set). */
extern int (*memstream_refused)(void);

static int refuse_memstream(void)
{
	if (server_child && shared->refuse_memstreams > 0) {
		shared->refuse_memstreams--;
		return 1;
	}
	return 0;
}

int epoll_wait(int ep, struct epoll_event *evs, int max, int timeout_ms)
{
	static int (*real)(int, struct epoll_event *, int, int);

	if (server_child)
		shared->in_use = in_use();
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "epoll_wait");
	return real(ep, evs, max, timeout_ms);
}

/* Wait until a stream of the server child sleeps (is suspended). */
static void wait_stream_asleep(void)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		for (int i = 0; i < SUSPENDED_MAX; i++)
			if (shared->suspended[i])
				return;
		clock_gettime(CLOCK_MONOTONIC, &t);
		cr_assert_lt(t.tv_sec - t0.tv_sec, 30, "no stream sleeps");
	}
}

/* The same for responses made from a buffer (the page, the answers):
 * the next refuse_buffers are refused. */
static int refuse_buffers;

struct MHD_Response *MHD_create_response_from_buffer(size_t size, void *buffer,
						     enum MHD_ResponseMemoryMode mode)
{
	static struct MHD_Response *(*real)(size_t, void *, enum MHD_ResponseMemoryMode);

	if (refuse_buffers > 0) {
		refuse_buffers--;
		return NULL;
	}
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "MHD_create_response_from_buffer");
	return real(size, buffer, mode);
}

/* For test_rule_judge_server.c. */
void test_refuse_epoll_add(int skip);
void test_refuse_epoll_add(int skip)
{
	refuse.add_skip = skip;
	refuse.add_fails = 1;
}

/* For test_rule_judge_server.c: the next calloc of exactly bytes bytes
 * fails (without effect under ASan, whose allocator this file leaves). */
void test_refuse_calloc(size_t bytes);
void test_refuse_calloc(size_t bytes)
{
	refuse.calloc_bytes = bytes;
	refuse.calloc_skip = 0;
	refuse.calloc_fails = 1;
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

/* A game that cannot have its ids (no randomness: getrandom refused) is
 * not started and keeps nothing: 100 refused starts leave what was
 * allocated as it was. */
Test(judge_rules, game_without_randomness_keeps_nothing)
{
	static srv_games t;
	static const uint8_t lineup[3] = {1, 1, 1};

	need_own_allocator();
	cr_assert_eq(srv_games_init(&t, 1, 1000, NULL), 0);
	test_fail_syscall(SYS_getrandom, EIO);
	/* the first refusals load what the C library keeps: its own state
	 * (3 KB), and the 7 freed blocks of a size its per-thread cache
	 * holds, which calloc does not take back */
	int started = 0;
	for (int i = 0; i < 8; i++)
		started += srv_game_start(&t, lineup, 0) != NULL;
	size_t before = in_use();
	for (int i = 0; i < 100; i++) /* (no assertion inside: Criterion's allocate) */
		started += srv_game_start(&t, lineup, 0) != NULL;
	size_t after = in_use();
	cr_assert_eq(started, 0);
	cr_assert_eq(after, before, "the games not started are given back (%ld bytes kept)",
		     (long)after - (long)before);
	srv_games_free(&t, "test");
}

/* ---- the address table -------------------------------------------------------------- */

/* No memory for the address table's buckets: srv_limits_init says so
 * (-1, docs in limits.h) rather than hand back a table without them. */
Test(judge_rules, address_table_init_out_of_memory_is_an_error)
{
	srv_limits_opts o;
	srv_limits l;

	need_own_allocator();
	srv_limits_defaults(&o);
	refuse.calloc_next = 1;
	cr_assert_eq(srv_limits_init(&l, &o, NULL), -1);
	cr_assert_null(l.buckets);
	cr_assert_eq(srv_limits_init(&l, &o, NULL), 0, "then served again");
	srv_limits_free(&l);
}

/* ---- the live pages --------------------------------------------------------------- */

/* No memory for the live pages' state: srv_http_start fails saying so
 * and closes the listening descriptor it was given. */
Test(judge_rules, http_start_out_of_memory_says_why_and_closes_the_socket)
{
	srv_http_opts o;
	int64_t now = 0;
	kb_err err;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	need_own_allocator();
	srv_http_defaults(&o);
	cr_assert_geq(fd, 0);
	refuse.calloc_next = 1;
	cr_assert_null(srv_http_start(&o, fd, NULL, NULL, &now, &err));
	cr_assert_str_eq(err.msg, "http: out of memory");
	cr_assert_eq(fcntl(fd, F_GETFD), -1, "the descriptor is closed");
}

/* ---- the server ------------------------------------------------------------------ */

/* srv_run in a child process of this test, runs times (each ended by
 * next_run, the last by stop_server), with refuse as set now: its process
 * id; *port is where it listens.  The child fails (exit status 2) when a
 * run after the first keeps memory. */
static test_reader announced;
static int runs_http_port; /* the live pages' port, or 0: none */

/* Read the announce lines up to the next "listening on" one (a run with
 * live pages says where they are on a line of its own). */
static void read_announce(void)
{
	char line[200];

	do
		cr_assert_gt(test_getline(&announced, line, sizeof line, 30000), 0, "no announce line");
	while (!strstr(line, "kimble-server: listening on 127.0.0.1:"));
}

/* What a run may keep: nothing of its own (2 KB of slack for the C
 * library), and with live pages what libmicrohttpd keeps of each daemon
 * started and stopped (measured: 768 bytes for a bare one, 2.5 KB with
 * the server's options, in no block of the server's). */
static size_t kept_at_most(void)
{
	return runs_http_port ? 6144 : 2048;
}

/* Map what a server child shares with its test (once). */
static void share(void)
{
	if (!shared) {
		shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			      -1, 0);
		cr_assert_neq((void *)shared, MAP_FAILED);
	}
}

static double runs_addr_rate; /* new games a second per address, or 0: the default */

static pid_t start_runs(int *port, int runs)
{
	int to_test[2];
	test_reader *r = &announced;

	cr_assert_eq(pipe(to_test), 0);
	share();
	*port = test_free_port();
	pid_t kid = fork();
	cr_assert_geq(kid, 0);
	if (kid == 0) {
		srv_opts o = {.host = "127.0.0.1", .port_first = *port, .port_last = *port,
			      .seed = 1, .ttl_ms = 60000};
		kb_err err;
		prctl(PR_SET_PDEATHSIG, SIGKILL); /* a failed test leaves no server */
		server_child = 1;
		close(to_test[0]);
		o.announce = fdopen(to_test[1], "w");
		srv_limits_defaults(&o.limits);
		o.limits.max_games = SRV_MAX_GAMES;
		if (runs_addr_rate)
			o.limits.addr_rate = runs_addr_rate;
		srv_http_defaults(&o.http);
		o.http.port = runs_http_port;
		if (!o.announce)
			_exit(1);
		setvbuf(o.announce, NULL, _IONBF, 0); /* no buffer kept between runs */
		for (int run = 0; run < runs; run++) {
			/* the first run loads what the C library keeps (name
			 * service, stdio); a second one must give back all */
			size_t before = in_use();
			if (srv_run(&o, &err) != SRV_OK) {
				/* the test reads "no announce line": say why here */
				fprintf(stderr, "server run %d: %s\n", run, err.msg);
				_exit(1);
			}
			if (run > 0 && in_use() > before + kept_at_most())
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
	read_announce();
	return kid;
}

static pid_t start_server(int *port)
{
	return start_runs(port, 1);
}

/* End this run of the server and wait for the next one's announce line. */
static void next_run(pid_t kid)
{
	cr_assert_eq(kill(kid, SIGTERM), 0);
	read_announce();
}

static void stop_server(pid_t kid)
{
	int st;

	cr_assert_eq(kill(kid, SIGTERM), 0);
	cr_assert_eq(waitpid(kid, &st, 0), kid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) != 2, "the server's run kept memory");
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) != 3,
		  "the server resumed a stream that was not suspended");
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

/* A game started on a new connection to port (returned): "?watch ID" into
 * watch[40], its live stream's request "GET /events/ID" into
 * request[80]. */
static test_conn *start_watchable_game(int port, char *watch, char *request)
{
	static char got[8192];
	test_conn *c = test_conn_open(NULL, port, 10000);

	cr_assert_geq(ask(c, "v001000\n", got, sizeof got), 2);
	cr_assert_eq(ask(c, "?list\n", got, sizeof got), 1, "%s", got);
	snprintf(watch, 40, "?watch %.17s\n", got);
	snprintf(request, 80, "GET /events/%.17s HTTP/1.0\r\n\r\n", got);
	return c;
}

/* start_runs(port, 2) with live pages (what the test refuses armed
 * before: the server is a child of this process). */
static pid_t start_runs_with_pages(int *port)
{
	need_own_allocator();
	runs_http_port = test_free_port();
	pid_t kid = start_runs(port, 2);
	cr_assert_neq(*port, runs_http_port);
	return kid;
}

/* End the run (0 or 1) of a server started by start_runs(&port, 2). */
static void end_run(pid_t kid, int run)
{
	if (run == 0)
		next_run(kid);
	else
		stop_server(kid);
}

/* A run gives back all it took: its game and address tables, running
 * games, spectators (a live page's stream and its last event included),
 * the response buffer. */
Test(judge_rules, server_run_gives_back_its_memory, .timeout = 60)
{
	char got[8192], request[80], watch[40];
	int port;

	pid_t kid = start_runs_with_pages(&port);
	for (int run = 0; run < 2; run++) {
		test_conn *c = start_watchable_game(port, watch, request);
		test_conn *w = test_conn_open(NULL, port, 10000);
		cr_assert_eq(test_write_all(w->fd, watch, strlen(watch)), 0);
		cr_assert_gt(test_getline(&w->r, got, sizeof got, 10000), 0, "the watch answered");
		/* a live page following the game, its first event read */
		test_conn *page = test_conn_open(NULL, runs_http_port, 10000);
		cr_assert_eq(test_write_all(page->fd, request, strlen(request)), 0);
		do
			cr_assert_geq(test_getline(&page->r, got, sizeof got, 10000), 0, "an event");
		while (strcmp(got, "data: </svg>") != 0);
		test_conn_close(c); /* w and the page are told at the shutdown */
		end_run(kid, run);
		test_conn_close(w);
		test_conn_close(page);
	}
}

/* The last line of an answer read by ask. */
static const char *last_line(const char *got)
{
	const char *nl = strrchr(got, '\n');

	return nl ? nl + 1 : got;
}

/* Start games with the message start on c until one waits for A's
 * decision: its answer into got, its token into token. */
static void game_waiting_for_a(test_conn *c, const char *start, char *got, size_t size,
			       char token[KB_TOKEN_LEN + 1])
{
	do
		cr_assert_geq(ask(c, start, got, size), 2);
	while (strncmp(last_line(got), "Voittaja: ", 10) == 0);
	snprintf(token, KB_TOKEN_LEN + 1, "%.65s", got);
}

/* Answer A's pending decision with the pieces in order until one is
 * legal (an illegal one is answered with the same decision line): the
 * answer to the legal one into got. */
static void play_a_legal_move(test_conn *c, const char *token, char *got, size_t size)
{
	char before[128], move[80];

	snprintf(before, sizeof before, "%.127s", last_line(got));
	for (int idx = 0; idx < 4 && strcmp(last_line(got), before) == 0; idx++) {
		snprintf(move, sizeof move, "%s%d\n", token, idx);
		cr_assert_geq(ask(c, move, got, size), 1);
	}
	cr_assert_str_neq(last_line(got), before, "a legal move was taken");
}

/* A page on the live pages' port following request (a game's stream),
 * read up to the end of its first picture. */
static test_conn *page_following(const char *request)
{
	char line[256];
	test_conn *page = test_conn_open(NULL, runs_http_port, 10000);

	cr_assert_eq(test_write_all(page->fd, request, strlen(request)), 0);
	do
		cr_assert_geq(test_getline(&page->r, line, sizeof line, 10000), 0, "the first event");
	while (strcmp(line, "data: </svg>") != 0);
	return page;
}

/* Read page up to its end event, whose data line must be want. */
static void page_ends_with(test_conn *page, const char *want)
{
	char line[256];

	do
		cr_assert_geq(test_getline(&page->r, line, sizeof line, 10000), 0, "the end event");
	while (strcmp(line, "event: end") != 0);
	cr_assert_geq(test_getline(&page->r, line, sizeof line, 10000), 0);
	cr_assert_str_eq(line, want);
}

/* Close the page and the game-port connection c, then stop the server. */
static void close_and_stop(pid_t kid, test_conn *page, test_conn *c)
{
	test_conn_close(page);
	test_conn_close(c);
	stop_server(kid);
}

/* A page's stream is resumed once for each time it slept (see
 * MHD_resume_connection above), also when its game moves more than once
 * before the stream writes again: the winning move moves the game and
 * ends it in one turn.  The page is told the end and its winner. */
Test(judge_rules, server_stream_resumed_once_per_suspension, .timeout = 60)
{
	static char got[65536];
	char request[80], token[KB_TOKEN_LEN + 1], want[32];
	int port;

	runs_http_port = test_free_port();
	pid_t kid = start_server(&port);
	cr_assert_neq(port, runs_http_port);
	test_conn *c = test_conn_open(NULL, port, 10000);
	game_waiting_for_a(c, "v001222\n", got, sizeof got, token);
	cr_assert_eq(ask(c, "?list\n", got, sizeof got), 1, "%s", got);
	snprintf(request, sizeof request, "GET /events/%.17s HTTP/1.0\r\n\r\n", got);
	test_conn *page = page_following(request);
	wait_stream_asleep(); /* until the game moves */
	for (int moves = 0; strncmp(last_line(got), "Voittaja: ", 10) != 0; moves++) {
		cr_assert_lt(moves, 4000);
		play_a_legal_move(c, token, got, sizeof got);
	}
	snprintf(want, sizeof want, "data: winner %c", last_line(got)[10]);
	page_ends_with(page, want);
	close_and_stop(kid, page, c);
}

/* A live event stream whose response libmicrohttpd cannot make (out of
 * memory there) is refused, its connection closed without an answer,
 * and keeps nothing: a run that refused 100 streams gives back all it
 * took. */
Test(judge_rules, server_stream_refused_keeps_nothing, .timeout = 60)
{
	char got[256], request[80], watch[40];
	int port;

	refuse_streams = 1000;
	pid_t kid = start_runs_with_pages(&port);
	for (int run = 0; run < 2; run++) {
		test_conn *c = start_watchable_game(port, watch, request);
		for (int i = 0; i < 100; i++) {
			int fd = test_connect(runs_http_port, 10000);
			cr_assert_geq(fd, 0);
			cr_assert_eq(test_write_all(fd, request, strlen(request)), 0);
			cr_assert_eq(read(fd, got, sizeof got), 0, "stream %d: closed unanswered", i);
			close(fd);
		}
		test_conn_close(c);
		end_run(kid, run);
	}
}

/* The memory the server held when it waited after two round trips on c
 * (the second one's turn begins after the first one's ended, which
 * expired the games a turn expires after answering), games running. */
static size_t in_use_after_turns(test_conn *c, int games)
{
	static char got[16384];

	ask(c, "?list\n", got, sizeof got);
	cr_assert_eq(ask(c, "?list\n", got, sizeof got), games, "%d games run: %s", games, got);
	return shared->in_use;
}

/* The server forgets the addresses it has done with as it runs (limits.h:
 * those that hold nothing and whose new-game bucket is full again), not
 * only at its end, so many clients come and go in bounded memory: 200
 * addresses that each started a game, which then expired, are kept while
 * their buckets refill (here one game in 1000 seconds, on the server's
 * clock), and once full they are given back. */
Test(judge_rules, server_forgets_the_addresses_it_has_done_with, .timeout = 60)
{
	enum { N = 200 };
	char got[8192], src[32];
	int port;

	need_own_allocator();
	share();
	shared->clock_ms = 1000000000;
	runs_addr_rate = 0.001;
	pid_t kid = start_server(&port);
	test_conn *c = test_conn_open(NULL, port, 10000);
	for (int k = 0; k < N; k++) {
		snprintf(src, sizeof src, "127.3.%d.%d", k / 100, k % 100 + 1);
		test_conn *a = test_conn_open(src, port, 10000);
		cr_assert_geq(ask(a, "v001000\n", got, sizeof got), 2, "start from %s", src);
		cr_assert_eq(got[0], 't', "start from %s: %.80s", src, got);
		test_conn_close(a);
	}
	shared->clock_ms += 61000; /* their games expire (60 s) */
	size_t kept = in_use_after_turns(c, 0);
	shared->clock_ms += 2000000; /* their buckets are full again */
	size_t after = in_use_after_turns(c, 0);
	cr_assert_geq(kept, after + N * sizeof(srv_addr) / 2,
		      "the records given back: %zu bytes held, then %zu", kept, after);
	test_conn_close(c);
	stop_server(kid);
}

/* On the server's clock: c's one game is still listed at alive_ms, and
 * gone (expired) at gone_ms. */
static void alive_then_gone(test_conn *c, int64_t alive_ms, int64_t gone_ms)
{
	shared->clock_ms = alive_ms;
	in_use_after_turns(c, 1);
	shared->clock_ms = gone_ms;
	in_use_after_turns(c, 0);
}

/* The server's clock counts milliseconds: a game expires when the token
 * time (60 s here) has passed since its last use (game.h), not 1 ms
 * before, nor later. */
Test(judge_rules, server_expires_a_game_at_its_ttl_to_the_millisecond, .timeout = 60)
{
	const int64_t t0 = 1000000000;
	char got[8192];
	int port;

	share();
	shared->clock_ms = t0;
	pid_t kid = start_server(&port);
	test_conn *c = test_conn_open(NULL, port, 10000);
	cr_assert_geq(ask(c, "v001000\n", got, sizeof got), 2);
	alive_then_gone(c, t0 + 60000 - 1, t0 + 60000);
	test_conn_close(c);
	stop_server(kid);
}

/* A move is a use of its game: the token time counts again from it
 * (game.h), so a game moved 50 s after its start is still there at 60 s
 * and expires at 110 s. */
Test(judge_rules, server_move_keeps_its_game_alive, .timeout = 60)
{
	const int64_t t0 = 1000000000;
	static char got[8192];
	char token[KB_TOKEN_LEN + 1];
	int port;

	share();
	shared->clock_ms = t0;
	pid_t kid = start_server(&port);
	test_conn *c = test_conn_open(NULL, port, 10000);
	game_waiting_for_a(c, "v001000\n", got, sizeof got, token);
	shared->clock_ms = t0 + 50000;
	play_a_legal_move(c, token, got, sizeof got);
	alive_then_gone(c, t0 + 60000, t0 + 110000);
	test_conn_close(c);
	stop_server(kid);
}

/* A connection that is reset while the server still holds its answer
 * (send above takes none of it) is closed with the answer unsent: the
 * server gives the answer's buffer back.  Here 50 such connections, each
 * holding a "?list" of 100 games. */
Test(judge_rules, server_gives_back_the_answer_of_a_reset_connection, .timeout = 60)
{
	enum { GAMES = 100, RESETS = 50 };
	static char got[16384];
	struct linger reset = {.l_onoff = 1, .l_linger = 0};
	int port;

	need_own_allocator();
	share();
	pid_t kid = start_server(&port);
	test_conn *c = test_conn_open(NULL, port, 10000);
	for (int i = 0; i < GAMES; i++)
		cr_assert_geq(ask(c, "v001000\n", got, sizeof got), 2, "start %d", i);
	cr_assert_eq(ask(c, "?list\n", got, sizeof got), GAMES);
	size_t answer = strlen(got), before = in_use_after_turns(c, GAMES);
	for (int k = 0; k < RESETS; k++) {
		struct sockaddr_in me;
		socklen_t me_len = sizeof me;
		test_conn *w = test_conn_open(NULL, port, 10000);
		cr_assert_eq(getsockname(w->fd, (struct sockaddr *)&me, &me_len), 0);
		shared->held_port = ntohs(me.sin_port);
		/* w came first: accepted in the turn that answers c, its
		 * request read in the next (maybe after c's answer went out),
		 * so answered and held by the one after */
		for (int turn = 0; turn < 3; turn++) {
			if (turn == 1)
				cr_assert_eq(test_write_all(w->fd, "?list\n", 6), 0);
			cr_assert_eq(ask(c, "t0\n", got, sizeof got), 1, "%s", got);
		}
		cr_assert_eq(setsockopt(w->fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset), 0);
		test_conn_close(w);
		cr_assert_eq(ask(c, "t0\n", got, sizeof got), 1, "%s", got); /* the reset seen */
	}
	shared->held_port = 0;
	size_t after = in_use_after_turns(c, GAMES);
	cr_assert_leq(after, before + RESETS * answer / 2, "%zu bytes held, %zu before (answers of %zu)",
		      after, before, answer);
	test_conn_close(c);
	stop_server(kid);
}

/* Bytes waiting in the receive queue of the server's socket whose peer is
 * the client port client_port (IPv4 loopback, /proc/net/tcp); -1 if none. */
static long server_rx_queue(int server_port, int client_port)
{
	char line[512];
	unsigned local, remote;
	long rx = -1, q;
	FILE *f = fopen("/proc/net/tcp", "r");

	cr_assert_not_null(f);
	while (fgets(line, sizeof line, f))
		if (sscanf(line, " %*d: %*x:%x %*x:%x %*x %*x:%lx", &local, &remote, &q) == 3 &&
		    (int)local == server_port && (int)remote == client_port)
			rx = q;
	fclose(f);
	return rx;
}

/* A client the server holds SRV_OUT_HIGH bytes for (send above: the most
 * it is served ahead) is not read any further (server.h): a request it
 * sends meanwhile waits in the socket, read only once its answers are. */
Test(judge_rules, server_stops_reading_at_its_output_limit, .timeout = 60)
{
	enum { LISTS = 20, GAMES = 600 };
	static char got[65536];
	char text[256] = "";
	struct sockaddr_in me;
	socklen_t me_len = sizeof me;
	int port, ends = 0;

	share();
	pid_t kid = start_server(&port);
	test_conn *c = test_conn_open(NULL, port, 10000);
	for (int i = 0; i < GAMES; i++)
		cr_assert_geq(ask(c, "v001000\n", got, sizeof got), 2, "start %d", i);
	test_conn *w = test_conn_open(NULL, port, 10000);
	cr_assert_eq(getsockname(w->fd, (struct sockaddr *)&me, &me_len), 0);
	shared->held_port = ntohs(me.sin_port);
	for (int i = 0; i < LISTS; i++)
		strcat(text, "?list\n"); /* 15 KB answers: more than SRV_OUT_HIGH */
	cr_assert_eq(test_write_all(w->fd, text, strlen(text)), 0);
	for (int i = 0; i < 4; i++) /* read, answered up to the limit */
		cr_assert_eq(ask(c, "t0\n", got, sizeof got), 1, "%s", got);
	cr_assert_eq(test_write_all(w->fd, "?list\n", 6), 0);
	for (int i = 0; i < 4; i++)
		cr_assert_eq(ask(c, "t0\n", got, sizeof got), 1, "%s", got);
	cr_assert_eq(server_rx_queue(port, shared->held_port), 6, "the request waits unread");
	shared->held_port = 0;
	for (char line[256]; ends < LISTS + 1;) {
		cr_assert_geq(test_getline(&w->r, line, sizeof line, 10000), 0, "%d answers", ends);
		ends += strcmp(line, "END") == 0;
	}
	test_conn_close(w);
	test_conn_close(c);
	stop_server(kid);
}

/* A client that half-closes while it watches a game gets, once the game
 * has ended, an answer to every request it sent meanwhile (docs/spec.md:
 * "Virhe: keskenerainen viesti" answers only a message cut short), also
 * when its answers are held back so that SRV_OUT_HIGH bytes wait, the
 * most it is served ahead (send above): the rest are answered as it reads.
 * Here 20 "?list" of 600 games (15 KB each) follow the watch, and the
 * game expires (the server's clock set by the test, its other games
 * started 30 s later). */
Test(judge_rules, server_answers_a_half_closed_watchers_requests_as_it_reads, .timeout = 60)
{
	enum { LISTS = 20, GAMES = 600 };
	static char got[65536];
	char line[256], text[256];
	struct sockaddr_in me;
	socklen_t me_len = sizeof me;
	int port, ends = 0;

	share();
	shared->clock_ms = 1000000000;
	pid_t kid = start_server(&port);
	test_conn *c = test_conn_open(NULL, port, 10000);
	cr_assert_geq(ask(c, "v001000\n", got, sizeof got), 2);
	cr_assert_eq(ask(c, "?list\n", got, sizeof got), 1, "%s", got);
	int len = snprintf(text, sizeof text, "?watch %.17s\n", got);
	for (int i = 0; i < LISTS; i++)
		len += snprintf(text + len, sizeof text - (size_t)len, "?list\n");
	shared->clock_ms += 30000;
	for (int i = 0; i < GAMES; i++)
		cr_assert_geq(ask(c, "v001000\n", got, sizeof got), 2, "start %d", i);
	test_conn *w = test_conn_open(NULL, port, 10000);
	cr_assert_eq(getsockname(w->fd, (struct sockaddr *)&me, &me_len), 0);
	shared->held_port = ntohs(me.sin_port);
	cr_assert_eq(test_write_all(w->fd, text, (size_t)len), 0);
	cr_assert_eq(shutdown(w->fd, SHUT_WR), 0);
	/* every turn reads each connection with input (level-triggered):
	 * the watch, then its end of input, are read within these */
	for (int i = 0; i < 8; i++)
		cr_assert_eq(ask(c, "t0\n", got, sizeof got), 1, "%s", got);
	shared->clock_ms += 31000; /* the watched game expires */
	for (int i = 0; i < 8; i++) /* its end, then the answers up to the limit */
		cr_assert_eq(ask(c, "t0\n", got, sizeof got), 1, "%s", got);
	shared->held_port = 0;
	do
		cr_assert_geq(test_getline(&w->r, line, sizeof line, 10000), 0, "the game's end");
	while (strcmp(line, "Virhe: peli paattyi ilman voittajaa") != 0);
	cr_assert_eq(test_getline(&w->r, line, sizeof line, 10000), 3);
	cr_assert_str_eq(line, "END");
	long n;
	while ((n = test_getline(&w->r, line, sizeof line, 10000)) >= 0) {
		cr_assert(line[0] == 'g' || strcmp(line, "END") == 0, "after %d answers: %s", ends,
			  line);
		ends += strcmp(line, "END") == 0;
	}
	cr_assert_eq(n, -1, "then the close");
	cr_assert_eq(ends, LISTS, "every request answered");
	test_conn_close(w);
	test_conn_close(c);
	stop_server(kid);
}

/* A live stream whose event cannot be made (no memory for it) ends, so
 * that the page's EventSource connects again, rather than staying open
 * with nothing sent; the next stream is served. */
Test(judge_rules, server_stream_without_memory_for_its_event_ends, .timeout = 60)
{
	char line[256], request[80], watch[40];
	int port, events = 0;
	long n;

	share();
	memstream_refused = refuse_memstream; /* (in the server child too) */
	runs_http_port = test_free_port();
	pid_t kid = start_server(&port);
	cr_assert_neq(port, runs_http_port);
	test_conn *c = start_watchable_game(port, watch, request);
	shared->refuse_memstreams = 1; /* the stream's first event */
	test_conn *page = test_conn_open(NULL, runs_http_port, 10000);
	cr_assert_eq(test_write_all(page->fd, request, strlen(request)), 0);
	while ((n = test_getline(&page->r, line, sizeof line, 10000)) >= 0)
		events += strncmp(line, "event:", 6) == 0;
	cr_assert_eq(n, -1, "the stream ends, not left open");
	cr_assert_eq(events, 0);
	test_conn_close(page);
	test_conn_close(page_following(request)); /* the next stream served */
	test_conn_close(c);
	stop_server(kid);
}

/* The streams of a game (request), each from an address of its own
 * (127.8.B.k), into pages[n], each read up to its first event; returns
 * when all of them sleep. */
static void streams_from_many_addresses(int b, test_conn **pages, int n, const char *request)
{
	char line[256], src[32];
	struct timespec t0, t;
	int asleep;

	for (int k = 0; k < n; k++) {
		snprintf(src, sizeof src, "127.8.%d.%d", b, k + 1);
		pages[k] = test_conn_open(src, runs_http_port, 10000);
		cr_assert_eq(test_write_all(pages[k]->fd, request, strlen(request)), 0);
		do
			cr_assert_geq(test_getline(&pages[k]->r, line, sizeof line, 10000), 0, "event");
		while (strcmp(line, "data: </svg>") != 0);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		asleep = 0;
		for (int i = 0; i < SUSPENDED_MAX; i++)
			asleep += shared->suspended[i] != NULL;
		clock_gettime(CLOCK_MONOTONIC, &t);
		cr_assert_lt(t.tv_sec - t0.tv_sec, 30, "%d streams sleep", asleep);
	} while (asleep < n);
}

/* Expire the game of pages[n] (ttl_ms after its start, the server's
 * clock now at least start_ms), read each page to its end, close it; the
 * memory the server then holds (c: a game-port connection, games: the
 * games that still run).  libmicrohttpd gives a stream back in the turn
 * that closes its connection. */
static size_t streams_ended(test_conn *c, int games, test_conn **pages, int n, int64_t expiry_ms)
{
	char line[256];

	shared->clock_ms = expiry_ms;
	in_use_after_turns(c, games);
	for (int k = 0; k < n; k++) {
		while (test_getline(&pages[k]->r, line, sizeof line, 10000) >= 0)
			;
		test_conn_close(pages[k]);
	}
	return in_use_after_turns(c, games);
}

/* A page's stream holds its address's record while it is open, and only
 * then: 60 streams, each from an address of its own, leave nothing of
 * theirs once they have ended (here when their game expired), or the
 * server keeps their records for ever (an address holding a reference is
 * never forgotten).  A first game's streams before load what the C
 * library keeps of freed blocks. */
Test(judge_rules, server_stream_gives_back_its_address, .timeout = 60)
{
	enum { STREAMS = 60 };
	static char got[8192];
	const int64_t t0 = 1000000000, ttl = 60000;
	char request[2][80];
	test_conn *pages[STREAMS];
	int port;

	need_own_allocator();
	share();
	shared->clock_ms = t0;
	runs_http_port = test_free_port();
	pid_t kid = start_server(&port);
	cr_assert_neq(port, runs_http_port);
	test_conn *c = test_conn_open(NULL, port, 10000);
	for (int g = 0; g < 2; g++) { /* game 1 starts 30 s after game 0 */
		shared->clock_ms = t0 + g * 30000;
		cr_assert_geq(ask(c, "v001000\n", got, sizeof got), 2);
		cr_assert_eq(ask(c, "?list\n", got, sizeof got), g + 1, "%s", got);
		snprintf(request[g], sizeof request[g], "GET /events/%.17s HTTP/1.0\r\n\r\n",
			 last_line(got)); /* the newest game is listed last */
	}
	streams_from_many_addresses(0, pages, STREAMS, request[0]);
	size_t before = streams_ended(c, 1, pages, STREAMS, t0 + ttl + 1000);
	streams_from_many_addresses(1, pages, STREAMS, request[1]);
	size_t after = streams_ended(c, 0, pages, STREAMS, t0 + 30000 + ttl + 1000);
	cr_assert_leq(after, before + STREAMS * sizeof(srv_addr) / 2,
		      "%zu bytes held, %zu before the streams", after, before);
	test_conn_close(c);
	stop_server(kid);
}

/* A page following a game that expires is told so in docs/live.md's
 * words, "no winner (expired)", and its stream ends. */
Test(judge_rules, server_stream_of_an_expired_game_says_expired, .timeout = 60)
{
	char line[256], request[80], watch[40];
	int port;

	share();
	shared->clock_ms = 1000000000;
	runs_http_port = test_free_port();
	pid_t kid = start_server(&port);
	cr_assert_neq(port, runs_http_port);
	test_conn *c = start_watchable_game(port, watch, request);
	test_conn *page = page_following(request);
	wait_stream_asleep();
	shared->clock_ms += 61000; /* the game expires (60 s) */
	cr_assert_eq(ask(c, "?list\n", line, sizeof line), 1, "the turn that expires it");
	page_ends_with(page, "data: no winner (expired)");
	close_and_stop(kid, page, c);
}

/* At shutdown a page's stream that sleeps while its game runs (its game
 * not ended first for a spectator on the game port) is told that the game
 * ended, "no winner (shutdown)" (docs/live.md), and closed, not left
 * suspended: libmicrohttpd must not stop with suspended connections
 * (microhttpd.h, MHD_stop_daemon), which it would leave open and
 * unanswered. */
Test(judge_rules, server_shutdown_closes_a_sleeping_stream, .timeout = 60)
{
	char line[256], request[80], watch[40];
	int port;
	long n;

	share();
	pid_t kid = start_runs_with_pages(&port);
	test_conn *c = start_watchable_game(port, watch, request);
	test_conn *page = page_following(request);
	wait_stream_asleep();
	next_run(kid); /* the first run ends */
	page_ends_with(page, "data: no winner (shutdown)");
	while ((n = test_getline(&page->r, line, sizeof line, 10000)) >= 0)
		cr_assert_str_eq(line, "", "nothing after the end");
	cr_assert_eq(n, -1, "the stream is closed at the shutdown");
	close_and_stop(kid, page, c);
}

/* GET path from the live pages, HTTP/1.0 (the answer ends at the close):
 * the answer's length (0: closed unanswered), its first line into
 * status[64]. */
static size_t http_get(const char *path, char *status)
{
	static char got[65536];
	char request[128];
	size_t len = 0;
	ssize_t n;
	int fd = test_connect(runs_http_port, 10000);

	cr_assert_geq(fd, 0);
	snprintf(request, sizeof request, "GET %s HTTP/1.0\r\n\r\n", path);
	cr_assert_eq(test_write_all(fd, request, strlen(request)), 0);
	while ((n = read(fd, got + len, sizeof got - 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	got[len] = '\0';
	snprintf(status, 64, "%.*s", (int)strcspn(got, "\r\n"), got);
	return len;
}

/* The live pages' answers keep nothing once sent: a run that answered
 * 100 lists of games and 100 paths not found gives back all it took. */
Test(judge_rules, server_pages_answered_keep_nothing, .timeout = 60)
{
	char status[64];
	int port;

	pid_t kid = start_runs_with_pages(&port);
	for (int run = 0; run < 2; run++) {
		for (int i = 0; i < 100; i++) {
			http_get("/games", status);
			cr_assert_str_eq(status, "HTTP/1.1 200 OK");
			http_get("/nothing", status);
			cr_assert_str_eq(status, "HTTP/1.1 404 Not Found");
		}
		end_run(kid, run);
	}
}

/* A page whose response libmicrohttpd cannot make (out of memory there)
 * is refused, its connection closed without an answer, and keeps
 * nothing: a run that refused 100 pages gives back all it took. */
Test(judge_rules, server_page_refused_keeps_nothing, .timeout = 60)
{
	char status[64];
	int port;

	refuse_buffers = 1000;
	pid_t kid = start_runs_with_pages(&port);
	for (int run = 0; run < 2; run++) {
		for (int i = 0; i < 100; i++)
			cr_assert_eq(http_get("/", status), 0, "page %d: closed unanswered", i);
		end_run(kid, run);
	}
}

/* A server whose first connection is refused (by the fault armed
 * before): that connection is closed at once, not left open unserved,
 * and the next one is served. */
static void first_connection_closed_next_served(void)
{
	char got[256];
	int port;

	pid_t kid = start_server(&port);
	test_conn *c = test_conn_open(NULL, port, 10000);
	cr_assert_eq(test_getline(&c->r, got, sizeof got, 10000), -1, "closed at once");
	test_conn_close(c);
	c = test_conn_open(NULL, port, 10000);
	cr_assert_eq(ask(c, "?list\n", got, sizeof got), 0, "%s", got);
	test_conn_close(c);
	stop_server(kid);
}

/* A connection the epoll set cannot take is closed at once (not left
 * open unserved), and the next one is served. */
Test(judge_rules, server_connection_epoll_refused_is_closed, .timeout = 60)
{
	refuse.add_skip = 2; /* the signalfd and the listener */
	refuse.add_fails = 1;
	first_connection_closed_next_served();
}

/* A connection whose record cannot be allocated is closed at once (not
 * left open and unserved, its descriptor lost), and the next one is
 * served. */
Test(judge_rules, server_connection_out_of_memory_is_closed, .timeout = 60)
{
	need_own_allocator();
	refuse_after_accept = 1;
	first_connection_closed_next_served();
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
	accept_sndbuf = 4096; /* the sockets hold a few KB, not megabytes */
	pid_t kid = start_server(&port);
	test_conn *c = test_conn_open(NULL, port, 10000);
	for (int i = 0; i < 200; i++)
		cr_assert_geq(ask(c, "v001000\n", got, sizeof got), 2, "start %d", i);
	/* c stays open to the end: the games are its, and a server that saw
	 * it close first could drop them and answer short lists that fit */
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	cr_assert_eq(setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small), 0);
	cr_assert_eq(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0);
	for (int i = 0; i < 2000; i++) /* refused once the server closes */
		if (send(fd, "?list\n", 6, MSG_NOSIGNAL) != 6)
			break;
	/* Read nothing until the server has read every request (its epoll is
	 * level-triggered: each of these round trips is a turn that also
	 * reads fd): a reader that kept pace with a slow server would get
	 * every answer, and the test would say nothing. */
	for (int i = 0; i < 64; i++)
		cr_assert_eq(ask(c, "t0\n", got, sizeof got), 1, "%s", got);
	test_reader r;
	test_reader_init(&r, fd);
	long len;
	while ((len = test_getline(&r, got, sizeof got, 10000)) >= 0)
		ends += strcmp(got, "END") == 0;
	cr_assert_eq(len, -1, "the connection is closed, not left waiting (%d answers)", ends);
	cr_assert_lt(ends, 2000, "answers are missing");
	close(fd);
	test_conn_close(c);
	stop_server(kid);
}

/* A server whose sockets' send buffers are small (its process id into
 * *kid, its port into *port), and a client with a small receive buffer
 * that sends UNKNOWN unknown messages ("t0"; their answers, 160 KB, stay
 * under the 256 KB that stop the server reading but outgrow the sockets'
 * few KB) and then tail, reading nothing: the client's descriptor (r set
 * to read it), once the server has read all it sent.  A second connection's 64 "?list"
 * round trips are that barrier: the server's epoll is level-triggered, so
 * each of its turns also reads the first connection while it has input
 * (25 reads). */
enum { UNKNOWN = 1500 };

static int send_unread(pid_t *kid, int *port, const char *tail, int half_close, test_reader *r)
{
	static char text[UNKNOWN * 3 + 16];
	char got[256];
	int small = 4096;
	size_t len = 0;

	accept_sndbuf = 4096;
	*kid = start_server(port);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)*port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};

	cr_assert_eq(setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small), 0);
	cr_assert_eq(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0);
	for (int i = 0; i < UNKNOWN; i++)
		len += (size_t)snprintf(text + len, sizeof text - len, "t0\n");
	len += (size_t)snprintf(text + len, sizeof text - len, "%s", tail);
	cr_assert_eq(test_write_all(fd, text, len), 0);
	if (half_close)
		cr_assert_eq(shutdown(fd, SHUT_WR), 0);
	test_conn *barrier = test_conn_open(NULL, *port, 10000);
	for (int i = 0; i < 64; i++)
		cr_assert_eq(ask(barrier, "?list\n", got, sizeof got), 0, "%s", got);
	test_conn_close(barrier);
	test_reader_init(r, fd);
	return fd;
}

/* Read r's answers to send_unread's unknown messages, in order, up to
 * want of them: how many came before another line (into next) or the end. */
static int read_unknown(test_reader *r, int want, char *next, size_t size)
{
	int unknown = 0;

	for (; unknown < want; unknown++) {
		next[0] = '\0';
		if (test_getline(r, next, size, 10000) < 0 ||
		    strncmp(next, "Virhe: tuntematon viesti (", 26) != 0)
			break;
		cr_assert_eq(test_getline(r, next, size, 10000), 3, "END after the answer");
		cr_assert_str_eq(next, "END");
	}
	return unknown;
}

/* A client that stops sending in the middle of a message is told so once
 * (docs/spec.md: "Virhe: keskenerainen viesti", END, then the close), also
 * when that answer has to wait behind answers the client has not read. */
Test(judge_rules, server_queued_incomplete_answer_is_sent_once, .timeout = 60)
{
	char got[256];
	int port;
	pid_t kid;
	test_reader r;
	int fd = send_unread(&kid, &port, "v00", 1, &r);
	cr_assert_eq(read_unknown(&r, UNKNOWN, got, sizeof got), UNKNOWN,
		     "every unknown message answered, in order: %s", got);
	cr_assert_eq(test_getline(&r, got, sizeof got, 10000), 27);
	cr_assert_str_eq(got, "Virhe: keskenerainen viesti");
	cr_assert_eq(test_getline(&r, got, sizeof got, 10000), 3);
	cr_assert_str_eq(got, "END");
	cr_assert_eq(test_getline(&r, got, sizeof got, 10000), -1,
		     "the cut message answered once, then the close: %s", got);
	close(fd);
	stop_server(kid);
}

/* A client that reads its answers slowly holds nobody up: when its socket
 * takes part of what waits for it, the server writes that part and serves
 * the next client (here: a client that read 300 of 1500 answers, then
 * nothing until another client's "?list" are answered), and the rest
 * comes whole and in order. */
Test(judge_rules, server_serves_others_while_a_client_reads_slowly, .timeout = 60)
{
	char got[256];
	int port;
	pid_t kid;
	test_reader r;
	int fd = send_unread(&kid, &port, "", 0, &r);
	cr_assert_eq(read_unknown(&r, 300, got, sizeof got), 300);
	test_conn *other = test_conn_open(NULL, port, 10000);
	for (int i = 0; i < 8; i++)
		cr_assert_eq(ask(other, "?list\n", got, sizeof got), 0, "%s", got);
	test_conn_close(other);
	cr_assert_eq(read_unknown(&r, UNKNOWN - 300, got, sizeof got), UNKNOWN - 300);
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
	test_write_file(path, "b\n/bin/true\n\n0\n");
	refuse.realloc_above = 1;
	int rc = kj_bot_load(dir, &bot, &err);
	refuse.realloc_above = 0;
	cr_assert_eq(rc, -1);
	snprintf(want, sizeof want, "%s: cannot note the folder: %s", real, strerror(ENOMEM));
	cr_assert_str_eq(err.msg, want);
	cr_assert_eq(kj_bot_load(dir, &bot, &err), 0, "%s", err.msg);
}

/* The learning curve of a fixed lineup's report that cannot be allocated
 * (its points, or the list of deals it is computed from) makes the report
 * fail ("results: out of memory"), as every other allocation of the
 * report does, rather than come out without its curve. */
Test(judge_rules, report_curve_out_of_memory_fails_the_report)
{
#ifdef __SANITIZE_ADDRESS__
	cr_skip_test("ASan's allocator cannot be put behind this file's");
#endif
	kj_result res[3];
	kj_report rep;
	kb_err err = {0};

	memset(res, 0, sizeof res);
	for (int d = 0; d < 3; d++) {
		res[d].game = (uint32_t)d, res[d].deal = (uint32_t)d, res[d].winner = 0;
		for (int s = 0; s < 2; s++) {
			res[d].seat[s].present = 1, res[d].seat[s].place = s + 1;
			snprintf(res[d].seat[s].name, sizeof res[d].seat[s].name, "%s", s ? "y" : "x");
		}
	}
	/* 3 points; 3 deals and one more (standings.c's deal_totals) */
	static const size_t sizes[] = {3 * sizeof(kj_curve_point), 4 * sizeof(uint32_t)};
	for (int k = 0; k < 2; k++) {
		refuse.calloc_bytes = sizes[k], refuse.calloc_fails = 1;
		int rc = kj_report_build(&rep, res, 3, 1, &err);
		int refused = refuse.calloc_fails == 0;
		refuse.calloc_fails = 0;
		cr_assert(refused, "the calloc of %zu bytes was not made", sizes[k]);
		cr_assert_eq(rc, -1, "%zu bytes refused", sizes[k]);
		cr_assert_str_eq(err.msg, "results: out of memory");
		kj_report_free(&rep);
	}
	cr_assert_eq(kj_report_build(&rep, res, 3, 1, &err), 0, "%s", err.msg);
	cr_assert_eq(rep.standings->ncurve, 3, "three deals, three points");
	kj_report_free(&rep);
}

/* The end of a game: its transcript's end record says "win" when a seat
 * won (seat A too, the server's client) and the reason given otherwise,
 * and its token is wiped before the game's memory goes back to the
 * allocator (a used token never stays in memory, game.h). */
Test(judge_rules, game_end_records_the_win_and_wipes_the_token)
{
#ifdef __SANITIZE_ADDRESS__
	cr_skip_test("ASan's allocator cannot be put behind this file's");
#endif
	static srv_games t;
	static const uint8_t lineup[3] = {2, 0, 0};
	char dir[256], name[64];
	const char *want[3] = {"end A 0 win\n", "end B 0 win\n", "end - 0 gone\n"};

	test_tmpdir(dir, sizeof dir);
	cr_assert_eq(srv_games_init(&t, 7, 60000, dir), 0);
	for (int k = 0; k < 3; k++) {
		srv_game *g = srv_game_start(&t, lineup, 0);
		cr_assert_not_null(g);
		g->g.winner = k < 2 ? k : -1;
		watch_free = g;
		memset(freed_token, 'x', sizeof freed_token);
		srv_game_end(&t, g, "gone");
		watch_free = NULL;
		for (size_t i = 0; i < sizeof freed_token; i++)
			cr_assert_eq(freed_token[i], 0, "game %d: token byte %zu left in freed memory", k, i);
		snprintf(name, sizeof name, "game-%016x-%06d.txt", 7, k);
		const char *text = test_read_file(dir, name);
		const char *end = strstr(text, "\nend ");
		cr_assert_not_null(end, "%s", text);
		cr_assert_str_eq(end + 1, want[k]);
	}
	srv_games_free(&t, "test");
}
