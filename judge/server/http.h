/* http.h - kimble-server's live pages: a browser watches the
 * running games over HTTP (docs/live.md).
 *
 *   GET /            the page: the list of games (fetched from /games)
 *   GET /watch/ID    the same page, following game ID live
 *   GET /games       JSON: running games (most recently used first) and
 *                    the SRV_HTTP_RECENT most recently finished ones
 *   GET /events/ID   text/event-stream: one "position" event per update
 *                    (roll number, state line, the board as SVG), then
 *                    an "end" event with the winner; the stream then ends
 *
 * libmicrohttpd parses HTTP, in its external-polling epoll mode: it has no
 * thread of its own; its epoll descriptor sits in the server's epoll set
 * and srv_http_run() does its work from the server's one loop, so game
 * state is only ever touched by one thread.  An event stream that has
 * nothing new suspends its connection (MHD_suspend_connection) until the
 * game moves on or ends; then it is resumed and writes the NEWEST
 * position: a watcher holds at most one event (one board picture) of its
 * own, and one that reads slowly skips positions instead of queueing them.
 *
 * Bounds: HTTP connections in all (max_conns) and per address (addr_conns,
 * counted in the limits.h address table, trusted addresses
 * exempt), the memory MHD may use per connection (conn_memory), an idle
 * timeout (timeout_s; suspended streams do not time out: their game ends
 * or expires), and the game port's spectator limits (per game and per
 * address, HTTP and game-port spectators counted together).
 */
#ifndef KB_SERVER_HTTP_H
#define KB_SERVER_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "judge/server/game.h"
#include "judge/server/limits.h"

#define SRV_HTTP_CONNS 2048       /* default HTTP connections in all */
#define SRV_HTTP_ADDR_CONNS 64    /* default HTTP connections per address */
#define SRV_HTTP_TIMEOUT 60       /* default idle timeout, seconds */
#define SRV_HTTP_MEMORY 32768     /* default bytes MHD may use per connection */
#define SRV_HTTP_RECENT 64        /* finished games still shown */
#define SRV_HTTP_LIST 200         /* running games /games shows at most */

typedef struct srv_http_opts {
	int port;                 /* 0: no HTTP */
	const char *host;         /* NULL: the game port's host */
	unsigned max_conns, addr_conns, timeout_s;
	size_t conn_memory;
} srv_http_opts;

/* Errors of srv_http_start() (server.h uses -1..-3, limits.h -7xx). */
enum srv_http_error {
	SRV_HTTP_OK = 0,
	SRV_HTTP_EDAEMON = -801    /* libmicrohttpd would not start: err says why */
};

typedef struct srv_http srv_http;

/* The defaults above, HTTP off. */
void srv_http_defaults(srv_http_opts *o);

/* Serve HTTP on the listening socket lfd (taken over: closed by
 * srv_http_stop) for the games of t, limited by l; *now is the server's
 * clock.  Returns the server, or NULL with err set. */
srv_http *srv_http_start(const srv_http_opts *o, int lfd, srv_games *t, srv_limits *l,
			 const int64_t *now, kb_err *err);

/* The descriptor to watch for input (libmicrohttpd's epoll set). */
int srv_http_fd(const srv_http *h);

/* Do the HTTP work that is due; ready: srv_http_fd() reported input. */
void srv_http_run(srv_http *h, int ready);

/* Milliseconds until srv_http_run() is due anyway (0: now), or -1. */
int64_t srv_http_wait_ms(srv_http *h);

/* The game moved on / is about to end (call before srv_game_end): wake
 * its event streams.  reason is srv_game_end's (the end of a game
 * without a winner shows it). */
void srv_http_game_moved(srv_http *h, srv_game *g);
void srv_http_game_ended(srv_http *h, srv_game *g, const char *reason);

/* Close every HTTP connection and free h (NULL is fine). */
void srv_http_stop(srv_http *h);

#endif
