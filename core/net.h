/* net.h - the one socket module: resolve, listen, connect, descriptor
 * flags; shared by kimble-server (judge/server/server.c) and kimble-relay
 * (bot/relay/relay.c) so that both resolve names and open sockets the same way.
 *
 * Every socket it opens is close-on-exec (a bot or sandbox started later
 * never inherits one).  Names resolve through getaddrinfo(3), so a host may
 * be a name ("localhost") or a numeric IPv4 or IPv6 address.
 *
 * Status: KB_NET_OK (0) with the outputs set, else one of enum
 * kb_net_status in this module's own range -900..-999 (core/err.h), the
 * outputs untouched or -1 as said below, and err (may be NULL) saying what
 * failed: `WHAT: PROBLEM`.
 */
#ifndef KB_NET_H
#define KB_NET_H

#include <stddef.h>

#include "err.h"

enum kb_net_status {
	KB_NET_OK = 0,
	KB_NET_EHOST = -901,    /* the host name does not resolve (err: the host
				 * and getaddrinfo's reason) */
	KB_NET_EBIND = -902,    /* no port of first..last could be bound (err:
				 * "HOST ports FIRST..LAST: no port could be
				 * bound (all in use?)") */
	KB_NET_ECONNECT = -903  /* no address of the host accepted a connection
				 * on the port (refused, unreachable, or the
				 * socket connected to itself) */
};

/* Listen on host at the first port of first..last (1 <= first <= last <=
 * 65535) that binds, trying them in order: the server's fallback when its
 * usual port is taken.  The socket is non-blocking, close-on-exec, has
 * SO_REUSEADDR (a restarted server gets its port back at once) and a
 * backlog of SOMAXCONN; it listens on the first address the host resolves
 * to.  KB_NET_OK: *fd is the listener, *port the port bound.
 * KB_NET_EHOST, KB_NET_EBIND: *fd is -1, *port unspecified. */
int kb_net_listen(const char *host, int first, int last, int *fd, int *port, kb_err *err);

/* Connect a blocking, close-on-exec TCP socket to host:port, trying each
 * address the host resolves to in turn, with TCP_NODELAY set (the
 * protocol's short lines go out at once).  A socket that connected to
 * itself (TCP's simultaneous open: no server listens on a port of the
 * ephemeral range and the kernel picked that very port as the source) is
 * closed and counts as no connection, since it would hold the port a
 * server is about to take.  KB_NET_OK: *fd is the socket.  KB_NET_EHOST,
 * KB_NET_ECONNECT: *fd is -1. */
int kb_net_connect(const char *host, int port, int *fd, kb_err *err);

/* Send short writes on a connected TCP socket at once (TCP_NODELAY).
 * Best effort: a descriptor that is not a TCP socket is left as it is. */
void kb_net_nodelay(int fd);

/* Make fd (a socket or a pipe end) non-blocking, keeping its other status
 * flags.  Returns 0, or -1 with errno set (fd is not open). */
int kb_net_nonblock(int fd);

/* Write all of p[0..n) to a blocking descriptor (a socket or a pipe end),
 * again after EINTR and short writes.  Returns 0, or -1 with errno set
 * when a write fails (a write of 0 bytes counts as failed). */
int kb_net_write_all(int fd, const void *p, size_t n);

/* Close *fd unless it is -1, and set it to -1. */
void kb_net_close(int *fd);

#endif
