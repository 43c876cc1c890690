/* test_viewer.c - what the pictures say: roll facts from the rules, the
 * terminal board's words, SVG frames, the HTML game viewer (also in a real
 * headless Chromium), the tournament report and the rating list in the
 * results (suite viewer). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/facts.h"
#include "core/transcript.h"
#include "support.h"

#define RUN_MS 60000

/* Copy everything from fd to out until EOF; closes both. */
static void drain(int fd, FILE *out)
{
	char buf[4096];
	ssize_t got;

	while ((got = read(fd, buf, sizeof buf)) > 0)
		fwrite(buf, 1, (size_t)got, out);
	fclose(out);
	close(fd);
}

/* Run kimble-judge with args (NULL-terminated); stdout to out_path (NULL:
 * discarded).  Returns the exit status. */
static int run_judge(const char *const args[], const char *out_path)
{
	char bin[1024];
	char *argv[32];
	int n = 0, st;
	test_proc p;
	FILE *out = out_path ? fopen(out_path, "w") : NULL;

	argv[n++] = (char *)test_bin("kimble-judge", bin, sizeof bin);
	while (args[n - 1] && n < 31) {
		argv[n] = (char *)args[n - 1];
		n++;
	}
	argv[n] = NULL;
	cr_assert_eq(test_spawn(&p, argv, NULL, 0, out != NULL, NULL), 0, "cannot start %s", bin);
	if (out)
		drain(p.out, out);
	st = test_wait(&p, RUN_MS);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A small judged game of easy against hard: its transcript path. */
static void one_game(const char *dir, char *tx, size_t size)
{
	char out[600];

	snprintf(out, sizeof out, "%s/out", dir);
	const char *args[] = {"-q", "--no-timing", "-o", out, "-s", "7", "easy", "hard", NULL};
	cr_assert_eq(run_judge(args, NULL), 0);
	snprintf(tx, size, "%s/games/000000.tx", out);
}

static void read_tx(const char *path, kb_transcript *tx)
{
	FILE *f = fopen(path, "r");
	kb_err err;

	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(kb_tx_read(f, tx, &err), 0, "%s", err.msg);
	fclose(f);
}

/* The first roll of tx whose move captures (0: none). */
static uint32_t capture_roll(const kb_transcript *tx)
{
	for (size_t i = 0; i < tx->nrolls; i++) {
		const kb_tx_roll *r = &tx->rolls[i];
		kb_facts fx;
		kb_facts_of(r->line, 0x5, r->line[KB_BOARD_LEN] - 'A', r->line[KB_BOARD_LEN + 1] - '0',
			    r->index, &fx);
		if (fx.captured >= 0)
			return r->n;
	}
	return 0;
}

/* A board with pieces at the given board indexes ('.'-free string). */
static void board_with(char board[KB_BOARD_LEN], const char *pieces)
{
	memset(board, '0', KB_BOARD_LEN);
	for (const char *p = pieces; *p; p += 3)
		board[(p[1] - '0') * 10 + (p[2] - '0')] = p[0];
}

Test(viewer, facts_from_the_rules)
{
	char board[KB_BOARD_LEN], text[320];
	kb_facts fx;

	/* A on ring 3, C on ring 5: A's 2 takes piece 0 onto C and sends it home */
	board_with(board, "A03C05");
	cr_assert_eq(kb_facts_of(board, 0x5, 0, 2, 0, &fx), 0);
	cr_expect_eq(fx.legal, 0x1u);
	cr_expect_eq(fx.from, 3);
	cr_expect_eq(fx.to, 5);
	cr_expect_eq(fx.captured, 2);
	cr_expect_eq(fx.home[0], 3);
	cr_expect_eq(fx.home[2], 3);
	kb_facts_text(&fx, text, sizeof text);
	cr_expect_str_eq(text, "A rolls 2, could move 0 (ring 3 -> ring 5); moves 0 from ring 3 "
			       "to ring 5, captures C");
	/* a 6 may also bring out the first home piece, onto A's start square */
	cr_assert_eq(kb_facts_of(board, 0x5, 0, 6, 1, &fx), 0);
	cr_expect_eq(fx.legal, 0x3u);
	cr_expect_eq(fx.from, KB_SQ_HOME);
	cr_expect_eq(fx.to, 0);
	cr_expect_eq(fx.captured, -1);
	/* C's piece two squares from its goal's end: goal squares are named */
	board_with(board, "C38");
	cr_assert_eq(kb_facts_of(board, 0x5, 2, 1, 0, &fx), 0);
	kb_square_name(fx.to, text, sizeof text);
	cr_expect_str_eq(text, "goal C4");
	cr_expect_eq(fx.goal[2], 1);
	/* an index the rules do not allow is refused */
	cr_expect_eq(kb_facts_of(board, 0x5, 2, 4, 0, &fx), -1);
}

Test(viewer, replay_says_corners_and_moves)
{
	char dir[512], tx[700], out[700];

	test_tmpdir(dir, sizeof dir);
	one_game(dir, tx, sizeof tx);
	snprintf(out, sizeof out, "%s/replay.txt", dir);
	const char *args[] = {"replay", tx, NULL};
	cr_assert_eq(run_judge(args, out), 0);
	char *text = test_slurp(out);
	cr_assert_not_null(text);
	cr_expect(strstr(text, "A=easy (top left) C=hard (bottom right)"), "%.300s", text);
	cr_expect(strstr(text, "could move") && strstr(text, "; moves "), "%.300s", text);
	cr_expect(strstr(text, "\nA top left: home ") && strstr(text, "\nC bottom right: home "));
	free(text);
}

Test(viewer, svg_frames_tell_what_happened)
{
	char dir[512], tx[700], out[700], at[16];
	kb_transcript game;

	test_tmpdir(dir, sizeof dir);
	one_game(dir, tx, sizeof tx);
	read_tx(tx, &game);
	uint32_t cap = capture_roll(&game);
	cr_assert(cap > 0, "no capture in the test game");
	snprintf(at, sizeof at, "%u", cap);
	snprintf(out, sizeof out, "%s/cap.svg", dir);
	const char *args[] = {"svg", "--at", at, "-o", out, tx, NULL};
	cr_assert_eq(run_judge(args, NULL), 0);
	char *svg = test_slurp(out), want[64];
	cr_assert_not_null(svg);
	snprintf(want, sizeof want, ">roll %u of %zu<", cap, game.nrolls);
	cr_expect(strstr(svg, want), "%s missing", want);
	cr_expect(strstr(svg, ">A easy<") && strstr(svg, ">C hard<"), "seat names");
	cr_expect(strstr(svg, ">moves piece ") && strstr(svg, "<polygon"), "the move and its arrow");
	cr_expect(strstr(svg, "captures "), "the capture");
	cr_expect(strstr(svg, "pieces that could move"));
	free(svg);
	snprintf(at, sizeof at, "%zu", game.nrolls + 1);
	const char *last[] = {"svg", "--at", at, "-o", out, tx, NULL};
	cr_assert_eq(run_judge(last, NULL), 0);
	svg = test_slurp(out);
	snprintf(want, sizeof want, ">winner: %c %s<", 'A' + game.winner, game.name[game.winner]);
	cr_expect(strstr(svg, want), "%s missing", want);
	cr_expect(strstr(svg, "ended: win"));
	free(svg);
	kb_tx_free(&game);
}

/* Count the occurrences of needle in text. */
static int count(const char *text, const char *needle)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

Test(viewer, html_is_self_contained)
{
	char dir[512], tx[700], out[700];

	test_tmpdir(dir, sizeof dir);
	one_game(dir, tx, sizeof tx);
	snprintf(out, sizeof out, "%s/game.html", dir);
	const char *args[] = {"html", "-o", out, tx, NULL};
	cr_assert_eq(run_judge(args, NULL), 0);
	char *html = test_slurp(out);
	cr_assert_not_null(html);
	cr_expect(strstr(html, "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
			       "'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
			       "img-src data:\">"));
	cr_expect_eq(count(html, "https://"), 0);
	cr_expect_eq(count(html, "http://"), count(html, "http://www.w3.org/2000/svg"),
		     "a URL other than the SVG namespace");
	cr_expect_eq(count(html, "<script src"), 0);
	cr_expect_eq(count(html, "<link"), 0);
	cr_expect(strstr(html, "id=\"data\"") && strstr(html, "\"frames\":["));
	free(html);
}

/* Chromium's path, or NULL when it is not installed (make deps installs it). */
static const char *chromium(void)
{
	static const char *const paths[] = {"/usr/bin/chromium", "/usr/bin/chromium-browser"};

	for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
		if (access(paths[i], X_OK) == 0)
			return paths[i];
	return NULL;
}

/* The DOM of url after its scripts ran, from headless Chromium (malloc'ed). */
static char *dump_dom(const char *dir, const char *url)
{
	char profile[700], dom[700], errs[700];
	const char *chrome = chromium();
	test_proc p;

	if (!chrome)
		cr_skip_test("chromium is not installed (make deps installs it)");
	snprintf(profile, sizeof profile, "--user-data-dir=%s/chrome", dir);
	snprintf(dom, sizeof dom, "%s/dom.html", dir);
	snprintf(errs, sizeof errs, "%s/chrome.err", dir);
	char *argv[] = {(char *)chrome, "--headless", "--disable-gpu", "--no-sandbox",
			"--no-first-run", profile, "--virtual-time-budget=3000", "--dump-dom",
			(char *)url, NULL};
	cr_assert_eq(test_spawn(&p, argv, dir, 0, 1, errs), 0);
	FILE *out = fopen(dom, "w");
	cr_assert_not_null(out, "%s", dom);
	drain(p.out, out);
	cr_assert(WIFEXITED(test_wait(&p, RUN_MS)), "chromium did not finish");
	return test_slurp(dom);
}

Test(viewer, html_steps_in_chromium)
{
	char dir[512], tx[700], out[700], url[800], want[128];
	kb_transcript game;

	test_tmpdir(dir, sizeof dir);
	one_game(dir, tx, sizeof tx);
	read_tx(tx, &game);
	snprintf(out, sizeof out, "%s/game.html", dir);
	const char *args[] = {"html", "-o", out, tx, NULL};
	cr_assert_eq(run_judge(args, NULL), 0);
	uint32_t cap = capture_roll(&game);
	snprintf(url, sizeof url, "file://%s#roll=%u", out, cap);
	char *dom = dump_dom(dir, url);
	cr_assert_not_null(dom);
	snprintf(want, sizeof want, "data-roll=\"%u\"", cap);
	cr_expect(strstr(dom, want), "%s missing", want);
	snprintf(want, sizeof want, "<p id=\"state\">roll %u of %zu: ", cap, game.nrolls);
	cr_expect(strstr(dom, want), "%s missing", want);
	cr_expect(strstr(dom, "; moves ") && strstr(dom, ", captures "), "the move in words");
	cr_expect(strstr(dom, ">A easy<") && strstr(dom, ">moves piece "), "the frame is drawn");
	free(dom);
	/* the last frame: the winner */
	snprintf(url, sizeof url, "file://%s#roll=%zu", out, game.nrolls + 1);
	dom = dump_dom(dir, url);
	snprintf(want, sizeof want, "final position after %zu rolls: winner %c (%s), win",
		 game.nrolls, 'A' + game.winner, game.name[game.winner]);
	cr_expect(strstr(dom, want), "%s missing", want);
	free(dom);
	kb_tx_free(&game);
}

Test(viewer, report_and_rating_list)
{
	char dir[512], out[600], path[700];

	test_tmpdir(dir, sizeof dir);
	snprintf(out, sizeof out, "%s/g", dir);
	const char *args[] = {"-q", "--no-timing", "--html", "-o", out, "-f", "gauntlet", "-t",
			      "2", "-g", "2", "hard", "easy", "random", NULL};
	cr_assert_eq(run_judge(args, NULL), 0);
	snprintf(path, sizeof path, "%s/results.txt", out);
	char *text = test_slurp(path);
	cr_assert_not_null(text);
	cr_expect(strstr(text, "\nrating (Elo scale, field mean 0, 95% interval; 8 games, 4 deals):\n"),
		  "%s", text);
	cr_expect(strstr(text, "\nhard per opponent:\n"), "%s", text);
	free(text);
	snprintf(path, sizeof path, "%s/results.json", out);
	text = test_slurp(path);
	cr_expect(strstr(text, "\"rating\": [") && strstr(text, "\"rank\": 3, \"name\": "));
	cr_expect(strstr(text, "\"per_opponent\": {\"bot\": \"hard\""));
	free(text);
	snprintf(path, sizeof path, "%s/report.html", out);
	text = test_slurp(path);
	cr_assert_not_null(text, "no report.html");
	cr_expect(strstr(text, "<h2>Rating list</h2>") && strstr(text, "id=\"opponents\""));
	cr_expect(strstr(text, "<a href=\"games/000007.html\">viewer</a>"));
	cr_expect_eq(count(text, "https://"), 0);
	free(text);
	snprintf(path, sizeof path, "%s/games/000007.html", out);
	cr_expect(access(path, R_OK) == 0, "the viewer of game 7");
}

Test(viewer, learning_curve_of_a_fixed_lineup)
{
	char dir[512], out[600], path[700];

	test_tmpdir(dir, sizeof dir);
	snprintf(out, sizeof out, "%s/f", dir);
	const char *args[] = {"-q", "--no-timing", "-o", out, "-f", "fixed", "-g", "12", "hard",
			      "easy", NULL};
	cr_assert_eq(run_judge(args, NULL), 0);
	snprintf(path, sizeof path, "%s/results.txt", out);
	char *text = test_slurp(path);
	cr_assert_not_null(text, "no %s", path);
	cr_expect(strstr(text, "\nlearning curve (win% over the last 5 deals):\n"), "%s", text);
	free(text);
	snprintf(path, sizeof path, "%s/results.json", out);
	text = test_slurp(path);
	cr_expect(strstr(text, "\"learning_curve\": {\"window_deals\": 5, \"points\": ["));
	cr_expect(strstr(text, "{\"deal\": 12, \"deals\": 5, \"bots\": [{\"games\": 10, "), "%s",
		  text);
	free(text);
	snprintf(path, sizeof path, "%s/report.html", out);
	text = test_slurp(path);
	cr_expect(strstr(text, "<svg id=\"curve\"") && strstr(text, "<polyline"));
	cr_expect(strstr(text, "<a href=\"games/000000.tx\">transcript</a>"), "no viewer: transcript");
	free(text);
}

/* The learning curve belongs to a fixed lineup only: a one-opponent
 * gauntlet and a round robin have every game with the same bots too, but
 * their win rates move with the opponents, not with learning. */
static void no_curve(const char *format)
{
	char dir[512], out[600], path[700];

	test_tmpdir(dir, sizeof dir);
	snprintf(out, sizeof out, "%s/o", dir);
	const char *args[] = {"-q", "--no-timing", "-o", out, "-f", format, "-g", "12", "hard", "easy", NULL};
	cr_assert_eq(run_judge(args, NULL), 0);
	const char *files[] = {"results.txt", "results.json", "report.html"};
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof path, "%s/%s", out, files[i]);
		char *text = test_slurp(path);
		cr_assert_not_null(text, "no %s", path);
		cr_expect_null(strstr(text, "learning curve"), "-f %s: %s has a learning curve", format, path);
		cr_expect_null(strstr(text, "learning_curve"), "-f %s: %s has a learning curve", format, path);
		cr_expect_null(strstr(text, "Learning curve"), "-f %s: %s has a learning curve", format, path);
		free(text);
	}
}

Test(viewer, no_learning_curve_for_a_gauntlet) { no_curve("gauntlet"); }
Test(viewer, no_learning_curve_for_a_round_robin) { no_curve("rr"); }

/* The curve starts at deal 1 in the table and the plot alike (30 deals:
 * more than the table's rows), its lines have the seat colours of the
 * board and say whose they are, and the rating axis is labelled with its
 * 0 marked. */
Test(viewer, learning_curve_from_deal_1_in_seat_colours)
{
	char dir[512], out[600], path[700];

	test_tmpdir(dir, sizeof dir);
	snprintf(out, sizeof out, "%s/f", dir);
	const char *args[] = {"-q", "--no-timing", "-o", out, "-f", "fixed", "-g", "30", "hard", "easy", NULL};
	cr_assert_eq(run_judge(args, NULL), 0);
	snprintf(path, sizeof path, "%s/results.txt", out);
	char *text = test_slurp(path);
	cr_assert_not_null(text, "no %s", path);
	const char *curve = strstr(text, "learning curve");
	cr_assert_not_null(curve, "%s", text);
	cr_expect(strstr(curve, "\n1  "), "the table starts at deal 1:\n%s", curve);
	cr_expect(strstr(curve, "\n30  "), "and ends at deal 30:\n%s", curve);
	free(text);
	snprintf(path, sizeof path, "%s/report.html", out);
	text = test_slurp(path);
	cr_assert_not_null(text, "no %s", path);
	cr_expect(strstr(text, "text-anchor=\"start\">deal 1</text>"), "the plot starts at deal 1");
	/* hard sits at A (red) and easy at C (green) in the first game */
	cr_expect(strstr(text, "fill=\"#d62728\"/><text x=\"518\" y=\"20\">hard (A)</text>"), "%s",
		  strstr(text, "<svg id=\"curve\""));
	cr_expect(strstr(text, "fill=\"#2ca02c\"/><text x=\"518\" y=\"38\">easy (C)</text>"));
	cr_expect(strstr(text, "Elo, 0 = field average"), "the rating axis is labelled");
	cr_expect(strstr(text, "text-anchor=\"middle\">0</text>"), "the axis marks 0");
	free(text);
}

/* The results do not say how they were planned: merge takes the fixed
 * lineup from the shards' reports, so a merged fixed run keeps its curve. */
Test(viewer, merged_fixed_shards_keep_the_curve)
{
	char dir[512], s1[600], s2[600], m[600], path[700];

	test_tmpdir(dir, sizeof dir);
	snprintf(s1, sizeof s1, "%s/s1", dir);
	snprintf(s2, sizeof s2, "%s/s2", dir);
	snprintf(m, sizeof m, "%s/m", dir);
	const char *a1[] = {"-q", "--no-timing", "-o", s1, "-f", "fixed", "-g", "12", "--shard", "1/2",
			    "hard", "easy", NULL};
	const char *a2[] = {"-q", "--no-timing", "-o", s2, "-f", "fixed", "-g", "12", "--shard", "2/2",
			    "hard", "easy", NULL};
	const char *am[] = {"merge", "--no-timing", m, s1, s2, NULL};
	cr_assert_eq(run_judge(a1, NULL), 0);
	cr_assert_eq(run_judge(a2, NULL), 0);
	cr_assert_eq(run_judge(am, NULL), 0);
	snprintf(path, sizeof path, "%s/results.txt", m);
	char *text = test_slurp(path);
	cr_assert_not_null(text, "no %s", path);
	const char *curve = strstr(text, "\nlearning curve (win% over the last 5 deals):\n");
	cr_expect(curve && strstr(curve, "\n1  "), "%s", text);
	free(text);
}
