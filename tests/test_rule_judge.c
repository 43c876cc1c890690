/* test_rule_judge.c - the judge's forfeit rule on its own (found by make
 * mutate, docs/mutation.md): a bot gets the decision line again for up to
 * max_errors illegal indices or wrong tokens and forfeits at the next one,
 * not one earlier. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/err.h"
#include "core/transcript.h"
#include "judge/bots.h"
#include "judge/match.h"
#include "judge/report.h"
#include "judge/run.h"
#include "judge/shard.h"
#include "judge/svg.h"
#include "support.h"
#include "support_run.h"

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

/* "illegal" answers every decision with an illegal index, "token" with a
 * wrong token. */
Test(judge_rules, forfeit_after_max_errors_retries, .timeout = 60)
{
	static const struct {
		const char *mode;
		int reason, max;
	} cases[] = {{"illegal", KJ_ILLEGAL, 0}, {"illegal", KJ_ILLEGAL, 3}, {"token", KJ_TOKEN, 2}};
	kj_bot bot;
	kj_result res;

	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		int max = cases[k].max;
		testbot_in(cases[k].mode, &bot);
		play_against_hard(&bot, max, &res);
		cr_assert_eq(res.seat[0].reason, cases[k].reason, "%s, max_errors %d: %s", cases[k].mode, max,
			     kj_reason_name(res.seat[0].reason));
		cr_assert_eq(res.seat[0].errors, max + 1, "%s, max_errors %d: forfeited after %d",
			     cases[k].mode, max, res.seat[0].errors);
		cr_assert_eq(res.seat[0].place, 4, "a forfeiting bot comes last");
		cr_assert_neq(res.winner, 0);
	}
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

/* ---- the report's statistics, with figures worked out by hand ---------- */

#define NEAR(a, b) (fabs((a) - (b)) < 1e-6)

Test(judge_rules, wilson_interval)
{
	double lo, hi;

	kj_wilson(5, 10, &lo, &hi);
	cr_assert(NEAR(lo, 0.236593089) && NEAR(hi, 0.763406911), "%f %f", lo, hi);
	kj_wilson(0, 10, &lo, &hi);
	cr_assert(NEAR(lo, 0) && NEAR(hi, 0.277532803), "%f %f", lo, hi);
	kj_wilson(10, 10, &lo, &hi);
	cr_assert(NEAR(lo, 0.722467197) && NEAR(hi, 1), "%f %f", lo, hi);
	kj_wilson(3, 40, &lo, &hi);
	cr_assert(NEAR(lo, 0.025836026) && NEAR(hi, 0.198642337), "%f %f", lo, hi);
	kj_wilson(0, 0, &lo, &hi);
	cr_assert(lo == 0 && hi == 1, "no games: anything");
}

Test(judge_rules, elo_of_a_score)
{
	cr_assert(NEAR(kj_elo(0.5), 0));
	cr_assert(NEAR(kj_elo(0.75), 190.848501888), "%f", kj_elo(0.75));
	cr_assert(NEAR(kj_elo(0.25), -190.848501888));
	cr_assert_eq(kj_elo(0), -1000);
	cr_assert_eq(kj_elo(1), 1000);
	cr_assert_eq(kj_elo(1e-9), -1000, "clamped");
	cr_assert_eq(kj_elo(1 - 1e-9), 1000, "clamped");
}

Test(judge_rules, sprt_bounds_and_verdicts)
{
	kj_sprt s = {.elo0 = 0, .elo1 = 50, .alpha = 0.05, .beta = 0.1};
	kj_pair_elo p = {.deals = 100, .mean = 0.6, .var = 0.04};

	kj_sprt_init(&s);
	cr_assert(NEAR(s.lower, -2.251291799) && NEAR(s.upper, 2.890371758), "%f %f", s.lower, s.upper);
	cr_assert_eq(s.decided, 0);
	kj_sprt_update(&s, &p);
	cr_assert(NEAR(s.llr, 10.606744083), "%f", s.llr);
	cr_assert_eq(s.decided, 1);
	cr_assert_eq(s.deals, 100);
	p.mean = 0.45;
	kj_sprt_update(&s, &p);
	cr_assert(NEAR(s.llr, -14.148977082), "%f", s.llr);
	cr_assert_eq(s.decided, -1);
	p = (kj_pair_elo){.deals = 20, .mean = 0.55, .var = 0.04};
	kj_sprt_update(&s, &p);
	cr_assert(NEAR(s.llr, 0.372259489), "%f", s.llr);
	cr_assert_eq(s.decided, 0);
	p = (kj_pair_elo){.deals = 8, .mean = 0.6, .var = 0.04};
	kj_sprt_update(&s, &p);
	cr_assert(NEAR(s.llr, 0.518164665), "8 deals are enough for a ratio: %f", s.llr);
	kj_sprt s2 = {.elo0 = 0, .elo1 = 50, .alpha = 0.05, .beta = 0.1};
	kj_sprt_init(&s2);
	p = (kj_pair_elo){.deals = 7, .mean = 1, .var = 0};
	kj_sprt_update(&s2, &p);
	cr_assert_eq(s2.decided, 0, "no verdict before 8 deals");
	cr_assert_eq(s2.llr, 0);
	cr_assert_eq(s2.deals, 7);
}

static void seat(kj_result *r, int s, const char *name, int place)
{
	r->seat[s].present = 1;
	snprintf(r->seat[s].name, sizeof r->seat[s].name, "%s", name);
	r->seat[s].place = place;
}

/* Deal 0: x ahead, then level (score 0.75); deal 1: x behind, then ahead
 * (0.5); a game without y does not count. */
Test(judge_rules, pair_scores_by_deal)
{
	kj_result res[5];
	kj_pair_elo p;

	memset(res, 0, sizeof res);
	res[0].deal = 0, seat(&res[0], 0, "x", 1), seat(&res[0], 2, "y", 2);
	res[1].deal = 0, seat(&res[1], 1, "y", 3), seat(&res[1], 3, "x", 3);
	res[2].deal = 1, seat(&res[2], 0, "x", 4), seat(&res[2], 1, "y", 1);
	res[3].deal = 1, seat(&res[3], 2, "x", 2), seat(&res[3], 3, "y", 3);
	res[4].deal = 1, seat(&res[4], 0, "x", 1), seat(&res[4], 1, "z", 2);
	kj_pair_compute(res, 5, "x", "y", &p);
	cr_assert_eq(p.deals, 2);
	cr_assert(NEAR(p.mean, 0.625), "%f", p.mean);
	cr_assert(NEAR(p.var, 0.03125), "sample variance of the deal scores: %f", p.var);
	cr_assert(NEAR(p.elo, 88.739499847), "%f", p.elo);
	cr_assert(NEAR(p.lo, -85.039919121) && NEAR(p.hi, 330.223448378), "%f %f", p.lo, p.hi);
	kj_pair_compute(res, 5, "y", "x", &p);
	cr_assert(NEAR(p.mean, 0.375), "%f", p.mean);
	kj_pair_compute(res, 5, "x", "w", &p);
	cr_assert_eq(p.deals, 0);
	cr_assert(NEAR(p.mean, 0.5));
}

/* Per bot: games, wins (a forfeiting winner's seat does not count), place
 * sum, forfeits by reason. */
Test(judge_rules, report_counts_per_bot)
{
	kj_result res[3];
	kj_report rep;
	kb_err err;

	memset(res, 0, sizeof res);
	seat(&res[0], 0, "x", 1), seat(&res[0], 1, "y", 2);
	res[0].winner = 0;
	seat(&res[1], 0, "y", 1), seat(&res[1], 1, "x", 2);
	res[1].winner = 0;
	seat(&res[2], 0, "x", 2), seat(&res[2], 1, "y", 1);
	res[2].winner = 0;
	res[2].seat[0].reason = KJ_CRASH;
	res[2].seat[1].decisions = 5;
	cr_assert_eq(kj_report_build(&rep, res, 3, 0, &err), 0, "%s", err.msg);
	cr_assert_eq(rep.games, 3);
	cr_assert_eq(rep.nbots, 2);
	cr_assert_str_eq(rep.bots[0].name, "x");
	cr_assert_eq(rep.bots[0].games, 3);
	cr_assert_eq(rep.bots[0].wins, 1, "the crashed winner's seat is no win");
	cr_assert_eq(rep.bots[0].place_sum, 5);
	cr_assert_eq(rep.bots[0].forfeits[KJ_CRASH], 1);
	cr_assert_eq(rep.bots[1].wins, 1);
	cr_assert_eq(rep.bots[1].place_sum, 4);
	cr_assert_eq(rep.bots[1].decisions, 5);
	kj_report_free(&rep);
}

/* ---- command lines: each numeric option's bounds and exit status -------- */

Test(judge_rules, judge_options_out_of_range, .timeout = 60)
{
	static const struct {
		const char *opt, *below, *above, *range;
	} opts[] = {
		{"--table", "0", "5", "from 1 to 4"},
		{"--games", "0", "1000001", "from 1 to 1000000"},
		{"--concurrency", "0", "257", "from 1 to 256"},
		{"--move-ms", "0", "3600001", "from 1 to 3600000"},
		{"--startup-ms", "0", "3600001", "from 1 to 3600000"},
		{"--max-errors", "-1", "1001", "from 0 to 1000"},
		{"--max-timeouts", "-1", "1000001", "from 0 to 1000000"},
		{"--cpu-s", "-1", "1000001", "from 0 to 1000000"},
		{"--mem-mb", "-1", "1048577", "from 0 to 1048576"},
		{"--nofile", "-1", "1048577", "from 0 to 1048576"},
		{"--at", "0", "100000001", "from 1 to 100000000"},
	};
	const char *err;

	for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) {
		for (int k = 0; k < 2; k++) {
			const char *v = k ? opts[i].above : opts[i].below;
			const char *args[] = {opts[i].opt, v, "hard", "easy", NULL};
			cr_assert_eq(test_run_prog("kimble-judge", args, NULL, &err), KB_EXIT_USAGE, "%s %s: %s", opts[i].opt, v, err);
			char want[160];
			snprintf(want, sizeof want,
				 "kimble-judge: %s \"%s\": out of range; expected a whole number %s",
				 opts[i].opt, v, opts[i].range);
			cr_assert(strstr(err, want) != NULL, "want \"%s\", got: %s", want, err);
		}
	}
	const char *seed[] = {"--seed", "-1", "hard", NULL};
	cr_assert_eq(test_run_prog("kimble-judge", seed, NULL, &err), KB_EXIT_USAGE);
	cr_assert(strstr(err, "--seed \"-1\": out of range; expected an unsigned 64-bit decimal") != NULL, "%s", err);
	const char *fmt[] = {"--format", "swiss", "hard", NULL};
	cr_assert_eq(test_run_prog("kimble-judge", fmt, NULL, &err), KB_EXIT_USAGE);
	cr_assert(strstr(err, "--format \"swiss\": expected rr, gauntlet or fixed") != NULL, "%s", err);
}

Test(judge_rules, server_options_out_of_range, .timeout = 60)
{
	static const char *const bad[][3] = {
		{"--port", "0", "--port \"0\": out of range; expected a whole number from 1 to 65535"},
		{"--port", "65536", "--port \"65536\": out of range; expected a whole number from 1 to 65535"},
		{"--port-range", "65431-65430", "LAST is below FIRST"},
		{"--seed", "x1", "--seed \"x1\": malformed; expected an unsigned 64-bit decimal"},
		{"--token-ttl", "0", "--token-ttl \"0\": out of range; expected seconds from 0.001"},
		{"--token-ttl", "1000000001", "out of range; expected seconds from 0.001 to 1000000000"},
	};
	const char *err;

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		const char *args[] = {bad[i][0], bad[i][1], NULL};
		int st = test_run_prog("kimble-server", args, NULL, &err);
		cr_assert_eq(st, KB_EXIT_USAGE, "%s %s: status %d", bad[i][0], bad[i][1], st);
		cr_assert(strstr(err, bad[i][2]) != NULL, "want \"%s\", got: %s", bad[i][2], err);
	}
}

Test(judge_rules, sprt_arguments_checked, .timeout = 60)
{
	static const char *const bad[] = {"5,0",          "5,5",          "0,5,0.5,0.05", "0,5,0.05,0.5",
					  "0,5,0,0.05",   "0,5,0.05,0",   "0,5,0.05",     "x",
					  "0,5,-0.1,0.05", "0,5,0.05,-0.1"};
	const char *err;

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		const char *args[] = {"--sprt", bad[i], "-o", "out", "hard", "easy", NULL};
		cr_assert_eq(test_run_prog("kimble-judge", args, NULL, &err), KB_EXIT_USAGE, "--sprt %s: %s", bad[i], err);
		char want[128];
		snprintf(want, sizeof want, "--sprt \"%s\": expected ELO0,ELO1[,ALPHA,BETA]", bad[i]);
		cr_assert(strstr(err, want) != NULL, "want \"%s\", got: %s", want, err);
	}
	const char *three[] = {"--sprt", "0,5", "-o", "out", "hard", "easy", "random", NULL};
	cr_assert_eq(test_run_prog("kimble-judge", three, NULL, &err), KB_EXIT_USAGE);
	cr_assert(strstr(err, "--sprt: expected exactly two bots, got 3") != NULL, "%s", err);
}

/* A bot whose start message is wrong in any one digit, the last one
 * included, is recorded with a bad lineup. */
Test(judge_rules, lineup_checked_digit_by_digit, .timeout = 60)
{
	static const char *const starts[] = {"v001222", "v001122", "v001212", "v001221"};
	kj_bot hard;
	kb_err err;

	cr_assert_eq(kj_bot_resolve("hard", NULL, &hard, &err), 0, "%s", err.msg);
	for (int k = 0; k < 4; k++) {
		char dir[256], path[400];
		kj_bot bot;
		kj_result res;

		test_tmpdir(dir, sizeof dir);
		snprintf(path, sizeof path, "%s/bot.sh", dir);
		FILE *f = fopen(path, "w");
		cr_assert_not_null(f);
		fprintf(f, "echo %s\nexec cat >/dev/null\n", starts[k]);
		fclose(f);
		snprintf(path, sizeof path, "%s/meta", dir);
		f = fopen(path, "w");
		fprintf(f, "sh%d\n/bin/sh\nbot.sh\n0\n", k);
		fclose(f);
		cr_assert_eq(kj_bot_load(dir, &bot, &err), 0, "%s", err.msg);
		const kj_bot *seats[KB_SEATS] = {&bot, &hard, &hard, &hard};
		kj_match_opts opt = {.move_ms = 100, .startup_ms = 5000, .max_errors = 0, .grace_ms = 100};
		cr_assert_eq(kj_match_play(seats, 5, &opt, NULL, &res, &err), 0, "%s", err.msg);
		cr_assert_eq(res.seat[0].lineup_ok, k == 0, "%s: lineup_ok %d", starts[k], res.seat[0].lineup_ok);
		cr_assert_eq(res.seat[1].lineup_ok, 1, "built-ins always match");
	}
}

/* A rerun against a transcript stops at the first roll the transcript
 * does not have, as at one that differs. */
Test(judge_rules, rerun_stops_past_the_transcript_end, .timeout = 60)
{
	kj_bot hard;
	kb_err err;
	kj_result res, again;
	char *buf = NULL;
	size_t len = 0;

	kj_bot bot;

	/* a process bot: the rerun is checked between its decisions */
	testbot_in("hard", &bot);
	cr_assert_eq(kj_bot_resolve("hard", NULL, &hard, &err), 0, "%s", err.msg);
	const kj_bot *seats[KB_SEATS] = {&bot, &hard, &hard, &hard};
	kj_match_opts opt = {.move_ms = 5000, .startup_ms = 5000, .grace_ms = 100};
	FILE *tx = open_memstream(&buf, &len);
	cr_assert_eq(kj_match_play(seats, 21, &opt, tx, &res, &err), 0, "%s", err.msg);
	fclose(tx);
	cr_assert_geq(res.winner, 0);

	kb_transcript expect;
	cr_assert_eq(kb_tx_parse(buf, len, &expect, &err), 0, "%s", err.msg);
	cr_assert_eq(expect.nrolls, res.rolls);
	opt.expect = &expect;
	cr_assert_eq(kj_match_play(seats, 21, &opt, NULL, &again, &err), 0, "%s", err.msg);
	cr_assert_eq(again.winner, res.winner, "the same game agrees");
	cr_assert_eq(again.rolls, res.rolls);
	expect.nrolls = 10;
	cr_assert_eq(kj_match_play(seats, 21, &opt, NULL, &again, &err), 0, "%s", err.msg);
	cr_assert_eq(again.winner, -1, "unfinished: the transcript ended");
	cr_assert_lt(again.rolls, res.rolls, "stopped early, at roll %u", again.rolls);
	kb_tx_free(&expect);
	free(buf);
}

/* Every bot gets "Voittaja: X" from its own point of view (itself A). */
Test(judge_rules, winner_line_rotated_to_each_bot, .timeout = 60)
{
	char dir[256], path[400], prog[512];
	kj_bot hard, bot;
	kb_err err;
	kj_result res;

	test_tmpdir(dir, sizeof dir);
	test_root_path("build/rel/testbots/testbot", prog, sizeof prog);
	snprintf(path, sizeof path, "%s/bot.sh", dir);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fprintf(f, "tee in.txt | %s hard \"$@\"\n", prog);
	fclose(f);
	snprintf(path, sizeof path, "%s/meta", dir);
	f = fopen(path, "w");
	fprintf(f, "teebot\n/bin/sh\nbot.sh\n0\n");
	fclose(f);
	cr_assert_eq(kj_bot_load(dir, &bot, &err), 0, "%s", err.msg);
	cr_assert_eq(kj_bot_resolve("hard", NULL, &hard, &err), 0, "%s", err.msg);
	for (int s = 1; s < KB_SEATS; s += 2) {
		const kj_bot *seats[KB_SEATS] = {&hard, &hard, &hard, &hard};
		seats[s] = &bot;
		kj_match_opts opt = {.move_ms = 5000, .startup_ms = 5000, .grace_ms = 2000};
		cr_assert_eq(kj_match_play(seats, 3 + (uint64_t)s, &opt, NULL, &res, &err), 0, "%s", err.msg);
		cr_assert_eq(res.seat[s].reason, KJ_OK, "%s", kj_reason_name(res.seat[s].reason));
		cr_assert_geq(res.winner, 0);
		char want[16];
		snprintf(want, sizeof want, "Voittaja: %c\n", 'A' + (res.winner - s + 4) % 4);
		const char *in = test_read_file(dir, "in.txt");
		cr_assert(strstr(in, want) != NULL, "seat %d, winner %d: want %s in ...%s", s, res.winner,
			  want, in + (strlen(in) > 80 ? strlen(in) - 80 : 0));
	}
}

/* Merging shards that hold no finished game yet gives an empty report,
 * not an error; a shard folder that is missing is an error. */
Test(judge_rules, merge_of_empty_shards, .timeout = 30)
{
	char dir[256], shard[300], out[300], games[320];
	kb_err err;

	test_tmpdir(dir, sizeof dir);
	snprintf(shard, sizeof shard, "%s/shard", dir);
	snprintf(games, sizeof games, "%s/games", shard);
	snprintf(out, sizeof out, "%s/out", dir);
	cr_assert_eq(mkdir(shard, 0755), 0);
	cr_assert_eq(mkdir(games, 0755), 0);
	const char *dirs[] = {shard};
	err.msg[0] = '\0';
	cr_assert_eq(kj_merge(out, dirs, 1, 0, &err), 0, "%s", err.msg);
	cr_assert(strstr(test_read_file(out, "results.txt"), "games") != NULL || access(out, F_OK) == 0);
	const char *missing[] = {out, "/nonexistent-kimble-shard"};
	cr_assert_eq(kj_merge(out, missing, 2, 0, &err), -1);
	cr_assert(strstr(err.msg, "/nonexistent-kimble-shard/games") != NULL, "%s", err.msg);
}

/* ---- result files, start files, pairs in the report, replay --at ---------- */

Test(judge_rules, result_round_trip_every_winner)
{
	for (int w = -1; w < KB_SEATS; w++) {
		kj_result res, back;
		uint32_t game = 0;
		kb_err err;
		char *buf = NULL;
		size_t len = 0;

		memset(&res, 0, sizeof res);
		res.seed = 0x1234567890ull, res.rolls = 321, res.winner = w;
		for (int s = 0; s < KB_SEATS; s++) {
			kj_seat_result *r = &res.seat[s];
			r->present = s != 2;
			if (!r->present)
				continue;
			snprintf(r->name, sizeof r->name, "bot%d", s);
			r->place = s + 1, r->score = 10 * s, r->errors = s, r->lineup_ok = s & 1;
			r->reason = s == 3 ? KJ_TIMEOUT : KJ_OK;
			r->decisions = 7u * (uint32_t)s;
			snprintf(r->fingerprint, sizeof r->fingerprint, "%s", "-");
		}
		FILE *f = open_memstream(&buf, &len);
		cr_assert_eq(kj_result_write(f, 42, &res), 0);
		fclose(f);
		f = fmemopen(buf, len, "r");
		cr_assert_eq(kj_result_read(f, &game, &back, &err), 0, "winner %d: %s\n%s", w, err.msg, buf);
		fclose(f);
		cr_assert_eq(game, 42);
		cr_assert_eq(back.winner, w, "%s", buf);
		cr_assert_eq(back.rolls, 321);
		cr_assert_eq(back.seed, res.seed);
		cr_assert_eq(back.seat[2].present, 0);
		cr_assert_str_eq(back.seat[3].name, "bot3");
		cr_assert_eq(back.seat[3].reason, KJ_TIMEOUT);
		cr_assert_eq(back.seat[3].errors, 3);
		cr_assert_eq(back.seat[1].lineup_ok, 1);
		cr_assert_eq(back.seat[3].decisions, 21);
		free(buf);
	}
}

/* A start board that is not a sound position is refused with the board
 * parser's own reason, naming the file and line. */
Test(judge_rules, start_file_errors_say_why)
{
	char dir[256], path[300];
	kj_start *starts;
	kb_err err;

	test_tmpdir(dir, sizeof dir);
	snprintf(path, sizeof path, "%s/starts", dir);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	/* five pieces of seat A on the board */
	char board[KB_BOARD_LEN + 1];
	memset(board, '0', KB_BOARD_LEN);
	memset(board, 'A', 5);
	board[KB_BOARD_LEN] = '\0';
	fprintf(f, "# comment\n\n%s A 6\n", board);
	fclose(f);
	err.msg[0] = '\0';
	cr_assert_eq(kj_starts_read(path, 0xf, &starts, &err), -1);
	kb_pos pos;
	kb_err perr;
	cr_assert_neq(kb_board_parse(board, KB_BOARD_LEN, 0xf, &pos, &perr), 0);
	cr_assert(strstr(err.msg, perr.msg) != NULL, "want \"%s\" in: %s", perr.msg, err.msg);
	cr_assert(strstr(err.msg, ":3") != NULL, "the line: %s", err.msg);
}

/* The report holds one Elo pair per two bots that met in a deal. */
Test(judge_rules, report_pairs_bots_that_met)
{
	kj_result res[2];
	kj_report rep;
	kb_err err;

	memset(res, 0, sizeof res);
	seat(&res[0], 0, "x", 1), seat(&res[0], 1, "y", 2);
	seat(&res[1], 0, "y", 1), seat(&res[1], 1, "x", 1);
	res[1].deal = 1;
	cr_assert_eq(kj_report_build(&rep, res, 2, 0, &err), 0, "%s", err.msg);
	cr_assert_eq(rep.npairs, 1);
	cr_assert_eq(rep.pairs[0].a, 0);
	cr_assert_eq(rep.pairs[0].b, 1);
	cr_assert_eq(rep.pairs[0].deals, 2);
	cr_assert(NEAR(rep.pairs[0].mean, 0.75), "%f", rep.pairs[0].mean);
	kj_report_free(&rep);
}

static const char *printed(const kj_report *rep, int timing, int json)
{
	static char *buf;
	size_t len;

	free(buf);
	buf = NULL;
	FILE *f = open_memstream(&buf, &len);
	if (json)
		kj_report_json(f, rep, NULL, 99);
	else
		kj_report_print(f, rep, timing);
	fclose(f);
	return buf;
}

/* The table and the JSON show each bot's counts, mean place and timing. */
Test(judge_rules, report_table_and_json)
{
	kj_result res[3];
	kj_report rep;
	kb_err err;

	memset(res, 0, sizeof res);
	seat(&res[0], 0, "x", 1), seat(&res[0], 1, "y", 2);
	seat(&res[1], 0, "y", 1), seat(&res[1], 1, "x", 2);
	seat(&res[2], 0, "x", 2), seat(&res[2], 1, "y", 1);
	res[0].winner = res[1].winner = res[2].winner = 0;
	res[2].seat[0].reason = KJ_CRASH;
	res[0].seat[0].decisions = 4, res[0].seat[0].ms_total = 10, res[0].seat[0].ms_max = 7;
	res[1].deal = 1, res[2].deal = 2;
	cr_assert_eq(kj_report_build(&rep, res, 3, 0, &err), 0, "%s", err.msg);

	const char *t = printed(&rep, 1, 0);
	cr_assert(strstr(t, "mean ms    max ms\n") != NULL, "%s", t);
	cr_assert(strstr(t, "\nx                     3      1   33.3% [") != NULL, "%s", t);
	cr_assert(strstr(t, "]   1.67  crash:1") != NULL, "mean place 5/3: %s", t);
	cr_assert(strstr(t, "     2.500     7.000\n") != NULL, "timing: %s", t);
	cr_assert(strstr(t, "\nelo x - y: ") != NULL, "%s", t);
	cr_assert(strstr(t, "from 3 deals") != NULL, "%s", t);
	t = printed(&rep, 0, 0);
	cr_assert_null(strstr(t, "mean ms"), "no timing columns: %s", t);
	cr_assert_null(strstr(t, "2.500"), "%s", t);

	const char *j = printed(&rep, 0, 1);
	cr_assert(strstr(j, "\"seed\": 99,\n  \"games\": 3,") != NULL, "%s", j);
	cr_assert(strstr(j, "{\"name\": \"x\", \"games\": 3, \"wins\": 1, \"win_rate\": 0.3333") != NULL, "%s", j);
	cr_assert(strstr(j, "\"avg_place\": 1.6667") != NULL, "%s", j);
	cr_assert(strstr(j, "\"mean_ms\": 2.500, \"max_ms\": 7.000") != NULL, "%s", j);
	cr_assert(strstr(j, "\"crash\": 1") != NULL, "%s", j);
	cr_assert(strstr(j, "{\"a\": \"x\", \"b\": \"y\", \"deals\": 3") != NULL, "%s", j);
	kj_report_free(&rep);
}

/* The fixed format's round lines: a bot that forfeits never wins, even
 * when its seat (played on by hard) comes first. */
Test(judge_rules, round_lines_count_no_forfeit_as_a_win, .timeout = 120)
{
	kj_bot crash;
	const char *out, *err;

	testbot_in("crash", &crash);
	const char *args[] = {"-f", "fixed", "-g", "6", "-j", "2", "-q", "--no-timing", crash.dir, "hard",
			      NULL};
	cr_assert_eq(test_run_prog("kimble-judge", args, &out, &err), 0, "%s", err);
	int rounds = 0, seat_won = 0;
	for (const char *l = strstr(out, "round "); l; l = strstr(l + 1, "\nround ")) {
		rounds++;
		cr_assert(strncmp(strstr(l, ":"), ":  crash wins 0/2 place 2.00 (total 0.0%)  hard wins ", 52) == 0,
			  "round line: %.200s", l);
		/* hard won fewer than both: the crashed bot's seat won one */
		seat_won += strncmp(strstr(l, "hard wins ") + 10, "2/2", 3) != 0;
	}
	cr_assert_eq(rounds, 6, "%s", out);
	cr_assert_gt(seat_won, 0, "no game won by a forfeited seat: the rule went untested\n%s", out);
}

/* ---- the SVG picture: each board index in its cell (28 px cells) ------------ */

static const char *svg_of(const char board[KB_BOARD_LEN], int seat, int die, unsigned present)
{
	static char *buf;
	size_t len;

	free(buf);
	buf = NULL;
	FILE *f = open_memstream(&buf, &len);
	kb_svg_board(f, board, seat, die, present);
	fclose(f);
	return buf;
}

Test(judge_rules, svg_cells_of_the_board)
{
	/* ring corners and edges, and each goal's first and last square: grid
	 * cell (row, col) of the 16 x 16 board, 28 px a cell, 16 px margin */
	static const int cells[][3] = {
		{0, 4, 4},   {7, 4, 11},  {8, 5, 11},   {13, 10, 11}, {14, 11, 11}, {21, 11, 4},
		{22, 10, 4}, {27, 5, 4},  {28, 3, 3},   {31, 0, 0},   {32, 3, 12},  {35, 0, 15},
		{36, 12, 12}, {39, 15, 15}, {40, 12, 3}, {43, 15, 0}};
	char b[KB_BOARD_LEN], want[200];

	for (size_t k = 0; k < sizeof cells / sizeof cells[0]; k++) {
		int idx = cells[k][0], cx = 16 + cells[k][2] * 28 + 14, cy = 16 + cells[k][1] * 28 + 14;
		memset(b, '0', sizeof b);
		b[idx] = 'C';
		const char *svg = svg_of(b, -1, 0, 0x5);
		snprintf(want, sizeof want, "<circle cx=\"%d\" cy=\"%d\" r=\"9\" fill=\"#2ca02c\"", cx, cy);
		cr_assert(strstr(svg, want) != NULL, "index %d: want %s", idx, want);
	}
	memset(b, '0', sizeof b);
	b[3] = 'A';
	const char *svg = svg_of(b, 3, 6, 0x9);
	cr_assert(strncmp(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"780\" height=\"480\"", 64) == 0,
		  "%.80s", svg);
}

/* Every program's --help: the usage on stdout, status 0. */
Test(judge_rules, help_of_every_program, .timeout = 60)
{
	static const char *const progs[] = {"kimble-judge", "kimble-server", "kimble-bot", "kimble-relay",
					    "kimble-state"};
	const char *out, *err;

	for (size_t i = 0; i < sizeof progs / sizeof progs[0]; i++) {
		const char *args[] = {"--help", NULL};
		cr_assert_eq(test_run_prog(progs[i], args, &out, &err), 0, "%s --help: %s", progs[i], err);
		cr_assert(strstr(out, progs[i]) != NULL, "%s --help: %.200s", progs[i], out);
		cr_assert_str_eq(err, "", "%s --help wrote to stderr", progs[i]);
	}
}

/* A bot's learned-state fingerprint: "-" when its state path does not
 * exist, 16 hex digits when it does. */
Test(judge_rules, fingerprint_of_the_state_path)
{
	char dir[256], path[400], fp[17];
	kj_bot bot;
	kb_err err;

	test_tmpdir(dir, sizeof dir);
	snprintf(path, sizeof path, "%s/meta", dir);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fprintf(f, "fp\n/bin/true\n\n0\nlearned\n");
	fclose(f);
	cr_assert_eq(kj_bot_load(dir, &bot, &err), 0, "%s", err.msg);
	kj_bot_fingerprint(&bot, fp);
	cr_assert_str_eq(fp, "-", "no state yet");
	snprintf(path, sizeof path, "%s/learned", dir);
	f = fopen(path, "w");
	fprintf(f, "something\n");
	fclose(f);
	kj_bot_fingerprint(&bot, fp);
	cr_assert_eq(strlen(fp), 16, "%s", fp);
	cr_assert_eq(strspn(fp, "0123456789abcdef"), 16, "%s", fp);
}
