/* http.c - the live pages of kimble-server; see http.h and
 * docs/live.md. */
#include <inttypes.h>
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "core/board.h"
#include "core/policy.h"
#include "core/wire.h"
#include "judge/server/http.h"
#include "judge/server/list.h"
#include "judge/server/request.h"
#include "core/svg.h"

/* The end of a game, kept for its streams and for the finished list. */
typedef struct srv_final {
	uint64_t spec_id;
	uint32_t rolls;
	uint8_t lineup[3];
	int8_t winner;            /* seat, or -1 */
	uint8_t present;
	char board[KB_BOARD_LEN];
	char reason[24];          /* why it ended without a winner */
} srv_final;

/* One event stream (/events/ID). */
typedef struct srv_sse {
	srv_http *h;
	struct MHD_Connection *conn;
	srv_game *g;              /* the running game; NULL once it ended */
	srv_addr *addr;           /* counted in addr->watchers (one ref held) */
	srv_final fin;            /* the end, once g is NULL */
	uint32_t sent;            /* rolls at the last position sent */
	uint8_t started;          /* a position was sent */
	uint8_t suspended, done;
	char *ev;                 /* the event being written, ev[ev_off..ev_len) */
	size_t ev_len, ev_off;
	struct srv_sse *g_prev, *g_next;   /* the game's streams */
	struct srv_sse *prev, *next;       /* every stream */
} srv_sse;

struct srv_http {
	struct MHD_Daemon *d;
	srv_http_opts o;
	srv_games *games;
	srv_limits *limits;
	const int64_t *now;
	int resumed;              /* streams were woken: run MHD now */
	srv_sse *streams;
	srv_final recent[SRV_HTTP_RECENT]; /* ring of finished games */
	unsigned nrecent, recent_next;
	uint64_t refused_addr;    /* connections refused by addr_conns */
};

void srv_http_defaults(srv_http_opts *o)
{
	*o = (srv_http_opts){.max_conns = SRV_HTTP_CONNS, .addr_conns = SRV_HTTP_ADDR_CONNS,
			     .timeout_s = SRV_HTTP_TIMEOUT, .conn_memory = SRV_HTTP_MEMORY};
}

/* ---- the page ------------------------------------------------------------ */

/* "@N@" is replaced by the response's nonce: only the page's own style and
 * script run (Content-Security-Policy), and nothing is fetched from
 * elsewhere. */
static const char page_html[] =
	"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	"<title>Kimble live</title>\n"
	"<style nonce=\"@N@\">\n"
	"body{font:15px sans-serif;margin:1em;display:flex;gap:2em;flex-wrap:wrap}\n"
	"#board svg{width:448px;max-width:95vw;height:auto;border:1px solid #ccc}\n"
	"li{margin:.2em 0}.done{color:#666}#result{font-weight:bold;font-size:130%}\n"
	"</style></head><body>\n"
	"<div><h1>Kimble live</h1><ul id=\"games\"></ul><p id=\"note\">loading the games</p></div>\n"
	"<div id=\"view\" hidden><h2 id=\"head\"></h2><p id=\"status\">waiting for the game</p>\n"
	"<div id=\"board\"></div><p id=\"result\"></p></div>\n"
	"<script nonce=\"@N@\">\n"
	"\"use strict\";\n"
	"var $=function(id){return document.getElementById(id);};\n"
	"function row(g){var li=document.createElement(\"li\"),a=document.createElement(\"a\");\n"
	" a.href=\"/watch/\"+g.id;a.textContent=g.id;li.appendChild(a);\n"
	" li.appendChild(document.createTextNode(\" roll \"+g.rolls+\", lineup \"+g.lineup+\n"
	"  (g.finished?(g.winner?\", winner \"+g.winner:\", ended without a winner\"):\", running\")));\n"
	" if(g.finished)li.className=\"done\";return li;}\n"
	"function list(){fetch(\"/games\").then(function(r){return r.json();}).then(function(d){\n"
	" var ul=$(\"games\");ul.textContent=\"\";d.games.forEach(function(g){ul.appendChild(row(g));});\n"
	" $(\"note\").textContent=d.games.length?\"\":\"no games yet\";\n"
	"}).catch(function(){$(\"note\").textContent=\"the list is not available\";});}\n"
	"var m=/^\\/watch\\/(g[0-9a-f]{16})$/.exec(location.pathname);\n"
	"list();\n"
	"if(!m){setInterval(list,5000);}else{\n"
	" $(\"view\").hidden=false;$(\"head\").textContent=\"Game \"+m[1];\n"
	" var es=new EventSource(\"/events/\"+m[1]);\n"
	" es.addEventListener(\"position\",function(e){var p=e.data.split(\"\\n\");\n"
	"  $(\"status\").textContent=p[0]+\" \\u2013 \"+p[1];\n"
	"  $(\"board\").innerHTML=p.slice(2).join(\"\\n\");document.title=m[1]+\" \"+p[0];});\n"
	" es.addEventListener(\"end\",function(e){es.close();$(\"result\").textContent=e.data;\n"
	"  document.title=e.data;list();});\n"
	" es.onerror=function(){if(es.readyState===2&&!$(\"result\").textContent)\n"
	"  $(\"status\").textContent=\"no such game (finished long ago?)\";};\n"
	"}\n"
	"</script></body></html>\n";

static void add_common_headers(struct MHD_Response *r)
{
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(r, "Cache-Control", "no-store");
}

/* Queue a response that owns text (len bytes, malloc'd or static). */
static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type,
			     char *text, size_t len, int owned)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(
		len, text, owned ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
	enum MHD_Result rc;

	if (!r) {
		if (owned)
			free(text);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", type);
	add_common_headers(r);
	rc = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result reply_text(struct MHD_Connection *c, unsigned status, const char *text)
{
	return reply(c, status, "text/plain; charset=utf-8", (char *)text, strlen(text), 0);
}

static enum MHD_Result serve_page(struct MHD_Connection *c)
{
	uint8_t raw[16];
	char nonce[33], csp[256];
	size_t len = 0, cap = sizeof page_html + 64;
	char *out = malloc(cap);

	if (!out || getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw) {
		free(out);
		return reply_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "no memory or randomness\n");
	}
	for (size_t i = 0; i < sizeof raw; i++)
		snprintf(nonce + 2 * i, 3, "%02x", raw[i]);
	for (const char *p = page_html; *p;) {
		const char *mark = strstr(p, "@N@");
		size_t n = mark ? (size_t)(mark - p) : strlen(p);
		memcpy(out + len, p, n);
		len += n;
		p += n;
		if (mark) {
			memcpy(out + len, nonce, 32);
			len += 32;
			p += 3;
		}
	}
	snprintf(csp, sizeof csp,
		 "default-src 'none'; script-src 'nonce-%s'; style-src 'nonce-%s'; "
		 "connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; "
		 "frame-ancestors 'none'",
		 nonce, nonce);
	struct MHD_Response *r = MHD_create_response_from_buffer(len, out, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(out);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", "text/html; charset=utf-8");
	MHD_add_response_header(r, "Content-Security-Policy", csp);
	add_common_headers(r);
	enum MHD_Result rc = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return rc;
}

/* ---- /games ---------------------------------------------------------------- */

static void json_game(FILE *f, int *first, uint64_t spec_id, uint32_t rolls,
		      const uint8_t lineup[3], unsigned watchers, int finished, int winner)
{
	char id[SRV_SPEC_ID_LEN + 1];

	srv_spec_id_format(spec_id, id);
	id[SRV_SPEC_ID_LEN] = '\0';
	fprintf(f, "%s\n{\"id\":\"%s\",\"rolls\":%" PRIu32 ",\"lineup\":\"%u%u%u\","
		   "\"watchers\":%u,\"finished\":%s,\"winner\":",
		*first ? "" : ",", id, rolls, lineup[0], lineup[1], lineup[2], watchers,
		finished ? "true" : "false");
	if (winner >= 0)
		fprintf(f, "\"%c\"}", 'A' + winner);
	else
		fputs("null}", f);
	*first = 0;
}

static enum MHD_Result serve_games(srv_http *h, struct MHD_Connection *c)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int first = 1, n = 0;

	if (!f)
		return reply_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	fputs("{\"games\":[", f);
	for (srv_game *g = h->games->lru_tail; g && n < SRV_HTTP_LIST; g = g->lru_prev, n++)
		json_game(f, &first, g->spec_id, g->g.rolls, g->lineup, g->nwatchers + g->nsse, 0,
			  -1);
	for (unsigned k = 1; k <= h->nrecent; k++) {
		const srv_final *d = &h->recent[(h->recent_next + SRV_HTTP_RECENT - k) % SRV_HTTP_RECENT];
		json_game(f, &first, d->spec_id, d->rolls, d->lineup, 0, 1, d->winner);
	}
	fputs("\n]}\n", f);
	if (fclose(f) != 0) {
		free(text);
		return reply_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	}
	return reply(c, MHD_HTTP_OK, "application/json", text, len, 1);
}

/* ---- events ---------------------------------------------------------------- */

/* The picture of a live position: the seats named as the client (A) and
 * the built-in policies of its lineup, the roll, the pieces that may move,
 * and on a finished game (fin) its winner. */
static void draw_position(FILE *pic, uint32_t rolls, const char board[KB_BOARD_LEN], int seat,
			  int die, unsigned present, const uint8_t lineup[3], const srv_final *fin)
{
	const char *names[KB_SEATS] = {"client"};
	kb_frame fr;

	for (int s = 1; s < KB_SEATS; s++) /* lineup digits are enum kb_policy */
		names[s] = lineup[s - 1] ? kb_policy_name(lineup[s - 1]) : "";

	kb_frame_at(&fr, board, present, names, rolls + (seat < 0), seat, die, -1);
	if (fin) {
		fr.over = 1;
		fr.winner = fin->winner;
		snprintf(fr.result, sizeof fr.result, "%s", fin->winner >= 0 ? "win" : fin->reason);
	}
	kb_svg_frame(pic, &fr, KB_SVG_ALL);
}

/* Append one position event: roll number, state line, the board picture,
 * every line of it a data line. */
static void put_position(FILE *f, uint32_t rolls, const char board[KB_BOARD_LEN], int seat,
			 int die, unsigned present, const uint8_t lineup[3], const srv_final *fin)
{
	char state[KB_ROLL_LINE_LEN + 1], *svg = NULL;
	size_t svg_len = 0;
	FILE *pic = open_memstream(&svg, &svg_len);

	if (seat >= 0)
		kb_fmt_roll_line(state, board, seat, die);
	else
		snprintf(state, sizeof state, "%.*s--", KB_BOARD_LEN, board);
	fprintf(f, "event: position\nid: %" PRIu32 "\ndata: roll %" PRIu32 "\ndata: state %.*s\n",
		rolls, rolls, KB_ROLL_LINE_LEN, state);
	if (pic) {
		draw_position(pic, rolls, board, seat, die, present, lineup, fin);
		fclose(pic);
	}
	for (char *line = svg, *nl; line && *line; line = nl + 1) {
		if (!(nl = strchr(line, '\n')))
			nl = line + strlen(line) - 1;
		fprintf(f, "data: %.*s\n", (int)(nl - line + (*nl != '\n')), line);
	}
	fputs("\n", f);
	free(svg);
}

static void put_end(FILE *f, const srv_final *fin)
{
	if (fin->winner >= 0)
		fprintf(f, "event: end\ndata: winner %c\n\n", 'A' + fin->winner);
	else
		fprintf(f, "event: end\ndata: no winner (%s)\n\n", fin->reason);
}

/* Make the next event of w, the newest position (positions in between are
 * skipped); 1 if one was made, 0 if there is nothing new, -1 out of
 * memory. */
static int sse_next(srv_sse *w)
{
	FILE *f;

	if (w->done || (w->g && w->started && w->g->g.rolls == w->sent))
		return 0;
	free(w->ev);
	w->ev = NULL;
	w->ev_len = w->ev_off = 0;
	if (!(f = open_memstream(&w->ev, &w->ev_len)))
		return -1;
	if (w->g) {
		/* a running game waits for A's decision: the server plays each
		 * move on to the next one, or ends the game, before streams run */
		const kb_game *g = &w->g->g;
		put_position(f, g->rolls, g->last.board, g->last.seat, g->last.die, g->pos.present,
			     w->g->lineup, NULL);
		w->sent = g->rolls;
	} else {
		if (!w->started || w->sent != w->fin.rolls)
			put_position(f, w->fin.rolls, w->fin.board, -1, 0, w->fin.present,
				     w->fin.lineup, &w->fin);
		put_end(f, &w->fin);
		w->done = 1;
	}
	w->started = 1;
	return fclose(f) == 0 ? 1 : -1;
}

static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	srv_sse *w = cls;
	size_t n;

	(void)pos;
	if (w->ev_off == w->ev_len) {
		int made = sse_next(w);
		if (made < 0)
			return MHD_CONTENT_READER_END_WITH_ERROR;
		if (made == 0 && w->done)
			return MHD_CONTENT_READER_END_OF_STREAM;
		if (made == 0) {
			/* nothing new: sleep until the game moves (srv_http_game_moved) */
			MHD_suspend_connection(w->conn);
			w->suspended = 1;
			return 0;
		}
	}
	n = w->ev_len - w->ev_off < max ? w->ev_len - w->ev_off : max;
	memcpy(buf, w->ev + w->ev_off, n);
	w->ev_off += n;
	return (ssize_t)n;
}

static void sse_unlink_game(srv_sse *w)
{
	srv_game *g = w->g;

	if (!g)
		return;
	SRV_LIST_UNLINK(g->sse, w, g_prev, g_next);
	g->nsse--;
	w->g = NULL;
}

static void sse_free(void *cls)
{
	srv_sse *w = cls;
	srv_http *h = w->h;

	sse_unlink_game(w);
	if (w->addr) {
		w->addr->watchers--;
		srv_addr_put(h->limits, w->addr, *h->now);
	}
	SRV_LIST_UNLINK(h->streams, w, prev, next);
	free(w->ev);
	free(w);
}

static void sse_wake(srv_sse *w)
{
	if (w->suspended) {
		w->suspended = 0;
		MHD_resume_connection(w->conn);
		w->h->resumed = 1;
	}
}

static const srv_final *recent_find(const srv_http *h, uint64_t spec_id)
{
	for (unsigned k = 0; k < h->nrecent; k++)
		if (h->recent[k].spec_id == spec_id)
			return &h->recent[k];
	return NULL;
}

static srv_addr *conn_addr(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return ci ? ci->socket_context : NULL;
}

/* May this connection follow game g?  Answers the refusal when not. */
static int watch_allowed(srv_http *h, struct MHD_Connection *c, const srv_game *g,
			 enum MHD_Result *rc)
{
	srv_addr *a = conn_addr(c);
	int why = srv_limits_watch(h->limits, a, g->nwatchers + g->nsse);
	char text[160];

	if (why == SRV_LIMIT_OK)
		return 1;
	srv_limits_virhe(h->limits, why, text, sizeof text - 1);
	strcat(text, "\n");
	srv_limits_refused(h->limits, why, a, *h->now);
	*rc = reply(c, MHD_HTTP_TOO_MANY_REQUESTS, "text/plain; charset=utf-8", strdup(text),
		    strlen(text), 1);
	return 0;
}

static enum MHD_Result serve_events(srv_http *h, struct MHD_Connection *c, const char *id)
{
	uint64_t spec_id;
	srv_game *g = NULL;
	const srv_final *fin = NULL;
	enum MHD_Result rc = MHD_NO;

	if (srv_spec_id_parse(id, strlen(id), &spec_id) != 0 ||
	    (!(g = srv_game_by_spec(h->games, spec_id)) && !(fin = recent_find(h, spec_id))))
		return reply_text(c, MHD_HTTP_NOT_FOUND, "no such game\n");
	if (g && !watch_allowed(h, c, g, &rc))
		return rc;
	srv_sse *w = calloc(1, sizeof *w);
	if (!w)
		return reply_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	w->h = h;
	w->conn = c;
	if (fin)
		w->fin = *fin;
	struct MHD_Response *r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, sse_read,
								   w, sse_free);
	if (!r) {
		free(w);
		return MHD_NO;
	}
	if (g) { /* count it only once the response owns it */
		w->g = g;
		SRV_LIST_PUSH(g->sse, w, g_prev, g_next);
		g->nsse++;
		if ((w->addr = conn_addr(c))) {
			w->addr->refs++;
			w->addr->watchers++;
		}
	}
	SRV_LIST_PUSH(h->streams, w, prev, next);
	MHD_add_response_header(r, "Content-Type", "text/event-stream");
	add_common_headers(r);
	rc = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return rc;
}

/* ---- requests and connections ------------------------------------------------ */

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **req_cls)
{
	srv_http *h = cls;

	(void)version, (void)upload, (void)req_cls;
	if (*upload_size) {
		*upload_size = 0; /* a GET has no body to speak of: drop it */
		return MHD_YES;
	}
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return reply_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n");
	if (strcmp(url, "/") == 0 || strncmp(url, "/watch/", 7) == 0)
		return serve_page(c);
	if (strcmp(url, "/games") == 0)
		return serve_games(h, c);
	if (strncmp(url, "/events/", 8) == 0)
		return serve_events(h, c, url + 8);
	return reply_text(c, MHD_HTTP_NOT_FOUND, "not found: try /\n");
}

/* Refuse a connection when its address holds addr_conns already. */
static enum MHD_Result on_accept(void *cls, const struct sockaddr *sa, socklen_t len)
{
	srv_http *h = cls;
	srv_addr *a = srv_addr_get(h->limits, sa, *h->now);
	int ok = !a || a->trusted || a->http_conns < h->o.addr_conns;

	(void)len;
	srv_addr_put(h->limits, a, *h->now);
	if (!ok && h->refused_addr++ == 0)
		fprintf(stderr, "kimble-server: http: refusing connections beyond %u per address "
				"(the total is logged at shutdown)\n", h->o.addr_conns);
	return ok ? MHD_YES : MHD_NO;
}

/* Count each connection in its address's record while it is open. */
static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
			  enum MHD_ConnectionNotificationCode toe)
{
	srv_http *h = cls;
	srv_addr *a = *socket_context;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci =
			MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
		a = ci ? srv_addr_get(h->limits, ci->client_addr, *h->now) : NULL;
		if (a)
			a->http_conns++;
		*socket_context = a;
	} else if (a) {
		a->http_conns--;
		srv_addr_put(h->limits, a, *h->now);
		*socket_context = NULL;
	}
}

/* ---- the daemon -------------------------------------------------------------- */

srv_http *srv_http_start(const srv_http_opts *o, int lfd, srv_games *t, srv_limits *l,
			 const int64_t *now, kb_err *err)
{
	srv_http *h = calloc(1, sizeof *h);

	if (!h) {
		close(lfd);
		kb_err_set(err, SRV_HTTP_EDAEMON, "http: out of memory");
		return NULL;
	}
	h->o = *o;
	h->games = t;
	h->limits = l;
	h->now = now;
	/* no thread of its own: MHD_USE_EPOLL without an internal polling
	 * thread is run from the server's loop (srv_http_run) */
	h->d = MHD_start_daemon(
		MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME, 0, on_accept, h, on_request, h,
		MHD_OPTION_LISTEN_SOCKET, (MHD_socket)lfd, MHD_OPTION_CONNECTION_LIMIT,
		o->max_conns, MHD_OPTION_CONNECTION_TIMEOUT, o->timeout_s,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, o->conn_memory, MHD_OPTION_NOTIFY_CONNECTION,
		on_connection, h, MHD_OPTION_END);
	if (!h->d) {
		close(lfd);
		free(h);
		kb_err_set(err, SRV_HTTP_EDAEMON,
			   "http: libmicrohttpd would not start (--http-memory too small?)");
		return NULL;
	}
	return h;
}

int srv_http_fd(const srv_http *h)
{
	const union MHD_DaemonInfo *di = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_EPOLL_FD);

	return di ? di->epoll_fd : -1;
}

void srv_http_run(srv_http *h, int ready)
{
	if (ready || h->resumed || srv_http_wait_ms(h) == 0) {
		h->resumed = 0;
		MHD_run(h->d);
	}
}

int64_t srv_http_wait_ms(srv_http *h)
{
	MHD_UNSIGNED_LONG_LONG ms;

	if (h->resumed)
		return 0;
	if (MHD_get_timeout(h->d, &ms) != MHD_YES)
		return -1;
	return ms > INT64_MAX ? INT64_MAX : (int64_t)ms;
}

void srv_http_game_moved(srv_http *h, srv_game *g)
{
	for (srv_sse *w = g->sse; w; w = w->g_next)
		sse_wake(w);
	(void)h;
}

void srv_http_game_ended(srv_http *h, srv_game *g, const char *reason)
{
	srv_final *d = &h->recent[h->recent_next];

	*d = (srv_final){.spec_id = g->spec_id, .rolls = g->g.rolls, .winner = g->g.winner,
			 .present = g->g.pos.present};
	memcpy(d->lineup, g->lineup, sizeof d->lineup);
	kb_board_format(&g->g.pos, d->board);
	snprintf(d->reason, sizeof d->reason, "%s", strncmp(reason, "unfinished ", 11) == 0 ? reason + 11 : reason);
	h->recent_next = (h->recent_next + 1) % SRV_HTTP_RECENT;
	if (h->nrecent < SRV_HTTP_RECENT)
		h->nrecent++;
	while (g->sse) {
		srv_sse *w = g->sse;
		sse_unlink_game(w);
		w->fin = *d;
		sse_wake(w);
	}
}

void srv_http_stop(srv_http *h)
{
	if (!h)
		return;
	/* MHD must not stop with suspended connections, and the games go
	 * next: a stream still following one (only such a stream sleeps) is
	 * told that it ended (shutdown) and woken, its end sent as far as its
	 * socket takes it now */
	for (srv_sse *w = h->streams; w; w = w->next)
		if (w->g)
			srv_http_game_ended(h, w->g, "unfinished shutdown");
	MHD_run(h->d);
	MHD_stop_daemon(h->d);
	if (h->refused_addr)
		fprintf(stderr, "kimble-server: http: %" PRIu64 " connections refused by the "
				"per-address limit\n", h->refused_addr);
	free(h);
}
