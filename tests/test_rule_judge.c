/* test_rule_judge.c - the judge's forfeit rule on its own (found by make
 * mutate, docs/mutation.md): a bot gets the decision line again for up to
 * max_errors illegal indices or wrong tokens and forfeits at the next one,
 * not one earlier. */
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/draw.h"
#include "core/err.h"
#include "core/rng.h"
#include "core/store.h"
#include "core/transcript.h"
#include "judge/botenv.h"
#include "judge/bots.h"
#include "judge/html.h"
#include "judge/match.h"
#include "judge/plan.h"
#include "judge/rating.h"
#include "judge/replay.h"
#include "judge/report.h"
#include "judge/standings.h"
#include "judge/run.h"
#include "judge/shard.h"
#include "judge/server/game.h"
#include "judge/server/limits.h"
#include "judge/svg.h"
#include "support.h"
#include "support_run.h"

/* A process bot running tests/bots/testbot in mode, in its own folder. */
/* The test stops unless want stands in page. */
static void has(const char *page, const char *want)
{
	cr_assert(strstr(page, want) != NULL, "want %s in:\n%s", want, page);
}

/* Writes text to file dir/name. */
static void put(const char *dir, const char *name, const char *text)
{
	char path[600];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	test_write_file(path, "%s", text);
}

/* Makes folder parent/name, its path in buf; returns buf. */
static const char *subdir(char *buf, size_t size, const char *parent, const char *name)
{
	snprintf(buf, size, "%s/%s", parent, name);
	cr_assert_eq(mkdir(buf, 0755), 0, "%s: %s", buf, strerror(errno));
	return buf;
}

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

/* The result of a game of the test bot in mode (seat A) against three
 * hard, no error forgiven. */
static void mode_against_hard(const char *mode, kj_result *res)
{
	kj_bot bot;

	testbot_in(mode, &bot);
	play_against_hard(&bot, 0, res);
}

/* kj_match_play's answer for a game seeded seed of the test bot in mode
 * (its folder's bot into bot) in seat A against the built-in hard in
 * seat B, with opt. */
static int versus_hard(const char *mode, kj_bot *bot, const kj_match_opts *opt, uint64_t seed,
		       kj_result *res, kb_err *err)
{
	kj_bot hard;

	testbot_in(mode, bot);
	cr_assert_eq(kj_bot_resolve("hard", NULL, &hard, err), 0, "%s", err->msg);
	const kj_bot *seats[KB_SEATS] = {bot, &hard, NULL, NULL};
	return kj_match_play(seats, seed, opt, NULL, res, err);
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

/* A bot that answers a decision with a line that is no move ("garbage")
 * forfeits for garbage, and the forfeit's detail says so, with the first
 * wrong byte of the line and what was expected there. */
Test(judge_rules, garbage_forfeit_says_the_line_was_not_a_move, .timeout = 60)
{
	kj_result res;

	mode_against_hard("garbage", &res);
	cr_assert_eq(res.seat[0].reason, KJ_GARBAGE, "%s", kj_reason_name(res.seat[0].reason));
	cr_assert_str_eq(res.seat[0].why, "sent a line that is not a move: byte 0 of the message is "
					  "'h': expected a start 'v001XYZ' or a token and piece index");
}

/* A wrong token is answered with the line "Virhe: tuntematon pelitoken"
 * (docs/spec.md, as the server would) and END, and nothing more: a shell
 * bot answers every decision with a wrong token and keeps the 32 bytes
 * after each of its first two answers; with max_errors 2 its third wrong
 * token forfeits it. */
Test(judge_rules, wrong_token_is_answered_with_the_virhe_line_and_end_only, .timeout = 60)
{
	static const char want[] = "Virhe: tuntematon pelitoken\nEND\n";
	char dir[256], sub[300], script[600], wrong[KB_TOKEN_LEN + 1];
	kj_bot bot, hard;
	kj_result res;
	kb_err err;

	memset(wrong, '0', KB_TOKEN_LEN);
	wrong[0] = 't', wrong[KB_TOKEN_LEN] = '\0';
	snprintf(script, sizeof script,
		 "echo v001000\n"
		 "while IFS= read -r l && [ \"$l\" != END ]; do :; done\n"
		 "echo %s0\n"
		 "head -c %zu > first && echo %s0\n"
		 "head -c %zu > second && echo %s0\n"
		 "exec cat > /dev/null\n", wrong, strlen(want), wrong, strlen(want), wrong);
	test_tmpdir(dir, sizeof dir);
	subdir(sub, sizeof sub, dir, "tok");
	put(sub, "meta", "tok\n/bin/sh\nbot.sh\n0\n");
	put(sub, "bot.sh", script);
	cr_assert_eq(kj_bot_load(sub, &bot, &err), 0, "%s", err.msg);
	cr_assert_eq(kj_bot_resolve("hard", NULL, &hard, &err), 0, "%s", err.msg);
	const kj_bot *seats[KB_SEATS] = {&bot, &hard, NULL, NULL};
	kj_match_opts opt = {.move_ms = 30000, .startup_ms = 30000, .max_errors = 2, .grace_ms = 500};
	cr_assert_eq(kj_match_play(seats, 7, &opt, NULL, &res, &err), 0, "%s", err.msg);
	cr_assert_eq(res.seat[0].reason, KJ_TOKEN, "%s: %s", kj_reason_name(res.seat[0].reason),
		     res.seat[0].why);
	cr_assert_eq(res.seat[0].errors, 3);
	cr_assert_str_eq(test_read_file(sub, "first"), want);
	const char *second = test_read_file(sub, "second");
	cr_assert(memcmp(second, want, sizeof want) == 0, "after the second: %.*s", (int)strlen(want),
		  second[0] ? second : "(a NUL first)");
}

/* In a -d game the judge says how it starts each process bot, on a line
 * of its own that begins with the bot's seat letter: here seat B,
 * "B start NAME in FOLDER: COMMAND ARGUMENTS OPPONENTS SEED". */
Test(judge_rules, debug_line_of_a_bots_start_names_its_seat, .timeout = 60)
{
	char dir[256], path[300], want[1200];
	kj_bot bot, hard;
	kj_result res;
	kb_err err;

	testbot_in("easy", &bot);
	cr_assert_eq(kj_bot_resolve("hard", NULL, &hard, &err), 0, "%s", err.msg);
	test_tmpdir(dir, sizeof dir);
	snprintf(path, sizeof path, "%s/debug", dir);
	const kj_bot *seats[KB_SEATS] = {&hard, &bot, NULL, NULL};
	kj_match_opts opt = {.move_ms = 30000, .startup_ms = 30000, .grace_ms = 500};
	cr_assert_not_null(opt.debug = fopen(path, "w"));
	cr_assert_eq(kj_match_play(seats, 7, &opt, NULL, &res, &err), 0, "%s", err.msg);
	fclose(opt.debug);
	snprintf(want, sizeof want, "\nB start easy in %s: %s easy ", bot.dir, bot.cmd);
	const char *said = test_read_file(NULL, path);
	cr_assert(strncmp(said, want + 1, strlen(want + 1)) == 0 || strstr(said, want), "want %s in:\n%s",
		  want + 1, said);
}

/* The forfeit for an illegal index names the legal ones: A's pieces on
 * 10, 8, 5 and 3 with a 2 to play may move 10 -> 12 and 5 -> 7 (pieces 0
 * and 2); 8 and 3 would land on A's own 10 and 5.  "illegal" answers the
 * highest illegal index, 3. */
Test(judge_rules, illegal_forfeit_names_the_legal_indices, .timeout = 60)
{
	kj_bot bot, hard;
	kj_result res;
	kb_err err;

	testbot_in("illegal", &bot);
	cr_assert_eq(kj_bot_resolve("hard", NULL, &hard, &err), 0, "%s", err.msg);
	const kj_bot *seats[KB_SEATS] = {&bot, &hard, &hard, &hard};
	kj_match_opts opt = {.move_ms = 5000, .startup_ms = 5000, .grace_ms = 500, .has_start = 1,
			     .start_turn = 0, .start_die = 2};
	cr_assert_eq(kb_board_parse("000A0A00A0A000000000000000000000000000000000", KB_BOARD_LEN, 0xf,
				    &opt.start, &err), 0, "%s", err.msg);
	cr_assert_eq(kj_match_play(seats, 5, &opt, NULL, &res, &err), 0, "%s", err.msg);
	cr_assert_eq(res.seat[0].reason, KJ_ILLEGAL, "%s", kj_reason_name(res.seat[0].reason));
	cr_assert_str_eq(res.seat[0].why, "index 3 refused; legal 0 2");
	cr_assert_eq(res.seat[0].forfeit_roll, 1);
}

/* After the game the judge drains what a bot still prints while it
 * finishes (saving what it learned, say): "farewell" prints 1 MiB, more
 * than the pipe holds, and only then leaves its file. */
Test(judge_rules, bot_output_after_the_game_is_drained, .timeout = 60)
{
	kj_bot bot;
	kj_result res;
	kb_err err;
	char path[1200];
	kj_match_opts opt = {.move_ms = 5000, .startup_ms = 5000, .grace_ms = 10000};

	cr_assert_eq(versus_hard("farewell", &bot, &opt, 4, &res, &err), 0, "%s", err.msg);
	cr_assert_eq(res.seat[0].reason, KJ_OK, "%s", kj_reason_name(res.seat[0].reason));
	snprintf(path, sizeof path, "%s/farewell.done", bot.dir);
	cr_assert_eq(access(path, F_OK), 0, "the bot was stopped before it finished: no %s", path);
}

/* A fixed lineup's round line is out as soon as its deal is over, not when
 * the run ends: deal 1 (one decision: A's last piece home from 27 with a
 * 1) is over while deal 2 (a whole solo game, 400 ms a decision) plays
 * on, so the line comes before game 2's result file exists. */
Test(judge_rules, round_line_out_while_the_run_goes_on, .timeout = 120)
{
	char dir[256], bots[300], sub[320], prog[512], bin[512], line[512], res[400];
	test_proc p;
	test_reader r;

	test_tmpdir(dir, sizeof dir);
	subdir(sub, sizeof sub, subdir(bots, sizeof bots, dir, "bots"), "slow");
	test_root_path("build/rel/testbots/testbot", prog, sizeof prog);
	char meta[700];
	snprintf(meta, sizeof meta, "slow\n%s\nslow\n0\n", prog);
	put(sub, "meta", meta);
	put(dir, "starts", "000000000000000000000000000A0AAA000000000000 A 1\n"
			   "00000000000000000000000000000000000000000000 A 6\n");
	char *argv[] = {(char *)test_bin("kimble-judge", bin, sizeof bin), "-q", "--no-timing", "--sandbox", "off",
			"-j2", "-f", "fixed", "-g", "2", "--starts", "starts", "--bots", "bots", "-o", "out",
			"slow", NULL};
	snprintf(res, sizeof res, "%s/judge.err", dir);
	cr_assert_eq(test_spawn(&p, argv, dir, 0, 1, res), 0);
	test_reader_init(&r, p.out);
	long n;
	while ((n = test_getline(&r, line, sizeof line, 60000)) >= 0 && strncmp(line, "round 1:", 8) != 0)
		;
	cr_assert_geq(n, 0, "no round line");
	snprintf(res, sizeof res, "%s/out/games/000001.res", dir);
	cr_assert_neq(access(res, F_OK), 0, "the round line of deal 1 came only after game 2 ended");
	test_kill(&p, SIGINT);
	test_wait(&p, 20000);
}

extern char **environ;

/* With no BOT words the judge plays every bot of its --bots folder, and
 * each still gets the judge's variables (botenv.h: KIMBLE_* by default):
 * the folder's names were once written over the words after argv's end,
 * the first entries of the environment (two of them for three bots), and
 * the bots went without them. */
Test(judge_rules, bots_folder_leaves_the_environment_whole, .timeout = 60)
{
	static char *judge_env[] = {"KIMBLE_FIRST=1", "KIMBLE_SECOND=2", "KIMBLE_THIRD=3", NULL};
	static const char *const names[] = {"a", "b", "c"};
	char dir[256], bots[300], sub[320], prog[512], bin[512], meta[700], errp[300];

	test_tmpdir(dir, sizeof dir);
	subdir(bots, sizeof bots, dir, "bots");
	test_root_path("build/rel/testbots/testbot", prog, sizeof prog);
	for (int i = 0; i < 3; i++) {
		snprintf(meta, sizeof meta, "%s\n%s\nenviron\n0\n", names[i], prog);
		put(subdir(sub, sizeof sub, bots, names[i]), "meta", meta);
	}
	char *argv[] = {(char *)test_bin("kimble-judge", bin, sizeof bin), "-q", "--no-timing", "--sandbox", "off",
			"-j1", "-g", "1", "--bots", "bots", "-o", "out", NULL};
	snprintf(errp, sizeof errp, "%s/judge.err", dir);
	environ = judge_env;
	cr_assert_eq(test_run_status(argv, dir, errp, 50000), 0, "%s", test_read_file(NULL, errp));
	for (int i = 0; i < 3; i++) {
		snprintf(sub, sizeof sub, "%s/%s", bots, names[i]);
		const char *env = test_read_file(sub, "environ.log");
		for (int v = 0; v < 3; v++) {
			char line[40];
			snprintf(line, sizeof line, "\n%s\n", judge_env[v]);
			cr_expect(strstr(env, line) != NULL, "bot %s lacks %s: %s", names[i], judge_env[v], env);
		}
	}
}

/* A game with process bots (a good one, one that crashes, one that writes
 * its stderr to the judge in a debug run) leaves no descriptor open: its
 * pipes and files are closed however each bot ends. */
Test(judge_rules, match_leaves_no_descriptor_open, .timeout = 60)
{
	static const char *const modes[] = {"hard", "crash", "farewell"};
	kj_bot bots[3], hard;
	kj_result res;
	kb_err err;
	char *text = NULL;
	size_t len = 0;

	for (int i = 0; i < 3; i++)
		testbot_in(modes[i], &bots[i]);
	cr_assert_eq(kj_bot_resolve("hard", NULL, &hard, &err), 0, "%s", err.msg);
	const kj_bot *seats[KB_SEATS] = {&bots[0], &bots[1], &bots[2], &hard};
	FILE *debug = open_memstream(&text, &len);
	cr_assert_not_null(debug);
	int before = test_open_fds();
	for (int k = 0; k < 2; k++) {
		kj_match_opts opt = {.move_ms = 5000, .startup_ms = 5000, .grace_ms = 5000,
				     .debug = k ? debug : NULL};
		cr_assert_eq(kj_match_play(seats, 6, &opt, NULL, &res, &err), 0, "%s", err.msg);
		cr_assert_eq(res.seat[1].reason, KJ_CRASH, "%s", kj_reason_name(res.seat[1].reason));
		cr_assert_eq(test_open_fds(), before, "after game %d", k + 1);
	}
	fclose(debug);
	free(text);
}

/* A debug run shows each line sent to a process bot ("A > ") and each
 * message it sent ("A < "), one per line, the text without its line end
 * (a bad message's LF or CR LF too): never an empty line, a line cut
 * short, a CR left or a blank line between. */
Test(judge_rules, debug_run_shows_each_message_whole, .timeout = 60)
{
	static const char *const modes[] = {"hard", "crlf"};
	kj_bot bots[2], hard;
	kj_result res;
	kb_err err;

	cr_assert_eq(kj_bot_resolve("hard", NULL, &hard, &err), 0, "%s", err.msg);
	for (int b = 0; b < 2; b++) {
		char *text = NULL;
		size_t len = 0;
		int sent = 0, got = 0;

		testbot_in(modes[b], &bots[b]);
		const kj_bot *seats[KB_SEATS] = {&bots[b], NULL, &hard, NULL};
		FILE *debug = open_memstream(&text, &len);
		cr_assert_not_null(debug);
		kj_match_opts opt = {.move_ms = 5000, .startup_ms = 5000, .grace_ms = 5000,
				     .debug = debug};
		cr_assert_eq(kj_match_play(seats, 3, &opt, NULL, &res, &err), 0, "%s", err.msg);
		fclose(debug);
		cr_assert_eq(res.seat[0].reason, b ? KJ_GARBAGE : 0, "%s: %s", modes[b],
			     kj_reason_name(res.seat[0].reason));
		cr_assert_null(strstr(text, "\n\n"), "%s: no blank line: %s", modes[b], text);
		for (char *line = text, *eol; (eol = strchr(line, '\n')); line = eol + 1) {
			size_t n = (size_t)(eol - line);
			if (n < 4 || line[0] != 'A' || (line[2] != '>' && line[2] != '<'))
				continue;
			sent += line[2] == '>', got += line[2] == '<';
			cr_assert_gt(n, 5, "%s: a message with its text: %.*s", modes[b], (int)n, line);
			cr_assert_neq(line[n - 1], '\r', "%s: %.*s", modes[b], (int)n, line);
		}
		cr_assert_gt(sent, 0, "%s", text);
		cr_assert_gt(got, 0, "%s", text);
		/* the bot's version line, then its moves (t, its token, the
		 * index) or the line it sent instead */
		cr_assert(strstr(text, "A < v001020\n"), "%s", text);
		cr_assert(strstr(text, b ? "\nA < hello judge, this is not a move\n" : "\nA < t"), "%s",
			  text);
		free(text);
	}
}

/* Seat A always plays (the seat a lineup is seen from): a game without it
 * is refused before anything starts. */
Test(judge_rules, match_without_seat_a_is_refused)
{
	kj_bot hard;
	kj_result res;
	kb_err err;

	cr_assert_eq(kj_bot_resolve("hard", NULL, &hard, &err), 0, "%s", err.msg);
	const kj_bot *seats[KB_SEATS] = {NULL, &hard, &hard, NULL};
	kj_match_opts opt = {.move_ms = 5000, .startup_ms = 5000, .grace_ms = 100};
	err.msg[0] = '\0';
	cr_assert_eq(kj_match_play(seats, 9, &opt, NULL, &res, &err), -1);
	cr_assert_str_eq(err.msg, "game 9: seat A must be present");
}

/* The first vfork goes through, every later one fails with EAGAIN (as
 * when out of processes); ctx counts them. */
static int all_but_the_first(const struct seccomp_notif *req, void *ctx)
{
	(void)req;
	return ++*(int *)ctx > 1 ? EAGAIN : 0;
}

/* Fault injection: the supervisor of only_first_vfork, a thread that
 * answers the seccomp notifications of vfork on listener. */
static void *answer_vforks(void *arg)
{
	int listener = *(int *)arg, n = 0;

	for (;;)
		test_notif_answer(listener, all_but_the_first, &n);
	return NULL;
}

/* From here on, this test process can start one process with vfork. */
static void only_first_vfork(void)
{
	static int listener;
	pthread_t th;

	listener = test_seccomp_one(SYS_vfork, SECCOMP_RET_USER_NOTIF, SECCOMP_FILTER_FLAG_NEW_LISTENER);
	cr_assert_geq(listener, 0, "a seccomp listener: %s", strerror(errno));
	cr_assert_eq(pthread_create(&th, NULL, answer_vforks, &listener), 0);
	pthread_detach(th);
}

/* A game whose second bot cannot be started after its first was fails
 * (-1, match.h) and gives back what the first one holds: its process
 * stopped and reaped, its pipes closed. */
Test(judge_rules, match_whose_second_bot_cannot_start_stops_the_first, .timeout = 30)
{
	kj_bot bot;
	kj_result res;
	kb_err err;

	testbot_in("hard", &bot);
	const kj_bot *seats[KB_SEATS] = {&bot, NULL, &bot, NULL};
	kj_match_opts opt = {.move_ms = 5000, .startup_ms = 5000, .grace_ms = 100};
	int fds = test_open_fds();
	only_first_vfork();
	cr_assert_eq(kj_match_play(seats, 9, &opt, NULL, &res, &err), -1, "%s", err.msg);
	cr_assert(strstr(err.msg, ": cannot start: "), "%s", err.msg);
	cr_expect_eq(test_open_fds(), fds + 1, "only the seccomp listener stays open");
	cr_expect(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD, "the first bot reaped");
}

/* A game of more rolls than the judge's first block of them holds (512):
 * 600 ones first (no piece can leave home: every roll a pass), then the
 * seeded dice to the end.  Every roll is kept and reaches the bot (the
 * test bot answers from the rolls it was sent), and the game is won. */
Test(judge_rules, match_of_more_than_512_rolls, .timeout = 60)
{
	kj_bot bot;
	kj_result res;
	kb_err err;
	kj_match_opts opt = {.move_ms = 5000, .startup_ms = 5000, .grace_ms = 500};

	test_fix_dice(600, 1);
	int rc = versus_hard("hard", &bot, &opt, 4, &res, &err);
	test_fix_dice(0, 0);
	cr_assert_eq(rc, 0, "%s", err.msg);
	cr_assert_gt(res.rolls, 600u);
	cr_assert_eq(res.seat[0].reason, KJ_OK, "%s: %s", kj_reason_name(res.seat[0].reason), res.seat[0].why);
	cr_assert(res.winner == 0 || res.winner == 1, "winner %d", res.winner);
}

/* With timing on, a decision's time is the time from the question to
 * the answer: never negative, and never more than the move time the bot
 * had (it answered in time, or it would have forfeited). */
Test(judge_rules, decision_times_lie_within_the_move_time, .timeout = 60)
{
	kj_bot bot;
	kj_result res;
	kb_err err;
	kj_match_opts opt = {.move_ms = 5000, .startup_ms = 5000, .grace_ms = 500, .timing = 1};

	cr_assert_eq(versus_hard("hard", &bot, &opt, 12, &res, &err), 0, "%s", err.msg);
	const kj_seat_result *a = &res.seat[0];
	cr_assert_eq(a->reason, KJ_OK, "%s", kj_reason_name(a->reason));
	cr_assert_gt(a->decisions, 0);
	cr_expect(a->ms_max >= 0 && a->ms_max <= opt.move_ms, "longest decision %.3f ms", a->ms_max);
	cr_expect(a->ms_total >= 0 && a->ms_total <= a->decisions * a->ms_max + 1e-9,
		  "%u decisions, %.3f ms in all, the longest %.3f ms", a->decisions, a->ms_total, a->ms_max);
}

/* A bot that cannot be started at all (no process to be had: vfork
 * fails) fails the game: -1 (match.h) with err naming the bot and the
 * system's error, not a result. */
Test(judge_rules, match_whose_bot_cannot_start_returns_minus_1, .timeout = 30)
{
	kj_bot bot;
	kj_result res;
	kb_err err;
	char want[300];
	kj_match_opts opt = {.move_ms = 5000, .startup_ms = 5000, .grace_ms = 100};

	test_fail_syscall(SYS_vfork, EAGAIN); /* as when out of processes */
	cr_assert_eq(versus_hard("hard", &bot, &opt, 9, &res, &err), -1, "%s", err.msg);
	snprintf(want, sizeof want, "bot %s: cannot start: %s", bot.name, strerror(EAGAIN));
	cr_assert_str_eq(err.msg, want);
}

/* A bot that plays well keeps its seat and makes no errors. */
Test(judge_rules, a_good_bot_keeps_its_seat, .timeout = 60)
{
	kj_result res;

	mode_against_hard("hard", &res);
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

/* A game of bot a (seat 0, place pa) against bot b (seat 1, place pb). */
static void game_of(kj_result *r, const char *a, int pa, const char *b, int pb)
{
	seat(r, 0, a, pa), seat(r, 1, b, pb);
}

/* x 1st, y 1st, x 2nd, each won by seat 0; x crashed in the last. */
static void three_games(kj_result res[3])
{
	game_of(&res[0], "x", 1, "y", 2), game_of(&res[1], "y", 1, "x", 2), game_of(&res[2], "x", 2, "y", 1);
	res[0].winner = res[1].winner = res[2].winner = 0;
	res[2].seat[0].reason = KJ_CRASH;
}

/* The report of res[0..n); the test stops if it cannot be built. */
static void report_of(kj_report *rep, const kj_result *res, size_t n, int fixed)
{
	kb_err err;
	cr_assert_eq(kj_report_build(rep, res, n, fixed, &err), 0, "%s", err.msg);
}

/* The report of x 1st and y 2nd in deal 0, then y (seat 0) and x with
 * these places in deal 1. */
static kj_report two_deal_report(int y_place, int x_place)
{
	kj_result res[2] = {0};
	kj_report rep;

	game_of(&res[0], "x", 1, "y", 2);
	game_of(&res[1], "y", y_place, "x", x_place), res[1].deal = 1;
	report_of(&rep, res, 2, 0);
	return rep;
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
	kj_result res[3] = {0};
	kj_report rep;

	three_games(res);
	res[2].seat[1].decisions = 5;
	report_of(&rep, res, 3, 0);
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
	/* each option one below its lowest and one above its highest value */
	static const struct {
		const char *opt;
		long lo, hi;
	} opts[] = {
		{"--table", 1, 4},
		{"--games", 1, 1000000},
		{"--concurrency", 1, 256},
		{"--move-ms", 1, 3600000},
		{"--startup-ms", 1, 3600000},
		{"--max-errors", 0, 1000},
		{"--max-timeouts", 0, 1000000},
		{"--cpu-s", 0, 1000000},
		{"--mem-mb", 0, 1048576},
		{"--nofile", 0, 1048576},
		{"--max-procs", 0, 1048576},
		{"--max-file-mb", 0, 1073741824},
		{"--max-write-mb", 0, 1073741824},
		{"--at", 1, 100000000},
	};
	const char *err;

	for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) {
		for (int k = 0; k < 2; k++) {
			char v[24];
			snprintf(v, sizeof v, "%ld", k ? opts[i].hi + 1 : opts[i].lo - 1);
			const char *args[] = {opts[i].opt, v, "hard", "easy", NULL};
			cr_assert_eq(test_run_prog("kimble-judge", args, NULL, &err), KB_EXIT_USAGE, "%s %s: %s", opts[i].opt, v, err);
			char want[160];
			snprintf(want, sizeof want,
				 "kimble-judge: %s \"%s\": out of range; expected a whole number from %ld to %ld",
				 opts[i].opt, v, opts[i].lo, opts[i].hi);
			cr_assert(strstr(err, want) != NULL, "want \"%s\", got: %s", want, err);
		}
	}
	const char *seed[] = {"--seed", "-1", "hard", NULL};
	cr_assert_eq(test_run_prog("kimble-judge", seed, NULL, &err), KB_EXIT_USAGE);
	has(err, "--seed \"-1\": out of range; expected an unsigned 64-bit decimal");
	const char *fmt[] = {"--format", "swiss", "hard", NULL};
	cr_assert_eq(test_run_prog("kimble-judge", fmt, NULL, &err), KB_EXIT_USAGE);
	has(err, "--format \"swiss\": expected rr, gauntlet or fixed");
}

/* Usage errors: program, option, value and what the message says. */
Test(judge_rules, server_options_out_of_range, .timeout = 60)
{
	static const char *const none[] = {NULL};

	test_usage_errors("kimble-server", none);
}

Test(judge_rules, sprt_arguments_checked, .timeout = 60)
{
	static const char *const bad[] = {"5,0",          "5,5",          "0,5,0.5,0.05", "0,5,0.05,0.5",
					  "0,5,0,0.05",   "0,5,0.05,0",   "0,5,0.05",     "x",
					  "0,5,-0.1,0.05", "0,5,0.05,-0.1", "0,10001",    "-10001,0"};
	const char *err;

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		const char *args[] = {"--sprt", bad[i], "-o", "out", "hard", "easy", NULL};
		cr_assert_eq(test_run_prog("kimble-judge", args, NULL, &err), KB_EXIT_USAGE, "--sprt %s: %s", bad[i], err);
		char want[128];
		snprintf(want, sizeof want, "--sprt \"%s\": expected ELO0,ELO1[,ALPHA,BETA]", bad[i]);
		cr_assert(strstr(err, want) != NULL, "want \"%s\", got: %s", want, err);
	}
	/* two or four numbers are accepted, Elo from -10000 to 10000
	 * (kimble-judge(1)): the run then fails on its folder */
	static const char *const good[] = {"0,50", "0,50,0.05,0.1", "-10,10,0.49,0.01",
					   "-10000,10000"};
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		const char *args[] = {"--sprt", good[i], "--sandbox", "off", "-o", "/nonexistent/kimble-out", "hard", "easy", NULL};
		cr_assert_eq(test_run_prog("kimble-judge", args, NULL, &err), 2, "--sprt %s: %s", good[i], err);
		cr_assert_null(strstr(err, "--sprt"), "%s", err);
	}
	const char *three[] = {"--sprt", "0,5", "-o", "out", "hard", "easy", "random", NULL};
	cr_assert_eq(test_run_prog("kimble-judge", three, NULL, &err), KB_EXIT_USAGE);
	has(err, "--sprt: expected exactly two bots, got 3");
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
		char dir[256], text[64];
		kj_bot bot;
		kj_result res;

		snprintf(text, sizeof text, "echo %s\nexec cat >/dev/null\n", starts[k]);
		put(test_tmpdir(dir, sizeof dir), "bot.sh", text);
		snprintf(text, sizeof text, "sh%d\n/bin/sh\nbot.sh\n0\n", k);
		put(dir, "meta", text);
		cr_assert_eq(kj_bot_load(dir, &bot, &err), 0, "%s", err.msg);
		const kj_bot *seats[KB_SEATS] = {&bot, &hard, &hard, &hard};
		kj_match_opts opt = {.move_ms = 100, .startup_ms = 5000, .max_errors = 0, .grace_ms = 100};
		cr_assert_eq(kj_match_play(seats, 5, &opt, NULL, &res, &err), 0, "%s", err.msg);
		cr_assert_eq(res.seat[0].lineup_ok, k == 0, "%s: lineup_ok %d", starts[k], res.seat[0].lineup_ok);
		cr_assert_eq(res.seat[1].lineup_ok, 1, "built-ins always match");
	}
}

/* What a bot sent instead of its start message is named in the forfeit,
 * and a wrong lineup's note says which start message was expected. */
Test(judge_rules, wrong_start_says_what_was_sent_and_expected, .timeout = 60)
{
	static const struct {
		const char *sends, *why, *note;
	} cases[] = {
		{"hello", "sent a line that is not v001XYZ: byte 0 of the message is 'h'", NULL},
		{"t00000000000000000000000000000000000000000000000000000000000000001",
		 "sent a move, not v001XYZ", NULL},
		{"v001000", NULL, "lineup A sh sent a start message that does not match its opponents "
				"(expected v001222)"},
	};
	kj_bot hard;
	kb_err err;

	cr_assert_eq(kj_bot_resolve("hard", NULL, &hard, &err), 0, "%s", err.msg);
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		char dir[256], text[128], said[4096] = "";
		kj_bot bot;
		kj_result res;
		FILE *debug = tmpfile();

		snprintf(text, sizeof text, "echo %s\nexec cat >/dev/null\n", cases[k].sends);
		put(test_tmpdir(dir, sizeof dir), "bot.sh", text);
		put(dir, "meta", "sh\n/bin/sh\nbot.sh\n0\n");
		cr_assert_eq(kj_bot_load(dir, &bot, &err), 0, "%s", err.msg);
		const kj_bot *seats[KB_SEATS] = {&bot, &hard, &hard, &hard};
		kj_match_opts opt = {.move_ms = 100, .startup_ms = 5000, .max_errors = 0, .grace_ms = 100,
				     .debug = debug};
		cr_assert_eq(kj_match_play(seats, 5, &opt, NULL, &res, &err), 0, "%s", err.msg);
		rewind(debug);
		said[fread(said, 1, sizeof said - 1, debug)] = '\0';
		fclose(debug);
		if (cases[k].note) { /* noted (then it times out, never answering) */
			cr_assert_not_null(strstr(said, cases[k].note), "%s", said);
			continue;
		}
		cr_assert_eq(res.seat[0].reason, KJ_GARBAGE, "%s", cases[k].sends);
		cr_assert(strncmp(res.seat[0].why, cases[k].why, strlen(cases[k].why)) == 0, "%s: %s",
			  cases[k].sends, res.seat[0].why);
	}
}

/* A bot that exits while a process it started keeps its output open
 * forfeits for its exit, with its status, not for a timeout. */
Test(judge_rules, exit_with_a_child_holding_the_output_is_an_exit, .timeout = 60)
{
	char dir[256];
	kj_bot bot, hard;
	kj_result res;
	kb_err err;

	cr_assert_eq(kj_bot_resolve("hard", NULL, &hard, &err), 0, "%s", err.msg);
	put(test_tmpdir(dir, sizeof dir), "bot.sh", "echo v001222\nsleep 30 &\nexit 3\n");
	put(dir, "meta", "sh\n/bin/sh\nbot.sh\n0\n");
	cr_assert_eq(kj_bot_load(dir, &bot, &err), 0, "%s", err.msg);
	const kj_bot *seats[KB_SEATS] = {&bot, &hard, &hard, &hard};
	kj_match_opts opt = {.move_ms = 200, .startup_ms = 5000, .grace_ms = 100};
	cr_assert_eq(kj_match_play(seats, 5, &opt, NULL, &res, &err), 0, "%s", err.msg);
	cr_assert_eq(res.seat[0].reason, KJ_EXIT, "%s: %s", kj_reason_name(res.seat[0].reason),
		     res.seat[0].why);
	cr_assert_not_null(strstr(res.seat[0].why, "exited with status 3"), "%s", res.seat[0].why);
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
	subdir(games, sizeof games, subdir(shard, sizeof shard, dir, "shard"), "games");
	snprintf(out, sizeof out, "%s/out", dir);
	const char *dirs[] = {shard};
	err.msg[0] = '\0';
	cr_assert_eq(kj_merge(out, dirs, 1, 0, &err), 0, "%s", err.msg);
	cr_assert(strstr(test_read_file(out, "results.txt"), "games") != NULL || access(out, F_OK) == 0);
	const char *missing[] = {out, "/nonexistent-kimble-shard"};
	cr_assert_eq(kj_merge(out, missing, 2, 0, &err), -1);
	cr_assert(strstr(err.msg, "/nonexistent-kimble-shard/games") != NULL, "%s", err.msg);
	/* OUT cannot be made */
	cr_assert_eq(kj_merge("/nonexistent-kimble-dir/out", dirs, 1, 0, &err), -1);
	cr_assert(strstr(err.msg, "cannot create the output folder") &&
		  strstr(err.msg, "/nonexistent-kimble-dir/out"), "%s", err.msg);
	cr_assert_eq(kj_merge(out, missing, 2, 0, &err), -1);
	cr_assert(strstr(err.msg, "/nonexistent-kimble-shard/games") != NULL, "%s", err.msg);
	/* the report cannot be written: results.txt is a folder */
	char out2[300], txt[400];
	subdir(txt, sizeof txt, subdir(out2, sizeof out2, dir, "out2"), "results.txt");
	err.msg[0] = '\0';
	cr_assert_eq(kj_merge(out2, dirs, 1, 0, &err), -1);
	cr_assert(strstr(err.msg, "cannot write") && strstr(err.msg, "results.txt"), "%s", err.msg);
}

/* merge skips a shard's temporary files (a killed worker's
 * NNNNNN.tx.PID.tmp, docs/judge-stop.md) and its hidden ones: only
 * finished games reach OUT/games. */
Test(judge_rules, merge_skips_temporary_files, .timeout = 30)
{
	char dir[256], shard[300], out[300], games[320], path[400];
	kb_err err;

	test_tmpdir(dir, sizeof dir);
	subdir(games, sizeof games, subdir(shard, sizeof shard, dir, "shard"), "games");
	put(games, "000003.tx.77.tmp", "half a game\n");
	put(games, ".hidden", "x\n");
	put(games, "notes", "kept\n");
	snprintf(out, sizeof out, "%s/out", dir);
	const char *dirs[] = {shard};
	err.msg[0] = '\0';
	cr_assert_eq(kj_merge(out, dirs, 1, 0, &err), 0, "%s", err.msg);
	snprintf(path, sizeof path, "%s/games/000003.tx.77.tmp", out);
	cr_assert_eq(access(path, F_OK), -1, "%s merged", path);
	snprintf(path, sizeof path, "%s/games/.hidden", out);
	cr_assert_eq(access(path, F_OK), -1, "%s merged", path);
	snprintf(path, sizeof path, "%s/games/notes", out);
	cr_assert_eq(access(path, F_OK), 0, "%s not merged", path);
}

/* A shard folder on another file system than OUT (/dev/shm, a tmpfs),
 * where a hard link cannot be made: its own test folder there, or 0 (the
 * test is skipped) when both are on one. */
static int shard_elsewhere(char *shard, size_t size, const char *out_parent)
{
	const char *tmp = getenv("TMPDIR");
	char keep[256];
	struct stat a, b;

	snprintf(keep, sizeof keep, "%s", tmp ? tmp : "");
	setenv("TMPDIR", "/dev/shm", 1);
	test_tmpdir(shard, size);
	if (tmp)
		setenv("TMPDIR", keep, 1);
	else
		unsetenv("TMPDIR");
	return stat(shard, &a) == 0 && stat(out_parent, &b) == 0 && a.st_dev != b.st_dev;
}

/* Where a shard's files cannot be linked into OUT, they are copied: the
 * same bytes (here two reads' worth), mode 0644 less the umask; no
 * descriptor is left open. */
Test(judge_rules, merge_copies_across_file_systems, .timeout = 30)
{
	static char text[100000];
	char dir[256], shard[256], games[300], out[300], path[400];
	struct stat st;
	kb_err err;

	test_tmpdir(dir, sizeof dir);
	if (!shard_elsewhere(shard, sizeof shard, dir))
		cr_skip_test("/dev/shm and %s are one file system", dir);
	umask(022);
	subdir(games, sizeof games, shard, "games");
	for (size_t i = 0; i + 1 < sizeof text; i++)
		text[i] = (char)('a' + i % 26);
	put(games, "000000.tx", text);
	snprintf(out, sizeof out, "%s/out", dir);
	const char *dirs[] = {shard};
	err.msg[0] = '\0';
	int fds = test_open_fds();
	cr_assert_eq(kj_merge(out, dirs, 1, 0, &err), 0, "%s", err.msg);
	cr_assert_eq(test_open_fds(), fds, "the merge leaves a descriptor open");
	snprintf(path, sizeof path, "%s/games/000000.tx", out);
	cr_assert_eq(stat(path, &st), 0, "%s not copied", path);
	cr_assert_eq(st.st_mode & 07777, 0644, "mode %o", st.st_mode & 07777);
	snprintf(path, sizeof path, "%s/games", out);
	cr_assert_str_eq(test_read_file(path, "000000.tx"), text);
}

/* A copy that cannot be created (OUT's games folder read-only to the
 * user) fails the merge, naming the shard's file, leaving no descriptor
 * open. */
Test(judge_rules, merge_copy_refused, .timeout = 30)
{
	char dir[256], shard[256], games[300], out[300], outgames[320];
	kb_err err;

	test_tmpdir(dir, sizeof dir);
	test_drop_root(dir);
	if (!shard_elsewhere(shard, sizeof shard, dir))
		cr_skip_test("/dev/shm and %s are one file system", dir);
	subdir(games, sizeof games, shard, "games");
	put(games, "000000.tx", "x\n");
	subdir(outgames, sizeof outgames, subdir(out, sizeof out, dir, "out"), "games");
	cr_assert_eq(chmod(outgames, 0555), 0);
	const char *dirs[] = {shard};
	err.msg[0] = '\0';
	int fds = test_open_fds();
	int rc = kj_merge(out, dirs, 1, 0, &err);
	chmod(outgames, 0755); /* for the removal of the test's folder */
	cr_assert_eq(rc, -1);
	cr_assert_eq(test_open_fds(), fds, "the failed merge leaves a descriptor open");
	cr_assert(strstr(err.msg, "cannot copy") && strstr(err.msg, "/games/000000.tx"), "%s", err.msg);
}

/* OUT's games folder cannot be listed (write and search only): the
 * merge fails with -1 and names it. */
Test(judge_rules, merge_into_an_unreadable_games_folder, .timeout = 30)
{
	char dir[256], shard[300], out[300], games[320];
	kb_err err;

	test_tmpdir(dir, sizeof dir);
	test_drop_root(dir);
	subdir(games, sizeof games, subdir(shard, sizeof shard, dir, "shard"), "games");
	subdir(games, sizeof games, subdir(out, sizeof out, dir, "out"), "games");
	cr_assert_eq(chmod(games, 0300), 0);
	const char *dirs[] = {shard};
	err.msg[0] = '\0';
	cr_assert_eq(kj_merge(out, dirs, 1, 0, &err), -1);
	cr_assert(strstr(err.msg, "cannot read results folder") && strstr(err.msg, games), "%s", err.msg);
	chmod(games, 0755); /* for the removal of the test's folder */
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

/* A stream whose first write fails and every later one succeeds. */
static ssize_t fail_first_write(void *cookie, const char *buf, size_t size)
{
	int *writes = cookie;

	(void)buf;
	return (*writes)++ ? (ssize_t)size : -1;
}

/* kj_result_write fails when any write of the record failed, not only the
 * last: a result file missing its first line is not a result. */
/* The output folder and its games folder are made readable by others
 * (mode 0755 under umask 022), and an existing one is no error. */
Test(judge_rules, results_folders_readable_by_others)
{
	char dir[256], out[300], games[320];
	struct stat st;
	kb_err err;

	test_tmpdir(dir, sizeof dir);
	snprintf(out, sizeof out, "%s/out", dir);
	snprintf(games, sizeof games, "%s/games", out);
	umask(022);
	cr_assert_eq(kj_results_mkdir(out, &err), 0, "%s", err.msg);
	cr_assert_eq(kj_results_mkdir(out, &err), 0, "again: %s", err.msg);
	cr_assert(stat(out, &st) == 0 && (st.st_mode & 07777) == 0755, "%o", st.st_mode & 07777);
	cr_assert(stat(games, &st) == 0 && (st.st_mode & 07777) == 0755, "%o", st.st_mode & 07777);
}

Test(judge_rules, result_write_fails_on_an_earlier_write)
{
	int writes = 0;
	kj_result res = {.winner = 0};
	cookie_io_functions_t io = {.write = fail_first_write};
	FILE *f = fopencookie(&writes, "w", io);

	cr_assert_not_null(f);
	setvbuf(f, NULL, _IONBF, 0);
	res.seat[0].present = 1;
	snprintf(res.seat[0].name, sizeof res.seat[0].name, "x");
	cr_assert_eq(kj_result_write(f, 1, &res), -1);
	cr_assert_gt(writes, 1, "the last writes went through");
	fclose(f);
}

/* A start board that is not a sound position is refused with the board
 * parser's own reason, naming the file and line. */
Test(judge_rules, start_file_errors_say_why)
{
	char dir[256], path[300];
	kj_start *starts;
	kb_err err;

	/* five pieces of seat A on the board */
	char board[KB_BOARD_LEN + 1], text[KB_BOARD_LEN + 32];
	memset(board, '0', KB_BOARD_LEN);
	memset(board, 'A', 5);
	board[KB_BOARD_LEN] = '\0';
	snprintf(text, sizeof text, "# comment\n\n%s A 6\n", board);
	put(test_tmpdir(dir, sizeof dir), "starts", text);
	snprintf(path, sizeof path, "%s/starts", dir);
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
	kj_report rep = two_deal_report(1, 1);
	cr_assert_eq(rep.npairs, 1);
	cr_assert_eq(rep.pairs[0].a, 0);
	cr_assert_eq(rep.pairs[0].b, 1);
	cr_assert_eq(rep.pairs[0].deals, 2);
	cr_assert(NEAR(rep.pairs[0].mean, 0.75), "%f", rep.pairs[0].mean);
	kj_report_free(&rep);
}

/* A fresh in-memory stream into *buf (freeing the text it held before);
 * after fclose *buf holds what was written. */
static FILE *capture(char **buf)
{
	static size_t len;

	free(*buf);
	*buf = NULL;
	FILE *f = open_memstream(buf, &len);
	cr_assert_not_null(f);
	return f;
}

/* Plays the game of seats with seed and opt into res, and parses its
 * transcript into tx (free it with kb_tx_free). */
static void played(kb_transcript *tx, const kj_bot *const seats[KB_SEATS], uint64_t seed,
		   const kj_match_opts *opt, kj_result *res)
{
	char *text = NULL;
	size_t len = 0;
	kb_err err;
	FILE *f = open_memstream(&text, &len);
	cr_assert_eq(kj_match_play(seats, seed, opt, f, res, &err), 0, "%s", err.msg);
	fclose(f);
	cr_assert_eq(kb_tx_parse(text, len, tx, &err), 0, "%s", err.msg);
	free(text);
}

static const char *printed(const kj_report *rep, int timing, int json)
{
	static char *buf;
	FILE *f = capture(&buf);
	if (json)
		kj_report_json(f, rep, NULL, 99);
	else
		kj_report_print(f, rep, timing);
	fclose(f);
	return buf;
}

/* results.json's first "forfeits" object in json: one "reason": count
 * member for each reason of docs/judge-results.md, separated by ", ",
 * every count 0 but the one for reason one, which is 1. */
static void forfeits_object(const char *json, const char *one)
{
	static const char *const reasons[] = {"nostart", "startup", "timeout", "crash", "exit",
					      "garbage", "illegal", "token", "unread", "write"};
	const char *at = strstr(json, "\"forfeits\": {");
	int seen[10] = {0};

	cr_assert_not_null(at, "%s", json);
	at += strlen("\"forfeits\": {");
	for (int m = 0; m < 10; m++) {
		char name[16];
		unsigned count;
		int used = 0;
		cr_assert_eq(sscanf(at, "\"%15[a-z]\": %u%n", name, &count, &used), 2,
			     "member %d: %.60s", m, at);
		int k = 0;
		while (k < 10 && strcmp(reasons[k], name))
			k++;
		cr_assert(k < 10 && !seen[k]++, "member %s", name);
		cr_assert_eq(count, !strcmp(name, one) ? 1u : 0u, "%s: %u", name, count);
		at += used;
		cr_assert_str_neq(at, "", "cut");
		if (m < 9) {
			cr_assert(!strncmp(at, ", ", 2), "after %s: %.20s", name, at);
			at += 2;
		}
	}
	cr_assert_eq(*at, '}', "more members: %.40s", at);
}

/* The table and the JSON show each bot's counts, mean place and timing. */
Test(judge_rules, report_table_and_json)
{
	kj_result res[3] = {0};
	kj_report rep;

	three_games(res);
	res[0].seat[0].decisions = 4, res[0].seat[0].ms_total = 10, res[0].seat[0].ms_max = 7;
	res[1].deal = 1, res[2].deal = 2;
	report_of(&rep, res, 3, 0);

	const char *t = printed(&rep, 1, 0);
	has(t, "mean ms    max ms\n");
	has(t, "\nx                     3      1   33.3% [");
	cr_assert(strstr(t, "]   1.67  crash:1") != NULL, "mean place 5/3: %s", t);
	cr_assert(strstr(t, "     2.500     7.000\n") != NULL, "timing: %s", t);
	has(t, "\nelo x - y: ");
	has(t, "from 3 deals");
	t = printed(&rep, 0, 0);
	cr_assert_null(strstr(t, "mean ms"), "no timing columns: %s", t);
	cr_assert_null(strstr(t, "2.500"), "%s", t);

	const char *j = printed(&rep, 0, 1);
	has(j, "\"seed\": 99,\n  \"games\": 3,");
	has(j, "{\"name\": \"x\", \"games\": 3, \"wins\": 1, \"win_rate\": 0.3333");
	has(j, "\"avg_place\": 1.6667");
	has(j, "\"mean_ms\": 2.500, \"max_ms\": 7.000");
	has(j, "\"crash\": 1");
	has(j, "{\"a\": \"x\", \"b\": \"y\", \"deals\": 3");
	forfeits_object(j, "crash");
	kj_report_free(&rep);
}

/* The report's SPRT line on stdout names the verdict: decided 1 is "H1
 * accepted", -1 "H0 accepted", 0 (still running when the games ran out)
 * "inconclusive". */
Test(judge_rules, report_sprt_verdict_line)
{
	static const char *const verdicts[] = {"H0 accepted", "inconclusive", "H1 accepted"};
	kj_result res[3] = {0};
	char dir[256], want[200];
	kb_err err;

	test_tmpdir(dir, sizeof dir);
	three_games(res);
	for (int d = -1; d <= 1; d++) {
		static char *buf;
		kj_sprt s = {.elo0 = -5, .elo1 = 5, .llr = 1.25, .lower = -2.5, .upper = 2.75,
			     .deals = 12, .decided = d};
		FILE *out = stdout;
		stdout = capture(&buf);
		int rc = kj_report_write(dir, res, 3, &s, 1, 0, 0, NULL, 0, &err);
		fclose(stdout);
		stdout = out;
		cr_assert_eq(rc, 0, "%s", err.msg);
		snprintf(want, sizeof want, "\nsprt elo0 -5.0 elo1 5.0: LLR 1.250 [-2.500, 2.750] "
			 "after 12 deals: %s\n", verdicts[d + 1]);
		has(buf, want);
	}
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
	FILE *f = capture(&buf);
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
	char dir[256], fp[17];
	kj_bot bot;
	kb_err err;

	put(test_tmpdir(dir, sizeof dir), "meta", "fp\n/bin/true\n\n0\nlearned\n");
	cr_assert_eq(kj_bot_load(dir, &bot, &err), 0, "%s", err.msg);
	kj_bot_fingerprint(&bot, fp);
	cr_assert_str_eq(fp, "-", "no state yet");
	put(dir, "learned", "something\n");
	kj_bot_fingerprint(&bot, fp);
	cr_assert_eq(strlen(fp), 16, "%s", fp);
	cr_assert_eq(strspn(fp, "0123456789abcdef"), 16, "%s", fp);
}

/* ---- the Wilson interval's clamps, pairs of a name in two seats ----------- */

/* Rounding puts the upper end of 20/20 at 1 + 2^-52 and the lower end of
 * 0/7 just below 0 (worked out in double arithmetic): both are clamped. */
Test(judge_rules, wilson_clamped_to_zero_and_one)
{
	double lo, hi;

	kj_wilson(20, 20, &lo, &hi);
	cr_assert(hi == 1.0, "%.17g", hi);
	cr_assert(NEAR(lo, 0.838874840), "%f", lo);
	kj_wilson(0, 7, &lo, &hi);
	cr_assert(lo == 0.0, "%.17g", lo);
	cr_assert(NEAR(hi, 0.354330439), "%f", hi);
}

/* A name in two seats of one game (the same built-in twice): its first
 * seat is the one compared. */
Test(judge_rules, pair_uses_the_first_seat_of_a_name)
{
	kj_result res[1];
	kj_pair_elo p;

	memset(res, 0, sizeof res);
	seat(&res[0], 0, "x", 1), seat(&res[0], 1, "y", 2), seat(&res[0], 2, "x", 3), seat(&res[0], 3, "y", 4);
	kj_pair_compute(res, 1, "x", "y", &p);
	cr_assert_eq(p.deals, 1);
	cr_assert(NEAR(p.mean, 1.0), "seat A (place 1) against seat B (place 2): %f", p.mean);
	cr_assert_eq(p.elo, 1000);
	cr_assert_eq(p.var, 0, "one deal has no variance");
	cr_assert_eq(p.lo, 1000, "one deal: the standard error is 0");
	kj_pair_compute(res, 1, "y", "x", &p);
	cr_assert(NEAR(p.mean, 0.0), "%f", p.mean);
}

/* The pair table is for twelve bots at most: n bots in a ring (bot i
 * against bot i + 1 in deal i) give n pairs up to twelve bots, none with
 * thirteen. */
Test(judge_rules, pair_table_up_to_twelve_bots)
{
	static const struct {
		int nbots, npairs;
	} cases[] = {{12, 12}, {13, 0}};
	kj_result res[13];
	kj_report rep;

	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		int n = cases[k].nbots;
		memset(res, 0, sizeof res);
		for (int i = 0; i < n; i++) {
			char a[16], b[16];
			snprintf(a, sizeof a, "b%d", i), snprintf(b, sizeof b, "b%d", (i + 1) % n);
			game_of(&res[i], a, 1, b, 2), res[i].deal = (uint32_t)i;
		}
		report_of(&rep, res, (size_t)n, 0);
		cr_assert_eq(rep.nbots, n);
		cr_assert_eq(rep.npairs, cases[k].npairs, "%d bots: %d pairs", n, rep.npairs);
		kj_report_free(&rep);
	}
}

/* ---- result files: each line's error names the line ----------------------- */

static int read_result(const char *text, kj_result *res, kb_err *err)
{
	uint32_t game = 99;
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	cr_assert_not_null(f);
	err->msg[0] = '\0';
	int rc = kj_result_read(f, &game, res, err);
	fclose(f);
	return rc;
}

/* Reads text into res; the test stops if that fails. */
static void read_ok(const char *text, kj_result *res)
{
	kb_err err;
	cr_assert_eq(read_result(text, res, &err), 0, "%s", err.msg);
}

Test(judge_rules, result_file_errors_name_the_line)
{
	static const char *const bad[][2] = {
		{"kimble-result 3\n", "result line 1: expected \"kimble-result 2\" (or 1)"},
		{"kimble-result 2\ngame 1 deal 0 seed 5 winner A rolls 9\n",
		 "result line 2: expected game K deal D seed S winner X rolls N finished Y"},
		{"kimble-result 1\ngame 1 deal 0 seed 5\n", "result line 2: expected game K deal D seed S winner X rolls N"},
		{"kimble-result 2\ngame 1 deal 0 seed 5 winner A rolls 9 finished A\nseat E x place 1 score 0 "
		 "forfeit none errors 0 lineup 1 decisions 0 ms 0 max 0 fp - at 0 why -\ndone\n",
		 "result line 3: expected seat X NAME place P score S forfeit R ... fp F at ROLL why TEXT"},
		{"kimble-result 2\ngame 1 deal 0 seed 5 winner A rolls 9 finished A\nseat A x place 1 score 0 "
		 "forfeit none errors 0 lineup 1 decisions 0 ms 0 max 0 fp -\ndone\n",
		 "result line 3: expected seat X NAME place P score S forfeit R ... fp F at ROLL why TEXT"},
		{"kimble-result 2\ngame 1 deal 0 seed 5 winner A rolls 9 finished A\nseat A x place 1 score 0 "
		 "forfeit none errors 0 lineup 1 decisions 0 ms 0 max 0 fp - at 5\ndone\n",
		 "result line 3: expected seat X NAME place P score S forfeit R ... fp F at ROLL why TEXT"},
		{"kimble-result 1\ngame 1 deal 0 seed 5 winner A rolls 9\nseat A x place 1 score 0 "
		 "forfeit bogus errors 0 lineup 1 decisions 0 ms 0 max 0 fp -\ndone\n",
		 "result line 3: expected seat X NAME place P score S forfeit R ..."},
		{"kimble-result 2\ngame 1 deal 0 seed 5 winner A rolls 9 finished A\n",
		 "result line 3: expected \"done\" (an unfinished result file)"},
	};
	kj_result res;
	kb_err err;

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cr_assert_eq(read_result(bad[i][0], &res, &err), -1, "%s", bad[i][0]);
		cr_assert_str_eq(err.msg, bad[i][1]);
	}
	/* "done" may follow the game line at once: the reader asks for no seat
	 * line (a result of no seats present; the judge never writes one) */
	read_ok("kimble-result 2\ngame 7 deal 3 seed 5 winner - rolls 0 finished -\ndone\n", &res);
	cr_assert_eq(res.game, 7);
	for (int s = 0; s < KB_SEATS; s++)
		cr_assert_eq(res.seat[s].present, 0);
	/* version 1 credited a forfeited seat's replacement: no winner then */
	read_ok("kimble-result 1\ngame 4 deal 2 seed 5 winner B rolls 9\n"
		"seat A x place 1 score 0 forfeit none errors 0 lineup 1 decisions 3 ms 0 max 0 fp -\n"
		"seat B y place 4 score 0 forfeit crash errors 0 lineup 1 decisions 3 ms 0 max 0 fp -\n"
		"done\n", &res);
	cr_assert_eq(res.winner, -1);
	cr_assert_eq(res.finished, 1, "version 1: the winner line said who finished");
	cr_assert_eq(res.game, 4);
	cr_assert_eq(res.deal, 2);
	cr_assert_eq(res.seat[1].reason, KJ_CRASH);
	cr_assert_eq(res.seat[1].why[0], '\0');
	read_ok("kimble-result 1\ngame 4 deal 2 seed 5 winner A rolls 9\n"
		"seat A x place 1 score 0 forfeit none errors 0 lineup 1 decisions 3 ms 0 max 0 fp -\n"
		"done\n", &res);
	cr_assert_eq(res.winner, 0);
	read_ok("kimble-result 2\ngame 4 deal 2 seed 5 winner - rolls 9 finished D\n"
		"seat D y place 4 score 0 forfeit exit errors 0 lineup 1 decisions 3 ms 0 max 0 fp - "
		"at 17 why exited with status 3\r\n"
		"done\n", &res);
	cr_assert_eq(res.winner, -1);
	cr_assert_eq(res.finished, 3);
	cr_assert_eq(res.seat[3].forfeit_roll, 17);
	cr_assert_str_eq(res.seat[3].why, "exited with status 3");
	cr_assert_eq(res.seat[0].present, 0);
}

/* ---- the plan: which bots sit where in which game --------------------------- */

static void seats_are(const kj_game_spec *g, int a, int b, int c, int d)
{
	cr_assert(g->seat[0] == a && g->seat[1] == b && g->seat[2] == c && g->seat[3] == d,
		  "game %u: seats %d %d %d %d, want %d %d %d %d", g->index, g->seat[0], g->seat[1],
		  g->seat[2], g->seat[3], a, b, c, d);
}

/* The plan of these arguments (as kj_plan_build's); the test stops if
 * there is none. */
static void plan_of(kj_plan *plan, enum kj_format fmt, int nbots, int table, uint32_t rounds, uint64_t seed,
		    int nstarts)
{
	kb_err err;
	cr_assert_eq(kj_plan_build(plan, fmt, nbots, table, rounds, seed, nstarts, &err), 0, "%s", err.msg);
}

/* kj_run of a fixed two-bot plan (nstarts start positions) with starts
 * given: its game 0 transcript's has_start. */
static int run_has_start(int nstarts, const kj_start *starts)
{
	char dir[256], out[300];
	kj_bot bots[2];
	kj_plan plan;
	kb_err err;
	kb_transcript tx;

	for (int b = 0; b < 2; b++)
		cr_assert_eq(kj_bot_resolve("hard", NULL, &bots[b], &err), 0, "%s", err.msg);
	plan_of(&plan, KJ_FIXED, 2, 2, 1, 3, nstarts);
	test_tmpdir(dir, sizeof dir);
	snprintf(out, sizeof out, "%s/out", dir);
	kj_run_opts ro = {.bots = bots, .nbots = 2, .plan = &plan, .starts = starts, .out = out,
			  .concurrency = 1, .shard_k = 1, .shard_n = 1, .seed = 3,
			  .match = {.move_ms = 5000, .startup_ms = 5000, .grace_ms = 100}};
	FILE *saved = stdout;
	stdout = fopen("/dev/null", "w");
	int rc = kj_run(&ro, &err);
	fclose(stdout);
	stdout = saved;
	cr_assert_eq(rc, 0, "%s", err.msg);
	kj_plan_free(&plan);
	snprintf(out, sizeof out, "%s/out/games/000000.tx", dir);
	FILE *f = fopen(out, "r");
	cr_assert_not_null(f, "%s", out);
	cr_assert_eq(kb_tx_read(f, &tx, &err), 0, "%s", err.msg);
	fclose(f);
	int has = tx.has_start;
	kb_tx_free(&tx);
	return has;
}

/* With the most bots a run takes (KJ_MAX_BOTS, a gauntlet of two seats:
 * bot 0 against each other bot, one deal each), every deal's round line
 * names the two bots of that deal and no other, each once: "round N:"
 * then "  NAME wins W/G place P (total T%)" per bot that played. */
Test(judge_rules, round_lines_of_a_run_of_the_most_bots, .timeout = 60)
{
	static kj_bot bots[KJ_MAX_BOTS];
	char dir[256], out[300], lines[300];
	int seen[KJ_MAX_BOTS] = {0};
	kj_plan plan;
	kb_err err;

	for (int b = 0; b < KJ_MAX_BOTS; b++) {
		cr_assert_eq(kj_bot_resolve(b % 2 ? "easy" : "hard", NULL, &bots[b], &err), 0, "%s", err.msg);
		snprintf(bots[b].name, sizeof bots[b].name, "b%02d", b);
	}
	plan_of(&plan, KJ_GAUNTLET, KJ_MAX_BOTS, 2, 1, 3, 0);
	test_tmpdir(dir, sizeof dir);
	snprintf(out, sizeof out, "%s/out", dir);
	snprintf(lines, sizeof lines, "%s/stdout", dir);
	kj_run_opts ro = {.bots = bots, .nbots = KJ_MAX_BOTS, .plan = &plan, .out = out,
			  .concurrency = 2, .shard_k = 1, .shard_n = 1, .seed = 3, .round_lines = 1,
			  .match = {.move_ms = 5000, .startup_ms = 5000, .grace_ms = 100}};
	FILE *saved = stdout;
	stdout = fopen(lines, "w");
	cr_assert_not_null(stdout);
	int rc = kj_run(&ro, &err);
	fclose(stdout);
	stdout = saved;
	kj_plan_free(&plan);
	cr_assert_eq(rc, 0, "%s", err.msg);
	FILE *f = fopen(lines, "r");
	char line[1024];
	int deals = 0;
	cr_assert_not_null(f);
	while (fgets(line, sizeof line, f)) {
		int deal, used, a, b, n = 0;
		if (strncmp(line, "round ", 6) != 0)
			continue;
		deals++;
		cr_assert_eq(sscanf(line, "round %d:%n", &deal, &used), 1, "%s", line);
		cr_assert_eq(deal, deals, "%s", line);
		cr_assert_eq(test_count(line, " wins "), 2, "two bots played: %s", line);
		cr_assert_eq(sscanf(line + used, "  b%d wins %*u/%*u place %*f (total %*f%%)  b%d wins%n", &a,
				    &b, &n), 2, "%s", line);
		cr_assert(n > 0 && a == 0 && b > 0 && b < KJ_MAX_BOTS && !seen[b]++, "%s", line);
	}
	fclose(f);
	cr_assert_eq(deals, KJ_MAX_BOTS - 1, "a line per deal");
}

/* A game of the plan starts from a start position only when the plan
 * gives it one: a plan without start positions plays the normal start
 * even when a list of them is passed. */
Test(judge_rules, run_starts_only_where_the_plan_says, .timeout = 60)
{
	kj_start start = {.turn = 2, .die = 5};
	kb_err err;

	cr_assert_eq(kb_board_parse("A000000000000000C000000000000000000000000000", KB_BOARD_LEN, 0x5, &start.pos,
				    &err), 0, "%s", err.msg);
	cr_assert_eq(run_has_start(1, &start), 1);
	cr_assert_eq(run_has_start(0, &start), 0);
	cr_assert_eq(run_has_start(0, NULL), 0);
}

/* A child of kj_run's caller that is no worker of the run (here one that
 * ended before the run, the oldest child, which the first wait for any
 * child returns) is reaped and ignored: the run plays its games. */
Test(judge_rules, run_ignores_a_child_that_is_no_worker, .timeout = 60)
{
	siginfo_t info;
	pid_t stray = fork();

	cr_assert_geq(stray, 0);
	if (stray == 0)
		_exit(7);
	cr_assert_eq(waitid(P_PID, (id_t)stray, &info, WEXITED | WNOWAIT), 0, "it has ended");
	cr_assert_eq(run_has_start(0, NULL), 0, "the run played its game");
	cr_assert(waitpid(stray, NULL, WNOHANG) < 0 && errno == ECHILD, "reaped by the run");
}

/* Bots whose command cannot run are named after the run, as many as the
 * message holds (191 characters), and never past it. */
Test(judge_rules, run_names_the_bots_that_could_not_start, .timeout = 60)
{
	char dir[256], out[300];
	static kj_bot bots[4];
	kj_plan plan;
	struct {
		kb_err err;
		char after[256]; /* what follows the message must stay as it is */
	} e;

	test_tmpdir(dir, sizeof dir);
	for (int b = 0; b < 4; b++) {
		memset(&bots[b], 0, sizeof bots[b]);
		memset(bots[b].name, 'a' + b, 60);
		snprintf(bots[b].dir, sizeof bots[b].dir, "%s", dir);
		snprintf(bots[b].cmd, sizeof bots[b].cmd, "/nonexistent-kimble/bot");
		bots[b].argv[0] = NULL;
	}
	plan_of(&plan, KJ_FIXED, 4, 4, 1, 3, 0);
	snprintf(out, sizeof out, "%s/out", dir);
	kj_run_opts ro = {.bots = bots, .nbots = 4, .plan = &plan, .out = out, .concurrency = 1,
			  .shard_k = 1, .shard_n = 1, .seed = 3,
			  .match = {.move_ms = 5000, .startup_ms = 5000, .grace_ms = 100}};
	memset(&e, 'x', sizeof e);
	FILE *saved = stdout, *saved_err = stderr;
	stdout = fopen("/dev/null", "w"), stderr = fopen("/dev/null", "w");
	int rc = kj_run(&ro, &e.err);
	fclose(stdout), fclose(stderr);
	stdout = saved, stderr = saved_err;
	kj_plan_free(&plan);
	cr_assert_eq(rc, 1, "%.191s", e.err.msg);
	char want[400];
	snprintf(want, sizeof want, "could not start (see above): %.60s, %.60s, %.60s, %.60s",
		 bots[0].name, bots[1].name, bots[2].name, bots[3].name);
	want[sizeof e.err.msg - 1] = '\0';
	cr_assert_str_eq(e.err.msg, want);
	for (size_t i = 0; i < sizeof e.after; i++)
		cr_assert_eq(e.after[i], 'x', "written past the message at %zu", i);
}

/* A stand-in for kill(2) (for the whole test binary; it hands every call
 * on): while kills_watched is set, signals sent to a process id that no
 * process holds any more (gone and reaped) are counted in stale_kills. */
static int kills_watched, stale_kills;

int kill(pid_t pid, int sig)
{
	if (kills_watched && pid > 0 && sig != 0 && syscall(SYS_kill, pid, 0) != 0 && errno == ESRCH)
		stale_kills++;
	return (int)syscall(SYS_kill, pid, sig);
}

/* The names in folder that end in .tmp, each followed by a space ("" none). */
static const char *tmp_files(const char *folder)
{
	static char names[1024];
	struct dirent **list;
	int n = scandir(folder, &list, NULL, alphasort);
	size_t len = 0;

	cr_assert_geq(n, 0, "%s: %s", folder, strerror(errno));
	names[0] = '\0';
	for (int i = 0; i < n; i++) {
		size_t k = strlen(list[i]->d_name);
		if (k > 4 && !strcmp(list[i]->d_name + k - 4, ".tmp") && len < sizeof names)
			len += (size_t)snprintf(names + len, sizeof names - len, "%s ", list[i]->d_name);
		free(list[i]);
	}
	free(list);
	return names;
}

/* A run whose worker fails (its game's start position does not fit the
 * table: seat B to roll in a game of A and C), saying why on stderr,
 * while another plays on (a bot that never says v001) fails, -1, and
 * stops the one still playing, signalling no process it has already
 * reaped (a process id the system may have handed to another).  No
 * worker, failed or stopped, leaves a temporary file (docs/judge-stop.md:
 * only one killed with SIGKILL can). */
Test(judge_rules, run_stopped_by_a_failed_worker_signals_only_live_ones, .timeout = 60)
{
	char dir[256], out[300], errpath[300];
	kj_bot bots[2];
	kj_plan plan;
	kj_start starts[2] = {{.turn = 1, .die = 5}, {.turn = 2, .die = 5}};
	kb_err err = {{0}};

	for (int k = 0; k < 2; k++)
		cr_assert_eq(kb_board_parse("A000000000000000C000000000000000000000000000", KB_BOARD_LEN, 0x5,
					    &starts[k].pos, &err), 0, "%s", err.msg);
	testbot_in("silent", &bots[0]);
	cr_assert_eq(kj_bot_resolve("hard", NULL, &bots[1], &err), 0, "%s", err.msg);
	plan_of(&plan, KJ_FIXED, 2, 2, 2, 3, 2); /* deal 0 (games 0, 1) from start 0 */
	test_tmpdir(dir, sizeof dir);
	snprintf(out, sizeof out, "%s/out", dir);
	kj_run_opts ro = {.bots = bots, .nbots = 2, .plan = &plan, .starts = starts, .out = out,
			  .concurrency = 3, .shard_k = 1, .shard_n = 1, .seed = 3,
			  .match = {.move_ms = 60000, .startup_ms = 60000, .grace_ms = 100}};
	snprintf(errpath, sizeof errpath, "%s/err", dir);
	FILE *saved = stdout, *saved_err = stderr;
	stdout = fopen("/dev/null", "w"), stderr = fopen(errpath, "w");
	cr_assert(stderr && setvbuf(stderr, NULL, _IONBF, 0) == 0); /* as a process's stderr */
	kills_watched = 1;
	int rc = kj_run(&ro, &err);
	kills_watched = 0;
	fclose(stdout), fclose(stderr);
	stdout = saved, stderr = saved_err;
	kj_plan_free(&plan);
	cr_assert_eq(rc, -1, "%s", err.msg);
	cr_assert(strstr(err.msg, ": the worker failed (see above)"), "%s", err.msg);
	cr_expect_eq(stale_kills, 0, "signals sent to %d processes already reaped", stale_kills);
	const char *said = test_read_file(NULL, errpath);
	cr_expect(strstr(said, "kimble-judge: game ") && strstr(said, ": start position: unsound, already won, "
								 "or seats that do not match the lineup\n"),
		  "%s", said);
	char games[320];
	snprintf(games, sizeof games, "%s/games", out);
	cr_expect_str_eq(tmp_files(games), "", "temporary files left in %s", games);
}

/* An output folder that cannot be made (its parent is a file): kj_run
 * returns -1 (run.h) with err naming the folder and the system's error,
 * and plays nothing. */
Test(judge_rules, run_without_its_output_folder_returns_minus_1, .timeout = 60)
{
	char dir[256], file[300], out[320];
	kj_bot bots[2];
	kj_plan plan;
	kb_err err = {{0}};

	test_tmpdir(dir, sizeof dir);
	snprintf(file, sizeof file, "%s/file", dir);
	test_write_file(file, "not a folder\n");
	snprintf(out, sizeof out, "%s/out", file);
	for (int b = 0; b < 2; b++)
		cr_assert_eq(kj_bot_resolve("hard", NULL, &bots[b], &err), 0, "%s", err.msg);
	plan_of(&plan, KJ_FIXED, 2, 2, 1, 3, 0);
	kj_run_opts ro = {.bots = bots, .nbots = 2, .plan = &plan, .out = out, .concurrency = 1,
			  .shard_k = 1, .shard_n = 1, .seed = 3};
	int rc = kj_run(&ro, &err);
	kj_plan_free(&plan);
	cr_assert_eq(rc, -1, "%s", err.msg);
	char want[400];
	snprintf(want, sizeof want, "cannot create the output folder %s: %s", out, strerror(ENOTDIR));
	cr_assert_str_eq(err.msg, want);
}

/* An output folder that can be made but whose full path cannot be had
 * (the run's folder deeper than PATH_MAX: realpath fails) cannot be
 * hidden from the bots: the run refuses, naming it, and plays nothing. */
Test(judge_rules, run_refuses_an_output_folder_it_cannot_hide, .timeout = 60)
{
	char dir[256], name[251];
	kj_bot bots[2];
	kj_plan plan;
	kb_err err = {{0}};

	test_tmpdir(dir, sizeof dir);
	cr_assert_eq(chdir(dir), 0);
	memset(name, 'd', 250);
	name[250] = '\0';
	for (int i = 0; i < 20; i++) /* 5,020 characters below dir */
		cr_assert(mkdir(name, 0755) == 0 && chdir(name) == 0);
	for (int b = 0; b < 2; b++)
		cr_assert_eq(kj_bot_resolve("hard", NULL, &bots[b], &err), 0, "%s", err.msg);
	plan_of(&plan, KJ_FIXED, 2, 2, 1, 3, 0);
	kj_run_opts ro = {.bots = bots, .nbots = 2, .plan = &plan, .out = "out", .concurrency = 1,
			  .shard_k = 1, .shard_n = 1, .seed = 3};
	int rc = kj_run(&ro, &err);
	kj_plan_free(&plan);
	struct stat st;
	int games = stat("out/games/000000.res", &st) == 0;
	rmdir("out/games"), rmdir("out");
	for (int i = 0; i < 20; i++) /* the test folder's removal cannot reach this deep */
		cr_assert(chdir("..") == 0 && rmdir(name) == 0);
	cr_assert_eq(rc, -1);
	cr_assert_str_eq(err.msg, "cannot note the output folder out: File name too long");
	cr_assert_eq(games, 0, "no game was played");
}

/* Three bots, two seats (A and C), two deals per pair: the pairs 01, 02,
 * 12, each deal played twice with the seats swapped. */
Test(judge_rules, plan_round_robin_of_pairs)
{
	kj_plan plan;

	plan_of(&plan, KJ_ROUND_ROBIN, 3, 2, 2, 7, 0);
	cr_assert_eq(plan.table, 2);
	cr_assert_eq(plan.ndeals, 6);
	cr_assert_eq(plan.ngames, 12);
	static const int want[12][2] = {{0, 1}, {1, 0}, {0, 1}, {1, 0}, {0, 2}, {2, 0},
					{0, 2}, {2, 0}, {1, 2}, {2, 1}, {1, 2}, {2, 1}};
	for (uint32_t i = 0; i < 12; i++) {
		const kj_game_spec *g = &plan.games[i];
		cr_assert_eq(g->index, i);
		cr_assert_eq(g->deal, i / 2);
		cr_assert_eq(g->rotation, i % 2);
		cr_assert_eq(g->start, -1);
		cr_assert_eq(g->seed, kb_stream_seed(7, KB_TAG_GAME, i / 2));
		seats_are(g, want[i][0], -1, want[i][1], -1);
	}
	cr_assert_neq(plan.games[0].seed, plan.games[2].seed, "each deal its own seed");
	kj_plan_free(&plan);
	cr_assert_null(plan.games);
	cr_assert_eq(plan.ngames, 0);
}

/* Participant 0 against every pair of the three others, three seats
 * (A B C): each lineup rotates through them; start positions by deal. */
Test(judge_rules, plan_gauntlet_rotates_each_lineup)
{
	kj_plan plan;

	plan_of(&plan, KJ_GAUNTLET, 4, 3, 1, 1, 2);
	cr_assert_eq(plan.ndeals, 3);
	cr_assert_eq(plan.ngames, 9);
	static const int want[9][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 1, 3}, {1, 3, 0},
				       {3, 0, 1}, {0, 2, 3}, {2, 3, 0}, {3, 0, 2}};
	for (uint32_t i = 0; i < 9; i++) {
		seats_are(&plan.games[i], want[i][0], want[i][1], want[i][2], -1);
		cr_assert_eq(plan.games[i].start, (int)(i / 3 % 2), "start position by deal");
	}
	kj_plan_free(&plan);

	/* a table of one: each bot alone, seat A */
	plan_of(&plan, KJ_ROUND_ROBIN, 2, 1, 3, 1, 0);
	cr_assert_eq(plan.ngames, 6);
	for (uint32_t i = 0; i < 6; i++)
		seats_are(&plan.games[i], i < 3 ? 0 : 1, -1, -1, -1);
	kj_plan_free(&plan);
}

/* A fixed lineup of four: 0 1 2 3 in seats A B C D, then rotated. */
Test(judge_rules, plan_fixed_lineup)
{
	kj_plan plan;

	plan_of(&plan, KJ_FIXED, 4, 4, 70, 3, 0);
	cr_assert_eq(plan.ndeals, 70);
	cr_assert_eq(plan.ngames, 280, "more than the first 256 places");
	seats_are(&plan.games[0], 0, 1, 2, 3);
	seats_are(&plan.games[1], 1, 2, 3, 0);
	seats_are(&plan.games[2], 2, 3, 0, 1);
	seats_are(&plan.games[3], 3, 0, 1, 2);
	seats_are(&plan.games[279], 3, 0, 1, 2);
	cr_assert_eq(plan.games[279].deal, 69);
	cr_assert_eq(plan.games[279].index, 279);
	kj_plan_free(&plan);
	cr_assert_eq(kj_table_seat(1, 0), 0);
	cr_assert_eq(kj_table_seat(2, 1), 2);
	cr_assert_eq(kj_table_seat(3, 2), 2);
	cr_assert_eq(kj_table_seat(4, 3), 3);
	/* the seats each table plays: A; A and C; A, B and C; all four */
	cr_assert_eq(kj_table_present(1), 0x1);
	cr_assert_eq(kj_table_present(2), 0x5);
	cr_assert_eq(kj_table_present(3), 0x7);
	cr_assert_eq(kj_table_present(4), 0xf);
	cr_assert_eq(kj_table_present(0), 0, "no table");
	cr_assert_eq(kj_table_present(5), 0, "no table of five (-f fixed with five bots)");
}

Test(judge_rules, plan_sizes_refused)
{
	static const struct {
		enum kj_format fmt;
		int nbots, table;
		const char *msg;
	} bad[] = {
		{KJ_ROUND_ROBIN, 2, 0, "table size: expected 1 to 4 seats"},
		{KJ_ROUND_ROBIN, 5, 5, "table size: expected 1 to 4 seats"},
		{KJ_ROUND_ROBIN, 0, 1, "participants: expected 1 to 64 bots"},
		{KJ_ROUND_ROBIN, 65, 2, "participants: expected 1 to 64 bots"},
		{KJ_FIXED, 3, 2, "fixed lineup: expected as many bots as seats"},
		{KJ_GAUNTLET, 3, 1, "table size 1: a gauntlet needs at least 2 seats"},
		{KJ_ROUND_ROBIN, 2, 3, "table size 3: larger than the number of bots allows (2 bot(s): at most 2 seats)"},
		{KJ_GAUNTLET, 3, 4, "table size 4: larger than the number of bots allows (3 bot(s): at most 3 seats)"},
	};
	kj_plan plan;
	kb_err err;

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err.msg[0] = '\0';
		cr_assert_eq(kj_plan_build(&plan, bad[i].fmt, bad[i].nbots, bad[i].table, 1, 1, 0, &err), -1,
			     "case %zu", i);
		cr_assert_str_eq(err.msg, bad[i].msg);
	}
	plan_of(&plan, KJ_ROUND_ROBIN, 64, 1, 1, 1, 0);
	cr_assert_eq(plan.ngames, 64);
	kj_plan_free(&plan);
	plan_of(&plan, KJ_GAUNTLET, 5, 4, 1, 1, 0);
	cr_assert_eq(plan.ngames, 16, "4 lineups of 4 rotations");
	kj_plan_free(&plan);
}

/* At most 1000000 games: exactly that many is a plan, one more is not. */
Test(judge_rules, plan_of_at_most_a_million_games)
{
	kj_plan plan;
	kb_err err;

	plan_of(&plan, KJ_FIXED, 4, 4, 250000, 1, 0);
	cr_assert_eq(plan.ngames, 1000000);
	kj_plan_free(&plan);
	err.msg[0] = '\0';
	cr_assert_eq(kj_plan_build(&plan, KJ_FIXED, 4, 4, 250001, 1, 0, &err), -1);
	cr_assert_str_eq(err.msg, "plan: more than 1000000 games; use fewer --games");
	cr_assert_null(plan.games);
	cr_assert_eq(plan.ngames, 0);
}

static int starts_of(const char *text, unsigned present, kj_start **out, kb_err *err)
{
	char dir[256], path[300];

	test_tmpdir(dir, sizeof dir);
	snprintf(path, sizeof path, "%s/s", dir);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	err->msg[0] = '\0';
	return kj_starts_read(path, present, out, err);
}

Test(judge_rules, start_file_fields)
{
	char board[KB_BOARD_LEN + 1], text[400];
	kj_start *st;
	kb_err err;

	memset(board, '0', KB_BOARD_LEN);
	board[KB_BOARD_LEN] = '\0';
	board[3] = 'B';
	snprintf(text, sizeof text, "# two positions\n\n  \t\n%s D 0\n%s B 6\n", board, board);
	cr_assert_eq(starts_of(text, 0xf, &st, &err), 2, "%s", err.msg);
	cr_assert_eq(st[0].turn, 3);
	cr_assert_eq(st[0].die, 0);
	cr_assert_eq(st[1].turn, 1);
	cr_assert_eq(st[1].die, 6);
	cr_assert_eq(st[1].pos.present, 0xf);
	free(st);
	/* 40 lines: the list grows past its first 16 */
	text[0] = '\0';
	char *many = calloc(40, KB_BOARD_LEN + 8);
	for (int i = 0; i < 40; i++)
		sprintf(many + strlen(many), "%s %c %d\n", board, 'A' + i % 4, i % 7);
	cr_assert_eq(starts_of(many, 0xf, &st, &err), 40, "%s", err.msg);
	cr_assert_eq(st[39].turn, 3);
	cr_assert_eq(st[39].die, 4);
	free(st);
	free(many);

	static const char *const shape = "expected \"BOARD X D\": a 44-character board, a seat letter A-D, a die 0-6";
	static const char *const bad_tail[] = {" A 7", " E 1", " @ 1", " AB 1", " A", " A 1 x", " A -1"};
	for (size_t i = 0; i < sizeof bad_tail / sizeof bad_tail[0]; i++) {
		snprintf(text, sizeof text, "%s%s\n", board, bad_tail[i]);
		cr_assert_eq(starts_of(text, 0xf, &st, &err), -1, "%s", bad_tail[i]);
		cr_assert(strstr(err.msg, ":1: ") && strstr(err.msg, shape), "%s: %s", bad_tail[i], err.msg);
	}
	snprintf(text, sizeof text, "0%s A 1\n", board);
	cr_assert_eq(starts_of(text, 0xf, &st, &err), -1, "45 characters");
	cr_assert(strstr(err.msg, shape), "%s", err.msg);
	snprintf(text, sizeof text, "%s C 1\n", board);
	cr_assert_eq(starts_of(text, 0x3, &st, &err), -1);
	cr_assert(strstr(err.msg, ":1: seat C to roll does not play at this table"), "%s", err.msg);
	cr_assert_eq(starts_of("# nothing\n\n", 0xf, &st, &err), -1);
	cr_assert(strstr(err.msg, ": no positions"), "%s", err.msg);
	cr_assert_eq(kj_starts_read("/nonexistent/kimble-starts", 0xf, &st, &err), -1);
	cr_assert_str_eq(err.msg, "start positions /nonexistent/kimble-starts: cannot open");
}

/* ---- the rating list: a small tournament worked out apart --------------------- */

/* Expected values from a separate implementation of the model in rating.h
 * (Newton on the ridge-penalised Bradley-Terry likelihood, the sandwich
 * covariance with G/(G-1), Elo = 400/ln 10 per unit), written in Python
 * with its own matrix inverse. */
Test(judge_rules, rating_of_a_worked_tournament)
{
	static const kj_rating_game g[] = {
		{7, 3, {0, 1, 2}, {1, 2, 3}}, {3, 3, {1, 2, 0}, {1, 3, 2}}, {7, 2, {2, 0}, {1, 1}},
		{3, 2, {0, 1}, {2, 1}},       {9, 3, {0, 2, 1}, {1, 2, 2}}, {3, 2, {2, 1}, {2, 1}},
		{9, 3, {1, 0, 2}, {2, 1, 3}},
	};
	static const double elo[3] = {157.515264324, 98.110905878, -255.626170202};
	static const double se[3] = {100.982497569, 141.155854472, 53.595195714};
	static const double cov[3][3] = {{10197.464815, -13624.997536, 3427.532709},
					 {-13624.997536, 19924.975252, -6299.977728},
					 {3427.532709, -6299.977728, 2872.445004}};
	kj_rating r;
	kb_err err;

	cr_assert_eq(kj_rating_fit(g, 7, 4, &r, &err), KJ_RATING_OK, "%s", err.msg);
	cr_assert_eq(r.nbots, 4);
	cr_assert_eq(r.games, 7);
	cr_assert_eq(r.clusters, 3);
	for (int i = 0; i < 3; i++) {
		cr_assert(fabs(r.elo[i] - elo[i]) < 1e-4, "bot %d: elo %.9f, want %.9f", i, r.elo[i], elo[i]);
		cr_assert(fabs(r.se[i] - se[i]) < 1e-4, "bot %d: se %.9f, want %.9f", i, r.se[i], se[i]);
		cr_assert(fabs(r.lo[i] - (elo[i] - 1.959964 * se[i])) < 1e-3, "bot %d lo %f", i, r.lo[i]);
		cr_assert(fabs(r.hi[i] - (elo[i] + 1.959964 * se[i])) < 1e-3, "bot %d hi %f", i, r.hi[i]);
		for (int j = 0; j < 3; j++)
			cr_assert(fabs(r.cov[i * 4 + j] - cov[i][j]) < 1e-2, "cov %d %d: %f", i, j, r.cov[i * 4 + j]);
	}
	cr_assert_eq(r.elo[3], 0, "bot 3 never played");
	cr_assert(isinf(r.se[3]) && isinf(r.lo[3]) && r.lo[3] < 0 && isinf(r.hi[3]) && r.hi[3] > 0);

	double diff, lo, hi;
	kj_rating_versus(&r, 0, 2, &diff, &lo, &hi);
	cr_assert(fabs(diff - 413.141434526) < 1e-4, "%f", diff);
	cr_assert(fabs(lo - 258.629075037) < 1e-3 && fabs(hi - 567.653794015) < 1e-3, "%f %f", lo, hi);
	kj_rating_versus(&r, 3, 0, &diff, &lo, &hi);
	cr_assert(isinf(lo) && isinf(hi), "against a bot in no game: unbounded");
	int order[4];
	kj_rating_order(&r, order);
	cr_assert(order[0] == 0 && order[1] == 1 && order[2] == 3 && order[3] == 2, "%d %d %d %d", order[0],
		  order[1], order[2], order[3]);
	kj_rating_free(&r);
	cr_assert_null(r.cov);
}

/* Best first; equal ratings in the bots' order. */
Test(judge_rules, rating_order_keeps_ties_by_number)
{
	kj_rating r = {.nbots = 5, .elo = {5, 10, 5, -1, 10}};
	int order[5];

	kj_rating_order(&r, order);
	static const int want[5] = {1, 4, 0, 2, 3};
	for (int i = 0; i < 5; i++)
		cr_assert_eq(order[i], want[i], "place %d: %d", i, order[i]);
}

Test(judge_rules, rating_input_checked)
{
	kj_rating_game g[2] = {{0, 2, {0, 1}, {1, 2}}, {0, 2, {0, 1}, {1, 2}}};
	kj_rating r;
	kb_err err;

	cr_assert_eq(kj_rating_fit(g, 2, 1, &r, &err), KJ_RATING_BAD_INPUT);
	cr_assert_str_eq(err.msg, "rating: 1 bots: expected 2 to 64");
	cr_assert_eq(kj_rating_fit(g, 2, 65, &r, &err), KJ_RATING_BAD_INPUT);
	cr_assert_eq(kj_rating_fit(g, 2, 64, &r, &err), KJ_RATING_OK, "%s", err.msg);
	kj_rating_free(&r);
	cr_assert_eq(kj_rating_fit(g, 2, 2, &r, &err), KJ_RATING_OK, "%s", err.msg);
	cr_assert_eq(r.clusters, 1);
	cr_assert(r.elo[0] > 0 && NEAR(r.elo[0], -r.elo[1]), "%f %f", r.elo[0], r.elo[1]);
	kj_rating_free(&r);
	g[1].seats = 1;
	cr_assert_eq(kj_rating_fit(g, 2, 2, &r, &err), KJ_RATING_BAD_INPUT);
	cr_assert_str_eq(err.msg, "rating: game 1 has 1 seats: expected 2 to 4");
	g[1].seats = 5;
	cr_assert_eq(kj_rating_fit(g, 2, 2, &r, &err), KJ_RATING_BAD_INPUT);
	g[1].seats = 4;
	g[1].bot[2] = 0, g[1].bot[3] = 1;
	cr_assert_eq(kj_rating_fit(g, 2, 2, &r, &err), KJ_RATING_OK, "four seats: %s", err.msg);
	kj_rating_free(&r);
	g[1].bot[3] = 2;
	cr_assert_eq(kj_rating_fit(g, 2, 2, &r, &err), KJ_RATING_BAD_INPUT);
	cr_assert_str_eq(err.msg, "rating: game 1 names bot 2: expected 0 to 1");
	g[1].bot[3] = -1;
	cr_assert_eq(kj_rating_fit(g, 2, 2, &r, &err), KJ_RATING_BAD_INPUT);
	cr_assert_eq(kj_rating_fit(g, 0, 3, &r, &err), KJ_RATING_OK, "no games: all zero");
	cr_assert(r.elo[0] == 0 && isinf(r.se[0]));
	kj_rating_free(&r);
}

/* ---- a learned-state folder's fingerprint ------------------------------------ */

static uint64_t fnv(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

/* The test stops unless bot's fingerprint is FNV-1a of bytes[0..n). */
static void fingerprint_is(const kj_bot *bot, const char *bytes, size_t n, const char *why)
{
	char fp[17], want[17];

	kj_bot_fingerprint(bot, fp);
	snprintf(want, sizeof want, "%016llx", (unsigned long long)fnv(0xcbf29ce484222325ull, bytes, n));
	cr_assert_str_eq(fp, want, "%s", why);
}

/* FNV-1a over each regular file's path (from the state folder, NUL
 * ended) and bytes, in name order; LMDB lock files left out. */
Test(judge_rules, fingerprint_of_a_state_folder)
{
	char dir[256], state[300], sub[320];
	kj_bot bot;
	kb_err err;

	test_tmpdir(dir, sizeof dir);
	put(dir, "meta", "fp\n/bin/true\n\n0\nlearned\n");
	snprintf(state, sizeof state, "%s/learned", dir);
	cr_assert_eq(mkdir(state, 0755), 0);
	put(state, "b", "xy");
	put(state, "a", "z");
	put(state, "lock.mdb", "changes on every open");
	put(state, "x-lock", "so does this");
	snprintf(sub, sizeof sub, "%s/d", state);
	cr_assert_eq(mkdir(sub, 0755), 0);
	put(sub, "c", "w");
	cr_assert_eq(kj_bot_load(dir, &bot, &err), 0, "%s", err.msg);
	fingerprint_is(&bot, "./a\0z./b\0xy./d/c\0w", 18, "lock files left out");
	/* "-lock" alone and "lock.mdbx" are no lock files */
	put(state, "-lock", "q");
	fingerprint_is(&bot, "./-lock\0q./a\0z./b\0xy./d/c\0w", 27, "a file named -lock counts");
	put(state, "lock.mdbx", "");
	fingerprint_is(&bot, "./-lock\0q./a\0z./b\0xy./d/c\0w./lock.mdbx\0", 39, "lock.mdbx counts");
}

/* Files down to 8 levels below the state folder count, deeper ones do
 * not: learned/1/.../7/f (level 8) counts, learned/1/.../8/g (level 9)
 * does not. */
Test(judge_rules, fingerprint_down_to_eight_levels)
{
	char dir[256], path[400];
	kj_bot bot;
	kb_err err;

	test_tmpdir(dir, sizeof dir);
	put(dir, "meta", "fp\n/bin/true\n\n0\nlearned\n");
	int n = snprintf(path, sizeof path, "%s/learned", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	for (int level = 1; level <= 8; level++) {
		n += snprintf(path + n, sizeof path - (size_t)n, "/%d", level);
		cr_assert_eq(mkdir(path, 0755), 0, "%s", path);
		if (level == 7)
			put(path, "f", "F");
	}
	put(path, "g", "G");
	cr_assert_eq(kj_bot_load(dir, &bot, &err), 0, "%s", err.msg);
	fingerprint_is(&bot, "./1/2/3/4/5/6/7/f\0F", 19, "level 8 counts, level 9 does not");
}

/* A bot folder in a new temporary dir whose state path, learned (its
 * folder in state), is an LMDB store of one record: key "o/kim", value
 * "abc". */
static void store_bot(char *dir, size_t dir_size, char *state, size_t state_size)
{
	kb_store *st;
	kb_err err;

	test_tmpdir(dir, dir_size);
	put(dir, "meta", "fp\n/bin/true\n\n0\nlearned\n");
	snprintf(state, state_size, "%s/learned", dir);
	cr_assert_eq(kb_store_open(&st, state, KB_STORE_CREATE, NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(kb_store_put_raw(st, "kim", (const uint8_t *)"abc", 3, &err), 0, "%s", err.msg);
	kb_store_close(st);
}

/* The test stops unless bot's fingerprint is that of store_bot's store
 * at path rel (from the state path): rel and its NUL, the words "lmdb
 * records" and their NUL, and the store's digest's 8 bytes, least
 * significant first (bots.h); the digest is worked out here from its
 * definition in store.h: one record, key "o/kim", value "abc". */
static void fingerprint_is_kims_store(const kj_bot *bot, const char *rel)
{
	static const char tag[] = "lmdb records";
	uint64_t digest = fnv(0xcbf29ce484222325ull, "\5\0\0\0o/kim\3\0\0\0abc", 16);
	char bytes[64];
	size_t n = strlen(rel) + 1;

	memcpy(bytes, rel, n);
	memcpy(bytes + n, tag, sizeof tag), n += sizeof tag;
	for (int i = 0; i < 8; i++)
		bytes[n++] = (char)(digest >> (8 * i) & 0xff);
	fingerprint_is(bot, bytes, n, "the store's records, every byte of the digest");
}

/* A data.mdb that opens as an LMDB store counts as its path, the words
 * "lmdb records" and the store's digest (fingerprint_is_kims_store). */
Test(judge_rules, fingerprint_of_an_lmdb_store)
{
	char dir[256], state[300];
	kj_bot bot;
	kb_err err;

	store_bot(dir, sizeof dir, state, sizeof state);
	cr_assert_eq(kj_bot_load(dir, &bot, &err), 0, "%s", err.msg);
	fingerprint_is_kims_store(&bot, "./data.mdb");

	/* the fingerprint keeps nothing: no descriptor (the store's), no
	 * memory (the folder's listing) */
	char fp[17];
	for (int i = 0; i < 16; i++) /* the allocator's caches fill */
		kj_bot_fingerprint(&bot, fp);
	int fds = test_open_fds();
	for (int i = 0; i < 4; i++) {
		size_t before = mallinfo2().uordblks;
		kj_bot_fingerprint(&bot, fp);
		cr_assert_eq(mallinfo2().uordblks, before, "%zd bytes left allocated",
			     (ssize_t)(mallinfo2().uordblks - before));
	}
	cr_assert_eq(test_open_fds(), fds, "no descriptor left open");

	/* a data.mdb that does not open as a store counts as its bytes */
	snprintf(state, sizeof state, "%s/learned", dir);
	put(state, "data.mdb", "junk");
	remove(strcat(state, "/lock.mdb"));
	fingerprint_is(&bot, "./data.mdb\0junk", 15, "not a store: its bytes");
}

/* A state path that names the data.mdb itself (meta line 5
 * "learned/data.mdb") counts as the store's records too: the path ".",
 * then "lmdb records" and the digest, as bots.h says for a data.mdb. */
Test(judge_rules, fingerprint_of_a_state_path_naming_the_data_mdb)
{
	char dir[256], state[300];
	kj_bot bot;
	kb_err err;

	store_bot(dir, sizeof dir, state, sizeof state);
	put(dir, "meta", "fp\n/bin/true\n\n0\nlearned/data.mdb\n");
	cr_assert_eq(kj_bot_load(dir, &bot, &err), 0, "%s", err.msg);
	fingerprint_is_kims_store(&bot, ".");
}

/* A data.mdb that opens as a store but whose records cannot be read (the
 * digest fails: here its cursor, out of memory) counts as its bytes,
 * as a data.mdb that does not open: its path, then the file's bytes, not
 * its path alone. */
Test(judge_rules, fingerprint_of_a_store_whose_records_cannot_be_read)
{
	char dir[256], state[300], data[320], fp[17], want[17];
	struct stat st;
	kj_bot bot;
	kb_err err;

	store_bot(dir, sizeof dir, state, sizeof state);
	snprintf(data, sizeof data, "%s/data.mdb", state);
	char *bytes = test_slurp(data);
	cr_assert(bytes && stat(data, &st) == 0 && st.st_size > 0, "%s", data);
	uint64_t h = fnv(0xcbf29ce484222325ull, "./data.mdb", 11);
	snprintf(want, sizeof want, "%016llx", (unsigned long long)fnv(h, bytes, (size_t)st.st_size));
	free(bytes);
	cr_assert_eq(kj_bot_load(dir, &bot, &err), 0, "%s", err.msg);
	failed_cursors = 1;
	kj_bot_fingerprint(&bot, fp);
	cr_assert_eq(failed_cursors, 0, "the digest was not tried");
	cr_assert_str_eq(fp, want, "a store that cannot be read: its bytes");
}

/* The HOME a bot gets: its own folder, unless --pass-env names HOME
 * itself (not a name that only starts like it, nor one it starts). */
static const char *env_home(const char *pass)
{
	static kj_env e;
	kj_bot bot = {0};

	snprintf(bot.dir, sizeof bot.dir, "/bots/b");
	kj_env_build(&e, &bot, 1, pass);
	const char *home = NULL;
	for (int i = 0; e.vars[i]; i++)
		if (!strncmp(e.vars[i], "HOME=", 5)) {
			cr_assert_null(home, "two HOME entries");
			home = e.vars[i];
		}
	return home ? home : "(none)";
}

Test(judge_rules, bot_home_unless_passed)
{
	cr_assert_eq(setenv("HOME", "/judge/home", 1), 0);
	cr_assert_str_eq(env_home(NULL), "HOME=/bots/b");
	cr_assert_str_eq(env_home("HOME"), "HOME=/judge/home");
	cr_assert_str_eq(env_home("LANG,HOME"), "HOME=/judge/home");
	cr_assert_str_eq(env_home("HOM"), "HOME=/bots/b");
	cr_assert_str_eq(env_home("HOMER"), "HOME=/bots/b");
	cr_assert_str_eq(env_home("*"), "HOME=/judge/home");
}

/* A bot's whole environment, entry by entry, from a judge's environment
 * written here (botenv.h's list): the bot's HOME first, KIMBLE_LEARN=0
 * when frozen, then the judge's PATH, LANG, LANGUAGE, LC_*, TZ and
 * KIMBLE_* in the judge's order (LC_X and KIMBLE_X: the shortest names
 * of the two families), and the names passed; never a name that only
 * starts like one of those, nor an entry without '='. */
static void env_is(int learn, const char *pass, const char *want)
{
	static kj_env e;
	kj_bot bot = {0};
	char got[2048] = "";

	snprintf(bot.dir, sizeof bot.dir, "/bots/b");
	kj_env_build(&e, &bot, learn, pass);
	for (int i = 0; e.vars[i]; i++)
		snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", i ? " " : "", e.vars[i]);
	cr_expect_str_eq(got, want, "learn %d, pass %s", learn, pass ? pass : "(none)");
}

extern char **environ;

Test(judge_rules, bot_environment_entry_by_entry)
{
	static char *judge_env[] = {
		"PATH=/usr/bin:/bin", "PAT=x", "PATHS=x", "HOME=/root", "HOMEX=h", "LANG=C.UTF-8", "LAN=x",
		"LANGUAGE=fi", "LC_ALL=C", "LC_X=4", "LC_=x", "LC=x", "LCXY=x", "TZ=UTC", "TZX=x", "KIMBLE_STATE=/s",
		"KIMBLE_X=8", "KIMBLE_=x", "KIMBLE=x", "KIMBLEXY=x", "KIMBLE_LEARN=1", "SECRET_TOKEN=t",
		"AWS_KEY=k", "NOEQUALS", NULL};

	environ = judge_env;
	env_is(1, NULL, "HOME=/bots/b PATH=/usr/bin:/bin LANG=C.UTF-8 LANGUAGE=fi LC_ALL=C LC_X=4 TZ=UTC "
	       "KIMBLE_STATE=/s KIMBLE_X=8 KIMBLE_LEARN=1");
	env_is(0, NULL, "HOME=/bots/b KIMBLE_LEARN=0 PATH=/usr/bin:/bin LANG=C.UTF-8 LANGUAGE=fi "
	       "LC_ALL=C LC_X=4 TZ=UTC KIMBLE_STATE=/s KIMBLE_X=8");
	env_is(1, "AWS_KEY,HOME", "PATH=/usr/bin:/bin HOME=/root LANG=C.UTF-8 LANGUAGE=fi LC_ALL=C LC_X=4 "
	       "TZ=UTC KIMBLE_STATE=/s KIMBLE_X=8 KIMBLE_LEARN=1 AWS_KEY=k");
	env_is(0, "SECRET_TOKEN,,PAT,NOEQUALS", "HOME=/bots/b KIMBLE_LEARN=0 PATH=/usr/bin:/bin PAT=x "
	       "LANG=C.UTF-8 LANGUAGE=fi LC_ALL=C LC_X=4 TZ=UTC KIMBLE_STATE=/s KIMBLE_X=8 SECRET_TOKEN=t");
	env_is(1, "*", "PATH=/usr/bin:/bin PAT=x PATHS=x HOME=/root HOMEX=h LANG=C.UTF-8 LAN=x LANGUAGE=fi "
	       "LC_ALL=C LC_X=4 LC_=x LC=x LCXY=x TZ=UTC TZX=x KIMBLE_STATE=/s KIMBLE_X=8 KIMBLE_=x KIMBLE=x KIMBLEXY=x KIMBLE_LEARN=1 "
	       "SECRET_TOKEN=t AWS_KEY=k");
	env_is(1, "A,*", "PATH=/usr/bin:/bin PAT=x PATHS=x HOME=/root HOMEX=h LANG=C.UTF-8 LAN=x LANGUAGE=fi "
	       "LC_ALL=C LC_X=4 LC_=x LC=x LCXY=x TZ=UTC TZX=x KIMBLE_STATE=/s KIMBLE_X=8 KIMBLE_=x KIMBLE=x KIMBLEXY=x KIMBLE_LEARN=1 "
	       "SECRET_TOKEN=t AWS_KEY=k");
	env_is(1, "**,PATHS", "HOME=/bots/b PATH=/usr/bin:/bin PATHS=x LANG=C.UTF-8 LANGUAGE=fi "
	       "LC_ALL=C LC_X=4 TZ=UTC KIMBLE_STATE=/s KIMBLE_X=8 KIMBLE_LEARN=1");
	env_is(1, "HOMEX", "HOME=/bots/b PATH=/usr/bin:/bin HOMEX=h LANG=C.UTF-8 LANGUAGE=fi LC_ALL=C LC_X=4 "
	       "TZ=UTC KIMBLE_STATE=/s KIMBLE_X=8 KIMBLE_LEARN=1");
}

/* At most KJ_ENV_MAX entries, the bot's own KIMBLE_LEARN=0 included
 * (with "*" the judge's HOME, none here, takes the place of the bot's):
 * the judge's beyond are left out. */
Test(judge_rules, bot_environment_bounded)
{
	static char names[600][16], *judge_env[601];
	static kj_env e;
	kj_bot bot = {0};
	int n = 0;

	for (int i = 0; i < 600; i++) {
		snprintf(names[i], sizeof names[i], "V%d=x", i);
		judge_env[i] = names[i];
	}
	environ = judge_env;
	kj_env_build(&e, &bot, 0, "*");
	while (e.vars[n])
		n++;
	cr_assert_eq(n, KJ_ENV_MAX);
	cr_assert_str_eq(e.vars[0], "KIMBLE_LEARN=0");
	cr_assert_str_eq(e.vars[KJ_ENV_MAX - 1], "V510=x");
}

/* --pass-env takes names of letters, digits and '_' (not starting with a
 * digit) separated by commas, or "*" alone, also as --pass-env=*; at most
 * 4094 characters of names in all (the comma joining two options' names
 * not counted). */
Test(judge_rules, pass_env_names, .timeout = 60)
{
	static const char *const good[] = {"--pass-env=*", "A_1,b", "_x", "Z9,,a"};
	static const char *const bad[] = {"1A", "A-B", "A B", "", "**", "A*", "*,A", "é"};
	static char big[4096], half[2100];
	const char *unknown = "unknown option \"--zz-no-such-option\"";

	for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
		const char *args[] = {"--pass-env", good[i], "--zz-no-such-option", NULL};
		test_usage_says("kimble-judge", i ? args : args + 1, unknown);
	}
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char says[64];
		const char *args[] = {"--pass-env", bad[i], "--zz-no-such-option", NULL};
		snprintf(says, sizeof says, "--pass-env \"%s\": expected variable names", bad[i]);
		test_usage_says("kimble-judge", args, says);
	}
	memset(big, 'A', 4094);
	const char *most[] = {"--pass-env", big, "--zz-no-such-option", NULL};
	test_usage_says("kimble-judge", most, unknown);
	big[4094] = 'A';
	test_usage_says("kimble-judge", most, "--pass-env: at most 4094 characters of names in all");
	memset(half, 'B', 2047);
	big[2047] = '\0'; /* 2047 + 2047 */
	const char *two[] = {"--pass-env", big, "--pass-env", half, "--zz-no-such-option", NULL};
	test_usage_says("kimble-judge", two, unknown);
	half[2047] = 'B';
	test_usage_says("kimble-judge", two, "--pass-env: at most 4094 characters");
}

/* ---- more command-line bounds --------------------------------------------- */

Test(judge_rules, judge_limits_and_shards_out_of_range, .timeout = 60)
{
	static const char *const rest[] = {"-o", "/nonexistent/kimble-out", "hard", "easy", NULL};
	const char *err;

	test_usage_errors("kimble-judge", rest);
	const char *zero[] = {"--max-errors", "-0", "--sandbox", "off", "-o", "/nonexistent/kimble-out", "hard", "easy", NULL};
	cr_assert_eq(test_run_prog("kimble-judge", zero, NULL, &err), 2, "-0 is 0: %s", err);
	cr_assert(strstr(err, "cannot create the output folder /nonexistent/kimble-out"), "%s", err);
}

/* The table is followed by the rating list, in the text and in the JSON. */
Test(judge_rules, report_shows_the_rating_list)
{
	kj_report rep = two_deal_report(2, 1);
	const char *t = printed(&rep, 0, 0);
	has(t, "rating (Elo scale, field mean 0, 95% interval; 2 games, 2 deals):\n  1 x ");
	/* one line per bot: 1 and 2, no third */
	const char *line = strstr(t, "rating (Elo scale");
	for (int k = 1; k <= 3; k++) {
		char rank[16];
		line = strchr(line, '\n');
		cr_assert_not_null(line);
		line++;
		snprintf(rank, sizeof rank, "%3d ", k);
		cr_assert_eq(strncmp(line, rank, 4) == 0, k <= 2, "rank %d of 2 bots in:\n%s", k, t);
	}
	t = printed(&rep, 0, 1);
	has(t, "\"rating\": [\n    {\"rank\": 1, \"name\": \"x\", \"elo\": ");
	kj_report_free(&rep);
}

/* ---- the HTML report: numbers and drawings worked out by hand ----------------- */

static const char *report_page(kj_report *rep, const kj_result *res, size_t n, char *dir, size_t size)
{
	kb_err err;

	test_tmpdir(dir, size);
	cr_assert_eq(kj_report_html(dir, rep, res, n, &err), 0, "%s", err.msg);
	return test_read_file(dir, "report.html");
}

/* Rows of the table with this id, its header row included. */
static int rows_of(const char *page, const char *id)
{
	char open[64];
	int rows = 0;

	snprintf(open, sizeof open, "<table id=\"%s\">", id);
	const char *p = strstr(page, open), *end = p ? strstr(p, "</table>") : NULL;
	cr_assert(p && end, "no table %s", id);
	for (; (p = strstr(p + 1, "<tr>")) && p < end;)
		rows++;
	return rows;
}

static void rated(kj_standings *st, int b, double elo, double lo, double hi)
{
	st->rating.elo[b] = elo, st->rating.lo[b] = lo, st->rating.hi[b] = hi;
	st->rating.se[b] = (hi - lo) / 3.92; /* a spread, so the interval is shown */
}

#define BAR(x, w, m)                                                                          \
	"<rect x=\"" x "\" y=\"4\" width=\"" w "\" height=\"6\" fill=\"#9ec5e8\"/><circle cx=\"" m \
	"\" cy=\"7\" r=\"4\" fill=\"#1f77b4\"/></svg></td></tr>\n"

/* Scale: the intervals cut to +-1000, here -1000..1000, 0.15 px an Elo. */
Test(judge_rules, html_rating_bars_on_one_scale)
{
	static kj_report rep;
	static kj_standings st;
	char dir[256];

	memset(&rep, 0, sizeof rep), memset(&st, 0, sizeof st);
	rep.nbots = 4, rep.games = 12, rep.standings = &st;
	for (int b = 0; b < 4; b++)
		snprintf(rep.bots[b].name, sizeof rep.bots[b].name, "%s", (const char *[]){"p", "q", "r", "s<&>"}[b]);
	st.has_rating = 1, st.subject = -1;
	st.rating.nbots = 4, st.rating.games = 12, st.rating.clusters = 5;
	rated(&st, 0, 400, 100, 1005), rated(&st, 1, 0, -996, 200), rated(&st, 2, -400, -1300, -100);
	rated(&st, 3, 500, 500, 500.3);
	int order[4] = {3, 0, 1, 2};
	memcpy(st.order, order, sizeof order);
	const char *page = report_page(&rep, NULL, 0, dir, sizeof dir);
	has(page, "(12 games, 5 deals).</p>");
	has(page, "<line x1=\"150.0\" x2=\"150.0\" y1=\"0\" y2=\"8\" stroke=\"#000\" stroke-width=\"2\"/>"
		  "<text x=\"150.0\" y=\"17\" text-anchor=\"middle\">0</text><text x=\"0\" y=\"17\" "
		  "text-anchor=\"start\">-1000</text><text x=\"300\" y=\"17\" text-anchor=\"end\">+1000</text>");
	has(page, "<tr><td>1</td><td class=\"l\">s&lt;&amp;&gt;</td><td>+500.0</td><td>+500.0 &hellip; +500.3</td>");
	has(page, "<tr><td>2</td><td class=\"l\">p</td><td>+400.0</td><td>+100.0 &hellip; +1005.0</td>");
	has(page, "<line x1=\"150.0\" x2=\"150.0\" y1=\"0\" y2=\"14\" stroke=\"#555\" stroke-dasharray=\"2,2\"/>");
	has(page, BAR("225.0", "1.0", "225.0"));   /* at least a pixel wide */
	has(page, BAR("165.0", "135.0", "210.0")); /* 300.75: cut at the right end */
	has(page, BAR("0.6", "179.4", "150.0"));
	has(page, BAR("0.0", "135.0", "90.0"));    /* cut at the left end */
	has(page, "<tr><td>4</td><td class=\"l\">r</td>");
	cr_assert_eq(rows_of(page, "rating"), 1 + 4);
	cr_assert_eq(rows_of(page, "results"), 1 + 4);
	cr_assert_null(strstr(page, "Pairwise Elo"), "no pairs");
	cr_assert_null(strstr(page, "per opponent"));
	cr_assert_null(strstr(page, "Learning curve"));

	/* -500..700: 0.25 px an Elo, the 0 at 125 */
	rep.nbots = 2;
	rated(&st, 0, 400, 100, 700), rated(&st, 1, -100, -500, 200);
	st.order[0] = 0, st.order[1] = 1;
	page = report_page(&rep, NULL, 0, dir, sizeof dir);
	has(page, "<text x=\"125.0\" y=\"17\" text-anchor=\"middle\">0</text><text x=\"0\" y=\"17\" "
		  "text-anchor=\"start\">-500</text><text x=\"300\" y=\"17\" text-anchor=\"end\">+700</text>");
	has(page, BAR("150.0", "150.0", "225.0"));
	has(page, BAR("0.0", "175.0", "100.0"));

	/* everything at 0: a scale of one Elo */
	rated(&st, 0, 0, 0, 0), rated(&st, 1, 0, 0, 0);
	page = report_page(&rep, NULL, 0, dir, sizeof dir);
	has(page, "text-anchor=\"start\">+0</text><text x=\"300\" y=\"17\" text-anchor=\"end\">+1</text>");
	has(page, BAR("0.0", "1.0", "0.0"));
}

/* The table, the pairs, the subject per opponent, the curve and the games. */
Test(judge_rules, html_tables_curve_and_games)
{
	static kj_report rep;
	static kj_standings st;
	static kj_curve_point pts[3];
	static kj_pair_elo pair = {.a = 0, .b = 1, .deals = 5, .mean = 0.625, .var = 0.01, .elo = 88.7, .lo = -85, .hi = 330.2};
	kj_result res[2];
	char dir[256];

	memset(&rep, 0, sizeof rep), memset(&st, 0, sizeof st), memset(pts, 0, sizeof pts);
	rep.nbots = 3, rep.games = 3, rep.standings = &st, rep.pairs = &pair, rep.npairs = 1;
	snprintf(rep.bots[0].name, 64, "x");
	snprintf(rep.bots[1].name, 64, "y");
	snprintf(rep.bots[2].name, 64, "z");
	rep.bots[0].games = 3, rep.bots[0].wins = 1, rep.bots[0].place_sum = 5, rep.bots[0].decisions = 4;
	rep.bots[0].ms_total = 10, rep.bots[0].ms_max = 7, rep.bots[0].forfeits[KJ_CRASH] = 1;
	rep.bots[2].games = 10, rep.bots[2].wins = 5, rep.bots[2].place_sum = 15;
	st.subject = 0, st.nopp = 2;
	st.opp[0] = (kj_opponent){.bot = 1, .games = 10, .wins = 4, .opp_wins = 3,
				  .pair = {.deals = 5, .var = 0.01, .elo = 12.3, .lo = -45.6, .hi = 78.9}};
	st.opp[1] = (kj_opponent){.bot = 2};
	st.fixed = 1, st.window = 5, st.ncurve = 3, st.curve = pts;
	st.first_seat[0] = 2, st.first_seat[1] = 0, st.first_seat[2] = -1;
	static const uint32_t deal[3] = {0, 4, 9}, games[3][2] = {{2, 2}, {4, 4}, {4, 4}},
			      wins[3][2] = {{1, 1}, {4, 0}, {0, 4}};
	for (int p = 0; p < 3; p++) {
		pts[p].deal = deal[p];
		for (int b = 0; b < 2; b++)
			pts[p].games[b] = games[p][b], pts[p].wins[b] = wins[p][b];
	}
	memset(res, 0, sizeof res);
	seat(&res[0], 0, "x", 1), seat(&res[0], 2, "y", 2);
	res[0].game = 1, res[0].deal = 0, res[0].winner = 0, res[0].rolls = 77;
	seat(&res[1], 1, "x", 2), seat(&res[1], 3, "y<", 1);
	res[1].game = 2, res[1].deal = 1, res[1].winner = -1, res[1].rolls = 12;
	res[1].seat[1].reason = KJ_CRASH;

	test_tmpdir(dir, sizeof dir);
	char games_dir[300];
	snprintf(games_dir, sizeof games_dir, "%s/games", dir);
	cr_assert_eq(mkdir(games_dir, 0755), 0);
	put(games_dir, "000002.html", "");
	kb_err err;
	cr_assert_eq(kj_report_html(dir, &rep, res, 2, &err), 0, "%s", err.msg);
	const char *page = test_read_file(dir, "report.html");

	has(page, "<p>3 games, 3 bots.</p>");
	has(page, "<tr><td class=\"l\">x</td><td>3</td><td>1</td><td>33.3%</td><td>6.1% &ndash; 79.2%</td>"
		  "<td>1.67</td><td class=\"l\">crash:1</td><td>2.500</td><td>7.000</td></tr>");
	has(page, "<tr><td class=\"l\">y</td><td>0</td><td>0</td><td>0.0%</td><td>0.0% &ndash; 100.0%</td>"
		  "<td>0.00</td><td class=\"l\">-</td><td>0.000</td><td>0.000</td></tr>");
	/* 5 of 10: Wilson's 95% interval 23.659% to 76.341% */
	has(page, "<tr><td class=\"l\">z</td><td>10</td><td>5</td><td>50.0%</td><td>23.7% &ndash; 76.3%</td>"
		  "<td>1.50</td><td class=\"l\">-</td><td>0.000</td><td>0.000</td></tr>");
	cr_assert_null(strstr(page, "Rating list"), "no rating");
	has(page, "<tr><td class=\"l\">x</td><td class=\"l\">y</td><td>+88.7</td><td>-85.0 &hellip; +330.2</td>"
		  "<td>5</td><td>0.625</td></tr>");
	has(page, "<h2>x per opponent</h2>");
	has(page, "<tr><td class=\"l\">y</td><td>10</td><td>40.0% (17&ndash;69)</td><td>30.0% (11&ndash;60)</td>"
		  "<td>+12.3</td><td>-45.6 &hellip; +78.9</td><td>5</td></tr>");

	/* the curve: x from 44 (deal 1) to 490 (deal 10), y from 10 (100%) to 246 (0%) */
	has(page, "Win rate of each bot over the last 5 deals");
	has(page, "<line x1=\"44\" x2=\"490\" y1=\"246.0\" y2=\"246.0\" stroke=\"#ddd\"/><text x=\"40\" y=\"250.0\" "
		  "text-anchor=\"end\">0%</text>");
	has(page, "<line x1=\"44\" x2=\"490\" y1=\"69.0\" y2=\"69.0\" stroke=\"#ddd\"/><text x=\"40\" y=\"73.0\" "
		  "text-anchor=\"end\">75%</text>");
	char grid[200]; /* a line and a label every 25 %, from 0 % (y 246) to 100 % (y 10) */
	for (int k = 0; k <= 4; k++) {
		snprintf(grid, sizeof grid, "<line x1=\"44\" x2=\"490\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
			 "<text x=\"40\" y=\"%.1f\" text-anchor=\"end\">%d%%</text>", 246 - 59.0 * k,
			 246 - 59.0 * k, 250 - 59.0 * k, 25 * k);
		has(page, grid);
	}
	cr_assert_eq(test_count(page, "stroke=\"#ddd\""), 5);
	has(page, "<text x=\"267\" y=\"268\" text-anchor=\"middle\">deal</text>");
	has(page, "<text x=\"44\" y=\"268\" text-anchor=\"start\">deal 1</text><text x=\"490\" y=\"268\" "
		  "text-anchor=\"end\">deal 10</text>");
	has(page, "<polygon fill=\"#2ca02c\" fill-opacity=\"0.15\" points=\"44.0,32.3 242.2,10.0 490.0,130.4 "
		  "490.0,246.0 242.2,125.6 44.0,223.7 \"/>\n<polyline fill=\"none\" stroke=\"#2ca02c\" "
		  "stroke-width=\"2\" points=\"44.0,128.0 242.2,10.0 490.0,246.0 \"/>");
	has(page, "<polygon fill=\"#d62728\" fill-opacity=\"0.15\" points=\"44.0,32.3 242.2,130.4 490.0,10.0 "
		  "490.0,125.6 242.2,246.0 44.0,223.7 \"/>");
	has(page, "<rect x=\"502\" y=\"10\" width=\"12\" height=\"12\" fill=\"#2ca02c\"/><text x=\"518\" y=\"20\">x (C)</text>");
	has(page, "<rect x=\"502\" y=\"28\" width=\"12\" height=\"12\" fill=\"#d62728\"/><text x=\"518\" y=\"38\">y (A)</text>");
	/* one band, line and legend entry per bot, no more */
	cr_assert_eq(test_count(page, "<polygon "), 3);
	cr_assert_eq(test_count(page, "<polyline "), 3);
	cr_assert_eq(test_count(page, "width=\"12\" height=\"12\""), 3);

	has(page, "<tr><td>1</td><td>0</td><td class=\"l\">A&nbsp;x C&nbsp;y </td><td class=\"l\">x</td><td>77</td>"
		  "<td class=\"l\"><a href=\"games/000001.tx\">transcript</a></td></tr>");
	has(page, "<tr><td>2</td><td>1</td><td class=\"l\">B&nbsp;x <span title=\"B x forfeited before "
		  "the first roll (crash); seat finished by hard (replacement)\">(forfeit: crash)</span> "
		  "D&nbsp;y&lt; </td><td class=\"l\">-</td>"
		  "<td>12</td><td class=\"l\"><a href=\"games/000002.html\">viewer</a></td></tr>");
	cr_assert_null(strstr(page, "The first"), "all games listed");
	cr_assert_eq(rows_of(page, "results"), 1 + 3);
	cr_assert_eq(rows_of(page, "pairs"), 1 + 1);
	cr_assert_eq(rows_of(page, "opponents"), 1 + 2);
	has(page, "<tr><td class=\"l\">z</td><td>0</td><td>0.0% (0&ndash;100)</td><td>0.0% (0&ndash;100)</td>"
		  "<td>+0.0</td><td>[n/a: 0 deals]</td><td>0</td></tr>\n</table>");
	/* the third bot had no seat in game 0: the palette's colour of its number */
	has(page, "<rect x=\"502\" y=\"46\" width=\"12\" height=\"12\" fill=\"#2ca02c\"/><text x=\"518\" y=\"56\">z</text>");
	cr_assert_eq(rows_of(page, "games"), 1 + 2);

	/* a curve that starts later (a window's first full deal) spans the
	 * same width: x from 44 (deal 11) to 490 (deal 20) */
	for (int p = 0; p < 3; p++)
		pts[p].deal += 10;
	page = report_page(&rep, res, 2, dir, sizeof dir);
	has(page, "<text x=\"44\" y=\"268\" text-anchor=\"start\">deal 11</text><text x=\"490\" y=\"268\" "
		  "text-anchor=\"end\">deal 20</text>");
	has(page, "points=\"44.0,128.0 242.2,10.0 490.0,246.0 \"/>");

	/* a curve of one point is no curve */
	st.ncurve = 1;
	page = report_page(&rep, res, 2, dir, sizeof dir);
	cr_assert_null(strstr(page, "Learning curve"));
	cr_assert_eq(kj_report_html("/nonexistent/kimble-report", &rep, res, 2, &err), -1);
	cr_assert(strstr(err.msg, "cannot write /nonexistent/kimble-report/report.html: "), "%s", err.msg);
}

/* ---- standings: per opponent, the learning curve --------------------------------- */

static const char *standings_text(const kj_report *rep, int json)
{
	static char *buf;
	FILE *f = capture(&buf);
	if (json)
		kj_standings_json(f, rep->standings, rep);
	else
		kj_standings_print(f, rep->standings, rep);
	fclose(f);
	return buf;
}

/* s sits in every game, a and b in some: s's games and wins against each,
 * a forfeited win not counted. */
Test(judge_rules, standings_per_opponent)
{
	kj_result res[5];
	kj_report rep;
	kb_err err;

	memset(res, 0, sizeof res);
	seat(&res[0], 0, "s", 1), seat(&res[0], 1, "a", 2), res[0].winner = 0;
	seat(&res[1], 1, "s", 2), seat(&res[1], 0, "a", 1), res[1].winner = 0;
	seat(&res[2], 0, "s", 2), seat(&res[2], 2, "b", 1), res[2].winner = 2, res[2].deal = 1;
	seat(&res[3], 2, "s", 1), seat(&res[3], 0, "b", 2), res[3].winner = 2, res[3].deal = 1;
	res[3].seat[2].reason = KJ_CRASH;
	seat(&res[4], 3, "s", 1), seat(&res[4], 1, "a", 2), seat(&res[4], 2, "b", 3);
	res[4].winner = 3, res[4].deal = 2;
	cr_assert_eq(kj_report_build(&rep, res, 5, 0, &err), 0, "%s", err.msg);
	const kj_standings *st = rep.standings;
	cr_assert_eq(st->subject, 0, "s, the first bot");
	cr_assert_eq(st->nopp, 2);
	cr_assert_eq(st->opp[0].bot, 1);
	cr_assert_eq(st->opp[0].games, 3);
	cr_assert_eq(st->opp[0].wins, 2);
	cr_assert_eq(st->opp[0].opp_wins, 1);
	cr_assert_eq(st->opp[1].bot, 2);
	cr_assert_eq(st->opp[1].games, 3);
	cr_assert_eq(st->opp[1].wins, 1, "the crashed seat's win is none");
	cr_assert_eq(st->opp[1].opp_wins, 1);
	cr_assert_eq(st->opp[1].pair.deals, 2);
	cr_assert_eq(st->fixed, 0, "not a fixed lineup");
	cr_assert(st->first_seat[0] == 0 && st->first_seat[1] == 1 && st->first_seat[2] == -1);
	cr_assert_eq(st->has_rating, 1);
	cr_assert_eq(st->rating.games, 5);
	const char *t = standings_text(&rep, 0);
	cr_assert(strstr(t, "s per opponent:\nopponent          games        its win%   opponent win%            elo (deals)\n"
			    "a                     3  66.7% [") != NULL, "%s", t);
	has(t, "\nb                     3  33.3% [");
	t = standings_text(&rep, 1);
	has(t, "\"per_opponent\": {\"bot\": \"s\", \"opponents\": [\n    {\"name\": \"a\", \"games\": 3, \"wins\": 2, ");
	has(t, "\"opponent_wins\": 1, \"deals\": 2,");
	cr_assert_null(strstr(t, "learning_curve"));
	kj_report_free(&rep);

	/* two bots in every game: no subject */
	cr_assert_eq(kj_report_build(&rep, res, 2, 0, &err), 0, "%s", err.msg);
	cr_assert_eq(rep.standings->subject, -1);
	kj_report_free(&rep);

	/* three bots, none in every game (s-a, a-b, b-s): no subject, -1
	 * (standings.h) */
	memset(res, 0, 3 * sizeof res[0]);
	game_of(&res[0], "s", 1, "a", 2), game_of(&res[1], "a", 1, "b", 2), game_of(&res[2], "b", 1, "s", 2);
	for (int i = 0; i < 3; i++)
		res[i].winner = 0, res[i].deal = (uint32_t)i;
	cr_assert_eq(kj_report_build(&rep, res, 3, 0, &err), 0, "%s", err.msg);
	cr_assert_eq(rep.nbots, 3);
	cr_assert_eq(rep.standings->subject, -1);
	kj_report_free(&rep);
}

/* The JSON's per-opponent list holds every opponent of the subject, one
 * entry each, in the order of the bots: s meets a (s wins), b (b wins)
 * and c (s wins) in one game each. */
Test(judge_rules, standings_json_lists_every_opponent)
{
	kj_result res[3];
	kj_report rep;
	kb_err err;

	memset(res, 0, sizeof res);
	seat(&res[0], 0, "s", 1), seat(&res[0], 1, "a", 2), res[0].winner = 0;
	seat(&res[1], 0, "s", 2), seat(&res[1], 2, "b", 1), res[1].winner = 2, res[1].deal = 1;
	seat(&res[2], 1, "s", 1), seat(&res[2], 3, "c", 2), res[2].winner = 1, res[2].deal = 2;
	cr_assert_eq(kj_report_build(&rep, res, 3, 0, &err), 0, "%s", err.msg);
	const char *t = standings_text(&rep, 1);
	const char *list = strstr(t, "\"per_opponent\": {\"bot\": \"s\", \"opponents\": [");
	cr_assert_not_null(list, "%s", t);
	static const char *const entry[] = {
		"\n    {\"name\": \"a\", \"games\": 1, \"wins\": 1, ",
		",\n    {\"name\": \"b\", \"games\": 1, \"wins\": 0, ",
		",\n    {\"name\": \"c\", \"games\": 1, \"wins\": 1, ",
	};
	for (int i = 0; i < 3; i++) {
		const char *at = strstr(list, entry[i]);
		cr_assert_not_null(at, "want opponent %d (%s) after the previous in:\n%s", i, entry[i], t);
		list = at + strlen(entry[i]);
	}
	cr_assert_null(strstr(list, "{\"name\": "), "a fourth entry in:\n%s", t);
	cr_assert(strstr(list, "\n  ]}"), "the list ends after c:\n%s", t);
	kj_report_free(&rep);
}

/* Per opponent needs a subject that meets at least two others
 * (standings.h): s sits in both games (alone in one: a table of one
 * seat, from another run merged in), a in one; two bots in all, so no
 * subject and no per-opponent section, in the text or the JSON. */
Test(judge_rules, standings_no_subject_with_a_single_opponent)
{
	kj_result res[2];
	kj_report rep;
	kb_err err;

	memset(res, 0, sizeof res);
	seat(&res[0], 0, "s", 1), seat(&res[0], 1, "a", 2), res[0].winner = 0;
	seat(&res[1], 0, "s", 1), res[1].winner = 0, res[1].deal = 1;
	cr_assert_eq(kj_report_build(&rep, res, 2, 0, &err), 0, "%s", err.msg);
	cr_assert_eq(rep.nbots, 2);
	cr_assert_eq(rep.standings->subject, -1);
	cr_assert_null(strstr(standings_text(&rep, 0), "per opponent"));
	cr_assert_null(strstr(standings_text(&rep, 1), "per_opponent"));
	kj_report_free(&rep);
}

/* One game a deal, deals numbered 10, 12, 14, ...: x wins the first
 * half, y the rest; a moving window of 5 deals. */
static void curve_games(kj_result *res, int n)
{
	memset(res, 0, sizeof *res * (size_t)n);
	for (int i = 0; i < n; i++) {
		seat(&res[i], 0, "x", i < n / 2 ? 1 : 2), seat(&res[i], 2, "y", i < n / 2 ? 2 : 1);
		res[i].winner = i < n / 2 ? 0 : 2;
		res[i].deal = 10 + 2 * (uint32_t)i;
	}
}

/* The lines after the text's learning-curve heading: the bots' names and
 * a row a point shown. */
static int curve_rows(const char *t)
{
	int rows = 0;

	for (const char *p = strstr(t, "learning curve"); (p = strchr(p + 1, '\n')) && p[1];)
		rows++;
	return rows;
}

Test(judge_rules, learning_curve_windows)
{
	kj_result res[12];
	kj_report rep;
	kb_err err;

	curve_games(res, 12);
	res[3].seat[0].reason = KJ_TIMEOUT; /* x's win at deal 3 is a forfeit */
	cr_assert_eq(kj_report_build(&rep, res, 12, 1, &err), 0, "%s", err.msg);
	const kj_standings *st = rep.standings;
	cr_assert_eq(st->fixed, 1);
	cr_assert_eq(st->window, 5);
	cr_assert_eq(st->ncurve, 12);
	static const struct {
		int p;
		uint32_t deal, deals, gx, wx, wy;
	} want[] = {{0, 10, 1, 1, 1, 0}, {4, 18, 5, 5, 4, 0}, {5, 20, 5, 5, 4, 0},
		    {6, 22, 5, 5, 3, 1}, {11, 32, 5, 5, 0, 5}};
	for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
		const kj_curve_point *c = &st->curve[want[k].p];
		cr_assert_eq(c->deal, want[k].deal, "point %d", want[k].p);
		cr_assert_eq(c->deals, want[k].deals, "point %d", want[k].p);
		cr_assert_eq(c->games[0], want[k].gx, "point %d", want[k].p);
		cr_assert_eq(c->games[1], want[k].gx, "point %d", want[k].p);
		cr_assert_eq(c->wins[0], want[k].wx, "point %d: %u", want[k].p, c->wins[0]);
		cr_assert_eq(c->wins[1], want[k].wy, "point %d: %u", want[k].p, c->wins[1]);
	}
	double lo, hi;
	cr_assert(NEAR(kj_curve_rate(&st->curve[6], 0, &lo, &hi), 0.6));
	const char *t = standings_text(&rep, 0);
	cr_assert(strstr(t, "learning curve (win% over the last 5 deals):\ndeal                          x                      y\n"
			    "11        100.0% [ 20.7,100.0]    0.0% [  0.0, 79.3]\n") != NULL, "%s", t);
	has(t, "\n33          0.0% [  0.0, 43.4]  100.0% [ 56.6,100.0]\n");
	int rows = curve_rows(t);
	cr_assert_eq(rows, 13, "a header and a row a point: %s", t);
	t = standings_text(&rep, 1);
	cr_assert(strstr(t, "\"learning_curve\": {\"window_deals\": 5, \"points\": [\n    {\"deal\": 11, \"deals\": 1, "
			    "\"bots\": [{\"games\": 1, \"wins\": 1, \"win_rate\": 1.0000, \"lo\": 0.2065, \"hi\": 1.0000}, "
			    "{\"games\": 1, \"wins\": 0,") != NULL, "%s", t);
	kj_report_free(&rep);
}

/* The report of curve_games(res, n), n at most KJ_CURVE_POINTS: a curve
 * of a point per deal. */
static void curve_report(kj_report *rep, kj_result *res, int n)
{
	kb_err err;

	curve_games(res, n);
	cr_assert_eq(kj_report_build(rep, res, (size_t)n, 1, &err), 0, "%s", err.msg);
	cr_assert_eq(rep->standings->ncurve, n);
}

/* A fixed lineup of one deal: results.json has its learning curve of one
 * point (every fixed lineup's JSON has the member); the text, whose curve
 * is rows from deal 1 to the last, shows none. */
Test(judge_rules, learning_curve_of_one_deal)
{
	kj_result res[1];
	kj_report rep;

	curve_report(&rep, res, 1);
	const char *t = standings_text(&rep, 1);
	cr_assert(strstr(t, ",\n  \"learning_curve\": {\"window_deals\": 5, \"points\": [\n    {\"deal\": 11, "
			    "\"deals\": 1, \"bots\": [{\"games\": 1, \"wins\": 0, ") != NULL, "%s", t);
	cr_assert_null(strstr(standings_text(&rep, 0), "learning curve"));
	kj_report_free(&rep);
}

/* Two deals are the fewest with a curve in the text: rows for both.  31
 * points are shown every third, from the first: the last, point 30 (deal
 * 71), is one of them and gets no row of its own again. */
Test(judge_rules, learning_curve_rows_of_2_and_31_deals)
{
	static const struct {
		int deals, rows;
		const char *once[2];
	} cases[] = {{2, 1 + 2, {"\n11      ", "\n13      "}},
		     {31, 1 + 11, {"\n11      ", "\n71      "}}};
	static kj_result res[31];
	kj_report rep;

	for (int k = 0; k < 2; k++) {
		curve_report(&rep, res, cases[k].deals);
		const char *t = standings_text(&rep, 0);
		cr_assert(strstr(t, "learning curve (win% over the last 5 deals):\n"), "%s", t);
		cr_assert_eq(curve_rows(t), cases[k].rows, "%d deals: the names and a row a point "
			     "shown:\n%s", cases[k].deals, t);
		for (int i = 0; i < 2; i++)
			cr_assert_eq(test_count(t, cases[k].once[i]), 1, "%s once:\n%s",
				     cases[k].once[i] + 1, t);
		kj_report_free(&rep);
	}
}

/* The text's learning curve has a row for every point while there are
 * at most ten (larger curves are thinned to about ten rows, the last
 * point always kept): ten deals, rows for deals 11, 13, ... 29 in order. */
Test(judge_rules, learning_curve_text_has_every_point_up_to_ten)
{
	kj_result res[10];
	kj_report rep;
	char row[16];

	curve_report(&rep, res, 10);
	const char *t = standings_text(&rep, 0);
	const char *p = strstr(t, "learning curve");
	cr_assert_not_null(p, "%s", t);
	p = strchr(p, '\n') + 1; /* the heading line */
	p = strchr(p, '\n'); /* the bots' names line */
	for (int k = 0; k < 10; k++) {
		snprintf(row, sizeof row, "\n%-8d  ", 11 + 2 * k);
		cr_assert_eq(strncmp(p, row, strlen(row)), 0, "row %d should be deal %d:\n%s", k,
			     11 + 2 * k, t);
		p = strchr(p + 1, '\n');
		cr_assert_not_null(p, "%s", t);
	}
	cr_assert_eq(p[1], '\0', "no row after the last point:\n%s", t);
	kj_report_free(&rep);
}

/* The window of the learning curve is W = max(5, deals / 10), at most 500
 * (standings.h), at each bound and across it; the text's heading says it;
 * kj_standings_free leaves no curve behind. */
Test(judge_rules, learning_curve_window_rule)
{
	static const uint32_t deals[] = {1, 49, 59, 60, 65, 66, 69, 70, 4999, 5000, 5010, 5011, 6000};
	static kj_result res[6000];
	kj_report rep;
	kb_err err;
	char heading[80];

	for (size_t i = 0; i < sizeof deals / sizeof deals[0]; i++) {
		uint32_t n = deals[i], want = n / 10 < 5 ? 5 : n / 10 > 500 ? 500 : n / 10;
		curve_games(res, (int)n);
		cr_assert_eq(kj_report_build(&rep, res, n, 1, &err), 0, "%s", err.msg);
		cr_assert_eq(rep.standings->window, want, "%u deals: window %u, want %u", n,
			     rep.standings->window, want);
		snprintf(heading, sizeof heading, "learning curve (win%% over the last %u deals):\n", want);
		if (n > 1)
			cr_assert(strstr(standings_text(&rep, 0), heading), "%u deals: %s", n, heading);
		kj_standings_free(rep.standings);
		cr_assert_null(rep.standings->curve);
		cr_assert_eq(rep.standings->has_rating, 0);
		kj_report_free(&rep);
	}
}

/* 250 deals: 100 points from deal 1 to the last, a window of 25 deals;
 * the text shows every tenth point and the last. */
Test(judge_rules, learning_curve_of_many_deals)
{
	static kj_result res[250];
	kj_report rep;
	kb_err err;

	curve_games(res, 250);
	cr_assert_eq(kj_report_build(&rep, res, 250, 1, &err), 0, "%s", err.msg);
	const kj_standings *st = rep.standings;
	cr_assert_eq(st->window, 25);
	cr_assert_eq(st->ncurve, 100);
	cr_assert_eq(st->curve[0].deal, 10);
	cr_assert_eq(st->curve[0].deals, 1);
	cr_assert_eq(st->curve[1].deal, 10 + 2 * 2, "end 1 + 249/99 = 3");
	cr_assert_eq(st->curve[1].deals, 3);
	cr_assert_eq(st->curve[50].deal, 10 + 2 * 125, "end 1 + 50 * 249 / 99 = 126");
	cr_assert_eq(st->curve[50].deals, 25);
	cr_assert_eq(st->curve[50].wins[0], 24 - 0, "deals 101..125: x won those below 125");
	cr_assert_eq(st->curve[99].deal, 10 + 2 * 249);
	cr_assert_eq(st->curve[99].wins[1], 25);
	const char *t = standings_text(&rep, 0);
	int rows = curve_rows(t);
	cr_assert_eq(rows, 1 + 10 + 1, "%s", t);
	cr_assert(strstr(t, "\n509 ") != NULL, "the last deal, 10 + 2 * 249 + 1: %s", t);
	kj_report_free(&rep);

	/* a window of a tenth of the deals, at most 500 */
	kj_result *big = calloc(5100, sizeof *big);
	cr_assert_not_null(big);
	static const struct {
		int deals;
		uint32_t window;
	} windows[] = {{5100, 500}, {4990, 499}, {69, 6}, {59, 5}};
	for (size_t k = 0; k < sizeof windows / sizeof windows[0]; k++) {
		curve_games(big, windows[k].deals);
		cr_assert_eq(kj_report_build(&rep, big, (size_t)windows[k].deals, 1, &err), 0, "%s", err.msg);
		cr_assert_eq(rep.standings->window, windows[k].window, "%d deals: %u", windows[k].deals,
			     rep.standings->window);
		kj_report_free(&rep);
	}
	free(big);

	/* not every game with the same bots: no curve even with -f fixed */
	seat(&res[7], 1, "z", 3);
	cr_assert_eq(kj_report_build(&rep, res, 250, 1, &err), 0, "%s", err.msg);
	cr_assert_eq(rep.standings->fixed, 0);
	cr_assert_eq(rep.standings->ncurve, 0);
	kj_report_free(&rep);
	res[7].seat[1].present = 0;
	res[8].seat[0].present = 0; /* the first bot missing from one game */
	cr_assert_eq(kj_report_build(&rep, res, 250, 1, &err), 0, "%s", err.msg);
	cr_assert_eq(rep.standings->fixed, 0);
	kj_report_free(&rep);
}

/* Each bot's seat in the first game: only the four seats are looked at.
 * (A result's seats are followed in memory by the next result, whose
 * game number 1 and deal 'x' would read as a fifth seat of a bot named
 * x: a loop one seat too far would move x to seat 4.) */
Test(judge_rules, first_seats_from_the_four_seats_of_game_0)
{
	kj_result res[2] = {0};
	kj_report rep;

	seat(&res[0], 1, "x", 1), seat(&res[0], 3, "y", 2);
	seat(&res[1], 0, "y", 1), seat(&res[1], 2, "x", 2);
	res[1].game = 1, res[1].deal = 'x';
	report_of(&rep, res, 2, 1);
	cr_assert_eq(rep.standings->first_seat[0], 1);
	cr_assert_eq(rep.standings->first_seat[1], 3);
	cr_assert_eq(rep.standings->first_seat[2], -1);
	kj_report_free(&rep);
}

/* A results file at path: game's result of deal, one seat "x" with a win
 * (what kj_results_load reads), as kimble-judge writes it. */
static void write_result_file(const char *path, uint32_t game, uint32_t deal)
{
	kj_result r;

	memset(&r, 0, sizeof r);
	r.winner = r.finished = -1;
	r.deal = deal;
	seat(&r, 0, "x", 1);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(kj_result_write(f, game, &r), 0);
	fclose(f);
}

/* ---- loading results --------------------------------------------------------- */

Test(judge_rules, results_loaded_in_game_order_once_each)
{
	char a[256], b[300], ga[320], gb[320];
	kj_result *res;
	kb_err err;

	test_tmpdir(a, sizeof a);
	subdir(ga, sizeof ga, a, "games");
	subdir(gb, sizeof gb, subdir(b, sizeof b, a, "b"), "games");
	static const struct {
		const char *dir, *name;
		uint32_t game;
	} files[] = {{"a", "000003.res", 3}, {"a", "000001.res", 1}, {"b", "000001.res", 1},
		     {"b", "000002.res", 2}, {"b", ".res", 7}, {"b", "000009.resx", 9}};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		char path[400];
		snprintf(path, sizeof path, "%s/%s", files[i].dir[0] == 'a' ? ga : gb, files[i].name);
		write_result_file(path, files[i].game, 100 + files[i].game);
	}
	put(gb, "000005.res", "kimble-result 2\nnot a game\n");
	const char *dirs[] = {a, b};
	cr_assert_eq(kj_results_load(dirs, 2, &res, &err), 3, "%s", err.msg);
	cr_assert(res[0].game == 1 && res[1].game == 2 && res[2].game == 3, "%u %u %u", res[0].game, res[1].game,
		  res[2].game);
	cr_assert_eq(res[2].deal, 103);
	free(res);
	const char *missing[] = {a, "/nonexistent/kimble-results"};
	cr_assert_eq(kj_results_load(missing, 2, &res, &err), -1);
	cr_assert_str_eq(err.msg, "cannot read results folder /nonexistent/kimble-results/games: No such file or directory");
}

/* Any name of the form X.res with at least one character before ".res"
 * is a result (the game number is the file's own line 2, not its name):
 * "4.res", the shortest, is read; ".res" alone (above) is not. */
Test(judge_rules, results_loaded_from_the_shortest_name)
{
	char a[256], ga[320], path[400];
	kj_result *res;
	kb_err err;

	test_tmpdir(a, sizeof a);
	subdir(ga, sizeof ga, a, "games");
	snprintf(path, sizeof path, "%s/4.res", ga);
	write_result_file(path, 4, 0);
	const char *dirs[] = {a};
	cr_assert_eq(kj_results_load(dirs, 1, &res, &err), 1, "%s", err.msg);
	cr_assert_eq(res[0].game, 4);
	free(res);
}

/* More results than the list's first capacity (256): the list grows and
 * every one is read, in game order. */
Test(judge_rules, results_loaded_beyond_the_first_capacity)
{
	enum { N = 600 };
	char a[256], ga[320], path[400];
	kj_result *res;
	kb_err err;

	test_tmpdir(a, sizeof a);
	subdir(ga, sizeof ga, a, "games");
	for (uint32_t g = 0; g < N; g++) {
		kj_game_path(path, sizeof path, a, g, ".res");
		write_result_file(path, g, g);
	}
	const char *dirs[] = {a};
	cr_assert_eq(kj_results_load(dirs, 1, &res, &err), N, "%s", err.msg);
	for (uint32_t g = 0; g < N; g++)
		cr_assert(res[g].game == g && res[g].deal == g, "result %u: game %u deal %u", g,
			  res[g].game, res[g].deal);
	free(res);
}

/* A report of more than 64 bot names is refused, and nothing written. */
Test(judge_rules, report_of_too_many_names_refused)
{
	static kj_result res[33];
	char dir[256];
	kb_err err;

	memset(res, 0, sizeof res);
	for (int i = 0; i < 33; i++) {
		char name[16];
		snprintf(name, sizeof name, "a%d", i);
		seat(&res[i], 0, name, 1);
		snprintf(name, sizeof name, "b%d", i);
		seat(&res[i], 1, name, 2);
	}
	test_tmpdir(dir, sizeof dir);
	err.msg[0] = '\0';
	cr_assert_eq(kj_report_write(dir, res, 33, NULL, 1, 0, 0, NULL, 0, &err), -1);
	cr_assert_str_eq(err.msg, "results: more than 64 bot names");
	char path[300];
	snprintf(path, sizeof path, "%s/results.txt", dir);
	cr_assert_neq(access(path, F_OK), 0);
}

/* ---- replay and pictures of a transcript written by hand ---------------------- */

#define EMPTY44 "00000000000000000000000000000000000000000000"

/* A (mybot) leaves home with a 6 and forfeits during roll 2, where hard
 * finishes its move; C leaves home with a 6 on roll 3; the game then ends
 * with C credited. */
static const char hand_tx[] =
	"kimble-transcript 1\nseed 42\nseats external absent hard absent\nname A mybot\n"
	"roll 1 " EMPTY44 "A6 0 decided\n"
	"roll 2 A0000000000000000000000000000000000000000000A3 0 decided\n"
	"forfeit A 2 illegal hard index_7_refused\n"
	"roll 3 000A0000000000000000000000000000000000000000C6 0 auto\n"
	"end C 3 win\n";

static void parse_hand_tx(kb_transcript *tx, int ended)
{
	kb_err err;
	size_t len = strlen(hand_tx) - (ended ? 0 : strlen("end C 3 win\n"));

	cr_assert_eq(kb_tx_parse(hand_tx, len, tx, &err), 0, "%s", err.msg);
}

static const char *replayed(const kb_transcript *tx, uint32_t at, int *rc)
{
	static char *buf;
	FILE *f = capture(&buf);
	*rc = kj_replay_print(f, tx, at, 0, 0);
	fclose(f);
	return buf;
}

Test(judge_rules, transcript_boards_and_names)
{
	kb_transcript tx;
	char board[KB_BOARD_LEN + 1] = {0};
	int seat, die;

	parse_hand_tx(&tx, 1);
	cr_assert_eq(kj_tx_present(&tx), 0x5);
	cr_assert_str_eq(kj_tx_seat_name(&tx, 0), "mybot");
	cr_assert_str_eq(kj_tx_seat_name(&tx, 2), "hard", "no name: the policy");
	cr_assert_eq(kj_tx_board(&tx, 0, board, &seat, &die), -1);
	cr_assert_eq(kj_tx_board(&tx, 5, board, &seat, &die), -1);
	cr_assert_eq(kj_tx_board(&tx, 1, board, &seat, &die), 0);
	cr_assert_str_eq(board, EMPTY44);
	cr_assert(seat == 0 && die == 6);
	cr_assert_eq(kj_tx_board(&tx, 3, board, &seat, &die), 0);
	cr_assert_str_eq(board, "000A0000000000000000000000000000000000000000");
	cr_assert(seat == 2 && die == 6);
	cr_assert_eq(kj_tx_board(&tx, 4, board, &seat, &die), 0, "the final position: roll 3 played");
	cr_assert_str_eq(board, "000A0000000000C00000000000000000000000000000");
	cr_assert(seat == -1 && die == 0);
	kb_tx_free(&tx);

	/* seat A always plays; B, C, D as the transcript says */
	kb_transcript t2;
	const char *solo = "kimble-transcript 1\nseed 1\nseats absent hard absent hard\n"
			   "roll 1 " EMPTY44 "B2 - pass\n";
	kb_err err;
	cr_assert_eq(kb_tx_parse(solo, strlen(solo), &t2, &err), 0, "%s", err.msg);
	cr_assert_eq(kj_tx_present(&t2), 0xb);
	kb_tx_free(&t2);
}

Test(judge_rules, replay_tells_each_roll_and_the_forfeit)
{
	kb_transcript tx;
	int rc;

	parse_hand_tx(&tx, 1);
	const char *t = replayed(&tx, 0, &rc);
	cr_assert_eq(rc, 0);
	cr_assert(strncmp(t, "game seed 42, seats A=mybot (top left, forfeited) C=hard (bottom right), 3 rolls\n"
			     "roll 1: A (mybot) rolls 6, moves piece 0 (decided)\n", 130) == 0, "%s", t);
	cr_assert(strstr(t, "\nA mybot forfeited at roll 2 (illegal: index_7_refused); seat finished by hard "
			    "(replacement)\nroll 2: A (hard, replacing mybot) rolls 3, moves piece 0 (replacement)\n"),
		  "%s", t);
	cr_assert(strstr(t, "\nroll 3: C (hard) rolls 6, moves piece 0 (auto)\n"), "%s", t);
	const char *fin = strstr(t, "\nfinal position\n");
	cr_assert_not_null(fin, "%s", t);
	/* the final position is roll 3 played: A on ring 3, C on its start */
	char *drawn = NULL;
	size_t dlen = 0;
	FILE *d = open_memstream(&drawn, &dlen);
	fputs("\nfinal position\n", d);
	kb_draw_board(d, "000A0000000000C00000000000000000000000000000", -1, 0, 0x5, 0);
	fclose(d);
	cr_assert(strncmp(fin, drawn, dlen) == 0, "want\n%s\ngot\n%s", drawn, fin);
	free(drawn);
	cr_assert(strstr(fin, "\nA mybot forfeited at roll 2 (illegal: index_7_refused); seat finished by hard "
			      "(replacement)\nwinner: C (win)\n"), "%s", fin);
	cr_assert_null(strstr(t, "before the first roll"));

	t = replayed(&tx, 2, &rc);
	cr_assert_eq(rc, 0);
	cr_assert_null(strstr(t, "roll 1:"), "only roll 2: %s", t);
	cr_assert(strstr(t, "\nroll 2: A (hard, replacing mybot)"), "%s", t);
	cr_assert_null(strstr(t, "roll 3:"));
	cr_assert_null(strstr(t, "winner:"), "no end with --at");
	t = replayed(&tx, 3, &rc);
	cr_assert_eq(rc, 0);
	cr_assert(strstr(t, "\nroll 3: C (hard) rolls 6"), "%s", t);
	replayed(&tx, 4, &rc);
	cr_assert_eq(rc, -1, "past the last roll");
	kb_tx_free(&tx);

	/* unfinished: no final position; a forfeit before the first roll */
	parse_hand_tx(&tx, 0);
	tx.forfeit[0].roll = 0;
	t = replayed(&tx, 0, &rc);
	cr_assert(strstr(t, "3 rolls\nA mybot forfeited before the first roll (illegal: index_7_refused); seat "
			    "finished by hard (replacement)\nroll 1: A (hard, replacing mybot) rolls 6, moves piece 0 "
			    "(replacement)\n"), "%s", t);
	cr_assert_null(strstr(t, "final position"));
	cr_assert_null(strstr(t, "winner:"));
	snprintf(tx.forfeit[0].detail, sizeof tx.forfeit[0].detail, "-");
	t = replayed(&tx, 0, &rc);
	cr_assert(strstr(t, "before the first roll (illegal); seat finished"), "no detail: %s", t);
	kb_tx_free(&tx);
}

/* The frames of the hand-made game: the forfeit from roll 2 on, the end on
 * the last; the panel's words. */
Test(judge_rules, svg_frames_of_a_transcript)
{
	kb_transcript tx;
	kb_frame fr;

	parse_hand_tx(&tx, 1);
	cr_assert_eq(kj_frame_of(&tx, 0, &fr), -1);
	cr_assert_eq(kj_frame_of(&tx, 5, &fr), -1);
	cr_assert_eq(kj_frame_of(&tx, 1, &fr), 0);
	cr_assert_eq(fr.forfeit[0].reason[0], '\0', "not yet at roll 1");
	cr_assert_eq(fr.over, 0);
	cr_assert_eq(fr.winner, -1);
	cr_assert_eq(fr.rolls, 3);
	cr_assert_eq(fr.roll, 1);
	cr_assert_eq(fr.present, 0x5);
	cr_assert_str_eq(fr.name[0], "mybot");
	cr_assert_eq(fr.fx.seat, 0);
	cr_assert_eq(fr.fx.index, 0);
	cr_assert_eq(kj_frame_of(&tx, 2, &fr), 0);
	cr_assert_eq(fr.forfeit[0].roll, 2);
	cr_assert_str_eq(fr.forfeit[0].reason, "illegal");
	cr_assert_str_eq(fr.forfeit[0].replacement, "hard");
	cr_assert_eq(kj_frame_of(&tx, 3, &fr), 0);
	cr_assert_eq(fr.over, 0, "the last roll's frame is not yet the end");
	cr_assert_eq(fr.winner, -1);
	cr_assert_eq(fr.result[0], '\0');
	cr_assert_eq(kj_frame_of(&tx, 4, &fr), 0);
	cr_assert_eq(fr.over, 1);
	cr_assert_eq(fr.winner, 2);
	cr_assert_str_eq(fr.result, "win");
	cr_assert_eq(fr.fx.seat, -1, "the final position has no roll");

	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	kb_svg_frame(f, &fr, KB_SVG_FRONT);
	fclose(f);
	has(buf, ">final position, 3 rolls</text>");
	has(buf, ">winner: C hard</text>");
	has(buf, ">ended: win</text>");
	has(buf, ">A mybot forfeited at roll 2 (illegal)</text>");
	has(buf, ">seat finished by hard</text>");
	has(buf, ">top left corner, home 3, goal 0</text>");
	has(buf, ">bottom right corner, home 3, goal 0, winner</text>");
	cr_assert_null(strstr(buf, "<rect width=\"780\""), "no back layer");
	free(buf);

	cr_assert_eq(kj_frame_of(&tx, 2, &fr), 0);
	f = open_memstream(&buf, &len);
	kb_svg_frame(f, &fr, KB_SVG_ALL);
	fclose(f);
	has(buf, "<text x=\"480\" y=\"34\" font-size=\"18\" font-weight=\"bold\" fill=\"#222\">roll 2 of 3</text>");
	has(buf, "<text x=\"480\" y=\"248\" font-size=\"16\" font-weight=\"bold\" fill=\"#d62728\">A rolls 3</text>");
	has(buf, "<text x=\"480\" y=\"270\" font-size=\"13\" font-weight=\"normal\" fill=\"#222\">pieces that could move:</text>");
	has(buf, "<text x=\"480\" y=\"288\" font-size=\"12\" font-weight=\"normal\" fill=\"#444\">  piece 0: ring 0 \xe2\x86\x92 ring 3</text>");
	has(buf, "<text x=\"480\" y=\"312\" font-size=\"14\" font-weight=\"bold\" fill=\"#222\">moves piece 0: ring 0 \xe2\x86\x92 ring 3</text>");
	has(buf, "<text x=\"502\" y=\"85\" font-size=\"11\" fill=\"#555\">top left corner, home 3, goal 0, to move</text>");
	has(buf, "<text x=\"502\" y=\"70\" font-size=\"14\" font-weight=\"bold\">A mybot</text>");
	has(buf, "<circle cx=\"488\" cy=\"105\" r=\"8\" fill=\"#ccc\"/>\n<text x=\"502\" y=\"110\" font-size=\"14\" font-weight=\"normal\">B (absent)</text>");
	has(buf, "<circle cx=\"488\" cy=\"145\" r=\"8\" fill=\"#2ca02c\"/>\n<text x=\"502\" y=\"150\" font-size=\"14\" font-weight=\"normal\">C hard</text>");
	has(buf, "<rect width=\"780\" height=\"480\" fill=\"#fafaf5\"/>");
	/* the die in the middle, in A's colour: a 44 px square centred at (240, 240) */
	has(buf, "<rect x=\"218\" y=\"218\" width=\"44\" height=\"44\" rx=\"8\" fill=\"#d62728\"/><text x=\"240\" "
		 "y=\"250\" font-size=\"28\" font-weight=\"bold\" text-anchor=\"middle\" fill=\"#fff\">3</text>");
	free(buf);
	kb_tx_free(&tx);
}

/* A rolls 2 with its piece on ring 3 and captures C on ring 5: the piece
 * ringed, the arrow from cell (4, 7) to (4, 9), the cross on the captured
 * piece, the home pieces in their corners, the names beside the starts
 * (cut to 12 bytes, not inside a character). */
Test(judge_rules, svg_frame_of_a_capture)
{
	char b[KB_BOARD_LEN];
	const char *names[KB_SEATS] = {"a\xc3\xa4\xc3\xa4\xc3\xa4\xc3\xa4\xc3\xa4\xc3\xa4z", "", "cc\"<>&", ""};
	kb_frame fr;
	char *buf = NULL;
	size_t len = 0;

	memset(b, '0', sizeof b);
	b[3] = 'A', b[5] = 'C';
	kb_frame_at(&fr, b, 0x5, names, 9, 0, 2, 0);
	cr_assert_eq(fr.fx.captured, 2);
	FILE *f = open_memstream(&buf, &len);
	kb_svg_frame(f, &fr, KB_SVG_ALL);
	fclose(f);
	has(buf, "<circle cx=\"226\" cy=\"142\" r=\"9\" fill=\"#d62728\" stroke=\"#fff\" stroke-width=\"1.5\"/>"
		 "<text x=\"226\" y=\"146\" font-size=\"11\" text-anchor=\"middle\" fill=\"#fff\">A</text>");
	has(buf, "<circle cx=\"282\" cy=\"142\" r=\"9\" fill=\"#2ca02c\"");
	/* home pieces: A's three at (5,5) (5,6) (6,5), C's at (9,9) (9,10) (10,9) */
	has(buf, "<circle cx=\"170\" cy=\"170\" r=\"9\" fill=\"#d62728\"");
	has(buf, "<circle cx=\"198\" cy=\"170\" r=\"9\" fill=\"#d62728\"");
	has(buf, "<circle cx=\"170\" cy=\"198\" r=\"9\" fill=\"#d62728\"");
	cr_assert_null(strstr(buf, "<circle cx=\"198\" cy=\"198\" r=\"9\""), "only three at home");
	has(buf, "<circle cx=\"282\" cy=\"282\" r=\"9\" fill=\"#2ca02c\"");
	has(buf, "<circle cx=\"310\" cy=\"282\" r=\"9\" fill=\"#2ca02c\"");
	has(buf, "<circle cx=\"282\" cy=\"310\" r=\"9\" fill=\"#2ca02c\"");
	/* the empty home slots of present seats, and their corner */
	has(buf, "<rect x=\"158\" y=\"158\" width=\"52\" height=\"52\" rx=\"8\" fill=\"#f7d4d4\"/>");
	has(buf, "<circle cx=\"198\" cy=\"198\" r=\"10\" fill=\"none\" stroke=\"#d62728\" stroke-dasharray=\"2,2\"/>");
	cr_assert_null(strstr(buf, "fill=\"#d2e3f1\"/>"), "B is absent: no corner");
	/* ring squares: a start (every 7th) in its seat's colour, goals tinted */
	has(buf, "<circle cx=\"142\" cy=\"142\" r=\"12\" fill=\"#fff\" stroke=\"#d62728\" stroke-width=\"3\"/>");
	has(buf, "<circle cx=\"170\" cy=\"142\" r=\"12\" fill=\"#fff\" stroke=\"#999\" stroke-width=\"1\"/>");
	has(buf, "<circle cx=\"338\" cy=\"142\" r=\"12\" fill=\"#fff\" stroke=\"#1f77b4\" stroke-width=\"3\"/>");
	has(buf, "<circle cx=\"114\" cy=\"114\" r=\"12\" fill=\"#f7d4d4\" stroke=\"#999\" stroke-width=\"1\"/>");
	has(buf, "<circle cx=\"30\" cy=\"450\" r=\"12\" fill=\"#f9efc2\" stroke=\"#999\" stroke-width=\"1\"/>");
	/* the legal piece ringed, the move's arrow, the capture crossed */
	has(buf, "<circle cx=\"226\" cy=\"142\" r=\"14\" fill=\"none\" stroke=\"#222\" stroke-width=\"2\" stroke-dasharray=\"4,2\"/>");
	has(buf, "<line x1=\"234.0\" y1=\"142.0\" x2=\"267.0\" y2=\"142.0\" stroke=\"#222\" stroke-width=\"3\" "
		 "stroke-linecap=\"round\"/>\n<polygon points=\"273.0,142.0 261.0,148.0 261.0,136.0\" fill=\"#222\"/>");
	has(buf, "<path d=\"M274 134L290 150M274 150L290 134\" stroke=\"#000\" stroke-width=\"3\"/>");
	has(buf, "<text x=\"480\" y=\"332\" font-size=\"14\" font-weight=\"bold\" fill=\"#b00\">captures C: sent home</text>");
	has(buf, "<text x=\"480\" y=\"34\" font-size=\"18\" font-weight=\"bold\" fill=\"#222\">roll 9</text>");
	/* names: A's at its start (top left), C's right-aligned below the ring */
	has(buf, "<text x=\"128\" y=\"122\" font-size=\"13\" font-weight=\"bold\" text-anchor=\"start\" fill=\"#d62728\">A "
		 "a\xc3\xa4\xc3\xa4\xc3\xa4\xc3\xa4\xc3\xa4</text>");
	has(buf, "<text x=\"352\" y=\"367\" font-size=\"13\" font-weight=\"bold\" text-anchor=\"end\" fill=\"#2ca02c\">C "
		 "cc&quot;&lt;&gt;&amp;</text>");
	has(buf, ">A a\xc3\xa4\xc3\xa4\xc3\xa4\xc3\xa4\xc3\xa4\xc3\xa4z</text>");
	free(buf);

	/* a vertical move: arrow from ring 8 (5, 11) down to ring 10 (7, 11) */
	memset(b, '0', sizeof b);
	b[8] = 'B';
	kb_frame_at(&fr, b, 0x3, NULL, 1, 1, 2, 0);
	buf = NULL;
	f = open_memstream(&buf, &len);
	kb_svg_frame(f, &fr, KB_SVG_FRONT);
	fclose(f);
	has(buf, "<line x1=\"338.0\" y1=\"178.0\" x2=\"338.0\" y2=\"211.0\"");
	has(buf, "<polygon points=\"338.0,217.0 332.0,205.0 344.0,205.0\" fill=\"#222\"/>");
	cr_assert_null(strstr(buf, "<path d="), "no capture");
	has(buf, ">B</text>");
	free(buf);

	/* no legal move: the roll passes, no arrow */
	memset(b, '0', sizeof b);
	kb_frame_at(&fr, b, 0x3, NULL, 1, 1, 2, -1);
	buf = NULL;
	f = open_memstream(&buf, &len);
	kb_svg_frame(f, &fr, KB_SVG_FRONT);
	fclose(f);
	has(buf, ">no piece can move: the roll passes</text>");
	cr_assert_null(strstr(buf, "<line"), "%s", buf);
	cr_assert_null(strstr(buf, "moves piece"));
	free(buf);
}

/* A picture written as PNG goes through rsvg-convert or convert; without
 * either the error says so and no file is left. */
Test(judge_rules, png_needs_a_converter)
{
	kb_transcript tx;
	char dir[256], path[300], svgpath[310];
	kb_err err;

	parse_hand_tx(&tx, 1);
	test_tmpdir(dir, sizeof dir);
	snprintf(path, sizeof path, "%s/p.png", dir);
	snprintf(svgpath, sizeof svgpath, "%s.svg", path);
	if (access("/usr/bin/rsvg-convert", X_OK) == 0) {
		cr_assert_eq(kj_svg_write(path, &tx, 2, &err), 0, "%s", err.msg);
		char *png = test_slurp(path);
		cr_assert(png && memcmp(png, "\x89PNG", 4) == 0, "a PNG");
		free(png);
		cr_assert_neq(access(svgpath, F_OK), 0, "the SVG on the way is removed");
	}
	setenv("PATH", dir, 1);
	snprintf(path, sizeof path, "%s/q.png", dir);
	err.msg[0] = '\0';
	cr_assert_eq(kj_svg_write(path, &tx, 2, &err), -1);
	cr_assert(strstr(err.msg, "/q.png: no working rsvg-convert or convert to make a PNG"), "%s", err.msg);
	cr_assert_neq(access(path, F_OK), 0);
	snprintf(svgpath, sizeof svgpath, "%s.svg", path);
	cr_assert_neq(access(svgpath, F_OK), 0);
	kb_tx_free(&tx);
}

/* A rerun finds each external seat's bot by the transcript's name: a seat
 * without a name matches no bot. */
Test(judge_rules, rerun_of_a_seat_without_a_name_refused, .timeout = 30)
{
	char dir[256];
	const char *out, *err;

	test_tmpdir(dir, sizeof dir);
	put(dir, "noname.tx", "kimble-transcript 1\nseed 42\nseats external absent hard absent\n"
			      "roll 1 " EMPTY44 "A6 0 decided\n");
	char path[300];
	snprintf(path, sizeof path, "%s/noname.tx", dir);
	const char *args[] = {"replay", "--rerun", path, NULL};
	cr_assert_eq(test_run_prog("kimble-judge", args, &out, &err), 1, "%s", err);
	cr_assert(strstr(err, "kimble-judge: seat A: bot  not found; give its directory or --bots DIR"), "%s", err);
}

/* The message names the seat whose bot is missing, here seat C. */
Test(judge_rules, rerun_names_the_seat_of_a_missing_bot, .timeout = 30)
{
	char dir[256], path[300];
	const char *out, *err;

	test_tmpdir(dir, sizeof dir);
	put(dir, "ghost.tx", "kimble-transcript 1\nseed 42\nseats hard absent external absent\n"
			     "name C ghost\nroll 1 " EMPTY44 "A6 0 decided\n");
	snprintf(path, sizeof path, "%s/ghost.tx", dir);
	const char *args[] = {"replay", "--sandbox", "off", "--rerun", path, NULL};
	cr_assert_eq(test_run_prog("kimble-judge", args, &out, &err), 1, "%s", err);
	cr_assert_str_eq(err, "kimble-judge: seat C: bot ghost not found; give its directory or "
			      "--bots DIR\n");
}

/* kimble-judge without any argument: a tournament of no bots, a usage
 * error (or, where bots cannot be confined, the sandbox's error first). */
Test(judge_rules, judge_without_arguments, .timeout = 30)
{
	const char *none[] = {NULL}, *out, *err;
	int st = test_run_prog("kimble-judge", none, &out, &err);

	if (st == 2 && strstr(err, "sandbox"))
		cr_skip_test("no sandbox here: %s", err);
	cr_assert_eq(st, 64, "%s", err);
	cr_assert(strstr(err, "kimble-judge: no bots: name BOTs or a --bots folder"), "%s", err);
}

/* ---- kimble-judge's subcommands: their arguments, messages and status ---- */

static void judge_says(const char *const *args, int status, const char *want_err, const char *want_out)
{
	const char *out, *err;
	int st = test_run_prog("kimble-judge", args, &out, &err);

	cr_assert_eq(st, status, "%s %s: status %d: %s", args[0], args[1] ? args[1] : "", st, err);
	if (want_err)
		cr_assert(strstr(err, want_err) != NULL, "want \"%s\", got: %s", want_err, err);
	if (want_out)
		cr_assert(strstr(out, want_out) != NULL, "want \"%s\", got: %.300s", want_out, out);
}

Test(judge_rules, judge_subcommands_checked, .timeout = 60)
{
	char dir[256], tx[300], png[300], html[300], nodir[300], notx[300];
	const char *out, *err;

	test_tmpdir(dir, sizeof dir);
	put(dir, "t.tx", hand_tx);
	put(dir, "bad.tx", "not a transcript\n");
	snprintf(tx, sizeof tx, "%s/t.tx", dir);
	snprintf(png, sizeof png, "%s/a.png", dir);
	snprintf(html, sizeof html, "%s/no/such/page.html", dir);
	snprintf(nodir, sizeof nodir, "%s/no/such/folder", dir);
	snprintf(notx, sizeof notx, "%s/no/such.tx", dir);

	judge_says((const char *[]){"replay", NULL}, 64, "kimble-judge: replay: expected a TRANSCRIPT", NULL);
	judge_says((const char *[]){"replay", tx, tx, NULL}, 64,
		   "replay: one transcript only; bot directories go with --rerun", NULL);
	judge_says((const char *[]){"replay", "--at", "4", tx, NULL}, 64, "replay --at 4: the game has 3 rolls", NULL);
	judge_says((const char *[]){"replay", "--at", "3", tx, NULL}, 0, NULL, "\nroll 3: C (hard) rolls 6");
	judge_says((const char *[]){"replay", notx, NULL}, 1, "cannot open: No such file or directory", NULL);
	char bad[300];
	snprintf(bad, sizeof bad, "%s/bad.tx", dir);
	judge_says((const char *[]){"replay", bad, NULL}, 1, "/bad.tx: ", NULL);

	judge_says((const char *[]){"svg", NULL}, 64, "svg: expected one TRANSCRIPT", NULL);
	judge_says((const char *[]){"svg", tx, tx, NULL}, 64, "svg: expected one TRANSCRIPT", NULL);
	judge_says((const char *[]){"svg", "--anim", "-o", png, tx, NULL}, 64,
		   "an animation is written as SVG only (a PNG cannot move); expected a FILE ending in .svg", NULL);
	judge_says((const char *[]){"svg", "--at", "2", tx, NULL}, 0, NULL, ">roll 2 of 3</text>");
	judge_says((const char *[]){"svg", tx, NULL}, 0, NULL, ">final position, 3 rolls</text>");
	judge_says((const char *[]){"svg", "--at", "5", tx, NULL}, 2, "svg: roll 5: the game has 3 rolls", NULL);

	/* the animation: one group a position (3 rolls and the final one),
	 * half a second each, the last one staying */
	const char *args[] = {"svg", "--anim", tx, NULL};
	cr_assert_eq(test_run_prog("kimble-judge", args, &out, &err), 0, "%s", err);
	int groups = 0;
	for (const char *p = out; (p = strstr(p, "<g visibility=\"hidden\">")); p++)
		groups++;
	cr_assert_eq(groups, 4, "%d", groups);
	cr_assert(strstr(out, "<set attributeName=\"visibility\" to=\"visible\" begin=\"0.0s\" dur=\"0.5s\"/>"), "%.300s", out);
	cr_assert(strstr(out, "begin=\"1.0s\" dur=\"0.5s\"/>"));
	cr_assert(strstr(out, "begin=\"1.5s\"/>"), "the last position stays");
	cr_assert_eq(strncmp(out, "<svg", 4), 0);
	cr_assert(strstr(out, "<rect width=\"780\" height=\"480\" fill=\"#fafaf5\"/>"), "one back layer");

	judge_says((const char *[]){"html", NULL}, 64, "html: expected one TRANSCRIPT", NULL);
	judge_says((const char *[]){"html", tx, NULL}, 0, NULL, "<title>Kimble game t.tx</title>");
	judge_says((const char *[]){"html", "-o", html, tx, NULL}, 2, "html: cannot write ", NULL);
	judge_says((const char *[]){"merge", dir, NULL}, 64, "merge: expected OUT and at least one SHARD_OUT folder", NULL);
	judge_says((const char *[]){"merge", nodir, notx, NULL}, 2, "merge: ", NULL);
}

/* kimble-judge with a long argument list (test_run_prog takes 14): its
 * status and standard error. */
static int judge_long(const char *const *args, const char **err)
{
	char bin[512], dir[256], errp[300];
	char *argv[100];
	int n = 0;
	test_proc p;

	test_tmpdir(dir, sizeof dir);
	argv[n++] = (char *)test_bin("kimble-judge", bin, sizeof bin);
	for (; *args && n < 99; args++)
		argv[n++] = (char *)*args;
	argv[n] = NULL;
	snprintf(errp, sizeof errp, "%s/err", dir);
	cr_assert_eq(test_spawn(&p, argv, dir, 0, 0, errp), 0);
	int st = test_wait(&p, 20000);
	*err = test_read_file(dir, "err");
	return st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* -d -o NAME: NAME ending in ".tx" after at least one character is the
 * transcript file; any other NAME (".tx" itself too) is a folder, made
 * with mode 0755 less the umask when missing, that gets NAME/debug.tx. */
Test(judge_rules, debug_transcript_file_or_folder, .timeout = 60)
{
	static const char *const names[] = {"x.tx", ".tx", "d", "d"};
	static const char *const files[] = {"x.tx", ".tx/debug.tx", "d/debug.tx", "d/debug.tx"};
	char dir[256], path[400];
	struct stat st;

	test_tmpdir(dir, sizeof dir);
	umask(022);
	for (int i = 0; i < 4; i++) {
		const char *args[] = {"--sandbox", "off", "-s", "3", "-d", "hard", "easy", "-o",
				      names[i], NULL};
		int ws = test_run_in("kimble-judge", dir, "dbg", args, 20000);
		cr_assert(ws >= 0 && WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "-o %s: %s", names[i],
			  test_read_file(dir, "dbg.err"));
		snprintf(path, sizeof path, "%s/%s", dir, files[i]);
		cr_assert_eq(stat(path, &st), 0, "-o %s: no %s", names[i], files[i]);
		cr_assert(S_ISREG(st.st_mode), "-o %s: %s", names[i], files[i]);
		cr_assert(!strncmp(test_read_file(dir, files[i]), "kimble-transcript 1\n", 20));
		if (i == 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		cr_assert_eq(stat(path, &st), 0);
		cr_assert_eq(st.st_mode & 07777, 0755, "-o %s: folder mode %o", names[i],
			     st.st_mode & 07777);
	}
}

Test(judge_rules, judge_bots_and_debug_games_checked, .timeout = 60)
{
	char dir[256], a[300], b[300], nodir[300], notx[300], txo[300];
	static const char *many[70];

	test_tmpdir(dir, sizeof dir);
	subdir(a, sizeof a, dir, "a"), subdir(b, sizeof b, dir, "b");
	put(a, "meta", "same\n/bin/true\n\n0\n");
	put(b, "meta", "same\n/bin/true\n\n0\n");
	snprintf(nodir, sizeof nodir, "%s/no/such/folder", dir);
	snprintf(notx, sizeof notx, "%s/no/such.tx", dir);
	snprintf(txo, sizeof txo, "%s/g.tx", dir);

	judge_says((const char *[]){"--sandbox", "off", NULL}, 64, "no bots: name BOTs or a --bots folder", NULL);
	many[0] = "--sandbox", many[1] = "off";
	for (int i = 0; i < 65; i++)
		many[2 + i] = "hard";
	many[67] = NULL;
	const char *err;
	cr_assert_eq(judge_long(many, &err), 64, "%s", err);
	cr_assert(strstr(err, "kimble-judge: 65 bots: at most 64"), "%s", err);
	/* 64 are taken: the run goes on to --sprt's count */
	many[2] = "--sprt", many[3] = "0,10", many[67] = "hard", many[68] = NULL;
	cr_assert_eq(judge_long(many, &err), 64, "%s", err);
	cr_assert(strstr(err, "kimble-judge: --sprt: expected exactly two bots, got 64"), "%s", err);
	judge_says((const char *[]){"--sandbox", "off", "-o", nodir, a, b, NULL}, 1,
		   "are both named same: results are kept by name, so bots must have names of their own", NULL);
	/* a process bot may not take a built-in's name either (two built-ins
	 * of one name are one player, and fine) */
	char c[300], both[700];
	put(subdir(c, sizeof c, dir, "c"), "meta", "easy\n/bin/true\n\n0\n");
	snprintf(both, sizeof both, "%s and easy are both named easy", c);
	judge_says((const char *[]){"--sandbox", "off", "-o", nodir, c, "easy", NULL}, 1, both, NULL);
	judge_says((const char *[]){"--sandbox", "off", "-d", "hard", "easy", "easy", "easy", "easy", NULL}, 64,
		   "-d: at most three opponents, got 4", NULL);
	judge_says((const char *[]){"--sandbox", "off", "-d", "hard", "-o", nodir, NULL}, 2,
		   "-d -o ", NULL);
	judge_says((const char *[]){"--sandbox", "off", "-d", "hard", "-o", notx, NULL}, 2,
		   "-d -o: cannot create ", NULL);
	judge_says((const char *[]){"--sandbox", "off", "-s", "3", "-d", "hard", "-o", txo, "easy", NULL}, 0, NULL,
		   "seat A hard: place 1, 0 decisions\nseat C easy: place 2, 0 decisions\nwinner A hard after 131 rolls\n"
		   "transcript ");
	judge_says((const char *[]){"--sandbox", "off", "-s", "3", "-d", "hard", "easy", "random", "hard", NULL}, 0, NULL,
		   "seat A hard: place 3, 0 decisions\nseat B easy: place 4, 0 decisions\nseat C random: place 2, 0 "
		   "decisions\nseat D hard: place 1, 0 decisions\nwinner D hard after 202 rolls\n");
	judge_says((const char *[]){"--sandbox", "off", "-s", "3", "-d", "hard", NULL}, 0, NULL,
		   "seat D hard: place ");

	static const char *rerun[24];
	rerun[0] = "replay", rerun[1] = "--sandbox", rerun[2] = "off", rerun[3] = "--rerun", rerun[4] = txo;
	for (int i = 0; i < 17; i++)
		rerun[5 + i] = a;
	rerun[22] = NULL;
	cr_assert_eq(judge_long(rerun, &err), 64, "%s", err);
	cr_assert(strstr(err, "replay --rerun: at most 16 bot directories"), "%s", err);
}

/* ---- a full disk ----------------------------------------------------------------- */

/* Reports written to a full disk (/dev/full behind the file's name) fail
 * with an error naming the file instead of leaving a cut file behind. */
Test(judge_rules, reports_on_a_full_disk_fail)
{
	static kj_result res[4];
	char dir[256], path[300];
	kb_err err;

	if (access("/dev/full", W_OK) != 0)
		cr_skip_test("no /dev/full");
	curve_games(res, 4);
	static const char *const files[] = {"results.txt", "results.json", "report.html"};
	for (int i = 0; i < 3; i++) {
		test_tmpdir(dir, sizeof dir);
		snprintf(path, sizeof path, "%s/%s", dir, files[i]);
		cr_assert_eq(symlink("/dev/full", path), 0);
		err.msg[0] = '\0';
		cr_assert_eq(kj_report_write(dir, res, 4, NULL, 1, 0, 0, NULL, 0, &err), -1, "%s", files[i]);
		cr_assert(strstr(err.msg, files[i]) != NULL, "%s: %s", files[i], err.msg);
	}
}

/* ---- forfeit words, tokens and seeds of a match --------------------------------- */

Test(judge_rules, reasons_tokens_and_forfeit_words)
{
	static const char *const names[] = {"none", "timeout", "startup", "crash", "exit", "garbage",
					    "illegal", "token", "unread", "nostart", "write"};
	for (int r = 0; r < KJ_REASONS; r++) {
		cr_assert_str_eq(kj_reason_name(r), names[r]);
		cr_assert_eq(kj_reason_parse(names[r]), r);
	}
	cr_assert_eq(KJ_REASONS, 11);
	cr_assert_str_eq(kj_reason_name(-1), "?");
	cr_assert_str_eq(kj_reason_name(KJ_REASONS), "?");
	cr_assert_eq(kj_reason_parse("ok"), -1);

	kj_result res;
	char text[400];
	memset(&res, 0, sizeof res);
	seat(&res, 2, "bob", 4);
	res.seat[2].reason = KJ_ILLEGAL, res.seat[2].forfeit_roll = 37;
	snprintf(res.seat[2].why, sizeof res.seat[2].why, "index 3 is not legal");
	kj_forfeit_text(&res, 2, text, sizeof text);
	cr_assert_str_eq(text, "C bob forfeited at roll 37 (illegal: index 3 is not legal); seat finished by hard (replacement)");
	res.seat[2].forfeit_roll = 0, res.seat[2].why[0] = '\0', res.seat[2].reason = KJ_STARTUP;
	kj_forfeit_text(&res, 2, text, sizeof text);
	cr_assert_str_eq(text, "C bob forfeited before the first roll (startup); seat finished by hard (replacement)");

	char tok[KB_TOKEN_LEN + 1], want[KB_TOKEN_LEN + 1];
	for (int s = 0; s < KB_SEATS; s++) {
		kj_token(99, s, tok);
		want[0] = 't';
		for (int i = 0; i < 4; i++)
			snprintf(want + 1 + 16 * i, 17, "%016llx",
				 (unsigned long long)kb_stream_seed(99, KB_TAG_USER + 1, (uint64_t)(4 * s + i)));
		cr_assert_str_eq(tok, want, "seat %d", s);
		cr_assert_eq(kj_bot_seed(99, s), kb_stream_seed(99, KB_TAG_USER, (uint64_t)s));
	}
}

/* --bots DIR: the folders holding a meta file, in name order, hidden ones
 * left out, at most max. */
Test(judge_rules, bots_folder_listed)
{
	char dir[256], sub[300], names[4][256];
	kb_err err;

	test_tmpdir(dir, sizeof dir);
	static const char *const subs[] = {"b", "a", ".c", "d", "e"};
	for (int i = 0; i < 5; i++) {
		snprintf(sub, sizeof sub, "%s/%s", dir, subs[i]);
		cr_assert_eq(mkdir(sub, 0755), 0);
		if (i != 3)
			put(sub, "meta", "x\n/bin/true\n\n0\n");
	}
	cr_assert_eq(kj_bots_list(dir, names, 4, &err), 3);
	cr_assert(!strcmp(names[0], "a") && !strcmp(names[1], "b") && !strcmp(names[2], "e"), "%s %s %s",
		  names[0], names[1], names[2]);
	cr_assert_eq(kj_bots_list(dir, names, 2, &err), 2);
	cr_assert_str_eq(names[1], "b");
	snprintf(sub, sizeof sub, "%s/none", dir);
	cr_assert_eq(kj_bots_list(sub, names, 4, &err), -1);
	cr_assert(strstr(err.msg, "/none: cannot read: No such file or directory"), "%s", err.msg);
}

/* The listing starts at the folder's first entry, also when that is a
 * bot whose name sorts before "." and ".." (here "+1"), and keeps no
 * memory (each entry scandir gave is freed). */
Test(judge_rules, bots_folder_listed_from_its_first_entry)
{
	char dir[256], sub[300], names[4][256];
	kb_err err;

	test_tmpdir(dir, sizeof dir);
	put(subdir(sub, sizeof sub, dir, "+1"), "meta", "x\n/bin/true\n\n0\n");
	put(subdir(sub, sizeof sub, dir, "a"), "meta", "x\n/bin/true\n\n0\n");
	for (int i = 0; i < 8; i++) { /* the allocator's caches fill */
		size_t before = mallinfo2().uordblks;
		cr_assert_eq(kj_bots_list(dir, names, 4, &err), 2, "%s", err.msg);
		cr_assert(!strcmp(names[0], "+1") && !strcmp(names[1], "a"), "%s %s", names[0], names[1]);
		if (i >= 4)
			cr_assert_eq(mallinfo2().uordblks, before, "%zd bytes left allocated",
				     (ssize_t)(mallinfo2().uordblks - before));
	}
}

/* ---- a bot's meta file -------------------------------------------------------------- */

static int meta_of(const char *dir, const char *text, kj_bot *bot, kb_err *err)
{
	put(dir, "meta", text);
	err->msg[0] = '\0';
	return kj_bot_load(dir, bot, err);
}

Test(judge_rules, meta_fields_and_errors)
{
	char dir[256], real[512];
	kj_bot bot;
	kb_err err;

	test_tmpdir(dir, sizeof dir);
	cr_assert_not_null(realpath(dir, real));
	cr_assert_eq(meta_of(dir, "mybot \r\n/bin/echo\n  a\tb  c \n1\t\nsub/learned\n", &bot, &err), 0, "%s", err.msg);
	cr_assert_str_eq(bot.name, "mybot", "blanks and CR at the end are cut");
	cr_assert_str_eq(bot.cmd, "/bin/echo");
	cr_assert_eq(bot.argc, 3);
	cr_assert(!strcmp(bot.argv[0], "a") && !strcmp(bot.argv[1], "b") && !strcmp(bot.argv[2], "c"));
	cr_assert_null(bot.argv[3]);
	cr_assert_eq(bot.keep_stderr, 1);
	cr_assert_str_eq(bot.state, "sub/learned");
	cr_assert_str_eq(bot.dir, real);
	cr_assert_eq(bot.builtin, 0);
	cr_assert_str_eq(bot.path, "", "a command with '/' is not looked up");
	cr_assert_eq(meta_of(dir, "b\ncmd\n\n0", &bot, &err), 0, "no line end at the end: %s", err.msg);
	cr_assert_eq(bot.keep_stderr, 0);
	cr_assert_eq(bot.argc, 0);
	cr_assert_null(bot.argv[0]);
	cr_assert_str_eq(bot.state, "kimble-state", "the default state path");

	static const char *const bad[][2] = {
		{"b\ncmd\n\n", ":4: missing line, expected a stderr flag 0 or 1"},
		{"b\ncmd\n", ":3: missing line, expected an arguments line"},
		{"b\n", ":2: missing line, expected a command"},
		{"", ":1: missing line, expected a name"},
		{"two words\ncmd\n\n0\n", ":1: expected a name (one word)"},
		{"tab\tword\ncmd\n\n0\n", ":1: expected a name (one word)"},
		{"\ncmd\n\n0\n", ":1: expected a name (one word)"},
		{"b\n\n\n0\n", ":2: expected a command"},
		{"b\ncmd\n\n2\n", ":4: expected a stderr flag 0 or 1"},
		{"b\ncmd\n\n01\n", ":4: expected a stderr flag 0 or 1"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cr_assert_eq(meta_of(dir, bad[i][0], &bot, &err), -1, "%s", bad[i][0]);
		cr_assert(strstr(err.msg, "/meta") && strstr(err.msg, bad[i][1]), "want %s, got %s", bad[i][1], err.msg);
	}
	/* a name of 63 bytes fits, 64 do not */
	char text[700];
	snprintf(text, sizeof text, "%.63s\ncmd\n\n0\n", "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn");
	cr_assert_eq(meta_of(dir, text, &bot, &err), 0, "%s", err.msg);
	cr_assert_eq(strlen(bot.name), 63);
	snprintf(text, sizeof text, "%.64s\ncmd\n\n0\n", "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn");
	cr_assert_eq(meta_of(dir, text, &bot, &err), -1);
	cr_assert(strstr(err.msg, "/meta:1: a name is too long"), "%s", err.msg);
	char args[600];
	memset(args, 'a', 520);
	args[520] = '\0';
	snprintf(text, sizeof text, "b\ncmd\n%s\n0\n", args);
	cr_assert_eq(meta_of(dir, text, &bot, &err), -1);
	cr_assert(strstr(err.msg, "/meta:3: an arguments line is too long"), "%s", err.msg);
	args[256] = '\0';
	snprintf(text, sizeof text, "b\ncmd\n\n0\n%s\n", args);
	cr_assert_eq(meta_of(dir, text, &bot, &err), -1);
	cr_assert(strstr(err.msg, "/meta:5: a state path is too long"), "%s", err.msg);
	args[255] = '\0';
	snprintf(text, sizeof text, "b\ncmd\n\n0\n%s\n", args);
	cr_assert_eq(meta_of(dir, text, &bot, &err), 0, "255 bytes fit: %s", err.msg);
	/* lines after the fifth are not read: a long sixth line is no error */
	memset(args, 'x', 590);
	args[590] = '\0';
	snprintf(text, sizeof text, "b\ncmd\n\n0\nst\n%s\n", args);
	cr_assert_eq(meta_of(dir, text, &bot, &err), 0, "a sixth line: %s", err.msg);
	cr_assert_str_eq(bot.state, "st");
	/* a built-in resolved into a used bot keeps nothing of it */
	cr_assert_eq(kj_bot_resolve("hard", NULL, &bot, &err), 0, "%s", err.msg);
	cr_assert(bot.builtin > 0 && !bot.cmd[0] && !bot.dir[0] && !bot.state[0] && bot.argc == 0,
		  "cmd %s dir %s", bot.cmd, bot.dir);

	/* no meta file, no folder; a path over 100 bytes is named by its end */
	char sub[300];
	snprintf(sub, sizeof sub, "%s/empty", dir);
	cr_assert_eq(mkdir(sub, 0755), 0);
	cr_assert_eq(kj_bot_load(sub, &bot, &err), -1);
	cr_assert(strstr(err.msg, "/empty/meta: cannot open: No such file or directory (a bot folder "
			     "holds a meta file: docs/tutorial.md)"), "%s", err.msg);
	cr_assert_eq(kj_bot_load("/nonexistent/kimble-bot-dir", &bot, &err), -1);
	cr_assert_str_eq(err.msg, "/nonexistent/kimble-bot-dir: no such bot directory");
	char deep[400];
	snprintf(deep, sizeof deep, "/nonexistent/%0120d/end", 0);
	cr_assert_eq(kj_bot_load(deep, &bot, &err), -1);
	cr_assert(strncmp(err.msg, deep + strlen(deep) - 100, 100) == 0, "the last 100 bytes: %s", err.msg);
}

/* A command without '/' is found in PATH like execvp would: relative PATH
 * entries from the bot's folder, only executable regular files. */
Test(judge_rules, meta_command_found_in_path)
{
	char dir[256], bin[300], path[600], real[512];
	kj_bot bot;
	kb_err err;

	test_tmpdir(dir, sizeof dir);
	cr_assert_not_null(realpath(dir, real));
	snprintf(bin, sizeof bin, "%s/tools", dir);
	cr_assert_eq(mkdir(bin, 0755), 0);
	put(bin, "plain", "not executable");
	put(bin, "runme", "#!/bin/sh\n");
	snprintf(path, sizeof path, "%s/runme", bin);
	cr_assert_eq(chmod(path, 0755), 0);
	snprintf(path, sizeof path, "%s/dirname", bin);
	cr_assert_eq(mkdir(path, 0755), 0);
	setenv("PATH", "tools:/usr/bin:/bin", 1);
	cr_assert_eq(meta_of(dir, "b\nrunme\n\n0\n", &bot, &err), 0, "%s", err.msg);
	snprintf(path, sizeof path, "%s/tools/runme", real);
	cr_assert_str_eq(bot.path, path);
	cr_assert_eq(meta_of(dir, "b\nplain\n\n0\n", &bot, &err), 0, "%s", err.msg);
	cr_assert_str_eq(bot.path, "", "not executable: not found");
	cr_assert_eq(meta_of(dir, "b\ndirname\n\n0\n", &bot, &err), 0, "%s", err.msg);
	cr_assert_str_eq(bot.path, "/usr/bin/dirname", "a folder is no command");
	cr_assert_str_eq(bot.syspath, "/usr/bin/dirname");
	cr_assert_str_eq(kj_bot_command(&bot, 1, NULL), "/usr/bin/dirname");
	cr_assert_eq(meta_of(dir, "b\nno-such-command-kimble\n\n0\n", &bot, &err), 0, "%s", err.msg);
	cr_assert_str_eq(kj_bot_command(&bot, 1, NULL), "no-such-command-kimble", "left to execvp");
}

/* ---- a game's HTML viewer ------------------------------------------------------------ */

#define TOKEN64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

/* kj_html_viewers writes a viewer for each of the n results it is given
 * whose page is missing, and nothing for a result past them. */
Test(judge_rules, html_viewers_of_the_results_given)
{
	static const char text[] = "kimble-transcript 1\nseed 42\nseats hard absent hard absent\n"
				   "roll 1 " EMPTY44 "A6 0 auto\nend A 1 win\n";
	char dir[256], games[300];
	kj_result res[3] = {{.game = 4}, {.game = 6}, {.game = 7}};
	kb_err err;

	test_tmpdir(dir, sizeof dir);
	subdir(games, sizeof games, dir, "games");
	put(games, "000004.tx", text), put(games, "000006.tx", text), put(games, "000007.tx", text);
	put(games, "000006.html", "kept");
	cr_assert_eq(kj_html_viewers(dir, res, 2, &err), 0, "%s", err.msg);
	const char *page = test_read_file(games, "000004.html");
	cr_assert(strstr(page, "<html"), "game 4's viewer");
	/* its last frame names the winner, seat A */
	cr_assert(strstr(page, "{\"text\":\"final position after 1 rolls: winner A (hard), win\","),
		  "%s", page);
	cr_assert_str_eq(test_read_file(games, "000006.html"), "kept");
	char path[400];
	snprintf(path, sizeof path, "%s/000007.html", games);
	cr_assert_neq(access(path, F_OK), 0, "a viewer for a result past n");
	/* game 7's transcript is missing: an error that names it */
	cr_assert_eq(unlink(strcat(strcpy(path, games), "/000007.tx")), 0);
	err.msg[0] = '\0';
	cr_assert_eq(kj_html_viewers(dir, res, 3, &err), -1);
	cr_assert(strstr(err.msg, path) && strstr(err.msg, "No such file"), "%s", err.msg);
}

/* A transcript whose last board cannot be played on (a piece of seat B,
 * which does not play): its final frame cannot be drawn, the viewer fails. */
Test(judge_rules, html_viewer_of_an_unplayable_board)
{
	static const char text[] = "kimble-transcript 1\nseed 5\nseats hard absent hard absent\n"
				   "roll 1 B0000000000000000000000000000000000000000000A6 0 decided\n";
	static char *page;
	kb_transcript tx;
	kb_err err;

	cr_assert_eq(kb_tx_parse(text, strlen(text), &tx, &err), 0, "%s", err.msg);
	FILE *f = capture(&page);
	cr_assert_eq(kj_html_game(f, &tx, "t"), KJ_HTML_UNDRAWABLE, "bad input, not a write error");
	fclose(f);
	cr_assert_null(strstr(page, "</html>"), "the page is cut short");
	kb_tx_free(&tx);
}

/* kj_html_game_file fails with -1 and a message for a transcript that does
 * not read (no page then), a page that cannot be created or written, and a
 * transcript whose board cannot be drawn (the unplayable board above: the message
 * names the transcript; kimble-judge html exits 1, bad input). */
Test(judge_rules, html_viewer_file_errors)
{
	char dir[256], tx[300], bad[300], page[300], nowhere[300];
	kb_err err;

	test_tmpdir(dir, sizeof dir);
	put(dir, "bad.tx", "kimble-transcript 1\nseed x\n");
	put(dir, "b.tx", "kimble-transcript 1\nseed 5\nseats hard absent hard absent\n"
			 "roll 1 B0000000000000000000000000000000000000000000A6 0 decided\n");
	put(dir, "good.tx", "kimble-transcript 1\nseed 42\nseats hard absent hard absent\n"
			    "roll 1 " EMPTY44 "A6 0 auto\nend A 1 win\n");
	snprintf(bad, sizeof bad, "%s/bad.tx", dir);
	snprintf(page, sizeof page, "%s/p.html", dir);
	err.msg[0] = '\0';
	cr_assert_eq(kj_html_game_file(bad, page, &err), -1);
	cr_assert(strstr(err.msg, "seed"), "the transcript's own error: %s", err.msg);
	cr_assert_neq(access(page, F_OK), 0, "no page for a transcript that does not read");

	snprintf(tx, sizeof tx, "%s/good.tx", dir);
	snprintf(nowhere, sizeof nowhere, "%s/no/such/p.html", dir);
	cr_assert_eq(kj_html_game_file(tx, nowhere, &err), -1);
	char want[400];
	snprintf(want, sizeof want, "cannot write %s: No such file or directory", nowhere);
	cr_assert_str_eq(err.msg, want);
	/* A page that opens but whose writes fail: the message names it. */
	err.msg[0] = '\0';
	cr_assert_eq(kj_html_game_file(tx, "/dev/full", &err), -1);
	cr_assert_str_eq(err.msg, "cannot write /dev/full");

	snprintf(tx, sizeof tx, "%s/b.tx", dir);
	cr_assert_eq(kj_html_game_file(tx, page, &err), -1);
	snprintf(want, sizeof want, "%s: a board of the game cannot be drawn", tx);
	cr_assert_str_eq(err.msg, want, "bad input, not a write error");
	judge_says((const char *[]){"html", tx, NULL}, 1,
		   "b.tx: a board of the game cannot be drawn (a piece of a seat that does not play)",
		   NULL);
}

Test(judge_rules, html_viewer_of_a_game)
{
	static const char text[] =
		"kimble-transcript 1\nseed 42\nseats external absent hard absent\nname A my<bot>\n"
		"msg A 1.500 v001020\n"
		"roll 1 " EMPTY44 "A6 0 decided\n"
		"msg A 3.250 t" TOKEN64 "0\n"
		"msg A 3.500 x" TOKEN64 "1\n"
		"roll 2 A0000000000000000000000000000000000000000000A3 0 decided\n"
		"roll 3 000A0000000000000000000000000000000000000000C6 0 auto\n"
		"end C 3 win\n";
	kb_transcript tx;
	kb_err err;
	char *page = NULL;
	size_t len = 0;

	cr_assert_eq(kb_tx_parse(text, strlen(text), &tx, &err), 0, "%s", err.msg);
	FILE *f = open_memstream(&page, &len);
	cr_assert_eq(kj_html_game(f, &tx, "game <1>"), 0);
	fclose(f);
	has(page, "<title>game &lt;1&gt;</title>");
	has(page, "<h1>game &lt;1&gt;</h1>\n<p id=\"seats\">seed 42: A my&lt;bot&gt; (top left corner); C hard "
		  "(bottom right corner)</p>");
	/* per seat: messages, decided rolls, time of the last message */
	has(page, "<tr><td class=\"l\">A my&lt;bot&gt;</td><td>3</td><td>2</td><td>3.500</td></tr>\n"
		  "<tr><td class=\"l\">C hard</td><td>0</td><td>0</td><td>0.000</td></tr>\n</table>");
	has(page, "<tr><td><a href=\"#roll=1\">1</a></td><td class=\"l\">A my&lt;bot&gt;</td><td>1.500</td>"
		  "<td class=\"l\">v001020</td></tr>\n"
		  "<tr><td><a href=\"#roll=2\">2</a></td><td class=\"l\">A my&lt;bot&gt;</td><td>3.250</td>"
		  "<td class=\"l\">index 0 (token t01234567...)</td></tr>\n"
		  "<tr><td><a href=\"#roll=2\">2</a></td><td class=\"l\">A my&lt;bot&gt;</td><td>3.500</td>"
		  "<td class=\"l\">x" TOKEN64 "1</td></tr>\n</table></div>");
	/* the data: a frame a position, the names, the messages */
	cr_assert_eq(test_count(page, "{\"text\":"), 4);
	cr_assert_eq(test_count(page, "},\n{\"text\":"), 3, "a comma between frames, not before the first");
	has(page, "{\"frames\":[\n{\"text\":\"roll 1 of 3: my\\u003cbot\\u003e: A rolls 6, could move 0 (home -\\u003e ring 0); moves 0 from home to ring 0\",");
	has(page, ",\"svg\":\"\\u003csvg xmlns=\\\"http://www.w3.org/2000/svg\\\"");
	has(page, "\n{\"text\":\"final position after 3 rolls: winner C (hard), win\",");
	has(page, "],\n\"names\":[\"my\\u003cbot\\u003e\",\"\",\"hard\",\"\"],\n\"msgs\":[\n[0,1.500,0,\"v001020\"],\n"
		  "[0,3.250,1,\"index 0 (token t01234567...)\"],\n[0,3.500,1,\"x" TOKEN64 "1\"]]}</script>");
	free(page);
	kb_tx_free(&tx);

	/* escapes: quotes and backslashes, control characters, markup */
	page = NULL;
	f = open_memstream(&page, &len);
	kj_json_str(f, "a\"b\\c\n\x01<&>\x7f");
	fclose(f);
	cr_assert_str_eq(page, "\"a\\\"b\\\\c\\u000a\\u0001\\u003c\\u0026\\u003e\x7f\"");
	free(page);
}

/* ---- the limits a confined bot runs under ------------------------------------------- */

/* The bot prints its limits (dash's ulimit: seconds, KiB, files,
 * processes, 512-byte blocks) and leaves; -d shows its stderr. */
Test(judge_rules, bot_limits_by_default_and_as_given, .timeout = 60)
{
	const char *out, *err;
	char dir[256];

	test_tmpdir(dir, sizeof dir);
	put(dir, "meta", "lim\n/bin/sh\nbot.sh\n1\n");
	put(dir, "bot.sh", "echo \"limits t=$(ulimit -t) v=$(ulimit -v) n=$(ulimit -n) p=$(ulimit -p) f=$(ulimit -f)\" >&2\n");
	const char *dflt[] = {"-d", dir, "-s", "3", NULL};
	int st = test_run_prog("kimble-judge", dflt, &out, &err);
	if (st == 2 && strstr(err, "sandbox"))
		cr_skip_test("no sandbox here: %s", err);
	cr_assert_eq(st, 0, "%s", err);
	cr_assert(strstr(out, "A! limits t=60 v=2097152 n=256 p=64 f=524288\n"), "%s", out);
	const char *given[] = {"-d", dir, "-s", "3", "--cpu-s", "7", "--mem-mb", "300", "--nofile", "40",
			       "--max-procs", "9", "--max-file-mb", "3", NULL};
	cr_assert_eq(test_run_prog("kimble-judge", given, &out, &err), 0, "%s", err);
	cr_assert(strstr(out, "A! limits t=7 v=307200 n=40 p=9 f=6144\n"), "%s", out);
}

/* ---- out of memory ---------------------------------------------------------------- */

/* A plan of a million games needs 32 MB: with 8 MB to spare it is refused
 * as out of memory, and nothing is left allocated. */
Test(judge_rules, plan_out_of_memory)
{
	kj_plan plan;
	kb_err err;

	test_limit_memory(8u << 20);
	err.msg[0] = '\0';
	cr_assert_eq(kj_plan_build(&plan, KJ_FIXED, 4, 4, 250000, 1, 0, &err), -1);
	cr_assert_str_eq(err.msg, "plan: out of memory");
	cr_assert_null(plan.games);
	cr_assert_eq(plan.ngames, 0);
}

/* ---- reruns ------------------------------------------------------------------------ */

static const char *rerun_text(const kb_transcript *tx, const kj_bot *const *seats, int *rc)
{
	static char *buf;
	kb_err err;
	kj_match_opts opt = {.move_ms = 5000, .startup_ms = 5000, .grace_ms = 100};
	FILE *f = capture(&buf);
	*rc = kj_rerun(f, tx, seats, &opt, &err);
	fclose(f);
	return buf;
}

/* A game of built-ins agrees with itself; cut after 10 rolls the rerun
 * differs at roll 11, where the transcript has ended. */
Test(judge_rules, rerun_agrees_or_shows_the_first_difference)
{
	kj_bot hard, easy;
	kb_err err;
	kj_result res;
	char want[200];
	int rc;

	cr_assert_eq(kj_bot_resolve("hard", NULL, &hard, &err), 0);
	cr_assert_eq(kj_bot_resolve("easy", NULL, &easy, &err), 0);
	const kj_bot *seats[KB_SEATS] = {&hard, &easy, NULL, &hard};
	kj_match_opts opt = {.move_ms = 5000, .startup_ms = 5000, .grace_ms = 100};
	kb_transcript tx;
	played(&tx, seats, 1234, &opt, &res);
	cr_assert_gt(tx.nrolls, 11);
	cr_assert_geq(tx.winner, 0);

	const char *t = rerun_text(&tx, seats, &rc);
	cr_assert_eq(rc, 0, "%s", t);
	snprintf(want, sizeof want, "rerun agrees with the transcript: %zu rolls, winner %c\n", tx.nrolls, 'A' + tx.winner);
	cr_assert_str_eq(t, want);

	size_t all = tx.nrolls;
	tx.nrolls = 10;
	t = rerun_text(&tx, seats, &rc);
	cr_assert_eq(rc, 1, "%s", t);
	snprintf(want, sizeof want, "rerun differs at roll 11:\n  transcript: the game ended after 10 rolls, winner %c\n"
		 "  rerun     : %.46s moves %d (%s)\n", 'A' + tx.winner, tx.rolls[10].line, tx.rolls[10].index,
		 kb_how_name(tx.rolls[10].how));
	cr_assert_str_eq(t, want);

	/* another piece moved at roll 6: the transcript's roll is shown */
	tx.nrolls = all;
	tx.rolls[5].index = tx.rolls[5].index == 0 ? 1 : 0;
	t = rerun_text(&tx, seats, &rc);
	cr_assert_eq(rc, 1);
	cr_assert(strncmp(t, "rerun differs at roll 6:\n  transcript: ", 39) == 0, "%s", t);
	snprintf(want, sizeof want, "  transcript: %.46s moves %d (%s)\n", tx.rolls[5].line, tx.rolls[5].index,
		 kb_how_name(tx.rolls[5].how));
	cr_assert(strstr(t, want), "want %s in %s", want, t);
	kb_tx_free(&tx);
}

/* The verdict names the winner's seat, whichever it is (A, seat 0, too). */
Test(judge_rules, rerun_names_each_winner)
{
	kj_bot hard, easy;
	kb_err err;
	kj_result res;
	char want[200];
	int rc, seen = 0;

	cr_assert_eq(kj_bot_resolve("hard", NULL, &hard, &err), 0);
	cr_assert_eq(kj_bot_resolve("easy", NULL, &easy, &err), 0);
	const kj_bot *seats[KB_SEATS] = {&easy, &hard, NULL, &easy};
	kj_match_opts opt = {.move_ms = 5000, .startup_ms = 5000, .grace_ms = 100};
	for (uint64_t seed = 1; seed < 60 && seen != 0xb; seed++) {
		kb_transcript tx;
		played(&tx, seats, seed, &opt, &res);
		cr_assert(tx.winner >= 0 && tx.winner != 2, "seed %llu: winner %d", (unsigned long long)seed, tx.winner);
		seen |= 1 << tx.winner;
		snprintf(want, sizeof want, "rerun agrees with the transcript: %zu rolls, winner %c\n", tx.nrolls,
			 "ABCD"[tx.winner]);
		cr_assert_str_eq(rerun_text(&tx, seats, &rc), want);
		cr_assert_eq(rc, 0);
		kb_tx_free(&tx);
	}
	cr_assert_eq(seen, 0xb, "games won by A, B and D: %x", seen);
}

/* The rerun's notes come after the fingerprint lines, one "rerun NOTE"
 * line each, in the order the rerun wrote them (here the forfeit of a bot that exits at once, as
 * the played game's transcript notes it), then the verdict. */
Test(judge_rules, rerun_shows_its_notes_line_by_line, .timeout = 30)
{
	char dir[256], want[1024];
	kj_bot quit, hard;
	kb_err err;
	kj_result res;
	kb_transcript tx;
	char *text = NULL;
	size_t len = 0, at;
	int rc;

	test_tmpdir(dir, sizeof dir);
	put(dir, "meta", "quit\n/bin/true\n\n0\n");
	cr_assert_eq(kj_bot_load(dir, &quit, &err), 0, "%s", err.msg);
	cr_assert_eq(kj_bot_resolve("hard", NULL, &hard, &err), 0);
	const kj_bot *seats[KB_SEATS] = {&quit, NULL, &hard, NULL};
	kj_match_opts opt = {.move_ms = 5000, .startup_ms = 5000, .grace_ms = 100};
	FILE *f = open_memstream(&text, &len);
	cr_assert_eq(kj_match_play(seats, 77, &opt, f, &res, &err), 0, "%s", err.msg);
	fclose(f);
	cr_assert_eq(kb_tx_parse(text, len, &tx, &err), 0, "%s", err.msg);
	/* first the external seat's fingerprint check (a bot without state) */
	at = (size_t)snprintf(want, sizeof want, "seat A: quit's learned state unchanged (fingerprint -)\n");
	for (const char *p = text; (p = strstr(p, "\nnote ")); p++) {
		size_t n = strcspn(p + 1, "\n");
		at += (size_t)snprintf(want + at, sizeof want - at, "rerun %.*s\n", (int)n, p + 1);
	}
	cr_assert(strstr(want, "rerun note forfeit A quit "), "the game has a forfeit note: %s", text);
	free(text);
	snprintf(want + at, sizeof want - at, "rerun agrees with the transcript: %zu rolls, winner %c\n",
		 tx.nrolls, tx.winner >= 0 ? 'A' + tx.winner : '-');
	cr_assert_str_eq(rerun_text(&tx, seats, &rc), want);
	cr_assert_eq(rc, 0);
	kb_tx_free(&tx);
}

/* A transcript the rerun cannot start from: a start board with a piece of
 * a seat that does not play, seat A absent.  -1 with the reason, nothing
 * printed. */
Test(judge_rules, rerun_refuses_what_cannot_be_played, .timeout = 30)
{
	static const char *const texts[] = {
		"kimble-transcript 1\nseed 5\nseats hard absent hard absent\n"
		"start B0000000000000000000000000000000000000000000 A 6\n"
		"roll 1 " EMPTY44 "A6 0 decided\n",
		"kimble-transcript 1\nseed 5\nseats absent hard hard absent\n"
		"roll 1 " EMPTY44 "B6 0 decided\n"};
	static const char *const says[] = {"board position 0: 'B' is a seat that does not play",
					   "game 5: seat A must be present"};
	kj_bot hard;
	kb_err err;

	cr_assert_eq(kj_bot_resolve("hard", NULL, &hard, &err), 0);
	for (int i = 0; i < 2; i++) {
		static char *buf;
		kb_transcript tx;
		const kj_bot *seats[KB_SEATS] = {i ? NULL : &hard, i ? &hard : NULL, &hard, NULL};
		kj_match_opts opt = {.move_ms = 5000, .startup_ms = 5000, .grace_ms = 100};
		cr_assert_eq(kb_tx_parse(texts[i], strlen(texts[i]), &tx, &err), 0, "%s", err.msg);
		FILE *f = capture(&buf);
		err.msg[0] = '\0';
		int rc = kj_rerun(f, &tx, seats, &opt, &err);
		fclose(f);
		cr_assert_eq(rc, -1, "%d: %s", i, buf);
		cr_assert_str_eq(buf, "");
		cr_assert(strstr(err.msg, says[i]), "%s", err.msg);
		kb_tx_free(&tx);
	}
}

/* The warning names the bot, its command, the match in PATH and the
 * system one that runs instead, once per bot folder for all the 64 bots a
 * run may have (KJ_MAX_BOTS), also asked in turns; not confined, the first
 * match runs, unwarned. */
Test(judge_rules, confined_command_warned_once_per_folder)
{
	char *text = NULL, want[600];
	size_t len = 0;
	static kj_bot bots[KJ_MAX_BOTS];
	FILE *f = open_memstream(&text, &len);

	for (int i = 0; i < KJ_MAX_BOTS; i++) {
		snprintf(bots[i].name, sizeof bots[i].name, "b%d", i);
		snprintf(bots[i].dir, sizeof bots[i].dir, "/srv/bots/b%d", i);
		snprintf(bots[i].cmd, sizeof bots[i].cmd, "python3");
		snprintf(bots[i].path, sizeof bots[i].path, "/home/u/.pyenv/shims/python3");
		snprintf(bots[i].syspath, sizeof bots[i].syspath, "/usr/bin/python3");
	}
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < KJ_MAX_BOTS; i++) {
			cr_assert_str_eq(kj_bot_command(&bots[i], 1, f), "/usr/bin/python3");
			cr_assert_str_eq(kj_bot_command(&bots[i], 0, f), "/home/u/.pyenv/shims/python3");
		}
	fclose(f);
	cr_assert_eq(test_count(text, "kimble-judge: warning: "), KJ_MAX_BOTS, "%s", text);
	snprintf(want, sizeof want, "kimble-judge: warning: bot b63: its command python3 is "
		 "/home/u/.pyenv/shims/python3 (first in PATH), which a confined bot may not run "
		 "(only below /usr, /bin, /sbin, /lib*, /opt, /etc and its own folder); running "
		 "/usr/bin/python3 instead. Write an absolute system path on line 2 of "
		 "/srv/bots/b63/meta, or use --sandbox off for trusted bots.\n");
	cr_assert_eq(test_count(text, want), 1, "%s", text);
	free(text);
}

/* A PATH entry whose name for the command does not fit the judge's 1024
 * bytes is passed over, not cut short: here DIR/runmex is 1024 bytes with
 * its NUL byte 1025, and DIR/runme, its first 1023 bytes, is an
 * executable that must not be taken for it. */
Test(judge_rules, meta_command_too_long_in_path_is_not_cut_short)
{
	char dir[256], deep[1100], path[1200];
	kj_bot bot;
	kb_err err;

	test_tmpdir(dir, sizeof dir);
	snprintf(deep, sizeof deep, "%s", dir);
	while (strlen(deep) < 1024 - strlen("/runmex")) {
		size_t room = 1024 - strlen("/runmex") - strlen(deep) - 1; /* after the '/' */
		size_t part = room > 200 ? 200 : room;
		size_t at = strlen(deep);
		deep[at] = '/';
		memset(deep + at + 1, 'd', part);
		deep[at + 1 + part] = '\0';
		cr_assert(mkdir(deep, 0755) == 0 || errno == EEXIST, "%s", strerror(errno));
	}
	cr_assert_eq(strlen(deep) + strlen("/runmex"), 1024);
	snprintf(path, sizeof path, "%s/runme", deep);
	test_write_file(path, "#!/bin/sh\n");
	cr_assert_eq(chmod(path, 0755), 0);
	setenv("PATH", deep, 1);
	cr_assert_eq(meta_of(dir, "b\nrunmex\n\n0\n", &bot, &err), 0, "%s", err.msg);
	cr_assert_str_eq(bot.path, "", "DIR/runmex does not fit: not found");
	cr_assert_eq(meta_of(dir, "b\nrunme\n\n0\n", &bot, &err), 0, "%s", err.msg);
	cr_assert_str_eq(bot.path, path, "DIR/runme fits");
}

/* A bot whose command is found in PATH outside what a confined bot may run
 * is warned about once, however often its command is asked for. */
Test(judge_rules, confined_command_warned_once)
{
	char dir[256], tools[300], botdir[300], path[600];
	kj_bot bot;
	kb_err err;
	char *text = NULL;
	size_t len = 0;

	test_tmpdir(dir, sizeof dir);
	subdir(tools, sizeof tools, dir, "tools"), subdir(botdir, sizeof botdir, dir, "bot");
	put(tools, "runme", "#!/bin/sh\n");
	snprintf(path, sizeof path, "%s/runme", tools);
	cr_assert_eq(chmod(path, 0755), 0);
	setenv("PATH", tools, 1);
	cr_assert_eq(meta_of(botdir, "b\nrunme\n\n0\n", &bot, &err), 0, "%s", err.msg);
	FILE *f = open_memstream(&text, &len);
	for (int i = 0; i < 3; i++)
		cr_assert_str_eq(kj_bot_command(&bot, 1, f), bot.path);
	cr_assert_str_eq(kj_bot_command(&bot, 0, f), bot.path, "not confined: no warning");
	fclose(f);
	cr_assert(strstr(text, "kimble-judge: warning: bot b: its command runme is ") == text, "%s", text);
	has(text, "which a confined bot may not run");
	has(text, "; it will not start.");
	cr_assert_null(strstr(text + 1, "kimble-judge: warning"), "once: %s", text);
	free(text);
}

/* kj_bot_resolve: a word without '/' is a folder under the bots folder
 * first, then one from the current folder; a word with '/' is a path and
 * is never looked up under the bots folder; a file is no bot. */
Test(judge_rules, bot_resolve_word_or_path)
{
	char bots[256], here[256], sub[320];
	kj_bot bot;
	kb_err err;

	test_tmpdir(bots, sizeof bots);
	test_tmpdir(here, sizeof here);
	snprintf(sub, sizeof sub, "%s/team", bots);
	cr_assert_eq(mkdir(sub, 0755), 0);
	snprintf(sub, sizeof sub, "%s/team/x", bots);
	cr_assert_eq(mkdir(sub, 0755), 0);
	put(sub, "meta", "inbots\n/bin/true\n\n0\n");
	snprintf(sub, sizeof sub, "%s/x", here);
	cr_assert_eq(mkdir(sub, 0755), 0);
	put(sub, "meta", "inhere\n/bin/true\n\n0\n");
	cr_assert_eq(chdir(here), 0);
	cr_assert_eq(kj_bot_resolve("team/x", bots, &bot, &err), -1, "a path, not under %s: %s", bots, bot.name);
	cr_assert_str_eq(err.msg, "bot team/x: not easy/hard/random nor a directory with a meta file");
	cr_assert_eq(kj_bot_resolve("x", NULL, &bot, &err), 0, "%s", err.msg);
	cr_assert_str_eq(bot.name, "inhere", "no bots folder: the current one");
	snprintf(sub, sizeof sub, "%s/team", bots);
	cr_assert_eq(kj_bot_resolve("x", sub, &bot, &err), 0, "%s", err.msg);
	cr_assert_str_eq(bot.name, "inbots", "the bots folder first");
	cr_assert_eq(kj_bot_resolve("./x", sub, &bot, &err), 0, "%s", err.msg);
	cr_assert_str_eq(bot.name, "inhere", "a path");
	put(here, "file", "not a folder");
	cr_assert_eq(kj_bot_resolve("file", NULL, &bot, &err), -1);
	cr_assert_str_eq(err.msg, "bot file: not easy/hard/random nor a directory with a meta file");
}

/* Line 3 holds at most 15 arguments (KJ_MAX_ARGS - 1, the last slot of
 * argv is its NULL): 15 are all kept, in order; a 16th is an error naming
 * the line, never dropped. */
Test(judge_rules, meta_arguments_at_most_fifteen)
{
	char dir[256], text[200];
	kj_bot bot;
	kb_err err;

	test_tmpdir(dir, sizeof dir);
	int n = snprintf(text, sizeof text, "b\ncmd\n");
	for (int i = 1; i <= 15; i++)
		n += snprintf(text + n, sizeof text - (size_t)n, " a%d", i);
	snprintf(text + n, sizeof text - (size_t)n, "\n0\n");
	cr_assert_eq(meta_of(dir, text, &bot, &err), 0, "%s", err.msg);
	cr_assert_eq(bot.argc, 15);
	for (int i = 0; i < 15; i++) {
		char want[16];
		snprintf(want, sizeof want, "a%d", i + 1);
		cr_assert_str_eq(bot.argv[i], want);
	}
	cr_assert_null(bot.argv[15]);
	snprintf(text + n, sizeof text - (size_t)n, " a16\n0\n");
	cr_assert_eq(meta_of(dir, text, &bot, &err), -1);
	cr_assert(strstr(err.msg, "/meta:3: expected an arguments line of at most 15 words"), "%s", err.msg);
}

/* A bot whose command cannot be run forfeits before the first roll, its
 * result saying exactly why (cut to the field when long). */
Test(judge_rules, command_that_cannot_run_explained, .timeout = 60)
{
	char dir[256], real[512], want[700], meta[600];
	kj_result res;
	kj_bot bot, hard;
	kb_err err;

	cr_assert_not_null(realpath(test_tmpdir(dir, sizeof dir), real));
	put(dir, "meta", "miss\n./missing\na b\n0\n");
	cr_assert_eq(kj_bot_load(dir, &bot, &err), 0, "%s", err.msg);
	cr_assert_eq(kj_bot_resolve("hard", NULL, &hard, &err), 0);
	const kj_bot *seats[KB_SEATS] = {&bot, NULL, &hard, NULL};
	kj_match_opts opt = {.move_ms = 5000, .startup_ms = 5000, .grace_ms = 100};
	cr_assert_eq(kj_match_play(seats, 3, &opt, NULL, &res, &err), 0, "%s", err.msg);
	cr_assert_eq(res.seat[0].reason, KJ_NOSTART);
	snprintf(want, sizeof want, "cannot run './missing a b' in %s: execvp: No such file or directory", real);
	cr_assert_str_eq(res.seat[0].why, want);

	char args[400];
	memset(args, 'x', 300);
	args[300] = '\0';
	snprintf(meta, sizeof meta, "miss\n./missing\n%s\n0\n", args);
	put(dir, "meta", meta);
	cr_assert_eq(kj_bot_load(dir, &bot, &err), 0, "%s", err.msg);
	cr_assert_eq(kj_match_play(seats, 3, &opt, NULL, &res, &err), 0, "%s", err.msg);
	cr_assert_eq(strlen(res.seat[0].why), 255, "cut to the field");
	cr_assert_eq(strncmp(res.seat[0].why, "cannot run './missing xxxx", 26), 0, "%s", res.seat[0].why);
}

/* A credited win ends the transcript "end X ROLLS win", seat A's as any
 * other's. */
Test(judge_rules, transcript_ends_with_a_credited_win, .timeout = 60)
{
	kj_bot hard, easy;
	kj_result res;
	kb_err err;
	int seen = 0;

	cr_assert_eq(kj_bot_resolve("hard", NULL, &hard, &err), 0, "%s", err.msg);
	cr_assert_eq(kj_bot_resolve("easy", NULL, &easy, &err), 0, "%s", err.msg);
	const kj_bot *seats[KB_SEATS] = {&hard, NULL, &easy, NULL};
	kj_match_opts opt = {.move_ms = 5000, .startup_ms = 5000, .grace_ms = 100};
	for (uint64_t seed = 1; seen != 3 && seed < 60; seed++) {
		char *text = NULL, want[64];
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		cr_assert_eq(kj_match_play(seats, seed, &opt, f, &res, &err), 0, "%s", err.msg);
		fclose(f);
		cr_assert(res.winner == 0 || res.winner == 2, "seed %" PRIu64 ": winner %d", seed, res.winner);
		seen |= res.winner ? 2 : 1;
		snprintf(want, sizeof want, "\nend %c %" PRIu32 " win\n", 'A' + res.winner, res.rolls);
		cr_assert(len > strlen(want) && !strcmp(text + len - strlen(want), want),
			  "seed %" PRIu64 ": want %s at the end of %s", seed, want, text);
		free(text);
	}
	cr_assert_eq(seen, 3, "games won by A and by C");
}

/* At the end of the game each bot still playing is sent the rolls it has
 * not seen, then the winner and END: it has seen every roll of the game. */
Test(judge_rules, bots_see_every_roll_then_the_winner, .timeout = 60)
{
	kj_bot bot, hard;
	kj_result res;
	kb_err err;
	char path[600], line[256], want[64];

	cr_assert_eq(kj_bot_resolve("hard", NULL, &hard, &err), 0, "%s", err.msg);
	testbot_in("log", &bot);
	const kj_bot *seats[KB_SEATS] = {&bot, NULL, &hard, NULL};
	kj_match_opts opt = {.move_ms = 5000, .startup_ms = 5000, .grace_ms = 5000};
	uint64_t seed = 1;
	for (;; seed++) { /* a game C wins, so A has not seen the last rolls */
		cr_assert_lt(seed, 40);
		cr_assert_eq(kj_match_play(seats, seed, &opt, NULL, &res, &err), 0, "%s", err.msg);
		cr_assert_eq(res.seat[0].reason, 0);
		if (res.winner == 2)
			break;
	}
	snprintf(path, sizeof path, "%s/input.log", bot.dir);
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	uint32_t rolls = 0, tokens = 0, lines = 0;
	char last[2][256] = {"", ""};
	while (fgets(line, sizeof line, f)) {
		int token = line[0] == 't' && strlen(line) == KB_TOKEN_LEN + 1;
		/* the token begins the first response, and only that one */
		cr_assert_eq(token, lines++ == 0, "line %u: %s", lines, line);
		tokens += token;
		rolls += strlen(line) == KB_ROLL_LINE_LEN + 1;
		memcpy(last[0], last[1], sizeof last[0]);
		snprintf(last[1], sizeof last[1], "%s", line);
	}
	fclose(f);
	cr_assert_eq(rolls, res.rolls, "seed %" PRIu64 ": every roll sent", seed);
	cr_assert_eq(tokens, 1);
	snprintf(want, sizeof want, "Voittaja: C\n");
	cr_assert_str_eq(last[0], want);
	cr_assert_str_eq(last[1], "END\n");
}

/* A bot that leaves more than KJ_OUTBUF bytes unread when its next
 * decision's lines are queued forfeits then (unread), once: one forfeit
 * record, and hard plays its seat to the end. */
Test(judge_rules, unread_input_at_a_decision_forfeits_once, .timeout = 60)
{
	kj_bot bot, hard;
	kj_result res;
	kb_err err;
	char *text = NULL, want[100];
	size_t len = 0;
	int records = 0;

	cr_assert_eq(kj_bot_resolve("hard", NULL, &hard, &err), 0, "%s", err.msg);
	testbot_in("stuff", &bot);
	const kj_bot *seats[KB_SEATS] = {&bot, NULL, &hard, NULL};
	kj_match_opts opt = {.move_ms = 5000, .startup_ms = 5000, .grace_ms = 100,
			     .max_errors = 1 << 20};
	FILE *f = open_memstream(&text, &len);
	cr_assert_eq(kj_match_play(seats, 3, &opt, f, &res, &err), 0, "%s", err.msg);
	fclose(f);
	cr_assert_eq(res.seat[0].reason, KJ_UNREAD, "%s", kj_reason_name(res.seat[0].reason));
	snprintf(want, sizeof want, "left more than %d bytes of input unread", KJ_OUTBUF);
	cr_assert_str_eq(res.seat[0].why, want);
	cr_assert_gt(res.seat[0].forfeit_roll, 1, "at its second decision");
	cr_assert_geq(res.finished, 0, "played to the end");
	for (const char *at = text; (at = strstr(at, "\nforfeit A ")); at++)
		records++;
	cr_assert_eq(records, 1, "one forfeit record");
	free(text);
}

/* A bot whose output ends while more than half of KJ_OUTBUF bytes of the
 * judge's lines wait for it unread forfeits for that (unread), not for
 * exiting or crashing: it left its input unread. */
Test(judge_rules, output_ending_with_input_unread_forfeits_unread, .timeout = 60)
{
	kj_bot bot, hard;
	kj_result res;
	kb_err err;
	char want[100];

	cr_assert_eq(kj_bot_resolve("hard", NULL, &hard, &err), 0, "%s", err.msg);
	testbot_in("stuffquit", &bot);
	const kj_bot *seats[KB_SEATS] = {&bot, NULL, &hard, NULL};
	kj_match_opts opt = {.move_ms = 5000, .startup_ms = 5000, .grace_ms = 100,
			     .max_errors = 1 << 20};
	cr_assert_eq(kj_match_play(seats, 3, &opt, NULL, &res, &err), 0, "%s", err.msg);
	cr_assert_eq(res.seat[0].reason, KJ_UNREAD, "%s", kj_reason_name(res.seat[0].reason));
	snprintf(want, sizeof want, "left more than %d bytes of input unread", KJ_OUTBUF);
	cr_assert_str_eq(res.seat[0].why, want);
	cr_assert_gt(res.seat[0].forfeit_roll, 0, "during the game");
}

/* A transcript's message times count from the start of the game. */
Test(judge_rules, message_times_from_the_game_start, .timeout = 60)
{
	kj_bot bot, hard;
	kb_err err;
	kj_result res;

	testbot_in("hard", &bot);
	cr_assert_eq(kj_bot_resolve("hard", NULL, &hard, &err), 0);
	const kj_bot *seats[KB_SEATS] = {&bot, NULL, &hard, NULL};
	kj_match_opts opt = {.move_ms = 5000, .startup_ms = 5000, .grace_ms = 100, .timing = 1};
	kb_transcript tx;
	played(&tx, seats, 11, &opt, &res);
	cr_assert_gt(tx.nmsgs, 1);
	for (size_t i = 0; i < tx.nmsgs; i++)
		cr_assert(tx.msgs[i].ms >= 0 && tx.msgs[i].ms < 600000, "message %zu at %.3f ms", i, tx.msgs[i].ms);
	cr_assert(tx.msgs[0].ms <= tx.msgs[tx.nmsgs - 1].ms, "in order");
	kb_tx_free(&tx);
}

/* ---- nothing built is left allocated ------------------------------------------------- */

/* Bytes the C library's heap has handed out.  Freed small blocks first
 * fill the allocator's per-size caches, which the figure still counts, so
 * a function is called until the caches are full (16 calls), then four
 * more calls must each leave the figure where it was.  Under ASan the
 * figure does not move (LeakSanitizer checks there instead). */
static void leaves_nothing(void (*fn)(void *), void *ctx, const char *what)
{
	for (int k = 0; k < 16; k++)
		fn(ctx);
	for (int k = 0; k < 4; k++) {
		size_t before = mallinfo2().uordblks;
		fn(ctx);
		size_t after = mallinfo2().uordblks;
		cr_assert_eq(after, before, "%s keeps %zd bytes a call", what, (ssize_t)(after - before));
	}
}

static kj_result leak_res[40];

static void leak_report(void *ctx)
{
	kj_report rep;
	kb_err err;

	(void)ctx;
	cr_assert_eq(kj_report_build(&rep, leak_res, 40, 1, &err), 0, "%s", err.msg);
	kj_report_free(&rep);
}

/* kj_report_write of leak_res into dir, its table on stdout thrown away. */
static int report_written(const char *dir, kb_err *err)
{
	FILE *out = stdout;

	stdout = fopen("/dev/null", "w");
	int rc = kj_report_write(dir, leak_res, 40, NULL, 1, 0, 1, NULL, 0, err);
	fclose(stdout);
	stdout = out;
	return rc;
}

static void leak_report_files(void *ctx)
{
	const char *dir = ctx;
	kb_err err;
	kj_result *res;

	cr_assert_eq(report_written(dir, &err), 0, "%s", err.msg);
	const char *dirs[] = {dir};
	cr_assert_eq(kj_results_load(dirs, 1, &res, &err), 2, "%s", err.msg);
	free(res);
}

/* Writing into folder ctx fails (a file that cannot be opened or
 * written) and leaves nothing allocated either. */
static void leak_report_failed(void *ctx)
{
	kb_err err;

	cr_assert_eq(report_written(ctx, &err), -1, "%s", (const char *)ctx);
}

static void leak_plan(void *ctx)
{
	kj_plan plan;

	(void)ctx;
	plan_of(&plan, KJ_GAUNTLET, 6, 3, 30, 1, 2);
	kj_plan_free(&plan);
}

static void leak_starts(void *ctx)
{
	kj_start *st;
	kb_err err;

	cr_assert_eq(kj_starts_read(ctx, 0xf, &st, &err), 20, "%s", err.msg);
	free(st);
}

static void leak_match(void *ctx)
{
	kj_bot *hard = ctx;
	kj_result res;
	size_t len = 0;
	const kj_bot *seats[KB_SEATS] = {hard, hard, hard, hard};
	kj_match_opts opt = {.move_ms = 5000, .startup_ms = 5000, .grace_ms = 100};

	kb_transcript tx;
	played(&tx, seats, 8, &opt, &res);
	char *page = NULL;
	FILE *f = open_memstream(&page, &len);
	cr_assert_eq(kj_html_game(f, &tx, "t"), 0);
	cr_assert_eq(kj_replay_print(f, &tx, 0, 0, 0), 0);
	int rc;
	const char *again = rerun_text(&tx, seats, &rc);
	cr_assert_eq(rc, 0, "%s", again);
	fclose(f);
	free(page);
	kb_tx_free(&tx);
}

static void leak_server(void *ctx)
{
	static srv_games t;
	srv_limits_opts o;
	srv_limits l;
	static const uint8_t lineup[3] = {2, 2, 0};
	FILE *log = fopen("/dev/null", "w");

	(void)ctx;
	srv_limits_defaults(&o);
	o.max_games = 9;
	cr_assert_eq(srv_limits_init(&l, &o, log), 0);
	for (uint32_t i = 0; i < 300; i++) {
		struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(0x0a000000u + i)};
		srv_addr *a = srv_addr_get(&l, (struct sockaddr *)&sa, 0);
		if (i % 2)
			srv_addr_put(&l, a, 0);
	}
	srv_limits_sweep(&l, 5000);
	srv_limits_free(&l);
	fclose(log);
	cr_assert_eq(srv_games_init(&t, 1, 1000, NULL), 0);
	for (int i = 0; i < 300; i++) {
		srv_game *g = srv_game_start(&t, lineup, i);
		kb_roll r = {.seat = 0, .die = 2, .index = -1};
		srv_game_played(g, &r);
		if (i % 3 == 0)
			srv_game_end(&t, g, "expired");
	}
	srv_games_free(&t, "shutdown");
}

Test(judge_rules, builders_leave_nothing_allocated, .timeout = 120)
{
	char dir[256], path[400], line[16];
	kj_bot hard;
	kb_err err;

	curve_games(leak_res, 40);
	leaves_nothing(leak_report, NULL, "a report");
	leaves_nothing(leak_plan, NULL, "a plan");

	test_tmpdir(dir, sizeof dir);
	snprintf(path, sizeof path, "%s/games", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	for (uint32_t i = 0; i < 2; i++) {
		snprintf(line, sizeof line, "%06u.res", i);
		snprintf(path, sizeof path, "%s/games/%s", dir, line);
		FILE *f = fopen(path, "w");
		kj_result_write(f, i, &leak_res[i]);
		fclose(f);
	}
	leaves_nothing(leak_report_files, dir, "writing and loading results");
	/* each way kj_report_write can fail: a results file that is a folder
	 * (cannot be opened) or a full disk (cannot be written) */
	static const char *const broken[] = {"results.txt", "results.json"};
	for (int i = 0; i < 4; i++) {
		char sub[300];
		if (i % 2 && access("/dev/full", W_OK) != 0)
			continue;
		test_tmpdir(sub, sizeof sub);
		snprintf(path, sizeof path, "%s/%s", sub, broken[i / 2]);
		cr_assert_eq(i % 2 ? symlink("/dev/full", path) : mkdir(path, 0755), 0, "%s", path);
		leaves_nothing(leak_report_failed, sub, path);
	}

	snprintf(path, sizeof path, "%s/starts", dir);
	FILE *f = fopen(path, "w");
	for (int i = 0; i < 20; i++)
		fprintf(f, EMPTY44 " %c %d\n", 'A' + i % 4, i % 7);
	fclose(f);
	leaves_nothing(leak_starts, path, "reading start positions");

	cr_assert_eq(kj_bot_resolve("hard", NULL, &hard, &err), 0);
	leaves_nothing(leak_match, &hard, "a match, its page, replay and rerun");
	leaves_nothing(leak_server, NULL, "the server's tables");
}

/* From its forfeit on, a seat is played by hard: a bot that forfeits at
 * its first decision gives the very game hard would have played there
 * (games where hard's first choice is piece 1, 2 or 3, so that a
 * replacement move of piece 0 would show). */
Test(judge_rules, forfeited_seat_played_on_as_hard, .timeout = 60)
{
	static const char *const modes[] = {"illegal", "token"};
	kj_bot bot, hard;
	kb_err err;
	kj_result res, ref;
	char *a = NULL, *b = NULL;
	size_t alen = 0, blen = 0;
	int compared = 0;

	cr_assert_eq(kj_bot_resolve("hard", NULL, &hard, &err), 0);
	const kj_bot *all_hard[KB_SEATS] = {&hard, &hard, &hard, &hard};
	kj_match_opts opt = {.move_ms = 5000, .startup_ms = 5000, .max_errors = 0, .grace_ms = 100};
	for (uint64_t seed = 1; seed < 60 && compared < 4; seed++) {
		FILE *f = open_memstream(&b, &blen);
		cr_assert_eq(kj_match_play(all_hard, seed, &opt, f, &ref, &err), 0, "%s", err.msg);
		fclose(f);
		kb_transcript tb;
		cr_assert_eq(kb_tx_parse(b, blen, &tb, &err), 0, "%s", err.msg);
		size_t first = 0;
		while (first < tb.nrolls && !(tb.rolls[first].line[KB_BOARD_LEN] == 'A' && tb.rolls[first].how == KB_BUILTIN))
			first++;
		if (first < tb.nrolls && tb.rolls[first].index > 0) {
			testbot_in(modes[compared % 2], &bot);
			const kj_bot *seats[KB_SEATS] = {&bot, &hard, &hard, &hard};
			f = open_memstream(&a, &alen);
			cr_assert_eq(kj_match_play(seats, seed, &opt, f, &res, &err), 0, "%s", err.msg);
			fclose(f);
			cr_assert_neq(res.seat[0].reason, KJ_OK, "%s forfeits", modes[compared % 2]);
			cr_assert_eq(res.seat[0].forfeit_roll, (uint32_t)first + 1, "at its first decision");
			cr_assert_eq(res.rolls, ref.rolls, "seed %llu", (unsigned long long)seed);
			kb_transcript ta;
			cr_assert_eq(kb_tx_parse(a, alen, &ta, &err), 0, "%s", err.msg);
			for (size_t i = 0; i < ta.nrolls; i++) {
				cr_assert_eq(memcmp(ta.rolls[i].line, tb.rolls[i].line, KB_ROLL_LINE_LEN), 0, "roll %zu", i + 1);
				cr_assert_eq(ta.rolls[i].index, tb.rolls[i].index, "roll %zu", i + 1);
			}
			kb_tx_free(&ta);
			free(a);
			a = NULL;
			compared++;
		}
		kb_tx_free(&tb);
		free(b);
		b = NULL;
	}
	cr_assert_eq(compared, 4, "games where hard's first choice is not piece 0");
}

/* A game from a start position (C to roll a 5) reruns from the same
 * position, with the same seat to roll. */
Test(judge_rules, rerun_from_a_start_position, .timeout = 60)
{
	kj_bot hard;
	kb_err err;
	kj_result res;
	int rc;

	cr_assert_eq(kj_bot_resolve("hard", NULL, &hard, &err), 0);
	const kj_bot *seats[KB_SEATS] = {&hard, &hard, &hard, &hard};
	kj_match_opts opt = {.move_ms = 5000, .startup_ms = 5000, .grace_ms = 100, .has_start = 1,
			     .start_turn = 2, .start_die = 5};
	cr_assert_eq(kb_board_parse("A000000000000000C0000000B00000000000000000D0", KB_BOARD_LEN, 0xf, &opt.start, &err), 0,
		     "%s", err.msg);
	kb_transcript tx;
	played(&tx, seats, 17, &opt, &res);
	cr_assert_eq(tx.has_start, 1);
	cr_assert_eq(tx.start_turn, 2);
	cr_assert_eq(tx.rolls[0].line[KB_BOARD_LEN], 'C', "C rolls first");
	cr_assert_eq(tx.rolls[0].line[KB_BOARD_LEN + 1], '5');
	const char *t = rerun_text(&tx, seats, &rc);
	cr_assert_eq(rc, 0, "%s", t);
	cr_assert(strncmp(t, "rerun agrees with the transcript", 32) == 0, "%s", t);
	kb_tx_free(&tx);
}

/* kj_opponent_percent: the subject's and the opponent's win rates with
 * their Wilson 95 % intervals, all in percent.  4 and 3 wins of 10,
 * worked out by hand: z = 1.959964, 4/10 gives 16.82 .. 68.73, 3/10 gives
 * 10.78 .. 60.32. */
Test(judge_rules, opponent_percent_scales_every_bound)
{
	kj_opponent o = {.bot = 1, .games = 10, .wins = 4, .opp_wins = 3};
	kj_opponent_pct p;

	kj_opponent_percent(&o, &p);
	cr_assert(fabs(p.win - 40.0) < 1e-9 && fabs(p.opp_win - 30.0) < 1e-9, "%g %g", p.win, p.opp_win);
	cr_assert(fabs(p.lo - 16.82) < 0.01 && fabs(p.hi - 68.73) < 0.01, "%g %g", p.lo, p.hi);
	cr_assert(fabs(p.opp_lo - 10.78) < 0.01 && fabs(p.opp_hi - 60.32) < 0.01, "%g %g", p.opp_lo,
		  p.opp_hi);
}
