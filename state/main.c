/* main.c - kimble-state: inspect, export, import and reset the bot's
 * learning store. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export.h"
#include "listing.h"
#include "core/store.h"
#include "core/err.h"
#include "core/num.h"

static const char usage[] =
	"NAME\n"
	"    kimble-state - inspect and edit what kimble-bot has learned\n"
	"\n"
	"SYNOPSIS\n"
	"    kimble-state [--state PATH] list\n"
	"    kimble-state [--state PATH] show NAME\n"
	"    kimble-state [--state PATH] reset [NAME]\n"
	"    kimble-state [--state PATH] export [FILE]\n"
	"    kimble-state [--state PATH] import [FILE]\n"
	"    kimble-state --help\n"
	"\n"
	"DESCRIPTION\n"
	"    list     one line per opponent: games, games won by the bot, win\n"
	"             rate, games the opponent won, decisions observed, and the\n"
	"             model's belief (easy, hard, random, heuristic or a rule\n"
	"             such as capture>rear, and its weight), \"(unused)\" when\n"
	"             the bot does not play with it, \"(used ahead only)\" or\n"
	"             \"(used not ahead only)\" when it does in one score only\n"
	"    show     one opponent: counts, model weights, whether the bot uses\n"
	"             the model and why, the bot's own rates by score (the\n"
	"             opponent ahead of the bot or not), feature weights and\n"
	"             results per bot version\n"
	"    reset    forget NAME (all its records), or everything; a missing\n"
	"             store is an error (exit 2), never created, and so is a\n"
	"             NAME with no records (exit 4: a mistyped name)\n"
	"    export   write the store as text to FILE (default standard output)\n"
	"    import   add an export read from FILE (default standard input) to\n"
	"             the store: counts add up, so two stores merge; a missing\n"
	"             store is created, and stderr says so\n"
	"\n"
	"OPTIONS\n"
	"    --state PATH  the store folder; default $KIMBLE_STATE, else\n"
	"                  ./kimble-state\n"
	"    --help        this text\n"
	"\n"
	"EXIT STATUS\n"
	"    0 done, 2 the store is missing (list, show, export, reset) or\n"
	"    cannot be opened, read or written, 3 malformed\n"
	"    import input or a file that cannot be opened, 4 show or reset: no\n"
	"    such opponent, 64 usage error (unknown option or command, missing\n"
	"    value, missing or invalid NAME).\n"
	"\n"
	"EXAMPLES\n"
	"    kimble-state --state bots/mine/kimble-state list\n"
	"    kimble-state export > a.txt; kimble-state --state other import a.txt\n";

#define PROG "kimble-state"
#define die(code, ...) kb_die(PROG, (code), __VA_ARGS__)

/* How a command opens the store: read only; write to an existing store
 * (reset: a mistyped --state must fail, not make an empty store); write,
 * creating a missing store (import: copying a store to a new place). */
enum open_mode { OPEN_READ, OPEN_WRITE, OPEN_CREATE };

static kb_store *open_store(const char *arg, enum open_mode mode)
{
	char path[512], data[600];
	kb_store_opts opts = {0, 0, stderr};
	kb_store *st;
	kb_err err;

	if (!kb_store_path(arg, path, sizeof path))
		kb_die_usage(PROG, "--state: path too long, expected at most %zu characters",
			     sizeof path - 1);
	snprintf(data, sizeof data, "%s/data.mdb", path);
	if (access(data, F_OK) != 0) {
		if (mode == OPEN_WRITE)
			die(2, "store %s: no store there (no data.mdb), nothing changed", path);
		if (mode == OPEN_CREATE)
			fprintf(stderr, PROG ": store %s: not there, creating a new store\n", path);
	}
	if (kb_store_open(&st, path, mode == OPEN_READ ? KB_STORE_RDONLY :
			  mode == OPEN_CREATE ? KB_STORE_CREATE : 0, &opts, &err))
		die(2, "%s", err.msg);
	if (mode != OPEN_READ && kb_store_readonly(st))
		die(2, "store %s: not writable", path);
	return st;
}

/* A NAME argument is checked before the store is opened, so that a bad
 * NAME is a usage error whether or not the store exists, and opens or
 * creates nothing. */
static void check_name(const char *cmd, const char *name)
{
	if (name && !kb_name_ok(name, strlen(name)))
		kb_die_usage(PROG, "%s: name \"%.80s\": expected 1..%d of letters, digits, '_', '.', '-'",
			     cmd, name, KB_NAME_MAX);
}

/* End on a store status other than KB_STORE_OK: a NAME that is not valid
 * is a usage error, the rest store errors. */
static void store_failed(int rc, const kb_err *err)
{
	if (rc == KB_STORE_NAME)
		kb_die_usage(PROG, "%s", err->msg);
	if (rc)
		die(2, "%s", err->msg);
}

static int run(const char *state, const char *cmd, const char *arg)
{
	kb_store *st;
	kb_err err;
	int rc; /* set by each command before it is read */

	if (strcmp(cmd, "list") == 0 || strcmp(cmd, "show") == 0 ||
	    strcmp(cmd, "export") == 0) {
		FILE *out = stdout;
		if (strcmp(cmd, "show") == 0 && !arg)
			kb_die_usage(PROG, "show: expected an opponent NAME");
		if (strcmp(cmd, "list") == 0 && arg)
			kb_die_usage(PROG, "list: unexpected argument \"%s\" (list takes none)", arg);
		if (strcmp(cmd, "show") == 0)
			check_name(cmd, arg);
		if (strcmp(cmd, "export") == 0 && arg && !(out = fopen(arg, "w")))
			die(3, "export: cannot create %s", arg);
		st = open_store(state, OPEN_READ);
		if (strcmp(cmd, "list") == 0)
			rc = kb_listing_opponents(st, out, &err);
		else if (strcmp(cmd, "show") == 0)
			rc = kb_listing_opponent(st, arg, out, &err);
		else
			rc = kb_export(st, out, &err);
		kb_store_close(st);
		if (out != stdout && fclose(out))
			die(2, "export: cannot write %s", arg);
		if (rc == KB_STORE_ABSENT)
			die(4, "show: no records of opponent %s (kimble-state list names every "
			       "opponent it has)", arg);
		store_failed(rc, &err);
		return 0;
	}
	if (strcmp(cmd, "reset") == 0) {
		long deleted = 0;
		check_name(cmd, arg);
		st = open_store(state, OPEN_WRITE);
		rc = kb_store_reset(st, arg, &deleted, &err);
		kb_store_close(st);
		store_failed(rc, &err);
		if (arg && deleted == 0)
			die(4, "reset: no records of opponent %s, nothing removed (kimble-state list "
			       "names every opponent it has)", arg);
		fprintf(stderr, "kimble-state: reset: %ld record(s) removed\n", deleted);
		return 0;
	}
	if (strcmp(cmd, "import") == 0) {
		FILE *in = arg ? fopen(arg, "r") : stdin;
		long records = 0;
		if (!in)
			die(3, "import: cannot open %s", arg);
		st = open_store(state, OPEN_CREATE);
		rc = kb_import(st, in, arg ? arg : "standard input", &records, &err);
		kb_store_close(st);
		if (in != stdin)
			fclose(in);
		if (rc)
			die(rc == KB_EXPORT_MALFORMED ? 3 : 2, "import: %s", err.msg);
		fprintf(stderr, "kimble-state: import: %ld record(s) added\n", records);
		return 0;
	}
	kb_die_usage(PROG, "unknown command \"%s\": expected list, show, reset, export or import",
		     cmd);
}

int main(int argc, char **argv)
{
	const char *state = NULL, *words[2] = {NULL, NULL};
	int nwords = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(usage, stdout);
			return 0;
		} else if (strcmp(argv[i], "--state") == 0) {
			state = kb_arg_value(PROG, argc, argv, &i);
		} else if (strncmp(argv[i], "--state=", 8) == 0) {
			state = argv[i] + 8;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			kb_arg_unknown(PROG, argv[i]);
		} else if (nwords < 2) {
			words[nwords++] = argv[i];
		} else {
			kb_die_usage(PROG, "unexpected argument \"%s\"", argv[i]);
		}
	}
	if (!nwords)
		kb_die_usage(PROG, "expected a command: list, show, reset, export or import");
	return run(state, words[0], words[1]);
}
