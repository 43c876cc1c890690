/* tune_main.c - kimble-tune: fit the bot's evaluation weights by self-play
 * (bot/fit.h) and print them as bot/weights.h.  Run by bot/tune/tune.sh. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit.h"

static const char usage[] =
	"NAME\n"
	"    kimble-tune - fit kimble-bot's evaluation weights by self-play\n"
	"\n"
	"SYNOPSIS\n"
	"    kimble-tune [--rounds R] [--games N] [--depth D] [--epochs E] [--seed S]\n"
	"\n"
	"DESCRIPTION\n"
	"    Starting from the compiled-in weights, R times: play N games (the bot\n"
	"    at search depth D in seat A against random lineups of easy, hard and\n"
	"    absent seats), then fit the softmax evaluation to who won from every\n"
	"    position seen (E passes of SGD).  Prints the result as the C source of\n"
	"    bot/weights.h on stdout and progress on stderr.  Deterministic for S.\n"
	"\n"
	"EXIT STATUS\n"
	"    0 done, 1 usage error or out of memory.\n";

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("kimble-tune: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static long num(const char *s, const char *what)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v < 0)
		die("%s \"%s\": expected a non-negative number", what, s);
	return v;
}

int main(int argc, char **argv)
{
	long rounds = 3, games = 4000, depth = 0, epochs = 4, seed = 1;
	kb_weights w = kb_weights_default;
	char comment[160];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help")) {
			fputs(usage, stdout);
			return 0;
		}
		if (i + 1 >= argc)
			die("unexpected argument \"%s\" (see --help)", argv[i]);
		if (!strcmp(argv[i], "--rounds"))
			rounds = num(argv[++i], "--rounds");
		else if (!strcmp(argv[i], "--games"))
			games = num(argv[++i], "--games");
		else if (!strcmp(argv[i], "--depth"))
			depth = num(argv[++i], "--depth");
		else if (!strcmp(argv[i], "--epochs"))
			epochs = num(argv[++i], "--epochs");
		else if (!strcmp(argv[i], "--seed"))
			seed = num(argv[++i], "--seed");
		else
			die("unexpected argument \"%s\" (see --help)", argv[i]);
	}
	for (long r = 0; r < rounds; r++) {
		kb_fit_data d = {0};
		if (kb_fit_collect(&d, &w, (int)depth, games, (uint64_t)(seed * 1000 + r), 1))
			die("out of memory collecting samples");
		double loss = kb_fit_train(&w, &d, (int)epochs, 0.01, 1e-5, (uint64_t)seed + r);
		fprintf(stderr, "kimble-tune: round %ld: %ld games, bot won %.1f%%, %zu samples, log-loss %.4f\n",
			r + 1, d.games, 100.0 * d.wins / d.games, d.n, loss);
		kb_fit_free(&d);
	}
	snprintf(comment, sizeof comment, "kimble-tune --rounds %ld --games %ld --depth %ld --epochs %ld --seed %ld",
		 rounds, games, depth, epochs, seed);
	kb_fit_write(stdout, &w, comment);
	return 0;
}
