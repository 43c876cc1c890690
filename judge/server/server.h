/* server.h - the Kimble game server (API 001, docs/spec.md section 3) on TCP.
 *
 * One thread, one epoll loop: every connection is a small fixed record
 * (its unparsed input, at most SRV_IN_MAX bytes, inline) plus an output
 * buffer that exists only while a response is waiting for the socket.
 * Responses are written at once; a client that does not read them stops
 * being read (backpressure) instead of growing the server.  Unused tokens
 * expire after the token lifetime; SIGINT or SIGTERM ends the run cleanly,
 * logging every running game as "unfinished shutdown".  Starts and
 * spectators beyond the limits of limits.h get a Virhe line; the
 * refusals are logged on stderr.
 *
 * The server never closes a connection itself, except when the client has
 * closed its sending side (netcat's -q 0, -N): the remaining messages are
 * answered, and the connection is closed once the answers are written.
 */
#ifndef KB_SERVER_H
#define KB_SERVER_H

#include <stdint.h>
#include <stdio.h>

#include "core/board.h"
#include "judge/server/http.h"
#include "judge/server/limits.h"

#define SRV_IN_MAX 256         /* unparsed input bytes kept per connection */
#define SRV_OUT_HIGH (256 * 1024) /* pending output that stops reading */

typedef struct srv_opts {
	const char *host;      /* address to listen on (name or numeric) */
	int port_first;        /* ports tried in order, first..last */
	int port_last;
	uint64_t seed;         /* run seed: game k uses stream (seed, GAME, k) */
	int64_t ttl_ms;        /* token lifetime */
	const char *log_dir;   /* transcripts, or NULL */
	FILE *announce;        /* the "listening on" line goes here */
	srv_limits_opts limits; /* what one client may take (limits.h) */
	srv_http_opts http;    /* the live pages (http.h), port 0: none */
} srv_opts;

/* Errors of srv_run(). */
enum srv_error {
	SRV_OK = 0,
	SRV_ESETUP = -1,   /* epoll, signals, memory: err says which */
	SRV_EBIND = -2,    /* no port in first..last could be bound */
	SRV_EHOST = -3     /* the host name does not resolve: err names the option
			    * that gave it, --host or --http-host, then the host */
};

/* Listen and serve until SIGINT or SIGTERM.  Prints
 * "kimble-server: listening on HOST:PORT seed SEED" to o->announce (flushed)
 * once bound, and with HTTP "kimble-server: http on HOST:PORT".  Returns SRV_OK after a clean shutdown, otherwise an
 * srv_error with err naming the input and what went wrong. */
int srv_run(const srv_opts *o, kb_err *err);

#endif
