/* testbot.c - a tiny bot for the judge's tests and bench: plays hard (the
 * foremost movable piece), or misbehaves in one chosen way.
 *
 * usage: testbot MODE OPPONENTS SEED
 * MODE: hard     plays the hard policy correctly
 *       crash    answers its first decision by aborting (SIGABRT)
 *       hang     never answers its first decision
 *       garbage  answers its first decision with a line of text
 *       illegal  always answers with an illegal index (when one exists)
 *       token    always answers with a wrong token
 *       noread   sends its start message and never reads stdin again
 *       flood    sends its start message, then newlines without end
 *       exit     exits (status 0) at its first decision
 *       fork     plays hard, leaving a child that sleeps holding stdout
 *       slow     plays hard, but waits 400 ms before every answer
 *       lineup   plays hard but announces a wrong lineup (v001000)
 *       easy     plays the easy policy (the rearmost movable piece)
 *       silent   never says anything, not even v001XYZ
 *       capturer, greedy, cautious, pacifist, mixed, switcher, targeter,
 *       middle   plays that made-up player of the learning bench
 *                (tests/bench/madeup.h; the rival of switcher and
 *                targeter is the first other seat, mixed draws from SEED)
 * Every mode's first line is v001XYZ from OPPONENTS (except lineup).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/board.h"
#include "core/rules.h"
#include "core/wire.h"
#include "tests/bench/madeup.h"

static void pause_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) != 0)
		;
}

/* Lineup digits and the present mask from OPPONENTS. */
static unsigned lineup(const char *opps, char digits[4])
{
	unsigned present = 1;
	char buf[256];
	char *p = buf;

	snprintf(buf, sizeof buf, "%s", opps);
	for (int k = 0; k < 3; k++) {
		char *comma = p ? strchr(p, ',') : NULL;
		if (comma)
			*comma = '\0';
		int absent = !p || !*p || !strcmp(p, "none") || !strcmp(p, "-");
		digits[k] = absent ? '0' : !strcmp(p, "easy") ? '1' : '2';
		if (!absent)
			present |= 1u << (k + 1);
		p = comma ? comma + 1 : NULL;
	}
	digits[3] = '\0';
	return present;
}

static void say(const char *text)
{
	fputs(text, stdout);
	fflush(stdout);
}

static void first_decision(const char *mode)
{
	if (!strcmp(mode, "crash"))
		abort();
	if (!strcmp(mode, "hang"))
		for (;;)
			pause();
	if (!strcmp(mode, "garbage"))
		say("hello judge, this is not a move\n");
	if (!strcmp(mode, "exit"))
		exit(0);
}

/* The made-up player named mode, or -1. */
static int madeup_mode(const char *mode)
{
	for (int p = 0; p < POL_EASY; p++)
		if (!strcmp(mode, policy_name[p]))
			return p;
	return -1;
}

/* The index to send for decision pos+die with legal mask. */
static int choose(const char *mode, const kb_pos *pos, int die, unsigned mask, kb_rng *rng)
{
	int madeup = madeup_mode(mode);

	if (madeup >= 0)
		return play_policy((enum policy)madeup, pos, 0, die, mask, rng);
	if (!strcmp(mode, "illegal"))
		for (int i = 3; i >= 0; i--)
			if (!(mask >> i & 1))
				return i;
	if (!strcmp(mode, "easy"))
		return 31 - __builtin_clz(mask);
	return __builtin_ctz(mask);
}

int main(int argc, char **argv)
{
	char line[256], token[KB_TOKEN_LEN + 2] = "", state[64] = "", digits[4];
	int decisions = 0, over = 0;
	unsigned present;

	if (argc != 4) {
		fprintf(stderr, "usage: testbot MODE OPPONENTS SEED\n");
		return 1;
	}
	const char *mode = argv[1];
	present = lineup(argv[2], digits);
	kb_rng rng;
	kb_rng_seed(&rng, strtoull(argv[3], NULL, 10));
	madeup_rival = present & 2 ? 1 : present & 4 ? 2 : 3;
	if (!strcmp(mode, "silent"))
		for (;;)
			pause();
	printf("v001%s\n", strcmp(mode, "lineup") ? digits : "000");
	fflush(stdout);
	if (!strcmp(mode, "noread"))
		for (;;)
			pause();
	if (!strcmp(mode, "flood"))
		for (;;)
			if (fputs("\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n", stdout) == EOF)
				return 1;
	if (!strcmp(mode, "fork") && fork() == 0) {
		pause_ms(30000);
		_exit(0);
	}
	fprintf(stderr, "testbot %s: playing %s\n", mode, argv[2]);
	while (fgets(line, sizeof line, stdin)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] == 't' && strlen(line) == KB_TOKEN_LEN)
			snprintf(token, sizeof token, "%s", line);
		else if (strlen(line) == KB_STATE_LEN)
			snprintf(state, sizeof state, "%s", line);
		else if (!strncmp(line, "Voittaja", 8))
			over = 1;
		if (strcmp(line, "END") || over)
			continue;
		kb_pos pos;
		if (state[KB_BOARD_LEN] != 'A' ||
		    kb_board_parse(state, KB_BOARD_LEN, present, &pos, NULL))
			continue;
		int die = state[KB_BOARD_LEN + 1] - '0';
		unsigned mask = kb_legal(&pos, 0, die);
		if (decisions++ == 0)
			first_decision(mode);
		if (!strcmp(mode, "slow"))
			pause_ms(400);
		if (!mask)
			continue;
		printf("%s%d\n", strcmp(mode, "token") ? token : "t0000000000000000000000000000000000000000000000000000000000000000",
		       choose(mode, &pos, die, mask, &rng));
		fflush(stdout);
	}
	return 0;
}
