/* test_rule_judge_sandbox.c - the confinement of judge/sandbox.h, call by
 * call, found by make mutate (docs/mutation.md): a child of the test
 * process confines itself as a bot would (kj_sandbox_enter in a folder of
 * its own) and tries each thing sandbox.h says a bot may or may not do,
 * reporting the error it got.  The expected errors are sandbox.h's list
 * written out by hand, not what the code does.  One confined process
 * instead of a judge's tournament (tests/test_sandbox.c): a tenth of a
 * second, and exact about each right, limit and blocked call.  Suite
 * judge_rules. */
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/keyctl.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <netinet/in.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "core/err.h"
#include "judge/sandbox.h"
#include "support.h"

#define NOBODY 65534 /* the kernel's overflow user: an unmapped user's id in a namespace */

/* What the checks of a confined child need, made before it confines
 * itself (the test's own folders, sockets and listeners). */
static struct {
	char dir[300];   /* the bot's folder: the child's working folder */
	char sib[300];   /* a folder beside it holding a file "secret" */
	char cmd[400];   /* the bot's command file, in a folder of its own */
	char other[700]; /* a file beside the command file */
	int tcp_connect, tcp_bind, tcp_port; /* two TCP sockets, a listener's port */
	int unix_connect, unix_bind;         /* two AF_UNIX stream sockets */
	struct sockaddr_un abstract;         /* an abstract listener's address */
	int no_stdin; /* the confined child closes descriptor 0 first */
	long fail_nr; /* a system call that fails in the confined child (0: none) */
	int fail_err, fail_argi, fail_arg; /* with this error, when argument fail_argi is fail_arg (-1: any) */
	int abi6; /* the child's landlock_restrict_self refuses flags, as ABI 6 (as_abi6) */
} ctx;

/* Each check returns 0 when what it tried worked, else the errno. */
static int failed(int rc)
{
	return rc < 0 ? errno : 0;
}

static int try_open(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC, 0644);

	return fd < 0 ? errno : (close(fd), 0);
}

static int t_read(const char *path)
{
	return try_open(path, O_RDONLY);
}

static int t_write(const char *path)
{
	return try_open(path, O_WRONLY);
}

static int t_create(const char *path)
{
	return try_open(path, O_WRONLY | O_CREAT | O_EXCL);
}

static int t_list(const char *path)
{
	DIR *d = opendir(path);

	if (!d)
		return errno;
	errno = 0;
	int rc = readdir(d) ? 0 : errno ? errno : ENOENT;
	closedir(d);
	return rc;
}

/* The number of entries in folder path but . and .. (a listing that
 * fails counts as -1). */
static int t_count(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static int t_truncate(const char *path)
{
	return failed(truncate(path, 1));
}

static int t_mkdir(const char *path)
{
	return failed(mkdir(path, 0755));
}

static int t_fifo(const char *path)
{
	return failed(mkfifo(path, 0644));
}

static int t_symlink(const char *path)
{
	return failed(symlink("elsewhere", path));
}

static int t_unlink(const char *path)
{
	return failed(unlink(path));
}

/* A rename from one folder into another (Landlock's REFER right). */
static int t_refer(const char *path)
{
	char to[64];

	snprintf(to, sizeof to, "sub/%s", path);
	return failed(rename(path, to));
}

/* Run path with no arguments, its descriptor 0 open (a bot's stdin:
 * under a root judge its programs run in secure mode, where the C library
 * would open /dev/full in its place) or closed: the exit status, the
 * exec's errno, or 1000 + the signal that ended it. */
static int run_program(const char *path, int stdin_open)
{
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		int null = stdin_open ? open("/dev/null", O_RDONLY) : -1;
		if (null > 0)
			dup2(null, 0);
		else if (!stdin_open)
			close(0);
		execl(path, path, (char *)NULL);
		_exit(errno);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return pid < 0 ? errno : ECHILD;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1000 + WTERMSIG(st);
}

static int t_exec(const char *path)
{
	return run_program(path, 1);
}

/* A program the bot starts without stdin: the C library opens /dev/full
 * in its place, and ends the program when it cannot. */
static int t_exec_no_stdin(const char *path)
{
	return run_program(path, 0);
}

/* A terminal ioctl on a device: ENOTTY when the ioctl reaches the device
 * (Landlock's IOCTL_DEV right), EACCES when Landlock stops it. */
static int t_ioctl(const char *path)
{
	struct termios t;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return errno;
	int rc = failed(ioctl(fd, TCGETS, &t));
	close(fd);
	return rc;
}

static int t_fallocate(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0)
		return errno;
	int rc = failed(fallocate(fd, 0, 0, 4096));
	close(fd);
	return rc;
}

static int t_socket(const char *family)
{
	int fd = socket(!strcmp(family, "inet") ? AF_INET : !strcmp(family, "inet6") ? AF_INET6 :
			AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	return fd < 0 ? errno : (close(fd), 0);
}

static int t_tcp(const char *what)
{
	struct sockaddr_in a = {.sin_family = AF_INET};

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (!strcmp(what, "bind"))
		return failed(bind(ctx.tcp_bind, (struct sockaddr *)&a, sizeof a));
	a.sin_port = htons((uint16_t)ctx.tcp_port);
	return failed(connect(ctx.tcp_connect, (struct sockaddr *)&a, sizeof a));
}

/* A unix socket made before: connected to the abstract listener, or
 * bound to path (a socket file: Landlock's MAKE_SOCK right). */
static int t_unix(const char *path)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};

	if (!strcmp(path, "abstract"))
		return failed(connect(ctx.unix_connect, (struct sockaddr *)&ctx.abstract,
				      sizeof ctx.abstract));
	snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
	return failed(bind(ctx.unix_bind, (struct sockaddr *)&a, sizeof a));
}

/* Signal 0 to the parent (the test process, outside the domain) or to a
 * child of the confined process (inside it). */
static int t_signal(const char *whom)
{
	if (!strcmp(whom, "parent"))
		return failed(kill(getppid(), 0));
	pid_t pid = fork();
	if (pid == 0) {
		pause();
		_exit(0);
	}
	if (pid < 0)
		return errno;
	int rc = failed(kill(pid, SIGKILL));
	if (rc)
		kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return rc;
}

static int t_keys(const char *call)
{
	if (!strcmp(call, "keyctl"))
		return failed((int)syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID,
					   KEY_SPEC_SESSION_KEYRING, 0));
	if (!strcmp(call, "add_key"))
		return failed((int)syscall(SYS_add_key, "user", "kimble", "x", 1,
					   KEY_SPEC_PROCESS_KEYRING));
	return failed((int)syscall(SYS_request_key, "user", "kimble", NULL, 0));
}

static int t_io_uring(const char *unused)
{
	char params[120] = {0}; /* struct io_uring_params, zeroed */
	long fd = syscall(SYS_io_uring_setup, 1, params);

	(void)unused;
	return fd < 0 ? errno : (close((int)fd), 0);
}

/* System call number nr (hex): the x32 ABI's numbers start at 0x40000000. */
static int t_number(const char *nr)
{
	return failed((int)syscall(strtol(nr, NULL, 16)));
}

/* getpid through the i386 ABI (int 0x80, call 20): the filter allows the
 * bot's own architecture only.  In a child, in case the kernel has no
 * 32-bit entry and sends a signal: ENOSYS then. */
static int t_i386(const char *unused)
{
	(void)unused;
#if defined(__x86_64__)
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		long ret;
		__asm__ volatile("int $0x80" : "=a"(ret) : "a"(20L) : "memory");
		_exit(ret == (long)getpid() ? 0 : ret < 0 && ret > -256 ? (int)-ret : 255);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return ECHILD;
	return WIFEXITED(st) ? WEXITSTATUS(st) : ENOSYS;
#else
	return EPERM;
#endif
}

typedef struct check {
	const char *what;
	int (*try)(const char *arg);
	const char *arg;
	int want; /* 0: allowed, else the error a bot gets */
} check;

/* The rules of sandbox.h, one call each; paths relative to the bot's
 * folder unless absolute (the sibling's and the command's folders are
 * filled in by confine_checks). */
static check rules[] = {
	/* layer 2: the system folders, read and execute */
	{"read a file under /etc", t_read, "/etc/passwd", 0},
	{"read a file under /usr", t_read, "/usr/bin/env", 0},
	{"list /etc", t_list, "/etc", 0},
	{"list /usr/bin", t_list, "/usr/bin", 0},
	{"execute /bin/true", t_exec, "/bin/true", 0},
	{"execute /usr/bin/true", t_exec, "/usr/bin/true", 0},
	{"write a file under /etc", t_write, "/etc/passwd", EACCES},
	{"list /", t_list, "/", EACCES},
	{"list /tmp", t_list, "/tmp", EACCES},
	{"read /proc/1", t_read, "/proc/1/status", EACCES},
	/* layer 1: the secrets under /etc, also in folders that hold one */
	{"read /etc/shadow", t_read, "/etc/shadow", EACCES},
	{"read /etc/security/opasswd", t_read, "/etc/security/opasswd", EACCES},
	{"read beside a secret in /etc/security", t_read, "/etc/security/limits.conf", 0},
	{"read beside a secret in /etc/ssl", t_read, "/etc/ssl/openssl.cnf", 0},
	/* /proc/self and the devices */
	{"read /proc/self", t_read, "/proc/self/status", 0},
	{"list /proc/self/fd", t_list, "/proc/self/fd", 0},
	{"read /dev/null", t_read, "/dev/null", 0},
	{"write /dev/null", t_write, "/dev/null", 0},
	{"ioctl on /dev/null", t_ioctl, "/dev/null", ENOTTY},
	{"read /dev/zero", t_read, "/dev/zero", 0},
	{"write /dev/zero", t_write, "/dev/zero", EACCES},
	{"ioctl on /dev/zero", t_ioctl, "/dev/zero", EACCES},
	{"read /dev/random", t_read, "/dev/random", 0},
	{"write /dev/random", t_write, "/dev/random", EACCES},
	{"read /dev/urandom", t_read, "/dev/urandom", 0},
	{"write /dev/urandom", t_write, "/dev/urandom", EACCES},
	{"write /dev/full", t_write, "/dev/full", 0},
	{"read /dev/full", t_read, "/dev/full", EACCES},
	{"execute /bin/true without stdin", t_exec_no_stdin, "/bin/true", 0},
	/* the bot's own folder: anything */
	{"create a file in its folder", t_create, "made", 0},
	{"write it", t_write, "made", 0},
	{"read it", t_read, "made", 0},
	{"truncate it", t_truncate, "made", 0},
	{"make a folder", t_mkdir, "sub", 0},
	{"move a file into it", t_refer, "made", 0},
	{"list its folder", t_list, ".", 0},
	{"make a fifo", t_fifo, "fifo", 0},
	{"make a symlink", t_symlink, "link", 0},
	{"make a socket file", t_unix, "sock", 0},
	{"remove a file", t_unlink, "fifo", 0},
	{"execute a file of its folder", t_exec, "./run.sh", 0},
	/* outside its folder */
	{"read the sibling's file", t_read, NULL, EACCES},
	{"truncate the sibling's file", t_truncate, NULL, EACCES},
	{"create a file beside it", t_create, NULL, EACCES},
	{"list the folder above", t_list, "..", EACCES},
	{"read the command file", t_read, NULL, 0},
	{"execute the command file", t_exec, NULL, 0},
	{"write the command file", t_write, NULL, EACCES},
	{"read beside the command file", t_read, NULL, EACCES},
	/* Landlock's network rules and scopes, on sockets made before */
	{"connect over TCP", t_tcp, "connect", EACCES},
	{"bind a TCP port", t_tcp, "bind", EACCES},
	{"connect to an abstract unix socket", t_unix, "abstract", EPERM},
	{"signal the parent", t_signal, "parent", EPERM},
	{"signal its own child", t_signal, "child", 0},
	/* seccomp */
	{"socket(AF_INET)", t_socket, "inet", EACCES},
	{"socket(AF_INET6)", t_socket, "inet6", EACCES},
	{"socket(AF_UNIX)", t_socket, "unix", EACCES},
	{"fallocate", t_fallocate, "falloc", EOPNOTSUPP},
	{"keyctl", t_keys, "keyctl", EPERM},
	{"add_key", t_keys, "add_key", EPERM},
	{"request_key", t_keys, "request_key", EPERM},
	{"io_uring_setup", t_io_uring, NULL, EPERM},
	{"the first x32 call", t_number, "40000000", EPERM},
	{"an x32 getpid", t_number, "40000027", EPERM},
	{"the number below x32's", t_number, "3fffffff", ENOSYS},
	{"getpid through int 0x80", t_i386, NULL, EPERM},
};
#define NRULES (sizeof rules / sizeof rules[0])

/* What a confined child reports. */
typedef struct report {
	int entered;         /* kj_sandbox_enter's return */
	int enter_errno;
	char step[64];
	int got[NRULES]; /* each check's outcome, in the order tried */
	struct rlimit nproc, fsize;
	int no_new_privs;
	uid_t uid, euid;
	char userns[64], mntns[64];
} report;

static void ns_of(const char *kind, char *out, size_t size)
{
	char path[64];

	snprintf(path, sizeof path, "/proc/self/ns/%s", kind);
	ssize_t n = readlink(path, out, size - 1);
	out[n > 0 ? n : 0] = '\0';
}

/* In the child: confine, try checks[0..n), report. */
static void child_report(const kj_bot *bot, const kj_limits *lim, const check *checks, size_t n,
			 report *r)
{
	const char *step = "";

	r->entered = kj_sandbox_enter(bot, lim, &step);
	r->enter_errno = errno;
	snprintf(r->step, sizeof r->step, "%s", step);
	for (size_t i = 0; r->entered == 0 && i < n; i++)
		r->got[i] = checks[i].try(checks[i].arg);
	getrlimit(RLIMIT_NPROC, &r->nproc);
	getrlimit(RLIMIT_FSIZE, &r->fsize);
	r->no_new_privs = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
	r->uid = getuid();
	r->euid = geteuid();
	ns_of("user", r->userns, sizeof r->userns);
	ns_of("mnt", r->mntns, sizeof r->mntns);
}

/* From here on system call nr fails with err in this process and its
 * children when its argument argi is arg (any when arg is -1). */
static void fail_call(long nr, int argi, int arg, int err)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[argi])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)arg, 0, arg < 0 ? 0 : 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (unsigned)err),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
	struct sock_fprog prog = {sizeof code / sizeof *code, code};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		_exit(100);
}

/* From here on landlock_restrict_self answers flags other than 0 with
 * EINVAL in this process and its children, as Linux 6.12 (Landlock ABI
 * 6, before the flags of ABI 7) does. */
static void as_abi6(void)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_landlock_restrict_self, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EINVAL),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
	struct sock_fprog prog = {sizeof code / sizeof *code, code};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		_exit(100);
}

/* Fork a child that confines itself as bot in bot->dir with lim, tries
 * checks[0..n) (n <= NRULES) and reports; *real_uid gets its real user outside the namespace (read from
 * /proc while the child waits).  Returns the report. */
static report confined(const kj_bot *bot, const kj_limits *lim, const check *checks, size_t n,
		       uid_t *real_uid)
{
	int data[2], go[2];
	report r;

	memset(&r, 0, sizeof r);
	cr_assert(pipe(data) == 0 && pipe(go) == 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		char c;
		close(data[0]), close(go[1]);
		if (chdir(bot->dir) != 0 || (ctx.no_stdin && close(0) != 0))
			_exit(1);
		if (ctx.fail_nr)
			fail_call(ctx.fail_nr, ctx.fail_argi, ctx.fail_arg, ctx.fail_err);
		if (ctx.abi6)
			as_abi6();
		child_report(bot, lim, checks, n, &r);
		test_write_all(data[1], &r, sizeof r);
		close(data[1]);
		_exit(read(go[0], &c, 1) == 0 ? 0 : 1);
	}
	close(data[1]), close(go[0]);
	size_t have = 0;
	ssize_t got;
	while (have < sizeof r && (got = read(data[0], (char *)&r + have, sizeof r - have)) > 0)
		have += (size_t)got;
	close(data[0]);
	if (real_uid) {
		char path[64], line[256];
		snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
		FILE *f = fopen(path, "r");
		cr_assert_not_null(f);
		while (fgets(line, sizeof line, f))
			if (!strncmp(line, "Uid:", 4))
				*real_uid = (uid_t)strtoul(line + 4, NULL, 10);
		fclose(f);
	}
	close(go[1]);
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0 && have == sizeof r,
		  "the confined child did not report");
	return r;
}

/* The kernel's Landlock ABI, asked directly (not through sandbox.c). */
static int landlock_abi(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1U);

	return abi < 0 ? 0 : (int)abi;
}

/* kj_sandbox_init where the kernel can confine (else the test is
 * skipped): it must succeed. */
static void init_sandbox(void)
{
	kb_err err = {{0}};

	if (landlock_abi() < KJ_SANDBOX_MIN_ABI)
		cr_skip_test("this kernel has Landlock ABI %d", landlock_abi());
	cr_assert_eq(kj_sandbox_init(&err), 0, "%s", err.msg);
	cr_assert_geq(kj_sandbox_abi(), KJ_SANDBOX_MIN_ABI);
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	test_write_file(path, "%s", text);
	cr_assert_eq(chmod(path, mode), 0);
}

/* A TCP listener on 127.0.0.1 (its port in *port). */
static int tcp_listener(int *port)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t alen = sizeof a;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert(fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && listen(fd, 4) == 0);
	cr_assert_eq(getsockname(fd, (struct sockaddr *)&a, &alen), 0);
	*port = ntohs(a.sin_port);
	return fd;
}

/* The folders, files and sockets of ctx, and a bot in ctx.dir whose
 * command is ctx.cmd. */
static void set_up(kj_bot *bot)
{
	char base[256], path[700];

	test_tmpdir(base, sizeof base);
	snprintf(ctx.dir, sizeof ctx.dir, "%s/bot", base);
	snprintf(ctx.sib, sizeof ctx.sib, "%s/sib", base);
	snprintf(path, sizeof path, "%s/cmd", base);
	cr_assert(mkdir(ctx.dir, 0755) == 0 && mkdir(ctx.sib, 0755) == 0 && mkdir(path, 0755) == 0);
	snprintf(ctx.cmd, sizeof ctx.cmd, "%s/cmd/tool", base);
	snprintf(ctx.other, sizeof ctx.other, "%s/cmd/other", base);
	write_file(ctx.cmd, "#!/bin/sh\nexit 0\n", 0755);
	write_file(ctx.other, "not the bot's\n", 0644);
	snprintf(path, sizeof path, "%s/secret", ctx.sib);
	write_file(path, "the sibling's learned state\n", 0644);
	snprintf(path, sizeof path, "%s/run.sh", ctx.dir);
	write_file(path, "#!/bin/sh\nexit 0\n", 0755);
	memset(bot, 0, sizeof *bot);
	snprintf(bot->name, sizeof bot->name, "b");
	snprintf(bot->dir, sizeof bot->dir, "%s", ctx.dir);
	snprintf(bot->cmd, sizeof bot->cmd, "%s", ctx.cmd);
}

static void set_up_sockets(void)
{
	int listener = tcp_listener(&ctx.tcp_port);
	(void)listener; /* open until the test's process ends */

	ctx.tcp_connect = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ctx.tcp_bind = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ctx.unix_connect = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ctx.unix_bind = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int abstract = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cr_assert(ctx.tcp_connect >= 0 && ctx.tcp_bind >= 0 && ctx.unix_connect >= 0 &&
		  ctx.unix_bind >= 0 && abstract >= 0);
	ctx.abstract.sun_family = AF_UNIX;
	snprintf(ctx.abstract.sun_path + 1, sizeof ctx.abstract.sun_path - 1, "kimble-test-%d",
		 (int)getpid());
	cr_assert(bind(abstract, (struct sockaddr *)&ctx.abstract, sizeof ctx.abstract) == 0 &&
		  listen(abstract, 4) == 0);
}

/* Fill in the rules' paths outside the bot's folder. */
static void outside_paths(void)
{
	static char sib_file[700], sib_new[700];

	snprintf(sib_file, sizeof sib_file, "%s/secret", ctx.sib);
	snprintf(sib_new, sizeof sib_new, "%s/planted", ctx.sib);
	for (size_t i = 0; i < NRULES; i++) {
		if (rules[i].arg)
			continue;
		if ((rules[i].try == t_read || rules[i].try == t_truncate) &&
		    strstr(rules[i].what, "sibling"))
			rules[i].arg = sib_file;
		else if (rules[i].try == t_create)
			rules[i].arg = sib_new;
		else if (strstr(rules[i].what, "beside the command"))
			rules[i].arg = ctx.other;
		else if (strstr(rules[i].what, "command file"))
			rules[i].arg = ctx.cmd;
	}
}

/* A system file a check names that this machine does not have. */
static int system_file_missing(const char *path)
{
	return path && (!strncmp(path, "/etc/", 5) || !strncmp(path, "/usr/", 5)) &&
	       access(path, F_OK) != 0;
}

/* Everything sandbox.h lists, tried by one confined bot. */
Test(judge_rules, sandbox_confines_a_bot_call_by_call, .timeout = 30)
{
	kj_bot bot;
	kj_limits lim = {.sandbox = 1, .procs = 64, .file_mb = 1};

	close(0); /* a system path held as descriptor 0 is held all the same */
	init_sandbox();
	set_up(&bot);
	set_up_sockets();
	outside_paths();
	report r = confined(&bot, &lim, rules, NRULES, NULL);
	cr_assert_eq(r.entered, 0, "kj_sandbox_enter failed at %s: %s", r.step, strerror(r.enter_errno));
	for (size_t i = 0; i < NRULES; i++) {
		int want = rules[i].want;
		if (system_file_missing(rules[i].arg))
			want = ENOENT;
		cr_expect_eq(r.got[i], want, "%s (%s): got \"%s\", expected \"%s\"", rules[i].what,
			     rules[i].arg ? rules[i].arg : "", r.got[i] ? strerror(r.got[i]) : "allowed",
			     want ? strerror(want) : "allowed");
	}
	char sib_new[700];
	snprintf(sib_new, sizeof sib_new, "%s/planted", ctx.sib);
	cr_expect_neq(access(sib_new, F_OK), 0, "the confined bot created %s", sib_new);
}

/* The limits and the user of a confined bot: RLIMIT_NPROC and RLIMIT_FSIZE
 * as asked (soft and hard), no_new_privs, a user namespace of its own
 * where it is nobody, and under a root judge the real user nobody outside
 * it too (the kernel holds no real root to RLIMIT_NPROC). */
Test(judge_rules, sandbox_sets_a_bots_limits_and_user, .timeout = 30)
{
	kj_bot bot;
	kj_limits lim = {.sandbox = 1, .procs = 37, .file_mb = 3};
	uid_t real = 12345;
	char userns[64], mntns[64];

	init_sandbox();
	set_up(&bot);
	ctx.no_stdin = 1; /* the bot's ruleset becomes descriptor 0 */
	report r = confined(&bot, &lim, NULL, 0, &real);
	cr_assert_eq(r.entered, 0, "kj_sandbox_enter failed at %s: %s", r.step, strerror(r.enter_errno));
	cr_expect(r.nproc.rlim_cur == 37 && r.nproc.rlim_max == 37, "RLIMIT_NPROC %lu/%lu",
		  (unsigned long)r.nproc.rlim_cur, (unsigned long)r.nproc.rlim_max);
	cr_expect(r.fsize.rlim_cur == 3u << 20 && r.fsize.rlim_max == 3u << 20, "RLIMIT_FSIZE %lu/%lu",
		  (unsigned long)r.fsize.rlim_cur, (unsigned long)r.fsize.rlim_max);
	cr_expect_eq(r.no_new_privs, 1);
	cr_expect(r.uid == NOBODY && r.euid == NOBODY, "uid %d euid %d in the namespace", (int)r.uid,
		  (int)r.euid);
	ns_of("user", userns, sizeof userns);
	ns_of("mnt", mntns, sizeof mntns);
	cr_expect_str_neq(r.userns, userns, "a user namespace of its own");
	cr_expect_str_eq(r.mntns, mntns, "no folder to hide: the judge's mount namespace");
	cr_expect_eq(real, getuid() == 0 ? (uid_t)KJ_SANDBOX_REAL_UID : getuid(), "real user %d",
		     (int)real);
}

/* Limits of 0 set nothing: the bot keeps the judge's. */
Test(judge_rules, sandbox_limits_of_0_keep_the_judges, .timeout = 30)
{
	kj_bot bot;
	kj_limits lim = {.sandbox = 1};
	struct rlimit nproc, fsize;

	init_sandbox();
	set_up(&bot);
	cr_assert(getrlimit(RLIMIT_NPROC, &nproc) == 0 && getrlimit(RLIMIT_FSIZE, &fsize) == 0);
	report r = confined(&bot, &lim, NULL, 0, NULL);
	cr_assert_eq(r.entered, 0, "kj_sandbox_enter failed at %s: %s", r.step, strerror(r.enter_errno));
	cr_expect(r.nproc.rlim_cur == nproc.rlim_cur && r.nproc.rlim_max == nproc.rlim_max);
	cr_expect(r.fsize.rlim_cur == fsize.rlim_cur && r.fsize.rlim_max == fsize.rlim_max);
}

/* A bot's folder that holds folders to hide (kj_sandbox_hide): the bot
 * runs in a mount namespace of its own where each is an empty read-only
 * folder; a folder to hide elsewhere changes nothing for it; a bot whose
 * folder holds none stays in the judge's mount namespace. */
Test(judge_rules, sandbox_hides_the_folders_inside_a_bots_folder, .timeout = 30)
{
	kj_bot bot, plain;
	kj_limits lim = {.sandbox = 1, .procs = 64};
	char base[256], in1[600], out[600], in2[700], away[300], secret[700], mntns[64];

	test_tmpdir(base, sizeof base);
	memset(&bot, 0, sizeof bot);
	snprintf(bot.dir, sizeof bot.dir, "%s/outer", base);
	snprintf(in1, sizeof in1, "%s/inner", bot.dir);
	snprintf(out, sizeof out, "%s/out", bot.dir);
	snprintf(in2, sizeof in2, "%s/deeper", out);
	snprintf(away, sizeof away, "%s/away", base);
	cr_assert(mkdir(bot.dir, 0755) == 0 && mkdir(in1, 0755) == 0 && mkdir(away, 0755) == 0);
	cr_assert(mkdir(out, 0755) == 0 && mkdir(in2, 0755) == 0);
	snprintf(secret, sizeof secret, "%s/secret", in1);
	write_file(secret, "the inner bot's state\n", 0644);
	plain = bot;
	snprintf(plain.dir, sizeof plain.dir, "%s", away);
	/* the first one to hide is nested, and one that is not lies between */
	cr_assert(kj_sandbox_hide(in1) == 0 && kj_sandbox_hide(away) == 0 && kj_sandbox_hide(in2) == 0);
	cr_assert_eq(kj_sandbox_hide(in1), 0, "a folder noted twice");
	init_sandbox();
	static const check hidden[] = {{"read inner/secret", t_read, "inner/secret", ENOENT},
				 {"entries of inner (1 unconfined)", t_count, "inner", 0},
				 {"create in inner", t_create, "inner/new", EROFS},
				 {"create in out/deeper", t_create, "out/deeper/new", EROFS},
				 {"create in out", t_create, "out/new", 0}};
	report r = confined(&bot, &lim, hidden, sizeof hidden / sizeof hidden[0], NULL);
	cr_assert_eq(r.entered, 0, "kj_sandbox_enter failed at %s: %s", r.step, strerror(r.enter_errno));
	for (size_t i = 0; i < sizeof hidden / sizeof hidden[0]; i++)
		cr_expect_eq(r.got[i], hidden[i].want, "%s: %s", hidden[i].what, strerror(r.got[i]));
	ns_of("mnt", mntns, sizeof mntns);
	cr_expect_str_neq(r.mntns, mntns, "a mount namespace of its own");
	cr_expect_str_eq(test_read_file(NULL, secret), "the inner bot's state\n", "hidden, not removed");
	report p = confined(&plain, &lim, NULL, 0, NULL);
	cr_assert_eq(p.entered, 0, "%s", p.step);
	cr_expect_str_eq(p.mntns, mntns, "nothing to hide inside: the judge's mount namespace");
}

/* kj_sandbox_hide names a folder that is not there by -1 and errno. */
Test(judge_rules, sandbox_hide_of_a_missing_folder_fails, .timeout = 10)
{
	char base[512], path[600];

	test_tmpdir(base, sizeof base);
	snprintf(path, sizeof path, "%s/none", base);
	errno = 0;
	cr_assert_eq(kj_sandbox_hide(path), -1);
	cr_assert_eq(errno, ENOENT);
}


/* When layer_self_in_child hides a/b besides a: not, after a, before a. */
enum { NOT_NESTED, INNER_LAST, INNER_FIRST };

/* kj_sandbox_layer_self puts the secrets layer on the calling process
 * (its bots inherit it): after it the judge itself cannot read
 * /etc/shadow, yet reads /etc/passwd and its own files; its bots are
 * confined as before.  Not before kj_sandbox_init, nor when a folder to
 * hide lies inside another (the bots' mounts need the process free of
 * Landlock).  Root only: an unprivileged test cannot read /etc/shadow
 * anyway. */
static void layer_self_in_child(int nested, int init, int want_shadow)
{
	char base[512], a[600], b[700];
	pid_t pid;
	int st;

	test_tmpdir(base, sizeof base);
	snprintf(a, sizeof a, "%s/a", base);
	snprintf(b, sizeof b, "%s/a/b", base);
	cr_assert(mkdir(a, 0755) == 0 && mkdir(b, 0755) == 0);
	if (nested == INNER_FIRST)
		cr_assert_eq(kj_sandbox_hide(b), 0);
	cr_assert_eq(kj_sandbox_hide(a), 0);
	if (nested == INNER_LAST)
		cr_assert_eq(kj_sandbox_hide(b), 0);
	if (init)
		init_sandbox();
	if ((pid = fork()) == 0) {
		kj_sandbox_layer_self();
		kj_sandbox_layer_self(); /* cheap when repeated */
		_exit(t_read("/etc/shadow") != want_shadow ? 1 : t_read("/etc/passwd") ? 2 : 0);
	}
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st), "the child ended by a signal");
	cr_expect_neq(WEXITSTATUS(st), 1, "/etc/shadow: expected %s", want_shadow ? strerror(want_shadow) : "readable");
	cr_expect_neq(WEXITSTATUS(st), 2, "/etc/passwd not readable");
}

Test(judge_rules, sandbox_layer_self_hides_the_secrets_from_the_judge, .timeout = 30)
{
	if (geteuid() != 0 || access("/etc/shadow", R_OK) != 0)
		cr_skip_test("needs root and an /etc/shadow");
	layer_self_in_child(NOT_NESTED, 1, EACCES);
}

Test(judge_rules, sandbox_layer_self_does_nothing_with_nesting, .timeout = 30)
{
	if (geteuid() != 0 || access("/etc/shadow", R_OK) != 0)
		cr_skip_test("needs root and an /etc/shadow");
	layer_self_in_child(INNER_LAST, 1, 0);
}

/* The same when the folder inside the other is the first one hidden. */
Test(judge_rules, sandbox_layer_self_does_nothing_with_nesting_noted_first, .timeout = 30)
{
	if (geteuid() != 0 || access("/etc/shadow", R_OK) != 0)
		cr_skip_test("needs root and an /etc/shadow");
	layer_self_in_child(INNER_FIRST, 1, 0);
}

Test(judge_rules, sandbox_layer_self_does_nothing_before_init, .timeout = 30)
{
	if (geteuid() != 0 || access("/etc/shadow", R_OK) != 0)
		cr_skip_test("needs root and an /etc/shadow");
	layer_self_in_child(NOT_NESTED, 0, 0);
}

/* A bot started under a judge that put the secrets layer on itself is
 * confined as one started by a judge that did not. */
/* A confined child under every rule of sandbox.h (the judge layered
 * first when layer_self) must be held by each, as when confined alone. */
static void every_rule_holds(int layer_self)
{
	kj_bot bot;
	kj_limits lim = {.sandbox = 1, .procs = 64, .file_mb = 1};

	init_sandbox();
	set_up(&bot);
	set_up_sockets();
	outside_paths();
	if (layer_self)
		kj_sandbox_layer_self();
	report r = confined(&bot, &lim, rules, NRULES, NULL);
	cr_assert_eq(r.entered, 0, "kj_sandbox_enter failed at %s: %s", r.step, strerror(r.enter_errno));
	for (size_t i = 0; i < NRULES; i++)
		if (!system_file_missing(rules[i].arg))
			cr_expect_eq(r.got[i], rules[i].want, "%s: got %s", rules[i].what,
				     r.got[i] ? strerror(r.got[i]) : "allowed");
}

Test(judge_rules, sandbox_bot_of_a_layered_judge_is_confined, .timeout = 30)
{
	every_rule_holds(1);
}

/* sandbox.h needs Landlock ABI 6 (Linux 6.12), whose
 * landlock_restrict_self takes no flags: a bot is confined there as
 * here (that kernel emulated in the child: flags refused with EINVAL). */
Test(judge_rules, sandbox_confines_where_restrict_self_takes_no_flags, .timeout = 30)
{
	ctx.abi6 = 1;
	every_rule_holds(0);
}

/* kj_sandbox_enter before kj_sandbox_init confines nothing and says so. */
Test(judge_rules, sandbox_enter_before_init_is_refused, .timeout = 10)
{
	kj_bot bot;
	kj_limits lim = {.sandbox = 1, .procs = 64, .file_mb = 1};

	set_up(&bot);
	report r = confined(&bot, &lim, NULL, 0, NULL);
	cr_expect_eq(r.entered, -1);
	cr_expect_eq(r.enter_errno, EINVAL);
	cr_expect_str_eq(r.step, "kj_sandbox_init not called");
	cr_expect_eq(r.no_new_privs, 0, "nothing done");
}

/* kj_sandbox_may_run: below one of the system folders or the bot's own,
 * a folder boundary being a '/' (not a longer name). */
Test(judge_rules, sandbox_may_run_the_system_folders_and_its_own, .timeout = 10)
{
	static const struct {
		const char *path;
		int may;
	} paths[] = {
		{"/usr/bin/python3", 1}, {"/bin/sh", 1}, {"/sbin/x", 1}, {"/lib/x", 1},
		{"/lib32/x", 1}, {"/lib64/ld.so", 1}, {"/libx32/x", 1}, {"/opt/tool/bin/x", 1},
		{"/etc/alternatives/python", 1}, {"/usr", 1}, {"/usr2/bin/x", 0}, {"/us", 0},
		{"/binaries/x", 0}, {"/home/u/.pyenv/shims/python3", 0}, {"/tmp/x", 0},
		{"/srv/bots/b/run", 1}, {"/srv/bots/b", 1}, {"/srv/bots/bb/run", 0},
		{"/srv/bots/run", 0}, {"/", 0}, {"", 0}};
	kj_bot bot = {.dir = "/srv/bots/b"};

	for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
		cr_expect_eq(kj_sandbox_may_run(&bot, paths[i].path), paths[i].may, "%s", paths[i].path);
}

/* Fault injection for kj_sandbox_init: a seccomp filter on this process
 * that fails openat with err when its folder descriptor is AT_FDCWD (at_cwd
 * 1) or another (0), and its flags hold every bit of set and none of
 * clear; or, with nr = SYS_newfstatat, every fstat. */
static void fail_calls(long nr, int at_cwd, unsigned set, unsigned clear, int err)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 6),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)AT_FDCWD, at_cwd ? 0 : 4, at_cwd ? 4 : 0),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])),
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, set | clear),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, set, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (unsigned)err),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
	struct sock_filter any[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (unsigned)err),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
	struct sock_fprog prog = {sizeof code / sizeof *code, code};

	if (nr != SYS_openat)
		prog = (struct sock_fprog){sizeof any / sizeof *any, any};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		_exit(100);
}

/* The outcomes of kj_sandbox_init in a child whose calls fail as
 * fail_calls says: its status and message. */
typedef struct init_outcome {
	int rc;
	char msg[512];
} init_outcome;

static void fail_open_of(long nr, const char *path, unsigned flags, int err);
static int fail_nth;

/* The fault a child injects before kj_sandbox_init: by folder descriptor
 * and flags (fail_calls, descriptor 0 then closed), or by path or count
 * (fail_open_of). */
typedef struct fault {
	long nr;
	int by_flags, at_cwd, err;
	unsigned set, clear;  /* by_flags */
	const char *path;     /* else: this path with flags, or (NULL) the flags-th call */
	unsigned flags;
} fault;

static init_outcome init_with(const fault *f)
{
	init_outcome o = {0, ""};
	int fds[2], st;

	cr_assert_eq(pipe(fds), 0);
	pid_t pid = fork();
	if (pid == 0) {
		kb_err e = {{0}};
		close(fds[0]);
		if (f->by_flags) {
			fail_calls(f->nr, f->at_cwd, f->set, f->clear, f->err);
			close(0); /* the first descriptor opened is 0: a valid one */
		} else {
			fail_nth = (int)f->flags;
			fail_open_of(f->nr, f->path, f->flags, f->err);
		}
		o.rc = kj_sandbox_init(&e);
		snprintf(o.msg, sizeof o.msg, "%s", o.rc ? e.msg : "");
		_exit(test_write_all(fds[1], &o, sizeof o) ? 1 : 0);
	}
	close(fds[1]);
	cr_assert_eq(read(fds[0], &o, sizeof o), (ssize_t)sizeof o, "no outcome from the child");
	close(fds[0]);
	cr_assert(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	return o;
}

static init_outcome init_failing(long nr, int at_cwd, unsigned set, unsigned clear, int err)
{
	fault f = {.nr = nr, .by_flags = 1, .at_cwd = at_cwd, .err = err, .set = set, .clear = clear};

	return init_with(&f);
}

/* Where kj_sandbox_init opens what (sandbox.c): keep opens each system
 * path by its name (AT_FDCWD, O_PATH, no O_DIRECTORY), layer 1 lists /
 * and the folders of /etc that hold a secret (opendir: O_DIRECTORY, not
 * O_PATH) and opens each entry in its folder (another descriptor,
 * O_PATH). */
static const struct {
	const char *what;
	int at_cwd;
	unsigned set, clear;
} opens[] = {{"a system path", 1, O_PATH, O_DIRECTORY},
	     {"a folder to list", 1, O_DIRECTORY, O_PATH},
	     {"a folder's entry", 0, O_PATH, 0}};

/* A system path, folder or entry that is not there, or not the judge's to
 * see, is left out: the bots are confined without it. */
Test(judge_rules, sandbox_init_leaves_out_what_is_not_there, .timeout = 30)
{
	static const int missing[] = {ENOENT, ENOTDIR, ELOOP, EACCES};

	if (landlock_abi() < KJ_SANDBOX_MIN_ABI)
		cr_skip_test("this kernel has Landlock ABI %d", landlock_abi());
	for (size_t i = 0; i < sizeof opens / sizeof opens[0]; i++)
		for (size_t j = 0; j < sizeof missing / sizeof missing[0]; j++) {
			init_outcome o = init_failing(SYS_openat, opens[i].at_cwd, opens[i].set,
						      opens[i].clear, missing[j]);
			cr_expect_eq(o.rc, 0, "%s: %s: %s", opens[i].what, strerror(missing[j]), o.msg);
		}
}

/* Any other error there, or from fstat of a system path, refuses to
 * confine, naming the system folders and the error. */
Test(judge_rules, sandbox_init_names_a_system_folder_error, .timeout = 30)
{
	if (landlock_abi() < KJ_SANDBOX_MIN_ABI)
		cr_skip_test("this kernel has Landlock ABI %d", landlock_abi());
	for (size_t i = 0; i < sizeof opens / sizeof opens[0]; i++) {
		init_outcome o = init_failing(SYS_openat, opens[i].at_cwd, opens[i].set,
					      opens[i].clear, EMFILE);
		cr_expect_eq(o.rc, KJ_SANDBOX_SYSTEM, "%s: %d %s", opens[i].what, o.rc, o.msg);
		cr_expect_str_eq(o.msg, "cannot confine bots: system folders: Too many open files",
				 "%s", opens[i].what);
	}
	init_outcome o = init_failing(SYS_newfstatat, 0, 0, 0, EIO);
	cr_expect_eq(o.rc, KJ_SANDBOX_SYSTEM, "fstat: %d %s", o.rc, o.msg);
	cr_expect_str_eq(o.msg, "cannot confine bots: system folders: Input/output error");
}

/* Fault injection by path or by count: openat of exactly the path
 * fail_path (as the caller spells it) with every flag of fail_flags, or
 * (fail_path NULL) the fail_nth-th call of system call fail_nr, fails with
 * fail_err, in this process and its children (the probe).  A seccomp
 * filter hands every such call to a thread of this process, which reads
 * the path from the calling process and answers (seccomp's user
 * notification). */
static const char *fail_path;
static unsigned fail_flags;
static int fail_err, fail_nth, calls, notify_fd;

/* fail_err for the open that fail_path and fail_flags (or fail_nth)
 * name, else 0: the path read from the calling process. */
static int open_fault(const struct seccomp_notif *req, void *unused)
{
	char path[256] = "";
	struct iovec mine = {path, sizeof path - 1};
	struct iovec theirs = {(void *)(uintptr_t)req->data.args[1], sizeof path - 1};

	(void)unused;
	process_vm_readv((pid_t)req->pid, &mine, 1, &theirs, 1, 0);
	if (fail_path ? !strcmp(path, fail_path) && (req->data.args[2] & fail_flags) == fail_flags :
			++calls == fail_nth)
		return fail_err;
	return 0;
}

static void *answer_opens(void *unused)
{
	(void)unused;
	while (test_notif_answer(notify_fd, open_fault, NULL) == 0 || errno == EINTR || errno == ENOENT)
		;
	return NULL;
}

static void fail_open_of(long nr, const char *path, unsigned flags, int err)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
	struct sock_fprog prog = {sizeof code / sizeof *code, code};
	pthread_t answerer;

	fail_path = path, fail_flags = flags, fail_err = err;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    (notify_fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				      SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog)) < 0 ||
	    pthread_create(&answerer, NULL, answer_opens, NULL))
		_exit(100);
}

/* kj_sandbox_init in a child where opening path with flags (path NULL:
 * the flags-th call of system call nr) fails with err: its status and
 * message. */
static init_outcome init_failing_open(long nr, const char *path, unsigned flags, int err)
{
	fault f = {.nr = nr, .err = err, .path = path, .flags = flags};

	return init_with(&f);
}

/* Every path kj_sandbox_init opens: the system paths of layer 2 (by name,
 * O_PATH), the folders layer 1 lists (opendir: O_DIRECTORY), an entry of
 * /etc (opened in its folder by its name), and in the probe the bot's
 * folder and /proc/self.  A system path not there (ENOENT) is left out,
 * the bots are confined all the same; another error refuses, naming it.
 * The bot's folder must open; /proc/self is left out on any error (a
 * system without /proc). */
Test(judge_rules, sandbox_init_fails_on_an_error_at_any_system_path, .timeout = 60)
{
	static const char probe_msg[] = "cannot confine bots: landlock failed in a probe process (user "
					"namespaces or seccomp unavailable?); --sandbox off runs bots "
					"unconfined (trusted bots only)";
	static const char sys_msg[] = "cannot confine bots: system folders: Input/output error";
	static const struct {
		const char *path;
		unsigned flags;
		const char *eio, *enoent; /* the message for each error, "": none */
	} paths[] = {{"/usr", O_PATH, sys_msg, ""}, {"/etc", O_PATH, sys_msg, ""},
		     {"/dev/null", O_PATH, sys_msg, ""}, {"/dev/zero", O_PATH, sys_msg, ""},
		     {"/dev/random", O_PATH, sys_msg, ""}, {"/dev/urandom", O_PATH, sys_msg, ""},
		     {"/dev/full", O_PATH, sys_msg, ""}, {"/", O_DIRECTORY, sys_msg, ""},
		     {"/etc", O_DIRECTORY, sys_msg, ""}, {"/etc/security", O_DIRECTORY, sys_msg, ""},
		     {"passwd", O_PATH, sys_msg, ""}, {".", O_PATH, probe_msg, probe_msg},
		     {"/proc/self", O_PATH, "", ""}};

	if (landlock_abi() < KJ_SANDBOX_MIN_ABI)
		cr_skip_test("this kernel has Landlock ABI %d", landlock_abi());
	for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
		if (paths[i].path[0] == '/' && access(paths[i].path, F_OK))
			continue; /* not on this machine */
		for (int e = 0; e < 2; e++) {
			const char *want = e ? paths[i].enoent : paths[i].eio;
			init_outcome o = init_failing_open(SYS_openat, paths[i].path, paths[i].flags,
							   e ? ENOENT : EIO);
			cr_expect_eq(o.rc, !*want ? 0 : want == sys_msg ? KJ_SANDBOX_SYSTEM :
				     KJ_SANDBOX_UNSUPPORTED, "%s, %s: %d %s", paths[i].path,
				     e ? "ENOENT" : "EIO", o.rc, o.msg);
			cr_expect_str_eq(o.msg, want, "%s, %s", paths[i].path, e ? "ENOENT" : "EIO");
		}
	}
}

/* A step of kj_sandbox_enter that fails makes it fail, naming the step
 * and keeping the call's error (here injected by a seccomp filter in the
 * bot's process, after kj_sandbox_init). */
Test(judge_rules, sandbox_enter_names_the_step_that_failed, .timeout = 30)
{
	static const struct {
		long nr;
		int argi, arg, err;
		const char *step;
	} steps[] = {{SYS_setresuid, 0, -1, EAGAIN, "setresuid"},
		     {SYS_unshare, 0, -1, EPERM, "unshare(CLONE_NEWUSER)"},
		     {SYS_prlimit64, 1, RLIMIT_NPROC, EPERM, "setrlimit"},
		     {SYS_prlimit64, 1, RLIMIT_FSIZE, EINVAL, "setrlimit"},
		     {SYS_prctl, 0, PR_SET_NO_NEW_PRIVS, EINVAL, "prctl(PR_SET_NO_NEW_PRIVS)"},
		     {SYS_landlock_create_ruleset, 0, -1, ENOMEM, "landlock"},
		     {SYS_landlock_add_rule, 0, -1, ENOMEM, "landlock"},
		     {SYS_landlock_restrict_self, 0, -1, E2BIG, "landlock"},
		     {SYS_prctl, 0, PR_SET_SECCOMP, EFAULT, "seccomp"}};
	kj_bot bot;
	kj_limits lim = {.sandbox = 1, .procs = 64, .file_mb = 1};

	init_sandbox();
	set_up(&bot);
	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		if (steps[i].nr == SYS_setresuid && getuid() != 0)
			continue; /* only a root judge changes its bots' real user */
		ctx.fail_nr = steps[i].nr, ctx.fail_argi = steps[i].argi, ctx.fail_arg = steps[i].arg;
		ctx.fail_err = steps[i].err;
		report r = confined(&bot, &lim, NULL, 0, NULL);
		cr_expect_eq(r.entered, -1, "%s", steps[i].step);
		cr_expect_str_eq(r.step, steps[i].step);
		cr_expect_eq(r.enter_errno, steps[i].err, "%s: %s", steps[i].step, strerror(r.enter_errno));
	}
}

/* The probe of kj_sandbox_init names each of the steps that can fail in
 * it (made to fail in the probe by a seccomp filter; the landlock step
 * by landlock_restrict_self, as init itself asks the ABI through
 * landlock_create_ruleset); after a failed probe kj_sandbox_enter
 * refuses to confine. */
Test(judge_rules, sandbox_probe_names_the_step_that_failed, .timeout = 30)
{
	static const struct {
		long nr;
		int argi, arg;
		const char *step;
	} steps[] = {{SYS_setresuid, 0, -1, "setresuid"},
		     {SYS_unshare, 0, -1, "unshare(CLONE_NEWUSER)"},
		     {SYS_prlimit64, 1, RLIMIT_FSIZE, "setrlimit"},
		     {SYS_prctl, 0, PR_SET_NO_NEW_PRIVS, "prctl(PR_SET_NO_NEW_PRIVS)"},
		     {SYS_landlock_restrict_self, 0, -1, "landlock"},
		     {SYS_prctl, 0, PR_SET_SECCOMP, "seccomp"}};
	char want[300];

	if (landlock_abi() < KJ_SANDBOX_MIN_ABI)
		cr_skip_test("this kernel has Landlock ABI %d", landlock_abi());
	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		int fds[2], st;
		if (steps[i].nr == SYS_setresuid && getuid() != 0)
			continue; /* only a root judge changes its bots' real user */
		cr_assert_eq(pipe(fds), 0);
		pid_t pid = fork();
		if (pid == 0) { /* init in a child: the filter cannot be removed */
			kb_err e = {{0}};
			kj_bot bot = {.cmd = ""};
			kj_limits lim = {.sandbox = 1};
			report r;
			init_outcome o;
			const char *step = "";
			fail_call(steps[i].nr, steps[i].argi, steps[i].arg, EPERM);
			o.rc = kj_sandbox_init(&e);
			snprintf(o.msg, sizeof o.msg, "%s", e.msg);
			memset(&r, 0, sizeof r);
			r.entered = kj_sandbox_enter(&bot, &lim, &step);
			snprintf(r.step, sizeof r.step, "%s", step);
			_exit(test_write_all(fds[1], &o, sizeof o) || test_write_all(fds[1], &r, sizeof r));
		}
		close(fds[1]);
		init_outcome o;
		report r;
		cr_assert_eq(read(fds[0], &o, sizeof o), (ssize_t)sizeof o);
		cr_assert_eq(read(fds[0], &r, sizeof r), (ssize_t)sizeof r);
		close(fds[0]);
		cr_assert(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
		snprintf(want, sizeof want, "cannot confine bots: %s failed in a probe process (user "
			 "namespaces or seccomp unavailable?); --sandbox off runs bots unconfined "
			 "(trusted bots only)", steps[i].step);
		cr_expect_eq(o.rc, KJ_SANDBOX_UNSUPPORTED, "%s", steps[i].step);
		cr_expect_str_eq(o.msg, want);
		cr_expect_eq(r.entered, -1, "%s: kj_sandbox_enter after a failed probe", steps[i].step);
		cr_expect_str_eq(r.step, "kj_sandbox_init not called");
	}
}

/* One fstat failing, the first (of /usr, a system path kept for layer 2),
 * refuses as every fstat failing does: the path is not left out. */
Test(judge_rules, sandbox_init_fails_on_one_failing_fstat, .timeout = 30)
{
	if (landlock_abi() < KJ_SANDBOX_MIN_ABI)
		cr_skip_test("this kernel has Landlock ABI %d", landlock_abi());
	init_outcome o = init_failing_open(SYS_newfstatat, NULL, 1, EIO);
	cr_expect_eq(o.rc, KJ_SANDBOX_SYSTEM, "%d %s", o.rc, o.msg);
	cr_expect_str_eq(o.msg, "cannot confine bots: system folders: Input/output error");
}

/* The rule for the bot's command file (a path outside its folder): a
 * folder named as the command is no error (its exec fails later, as it
 * would unconfined), nor is a rule the kernel calls invalid (EINVAL);
 * any other error adding it fails the landlock step.  The rule is the
 * second landlock_add_rule of the bot's own after the system paths (the
 * bot's folder first), counted here as the paths there are. */
Test(judge_rules, sandbox_command_rule_errors, .timeout = 30)
{
	static const char *const kept[] = {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
					   "/opt", "/etc", "/dev/null", "/dev/zero", "/dev/random",
					   "/dev/urandom", "/dev/full"};
	kj_bot bot;
	kj_limits lim = {.sandbox = 1, .procs = 64};
	int nsys = 0;

	init_sandbox();
	set_up(&bot);
	snprintf(bot.cmd, sizeof bot.cmd, "%s", ctx.sib); /* a folder */
	report r = confined(&bot, &lim, NULL, 0, NULL);
	cr_expect_eq(r.entered, 0, "a folder as the command: %s %s", r.step, strerror(r.enter_errno));
	for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++)
		nsys += access(kept[i], F_OK) == 0;
	snprintf(bot.cmd, sizeof bot.cmd, "%s", ctx.cmd);
	fail_nth = nsys + 2;
	fail_open_of(SYS_landlock_add_rule, NULL, 0, EINVAL);
	r = confined(&bot, &lim, NULL, 0, NULL);
	cr_expect_eq(calls, nsys + 3, "the rules added: the system paths, the folder, the command, /proc/self");
	cr_expect_eq(r.entered, 0, "EINVAL: %s %s", r.step, strerror(r.enter_errno));
	calls = 0, fail_err = ENOMEM;
	r = confined(&bot, &lim, NULL, 0, NULL);
	cr_expect_eq(r.entered, -1, "ENOMEM");
	cr_expect_str_eq(r.step, "landlock");
	cr_expect_eq(r.enter_errno, ENOMEM, "%s", strerror(r.enter_errno));
}

/* Take every block malloc has left under the address-space limit of
 * test_limit_memory, of every size up to 4 KiB (its caches keep blocks
 * of each size apart); returns them as a list to give back. */
static void *exhaust_memory(void)
{
	void *list = NULL, *block;

	for (size_t size = 4096; size >= 8; size -= size > 256 ? 256 : 8)
		while ((block = malloc(size))) {
			*(void **)block = list;
			list = block;
		}
	return list;
}

static void give_back(void *list)
{
	while (list) {
		void *next = *(void **)list;
		free(list);
		list = next;
	}
}

/* kj_sandbox_hide out of memory fails with ENOMEM, whether the list of
 * folders cannot grow (three names fill its first block: a fourth needs
 * another) or the copy of the name cannot be made (a second name fits the
 * block the first one took). */
Test(judge_rules, sandbox_hide_out_of_memory_fails, .timeout = 30)
{
	char base[256], path[4][300];

#ifdef __SANITIZE_ADDRESS__
	cr_skip_test("ASan's allocator does not return NULL");
#endif
	test_tmpdir(base, sizeof base);
	for (int i = 0; i < 4; i++) {
		snprintf(path[i], sizeof path[i], "%s/d%d", base, i);
		cr_assert_eq(mkdir(path[i], 0755), 0);
	}
	for (int round = 0; round < 2; round++) {
		pid_t pid = fork();
		cr_assert_geq(pid, 0);
		if (pid == 0) { /* the limit in a child: the test's process goes on */
			int first = round ? 3 : 1, rc;
			for (int i = 0; i < first; i++)
				if (kj_sandbox_hide(path[i]))
					_exit(10);
			test_limit_memory(0);
			void *taken = exhaust_memory();
			errno = 0;
			rc = kj_sandbox_hide(path[first]);
			int e = errno;
			give_back(taken);
			_exit(rc == -1 && e == ENOMEM ? 0 : rc == 0 ? 11 : 12);
		}
		int st;
		cr_assert_eq(waitpid(pid, &st, 0), pid);
		cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status %d",
			  round ? "the list full" : "the copy", WEXITSTATUS(st));
	}
}

/* A probe killed by a signal (here SIGSYS from a seccomp filter that kills
 * at unshare) names no step: "a confined probe". */
Test(judge_rules, sandbox_probe_killed_names_no_step, .timeout = 30)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_unshare, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
	struct sock_fprog prog = {sizeof code / sizeof *code, code};
	kb_err err = {{0}};

	if (landlock_abi() < KJ_SANDBOX_MIN_ABI)
		cr_skip_test("this kernel has Landlock ABI %d", landlock_abi());
	cr_assert(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
		  prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0);
	cr_assert_eq(kj_sandbox_init(&err), KJ_SANDBOX_UNSUPPORTED, "%s", err.msg);
	cr_assert_str_eq(err.msg, "cannot confine bots: a confined probe failed in a probe process "
			 "(user namespaces or seccomp unavailable?); --sandbox off runs bots "
			 "unconfined (trusted bots only)");
}
