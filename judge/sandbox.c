/* sandbox.c - user namespace, Landlock, seccomp and limits for bot
 * processes; see sandbox.h.
 *
 * Why these mechanisms: Landlock is the one that can say "this folder and
 * the system files, nothing else" without privileges, and since ABI 4 and 6
 * it also covers TCP and signals.  A user namespace per bot takes root's
 * capabilities away while the bot keeps the judge's user (so its folder
 * stays writable without chown), and gives RLIMIT_NPROC a count of the
 * bot's own tasks (otherwise per user, and not enforced at all for root).
 * seccomp closes what Landlock leaves open: UDP, raw and unix sockets, and
 * the keyrings the bot would share with the judge.
 * The kernel's headers of Debian 12 know Landlock ABI 2 only, so the
 * structures and rights are defined here from the kernel's documentation.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox.h"

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

#if defined(__x86_64__)
#define KJ_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define KJ_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

/* Landlock (include/uapi/linux/landlock.h of Linux 6.12). */
struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};
struct ll_path_beneath {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));
#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_RULE_PATH_BENEATH 1
#define LL_FS_EXECUTE (1ULL << 0)
#define LL_FS_WRITE_FILE (1ULL << 1)
#define LL_FS_READ_FILE (1ULL << 2)
#define LL_FS_READ_DIR (1ULL << 3)
#define LL_FS_REFER (1ULL << 13)     /* ABI 2 */
#define LL_FS_TRUNCATE (1ULL << 14)  /* ABI 3 */
#define LL_FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */
#define LL_FS_ALL_ABI5 ((1ULL << 16) - 1)
#define LL_NET_BIND_TCP (1ULL << 0)    /* ABI 4 */
#define LL_NET_CONNECT_TCP (1ULL << 1) /* ABI 4 */
#define LL_SCOPE_ABSTRACT_UNIX (1ULL << 0) /* ABI 6 */
#define LL_SCOPE_SIGNAL (1ULL << 1)        /* ABI 6 */

/* The rights that apply to a file (a rule on a file may grant no others). */
#define LL_FILE_RIGHTS (LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | LL_FS_TRUNCATE | \
			LL_FS_IOCTL_DEV)
#define LL_READ_EXEC (LL_FS_EXECUTE | LL_FS_READ_FILE | LL_FS_READ_DIR)

/* Two Landlock layers; a bot may do what both allow.  Layer 1 grants
 * READ_FILE everywhere but the secrets under /etc (every entry of / and of
 * /etc is a rule of its own, a hundred and more), and REFER on every folder
 * among them: a ruleset denies a rename or link into another folder
 * wherever it does not grant REFER, handled or not, so without it a bot
 * could not move a file between two folders of its own (layer 2 decides,
 * granting REFER in the bot's folder only).  It handles these two rights
 * only, is built once, in the judge, and each bot puts it on itself with
 * one call (the kernel copies its rules; adding them one by one per bot
 * cost as much again as the rest of the confinement).  It is not put on the judge
 * itself: Landlock denies mount(2) under a domain, children included, and
 * a bot whose folder holds another's needs a mount (kj_sandbox_hide).
 * Layer 2, built per bot from a dozen rules, is the policy proper, and can
 * grant /etc whole. */
static int secrets_layer = -1;
/* Layer 1 is on this process already (kj_sandbox_layer_self): children
 * inherit it and need not put it on themselves. */
static int self_layered;

/* Layer 2's system paths, opened once (O_PATH) with their rights. */
#define MAX_SYS 16
static int sys_fd[MAX_SYS];
static uint64_t sys_rights[MAX_SYS];
static int nsys;
static int abi;
static int ready;

/* Folders no bot may see inside its own folder: every process bot's folder
 * and the judge's output folder, canonical (kj_sandbox_hide). */
static char **hidden;
static int nhidden;
/* Does one of them lie inside another?  Worked out once after the last
 * kj_sandbox_hide (-1: not yet; any_nesting). */
static int nesting = -1;

static const char *const read_exec_paths[] = {"/usr", "/bin", "/sbin", "/lib", "/lib32",
					      "/lib64", "/libx32", "/opt", "/etc"};
/* Under /etc: what a bot may not read (paths relative to /etc). */
static const char *const etc_secrets[] = {
	"shadow", "shadow-", "gshadow", "gshadow-", "sudoers", "sudoers.d", "ssh",
	"ssl/private", "security/opasswd", "krb5.keytab", ".pwd.lock", "credstore",
	"credstore.encrypted"};

static int below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && (path[n] == '/' || path[n] == '\0');
}

int kj_sandbox_may_run(const kj_bot *bot, const char *path)
{
	for (size_t i = 0; i < sizeof read_exec_paths / sizeof *read_exec_paths; i++)
		if (below(path, read_exec_paths[i]))
			return 1;
	return below(path, bot->dir);
}

int kj_sandbox_abi(void)
{
	return abi;
}

/* A path that is not there (or not ours to see) is no error: skip it. */
static int missing(void)
{
	return errno == ENOENT || errno == ENOTDIR || errno == ELOOP || errno == EACCES;
}

/* Keep path open for layer 2 with rights (a file gets file rights only). */
static int keep(const char *path, uint64_t rights)
{
	struct stat st;
	int fd = open(path, O_PATH | O_CLOEXEC);

	if (fd < 0)
		return missing() ? 0 : -1;
	if (nsys == MAX_SYS || fstat(fd, &st) != 0) {
		close(fd);
		return nsys == MAX_SYS ? 0 : -1;
	}
	sys_fd[nsys] = fd;
	sys_rights[nsys++] = S_ISDIR(st.st_mode) ? rights : rights & LL_FILE_RIGHTS;
	return 0;
}

static int add_rule(int ruleset, int fd, uint64_t rights);

/* Layer 1: grant READ_FILE on dirfd/name, and REFER when it is a folder. */
static int grant_read(int ruleset, int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_PATH | O_CLOEXEC), rc;
	struct stat st;

	if (fd < 0)
		return missing() ? 0 : -1;
	rc = fstat(fd, &st) ? -1 : add_rule(ruleset, fd, S_ISDIR(st.st_mode) ?
					    LL_FS_READ_FILE | LL_FS_REFER : LL_FS_READ_FILE);
	close(fd);
	return rc;
}

/* Is rel (under /etc) a secret, or a folder that holds one? */
static int secret(const char *rel, int *holds_one)
{
	size_t n = strlen(rel);

	*holds_one = 0;
	for (size_t i = 0; i < sizeof etc_secrets / sizeof *etc_secrets; i++) {
		if (!strcmp(etc_secrets[i], rel))
			return 1;
		if (!strncmp(etc_secrets[i], rel, n) && etc_secrets[i][n] == '/')
			*holds_one = 1;
	}
	return 0;
}

/* Layer 1: grant the entries of folder dir one by one, leaving out the
 * secrets (rel: dir relative to /etc, NULL for / itself). */
static int grant_entries(int ruleset, const char *dir, const char *rel)
{
	char sub[512], path[600];
	struct dirent *e;
	DIR *d;
	int rc = 0, holds = 0;

	if (!(d = opendir(dir)))
		return missing() ? 0 : -1;
	while (!rc && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(sub, sizeof sub, "%s%s%s", rel ? rel : "", rel && *rel ? "/" : "",
			 e->d_name);
		if (!rel && !strcmp(e->d_name, "etc"))
			rc = grant_entries(ruleset, "/etc", "");
		else if (rel && secret(sub, &holds))
			continue;
		else if (holds && snprintf(path, sizeof path, "/etc/%s", sub) > 0)
			rc = grant_entries(ruleset, path, sub);
		else
			rc = grant_read(ruleset, dirfd(d), e->d_name);
	}
	closedir(d);
	return rc;
}

/* Layer 1, built once; each bot restricts itself with it. */
static int build_secrets_layer(void)
{
	struct ll_ruleset_attr attr = {.handled_access_fs = LL_FS_READ_FILE | LL_FS_REFER};
	int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);

	if (ruleset < 0)
		return -1;
	if (grant_entries(ruleset, "/", NULL) != 0) {
		int keep_errno = errno;
		close(ruleset);
		errno = keep_errno;
		return -1;
	}
	secrets_layer = ruleset;
	return 0;
}

static int open_system_paths(void)
{
	for (size_t i = 0; i < sizeof read_exec_paths / sizeof *read_exec_paths; i++)
		if (keep(read_exec_paths[i], LL_READ_EXEC))
			return -1;
	/* /dev/full: under a root judge a bot's programs run in secure mode
	 * (real and effective users differ), where the C library opens it for
	 * writing in place of a closed descriptor 0, and ends the program
	 * when it cannot */
	if (keep("/dev/null", LL_FS_READ_FILE | LL_FS_WRITE_FILE | LL_FS_IOCTL_DEV) ||
	    keep("/dev/zero", LL_FS_READ_FILE) || keep("/dev/random", LL_FS_READ_FILE) ||
	    keep("/dev/urandom", LL_FS_READ_FILE) || keep("/dev/full", LL_FS_WRITE_FILE))
		return -1;
	return build_secrets_layer();
}

/* The filesystem rights this kernel knows (all of them are denied unless
 * a rule grants them). */
static uint64_t fs_handled(void)
{
	uint64_t all = LL_FS_ALL_ABI5;

	if (abi < 5)
		all &= ~LL_FS_IOCTL_DEV;
	if (abi < 3)
		all &= ~LL_FS_TRUNCATE;
	if (abi < 2)
		all &= ~(1ULL << 13); /* REFER */
	return all;
}

static int add_rule(int ruleset, int fd, uint64_t rights)
{
	struct ll_path_beneath pb = {.allowed_access = rights & fs_handled(), .parent_fd = fd};

	return (int)syscall(SYS_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &pb, 0);
}

/* Add the bot's own rules: its folder (the current directory), its command
 * file when named by a path, and /proc/self. */
static int add_own_rules(int ruleset, const kj_bot *bot)
{
	int fd, rc;

	if ((fd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	rc = add_rule(ruleset, fd, fs_handled());
	close(fd);
	if (!rc && strchr(bot->cmd, '/') && (fd = open(bot->cmd, O_PATH | O_CLOEXEC)) >= 0) {
		rc = add_rule(ruleset, fd, LL_FS_READ_FILE | LL_FS_EXECUTE);
		close(fd);
		if (rc && errno == EINVAL) /* a folder: exec fails later, as unconfined */
			rc = 0;
	}
	if (!rc && (fd = open("/proc/self", O_PATH | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		rc = add_rule(ruleset, fd, LL_FS_READ_FILE | LL_FS_READ_DIR);
		close(fd);
	}
	return rc;
}

static int landlock(const kj_bot *bot)
{
	struct ll_ruleset_attr attr = {
		.handled_access_fs = fs_handled(),
		.handled_access_net = abi >= 4 ? LL_NET_BIND_TCP | LL_NET_CONNECT_TCP : 0,
		.scoped = abi >= 6 ? LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL : 0};
	int ruleset, rc;

	ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
	rc = ruleset < 0 ? -1 : 0;
	for (int i = 0; !rc && i < nsys; i++)
		rc = add_rule(ruleset, sys_fd[i], sys_rights[i]);
	if (!rc)
		rc = add_own_rules(ruleset, bot);
	if (!rc)
		rc = (int)syscall(SYS_landlock_restrict_self, ruleset, 0);
	if (ruleset >= 0) {
		int keep_errno = errno;
		close(ruleset);
		errno = keep_errno;
	}
	return rc;
}

static int seccomp_filter(void)
{
#ifdef KJ_AUDIT_ARCH
	static struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, KJ_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM), /* another ABI */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1), /* x32 numbers */
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES),
		/* fallocate takes disk space without writing a byte, which the
		 * write budget (proc.h) would not see; without it the C
		 * library's posix_fallocate writes zeros instead */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_fallocate, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EOPNOTSUPP),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_keyctl, 2, 0), /* the judge's keys */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_add_key, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_request_key, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	static const struct sock_fprog prog = {sizeof code / sizeof *code, code};

	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
#else
	errno = ENOSYS;
	return -1;
#endif
}

static int limit(int res, long value)
{
	struct rlimit rl = {(rlim_t)value, (rlim_t)value};

	return value > 0 ? setrlimit(res, &rl) : 0;
}

int kj_sandbox_hide(const char *path)
{
	char canon[PATH_MAX], **grown, *copy;

	if (!realpath(path, canon))
		return -1;
	for (int i = 0; i < nhidden; i++)
		if (!strcmp(hidden[i], canon))
			return 0;
	if (!(grown = realloc(hidden, (size_t)(nhidden + 1) * sizeof *hidden)))
		return -1;
	hidden = grown;
	if (!(copy = strdup(canon)))
		return -1;
	hidden[nhidden++] = copy;
	nesting = -1;
	return 0;
}

/* The user namespace of the bot; when hidden folders lie inside the bot's
 * folder (the current directory), a mount namespace too, in which each of
 * them is covered by an empty read-only tmpfs: the bot sees an empty
 * folder it cannot write (EROFS), and through it nothing of the folder
 * below. */
/* Is path strictly below dir (below() and not dir itself)? */
static int inside(const char *path, const char *dir)
{
	return below(path, dir) && path[strlen(dir)] != '\0';
}

static int hide_nested(const char **step)
{
	char cwd[PATH_MAX];
	int nested = 0, have_cwd = nhidden && getcwd(cwd, sizeof cwd);

	for (int i = 0; have_cwd && i < nhidden; i++)
		nested += inside(hidden[i], cwd);
	if (unshare(CLONE_NEWUSER | (nested ? CLONE_NEWNS : 0)) != 0)
		return *step = nested ? "unshare(CLONE_NEWUSER|CLONE_NEWNS)" :
					"unshare(CLONE_NEWUSER)", -1;
	for (int i = 0; nested && i < nhidden; i++)
		if (inside(hidden[i], cwd) &&
		    mount("none", hidden[i], "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
			  "size=4k,mode=555") != 0)
			return *step = "mount (hiding a folder nested in the bot's)", -1;
	return 0;
}

/* Does a folder to hide lie inside another (a bot's folder holding one)? */
static int any_nesting(void)
{
	if (nesting < 0) {
		nesting = 0;
		for (int i = 0; i < nhidden && !nesting; i++)
			for (int j = 0; j < nhidden && !nesting; j++)
				nesting = i != j && inside(hidden[i], hidden[j]);
	}
	return nesting;
}

void kj_sandbox_layer_self(void)
{
	/* With no nesting no bot mounts anything, and layer 1 can be put on
	 * the process that starts the bots once instead of on each bot. */
	if (!ready || self_layered || any_nesting())
		return;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
	    syscall(SYS_landlock_restrict_self, secrets_layer, 0) == 0)
		self_layered = 1;
}

int kj_sandbox_enter(const kj_bot *bot, const kj_limits *lim, const char **step)
{
	/* The user namespace first: RLIMIT_NPROC set afterwards counts the
	 * tasks of this namespace only (set before, the judge's user's whole
	 * count would be held against it). */
	if (!ready)
		return *step = "kj_sandbox_init not called", errno = EINVAL, -1;
	/* The kernel never holds a real root user to RLIMIT_NPROC: under a
	 * root judge the bot's real user becomes nobody, its effective user
	 * (the one files are checked against) stays root. */
	if (getuid() == 0 && setresuid(KJ_SANDBOX_REAL_UID, 0, 0) != 0)
		return *step = "setresuid", -1;
	if (hide_nested(step) != 0)
		return -1;
	if (limit(RLIMIT_NPROC, lim->procs) || limit(RLIMIT_FSIZE, (long)lim->file_mb << 20))
		return *step = "setrlimit", -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return *step = "prctl(PR_SET_NO_NEW_PRIVS)", -1;
	if ((!self_layered && syscall(SYS_landlock_restrict_self, secrets_layer, 0) != 0) ||
	    landlock(bot) != 0)
		return *step = "landlock", -1;
	if (seccomp_filter() != 0)
		return *step = "seccomp", -1;
	return 0;
}

/* Confine a forked probe the way a bot is confined; its exit status says
 * whether every step worked (0) or which failed (1 + step). */
static int probe(char *step_msg, size_t size)
{
	static const char *const steps[] = {"setresuid", "unshare(CLONE_NEWUSER)", "setrlimit",
					    "prctl(PR_SET_NO_NEW_PRIVS)", "landlock", "seccomp"};
	kj_bot self = {.cmd = ""};
	kj_limits lim = {.procs = 64, .file_mb = 1};
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		const char *step = "";
		if (kj_sandbox_enter(&self, &lim, &step) == 0)
			_exit(0);
		for (int i = 0; i < 6; i++)
			if (!strcmp(step, steps[i]))
				_exit(10 + i);
		_exit(9);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return KJ_SANDBOX_SYSTEM;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	int i = WIFEXITED(st) ? WEXITSTATUS(st) - 10 : -1;
	snprintf(step_msg, size, "%s", i >= 0 && i < 6 ? steps[i] : "a confined probe");
	return KJ_SANDBOX_UNSUPPORTED;
}

static int init(kb_err *err)
{
	static const char off[] = "; --sandbox off runs bots unconfined (trusted bots only)";
	char step[64];
	int rc;

	abi = (int)syscall(SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
	if (abi < 0) {
		abi = 0;
		return kb_err_set(err, KJ_SANDBOX_UNSUPPORTED,
				  "cannot confine bots: this kernel has no Landlock (%s), Landlock "
				  "ABI %d (Linux 6.12) is needed%s", strerror(errno), KJ_SANDBOX_MIN_ABI, off);
	}
	if (abi < KJ_SANDBOX_MIN_ABI)
		return kb_err_set(err, KJ_SANDBOX_UNSUPPORTED,
				  "cannot confine bots: this kernel has Landlock ABI %d, ABI %d (Linux "
				  "6.12: signal scoping) is needed%s", abi, KJ_SANDBOX_MIN_ABI, off);
	if (open_system_paths() != 0)
		return kb_err_set(err, KJ_SANDBOX_SYSTEM, "cannot confine bots: system folders: %s",
				  strerror(errno));
	ready = 1;
	if ((rc = probe(step, sizeof step)) != 0) {
		ready = 0;
		return kb_err_set(err, rc, "cannot confine bots: %s failed in a probe process (user "
				  "namespaces or seccomp unavailable?)%s", rc == KJ_SANDBOX_SYSTEM ?
				  "fork" : step, off);
	}
	return 0;
}

int kj_sandbox_init(kb_err *err)
{
	static int tried, outcome;
	static kb_err first;

	if (!tried) {
		tried = 1;
		outcome = init(&first);
	}
	if (outcome && err)
		*err = first;
	return outcome;
}
