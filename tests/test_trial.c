/* test_trial.c - what a newcomer's trial of kimble-judge ran into, seen
 * through the real programs: the PATH warning comes once per bot and run,
 * bots get a small environment, a forfeit's lines fit the SVG picture,
 * report.html names forfeit reasons, and an Elo interval that the sample
 * cannot give says why instead of reading [+0.0, +0.0]. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support.h"
#include "support_run.h"

#define RUN_MS 60000

/* dir/name (a path below dir) holding text, mode 0755. */
static void write_file(const char *dir, const char *name, const char *text)
{
	char path[1200];

	cr_assert_lt((size_t)snprintf(path, sizeof path, "%s/%s", dir, name), sizeof path);
	test_write_file(path, "%s", text);
	chmod(path, 0755);
}

/* dir/folder: a bot folder of a bot named name whose command is program
 * args, with a copy of the test bot in it (a confined bot may run what its
 * folder holds).  Aborts the test on error. */
static void bot_dir(const char *dir, const char *folder, const char *name, const char *program,
		    const char *args)
{
	char path[1200], bin[1024], buf[1 << 16];
	ssize_t got;

	snprintf(path, sizeof path, "%s/%s", dir, folder);
	cr_assert(mkdir(path, 0755) == 0 || errno == EEXIST, "%s", path);
	snprintf(buf, sizeof buf, "%s\n%s\n%s\n1\n", name, program, args);
	snprintf(path, sizeof path, "%s/meta", folder);
	write_file(dir, path, buf);
	test_root_path("build/rel/testbots/testbot", bin, sizeof bin);
	int in = open(bin, O_RDONLY);
	cr_assert(in >= 0, "%s missing: make build/rel/testbots/testbot", bin);
	snprintf(path, sizeof path, "%s/%s/testbot", dir, folder);
	int out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	cr_assert(out >= 0, "%s", path);
	while ((got = read(in, buf, sizeof buf)) > 0)
		cr_assert_eq(write(out, buf, (size_t)got), got);
	close(in);
	close(out);
}

/* Run kimble-judge in dir with args (NULL-terminated) and this process's
 * environment; stdout to dir/NAME.out, stderr to dir/NAME.err.  Returns
 * the exit status. */
static int run_judge(const char *dir, const char *name, const char *const args[])
{
	int st = test_run_in("kimble-judge", dir, name, args, RUN_MS);

	cr_assert(st >= 0 && WIFEXITED(st), "kimble-judge %s did not exit normally", name);
	return WEXITSTATUS(st);
}

/* A pyenv-like shim named sh first in PATH: a confined bot may not run
 * it, the judge says so and runs /usr/bin/sh, and says it once for the
 * whole run, not once per game (workers are forked per game), with -q. */
Test(trial, path_warning_comes_once_per_bot_and_run, .timeout = 120)
{
	char dir[512], path[1200], text[1400];
	const char *args[] = {"-q", "--no-timing", "-f", "gauntlet", "-t", "2", "-g", "3", "-j", "2",
			      "-o", "out", "s", "hard", "easy", NULL};

	test_tmpdir(dir, sizeof dir);
	bot_dir(dir, "s", "s", "sh", "run.sh");
	write_file(dir, "s/run.sh", "exec ./testbot hard \"$@\"\n");
	snprintf(path, sizeof path, "%s/shim", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(text, sizeof text, "#!/bin/sh\necho ran >> '%s/shim/ran'\nexec /bin/sh \"$@\"\n",
		 dir);
	write_file(dir, "shim/sh", text);
	snprintf(text, sizeof text, "%s/shim:/usr/bin:/bin", dir);
	setenv("PATH", text, 1);

	cr_assert_eq(run_judge(dir, "run", args), 0, "%s", test_read_file(dir, "run.err"));
	const char *err = test_read_file(dir, "run.err");
	cr_expect_eq(test_count(err, "kimble-judge: warning: bot s: its command sh is "), 1,
		     "one warning for 12 games:\n%s", err);
	cr_expect_str_eq(test_read_file(dir, "shim/ran"), "", "the shim never ran");
	cr_expect_not_null(strstr(test_read_file(dir, "out/results.txt"), "\ns "),
			   "the bot played: %s", test_read_file(dir, "out/results.txt"));
	cr_expect_null(strstr(test_read_file(dir, "out/results.txt"), "nostart"));
}

/* What a bot sees of the environment, as its run.sh reports it on stderr
 * (echoed by -d as "A! ..."). */
static const char env_bot[] =
	"echo \"secret=${KB_TRIAL_SECRET-unset} home=$HOME kimble=${KIMBLE_TRIAL-unset} "
	"learn=${KIMBLE_LEARN-unset} lang=${LANG-unset}\" >&2\n"
	"exec ./testbot hard \"$@\"\n";

/* A secret exported in the organiser's shell does not reach a bot; HOME is
 * its folder; LANG and KIMBLE_* pass; --pass-env names more; --no-learn
 * replaces the judge's KIMBLE_LEARN. */
Test(trial, bots_get_a_small_environment, .timeout = 120)
{
	char dir[512], want[1400];
	const char *plain[] = {"--no-timing", "-d", "e", "hard", NULL};
	const char *named[] = {"--no-timing", "--pass-env", "KB_TRIAL_SECRET,HOME", "-d", "e",
			       "hard", NULL};
	const char *all[] = {"--no-timing", "--pass-env", "*", "--no-learn", "-d", "e", "hard",
			     NULL};
	const char *bad[] = {"--pass-env", "A-B", "-d", "e", NULL};

	test_tmpdir(dir, sizeof dir);
	bot_dir(dir, "e", "e", "sh", "run.sh");
	write_file(dir, "e/run.sh", env_bot);
	setenv("KB_TRIAL_SECRET", "hunter2", 1);
	setenv("KIMBLE_TRIAL", "k", 1);
	setenv("KIMBLE_LEARN", "1", 1);
	setenv("LANG", "C.UTF-8", 1);
	setenv("HOME", "/nonexistent-home", 1);

	cr_assert_eq(run_judge(dir, "plain", plain), 0, "%s", test_read_file(dir, "plain.err"));
	snprintf(want, sizeof want, "A! secret=unset home=%s/e kimble=k learn=1 lang=C.UTF-8\n", dir);
	cr_expect_not_null(strstr(test_read_file(dir, "plain.out"), want), "%s in\n%s", want,
			   test_read_file(dir, "plain.out"));

	cr_assert_eq(run_judge(dir, "named", named), 0, "%s", test_read_file(dir, "named.err"));
	cr_expect_not_null(strstr(test_read_file(dir, "named.out"),
				  "A! secret=hunter2 home=/nonexistent-home kimble=k"),
			   "%s", test_read_file(dir, "named.out"));

	cr_assert_eq(run_judge(dir, "all", all), 0, "%s", test_read_file(dir, "all.err"));
	cr_expect_not_null(strstr(test_read_file(dir, "all.out"),
				  "A! secret=hunter2 home=/nonexistent-home kimble=k learn=0"),
			   "%s", test_read_file(dir, "all.out"));

	cr_expect_eq(run_judge(dir, "bad", bad), 64);
	cr_expect_not_null(strstr(test_read_file(dir, "bad.err"), "--pass-env \"A-B\""), "%s",
			   test_read_file(dir, "bad.err"));
}

/* One <text> element of an SVG picture. */
typedef struct svg_text {
	int x, y, size;
	char body[256];
} svg_text;

/* The text elements of svg (entities &amp; &lt; &gt; &quot; undone), at
 * most max; returns how many. */
static int svg_texts(const char *svg, svg_text *out, int max)
{
	int n = 0;

	for (const char *p = svg; n < max && (p = strstr(p, "<text x=\"")); p++) {
		svg_text *t = &out[n];
		const char *size = strstr(p, "font-size=\""), *open = strchr(p, '>');
		if (sscanf(p, "<text x=\"%d\" y=\"%d\"", &t->x, &t->y) != 2 || !size || !open)
			continue;
		t->size = atoi(size + 11);
		const char *close = strstr(open, "</text>");
		size_t k = 0;
		for (const char *c = open + 1; c < close && k + 1 < sizeof t->body; c++) {
			static const char *const ents[][2] = {
				{"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}};
			int hit = 0;
			for (int e = 0; e < 4 && !hit; e++)
				if (!strncmp(c, ents[e][0], strlen(ents[e][0]))) {
					t->body[k++] = ents[e][1][0];
					c += strlen(ents[e][0]) - 1;
					hit = 1;
				}
			if (!hit)
				t->body[k++] = *c;
		}
		t->body[k] = '\0';
		n++;
	}
	return n;
}

/* The characters of UTF-8 text s, by the C library's decoder (not the
 * SVG writer's own count, so a slip there shows). */
static size_t utf8_chars(const char *s)
{
	cr_assert_not_null(setlocale(LC_CTYPE, "C.UTF-8"));
	size_t n = mbstowcs(NULL, s, 0);
	cr_assert_neq(n, (size_t)-1, "not UTF-8: %s", s);
	return n;
}

/* Every line of the panel (x >= 480) ends within the 780 px picture at
 * 0.6 x its font size a character, and no two lines overlap (baselines at
 * least 0.75 x the lower's size + 0.2 x the upper's apart). */
static void panel_fits(const char *svg_path)
{
	static svg_text t[400];
	char *svg = test_slurp(svg_path);
	int n, prev = -1;

	cr_assert_not_null(svg, "%s", svg_path);
	n = svg_texts(svg, t, 400);
	for (int i = 0; i < n; i++) {
		if (t[i].x < 480)
			continue;
		double right = t[i].x + utf8_chars(t[i].body) * 0.6 * t[i].size;
		cr_expect_leq(right, 780.0, "%s: \"%s\" at %d px ends at %.0f px", svg_path,
			      t[i].body, t[i].size, right);
		if (prev >= 0 && t[i].x == 480 && t[prev].y < t[i].y)
			cr_expect_geq(t[i].y - t[prev].y, 0.75 * t[i].size + 0.2 * t[prev].size,
				      "%s: \"%s\" overlaps \"%s\"", svg_path, t[i].body, t[prev].body);
		if (t[i].x == 480)
			prev = i;
	}
	free(svg);
}

/* The texts of the picture joined by newlines (malloc'ed). */
static char *svg_lines(const char *svg_path)
{
	static svg_text t[400];
	char *svg = test_slurp(svg_path), *all = calloc(1, 400 * 258);
	int n = svg_texts(svg, t, 400);

	for (int i = 0; i < n; i++)
		strcat(strcat(all, t[i].body), "\n");
	free(svg);
	return all;
}

/* A bot with a long name that exits at its first decision: every picture
 * from its roll on says who, when, why and what finished the seat, each
 * line inside the picture, nothing in the panel overlapping; so does the
 * final picture with three such bots (six forfeit lines and the end). */
Test(trial, svg_forfeit_lines_fit_the_panel, .timeout = 120)
{
	char dir[512], roll_arg[16];
	const char *one[] = {"--no-timing", "-d", "d1", "-o", "one.tx", "hard", "hard", NULL};
	const char *three[] = {"--no-timing", "-d", "d1", "-o", "three.tx", "d2", "d3", "hard", NULL};
	const char *names[] = {"a-bot-with-a-very-long-name-indeed", "second-quitter-with-long-name",
			       "third&quitter"};

	test_tmpdir(dir, sizeof dir);
	for (int i = 0; i < 3; i++) {
		char folder[16];
		snprintf(folder, sizeof folder, "d%d", i + 1);
		bot_dir(dir, folder, names[i], "./testbot", "exit");
	}
	cr_assert_eq(run_judge(dir, "one", one), 0, "%s", test_read_file(dir, "one.err"));
	const char *out = strstr(test_read_file(dir, "one.out"), " forfeited at roll ");
	cr_assert_not_null(out, "%s", test_read_file(dir, "one.out"));
	snprintf(roll_arg, sizeof roll_arg, "%d", atoi(out + strlen(" forfeited at roll ")));
	const char *at[] = {"svg", "--at", roll_arg, "-o", "at.svg", "one.tx", NULL};
	const char *last[] = {"svg", "-o", "last.svg", "one.tx", NULL};
	const char *last3[] = {"svg", "-o", "last3.svg", "three.tx", NULL};
	cr_assert_eq(run_judge(dir, "at", at), 0, "%s", test_read_file(dir, "at.err"));
	cr_assert_eq(run_judge(dir, "last", last), 0, "%s", test_read_file(dir, "last.err"));
	cr_assert_eq(run_judge(dir, "three", three), 0, "%s", test_read_file(dir, "three.err"));
	cr_assert_eq(run_judge(dir, "last3", last3), 0, "%s", test_read_file(dir, "last3.err"));

	const char *files[] = {"at.svg", "last.svg", "last3.svg"};
	for (int i = 0; i < 3; i++) {
		char path[1200], want[96];
		snprintf(path, sizeof path, "%s/%s", dir, files[i]);
		panel_fits(path);
		char *lines = svg_lines(path);
		snprintf(want, sizeof want, " forfeited at roll %s (exit)\n", roll_arg);
		if (i < 2) /* the game of three.tx went otherwise */
			cr_expect_not_null(strstr(lines, want), "%s: %s in\n%s", files[i], want, lines);
		cr_expect_not_null(strstr(lines, "\nA a-bot-with-a-"), "%s", lines);
		cr_expect_eq(test_count(lines, " (exit)\nseat finished by hard\n"), i < 2 ? 1 : 3, "%s",
			     lines);
		if (i == 2)
			cr_expect_not_null(strstr(lines, "\nC third&quitter forfeited at roll "), "%s",
					   lines);
		free(lines);
	}
}

/* report.html says why a bot forfeited, as results.txt does. */
Test(trial, report_html_names_forfeit_reasons, .timeout = 120)
{
	char dir[512];
	const char *args[] = {"-q", "--no-timing", "-t", "2", "-o", "out", "q", "hard", NULL};

	test_tmpdir(dir, sizeof dir);
	bot_dir(dir, "q", "quitter", "./testbot", "exit");
	cr_assert_eq(run_judge(dir, "run", args), 0, "%s", test_read_file(dir, "run.err"));
	const char *txt = test_read_file(dir, "out/results.txt");
	const char *first = strstr(txt, "first forfeit of quitter: game 0: A quitter forfeited at roll ");
	cr_assert_not_null(first, "%s", txt);
	char line[512];
	snprintf(line, sizeof line, "%.*s", (int)strcspn(first, "\n"), first);
	cr_assert_not_null(strstr(line, "(exit: "), "%s", line);
	const char *html = test_read_file(dir, "out/report.html");
	cr_expect_not_null(strstr(html, line), "report.html holds \"%s\":\n%s", line, html);
	cr_expect_not_null(strstr(html, "quitter <span title=\"A quitter forfeited at roll "),
			   "%s", html);
	cr_expect_not_null(strstr(html, "(forfeit: exit)</span>"), "%s", html);
}

/* Two deals, or deals that all scored the same, give no Elo interval: the
 * table, the per-opponent lines, report.html and results.json say why. */
Test(trial, elo_without_an_interval_says_why, .timeout = 120)
{
	char dir[512];
	const char *two[] = {"-q", "--no-timing", "-f", "gauntlet", "-t", "2", "-g", "2", "-o",
			     "two", "hard", "easy", "random", NULL};
	const char *same[] = {"-q", "--no-timing", "-t", "2", "-g", "5", "-o", "same", "q", "easy",
			      NULL};

	test_tmpdir(dir, sizeof dir);
	bot_dir(dir, "q", "quitter", "./testbot", "exit");
	cr_assert_eq(run_judge(dir, "two", two), 0, "%s", test_read_file(dir, "two.err"));
	const char *txt = test_read_file(dir, "two/results.txt");
	cr_expect_not_null(strstr(txt, "elo hard - easy: "), "%s", txt);
	cr_expect_not_null(strstr(txt, " [n/a: 2 deals] from 2 deals (score "), "%s", txt);
	cr_expect_not_null(strstr(txt, " [n/a: 2 deals] (2)\n"), "per opponent: %s", txt);
	cr_expect_not_null(strstr(txt, "\n  1 hard "), "%s", txt);
	cr_expect_not_null(strstr(txt, " [n/a: 4 deals]\n  2 "), "the rating list: %s", txt);
	cr_expect_null(strstr(txt, "[+0.0, +0.0]"), "%s", txt);
	const char *json = test_read_file(dir, "two/results.json");
	cr_expect_not_null(strstr(json, "\"lo\": null, \"hi\": null, \"no_interval\": \"2 deals\"}"),
			   "%s", json);
	cr_expect_not_null(strstr(json, "\"elo_lo\": null, \"elo_hi\": null, \"no_interval\": "
					"\"2 deals\"}"),
			   "%s", json);
	cr_expect_not_null(strstr(test_read_file(dir, "two/report.html"), "<td>[n/a: 2 deals]</td>"));

	cr_assert_eq(run_judge(dir, "same", same), 0, "%s", test_read_file(dir, "same.err"));
	txt = test_read_file(dir, "same/results.txt");
	cr_expect_not_null(strstr(txt, "elo quitter - easy: -1000.0 [n/a: no spread over 5 deals] "
				       "from 5 deals (score 0.000)"),
			   "%s", txt);
	json = test_read_file(dir, "same/results.json");
	cr_expect_not_null(strstr(json, "\"no_interval\": \"no spread over 5 deals\""), "%s", json);
}
