/* server.c - the epoll event loop, connections and the protocol; see
 * server.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/net.h"
#include "judge/server/server.h"
#include "judge/server/game.h"
#include "judge/server/list.h"
#include "judge/server/request.h"

#define VIRHE_SPECTATOR "Virhe: tuntematon katsojatunnus"
#define VIRHE_INCOMPLETE "Virhe: keskenerainen viesti"
#define VIRHE_NO_WINNER "Virhe: peli paattyi ilman voittajaa"
#define VIRHE_SERVER "Virhe: palvelin ei voi aloittaa pelia"

typedef struct srv_conn {
	int fd;
	uint32_t events;          /* epoll interest now registered */
	uint8_t rd_closed;        /* the client closed its sending side */
	uint8_t dead;             /* the socket failed: close it */
	uint8_t kick;             /* run queued input on the next EPOLLOUT */
	uint16_t in_len;
	char in[SRV_IN_MAX];
	char *out;                /* unsent output, out[out_off..out_len) */
	size_t out_len, out_off;
	srv_game *watching;
	srv_addr *addr;           /* the peer's address record, or NULL */
	struct srv_conn *w_prev, *w_next;   /* watchers of one game */
	struct srv_conn *prev, *next;       /* all connections */
} srv_conn;

typedef struct server {
	int ep, lfd, sfd, spare_fd;
	int http_lfd;             /* until srv_http_start takes it over */
	srv_http *http;           /* the live pages, or NULL */
	srv_games games;
	srv_limits limits;
	char *resp;               /* the response being built */
	size_t resp_len, resp_cap;
	int resp_failed;          /* out of memory while building it */
	int64_t now;
	srv_conn *conns;
	int stop;
} server;

/* epoll data for the two descriptors that are not connections */
static char listen_tag, signal_tag, http_tag;

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int fail(kb_err *err, int code, const char *what, const char *detail)
{
	return kb_err_set(err, code, "%s: %s", what, detail);
}

/* ---- building responses ----------------------------------------------- */

static void put(server *s, const char *bytes, size_t n)
{
	if (s->resp_len + n > s->resp_cap) {
		size_t cap = s->resp_cap ? s->resp_cap : 4096;
		while (cap < s->resp_len + n)
			cap *= 2;
		char *r = realloc(s->resp, cap);
		if (!r) {
			s->resp_failed = 1;
			return;
		}
		s->resp = r;
		s->resp_cap = cap;
	}
	memcpy(s->resp + s->resp_len, bytes, n);
	s->resp_len += n;
}

static void put_end(server *s)
{
	put(s, "END\n", 4);
}

static void put_virhe(server *s, const char *virhe, const char *why)
{
	put(s, virhe, strlen(virhe));
	if (why && *why) {
		put(s, " (", 2);
		put(s, why, strlen(why));
		put(s, ")", 1);
	}
	put(s, "\nEND\n", 5);
}

static void put_cb(void *ctx, const char *line, size_t len)
{
	put(ctx, line, len);
}

/* ---- connections -------------------------------------------------------- */

static size_t pending(const srv_conn *c)
{
	return c->out_len - c->out_off;
}

static void conn_update_events(server *s, srv_conn *c)
{
	uint32_t want = 0;

	if (!c->rd_closed && pending(c) < SRV_OUT_HIGH && c->in_len < SRV_IN_MAX)
		want |= EPOLLIN;
	if (pending(c) || c->kick)
		want |= EPOLLOUT;
	if (want != c->events) {
		struct epoll_event ev = {.events = want, .data.ptr = c};
		if (epoll_ctl(s->ep, EPOLL_CTL_MOD, c->fd, &ev) == 0)
			c->events = want;
		else
			c->dead = 1;
	}
}

/* Write what the socket takes now; keep the rest. */
static void conn_flush(srv_conn *c)
{
	while (pending(c)) {
		ssize_t n = send(c->fd, c->out + c->out_off, pending(c), MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			c->dead = 1;
			break;
		}
		c->out_off += (size_t)n;
	}
	/* idle connections hold no output buffer */
	free(c->out);
	c->out = NULL;
	c->out_len = c->out_off = 0;
}

static void conn_send(srv_conn *c, const char *bytes, size_t n)
{
	if (c->dead || n == 0)
		return;
	if (!pending(c)) {
		ssize_t w = send(c->fd, bytes, n, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
			c->dead = 1;
			return;
		}
		if (w > 0) {
			bytes += w;
			n -= (size_t)w;
		}
		if (n == 0)
			return;
	}
	char *o = realloc(c->out, c->out_len + n);
	if (!o) {
		c->dead = 1; /* cannot keep the answer: the client would hang */
		return;
	}
	memcpy(o + c->out_len, bytes, n);
	c->out = o;
	c->out_len += n;
}

static void send_resp(server *s, srv_conn *c)
{
	if (s->resp_failed) {
		s->resp_len = 0;
		put_virhe(s, VIRHE_SERVER, "out of memory");
	}
	conn_send(c, s->resp, s->resp_len);
	s->resp_len = 0;
	s->resp_failed = 0;
}

static void watch_detach(srv_conn *c)
{
	srv_game *g = c->watching;

	if (!g)
		return;
	g->nwatchers--;
	if (c->addr)
		c->addr->watchers--;
	SRV_LIST_UNLINK(g->watchers, c, w_prev, w_next);
	c->watching = NULL;
	/* Input queued while watching runs next; a client that half-closed
	 * while watching is settled (closed once its answers are written) on
	 * the next EPOLLOUT, as after any request: the watch may end while
	 * another connection's event is handled, which must not close this
	 * one under the event loop. */
	c->kick = c->in_len > 0 || c->rd_closed;
}

static void watch_attach(srv_conn *c, srv_game *g)
{
	c->watching = g;
	g->nwatchers++;
	if (c->addr)
		c->addr->watchers++;
	SRV_LIST_PUSH(g->watchers, c, w_prev, w_next);
}

static void conn_close(server *s, srv_conn *c)
{
	watch_detach(c);
	srv_addr_put(&s->limits, c->addr, s->now);
	close(c->fd);
	SRV_LIST_UNLINK(s->conns, c, prev, next);
	free(c->out);
	free(c);
}

/* ---- games ----------------------------------------------------------------- */

typedef struct play_ctx {
	server *s;
	srv_game *g;
} play_ctx;

static void on_rolled(void *ctx, const kb_roll *roll)
{
	play_ctx *p = ctx;
	char line[KB_ROLL_LINE_LEN + 1];

	put(p->s, line, (size_t)kb_fmt_roll_line(line, roll->board, roll->seat, roll->die));
}

static void on_played(void *ctx, const kb_roll *roll)
{
	srv_game_played(((play_ctx *)ctx)->g, roll);
}

/* Tell every spectator of g that it ended, and remove it. */
static void game_end(server *s, srv_game *g, const char *reason)
{
	char tail[64];
	size_t n;

	if (g->g.winner >= 0) {
		kb_fmt_winner(tail, g->g.winner);
		memcpy(tail + 12, "END\n", 4);
		n = 16;
	} else {
		n = (size_t)snprintf(tail, sizeof tail, "%s\nEND\n", VIRHE_NO_WINNER);
	}
	while (g->watchers) {
		srv_conn *w = g->watchers;
		conn_send(w, tail, n);
		watch_detach(w);
		conn_update_events(s, w);
	}
	if (s->http)
		srv_http_game_ended(s->http, g, reason);
	srv_limits_game_ended(&s->limits, g->owner, s->now);
	srv_game_end(&s->games, g, reason);
}

/* Play from the current roll to A's next decision or the end, append the
 * state lines and the closing lines, and copy the new lines to spectators. */
static void play_on(server *s, srv_game *g, size_t lines_from)
{
	play_ctx p = {s, g};
	kb_hooks hooks = {on_rolled, on_played, &p};

	kb_game_advance(&g->g, &hooks);
	for (srv_conn *w = g->watchers; w; w = w->w_next)
		conn_send(w, s->resp + lines_from, s->resp_len - lines_from);
	if (s->http)
		srv_http_game_moved(s->http, g);
	if (g->g.winner >= 0) {
		char line[12];
		put(s, line, (size_t)kb_fmt_winner(line, g->g.winner));
		put_end(s);
		game_end(s, g, "win");
	} else {
		put_end(s);
	}
}

/* Answer a refusal by the limits and log it. */
static void refuse(server *s, srv_conn *c, int why)
{
	char virhe[160];

	srv_limits_virhe(&s->limits, why, virhe, sizeof virhe);
	put_virhe(s, virhe, NULL);
	srv_limits_refused(&s->limits, why, c->addr, s->now);
}

static void do_start(server *s, srv_conn *c, const srv_req *r)
{
	int why = srv_limits_start(&s->limits, c->addr, s->games.count, s->now);
	srv_game *g;

	if (why != SRV_LIMIT_OK) {
		refuse(s, c, why);
		return;
	}
	if (!(g = srv_game_start(&s->games, r->msg.lineup, s->now))) {
		put_virhe(s, VIRHE_SERVER, strerror(errno));
		return;
	}
	g->owner = c->addr;
	srv_limits_game_began(c->addr);
	srv_game_log_msg(g, r->text, r->text_len, s->now);
	put(s, g->token, KB_TOKEN_LEN);
	put(s, "\n", 1);
	play_on(s, g, s->resp_len);
}

static void do_move(server *s, const srv_req *r)
{
	srv_game *g = srv_game_by_token(&s->games, r->msg.token);
	play_ctx p;
	kb_hooks hooks = {NULL, on_played, &p};

	if (!g) {
		put_virhe(s, KB_VIRHE_TOKEN, NULL);
		return;
	}
	p.s = s;
	p.g = g;
	srv_game_touch(&s->games, g, s->now);
	srv_game_log_msg(g, r->text, r->text_len, s->now);
	if (kb_game_decide(&g->g, r->msg.index, &hooks) != 0) {
		char line[KB_ROLL_LINE_LEN + 1];
		/* not legal: the same decision again, nothing advances */
		put(s, line, (size_t)kb_fmt_roll_line(line, g->g.last.board, g->g.last.seat,
						  g->g.last.die));
		put_end(s);
		return;
	}
	play_on(s, g, s->resp_len);
}

/* The running games, least recently used first, but at most SRV_LIST_MAX
 * (the most recently used): the answer stays small however many run. */
static void do_list(server *s)
{
	char line[64];
	srv_game *first = s->games.lru_tail;

	for (int n = 1; first && first->lru_prev && n < SRV_LIST_MAX; n++)
		first = first->lru_prev;
	for (srv_game *g = first; g; g = g->lru_next) {
		srv_spec_id_format(g->spec_id, line);
		int n = snprintf(line + SRV_SPEC_ID_LEN, sizeof line - SRV_SPEC_ID_LEN,
				 " %" PRIu32 " %u%u%u\n", g->g.rolls, g->lineup[0], g->lineup[1],
				 g->lineup[2]);
		put(s, line, SRV_SPEC_ID_LEN + (size_t)n);
	}
	put_end(s);
}

static void do_watch(server *s, srv_conn *c, const srv_req *r)
{
	srv_game *g = srv_game_by_spec(&s->games, r->spec_id);
	int why;

	if (!g) {
		put_virhe(s, VIRHE_SPECTATOR, NULL);
		return;
	}
	if ((why = srv_limits_watch(&s->limits, c->addr, g->nwatchers + g->nsse)) != SRV_LIMIT_OK) {
		refuse(s, c, why);
		return;
	}
	srv_game_replay(g, put_cb, s);
	watch_attach(c, g);
}

static void handle(server *s, srv_conn *c, const srv_req *r)
{
	switch (r->type) {
	case SRV_REQ_START:
		do_start(s, c, r);
		break;
	case SRV_REQ_MOVE:
		do_move(s, r);
		break;
	case SRV_REQ_LIST:
		do_list(s);
		break;
	case SRV_REQ_WATCH:
		do_watch(s, c, r);
		break;
	case SRV_REQ_TOO_LONG:
		put_virhe(s, KB_VIRHE_TOO_LONG, r->msg.why);
		break;
	default:
		put_virhe(s, r->msg.bad_version ? KB_VIRHE_VERSION : KB_VIRHE_MESSAGE, r->msg.why);
	}
	send_resp(s, c);
}

/* Answer every complete request buffered on c, while c may take answers. */
static void conn_process(server *s, srv_conn *c)
{
	size_t off = 0;

	while (!c->dead && !c->watching && pending(c) < SRV_OUT_HIGH) {
		srv_req r;
		off += srv_req_next(c->in + off, c->in_len - off, &r);
		if (r.type == SRV_REQ_NONE)
			break;
		handle(s, c, &r);
	}
	memmove(c->in, c->in + off, c->in_len - off);
	c->in_len = (uint16_t)(c->in_len - off);
	if (c->in_len == 0 || c->watching || pending(c) >= SRV_OUT_HIGH)
		return;
	if (c->rd_closed) {
		/* the client stopped sending in the middle of a message */
		put_virhe(s, VIRHE_INCOMPLETE, NULL);
		send_resp(s, c);
		c->in_len = 0;
	} else if (c->in_len == SRV_IN_MAX) {
		put_virhe(s, KB_VIRHE_TOO_LONG, NULL);
		send_resp(s, c);
		c->in_len = 0;
	}
}

/* After an event: close the connection when it is finished, else set what
 * it waits for. */
static void conn_settle(server *s, srv_conn *c)
{
	if (c->dead || (c->rd_closed && !pending(c) && !c->watching && !c->kick)) {
		conn_close(s, c);
		return;
	}
	conn_update_events(s, c);
	if (c->dead)
		conn_close(s, c);
}

static void conn_readable(server *s, srv_conn *c)
{
	ssize_t n = read(c->fd, c->in + c->in_len, SRV_IN_MAX - c->in_len);

	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return;
	if (n < 0) {
		c->dead = 1;
		return;
	}
	if (n == 0)
		c->rd_closed = 1;
	c->in_len = (uint16_t)(c->in_len + n);
	conn_process(s, c);
}

static void conn_event(server *s, srv_conn *c, uint32_t events)
{
	if (events & EPOLLERR)
		c->dead = 1;
	if (!c->dead && (events & EPOLLOUT)) {
		c->kick = 0;
		conn_flush(c);
		conn_process(s, c);
	}
	if (!c->dead && (events & (EPOLLIN | EPOLLHUP)) && (c->events & EPOLLIN))
		conn_readable(s, c);
	else if (!c->dead && (events & EPOLLHUP))
		c->dead = 1;
	conn_settle(s, c);
}

/* ---- listening ---------------------------------------------------------- */

static void accept_all(server *s)
{
	for (;;) {
		struct sockaddr_storage peer;
		socklen_t peer_len = sizeof peer;
		int fd = accept4(s->lfd, (struct sockaddr *)&peer, &peer_len,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if ((errno == EMFILE || errno == ENFILE) && s->spare_fd >= 0) {
				/* out of descriptors: refuse this one politely rather
				 * than have the listener report ready forever */
				close(s->spare_fd);
				fd = accept(s->lfd, NULL, NULL);
				if (fd >= 0)
					close(fd);
				s->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
				/* accept4 says EMFILE with a full table even when
				 * nothing waits: then stop, or this loops forever */
				if (fd >= 0)
					continue;
			}
			return; /* EAGAIN, or a connection that died at once */
		}
		srv_conn *c = calloc(1, sizeof *c);
		struct epoll_event ev = {.events = EPOLLIN};
		if (!c) {
			close(fd);
			continue;
		}
		c->fd = fd;
		c->events = EPOLLIN;
		c->addr = srv_addr_get(&s->limits, (struct sockaddr *)&peer, s->now);
		ev.data.ptr = c;
		kb_net_nodelay(fd);
		if (epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev) != 0) {
			srv_addr_put(&s->limits, c->addr, s->now);
			close(fd);
			free(c);
			continue;
		}
		SRV_LIST_PUSH(s->conns, c, prev, next);
	}
}

/* Listen on host at the first free port of first..last: *fd and *port.
 * A host that does not resolve is named with opt, the option that gave it. */
static int open_listener(const char *opt, const char *host, int first, int last, int *fd,
			 int *port, kb_err *err)
{
	char why[sizeof err->msg];

	switch (kb_net_listen(host, first, last, fd, port, err)) {
	case KB_NET_OK:
		return SRV_OK;
	case KB_NET_EHOST:
		snprintf(why, sizeof why, "%s", err->msg);
		return kb_err_set(err, SRV_EHOST, "%s %s", opt, why);
	default:
		return SRV_EBIND;
	}
}

/* The live pages: their listener (already bound) served from our epoll. */
static int setup_http(server *s, const srv_opts *o, kb_err *err)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &http_tag};
	int fd = s->http_lfd;

	s->http_lfd = -1;
	if (!(s->http = srv_http_start(&o->http, fd, &s->games, &s->limits, &s->now, err)))
		return SRV_ESETUP;
	if (epoll_ctl(s->ep, EPOLL_CTL_ADD, srv_http_fd(s->http), &ev) != 0)
		return fail(err, SRV_ESETUP, "epoll_ctl (http)", strerror(errno));
	return 0;
}

/* ---- the loop ------------------------------------------------------------- */

static int setup(server *s, const srv_opts *o, kb_err *err)
{
	sigset_t sigs;
	struct epoll_event ev = {.events = EPOLLIN};
	struct rlimit rl;

	/* many idle connections: take every descriptor we may */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &sigs, NULL) != 0)
		return fail(err, SRV_ESETUP, "sigprocmask", strerror(errno));
	s->sfd = signalfd(-1, &sigs, SFD_NONBLOCK | SFD_CLOEXEC);
	s->ep = epoll_create1(EPOLL_CLOEXEC);
	s->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (s->sfd < 0 || s->ep < 0)
		return fail(err, SRV_ESETUP, "signalfd/epoll", strerror(errno));
	if (srv_games_init(&s->games, o->seed, o->ttl_ms, o->log_dir) != 0)
		return fail(err, SRV_ESETUP, "game table", strerror(errno));
	if (srv_limits_init(&s->limits, &o->limits, stderr) != 0)
		return fail(err, SRV_ESETUP, "address table", strerror(errno));
	ev.data.ptr = &signal_tag;
	epoll_ctl(s->ep, EPOLL_CTL_ADD, s->sfd, &ev);
	ev.data.ptr = &listen_tag;
	if (epoll_ctl(s->ep, EPOLL_CTL_ADD, s->lfd, &ev) != 0)
		return fail(err, SRV_ESETUP, "epoll_ctl", strerror(errno));
	return s->http_lfd >= 0 ? setup_http(s, o, err) : 0;
}

static void expire_games(server *s)
{
	srv_game *g;

	while ((g = srv_games_expired(&s->games, s->now)))
		game_end(s, g, "unfinished expired");
}

/* At shutdown every spectator is told that its game ended without a
 * winner (Virhe, END) before its connection closes, as when a game
 * expires; what the socket does not take at once is lost. */
static void end_watched_games(server *s)
{
	for (srv_conn *c = s->conns; c; c = c->next)
		if (c->watching)
			game_end(s, c->watching, "unfinished shutdown");
	for (srv_conn *c = s->conns; c; c = c->next)
		conn_flush(c);
}

static void teardown(server *s)
{
	end_watched_games(s);
	while (s->conns)
		conn_close(s, s->conns);
	srv_http_stop(s->http); /* its streams point into the games */
	kb_net_close(&s->http_lfd);
	if (s->games.by_token)
		srv_games_free(&s->games, "unfinished shutdown");
	if (s->limits.buckets) {
		srv_limits_report(&s->limits);
		srv_limits_free(&s->limits);
	}
	free(s->resp);
	kb_net_close(&s->lfd);
	kb_net_close(&s->sfd);
	kb_net_close(&s->ep);
	kb_net_close(&s->spare_fd);
}

static void serve(server *s)
{
	struct epoll_event evs[256];

	while (!s->stop) {
		int64_t wait = srv_games_next_expiry(&s->games, s->now);
		int64_t http_wait = s->http ? srv_http_wait_ms(s->http) : -1;
		int http_ready = 0;
		if (http_wait >= 0 && (wait < 0 || http_wait < wait))
			wait = http_wait;
		int n = epoll_wait(s->ep, evs, 256, wait > INT_MAX ? INT_MAX : (int)wait);
		s->now = now_ms();
		for (int i = 0; i < n; i++) {
			void *tag = evs[i].data.ptr;
			if (tag == &listen_tag)
				accept_all(s);
			else if (tag == &signal_tag)
				s->stop = 1;
			else if (tag == &http_tag)
				http_ready = 1;
			else
				conn_event(s, tag, evs[i].events);
		}
		expire_games(s);
		/* after the games moved, so that woken streams write at once */
		if (s->http)
			srv_http_run(s->http, http_ready);
		srv_limits_sweep(&s->limits, s->now);
	}
}

int srv_run(const srv_opts *o, kb_err *err)
{
	server s = {.ep = -1, .lfd = -1, .sfd = -1, .spare_fd = -1, .http_lfd = -1};
	const char *http_host = o->http.host ? o->http.host : o->host;
	int port = 0, http_port = 0, rc;

	rc = open_listener("--host", o->host, o->port_first, o->port_last, &s.lfd, &port, err);
	if (rc == 0 && o->http.port)
		rc = open_listener(o->http.host ? "--http-host" : "--host", http_host, o->http.port,
				   o->http.port, &s.http_lfd, &http_port, err);
	if (rc == 0)
		rc = setup(&s, o, err);
	if (rc == 0) {
		fprintf(o->announce, "kimble-server: listening on %s:%d seed %" PRIu64 "\n",
			o->host, port, o->seed);
		if (s.http)
			fprintf(o->announce, "kimble-server: http on %s:%d\n", http_host, http_port);
		fflush(o->announce);
		s.now = now_ms();
		serve(&s);
	}
	teardown(&s);
	return rc;
}
