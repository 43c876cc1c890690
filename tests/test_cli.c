/* test_cli.c - every program's front door: each --option its --help
 * mentions is one it accepts, and usage errors exit 64 (KB_EXIT_USAGE)
 * with a message naming the option and the text.  Runs the real programs. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "core/err.h"
#include "support.h"

#define WAIT_MS 10000
#define UNKNOWN "--zz-no-such-option"

static const char *const programs[] = {"kimble-bot", "kimble-relay", "kimble-server",
				       "kimble-judge", "kimble-state", "kimble-tune"};

/* The file of the last run's stderr, under dir (each run has its own). */
static char err_name[32];

/* Run prog with args (NULL-terminated) in dir, stderr to dir/err_name;
 * returns the exit status (the test fails if the program does not end). */
static int run(const char *dir, const char *prog, const char *const args[])
{
	static int runs;
	char bin[512], err[600];
	const char *argv[16];
	int n = 0;
	test_proc p;

	argv[n++] = test_bin(prog, bin, sizeof bin);
	while (args[n - 1] && n < 15) {
		argv[n] = args[n - 1];
		n++;
	}
	argv[n] = NULL;
	snprintf(err_name, sizeof err_name, "err-%d", ++runs);
	snprintf(err, sizeof err, "%s/%s", dir, err_name);
	cr_assert_eq(test_spawn(&p, (char *const *)argv, dir, 0, 0, err), 0);
	int st = test_wait(&p, WAIT_MS);
	cr_assert(st >= 0 && WIFEXITED(st), "%s %s did not exit by itself", prog, args[0]);
	return WEXITSTATUS(st);
}

/* prog --help on stdout into text (size bytes); exit status 0. */
static void help_text(const char *prog, char *text, size_t size)
{
	char bin[512], line[512];
	char *argv[] = {(char *)test_bin(prog, bin, sizeof bin), "--help", NULL};
	test_proc p;
	test_reader r;
	size_t len = 0;

	cr_assert_eq(test_spawn(&p, argv, NULL, 0, 1, "/dev/null"), 0);
	test_reader_init(&r, p.out);
	while (test_getline(&r, line, sizeof line, WAIT_MS) >= 0)
		len += (size_t)snprintf(text + len, size - len, "%s\n", line);
	cr_assert_lt(len, size - 1, "%s --help: text cut", prog);
	cr_assert_eq(test_wait(&p, WAIT_MS), 0, "%s --help exits 0", prog);
}

/* The next "--word" in text from *at (a word boundary before it). */
static int next_option(const char *text, size_t *at, char *opt, size_t size)
{
	for (size_t i = *at; text[i]; i++) {
		if (text[i] != '-' || text[i + 1] != '-' || !islower((unsigned char)text[i + 2]) ||
		    (i > 0 && (isalnum((unsigned char)text[i - 1]) || text[i - 1] == '-')))
			continue;
		size_t n = 2;
		while (islower((unsigned char)text[i + n]) || isdigit((unsigned char)text[i + n]) ||
		       text[i + n] == '-')
			n++;
		snprintf(opt, size, "%.*s", (int)n, text + i);
		*at = i + n;
		return 1;
	}
	return 0;
}

/* OPT followed by an unknown option: the program takes OPT (a flag) and
 * then refuses the unknown one, or takes OPT and refuses the unknown one
 * as its value; either way it never calls OPT unknown. */
static void check_accepted(const char *dir, const char *prog, const char *opt)
{
	char unknown_opt[128];
	const char *args[] = {opt, UNKNOWN, NULL};
	int st = run(dir, prog, args);
	const char *err = test_read_file(dir, err_name);

	snprintf(unknown_opt, sizeof unknown_opt, "unknown option \"%s\"", opt);
	cr_assert(!strstr(err, unknown_opt), "%s %s: %s", prog, opt, err);
	if (strcmp(opt, "--help") == 0) {
		cr_assert_eq(st, 0);
		return;
	}
	cr_assert_eq(st, KB_EXIT_USAGE, "%s %s %s: exit %d, %s", prog, opt, UNKNOWN, st, err);
	cr_assert(strstr(err, "unknown option \"" UNKNOWN "\"") || strstr(err, opt),
		  "%s %s: %s", prog, opt, err);
}

Test(cli, every_option_in_help_is_accepted, .timeout = 120)
{
	static char text[1 << 16];
	char dir[256], opt[64];

	test_tmpdir(dir, sizeof dir);
	for (size_t k = 0; k < sizeof programs / sizeof *programs; k++) {
		size_t at = 0;
		int options = 0;
		help_text(programs[k], text, sizeof text);
		while (next_option(text, &at, opt, sizeof opt)) {
			check_accepted(dir, programs[k], opt);
			options++;
		}
		cr_assert_geq(options, 2, "%s --help documents its options", programs[k]);
		const char *args[] = {UNKNOWN, NULL};
		cr_assert_eq(run(dir, programs[k], args), KB_EXIT_USAGE);
		cr_assert(strstr(test_read_file(dir, err_name), "unknown option \"" UNKNOWN "\""), "%s: %s",
			  programs[k], test_read_file(dir, err_name));
	}
}

/* A usage error: the arguments, then two texts the message must hold. */
typedef struct usage_case {
	const char *prog;
	const char *args[8];
	const char *names[2];
} usage_case;

static const usage_case usage_cases[] = {
	{"kimble-bot", {"easy", "5x"}, {"SEED", "\"5x\""}},
	{"kimble-bot", {"--budget-ms", "1e3", "easy", "1"}, {"--budget-ms", "\"1e3\""}},
	{"kimble-bot", {"easy", "18446744073709551616"}, {"SEED", "out of range"}},
	{"kimble-relay", {"--port", "70000", "--", "true"}, {"--port", "\"70000\""}},
	{"kimble-relay", {"--retry-ms", "", "--", "true"}, {"--retry-ms", "nothing given"}},
	{"kimble-server", {"--seed", "-1"}, {"--seed", "\"-1\""}},
	{"kimble-server", {"--token-ttl", "nan"}, {"--token-ttl", "\"nan\""}},
	{"kimble-server", {"--port", " 5"}, {"--port", "\" 5\""}},
	{"kimble-judge", {"--games", "5x", "easy"}, {"--games", "\"5x\""}},
	{"kimble-judge", {"--seed", "99999999999999999999", "easy"}, {"--seed", "out of range"}},
	{"kimble-judge", {"--move-ms"}, {"--move-ms", "expected a value"}},
	{"kimble-state", {"--state"}, {"--state", "expected a value"}},
	{"kimble-state", {"frobnicate"}, {"\"frobnicate\"", "expected list"}},
	{"kimble-state", {"--state", "st", "reset", "no/name"}, {"\"no/name\"", "expected 1..64"}},
	{"kimble-tune", {"--td-rate", "inf"}, {"--td-rate", "\"inf\""}},
	{"kimble-tune", {"--games", "0"}, {"--games", "\"0\""}},
};

Test(cli, usage_errors_exit_64_naming_option_and_text, .timeout = 120)
{
	char dir[256];

	test_tmpdir(dir, sizeof dir);
	for (size_t i = 0; i < sizeof usage_cases / sizeof *usage_cases; i++) {
		const usage_case *c = &usage_cases[i];
		int st = run(dir, c->prog, c->args);
		const char *err = test_read_file(dir, err_name);
		cr_assert_eq(st, KB_EXIT_USAGE, "%s %s: exit %d: %s", c->prog, c->args[0], st, err);
		for (int k = 0; k < 2; k++)
			cr_assert(strstr(err, c->names[k]), "%s %s: \"%s\" not in: %s", c->prog,
				  c->args[0], c->names[k], err);
		cr_assert(strncmp(err, c->prog, strlen(c->prog)) == 0, "%s", err);
	}
}

/* "+5" is 5 in every program: the option is taken and parsing goes on to
 * the unknown option after it. */
Test(cli, plus_sign_accepted_everywhere, .timeout = 60)
{
	static const char *const cases[][2] = {
		{"kimble-bot", "--budget-ms"}, {"kimble-relay", "--port"}, {"kimble-server", "--port"},
		{"kimble-judge", "--games"},   {"kimble-tune", "--games"},
	};
	char dir[256];

	test_tmpdir(dir, sizeof dir);
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const char *args[] = {cases[i][1], "+5", UNKNOWN, NULL};
		cr_assert_eq(run(dir, cases[i][0], args), KB_EXIT_USAGE);
		const char *err = test_read_file(dir, err_name);
		cr_assert(strstr(err, "unknown option \"" UNKNOWN "\""), "%s %s +5: %s", cases[i][0],
			  cases[i][1], err);
	}
}

/* Whether help text's --name at text[i] takes a value: on a synopsis line
 * ("usage:" or a program name) when a word other than "[", "|" or an
 * option follows after one space ("[--at N]", not "[--step]"); on an
 * option's line (spaces, then "-") when a word follows after exactly one
 * space ("--cpu-s N --mem-mb N", not "--html           also write"). */
static int takes_value(const char *after)
{
	return after[0] == ' ' && after[1] && !strchr(" -[|]", after[1]);
}

/* Every --name of the synopsis and option lines of prog's help text with
 * whether it takes a value (1) or is a flag (0); returns how many.  An
 * option shown both ways fails the test. */
static int help_options(const char *prog, const char *text, char names[][32], int values[],
			int max)
{
	int n = 0;

	for (const char *line = text; *line; line = strchr(line, '\n') + 1) {
		const char *end = strchr(line, '\n'), *p = line + strspn(line, " ");
		if (!(strncmp(line, "usage:", 6) == 0 || (p > line && (*p == '-' ||
		      strncmp(p, prog, strlen(prog)) == 0))))
			continue;
		for (const char *o = strstr(line, "--"); o && o < end; o = strstr(o + 2, "--")) {
			size_t len = 2 + strspn(o + 2, "abcdefghijklmnopqrstuvwxyz0123456789-");
			if (len == 2 || len >= 32)
				continue;
			int k = 0;
			while (k < n && (strlen(names[k]) != len || strncmp(names[k], o, len)))
				k++;
			int value = takes_value(o + len);
			if (k < n) {
				cr_assert_eq(values[k], value, "%s --help shows %s both with and "
					     "without a value", prog, names[k]);
				continue;
			}
			cr_assert_lt(n, max);
			snprintf(names[n], 32, "%.*s", (int)len, o);
			values[n++] = value;
		}
	}
	return n;
}

/* kimble-judge takes each option as its help shows it: one shown with a
 * value refuses to come last without it, and takes the next word ("--games
 * 5", not only "--games=5"); a flag takes no value, neither the next word
 * nor "=1". */
Test(cli, judge_options_take_values_as_help_shows, .timeout = 120)
{
	static char text[1 << 16];
	char names[64][32], dir[256], with_eq[48];
	int values[64];

	test_tmpdir(dir, sizeof dir);
	help_text("kimble-judge", text, sizeof text);
	int n = help_options("kimble-judge", text, names, values, 64);
	cr_assert_geq(n, 30, "kimble-judge --help shows %d options", n);
	for (int k = 0; k < n; k++) {
		if (!strcmp(names[k], "--help"))
			continue;
		int st;
		const char *err;
		if (values[k]) {
			char says[64];
			const char *alone[] = {names[k], NULL};
			snprintf(says, sizeof says, "%s: expected a value after it", names[k]);
			st = run(dir, "kimble-judge", alone);
			err = test_read_file(dir, err_name);
			cr_assert(st == KB_EXIT_USAGE && strstr(err, says), "%s alone: exit %d, %s",
				  names[k], st, err);
			/* the next word is its value, then the unknown option is refused */
			const char *next[] = {names[k], "1", UNKNOWN, NULL};
			st = run(dir, "kimble-judge", next);
			err = test_read_file(dir, err_name);
			cr_assert(st == KB_EXIT_USAGE && (strstr(err, "unknown option \"" UNKNOWN) ||
							  strstr(err, "\"1\"")),
				  "%s 1 %s: exit %d, %s", names[k], UNKNOWN, st, err);
			continue;
		}
		const char *then[] = {names[k], UNKNOWN, NULL};
		st = run(dir, "kimble-judge", then);
		err = test_read_file(dir, err_name);
		cr_assert(st == KB_EXIT_USAGE && strstr(err, "unknown option \"" UNKNOWN "\""),
			  "%s %s: exit %d, %s", names[k], UNKNOWN, st, err);
		snprintf(with_eq, sizeof with_eq, "%s=1", names[k]);
		const char *eq[] = {with_eq, NULL};
		st = run(dir, "kimble-judge", eq);
		err = test_read_file(dir, err_name);
		cr_assert(st == KB_EXIT_USAGE && strstr(err, "unknown option \"") &&
			  strstr(err, with_eq), "%s: exit %d, %s", with_eq, st, err);
	}
}
