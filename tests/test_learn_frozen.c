/* test_learn_frozen.c - learning frozen across the programs: kimble-judge
 * --no-learn and replay --rerun running the repository's own bot (its
 * meta) leave the bot's store byte for byte as it was and repeat exactly,
 * and the learned-state fingerprint follows what was learned, not lock
 * files. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/hash.h"
#include "judge/bots.h"
#include "support.h"
#include "test_bot_fake.h"

#define RUN_MS 100000
#define MAX_FILES 64

static void write_text(const char *path, const char *text)
{
	test_write_file(path, "%s", text);
}

/* A copy of the repository's bot folder in dir/bot: the repository's meta
 * byte for byte, and bin linked to the folder of the programs under test
 * ($KB_BIN), so the judge runs the repository's own bot as `kimble-judge
 * .` in the repository does, with the test's own store dir/bot/kimble-state. */
static void repo_bot(const char *dir, char bot[600])
{
	char meta[1024], bin[1024], real[PATH_MAX], path[700];

	unsetenv("KIMBLE_STATE"); /* the store of the folder, whatever the caller's */
	snprintf(bot, 600, "%s/bot", dir);
	cr_assert_eq(mkdir(bot, 0755), 0);
	const char *text = test_read_file(NULL, test_root_path("meta", meta, sizeof meta));
	cr_assert(text[0], "%s: the repository's meta is missing (set KB_ROOT)", meta);
	snprintf(path, sizeof path, "%s/meta", bot);
	write_text(path, text);
	cr_assert_not_null(realpath(test_bin("kimble-bot", bin, sizeof bin), real), "%s", bin);
	snprintf(path, sizeof path, "%s/bin", bot);
	cr_assert_eq(symlink(dirname(real), path), 0, "link %s", path);
}

/* Run program prog (under test) with args in cwd, stdout to cwd/name.out
 * and stderr to cwd/name.err (through sh, which redirects and then execs
 * it).  Returns the exit status. */
static int run(const char *cwd, const char *name, const char *prog, const char *const args[])
{
	char bin[1024], err[1024], *argv[40] = {"/bin/sh", "-c", "out=$1; shift; exec \"$@\" > \"$out\"",
						"sh", NULL};
	char out[1024];
	int n = 4, st;
	test_proc p;

	snprintf(out, sizeof out, "%s/%s.out", cwd, name);
	snprintf(err, sizeof err, "%s/%s.err", cwd, name);
	argv[n++] = out;
	argv[n++] = (char *)test_bin(prog, bin, sizeof bin);
	while (*args && n < 39)
		argv[n++] = (char *)*args++;
	argv[n] = NULL;
	cr_assert_eq(test_spawn(&p, argv, cwd, 0, 0, err), 0);
	st = test_wait(&p, RUN_MS);
	cr_assert(st >= 0 && WIFEXITED(st), "%s %s did not finish", prog, name);
	return WEXITSTATUS(st);
}

/* The bot played every game of the tournament in out to its end: its
 * line in results.txt ends in the forfeits column "-" (two identical runs
 * of crashing bots would prove nothing). */
static void no_forfeits(const char *out)
{
	const char *text = test_read_file(out, "results.txt");
	const char *line = strstr(text, "\nkimble-bot "), *end = line ? strchr(line + 1, '\n') : NULL;

	cr_assert_not_null(end, "%s/results.txt: no line of kimble-bot: %s", out, text);
	while (end[-1] == ' ')
		end--;
	cr_assert(end[-1] == '-' && end[-2] == ' ', "%s/results.txt: forfeits: %s", out, text);
}

/* The judge's --mem-mb 0 in both runs: no address-space limit, which the
 * ASan+UBSan build of the bot (make test's second run) cannot start under. */

/* A learning tournament of the bot against the built-ins: 4 games. */
static void learn_some(const char *dir, const char *bot)
{
	char out[700];
	const char *args[] = {"-q", "--no-timing", "--mem-mb", "0", "-f", "gauntlet", "-t", "4",
			      "-g", "1", "-s", "5", "-o", out, bot, "hard", "easy", "random", NULL};

	snprintf(out, sizeof out, "%s/learn", dir);
	cr_assert_eq(run(dir, "learn", "kimble-judge", args), 0, "%s",
		     test_read_file(dir, "learn.err"));
	no_forfeits(out);
}

/* The frozen tournament of the issue: kimble-judge -q --no-timing
 * --no-learn -f gauntlet -t 4 -g G -s 11 -o OUT BOT hard easy random
 * (and --mem-mb 0). */
static void frozen_run(const char *dir, const char *name, const char *bot, const char *games)
{
	char out[700], err[300];
	const char *args[] = {"-q", "--no-timing", "--mem-mb", "0", "--no-learn", "-f", "gauntlet",
			      "-t", "4", "-g", games, "-s", "11", "-o", out, bot, "hard", "easy",
			      "random", NULL};

	snprintf(out, sizeof out, "%s/%s", dir, name);
	snprintf(err, sizeof err, "%s.err", name);
	cr_assert_eq(run(dir, name, "kimble-judge", args), 0, "%s", test_read_file(dir, err));
	no_forfeits(out);
}

/* The regular files of a folder: names, sizes and FNV-1a of their bytes. */
typedef struct files {
	int n;
	char name[MAX_FILES][256];
	long long size[MAX_FILES];
	uint64_t hash[MAX_FILES];
} files;

static void list_files(const char *dir, files *fs)
{
	struct dirent **list;
	int n = scandir(dir, &list, NULL, alphasort);

	memset(fs, 0, sizeof *fs);
	cr_assert_geq(n, 0, "cannot read %s", dir);
	for (int i = 0; i < n; i++) {
		char path[1024];
		struct stat st;
		snprintf(path, sizeof path, "%s/%s", dir, list[i]->d_name);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && fs->n < MAX_FILES) {
			snprintf(fs->name[fs->n], sizeof fs->name[0], "%s", list[i]->d_name);
			fs->size[fs->n] = (long long)st.st_size;
			fs->hash[fs->n] = KB_FNV_OFFSET;
			cr_assert_eq(kb_fnv1a_file(&fs->hash[fs->n], path), 0, "cannot read %s", path);
			fs->n++;
		}
		free(list[i]);
	}
	free(list);
}

static void same_files(const files *a, const files *b, const char *what)
{
	cr_assert_eq(a->n, b->n, "%s: %d files, then %d", what, a->n, b->n);
	for (int i = 0; i < a->n; i++) {
		cr_assert_str_eq(a->name[i], b->name[i], "%s", what);
		cr_assert(a->size[i] == b->size[i] && a->hash[i] == b->hash[i],
			  "%s: %s changed (%lld bytes, then %lld)", what, a->name[i], a->size[i],
			  b->size[i]);
	}
}

/* diff -r a b finds nothing: the same files in the same folders with the
 * same bytes.  Returns the number of files. */
static int same_tree(const char *a, const char *b)
{
	files fa, fb;
	struct dirent **list;
	int n = scandir(a, &list, NULL, alphasort), count;

	list_files(a, &fa);
	list_files(b, &fb);
	same_files(&fa, &fb, a);
	count = fa.n;
	for (int i = 0; i < n; i++) {
		char sa[1024], sb[1024];
		struct stat st;
		snprintf(sa, sizeof sa, "%s/%s", a, list[i]->d_name);
		snprintf(sb, sizeof sb, "%s/%s", b, list[i]->d_name);
		if (list[i]->d_name[0] != '.' && stat(sa, &st) == 0 && S_ISDIR(st.st_mode)) {
			cr_assert(stat(sb, &st) == 0 && S_ISDIR(st.st_mode), "%s missing", sb);
			count += same_tree(sa, sb);
		}
		free(list[i]);
	}
	free(list);
	return count;
}

static void store_of(const char *bot, char store[700])
{
	snprintf(store, 700, "%s/kimble-state", bot);
}

/* A fresh test folder dir with the repository's bot in bot (repo_bot),
 * after a learning run: its store is store. */
static void learned_bot(char dir[256], char bot[600], char store[700])
{
	test_tmpdir(dir, 256);
	repo_bot(dir, bot);
	learn_some(dir, bot);
	store_of(bot, store);
	char data[800];
	struct stat st;
	snprintf(data, sizeof data, "%s/data.mdb", store);
	cr_assert_eq(stat(data, &st), 0, "the learning run made %s", data);
}

/* (a) */
Test(frozen, judge_runs_with_the_repository_bot_are_byte_identical, .timeout = 300)
{
	char dir[256], bot[600], store[700], o1[300], o2[300];

	learned_bot(dir, bot, store);
	frozen_run(dir, "d1", bot, "3");
	frozen_run(dir, "d2", bot, "3");
	snprintf(o1, sizeof o1, "%s/d1", dir);
	snprintf(o2, sizeof o2, "%s/d2", dir);
	cr_assert_eq(same_tree(o1, o2), 3 + 2 * 12,
		     "results.txt, results.json, report.html and 12 games with .tx and .res");
	const char *res = test_read_file(o1, "games/000000.res");
	const char *seat = strstr(res, "seat A kimble-bot"), *eol = seat ? strchr(seat, '\n') : NULL;
	cr_assert(eol && strncmp(eol - 5, " fp -", 5) != 0,
		  "the bot plays seat A with a learned state: %s", res);
}

/* (b) through the judge */
Test(frozen, judge_run_leaves_every_store_file_untouched, .timeout = 300)
{
	char dir[256], bot[600], store[700];
	files before, after;

	learned_bot(dir, bot, store);
	list_files(store, &before);
	frozen_run(dir, "d1", bot, "3");
	list_files(store, &after);
	same_files(&before, &after, "store after a --no-learn run");
}

/* Play one game of kimble-bot OPPS in folder dir (default store) against
 * the scripted server. */
static void play_bot(const char *dir, const char *opps)
{
	char bin[1024], err[1024];
	char *argv[] = {(char *)test_bin("kimble-bot", bin, sizeof bin), (char *)opps, "7",
			"--budget-ms", "0", NULL};
	test_proc p;
	fake_game f;

	snprintf(err, sizeof err, "%s/bot.err", dir);
	cr_assert_eq(test_spawn(&p, argv, dir, 1, 1, err), 0);
	fake_init(&f, 99);
	int winner = fake_play_pipes(&f, p.out, p.in, RUN_MS);
	fake_free(&f);
	close(p.in);
	close(p.out);
	int st = test_wait(&p, RUN_MS);
	cr_assert(winner >= 0 && st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "bot: %s",
		  test_read_file(dir, "bot.err"));
}

/* (b) the bot alone, with KIMBLE_LEARN=0 in its environment */
Test(frozen, bot_with_kimble_learn_0_leaves_store_untouched, .timeout = 120)
{
	char dir[256], bot[600], store[700];
	files before, after;

	learned_bot(dir, bot, store);
	list_files(store, &before);
	setenv("KIMBLE_LEARN", "0", 1);
	play_bot(bot, "random,hard,bob");
	list_files(store, &after);
	same_files(&before, &after, "store after a KIMBLE_LEARN=0 game");
	/* the same game learning: the store does change (it is the one used) */
	unsetenv("KIMBLE_LEARN");
	play_bot(bot, "random,hard,bob");
	list_files(store, &after);
	cr_assert(after.n >= 1 && (after.size[0] != before.size[0] || after.hash[0] != before.hash[0]),
		  "a learning game changes %s/%s", store, after.name[0]);
}

Test(frozen, missing_store_is_not_created, .timeout = 120)
{
	char dir[256], bot[600], store[700];
	struct stat st;

	test_tmpdir(dir, sizeof dir);
	repo_bot(dir, bot);
	store_of(bot, store);
	setenv("KIMBLE_LEARN", "0", 1);
	play_bot(bot, "random,hard,bob");
	cr_assert_neq(stat(store, &st), 0, "%s was created with learning frozen", store);
	const char *err = test_read_file(bot, "bot.err");
	cr_assert_not_null(strstr(err, "learning frozen: no store"), "stderr: %s", err);
}

/* (c) */
Test(frozen, rerun_of_every_game_agrees_and_state_unchanged, .timeout = 300)
{
	char dir[256], bot[600], store[700], tx[400];
	files before, after;

	learned_bot(dir, bot, store);
	frozen_run(dir, "d1", bot, "2");
	list_files(store, &before);
	for (int round = 0; round < 2; round++)
		for (int g = 0; g < 8; g++) {
			snprintf(tx, sizeof tx, "%s/d1/games/%06d.tx", dir, g);
			const char *args[] = {"replay", "--rerun", "--mem-mb", "0", tx, bot, NULL};
			int rc = run(dir, "rerun", "kimble-judge", args);
			const char *out = test_read_file(dir, "rerun.out");
			cr_assert_eq(rc, 0, "rerun of game %d (round %d): %s", g, round, out);
			cr_assert(strstr(out, "rerun agrees"), "game %d: %s", g, out);
			cr_assert(strstr(out, "kimble-bot's learned state unchanged"), "game %d: %s", g, out);
			cr_assert_null(strstr(out, "changed since"), "game %d: %s", g, out);
		}
	list_files(store, &after);
	same_files(&before, &after, "store after 16 reruns");
}

static void fingerprint_of(const char *bot, char fp[17])
{
	kj_bot b;
	kb_err err;

	cr_assert_eq(kj_bot_load(bot, &b, &err), 0, "%s", err.msg);
	kj_bot_fingerprint(&b, fp);
	cr_assert_neq(strcmp(fp, "-"), 0, "%s has a store", bot);
}

/* (d) */
Test(frozen, fingerprint_follows_learning_not_opening, .timeout = 120)
{
	char dir[256], bot[600], store[700], fp1[17], fp2[17];
	const char *args[] = {"--state", store, "list", NULL};

	learned_bot(dir, bot, store);
	fingerprint_of(bot, fp1);
	/* kimble-state opens the store with LMDB's lock (it rewrites lock.mdb) */
	cr_assert_eq(run(dir, "list", "kimble-state", args), 0, "%s",
		     test_read_file(dir, "list.err"));
	cr_assert(strstr(test_read_file(dir, "list.out"), "random"));
	fingerprint_of(bot, fp2);
	cr_assert_str_eq(fp1, fp2, "opening the store changed the fingerprint");
	unsetenv("KIMBLE_LEARN");
	play_bot(bot, "random,hard,bob");
	fingerprint_of(bot, fp2);
	cr_assert_str_neq(fp1, fp2, "a learning game must change the fingerprint");
}

/* Any bot's state folder: lock files do not count, every other file does. */
Test(frozen, fingerprint_of_a_state_folder_skips_lock_files, .timeout = 30)
{
	char dir[256], path[600], fp1[17], fp2[17];

	test_tmpdir(dir, sizeof dir);
	snprintf(path, sizeof path, "%s/meta", dir);
	write_text(path, "other\npython3\nbot.py\n0\nst\n");
	snprintf(path, sizeof path, "%s/st", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof path, "%s/st/model.txt", dir);
	write_text(path, "weights 1 2 3\n");
	snprintf(path, sizeof path, "%s/st/lock.mdb", dir);
	write_text(path, "readers 1\n");
	fingerprint_of(dir, fp1);
	write_text(path, "readers 2\n");
	snprintf(path, sizeof path, "%s/st/db-lock", dir);
	write_text(path, "x\n");
	fingerprint_of(dir, fp2);
	cr_assert_str_eq(fp1, fp2, "lock files changed the fingerprint");
	snprintf(path, sizeof path, "%s/st/model.txt", dir);
	write_text(path, "weights 1 2 4\n");
	fingerprint_of(dir, fp2);
	cr_assert_str_neq(fp1, fp2, "the learned file changed");
}
