/* test_rule_judge_out.c - judge_rules: kimble-judge's output rules that
 * need a setting of their own (a terminal, a failing libm call), and the
 * pictures' well-formedness checked over a whole game. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/err.h"
#include "core/transcript.h"
#include "judge/bots.h"
#include "judge/html.h"
#include "judge/rating.h"
#include "judge/replay.h"
#include "judge/report.h"
#include "judge/result.h"
#include "judge/server/game.h"
#include "judge/svg.h"
#include "support.h"
#include "support_run.h"

#define EMPTY44 "00000000000000000000000000000000000000000000"

/* A short game with a forfeit, so the pictures carry its panel too. */
static const char forfeit_tx[] =
	"kimble-transcript 1\nseed 42\nseats external absent hard absent\nname A my<bot>&co\n"
	"roll 1 " EMPTY44 "A6 0 decided\n"
	"roll 2 A0000000000000000000000000000000000000000000A3 0 decided\n"
	"forfeit A 2 illegal hard index_7_refused\n"
	"roll 3 000A0000000000000000000000000000000000000000C6 0 auto\n"
	"end C 3 win\n";

static int markup_well_formed(const char *text, int html, char *why, size_t size);

/* The viewer page of tx (kj_html_game), checked well-formed (valid until
 * the next call). */
static const char *viewer_page(const kb_transcript *tx, const char *title)
{
	static char *page;
	size_t len;
	char why[200];

	free(page);
	page = NULL;
	FILE *f = open_memstream(&page, &len);
	cr_assert_not_null(f);
	cr_assert_eq(kj_html_game(f, tx, title), 0);
	fclose(f);
	cr_assert_eq(markup_well_formed(page, 1, why, sizeof why), 0, "the viewer page: %s", why);
	return page;
}

/* ---- the progress line: on a terminal only, and not with -q ---------------- */

/* Milliseconds left until deadline (CLOCK_MONOTONIC, ms), at least 0. */
static int ms_left(long long deadline)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	long long left = deadline - (now.tv_sec * 1000LL + now.tv_nsec / 1000000);
	return left > 0 ? (int)left : 0;
}

/* Run kimble-judge with args in a fresh folder, its stderr a terminal
 * (a pseudo-terminal's slave), stdin, stdout and descriptor 3 /dev/null
 * (no terminal); everything the terminal showed goes to text.  Returns
 * the exit status, -1 when it did not exit within 20 s. */
static int judge_on_terminal(const char *const *args, char *text, size_t size)
{
	char dir[256], bin[512], *argv[16];
	int n = 0, master = posix_openpt(O_RDWR | O_NOCTTY);

	cr_assert(master >= 0 && grantpt(master) == 0 && unlockpt(master) == 0, "a pseudo-terminal");
	int slave = open(ptsname(master), O_RDWR | O_NOCTTY);
	cr_assert(slave >= 0);
	test_tmpdir(dir, sizeof dir);
	argv[n++] = (char *)test_bin("kimble-judge", bin, sizeof bin);
	for (; *args && n < 15; args++)
		argv[n++] = (char *)*args;
	argv[n] = NULL;
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		int null = open("/dev/null", O_RDWR);
		if (chdir(dir) || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(slave, 2) < 0 ||
		    dup2(null, 3) < 0)
			_exit(127);
		for (int fd = 4; fd < 1024; fd++)
			close(fd);
		execv(argv[0], argv);
		_exit(127);
	}
	close(slave);
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	long long deadline = t0.tv_sec * 1000LL + t0.tv_nsec / 1000000 + 20000;
	size_t got = 0;
	for (;;) { /* until every holder of the slave closed it (EIO) */
		struct pollfd pf = {master, POLLIN, 0};
		if (poll(&pf, 1, ms_left(deadline)) <= 0)
			break;
		ssize_t k = read(master, text + got, size - 1 - got);
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	text[got] = '\0';
	close(master);
	int st;
	if (!ms_left(deadline))
		kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A bot folder dir/name (its path into bot) whose meta runs the test bot
 * in mode, its stderr discarded. */
static void testbot_folder(char *bot, size_t size, const char *dir, const char *name, const char *mode)
{
	char meta[400], bin[512];

	snprintf(bot, size, "%s/%s", dir, name);
	cr_assert_eq(mkdir(bot, 0755), 0);
	snprintf(meta, sizeof meta, "%s/meta", bot);
	test_write_file(meta, "%s\n%s\n%s\n0\n", name,
			test_root_path("build/rel/testbots/testbot", bin, sizeof bin), mode);
}

/* "-q, --quiet: no progress line" (--help): without it the judge keeps a
 * line of games done on its stderr when that is a terminal (and only
 * then: a file or pipe would fill with carriage returns). */
Test(judge_rules, progress_line_on_a_terminal_only, .timeout = 60)
{
	static char text[1 << 16];
	const char *args[] = {"--no-timing", "-o", "out", "hard", "easy", NULL};
	int st = judge_on_terminal(args, text, sizeof text);

	if (st == 2 && strstr(text, "sandbox"))
		cr_skip_test("no sandbox here: %s", text);
	cr_assert_eq(st, 0, "%s", text);
	cr_assert(strstr(text, "\r2/2 games done, 0 running "), "the progress line: %s", text);

	const char *quiet[] = {"-q", "--no-timing", "-o", "out", "hard", "easy", NULL};
	cr_assert_eq(judge_on_terminal(quiet, text, sizeof text), 0, "%s", text);
	cr_assert_null(strstr(text, "games done"), "-q: %s", text);

	const char *err;
	cr_assert_eq(test_run_prog("kimble-judge", args, NULL, &err), 0, "%s", err);
	cr_assert_null(strstr(err, "games done"), "stderr a file: %s", err);
	cr_assert_null(strchr(err, '\r'), "stderr a file: %s", err);
}

/* The judge sleeps while its games play: the progress line is written
 * once at the start and once as each game ends (6 games of a test bot,
 * which takes milliseconds to start, and a built-in one; the judge has
 * no other child to wait for), not again and again meanwhile. */
Test(judge_rules, progress_line_is_written_as_games_end, .timeout = 60)
{
	static char text[1 << 16];
	char dir[256], bot[300];

	test_tmpdir(dir, sizeof dir);
	testbot_folder(bot, sizeof bot, dir, "tb", "hard");
	const char *args[] = {"--no-timing", "--sandbox", "off", "-j2", "-g", "3", "-o", "out", bot,
			      "easy", NULL};
	int st = judge_on_terminal(args, text, sizeof text);

	cr_assert_eq(st, 0, "%s", text);
	cr_assert(strstr(text, "\r6/6 games done, 0 running "), "the progress line: %s", text);
	cr_expect_eq(test_count(text, " games done, "), 7, "%s", text);
}

/* ---- the rating fit that fails ---------------------------------------------- */

/* Fault injection: while exp_fails is set, exp (the test binary's, which
 * the judge's library links to) answers NaN, which no information matrix
 * survives: the fit's "did not converge" path, which no real input
 * reaches (rating.h). */
static int exp_fails;

double exp(double x)
{
	static double (*libm_exp)(double);

	if (exp_fails)
		return NAN;
	if (!libm_exp)
		*(void **)&libm_exp = dlsym(RTLD_NEXT, "exp");
	return libm_exp(x);
}

/* A fit that cannot settle says so, names the bots' number, returns
 * KJ_RATING_NO_CONVERGENCE and leaves nothing allocated (the ASan run
 * checks its work memory is freed; out needs no kj_rating_free). */
Test(judge_rules, rating_fit_that_does_not_converge)
{
	static const kj_rating_game g[] = {{1, 2, {0, 1}, {1, 2}}, {2, 3, {2, 1, 0}, {1, 2, 3}}};
	kj_rating r;
	kb_err err = {0};

	memset(&r, 0xa5, sizeof r); /* whatever the caller's variable held */
	cr_assert(fabs(exp(1.0) - 2.718281828) < 1e-9, "exp itself when not failing");
	exp_fails = 1;
	int status = kj_rating_fit(g, 2, 3, &r, &err);
	exp_fails = 0;
	cr_assert_eq(status, KJ_RATING_NO_CONVERGENCE, "%d", status);
	cr_assert_str_eq(err.msg, "rating: the fit of 3 bots did not converge");
	cr_assert_null(r.cov);
}

/* A fit that refuses its input leaves out holding no memory either. */
Test(judge_rules, rating_fit_refused_leaves_no_memory)
{
	static const kj_rating_game bad[] = {{1, 2, {0, 3}, {1, 2}}};
	kj_rating r;
	kb_err err = {0};

	memset(&r, 0xa5, sizeof r);
	cr_assert_eq(kj_rating_fit(bad, 1, 3, &r, &err), KJ_RATING_BAD_INPUT);
	cr_assert_str_eq(err.msg, "rating: game 0 names bot 3: expected 0 to 2");
	cr_assert_null(r.cov);
	kj_rating_free(&r);
}

/* The most bots a fit takes (KJ_RATING_MAX_BOTS) in a cycle, each beating
 * the next and losing to the one before, a deal each: by symmetry every
 * rating is 0 with one standard error, finite; a bot against itself
 * differs by exactly 0, with no spread. */
Test(judge_rules, rating_of_the_most_bots_in_a_cycle)
{
	enum { N = KJ_RATING_MAX_BOTS };
	static kj_rating_game g[N];
	kj_rating r;
	kb_err err;

	for (int i = 0; i < N; i++)
		g[i] = (kj_rating_game){(uint32_t)i, 2, {i, (i + 1) % N}, {1, 2}};
	cr_assert_eq(kj_rating_fit(g, N, N, &r, &err), KJ_RATING_OK, "%s", err.msg);
	cr_assert_eq(r.nbots, N);
	cr_assert_eq(r.clusters, N);
	for (int i = 0; i < N; i++) {
		cr_assert(fabs(r.elo[i]) < 1e-6, "bot %d: %g", i, r.elo[i]);
		cr_assert(isfinite(r.se[i]) && r.se[i] > 0 && fabs(r.se[i] - r.se[0]) < 1e-6, "bot %d: se %g, bot 0's %g",
			  i, r.se[i], r.se[0]);
	}
	double diff, lo, hi;
	kj_rating_versus(&r, 5, 5, &diff, &lo, &hi);
	cr_assert(diff == 0 && lo == 0 && hi == 0, "%g [%g, %g]", diff, lo, hi);
	kj_rating_free(&r);
}

/* Games of one deal are one cluster: G/(G-1) has no value for G = 1, so
 * the sandwich takes the cluster as it is, and the covariance and the
 * standard errors stay finite numbers. */
Test(judge_rules, rating_of_one_deal)
{
	static const kj_rating_game g[] = {{7, 3, {0, 1, 2}, {1, 2, 3}}, {7, 3, {1, 2, 0}, {1, 3, 2}},
					   {7, 3, {2, 0, 1}, {2, 1, 3}}};
	kj_rating r;
	kb_err err;

	cr_assert_eq(kj_rating_fit(g, 3, 3, &r, &err), KJ_RATING_OK, "%s", err.msg);
	cr_assert_eq(r.clusters, 1);
	for (int i = 0; i < 3; i++) {
		cr_assert(isfinite(r.se[i]) && isfinite(r.lo[i]) && isfinite(r.hi[i]), "bot %d: se %g", i, r.se[i]);
		for (int j = 0; j < 3; j++)
			cr_assert(isfinite(r.cov[i * 3 + j]), "cov %d %d: %g", i, j, r.cov[i * 3 + j]);
	}
	kj_rating_free(&r);
}

/* ---- kj_svg_write's outcomes ----------------------------------------------------- */

/* A fake converter in folder dir: a shell script named name that writes a
 * PNG signature to its output (argument out_arg) and exits with status. */
static void fake_converter(const char *dir, const char *name, int out_arg, int status)
{
	char path[400];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	test_write_file(path, "#!/bin/sh\nprintf '\\211PNG' > \"$%d\"\nexit %d\n", out_arg, status);
	cr_assert_eq(chmod(path, 0755), 0);
}

/* -1 with the reason for each failure (an animation not in SVG, a roll
 * past the game, a file that cannot be created, no converter that works);
 * a PNG through the first converter that exits 0: rsvg-convert, else
 * ImageMagick's convert. */
Test(judge_rules, svg_write_outcomes)
{
	kb_transcript tx;
	char dir[256], bin[300], path[400], want[500];
	kb_err err;

	cr_assert_eq(kb_tx_parse(forfeit_tx, strlen(forfeit_tx), &tx, &err), 0, "%s", err.msg);
	test_tmpdir(dir, sizeof dir);
	snprintf(path, sizeof path, "%s/a.png", dir);
	cr_assert_eq(kj_svg_write(path, &tx, 0, &err), -1);
	snprintf(want, sizeof want, "%s: an animation is written as SVG only (a PNG cannot move); expected a FILE "
		 "ending in .svg", path);
	cr_assert_str_eq(err.msg, want);
	cr_assert_eq(kj_svg_write(NULL, &tx, 5, &err), -1);
	cr_assert_str_eq(err.msg, "roll 5: the game has 3 rolls");
	snprintf(path, sizeof path, "%s/no/such/p.svg", dir);
	cr_assert_eq(kj_svg_write(path, &tx, 1, &err), -1);
	snprintf(want, sizeof want, "cannot write %s: No such file or directory", path);
	cr_assert_str_eq(err.msg, want);

	snprintf(bin, sizeof bin, "%s/bin", dir);
	cr_assert_eq(mkdir(bin, 0755), 0);
	setenv("PATH", bin, 1);
	static const struct {
		int rsvg, magick; /* exit status, -1: not there */
		int rc;
	} cases[] = {{0, -1, 0}, {1, 0, 0}, {-1, 0, 0}, {1, 1, -1}, {-1, -1, -1}, {2, -1, -1}};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char rsvg[400], magick[400];
		snprintf(rsvg, sizeof rsvg, "%s/rsvg-convert", bin);
		snprintf(magick, sizeof magick, "%s/convert", bin);
		unlink(rsvg), unlink(magick);
		if (cases[i].rsvg >= 0)
			fake_converter(bin, "rsvg-convert", 2, cases[i].rsvg);
		if (cases[i].magick >= 0)
			fake_converter(bin, "convert", 2, cases[i].magick);
		snprintf(path, sizeof path, "%s/p%zu.png", dir, i);
		err.msg[0] = '\0';
		cr_assert_eq(kj_svg_write(path, &tx, 2, &err), cases[i].rc, "case %zu: %s", i, err.msg);
		if (cases[i].rc == 0) {
			cr_assert_eq(memcmp(test_read_file(NULL, path), "\x89PNG", 4), 0, "case %zu: a PNG", i);
		} else {
			snprintf(want, sizeof want, "%s: no working rsvg-convert or convert to make a PNG", path);
			cr_assert_str_eq(err.msg, want, "case %zu", i);
		}
		snprintf(want, sizeof want, "%s.svg", path);
		cr_assert_neq(access(want, F_OK), 0, "case %zu: the SVG on the way is removed", i);
	}
	kb_tx_free(&tx);
}

/* ---- replays: the final position, a rerun that cannot start ------------------ */

/* The final position plays the last roll's index on its board, when that
 * index can be played there: an index the roll cannot play (a hand-edited
 * transcript: a home piece on a 3) leaves the board as it was. */
Test(judge_rules, final_position_of_an_unplayable_last_index)
{
	static const char played_tx[] = "kimble-transcript 1\nseed 4\nseats hard absent hard absent\n"
					"roll 1 " EMPTY44 "A6 0 decided\n";
	static const char unplayable_tx[] = "kimble-transcript 1\nseed 4\nseats hard absent hard absent\n"
					    "roll 1 " EMPTY44 "A3 0 decided\n";
	kb_transcript tx;
	char board[KB_BOARD_LEN];
	int seat, die;
	kb_err err;

	cr_assert_eq(kb_tx_parse(played_tx, strlen(played_tx), &tx, &err), 0, "%s", err.msg);
	cr_assert_eq(kj_tx_board(&tx, 2, board, &seat, &die), 0);
	cr_assert(!memcmp(board, "A0000000000000000000000000000000000000000000", KB_BOARD_LEN), "a 6 brings A's piece out: %.44s", board);
	cr_assert(seat == -1 && die == 0);
	kb_tx_free(&tx);
	cr_assert_eq(kb_tx_parse(unplayable_tx, strlen(unplayable_tx), &tx, &err), 0, "%s", err.msg);
	cr_assert_eq(kj_tx_board(&tx, 2, board, &seat, &die), 0);
	cr_assert(!memcmp(board, EMPTY44, KB_BOARD_LEN), "nothing moved on a 3: %.44s", board);
	kb_tx_free(&tx);
}

/* A game of no rolls (a hand-made transcript, or one cut before its
 * first roll) ends where it started: the final position is the start
 * board (all pieces home without a start line), and its pictures, its
 * animation (one position, on its back layer) and its viewer page are
 * drawn, where all three once read the roll before the first and
 * crashed. */
Test(judge_rules, game_of_no_rolls)
{
	static const char *const texts[] = {
		"kimble-transcript 1\nseed 4\nseats hard absent hard absent\n",
		"kimble-transcript 1\nseed 4\nseats hard absent hard absent\n"
		"start 000000A0000000000000000000000000000000C00000 C 5\n"};
	static const char *const boards[] = {EMPTY44, "000000A0000000000000000000000000000000C00000"};
	char dir[256], path[300], why[200], board[KB_BOARD_LEN];
	int seat, die;
	kb_err err;

	test_tmpdir(dir, sizeof dir);
	snprintf(path, sizeof path, "%s/p.svg", dir);
	for (int i = 0; i < 2; i++) {
		kb_transcript tx;
		cr_assert_eq(kb_tx_parse(texts[i], strlen(texts[i]), &tx, &err), 0, "%s", err.msg);
		cr_assert_eq(tx.nrolls, 0);
		cr_assert_eq(kj_tx_board(&tx, 1, board, &seat, &die), 0);
		cr_assert(!memcmp(board, boards[i], KB_BOARD_LEN) && seat == -1 && die == 0, "%d: %.44s", i, board);
		cr_assert_eq(kj_tx_board(&tx, 2, board, &seat, &die), -1);
		for (uint32_t n = 0; n <= 1; n++) {
			cr_assert_eq(kj_svg_write(path, &tx, n, &err), 0, "%s", err.msg);
			char *text = test_slurp(path);
			cr_assert_eq(markup_well_formed(text, 0, why, sizeof why), 0, "%d %u: %s", i, n, why);
			cr_assert(strstr(text, ">A hard</text>") && strstr(text, ">C hard</text>"), "names: %s", text);
			cr_assert_eq(test_count(text, "<rect width=\"780\" height=\"480\" fill=\"#fafaf5\"/>"), 1,
				     "the back layer, once: %s", text);
			if (n == 0)
				cr_assert_eq(test_count(text, "<g visibility=\"hidden\">"), 1, "one position: %s", text);
			free(text);
		}
		cr_assert(strstr(viewer_page(&tx, "none"), "id=\"slider\" min=\"1\" max=\"1\""));
		kb_tx_free(&tx);
	}
}

/* Fault injection: while memstream_fails is set, or memstream_refused
 * (test_rule_judge_server_mem.c's) says so, open_memstream (the test
 * binary's, which the judge's library links to) fails with ENOMEM; while
 * memstream_unwritable is set, it opens a stream every write to which
 * fails (unbuffered, so the first fprintf sees it). */
static int memstream_fails, memstream_unwritable;
int (*memstream_refused)(void);

static ssize_t write_nothing(void *cookie, const char *buf, size_t n)
{
	(void)cookie, (void)buf, (void)n;
	errno = ENOMEM;
	return -1;
}

FILE *open_memstream(char **ptr, size_t *size)
{
	static FILE *(*libc_open_memstream)(char **, size_t *);

	if (memstream_fails || (memstream_refused && memstream_refused())) {
		errno = ENOMEM;
		return NULL;
	}
	if (memstream_unwritable) {
		FILE *f = fopencookie(NULL, "w", (cookie_io_functions_t){NULL, write_nothing, NULL, NULL});
		if (f)
			setvbuf(f, NULL, _IONBF, 0);
		*ptr = NULL, *size = 0;
		return f;
	}
	if (!libc_open_memstream)
		*(void **)&libc_open_memstream = dlsym(RTLD_NEXT, "open_memstream");
	return libc_open_memstream(ptr, size);
}

/* kimble-server keeps no transcript of a game whose transcript header
 * cannot be written (its stream is closed and forgotten), and the game
 * plays and ends without one: no file in the log folder. */
Test(judge_rules, server_game_without_a_transcript_stream_plays_on)
{
	static srv_games t;
	static const uint8_t lineup[3] = {2, 0, 0};
	char dir[256];
	int files;

	test_tmpdir(dir, sizeof dir);
	cr_assert_eq(srv_games_init(&t, 3, 60000, dir), 0);
	memstream_unwritable = 1;
	srv_game *g = srv_game_start(&t, lineup, 0);
	memstream_unwritable = 0;
	cr_assert_not_null(g);
	cr_assert_null(g->tx, "the stream whose header failed is forgotten");
	cr_assert_null(g->tx_buf);
	srv_game_end(&t, g, "test");
	DIR *d = opendir(dir);
	cr_assert_not_null(d);
	files = 0;
	for (struct dirent *e; (e = readdir(d));)
		files += e->d_name[0] != '.';
	closedir(d);
	cr_assert_eq(files, 0, "no transcript written");
	srv_games_free(&t, "test");
}

/* kj_rerun of forfeit_tx (hard in seats A and C) with *fault set to 1
 * for the call; its status, what it printed (in *printed, len bytes; free
 * it) and err; *fault is 0 again after. */
static int rerun_with_fault(int *fault, char **printed, size_t *len, kb_err *err)
{
	kb_transcript tx;
	kj_bot hard;

	*printed = NULL, *len = 0;
	cr_assert_eq(kb_tx_parse(forfeit_tx, strlen(forfeit_tx), &tx, err), 0, "%s", err->msg);
	cr_assert_eq(kj_bot_resolve("hard", NULL, &hard, err), 0);
	const kj_bot *seats[KB_SEATS] = {&hard, NULL, &hard, NULL};
	kj_match_opts opt = {.move_ms = 5000, .startup_ms = 5000, .grace_ms = 100};
	FILE *out = open_memstream(printed, len);
	cr_assert_not_null(out);
	*fault = 1;
	int rc = kj_rerun(out, &tx, seats, &opt, err);
	*fault = 0;
	fclose(out);
	kb_tx_free(&tx);
	return rc;
}

/* A rerun without memory for the rerun's transcript: -1, "rerun: out of
 * memory", nothing printed and no bot started. */
Test(judge_rules, rerun_out_of_memory)
{
	kb_err err = {0};
	char *text;
	size_t len;

	cr_assert_eq(rerun_with_fault(&memstream_fails, &text, &len, &err), -1);
	cr_assert_str_eq(err.msg, "rerun: out of memory");
	cr_assert_eq(len, 0, "printed: %s", text);
	free(text);
}

/* kb_tx_parse as the library's, or failing once when armed (the test
 * binary is linked with --wrap=kb_tx_parse): a transcript the program
 * wrote itself that cannot be read back for want of memory.  tx_parses
 * counts the failures. */
int __real_kb_tx_parse(const char *text, size_t len, kb_transcript *tx, kb_err *err);
int __wrap_kb_tx_parse(const char *text, size_t len, kb_transcript *tx, kb_err *err);
static int tx_parse_fails, tx_parse_failed;

int __wrap_kb_tx_parse(const char *text, size_t len, kb_transcript *tx, kb_err *err)
{
	if (tx_parse_fails) {
		tx_parse_fails = 0;
		tx_parse_failed++;
		memset(tx, 0, sizeof *tx);
		return kb_err_set(err, -1, "transcript: out of memory");
	}
	return __real_kb_tx_parse(text, len, tx, err);
}

/* A rerun whose own transcript cannot be read back is an error (-1, the
 * reader's message), not an agreement: nothing is compared, and nothing
 * printed says it agrees. */
Test(judge_rules, rerun_that_cannot_read_its_transcript_fails)
{
	kb_err err = {0};
	char *text;
	size_t len;

	int rc = rerun_with_fault(&tx_parse_fails, &text, &len, &err);
	cr_assert_eq(tx_parse_failed, 1, "the rerun read no transcript back");
	cr_assert_eq(rc, -1);
	cr_assert_str_eq(err.msg, "transcript: out of memory");
	cr_assert_null(strstr(text ? text : "", "agrees"), "%s", text);
	free(text);
}

/* ---- result records ------------------------------------------------------------ */

/* A seat's why text is the rest of its line: a line end inside it (CR or
 * LF, from a bot's message) is written as a space, so the record keeps
 * one line a seat and reads back with the spaces. */
Test(judge_rules, result_why_kept_on_its_line)
{
	kj_result res = {.winner = 2, .finished = 2, .rolls = 9, .deal = 1, .seed = 5};
	static char *text;
	size_t len;
	uint32_t game;
	kb_err err;

	res.seat[0] = (kj_seat_result){.present = 1, .place = 2, .reason = KJ_GARBAGE, .forfeit_roll = 3};
	snprintf(res.seat[0].name, sizeof res.seat[0].name, "x");
	snprintf(res.seat[0].why, sizeof res.seat[0].why, "sent \"a\nb\rc\r\n\"");
	res.seat[2] = (kj_seat_result){.present = 1, .place = 1};
	snprintf(res.seat[2].name, sizeof res.seat[2].name, "y");
	FILE *f = open_memstream(&text, &len);
	cr_assert_eq(kj_result_write(f, 7, &res), 0);
	fclose(f);
	cr_assert(strstr(text, " at 3 why sent \"a b c  \"\nseat C y "), "%s", text);
	cr_assert_eq(test_count(text, "\n"), 5, "five lines: %s", text);
	f = fmemopen(text, len, "r");
	kj_result back;
	cr_assert_eq(kj_result_read(f, &game, &back, &err), 0, "%s", err.msg);
	fclose(f);
	cr_assert_str_eq(back.seat[0].why, "sent \"a b c  \"");
	cr_assert(back.seat[2].present && back.winner == 2 && game == 7);
	free(text);
}

/* ---- pictures: every SVG the judge writes is well-formed XML ---------------- */

/* HTML's elements that have no end tag. */
static int html_void(const char *name, size_t len)
{
	static const char *const voids[] = {"area", "base", "br",   "col",	"embed", "hr",	  "img",
					    "input", "link", "meta", "source", "track", "wbr"};
	for (size_t i = 0; i < sizeof voids / sizeof voids[0]; i++)
		if (strlen(voids[i]) == len && !strncmp(voids[i], name, len))
			return 1;
	return 0;
}

/* 0 when text is one well-formed XML element (an <?xml ...?> prologue
 * and comments allowed): every tag closed in order, attribute values
 * quoted, '&' only in entities; else -1 with why.  With html set, an
 * HTML page held to the same rule, but for its doctype, void elements
 * (<br>, <meta>, ...) and the raw text of <script> and <style>. */
static int markup_well_formed(const char *text, int html, char *why, size_t size)
{
	char stack[64][32];
	int depth = 0, roots = 0;
	const char *p = text;

	if (html && !strncmp(p, "<!DOCTYPE html>", 15))
		p += 15;
	while (*p) {
		if (*p != '<') {
			if (*p == '&' && !strchr(p, ';'))
				return snprintf(why, size, "a bare '&': %.40s", p), -1;
			if (!depth && !strchr(" \t\r\n", *p))
				return snprintf(why, size, "text outside the root: %.40s", p), -1;
			p++;
			continue;
		}
		const char *end = p[1] == '?' ? strstr(p, "?>") : !strncmp(p, "<!--", 4) ? strstr(p, "-->") : NULL;
		if (p[1] == '?' || !strncmp(p, "<!--", 4)) {
			if (!end)
				return snprintf(why, size, "unclosed: %.40s", p), -1;
			p = end + (p[1] == '?' ? 2 : 3);
			continue;
		}
		int closing = p[1] == '/';
		const char *name = p + 1 + closing;
		size_t len = strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:-_");
		if (!len || len >= sizeof stack[0])
			return snprintf(why, size, "a bad tag: %.40s", p), -1;
		char quote = 0;
		for (p = name + len; *p && (quote || *p != '>'); p++)
			if (*p == '"' || *p == '\'')
				quote = quote == *p ? 0 : quote ? quote : *p;
		if (!*p)
			return snprintf(why, size, "an unclosed tag <%.*s", (int)len, name), -1;
		if (closing) {
			if (!depth || strlen(stack[depth - 1]) != len || strncmp(stack[depth - 1], name, len))
				return snprintf(why, size, "</%.*s> closes <%s>", (int)len, name,
						depth ? stack[depth - 1] : "nothing"), -1;
			depth--;
		} else if (html && html_void(name, len)) {
			/* no end tag */
		} else if (p[-1] != '/') {
			if (depth == 64)
				return snprintf(why, size, "nested too deep"), -1;
			if (!depth && roots++)
				return snprintf(why, size, "a second root <%.*s>", (int)len, name), -1;
			snprintf(stack[depth++], sizeof stack[0], "%.*s", (int)len, name);
			if (html && (!strcmp(stack[depth - 1], "script") || !strcmp(stack[depth - 1], "style"))) {
				char end_tag[40];
				snprintf(end_tag, sizeof end_tag, "</%s>", stack[depth - 1]);
				const char *raw_end = strstr(p, end_tag);
				if (!raw_end)
					return snprintf(why, size, "<%s> not closed", stack[depth - 1]), -1;
				p = raw_end - 1; /* its end tag is read next */
			}
		} else if (!depth && roots++) {
			return snprintf(why, size, "a second root <%.*s/>", (int)len, name), -1;
		}
		p++;
	}
	if (depth)
		return snprintf(why, size, "<%s> not closed", stack[depth - 1]), -1;
	return roots == 1 ? 0 : (snprintf(why, size, "no root element"), -1);
}

/* The checker itself: what it must refuse. */
Test(judge_rules, markup_checker_refuses_what_is_not_well_formed)
{
	char why[200];
	static const char *const bad[] = {
		"<svg><g></svg>",   "<svg><g></g>",	  "<svg></g></svg>", "<svg a=\"x>\"",
		"<svg/><svg/>",	    "<svg>&amp</svg>", "x<svg/>",	   "",
		"<svg><g x='1'></h></svg>",
	};

	cr_assert_eq(markup_well_formed("<?xml version=\"1.0\"?>\n<svg a=\"<>\"><!-- c --><g>x &amp; y</g><line/></svg>\n",
				     0, why, sizeof why), 0, "%s", why);
	cr_assert_eq(markup_well_formed("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><style>a<b</style>"
					"<script>if (a < b && c) x = '</p>';</script></head><body>a<br>b</body></html>\n",
					1, why, sizeof why), 0, "%s", why);
	static const char *const bad_html[] = {"<html><p></html>", "<html><script>x</html>", "<html><br></br></html>",
					       "<!DOCTYPE html><html></html><p></p>"};
	for (size_t i = 0; i < sizeof bad_html / sizeof bad_html[0]; i++)
		cr_assert_eq(markup_well_formed(bad_html[i], 1, why, sizeof why), -1, "accepted: %s", bad_html[i]);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		cr_assert_eq(markup_well_formed(bad[i], 0, why, sizeof why), -1, "accepted: %s", bad[i]);
}


/* Each still picture (before every roll, and the final position) and the
 * animation: one well-formed SVG document each; the game's viewer page
 * with its elements closed as well. */
Test(judge_rules, svg_pictures_and_the_viewer_page)
{
	kb_transcript tx;
	char dir[256], path[300], why[200];
	kb_err err;

	cr_assert_eq(kb_tx_parse(forfeit_tx, strlen(forfeit_tx), &tx, &err), 0, "%s", err.msg);
	test_tmpdir(dir, sizeof dir);
	snprintf(path, sizeof path, "%s/p.svg", dir);
	for (uint32_t n = 0; n <= tx.nrolls + 1; n++) {
		cr_assert_eq(kj_svg_write(path, &tx, n, &err), 0, "%s", err.msg);
		char *text = test_slurp(path);
		cr_assert(text && strncmp(text, "<svg", 4) == 0, "picture %u", n);
		cr_assert_eq(markup_well_formed(text, 0, why, sizeof why), 0, "picture %u (0: animated): %s", n, why);
		free(text);
	}
	const char *page = viewer_page(&tx, "a <game> & more");
	/* its board's back layer names the seats; the slider and the frames
	 * go from roll 1 to the final position */
	const char *back = strstr(page, "<div id=\"board\">"), *front = strstr(page, "<div id=\"front\">");
	cr_assert(back && front && back < front);
	const char *name_a = strstr(back, ">A my&lt;bot&gt;&amp;co</text>"), *name_c = strstr(back, ">C hard</text>");
	cr_assert(name_a && name_a < front && name_c && name_c < front, "%.*s", (int)(front - back), back);
	cr_assert(strstr(page, "<input type=\"range\" id=\"slider\" min=\"1\" max=\"4\" value=\"1\">"), "%s", page);
	cr_assert_eq(test_count(page, "{\"text\":"), 4);
	kb_tx_free(&tx);
}

/* ---- a debug game interrupted ---------------------------------------------- */

/* A -d game stopped by SIGINT or SIGTERM kills its bots and exits with
 * 128 + the signal's number, as a shell reports a program the signal
 * ended. */
Test(judge_rules, debug_game_interrupted_exits_128_plus_the_signal, .timeout = 60)
{
	static const int sigs[] = {SIGINT, SIGTERM};
	char dir[256], bot[300], judge_bin[512], line[512];

	test_tmpdir(dir, sizeof dir);
	testbot_folder(bot, sizeof bot, dir, "hanger", "hang");
	char *argv[] = {(char *)test_bin("kimble-judge", judge_bin, sizeof judge_bin), "--sandbox", "off",
			"--move-ms", "60000", "-d", bot, NULL};
	for (int i = 0; i < 2; i++) {
		test_proc p;
		test_reader r;
		cr_assert_eq(test_spawn(&p, argv, dir, 0, 1, NULL), 0);
		test_reader_init(&r, p.out);
		long n;
		while ((n = test_getline(&r, line, sizeof line, 10000)) >= 0 && strncmp(line, "A < v001", 8))
			;
		cr_assert_geq(n, 0, "the bot's start message");
		test_kill(&p, sigs[i]);
		int st = test_wait(&p, 10000);
		close(p.out);
		cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 128 + sigs[i], "signal %d: status %#x", sigs[i], st);
	}
}

/* ---- the bots of a tournament ----------------------------------------------- */

/* --bots names the folder whose bots play when none are named: an empty
 * folder is the usage error of no bots at all, a missing one a failure
 * naming it. */
Test(judge_rules, bots_folder_empty_or_missing, .timeout = 30)
{
	char dir[256], empty[300], missing[300];
	const char *err;

	test_tmpdir(dir, sizeof dir);
	snprintf(empty, sizeof empty, "%s/empty", dir);
	snprintf(missing, sizeof missing, "%s/missing", dir);
	cr_assert_eq(mkdir(empty, 0755), 0);
	cr_assert_eq(test_run_prog("kimble-judge", (const char *[]){"--bots", empty, NULL}, NULL, &err), 64,
		     "%s", err);
	cr_assert_str_eq(err, "kimble-judge: no bots: name BOTs or a --bots folder (see kimble-judge --help)\n");
	cr_assert_eq(test_run_prog("kimble-judge", (const char *[]){"--bots", missing, NULL}, NULL, &err), 1,
		     "%s", err);
	cr_assert(strstr(err, "kimble-judge: bots folder ") && strstr(err, "/missing: cannot read: No such file or directory"),
		  "%s", err);
}

/* ---- the results table, row by row, against its columns' rules ------------ */

/* The Wilson score interval at 95 % (report.h), worked out here. */
static void wilson95(double k, double n, double *lo, double *hi)
{
	double z = 1.959964, p = k / n, den = 1 + z * z / n;
	double mid = (p + z * z / (2 * n)) / den, half = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den;

	*lo = fmax(mid - half, 0), *hi = fmin(mid + half, 1);
}

/* Each bot's row of the table: games, wins, win% = 100 wins / games, the
 * Wilson interval in %, the mean place, the forfeits "reason:count,..."
 * and the timing columns (mean ms a decision, max ms); a bot without
 * games shows 0 for each ratio. */
Test(judge_rules, report_table_rows_by_their_rules)
{
	static kj_report rep;
	static const struct {
		const char *name;
		uint32_t games, wins, place_sum, decisions;
		double ms_total, ms_max;
		int crash, illegal;
		const char *forfeits;
	} bots[] = {
		{"alpha", 8, 3, 17, 6, 9, 4.5, 2, 0, "crash:2"},
		{"beta", 7, 7, 7, 40, 10, 0.25, 0, 1, "illegal:1"},
		{"gamma", 9, 2, 25, 0, 0, 0, 1, 3, "crash:1,illegal:3"},
		{"nogames", 0, 0, 0, 0, 0, 0, 0, 0, "-"},
	};
	static char *buf;
	size_t len;

	rep.nbots = 4;
	for (int i = 0; i < 4; i++) {
		kj_bot_stats *st = &rep.bots[i];
		snprintf(st->name, sizeof st->name, "%s", bots[i].name);
		st->games = bots[i].games, st->wins = bots[i].wins, st->place_sum = bots[i].place_sum;
		st->decisions = bots[i].decisions, st->ms_total = bots[i].ms_total, st->ms_max = bots[i].ms_max;
		st->forfeits[KJ_CRASH] = (uint32_t)bots[i].crash, st->forfeits[KJ_ILLEGAL] = (uint32_t)bots[i].illegal;
	}
	FILE *f = open_memstream(&buf, &len);
	kj_report_print(f, &rep, 1);
	fclose(f);
	const char *row = strchr(buf, '\n') + 1;
	for (int i = 0; i < 4; i++, row = strchr(row, '\n') + 1) {
		char name[64], ff[64];
		unsigned games, wins;
		double pct, lo, hi, place, mean_ms, max_ms;
		cr_assert_eq(sscanf(row, "%63s %u %u %lf%% [%lf%%,%lf%%] %lf %63s %lf %lf", name, &games, &wins,
				    &pct, &lo, &hi, &place, ff, &mean_ms, &max_ms), 10, "row %d: %s", i, row);
		double n = bots[i].games, k = bots[i].wins, wlo = 0, whi = 1;
		if (n > 0)
			wilson95(k, n, &wlo, &whi);
		cr_assert_str_eq(name, bots[i].name);
		cr_assert(games == bots[i].games && wins == bots[i].wins, "%s", row);
		cr_assert(fabs(pct - (n ? 100 * k / n : 0)) <= 0.05, "win%%: %s", row);
		cr_assert(fabs(lo - 100 * wlo) <= 0.05 && fabs(hi - 100 * whi) <= 0.05, "interval %f %f: %s", 100 * wlo,
			  100 * whi, row);
		cr_assert(fabs(place - (n ? bots[i].place_sum / n : 0)) <= 0.005, "place: %s", row);
		cr_assert_str_eq(ff, bots[i].forfeits, "%s", row);
		double mean = bots[i].decisions ? bots[i].ms_total / bots[i].decisions : 0;
		cr_assert(fabs(mean_ms - mean) <= 0.0005 && fabs(max_ms - bots[i].ms_max) <= 0.0005, "ms: %s", row);
	}
	cr_assert_eq(*row, '\0', "nothing after the rows without pairs or standings: %s", row);
	free(buf);
}

/* results.json's strings: '"' and '\' escaped, control characters as
 * \u00XX, everything else (spaces, non-ASCII bytes) as it is. */
Test(judge_rules, report_json_strings_escaped)
{
	static kj_report rep;
	static char *buf;
	size_t len;

	rep.nbots = 1;
	snprintf(rep.bots[0].name, sizeof rep.bots[0].name, "b\xc3\xa4r");
	rep.bots[0].games = 1, rep.bots[0].forfeited = 1, rep.bots[0].first_forfeit_game = 4;
	snprintf(rep.bots[0].first_forfeit, sizeof rep.bots[0].first_forfeit,
		 "roll 2: sent \"x\\y\"\t\x1f\x7f ~!");
	FILE *f = open_memstream(&buf, &len);
	kj_report_json(f, &rep, NULL, 1);
	fclose(f);
	cr_assert(strstr(buf, "{\"name\": \"b\xc3\xa4r\", \"games\": 1,"), "%s", buf);
	cr_assert(strstr(buf, "\"first_forfeit\": {\"game\": 4, \"text\": "
			      "\"roll 2: sent \\\"x\\\\y\\\"\\u0009\\u001f\x7f ~!\"}}"),
		  "%s", buf);
	free(buf);
}

/* ---- report.html's list of games ------------------------------------------- */

/* The games table lists at most KJ_HTML_GAMES games; only a longer run
 * says which it shows ("The first N of M games."). */
Test(judge_rules, html_games_table_at_its_bound)
{
	static kj_result res[KJ_HTML_GAMES + 1];
	static kj_report rep;
	char dir[256], path[300], note[80];
	kb_err err;

	for (uint32_t i = 0; i <= KJ_HTML_GAMES; i++)
		res[i].game = i, res[i].winner = -1;
	test_tmpdir(dir, sizeof dir);
	snprintf(path, sizeof path, "%s/report.html", dir);
	snprintf(note, sizeof note, "<p>The first %d of %d games.</p>", KJ_HTML_GAMES, KJ_HTML_GAMES + 1);
	for (size_t n = KJ_HTML_GAMES - 1; n <= KJ_HTML_GAMES + 1; n++) {
		cr_assert_eq(kj_report_html(dir, &rep, res, n, &err), 0, "%s", err.msg);
		char *page = test_slurp(path);
		cr_assert_not_null(page);
		size_t rows = (size_t)test_count(page, "</td></tr>\n");
		cr_assert_eq(rows, n < KJ_HTML_GAMES ? n : KJ_HTML_GAMES, "%zu games: %zu rows", n, rows);
		if (n > KJ_HTML_GAMES)
			cr_assert(strstr(page, note), "%zu games", n);
		else
			cr_assert_null(strstr(page, "The first"), "%zu games: all listed", n);
		free(page);
	}
}

/* A viewer page written from a transcript file is titled by the file's
 * name without its folders (a path with or without them), as the games
 * of report.html link them. */
Test(judge_rules, viewer_file_titled_by_the_transcript_name)
{
	char dir[256], tx[300], page[300];
	kb_err err;

	test_tmpdir(dir, sizeof dir);
	snprintf(tx, sizeof tx, "%s/000007.tx", dir);
	snprintf(page, sizeof page, "%s/000007.html", dir);
	test_write_file(tx, "%s", forfeit_tx);
	cr_assert_eq(kj_html_game_file(tx, page, &err), 0, "%s", err.msg);
	const char *text = test_read_file(NULL, page);
	cr_assert(strstr(text, "<title>Kimble game 000007.tx</title>"), "%.400s", text);
	cr_assert(strstr(text, "<h1>Kimble game 000007.tx</h1>"), "%.400s", text);
	cr_assert_eq(chdir(dir), 0);
	cr_assert_eq(kj_html_game_file("000007.tx", "here.html", &err), 0, "%s", err.msg);
	cr_assert(strstr(test_read_file(dir, "here.html"), "<title>Kimble game 000007.tx</title>"));
}

/* ---- results.json: one well-formed JSON document in every format --------- */

/* A JSON checker (RFC 8259) by recursive descent: the end of the value at
 * p, or NULL when it is not one. */
static const char *json_value(const char *p, int depth);

static const char *json_space(const char *p)
{
	return p + strspn(p, " \t\r\n");
}

static const char *json_string(const char *p)
{
	if (*p++ != '"')
		return NULL;
	for (; *p != '"'; p++) {
		if ((unsigned char)*p < 0x20)
			return NULL; /* the end of the text too */
		if (*p == '\\') {
			p++;
			if (*p == 'u') {
				for (int i = 1; i <= 4; i++)
					if (!strchr("0123456789abcdefABCDEF", p[i]) || !p[i])
						return NULL;
				p += 4;
			} else if (!*p || !strchr("\"\\/bfnrt", *p)) {
				return NULL;
			}
		}
	}
	return p + 1;
}

static const char *json_number(const char *p)
{
	const char *start = p += *p == '-';
	p += strspn(p, "0123456789");
	if (p == start || (*start == '0' && p > start + 1))
		return NULL;
	if (*p == '.') {
		const char *frac = ++p;
		if ((p += strspn(p, "0123456789")) == frac)
			return NULL;
	}
	if (*p == 'e' || *p == 'E') {
		p += 1 + (p[1] == '+' || p[1] == '-');
		const char *exp_digits = p;
		if ((p += strspn(p, "0123456789")) == exp_digits)
			return NULL;
	}
	return p;
}

/* The members or elements of an object ('{') or array ('[') at p. */
static const char *json_compound(const char *p, int depth)
{
	char close = *p == '{' ? '}' : ']';
	p = json_space(p + 1);
	if (*p == close)
		return p + 1;
	for (;;) {
		if (close == '}') {
			if (!(p = json_string(p)) || *(p = json_space(p)) != ':')
				return NULL;
			p = json_space(p + 1);
		}
		if (!(p = json_value(p, depth + 1)))
			return NULL;
		p = json_space(p);
		if (*p == close)
			return p + 1;
		if (*p != ',')
			return NULL;
		p = json_space(p + 1);
	}
}

static const char *json_value(const char *p, int depth)
{
	if (depth > 32)
		return NULL;
	if (*p == '{' || *p == '[')
		return json_compound(p, depth);
	if (*p == '"')
		return json_string(p);
	for (int i = 0; i < 3; i++) {
		static const char *const words[] = {"true", "false", "null"};
		if (!strncmp(p, words[i], strlen(words[i])))
			return p + strlen(words[i]);
	}
	return json_number(p);
}

/* 1 when text is one JSON object and nothing else but white space. */
static int json_document(const char *text)
{
	const char *p = json_space(text);
	return *p == '{' && (p = json_value(p, 0)) && !*json_space(p);
}

/* The checker itself: what it must refuse. */
Test(judge_rules, json_checker_refuses_what_is_not_json)
{
	static const char *const bad[] = {
		"",	     "{",		"{\"a\": 1,}",	 "{\"a\" 1}",	"{\"a\": 1}}", "{\"a\": [1 2]}",
		"{\"a\": 01}", "{\"a\": 1.}",	"{\"a\": nul}",	 "{\"a\": \"x}", "{a: 1}",     "{\"a\": \"\\x\"}",
		"{\"a\": -}",  "{\"a\": [1,]}", "{\"a\": 1} x", "[1]",	"{\"a\": \"\\u12\"}", "{\"a\": 1e}",
	};

	cr_assert(json_document(" {\"a\": [1, -2.5e+3, 0.25, true, false, null, {}], \"b\": {\"c\": \"\\u00e4\\\"\"}}\n"));
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		cr_assert_not(json_document(bad[i]), "accepted: %s", bad[i]);
}

/* results.json of a tournament of each format (round robin with pairs
 * and the rating list, gauntlet with its per-opponent list, a fixed
 * lineup with its learning curve, an SPRT test) is one JSON document,
 * whatever sections it holds; report.html closes every element it opens
 * (but HTML's void ones). */
Test(judge_rules, results_well_formed_in_every_format, .timeout = 60)
{
	static const char *const runs[][12] = {
		{"-f", "rr", "-g", "3", "hard", "easy", "random", NULL},
		{"-f", "gauntlet", "-t", "2", "-g", "3", "random", "hard", "easy", NULL},
		{"-f", "fixed", "-g", "25", "hard", "easy", NULL},
		{"--sprt", "0,400", "-g", "40", "hard", "random", NULL},
	};
	static const char *const section[] = {"\"elo\": [\n    {", "\"per_opponent\": {", "\"learning_curve\"",
					      "\"sprt\": {"};
	char dir[256], out[300];

	test_tmpdir(dir, sizeof dir);
	for (int i = 0; i < 4; i++) {
		const char *args[16] = {"-q", "--no-timing", "-o", out};
		snprintf(out, sizeof out, "%s/out%d", dir, i);
		for (int k = 0; runs[i][k]; k++)
			args[4 + k] = runs[i][k];
		const char *err;
		int st = test_run_prog("kimble-judge", args, NULL, &err);
		if (st == 2 && strstr(err, "sandbox"))
			cr_skip_test("no sandbox here: %s", err);
		cr_assert_eq(st, 0, "run %d: %s", i, err);
		const char *json = test_read_file(out, "results.json");
		cr_assert(strstr(json, section[i]), "run %d holds %s: %s", i, section[i], json);
		cr_assert(json_document(json), "run %d: %s", i, json);
		char why[200];
		cr_assert_eq(markup_well_formed(test_read_file(out, "report.html"), 1, why, sizeof why), 0,
			     "run %d: report.html: %s", i, why);
	}
}
