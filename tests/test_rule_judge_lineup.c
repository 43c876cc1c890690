/* test_rule_judge_lineup.c - the judge checks each bot's start message
 * against the lineup as its own seat sees it (docs/spec.md: the opponents
 * in turn order after it), in every seat: an outside reviewer's bug that
 * checked every seat against seat A's view went unseen while only seat A
 * was tested (judge_rules::lineup_checked_digit_by_digit). */
#include <criterion/criterion.h>
#include <stdio.h>

#include "judge/bots.h"
#include "judge/match.h"
#include "support.h"

/* A bot that sends start and then reads its input to the end. */
static void shell_bot(const char *start, kj_bot *bot)
{
	char dir[256], path[400];
	kb_err err;
	FILE *f;

	test_tmpdir(dir, sizeof dir);
	snprintf(path, sizeof path, "%s/bot.sh", dir);
	cr_assert_not_null(f = fopen(path, "w"));
	fprintf(f, "echo %s\nexec cat >/dev/null\n", start);
	fclose(f);
	snprintf(path, sizeof path, "%s/meta", dir);
	cr_assert_not_null(f = fopen(path, "w"));
	fprintf(f, "sh-%s\n/bin/sh\nbot.sh\n0\n", start);
	fclose(f);
	cr_assert_eq(kj_bot_load(dir, bot, &err), 0, "%s", err.msg);
}

/* Seats A easy, B a bot, C empty, D hard: B sees C, D, A (none, hard,
 * easy: 021); D sees A, B, C (easy, a process, none: 120). */
Test(judge_rules, lineup_checked_from_each_seats_view, .timeout = 60)
{
	static const struct {
		const char *b_start, *d_start;
		int b_ok, d_ok;
	} cases[] = {{"v001021", "v001120", 1, 1},
		     {"v001202", "v001120", 0, 1},  /* A's view in seat B */
		     {"v001021", "v001202", 1, 0},  /* A's view in seat D */
		     {"v001022", "v001121", 0, 0}}; /* one digit off each */
	kj_bot easy, hard;
	kb_err err;

	cr_assert_eq(kj_bot_resolve("easy", NULL, &easy, &err), 0, "%s", err.msg);
	cr_assert_eq(kj_bot_resolve("hard", NULL, &hard, &err), 0, "%s", err.msg);
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		kj_bot b, d;
		kj_result res;
		shell_bot(cases[k].b_start, &b);
		shell_bot(cases[k].d_start, &d);
		const kj_bot *seats[KB_SEATS] = {&easy, &b, NULL, &d};
		kj_match_opts opt = {.move_ms = 100, .startup_ms = 5000, .grace_ms = 100};
		cr_assert_eq(kj_match_play(seats, 5, &opt, NULL, &res, &err), 0, "%s", err.msg);
		cr_assert_eq(res.seat[1].lineup_ok, cases[k].b_ok, "B sent %s", cases[k].b_start);
		cr_assert_eq(res.seat[3].lineup_ok, cases[k].d_ok, "D sent %s", cases[k].d_start);
		cr_assert_eq(res.seat[0].lineup_ok, 1, "built-ins always match");
	}
}
