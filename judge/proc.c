/* proc.c - bot processes with pipes, limits and process groups; see proc.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "botenv.h"
#include "core/net.h"
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
	/* Reaped before the caller exits: a stopped judge leaves no bot. */
	for (int i = 0; i < MAX_LIVE; i++)
		if (live[i] > 0)
			while (waitpid(live[i], NULL, 0) < 0 && errno == EINTR)
				;
}

void kj_proc_stop_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
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

/* Why the vforked child could not run the bot: the child shares our
 * memory until it execs or exits, so it leaves errno here (as glibc's
 * posix_spawn does) for the parent to read once vfork returns. */
static volatile int exec_errno;
static const char *volatile exec_step;

/* In the vforked child: confine the bot or end with a note why not. */
static void confine(const kj_bot *bot, const kj_limits *lim)
{
	static const char msg[] = "kimble-judge: cannot confine the bot: ";
	const char *step = "";

	if (kj_sandbox_enter(bot, lim, &step) == 0)
		return;
	exec_errno = errno ? errno : EPERM, exec_step = step;
	if (write(2, msg, sizeof msg - 1) < 0 || write(2, step, strlen(step)) < 0 ||
	    write(2, "\n", 1) < 0)
		_exit(126);
	_exit(126);
}

/* In the vforked child: only system calls from here to the exec (no
 * allocation, no stdio), then _exit on failure.  Never returns. */
static void exec_bot(const kj_bot *bot, const char *file, char *const argv[], char *const envp[],
		     int in, int out, int errfd, const kj_limits *lim, pid_t parent,
		     const sigset_t *mask)
{
	/* The bot dies with the process that runs it, even one killed with
	 * SIGKILL (a judge or worker killed -9 leaves no bot playing on).
	 * Not a bot confined under a root judge: its exec is a secure one
	 * (real user nobody, effective root), which clears the signal; the
	 * judge, the reaper of its workers' orphans, stops those (run.c). */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(126);
	sigprocmask(SIG_SETMASK, mask, NULL);
	setpgid(0, 0);
	dup2(in, 0);
	dup2(out, 1);
	dup2(errfd, 2);
	signal(SIGPIPE, SIG_DFL);
	if (chdir(bot->dir) != 0) {
		exec_errno = errno, exec_step = "chdir";
		_exit(126);
	}
	limit(RLIMIT_CPU, lim->cpu_s);
	limit(RLIMIT_AS, (long)lim->mem_mb << 20);
	limit(RLIMIT_NOFILE, lim->nofile);
	if (lim->sandbox)
		confine(bot, lim);
	if (strchr(file, '/'))
		execve(file, argv, envp);
	else
		execvpe(file, argv, envp); /* not found in PATH: fails as the shell would */
	/* nothing on the bot's stderr: the parent reports the error, with the
	 * command and folder, as the seat's forfeit */
	exec_errno = errno, exec_step = "execvp";
	_exit(127);
}

/* Start the bot's command with its arguments; returns the pid or -1. */
static pid_t spawn(const kj_bot *bot, const char *opponents, const char *seed, int in, int out,
		   int errfd, const kj_limits *lim, const sigset_t *mask)
{
	char *argv[KJ_MAX_ARGS + 4];
	int n = 0;
	pid_t pid, parent = getpid();
	/* resolved here, in the parent: what runs is what -d shows */
	const char *file = kj_bot_command(bot, lim->sandbox, stderr);
	kj_env env; /* botenv.h: not the judge's whole environment */

	kj_env_build(&env, bot, lim->learn, lim->pass_env);

	/* a program run instead of the first in PATH (a confined bot's system
	 * copy) is named by its path: an interpreter that looks itself up in
	 * PATH by its bare name would find the copy it may not read */
	argv[n++] = (char *)(bot->syspath[0] && file == bot->syspath ? file : bot->cmd);
	for (int i = 0; i < bot->argc; i++)
		argv[n++] = bot->argv[i];
	argv[n++] = (char *)opponents;
	argv[n++] = (char *)seed;
	argv[n] = NULL;
	/* vfork: a game starts up to four bots, and copying the judge's page
	 * tables for each would cost more than the game itself. */
	exec_errno = 0;
	pid = vfork();
	if (pid == 0)
		exec_bot(bot, file, argv, env.vars, in, out, errfd, lim, parent, mask);
	return pid;
}

/* ---- the write budget ---------------------------------------------------- */

int kj_proc_counters(kj_bot *bots, int n)
{
	/* shared: the workers that play a bot's games at once all add to it */
	uint64_t *count = mmap(NULL, (size_t)(n > 0 ? n : 1) * sizeof *count,
			       PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (count == MAP_FAILED)
		return -1;
	for (int i = 0; i < n; i++)
		bots[i].written = &count[i];
	return 0;
}

/* write_bytes of /proc/PID/io (pid 0: this process): what the process and
 * the children it reaped caused to be written to storage (wchar would
 * count the pipes to the judge too); 0 when it cannot be read. */
static uint64_t io_written(pid_t pid)
{
	char path[40], text[512];
	const char *at;
	ssize_t len;
	int fd;

	if (pid)
		snprintf(path, sizeof path, "/proc/%d/io", (int)pid);
	else
		snprintf(path, sizeof path, "/proc/self/io");
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	len = read(fd, text, sizeof text - 1);
	close(fd);
	if (len <= 0)
		return 0;
	text[len] = '\0';
	/* the newline first: not cancelled_write_bytes */
	at = strstr(text, "\nwrite_bytes: ");
	return at ? strtoull(at + 14, NULL, 10) : 0;
}

/* waitpid(pid, st, options) that also returns what the reaped process
 * wrote in *bytes: the kernel adds a reaped child's count to its parent's,
 * and this process writes nothing in between.  (A zombie's own
 * /proc/PID/io is closed to an unprivileged parent.) */
static pid_t reap_counted(pid_t pid, int *st, int options, uint64_t *bytes)
{
	siginfo_t si;
	uint64_t before, after;
	pid_t r;

	*bytes = 0;
	memset(&si, 0, sizeof si);
	/* still running (WNOHANG): no need to read our count.  One that ends
	 * after this look is left for the next call, which counts it (a
	 * waitpid here would reap it uncounted). */
	if (options & WNOHANG) {
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0)
			return -1;
		if (si.si_pid == 0)
			return 0;
	}
	before = io_written(0);
	r = waitpid(pid, st, options);
	after = r > 0 ? io_written(0) : before;
	*bytes = after > before ? after - before : 0;
	return r;
}

/* Add bytes to the bot's run total; 1 when it is now over budget. */
static int add_written(kj_proc *p, uint64_t bytes)
{
	uint64_t total = __atomic_add_fetch(p->written, bytes, __ATOMIC_RELAXED);

	if (p->budget && total > p->budget)
		p->over_budget = 1;
	return p->over_budget;
}

int kj_proc_charge(kj_proc *p)
{
	uint64_t now;

	if (!p->written)
		return 0;
	if (p->pid > 0 && (now = io_written(p->pid)) > p->seen) {
		add_written(p, now - p->seen);
		p->seen = now;
	} else {
		add_written(p, 0); /* what its other games wrote meanwhile */
	}
	return p->over_budget;
}

/* The inode of process pid's user namespace, 0 when unknown. */
static unsigned long user_ns(pid_t pid)
{
	char path[48];
	struct stat st;

	snprintf(path, sizeof path, "/proc/%d/ns/user", (int)pid);
	return stat(path, &st) == 0 ? (unsigned long)st.st_ino : 0;
}

/* Count the bot's writes at its start: nothing started when its run's
 * total is over budget already. */
static int budget_start(kj_proc *p, const kj_bot *bot, const kj_limits *lim)
{
	if (!lim->sandbox || !lim->write_mb || !bot->written)
		return 0;
	p->written = bot->written;
	p->budget = (uint64_t)lim->write_mb << 20;
	return add_written(p, 0);
}

static int adopted; /* kj_proc_adopt was called */

void kj_proc_adopt(void)
{
	adopted = prctl(PR_SET_CHILD_SUBREAPER, 1) == 0;
}

/* The bot among ps that process pid came from: its user namespace (which
 * none of its descendants can leave), else its process group. */
static kj_proc *owner(kj_proc *ps[], int n, pid_t pid)
{
	unsigned long ns = user_ns(pid);
	pid_t group = getpgid(pid);

	for (int i = 0; i < n; i++)
		if (ps[i]->ns && ps[i]->ns == ns)
			return ps[i];
	for (int i = 0; i < n; i++)
		if (ps[i]->group == group)
			return ps[i];
	return NULL;
}

/* SIGKILL every live child of this process: the descendants of bots that
 * left their bot's process group and outlived it.  Scans /proc, so only
 * when there are some.  Returns how many it found. */
static int kill_children(void)
{
	DIR *procs = opendir("/proc");
	pid_t self = getpid();
	struct dirent *e;
	int found = 0;

	while (procs && (e = readdir(procs))) {
		char path[300], text[512], state;
		pid_t pid = (pid_t)atoi(e->d_name);
		int fd, parent = 0;
		ssize_t len;
		snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
		if (pid <= 0 || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		len = read(fd, text, sizeof text - 1);
		close(fd);
		text[len > 0 ? len : 0] = '\0';
		/* "PID (COMMAND) STATE PPID ...": the command may hold anything */
		const char *close_paren = strrchr(text, ')');
		if (close_paren && sscanf(close_paren + 1, " %c %d", &state, &parent) == 2 &&
		    parent == self)
			found += kill(pid, SIGKILL) == 0;
	}
	if (procs)
		closedir(procs);
	return found;
}

void kj_proc_sweep(kj_proc *ps[], int n)
{
	while (adopted) {
		siginfo_t si;
		memset(&si, 0, sizeof si);
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) != 0) {
			if (errno == EINTR)
				continue;
			return; /* ECHILD: nothing left, the usual case */
		}
		if (si.si_pid == 0) { /* only live ones left */
			if (!kill_children())
				return; /* hidden from us (/proc): never wait on them */
			if (waitid(P_ALL, 0, &si, WEXITED | WNOWAIT) != 0)
				continue;
		}
		kj_proc *bot = owner(ps, n, si.si_pid);
		uint64_t bytes;
		while (reap_counted(si.si_pid, NULL, 0, &bytes) < 0 && errno == EINTR)
			;
		if (bot && bot->written)
			add_written(bot, bytes);
	}
}

/* The bot's end of its stderr: a pipe whose read end becomes p->err
 * (KJ_ERR_ECHO), the file err_path, or /dev/null when those fail. */
static int stderr_fd(kj_proc *p, const char *err_path)
{
	int ep[2], fd = -1;

	if (err_path && strcmp(err_path, KJ_ERR_ECHO) == 0) {
		if (pipe2(ep, O_CLOEXEC) == 0) {
			p->err = ep[0];
			kb_net_nonblock(p->err);
			return ep[1];
		}
	} else if (err_path) {
		fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	}
	return fd >= 0 ? fd : open("/dev/null", O_WRONLY | O_CLOEXEC);
}

int kj_proc_start(kj_proc *p, const kj_bot *bot, const char *opponents, const char *seed,
		  const char *err_path, const kj_limits *lim, kb_err *err)
{
	int to[2], from[2], errfd;
	sigset_t stops, mask;

	memset(p, 0, sizeof *p);
	p->in = p->out = p->err = -1;
	p->status = -1;
	if (lim->sandbox && kj_sandbox_init(err))
		return -1;
	if (lim->sandbox)
		kj_sandbox_layer_self();
	if (budget_start(p, bot, lim))
		return 0; /* over its write budget: not started */
	if (!(p->obuf = malloc(KJ_OUTBUF)))
		goto fail;
	if (pipe2(to, O_CLOEXEC) != 0)
		goto fail;
	if (pipe2(from, O_CLOEXEC) != 0) {
		close(to[0]), close(to[1]);
		goto fail;
	}
	errfd = stderr_fd(p, err_path);
	/* No stop signal between the start and track(): its handler's
	 * kj_proc_kill_all() must see every bot. */
	kj_proc_stop_signals(&stops);
	sigprocmask(SIG_BLOCK, &stops, &mask);
	p->pid = spawn(bot, opponents, seed, to[0], from[1], errfd, lim, &mask);
	close(to[0]);
	close(from[1]);
	close(errfd);
	p->exec_errno = p->pid > 0 ? exec_errno : 0;
	p->exec_step = p->exec_errno ? exec_step : NULL;
	if (p->pid < 0) {
		p->pid = 0;
		sigprocmask(SIG_SETMASK, &mask, NULL);
		close(to[1]), close(from[0]);
		goto fail;
	}
	setpgid(p->pid, p->pid); /* also here, so a kill right away hits the group */
	p->group = p->pid;
	if (p->written) /* the child has exec'd (vfork): in its namespace */
		p->ns = user_ns(p->pid);
	track(p->pid, 0);
	sigprocmask(SIG_SETMASK, &mask, NULL);
	p->in = to[1];
	p->out = from[0];
	kb_net_nonblock(p->in);
	kb_net_nonblock(p->out);
	return 0;
fail:
	if (err)
		snprintf(err->msg, sizeof err->msg, "bot %s: cannot start: %s", bot->name,
			 strerror(errno));
	free(p->obuf);
	p->obuf = NULL;
	if (p->err >= 0)
		close(p->err);
	p->err = -1;
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

static void echo_line(kj_proc *p)
{
	if (p->echo && p->elen)
		fprintf(p->echo, "%c! %.*s\n", p->tag, (int)p->elen, p->ebuf);
	p->elen = 0;
}

/* Echo the bot's stderr that has arrived, line by line. */
static void echo_err(kj_proc *p)
{
	char buf[1024];

	while (p->err >= 0) {
		ssize_t r = read(p->err, buf, sizeof buf);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			return;
		for (ssize_t i = 0; i < r; i++) {
			if (buf[i] != '\n' && buf[i] != '\r')
				p->ebuf[p->elen++] = buf[i];
			if (buf[i] == '\n' || p->elen == sizeof p->ebuf)
				echo_line(p);
		}
		if (r <= 0) { /* EOF or an error: the bot's stderr is closed */
			echo_line(p);
			close(p->err);
			p->err = -1;
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
		struct pollfd fds[3] = {{p->out, POLLIN, 0}, {p->in, POLLOUT, 0}, {p->err, POLLIN, 0}};
		int nfds;
		int r;

		echo_err(p);
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
		if (p->err >= 0) /* wake for stderr too, in the slot after the others */
			fds[nfds++] = (struct pollfd){p->err, POLLIN, 0};
		if (poll(fds, (nfds_t)nfds, left) < 0 && errno != EINTR)
			return -1;
	}
}

int kj_proc_exited(const kj_proc *p)
{
	siginfo_t info = {0};

	return p->pid > 0 &&
	       waitid(P_PID, (id_t)p->pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
	       info.si_pid == p->pid;
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
	echo_err(p);
	if (p->err >= 0)
		close(p->err);
	p->err = -1;
	if (p->in >= 0)
		close(p->in);
	if (p->out >= 0)
		close(p->out);
	p->in = p->out = -1;
	free(p->obuf);
	p->obuf = NULL;
}

/* waitpid(p->pid, st, options), counting what the bot wrote since it was
 * last looked at. */
static pid_t reap(kj_proc *p, int *st, int options)
{
	uint64_t bytes;
	pid_t r;

	if (!p->written)
		return waitpid(p->pid, st, options);
	r = reap_counted(p->pid, st, options, &bytes);
	if (r > 0)
		add_written(p, bytes > p->seen ? bytes - p->seen : 0);
	return r;
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
			pid_t r = reap(p, &st, WNOHANG);
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
				if (reap(p, &st, 0) == p->pid)
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
