/* test_judge.c - kimble-judge: misbehaving bots, determinism, reruns,
 * resume, shards and merge, meta errors, start positions, SPRT, replays
 * and pictures, stopping by signals, and the plan and statistics
 * underneath. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "judge/match.h"
#include "judge/plan.h"
#include "judge/report.h"
#include "support.h"

#define RUN_MS 50000

/* The test bot program (tests/bots/testbot.c, built by make test). */
static const char *testbot(char *buf, size_t size)
{
	test_root_path("build/rel/testbots/testbot", buf, size);
	cr_assert(access(buf, X_OK) == 0, "%s missing: build it with make build/rel/testbots/testbot",
		  buf);
	return buf;
}

/* A bot directory dir/name whose meta file holds text. */
static void make_meta(const char *dir, const char *name, const char *text)
{
	char path[1200];

	snprintf(path, sizeof path, "%s/%s", dir, name);
	mkdir(path, 0755);
	snprintf(path, sizeof path, "%s/%s/meta", dir, name);
	test_write_file(path, "%s", text);
}

/* A bot directory dir/name whose meta runs the test bot in mode. */
static void make_bot(const char *dir, const char *name, const char *mode)
{
	char text[1400], bot[1024];

	snprintf(text, sizeof text, "%s\n%s\n%s\n1\n", name, testbot(bot, sizeof bot), mode);
	make_meta(dir, name, text);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *text;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	text = malloc((size_t)n + 1);
	cr_assert_eq(fread(text, 1, (size_t)n, f), (size_t)n);
	text[n] = '\0';
	fclose(f);
	return text;
}

/* Run kimble-judge with args (NULL-terminated) in cwd; stdout and stderr
 * go to cwd/NAME.out and cwd/NAME.err.  Returns the exit status. */
static int judge(const char *cwd, const char *name, const char *const args[])
{
	char bin[1024], out[1024], err[1024];
	char *argv[64];
	int n = 0, st;
	test_proc p;

	argv[n++] = (char *)test_bin("kimble-judge", bin, sizeof bin);
	for (; args[n - 1] && n < 63; n++)
		argv[n] = (char *)args[n - 1];
	argv[n] = NULL;
	snprintf(out, sizeof out, "%s/%s.out", cwd, name);
	snprintf(err, sizeof err, "%s/%s.err", cwd, name);
	/* stdout to a file: spawn with a shell-free redirect via err_path
	 * for stderr and a pipe we drain for stdout */
	cr_assert_eq(test_spawn(&p, argv, cwd, 0, 1, err), 0);
	FILE *f = fopen(out, "w");
	test_reader r;
	char line[4096];
	long len;
	test_reader_init(&r, p.out);
	while ((len = test_getline(&r, line, sizeof line, RUN_MS)) >= 0)
		fprintf(f, "%s\n", line);
	fclose(f);
	cr_assert_neq(len, -2, "kimble-judge %s did not finish", name);
	st = test_wait(&p, RUN_MS);
	close(p.out);
	cr_assert(st >= 0 && WIFEXITED(st), "kimble-judge %s did not exit normally", name);
	return WEXITSTATUS(st);
}

/* Count of forfeits for reason of bot name in OUT/results.json (-1 when
 * the bot is not listed). */
static int forfeits(const char *json, const char *name, const char *reason)
{
	char key[128];
	const char *at, *eol;

	snprintf(key, sizeof key, "{\"name\": \"%s\"", name);
	if (!(at = strstr(json, key)))
		return -1;
	eol = strchr(at, '\n');
	snprintf(key, sizeof key, "\"%s\": ", reason);
	const char *r = strstr(at, key);
	if (!r || (eol && r > eol))
		return -1;
	return atoi(r + strlen(key));
}

static int wins(const char *json, const char *name)
{
	char key[128];
	const char *at;

	snprintf(key, sizeof key, "{\"name\": \"%s\", \"games\": ", name);
	if (!(at = strstr(json, key)))
		return -1;
	at = strstr(at, "\"wins\": ");
	return at ? atoi(at + 8) : -1;
}

static const char *mode_reason[][2] = {
	{"crash", "crash"},     {"hang", "timeout"},  {"garbage", "garbage"},
	{"illegal", "illegal"}, {"token", "token"},   {"noread", "timeout"},
	{"flood", "timeout"},   {"exit", "exit"},     {"slow", "timeout"},
	{"silent", "startup"}};
#define NMODES (sizeof mode_reason / sizeof mode_reason[0])

Test(judge, misbehaving_bots_recorded_with_reasons, .timeout = 120)
{
	char dir[512], bots[1024], out[1024], path[1200];
	const char *args[40] = {"-q", "--no-timing", "-j2", "--move-ms", "200", "--startup-ms",
				"1500", "--max-timeouts", "0", "-f", "gauntlet", "-t", "2",
				"--bots", bots, "-o", out, "player"};
	int n = 18;

	test_tmpdir(dir, sizeof dir);
	snprintf(bots, sizeof bots, "%s/bots", dir);
	snprintf(out, sizeof out, "%s/out", dir);
	mkdir(bots, 0755);
	make_bot(bots, "player", "hard");
	for (size_t i = 0; i < NMODES; i++) {
		make_bot(bots, mode_reason[i][0], mode_reason[i][0]);
		args[n++] = mode_reason[i][0];
	}
	args[n] = NULL;
	cr_assert_eq(judge(dir, "gauntlet", args), 0, "the tournament finishes");
	snprintf(path, sizeof path, "%s/results.json", out);
	char *json = slurp(path);
	cr_assert_not_null(json, "%s", path);
	for (size_t i = 0; i < NMODES; i++) {
		const char *bot = mode_reason[i][0], *why = mode_reason[i][1];
		cr_expect_eq(forfeits(json, bot, why), 2, "%s forfeits both games with reason %s",
			     bot, why);
		cr_expect_eq(wins(json, bot), 0, "%s never wins", bot);
	}
	for (int r = 1; r < KJ_REASONS; r++)
		cr_expect_eq(forfeits(json, "player", kj_reason_name(r)), 0, "player never forfeits");
	free(json);
}

/* A fresh test folder dir with an empty bots folder dir/bots, and the
 * output folder's path dir/out (not made). */
static void bots_and_out(char dir[512], char bots[1024], char out[1024])
{
	test_tmpdir(dir, 512);
	snprintf(bots, 1024, "%s/bots", dir);
	snprintf(out, 1024, "%s/out", dir);
	mkdir(bots, 0755);
}

Test(judge, bot_timing_out_in_a_row_is_removed, .timeout = 60)
{
	char dir[512], bots[1024], out[1024], path[1200];
	const char *args[] = {"-q", "--no-timing", "-j1", "--move-ms", "100", "--max-timeouts", "2",
			      "-f", "fixed", "-g", "5", "--bots", bots, "-o", out, "sleeper", "easy",
			      NULL};

	bots_and_out(dir, bots, out);
	make_bot(bots, "sleeper", "hang");
	cr_assert_eq(judge(dir, "removal", args), 0);
	snprintf(path, sizeof path, "%s/results.json", out);
	char *json = slurp(path);
	cr_expect(strstr(json, "{\"name\": \"sleeper\", \"games\": 2,") != NULL,
		  "removed after two timeouts in a row: %s", json);
	free(json);
	snprintf(path, sizeof path, "%s/removal.err", dir);
	char *err = slurp(path);
	cr_expect(strstr(err, "sleeper timed out in 2 games in a row: removed") != NULL, "%s", err);
	free(err);
}

/* The games a removed bot would have played are skipped, and the run
 * goes on judging the games after them: here (pairs in order, -j1) the
 * sleeper is removed after its two games with easy, its games with nobot
 * are skipped, and the easy-nobot games after them still report that
 * nobot's command cannot be run (exit status 2). */
Test(judge, games_after_a_removed_bots_are_still_judged, .timeout = 60)
{
	char dir[512], bots[1024], out[1024];
	const char *args[] = {"-q", "--no-timing", "-j1", "--move-ms", "100", "--max-timeouts", "2",
			      "-t", "2", "-g", "1", "--bots", bots, "-o", out, "sleeper", "easy", "nobot",
			      NULL};

	bots_and_out(dir, bots, out);
	make_bot(bots, "sleeper", "hang");
	make_meta(bots, "nobot", "nobot\n./no-such-program\n\n0\n");
	cr_assert_eq(judge(dir, "run", args), 2, "%s", test_read_file(dir, "run.err"));
	const char *said = test_read_file(dir, "run.err");
	cr_expect(strstr(said, "sleeper timed out in 2 games in a row: removed") &&
		  strstr(said, "could not start (see above): nobot"), "%s", said);
	cr_expect_str_eq(test_read_file(out, "games/000002.res"), "", "a game of the removed sleeper");
}

/* Removal does not depend on timing: games 0 to 2 of the silent bot
 * (every game, at a table of four) remove it, and game 3, which two games
 * at once (-j2) start before game 2 is over, neither counts nor stays in
 * the folder.  The removal and the games left out are in results.txt and
 * on stdout, not only on stderr. */
Test(judge, removal_keeps_the_same_games_at_any_concurrency, .timeout = 60)
{
	char dir[512], bots[1024], out[1024], name[64];
	const char *args[] = {"-q", "--no-timing", "-j2", "--startup-ms", "100", "--max-timeouts", "3",
			      "-g", "3", "--bots", bots, "-o", out, "quiet", "easy", "hard", "easy2",
			      NULL};
	const char *says = "removed: quiet timed out in 3 games in a row (the last, game 2); 9 later "
			   "games with it not played\n";

	bots_and_out(dir, bots, out);
	make_bot(bots, "quiet", "silent");
	make_bot(bots, "easy2", "easy");
	cr_assert_eq(judge(dir, "run", args), 0, "%s", test_read_file(dir, "run.err"));
	for (int g = 0; g < 12; g++) {
		snprintf(name, sizeof name, "games/%06d.res", g);
		const char *res = test_read_file(out, name);
		cr_assert(g < 3 ? res[0] != 0 : res[0] == 0, "game %d: %s", g, g < 3 ? "missing" : res);
	}
	const char *results = test_read_file(out, "results.txt");
	cr_assert(strstr(results, "\nquiet                 3 ") != NULL, "%s", results);
	size_t n = strlen(results), m = strlen(says);
	cr_assert(n > m && strcmp(results + n - m, says) == 0, "%s", results);
	cr_assert_not_null(strstr(test_read_file(dir, "run.out"), says));
	cr_assert_not_null(strstr(test_read_file(out, "results.json"),
				  ",\n  \"removed\": [\n    {\"name\": \"quiet\", \"in_a_row\": 3, "
				  "\"game\": 2, \"not_played\": 9}\n  ]\n}\n"),
			   "%s", test_read_file(out, "results.json"));
	cr_assert_not_null(strstr(test_read_file(out, "report.html"),
				  "<p class=\"removed\">Removed: quiet timed out in 3 games in a row"),
			   "%s", test_read_file(out, "report.html"));
}

/* "In a row": a game without a timeout starts the count again from 0.
 * The test bot in mode silentodd misses its start (a startup timeout)
 * in the games that give it an odd seed; with --max-timeouts 2 it plays
 * (-j1, games in order) until the first two such games in a row, and no
 * game after them. */
Test(judge, timeouts_in_a_row_count_from_0_after_a_game_in_time, .timeout = 60)
{
	char dir[512], bots[1024], out[1024], name[64];
	const char *args[] = {"-q", "--no-timing", "-j1", "--startup-ms", "100", "--max-timeouts", "2",
			      "-s", "3", "-f", "fixed", "-g", "12", "--bots", bots, "-o", out, "odd",
			      "easy", NULL};
	int played = 0, row = 0, removed_at = -1;

	bots_and_out(dir, bots, out);
	make_bot(bots, "odd", "silentodd");
	cr_assert_eq(judge(dir, "run", args), 0, "%s", test_read_file(dir, "run.err"));
	for (int g = 0; g < 24 && removed_at < 0; g++, played++) {
		snprintf(name, sizeof name, "games/%06d.res", g);
		const char *res = test_read_file(out, name);
		cr_assert(res[0], "game %d played: the bot is not yet removed", g);
		const char *seat = strstr(res, " odd place ");
		cr_assert_not_null(seat, "%s", res);
		int late = !strncmp(strstr(seat, " forfeit ") + 9, "startup ", 8);
		row = late ? row + 1 : 0;
		if (row == 2)
			removed_at = g;
	}
	/* after game 1: game removed_at - 2 was in time, so a count kept from
	 * it would have removed the bot one game earlier */
	cr_assert_gt(removed_at, 1, "the first two timeouts in a row come after a game in time");
	snprintf(name, sizeof name, "games/%06d.res", played);
	cr_expect_str_eq(test_read_file(out, name), "", "a game after the removal");
	cr_expect(strstr(test_read_file(dir, "run.err"), "odd timed out in 2 games in a row: removed"),
		  "%s", test_read_file(dir, "run.err"));
}

Test(judge, forking_bot_and_wrong_lineup_still_play, .timeout = 60)
{
	char dir[512], bots[1024], out[1024], path[1200];
	const char *args[] = {"-q", "--no-timing", "--bots", bots, "-o", out, "-f", "fixed",
			      "forker", "liar", "hard", NULL};

	test_tmpdir(dir, sizeof dir);
	snprintf(bots, sizeof bots, "%s/bots", dir);
	snprintf(out, sizeof out, "%s/out", dir);
	mkdir(bots, 0755);
	make_bot(bots, "forker", "fork");
	make_bot(bots, "liar", "lineup");
	cr_assert_eq(judge(dir, "fork", args), 0);
	snprintf(path, sizeof path, "%s/results.json", out);
	char *json = slurp(path);
	cr_assert_not_null(json);
	for (int r = 1; r < KJ_REASONS; r++) {
		cr_expect_eq(forfeits(json, "forker", kj_reason_name(r)), 0);
		cr_expect_eq(forfeits(json, "liar", kj_reason_name(r)), 0);
	}
	cr_expect(strstr(json, "\"name\": \"liar\", \"games\": 3") != NULL);
	cr_expect(strstr(strstr(json, "\"name\": \"liar\""), "\"lineup_mismatches\": 3") != NULL,
		  "a wrong v001XYZ is noted, not forfeited");
	free(json);
	snprintf(path, sizeof path, "%s/out/games/000000.B.err", dir);
	char *err = slurp(path);
	cr_assert_not_null(err, "stderr kept per game (meta flag 1)");
	cr_expect(strstr(err, "testbot lineup: playing") != NULL);
	free(err);
}

/* The text kimble-judge printed: cwd/NAME.out or .err (malloc'ed). */
static char *printed(const char *cwd, const char *name, const char *ext)
{
	char path[1200];

	snprintf(path, sizeof path, "%s/%s.%s", cwd, name, ext);
	char *text = slurp(path);
	cr_assert_not_null(text, "%s", path);
	return text;
}

/* An illegal-move bot in every seat of a gauntlet: the games where its
 * seat was finished first by the replacement credit nobody, and every
 * place a result shows says when and why the bot forfeited. */
Test(judge, forfeit_is_never_a_win_and_is_shown_everywhere, .timeout = 60)
{
	char dir[512], out[1024], path[1200], tx[1200];
	const char *args[] = {"-q", "--no-timing", "-j2", "-s", "5", "-f", "gauntlet", "-t", "4",
			      "--bots", dir, "-o", out, "cheat", "hard", "hard", "hard", NULL};
	int replaced_won = -1;

	make_bot(test_tmpdir(dir, sizeof dir), "cheat", "illegal");
	snprintf(out, sizeof out, "%s/out", dir);
	cr_assert_eq(judge(dir, "cheat", args), 0);
	for (int g = 0; g < 4; g++) {
		kj_result res;
		uint32_t game;
		kb_err err;
		char raw[64] = "";
		snprintf(path, sizeof path, "%s/games/%06d.res", out, g);
		FILE *f = fopen(path, "r");
		cr_assert_not_null(f, "%s", path);
		cr_assert(fgets(raw, sizeof raw, f) && fgets(raw, sizeof raw, f));
		rewind(f);
		cr_assert_eq(kj_result_read(f, &game, &res, &err), 0, "%s: %s", path, err.msg);
		fclose(f);
		const char *w = strstr(raw, " winner ");
		cr_assert_not_null(w, "%s", raw);
		int won = w[8] >= 'A' && w[8] <= 'D' ? w[8] - 'A' : -1;
		cr_expect(won < 0 || !res.seat[won].reason, "%s names a forfeited seat as winner: %s",
			  path, raw);
		if (res.finished >= 0 && res.seat[res.finished].reason)
			replaced_won = g;
	}
	cr_assert_geq(replaced_won, 0, "seed 5 has a game that the replacement finishes");
	snprintf(path, sizeof path, "%s/games/%06d.res", out, replaced_won);
	char *text = slurp(path);
	cr_expect(strstr(text, " winner - ") && strstr(text, " why index "), "%s", text);
	free(text);
	text = printed(dir, "cheat", "out");
	cr_expect(strstr(text, "first forfeit of cheat: game ") && strstr(text, "forfeited at roll ") &&
		  strstr(text, "(illegal: index ") && strstr(text, "; legal ") &&
		  strstr(text, "seat finished by hard (replacement)"), "%s", text);
	free(text);
	snprintf(path, sizeof path, "%s/results.json", out);
	text = slurp(path);
	cr_expect(strstr(text, "\"first_forfeit\": {\"game\": ") != NULL, "%s", text);
	cr_expect_eq(wins(text, "cheat"), 0);
	free(text);
	snprintf(tx, sizeof tx, "%s/games/%06d.tx", out, replaced_won);
	const char *rep[] = {"replay", tx, NULL};
	cr_assert_eq(judge(dir, "replay", rep), 0);
	text = printed(dir, "replay", "out");
	cr_expect(strstr(text, "=cheat (") && strstr(text, ", forfeited)"), "the seats line");
	cr_expect(strstr(text, "cheat forfeited at roll ") && strstr(text, "(illegal: index ") &&
		  strstr(text, ", replacing cheat) rolls ") && strstr(text, "(replacement)\n"),
		  "the roll of the forfeit and the replacement's moves");
	cr_expect(strstr(text, "\nwinner: - (win by the replacement (hard) of forfeited seat ") != NULL,
		  "%s", strstr(text, "winner: ") ? strstr(text, "winner: ") : text);
	free(text);
	const char *pic[] = {"svg", tx, NULL};
	cr_assert_eq(judge(dir, "svg", pic), 0);
	text = printed(dir, "svg", "out");
	cr_expect(strstr(text, " cheat forfeited at roll ") != NULL, "the last picture says so");
	free(text);
}

/* -d: the forfeit line names the refused index and the legal ones, the
 * summary never calls the forfeited bot the winner. */
Test(judge, debug_game_names_the_forfeit_and_the_replacement, .timeout = 60)
{
	char dir[512], bot[1024];
	const char *args[] = {"-d", bot, "--no-timing", "-s", "5", NULL};

	test_tmpdir(dir, sizeof dir);
	make_bot(dir, "cheat", "illegal");
	snprintf(bot, sizeof bot, "%s/cheat", dir);
	cr_assert_eq(judge(dir, "debug", args), 0);
	char *text = printed(dir, "debug", "out");
	cr_expect(strstr(text, "\nA cheat forfeited at roll ") && strstr(text, "(illegal: index ") &&
		  strstr(text, "refused; legal ") && strstr(text, "seat finished by hard (replacement)"),
		  "%s", text);
	cr_expect(strstr(text, "\nno winner credited after ") && !strstr(text, "\nwinner A"),
		  "seed 5: A's replacement finishes first: %s", strstr(text, "\nseat A") ?
		  strstr(text, "\nseat A") : text);
	cr_expect(strstr(text, "\nA! testbot illegal: playing") != NULL, "the bot's stderr, marked");
	free(text);
}

/* -d with the forfeiting bot as the opponent (seat C of a two-bot table):
 * when its replacement finishes first, the summary names seat C, not the
 * debugged bot's seat A.  Seeds are tried until such a game comes up. */
Test(judge, debug_summary_names_the_seat_the_replacement_finished, .timeout = 60)
{
	char dir[512], bot[1024], seed[16];
	const char *args[] = {"-d", "hard", bot, "--no-timing", "-s", seed, NULL};
	char *text = NULL;

	test_tmpdir(dir, sizeof dir);
	make_bot(dir, "cheat", "illegal");
	snprintf(bot, sizeof bot, "%s/cheat", dir);
	for (int s = 1; !text || !strstr(text, "\nno winner credited "); s++) {
		cr_assert_leq(s, 40, "in 40 seeds the replacement of seat C finishes first once");
		free(text);
		snprintf(seed, sizeof seed, "%d", s);
		cr_assert_eq(judge(dir, "debug", args), 0);
		text = printed(dir, "debug", "out");
	}
	cr_expect(strstr(text, " rolls: seat C was finished by hard, the replacement of cheat, "
			       "which forfeited\n") != NULL, "%s", strstr(text, "\nno winner credited "));
	free(text);
}

/* A meta file whose command cannot be run: -d, stderr and the results name
 * the bot, the command, the folder and the system's error; exit status 2. */
Test(judge, bot_whose_command_fails_is_explained, .timeout = 60)
{
	char dir[512], bot[1024], path[1200], out[1024];
	const char *dbg[] = {"-d", bot, "--no-timing", NULL};
	const char *tour[] = {"-q", "--no-timing", "-o", out, bot, "hard", NULL};

	test_tmpdir(dir, sizeof dir);
	snprintf(bot, sizeof bot, "%s/pybot", dir);
	snprintf(out, sizeof out, "%s/out", dir);
	mkdir(bot, 0755);
	snprintf(path, sizeof path, "%s/meta", bot);
	FILE *f = fopen(path, "w");
	fprintf(f, "pybot\npython3 bot.py\n\n0\n"); /* command and argument on one line */
	fclose(f);
	cr_assert_eq(judge(dir, "debug", dbg), 2, "a bot that cannot start: status 2");
	char *text = printed(dir, "debug", "out");
	char want[1400];
	snprintf(want, sizeof want, "A pybot forfeited before the first roll (nostart: cannot run "
		 "'python3 bot.py' in %s: execvp: No such file or directory; meta line 2", bot);
	cr_expect(strstr(text, want) != NULL, "%s\nin -d: %s", want, text);
	cr_expect_null(strstr(text, "A! kimble-judge:"), "the judge's own line dressed as the "
		       "bot's stderr: %s", text);
	free(text);
	text = printed(dir, "debug", "err");
	cr_expect(strstr(text, want) != NULL, "on stderr: %s", text);
	free(text);
	cr_assert_eq(judge(dir, "tour", tour), 2);
	text = printed(dir, "tour", "err");
	cr_expect(strstr(text, want) && strstr(text, "could not start (see above): pybot"), "%s", text);
	free(text);
	snprintf(path, sizeof path, "%s/results.txt", out);
	text = slurp(path);
	cr_expect(strstr(text, "nostart:2") && strstr(text, want), "%s", text);
	free(text);
	/* a file in the bot's folder named without ./ is looked up in PATH */
	snprintf(path, sizeof path, "%s/meta", bot);
	f = fopen(path, "w");
	fprintf(f, "pybot\nbot.py\n\n0\n");
	fclose(f);
	snprintf(path, sizeof path, "%s/bot.py", bot);
	f = fopen(path, "w");
	fprintf(f, "#!/usr/bin/env python3\n");
	fclose(f);
	chmod(path, 0755);
	cr_assert_eq(judge(dir, "path", dbg), 2);
	text = printed(dir, "path", "out");
	cr_expect(strstr(text, "execvp: No such file or directory; without '/' the command is "
			       "looked up in PATH: write ./ before it") != NULL, "%s", text);
	free(text);
}

/* -d -o FILE.tx or -o DIR writes the game's transcript, which replay
 * reads; options -d does not use are refused (they were ignored, and -o
 * wrote nothing). */
Test(judge, debug_game_writes_its_transcript, .timeout = 60)
{
	char dir[512], tx[1024], folder[1024], path[1100];
	const char *to_file[] = {"-d", "easy", "--no-timing", "-s", "7", "-o", tx, "random", NULL};
	const char *to_dir[] = {"-d", "easy", "--no-timing", "-s", "7", "-o", folder, "random",
				NULL};
	const char *games[] = {"-d", "easy", "-g", "3", "-o", tx, NULL};
	const char *quiet[] = {"-d", "easy", "-q", NULL};
	const char *show[] = {"replay", tx, NULL};

	test_tmpdir(dir, sizeof dir);
	snprintf(tx, sizeof tx, "%s/game.tx", dir);
	snprintf(folder, sizeof folder, "%s/dbg", dir);
	cr_assert_eq(judge(dir, "file", to_file), 0);
	char *text = printed(dir, "file", "out");
	cr_expect(strstr(text, tx) != NULL, "names the transcript: %s", text);
	char *winner = strstr(text, "\nwinner ");
	cr_assert_not_null(winner, "%s", text);
	char seat = winner[8];
	free(text);
	cr_assert_eq(judge(dir, "replay", show), 0);
	text = printed(dir, "replay", "out");
	char want[32];
	snprintf(want, sizeof want, "winner: %c", seat);
	cr_expect(strstr(text, want) != NULL, "the replay agrees (%s): %s", want, text);
	free(text);
	cr_assert_eq(judge(dir, "dir", to_dir), 0);
	snprintf(path, sizeof path, "%s/debug.tx", folder);
	char *a = slurp(tx), *b = slurp(path);
	cr_assert_not_null(b, "%s", path);
	cr_expect_str_eq(a, b, "same game, same transcript");
	free(a), free(b);
	cr_assert_eq(unlink(tx), 0);
	cr_assert_eq(judge(dir, "games", games), 64);
	text = printed(dir, "games", "err");
	cr_expect(strstr(text, "--games: not used with -d") != NULL, "%s", text);
	free(text);
	cr_expect_neq(access(tx, F_OK), 0, "refused before anything was written");
	cr_assert_eq(judge(dir, "quiet", quiet), 64);
}

/* -d fails with exit status 2 (the judge's own failure, sandbox.md's and
 * the man page's "2: the run failed") when its transcript cannot be
 * written (a full device) and when its bot cannot be started (the judge's
 * user may start no more processes: RLIMIT_NPROC, which binds a user
 * other than root). */
Test(judge, debug_game_that_fails_exits_2, .timeout = 60)
{
	char dir[512], tx[1024], want[1200], bin[1024], bot[1024], err[1024];
	const char *full[] = {"-d", "easy", "--no-timing", "-s", "7", "-o", tx, "random", NULL};

	test_tmpdir(dir, sizeof dir);
	snprintf(tx, sizeof tx, "%s/full.tx", dir);
	cr_assert_eq(symlink("/dev/full", tx), 0);
	cr_assert_eq(judge(dir, "full", full), 2);
	snprintf(want, sizeof want, "kimble-judge: -d -o: cannot write %s: %s\n", tx, strerror(ENOSPC));
	char *text = printed(dir, "full", "err");
	cr_expect_str_eq(text, want);
	free(text);

	test_drop_root(dir);
	make_bot(dir, "b", "hard");
	snprintf(bot, sizeof bot, "%s/b", dir);
	snprintf(err, sizeof err, "%s/nproc.err", dir);
	char *argv[] = {(char *)test_bin("kimble-judge", bin, sizeof bin), "--sandbox", "off", "-d",
			bot, "--no-timing", NULL};
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct rlimit one = {1, 1}; /* this user runs the test already */
		int null = open("/dev/null", O_RDWR), e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(null, 0), dup2(null, 1), dup2(e, 2);
		/* an ASan build's leak check at exit needs a task of its own */
		setenv("ASAN_OPTIONS", "abort_on_error=0:detect_leaks=0", 1);
		if (setrlimit(RLIMIT_NPROC, &one) == 0)
			execv(argv[0], argv);
		_exit(99);
	}
	test_proc p = {pid, -1, -1};
	int st = test_wait(&p, RUN_MS);
	cr_assert(st >= 0 && WIFEXITED(st), "the judge did not exit");
	cr_expect_eq(WEXITSTATUS(st), 2, "%s", test_read_file(NULL, err));
	snprintf(want, sizeof want, "kimble-judge: bot b: cannot start: %s\n", strerror(EAGAIN));
	cr_expect_str_eq(test_read_file(NULL, err), want);
}

/* Expects want in file name of folder dir (which must exist). */
static void expect_file_has(const char *dir, const char *name, const char *want)
{
	char path[1200];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	char *text = slurp(path);
	cr_assert_not_null(text, "%s", path);
	cr_expect(strstr(text, want), "want \"%s\" in %s: %s", want, path, text);
	free(text);
}

/* The messages name the numbers: -t 3 with two bots says how many seats
 * two bots allow; an even Elo is 0.0, not -0.0, and one deal gives it no
 * interval (not a zero-width one). */
Test(judge, table_message_and_even_elo, .timeout = 60)
{
	char dir[512], out[1024];
	const char *three[] = {"-q", "-t", "3", "easy", "hard", NULL};
	const char *even[] = {"-q", "--no-timing", "-f", "fixed", "-t", "2", "-s", "1", "-o", out,
			      "easy", "random", NULL}; /* seed 1: one win each */

	test_tmpdir(dir, sizeof dir);
	snprintf(out, sizeof out, "%s/out", dir);
	cr_assert_eq(judge(dir, "three", three), 64);
	char *text = printed(dir, "three", "err");
	cr_expect(strstr(text, "table size 3") && strstr(text, "at most 2 seats"), "%s", text);
	free(text);
	cr_assert_eq(judge(dir, "even", even), 0);
	expect_file_has(out, "results.txt", "elo easy - random: +0.0 [n/a: 1 deal] from 1 deals (score 0.500)");
	expect_file_has(out, "results.json", "\"elo\": 0.0, \"lo\": null, \"hi\": null, \"no_interval\": \"1 deal\"");
}

/* A Python bot that raises: -d shows its traceback as it comes, marked. */
Test(judge, debug_game_shows_a_crashing_bots_stderr, .timeout = 60)
{
	char dir[512], bot[1024], path[1200];
	const char *args[] = {"-d", bot, "--no-timing", NULL};

	test_tmpdir(dir, sizeof dir);
	snprintf(bot, sizeof bot, "%s/raiser", dir);
	mkdir(bot, 0755);
	snprintf(path, sizeof path, "%s/meta", bot);
	FILE *f = fopen(path, "w");
	fprintf(f, "raiser\npython3\nbot.py\n0\n");
	fclose(f);
	snprintf(path, sizeof path, "%s/bot.py", bot);
	f = fopen(path, "w");
	fprintf(f, "import sys\nprint('v001222', flush=True)\nsys.stdin.readline()\n"
		   "raise RuntimeError('the bot is broken')\n");
	fclose(f);
	cr_assert_eq(judge(dir, "raise", args), 0);
	char *text = printed(dir, "raise", "out");
	cr_expect(strstr(text, "\nA! Traceback (most recent call last):\n") &&
		  strstr(text, "\nA! RuntimeError: the bot is broken\n"), "%s", text);
	cr_expect(strstr(text, "\nA raiser forfeited at roll ") &&
		  strstr(text, "(exit: exited with status 1 before the game ended)"), "%s", text);
	free(text);
}

/* Every file of folder a/games equals the one in b/games. */
static void same_files(const char *a, const char *b, int ngames)
{
	static const char *const ext[] = {".tx", ".res"};
	char pa[1024], pb[1024];

	for (int g = 0; g < ngames; g++)
		for (int e = 0; e < 2; e++) {
			snprintf(pa, sizeof pa, "%s/games/%06d%s", a, g, ext[e]);
			snprintf(pb, sizeof pb, "%s/games/%06d%s", b, g, ext[e]);
			char *x = slurp(pa), *y = slurp(pb);
			cr_assert_not_null(x, "%s", pa);
			cr_assert_not_null(y, "%s", pb);
			cr_assert_str_eq(x, y, "%s and %s differ", pa, pb);
			free(x), free(y);
		}
}

/* A fresh test folder dir and a bots folder inside it holding the test
 * bot "alpha" in mode hard. */
static void alpha_setup(char dir[512], char bots[1024])
{
	test_tmpdir(dir, 512);
	snprintf(bots, 1024, "%s/bots", dir);
	mkdir(bots, 0755);
	make_bot(bots, "alpha", "hard");
}

static void rr_args(const char **args, const char *bots, const char *out)
{
	const char *base[] = {"-q", "--no-timing", "-j2", "-s", "42", "-g", "2", "-t", "3",
			      "--bots", bots, "-o", out, "alpha", "easy", "random", NULL};
	memcpy(args, base, sizeof base);
}

/* alpha_setup, then the round-robin arguments into dir/out. */
static void rr_setup(char dir[512], char bots[1024], char out[1024], const char **args)
{
	alpha_setup(dir, bots);
	snprintf(out, 1024, "%s/out", dir);
	rr_args(args, bots, out);
}

Test(judge, same_command_gives_identical_results_and_transcripts, .timeout = 60)
{
	char dir[512], bots[1024], o1[1024], o2[1024], p1[1100], p2[1100];
	const char *args[20];

	alpha_setup(dir, bots);
	snprintf(o1, sizeof o1, "%s/o1", dir);
	snprintf(o2, sizeof o2, "%s/o2", dir);
	rr_args(args, bots, o1);
	cr_assert_eq(judge(dir, "one", args), 0);
	rr_args(args, bots, o2);
	cr_assert_eq(judge(dir, "two", args), 0);
	same_files(o1, o2, 6);
	for (int k = 0; k < 2; k++) {
		const char *name = k ? "results.json" : "results.txt";
		snprintf(p1, sizeof p1, "%s/%s", o1, name);
		snprintf(p2, sizeof p2, "%s/%s", o2, name);
		char *x = slurp(p1), *y = slurp(p2);
		cr_assert_str_eq(x, y, "%s differs", name);
		free(x), free(y);
	}
	/* duplicate format: the three games of a deal share the seed and
	 * rotate the bots through the seats */
	snprintf(p1, sizeof p1, "%s/games/000000.tx", o1);
	snprintf(p2, sizeof p2, "%s/games/000001.tx", o1);
	char *x = slurp(p1), *y = slurp(p2);
	cr_assert_eq(strncmp(strstr(x, "seed "), strstr(y, "seed "), 25), 0, "same seed in a deal");
	cr_expect(strstr(x, "name A alpha") && strstr(x, "name B easy") && strstr(x, "name C random"));
	cr_expect(strstr(y, "name A easy") && strstr(y, "name B random") && strstr(y, "name C alpha"));
	free(x), free(y);
}

/* A fresh test folder dir with the test bot h (mode hard, its folder
 * into bot), the transcript tx of its -d game against the built-in hard
 * (seed 3), and the path dir/NAME into other (not made). */
static void h_game(char dir[512], char bot[1024], char tx[1100], char other[1100], const char *name)
{
	const char *game[] = {"-d", bot, "--no-timing", "-s", "3", "-o", tx, "hard", NULL};

	test_tmpdir(dir, 512);
	make_bot(dir, "h", "hard");
	snprintf(bot, 1024, "%s/h", dir);
	snprintf(tx, 1100, "%s/g.tx", dir);
	snprintf(other, 1100, "%s/%s", dir, name);
	cr_assert_eq(judge(dir, "game", game), 0);
}

/* A rerun of a transcript whose start position the game refuses (seat B
 * to roll in a game of A and C) says so and exits 2, having given back
 * what it held (the ASan run of make test sees a leak). */
Test(judge, rerun_of_a_refused_start_position, .timeout = 60)
{
	char dir[512], bot[1024], tx[1100], edited[1100];
	const char *rerun[] = {"replay", "--rerun", edited, bot, NULL};

	h_game(dir, bot, tx, edited, "s.tx");
	char *text = slurp(tx), *msg = strstr(text, "\nmsg ");
	cr_assert(text && msg, "%s", text ? text : "no transcript");
	FILE *f = fopen(edited, "w");
	cr_assert_not_null(f);
	fprintf(f, "%.*s\nstart 00000000000000000000000000000000000000000000 B 3%s", (int)(msg - text),
		text, msg);
	cr_assert_eq(fclose(f), 0);
	free(text);
	cr_assert_eq(judge(dir, "rerun", rerun), 2);
	text = printed(dir, "rerun", "err");
	cr_assert(strstr(text, "replay --rerun: start position: unsound, already won, or seats that "
			       "do not match the lineup"), "%s", text);
	free(text);
}

/* A transcript that ends unfinished after k rolls (here cut by hand
 * where the next roll is the process bot's decision) against a rerun
 * that plays on: they differ at roll k + 1, where the transcript has no
 * roll, not agree (exit status 3, man page). */
Test(judge, rerun_of_a_transcript_cut_short_differs_after_its_last_roll, .timeout = 60)
{
	char dir[512], bot[1024], tx[1100], cut[1100], want[128];
	const char *rerun[] = {"replay", "--rerun", cut, bot, NULL};
	int k = 0;

	h_game(dir, bot, tx, cut, "cut.tx");
	const char *text = test_read_file(NULL, tx), *at = strstr(text, "\nroll ");
	for (; at; at = strstr(at + 1, "\nroll ")) { /* at: roll k + 1 */
		const char *eol = strchr(at + 1, '\n');
		if (k >= 3 && eol && !strncmp(eol - 8, " decided", 8))
			break;
		k++;
	}
	cr_assert_not_null(at, "a decision of the bot after roll 3: %s", text);
	test_write_file(cut, "%.*s\nend - %d cut\n", (int)(at - text), text, k);
	cr_assert_eq(judge(dir, "rerun", rerun), 3, "%s", test_read_file(dir, "rerun.out"));
	snprintf(want, sizeof want, "rerun differs at roll %d:\n  transcript: the game ended after %d rolls",
		 k + 1, k);
	cr_expect(strstr(test_read_file(dir, "rerun.out"), want), "%s", test_read_file(dir, "rerun.out"));
}

Test(judge, rerun_agrees_and_finds_changes, .timeout = 60)
{
	char dir[512], bots[1024], out[1024], tx[1200], alpha[1100], other[1100], state[1200];
	const char *args[20];

	rr_setup(dir, bots, out, args);
	cr_assert_eq(judge(dir, "run", args), 0);
	snprintf(alpha, sizeof alpha, "%s/alpha", bots);
	for (int g = 0; g < 6; g++) {
		snprintf(tx, sizeof tx, "%s/games/%06d.tx", out, g);
		const char *rerun[] = {"replay", "--rerun", tx, alpha, NULL};
		cr_assert_eq(judge(dir, "rerun", rerun), 0, "rerun of game %d agrees", g);
	}
	snprintf(tx, sizeof tx, "%s/games/000000.tx", out);
	/* the same name playing differently: the rerun stops at a difference */
	snprintf(other, sizeof other, "%s/other", dir);
	mkdir(other, 0755);
	make_bot(other, "alpha", "easy");
	snprintf(other, sizeof other, "%s/other/alpha", dir);
	snprintf(state, sizeof state, "%s/kimble-state", other);
	mkdir(state, 0755);
	const char *rerun[] = {"replay", "--rerun", tx, other, NULL};
	cr_assert_eq(judge(dir, "differs", rerun), 3);
	snprintf(state, sizeof state, "%s/differs.out", dir);
	char *text = slurp(state);
	cr_expect(strstr(text, "rerun differs at roll") != NULL, "%s", text);
	cr_expect(strstr(text, "seat A: alpha had no learned state when the game was played, and has "
			       "one now (fingerprint ") != NULL, "%s", text);
	free(text);
}

/* A game played with a learned state, rerun after the state changed:
 * the rerun says so, with both fingerprints. */
Test(judge, rerun_says_the_learned_state_changed, .timeout = 60)
{
	char dir[512], bots[1024], out[1024], tx[1200], alpha[1100], state[1200];
	const char *args[20];

	rr_setup(dir, bots, out, args);
	snprintf(state, sizeof state, "%s/alpha/kimble-state", bots);
	cr_assert_eq(mkdir(state, 0755), 0);
	char file[1300];
	snprintf(file, sizeof file, "%s/learned", state);
	test_write_file(file, "before\n");
	cr_assert_eq(judge(dir, "run", args), 0);
	test_write_file(file, "after\n");
	snprintf(alpha, sizeof alpha, "%s/alpha", bots);
	snprintf(tx, sizeof tx, "%s/games/000000.tx", out);
	const char *rerun[] = {"replay", "--rerun", tx, alpha, NULL};
	cr_assert_eq(judge(dir, "rerun", rerun), 0);
	const char *text = test_read_file(dir, "rerun.out");
	const char *said = strstr(text, "seat A: alpha's learned state changed since the game was "
				  "played (fingerprint ");
	cr_assert_not_null(said, "%s", text);
	cr_assert_null(strstr(said, "(fingerprint -"), "%s", text);
}

Test(judge, resume_skips_finished_games, .timeout = 60)
{
	char dir[512], bots[1024], out[1024], path[1200];
	const char *args[20];
	struct stat before, after;

	rr_setup(dir, bots, out, args);
	cr_assert_eq(judge(dir, "first", args), 0);
	snprintf(path, sizeof path, "%s/results.txt", out);
	char *first = slurp(path);
	snprintf(path, sizeof path, "%s/games/000004.tx", out);
	cr_assert_eq(stat(path, &before), 0);
	snprintf(path, sizeof path, "%s/games/000002.res", out);
	cr_assert_eq(unlink(path), 0);
	cr_assert_eq(judge(dir, "again", args), 0);
	cr_assert_eq(access(path, R_OK), 0, "the missing game is played again");
	const char *said = test_read_file(dir, "again.err");
	cr_expect(strstr(said, "resuming") && strstr(said, "5 of 6 games already done"), "%s", said);
	snprintf(path, sizeof path, "%s/games/000004.tx", out);
	cr_assert_eq(stat(path, &after), 0);
	cr_expect_eq(before.st_mtim.tv_nsec, after.st_mtim.tv_nsec, "finished game not replayed");
	cr_expect_eq(before.st_ino, after.st_ino);
	snprintf(path, sizeof path, "%s/results.txt", out);
	char *second = slurp(path);
	cr_expect_str_eq(first, second);
	free(first), free(second);
}

/* A resume must not mix tournaments: another lineup into the same folder
 * is refused, and the first tournament's results stay as they were. */
Test(judge, resume_refuses_another_lineup, .timeout = 60)
{
	char dir[512], bots[1024], out[1024], path[1200];
	const char *args[20];

	rr_setup(dir, bots, out, args);
	cr_assert_eq(judge(dir, "first", args), 0);
	snprintf(path, sizeof path, "%s/results.txt", out);
	char *first = slurp(path);
	args[15] = "hard"; /* alpha easy hard instead of alpha easy random */
	cr_expect_eq(judge(dir, "other", args), 2);
	const char *msg = test_read_file(dir, "other.err");
	cr_expect(strstr(msg, "holds another run's games: game 0 has seat") &&
		  strstr(msg, ", not hard") && strstr(msg, out), "%s", msg);
	const char *seat = strstr(msg, "game 0 has seat ");
	cr_expect(seat && seat[16] >= 'B' && seat[16] <= 'D' && !strncmp(seat + 17, " random, not hard", 17),
		  "the seat of the third bot, a letter: %s", msg);
	args[13] = "hard", args[15] = "random"; /* only game 0's seat A differs */
	cr_expect_eq(judge(dir, "seat_a", args), 2);
	msg = test_read_file(dir, "seat_a.err");
	cr_expect(strstr(msg, "game 0 has seat A alpha, not hard"), "%s", msg);
	snprintf(path, sizeof path, "%s/results.txt", out);
	char *after = slurp(path);
	cr_expect_str_eq(first, after);
	free(first), free(after);
}

/* Every finished game is checked, not only game 0, and the seed too: a
 * run with another -s, or a lineup that differs only in later games, is
 * refused before any game is replayed (both once overwrote the folder). */
static void refused_keeps_games(const char *dir, const char *out, const char *const *args,
				const char *expect)
{
	char path[1200];

	snprintf(path, sizeof path, "%s/games/000001.tx", out);
	char *tx = slurp(path);
	snprintf(path, sizeof path, "%s/results.txt", out);
	char *results = slurp(path);
	cr_assert_eq(judge(dir, "other", args), 2);
	const char *msg = test_read_file(dir, "other.err");
	cr_expect(strstr(msg, out) && strstr(msg, expect), "expected \"%s\": %s", expect, msg);
	char *results_after = slurp(path);
	snprintf(path, sizeof path, "%s/games/000001.tx", out);
	char *tx_after = slurp(path);
	cr_expect_str_eq(results, results_after);
	cr_expect_str_eq(tx, tx_after, "a game was replayed");
	free(tx), free(results), free(results_after), free(tx_after);
}

Test(judge, resume_refuses_another_seed, .timeout = 60)
{
	char dir[512], bots[1024], out[1024];
	const char *args[20];

	rr_setup(dir, bots, out, args);
	cr_assert_eq(judge(dir, "first", args), 0);
	args[4] = "43";
	refused_keeps_games(dir, out, args, "game 0 has seed");
}

Test(judge, resume_refuses_a_lineup_that_differs_after_game_0, .timeout = 60)
{
	char dir[512], bots[1024], out[1024];

	alpha_setup(dir, bots);
	snprintf(out, sizeof out, "%s/out", dir);
	const char *args[] = {"-q", "--no-timing", "-j2", "-s", "42", "-g", "1", "-t", "2",
			      "--bots", bots, "-o", out, "alpha", "easy", "random", NULL};
	cr_assert_eq(judge(dir, "first", args), 0);
	args[15] = "hard"; /* the alpha-easy games come first and stay the same */
	refused_keeps_games(dir, out, args, "holds another run's games: game ");
	cr_expect_null(strstr(test_read_file(dir, "other.err"), "game 0 has seat"),
		       "%s", test_read_file(dir, "other.err"));
}

/* A game whose transcript cannot be created (its folder not writable)
 * fails in its worker, which says why and ends: the run fails with exit
 * status 2, sending the user to that message ("see above"). */
Test(judge, transcript_that_cannot_be_created_fails_the_game, .timeout = 60)
{
	char dir[512], out[1024], games[1100], want[1200];
	const char *args[] = {"-q", "--no-timing", "-j1", "-o", out, "easy", "random", NULL};

	test_tmpdir(dir, sizeof dir);
	snprintf(out, sizeof out, "%s/out", dir);
	snprintf(games, sizeof games, "%s/games", out);
	cr_assert_eq(mkdir(out, 0777), 0);
	cr_assert_eq(chmod(out, 0777), 0);
	cr_assert_eq(mkdir(games, 0555), 0);
	test_drop_root(dir); /* root would write anyway */
	cr_assert_eq(judge(dir, "run", args), 2, "%s", test_read_file(dir, "run.err"));
	const char *said = test_read_file(dir, "run.err");
	snprintf(want, sizeof want, "kimble-judge: cannot write %s/000000.tx.", games);
	cr_expect(strstr(said, want) && strstr(said, ".tmp: Permission denied\n"), "%s", said);
	cr_expect(strstr(said, "kimble-judge: game 0: the worker failed (see above)"), "%s", said);
}

/* A game whose files cannot be written (fault) is not committed: the
 * worker says so with the cause, the run fails (exit status 2), and
 * neither the result nor the transcript is left in place, so the next
 * run plays the game again (docs/design.md "Output"). */
static void game_files_fail(long nr, const char *part, int err, const char *why)
{
	char dir[512], out[1024], bin[1024], errp[1100], want[200];

	test_tmpdir(dir, sizeof dir);
	snprintf(out, sizeof out, "%s/out", dir);
	snprintf(errp, sizeof errp, "%s/run.err", dir);
	char *argv[] = {(char *)test_bin("kimble-judge", bin, sizeof bin), "-q", "--no-timing", "-j1",
			"-o", out, "easy", "random", NULL};
	int status = test_run_failing(argv, nr, part, err, errp);
	const char *said = test_read_file(NULL, errp);
	cr_assert_eq(status, 2, "status %d: %s", status, said);
	snprintf(want, sizeof want, "cannot write the files of game 0: %s", why);
	cr_expect(strstr(said, want), "%s", said);
	char path[1200];
	snprintf(path, sizeof path, "%s/games/000000.res", out);
	cr_expect_neq(access(path, F_OK), 0, "%s left in place", path);
	snprintf(path, sizeof path, "%s/games/000000.tx", out);
	cr_expect_neq(access(path, F_OK), 0, "%s left in place", path);
}

/* The result file's every write() fails with ENOSPC: stdio then fails
 * only at fclose. */
Test(judge, result_file_that_cannot_be_written_is_not_committed, .timeout = 60)
{
	game_files_fail(SYS_write, "/games/000000.res.", ENOSPC, "No space left on device");
}

/* The transcript's close fails (EIO): the game is not committed either,
 * though its result could still be written. */
Test(judge, transcript_that_cannot_be_closed_is_not_committed, .timeout = 60)
{
	game_files_fail(SYS_close, "/games/000000.tx.", EIO, "Input/output error");
}

/* Shard K/N plays the games whose number modulo N is K-1 and no other
 * (--help), and merging the shards gives the unsharded run. */
Test(judge, shards_merge_to_the_full_result, .timeout = 60)
{
	char dir[512], bots[1024], full[1024], s1[1024], s2[1024], merged[1024], p[1100], q[1100];
	const char *args[24];

	alpha_setup(dir, bots);
	snprintf(full, sizeof full, "%s/full", dir);
	snprintf(s1, sizeof s1, "%s/s1", dir);
	snprintf(s2, sizeof s2, "%s/s2", dir);
	snprintf(merged, sizeof merged, "%s/merged", dir);
	rr_args(args, bots, full);
	cr_assert_eq(judge(dir, "full", args), 0);
	rr_args(args, bots, s1);
	args[16] = "--shard", args[17] = "1/2", args[18] = NULL;
	cr_assert_eq(judge(dir, "s1", args), 0);
	rr_args(args, bots, s2);
	args[16] = "--shard", args[17] = "2/2", args[18] = NULL;
	cr_assert_eq(judge(dir, "s2", args), 0);
	/* each shard plays only its games: 1/2 the even numbers, 2/2 the odd */
	for (int g = 0; g < 6; g++) {
		snprintf(p, sizeof p, "%s/games/%06d.res", g % 2 ? s2 : s1, g);
		snprintf(q, sizeof q, "%s/games/%06d.res", g % 2 ? s1 : s2, g);
		cr_expect_eq(access(p, F_OK), 0, "%s played by its shard", p);
		cr_expect_neq(access(q, F_OK), 0, "%s played by the other shard", q);
	}
	const char *m[] = {"merge", "--no-timing", merged, s1, s2, NULL};
	cr_assert_eq(judge(dir, "merge", m), 0);
	snprintf(p, sizeof p, "%s/results.txt", full);
	snprintf(q, sizeof q, "%s/results.txt", merged);
	char *x = slurp(p), *y = slurp(q);
	cr_assert_not_null(y);
	cr_expect_str_eq(x, y);
	free(x), free(y);
	same_files(full, merged, 6);
}

/* The judge run `run` with args, bot folder bot holding meta text, exits 1
 * and says expect. */
static void meta_refused(const char *dir, const char *bot, const char *text, const char *run,
			 const char *const args[], const char *expect)
{
	char path[1200];
	FILE *f;

	snprintf(path, sizeof path, "%s/meta", bot);
	cr_assert_not_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
	cr_assert_eq(judge(dir, run, args), 1);
	snprintf(path, sizeof path, "%s/%s.err", dir, run);
	char *err = slurp(path);
	cr_expect(strstr(err, expect) != NULL, "%s", err);
	free(err);
}

Test(judge, meta_errors_name_file_and_line, .timeout = 30)
{
	char dir[512], bot[1024], out[1024];
	const char *args[] = {"-q", "-o", out, bot, "hard", NULL};

	test_tmpdir(dir, sizeof dir);
	snprintf(out, sizeof out, "%s/out", dir);
	snprintf(bot, sizeof bot, "%s/short", dir);
	mkdir(bot, 0755);
	meta_refused(dir, bot, "short\n./x\n\n", "short", args,
		     "short/meta:4: missing line, expected a stderr flag");
	meta_refused(dir, bot, "short\n./x\n\nyes\n", "flag", args,
		     "short/meta:4: expected a stderr flag 0 or 1");
	const char *none[] = {"-q", "-o", out, "no-such-bot", "hard", NULL};
	cr_assert_eq(judge(dir, "none", none), 1);
}

/* An animation cannot be a PNG: svg --anim -o FILE.png (or any name not
 * ending in .svg) is a usage error that writes nothing (it once wrote a
 * blank PNG and exited 0); a still picture may still be a PNG. */
Test(judge, svg_animation_only_as_svg, .timeout = 60)
{
	char dir[512], out[1024], tx[1100], path[1100];
	struct stat sb;

	test_tmpdir(dir, sizeof dir);
	snprintf(out, sizeof out, "%s/out", dir);
	const char *args[] = {"-q", "--no-timing", "-o", out, "hard", "easy", NULL};
	cr_assert_eq(judge(dir, "game", args), 0);
	snprintf(tx, sizeof tx, "%s/games/000000.tx", out);
	const char *png[] = {"svg", "--anim", "-o", "anim.png", tx, NULL};
	cr_assert_eq(judge(dir, "png", png), 64);
	snprintf(path, sizeof path, "%s/png.err", dir);
	char *text = slurp(path);
	cr_expect(strstr(text, "anim.png") && strstr(text, ".svg"), "%s", text);
	free(text);
	snprintf(path, sizeof path, "%s/anim.png", dir);
	cr_assert_neq(stat(path, &sb), 0, "no file written");
	const char *txt[] = {"svg", "--anim", "-o", "anim.txt", tx, NULL};
	cr_assert_eq(judge(dir, "txt", txt), 64);
	const char *ok[] = {"svg", "--anim", "-o", "anim.svg", tx, NULL};
	cr_assert_eq(judge(dir, "ok", ok), 0);
	snprintf(path, sizeof path, "%s/anim.svg", dir);
	text = slurp(path);
	cr_expect(strncmp(text, "<svg", 4) == 0 && strstr(text, "<set "), "an animated SVG");
	free(text);
}

Test(judge, start_positions_and_pictures, .timeout = 60)
{
	char dir[512], starts[1024], out[1024], tx[1100], path[1100];
	FILE *f;

	test_tmpdir(dir, sizeof dir);
	snprintf(starts, sizeof starts, "%s/starts", dir);
	snprintf(out, sizeof out, "%s/out", dir);
	f = fopen(starts, "w");
	/* A one step from its goal, C near the start; A rolls a 6 first */
	fprintf(f, "# a hard spot\n%s A 6\n", "A0000000000000C0000000000000AA00000000C00000");
	fclose(f);
	const char *args[] = {"-q", "--no-timing", "-o", out, "--starts", starts, "hard", "easy", NULL};
	cr_assert_eq(judge(dir, "starts", args), 0);
	snprintf(tx, sizeof tx, "%s/games/000000.tx", out);
	char *text = slurp(tx);
	cr_expect(strstr(text, "\nstart A0000000000000C0000000000000AA00000000C00000 A 6\n") != NULL);
	cr_expect(strstr(text, "\nroll 1 A0000000000000C0000000000000AA00000000C00000A6 ") != NULL,
		  "%s", text);
	free(text);
	const char *rep[] = {"replay", "--at", "1", tx, NULL};
	cr_assert_eq(judge(dir, "replay", rep), 0);
	snprintf(path, sizeof path, "%s/replay.out", dir);
	text = slurp(path);
	cr_expect(strstr(text, "roll 1: A (hard) rolls 6") != NULL, "%s", text);
	free(text);
	const char *all[] = {"replay", tx, NULL};
	cr_assert_eq(judge(dir, "all", all), 0);
	snprintf(path, sizeof path, "%s/all.out", dir);
	text = slurp(path);
	cr_expect(strstr(text, "winner: ") != NULL);
	free(text);
	const char *svg[] = {"svg", "--anim", tx, NULL};
	cr_assert_eq(judge(dir, "svg", svg), 0);
	snprintf(path, sizeof path, "%s/svg.out", dir);
	text = slurp(path);
	cr_expect(strncmp(text, "<svg", 4) == 0 && strstr(text, "<set ") && strstr(text, "</svg>"));
	free(text);
	/* a board with a piece of an absent seat is rejected with file:line */
	f = fopen(starts, "w");
	fprintf(f, "\n%s A 0\n", "0B000000000000000000000000000000000000000000");
	fclose(f);
	cr_assert_eq(judge(dir, "badstart", args), 1);
	snprintf(path, sizeof path, "%s/badstart.err", dir);
	text = slurp(path);
	cr_expect(strstr(text, "starts:2: ") != NULL, "%s", text);
	free(text);
	/* five bots of a fixed lineup: a table of 5 seats, refused as such
	 * before the starts are read (they once were read for no seat) */
	const char *five[] = {"-q", "-f", "fixed", "-o", out, "--starts", starts,
			      "hard", "easy", "hard", "easy", "hard", NULL};
	cr_assert_eq(judge(dir, "five", five), 64);
	snprintf(path, sizeof path, "%s/five.err", dir);
	text = slurp(path);
	cr_expect(strstr(text, "table size: expected 1 to 4 seats, got 5") != NULL, "%s", text);
	free(text);
}

/* A start position's seat to roll is the one its line names, not A: here
 * C rolls first, its die given (docs/design.md "Start positions"). */
Test(judge, start_position_gives_the_first_roll_to_its_seat, .timeout = 60)
{
	static const char board[] = "A0000000000000C0000000000000AA00000000C00000";
	char dir[512], starts[1024], out[1024], want[128];
	const char *args[] = {"-q", "--no-timing", "-o", out, "--starts", starts, "hard", "easy", NULL};

	test_tmpdir(dir, sizeof dir);
	snprintf(starts, sizeof starts, "%s/starts", dir);
	snprintf(out, sizeof out, "%s/out", dir);
	test_write_file(starts, "%s C 4\n", board);
	cr_assert_eq(judge(dir, "starts", args), 0, "%s", test_read_file(dir, "starts.err"));
	const char *tx = test_read_file(out, "games/000000.tx");
	snprintf(want, sizeof want, "\nstart %s C 4\n", board);
	cr_expect(strstr(tx, want) != NULL, "want%s in %s", want, tx);
	snprintf(want, sizeof want, "\nroll 1 %sC4 ", board);
	cr_expect(strstr(tx, want) != NULL, "want%s in %s", want, tx);
}

/* alpha against a bot that always crashes: clearly stronger (H1); alpha
 * against the built-in it imitates: every duplicate deal is a draw (H0). */
Test(judge, sprt_stops_when_the_answer_is_clear, .timeout = 60)
{
	char dir[512], bots[1024], out[1024], path[1200];
	const char *args[] = {"-q", "--no-timing", "-j2", "--bots", bots, "-o", out,
			      "--sprt", "0,60", "alpha", "crasher", NULL};

	alpha_setup(dir, bots);
	make_bot(bots, "crasher", "crash");
	for (int h = 1; h >= 0; h--) {
		char run[16], verdict[32];
		snprintf(run, sizeof run, "h%d", h);
		snprintf(out, sizeof out, "%s/%s", dir, run);
		args[10] = h ? "crasher" : "hard";
		cr_assert_eq(judge(dir, run, args), 0);
		snprintf(path, sizeof path, "%s/results.json", out);
		char *json = slurp(path);
		snprintf(verdict, sizeof verdict, "\"result\": \"H%d\"", h);
		cr_expect(strstr(json, verdict) != NULL, "%s", json);
		cr_expect(strstr(json, "\"games\": 20000") == NULL, "stopped early");
		/* the report holds every deal the verdict saw, the deciding one too */
		unsigned pair_deals = 0, sprt_deals = 0;
		const char *elo = strstr(json, "\"elo\": [");
		const char *sprt = strstr(json, "\"sprt\": {");
		cr_assert(elo && sprt, "%s", json);
		cr_assert_eq(sscanf(strstr(elo, "\"deals\": "), "\"deals\": %u", &pair_deals), 1);
		cr_assert_eq(sscanf(strstr(sprt, "\"deals\": "), "\"deals\": %u", &sprt_deals), 1);
		cr_expect_eq(pair_deals, sprt_deals, "the report's alpha-%s deals", args[10]);
		free(json);
	}
}

/* The score of `a` against `b` in result file dir/games/NNNNNN.res (1
 * placed ahead, 1/2 the same place, 0 behind) and its deal. */
static double res_score(const char *dir, int game, const char *a, const char *b, unsigned *deal)
{
	char name[64], who[64];
	int place[2] = {0, 0}, p;

	snprintf(name, sizeof name, "games/%06d.res", game);
	const char *text = test_read_file(dir, name);
	const char *at = strstr(text, "\ngame ");
	cr_assert(at && sscanf(at, "\ngame %*u deal %u", deal) == 1, "%s: %s", name, text);
	for (at = strstr(text, "\nseat "); at; at = strstr(at + 1, "\nseat ")) {
		cr_assert_eq(sscanf(at, "\nseat %*c %63s place %d", who, &p), 2, "%.80s", at);
		place[0] = strcmp(who, a) ? place[0] : p;
		place[1] = strcmp(who, b) ? place[1] : p;
	}
	cr_assert(place[0] > 0 && place[1] > 0, "%s holds %s and %s: %s", name, a, b, text);
	return place[0] < place[1] ? 1.0 : place[0] == place[1] ? 0.5 : 0.0;
}

/* --sprt's LLR counts every game of every deal, the first game of the
 * run too: recomputed here from the result files with the formula of
 * docs/design.md ("SPRT"), in a run of 8 deals (the first LLR). */
Test(judge, sprt_llr_counts_every_game_from_the_first, .timeout = 60)
{
	char dir[512], out[1024];
	const char *args[] = {"-q", "--no-timing", "-j2", "-s", "4", "-g", "8", "-o", out,
			      "--sprt", "0,60", "hard", "easy", NULL};
	double deal_sum[8] = {0}, first[2], sum = 0, sum2 = 0, llr;
	int deal_games[8] = {0};
	unsigned deal;

	test_tmpdir(dir, sizeof dir);
	snprintf(out, sizeof out, "%s/out", dir);
	cr_assert_eq(judge(dir, "run", args), 0, "%s", test_read_file(dir, "run.err"));
	for (int g = 0; g < 16; g++) {
		double score = res_score(out, g, "hard", "easy", &deal);
		cr_assert_lt(deal, 8u, "game %d", g);
		deal_sum[deal] += score, deal_games[deal]++;
		if (g < 2)
			first[g] = score;
	}
	cr_assert_neq(first[0], first[1], "deal 0's games differ, so that leaving one out shows");
	for (int d = 0; d < 8; d++) {
		cr_assert_eq(deal_games[d], 2, "deal %d", d);
		sum += deal_sum[d] / 2, sum2 += deal_sum[d] / 2 * deal_sum[d] / 2;
	}
	double m = sum / 8, var = (sum2 - sum * sum / 8) / 7;
	double s0 = 0.5, s1 = 1 / (1 + pow(10, -60 / 400.0));
	double reg = (7 * var + 4 * 0.125) / (7 + 4);
	double want = 8 * (s1 - s0) * (2 * m - s0 - s1) / (2 * reg);
	const char *json = test_read_file(out, "results.json");
	const char *at = strstr(json, "\"llr\": ");
	cr_assert(at && sscanf(at, "\"llr\": %lf", &llr) == 1, "%s", json);
	cr_expect(llr > want - 0.0011 && llr < want + 0.0011, "LLR %.3f, want %.4f", llr, want);
}

Test(judge, plan_rotates_every_lineup_through_the_seats, .timeout = 10)
{
	kj_plan plan;
	kb_err err;
	int seat_count[4][4] = {{0}};

	cr_assert_eq(kj_plan_build(&plan, KJ_ROUND_ROBIN, 4, 2, 3, 7, 0, &err), 0);
	cr_assert_eq(plan.ngames, 6u * 3u * 2u, "6 pairs, 3 deals each, 2 rotations");
	for (uint32_t i = 0; i < plan.ngames; i++) {
		kj_game_spec *g = &plan.games[i];
		cr_assert_eq(g->index, i);
		cr_assert_eq(g->seat[1], -1);
		cr_assert_eq(g->seat[3], -1);
		seat_count[g->seat[0]][0]++;
		seat_count[g->seat[2]][2]++;
		if (g->rotation == 1) {
			cr_assert_eq(g->seed, plan.games[i - 1].seed);
			cr_assert_eq(g->seat[0], plan.games[i - 1].seat[2]);
			cr_assert_eq(g->seat[2], plan.games[i - 1].seat[0]);
		}
	}
	for (int b = 0; b < 4; b++)
		cr_assert_eq(seat_count[b][0], seat_count[b][2], "bot %d as often in A as in C", b);
	kj_plan_free(&plan);
	cr_assert_eq(kj_plan_build(&plan, KJ_GAUNTLET, 5, 3, 1, 7, 0, &err), 0);
	cr_assert_eq(plan.ngames, 6u * 3u, "C(4,2) lineups with bot 0, 3 rotations");
	for (uint32_t i = 0; i < plan.ngames; i++) {
		int has0 = 0;
		for (int s = 0; s < 4; s++)
			has0 |= plan.games[i].seat[s] == 0;
		cr_assert(has0);
	}
	kj_plan_free(&plan);
	cr_assert_eq(kj_plan_build(&plan, KJ_FIXED, 3, 2, 1, 7, 0, &err), -1);
}

/* Version 2 result files keep the forfeit's roll and detail and the seat
 * that finished; a version 1 file whose winner had forfeited reads as a
 * game without a credited winner. */
Test(judge, result_files_keep_forfeits_and_read_version_1, .timeout = 10)
{
	static const char v1[] =
		"kimble-result 1\ngame 4 deal 1 seed 7 winner A rolls 99\n"
		"seat A x place 2 score 122 forfeit illegal errors 4 lineup 1 decisions 4 ms 0.000 "
		"max 0.000 fp -\n"
		"seat B hard place 1 score 50 forfeit none errors 0 lineup 1 decisions 0 ms 0.000 "
		"max 0.000 fp -\ndone\n";
	kj_result res, back;
	uint32_t game;
	kb_err err;
	char *text = NULL, line[400];
	size_t len = 0;

	FILE *f = fmemopen((void *)v1, sizeof v1 - 1, "r");
	cr_assert_eq(kj_result_read(f, &game, &res, &err), 0, "%s", err.msg);
	fclose(f);
	cr_expect_eq(res.winner, -1, "a forfeited seat is not credited");
	cr_expect_eq(res.finished, 0);
	res.seat[0].forfeit_roll = 37;
	snprintf(res.seat[0].why, sizeof res.seat[0].why, "index 3 refused; legal 0 1");
	f = open_memstream(&text, &len);
	cr_assert_eq(kj_result_write(f, game, &res), 0);
	fclose(f);
	cr_expect(strstr(text, "kimble-result 2\ngame 4 deal 1 seed 7 winner - rolls 99 finished A\n") &&
		  strstr(text, " fp - at 37 why index 3 refused; legal 0 1\n"), "%s", text);
	f = fmemopen(text, len, "r");
	cr_assert_eq(kj_result_read(f, &game, &back, &err), 0, "%s", err.msg);
	fclose(f);
	free(text);
	cr_expect_eq(back.winner, -1);
	cr_expect_eq(back.finished, 0);
	cr_expect_eq(back.seat[0].forfeit_roll, 37u);
	cr_expect_str_eq(back.seat[0].why, "index 3 refused; legal 0 1");
	cr_expect_str_eq(back.seat[1].why, "");
	kj_forfeit_text(&back, 0, line, sizeof line);
	cr_expect_str_eq(line, "A x forfeited at roll 37 (illegal: index 3 refused; legal 0 1); "
			       "seat finished by hard (replacement)");
}

Test(judge, statistics_and_results_round_trip, .timeout = 10)
{
	double lo, hi;
	char tok[KB_TOKEN_LEN + 1];
	kj_result res = {0}, back;
	uint32_t game;
	kb_err err;

	kj_wilson(50, 100, &lo, &hi);
	cr_assert(lo > 0.40 && lo < 0.41 && hi > 0.59 && hi < 0.60, "%f %f", lo, hi);
	cr_assert_float_eq(kj_elo(0.5), 0.0, 1e-9);
	cr_assert_float_eq(kj_elo(0.75), 190.85, 0.01);
	kj_token(5, 2, tok);
	cr_assert(kb_token_valid(tok, KB_TOKEN_LEN));
	res.deal = 3, res.seed = 99, res.winner = 2, res.rolls = 321;
	res.seat[0] = (kj_seat_result){1, "a", 2, 40, KJ_OK, 1, 1, 17, 3.5, 1.25, "00ff", 0, ""};
	res.seat[2] = (kj_seat_result){1, "b", 1, 1000, KJ_TIMEOUT, 0, 0, 4, 0, 0, "-", 0, ""};
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	cr_assert_eq(kj_result_write(f, 12, &res), 0);
	fclose(f);
	f = fmemopen(text, len, "r");
	cr_assert_eq(kj_result_read(f, &game, &back, &err), 0, "%s", err.msg);
	fclose(f);
	free(text);
	cr_assert_eq(game, 12u);
	cr_assert_eq(back.deal, 3u);
	cr_assert_eq(back.seed, 99u);
	cr_assert_eq(back.winner, 2);
	cr_assert_eq(back.seat[2].reason, KJ_TIMEOUT);
	cr_assert_eq(back.seat[0].decisions, 17u);
	cr_assert_str_eq(back.seat[0].fingerprint, "00ff");
	cr_assert_eq(back.seat[1].present, 0);
}

/* ---- stopping the judge: signals, then a resume ------------------------ */

/* Start kimble-judge with args in cwd as the leader of a session of its
 * own (its workers and bots stay in it), stdout to /dev/null, stderr to
 * cwd/NAME.err.  Returns its pid. */
static pid_t judge_start(const char *cwd, const char *name, const char *const args[])
{
	char bin[1024], err[1024];
	char *argv[64];
	int n = 0;

	argv[n++] = (char *)test_bin("kimble-judge", bin, sizeof bin);
	for (; args[n - 1] && n < 63; n++)
		argv[n] = (char *)args[n - 1];
	argv[n] = NULL;
	snprintf(err, sizeof err, "%s/%s.err", cwd, name);
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		setsid();
		int null = open("/dev/null", O_RDWR), e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(null, 0), dup2(null, 1), dup2(e, 2);
		if (chdir(cwd) != 0)
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

/* The fields of /proc/PID/stat after the command's name (state, parent,
 * group, session, ...), read into text; NULL when the process is gone. */
static const char *stat_fields(long pid, char text[1024])
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof path, "/proc/%ld/stat", pid);
	if (!(f = fopen(path, "r")))
		return NULL;
	size_t got = fread(text, 1, 1023, f);
	fclose(f);
	text[got] = '\0';
	const char *after = strrchr(text, ')');
	return after ? after + 1 : NULL;
}

/* 1 when live process pid (not a zombie) belongs to the judge of session
 * sid: in the session, or working below folder dir (its bots' folders). */
static int judges_process(long pid, long sid, const char *dir)
{
	char path[64], text[1024], cwd[1024];
	long session = 0;
	char state = 'Z';
	const char *fields = stat_fields(pid, text);

	if (!fields || sscanf(fields, " %c %*d %*d %ld", &state, &session) != 2 || state == 'Z')
		return 0;
	snprintf(path, sizeof path, "/proc/%ld/cwd", pid);
	ssize_t len = readlink(path, cwd, sizeof cwd - 1);
	cwd[len > 0 ? len : 0] = '\0';
	return session == sid || !strncmp(cwd, dir, strlen(dir));
}

/* Live processes of the judge of session sid whose folders are below dir. */
static int judge_processes(pid_t sid, const char *dir)
{
	DIR *proc = opendir("/proc");
	struct dirent *e;
	int n = 0;

	cr_assert_not_null(proc);
	while ((e = readdir(proc)))
		if (e->d_name[0] >= '1' && e->d_name[0] <= '9' && atol(e->d_name) != (long)getpid())
			n += judges_process(atol(e->d_name), (long)sid, dir);
	closedir(proc);
	return n;
}

/* Kill what is left of the judge of session sid below folder dir (bots a
 * worker killed with SIGKILL could not stop; see the test below). */
static void kill_judges_processes(pid_t sid, const char *dir)
{
	DIR *proc = opendir("/proc");
	struct dirent *e;

	cr_assert_not_null(proc);
	while ((e = readdir(proc)))
		if (e->d_name[0] >= '1' && e->d_name[0] <= '9' && atol(e->d_name) != (long)getpid() &&
		    judges_process(atol(e->d_name), (long)sid, dir))
			kill((pid_t)atol(e->d_name), SIGKILL);
	closedir(proc);
}

/* Every file of folder dir as "name size inode mtime\n", sorted by name,
 * and the count of names ending in ext in *count (ext may be NULL). */
static char *snapshot(const char *dir, const char *ext, int *count)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);
	size_t cap = 64 * (size_t)(n > 0 ? n : 1), len = 0;
	char *text = calloc(cap, 1), path[1200];
	struct stat st;

	cr_assert(n >= 0 && text, "cannot list %s", dir);
	*count = 0;
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		size_t nl = strlen(name);
		snprintf(path, sizeof path, "%s/%s", dir, name);
		if (name[0] != '.' && stat(path, &st) == 0)
			len += (size_t)snprintf(text + len, cap - len, "%s %lld %llu %lld.%09ld\n", name,
						(long long)st.st_size, (unsigned long long)st.st_ino,
						(long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
		if (name[0] != '.' && ext && nl > strlen(ext) && !strcmp(name + nl - strlen(ext), ext))
			++*count;
		free(names[i]);
		cr_assert_lt(len, cap, "listing of %s too long", dir);
	}
	free(names);
	return text;
}

static int files_ending(const char *dir, const char *ext)
{
	int n;

	free(snapshot(dir, ext, &n));
	return n;
}

/* Milliseconds on the monotonic clock, for the deadlines of polls. */
static double clock_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Poll (every millisecond, at most timeout_ms) until judge pid has left at
 * least res_files results in out/games, or has exited.  Returns 1 when it
 * is still running. */
static int await_results(pid_t pid, const char *out, int res_files, int timeout_ms)
{
	char games[1100];
	double deadline = clock_ms() + timeout_ms;

	snprintf(games, sizeof games, "%s/games", out);
	while (clock_ms() < deadline) {
		if (waitpid(pid, NULL, WNOHANG) != 0)
			return 0;
		if (access(games, F_OK) == 0 && files_ending(games, ".res") >= res_files)
			return 1;
		poll(NULL, 0, 1); /* polling the folder, not synchronising */
	}
	return 0;
}

/* Poll until the judge of session sid has at least min and at most max
 * processes (see judge_processes); returns the count at the end, when the
 * condition held or after timeout_ms. */
static int await_processes(pid_t sid, const char *dir, int min, int max, int timeout_ms)
{
	double deadline = clock_ms() + timeout_ms;
	int n = judge_processes(sid, dir);

	while ((n < min || n > max) && clock_ms() < deadline) {
		poll(NULL, 0, 2); /* polling for processes, not synchronising */
		n = judge_processes(sid, dir);
	}
	return n;
}

/* The judge pid was sent signal sig (to its group when to_group): it must
 * end with status 128+sig having stopped and reaped every worker and bot
 * (SIGKILL: they must die on their own at once), leaving nothing to change
 * and only finished games (a .tx with every .res, no temporary file). */
static void check_stopped(pid_t pid, int sig, const char *dir, const char *out)
{
	char games[1100];
	int st, ntx, nres, ntmp;
	test_proc p = {pid, -1, -1};

	snprintf(games, sizeof games, "%s/games", out);
	st = test_wait(&p, RUN_MS);
	char *at_exit = snapshot(games, NULL, &ntx);
	if (sig == SIGKILL) {
		cr_assert(st >= 0 && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
		cr_assert_eq(await_processes(pid, dir, 0, 0, 10000), 0,
			     "workers or bots of a judge killed -9 still run");
	} else {
		cr_assert(st >= 0 && WIFEXITED(st), "the judge did not exit after signal %d", sig);
		cr_assert_eq(WEXITSTATUS(st), 128 + sig);
		cr_assert_eq(judge_processes(pid, dir), 0, "workers or bots outlive the judge");
		char *later = snapshot(games, NULL, &ntx);
		cr_assert_str_eq(at_exit, later, "files changed after the judge returned");
		free(later);
		const char *err = test_read_file(dir, "stopped.err");
		cr_expect(strstr(err, "to resume, run the same command again"), "%s", err);
	}
	free(at_exit);
	free(snapshot(games, ".tx", &ntx));
	nres = files_ending(games, ".res");
	ntmp = files_ending(games, ".tmp");
	cr_assert_eq(ntmp, 0, "temporary files left");
	cr_assert_eq(ntx, nres, "%d transcripts but %d results", ntx, nres);
	if (sig != SIGKILL) { /* the count it says is the count it kept */
		char said[80];
		snprintf(said, sizeof said, "stopped by %s: %d of ",
			 sig == SIGINT ? "SIGINT" : sig == SIGHUP ? "SIGHUP" : "SIGTERM",
			 nres);
		cr_expect_not_null(strstr(test_read_file(dir, "stopped.err"), said), "\"%s\" in %s", said,
				   test_read_file(dir, "stopped.err"));
	}
}

/* Every file of folders a and b (names and contents) is the same. */
static void same_folder(const char *a, const char *b)
{
	struct dirent **na, **nb;
	int n = scandir(a, &na, NULL, alphasort), m = scandir(b, &nb, NULL, alphasort);
	char pa[1200], pb[1200];

	cr_assert(n >= 0 && m >= 0);
	cr_assert_eq(n, m, "%s holds %d files, %s %d", a, n, b, m);
	for (int i = 0; i < n; i++) {
		cr_assert_str_eq(na[i]->d_name, nb[i]->d_name);
		snprintf(pa, sizeof pa, "%s/%s", a, na[i]->d_name);
		snprintf(pb, sizeof pb, "%s/%s", b, nb[i]->d_name);
		struct stat st;
		if (stat(pa, &st) == 0 && S_ISREG(st.st_mode)) {
			char *x = slurp(pa), *y = slurp(pb);
			cr_assert(x && y && !strcmp(x, y), "%s and %s differ", pa, pb);
			free(x), free(y);
		}
		free(na[i]), free(nb[i]);
	}
	free(na), free(nb);
}

/* 90 games (alpha, beta and random, 3 seats, 30 deals) played once without
 * a stop, once stopped by sig after `after` results and resumed at once:
 * the two folders must be byte-identical. */
static void stop_and_resume(int sig, int to_group, int after)
{
	char dir[512], bots[1024], ref[1024], out[1024], games[1100], ref_games[1100];
	const char *args[] = {"-q", "--no-timing", "-j2", "-s", "7", "-g", "30", "-t", "3", "--bots",
			      bots, "-o", ref, "alpha", "beta", "random", NULL};

	alpha_setup(dir, bots);
	make_bot(bots, "beta", "easy");
	snprintf(ref, sizeof ref, "%s/ref", dir);
	cr_assert_eq(judge(dir, "ref", args), 0);
	snprintf(out, sizeof out, "%s/out", dir);
	args[12] = out;
	pid_t pid = judge_start(dir, "stopped", args);
	cr_assert(await_results(pid, out, after, RUN_MS),
		  "the judge ended before %d results were in (or took too long)", after);
	kill(to_group ? -pid : pid, sig);
	check_stopped(pid, sig, dir, out);
	snprintf(games, sizeof games, "%s/games", out);
	cr_assert_lt(files_ending(games, ".res"), 90, "the run was not stopped");
	cr_assert_eq(judge(dir, "resume", args), 0);
	snprintf(ref_games, sizeof ref_games, "%s/games", ref);
	same_folder(ref_games, games);
	same_folder(ref, out);
}

Test(judge_stop, sigint_stops_cleanly_and_resume_is_exact, .timeout = 120)
{
	stop_and_resume(SIGINT, 0, 5);
}

Test(judge_stop, ctrl_c_to_the_group_stops_cleanly_and_resume_is_exact, .timeout = 120)
{
	stop_and_resume(SIGINT, 1, 17);
}

Test(judge_stop, sigterm_stops_cleanly_and_resume_is_exact, .timeout = 120)
{
	stop_and_resume(SIGTERM, 0, 31);
}

Test(judge_stop, sigkill_leaves_no_worker_and_resume_is_exact, .timeout = 120)
{
	stop_and_resume(SIGKILL, 0, 43);
}

/* Start a judge of two games that cannot end (a bot that never answers,
 * 10 minutes per move) in a new folder dir, its out folder in out, and
 * wait until the judge, two workers and their four bots run. */
static pid_t start_hung_games(char dir[512], char out[1024])
{
	char bots[1024];
	const char *args[] = {"-q", "--no-timing", "-j2", "--move-ms", "600000", "-g", "2", "-t", "2",
			      "--bots", bots, "-o", out, "alpha", "hang", NULL};

	alpha_setup(dir, bots);
	make_bot(bots, "hang", "hang");
	snprintf(out, 1024, "%s/out", dir);
	pid_t pid = judge_start(dir, "stopped", args);
	cr_assert_eq(await_processes(pid, dir, 7, 7, RUN_MS), 7,
		     "expected the judge, 2 workers and 4 bots running");
	return pid;
}

/* Games that cannot end (a bot that never answers, 10 minutes per move):
 * a stopped judge must still take every worker and bot with it at once,
 * and leave none of the unfinished games' files. */
static void stop_hung_games(int sig, int to_group)
{
	char dir[512], out[1024], games[1100];
	int files;

	pid_t pid = start_hung_games(dir, out);
	kill(to_group ? -pid : pid, sig);
	check_stopped(pid, sig, dir, out);
	snprintf(games, sizeof games, "%s/games", out);
	free(snapshot(games, "", &files));
	cr_expect_eq(files, 0, "files of unfinished games left in %s", games);
}

Test(judge_stop, sigint_with_hung_bots, .timeout = 120)
{
	stop_hung_games(SIGINT, 0);
}

Test(judge_stop, sigterm_with_hung_bots, .timeout = 120)
{
	stop_hung_games(SIGTERM, 0);
}

/* A terminal's hangup reaches the judge, its workers and their bots at
 * once: each worker still kills its bots and removes its game's files. */
Test(judge_stop, sighup_to_the_group_with_hung_bots, .timeout = 120)
{
	stop_hung_games(SIGHUP, 1);
}

/* A debug game (-d) has no workers: the judge itself must take its bots
 * with it when a stop signal reaches it alone (its handler kills them and
 * exits 128 + the signal; without the handler the judge dies of the signal
 * and leaves its bots running). */
static void stop_debug_game(int sig)
{
	char dir[512], bots[1024];
	const char *args[] = {"-d", "alpha", "--no-timing", "--move-ms", "600000", "--bots", bots,
			      "hang", NULL};
	test_proc judge_proc = {0, -1, -1};

	alpha_setup(dir, bots);
	make_bot(bots, "hang", "hang");
	judge_proc.pid = judge_start(dir, "stopped", args);
	cr_assert_eq(await_processes(judge_proc.pid, dir, 3, 3, RUN_MS), 3,
		     "expected the judge and its 2 bots running");
	kill(judge_proc.pid, sig);
	int st = test_wait(&judge_proc, RUN_MS);
	int left = await_processes(judge_proc.pid, dir, 0, 0, 2000);
	kill_judges_processes(judge_proc.pid, dir);
	cr_assert(st >= 0 && WIFEXITED(st), "signal %d killed the judge (status %d)", sig, st);
	cr_assert_eq(WEXITSTATUS(st), 128 + sig);
	cr_assert_eq(left, 0, "bots outlive the judge stopped by signal %d", sig);
}

Test(judge_stop, debug_game_stopped_by_sigint, .timeout = 60)
{
	stop_debug_game(SIGINT);
}

Test(judge_stop, debug_game_stopped_by_sigterm, .timeout = 60)
{
	stop_debug_game(SIGTERM);
}

Test(judge_stop, debug_game_stopped_by_sighup, .timeout = 60)
{
	stop_debug_game(SIGHUP);
}

/* Whether a bot's stderr file in folder games holds text. */
static int err_file_says(const char *games, const char *text)
{
	DIR *d = opendir(games);
	struct dirent *e;
	char path[1400];
	int found = 0;

	while (d && !found && (e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n < 4 || strcmp(e->d_name + n - 4, ".err"))
			continue;
		snprintf(path, sizeof path, "%s/%s", games, e->d_name);
		char *content = slurp(path);
		found = content && strstr(content, text);
		free(content);
	}
	if (d)
		closedir(d);
	return found;
}

/* A bot's child in a session of its own outlives its stopped worker and
 * comes to the judge: once every worker is reaped the judge kills it and
 * ends at once, instead of waiting for it (a minute) as for a worker. */
Test(judge_stop, stop_does_not_wait_for_a_bots_escaped_child, .timeout = 120)
{
	char dir[512], bots[1024], out[1024], games[1100];
	const char *args[] = {"-q", "--no-timing", "-j1", "--move-ms", "600000", "-g", "1", "-t", "2",
			      "--bots", bots, "-o", out, "kid", "hang", NULL};

	alpha_setup(dir, bots);
	make_bot(bots, "kid", "spillkid=1");
	make_bot(bots, "hang", "hang");
	snprintf(out, sizeof out, "%s/out", dir);
	snprintf(games, sizeof games, "%s/games", out);
	pid_t pid = judge_start(dir, "stopped", args);
	double deadline = clock_ms() + RUN_MS;
	/* the bot says it plays once its child has written its files */
	while (!err_file_says(games, "testbot spillkid=1: playing") && clock_ms() < deadline)
		poll(NULL, 0, 2); /* polling the folder, not synchronising */
	cr_assert(err_file_says(games, "testbot spillkid=1: playing"), "the bot never played");
	kill(pid, SIGINT);
	test_proc p = {pid, -1, -1};
	int st = test_wait(&p, 20000);
	cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 128 + SIGINT,
		  "the judge did not end at once (status %d): it waits for the bot's child", st);
}

/* A rerun reaps what its bots leave behind, as a tournament does: the
 * child of spillkid, in a session of its own and alive for a minute, is
 * gone when replay --rerun has ended. */
Test(judge, rerun_leaves_no_process_of_its_bots, .timeout = 60)
{
	char dir[512], bots[1024], bot[1100], tx[1100];
	const char *record[] = {"-d", bot, "--no-timing", "-s", "1", "-o", tx, NULL};
	const char *rerun[] = {"replay", "--rerun", tx, bot, NULL};

	alpha_setup(dir, bots);
	make_bot(bots, "kid", "spillkid=1");
	snprintf(bot, sizeof bot, "%s/kid", bots);
	snprintf(tx, sizeof tx, "%s/kid.tx", dir);
	cr_assert_eq(judge(dir, "record", record), 0, "%s", test_read_file(dir, "record.err"));
	cr_assert_eq(judge_processes(-1, dir), 0, "the -d game left a process"); /* by folder */
	pid_t pid = judge_start(dir, "rerun", rerun);
	test_proc p = {pid, -1, -1};
	int st = test_wait(&p, RUN_MS);
	cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "the rerun agrees (%d): %s", st,
		  test_read_file(dir, "rerun.err"));
	int left = judge_processes(pid, dir);
	kill_judges_processes(pid, dir);
	cr_assert_eq(left, 0, "the bot's child outlived the rerun");
}

/* A stop signal that reaches one worker alone (here SIGHUP: the worker
 * must not keep the judge's handler for it) still makes that worker kill
 * its bots and remove its unfinished game's files before it ends. */
Test(judge_stop, sighup_to_one_worker_removes_its_game_files, .timeout = 120)
{
	char dir[512], out[1024], games[1100], path[64];
	int files, worker = 0;

	pid_t pid = start_hung_games(dir, out);
	snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(fscanf(f, "%d", &worker), 1, "the judge has no worker");
	fclose(f);
	cr_assert_eq(kill(worker, SIGHUP), 0);
	test_proc p = {pid, -1, -1};
	int st = test_wait(&p, RUN_MS);
	cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) != 0, "status %d", st);
	cr_assert_eq(await_processes(pid, dir, 0, 0, 10000), 0, "workers or bots outlive the judge");
	snprintf(games, sizeof games, "%s/games", out);
	char *left = snapshot(games, "", &files);
	cr_expect_eq(files, 0, "files of unfinished games left in %s: %s; %s", games, left,
		     test_read_file(dir, "stopped.err"));
	free(left);
}

Test(judge_stop, sigkill_with_hung_bots, .timeout = 120)
{
	stop_hung_games(SIGKILL, 0);
}

/* Field 3 (state) and 4 (parent) of /proc/PID/stat: the state, or 0 when
 * the process is gone; its parent in *ppid. */
static char proc_state(long pid, long *ppid)
{
	char text[1024];
	char state = 0;
	const char *fields = stat_fields(pid, text);

	if (!fields || sscanf(fields, " %c %ld", &state, ppid) != 2)
		return 0;
	return state;
}

/* The judge's one worker: the live process whose parent is judge. */
static long worker_of(pid_t judge)
{
	DIR *proc = opendir("/proc");
	struct dirent *e;
	long found = -1, ppid;

	cr_assert_not_null(proc);
	while ((e = readdir(proc)))
		if (e->d_name[0] >= '1' && e->d_name[0] <= '9') {
			char st = proc_state(atol(e->d_name), &ppid);
			if (st && st != 'Z' && ppid == (long)judge) {
				cr_assert_eq(found, -1, "more than one worker");
				found = atol(e->d_name);
			}
		}
	closedir(proc);
	cr_assert_gt(found, 0, "no worker");
	return found;
}

/* A worker that does not stop when told (here: stopped itself) is killed
 * at a second stop signal, and reaped before the judge exits (a worker the
 * judge left would live on, stopped).  Both signals are pending before the judge runs again (it is
 * stopped meanwhile): SIGINT is taken first (the lowest number), SIGTERM
 * is the second. */
Test(judge_stop, second_signal_kills_a_worker_that_does_not_stop, .timeout = 120)
{
	char dir[512], bots[1024];
	const char *args[] = {"-q", "--no-timing", "-j1", "--move-ms", "600000", "-t", "2",
			      "--bots", bots, "-o", "out", "alpha", "hang", NULL};
	long ppid;

	alpha_setup(dir, bots);
	make_bot(bots, "hang", "hang");
	pid_t pid = judge_start(dir, "stopped", args);
	cr_assert_eq(await_processes(pid, dir, 4, 4, RUN_MS), 4);
	long worker = worker_of(pid);
	kill((pid_t)worker, SIGSTOP);
	double deadline = clock_ms() + RUN_MS;
	while (proc_state(worker, &ppid) != 'T' && clock_ms() < deadline)
		poll(NULL, 0, 1); /* polling the worker's state, not synchronising */
	cr_assert_eq(proc_state(worker, &ppid), 'T', "the worker did not stop");
	kill(pid, SIGSTOP);
	kill(pid, SIGINT);
	kill(pid, SIGTERM);
	kill(pid, SIGCONT);
	test_proc p = {pid, -1, -1};
	int st = test_wait(&p, RUN_MS);
	char left = proc_state(worker, &ppid);
	/* its bots, never told to stop, were the judge's to kill: a confined
	 * bot under a root judge has no parent-death signal after its exec */
	int bots_left = judge_processes(pid, dir);
	kill((pid_t)worker, SIGKILL); /* when the judge left it */
	kill_judges_processes(pid, dir);
	cr_assert_eq(bots_left, 0, "bots outlive the worker killed with SIGKILL");
	cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 128 + SIGINT, "status %d: %s",
		  st, test_read_file(dir, "stopped.err"));
	cr_assert_eq(left, 0, "the judge exited before reaping its worker (state %c)", left);
}

/* A stopped judge says how to resume: the same command, each word as a
 * POSIX shell reads it back (a word of other characters than letters,
 * digits and -_./=,:+@% in single quotes, a quote in it as '\'' ).  And it
 * has reaped its worker before it exits: with this test process as the
 * subreaper, a worker the judge left would become our child. */
Test(judge_stop, resume_command_quoted_for_the_shell, .timeout = 120)
{
	char dir[512], bots[1024], bin[1024], want[4096];
	const char *args[] = {"-q", "--no-timing", "-j1", "--move-ms", "600000", "-t", "2",
			      "--pass-env=*", "--bots", bots, "-o", "it's out", "alpha", "hang", NULL};

	alpha_setup(dir, bots);
	make_bot(bots, "hang", "hang");
	test_bin("kimble-judge", bin, sizeof bin);
	cr_assert_eq(strspn(bin, "/-_.0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"),
		     strlen(bin), "this test needs a plain path: %s", bin);
	cr_assert_eq(strspn(bots, "/-_.0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"),
		     strlen(bots), "this test needs a plain path: %s", bots);
	cr_assert_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	pid_t pid = judge_start(dir, "stopped", args);
	/* the judge, its worker and the game's two bots */
	cr_assert_eq(await_processes(pid, dir, 4, 4, RUN_MS), 4);
	kill(pid, SIGTERM);
	test_proc p = {pid, -1, -1};
	int st = test_wait(&p, RUN_MS);
	kill_judges_processes(pid, dir); /* none should be left */
	cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 128 + SIGTERM, "status %d", st);
	errno = 0;
	cr_assert(waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD,
		  "the judge exited before reaping its worker");
	snprintf(want, sizeof want,
		 "kimble-judge: stopped by SIGTERM: 0 of 2 games done and kept in it's out\n"
		 "kimble-judge: to resume, run the same command again:\n"
		 "  %s -q --no-timing -j1 --move-ms 600000 -t 2 '--pass-env=*' --bots %s -o "
		 "'it'\\''s out' alpha hang\n", bin, bots);
	cr_assert_str_eq(test_read_file(dir, "stopped.err"), want);
}

/* The line a tournament starts with on stdout names the seed, the number
 * of games, the deals (-g) and seats (-t) they come from and the output
 * folder; the games are counted here from the transcripts written. */
Test(judge, tournament_header_names_seed_games_deals_seats_and_out, .timeout = 60)
{
	char dir[512], out[1024], games[1100], want[1400];
	const char *args[] = {"-q", "--no-timing", "-g", "2", "-s", "11", "-o", out, "easy", "random",
			      "easy", NULL};
	struct dirent *e;
	int ntx = 0;

	test_tmpdir(dir, sizeof dir);
	snprintf(out, sizeof out, "%s/out", dir);
	cr_assert_eq(judge(dir, "run", args), 0);
	snprintf(games, sizeof games, "%s/games", out);
	DIR *d = opendir(games);
	cr_assert_not_null(d, "%s", games);
	while ((e = readdir(d)))
		ntx += strlen(e->d_name) > 3 && !strcmp(e->d_name + strlen(e->d_name) - 3, ".tx");
	closedir(d);
	cr_assert_gt(ntx, 2, "3 bots in 3 seats: more games than deals");
	snprintf(want, sizeof want, "kimble-judge: seed 11, %d games (2 deals of 3 seats), out %s\n", ntx,
		 out);
	char *text = printed(dir, "run", "out");
	cr_expect_eq(strncmp(text, want, strlen(want)), 0, "want %s got %s", want, text);
	free(text);
}

/* Meta line 4 says whether a bot's stderr is kept: a tournament keeps it
 * in OUT/games/NNNNNN.X.err for the bot whose flag is 1 and discards it
 * for the one whose flag is 0 (both write to stderr: mode illegal). */
Test(judge, stderr_kept_only_for_the_bot_whose_meta_says_so, .timeout = 60)
{
	char dir[512], bots[1024], out[1024], path[1200], bin[1024];
	const char *args[] = {"-q", "--no-timing", "-s", "5", "--bots", bots, "-o", out, "loud", "quiet",
			      NULL};

	bots_and_out(dir, bots, out);
	make_bot(bots, "loud", "illegal");
	snprintf(path, sizeof path, "quiet\n%s\nillegal\n0\n", testbot(bin, sizeof bin));
	make_meta(bots, "quiet", path);
	cr_assert_eq(judge(dir, "run", args), 0, "%s", test_read_file(dir, "run.err"));
	for (int g = 0; g < 2; g++) /* game 0: loud in A, quiet in C; game 1 the other way */
		for (int s = 0; s < 2; s++) {
			snprintf(path, sizeof path, "%s/games/%06d.%c.err", out, g, s ? 'C' : 'A');
			int loud = s == g;
			cr_expect_eq(access(path, F_OK) == 0, loud, "%s %s", path, loud ? "missing" : "kept");
			if (loud)
				cr_expect(strstr(test_read_file(NULL, path), "testbot illegal"), "%s", path);
		}
}

/* The header comes before anything the games say, also when stdout and
 * stderr are one file (`> log 2>&1`, where stdout is fully buffered):
 * here the judge's note on stderr that a bot's command cannot be run. */
Test(judge, tournament_header_comes_before_the_games_messages, .timeout = 60)
{
	char dir[512], bot[1024], out[1024], log[1100], bin[1024];

	test_tmpdir(dir, sizeof dir);
	snprintf(bot, sizeof bot, "%s/nobot", dir);
	snprintf(out, sizeof out, "%s/out", dir);
	make_meta(dir, "nobot", "nobot\n./no-such-program\n\n0\n");
	snprintf(log, sizeof log, "%s/run.log", dir);
	char *argv[] = {(char *)test_bin("kimble-judge", bin, sizeof bin), "-q", "--no-timing", "-j1",
			"-o", out, bot, "hard", NULL};
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(120);
		execv(argv[0], argv);
		_exit(121);
	}
	test_proc p = {pid, -1, -1};
	int st = test_wait(&p, RUN_MS);
	const char *text = test_read_file(NULL, log);
	cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 2, "status %d: %s", st, text);
	cr_assert(strstr(text, "kimble-judge: game 0: "), "the game's message: %s", text);
	cr_expect_eq(strncmp(text, "kimble-judge: seed ", 19), 0, "the header first: %s", text);
}

/* -d: every line to or from the bot is marked with the bot's seat, the
 * one the summary names (a 2-seat game: seats A and C). */
Test(judge, debug_game_marks_the_bots_lines_with_its_seat, .timeout = 60)
{
	char dir[512], bot[1024];
	const char *args[] = {"-d", "easy", "--no-timing", "-s", "7", bot, NULL};
	int sent = 0, got = 0;

	test_tmpdir(dir, sizeof dir);
	make_bot(dir, "tb", "easy");
	snprintf(bot, sizeof bot, "%s/tb", dir);
	cr_assert_eq(judge(dir, "debug", args), 0);
	char *text = printed(dir, "debug", "out");
	const char *seat = strstr(text, "\nseat ");
	while (seat && strncmp(seat + 8, "tb:", 3))
		seat = strstr(seat + 1, "\nseat ");
	cr_assert_not_null(seat, "the summary names tb's seat: %s", text);
	char letter = seat[6];
	cr_assert(letter >= 'A' && letter <= 'D', "%c", letter);
	for (const char *line = text; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		if (line[0] && line[1] == ' ' && (line[2] == '<' || line[2] == '>') && line[3] == ' ') {
			cr_expect_eq(line[0], letter, "%.60s", line);
			sent += line[2] == '>';
			got += line[2] == '<';
		}
	}
	cr_expect(sent > 0 && got > 0, "lines both ways: %d sent, %d received", sent, got);
	free(text);
}

/* html: a page that cannot be written whole (a full device: the file
 * opens, the writes fail) is the run's failure, exit status 2, naming
 * the file. */
Test(judge, html_to_a_full_device_exits_2, .timeout = 60)
{
	char dir[512], out[1024], tx[1100];
	const char *args[] = {"-q", "--no-timing", "-o", out, "easy", "random", NULL};
	const char *html[] = {"html", "-o", "/dev/full", tx, NULL};

	test_tmpdir(dir, sizeof dir);
	snprintf(out, sizeof out, "%s/out", dir);
	cr_assert_eq(judge(dir, "game", args), 0);
	snprintf(tx, sizeof tx, "%s/games/000000.tx", out);
	cr_assert_eq(judge(dir, "html", html), 2);
	char *text = printed(dir, "html", "err");
	cr_expect(strstr(text, "html: cannot write /dev/full") != NULL, "%s", text);
	free(text);
}

/* A stop signal that is already waiting when the judge first looks for
 * one (here SIGHUP, blocked and pending across the exec: the judge keeps
 * the mask it was given) stops the run like one that arrives later: exit
 * status 128 + the signal and the resume advice, not a failure (2). */
Test(judge_stop, stop_signal_pending_at_the_start_stops_the_run, .timeout = 60)
{
	char dir[512], out[1024], bin[1024], errpath[1100];
	sigset_t hup;
	int st;

	test_tmpdir(dir, sizeof dir);
	snprintf(out, sizeof out, "%s/out", dir);
	snprintf(errpath, sizeof errpath, "%s/run.err", dir);
	char *argv[] = {(char *)test_bin("kimble-judge", bin, sizeof bin), "-q", "--no-timing", "-j1",
			"-g", "2", "-o", out, "easy", "random", NULL};
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int null = open("/dev/null", O_WRONLY);
		if (fd < 0 || null < 0 || dup2(fd, 2) < 0 || dup2(null, 1) < 0)
			_exit(120);
		sigemptyset(&hup);
		sigaddset(&hup, SIGHUP);
		sigprocmask(SIG_BLOCK, &hup, NULL);
		raise(SIGHUP);
		execv(argv[0], argv);
		_exit(121);
	}
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	char *text = slurp(errpath);
	cr_assert_not_null(text);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 128 + SIGHUP, "status %d: %s", st, text);
	cr_expect(strstr(text, "kimble-judge: stopped by SIGHUP: ") &&
		  strstr(text, "to resume, run the same command again"), "%s", text);
	free(text);
}

/* replay --rerun finds the transcript's bot among the directories given,
 * whichever place it has in the list: here the second, after a bot the
 * game does not hold. */
Test(judge, rerun_finds_its_bot_after_another_directory, .timeout = 60)
{
	char dir[512], bot[1024], other[1024], tx[1100];
	const char *game[] = {"-d", bot, "--no-timing", "-s", "3", "-o", tx, "hard", NULL};
	const char *rerun[] = {"replay", "--rerun", tx, other, bot, NULL};

	test_tmpdir(dir, sizeof dir);
	make_bot(dir, "h", "hard");
	make_bot(dir, "e", "easy");
	snprintf(bot, sizeof bot, "%s/h", dir);
	snprintf(other, sizeof other, "%s/e", dir);
	snprintf(tx, sizeof tx, "%s/g.tx", dir);
	cr_assert_eq(judge(dir, "game", game), 0);
	cr_assert_eq(judge(dir, "rerun", rerun), 0, "%s", printed(dir, "rerun", "err"));
	char *text = printed(dir, "rerun", "out");
	cr_expect(strstr(text, "rerun differs") == NULL, "%s", text);
	free(text);
}

/* Without --max-errors a bot's wrong tokens are answered three times
 * (--help: "default 3"), the fourth forfeits: three "Virhe" lines to it,
 * and the forfeit counts four. */
Test(judge, three_wrong_tokens_answered_by_default_the_fourth_forfeits, .timeout = 60)
{
	char dir[512], bot[1024];
	const char *args[] = {"-d", bot, "--no-timing", "-s", "3", "hard", NULL};

	test_tmpdir(dir, sizeof dir);
	make_bot(dir, "tk", "token");
	snprintf(bot, sizeof bot, "%s/tk", dir);
	cr_assert_eq(judge(dir, "debug", args), 0);
	char *text = printed(dir, "debug", "out");
	cr_expect_eq(test_count(text, "\nA > Virhe: tuntematon pelitoken\n"), 3, "%s", text);
	cr_expect(strstr(text, "\nA tk forfeited at roll ") && strstr(text, "(token: 4 wrong tokens)"),
		  "%s", text);
	free(text);
}

/* An illegal index within --max-errors is answered with the roll again,
 * as the bot saw it (its own view, docs/spec.md), and END: in a -d game
 * the line after the bot's first answer is the roll line it answered. */
Test(judge, illegal_index_is_answered_with_the_same_roll_line, .timeout = 60)
{
	char dir[512], bot[1024], roll[64];
	const char *args[] = {"-d", bot, "--no-timing", "-s", "3", "--max-errors", "1", "hard", NULL};

	test_tmpdir(dir, sizeof dir);
	make_bot(dir, "ill", "illegal");
	snprintf(bot, sizeof bot, "%s/ill", dir);
	cr_assert_eq(judge(dir, "debug", args), 0);
	char *text = printed(dir, "debug", "out");
	const char *answer = strstr(text, "\nA < t"), *end = answer;
	cr_assert_not_null(answer, "%s", text);
	while (end > text && strncmp(end, "\nA > END\n", 9))
		end--; /* the END before the answer; the roll line before it */
	const char *line = end;
	while (line > text && line[-1] != '\n')
		line--;
	cr_assert(end > text && line > text && end - line < (long)sizeof roll, "%s", text);
	snprintf(roll, sizeof roll, "%.*s", (int)(end - line), line);
	cr_assert_eq(strncmp(roll, "A > ", 4), 0, "the roll line: %s", roll);
	const char *next = strchr(answer + 1, '\n') + 1;
	cr_expect(!strncmp(next, roll, strlen(roll)) && !strncmp(next + strlen(roll), "\nA > END\n", 9),
		  "after the answer: %.120s, want %s", next, roll);
	free(text);
}

/* -f fixed: each round line's "total" is the bot's share of wins over
 * every round so far, recomputed here from the rounds' own wins/games. */
Test(judge, round_lines_total_is_the_wins_so_far_in_percent, .timeout = 60)
{
	char dir[512], out[1024];
	const char *args[] = {"-q", "--no-timing", "-f", "fixed", "-g", "4", "-s", "5", "-j1", "-o",
			      out, "easy", "random", NULL};
	const char *names[] = {"easy", "random"};
	unsigned wins[2] = {0, 0}, games[2] = {0, 0};
	int rounds = 0, some_win = 0;

	test_tmpdir(dir, sizeof dir);
	snprintf(out, sizeof out, "%s/out", dir);
	cr_assert_eq(judge(dir, "run", args), 0);
	char *text = printed(dir, "run", "out");
	for (const char *line = strstr(text, "\nround "); line; line = strstr(line + 1, "\nround ")) {
		rounds++;
		for (int b = 0; b < 2; b++) {
			char key[32];
			unsigned w, g;
			double place, total;
			snprintf(key, sizeof key, "  %s wins ", names[b]);
			const char *at = strstr(line, key), *eol = strchr(line + 1, '\n');
			cr_assert(at && (!eol || at < eol), "%.200s", line);
			cr_assert_eq(sscanf(at + strlen(key), "%u/%u place %lf (total %lf%%)", &w, &g, &place,
					    &total), 4, "%.200s", at);
			wins[b] += w, games[b] += g;
			some_win |= w > 0 && games[b] > 1;
			cr_expect(total > 100.0 * wins[b] / games[b] - 0.051 &&
				  total < 100.0 * wins[b] / games[b] + 0.051, "%s: %u/%u, total %.1f", names[b],
				  wins[b], games[b], total);
		}
	}
	cr_assert_eq(rounds, 4, "one line a deal: %s", text);
	cr_assert(some_win, "a total over more than one game with a win in it");
	free(text);
}
