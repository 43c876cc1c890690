/* test_net.c - the socket module (core/net.h): the listener's port-range
 * fallback and its refusal, connecting, and the descriptor flags. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/net.h"
#include "support.h"

/* The port fd is bound to. */
static int bound_port(int fd)
{
	struct sockaddr_in a;
	socklen_t len = sizeof a;

	cr_assert_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	return ntohs(a.sin_port);
}

Test(net, listen_takes_the_next_free_port_of_the_range)
{
	int first = test_free_port(), held, fd, port;
	kb_err err;

	cr_assert_gt(first, 0);
	cr_assert_eq(kb_net_listen("127.0.0.1", first, first, &held, &port, &err), KB_NET_OK,
		     "%s", err.msg);
	cr_assert_eq(port, first);
	cr_assert_eq(bound_port(held), first);
	cr_assert(fcntl(held, F_GETFL) & O_NONBLOCK, "the listener is non-blocking");
	cr_assert(fcntl(held, F_GETFD) & FD_CLOEXEC, "the listener is close-on-exec");
	cr_assert_eq(kb_net_listen("127.0.0.1", first, 65535, &fd, &port, &err), KB_NET_OK,
		     "%s", err.msg);
	cr_assert_gt(port, first, "the taken first port was skipped");
	cr_assert_eq(bound_port(fd), port, "*port is the port bound");
	close(fd);
	close(held);
}

Test(net, listen_refuses_a_range_with_no_free_port)
{
	int port = test_free_port(), held, fd = 7, got;
	kb_err err;
	char want[96];

	cr_assert_eq(kb_net_listen("127.0.0.1", port, port, &held, &got, &err), KB_NET_OK);
	cr_assert_eq(kb_net_listen("127.0.0.1", port, port, &fd, &got, &err), KB_NET_EBIND);
	cr_assert_eq(fd, -1);
	snprintf(want, sizeof want, "127.0.0.1 ports %d..%d: no port could be bound (all in use?)",
		 port, port);
	cr_assert_str_eq(err.msg, want);
	close(held);
}

Test(net, connect_reaches_a_listener_with_nodelay)
{
	int lfd, port, fd, one = 0;
	socklen_t len = sizeof one;
	kb_err err;

	cr_assert_eq(kb_net_listen("127.0.0.1", test_free_port(), 65535, &lfd, &port, &err),
		     KB_NET_OK);
	cr_assert_eq(kb_net_connect("localhost", port, &fd, &err), KB_NET_OK, "%s", err.msg);
	cr_assert_eq(getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, &len), 0);
	cr_assert(one, "TCP_NODELAY is set");
	cr_assert(fcntl(fd, F_GETFD) & FD_CLOEXEC, "the socket is close-on-exec");
	cr_assert_eq(fcntl(fd, F_GETFL) & O_NONBLOCK, 0, "the socket blocks");
	close(fd);
	close(lfd);
}

Test(net, connect_to_a_closed_port_fails)
{
	int lfd, port, fd = 7;
	kb_err err;

	/* a port that was just free and is closed again: nothing listens */
	cr_assert_eq(kb_net_listen("127.0.0.1", test_free_port(), 65535, &lfd, &port, &err),
		     KB_NET_OK);
	close(lfd);
	cr_assert_eq(kb_net_connect("127.0.0.1", port, &fd, &err), KB_NET_ECONNECT);
	cr_assert_eq(fd, -1);
	cr_assert_not_null(strstr(err.msg, "127.0.0.1 port"), "%s", err.msg);
}

Test(net, nonblock_keeps_the_other_flags)
{
	int p[2];

	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	cr_assert_eq(fcntl(p[1], F_SETFL, O_APPEND), 0);
	cr_assert_eq(kb_net_nonblock(p[1]), 0);
	cr_assert(fcntl(p[1], F_GETFL) & O_NONBLOCK);
	cr_assert(fcntl(p[1], F_GETFL) & O_APPEND, "O_APPEND kept");
	close(p[0]);
	close(p[1]);
	cr_assert_eq(kb_net_nonblock(-1), -1, "not a descriptor");
}

/* kb_net_close closes the descriptor and leaves -1 behind (also when it
 * was -1 already), so that a second close cannot hit a reused number. */
Test(net, close_leaves_minus_one)
{
	int p[2], fd;

	cr_assert_eq(pipe(p), 0);
	fd = p[0];
	kb_net_close(&fd);
	cr_assert_eq(fd, -1);
	cr_assert_eq(fcntl(p[0], F_GETFD), -1, "closed");
	kb_net_close(&fd);
	cr_assert_eq(fd, -1);
	close(p[1]);
}

static void on_tick(int sig)
{
	(void)sig;
}

/* Interrupted writes: a child writes 8 MB into a pipe with a timer signal
 * (no SA_RESTART) every 200 us, so its blocked writes end early, some
 * with EINTR and some short; every byte still arrives once, in order. */
Test(net, write_all_goes_on_after_interrupted_writes, .timeout = 20)
{
	enum { TOTAL = 8 << 20 };
	static char buf[TOTAL];
	int p[2], status;
	size_t got = 0;

	cr_assert_eq(pipe(p), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct sigaction sa = {.sa_handler = on_tick};
		struct itimerval tick = {{0, 200}, {0, 200}};
		close(p[0]);
		for (size_t i = 0; i < TOTAL; i++)
			buf[i] = (char)(i % 251);
		sigaction(SIGALRM, &sa, NULL);
		setitimer(ITIMER_REAL, &tick, NULL);
		_exit(kb_net_write_all(p[1], buf, TOTAL) == 0 ? 0 : 1);
	}
	close(p[1]);
	for (;;) {
		ssize_t k = read(p[0], buf, 4096);
		if (k < 0 && errno == EINTR)
			continue;
		cr_assert_geq(k, 0);
		if (k == 0)
			break;
		for (ssize_t i = 0; i < k; i++)
			cr_assert_eq((unsigned char)buf[i], (got + (size_t)i) % 251, "byte %zu", got + (size_t)i);
		got += (size_t)k;
	}
	close(p[0]);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the writer: %#x", status);
	cr_assert_eq(got, TOTAL);
}

/* A host that cannot resolve ("a..b": an empty label, which no resolver
 * is asked about) fails with KB_NET_EHOST, the host named, and *fd -1. */
Test(net, unresolvable_host_leaves_minus_one)
{
	kb_err err;
	int fd = 5, port = 0;

	cr_assert_eq(kb_net_connect("a..b", 1, &fd, &err), KB_NET_EHOST);
	cr_assert_eq(fd, -1);
	cr_assert_eq(strncmp(err.msg, "a..b: ", 6), 0, "%s", err.msg);
	fd = 5;
	cr_assert_eq(kb_net_listen("a..b", 1, 2, &fd, &port, &err), KB_NET_EHOST);
	cr_assert_eq(fd, -1);
	cr_assert_eq(strncmp(err.msg, "a..b: ", 6), 0, "%s", err.msg);
}
