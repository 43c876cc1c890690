/* proc.c - bot processes with pipes, limits and process groups; see proc.h. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proc.h"
#include "sandbox.h"

/* Process groups of the bots this process runs, for kj_proc_kill_all()
 * from a signal handler. */
#define MAX_LIVE 64
static volatile pid_t live[MAX_LIVE];

static void track(pid_t pid, pid_t old)
{
	for (int i = 0; i < MAX_LIVE; i++)
		if (live[i] == old) {
			live[i] = pid;
			return;
		}
}

void kj_proc_kill_all(void)
{
	for (int i = 0; i < MAX_LIVE; i++)
		if (live[i] > 0)
			kill(-live[i], SIGKILL);
}

double kj_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void limit(int res, long value)
{
	struct rlimit rl = {(rlim_t)value, (rlim_t)value};

	if (value > 0)
		setrlimit(res, &rl);
}

/* In the vforked child: confine the bot or end with a note why not. */
static void confine(const kj_bot *bot, const kj_limits *lim)
{
	static const char msg[] = "kimble-judge: cannot confine the bot: ";
	const char *step = "";

	if (kj_sandbox_enter(bot, lim, &step) == 0)
		return;
	if (write(2, msg, sizeof msg - 1) < 0 || write(2, step, strlen(step)) < 0 ||
	    write(2, "\n", 1) < 0)
		_exit(126);
	_exit(126);
}

/* In the vforked child: only system calls from here to the exec (no
 * allocation, no stdio), then _exit on failure.  Never returns. */
static void exec_bot(const kj_bot *bot, char *const argv[], int in, int out, int errfd,
		     const kj_limits *lim)
{
	static const char msg[] = "kimble-judge: cannot run the bot's command in its directory\n";

	setpgid(0, 0);
	dup2(in, 0);
	dup2(out, 1);
	dup2(errfd, 2);
	signal(SIGPIPE, SIG_DFL);
	if (chdir(bot->dir) != 0)
		_exit(126);
	limit(RLIMIT_CPU, lim->cpu_s);
	limit(RLIMIT_AS, (long)lim->mem_mb << 20);
	limit(RLIMIT_NOFILE, lim->nofile);
	if (lim->sandbox)
		confine(bot, lim);
	execvp(bot->cmd, argv);
	if (write(2, msg, sizeof msg - 1) < 0)
		_exit(127);
	_exit(127);
}

/* Start the bot's command with its arguments; returns the pid or -1. */
static pid_t spawn(const kj_bot *bot, const char *opponents, const char *seed, int in, int out,
		   int errfd, const kj_limits *lim)
{
	char *argv[KJ_MAX_ARGS + 4];
	int n = 0;
	pid_t pid;

	argv[n++] = (char *)bot->cmd;
	for (int i = 0; i < bot->argc; i++)
		argv[n++] = bot->argv[i];
	argv[n++] = (char *)opponents;
	argv[n++] = (char *)seed;
	argv[n] = NULL;
	if (!lim->learn)
		setenv("KIMBLE_LEARN", "0", 1);
	/* vfork: a game starts up to four bots, and copying the judge's page
	 * tables for each would cost more than the game itself. */
	pid = vfork();
	if (pid == 0)
		exec_bot(bot, argv, in, out, errfd, lim);
	if (!lim->learn)
		unsetenv("KIMBLE_LEARN");
	return pid;
}

int kj_proc_start(kj_proc *p, const kj_bot *bot, const char *opponents, const char *seed,
		  const char *err_path, const kj_limits *lim, kb_err *err)
{
	int to[2], from[2], errfd;

	memset(p, 0, sizeof *p);
	p->in = p->out = -1;
	p->status = -1;
	if (lim->sandbox && kj_sandbox_init(err))
		return -1;
	if (!(p->obuf = malloc(KJ_OUTBUF)))
		goto fail;
	if (pipe2(to, O_CLOEXEC) != 0)
		goto fail;
	if (pipe2(from, O_CLOEXEC) != 0) {
		close(to[0]), close(to[1]);
		goto fail;
	}
	errfd = open(err_path ? err_path : "/dev/null",
		     err_path ? O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC : O_WRONLY | O_CLOEXEC, 0644);
	if (errfd < 0)
		errfd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	p->pid = spawn(bot, opponents, seed, to[0], from[1], errfd, lim);
	close(to[0]);
	close(from[1]);
	close(errfd);
	if (p->pid < 0) {
		p->pid = 0;
		close(to[1]), close(from[0]);
		goto fail;
	}
	setpgid(p->pid, p->pid); /* also here, so a kill right away hits the group */
	track(p->pid, 0);
	p->in = to[1];
	p->out = from[0];
	fcntl(p->in, F_SETFL, O_NONBLOCK);
	fcntl(p->out, F_SETFL, O_NONBLOCK);
	return 0;
fail:
	if (err)
		snprintf(err->msg, sizeof err->msg, "bot %s: cannot start: %s", bot->name,
			 strerror(errno));
	free(p->obuf);
	p->obuf = NULL;
	return -1;
}

int kj_proc_send(kj_proc *p, const char *buf, size_t len)
{
	if (p->in < 0)
		return 0; /* stdin already closed: the bot gets nothing more */
	if (p->olen + len > KJ_OUTBUF)
		return -1;
	memcpy(p->obuf + p->olen, buf, len);
	p->olen += len;
	return 0;
}

static void flush_out(kj_proc *p)
{
	while (p->olen && p->in >= 0) {
		ssize_t w = write(p->in, p->obuf, p->olen);
		if (w > 0) {
			memmove(p->obuf, p->obuf + w, p->olen - (size_t)w);
			p->olen -= (size_t)w;
		} else if (w < 0 && errno == EINTR) {
			continue;
		} else {
			if (w < 0 && errno != EAGAIN) { /* EPIPE: the bot closed stdin */
				close(p->in);
				p->in = -1;
				p->olen = 0;
			}
			return;
		}
	}
}

/* Read what is there; returns 1 if bytes arrived, -1 on EOF, 0 otherwise. */
static int read_in(kj_proc *p)
{
	int got = 0;

	while (p->ilen < KJ_INBUF) {
		ssize_t r = read(p->out, p->ibuf + p->ilen, KJ_INBUF - p->ilen);
		if (r > 0) {
			p->ilen += (size_t)r;
			got = 1;
		} else if (r == 0) {
			p->eof = 1;
			return got ? 1 : -1;
		} else if (errno == EINTR) {
			continue;
		} else {
			return errno == EAGAIN ? got : -1;
		}
	}
	return got;
}

int kj_proc_pump(kj_proc *p, int ms)
{
	double deadline = kj_now_ms() + ms;

	if (p->eof || p->out < 0)
		return -1;
	for (;;) {
		struct pollfd fds[2] = {{p->out, POLLIN, 0}, {p->in, POLLOUT, 0}};
		int nfds = p->olen && p->in >= 0 ? 2 : 1;
		int r;

		flush_out(p);
		r = read_in(p);
		if (r != 0)
			return r;
		if (p->ilen >= KJ_INBUF)
			return 1; /* full: let the caller parse (or reject) it */
		int left = (int)(deadline - kj_now_ms() + 0.999);
		if (left <= 0)
			return 0;
		nfds = p->olen && p->in >= 0 ? 2 : 1;
		if (poll(fds, (nfds_t)nfds, left) < 0 && errno != EINTR)
			return -1;
	}
}

void kj_proc_consume(kj_proc *p, size_t n)
{
	if (n > p->ilen)
		n = p->ilen;
	memmove(p->ibuf, p->ibuf + n, p->ilen - n);
	p->ilen -= n;
}

static void close_fds(kj_proc *p)
{
	if (p->in >= 0)
		close(p->in);
	if (p->out >= 0)
		close(p->out);
	p->in = p->out = -1;
	free(p->obuf);
	p->obuf = NULL;
}

void kj_proc_finish_all(kj_proc *ps[], int n, int grace_ms)
{
	double deadline = kj_now_ms() + grace_ms;

	for (int i = 0; i < n; i++)
		if (ps[i]->pid > 0) {
			flush_out(ps[i]);
			if (ps[i]->in >= 0)
				close(ps[i]->in);
			ps[i]->in = -1;
		}
	for (int i = 0; i < n; i++) {
		kj_proc *p = ps[i];
		while (p->pid > 0) {
			int st;
			pid_t r = waitpid(p->pid, &st, WNOHANG);
			if (r == p->pid) {
				p->status = st;
				kill(-p->pid, SIGKILL); /* children it left behind */
				track(0, p->pid);
				p->pid = 0;
			} else if (r < 0) {
				track(0, p->pid);
				p->pid = 0;
			} else if (kj_now_ms() >= deadline) {
				kill(-p->pid, SIGKILL);
				kill(p->pid, SIGKILL);
				if (waitpid(p->pid, &st, 0) == p->pid)
					p->status = st;
				track(0, p->pid);
				p->pid = 0;
			} else if (p->out >= 0) {
				/* Wait on the bot's stdout closing (it exits) rather
				 * than sleeping; drain whatever it still prints. */
				struct pollfd fd = {p->out, POLLIN, 0};
				char sink[4096];
				int left = (int)(deadline - kj_now_ms()) + 1;
				if (poll(&fd, 1, left > 0 ? left : 0) > 0 &&
				    read(p->out, sink, sizeof sink) == 0) {
					close(p->out);
					p->out = -1;
				}
			} else {
				struct timespec ts = {0, 100000};
				nanosleep(&ts, NULL);
			}
		}
		close_fds(p);
	}
}

void kj_proc_finish(kj_proc *p, int grace_ms)
{
	kj_proc *one[1] = {p};

	kj_proc_finish_all(one, 1, grace_ms);
}
