/* server.c - kimble-server under load, on loopback.
 *
 *   build/rel/bench/server [--games N] [--seconds S] [--idle N] [--json FILE]
 *                          [--http-idle N] [--watchers N]
 *
 * 1. load: N connections (default 256) each play games against
 *    bin/kimble-server (lineup 222, the piece choice "hard") as fast as the
 *    server answers, one request in flight per connection, for S seconds
 *    (default 4) after a short warm-up.  Reports moves per second (move
 *    requests answered) and the p50/p99 latency from sending a request to
 *    reading its END.
 * 2. loopback limit: the same client against a trivial echo server (a
 *    forked child of this bench) that answers every request line with a
 *    response of the average size the real server sent; the ratio says how
 *    far the server is from what loopback and this client allow.  The echo
 *    server is also paced at the same rate: its p99 is the floor that this
 *    host, the kernel and the client set for the server's paced p99 in the
 *    same run (on a virtual machine whose host is busy it moves from run to
 *    run, and the server's figures move with it).  The cost of a bare
 *    system call is shown for the same reason.
 * 3. idle: a fresh server gets N idle connections (default 10,000; the
 *    descriptor limit is raised as far as allowed, and the table says if
 *    it capped the count); reports the server's VmRSS and VmHWM.
 * 4. memory per running game: a fresh server whose limits are raised
 *    (--max-games, --addr-games, --addr-burst: all these games come from
 *    loopback, one address) gets --hold starts (default 20,000) that it
 *    keeps running; the growth of VmRSS over the games is the memory one
 *    running game takes, and times the default --max-games the memory the
 *    default bound allows.  Then the same flood against a server with its
 *    default limits: how many it keeps, how many it refuses, its VmHWM.
 * 5. live pages: a server with --http is paced as in (1), then paced again
 *    while it holds --http-idle idle HTTP connections (default 1,000) and
 *    --watchers event streams (default 100) of one game that a client
 *    plays at 10 moves a second (a forked child of this bench opens them,
 *    reads every event and plays that game); the two paced p99 figures say
 *    whether the live pages slow the game port.
 * The load run (1) starts thousands of games a second from loopback, more
 * than the default per-address bucket of new games allows one address, so
 * its server runs with --trust loopback (the per-address limits are
 * checked, and skipped for loopback; the global ones apply); the table
 * shows the games started a second and that nothing was refused.
 * With two or more CPUs the servers run pinned to CPU 0 and the client to
 * CPU 1 (pin_to).  The server binary is $KB_BIN/kimble-server (bin/ when
 * unset). */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/board.h"
#include "core/policy.h"
#include "core/rules.h"
#include "core/wire.h"
#include "judge/server/limits.h"

#define RBUF (128 * 1024)

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "bench server: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, ": %s\n", strerror(errno));
	exit(1);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int free_port(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof a;
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;
	if (bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
	    getsockname(fd, (struct sockaddr *)&a, &len) == 0)
		port = ntohs(a.sin_port);
	close(fd);
	return port;
}

static int connect_to(int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
		close(fd);
		return -1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	return fd;
}

/* On a machine with two or more CPUs the server (and the echo server)
 * runs on CPU 0 and the load client on CPU 1, so that neither waits for
 * the other's time slice: what is measured is the server's answer time,
 * not the scheduler's. */
static int pinned; /* the client pinned itself */

static void pin_to(int cpu)
{
	cpu_set_t set;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof set, &set) == 0)
		pinned++;
}

/* ---- the server child ------------------------------------------------------ */

/* Start the server with extra options (NULL-terminated, or NULL). */
static pid_t start_server(int *port, const char *const *extra)
{
	char bin[512], portarg[16], line[256];
	const char *argv[24];
	const char *dir = getenv("KB_BIN");
	int out[2];
	snprintf(bin, sizeof bin, "%s/kimble-server", dir ? dir : "bin");
	for (int attempt = 0; attempt < 5; attempt++) {
		*port = free_port();
		snprintf(portarg, sizeof portarg, "%d", *port);
		if (pipe(out) != 0)
			die("%s", "pipe");
		pid_t pid = fork();
		if (pid == 0) {
			pin_to(0);
			dup2(out[1], 1);
			close(out[0]);
			int n = 0;
			argv[n++] = bin;
			argv[n++] = "--port";
			argv[n++] = portarg;
			argv[n++] = "--seed";
			argv[n++] = "1";
			while (extra && *extra && n < 23)
				argv[n++] = *extra++;
			argv[n] = NULL;
			execv(bin, (char *const *)argv);
			_exit(127);
		}
		close(out[1]);
		FILE *f = fdopen(out[0], "r");
		int ok = f && fgets(line, sizeof line, f) && strstr(line, "listening on");
		if (f)
			fclose(f);
		if (ok)
			return pid;
		waitpid(pid, NULL, 0);
	}
	die("cannot start %s", bin);
	return -1;
}

static void stop(pid_t pid)
{
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
}

/* ---- the load client ------------------------------------------------------------ */

typedef struct conn {
	int fd;
	char token[KB_TOKEN_LEN];
	size_t len;
	double sent_at;
	double next_at;          /* paced runs: when to send (0: nothing due) */
	double slot;             /* paced runs: this game's last send slot */
	char next[KB_MOVE_LEN + 8];
	size_t next_len;
	int next_is_move;
	int is_move;
	char buf[RBUF];
} conn;

typedef struct load {
	int echo;                /* against the echo server: fixed requests */
	double interval;         /* paced runs: seconds between a game's requests */
	uint64_t moves, bytes, responses, refused;
	double *lat;
	size_t nlat, cap;
	int measuring;
} load;

static void write_req(conn *c, const char *msg, size_t n, int is_move)
{
	c->sent_at = now_s();
	c->is_move = is_move;
	if (write(c->fd, msg, n) != (ssize_t)n)
		die("%s", "write");
}

/* Send now, or in a paced run keep it until the game's next slot.  Each
 * game owns a fixed phase (slots one interval apart, the games' phases
 * spread evenly over the interval), so that the games do not drift into
 * bursts: a game whose answer came after its slot sends at once and then
 * returns to its phase. */
static void send_req(conn *c, load *L, const char *msg, size_t n, int is_move)
{
	double t;

	if (L->interval <= 0) {
		write_req(c, msg, n, is_move);
		return;
	}
	t = now_s();
	c->slot += L->interval;
	while (c->slot < t - L->interval)
		c->slot += L->interval;
	if (c->slot <= t) {
		write_req(c, msg, n, is_move);
		return;
	}
	memcpy(c->next, msg, n);
	c->next_len = n;
	c->next_is_move = is_move;
	c->next_at = c->slot;
}

/* Send the requests that are due; returns when the next one is (0: none). */
static double send_due(conn *cs, int nconn, double t)
{
	double first = 0;

	for (int i = 0; i < nconn; i++) {
		if (cs[i].next_at > 0 && cs[i].next_at <= t) {
			cs[i].next_at = 0;
			write_req(&cs[i], cs[i].next, cs[i].next_len, cs[i].next_is_move);
		}
		if (cs[i].next_at > 0 && (first == 0 || cs[i].next_at < first))
			first = cs[i].next_at;
	}
	return first;
}

static void send_start(conn *c, load *L)
{
	send_req(c, L, "v001222\n", 8, 0);
}

/* A complete response is in c->buf: choose the next request. */
static void next_request(conn *c, load *L)
{
	char msg[KB_MOVE_LEN + 1];
	const char *end = c->buf + c->len - 4; /* "END\n" */
	const char *lastl;

	if (L->echo) {
		memset(msg, 'a', KB_MOVE_LEN);
		msg[KB_MOVE_LEN] = '\n';
		send_req(c, L, msg, sizeof msg, 1);
		return;
	}
	if (c->buf[0] == 't')
		memcpy(c->token, c->buf, KB_TOKEN_LEN);
	lastl = end - 1;
	while (lastl > c->buf && lastl[-1] != '\n')
		lastl--;
	if (end - lastl - 1 != KB_ROLL_LINE_LEN || lastl[KB_BOARD_LEN] != 'A') {
		send_start(c, L); /* Voittaja (or a token-only start): a new game */
		return;
	}
	kb_pos pos;
	if (kb_board_parse(lastl, KB_BOARD_LEN, 0xf, &pos, NULL) != 0) {
		fprintf(stderr, "bench server: bad board %.46s\n", lastl);
		exit(1);
	}
	int idx = kb_pick_hard(kb_legal(&pos, 0, lastl[45] - '0'));
	memcpy(msg, c->token, KB_TOKEN_LEN);
	msg[KB_TOKEN_LEN] = (char)('0' + idx);
	msg[KB_MOVE_LEN] = '\n';
	send_req(c, L, msg, sizeof msg, 1);
}

static void record(load *L, conn *c, double t)
{
	if (!L->measuring)
		return;
	L->responses++;
	L->refused += memcmp(c->buf, "Virhe", 5) == 0;
	L->bytes += c->len;
	if (!c->is_move)
		return;
	L->moves++;
	if (L->nlat == L->cap) {
		L->cap = L->cap ? L->cap * 2 : 1 << 16;
		L->lat = realloc(L->lat, L->cap * sizeof *L->lat);
	}
	L->lat[L->nlat++] = t - c->sent_at;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

typedef struct load_result {
	double moves_per_s, p50_ms, p99_ms, avg_resp, starts_per_s;
	uint64_t refused;            /* answers that were a Virhe line */
} load_result;

/* rate 0: every game sends its next request as soon as it has the answer
 * (saturation); rate R: the games together send about R requests/s. */
static load_result run_load(int port, int nconn, double secs, int echo, double rate)
{
	load L = {.echo = echo, .interval = rate > 0 ? nconn / rate : 0};
	conn *cs = calloc((size_t)nconn, sizeof *cs);
	int ep = epoll_create1(0);
	struct epoll_event evs[256];
	load_result res = {0};

	double phase0 = now_s();
	for (int i = 0; i < nconn; i++) {
		cs[i].slot = phase0 + L.interval * ((double)i / nconn - 1);
		cs[i].fd = connect_to(port);
		if (cs[i].fd < 0)
			die("%s", "connect");
		struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &cs[i]};
		epoll_ctl(ep, EPOLL_CTL_ADD, cs[i].fd, &ev);
		if (echo)
			next_request(&cs[i], &L);
		else
			send_start(&cs[i], &L);
	}
	double t0 = now_s(), warm = t0 + 0.5, stop_at = warm + secs;
	double due = L.interval > 0 ? send_due(cs, nconn, now_s()) : 0;
	while (now_s() < stop_at) {
		/* sleep until the next paced request (no busy waiting: the
		 * server needs the CPU) */
		double wait = due > 0 ? due - now_s() : 0.1;
		struct timespec ts = {0, 0};
		if (wait > 0) {
			ts.tv_sec = (time_t)wait;
			ts.tv_nsec = (long)((wait - (double)ts.tv_sec) * 1e9);
		}
		int n = epoll_pwait2(ep, evs, 256, &ts, NULL);
		double t = now_s();
		if (!L.measuring && t >= warm) {
			L.measuring = 1;
			warm = t;
		}
		for (int i = 0; i < n; i++) {
			conn *c = evs[i].data.ptr;
			ssize_t got = read(c->fd, c->buf + c->len, RBUF - c->len);
			if (got <= 0)
				die("%s", "read (server closed?)");
			c->len += (size_t)got;
			if (c->len >= 4 && memcmp(c->buf + c->len - 4, "END\n", 4) == 0 &&
			    (c->len == 4 || c->buf[c->len - 5] == '\n')) {
				record(&L, c, t);
				next_request(c, &L);
				c->len = 0;
				if (c->next_at > 0 && (due == 0 || c->next_at < due))
					due = c->next_at;
			} else if (c->len == RBUF) {
				fprintf(stderr, "bench server: response too long\n");
				exit(1);
			}
		}
		if (L.interval > 0)
			due = send_due(cs, nconn, now_s());
	}
	double span = now_s() - warm;
	for (int i = 0; i < nconn; i++)
		close(cs[i].fd);
	close(ep);
	free(cs);
	qsort(L.lat, L.nlat, sizeof *L.lat, cmp_double);
	res.moves_per_s = (double)L.moves / span;
	res.starts_per_s = (double)(L.responses - L.moves) / span;
	res.refused = L.refused;
	if (L.nlat) {
		res.p50_ms = L.lat[L.nlat / 2] * 1e3;
		res.p99_ms = L.lat[(size_t)((double)L.nlat * 0.99)] * 1e3;
	}
	res.avg_resp = L.responses ? (double)L.bytes / (double)L.responses : 0;
	free(L.lat);
	return res;
}

/* ---- the echo server ------------------------------------------------------------- */

/* Answer every '\n'-ended request with resp_len bytes ending in "END\n". */
static void echo_serve(int lfd, size_t resp_len)
{
	int ep = epoll_create1(0);
	struct epoll_event ev = {.events = EPOLLIN, .data.fd = lfd}, evs[256];
	char *resp = malloc(resp_len), buf[4096];

	memset(resp, '0', resp_len);
	for (size_t i = 46; i < resp_len; i += 47)
		resp[i] = '\n';
	memcpy(resp + resp_len - 4, "END\n", 4);
	if (resp_len > 4)
		resp[resp_len - 5] = '\n';
	epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
	for (;;) {
		int n = epoll_wait(ep, evs, 256, -1);
		for (int i = 0; i < n; i++) {
			int fd = evs[i].data.fd;
			if (fd == lfd) {
				int c = accept4(lfd, NULL, NULL, SOCK_NONBLOCK), one = 1;
				if (c < 0)
					continue;
				setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
				struct epoll_event cev = {.events = EPOLLIN, .data.fd = c};
				epoll_ctl(ep, EPOLL_CTL_ADD, c, &cev);
				continue;
			}
			ssize_t got = read(fd, buf, sizeof buf);
			if (got <= 0) {
				close(fd);
				continue;
			}
			for (ssize_t k = 0; k < got; k++)
				if (buf[k] == '\n' && write(fd, resp, resp_len) < 0)
					break;
		}
	}
}

static pid_t start_echo(int *port, size_t resp_len)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof a;
	int lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (bind(lfd, (struct sockaddr *)&a, sizeof a) != 0 || listen(lfd, 1024) != 0 ||
	    getsockname(lfd, (struct sockaddr *)&a, &len) != 0)
		die("%s", "echo listen");
	*port = ntohs(a.sin_port);
	pid_t pid = fork();
	if (pid == 0) {
		pin_to(0);
		echo_serve(lfd, resp_len);
		_exit(0);
	}
	close(lfd);
	return pid;
}

/* Microseconds one bare system call takes: on a virtual machine it ranges
 * from 0.1 to over 1 us, and the server makes two per request. */
static double syscall_us(void)
{
	enum { CALLS = 200000 };
	double t = now_s();

	for (int i = 0; i < CALLS; i++)
		syscall(SYS_getppid);
	return (now_s() - t) * 1e6 / CALLS;
}

/* "met" or "NOT met", as the other benches print their targets. */
static const char *verdict(int met)
{
	return met ? "met" : "NOT met";
}

/* ---- idle connections ------------------------------------------------------------- */

static long proc_kb(pid_t pid, const char *field)
{
	char path[64], line[256];
	long v = -1;
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, field, strlen(field)) == 0)
			v = strtol(line + strlen(field) + 1, NULL, 10);
	if (f)
		fclose(f);
	return v;
}

/* CPU seconds (user + system) a process has used. */
static double proc_cpu(pid_t pid)
{
	char path[64], buf[1024];
	unsigned long ut = 0, st = 0;
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f || !fgets(buf, sizeof buf, f)) {
		if (f)
			fclose(f);
		return 0;
	}
	fclose(f);
	char *p = strrchr(buf, ')'); /* the command name may hold spaces */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
		return 0;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/* One "?list" round trip: the server has accepted every earlier connection. */
static void round_trip(int fd)
{
	char buf[4096];
	size_t len = 0;
	if (write(fd, "?list\n", 6) != 6)
		die("%s", "write");
	while (len < 4 || memcmp(buf + len - 4, "END\n", 4) != 0) {
		ssize_t n = read(fd, buf + len, sizeof buf - len);
		if (n <= 0)
			die("%s", "read");
		len += (size_t)n;
		if (len == sizeof buf)
			len = 0;
	}
}

typedef struct idle_result {
	int wanted, opened;
	long rss_kb, hwm_kb, rss0_kb;
	rlim_t limit;
} idle_result;

static idle_result run_idle(int wanted)
{
	idle_result r = {.wanted = wanted};
	struct rlimit rl;
	int port;

	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
	r.limit = rl.rlim_cur;
	pid_t pid = start_server(&port, NULL);
	int *fds = malloc(sizeof *fds * (size_t)wanted);
	int first = connect_to(port);
	round_trip(first);
	r.rss0_kb = proc_kb(pid, "VmRSS");
	for (int i = 0; i < wanted; i++) {
		fds[i] = connect_to(port);
		if (fds[i] < 0)
			break;
		r.opened++;
		if (r.opened % 500 == 0)
			round_trip(fds[i]);
	}
	if (r.opened)
		round_trip(fds[r.opened - 1]);
	round_trip(first);
	r.rss_kb = proc_kb(pid, "VmRSS");
	r.hwm_kb = proc_kb(pid, "VmHWM");
	for (int i = 0; i < r.opened; i++)
		close(fds[i]);
	close(first);
	free(fds);
	stop(pid);
	return r;
}

/* ---- live pages ---------------------------------------------------------------------- */

/* Read one whole game-port answer (up to END) into c->buf. */
static void read_answer(conn *c)
{
	c->len = 0;
	while (c->len < 4 || memcmp(c->buf + c->len - 4, "END\n", 4) != 0 ||
	       (c->len > 4 && c->buf[c->len - 5] != '\n')) {
		ssize_t n = read(c->fd, c->buf + c->len, RBUF - c->len);
		if (n <= 0)
			die("%s", "read (server closed?)");
		c->len += (size_t)n;
	}
}

/* The spectator id of the most recently used game (the last ?list line). */
static void newest_game(int port, char id[32])
{
	conn *c = calloc(1, sizeof *c);
	c->fd = connect_to(port);
	if (c->fd < 0 || write(c->fd, "?list\n", 6) != 6)
		die("%s", "?list");
	read_answer(c);
	char *end = c->buf + c->len - 4, *line = end - 1;
	while (line > c->buf && line[-1] != '\n')
		line--;
	snprintf(id, 32, "%.17s", line);
	close(c->fd);
	free(c);
}

typedef struct live_result {
	long events, bytes, moves, idle;
} live_result;

/* Open n event streams of the newest game of port into fds[] and ep
 * (closing the earlier ones). */
static void open_streams(int port, int hport, int *fds, int n, int ep)
{
	char id[32], req[128];

	newest_game(port, id);
	snprintf(req, sizeof req, "GET /events/%s HTTP/1.1\r\nHost: bench\r\n\r\n", id);
	for (int i = 0; i < n; i++) {
		if (fds[i] >= 0)
			close(fds[i]); /* also leaves ep */
		fds[i] = connect_to(hport);
		struct epoll_event ev = {.events = EPOLLIN, .data.fd = fds[i]};
		if (fds[i] < 0 || write(fds[i], req, strlen(req)) != (ssize_t)strlen(req))
			die("%s", "watcher");
		epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ev);
	}
}

/* The child of run_live: idle HTTP connections, event streams of one game
 * it plays at 10 moves a second for secs seconds (when the game is won,
 * the streams follow the next); writes its counts to report.  Never
 * returns. */
static void live_child(int port, int hport, int idle, int watchers, double secs, int ready,
		       int report)
{
	live_result r = {0};
	load L = {0};
	conn *g = calloc(1, sizeof *g);
	char buf[65536];
	int ep = epoll_create1(0), *fds = malloc(sizeof *fds * (size_t)watchers);

	for (int i = 0; i < idle; i++)
		r.idle += connect_to(hport) >= 0;
	g->fd = connect_to(port);
	send_start(g, &L);
	read_answer(g);
	for (int i = 0; i < watchers; i++)
		fds[i] = -1;
	open_streams(port, hport, fds, watchers, ep);
	if (write(ready, "r", 1) != 1)
		die("%s", "ready");
	double t_end = now_s() + secs, next_move = now_s() + 0.1;
	while (now_s() < t_end) {
		struct epoll_event evs[128];
		int n = epoll_wait(ep, evs, 128, 10);
		for (int i = 0; i < n; i++) {
			ssize_t got = read(evs[i].data.fd, buf, sizeof buf - 1);
			if (got <= 0) {
				epoll_ctl(ep, EPOLL_CTL_DEL, evs[i].data.fd, NULL);
				continue;
			}
			buf[got] = '\0';
			r.bytes += got;
			for (char *p = buf; (p = strstr(p, "event: ")); p++)
				r.events++;
		}
		if (now_s() >= next_move) {
			next_move += 0.1;
			next_request(g, &L); /* a new game once this one is won */
			read_answer(g);
			r.moves++;
			if (g->buf[0] == 't') /* a start's answer: follow the new game */
				open_streams(port, hport, fds, watchers, ep);
		}
	}
	if (write(report, &r, sizeof r) != (ssize_t)sizeof r)
		_exit(1);
	_exit(0);
}

typedef struct live_bench {
	load_result plain, loaded;
	live_result child;
	long rss_kb;
	double cpu_plain_s, cpu_loaded_s;  /* server CPU time during each run */
} live_bench;

static live_bench run_live(int games, double secs, double rate, int idle, int watchers)
{
	live_bench b = {0};
	int port, hport = free_port(), ready[2], report[2];
	char hp[16], gs[16], conns[16];
	char r;

	snprintf(hp, sizeof hp, "%d", hport);
	snprintf(gs, sizeof gs, "%d", watchers + 1);
	snprintf(conns, sizeof conns, "%d", idle + watchers + 100);
	const char *const extra[] = {"--trust", "loopback", "--http", hp, "--game-spectators", gs,
				     "--addr-spectators", gs, "--http-connections", conns, NULL};
	pid_t srv = start_server(&port, extra);
	double cpu0 = proc_cpu(srv);
	b.plain = run_load(port, games, secs, 0, rate);
	b.cpu_plain_s = proc_cpu(srv) - cpu0;
	if (pipe(ready) != 0 || pipe(report) != 0)
		die("%s", "pipe");
	pid_t child = fork();
	if (child == 0)
		live_child(port, hport, idle, watchers, secs + 1.5, ready[1], report[1]);
	if (read(ready[0], &r, 1) != 1)
		die("%s", "the live child did not get ready");
	cpu0 = proc_cpu(srv);
	b.loaded = run_load(port, games, secs, 0, rate);
	b.cpu_loaded_s = proc_cpu(srv) - cpu0;
	b.rss_kb = proc_kb(srv, "VmRSS");
	if (read(report[0], &b.child, sizeof b.child) != (ssize_t)sizeof b.child)
		die("%s", "the live child's report");
	waitpid(child, NULL, 0);
	close(ready[0]), close(ready[1]), close(report[0]), close(report[1]);
	stop(srv);
	return b;
}

/* ---- memory per running game ------------------------------------------------------ */

typedef struct hold_result {
	long kept, refused;          /* starts that left a running game / a Virhe */
	long rss0_kb, rss_kb, hwm_kb;
} hold_result;

/* Send n starts on one connection in batches of 100 and count what the
 * answers say: a token whose game waits for A is a running game. */
static hold_result run_hold(long n, const char *const *extra)
{
	hold_result r = {0};
	char batch[100 * 7], line[256], last[256] = "";
	int port;
	pid_t pid = start_server(&port, extra);
	int fd = connect_to(port);
	FILE *in = fd >= 0 ? fdopen(dup(fd), "r") : NULL;

	if (!in)
		die("%s", "connect");
	round_trip(fd);
	r.rss0_kb = proc_kb(pid, "VmRSS");
	for (int i = 0; i < 100; i++)
		memcpy(batch + 7 * i, "v001222", 7);
	for (long sent = 0; sent < n; sent += 100) {
		if (write(fd, batch, sizeof batch) != (ssize_t)sizeof batch)
			die("%s", "write");
		for (int answers = 0; answers < 100;) {
			if (!fgets(line, sizeof line, in))
				die("%s", "read (server closed?)");
			if (strcmp(line, "END\n") != 0) {
				r.refused += strncmp(line, "Virhe", 5) == 0;
				strcpy(last, line);
				continue;
			}
			answers++;
			/* a state line of A last: the game waits for A's decision */
			r.kept += strlen(last) == KB_ROLL_LINE_LEN + 1 && last[KB_BOARD_LEN] == 'A';
			last[0] = '\0';
		}
	}
	r.rss_kb = proc_kb(pid, "VmRSS");
	r.hwm_kb = proc_kb(pid, "VmHWM");
	fclose(in);
	close(fd);
	stop(pid);
	return r;
}

/* The rows of the printed table, with the decimals of each value (the
 * values, in this order, are main's row_value[]). */
static const struct {
	const char *name;
	int decimals;
} table_row[] = {
	{"host: one bare system call us", 2},
	{"saturated: moves/s", 0},
	{"saturated: latency p50 ms", 3},
	{"saturated: latency p99 ms", 3},
	{"server CPU us per move (approx.)", 1},
	{"saturated: games started/s", 0},
	{"saturated + paced: refusals", 0},
	{"average response bytes", 0},
	{"paced: requests/s offered", 0},
	{"paced: moves/s answered", 0},
	{"paced: latency p50 ms", 3},
	{"paced: latency p99 ms", 3},
	{"server VmHWM under load KiB", 0},
	{"requests/s (echo, same client)", 0},
	{"echo latency p99 ms", 3},
	{"echo paced: latency p99 ms", 3},
	{"server / echo ratio", 2},
	{"idle connections opened", 0},
	{"server VmRSS before KiB", 0},
	{"server VmRSS idle KiB", 0},
	{"server VmHWM idle KiB", 0},
	{"running games held (limits raised)", 0},
	{"memory per running game KiB", 3},
	{"at default --max-games MiB", 0},
	{"default limits: games kept", 0},
	{"default limits: starts refused", 0},
	{"default limits: server VmHWM KiB", 0},
	{"live: paced p99 ms, no HTTP", 3},
	{"live: paced p99 ms, HTTP load", 3},
	{"live: paced moves/s, no HTTP", 0},
	{"live: paced moves/s, HTTP load", 0},
	{"live: server CPU us/move, no HTTP", 1},
	{"live: server CPU us/move, HTTP", 1},
	{"live: idle HTTP connections", 0},
	{"live: event streams of one game", 0},
	{"live: its moves while measured", 0},
	{"live: events received in all", 0},
	{"live: event bytes received", 0},
	{"live: server VmRSS KiB", 0},
};
#define TABLE_ROWS (sizeof table_row / sizeof *table_row)

/* An option NAME VALUE: VALUE stored at `at` as an int ('i'), a long
 * ('l'), a double ('d') or the string itself ('s'). */
typedef struct bench_opt {
	const char *name;
	char kind;
	void *at;
} bench_opt;

/* Every argument an option of opts[0..n) with its value: 0, else -1. */
static int parse_opts(int argc, char **argv, const bench_opt *opts, size_t n)
{
	for (int i = 1; i < argc; i += 2) {
		size_t k = 0;
		while (k < n && strcmp(argv[i], opts[k].name))
			k++;
		if (k == n || i + 1 >= argc)
			return -1;
		const char *v = argv[i + 1];
		switch (opts[k].kind) {
		case 'i': *(int *)opts[k].at = atoi(v); break;
		case 'l': *(long *)opts[k].at = atol(v); break;
		case 'd': *(double *)opts[k].at = atof(v); break;
		default: *(const char **)opts[k].at = v;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	int games = 256, idle = 10000, http_idle = 1000, watchers = 100;
	long hold = 20000;
	double secs = 4, rate = 62500;
	const char *json = NULL;

	const bench_opt opts[] = {
		{"--games", 'i', &games},      {"--seconds", 'd', &secs},
		{"--rate", 'd', &rate},        {"--idle", 'i', &idle},
		{"--hold", 'l', &hold},        {"--http-idle", 'i', &http_idle},
		{"--watchers", 'i', &watchers}, {"--json", 's', &json}};

	if (parse_opts(argc, argv, opts, sizeof opts / sizeof *opts)) {
		fprintf(stderr, "usage: bench/server [--games N] [--seconds S] [--rate R] [--idle N] [--hold N]\n"
			"                    [--http-idle N] [--watchers N] [--json FILE]\n");
		return 2;
	}
	if (games < 1 || games > 4000 || secs <= 0 || idle < 0 || hold < 100 || http_idle < 0 ||
	    watchers < 1 || watchers > 10000) {
		fprintf(stderr, "bench server: --games 1..4000, --seconds > 0, --idle >= 0, --hold >= 100,\n"
				"  --http-idle >= 0, --watchers 1..10000\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	struct rlimit rl; /* the live child holds more than 1,024 sockets */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	pin_to(1);
	double sys_us = syscall_us();
	int port, eport;
	static const char *const trusted[] = {"--trust", "loopback", NULL};
	pid_t srv = start_server(&port, trusted);
	double cpu0 = proc_cpu(srv);
	load_result s = run_load(port, games, secs, 0, 0);
	double cpu_us = s.moves_per_s > 0 ? (proc_cpu(srv) - cpu0) * 1e6 / (s.moves_per_s * (secs + 0.5)) : 0;
	load_result paced = run_load(port, games, secs, 0, rate);
	long hwm = proc_kb(srv, "VmHWM");
	stop(srv);
	pid_t echo = start_echo(&eport, (size_t)(s.avg_resp + 0.5) < 8 ? 8 : (size_t)(s.avg_resp + 0.5));
	load_result e = run_load(eport, games, secs, 1, 0);
	load_result e_paced = run_load(eport, games, secs, 1, rate);
	kill(echo, SIGKILL);
	waitpid(echo, NULL, 0);
	idle_result id = run_idle(idle);
	static const char *const raised[] = {"--max-games", "100000000", "--addr-games", "100000000",
					     "--addr-burst", "100000000", NULL};
	hold_result held = run_hold(hold, raised), held_def = run_hold(hold, NULL);
	live_bench lv = run_live(games, secs, rate, http_idle, watchers);
	double game_kib = held.kept ? (double)(held.rss_kb - held.rss0_kb) / (double)held.kept : 0;
	double ratio = e.moves_per_s > 0 ? s.moves_per_s / e.moves_per_s : 0;

	printf("kimble-server on loopback, %d concurrent games, %.1f s measured\n", games, secs);
	printf("%-34s %12s\n", "measure", "value");
	printf("%-34s %12s\n", "CPU pinning (server, client)", pinned ? "0, 1" : "none");
	const double row_value[] = {
		sys_us, s.moves_per_s, s.p50_ms, s.p99_ms, cpu_us, s.starts_per_s,
		(double)(s.refused + paced.refused), s.avg_resp, rate, paced.moves_per_s, paced.p50_ms,
		paced.p99_ms, hwm, e.moves_per_s, e.p99_ms, e_paced.p99_ms, ratio, id.opened, id.rss0_kb,
		id.rss_kb, id.hwm_kb, held.kept, game_kib, game_kib * SRV_MAX_GAMES / 1024, held_def.kept,
		held_def.refused, held_def.hwm_kb, lv.plain.p99_ms, lv.loaded.p99_ms, lv.plain.moves_per_s,
		lv.loaded.moves_per_s,
		lv.plain.moves_per_s > 0 ? lv.cpu_plain_s * 1e6 / (lv.plain.moves_per_s * (secs + 0.5)) : 0,
		lv.loaded.moves_per_s > 0 ? lv.cpu_loaded_s * 1e6 / (lv.loaded.moves_per_s * (secs + 0.5)) : 0,
		lv.child.idle, watchers, lv.child.moves, lv.child.events, lv.child.bytes, lv.rss_kb};
	_Static_assert(sizeof row_value / sizeof *row_value == TABLE_ROWS, "a value per row");
	for (size_t i = 0; i < TABLE_ROWS; i++)
		printf("%-34s %12.*f\n", table_row[i].name, table_row[i].decimals, row_value[i]);
	if (id.opened < id.wanted)
		printf("note: only %d of %d idle connections (RLIMIT_NOFILE %llu)\n", id.opened,
		       id.wanted, (unsigned long long)id.limit);
	printf("target: paced >= 50,000 moves/s answered: %s\n", verdict(paced.moves_per_s >= 50000));
	printf("target: paced p99 < 2 ms: %s (echo server paced alike: %.3f ms)\n",
	       verdict(paced.p99_ms < 2), e_paced.p99_ms);
	printf("target: %d idle connections < 100 MB: %s\n", id.wanted,
	       verdict(id.opened == id.wanted && id.rss_kb < 100 * 1024));
	printf("target: default --max-games well under 512 MB (< 256 MB): %s\n",
	       verdict(game_kib > 0 && game_kib * SRV_MAX_GAMES < 256 * 1024));
	printf("target: no refusals in the load runs: %s\n", verdict(s.refused + paced.refused == 0));
	printf("target: live pages: paced p99 < 2 ms with %ld idle HTTP + %d streams: %s\n",
	       lv.child.idle, watchers, verdict(lv.loaded.p99_ms < 2 && lv.child.idle == http_idle));
	if (json) {
		FILE *f = fopen(json, "w");
		if (!f)
			die("cannot write %s", json);
		fprintf(f, "{\"pinned\": %s, \"games\": %d, \"seconds\": %.1f, \"moves_per_s\": %.0f, \"p50_ms\": %.3f, "
			"\"p99_ms\": %.3f, \"cpu_us_per_move\": %.1f, \"avg_response_bytes\": %.0f, \"paced_rate\": %.0f, "
			"\"paced_per_s\": %.0f, \"paced_p50_ms\": %.3f, \"paced_p99_ms\": %.3f, \"load_hwm_kib\": %ld, "
			"\"echo_per_s\": %.0f, \"echo_p99_ms\": %.3f, \"echo_paced_p99_ms\": %.3f, \"ratio\": %.3f, "
			"\"syscall_us\": %.3f, "
			"\"idle_wanted\": %d, \"idle_opened\": %d, \"idle_rss_kib\": %ld, "
			"\"idle_hwm_kib\": %ld, \"starts_per_s\": %.0f, \"load_refused\": %llu, "
			"\"held_games\": %ld, \"game_kib\": %.3f, \"default_kept\": %ld, "
			"\"default_refused\": %ld, \"default_hwm_kib\": %ld, \"live_plain_p99_ms\": %.3f, "
			"\"live_loaded_p99_ms\": %.3f, \"live_idle\": %ld, \"live_watchers\": %d, "
			"\"live_events\": %ld, \"live_rss_kib\": %ld}\n",
			pinned ? "true" : "false", games, secs, s.moves_per_s, s.p50_ms, s.p99_ms, cpu_us, s.avg_resp, rate, paced.moves_per_s,
			paced.p50_ms, paced.p99_ms, hwm, e.moves_per_s,
			e.p99_ms, e_paced.p99_ms, ratio, sys_us, id.wanted,
			id.opened, id.rss_kb, id.hwm_kb, s.starts_per_s,
			(unsigned long long)(s.refused + paced.refused), held.kept, game_kib,
			held_def.kept, held_def.refused, held_def.hwm_kb, lv.plain.p99_ms,
			lv.loaded.p99_ms, lv.child.idle, watchers, lv.child.events, lv.rss_kb);
		fclose(f);
	}
	return 0;
}
