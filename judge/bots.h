/* bots.h - the participants of a judged tournament: built-in seats and bot
 * directories described by a `meta` file.
 *
 * meta format (the Gomoku KoTH judge's, one field a line):
 *   1  name          one word, shown in results (spaces become '_')
 *   2  command       run in the bot's directory (e.g. ./kimble-bot, python3)
 *   3  arguments     split at spaces, at most 15 words (KJ_MAX_ARGS - 1);
 *                    may be empty
 *   4  stderr flag   0 discard the bot's stderr, 1 keep it in the log dir
 *   5  state path    optional: file or folder (relative to the bot directory)
 *                    whose contents fingerprint the learned state (see
 *                    kj_bot_fingerprint); default the folder kimble-state
 * The bot is started as `command arguments OPPONENTS SEED`.
 *
 * Built-in seats are the words easy, hard and random; they need no
 * directory and run inside the judge.
 */
#ifndef KJ_BOTS_H
#define KJ_BOTS_H

#include <stdint.h>
#include <stdio.h>

#include "core/board.h"

#define KJ_MAX_ARGS 16

typedef struct kj_bot {
	char name[64];
	int builtin;          /* enum kb_policy for built-ins, 0 for a process */
	char dir[512];        /* absolute directory of a process bot */
	char cmd[512];
	char argbuf[512];     /* the arguments line, split in place */
	char *argv[KJ_MAX_ARGS];
	int argc;
	int keep_stderr;
	char state[256];      /* fingerprinted path, relative to dir */
	char path[1024];      /* cmd without '/': its first match in PATH, "" none */
	char syspath[1024];   /* its first match a confined bot may run, "" none */
	uint64_t *written;    /* bytes written in this run, shared (kj_proc_counters) */
} kj_bot;

/* Resolve a bot named on the command line: a built-in word, a directory
 * holding meta (a path, or a name under bots_dir when bots_dir is not
 * NULL).  Returns 0, or -1 with err naming the file, line and what was
 * expected (no such bot, unreadable meta, missing field, bad flag). */
int kj_bot_resolve(const char *word, const char *bots_dir, kj_bot *bot, kb_err *err);

/* Parse a meta file in directory dir.  Errors as kj_bot_resolve. */
int kj_bot_load(const char *dir, kj_bot *bot, kb_err *err);

/* The file the judge executes for a process bot: cmd itself when it holds
 * a '/' or is not found in PATH (then the exec fails as the shell's would);
 * else its first match in PATH (bot->path, resolved by kj_bot_load from
 * the judge's PATH, relative entries from the bot's folder).  When
 * confined is set and that match lies outside what a confined bot may run
 * (kj_sandbox_may_run), the first match inside (bot->syspath) is used
 * instead, if any, and a warning naming both paths and the remedies goes
 * once per bot folder and process to warn (when not NULL): a tournament
 * calls it for every bot before it forks the workers that play the games,
 * which inherit the record, so the warning comes once per bot and run. */
const char *kj_bot_command(const kj_bot *bot, int confined, FILE *warn);

/* Fingerprint of the bot's learned state, as 16 hex digits: FNV-1a 64
 * (core/hash.h) over the regular files under its state path (sorted by
 * name, recursive), each as its path relative to the state path and its
 * contents, where
 *   - LMDB lock files (lock.mdb, and NAME-lock of an MDB_NOSUBDIR store)
 *     are left out: any process opening the store rewrites them;
 *   - a data.mdb whose folder opens as an LMDB environment counts as its
 *     records (kb_store_digest), not its bytes, so page reuse inside the
 *     file does not count: its path, then the bytes "lmdb records" with
 *     their NUL and the digest's 8 bytes, least significant first; the
 *     store is read without touching any file;
 *   - every other file counts as its bytes;
 *   - files more than 8 levels below the state path (9 and deeper) are
 *     left out, a bound on odd trees.
 * So the fingerprint changes exactly when what the bot keeps changes.
 * "-" for a built-in or when the path does not exist.  Never fails
 * (unreadable files hash as their name alone). */
void kj_bot_fingerprint(const kj_bot *bot, char out[17]);

/* List the bot directories (those with a meta file) under dir, sorted by
 * name, into names (at most max, each up to 255 characters).  Returns the
 * count, or -1 with err when dir cannot be read. */
int kj_bots_list(const char *dir, char names[][256], int max, kb_err *err);

#endif
