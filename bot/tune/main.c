/* main.c - kimble-tune: fit the bot's evaluation weights by self-play
 * (bot/tune/fit.h) and print them as bot/weights.h.  Run by bot/tune/tune.sh. */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/tune/fit.h"
#include "bot/tune/td.h"
#include "core/err.h"
#include "core/num.h"

static const char usage[] =
	"NAME\n"
	"    kimble-tune - fit kimble-bot's evaluation weights by self-play\n"
	"\n"
	"SYNOPSIS\n"
	"    kimble-tune [--rounds R] [--games N] [--depth D] [--epochs E] [--seed S]\n"
	"                [--spsa ITERS] [--spsa-games G] [--spsa-step A] [--init]\n"
	"                [--td N] [--td-lambda L] [--td-rate A] [--td-lineup BCD]\n"
	"                [--report G] [--report-level V]\n"
	"    kimble-tune --help\n"
	"\n"
	"DESCRIPTION\n"
	"    Starting from the compiled-in weights (with --init: every piece worth\n"
	"    0.12 per square of progress, danger -0.5, -1.0, tempo 0.1), R times: play N games (the bot\n"
	"    at search depth D in seat A against random lineups of easy, hard and\n"
	"    absent seats), then fit the softmax evaluation to who won from every\n"
	"    position seen (E passes of SGD).  Prints the result as the C source of\n"
	"    bot/weights.h on stdout and progress on stderr.  Deterministic for S.\n"
	"    Then, with --spsa, ITERS steps of direct win-rate tuning (SPSA, both\n"
	"    perturbations playing the same G games per lineup, greedy play).\n"
	"    Then, with --td, N games of TD(lambda) self-play training (bot/tune/td.h;\n"
	"    lambda L, default 0.8, learning rate A decaying to A/10, default\n"
	"    0.005), which also trains the interaction tables; --td-lineup plays\n"
	"    only that lineup (digits of seats B, C, D: 200 is hard alone).  With --report,\n"
	"    prints the win rate at search level V (default 0) in each measured\n"
	"    lineup over G paired games, before and after, on stderr (the same\n"
	"    G games for any S: game seeds from seed 99).\n"
	"\n"
	"\n"
	"    Counts and levels are whole numbers, L and A decimals (L 0..1, A\n"
	"    0..10, --spsa-step 0..1000000); --games is at least 1.\n"
	"\n"
	"EXIT STATUS\n"
	"    0 done, 1 out of memory, 64 usage error (unknown option, bad or\n"
	"    missing value).\n";

#define PROG "kimble-tune"
#define die(...) kb_die(PROG, 1, __VA_ARGS__)
#define COUNT_MAX 1000000000000LL /* games and steps: far beyond any run */

/* The starting point of a tuning from scratch. */
static void init_weights(kb_weights *w)
{
	memset(w, 0, sizeof *w); /* interaction tables start at zero */
	for (int t = 0; t < KB_EVAL_TYPES; t++) {
		for (int b = 0; b < KB_EVAL_BUCKETS; b++)
			w->piece[t][b] = 0.12f * (b < 30 ? b : 29);
		w->danger[t] = -0.5f;
		w->dprog[t] = -1.0f;
		w->tempo[t] = 0.1f;
	}
}

#define REPORT_SEED 99 /* the report's games, the same for every --seed */

static void print_report(const kb_weights *w, const char *when, int level, long games)
{
	double rate[KB_TD_LINEUPS];

	kb_td_winrates(w, level, games, REPORT_SEED, rate);
	fprintf(stderr, "kimble-tune: %s, level %d, %ld games:", when, level, games);
	for (int l = 0; l < KB_TD_LINEUPS; l++)
		fprintf(stderr, " %s %.2f%%%s", kb_td_lineup_names[l], 100 * rate[l],
			l + 1 < KB_TD_LINEUPS ? "," : "\n");
}

/* A lineup as three digits 0..2 (seats B, C, D), e.g. 200 for hard alone. */
static const uint8_t *lineup_digits(const char *s, uint8_t d[3])
{
	if (strlen(s) != 3 || strspn(s, "012") != 3 || !strcmp(s, "000"))
		kb_die_usage(PROG, "--td-lineup \"%s\": expected three digits 0-2 for seats B, C, D, "
			     "not all 0", s);
	for (int i = 0; i < 3; i++)
		d[i] = (uint8_t)(s[i] - '0');
	return d;
}

/* Option argv[*i]'s value as a whole number lo..hi, or a decimal. */
static long count(int argc, char **argv, int *i, long long lo, long long hi)
{
	const char *opt = argv[*i];

	return (long)kb_arg_range(PROG, opt, kb_arg_value(PROG, argc, argv, i), lo, hi);
}

static double decimal(int argc, char **argv, int *i, double lo, double hi)
{
	const char *opt = argv[*i];

	return kb_arg_real(PROG, opt, kb_arg_value(PROG, argc, argv, i), lo, hi);
}

/* What the command line asks for (see usage). */
typedef struct tune_opts {
	long rounds, games, depth, epochs, seed, spsa, spsa_games;
	double spsa_step, td_lambda, td_rate;
	long td, report, report_level;
	uint8_t td_lineup[3];
	const uint8_t *td_only; /* td_lineup when --td-lineup was given */
	int init;
} tune_opts;

/* Whole-number options: where the value goes in tune_opts, its range. */
static const struct {
	const char *name;
	size_t at;
	long long lo, hi;
} count_opts[] = {
	{"--rounds", offsetof(tune_opts, rounds), 0, 1000000},
	{"--games", offsetof(tune_opts, games), 1, COUNT_MAX},
	{"--depth", offsetof(tune_opts, depth), 0, 100},
	{"--epochs", offsetof(tune_opts, epochs), 0, 1000000},
	{"--spsa", offsetof(tune_opts, spsa), 0, COUNT_MAX},
	{"--spsa-games", offsetof(tune_opts, spsa_games), 0, COUNT_MAX},
	{"--td", offsetof(tune_opts, td), 0, COUNT_MAX},
	{"--report", offsetof(tune_opts, report), 0, COUNT_MAX},
	{"--report-level", offsetof(tune_opts, report_level), 0, 100},
	{"--seed", offsetof(tune_opts, seed), 0, COUNT_MAX * 1000}, /* seed * 1000 + r fits */
};

/* Decimal options, likewise. */
static const struct {
	const char *name;
	size_t at;
	double lo, hi;
} decimal_opts[] = {
	{"--spsa-step", offsetof(tune_opts, spsa_step), 0, 1000000},
	{"--td-lambda", offsetof(tune_opts, td_lambda), 0, 1},
	{"--td-rate", offsetof(tune_opts, td_rate), 0, 10},
};

/* Options that take a value; 0 when argv[*i] is none of them. */
static int parse_value(int argc, char **argv, int *i, tune_opts *o)
{
	const char *a = argv[*i];

	for (size_t k = 0; k < sizeof count_opts / sizeof count_opts[0]; k++)
		if (!strcmp(a, count_opts[k].name)) {
			*(long *)((char *)o + count_opts[k].at) =
				count(argc, argv, i, count_opts[k].lo, count_opts[k].hi);
			return 1;
		}
	for (size_t k = 0; k < sizeof decimal_opts / sizeof decimal_opts[0]; k++)
		if (!strcmp(a, decimal_opts[k].name)) {
			*(double *)((char *)o + decimal_opts[k].at) =
				decimal(argc, argv, i, decimal_opts[k].lo, decimal_opts[k].hi);
			return 1;
		}
	if (strcmp(a, "--td-lineup"))
		return 0;
	o->td_only = lineup_digits(kb_arg_value(PROG, argc, argv, i), o->td_lineup);
	return 1;
}

/* Rounds of fitting, then SPSA, then TD, as the options ask. */
static void tune(kb_weights *w, const tune_opts *o)
{
	for (long r = 0; r < o->rounds; r++) {
		kb_fit_data d = {0};
		if (kb_fit_collect(&d, w, (int)o->depth, o->games, (uint64_t)(o->seed * 1000 + r), 1))
			die("out of memory collecting samples");
		double loss = kb_fit_train(w, &d, (int)o->epochs, 0.01, 1e-5, (uint64_t)o->seed + r);
		fprintf(stderr, "kimble-tune: round %ld: %ld games, bot won %.1f%%, %zu samples, log-loss %.4f\n",
			r + 1, d.games, 100.0 * d.wins / d.games, d.n, loss);
		kb_fit_free(&d);
	}
	if (o->spsa) {
		fprintf(stderr, "kimble-tune: win rate before SPSA %.4f\n", kb_fit_winrate(w, 0, 4000, 7));
		kb_fit_spsa(w, (int)o->spsa, o->spsa_games, o->spsa_step, (uint64_t)o->seed, stderr);
		fprintf(stderr, "kimble-tune: win rate after SPSA %.4f\n", kb_fit_winrate(w, 0, 4000, 7));
	}
	if (o->td) {
		kb_td_params tp = {o->td, o->td_lambda, o->td_rate, (uint64_t)o->seed, o->td_only};
		kb_td_train(w, &tp, stderr);
	}
}

/* The weights on stdout, with the command that made them as comment. */
static void write_weights(const kb_weights *w, const tune_opts *o)
{
	char comment[400];

	snprintf(comment, sizeof comment,
		 "kimble-tune%s --rounds %ld --games %ld --depth %ld --epochs %ld --seed %ld --spsa %ld --spsa-games %ld --spsa-step %g --td %ld --td-lambda %g --td-rate %g",
		 o->init ? " --init" : "", o->rounds, o->games, o->depth, o->epochs, o->seed, o->spsa,
		 o->spsa_games, o->spsa_step, o->td, o->td_lambda, o->td_rate);
	if (o->td_only)
		snprintf(comment + strlen(comment), sizeof comment - strlen(comment),
			 " --td-lineup %d%d%d", o->td_only[0], o->td_only[1], o->td_only[2]);
	kb_fit_write(stdout, w, comment);
}

int main(int argc, char **argv)
{
	tune_opts o = {.rounds = 3, .games = 4000, .epochs = 4, .seed = 1, .spsa_games = 3000,
		       .spsa_step = 2.0, .td_lambda = 0.8, .td_rate = 0.005};
	kb_weights w = kb_weights_default;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help")) {
			fputs(usage, stdout);
			return 0;
		}
		if (!strcmp(argv[i], "--init")) {
			init_weights(&w);
			o.init = 1;
		} else if (parse_value(argc, argv, &i, &o)) {
			continue;
		} else if (argv[i][0] == '-') {
			kb_arg_unknown(PROG, argv[i]);
		} else {
			kb_die_usage(PROG, "unexpected argument \"%s\"", argv[i]);
		}
	}
	if (o.report)
		print_report(&w, "before", (int)o.report_level, o.report);
	tune(&w, &o);
	if (o.report)
		print_report(&w, "after", (int)o.report_level, o.report);
	write_weights(&w, &o);
	return 0;
}
