/* net.c - resolve, listen, connect; see net.h. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net.h"

/* Resolve host (and port, "" for none) to stream addresses in *res. */
static int resolve(const char *host, const char *service, int passive, struct addrinfo **res,
		   kb_err *err)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				 .ai_flags = passive ? AI_PASSIVE : 0};
	int rc = getaddrinfo(host, *service ? service : NULL, &hints, res);

	if (rc != 0)
		return kb_err_set(err, KB_NET_EHOST, "%s: %s", host, gai_strerror(rc));
	return KB_NET_OK;
}

/* A non-blocking listener on ai's address at port, or -1. */
static int try_bind(const struct addrinfo *ai, int port)
{
	struct sockaddr_storage a;
	int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0)
		return -1;
	memcpy(&a, ai->ai_addr, ai->ai_addrlen);
	if (ai->ai_family == AF_INET6)
		((struct sockaddr_in6 *)&a)->sin6_port = htons((uint16_t)port);
	else
		((struct sockaddr_in *)&a)->sin_port = htons((uint16_t)port);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(fd, (struct sockaddr *)&a, ai->ai_addrlen) != 0 || listen(fd, SOMAXCONN) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int kb_net_listen(const char *host, int first, int last, int *fd, int *port, kb_err *err)
{
	struct addrinfo *ai;
	int rc = resolve(host, "", 1, &ai, err);

	*fd = -1;
	if (rc != KB_NET_OK)
		return rc;
	for (*port = first; *port <= last && *fd < 0; (*port)++)
		*fd = try_bind(ai, *port);
	(*port)--;
	freeaddrinfo(ai);
	if (*fd < 0)
		return kb_err_set(err, KB_NET_EBIND, "%s ports %d..%d: %s", host, first, last,
				  "no port could be bound (all in use?)");
	return KB_NET_OK;
}

/* 1 if fd connected to itself (see kb_net_connect). */
static int self_connected(int fd)
{
	struct sockaddr_storage a, b;
	socklen_t la = sizeof a, lb = sizeof b;

	if (getsockname(fd, (struct sockaddr *)&a, &la) || getpeername(fd, (struct sockaddr *)&b, &lb))
		return 0;
	return la == lb && memcmp(&a, &b, la) == 0;
}

int kb_net_connect(const char *host, int port, int *fd, kb_err *err)
{
	struct addrinfo *res, *ai;
	char service[16];
	int rc;

	*fd = -1;
	snprintf(service, sizeof service, "%d", port);
	rc = resolve(host, service, 0, &res, err);
	if (rc != KB_NET_OK)
		return rc;
	for (ai = res; ai && *fd < 0; ai = ai->ai_next) {
		*fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (*fd < 0)
			continue;
		if (connect(*fd, ai->ai_addr, ai->ai_addrlen) != 0 || self_connected(*fd)) {
			close(*fd);
			*fd = -1;
		}
	}
	freeaddrinfo(res);
	if (*fd < 0)
		return kb_err_set(err, KB_NET_ECONNECT, "%s port %d: %s", host, port,
				  "no connection (nothing listens there?)");
	kb_net_nodelay(*fd);
	return KB_NET_OK;
}

void kb_net_nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

int kb_net_nonblock(int fd)
{
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0)
		return -1;
	return fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

int kb_net_write_all(int fd, const void *p, size_t n)
{
	const char *at = p;

	while (n) {
		ssize_t k = write(fd, at, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k == 0 ? (errno = 0, -1) : -1;
		at += k;
		n -= (size_t)k;
	}
	return 0;
}

void kb_net_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}
