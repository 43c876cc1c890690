/* test_judge.c - kimble-judge: misbehaving bots, determinism, reruns,
 * resume, shards and merge, meta errors, start positions, SPRT, replays
 * and pictures, and the plan and statistics underneath. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

/* A bot directory dir/name whose meta runs the test bot in mode. */
static void make_bot(const char *dir, const char *name, const char *mode)
{
	char path[1200], bot[1024];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	mkdir(path, 0755);
	snprintf(path, sizeof path, "%s/%s/meta", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	fprintf(f, "%s\n%s\n%s\n1\n", name, testbot(bot, sizeof bot), mode);
	fclose(f);
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

Test(judge, bot_timing_out_in_a_row_is_removed, .timeout = 60)
{
	char dir[512], bots[1024], out[1024], path[1200];
	const char *args[] = {"-q", "--no-timing", "-j1", "--move-ms", "100", "--max-timeouts", "2",
			      "-f", "fixed", "-g", "5", "--bots", bots, "-o", out, "sleeper", "easy",
			      NULL};

	test_tmpdir(dir, sizeof dir);
	snprintf(bots, sizeof bots, "%s/bots", dir);
	snprintf(out, sizeof out, "%s/out", dir);
	mkdir(bots, 0755);
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
	cr_expect(strstr(text, "learned state changed") != NULL, "%s", text);
	free(text);
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
	cr_expect(strstr(msg, "another tournament's game (seat") && strstr(msg, "now hard"), "%s", msg);
	snprintf(path, sizeof path, "%s/results.txt", out);
	char *after = slurp(path);
	cr_expect_str_eq(first, after);
	free(first), free(after);
}

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

Test(judge, meta_errors_name_file_and_line, .timeout = 30)
{
	char dir[512], bot[1024], path[1100], out[1024];
	FILE *f;
	const char *args[] = {"-q", "-o", out, bot, "hard", NULL};

	test_tmpdir(dir, sizeof dir);
	snprintf(out, sizeof out, "%s/out", dir);
	snprintf(bot, sizeof bot, "%s/short", dir);
	mkdir(bot, 0755);
	snprintf(path, sizeof path, "%s/meta", bot);
	f = fopen(path, "w");
	fprintf(f, "short\n./x\n\n");
	fclose(f);
	cr_assert_eq(judge(dir, "short", args), 1);
	snprintf(path, sizeof path, "%s/short.err", dir);
	char *err = slurp(path);
	cr_expect(strstr(err, "short/meta:4: missing line, expected a stderr flag") != NULL, "%s", err);
	free(err);
	snprintf(path, sizeof path, "%s/meta", bot);
	f = fopen(path, "w");
	fprintf(f, "short\n./x\n\nyes\n");
	fclose(f);
	cr_assert_eq(judge(dir, "flag", args), 1);
	snprintf(path, sizeof path, "%s/flag.err", dir);
	err = slurp(path);
	cr_expect(strstr(err, "short/meta:4: expected a stderr flag 0 or 1") != NULL, "%s", err);
	free(err);
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
	snprintf(out, sizeof out, "%s/h1", dir);
	cr_assert_eq(judge(dir, "h1", args), 0);
	snprintf(path, sizeof path, "%s/results.json", out);
	char *json = slurp(path);
	cr_expect(strstr(json, "\"result\": \"H1\"") != NULL, "%s", json);
	cr_expect(strstr(json, "\"games\": 20000") == NULL, "stopped early");
	free(json);
	snprintf(out, sizeof out, "%s/h0", dir);
	args[10] = "hard";
	cr_assert_eq(judge(dir, "h0", args), 0);
	snprintf(path, sizeof path, "%s/results.json", out);
	json = slurp(path);
	cr_expect(strstr(json, "\"result\": \"H0\"") != NULL, "%s", json);
	free(json);
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
	res.seat[0] = (kj_seat_result){1, "a", 2, 40, KJ_OK, 1, 1, 17, 3.5, 1.25, "00ff"};
	res.seat[2] = (kj_seat_result){1, "b", 1, 1000, KJ_TIMEOUT, 0, 0, 4, 0, 0, "-"};
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
