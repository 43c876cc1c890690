/* test_learning_judge.c - tests/bench/learning-judge.sh with the real
 * programs: kimble-judge runs kimble-bot with learning and without
 * against the test bot on the same deals, and the script pairs the games
 * (docs/learning-model.md, "Measuring"). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/support.h"

/* Run the script from the checkout with args (a shell word list), stdout
 * to out and stderr to err in a fresh folder: its exit status. */
static int learning_judge(const char *args, char *out, char *err, size_t size)
{
	char dir[512], root[1024], cmd[2048];

	test_tmpdir(dir, sizeof dir);
	test_root_path("", root, sizeof root);
	snprintf(out, size, "%s/out.txt", dir);
	snprintf(err, size, "%s/err.txt", dir);
	snprintf(cmd, sizeof cmd, "exec tests/bench/learning-judge.sh %s > '%s'", args, out);
	char *const argv[] = {"/bin/sh", "-c", cmd, NULL};
	return test_run_status(argv, root, err, 120000);
}

/* One deal against the mixed player: two games each way, the learning
 * bot's store is empty when they start, so both runs play them alike and
 * the line says "same games" with no interval. */
Test(learning_judge, pairs_the_games_of_both_runs, .timeout = 120)
{
	char out[1024], err[1024];

	cr_assert_eq(learning_judge("--deals 1 --seed 3 mixed", out, err, sizeof out), 0, "%s",
		     test_read_file(NULL, err));
	const char *text = test_read_file(NULL, out);
	cr_assert(strncmp(text, "player       games  learning       off difference", 49) == 0, "%s", text);
	const char *line = strstr(text, "\nmixed ");
	cr_assert_not_null(line, "%s", text);
	char rate_l[16], rate_o[16], diff[16], same1[16], same2[16];
	int games = -1, alike = -1;
	cr_assert_eq(sscanf(line + 1, "mixed %d %15s %15s %15s %15s %15s %d", &games, rate_l, rate_o,
			    diff, same1, same2, &alike), 7, "%s", text);
	cr_assert_eq(games, 2, "%s", text);
	cr_assert_str_eq(rate_l, rate_o, "%s", text);
	cr_assert_str_eq(diff, "+0.0");
	cr_assert_str_eq(same1, "same");
	cr_assert_eq(alike, 2, "%s", text);
}

/* Several seeds: a line per seed, each run from a fresh store, then the
 * player's line pooling every seed's games. */
Test(learning_judge, pools_several_seeds, .timeout = 120)
{
	char out[1024], err[1024];
	static const struct {
		const char *label;
		int games;
	} rows[] = {{"mixed:3", 2}, {"mixed:4", 2}, {"mixed", 4}};

	cr_assert_eq(learning_judge("--deals 1 --seed 3,4 mixed", out, err, sizeof out), 0, "%s",
		     test_read_file(NULL, err));
	const char *line = test_read_file(NULL, out);
	for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
		char label[32], rate_l[16], rate_o[16], diff[16];
		int games = -1;

		line = strchr(line, '\n');
		cr_assert_not_null(line, "row %zu missing", r);
		line++;
		cr_assert_eq(sscanf(line, "%31s %d %15s %15s %15s", label, &games, rate_l, rate_o, diff), 5,
			     "%s", line);
		cr_assert_str_eq(label, rows[r].label, "%s", line);
		cr_assert_eq(games, rows[r].games, "%s", line);
		cr_assert_str_eq(rate_l, rate_o, "an empty store plays as learning off: %s", line);
	}
	const char *end = strchr(line, '\n');
	cr_assert(end != NULL && end[1] == '\0', "three rows only: %s", line);
}

/* Bad input is refused before any game, naming the input and what was
 * expected, with the usage line (status 64). */
Test(learning_judge, refuses_bad_input_naming_it, .timeout = 60)
{
	static const struct {
		const char *args, *says;
	} cases[] = {
		{"--deals abc", "learning-judge: --deals: expected a whole number, got \"abc\"\n"},
		{"--seed", "learning-judge: --seed: expected a whole number after it\n"},
		{"--seed 3,,4", "learning-judge: --seed: expected whole numbers separated by commas, "
				"got \"3,,4\"\n"},
		{"--seed 3,", "learning-judge: --seed: expected whole numbers separated by commas, "
			      "got \"3,\"\n"},
		{"--seed 3,4,03", "learning-judge: --seed: 3 given twice (each seed is one run)\n"},
		{"--seed 12345678901234567890", "learning-judge: --seed: 12345678901234567890: out of "
						"range (expected at most 19 digits)\n"},
		{"mixed --keep", "learning-judge: --keep: an option after a player (options come first)\n"},
		{"--deals 0", "learning-judge: --deals: expected at least 1, got 0\n"},
		{"--bogus", "learning-judge: --bogus: unknown option\n"},
		{"nobody", "learning-judge: nobody: expected a made-up player ("},
		{"docs", "learning-judge: docs: a folder without a meta file"},
	};
	char out[1024], err[1024];

	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		cr_assert_eq(learning_judge(cases[c].args, out, err, sizeof out), 64, "%s", cases[c].args);
		const char *said = test_read_file(NULL, err);
		cr_assert(strncmp(said, cases[c].says, strlen(cases[c].says)) == 0, "%s: %s", cases[c].args,
			  said);
		cr_assert_not_null(strstr(said, "\nusage: tests/bench/learning-judge.sh"), "%s", said);
		cr_assert_str_empty(test_read_file(NULL, out), "%s: nothing on stdout", cases[c].args);
	}
}

/* --keep leaves the work folder and names it: the learning run's store
 * is there for kimble-state, as the help says, and holds the learning
 * bot's own predictions of the player by score (too few of either after
 * two games of about 13 decisions). */
Test(learning_judge, keep_leaves_the_store_and_names_it, .timeout = 120)
{
	char out[1024], err[1024], store[1200], cmd[1300], state[1024], show[1300], sh[4200];
	const char *kept = "learning-judge: kept ";

	cr_assert_eq(learning_judge("--deals 1 --keep mixed", out, err, sizeof out), 0);
	const char *said = test_read_file(NULL, err);
	cr_assert(strncmp(said, kept, strlen(kept)) == 0, "%s", said);
	int n = snprintf(store, sizeof store, "%s", said + strlen(kept));
	cr_assert(n > 1 && store[n - 1] == '\n', "%s", said);
	store[n - 1] = '\0';
	char *const rm[] = {"/bin/rm", "-rf", store, NULL};
	snprintf(cmd, sizeof cmd, "%s/learn-mixed/kimble-state/data.mdb", store);
	int there = access(cmd, R_OK) == 0;
	snprintf(show, sizeof show, "%s/show.txt", store);
	snprintf(sh, sizeof sh, "exec '%s' --state '%s/learn-mixed/kimble-state' show mixed1 > '%s'",
		 test_bin("kimble-state", state, sizeof state), store, show);
	char *const argv[] = {"/bin/sh", "-c", sh, NULL};
	int shown = test_run_status(argv, NULL, err, 30000);
	char *text = strdup(test_read_file(NULL, show));
	cr_assert_eq(test_run_status(rm, NULL, NULL, 30000), 0);
	cr_assert(there, "no store at %s", cmd);
	cr_assert_eq(shown, 0, "%s", test_read_file(NULL, err));
	const char *by_score = strstr(text, "\nby score, the bot's own predictions");
	cr_assert_not_null(by_score, "%s", text);
	cr_assert_not_null(strstr(by_score, "\n  not ahead of the bot: "), "%s", text);
	cr_assert_not_null(strstr(by_score, "\n  ahead of the bot: "), "%s", text);
	cr_assert_not_null(strstr(by_score, "judged, fewer than 30"), "%s", text);
	free(text);
}

/* Run from elsewhere than the repository root, it says so instead of
 * sending the user off to rebuild programs that are there. */
Test(learning_judge, says_to_run_from_the_root, .timeout = 30)
{
	char dir[512], script[1024], err[1100];

	test_tmpdir(dir, sizeof dir);
	test_root_path("tests/bench/learning-judge.sh", script, sizeof script);
	snprintf(err, sizeof err, "%s/err.txt", dir);
	char *const argv[] = {script, "--deals", "1", "mixed", NULL};
	cr_assert_eq(test_run_status(argv, dir, err, 30000), 1);
	const char *said = test_read_file(NULL, err);
	cr_assert(strncmp(said, "learning-judge: run from the repository root (not ", 50) == 0, "%s",
		  said);
}

/* --help prints the script's header comment, and only that: its last
 * line is the header's, no line of the code after it. */
Test(learning_judge, help_is_the_header, .timeout = 30)
{
	char out[1024], err[1024];

	cr_assert_eq(learning_judge("--help", out, err, sizeof out), 0);
	const char *text = test_read_file(NULL, out);
	cr_assert(strncmp(text, "learning-judge.sh - does learning pay", 37) == 0, "%s", text);
	const char *end = "Run from the repository root.\n";
	size_t n = strlen(text);
	cr_assert(n > strlen(end) && strcmp(text + n - strlen(end), end) == 0, "%s", text);
	cr_assert_null(strstr(text, "set -eu"), "%s", text);
	cr_assert_not_null(strstr(text, "switcher1"), "the names in the games: %s", text);
}
