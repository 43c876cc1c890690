/* support.c - helpers shared by the test files; see support.h. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <lmdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/game.h"
#include "core/model.h"
#include "core/net.h"
#include "core/policy.h"
#include "core/store.h"
#include "support.h"

static void set_seat(kb_pos *pos, int s, const char *spec)
{
	int n = 0;
	char *end;

	for (const char *p = spec; p && *p && n < KB_PIECES; p = end) {
		long v = strtol(p, &end, 10);
		if (end == p)
			break;
		pos->prog[s][n++] = (int8_t)v;
	}
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && pos->prog[s][j - 1] < pos->prog[s][j]; j--) {
			int8_t t = pos->prog[s][j];
			pos->prog[s][j] = pos->prog[s][j - 1];
			pos->prog[s][j - 1] = t;
		}
}

void test_model_sure_of(kb_model *m, int c)
{
	kb_model_prior(m);
	memset(m->weight, 0, sizeof m->weight);
	m->weight[c] = 1;
}

kb_pos test_pos(unsigned present, const char *a, const char *b, const char *c, const char *d)
{
	kb_pos pos;
	const char *spec[4] = {a, b, c, d};

	kb_pos_init(&pos, present);
	for (int s = 0; s < 4; s++)
		set_seat(&pos, s, spec[s]);
	return pos;
}

const int test_square_cell[44][2] = {
	{4, 4}, {4, 5}, {4, 6}, {4, 7}, {4, 8}, {4, 9}, {4, 10}, {4, 11},
	{5, 11}, {6, 11}, {7, 11}, {8, 11}, {9, 11}, {10, 11},
	{11, 11}, {11, 10}, {11, 9}, {11, 8}, {11, 7}, {11, 6}, {11, 5}, {11, 4},
	{10, 4}, {9, 4}, {8, 4}, {7, 4}, {6, 4}, {5, 4},
	{3, 3}, {2, 2}, {1, 1}, {0, 0},
	{3, 12}, {2, 13}, {1, 14}, {0, 15},
	{12, 12}, {13, 13}, {14, 14}, {15, 15},
	{12, 3}, {13, 2}, {14, 1}, {15, 0}};

const char *test_bin(const char *prog, char *buf, size_t size)
{
	const char *dir = getenv("KB_BIN");
	snprintf(buf, size, "%s/%s", dir ? dir : "bin", prog);
	return buf;
}

const char *test_root_path(const char *rel, char *buf, size_t size)
{
	const char *root = getenv("KB_ROOT");
	snprintf(buf, size, "%s/%s", root ? root : ".", rel);
	return buf;
}

void test_write_file(const char *path, const char *fmt, ...)
{
	FILE *f = fopen(path, "w");
	va_list ap;

	cr_assert_not_null(f, "cannot write %s", path);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	cr_assert_eq(fclose(f), 0, "cannot write %s", path);
}

const char *test_read_file(const char *dir, const char *name)
{
	static char buf[1 << 18];
	char path[1024];
	FILE *f;
	size_t n = 0;

	if (dir)
		snprintf(path, sizeof path, "%s/%s", dir, name);
	else
		snprintf(path, sizeof path, "%s", name);
	if ((f = fopen(path, "r"))) {
		n = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

int test_count(const char *text, const char *needle)
{
	int n = 0;

	for (const char *at = text; (at = strstr(at, needle)); at += strlen(needle))
		n++;
	return n;
}

char *test_slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	size_t len = 0, cap = 0, got;

	if (!f)
		return NULL;
	do {
		if (len + 65536 + 1 > cap) {
			char *more = realloc(text, cap = 2 * cap + 65536 + 1);
			if (!more) {
				free(text);
				fclose(f);
				return NULL;
			}
			text = more;
		}
		got = fread(text + len, 1, cap - len - 1, f);
		len += got;
	} while (got > 0);
	fclose(f);
	text[len] = '\0';
	return text;
}

/* The folders test_tmpdir made in this process, removed when it exits
 * (not in its forked children, which share the list). */
#define MAX_TMPDIRS 16
static char tmpdirs[MAX_TMPDIRS][512];
static int ntmpdirs;
static pid_t tmpdir_owner;

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	remove(path);
	return 0;
}

static void remove_tmpdirs(void)
{
	if (getpid() != tmpdir_owner || getenv("KB_KEEP_TMP"))
		return;
	for (int i = 0; i < ntmpdirs; i++)
		nftw(tmpdirs[i], remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

const char *test_tmpdir(char *buf, size_t size)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(buf, size, "%s/kimble-test-XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(buf)) {
		perror("mkdtemp");
		abort();
	}
	if (ntmpdirs < MAX_TMPDIRS && strlen(buf) < sizeof tmpdirs[0]) {
		if (ntmpdirs == 0) {
			tmpdir_owner = getpid();
			atexit(remove_tmpdirs);
		}
		strcpy(tmpdirs[ntmpdirs++], buf);
	}
	return buf;
}

void test_drop_root(const char *dir)
{
	if (geteuid() != 0)
		return;
	if (chmod(dir, 0777) != 0 || setgroups(0, NULL) != 0 || setgid(65534) != 0 ||
	    setuid(65534) != 0) {
		perror("test_drop_root");
		abort();
	}
}

int test_seccomp_one(long nr, unsigned action, unsigned flags)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, action),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
	struct sock_fprog prog = {sizeof code / sizeof *code, code};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
}

void test_fail_syscall(long nr, int err)
{
	cr_assert(test_seccomp_one(nr, SECCOMP_RET_ERRNO | ((unsigned)err & SECCOMP_RET_DATA), 0) >= 0);
}

int test_notif_answer(int listener, int (*decide)(const struct seccomp_notif *req, void *ctx), void *ctx)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp = {0};

	memset(&req, 0, sizeof req);
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req))
		return -1;
	resp.id = req.id;
	resp.error = -decide(&req, ctx);
	if (!resp.error)
		resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	return 0;
}

/* What test_run_failing fails: calls whose first argument is a
 * descriptor open on a path that holds part, with err. */
typedef struct path_fault {
	const char *part;
	int err;
} path_fault;

static int fails_on_path(const struct seccomp_notif *req, void *ctx)
{
	const path_fault *f = ctx;
	char link[64], target[PATH_MAX];

	snprintf(link, sizeof link, "/proc/%d/fd/%llu", (int)req->pid,
		 (unsigned long long)req->data.args[0]);
	ssize_t n = readlink(link, target, sizeof target - 1);
	target[n > 0 ? n : 0] = '\0';
	return strstr(target, f->part) ? f->err : 0;
}

/* The supervisor of test_run_failing: answers each call notified on
 * listener (fails_on_path) until prog ends; returns prog's exit status
 * (200 killed, 201 lost).  It must not make the call itself: the filter
 * holds it too.  A call that went away (its process killed) is passed. */
static int fail_calls_on(int listener, pid_t prog, const char *part, int err)
{
	int pidfd = (int)syscall(SYS_pidfd_open, prog, 0), status;
	struct pollfd pf[2] = {{.fd = listener, .events = POLLIN}, {.fd = pidfd, .events = POLLIN}};
	path_fault f = {part, err};

	while (pidfd >= 0 && poll(pf, 2, -1) > 0 && !(pf[1].revents & POLLIN))
		test_notif_answer(listener, fails_on_path, &f);
	if (waitpid(prog, &status, 0) != prog)
		return 201;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 200;
}

int test_run_failing(char *const argv[], long nr, const char *part, int err, const char *err_path)
{
	int status;
	pid_t kid = fork();

	cr_assert_geq(kid, 0);
	if (kid == 0) {
		int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int null = open("/dev/null", O_RDWR);
		if (fd < 0 || null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(fd, 2) < 0)
			_exit(100);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		int listener = test_seccomp_one(nr, SECCOMP_RET_USER_NOTIF,
						SECCOMP_FILTER_FLAG_NEW_LISTENER);
		if (listener < 0)
			_exit(101);
		pid_t prog = fork();
		if (prog == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			execv(argv[0], argv);
			_exit(102);
		}
		_exit(prog < 0 ? 103 : fail_calls_on(listener, prog, part, err));
	}
	cr_assert_eq(waitpid(kid, &status, 0), kid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void test_limit_memory(size_t extra)
{
#ifdef __SANITIZE_ADDRESS__
	cr_skip_test("ASan's allocator does not return NULL");
#endif
	volatile char stack[1 << 18];
	memset((char *)stack, 1, sizeof stack);
	unsigned long pages = 0;
	FILE *statm = fopen("/proc/self/statm", "r");
	cr_assert_not_null(statm);
	cr_assert_eq(fscanf(statm, "%lu", &pages), 1);
	fclose(statm);
	struct rlimit as = {.rlim_cur = pages * (unsigned long)sysconf(_SC_PAGESIZE) + extra};
	as.rlim_max = as.rlim_cur;
	cr_assert_eq(setrlimit(RLIMIT_AS, &as), 0);
}

int test_spawn(test_proc *p, char *const argv[], const char *cwd, int pipe_stdin,
	       int pipe_stdout, const char *err_path)
{
	int in[2] = {-1, -1}, out[2] = {-1, -1};

	if ((pipe_stdin && pipe2(in, O_CLOEXEC)) || (pipe_stdout && pipe2(out, O_CLOEXEC)))
		return -1;
	p->pid = fork();
	if (p->pid < 0)
		return -1;
	if (p->pid == 0) {
		/* A test that fails ends its process at once; its children go
		 * with it instead of living on and holding pipes open. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		int null = open("/dev/null", O_RDWR);
		dup2(pipe_stdin ? in[0] : null, 0);
		dup2(pipe_stdout ? out[1] : null, 1);
		if (err_path) {
			int e = open(err_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
			if (e >= 0)
				dup2(e, 2);
		}
		if (cwd && chdir(cwd) != 0)
			_exit(126);
		signal(SIGPIPE, SIG_DFL);
		execv(argv[0], argv);
		_exit(127);
	}
	if (pipe_stdin)
		close(in[0]);
	if (pipe_stdout)
		close(out[1]);
	p->in = pipe_stdin ? in[1] : -1;
	p->out = pipe_stdout ? out[0] : -1;
	return 0;
}

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

int test_wait(test_proc *p, int timeout_ms)
{
	long deadline = now_ms() + timeout_ms;
	int status;

	for (;;) {
		pid_t r = waitpid(p->pid, &status, WNOHANG);
		if (r == p->pid)
			break;
		if (r < 0)
			return -1;
		if (now_ms() >= deadline) {
			kill(p->pid, SIGKILL);
			waitpid(p->pid, &status, 0);
			status = -1;
			break;
		}
		poll(NULL, 0, 5); /* polling a child's exit, not synchronising */
	}
	if (p->in >= 0)
		close(p->in);
	if (p->out >= 0)
		close(p->out);
	p->in = p->out = -1;
	return status;
}

int test_run_status(char *const argv[], const char *cwd, const char *err_path, int timeout_ms)
{
	test_proc p;
	int status;

	cr_assert_eq(test_spawn(&p, argv, cwd, 0, 0, err_path), 0, "cannot start %s", argv[0]);
	status = test_wait(&p, timeout_ms);
	return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void test_kill(test_proc *p, int sig)
{
	kill(p->pid, sig);
}

void test_reader_init(test_reader *r, int fd)
{
	r->fd = fd;
	r->len = 0;
}

long test_getline(test_reader *r, char *line, size_t size, int timeout_ms)
{
	long deadline = now_ms() + timeout_ms;

	for (;;) {
		char *nl = memchr(r->buf, '\n', r->len);
		if (nl) {
			size_t n = (size_t)(nl - r->buf);
			size_t copy = n < size - 1 ? n : size - 1;
			memcpy(line, r->buf, copy);
			line[copy] = '\0';
			memmove(r->buf, nl + 1, r->len - n - 1);
			r->len -= n + 1;
			return (long)copy;
		}
		if (r->len == sizeof r->buf)
			return -1;
		long left = deadline - now_ms();
		if (left <= 0)
			return -2;
		struct pollfd pfd = {.fd = r->fd, .events = POLLIN};
		int ready = poll(&pfd, 1, (int)left);
		if (ready < 0 && errno != EINTR)
			return -1;
		if (ready <= 0)
			continue;
		ssize_t got = read(r->fd, r->buf + r->len, sizeof r->buf - r->len);
		if (got <= 0)
			return -1;
		r->len += (size_t)got;
	}
}

int test_write_all(int fd, const void *buf, size_t len)
{
	return kb_net_write_all(fd, buf, len);
}

int test_open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	cr_assert_not_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* Whether port on 127.0.0.1 can be bound now. */
static int port_bindable(int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int fd = socket(AF_INET, SOCK_STREAM, 0), ok;

	if (fd < 0)
		return 0;
	ok = bind(fd, (struct sockaddr *)&a, sizeof a) == 0;
	close(fd);
	return ok;
}

/* Why below 32768: a port that bind(0) hands out is one of the kernel's
 * ephemeral ports (ip_local_port_range, 32768-60999 by default), which
 * any connect() on the machine may take as its own end before the server
 * under test binds it; under the parallel suite a server test then failed
 * now and then.  Ports 20000-32767, spread by process and call, are
 * never handed out that way. */
#define TEST_PORT_FIRST 20000
#define TEST_PORTS 12768

int test_free_port(void)
{
	static unsigned calls;

	for (int tries = 0; tries < 1000; tries++) {
		unsigned k = (unsigned)getpid() * 2654435761u + calls++ * 40503u;
		int port = TEST_PORT_FIRST + (int)(k % TEST_PORTS);
		if (port_bindable(port))
			return port;
	}
	return -1;
}

int test_connect(int port, int timeout_ms)
{
	return test_connect_from(NULL, port, timeout_ms);
}

int test_connect_from(const char *src, int port, int timeout_ms)
{
	long deadline = now_ms() + timeout_ms;
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct sockaddr_in from = {.sin_family = AF_INET};

	if (src && inet_pton(AF_INET, src, &from.sin_addr) != 1)
		return -1;
	for (;;) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -1;
		if ((!src || bind(fd, (struct sockaddr *)&from, sizeof from) == 0) &&
		    connect(fd, (struct sockaddr *)&a, sizeof a) == 0)
			return fd;
		close(fd);
		if (now_ms() >= deadline)
			return -1;
		poll(NULL, 0, 10); /* the server is still starting */
	}
}

test_conn *test_conn_open(const char *src, int port, int timeout_ms)
{
	test_conn *c = malloc(sizeof *c);

	cr_assert_not_null(c);
	c->fd = test_connect_from(src, port, timeout_ms);
	cr_assert_geq(c->fd, 0, "connect to port %d from %s", port, src ? src : "any address");
	test_reader_init(&c->r, c->fd);
	return c;
}

void test_conn_close(test_conn *c)
{
	close(c->fd);
	free(c);
}

/* Criterion's runner keeps a few allocations of its own until exit, which
 * LeakSanitizer would report and fail the sanitizer run for.  Suppress
 * leaks allocated inside libcriterion only; ours are still reported. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libcriterion.so\n";
}

/* Store under name the statistics of n decisions of seat B playing pick
 * (A plays hard) in two-seat games. */
void test_store_player(const char *dir, const char *name, int n, test_pick pick, int arg)
{
	static const uint8_t ctl[KB_SEATS] = {KB_EXTERNAL, KB_EXTERNAL, 0, 0};
	kb_store_add a;
	kb_store *st;
	kb_err err;
	kb_game g;
	int seen = 0;

	memset(&a, 0, sizeof a);
	for (uint64_t seed = 1; seen < n; seed++) {
		kb_game_init(&g, seed, ctl);
		while (seen < n && kb_game_advance(&g, NULL) >= 0) {
			unsigned mask = kb_game_pending_mask(&g);
			int s = g.pending_seat, idx = kb_pick_hard(mask);
			if (s == 1) {
				idx = pick(arg, seen, &g.pos, g.pending_die, mask);
				cr_assert_eq(kb_model_observe(&a.delta.model, &g.pos, 1, g.pending_die, mask, idx), 0);
				seen++;
			}
			kb_game_decide(&g, idx, NULL);
		}
	}
	cr_assert_eq(kb_store_open(&st, dir, KB_STORE_CREATE, NULL, &err), 0, "%s", err.msg);
	a.name = name, a.opponent = 1, a.delta.games = 3;
	cr_assert_eq(kb_store_apply(st, &a, 1, NULL, &err), 0, "%s", err.msg);
	kb_store_close(st);
}

static int rule_pick(int r, int nth, const kb_pos *pos, int die, unsigned mask)
{
	(void)nth;
	return kb_rule_pick((enum kb_rule)r, pos, 1, die, mask);
}

void test_store_decisions(const char *dir, const char *name, int r, int n)
{
	test_store_player(dir, name, n, rule_pick, r);
}

void test_lmdb_put(const char *dir, const test_record *rec, size_t n)
{
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;

	cr_assert_eq(mdb_env_create(&env), 0);
	cr_assert_eq(mdb_env_open(env, dir, 0, 0644), 0, "%s", dir);
	cr_assert_eq(mdb_txn_begin(env, NULL, 0, &txn), 0);
	cr_assert_eq(mdb_dbi_open(txn, NULL, 0, &dbi), 0);
	for (size_t i = 0; i < n; i++) {
		MDB_val k = {strlen(rec[i].key), (void *)rec[i].key}, v = {rec[i].len, (void *)rec[i].val};
		cr_assert_eq(mdb_put(txn, dbi, &k, &v, 0), 0, "%s", rec[i].key);
	}
	cr_assert_eq(mdb_txn_commit(txn), 0);
	mdb_env_close(env);
}
