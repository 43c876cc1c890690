/* sandbox.h - confinement of bot processes: the KoTH rule "a bot reads and
 * writes the files of its own folder and nothing outside it", enforced by
 * the kernel rather than trusted (docs/sandbox.md).
 *
 * A confined bot
 *   - runs in a user namespace of its own with no mapped user: it keeps the
 *     judge's user for file ownership (its folder stays writable, also when
 *     the judge is root) but holds no capability outside that namespace,
 *     and its RLIMIT_NPROC counts only its own processes and threads (the
 *     kernel exempts a real root user from RLIMIT_NPROC, so under a root
 *     judge the bot's real user is nobody and its effective user, which
 *     file access uses, root; inside the namespace, which maps neither,
 *     getuid() and geteuid() both return 65534, yet its files belong to
 *     root);
 *   - runs with no_new_privs (no setuid or file-capability gains);
 *   - sees the folders of other bots and the judge's output folder, when
 *     they lie inside its own folder, as empty read-only folders (a mount
 *     namespace of its own, kj_sandbox_hide);
 *   - is under a Landlock domain of its own: it may read and execute /usr,
 *     /bin, /sbin, /lib*, /opt and /etc (except secrets such as /etc/shadow,
 *     /etc/ssh, /etc/ssl/private), read /proc/self, read and write
 *     /dev/null (and read /dev/zero, /dev/random, /dev/urandom, write
 *     /dev/full), read and
 *     execute its command file, and do anything inside its own folder;
 *     Landlock also denies TCP bind and connect, signals to processes
 *     outside the domain (its own children are inside), connecting to
 *     abstract unix sockets, and ptrace of other processes;
 *   - is under a seccomp filter: socket() fails with EACCES (no network of
 *     any family, no unix sockets of other programs), io_uring_setup()
 *     (io_uring would bypass the filter) and the keyring calls (keyctl,
 *     add_key, request_key: the judge's session keyring) with EPERM, and
 *     fallocate() with EOPNOTSUPP (it takes disk space without the writes
 *     that the judge's write budget counts, proc.h);
 *   - has RLIMIT_NPROC (tasks) and RLIMIT_FSIZE (bytes per file) set.
 * Blocked calls return the kernel's EACCES or EPERM to the bot.
 *
 * Needs Landlock ABI 6 (Linux 6.12), user namespaces that an unprivileged
 * process may create, and seccomp; kj_sandbox_init() checks all three by
 * confining a probe process, and refuses with a message naming what is
 * missing.
 */
#ifndef KJ_SANDBOX_H
#define KJ_SANDBOX_H

#include "bots.h"
#include "proc.h"

#define KJ_SANDBOX_MIN_ABI 6
#define KJ_SANDBOX_REAL_UID 65534 /* a root judge's bots' real user (nobody) */

/* Outcomes of kj_sandbox_init (0: ready), in a range of their own
 * (-500..-599) apart from errno and other modules' statuses. */
enum kj_sandbox_status {
	KJ_SANDBOX_UNSUPPORTED = -501, /* the kernel cannot confine (what is missing in err) */
	KJ_SANDBOX_SYSTEM = -502       /* a system call failed (fork, open of a system path) */
};

/* Check that this kernel can confine bots and open the system folders a bot
 * may read (held for every later bot, also in forked workers).  Call it in
 * the judge's process before starting confined bots; later calls return the
 * first call's outcome.  It holds the system folders open (O_PATH), /etc
 * entry by entry without its secrets, a few hundred descriptors.
 * Returns 0, or one of the outcomes above with err naming what is missing
 * or what failed. */
int kj_sandbox_init(kb_err *err);

/* 1 if a confined bot may execute the file path (absolute): it lies below
 * one of the system folders above or in the bot's own folder. */
int kj_sandbox_may_run(const kj_bot *bot, const char *path);

/* The Landlock ABI version of this kernel (0: none); valid after
 * kj_sandbox_init (also after it failed). */
int kj_sandbox_abi(void);

/* Hide folder path (a process bot's folder, the judge's output folder)
 * from every confined bot whose own folder holds it: such a bot runs in a
 * mount namespace of its own where path is an empty read-only folder (its
 * files cannot be read, nothing can be written there: EROFS).  Outside its
 * own folder a bot sees no such path anyway.  Call it in the judge's
 * process before the bots start.  Returns 0, or -1 with errno (path does
 * not exist, out of memory). */
int kj_sandbox_hide(const char *path);

/* Once all folders are hidden (kj_sandbox_hide) and before starting bots:
 * when no bot's folder holds a folder to hide, put the secrets layer on
 * the calling process (the judge or a worker), so that its bots inherit it
 * instead of each putting it on itself (a copy of some 150 rules per bot).
 * With nesting it does nothing: Landlock would forbid the bots' mounts.
 * Cheap when repeated. */
void kj_sandbox_layer_self(void);

/* In the child between fork/vfork and exec, in the bot's folder (after
 * chdir): confine this process as above with lim->procs and lim->file_mb.
 * Only system calls, no allocation.  Returns 0, or -1 with errno set and
 * *step naming the failing call. */
int kj_sandbox_enter(const kj_bot *bot, const kj_limits *lim, const char **step);

#endif
