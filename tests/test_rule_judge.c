/* test_rule_judge.c - the judge's forfeit rule on its own (found by make
 * mutate, docs/mutation.md): a bot gets the decision line again for up to
 * max_errors illegal indices or wrong tokens and forfeits at the next one,
 * not one earlier. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "judge/bots.h"
#include "judge/match.h"
#include "support.h"

/* A process bot running tests/bots/testbot in mode, in its own folder. */
static void testbot_in(const char *mode, kj_bot *bot)
{
	char dir[256], sub[300], path[400], prog[512];
	kb_err err;

	test_tmpdir(dir, sizeof dir);
	snprintf(sub, sizeof sub, "%s/%s", dir, mode);
	cr_assert_eq(mkdir(sub, 0755), 0);
	snprintf(path, sizeof path, "%s/meta", sub);
	test_root_path("build/rel/testbots/testbot", prog, sizeof prog);
	cr_assert(access(prog, X_OK) == 0, "%s missing: make build/rel/testbots/testbot", prog);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fprintf(f, "%s\n%s\n%s\n0\n", mode, prog, mode);
	fclose(f);
	cr_assert_eq(kj_bot_load(sub, bot, &err), 0, "%s", err.msg);
}

static void play_against_hard(const kj_bot *bot, int max_errors, kj_result *res)
{
	kj_bot hard;
	kb_err err;

	cr_assert_eq(kj_bot_resolve("hard", NULL, &hard, &err), 0, "%s", err.msg);
	const kj_bot *seats[KB_SEATS] = {bot, &hard, &hard, &hard};
	kj_match_opts opt = {.move_ms = 5000, .startup_ms = 5000, .max_errors = max_errors,
			     .grace_ms = 500, .timing = 0};
	cr_assert_eq(kj_match_play(seats, 77, &opt, NULL, res, &err), 0, "%s", err.msg);
}

/* "illegal" answers every decision with an illegal index. */
Test(judge_rules, illegal_index_forfeits_after_max_errors_retries, .timeout = 60)
{
	kj_bot bot;
	kj_result res;

	testbot_in("illegal", &bot);
	for (int max = 0; max <= 3; max += 3) {
		play_against_hard(&bot, max, &res);
		cr_assert_eq(res.seat[0].reason, KJ_ILLEGAL, "max_errors %d: %s", max,
			     kj_reason_name(res.seat[0].reason));
		cr_assert_eq(res.seat[0].errors, max + 1, "max_errors %d: forfeited after %d",
			     max, res.seat[0].errors);
		cr_assert_eq(res.seat[0].place, 4, "a forfeiting bot comes last");
		cr_assert_neq(res.winner, 0);
	}
}

/* "token" answers every decision with a wrong token. */
Test(judge_rules, wrong_token_forfeits_after_max_errors_retries, .timeout = 60)
{
	kj_bot bot;
	kj_result res;

	testbot_in("token", &bot);
	play_against_hard(&bot, 2, &res);
	cr_assert_eq(res.seat[0].reason, KJ_TOKEN, "%s", kj_reason_name(res.seat[0].reason));
	cr_assert_eq(res.seat[0].errors, 3);
	cr_assert_eq(res.seat[0].place, 4);
}

/* A bot that plays well keeps its seat and makes no errors. */
Test(judge_rules, a_good_bot_keeps_its_seat, .timeout = 60)
{
	kj_bot bot;
	kj_result res;

	testbot_in("hard", &bot);
	play_against_hard(&bot, 0, &res);
	cr_assert_eq(res.seat[0].reason, KJ_OK, "%s", kj_reason_name(res.seat[0].reason));
	cr_assert_eq(res.seat[0].errors, 0);
	cr_assert_gt(res.seat[0].decisions, 0);
	cr_assert(res.winner >= 0 && res.winner < 4);
	cr_assert_eq(res.seat[res.winner].place, 1);
}
