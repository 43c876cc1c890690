/* test_state_bot.c - kimble-bot and its learning store as processes: many
 * bots updating one store at once lose nothing, a bot killed during its
 * final transaction leaves a sound store, and a store that is full, not
 * creatable, corrupted or holds a damaged record never stops a game. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/rng.h"
#include "core/store.h"
#include "support.h"
#include "test_bot_fake.h"

#define BOT_TIMEOUT_MS 20000

/* Start kimble-bot OPPS SEED --budget-ms 0 [--state STORE] in dir with
 * its stderr in dir/stderr; env_kv (may be NULL) is set in the child. */
static void start_bot(test_proc *p, const char *dir, const char *opps, uint64_t seed,
		      const char *store)
{
	char bin[512], seed_s[24], err[600];
	char *argv[] = {(char *)test_bin("kimble-bot", bin, sizeof bin), (char *)opps, seed_s,
			"--budget-ms", "0", store ? "--state" : NULL, (char *)store, NULL};

	snprintf(seed_s, sizeof seed_s, "%llu", (unsigned long long)seed);
	snprintf(err, sizeof err, "%s/stderr", dir);
	cr_assert_eq(test_spawn(p, argv, dir, 1, 1, err), 0, "spawn %s", bin);
}

/* Play one whole game of the bot against the fake server; returns the
 * winner seat (>= 0) and leaves the bot to exit; -1.. on failure. */
static int play_one(test_proc *p, uint64_t game_seed)
{
	fake_game f;
	int w;

	fake_init(&f, game_seed);
	w = fake_play_pipes(&f, p->out, p->in, BOT_TIMEOUT_MS);
	fake_free(&f);
	close(p->in);
	close(p->out);
	return w;
}

static int exit_status(int st)
{
	return st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

typedef struct counts {
	uint64_t games, won, lost, res_games, res_won, res_lost;
	int status;
} counts;

static int on_res(void *ctx, const char *version, const char *name, const kb_res_rec *r,
		  int status)
{
	counts *c = ctx;

	(void)version;
	if (strcmp(name, "bob") == 0 && status >= 0) {
		c->res_games += r->games;
		c->res_won += r->won;
		c->res_lost += r->lost;
	}
	return 0;
}

/* Counts of opponent bob in the store (opened read-only, then closed). */
static counts read_counts(const char *store)
{
	kb_store *st;
	kb_err err;
	kb_opp_rec r;
	counts c;
	kb_store_visitor v = {NULL, on_res, &c};

	memset(&c, 0, sizeof c);
	cr_assert_eq(kb_store_open(&st, store, KB_STORE_RDONLY, NULL, &err), 0, "%s", err.msg);
	c.status = kb_store_get(st, "bob", &r, &err);
	c.games = r.games, c.won = r.won, c.lost = r.lost;
	cr_assert_eq(kb_store_each(st, &v, &err), 0, "%s", err.msg);
	kb_store_close(st);
	return c;
}

/* One worker process: plays games seeds first.. first+n-1; exits with the
 * number of games the bot won, or 255 on any failure. */
static void worker(const char *root, const char *store, int id, int n)
{
	char dir[600];
	int wins = 0;

	snprintf(dir, sizeof dir, "%s/w%d", root, id);
	mkdir(dir, 0755);
	for (int k = 0; k < n; k++) {
		test_proc p;
		uint64_t seed = (uint64_t)(id * 100000 + k);
		start_bot(&p, dir, "bob", seed, store);
		int w = play_one(&p, seed);
		int st = test_wait(&p, BOT_TIMEOUT_MS);
		if (w < 0 || exit_status(st) != 0) {
			fprintf(stderr, "worker %d game %d: winner %d, exit %d: %s\n", id, k, w,
				exit_status(st), test_read_file(dir, "stderr"));
			_exit(255);
		}
		wins += w == 0;
	}
	_exit(wins);
}

Test(state_bot, eight_bots_1000_games_one_store_exact_counts, .timeout = 240)
{
	enum { WORKERS = 8, GAMES = 1000 };
	char root[256], store[300];
	pid_t pid[WORKERS];
	int wins = 0;

	test_tmpdir(root, sizeof root);
	snprintf(store, sizeof store, "%s/kimble-state", root);
	for (int i = 0; i < WORKERS; i++) {
		pid[i] = fork();
		cr_assert_geq(pid[i], 0);
		if (pid[i] == 0)
			worker(root, store, i, GAMES / WORKERS);
	}
	for (int i = 0; i < WORKERS; i++) {
		int st;
		cr_assert_eq(waitpid(pid[i], &st, 0), pid[i]);
		cr_assert(WIFEXITED(st) && WEXITSTATUS(st) != 255, "worker %d failed", i);
		wins += WEXITSTATUS(st);
	}
	counts c = read_counts(store);
	cr_assert_eq(c.status, KB_REC_OK);
	cr_assert_eq(c.games, (uint64_t)GAMES, "games played %llu, games run %d",
		     (unsigned long long)c.games, GAMES);
	cr_assert_eq(c.won, (uint64_t)wins, "games won %llu, counted %d",
		     (unsigned long long)c.won, wins);
	cr_assert_eq(c.won + c.lost, (uint64_t)GAMES, "two seats: someone won every game");
	cr_assert_eq(c.res_games, (uint64_t)GAMES);
	cr_assert_eq(c.res_won, c.won);
}

Test(state_bot, sigkill_during_final_transaction_leaves_sound_store, .timeout = 120)
{
	enum { ROUNDS = 40 };
	char root[256], store[300];
	kb_rng rng;
	uint64_t committed = 0;
	int killed = 0, finished = 0;

	test_tmpdir(root, sizeof root);
	snprintf(store, sizeof store, "%s/kimble-state", root);
	kb_rng_seed(&rng, 4242);
	for (int k = 0; k < ROUNDS; k++) {
		test_proc p;
		start_bot(&p, root, "bob", (uint64_t)k, store);
		cr_assert_geq(play_one(&p, 500 + (uint64_t)k), 0, "game %d: %s", k, test_read_file(root, "stderr"));
		/* the bot now commits and exits: kill it somewhere in there */
		struct timespec ts = {0, (long)kb_rng_below(&rng, 1500) * 1000};
		nanosleep(&ts, NULL);
		test_kill(&p, SIGKILL);
		int st = test_wait(&p, BOT_TIMEOUT_MS);
		int exited = st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
		killed += !exited;
		finished += exited;

		counts c = read_counts(store);
		cr_assert(c.games == committed || c.games == committed + 1,
			  "round %d: %llu games after %llu committed", k,
			  (unsigned long long)c.games, (unsigned long long)committed);
		if (exited)
			cr_assert_eq(c.games, committed + 1, "round %d: a bot that exited committed", k);
		cr_assert_eq(c.res_games, c.games, "round %d: both records in one transaction", k);
		cr_assert_eq(c.res_won, c.won);
		cr_assert_eq(c.won + c.lost, c.games);
		committed = c.games;
	}
	cr_log_info("sigkill: %d killed, %d finished, %llu committed", killed, finished,
		    (unsigned long long)committed);
	cr_assert_gt(killed, 0, "some bots must have been killed");
}

/* Play one game in dir with the store at store (may be NULL: default
 * ./kimble-state); the bot must finish with status 0.  Returns stderr. */
static const char *play_expect_ok(const char *dir, const char *store, const char *opps)
{
	test_proc p;

	start_bot(&p, dir, opps, 7, store);
	int w = play_one(&p, 99);
	int st = test_wait(&p, BOT_TIMEOUT_MS);
	cr_assert_geq(w, 0, "bot stderr: %s", test_read_file(dir, "stderr"));
	cr_assert_eq(exit_status(st), 0, "bot stderr: %s", test_read_file(dir, "stderr"));
	return test_read_file(dir, "stderr");
}

Test(state_bot, default_store_created_in_working_folder, .timeout = 30)
{
	char dir[256], store[300];

	test_tmpdir(dir, sizeof dir);
	unsetenv("KIMBLE_STATE");
	play_expect_ok(dir, NULL, "bob");
	snprintf(store, sizeof store, "%s/kimble-state", dir);
	counts c = read_counts(store);
	cr_assert_eq(c.games, 1);
}

Test(state_bot, full_map_plays_on_with_warning, .timeout = 60)
{
	char dir[256], store[300], name[32];
	kb_store *st;
	kb_err err;
	kb_store_opts opts = {64 << 10, 64 << 10, NULL};
	kb_store_add a;

	test_tmpdir(dir, sizeof dir);
	snprintf(store, sizeof store, "%s/st", dir);
	cr_assert_eq(kb_store_open(&st, store, KB_STORE_CREATE, &opts, &err), 0, "%s", err.msg);
	memset(&a, 0, sizeof a);
	a.opponent = 1;
	a.name = name;
	a.delta.model.decisions = KB_SAMPLES; /* full-size records */
	for (int i = 0; i < 1000; i++) {
		snprintf(name, sizeof name, "filler%d", i);
		if (kb_store_apply(st, &a, 1, NULL, &err))
			break;
	}
	cr_assert(strstr(err.msg, "full"), "%s", err.msg);
	kb_store_close(st);
	setenv("KIMBLE_STATE_MAP_MAX", "65536", 1);
	const char *msg = play_expect_ok(dir, store, "bob");
	unsetenv("KIMBLE_STATE_MAP_MAX");
	cr_assert(strstr(msg, "full"), "warning expected: %s", msg);
	cr_assert_eq(read_counts(store).status, KB_STORE_ABSENT);
	/* without the bound the map grows and the game is recorded */
	play_expect_ok(dir, store, "bob");
	cr_assert_eq(read_counts(store).games, 1);
}

Test(state_bot, uncreatable_store_plays_on_with_warning, .timeout = 30)
{
	char dir[256], store[300];

	test_tmpdir(dir, sizeof dir);
	snprintf(store, sizeof store, "%s/file", dir);
	FILE *f = fopen(store, "w");
	fclose(f);
	snprintf(store, sizeof store, "%s/file/kimble-state", dir);
	const char *msg = play_expect_ok(dir, store, "bob");
	cr_assert(strstr(msg, "not learning"), "%s", msg);
}

Test(state_bot, read_only_store_plays_on_with_warning, .timeout = 30)
{
	char dir[256], store[300], path[400];

	test_tmpdir(dir, sizeof dir);
	snprintf(store, sizeof store, "%s/st", dir);
	play_expect_ok(dir, store, "bob");
	snprintf(path, sizeof path, "%s/stderr", dir);
	unlink(path); /* root's file: the unprivileged bot could not append */
	test_drop_root(dir);
	snprintf(path, sizeof path, "%s/data.mdb", store);
	chmod(path, 0444);
	snprintf(path, sizeof path, "%s/lock.mdb", store);
	chmod(path, 0444);
	chmod(store, 0555);
	const char *msg = play_expect_ok(dir, store, "bob");
	chmod(store, 0755);
	cr_assert(strstr(msg, "read-only"), "%s", msg);
	cr_assert(strstr(msg, "kimble-bot: store"), "under the bot's name: %s", msg);
	cr_assert_eq(read_counts(store).games, 1);
}

Test(state_bot, corrupted_file_plays_on_with_warning, .timeout = 30)
{
	char dir[256], store[300], path[400];

	test_tmpdir(dir, sizeof dir);
	snprintf(store, sizeof store, "%s/st", dir);
	mkdir(store, 0755);
	snprintf(path, sizeof path, "%s/data.mdb", store);
	FILE *f = fopen(path, "wb");
	for (int i = 0; i < 65536; i++)
		fputc((int)(((unsigned)i * 40503u) >> 3 & 0xffu), f);
	fclose(f);
	const char *msg = play_expect_ok(dir, store, "bob");
	cr_assert(strstr(msg, "not learning"), "%s", msg);
}

Test(state_bot, damaged_record_plays_on_with_prior, .timeout = 30)
{
	char dir[256], store[300];
	kb_store *st;
	kb_err err;
	const uint8_t junk[5] = {1, 0, 2, 0, 7};

	test_tmpdir(dir, sizeof dir);
	snprintf(store, sizeof store, "%s/st", dir);
	cr_assert_eq(kb_store_open(&st, store, KB_STORE_CREATE, NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(kb_store_put_raw(st, "bob", junk, sizeof junk, &err), 0);
	kb_store_close(st);
	const char *msg = play_expect_ok(dir, store, "bob,carol");
	cr_assert(strstr(msg, "damaged"), "%s", msg);
	cr_assert_eq(read_counts(store).status, KB_REC_BAD, "left as it was");
}

/* A version-1 record with impossible counts (won 9 of 5 games) is damaged:
 * the bot plays with the prior, says so under its own name, and leaves the
 * record byte for byte (it once read it and wrote back won 10 of 6). */
Test(state_bot, impossible_old_record_left_as_it_is, .timeout = 30)
{
	char dir[256], store[300];
	kb_store *st;
	kb_err err;
	uint8_t buf[KB_REC_MAX];
	uint64_t before = 0, after = 0;
	kb_opp_rec r;

	test_tmpdir(dir, sizeof dir);
	snprintf(store, sizeof store, "%s/st", dir);
	memset(&r, 0, sizeof r);
	r.games = 5, r.won = 9;
	cr_assert_eq(kb_store_open(&st, store, KB_STORE_CREATE, NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(kb_store_put_raw(st, "bob", buf, kb_opp_encode_v1(&r, buf), &err), 0);
	cr_assert_eq(kb_store_digest(st, &before, &err), 0, "%s", err.msg);
	kb_store_close(st);
	/* bob in two seats: the second addition once met the first one's
	 * rewrite, warning under kimble-state's name */
	const char *msg = play_expect_ok(dir, store, "bob,bob");
	cr_assert(strstr(msg, "damaged"), "%s", msg);
	cr_assert_null(strstr(msg, "kimble-state:"), "not the tool's name: %s", msg);
	cr_assert_eq(kb_store_open(&st, store, KB_STORE_RDONLY, NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(kb_store_digest(st, &after, &err), 0, "%s", err.msg);
	kb_store_close(st);
	cr_assert_eq(before, after, "the record was rewritten");
}
