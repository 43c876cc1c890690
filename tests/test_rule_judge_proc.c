/* test_rule_judge_proc.c - the bot process module (judge/proc.h) on its
 * own, found by make mutate (docs/mutation.md): the write budget of a
 * confined bot (not started over it, counted at kj_proc_charge, at the
 * reap and for descendants that kj_proc_sweep reaps) and what a finished
 * bot leaves.  The bots are /bin/sh scripts that report on stdout after
 * each step, so the test waits on their lines, never on the clock.
 * Suite judge_rules. */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/err.h"
#include "judge/proc.h"
#include "judge/sandbox.h"
#include "support.h"

#define KIB 1024u
/* write_bytes counts whole pages dirtied, plus what the file system
 * writes for the files' metadata: a margin over the bytes written */
#define SLACK (64u * KIB)

/* A confined bot in a fresh folder of its own: /bin/sh -c script (the
 * judge appends the opponents and the seed, which become $0 and $1). */
static void sh_bot(kj_bot *b, const char *script, uint64_t *written)
{
	memset(b, 0, sizeof *b);
	snprintf(b->name, sizeof b->name, "sh");
	test_tmpdir(b->dir, sizeof b->dir);
	snprintf(b->cmd, sizeof b->cmd, "/bin/sh");
	snprintf(b->argbuf, sizeof b->argbuf, "-c");
	b->argv[0] = b->argbuf;
	b->argv[1] = (char *)script;
	b->argc = 2;
	b->written = written;
}

static const kj_limits confined_1mb = {.sandbox = 1, .procs = 64, .file_mb = 16, .write_mb = 1};
static const kj_limits unconfined = {0};

static void start(kj_proc *p, const kj_bot *b, const kj_limits *lim)
{
	kb_err err = {{0}};

	cr_assert_eq(kj_proc_start(p, b, "000", "1", NULL, lim, &err), 0, "%s", err.msg);
}

/* start, unconfined, with the bot's stderr echoed (KJ_ERR_ECHO). */
static void start_echoing(kj_proc *p, const kj_bot *b)
{
	kb_err err = {{0}};

	cr_assert_eq(kj_proc_start(p, b, "000", "1", KJ_ERR_ECHO, &unconfined, &err), 0, "%s", err.msg);
}

/* Wait for the bot's next line, which must be want. */
static void expect_line(kj_proc *p, const char *want)
{
	char *nl;

	while (!(nl = memchr(p->ibuf, '\n', p->ilen)))
		cr_assert_eq(kj_proc_pump(p, 30000), 1, "no line from the bot (wanted %s)", want);
	cr_assert_eq((size_t)(nl - p->ibuf), strlen(want), "%.*s", (int)(nl - p->ibuf), p->ibuf);
	cr_assert_eq(memcmp(p->ibuf, want, strlen(want)), 0, "%.*s", (int)(nl - p->ibuf), p->ibuf);
	kj_proc_consume(p, strlen(want) + 1);
}

/* Let the bot go on: a line on its stdin, flushed by the next pump. */
static void go_on(kj_proc *p)
{
	cr_assert_eq(kj_proc_send(p, "x\n", 2), 0);
}

static void expect_between(uint64_t got, uint64_t least, const char *what)
{
	cr_assert(got >= least && got < least + SLACK, "%s: %lu bytes, expected %lu to %lu", what,
		  (unsigned long)got, (unsigned long)least, (unsigned long)(least + SLACK));
}

/* "A bot over budget is not started again": a run total one byte over
 * the budget starts no process, a total at the budget still starts it,
 * and the start itself adds nothing.  Only confined bots have a budget. */
Test(judge_rules, proc_over_its_write_budget_is_not_started, .timeout = 60)
{
	uint64_t written = 1u << 20;
	kj_bot b;
	kj_proc p;

	sh_bot(&b, "read x; exit 7", &written);
	start(&p, &b, &confined_1mb);
	cr_assert_gt(p.pid, 0, "at its budget (not over it): started");
	cr_assert_eq(p.over_budget, 0);
	cr_assert_eq(kj_proc_charge(&p), 0, "it wrote nothing");
	cr_assert_eq(written, 1u << 20, "the start and the charge added nothing");
	written++; /* what its games in other workers wrote meanwhile */
	cr_assert_eq(kj_proc_charge(&p), 1, "over budget through its other games");
	cr_assert_eq(p.over_budget, 1);
	kj_proc_finish(&p, 5000);
	cr_assert_eq(written, (1u << 20) + 1, "the reap added nothing");
	cr_assert(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 7, "status %d", p.status);

	written = (1u << 20) + 1;
	start(&p, &b, &confined_1mb);
	cr_assert_eq(p.pid, 0, "over its budget: not started");
	cr_assert_eq(p.over_budget, 1);
	cr_assert_eq(p.in, -1);
	cr_assert_eq(p.out, -1);
	cr_assert_eq(kj_proc_charge(&p), 1, "still over");
	cr_assert_eq(written, (1u << 20) + 1);
	kj_proc_finish(&p, 0);

	kj_limits no_sandbox = confined_1mb;
	no_sandbox.sandbox = 0;
	start(&p, &b, &no_sandbox);
	cr_assert_gt(p.pid, 0, "unconfined: no budget");
	cr_assert_eq(p.over_budget, 0);
	cr_assert_null(p.written, "an unconfined bot's writes are not counted");
	kj_proc_finish(&p, 5000);
}

/* kj_proc_charge adds what the bot wrote since the last charge (twice
 * 100 KiB: 200 KiB, not 100 + 300), nothing when it wrote nothing, and
 * answers 1 once the total passes the budget; the reap of a bot that
 * wrote nothing since its last charge adds nothing. */
Test(judge_rules, proc_charge_adds_what_the_bot_wrote_since_the_last, .timeout = 60)
{
	static const char script[] =
		"head -c 102400 /dev/zero > a && echo one && read x && "
		"head -c 102400 /dev/zero > b && echo two && read x && "
		"head -c 1048576 /dev/zero > c && echo three && read x";
	uint64_t written = 0, total;
	kj_bot b;
	kj_proc p;

	sh_bot(&b, script, &written);
	start(&p, &b, &confined_1mb);
	expect_line(&p, "one");
	cr_assert_eq(kj_proc_charge(&p), 0);
	expect_between(written, 100 * KIB, "after the first file");
	cr_assert_eq(p.seen, written, "what was counted of the running process");
	total = written;
	cr_assert_eq(kj_proc_charge(&p), 0);
	cr_assert_eq(written, total, "nothing written since: nothing added");

	go_on(&p);
	expect_line(&p, "two");
	cr_assert_eq(kj_proc_charge(&p), 0);
	expect_between(written, 200 * KIB, "after the second file");
	cr_assert_eq(p.over_budget, 0);

	go_on(&p);
	expect_line(&p, "three");
	cr_assert_eq(kj_proc_charge(&p), 1, "over 1 MiB");
	cr_assert_eq(p.over_budget, 1);
	expect_between(written, 1224 * KIB, "after the third file");
	total = written;
	kj_proc_finish(&p, 5000);
	cr_assert_eq(p.pid, 0);
	cr_assert(WIFEXITED(p.status), "status %d", p.status);
	cr_assert_eq(written, total, "written nothing since the last charge: the reap adds nothing");
}

/* A bot never charged while it ran: its writes are counted when it is
 * reaped, its children's included; one charged while it ran: what it
 * wrote since. */
Test(judge_rules, proc_reap_counts_a_bots_writes, .timeout = 60)
{
	uint64_t written = 0;
	kj_bot b;
	kj_proc p;

	sh_bot(&b, "head -c 204800 /dev/zero > a && echo done && read x", &written);
	start(&p, &b, &confined_1mb);
	expect_line(&p, "done");
	cr_assert_eq(written, 0, "nothing counted before a charge or the reap");
	kj_proc_finish(&p, 5000);
	expect_between(written, 200 * KIB, "at the reap");
	cr_assert_eq(p.over_budget, 0);

	/* killed when its grace ran out (it does not exit): the same */
	written = 0;
	sh_bot(&b, "head -c 204800 /dev/zero > a && echo done && exec sleep 30", &written);
	start(&p, &b, &confined_1mb);
	expect_line(&p, "done");
	kj_proc_finish(&p, 0);
	expect_between(written, 200 * KIB, "at the reap of a bot killed");

	/* charged once while it ran: the reap adds only what came after */
	written = 0;
	sh_bot(&b, "head -c 102400 /dev/zero > a && echo one && read x && "
		   "head -c 102400 /dev/zero > b && echo two && read x", &written);
	start(&p, &b, &confined_1mb);
	expect_line(&p, "one");
	cr_assert_eq(kj_proc_charge(&p), 0);
	expect_between(written, 100 * KIB, "the charge");
	go_on(&p);
	expect_line(&p, "two");
	kj_proc_finish(&p, 5000);
	expect_between(written, 200 * KIB, "the charge and the reap");
}

/* A stand-in for stat(2) (for the whole test binary; it hands every
 * other call on): while failed_ns_stats is above 0, a look at a process's
 * user namespace (/proc/PID/ns/user) fails with ENOENT, as when it cannot
 * be had, and counts down. */
static int failed_ns_stats;

int stat(const char *restrict path, struct stat *restrict st)
{
	static int (*libc_stat)(const char *restrict, struct stat *restrict);
	size_t n = strlen(path);

	if (failed_ns_stats > 0 && n > 8 && strcmp(path + n - 8, "/ns/user") == 0) {
		failed_ns_stats--;
		errno = ENOENT;
		return -1;
	}
	if (!libc_stat)
		*(void **)&libc_stat = dlsym(RTLD_NEXT, "stat");
	return libc_stat(path, st);
}

/* A confined bot running script (/bin/sh), which leaves a child that
 * writes 100 KiB, says "kid" and sleeps; ns_unknown: the bot's user
 * namespace cannot be had at its start.  In a process that adopted what
 * its bots leave (kj_proc_adopt), the bot finished, kj_proc_sweep kills
 * and reaps that child and charges what it wrote to the bot (once: a
 * second sweep finds nothing). */
static void sweep_charges_the_child(const char *script, int ns_unknown)
{
	uint64_t written = 0;
	kj_bot b;
	kj_proc p, *ps[1] = {&p};

	kj_proc_adopt();
	sh_bot(&b, script, &written);
	failed_ns_stats = ns_unknown;
	start(&p, &b, &confined_1mb);
	cr_assert_eq(failed_ns_stats, 0, "the start did not look at the bot's namespace");
	cr_assert_eq(p.ns == 0, ns_unknown, "its namespace %lu", p.ns);
	expect_line(&p, "kid");
	kj_proc_finish(&p, 5000);
	cr_assert_eq(written, 0, "the bot itself wrote nothing");
	kj_proc_sweep(ps, 1);
	expect_between(written, 100 * KIB, "the child's file, at the sweep");
	errno = 0;
	cr_assert_eq(waitpid(-1, NULL, WNOHANG), -1, "no child left");
	cr_assert_eq(errno, ECHILD);
	kj_proc_sweep(ps, 1); /* nothing left: returns at once */
	expect_between(written, 100 * KIB, "a second sweep");
}

/* A child that leaves the bot's session and outlives it is killed and
 * reaped by kj_proc_sweep in a process that adopted it (kj_proc_adopt),
 * and what it wrote is charged to the bot it came from. */
Test(judge_rules, proc_sweep_reaps_and_charges_what_a_bot_left, .timeout = 60)
{
	static const char script[] =
		"setsid sh -c 'head -c 102400 /dev/zero > kid && echo kid && exec sleep 1000 > /dev/null' & "
		"read x";
	kj_bot b;
	kj_proc p, *ps[1] = {&p};

	sweep_charges_the_child(script, 0);

	/* unconfined, uncounted: the child left is still killed and reaped */
	sh_bot(&b, script, NULL);
	start(&p, &b, &unconfined);
	expect_line(&p, "kid");
	kj_proc_finish(&p, 5000);
	cr_assert_eq(waitpid(-1, NULL, WNOHANG), 0, "the child lives on after its bot");
	kj_proc_sweep(ps, 1);
	errno = 0;
	cr_assert_eq(waitpid(-1, NULL, WNOHANG), -1, "no child left");
	cr_assert_eq(errno, ECHILD);
}

/* A confined bot whose user namespace could not be had at its start:
 * what a child it left in its process group wrote is still charged to
 * it when kj_proc_sweep reaps that child (proc.h: the bot it came from by
 * its process group, or its user namespace); kj_proc_finish kills that
 * child with the bot's group. */
Test(judge_rules, proc_sweep_charges_a_child_by_its_process_group, .timeout = 60)
{
	sweep_charges_the_child("sh -c 'head -c 102400 /dev/zero > kid && echo kid && "
				"exec sleep 1000 > /dev/null' & read x", 1);
}

/* A bot that cannot be started (no process to be had) fails the start
 * with the bot's name and the system's error, and leaves nothing behind:
 * no descriptor open (its stderr's pipe neither, when echoed), no
 * process, the stop signals unblocked again. */
Test(judge_rules, proc_start_that_cannot_fork_leaves_nothing_open, .timeout = 30)
{
	kj_limits lim = {0};
	kb_err err = {{0}};
	sigset_t now;
	kj_bot b;
	kj_proc p;

	sh_bot(&b, "exit 0", NULL);
	int fds = test_open_fds();
	test_fail_syscall(SYS_vfork, EAGAIN); /* as when out of processes */
	for (int echo = 0; echo < 2; echo++) {
		cr_assert_eq(kj_proc_start(&p, &b, "000", "1", echo ? KJ_ERR_ECHO : NULL, &lim, &err), -1);
		cr_assert_str_eq(err.msg, "bot sh: cannot start: Resource temporarily unavailable");
		cr_assert_eq(p.pid, 0);
		cr_assert_eq(p.in, -1);
		cr_assert_eq(p.out, -1);
		cr_assert_eq(p.err, -1);
		cr_assert_eq(test_open_fds(), fds, "no descriptor left open (stderr %s)",
			     echo ? "echoed" : "to /dev/null");
	}
	cr_assert_eq(sigprocmask(SIG_BLOCK, NULL, &now), 0);
	cr_assert_eq(sigismember(&now, SIGINT), 0, "SIGINT blocked after the start");
	cr_assert_eq(sigismember(&now, SIGTERM), 0, "SIGTERM blocked after the start");
	kj_proc_finish(&p, 0); /* nothing to finish: returns at once */
	cr_assert_eq(p.pid, 0);
}


/* A bot that does not read yet: what the judge sends waits in its buffer
 * once the pipe is full (EAGAIN), with the pipe kept open, and arrives
 * whole when the bot reads.  The bot waits for a FIFO in its folder
 * before reading, so the pipe is full when the judge writes. */
Test(judge_rules, proc_input_waits_while_the_pipe_is_full, .timeout = 60)
{
	static char big[200000];
	char fifo[600], line[32];
	kj_bot b;
	kj_proc p;

	sh_bot(&b, "echo ready && read x < fifo && head -c 200000 | wc -c", NULL);
	snprintf(fifo, sizeof fifo, "%s/fifo", b.dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	start(&p, &b, &unconfined);
	expect_line(&p, "ready");
	memset(big, 'x', sizeof big);
	cr_assert_eq(kj_proc_send(&p, big, sizeof big), 0);
	cr_assert_eq(kj_proc_pump(&p, 0), 0, "nothing to read yet");
	cr_assert_geq(p.in, 0, "a full pipe is no closed one");
	cr_assert_gt(p.olen, 0, "the rest waits in the buffer");
	cr_assert_lt(p.olen, sizeof big, "the pipe took some");
	FILE *go = fopen(fifo, "w");
	cr_assert_not_null(go);
	fputs("go\n", go);
	fclose(go);
	snprintf(line, sizeof line, "%zu", sizeof big);
	expect_line(&p, line);
	cr_assert_eq(p.olen, 0);
	kj_proc_finish(&p, 5000);
}

/* kj_proc_consume drops the first n bytes of the input and keeps the
 * rest in order; n past the end drops everything. */
Test(judge_rules, proc_consume_drops_only_the_first_bytes)
{
	static kj_proc p;

	memcpy(p.ibuf, "one\ntwo\n", 8);
	p.ilen = 8;
	kj_proc_consume(&p, 4);
	cr_assert_eq(p.ilen, 4);
	cr_assert_eq(memcmp(p.ibuf, "two\n", 4), 0);
	kj_proc_consume(&p, 0);
	cr_assert_eq(p.ilen, 4);
	kj_proc_consume(&p, 5);
	cr_assert_eq(p.ilen, 0);
}

/* Once the bot has closed its stdin (the judge's write met EPIPE), what
 * is sent is dropped, not an error: kj_proc_send returns 0 and the bot is
 * judged on what it does, not on its input. */
Test(judge_rules, proc_send_to_a_closed_stdin_is_dropped, .timeout = 60)
{
	kj_bot b;
	kj_proc p;

	signal(SIGPIPE, SIG_IGN); /* as the judge (main.c) */
	sh_bot(&b, "exec 0<&-; echo closed; exec sleep 30", NULL);
	start(&p, &b, &unconfined);
	expect_line(&p, "closed");
	cr_assert_eq(kj_proc_send(&p, "x\n", 2), 0);
	cr_assert_eq(kj_proc_pump(&p, 0), 0);
	cr_assert_eq(p.in, -1, "EPIPE: the judge's end closed too");
	cr_assert_eq(p.olen, 0);
	cr_assert_eq(kj_proc_send(&p, "y\n", 2), 0, "dropped, no error");
	cr_assert_eq(p.olen, 0);
	kj_proc_finish(&p, 0);
}

/* Bytes this process holds from malloc, mapped blocks included. */
static size_t heap_in_use(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

/* A finished bot gives back what its start took (its output buffer of
 * KJ_OUTBUF bytes among it): bots started and finished one after another
 * hold no more memory. */
Test(judge_rules, proc_finished_bot_holds_no_memory, .timeout = 60)
{
	kj_bot b;
	kj_proc p;

	sh_bot(&b, "echo ready", NULL);
	start(&p, &b, &unconfined); /* the C library's first allocations */
	kj_proc_finish(&p, 5000);
	size_t before = heap_in_use();
	for (int i = 0; i < 3; i++) {
		start(&p, &b, &unconfined);
		expect_line(&p, "ready");
		kj_proc_finish(&p, 5000);
	}
	cr_assert_eq(heap_in_use(), before, "%zu bytes more", heap_in_use() - before);
}

/* Calls of poll() so far in this process (its stand-in in test_rule_bot.c). */
extern unsigned long test_poll_calls;

/* While a bot thinks, kj_proc_pump waits in poll for the bot's output (or
 * stderr, or room in a full stdin pipe), not on a stdin with nothing to
 * send, which is always writable: a wait of 100 ms is one or two polls,
 * with nothing to send and with more than the pipe takes. */
Test(judge_rules, proc_pump_waits_without_spinning, .timeout = 60)
{
	static char big[200000];
	kj_bot b;
	kj_proc p;

	sh_bot(&b, "echo ready; exec sleep 30", NULL);
	start_echoing(&p, &b);
	expect_line(&p, "ready");
	for (int full = 0; full < 2; full++) {
		if (full)
			cr_assert_eq(kj_proc_send(&p, big, sizeof big), 0);
		unsigned long before = test_poll_calls;
		cr_assert_eq(kj_proc_pump(&p, 100), 0, "nothing from the bot");
		cr_assert_leq(test_poll_calls - before, 2, "%lu polls in 100 ms (%s)", test_poll_calls - before,
			      full ? "stdin pipe full" : "nothing to send");
		cr_assert_eq(p.olen > 0, full);
	}
	kj_proc_finish(&p, 0);
}

/* A wait that fails (here poll refusing more descriptors than
 * RLIMIT_NOFILE allows, EINVAL) ends the pump with -1 (proc.h: an
 * error), at once, though the bot is still there and its time not up. */
Test(judge_rules, proc_pump_whose_wait_fails_returns_minus_1, .timeout = 60)
{
	struct rlimit saved, none;
	kj_bot b;
	kj_proc p;

	sh_bot(&b, "echo ready; read x", NULL);
	start(&p, &b, &unconfined);
	expect_line(&p, "ready");
	cr_assert_eq(getrlimit(RLIMIT_NOFILE, &saved), 0);
	none = saved;
	none.rlim_cur = 0; /* the descriptors open stay usable */
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &none), 0);
	int r = kj_proc_pump(&p, 30000);
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &saved), 0);
	cr_assert_eq(r, -1, "the pump returned %d", r);
	cr_assert_eq(p.eof, 0, "not the end of the bot's output");
	kj_proc_finish(&p, 5000);
}

/* A full input buffer (KJ_INBUF bytes unparsed) is the caller's to parse
 * or reject: kj_proc_pump returns 1 at once, without a poll (the bot's
 * further output, which cannot be read until the caller consumes, would
 * wake every poll at once), and the rest arrives whole once the caller
 * consumed. */
Test(judge_rules, proc_pump_with_a_full_input_buffer_returns_at_once, .timeout = 60)
{
	const size_t total = KJ_INBUF + 900;
	char script[128];
	kj_bot b;
	kj_proc p;

	snprintf(script, sizeof script, "head -c %zu /dev/zero | tr '\\0' x; echo; read x", total);
	sh_bot(&b, script, NULL);
	start(&p, &b, &unconfined);
	while (p.ilen < KJ_INBUF)
		cr_assert_eq(kj_proc_pump(&p, 30000), 1, "the bot's output ended at %zu bytes", p.ilen);
	cr_assert_eq(p.ilen, KJ_INBUF);
	unsigned long before = test_poll_calls;
	cr_assert_eq(kj_proc_pump(&p, 100), 1, "a full buffer is input for the caller");
	cr_assert_eq(test_poll_calls, before, "%lu polls with the buffer full", test_poll_calls - before);
	cr_assert_eq(p.ilen, KJ_INBUF);
	kj_proc_consume(&p, KJ_INBUF);
	while (!memchr(p.ibuf, '\n', p.ilen))
		cr_assert_eq(kj_proc_pump(&p, 30000), 1, "the rest did not arrive");
	cr_assert_eq(p.ilen, total - KJ_INBUF + 1, "%zu bytes after the first %d", p.ilen, KJ_INBUF);
	for (size_t i = 0; i + 1 < p.ilen; i++)
		cr_assert_eq(p.ibuf[i], 'x', "byte %zu", KJ_INBUF + i);
	go_on(&p);
	kj_proc_finish(&p, 5000);
	cr_assert(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0, "status %d", p.status);
}

/* A line the bot writes to stderr is echoed while the judge waits on the
 * bot's stdout: the pump wakes for it.  The echo goes to a FIFO that the
 * bot reads before it answers, so it answers only once its line was
 * echoed. */
Test(judge_rules, proc_pump_echoes_stderr_while_it_waits, .timeout = 60)
{
	char fifo[600];
	kj_bot b;
	kj_proc p;

	sh_bot(&b, "exec 3< echoed; echo ready; read x; echo thinking >&2; read seen <&3; "
	       "echo \"$seen\"; exec sleep 30", NULL);
	snprintf(fifo, sizeof fifo, "%s/echoed", b.dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	start_echoing(&p, &b);
	p.echo = fopen(fifo, "w");
	cr_assert_not_null(p.echo);
	setvbuf(p.echo, NULL, _IOLBF, 0);
	p.tag = 'C';
	expect_line(&p, "ready");
	go_on(&p);
	while (!memchr(p.ibuf, '\n', p.ilen))
		cr_assert_eq(kj_proc_pump(&p, 5000), 1, "the stderr line was not echoed while waiting");
	cr_assert_eq(memcmp(p.ibuf, "C! thinking\n", 12), 0, "%.*s", (int)p.ilen, p.ibuf);
	kj_proc_finish(&p, 0);
	fclose(p.echo);
}

/* The bot's stderr, echoed (KJ_ERR_ECHO) line by line with its tag as it
 * arrives while the judge waits on the bot (kj_proc_pump): a
 * line that arrives in pieces (a read of a single byte first) is one
 * line, and the last line is echoed without a newline too, when the
 * stream ends (the bot closes it while it runs on), even with errno left
 * at EAGAIN by an earlier read. */
Test(judge_rules, proc_stderr_echoed_to_its_last_partial_line, .timeout = 60)
{
	char text[64] = "";
	kj_bot b;
	kj_proc p;

	sh_bot(&b, "printf 'x\\n' >&2; echo ready; read x; printf a >&2; echo set; read x; "
	       "printf 'b\\none\\ntwo' >&2; exec 2>&-; echo done; read x", NULL);
	start_echoing(&p, &b);
	p.echo = tmpfile();
	p.tag = 'B';
	cr_assert_not_null(p.echo);
	expect_line(&p, "ready");
	cr_assert_eq(kj_proc_pump(&p, 0), 0);
	fflush(p.echo);
	cr_assert_eq(ftell(p.echo), 5, "the line written before ready: echoed by the pump");
	go_on(&p);
	expect_line(&p, "set");
	cr_assert_eq(kj_proc_pump(&p, 0), 0, "the 'a' alone, a read of one byte");
	cr_assert_geq(p.err, 0, "one byte read is no end of the stream");
	go_on(&p);
	expect_line(&p, "done");
	errno = EAGAIN;
	cr_assert_eq(kj_proc_pump(&p, 0), 0);
	cr_assert_eq(p.err, -1, "the bot closed its stderr (still running): closed here too");
	fflush(p.echo);
	cr_assert_eq(ftell(p.echo), 25, "every line echoed, the last without its newline too");
	kj_proc_finish(&p, 5000);
	rewind(p.echo);
	size_t n = fread(text, 1, sizeof text - 1, p.echo);
	text[n] = '\0';
	cr_assert_str_eq(text, "B! x\nB! ab\nB! one\nB! two\n");
	fclose(p.echo);
}

/* Start bot, which writes "ready" and waits: kj_proc_kill_all must kill
 * and reap it. */
static void kill_all_stops(const kj_bot *bot)
{
	kj_proc p;

	start(&p, bot, &unconfined);
	pid_t pid = p.pid;
	expect_line(&p, "ready");
	kj_proc_kill_all();
	errno = 0;
	cr_assert_eq(kill(pid, 0), -1, "the running bot was killed and reaped");
	cr_assert_eq(errno, ESRCH);
}

/* Every bot finished is forgotten by kj_proc_kill_all, also one that
 * someone else reaped (here the kernel: SIGCHLD ignored) or one killed
 * at the end of its grace: after more
 * such bots than the table of running bots holds (64), a new bot is
 * still killed and reaped by kj_proc_kill_all. */
Test(judge_rules, proc_kill_all_reaches_a_bot_after_many_finished, .timeout = 60)
{
	kj_bot quick, sleeper, slow;
	kj_proc p;

	sh_bot(&quick, "exit 0", NULL);
	sh_bot(&sleeper, "exec sleep 30", NULL);
	sh_bot(&slow, "echo ready; read x", NULL);
	/* reaped by the kernel; exited and reaped here; killed when its
	 * grace ran out, then reaped */
	for (int how = 0; how < 3; how++) {
		signal(SIGCHLD, how == 0 ? SIG_IGN : SIG_DFL);
		for (int i = 0; i < 65; i++) {
			start(&p, how == 2 ? &sleeper : &quick, &unconfined);
			kj_proc_finish(&p, how == 2 ? 0 : 5000);
			cr_assert_eq(p.pid, 0);
		}
	}
	kill_all_stops(&slow);
}

/* "status: wait status once reaped, -1 before" (proc.h): -1 while the bot
 * runs and after a finish that could not reap it (someone else did: here
 * the test), never a made-up 0, which reads as "exited with status 0";
 * the wait status once kj_proc_finish reaped it. */
Test(judge_rules, proc_status_only_from_a_reap, .timeout = 60)
{
	kj_bot b;
	kj_proc p;
	int st;

	sh_bot(&b, "echo ready; read x; exit 3", NULL);
	start(&p, &b, &unconfined);
	cr_assert_eq(p.status, -1, "running, not reaped: %d", p.status);
	expect_line(&p, "ready");
	go_on(&p);
	cr_assert_eq(kj_proc_pump(&p, 30000), -1, "the bot's stdout should end");
	cr_assert_eq(waitpid(p.pid, &st, 0), p.pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 3);
	kj_proc_finish(&p, 5000);
	cr_assert_eq(p.status, -1, "reaped by someone else: no status known, got %d", p.status);

	start(&p, &b, &unconfined);
	expect_line(&p, "ready");
	go_on(&p);
	kj_proc_finish(&p, 5000);
	cr_assert(p.status != -1 && WIFEXITED(p.status) && WEXITSTATUS(p.status) == 3,
		  "status %d", p.status);
}

/* "Safe to call twice" (proc.h), also when the bot's stderr pipe was
 * still open elsewhere at the first finish (a descendant holds it: here
 * the test, through /proc/PID/fd/2), so the finish closed it unread to
 * its end: the second finish must not read or close the descriptor that
 * now has that number. */
Test(judge_rules, proc_finish_twice_leaves_a_reused_descriptor_alone, .timeout = 60)
{
	char path[64];
	kj_bot b;
	kj_proc p;

	sh_bot(&b, "echo ready; read x", NULL);
	start_echoing(&p, &b);
	expect_line(&p, "ready");
	snprintf(path, sizeof path, "/proc/%d/fd/2", (int)p.pid);
	int held = open(path, O_WRONLY | O_CLOEXEC);
	cr_assert_geq(held, 0, "%s: %s", path, strerror(errno));
	int e = p.err;
	cr_assert_geq(e, 0);
	kj_proc_finish(&p, 5000);
	cr_assert_eq(p.err, -1, "closed, so marked closed");
	int other = open("/dev/null", O_RDONLY | O_CLOEXEC);
	cr_assert_geq(other, 0);
	cr_assert_eq(dup2(other, e), e, "the old stderr number, reused");
	kj_proc_finish(&p, 0);
	cr_assert_neq(fcntl(e, F_GETFD), -1, "descriptor %d (not the bot's) was closed", e);
	close(e), close(other), close(held);
}

/* What a fifo's writer says: path opened for writing (this waits for its
 * reader, the bot), text written, closed. */
static void fifo_say(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

/* Start bot b (which says ready, reads a line and ends) with lim, let it
 * end, and reap it here, behind kj_proc's back. */
static void reaped_here(kj_proc *p, const kj_bot *b, const kj_limits *lim)
{
	int st;

	start(p, b, lim);
	expect_line(p, "ready");
	go_on(p);
	cr_assert_eq(kj_proc_pump(p, 30000), -1, "the bot's stdout should end");
	cr_assert_eq(waitpid(p->pid, &st, 0), p->pid);
}

/* A stop signal between a bot's reap and its being forgotten (the judge's
 * handler runs kj_proc_kill_all) meets a bot that is gone: here one the
 * test reaped.  kj_proc_kill_all passes over it and still kills and reaps
 * the bot that runs. */
Test(judge_rules, proc_kill_all_passes_a_bot_already_reaped, .timeout = 30)
{
	kj_bot gone, slow;
	kj_proc p;

	sh_bot(&gone, "echo ready; read x; exit 3", NULL);
	sh_bot(&slow, "echo ready; read x", NULL);
	reaped_here(&p, &gone, &unconfined);
	kill_all_stops(&slow);
}

/* A bot reaped elsewhere (its wait fails: ECHILD) is forgotten at once
 * by kj_proc_finish_all, not taken for a bot still running and waited on
 * for its whole grace (10 minutes here, beyond the test's time-out).  It
 * has a write budget, so the wait is the counting one (reap_counted). */
Test(judge_rules, proc_finish_forgets_a_bot_reaped_elsewhere, .timeout = 30)
{
	uint64_t written = 0;
	kj_bot b;
	kj_proc p, *ps[1] = {&p};

	sh_bot(&b, "echo ready; read x; exit 3", &written);
	reaped_here(&p, &b, &confined_1mb); /* a write budget: its writes counted */
	kj_proc_finish_all(ps, 1, 600000);
	cr_assert_eq(p.pid, 0, "forgotten");
}

/* A bot whose folder cannot be entered starts (proc.h: not a failure of
 * the start), and exec_errno and exec_step say why: chdir, the system's
 * error; a command that is not there: execvp. */
Test(judge_rules, proc_start_names_a_folder_that_cannot_be_entered, .timeout = 30)
{
	kj_bot b;
	kj_proc p;

	sh_bot(&b, "exit 0", NULL);
	strcat(b.dir, "/none");
	start(&p, &b, &unconfined);
	cr_assert_gt(p.pid, 0);
	cr_assert_eq(p.exec_errno, ENOENT, "%s", strerror(p.exec_errno));
	cr_assert_str_eq(p.exec_step ? p.exec_step : "(none)", "chdir");
	kj_proc_finish(&p, 5000);

	sh_bot(&b, "exit 0", NULL);
	snprintf(b.cmd, sizeof b.cmd, "./none"); /* in the bot's folder: not there */
	start(&p, &b, &unconfined);
	cr_assert_eq(p.exec_errno, ENOENT, "%s", strerror(p.exec_errno));
	cr_assert_str_eq(p.exec_step ? p.exec_step : "(none)", "execvp");
	kj_proc_finish(&p, 5000);
}

/* A bot that cannot be confined (here its user namespace, refused by a
 * seccomp filter put on this process after kj_sandbox_init's probe) is
 * not run: exec_errno and exec_step name the step, its stderr holds one
 * whole line saying so, and its stdout (the judge's pipe) stays empty. */
Test(judge_rules, proc_bot_that_cannot_be_confined_says_so_on_its_stderr, .timeout = 30)
{
	static const kj_limits confined = {.sandbox = 1, .procs = 64};
	char errpath[1100];
	kj_bot b;
	kj_proc p;
	kb_err err = {{0}};

	sh_bot(&b, "echo ran", NULL);
	cr_assert_eq(kj_sandbox_init(&err), 0, "%s", err.msg);
	test_fail_syscall(SYS_unshare, EPERM);
	snprintf(errpath, sizeof errpath, "%s/bot.err", b.dir);
	cr_assert_eq(kj_proc_start(&p, &b, "000", "1", errpath, &confined, &err), 0, "%s", err.msg);
	cr_assert_gt(p.pid, 0);
	cr_assert_eq(p.exec_errno, EPERM, "%s", strerror(p.exec_errno));
	cr_assert_str_eq(p.exec_step ? p.exec_step : "(none)", "unshare(CLONE_NEWUSER)");
	cr_assert_eq(kj_proc_pump(&p, 30000), -1, "the end of its output, nothing before it");
	cr_assert_eq(p.ilen, 0, "on its stdout: %.*s", (int)p.ilen, p.ibuf);
	kj_proc_finish(&p, 5000);
	cr_assert_str_eq(test_read_file(NULL, errpath),
			 "kimble-judge: cannot confine the bot: unshare(CLONE_NEWUSER)\n");
}

/* A confined bot with a write counter, running script, once it has
 * written its first line, line. */
static void start_writer(kj_proc *p, kj_bot *b, const char *script, uint64_t *written,
			 const char *line)
{
	sh_bot(b, script, written);
	start(p, b, &confined_1mb);
	expect_line(p, line);
}

/* The write count is read through whatever descriptor the kernel gives,
 * 0 too (this process's stdin closed after the sandbox was set up), and
 * that descriptor is closed again. */
Test(judge_rules, proc_charge_reads_through_descriptor_0, .timeout = 60)
{
	uint64_t written = 0;
	kj_bot b;
	kj_proc p;

	start_writer(&p, &b, "head -c 102400 /dev/zero > a && echo one && read x", &written, "one");
	cr_assert_eq(close(0), 0);
	cr_assert_eq(kj_proc_charge(&p), 0);
	expect_between(written, 100 * KIB, "counted through descriptor 0");
	cr_assert_eq(fcntl(0, F_GETFD), -1, "descriptor 0 left open");
	go_on(&p);
	kj_proc_finish(&p, 5000);
}

/* Once the bot's output has ended, kj_proc_pump returns -1 at once and
 * writes nothing more: what the bot left unread stays in olen (match.c
 * reads it after that -1 for the unread verdict), even when the bot has
 * closed its stdin since. */
Test(judge_rules, proc_pump_after_the_end_of_output_writes_nothing, .timeout = 60)
{
	static char big[200000];
	char go[600], done[600], line[32];
	kj_bot b;
	kj_proc p;
	int r;

	signal(SIGPIPE, SIG_IGN); /* as the judge (main.c) */
	/* head reads the fifo, not `read x < go`: with its stdout closed,
	 * dash lost its stdin redirecting the builtin's */
	sh_bot(&b, "echo ready; head -n 1 go > /dev/null; echo last; exec 1>&-; "
	       "head -n 1 go > /dev/null; exec 0<&-; "
	       "echo closed > done; exec sleep 30", NULL);
	snprintf(go, sizeof go, "%s/go", b.dir);
	snprintf(done, sizeof done, "%s/done", b.dir);
	cr_assert(mkfifo(go, 0600) == 0 && mkfifo(done, 0600) == 0);
	start(&p, &b, &unconfined);
	expect_line(&p, "ready");
	cr_assert_eq(kj_proc_send(&p, big, sizeof big), 0);
	cr_assert_eq(kj_proc_pump(&p, 0), 0);
	fifo_say(go, "go\n");
	while ((r = kj_proc_pump(&p, 30000)) == 1)
		;
	cr_assert_eq(r, -1, "the end of the bot's output");
	expect_line(&p, "last");
	size_t unread = p.olen;
	cr_assert_gt(unread, 0, "the bot reads nothing");
	fifo_say(go, "go\n");
	FILE *f = fopen(done, "r");
	cr_assert_not_null(f);
	cr_assert_not_null(fgets(line, sizeof line, f));
	fclose(f);
	cr_assert_str_eq(line, "closed\n", "the bot's stdin is closed now");
	cr_assert_eq(kj_proc_pump(&p, 0), -1);
	cr_assert_eq(p.olen, unread, "what the bot left unread was dropped");
	cr_assert_geq(p.in, 0, "written to after the end of output");
	kj_proc_finish(&p, 0);
}

/* What the bot writes to stderr after the judge last waited on it (here
 * on its way out, once its stdin is closed) is echoed when it is
 * finished (proc.h). */
Test(judge_rules, proc_finish_echoes_the_bots_last_stderr_lines, .timeout = 60)
{
	char text[64] = "";
	kj_bot b;
	kj_proc p;

	sh_bot(&b, "echo ready; read x; echo bye >&2; printf gone >&2", NULL);
	start_echoing(&p, &b);
	p.echo = tmpfile();
	cr_assert_not_null(p.echo);
	p.tag = 'D';
	expect_line(&p, "ready");
	kj_proc_finish(&p, 5000);
	cr_assert(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0, "status %d", p.status);
	rewind(p.echo);
	size_t n = fread(text, 1, sizeof text - 1, p.echo);
	text[n] = '\0';
	cr_assert_str_eq(text, "D! bye\nD! gone\n");
	fclose(p.echo);
}

/* A test double for a bot that ends between two looks of reap_counted
 * (a peek that finds it running, then a waitpid): while
 * waitid_hide_exit is above 0, a peek at one process (P_PID, WNOHANG and
 * WNOWAIT) finds it running and counts down. */
static int waitid_hide_exit;

int waitid(idtype_t idtype, id_t id, siginfo_t *info, int options)
{
	static int (*libc_waitid)(idtype_t, id_t, siginfo_t *, int);

	if (waitid_hide_exit > 0 && idtype == P_PID && (options & WNOHANG) && (options & WNOWAIT)) {
		waitid_hide_exit--;
		memset(info, 0, sizeof *info);
		return 0;
	}
	if (!libc_waitid)
		*(void **)&libc_waitid = dlsym(RTLD_NEXT, "waitid");
	return libc_waitid(idtype, id, info, options);
}

/* A counted bot that ends just after the judge looked and found it
 * running is reaped with its writes counted (a reap without them would
 * lose what it wrote since its last charge). */
Test(judge_rules, proc_reap_counts_a_bot_that_ends_between_two_looks, .timeout = 60)
{
	uint64_t written = 0;
	siginfo_t si;
	kj_bot b;
	kj_proc p;

	start_writer(&p, &b, "head -c 102400 /dev/zero > a && echo done && read x", &written, "done");
	go_on(&p);
	cr_assert_eq(kj_proc_pump(&p, 30000), -1, "the bot's stdout should end");
	memset(&si, 0, sizeof si);
	cr_assert_eq(waitid(P_PID, (id_t)p.pid, &si, WEXITED | WNOWAIT), 0, "%s", strerror(errno));
	waitid_hide_exit = 1;
	kj_proc_finish(&p, 5000);
	cr_assert_eq(waitid_hide_exit, 0, "the finish did not peek");
	cr_assert(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0, "status %d", p.status);
	expect_between(written, 100 * KIB, "at the reap");
}

/* kj_proc_counters for no bots succeeds (nothing to count is no error)
 * and hands out nothing; for one bot, a counter at 0. */
Test(judge_rules, proc_counters_for_no_bots_succeed)
{
	static kj_bot b;

	errno = 0;
	cr_assert_eq(kj_proc_counters(&b, 0), 0, "%s", strerror(errno));
	cr_assert_null(b.written);
	cr_assert_eq(kj_proc_counters(&b, 1), 0, "%s", strerror(errno));
	cr_assert_not_null(b.written);
	cr_assert_eq(*b.written, 0);
}
