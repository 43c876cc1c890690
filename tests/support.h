/* support.h - helpers shared by the test files: hand-written positions,
 * paths of the programs under test, child processes with pipes, line
 * reading with deadlines, loopback ports and private temporary folders.
 * Every helper that waits takes a timeout, so no test can hang. */
#ifndef KB_TEST_SUPPORT_H
#define KB_TEST_SUPPORT_H

#include <stddef.h>
#include <sys/types.h>

#include "core/rules.h"

/* Position with the given present mask; pieces of seat s are given as a
 * string of progress values separated by spaces, e.g. "29 5" (the rest home). */
kb_pos test_pos(unsigned present, const char *a, const char *b, const char *c, const char *d);

/* Row and column of each board square in the pictures (the terminal's
 * cells and the SVG's grid, the layout of core/draw.h): the ring from A's
 * start at the top left clockwise, then A's, B's, C's and D's goal running
 * diagonally into their corners.  Written out by hand. */
extern const int test_square_cell[44][2];

/* The prior model made sure of one component c (enum kb_component): its
 * weight 1, the others 0. */
struct kb_model;
void test_model_sure_of(struct kb_model *m, int c);

/* Path of a program built for this test run: $KB_BIN/prog (bin/ if unset). */
const char *test_bin(const char *prog, char *buf, size_t size);

/* Path below the repository root: $KB_ROOT/rel ("." if unset). */
const char *test_root_path(const char *rel, char *buf, size_t size);

/* File path, created or emptied, holding the printf-style text; the test
 * fails if it cannot be written. */
void test_write_file(const char *path, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The text of file dir/name (dir NULL: name alone), NUL-terminated, in a
 * static buffer that the next call overwrites; at most 256 KiB are read,
 * and a missing file reads as "". */
const char *test_read_file(const char *dir, const char *name);

/* The whole text of file path, NUL-terminated and malloc'ed (free it), or
 * NULL when it cannot be read. */
char *test_slurp(const char *path);

/* How many times needle (not "") stands in text, not overlapping. */
int test_count(const char *text, const char *needle);

/* A fresh private folder under $TMPDIR (or /tmp); aborts the test on error.
 * Removed with its contents when the test's process exits, unless
 * KB_KEEP_TMP is set (to look at a failed test's files). */
const char *test_tmpdir(char *buf, size_t size);

/* Make file permissions bind this test process: when running as root,
 * open folder dir to everyone and switch to user and group nobody (65534)
 * for the rest of the test (each Criterion test is its own process, so
 * nothing else is affected).  Aborts the test if the switch fails. */
void test_drop_root(const char *dir);

/* Fault injection: from here on, system call nr (SYS_...) fails with
 * error err in this test process and the processes it starts (a seccomp
 * filter, which cannot be removed again). */
void test_fail_syscall(long nr, int err);

/* The seccomp filter under test_fail_syscall: system call nr gets action
 * (SECCOMP_RET_...), every other call is allowed, in this process and the
 * processes it starts; flags as for seccomp(2).  Returns what seccomp(2)
 * returns (the listener with SECCOMP_FILTER_FLAG_NEW_LISTENER), -1 on
 * error. */
int test_seccomp_one(long nr, unsigned action, unsigned flags);

/* Answer the next call notified on listener (a filter of action
 * SECCOMP_RET_USER_NOTIF): decide(req, ctx) returns an error number to
 * fail the call with, or 0 to let it through.  Returns 0, or -1 with errno
 * when no call was received (EINTR, or ENOENT: the caller went away). */
struct seccomp_notif;
int test_notif_answer(int listener, int (*decide)(const struct seccomp_notif *req, void *ctx), void *ctx);

/* Fault injection for a program: run argv (stdin and stdout /dev/null,
 * stderr to err_path) with every system call nr whose first argument is
 * a descriptor open on a path that holds part (readlink of /proc/PID/fd)
 * failing with error err, in the program and the processes it starts;
 * other calls go through.  Waits for the program (the test's timeout
 * bounds it); returns its exit status, 200 when killed by a signal,
 * 100-103 or 201 when it could not be run or followed. */
int test_run_failing(char *const argv[], long nr, const char *part, int err,
		     const char *err_path);

/* Limit this test process's address space to what it uses now plus extra
 * bytes (RLIMIT_AS), its stack grown by 256 KiB first (a limit would stop
 * it growing).  Skips the test under ASan, whose allocator aborts instead
 * of answering NULL. */
void test_limit_memory(size_t extra);

/* A key and value written past the store's API (test_lmdb_put). */
typedef struct test_record {
	const char *key;
	const void *val;
	size_t len;
} test_record;

/* Write the n records into the main database of the LMDB environment in
 * folder dir (made when new) with LMDB itself, one transaction: records
 * the store would never write.  No process may hold the environment. */
void test_lmdb_put(const char *dir, const test_record *rec, size_t n);

/* A child process: in writes its stdin, out reads its stdout (-1 if not
 * piped).  stderr goes to err_path when given, else is inherited. */
typedef struct test_proc {
	pid_t pid;
	int in, out;
} test_proc;

/* Start argv[0] (a path) with argv in folder cwd (NULL: ours).  Returns 0 or
 * -1.  pipe_stdin/pipe_stdout choose which ends are piped; the others are
 * /dev/null. */
int test_spawn(test_proc *p, char *const argv[], const char *cwd, int pipe_stdin,
	       int pipe_stdout, const char *err_path);

/* Wait up to timeout_ms for the child to exit; returns its wait status, or
 * -1 after killing it with SIGKILL when it did not exit in time. */
int test_wait(test_proc *p, int timeout_ms);

/* Run argv (stdin and stdout /dev/null, stderr to err_path or /dev/null)
 * in folder cwd and wait up to timeout_ms: its exit status, or -1 when it
 * did not exit (killed by a signal or by the timeout). */
int test_run_status(char *const argv[], const char *cwd, const char *err_path, int timeout_ms);

/* Send sig to the child (no wait). */
void test_kill(test_proc *p, int sig);

/* Buffered line reader on a file descriptor. */
typedef struct test_reader {
	int fd;
	size_t len;
	char buf[1 << 16];
} test_reader;

void test_reader_init(test_reader *r, int fd);

/* Read one line (without '\n') into line; returns its length, -1 on EOF or
 * error, -2 when timeout_ms passed without a whole line. */
long test_getline(test_reader *r, char *line, size_t size, int timeout_ms);

/* Write all of buf; returns 0 or -1. */
int test_write_all(int fd, const void *buf, size_t len);

/* How many descriptors this process has open (entries of /proc/self/fd,
 * the listing's own included): equal before and after code that must
 * close what it opens. */
int test_open_fds(void);

/* A TCP port on 127.0.0.1 that was free a moment ago, below the kernel's
 * ephemeral ports (support.c says why); -1 when none of 1000 tried was. */
int test_free_port(void);

/* Connect to 127.0.0.1:port, retrying up to timeout_ms while it is refused
 * (a server still starting).  Returns the socket or -1. */
int test_connect(int port, int timeout_ms);

/* The same from source address src (numeric IPv4, e.g. "127.0.0.2": all of
 * 127.0.0.0/8 is loopback on Linux), so that a test can be several
 * clients; NULL lets the kernel choose. */
int test_connect_from(const char *src, int port, int timeout_ms);

/* A line connection to a server: its socket and a reader on it. */
typedef struct test_conn {
	int fd;
	test_reader r;
} test_conn;

/* Connect (from src as test_connect_from) or fail the test; malloc'ed. */
test_conn *test_conn_open(const char *src, int port, int timeout_ms);
void test_conn_close(test_conn *c);

/* Store under name, in the store at dir (created if missing), the
 * statistics of n decisions of seat B playing rule r (enum kb_rule; A
 * plays hard) in two-seat games, as 3 games. */
void test_store_decisions(const char *dir, const char *name, int r, int n);

/* The same for a seat B that plays pick(arg, nth decision, position, die,
 * mask) (an index of mask). */
typedef int (*test_pick)(int arg, int nth, const kb_pos *pos, int die, unsigned mask);
void test_store_player(const char *dir, const char *name, int n, test_pick pick, int arg);

/* The next n dice of kb_rng_die are die, whatever the generator says
 * (tests/test_rule_bot.c's stand-in: the test binary is linked with
 * --wrap=kb_rng_die); then the generator's again. */
void test_fix_dice(long n, int die);

/* Fault injection (tests/test_rule_core_store.c defines the test binary's
 * mdb_cursor_open): while above 0, mdb_cursor_open fails with ENOMEM and
 * counts down. */
extern int failed_cursors;

#endif
