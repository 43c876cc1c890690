/* test_docs.c - the documentation cannot drift from the programs:
 *   docs_spec     every worked example of docs/spec.md (fenced
 *                 "kimble-example" blocks) holds for the rules engine;
 *   docs_man      every option of a program's --help is in its manual
 *                 page and every option the page's OPTIONS section lists
 *                 is in --help;
 *   docs_run      every runnable example (tests/doc-commands.sh) of the
 *                 README, the tutorial and the manual pages succeeds;
 *   docs_repo     nothing refers to files a clone does not have. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/board.h"
#include "core/rules.h"
#include "support.h"

/* ---- docs_spec ----------------------------------------------------------- */

typedef struct spec_example {
	unsigned present;
	char board[KB_BOARD_LEN + 1], after[KB_BOARD_LEN + 1], seen[KB_BOARD_LEN + 1];
	int seat, die, move, view;
	unsigned legal;
	int has_roll, has_legal;
} spec_example;

static unsigned seat_mask(const char *letters)
{
	unsigned mask = 0;
	for (; *letters && *letters != '\n'; letters++)
		if (*letters >= 'A' && *letters <= 'D')
			mask |= 1u << (*letters - 'A');
	return mask;
}

/* Copy the 44-character board that follows a field name. */
static void copy_board(const char *value, char out[KB_BOARD_LEN + 1], int line)
{
	size_t len = strcspn(value, "\n");
	cr_assert_eq(len, KB_BOARD_LEN, "spec example line %d: a board is 44 characters, got %zu",
		     line, len);
	memcpy(out, value, KB_BOARD_LEN);
	out[KB_BOARD_LEN] = '\0';
}

/* One field line of an example ("NAME   VALUE"). */
static void spec_field(spec_example *ex, const char *text, int line)
{
	char name[16];
	int skip = 0;
	cr_assert_eq(sscanf(text, "%15s %n", name, &skip), 1, "spec line %d: a field", line);
	const char *value = text + skip;
	if (!strcmp(name, "present"))
		ex->present = seat_mask(value);
	else if (!strcmp(name, "board"))
		copy_board(value, ex->board, line);
	else if (!strcmp(name, "after"))
		copy_board(value, ex->after, line);
	else if (!strcmp(name, "seen"))
		copy_board(value, ex->seen, line);
	else if (!strcmp(name, "view"))
		ex->view = value[0] - 'A';
	else if (!strcmp(name, "move"))
		ex->move = atoi(value);
	else if (!strcmp(name, "roll")) {
		ex->seat = value[0] - 'A';
		ex->die = atoi(value + 1);
		ex->has_roll = 1;
	} else if (!strcmp(name, "legal")) {
		for (const char *c = value; *c && *c != '\n'; c++)
			if (isdigit((unsigned char)*c))
				ex->legal |= 1u << (*c - '0');
		ex->has_legal = 1;
	} else
		cr_assert_fail("spec line %d: unknown field '%s'", line, name);
}

static void spec_check(const spec_example *ex, int line)
{
	kb_pos pos;
	kb_err err;
	char out[KB_BOARD_LEN + 1] = "";

	cr_assert_eq(kb_board_parse(ex->board, KB_BOARD_LEN, ex->present, &pos, &err), 0,
		     "spec example at line %d: %s", line, err.msg);
	if (ex->has_legal)
		cr_assert_eq(kb_legal(&pos, ex->seat, ex->die), ex->legal,
			     "spec example at line %d: legal mask 0x%x, the doc says 0x%x", line,
			     kb_legal(&pos, ex->seat, ex->die), ex->legal);
	if (ex->move >= 0) {
		kb_apply(&pos, ex->seat, ex->move, ex->die);
		kb_board_format(&pos, out);
		cr_assert_str_eq(out, ex->after, "spec example at line %d: the board after", line);
	}
	if (ex->view >= 0) {
		kb_board_rotate(ex->board, ex->view, out);
		cr_assert_str_eq(out, ex->seen, "spec example at line %d: the rotated board", line);
	}
}

Test(docs_spec, worked_examples_hold)
{
	char path[1024];
	const char *text = test_read_file(NULL, test_root_path("docs/spec.md", path, sizeof path));
	const char *fence = "```kimble-example\n";
	int examples = 0;

	for (const char *at = strstr(text, fence); at; at = strstr(at, fence)) {
		int line = 1;
		for (const char *c = text; c < at; c++)
			line += *c == '\n';
		spec_example ex = {.move = -1, .view = -1, .present = 1};
		at += strlen(fence);
		for (int row = 1; strncmp(at, "```", 3); row++) {
			cr_assert(*at, "spec example at line %d: no closing fence", line);
			spec_field(&ex, at, line + row);
			at = strchr(at, '\n') + 1;
		}
		spec_check(&ex, line);
		examples++;
	}
	cr_assert_geq(examples, 10, "docs/spec.md: %d kimble-example blocks found", examples);
}

/* ---- docs_man ------------------------------------------------------------ */

#define MAX_OPTS 96

typedef struct opt_set {
	int n;
	char name[MAX_OPTS][32];
} opt_set;

static int opt_has(const opt_set *set, const char *name)
{
	for (int i = 0; i < set->n; i++)
		if (!strcmp(set->name[i], name))
			return 1;
	return 0;
}

static void opt_add(opt_set *set, const char *start, size_t len)
{
	char name[32];
	if (len >= sizeof name)
		len = sizeof name - 1;
	memcpy(name, start, len);
	name[len] = '\0';
	if (!opt_has(set, name) && set->n < MAX_OPTS)
		strcpy(set->name[set->n++], name);
}

/* Every option word in text: "--long-name" or "-x" standing alone after a
 * space or bracket (so "64-bit", "-0.5" and "rsvg-convert" are no options). */
static void opt_scan(const char *text, opt_set *set)
{
	for (const char *c = text; *c; c++) {
		if (*c != '-' || (c > text && !strchr(" \t\n[|,(\"", c[-1])))
			continue;
		if (c[1] == '-' && isalpha((unsigned char)c[2])) {
			size_t len = 2 + strspn(c + 2, "abcdefghijklmnopqrstuvwxyz0123456789-");
			while (c[len - 1] == '-')
				len--;
			opt_add(set, c, len);
			c += len - 1;
		} else if (isalpha((unsigned char)c[1]) && !isalnum((unsigned char)c[2]) && c[2] != '-')
			opt_add(set, c, 2);
	}
}

/* The page's text with roff escapes for hyphens and fonts removed. */
static void roff_plain(const char *roff, char *out, size_t size)
{
	size_t n = 0;
	for (const char *c = roff; *c && n + 1 < size; c++) {
		if (c[0] == '\\' && c[1] == '-') {
			out[n++] = '-';
			c++;
		} else if (c[0] == '\\' && c[1] == 'f' && c[2]) {
			c += 2;
		} else
			out[n++] = *c;
	}
	out[n] = '\0';
}

/* The options a page's OPTIONS section lists: the tag line after each .TP. */
static void page_options(const char *plain, opt_set *set)
{
	const char *at = strstr(plain, "\n.SH OPTIONS\n");
	cr_assert(at, "the page has no OPTIONS section");
	const char *end = strstr(at + 1, "\n.SH ");
	for (const char *tp = strstr(at, "\n.TP\n"); tp && (!end || tp < end);
	     tp = strstr(tp + 1, "\n.TP\n")) {
		const char *tag = tp + 5;
		char line[256];
		size_t len = strcspn(tag, "\n");
		snprintf(line, sizeof line, "%.*s", (int)(len < 255 ? len : 255), tag);
		opt_scan(line, set);
	}
}

/* Run prog --help, its standard output in a static buffer. */
static const char *help_text(const char *prog)
{
	char path[1024], dir[512], out[1024];
	test_tmpdir(dir, sizeof dir);
	snprintf(out, sizeof out, "%s/help.txt", dir);
	char *const argv[] = {(char *)test_bin(prog, path, sizeof path), "--help", NULL};
	test_proc p;
	cr_assert_eq(test_spawn(&p, argv, NULL, 0, 1, NULL), 0, "cannot run %s", path);
	FILE *f = fopen(out, "w");
	cr_assert(f);
	char buf[4096];
	ssize_t k;
	while ((k = read(p.out, buf, sizeof buf)) > 0)
		fwrite(buf, 1, (size_t)k, f);
	fclose(f);
	close(p.out);
	int st = test_wait(&p, 10000);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s --help: status %d", prog, st);
	return test_read_file(NULL, out);
}

static void check_page(const char *prog, const char *page)
{
	static char plain[1 << 17];
	char path[1024];
	opt_set help = {0}, all = {0}, listed = {0};

	opt_scan(help_text(prog), &help);
	cr_assert_gt(help.n, 0, "%s --help names no option", prog);
	roff_plain(test_read_file(NULL, test_root_path(page, path, sizeof path)), plain, sizeof plain);
	cr_assert(plain[0], "%s is missing or empty", page);
	opt_scan(plain, &all);
	page_options(plain, &listed);
	for (int i = 0; i < help.n; i++)
		cr_expect(opt_has(&all, help.name[i]), "%s --help has %s, %s does not", prog,
			  help.name[i], page);
	for (int i = 0; i < listed.n; i++)
		cr_expect(opt_has(&help, listed.name[i]), "%s lists %s, %s --help does not", page,
			  listed.name[i], prog);
}

Test(docs_man, bot_options_agree) { check_page("kimble-bot", "bot/kimble-bot.1"); }
Test(docs_man, relay_options_agree) { check_page("kimble-relay", "bot/relay/kimble-relay.1"); }
Test(docs_man, server_options_agree) { check_page("kimble-server", "judge/server/kimble-server.1"); }
Test(docs_man, judge_options_agree) { check_page("kimble-judge", "judge/kimble-judge.1"); }
Test(docs_man, state_options_agree) { check_page("kimble-state", "state/kimble-state.1"); }
Test(docs_man, tune_options_agree) { check_page("kimble-tune", "bot/tune/kimble-tune.1"); }

/* man --warnings renders each page without a word on standard error. */
Test(docs_man, pages_render_without_warnings)
{
	static const char *const pages[] = {"bot/kimble-bot.1", "bot/relay/kimble-relay.1",
					    "bot/tune/kimble-tune.1", "judge/server/kimble-server.1",
					    "judge/kimble-judge.1", "judge/kimble-files.5",
					    "state/kimble-state.1"};
	char dir[512], err[1024], path[1024];
	test_tmpdir(dir, sizeof dir);
	setenv("MANWIDTH", "80", 1);
	for (size_t i = 0; i < sizeof pages / sizeof pages[0]; i++) {
		snprintf(err, sizeof err, "%s/man-%zu.err", dir, i);
		char *const argv[] = {"/usr/bin/man", "--warnings", "-l",
				      (char *)test_root_path(pages[i], path, sizeof path), NULL};
		test_proc p;
		cr_assert_eq(test_spawn(&p, argv, dir, 0, 0, err), 0, "cannot run man");
		int st = test_wait(&p, 30000);
		cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "man -l %s: status %d", pages[i], st);
		cr_expect_str_empty(test_read_file(NULL, err), "man --warnings -l %s", pages[i]);
	}
}

/* ---- docs_run ------------------------------------------------------------ */

static void run_doc(const char *doc)
{
	char script[1024], dir[512], err[1024];
	test_tmpdir(dir, sizeof dir);
	snprintf(err, sizeof err, "%s/doc.err", dir);
	char *const argv[] = {"/bin/bash", (char *)test_root_path("tests/doc-commands.sh", script,
								   sizeof script),
			      (char *)doc, NULL};
	test_proc p;
	cr_assert_eq(test_spawn(&p, argv, NULL, 0, 0, err), 0);
	int st = test_wait(&p, 600000);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status %d\n%s", doc, st,
		  test_read_file(NULL, err));
}

Test(docs_run, readme, .timeout = 600) { run_doc("README.md"); }
Test(docs_run, tutorial, .timeout = 600) { run_doc("docs/tutorial.md"); }
Test(docs_run, bot_page, .timeout = 600) { run_doc("bot/kimble-bot.1"); }
Test(docs_run, relay_page, .timeout = 600) { run_doc("bot/relay/kimble-relay.1"); }
Test(docs_run, server_page, .timeout = 600) { run_doc("judge/server/kimble-server.1"); }
Test(docs_run, judge_page, .timeout = 600) { run_doc("judge/kimble-judge.1"); }
Test(docs_run, state_page, .timeout = 600) { run_doc("state/kimble-state.1"); }
Test(docs_run, tune_page, .timeout = 600) { run_doc("bot/tune/kimble-tune.1"); }

/* ---- docs_repo ----------------------------------------------------------- */

/* grep over the checkout (build output and git data aside); 1 = no match. */
static int grep_repo(const char *includes, const char *pattern, const char *out)
{
	char root[1024], cmd[4096];
	test_root_path("", root, sizeof root);
	snprintf(cmd, sizeof cmd,
		 "grep -rnIE --exclude-dir=build --exclude-dir=.git --exclude-dir=bin %s -e '%s' '%s' > '%s'",
		 includes, pattern, root, out);
	char *const argv[] = {"/bin/sh", "-c", cmd, NULL};
	return test_run_status(argv, NULL, NULL, 60000);
}

/* A clone is all a user has: no document or program refers to the
 * specification's old home beside the project. */
Test(docs_repo, nothing_refers_outside_the_clone, .timeout = 60)
{
	char dir[512], out[1024];
	test_tmpdir(dir, sizeof dir);
	snprintf(out, sizeof out, "%s/hits.txt", dir);
	cr_expect_eq(grep_repo("--include=*.md --include=*.1 --include=*.5", "share[d]/", out), 1,
		     "documents naming a shared/ folder:\n%s", test_read_file(NULL, out));
	cr_expect_eq(grep_repo("", "KIMBLE[.]md|[.][.]/share[d]|/work/share[d]", out), 1,
		     "files citing a specification a clone does not have:\n%s",
		     test_read_file(NULL, out));
}

Test(docs_repo, readme_reads_in_five_minutes)
{
	char path[1024];
	FILE *f = fopen(test_root_path("README.md", path, sizeof path), "r");
	cr_assert(f, "no README.md");
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fclose(f);
	cr_expect_leq(size, 12 * 1024, "README.md is %ld bytes, at most 12 KiB", size);
}
