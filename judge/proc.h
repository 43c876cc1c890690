/* proc.h - a bot process under the judge's control.
 *
 * Each bot runs in its own process group, in its own directory, dies with
 * the process that started it (PR_SET_PDEATHSIG, SIGKILL), with
 * resource limits (CPU seconds, address space, open files), its stdin and
 * stdout on nonblocking pipes and its stderr in a file or /dev/null.  The
 * judge buffers what it sends (a bot that never reads cannot block it) and
 * reads into a bounded buffer (a bot that floods is cut off).  Killing
 * signals the whole group, so a bot that forks is cleaned up too.
 *
 * The command is run with execvp(): a command without a '/' is looked up
 * in PATH (not in the bot's directory), one with a '/' relative to the
 * bot's directory.  When it cannot be run, the start still succeeds: the
 * process exits at once with status 127 and exec_errno and exec_step say
 * why, so the caller can name the system's error.
 *
 * With err_path KJ_ERR_ECHO the bot's stderr comes back on a pipe and
 * every line of it is written to echo (set by the caller after the start)
 * as "X! line" with X the tag, as it arrives while the judge waits on the
 * bot (kj_proc_pump) and when the bot is finished.
 *
 * The caller must ignore SIGPIPE (a bot may close its stdin at any time).
 * The bot's environment is not the judge's: see botenv.h (KIMBLE_LEARN=0
 * when learning is frozen, the variables lim->pass_env names).
 * With lim->sandbox the bot is confined to its folder (sandbox.h).
 *
 * Write budget (confined bots with lim->write_mb and a bot->written
 * counter): the bytes the bot's processes cause to be written to storage,
 * as the kernel counts them for each process (write_bytes of
 * /proc/PID/io: counted when a page of a file is first dirtied, so also
 * for files removed again; pipes, sockets and tmpfs do not count), are
 * added up over the whole run in *bot->written: when the bot's process is
 * reaped (its reaped children's writes included), at kj_proc_charge, and
 * for descendants it left behind, when kj_proc_sweep reaps them.  A bot
 * over budget is not started again (over_budget, no process).
 */
#ifndef KJ_PROC_H
#define KJ_PROC_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "bots.h"

#define KJ_INBUF 4096        /* bytes of bot output held unparsed */
#define KJ_OUTBUF (1 << 20)  /* bytes of judge output a bot may leave unread */
#define KJ_ERR_ECHO "|echo"  /* err_path: echo the bot's stderr (see above) */

typedef struct kj_limits {
	int cpu_s;   /* RLIMIT_CPU, 0: none */
	int mem_mb;  /* RLIMIT_AS, 0: none */
	int nofile;  /* RLIMIT_NOFILE, 0: none */
	int learn;   /* 0: KIMBLE_LEARN=0 in the bot's environment */
	int sandbox; /* 1: confined (sandbox.h; kj_sandbox_init first) */
	int procs;   /* confined: RLIMIT_NPROC in its user namespace, 0: none */
	int file_mb; /* confined: RLIMIT_FSIZE, 0: none */
	const char *pass_env; /* more of the judge's variables for bots (botenv.h), or NULL */
	int write_mb; /* confined: MiB a bot may write in a run (above), 0: no bound */
} kj_limits;

typedef struct kj_proc {
	pid_t pid;          /* also the process group; 0 when not running */
	int in, out;        /* our ends: bot's stdin (write), stdout (read) */
	char *obuf;         /* pending output, KJ_OUTBUF bytes */
	size_t olen;
	char ibuf[KJ_INBUF];
	size_t ilen;
	int eof;            /* the bot closed its stdout */
	int status;         /* wait status once reaped, -1 before */
	int exec_errno;     /* errno of the failed chdir/execvp, 0 when it ran */
	const char *exec_step; /* "chdir" or "execvp" when exec_errno is set */
	int err;            /* read end of the bot's stderr (KJ_ERR_ECHO), or -1 */
	FILE *echo;         /* where echoed stderr lines go (NULL: dropped) */
	char tag;           /* the letter before "! " on echoed lines */
	char ebuf[256];     /* a partial stderr line */
	size_t elen;
	pid_t group;        /* the bot's process group, also after it is reaped */
	unsigned long ns;   /* inode of its user namespace (confined), else 0 */
	uint64_t *written;  /* its run's write total (bot->written), NULL: not counted */
	uint64_t seen;      /* write_bytes of the running process already counted */
	uint64_t budget;    /* bytes, from lim->write_mb */
	int over_budget;    /* wrote more than budget in this run */
} kj_proc;

/* Start bot with extra arguments OPPONENTS and SEED; stderr goes to
 * err_path (NULL: /dev/null; KJ_ERR_ECHO: echoed).  Returns 0, or -1 with
 * err naming the bot and the failing call (a command that cannot be run
 * is not a failure here: see exec_errno). */
int kj_proc_start(kj_proc *p, const kj_bot *bot, const char *opponents, const char *seed,
		  const char *err_path, const kj_limits *lim, kb_err *err);

/* Give bots[0..n) write counters that start at 0 and that processes
 * forked later (workers) share.  Returns 0, or -1 with errno. */
int kj_proc_counters(kj_bot *bots, int n);

/* Add what the running bot has written since the last call to its run's
 * total (one read of /proc/PID/io).  Returns 1 when the bot is over its
 * budget (also sets over_budget), else 0. */
int kj_proc_charge(kj_proc *p);

/* This process becomes the reaper of what its bots leave behind (their
 * descendants whose parents die), for kj_proc_sweep. */
void kj_proc_adopt(void);

/* After a game, with ps[0..n) its bots, all finished: kill and reap every
 * process left (descendants of bots that left the bot's process group),
 * charging each one's writes to the bot it came from (its process group,
 * or its user namespace).  Only in a process that called kj_proc_adopt
 * and has no children but its bots. */
void kj_proc_sweep(kj_proc *ps[], int n);

/* Queue len bytes for the bot.  Returns 0, or -1 when the bot has left
 * more than KJ_OUTBUF bytes unread (then it is treated as hung). */
int kj_proc_send(kj_proc *p, const char *buf, size_t len);

/* Flush and read for up to ms milliseconds (0: just once, no wait), until
 * some new input arrived or EOF.  Returns 1 when input arrived, 0 on
 * timeout, -1 on EOF or an error (of the read, or of the wait).  With the
 * input buffer full (KJ_INBUF bytes unconsumed) it returns 1 at once
 * without waiting: the caller parses or rejects what is there, nothing
 * more is read before it consumes.  After the EOF it returns -1 at once,
 * writing nothing more: what the bot left unread stays in olen. */
int kj_proc_pump(kj_proc *p, int ms);

/* 1 if the bot's process has exited (it is not reaped: kj_proc_finish
 * still takes its status), else 0.  Its output can stay open after it:
 * a process it started holds it. */
int kj_proc_exited(const kj_proc *p);

/* Drop the first n bytes of the input buffer. */
void kj_proc_consume(kj_proc *p, size_t n);

/* Close the bot's stdin, give it grace_ms to exit, then SIGKILL the group;
 * reap it.  Safe to call twice. */
void kj_proc_finish(kj_proc *p, int grace_ms);

/* Several bots at once: close every stdin, wait up to grace_ms in total
 * for all to exit, kill the rest. */
void kj_proc_finish_all(kj_proc *ps[], int n, int grace_ms);

/* SIGKILL the process group of every bot this process has running and
 * reap the bots (async-signal-safe: for SIGINT/SIGTERM handlers).  Stop
 * signals are blocked while a bot starts, so a handler sees every bot. */
void kj_proc_kill_all(void);

/* The signals that stop the judge: SIGINT, SIGTERM, SIGHUP. */
void kj_proc_stop_signals(sigset_t *set);

/* Milliseconds on the monotonic clock. */
double kj_now_ms(void);

#endif
