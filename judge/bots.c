/* bots.c - participants: built-ins and meta bot directories; see bots.h. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bots.h"
#include "sandbox.h"
#include "core/hash.h"
#include "core/policy.h"
#include "core/store.h"

/* fmt takes a path (clipped to its last 100 characters), a line number
 * and a word. */
static int fail(kb_err *err, const char *fmt, const char *a, int line, const char *b)
{
	char clip[101];
	size_t n = strlen(a);

	if (n > 100)
		a += n - 100;
	memcpy(clip, a, strlen(a) + 1);
	if (err)
		snprintf(err->msg, sizeof err->msg, fmt, clip, line, b);
	return -1;
}

static void chomp(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
}

/* Returns 1 when a word is left over: an argument is never dropped
 * silently. */
static int split_args(kj_bot *bot)
{
	char *save = NULL, *w = strtok_r(bot->argbuf, " \t", &save);

	bot->argc = 0;
	for (; w && bot->argc < KJ_MAX_ARGS - 1; w = strtok_r(NULL, " \t", &save))
		bot->argv[bot->argc++] = w;
	bot->argv[bot->argc] = NULL;
	return w != NULL;
}

/* Fill bot->path and bot->syspath from PATH for a command without '/'
 * (execvp's search, done here so that the judge knows what will run). */
static void find_in_path(kj_bot *bot)
{
	const char *env = getenv("PATH");
	char list[4096], file[sizeof bot->path];
	char *save = NULL;

	if (strchr(bot->cmd, '/'))
		return;
	snprintf(list, sizeof list, "%s", env ? env : "/usr/local/bin:/usr/bin:/bin");
	for (char *d = strtok_r(list, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		struct stat st;
		int n = d[0] == '/' ? snprintf(file, sizeof file, "%s/%s", d, bot->cmd)
				    : snprintf(file, sizeof file, "%s/%s/%s", bot->dir, d, bot->cmd);
		if (n >= (int)sizeof file || stat(file, &st) || !S_ISREG(st.st_mode) || access(file, X_OK))
			continue;
		if (!bot->path[0])
			memcpy(bot->path, file, sizeof file);
		if (kj_sandbox_may_run(bot, file)) {
			memcpy(bot->syspath, file, sizeof file);
			return;
		}
	}
}

const char *kj_bot_command(const kj_bot *bot, int confined, FILE *warn)
{
	/* Bot folders warned about (64: KJ_MAX_BOTS).  Workers are forked
	 * copies of the judge: they inherit this list, so the judge calls this
	 * once per bot before the games start (main.c) and no game repeats it. */
	static char warned[64][512];
	static int nwarned;

	if (!bot->path[0])
		return bot->cmd;
	if (!confined || kj_sandbox_may_run(bot, bot->path))
		return bot->path;
	int seen = 0;
	for (int i = 0; i < nwarned && !seen; i++)
		seen = !strcmp(warned[i], bot->dir);
	if (!seen && warn) {
		fprintf(warn,
			"kimble-judge: warning: bot %s: its command %s is %s (first in PATH), which a "
			"confined bot may not run (only below /usr, /bin, /sbin, /lib*, /opt, /etc and its "
			"own folder); %s%s%s. Write an absolute system path on line 2 of %s/meta, or use "
			"--sandbox off for trusted bots.\n",
			bot->name, bot->cmd, bot->path, bot->syspath[0] ? "running " : "it will not start",
			bot->syspath[0] ? bot->syspath : "", bot->syspath[0] ? " instead" : "", bot->dir);
		if (nwarned < 64)
			snprintf(warned[nwarned++], sizeof warned[0], "%s", bot->dir);
	}
	return bot->syspath[0] ? bot->syspath : bot->path;
}

int kj_bot_load(const char *dir, kj_bot *bot, kb_err *err)
{
	char path[1024], line[512];
	char *fields[5] = {bot->name, bot->cmd, bot->argbuf, line, bot->state};
	size_t sizes[5] = {sizeof bot->name, sizeof bot->cmd, sizeof bot->argbuf, sizeof line,
			   sizeof bot->state};
	static const char *const what[5] = {"a name", "a command", "an arguments line",
					    "a stderr flag 0 or 1", "a state path"};
	FILE *f;
	int n = 0;

	memset(bot, 0, sizeof *bot);
	if (!realpath(dir, bot->dir))
		return fail(err, "%s%.0d%s: no such bot directory", dir, 0, "");
	snprintf(path, sizeof path, "%s/meta", bot->dir);
	if (!(f = fopen(path, "r")))
		return fail(err, "%s%.0d: cannot open: %s (a bot folder holds a meta file: "
			    "docs/tutorial.md)", path, 0, strerror(errno));
	while (n < 5) {
		char buf[1024];
		if (!fgets(buf, sizeof buf, f))
			break;
		chomp(buf);
		if (strlen(buf) >= sizes[n]) { /* never cut a field silently */
			fclose(f);
			return fail(err, "%s:%d: %s is too long", path, n + 1, what[n]);
		}
		snprintf(fields[n], sizes[n], "%s", buf);
		n++;
	}
	fclose(f);
	if (n < 4)
		return fail(err, "%s:%d: missing line, expected %s", path, n + 1, what[n]);
	if (!bot->name[0] || strpbrk(bot->name, " \t"))
		return fail(err, "%s:%d: expected %s (one word)", path, 1, what[0]);
	if (!bot->cmd[0])
		return fail(err, "%s:%d: expected %s", path, 2, what[1]);
	if (strcmp(line, "0") && strcmp(line, "1"))
		return fail(err, "%s:%d: expected %s", path, 4, what[3]);
	bot->keep_stderr = line[0] == '1';
	if (!bot->state[0])
		snprintf(bot->state, sizeof bot->state, "kimble-state");
	_Static_assert(KJ_MAX_ARGS - 1 == 15, "the message below says 15");
	if (split_args(bot))
		return fail(err, "%s:%d: expected %s of at most 15 words", path, 3, what[2]);
	find_in_path(bot);
	/* no other confined bot may see this folder, even from a folder
	 * holding it (a bot folder is never a parent of the judge's own) */
	if (kj_sandbox_hide(bot->dir))
		return fail(err, "%s%.0d: cannot note the folder: %s", bot->dir, 0, strerror(errno));
	return 0;
}

int kj_bot_resolve(const char *word, const char *bots_dir, kj_bot *bot, kb_err *err)
{
	int pol = kb_policy_parse(word);
	char path[1024];
	struct stat st;

	if (pol > 0) {
		memset(bot, 0, sizeof *bot);
		snprintf(bot->name, sizeof bot->name, "%s", word);
		bot->builtin = pol;
		return 0;
	}
	if (bots_dir && !strchr(word, '/')) {
		snprintf(path, sizeof path, "%s/%s", bots_dir, word);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			return kj_bot_load(path, bot, err);
	}
	if (stat(word, &st) == 0 && S_ISDIR(st.st_mode))
		return kj_bot_load(word, bot, err);
	return fail(err, "bot %s%.0d%s: not easy/hard/random nor a directory with a meta file", word,
		    0, "");
}

/* ---- fingerprints ------------------------------------------------------ */

/* LMDB's lock files (lock.mdb; NAME-lock beside an MDB_NOSUBDIR
 * environment) change whenever any process opens the store: they say
 * nothing about what was learned. */
static int lock_file(const char *name)
{
	size_t n = strlen(name);

	return strcmp(name, "lock.mdb") == 0 || (n > 5 && strcmp(name + n - 5, "-lock") == 0);
}

/* The records of the LMDB environment in folder (kb_store_digest, read
 * without touching any file) into *h.  Returns 0, or -1 when folder holds
 * no environment that can be read. */
static int hash_lmdb(uint64_t *h, const char *folder)
{
	static const char tag[] = "lmdb records";
	kb_store *st;
	kb_err err;
	uint64_t digest;
	uint8_t le[8];
	int rc;

	if (kb_store_open(&st, folder, KB_STORE_FROZEN, NULL, &err))
		return -1;
	rc = kb_store_digest(st, &digest, &err);
	kb_store_close(st);
	if (rc)
		return -1;
	*h = kb_fnv1a(*h, tag, sizeof tag);
	for (int i = 0; i < 8; i++)
		le[i] = (uint8_t)(digest >> (8 * i));
	*h = kb_fnv1a(*h, le, sizeof le);
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* Hash path (file or folder) into h; rel is its name relative to the
 * state path, hashed too so renames change the fingerprint; name is its
 * last component.  depth bounds recursion through odd trees. */
static uint64_t hash_tree(uint64_t h, const char *path, const char *rel, const char *name,
			  int depth)
{
	struct stat st;

	if (depth > 8 || lstat(path, &st) != 0)
		return h;
	if (S_ISDIR(st.st_mode)) {
		struct dirent **list;
		int n = scandir(path, &list, NULL, by_name);
		for (int i = 0; i < n; i++) {
			char sub[1024], subrel[512];
			if (strcmp(list[i]->d_name, ".") && strcmp(list[i]->d_name, "..")) {
				snprintf(sub, sizeof sub, "%s/%s", path, list[i]->d_name);
				snprintf(subrel, sizeof subrel, "%s/%s", rel, list[i]->d_name);
				h = hash_tree(h, sub, subrel, list[i]->d_name, depth + 1);
			}
			free(list[i]);
		}
		if (n >= 0)
			free(list);
		return h;
	}
	if (!S_ISREG(st.st_mode) || lock_file(name))
		return h;
	h = kb_fnv1a(h, rel, strlen(rel) + 1);
	if (strcmp(name, "data.mdb") == 0) {
		char folder[1024];
		snprintf(folder, sizeof folder, "%.*s", (int)(strlen(path) - strlen(name) - 1), path);
		if (hash_lmdb(&h, folder) == 0)
			return h;
	}
	kb_fnv1a_file(&h, path); /* unreadable: its name alone */
	return h;
}

void kj_bot_fingerprint(const kj_bot *bot, char out[17])
{
	char path[1024];
	struct stat st;

	snprintf(path, sizeof path, "%s/%s", bot->dir, bot->state);
	if (bot->builtin || stat(path, &st) != 0) {
		snprintf(out, 17, "-");
		return;
	}
	const char *slash = strrchr(bot->state, '/');
	snprintf(out, 17, "%016llx", (unsigned long long)hash_tree(KB_FNV_OFFSET, path, ".",
								    slash ? slash + 1 : bot->state, 0));
}

int kj_bots_list(const char *dir, char names[][256], int max, kb_err *err)
{
	struct dirent **list;
	int n = scandir(dir, &list, NULL, by_name), count = 0;

	if (n < 0)
		return fail(err, "bots folder %s%.0d: cannot read: %s", dir, 0, strerror(errno));
	for (int i = 0; i < n; i++) {
		char meta[1024];
		struct stat st;
		snprintf(meta, sizeof meta, "%s/%s/meta", dir, list[i]->d_name);
		if (list[i]->d_name[0] != '.' && stat(meta, &st) == 0 && count < max)
			snprintf(names[count++], 256, "%s", list[i]->d_name);
		free(list[i]);
	}
	free(list);
	return count;
}
