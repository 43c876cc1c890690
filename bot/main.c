/* main.c - kimble-bot: parse arguments, play one game on stdin/stdout. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "learn.h"
#include "core/err.h"
#include "core/num.h"

static const char usage[] =
	"NAME\n"
	"    kimble-bot - a Kimble (Finnish Ludo) bot speaking the server protocol\n"
	"\n"
	"SYNOPSIS\n"
	"    kimble-bot OPPONENTS SEED [--budget-ms N] [--explain] [--state PATH]\n"
	"               [--no-learn]\n"
	"    kimble-bot --help\n"
	"\n"
	"DESCRIPTION\n"
	"    Plays seat A of one game on standard input/output (docs/spec.md sections\n"
	"    3 and 4): writes v001XYZ, then answers each decision with TOKEN+INDEX.\n"
	"    OPPONENTS names seats B,C,D comma-separated: easy, hard, none/-/empty\n"
	"    for an absent seat, any other word another bot (start digit 2).  SEED\n"
	"    (unsigned 64-bit decimal, an optional '+' allowed) seeds the\n"
	"    tie-breaks; the same SEED and\n"
	"    input give the same output byte for byte.  Diagnostics go to stderr.\n"
	"\n"
	"OPTIONS\n"
	"    --budget-ms N   thinking budget per decision in ms, 0..100000 (default\n"
	"                    2); sizes the search by a fixed calibration, never by\n"
	"                    the clock\n"
	"    --explain       print each candidate move's estimated win probability\n"
	"                    on stderr\n"
	"    --state PATH    the learning store folder (created if missing);\n"
	"                    default $KIMBLE_STATE, else ./kimble-state\n"
	"    --no-learn      neither read nor update the store\n"
	"    --help          this text\n"
	"\n"
	"ENVIRONMENT\n"
	"    KIMBLE_LEARN=0  learning frozen (the judge's --no-learn and reruns):\n"
	"                    play with what the store holds and change nothing on\n"
	"                    disk, not even LMDB's lock.mdb; a missing store is not\n"
	"                    created (the prior models, as with an empty store).\n"
	"                    Any other value, or none: learn.\n"
	"    KIMBLE_STATE    the store folder when --state is not given\n"
	"\n"
	"EXIT STATUS\n"
	"    0 game over (Voittaja seen), 2 input no legal game produces or a\n"
	"    malformed line, 3 the server answered Virhe, 4 input ended early or\n"
	"    output failed, 64 usage error (unknown option, bad OPPONENTS, SEED\n"
	"    or value).  Problems with the learning store are never fatal: the\n"
	"    bot plays on without learning and says why.\n"
	"\n"
	"EXAMPLE\n"
	"    kimble-relay -- kimble-bot easy,hard,none 42 --explain\n";

#define PROG "kimble-bot"
#define die(status, ...) kb_die(PROG, (status), __VA_ARGS__)

/* KIMBLE_LEARN=0 in the environment (docs/spec.md, the bot contract). */
static int learning_frozen(void)
{
	const char *v = getenv("KIMBLE_LEARN");

	return v && strcmp(v, "0") == 0;
}

int main(int argc, char **argv)
{
	const char *pos_args[2];
	int npos = 0, budget = KB_BUDGET_DEFAULT_MS, explain = 0, learn = 1;
	const char *state = NULL;
	char names[KB_SEATS][KB_NAME_MAX + 1];
	const char *name_of[KB_SEATS];
	kb_learn lrn;
	const kb_opponent *opp[KB_SEATS];
	kb_client c;
	kb_search bot;
	kb_err err;
	uint64_t seed;
	int rc;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(usage, stdout);
			return 0;
		} else if (strcmp(argv[i], "--explain") == 0) {
			explain = 1;
		} else if (strcmp(argv[i], "--no-learn") == 0) {
			learn = 0;
		} else if (strcmp(argv[i], "--state") == 0) {
			state = kb_arg_value(PROG, argc, argv, &i);
		} else if (strcmp(argv[i], "--budget-ms") == 0) {
			budget = (int)kb_arg_range(PROG, "--budget-ms", kb_arg_value(PROG, argc, argv, &i),
						   0, 100000);
		} else if (argv[i][0] == '-' && argv[i][1] != 0 && argv[i][1] != ',' &&
			   (argv[i][1] < '0' || argv[i][1] > '9')) {
			kb_arg_unknown(PROG, argv[i]);
		} else if (npos < 2) {
			/* "-" and "-,x" are lineups, "-1" a SEED out of range */
			pos_args[npos++] = argv[i];
		} else {
			kb_die_usage(PROG, "unexpected argument \"%s\"", argv[i]);
		}
	}
	if (npos != 2)
		kb_die_usage(PROG, "expected OPPONENTS and SEED: kimble-bot OPPONENTS SEED [options]");
	memset(&c, 0, sizeof c);
	if (kb_lineup_parse(pos_args[0], c.lineup, &c.present, opp, &err))
		kb_die_usage(PROG, "%s", err.msg);
	seed = kb_arg_u64(PROG, "SEED", pos_args[1]);
	kb_learn_names(pos_args[0], names);
	for (int s = 0; s < KB_SEATS; s++)
		name_of[s] = names[s][0] ? names[s] : NULL;
	memset(&lrn, 0, sizeof lrn);
	if (learn) {
		if (learning_frozen())
			kb_learn_open_frozen(&lrn, state, c.present, name_of, NULL, stderr);
		else
			kb_learn_open(&lrn, state, c.present, name_of, NULL, stderr);
		kb_learn_models(&lrn, opp);
		c.observe = kb_learn_observe;
		c.observe_ctx = &lrn;
	}
	kb_search_init(&bot, c.present, opp, seed, budget);
	if (learn)
		kb_learn_set_evaluation(&lrn, &bot);
	bot.explain = explain ? stderr : NULL;
	c.bot = &bot;
	c.diag = stderr;
	rc = kb_client_run(&c, stdin, stdout, &err);
	if (learn && rc == KB_CLIENT_OK)
		kb_learn_commit(&lrn, c.winner);
	kb_learn_close(&lrn);
	if (rc)
		die(rc, "%s", err.msg);
	return 0;
}
