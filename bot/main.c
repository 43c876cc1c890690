/* main.c - kimble-bot: parse arguments, play one game on stdin/stdout. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "learn.h"
#include "core/err.h"

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
	"    (unsigned 64-bit decimal) seeds the tie-breaks; the same SEED and\n"
	"    input give the same output byte for byte.  Diagnostics go to stderr.\n"
	"\n"
	"OPTIONS\n"
	"    --budget-ms N   thinking budget per decision in ms (default 2); sizes\n"
	"                    the search by a fixed calibration, never by the clock\n"
	"    --explain       print each candidate move's estimated win probability\n"
	"                    on stderr\n"
	"    --state PATH    the learning store folder (created if missing);\n"
	"                    default $KIMBLE_STATE, else ./kimble-state\n"
	"    --no-learn      neither read nor update the store\n"
	"    --help          this text\n"
	"\n"
	"EXIT STATUS\n"
	"    0 game over (Voittaja seen), 1 usage error, 2 input no legal game\n"
	"    produces or a malformed line, 3 the server answered Virhe, 4 input\n"
	"    ended early or output failed.  Problems with the learning store are\n"
	"    never fatal: the bot plays on without learning and says why.\n"
	"\n"
	"EXAMPLE\n"
	"    kimble-relay -- kimble-bot easy,hard,none 42 --explain\n";

#define die(status, ...) kb_die("kimble-bot", (status), __VA_ARGS__)

static uint64_t parse_u64(const char *s, const char *what)
{
	char *end;
	uintmax_t v;

	errno = 0;
	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		die(1, "%s \"%s\": expected an unsigned decimal number", what, s);
	v = strtoumax(s, &end, 10);
	if (errno || *end || v > UINT64_MAX)
		die(1, "%s \"%s\": expected an unsigned 64-bit decimal number", what, s);
	return (uint64_t)v;
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
	kb_bot bot;
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
			if (++i == argc)
				die(1, "--state: expected the store's folder PATH");
			state = argv[i];
		} else if (strcmp(argv[i], "--budget-ms") == 0) {
			if (++i == argc)
				die(1, "--budget-ms: expected a number of milliseconds");
			uint64_t b = parse_u64(argv[i], "--budget-ms");
			budget = b > 100000 ? 100000 : (int)b;
		} else if (npos < 2 && (argv[i][0] != '-' || argv[i][1] == 0 || argv[i][1] == ',')) {
			pos_args[npos++] = argv[i];
		} else {
			die(1, "unexpected argument \"%s\" (see kimble-bot --help)", argv[i]);
		}
	}
	if (npos != 2)
		die(1, "usage: kimble-bot OPPONENTS SEED [--budget-ms N] [--explain] (see --help)");
	memset(&c, 0, sizeof c);
	if (kb_lineup_parse(pos_args[0], c.lineup, &c.present, opp, &err))
		die(1, "%s", err.msg);
	seed = parse_u64(pos_args[1], "SEED");
	kb_learn_names(pos_args[0], names);
	for (int s = 0; s < KB_SEATS; s++)
		name_of[s] = names[s][0] ? names[s] : NULL;
	memset(&lrn, 0, sizeof lrn);
	if (learn) {
		kb_learn_open(&lrn, state, c.present, name_of, NULL, stderr);
		kb_learn_models(&lrn, opp);
		c.observe = kb_learn_observe;
		c.observe_ctx = &lrn;
	}
	kb_bot_init(&bot, c.present, opp, seed, budget);
	if (learn)
		kb_learn_tune_bot(&lrn, &bot);
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
