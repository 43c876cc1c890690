/* test_sandbox.c - kimble-judge confines bots (judge/sandbox.h): hostile
 * test bots, one per KoTH rule, are held and the tournament finishes; a bot
 * within the rules, ours included, plays byte for byte as unconfined and
 * still learns in its folder; -d and replay --rerun are confined too. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <dirent.h>
#include <ftw.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "judge/sandbox.h"
#include "support.h"
#include "support_run.h"

#define RUN_MS 60000

/* bots/NAME under dir: meta running program (a path) with arguments args. */
static void bot_dir(const char *dir, const char *name, const char *program, const char *args)
{
	char path[1200];
	FILE *f;

	snprintf(path, sizeof path, "%s/bots", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof path, "%s/bots/%s", dir, name);
	cr_assert(mkdir(path, 0755) == 0 || errno == EEXIST, "%s", path);
	snprintf(path, sizeof path, "%s/bots/%s/meta", dir, name);
	cr_assert_not_null(f = fopen(path, "w"), "%s", path);
	fprintf(f, "%s\n%s\n%s\n1\n", name, program, args);
	fclose(f);
}

static void test_bot_dir(const char *dir, const char *name, const char *mode)
{
	char bin[1024];

	test_root_path("build/rel/testbots/testbot", bin, sizeof bin);
	cr_assert(access(bin, X_OK) == 0, "%s missing: make build/rel/testbots/testbot", bin);
	bot_dir(dir, name, bin, mode);
}

/* Run kimble-judge in dir with args (NULL-terminated); stdout goes to
 * dir/NAME.out, stderr to dir/NAME.err.  Returns the exit status. */
static int run_judge(const char *dir, const char *name, const char *const args[])
{
	int st = test_run_in("kimble-judge", dir, name, args, RUN_MS);

	cr_assert(st >= 0 && WIFEXITED(st), "kimble-judge %s did not exit normally", name);
	return WEXITSTATUS(st);
}

/* The bots' stderr of every game under out/games, joined (malloc'ed). */
static char *bots_stderr(const char *out)
{
	char pattern[1200], *all = calloc(1, 1);
	size_t len = 0;
	glob_t g;

	snprintf(pattern, sizeof pattern, "%s/games/*.err", out);
	if (glob(pattern, 0, NULL, &g) != 0)
		return all;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *text = test_read_file(NULL, g.gl_pathv[i]);
		all = realloc(all, len + strlen(text) + 1);
		strcpy(all + len, text);
		len += strlen(text);
	}
	globfree(&g);
	return all;
}

/* A listening TCP socket on 127.0.0.1; *port gets its number. */
static int listener(int *port)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t alen = sizeof a;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert(fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && listen(fd, 16) == 0);
	cr_assert(getsockname(fd, (struct sockaddr *)&a, &alen) == 0);
	*port = ntohs(a.sin_port);
	return fd;
}

/* A temporary folder where the kernel counts each process's writes
 * (write_bytes): not on tmpfs, which it does not count; a TMPDIR on tmpfs
 * gives way to the build folder. */
static void disk_tmpdir(char *dir, size_t size)
{
	struct statfs fs;
	char base[1024];

	test_tmpdir(dir, size);
	if (statfs(dir, &fs) == 0 && fs.f_type != TMPFS_MAGIC)
		return;
	setenv("TMPDIR", test_root_path("build", base, sizeof base), 1);
	test_tmpdir(dir, size);
}

/* A fresh folder dir for a tournament, with the paths of its bots and out
 * folders and the test bot "player" playing hard; the test runs on as an
 * unprivileged user when drop_root and it is root. */
static void tournament_dir(char dir[512], char bots[1024], char out[1024], int drop_root)
{
	disk_tmpdir(dir, 512);
	if (drop_root)
		test_drop_root(dir);
	snprintf(bots, 1024, "%s/bots", dir);
	snprintf(out, 1024, "%s/out", dir);
	test_bot_dir(dir, "player", "hard");
}

/* Each attacker's mode, its testbot argument (NULL: the connect mode) and
 * the error it must see. */
static const struct {
	const char *mode, *arg;
	int err;
} attacks[] = {
	{"readsib", "try-read=../sib/secret", EACCES},
	{"shadow", "try-read=/etc/shadow", EACCES},
	{"listup", "try-list=..", EACCES},
	{"listout", "try-list=../../out", EACCES},
	{"plant", "try-write=../sib/planted", EACCES},
	{"connect", NULL, EACCES},
	{"signal", "try-signal", EPERM},
	{"forks", "try-fork=200", EAGAIN},
	{"fill", "try-fill=8", EFBIG},
	{"falloc", "try-fallocate=8", EOPNOTSUPP}};
#define NATTACKS (sizeof attacks / sizeof attacks[0])

static void hostile_tournament(int drop_root)
{
	char dir[512], bots[1024], out[1024], path[1200], connect_mode[64];
	const char *args[40] = {"-q", "--no-timing", "-j2", "-f", "gauntlet", "-t", "2",
				"--max-procs", "16", "--max-file-mb", "1", "--mem-mb", "0",
				"--bots", bots, "-o", out, "player", "sib"};
	int n = 19, port, lfd = listener(&port);

	tournament_dir(dir, bots, out, drop_root);
	snprintf(connect_mode, sizeof connect_mode, "try-connect=%d", port);
	test_bot_dir(dir, "sib", "hard");
	snprintf(path, sizeof path, "%s/bots/sib/secret", dir);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("the sibling's learned state\n", f);
	fclose(f);
	for (size_t i = 0; i < NATTACKS; i++) {
		test_bot_dir(dir, attacks[i].mode, attacks[i].arg ? attacks[i].arg : connect_mode);
		args[n++] = attacks[i].mode;
	}
	cr_assert_eq(run_judge(dir, "judge", args), 0, "%s", test_read_file(dir, "judge.err"));
	char *err = bots_stderr(out);
	cr_expect_null(strstr(err, "NOT held"), "%s", err);
	for (size_t i = 0; i < NATTACKS; i++) {
		char line[256];
		snprintf(line, sizeof line, "testbot %s: held: %s\n",
			 attacks[i].arg ? attacks[i].arg : connect_mode, strerror(attacks[i].err));
		cr_expect_not_null(strstr(err, line), "missing \"%s\" in\n%s", line, err);
	}
	free(err);
	const char *json = test_read_file(out, "results.json");
	cr_expect_null(strstr(json, "\"exit\": 1"), "%s", json);
	cr_expect_null(strstr(json, "\"exit\": 2"), "%s", json);
	cr_expect_not_null(strstr(json, "\"name\": \"fill\", \"games\": 2,"), "%s", json);
	snprintf(path, sizeof path, "%s/bots/sib/planted", dir);
	cr_expect_neq(access(path, F_OK), 0, "a bot created %s", path);
	cr_expect(accept(lfd, NULL, NULL) < 0 && errno == EAGAIN, "a bot connected over TCP");
	close(lfd);
}

Test(sandbox, hostile_bots_are_held_and_the_tournament_finishes, .timeout = 120)
{
	hostile_tournament(0);
}

/* The same as the judge's user when the tests run as root: RLIMIT_NPROC
 * and the rest work for an unprivileged judge too. */
Test(sandbox, hostile_bots_are_held_under_an_unprivileged_judge, .timeout = 120)
{
	hostile_tournament(1);
}

/* A bot folder may hold another bot's folder or the judge's output folder
 * (the repository's own bot folder holds docs/examples/python-bot and the
 * default output): the outer bot sees them as empty read-only folders. */
Test(sandbox, folders_nested_in_a_bots_folder_are_hidden_from_it, .timeout = 120)
{
	char dir[512], path[1200];
	const char *args[] = {"-q", "--no-timing", "-j2", "-f", "gauntlet", "-t", "2", "--mem-mb", "0",
			      "-o", "o2/out", "o1/in", "o1", "o2", NULL};
	FILE *f;

	test_tmpdir(dir, sizeof dir);
	snprintf(path, sizeof path, "%s/o1", dir), mkdir(path, 0755);
	snprintf(path, sizeof path, "%s/o2", dir), mkdir(path, 0755);
	test_bot_dir(dir, "in", "hard");
	snprintf(path, sizeof path, "%s/bots/in", dir);
	char inner[1200];
	snprintf(inner, sizeof inner, "%s/o1/in", dir);
	cr_assert_eq(rename(path, inner), 0);
	test_bot_dir(dir, "o1", "try-read=in/secret");
	test_bot_dir(dir, "o2", "try-write=out/tampered");
	for (int i = 1; i <= 2; i++) {
		char from[1200], to[1200];
		snprintf(from, sizeof from, "%s/bots/o%d/meta", dir, i);
		snprintf(to, sizeof to, "%s/o%d/meta", dir, i);
		cr_assert_eq(rename(from, to), 0);
	}
	snprintf(path, sizeof path, "%s/o1/in/secret", dir);
	cr_assert_not_null(f = fopen(path, "w"));
	fputs("the inner bot's learned state\n", f);
	fclose(f);
	cr_assert_eq(run_judge(dir, "judge", args), 0, "%s", test_read_file(dir, "judge.err"));
	snprintf(path, sizeof path, "%s/o2/out", dir);
	char *err = bots_stderr(path);
	cr_expect_null(strstr(err, "NOT held"), "%s", err);
	cr_expect_not_null(strstr(err, "testbot try-read=in/secret: held: No such file or directory\n"),
			   "%s", err);
	cr_expect_not_null(strstr(err, "testbot try-write=out/tampered: held: Read-only file system\n"),
			   "%s", err);
	free(err);
	snprintf(path, sizeof path, "%s/o2/out/tampered", dir);
	cr_expect_neq(access(path, F_OK), 0, "a bot wrote into the judge's output: %s", path);
	const char *json = test_read_file(dir, "o2/out/results.json");
	cr_expect_null(strstr(json, "\"forfeits\": 1"), "%s", json);
	cr_expect_not_null(strstr(json, "\"name\": \"in\""), "%s", json);
}

static uint64_t tree_bytes;

static int add_size(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)path, (void)ftw;
	if (flag == FTW_F)
		tree_bytes += (uint64_t)st->st_size;
	return 0;
}

/* The bytes of the files under dir. */
static uint64_t folder_bytes(const char *dir)
{
	tree_bytes = 0;
	nftw(dir, add_size, 16, FTW_PHYS);
	return tree_bytes;
}

/* The count of forfeits for reason of bot name in results.json text. */
static int forfeits_of(const char *json, const char *name, const char *reason)
{
	char key[128];
	const char *at;

	snprintf(key, sizeof key, "\"name\": \"%s\"", name);
	cr_assert_not_null(at = strstr(json, key), "%s in %s", key, json);
	snprintf(key, sizeof key, "\"%s\": ", reason);
	cr_assert_not_null(at = strstr(at, key), "%s in %s", key, json);
	return atoi(at + strlen(key));
}

/* A process whose working folder is dir, or 0. */
static pid_t process_in(const char *dir)
{
	DIR *procs = opendir("/proc");
	struct dirent *e;
	pid_t found = 0;

	while (procs && !found && (e = readdir(procs))) {
		char link[300], cwd[1024];
		snprintf(link, sizeof link, "/proc/%s/cwd", e->d_name);
		ssize_t n = readlink(link, cwd, sizeof cwd - 1);
		if (n > 0 && (cwd[n] = '\0', strcmp(cwd, dir) == 0))
			found = (pid_t)atoi(e->d_name);
	}
	if (procs)
		closedir(procs);
	return found;
}

#define BUDGET_MB 4
/* Bots that write without end: a file of 256 KiB before every answer, or
 * 64 files of 32 KiB a game (2 MiB) through a child that leaves the bot's
 * process group and lives on.  Unbounded, each writes some 30 MiB in its
 * 32 games; held, the total passes the budget by at most what the bot
 * writes between two looks (one answer's file, 256 KiB) or, through the
 * child, in one game (2 MiB), in each of the two games it may play at
 * once. */
static void write_budget(int drop_root)
{
	char dir[512], bots[1024], out[1024], path[1200], mb[16];
	const char *args[] = {"-q", "--no-timing", "-j2", "-f", "gauntlet", "-t", "2", "-g", "16",
			      "--max-write-mb", mb, "--bots", bots, "-o", out, "player", "spiller",
			      "kid", NULL};
	const char *names[] = {"spiller", "kid"};

	tournament_dir(dir, bots, out, drop_root);
	snprintf(mb, sizeof mb, "%d", BUDGET_MB);
	test_bot_dir(dir, "spiller", "spill=256");
	test_bot_dir(dir, "kid", "spillkid=32");
	cr_assert_eq(run_judge(dir, "judge", args), 0, "%s", test_read_file(dir, "judge.err"));
	const char *json = test_read_file(out, "results.json");
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof path, "%s/bots/%s", dir, names[i]);
		uint64_t bytes = folder_bytes(path);
		cr_expect_gt(bytes, (uint64_t)BUDGET_MB << 20, "%s wrote only %lu bytes", names[i],
			     (unsigned long)bytes);
		cr_expect_lt(bytes, (uint64_t)(BUDGET_MB + 8) << 20, "%s wrote %lu bytes", names[i],
			     (unsigned long)bytes);
		cr_expect_geq(forfeits_of(json, names[i], "write"), 2, "%s", json);
		cr_expect_eq(process_in(path), 0, "a process of %s outlived the run", names[i]);
	}
	cr_expect_eq(forfeits_of(json, "player", "write"), 0, "%s", json);
	cr_expect_not_null(strstr(test_read_file(out, "results.txt"), "write:"));
	snprintf(path, sizeof path, "%s/games/000063.res", out);
	const char *res = test_read_file(NULL, path);
	snprintf(path, sizeof path, "forfeit write errors 0 lineup 1 decisions 0 ");
	cr_expect_not_null(strstr(res, path), "the last game: not started\n%s", res);
	cr_expect_not_null(strstr(res, " MiB) in this run, over its budget of 4 MiB (--max-write-mb)"),
			   "%s", res);
}

/* A bot that passes its budget in the middle of a game forfeits that game,
 * not a later one: it writes 512 KiB before each answer, so 1 MiB is
 * passed at its third answer, long before its first game ends (the
 * judge once looked only every 32 decisions, more than a game has, and
 * such a bot won its first game after writing hundreds of MiB). */
Test(sandbox, a_bot_forfeits_the_game_in_which_it_passes_its_budget, .timeout = 120)
{
	char dir[512], bots[1024], out[1024], path[1200];
	const char *args[] = {"-q", "--no-timing", "-j1", "-f", "fixed", "-g", "1", "--max-write-mb",
			      "1", "--bots", bots, "-o", out, "spiller", "player", NULL};

	tournament_dir(dir, bots, out, 0);
	test_bot_dir(dir, "spiller", "spill=512");
	cr_assert_eq(run_judge(dir, "judge", args), 0, "%s", test_read_file(dir, "judge.err"));
	snprintf(path, sizeof path, "%s/games/000000.res", out);
	const char *res = test_read_file(NULL, path);
	cr_expect_not_null(strstr(res, "seat A spiller place 2 score"), "%s", res);
	cr_expect_not_null(strstr(res, " forfeit write "), "the first game is forfeited\n%s", res);
	/* its detail: the run's bytes, and the same in MiB (2^20 bytes) */
	const char *said = strstr(res, "wrote ");
	unsigned long long bytes = 0;
	double mib = 0;
	char want[32], got[32];
	cr_assert(said && sscanf(said, "wrote %llu bytes (%lf MiB) in this run", &bytes, &mib) == 2, "%s", res);
	snprintf(want, sizeof want, "%.1f", (double)bytes / 1048576.0);
	snprintf(got, sizeof got, "%.1f", mib);
	cr_expect_str_eq(got, want, "%llu bytes are %s MiB: %s", bytes, want, said);
	snprintf(path, sizeof path, "%s/bots/spiller", dir);
	cr_expect_lt(folder_bytes(path), (uint64_t)3 << 20, "wrote %lu bytes",
		     (unsigned long)folder_bytes(path));
}

/* replay --rerun holds the write budget as the tournament did: the bot
 * that forfeited for writing too much forfeits in the rerun too (its
 * note says so; the roll may differ by a look or two, as the judge reads
 * the kernel's count between answers), where a bot left uncounted would
 * play on. */
Test(sandbox, a_rerun_holds_the_write_budget, .timeout = 120)
{
	char dir[512], bots[1024], out[1024], tx[1100], bots_spiller[1100];
	const char *args[] = {"-q", "--no-timing", "-j1", "-f", "fixed", "-g", "1", "--max-write-mb",
			      "1", "--bots", bots, "-o", out, "spiller", "player", NULL};
	const char *rerun[] = {"replay", "--rerun", "--max-write-mb", "1", "--bots", bots, tx, NULL};

	tournament_dir(dir, bots, out, 0);
	test_bot_dir(dir, "spiller", "spill=512");
	snprintf(bots_spiller, sizeof bots_spiller, "%s/spiller", bots);
	cr_assert_eq(run_judge(dir, "judge", args), 0, "%s", test_read_file(dir, "judge.err"));
	snprintf(tx, sizeof tx, "%s/games/000000.tx", out);
	cr_assert_not_null(strstr(test_read_file(NULL, tx), "\nforfeit A "), "%s", test_read_file(NULL, tx));
	int st = run_judge(dir, "rerun", rerun);
	const char *text = test_read_file(dir, "rerun.out");
	cr_expect(st == 0 || st == 3, "%d: %s", st, text);
	cr_expect_not_null(strstr(text, "\nrerun note forfeit A spiller write\n"), "%s", text);
	const char *debug[] = {"--no-timing", "--max-write-mb", "1", "-d", bots_spiller, "hard", NULL};
	cr_assert_eq(run_judge(dir, "debug", debug), 0, "%s", test_read_file(dir, "debug.err"));
	text = test_read_file(dir, "debug.out");
	cr_expect_not_null(strstr(text, "A spiller forfeited at roll "), "a -d game too: %s", text);
	cr_expect_not_null(strstr(text, " (write: "), "a -d game too: %s", text);
}

Test(sandbox, a_bot_writing_without_end_is_held_at_its_write_budget, .timeout = 120)
{
	write_budget(0);
}

Test(sandbox, the_write_budget_holds_under_an_unprivileged_judge, .timeout = 120)
{
	write_budget(1);
}

/* dir/NAME: a tournament of our bot (learning), test bots hard and easy,
 * confined or not, from fresh bot folders. */
static void lawful_tournament(const char *dir, const char *name, const char *sandbox)
{
	char sub[700], bot[1024];
	const char *args[] = {"-q", "--no-timing", "-j1", "-g", "2", "-t", "3", "--mem-mb", "0",
			      "--sandbox", sandbox, "--bots", "bots", "-o", "out", NULL};

	snprintf(sub, sizeof sub, "%s/%s", dir, name);
	cr_assert_eq(mkdir(sub, 0755), 0);
	bot_dir(sub, "ours", test_bin("kimble-bot", bot, sizeof bot), "");
	test_bot_dir(sub, "hard", "hard");
	test_bot_dir(sub, "easy", "easy");
	cr_assert_eq(run_judge(sub, "judge", args), 0, "%s", test_read_file(sub, "judge.err"));
}

/* text with the 16 hex digits after "fingerprint X " and " fp " zeroed:
 * the fingerprint hashes LMDB's raw file bytes, which differ from run to
 * run even unconfined (two --sandbox off runs differ); the learned content
 * is compared with kimble-state export instead. */
static void zero_after(char *text, const char *key, size_t skip)
{
	for (char *p = text; (p = strstr(p, key));) {
		p += strlen(key) + skip;
		for (int i = 0; i < 16 && isxdigit((unsigned char)*p); i++)
			*p++ = '0';
	}
}

static char *without_fingerprints(const char *text)
{
	char *copy = strdup(text);

	zero_after(copy, " fp ", 0);
	zero_after(copy, "fingerprint ", 2);
	return copy;
}

/* Are dir/on/REL and dir/off/REL the same bytes (but fingerprints)? */
static void expect_same(const char *dir, const char *rel)
{
	char a[1400], b[1400];

	snprintf(a, sizeof a, "%s/on/%s", dir, rel);
	snprintf(b, sizeof b, "%s/off/%s", dir, rel);
	char *text_a = without_fingerprints(test_read_file(NULL, a));
	char *text_b = without_fingerprints(test_read_file(NULL, b));
	cr_expect_str_eq(text_a, text_b, "%s and %s differ", a, b);
	free(text_a);
	free(text_b);
}

/* kimble-state export of dir/NAME/bots/ours into dir/NAME/state.txt. */
static void export_state(const char *dir, const char *name)
{
	char bin[1024], store[1200], out[1200];
	test_proc p;

	snprintf(store, sizeof store, "%s/%s/bots/ours/kimble-state", dir, name);
	snprintf(out, sizeof out, "%s/%s/state.txt", dir, name);
	char *argv[] = {(char *)test_bin("kimble-state", bin, sizeof bin), "--state", store, "export",
			out, NULL};
	cr_assert_eq(test_spawn(&p, argv, dir, 0, 0, NULL), 0);
	int st = test_wait(&p, RUN_MS);
	cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "kimble-state export %s", store);
}

Test(sandbox, lawful_bots_play_the_same_confined_or_not_and_ours_learns, .timeout = 180)
{
	char dir[512], pattern[1200], state[1200];
	glob_t g;

	test_tmpdir(dir, sizeof dir);
	lawful_tournament(dir, "on", "on");
	lawful_tournament(dir, "off", "off");
	expect_same(dir, "out/results.txt");
	expect_same(dir, "out/results.json");
	cr_expect(strlen(test_read_file(dir, "on/out/results.txt")) > 100);
	/* Transcripts and results; not the bots' stderr: under a root judge a
	 * confined bot cannot ptrace itself (docs/sandbox.md), so an ASan
	 * build's leak check says so there. */
	snprintf(pattern, sizeof pattern, "%s/on/out/games/*.[rt][ex]*", dir);
	cr_assert_eq(glob(pattern, 0, NULL, &g), 0);
	cr_expect_eq(g.gl_pathc, 6u * 2, "every game's transcript and result");
	for (size_t i = 0; i < g.gl_pathc; i++) {
		char rel[300];
		snprintf(rel, sizeof rel, "out/games/%s", strrchr(g.gl_pathv[i], '/') + 1);
		expect_same(dir, rel);
	}
	globfree(&g);
	export_state(dir, "on");
	export_state(dir, "off");
	snprintf(state, sizeof state, "%s/on/state.txt", dir);
	cr_expect(strlen(test_read_file(NULL, state)) > 0, "our bot learned nothing in its folder");
	expect_same(dir, "state.txt");
}

/* Layer 1 grants /etc entry by entry: a confined bot reads the entries
 * that are no secrets, also files whose names are as long as a secret's
 * folder part ("ssl/private", "security/opasswd": 3 and 8 letters). */
Test(sandbox, etc_files_that_are_no_secrets_are_readable, .timeout = 120)
{
	/* and /usr outside what /bin and /lib lead to on a merged /usr: the
	 * first folder layer 2 grants (a loop that skipped it went unseen) */
	static const char *const files[] = {"/etc/services", "/etc/networks", "/etc/rpc", "/etc/passwd",
					    "/usr/include/stdio.h"};
	char dir[512], mode[64], name[16], path[1200];
	int tried = 0;

	test_tmpdir(dir, sizeof dir);
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		if (access(files[i], R_OK) != 0)
			continue;
		snprintf(mode, sizeof mode, "try-read=%s", files[i]);
		snprintf(name, sizeof name, "r%zu", i);
		test_bot_dir(dir, name, mode);
		snprintf(path, sizeof path, "bots/%s", name);
		const char *debug[] = {"--no-timing", "-d", path, NULL};
		run_judge(dir, name, debug);
		snprintf(path, sizeof path, "%s.out", name); /* -d shows the bot's stderr */
		snprintf(mode, sizeof mode, "A! testbot try-read=%s: NOT held\n", files[i]);
		cr_expect_not_null(strstr(test_read_file(dir, path), mode), "%.2000s", test_read_file(dir, path));
		tried++;
	}
	if (!tried)
		cr_skip_test("none of the /etc files to read is here");
}

/* A bot that reads its sibling's file when it can, and exits at its first
 * decision when it could: confined, -d and replay --rerun see it play. */
Test(sandbox, debug_game_and_rerun_are_confined, .timeout = 120)
{
	char dir[512];
	const char *tour[] = {"-q", "--no-timing", "-f", "gauntlet", "-t", "2", "--bots", "bots",
			      "-o", "out", "sib", "reader", NULL};
	const char *debug_on[] = {"-d", "bots/reader", "bots/sib", NULL};
	const char *debug_off[] = {"--sandbox", "off", "-d", "bots/reader", "bots/sib", NULL};
	const char *rerun_on[] = {"replay", "--rerun", "--bots", "bots", "out/games/000000.tx", NULL};
	const char *rerun_off[] = {"replay", "--rerun", "--sandbox", "off", "--bots", "bots",
				   "out/games/000000.tx", NULL};

	test_tmpdir(dir, sizeof dir);
	test_bot_dir(dir, "sib", "hard");
	test_bot_dir(dir, "reader", "try-read=../sib/meta");
	cr_assert_eq(run_judge(dir, "tour", tour), 0, "%s", test_read_file(dir, "tour.err"));
	cr_assert_eq(run_judge(dir, "debug_on", debug_on), 0);
	cr_expect_null(strstr(test_read_file(dir, "debug_on.out"), "forfeit"), "%s",
		       test_read_file(dir, "debug_on.out"));
	cr_assert_eq(run_judge(dir, "debug_off", debug_off), 0);
	cr_expect_not_null(strstr(test_read_file(dir, "debug_off.out"), "A reader forfeited at roll "),
			   "%s", test_read_file(dir, "debug_off.out"));
	cr_expect_not_null(strstr(test_read_file(dir, "debug_off.out"), " (exit: "), "%s",
			   test_read_file(dir, "debug_off.out"));
	cr_expect_eq(run_judge(dir, "rerun_on", rerun_on), 0, "%s",
		     test_read_file(dir, "rerun_on.out"));
	cr_expect_eq(run_judge(dir, "rerun_off", rerun_off), 3, "%s",
		     test_read_file(dir, "rerun_off.out"));
}

Test(sandbox, help_states_the_rules_and_a_bad_value_is_refused, .timeout = 30)
{
	char dir[512];
	const char *help[] = {"--help", NULL};
	const char *bad[] = {"--sandbox", "maybe", "hard", "hard", NULL};

	test_tmpdir(dir, sizeof dir);
	cr_assert_eq(run_judge(dir, "help", help), 0);
	const char *text = test_read_file(dir, "help.out");
	cr_expect_not_null(strstr(text, "--sandbox on|off"), "%s", text);
	cr_expect_not_null(strstr(text, "--max-procs N"), "%s", text);
	cr_expect_not_null(strstr(text, "--max-file-mb N"), "%s", text);
	cr_expect_not_null(strstr(text, "--max-write-mb N"), "%s", text);
	cr_assert_neq(run_judge(dir, "bad", bad), 0); /* a usage error */
	cr_expect_not_null(strstr(test_read_file(dir, "bad.err"), "expected on or off"));
}

/* As on a kernel without Landlock: landlock_create_ruleset fails with
 * ENOSYS in this test's process and its children (a seccomp filter). */
static void hide_landlock(void)
{
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
	test_fail_syscall(SYS_landlock_create_ruleset, ENOSYS);
}

Test(sandbox, a_kernel_that_cannot_confine_is_named_and_refused, .timeout = 60)
{
	char dir[512], out[700];
	const char *tour[] = {"-q", "--no-timing", "--bots", "bots", "-o", "out", "a", "b", NULL};
	const char *debug[] = {"-d", "bots/a", NULL};
	const char *off[] = {"-q", "--no-timing", "--sandbox", "off", "--bots", "bots", "-o", "out",
			     "a", "b", NULL};

	test_tmpdir(dir, sizeof dir);
	test_bot_dir(dir, "a", "hard");
	test_bot_dir(dir, "b", "hard");
	hide_landlock();
	cr_assert_eq(run_judge(dir, "tour", tour), 2);
	const char *err = test_read_file(dir, "tour.err");
	cr_expect_not_null(strstr(err, "cannot confine bots: this kernel has no Landlock"), "%s", err);
	cr_expect_not_null(strstr(err, "--sandbox off"), "%s", err);
	snprintf(out, sizeof out, "%s/out", dir);
	cr_expect_neq(access(out, F_OK), 0, "refused, yet %s was created", out);
	cr_expect_eq(run_judge(dir, "debug", debug), 2);
	cr_assert_eq(run_judge(dir, "off", off), 0, "%s", test_read_file(dir, "off.err"));
	cr_expect_not_null(strstr(test_read_file(out, "results.txt"), "a "));
}

/* The same in the judge's own process: kj_sandbox_init says the kernel
 * cannot confine, and the ABI it reports is 0 (none), not the failed
 * call's -1 or any version. */
Test(sandbox, no_landlock_is_abi_0, .timeout = 30)
{
	kb_err err;

	hide_landlock();
	cr_assert_eq(kj_sandbox_init(&err), KJ_SANDBOX_UNSUPPORTED);
	cr_assert(strstr(err.msg, "this kernel has no Landlock") != NULL, "%s", err.msg);
	cr_assert_eq(kj_sandbox_abi(), 0);
	cr_assert_eq(kj_sandbox_init(&err), KJ_SANDBOX_UNSUPPORTED, "the first call's outcome again");
}

/* A probe that fails at a step other than the six that kj_sandbox_init
 * names by its exit status (here the mount that hides a folder nested in
 * the bot's folder, refused by a seccomp filter) is reported as "a
 * confined probe", and the probe process ends there: it never returns
 * into its parent's code. */
Test(sandbox, a_probe_failing_at_an_unnamed_step_says_so, .timeout = 30)
{
	char dir[512], inner[600];
	pid_t self = getpid();
	kb_err err;

	test_tmpdir(dir, sizeof dir);
	snprintf(inner, sizeof inner, "%s/inner", dir);
	cr_assert_eq(mkdir(inner, 0700), 0);
	cr_assert_eq(kj_sandbox_hide(inner), 0);
	cr_assert_eq(chdir(dir), 0, "the bot's folder, which holds a folder to hide");
	/* its outcome is err's message alone: nothing on stderr (where the
	 * ASan build reports a probe that reads past its list of steps) */
	int saved = dup(2), to = open("stderr", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	cr_assert(saved >= 0 && to >= 0 && dup2(to, 2) == 2);
	test_fail_syscall(SYS_mount, EPERM);
	int rc = kj_sandbox_init(&err);
	if (getpid() != self)
		_exit(0); /* the probe came back here: end it as a test would end */
	cr_assert(dup2(saved, 2) == 2 && close(saved) == 0 && close(to) == 0);
	cr_assert_str_eq(test_read_file(dir, "stderr"), "", "the probe wrote on stderr");
	cr_assert_eq(rc, KJ_SANDBOX_UNSUPPORTED, "%s", err.msg);
	cr_assert_str_eq(err.msg, "cannot confine bots: a confined probe failed in a probe process "
			 "(user namespaces or seccomp unavailable?); --sandbox off runs bots "
			 "unconfined (trusted bots only)");
}

/* A probe failing at a named step other than the first (the user
 * namespace, refused by a seccomp filter) names that step: the probe's
 * exit status carries the step's place in the list. */
Test(sandbox, a_probe_failing_at_the_user_namespace_names_it, .timeout = 30)
{
	char dir[512];
	pid_t self = getpid();
	kb_err err;

	test_tmpdir(dir, sizeof dir);
	cr_assert_eq(chdir(dir), 0);
	test_fail_syscall(SYS_unshare, EPERM);
	int rc = kj_sandbox_init(&err);
	if (getpid() != self)
		_exit(0);
	cr_assert_eq(rc, KJ_SANDBOX_UNSUPPORTED, "%s", err.msg);
	cr_assert(strstr(err.msg, "unshare(CLONE_NEWUSER)"), "%s", err.msg);
}

/* 1 when descriptor fd is held open on purpose by kj_sandbox_init: a
 * path handle (O_PATH) or a Landlock ruleset. */
static int held_on_purpose(int fd)
{
	char path[64], line[128], link[128];
	int is_path = 0;

	snprintf(path, sizeof path, "/proc/self/fdinfo/%d", fd);
	FILE *f = fopen(path, "r");
	if (!f)
		return 1; /* the directory stream of the caller's listing */
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, "flags:", 6))
			is_path = (strtoul(line + 6, NULL, 8) & O_PATH) != 0;
	fclose(f);
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(path, link, sizeof link - 1);
	link[n > 0 ? n : 0] = '\0';
	return is_path || strstr(link, "landlock") != NULL;
}

/* kj_sandbox_init keeps the system folders open as path handles and its
 * rulesets, and nothing else: the folders it lists to build layer 1 are
 * closed again. */
Test(sandbox, init_keeps_only_path_handles_open, .timeout = 30)
{
	kb_err err;
	uint8_t before[4096] = {0};
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	cr_assert_not_null(d);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && atoi(e->d_name) < 4096)
			before[atoi(e->d_name)] = 1;
	closedir(d);
	if (kj_sandbox_init(&err) != 0)
		cr_skip_test("cannot confine here: %s", err.msg);
	cr_assert_not_null(d = opendir("/proc/self/fd"));
	int kept = 0;
	while ((e = readdir(d))) {
		int fd = atoi(e->d_name);
		if (e->d_name[0] == '.' || fd == dirfd(d) || (fd < 4096 && before[fd]))
			continue;
		cr_expect(held_on_purpose(fd), "descriptor %d left open by kj_sandbox_init", fd);
		kept++;
	}
	closedir(d);
	cr_assert_gt(kept, 0, "the system folders are held");
}

/* A meta command without '/' is looked up in PATH by the judge itself:
 * -d shows the file that runs.  Confined, a first match outside the
 * system folders (a pyenv shim, here a shell script in the test's folder)
 * cannot run: the judge says so, names the path and the remedies, and runs
 * the system one; unconfined, the first match runs, as which(1) says. */
Test(sandbox, command_looked_up_in_path_is_shown_and_checked, .timeout = 60)
{
	char dir[512], path[1200], bin[1024], env[1400];
	const char *on[] = {"-d", "bots/s", "--no-timing", NULL};
	const char *off[] = {"--sandbox", "off", "-d", "bots/s", "--no-timing", NULL};
	FILE *f;

	test_tmpdir(dir, sizeof dir);
	test_root_path("build/rel/testbots/testbot", bin, sizeof bin);
	bot_dir(dir, "s", "sh", "run.sh hard");
	snprintf(path, sizeof path, "%s/bots/s/run.sh", dir);
	cr_assert_not_null(f = fopen(path, "w"));
	fprintf(f, "exec '%s' \"$@\"\n", bin);
	fclose(f);
	snprintf(path, sizeof path, "%s/shim", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof path, "%s/shim/sh", dir);
	cr_assert_not_null(f = fopen(path, "w"));
	fprintf(f, "#!/bin/sh\necho ran > '%s/shim/ran'\nexec /bin/sh \"$@\"\n", dir);
	fclose(f);
	chmod(path, 0755);
	snprintf(env, sizeof env, "%s/shim:/usr/bin:/bin", dir);
	setenv("PATH", env, 1);

	cr_assert_eq(run_judge(dir, "on", on), 0, "%s", test_read_file(dir, "on.err"));
	const char *out = test_read_file(dir, "on.out");
	cr_assert_not_null(strstr(out, ": /usr/bin/sh run.sh hard "), "the resolved system path:\n%.300s", out);
	const char *err = test_read_file(dir, "on.err");
	snprintf(path, sizeof path, "%s/shim/sh", dir);
	cr_assert_not_null(strstr(err, path), "the warning names the shim: %s", err);
	cr_assert_not_null(strstr(err, "--sandbox off"), "%s", err);
	cr_assert_not_null(strstr(err, "absolute system path"), "%s", err);
	cr_assert_str_eq(test_read_file(dir, "shim/ran"), "", "the shim did not run confined");

	cr_assert_eq(run_judge(dir, "off", off), 0, "%s", test_read_file(dir, "off.err"));
	snprintf(env, sizeof env, ": %s/shim/sh run.sh hard ", dir);
	cr_assert_not_null(strstr(test_read_file(dir, "off.out"), env), "%.300s", test_read_file(dir, "off.out"));
	cr_assert_str_eq(test_read_file(dir, "shim/ran"), "ran\n");
}
