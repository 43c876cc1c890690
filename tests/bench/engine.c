/* engine.c - rules-engine speed: self-play with four hard seats on one core.
 *
 *   build/rel/bench/engine [--games N] [--json FILE]
 *
 * Plays N seeded games (default 200,000) through kb_game_advance with no
 * hooks, as the judge and the benches do, and prints games/s and turns/s
 * (a turn is one die roll).  The total of rolls is a deterministic checksum:
 * a change that alters it changed the rules or the dice. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/game.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

typedef struct result {
	const char *name;
	uint64_t games, rolls, wins[4];
	double secs;
} result;

static result run(const char *name, const uint8_t ctl[4], uint64_t games)
{
	result r = {.name = name, .games = games};
	double t0 = now_s();
	int tty = isatty(2);

	for (uint64_t k = 0; k < games; k++) {
		kb_game g;
		kb_game_init(&g, k, ctl);
		kb_game_advance(&g, NULL);
		r.rolls += g.rolls;
		r.wins[g.winner]++;
		if (tty && (k & 0xffff) == 0)
			fprintf(stderr, "\r%s: %" PRIu64 "/%" PRIu64 " games", name, k, games);
	}
	r.secs = now_s() - t0;
	if (tty)
		fprintf(stderr, "\r%60s\r", "");
	return r;
}

int main(int argc, char **argv)
{
	uint64_t games = 200000;
	const char *json = NULL;
	const uint8_t hard4[4] = {KB_HARD, KB_HARD, KB_HARD, KB_HARD};
	const uint8_t easy4[4] = {KB_EASY, KB_EASY, KB_EASY, KB_EASY};
	const uint8_t mixed[4] = {KB_HARD, KB_EASY, KB_RANDOM, KB_HARD};

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--games") && i + 1 < argc)
			games = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--json") && i + 1 < argc)
			json = argv[++i];
		else if (!strcmp(argv[i], "--quick"))
			games = 20000;
		else {
			fprintf(stderr, "usage: engine [--games N] [--quick] [--json FILE]\n");
			return 2;
		}
	}
	result res[3] = {run("hard x4", hard4, games), run("easy x4", easy4, games / 4),
			 run("hard,easy,random,hard", mixed, games / 4)};
	printf("%-24s %10s %12s %12s %14s %10s %s\n", "self-play (one core)", "games", "rolls",
	       "games/s", "turns/s", "rolls/game", "checksum");
	for (int i = 0; i < 3; i++) {
		result *r = &res[i];
		printf("%-24s %10" PRIu64 " %12" PRIu64 " %12.0f %14.0f %10.1f %" PRIu64 "\n", r->name,
		       r->games, r->rolls, r->games / r->secs, r->rolls / r->secs,
		       (double)r->rolls / (double)r->games, r->rolls ^ (r->wins[0] << 32));
	}
	printf("target: hard x4 >= 20,000,000 turns/s: %s\n",
	       res[0].rolls / res[0].secs >= 2e7 ? "met" : "NOT met");
	if (json) {
		FILE *f = fopen(json, "w");
		if (!f) {
			perror(json);
			return 1;
		}
		fprintf(f, "{\"bench\":\"engine\",\"rows\":[");
		for (int i = 0; i < 3; i++)
			fprintf(f, "%s{\"lineup\":\"%s\",\"games\":%" PRIu64 ",\"rolls\":%" PRIu64
				   ",\"games_per_s\":%.0f,\"turns_per_s\":%.0f}",
				i ? "," : "", res[i].name, res[i].games, res[i].rolls,
				res[i].games / res[i].secs, res[i].rolls / res[i].secs);
		fprintf(f, "]}\n");
		fclose(f);
	}
	return 0;
}
