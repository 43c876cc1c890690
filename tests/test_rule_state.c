/* test_rule_state.c - the learning store's record rules, each on its own
 * (found by make mutate, docs/mutation.md): header versions (0 is never
 * valid), little-endian fields written out byte by byte, results that add
 * each count to itself, names and keys at their boundaries. */
#include <criterion/criterion.h>
#include <lmdb.h>
#include <stdlib.h>
#include <string.h>

#include "state/export.h"
#include "core/record.h"
#include "state/listing.h"
#include "core/store.h"
#include "support.h"

/* A header: kind, version, then four zero bytes. */
static void header(uint8_t *out, int kind, int version)
{
	memset(out, 0, 8);
	out[0] = (uint8_t)kind;
	out[2] = (uint8_t)version;
}

/* A new empty store in a fresh temporary folder (its path in dir). */
static kb_store *fresh_store(char *dir, size_t size)
{
	kb_store *st;
	kb_err err;

	test_tmpdir(dir, size);
	cr_assert_eq(kb_store_open(&st, dir, KB_STORE_CREATE, NULL, &err), 0, "%s", err.msg);
	return st;
}

Test(state_rules, version_zero_is_refused)
{
	uint8_t buf[KB_REC_MAX] = {0};
	kb_opp_rec opp;
	kb_res_rec res;

	header(buf, KB_REC_RESULTS, 0);
	cr_assert_eq(kb_res_decode(buf, KB_RES_LEN, &res), KB_REC_BAD);
	header(buf, KB_REC_OPPONENT, 0);
	cr_assert_eq(kb_opp_decode(buf, KB_OPP_V1_LEN, &opp), KB_REC_BAD);
	cr_assert_eq(kb_opp_decode(buf, KB_OPP_V2_LEN, &opp), KB_REC_BAD);
}

Test(state_rules, versions_kinds_and_sizes)
{
	uint8_t buf[KB_REC_MAX] = {0};
	kb_opp_rec opp;
	kb_res_rec res;

	header(buf, KB_REC_RESULTS, 1);
	cr_assert_eq(kb_res_decode(buf, KB_RES_LEN, &res), KB_REC_OK);
	cr_assert_eq(kb_res_decode(buf, KB_RES_LEN - 1, &res), KB_REC_BAD);
	cr_assert_eq(kb_res_decode(buf, KB_RES_LEN + 1, &res), KB_REC_BAD);
	cr_assert_eq(kb_res_decode(buf, 7, &res), KB_REC_BAD, "shorter than a header");
	header(buf, KB_REC_RESULTS, 2);
	cr_assert_eq(kb_res_decode(buf, KB_RES_LEN, &res), KB_REC_NEWER);
	header(buf, KB_REC_OPPONENT, 1);
	cr_assert_eq(kb_res_decode(buf, KB_RES_LEN, &res), KB_REC_BAD, "an opponent record");

	header(buf, KB_REC_OPPONENT, 1);
	cr_assert_eq(kb_opp_decode(buf, KB_OPP_V1_LEN, &opp), KB_REC_OLD);
	cr_assert_eq(kb_opp_decode(buf, KB_OPP_V1_LEN + 1, &opp), KB_REC_BAD);
	cr_assert_eq(kb_opp_decode(buf, KB_OPP_V2_LEN, &opp), KB_REC_BAD, "v1 with v2's size");
	header(buf, KB_REC_OPPONENT, 2);
	cr_assert_eq(kb_opp_decode(buf, KB_OPP_V2_LEN, &opp), KB_REC_OLD);
	cr_assert_eq(kb_opp_decode(buf, KB_OPP_V1_LEN, &opp), KB_REC_BAD, "v2 with v1's size");
	cr_assert_eq(kb_opp_decode(buf, KB_OPP_V2_LEN - 1, &opp), KB_REC_BAD);
	cr_assert_eq(kb_opp_decode(buf, KB_OPP_V3_LEN, &opp), KB_REC_BAD, "v2 with v3's size");
	header(buf, KB_REC_OPPONENT, 3);
	cr_assert_eq(kb_opp_decode(buf, KB_OPP_V3_LEN, &opp), KB_REC_OK);
	cr_assert_eq(kb_opp_decode(buf, KB_OPP_V2_LEN, &opp), KB_REC_BAD, "v3 with v2's size");
	header(buf, KB_REC_OPPONENT, 4);
	cr_assert_eq(kb_opp_decode(buf, KB_OPP_V3_LEN, &opp), KB_REC_NEWER);
	header(buf, KB_REC_RESULTS, 1);
	cr_assert_eq(kb_opp_decode(buf, KB_OPP_V1_LEN, &opp), KB_REC_BAD, "a results record");
	buf[1] = 1; /* kind 0x102: the high byte counts */
	cr_assert_eq(kb_res_decode(buf, KB_RES_LEN, &res), KB_REC_BAD);
	buf[1] = 0;
	buf[3] = 1; /* version 0x101 is newer */
	cr_assert_eq(kb_res_decode(buf, KB_RES_LEN, &res), KB_REC_NEWER);
}

/* Fields are little-endian u64 at fixed offsets, written out by hand. */
Test(state_rules, results_bytes_are_little_endian)
{
	kb_res_rec r = {0x0102030405060708ull, 0x11, 0x2200}, back;
	uint8_t buf[KB_REC_MAX];
	static const uint8_t want[KB_RES_LEN] = {
		2, 0, 1, 0, 0, 0, 0, 0,
		8, 7, 6, 5, 4, 3, 2, 1,
		0x11, 0, 0, 0, 0, 0, 0, 0,
		0, 0x22, 0, 0, 0, 0, 0, 0};

	cr_assert_eq(kb_res_encode(&r, buf), KB_RES_LEN);
	cr_assert_arr_eq(buf, want, KB_RES_LEN);
	cr_assert_eq(kb_res_decode(want, KB_RES_LEN, &back), KB_REC_OK);
	cr_assert_eq(back.games, r.games);
	cr_assert_eq(back.won, 0x11);
	cr_assert_eq(back.lost, 0x2200);
}

Test(state_rules, opponent_bytes_are_little_endian)
{
	kb_opp_rec r, back;
	uint8_t buf[KB_REC_MAX];

	memset(&r, 0, sizeof r);
	r.games = 0x0a0b0c0d;
	r.won = 0x3;
	r.lost = 0x700;
	r.model.decisions = 0x50000;
	r.model.easy_hits = 0x4000;
	r.model.hard_hits = 0x12;
	for (int j = 0; j < KB_SAMPLES; j++)
		memset(r.model.sample[j].b, j + 1, KB_SAMPLE_LEN);
	cr_assert_eq(kb_opp_encode(&r, buf), KB_OPP_V3_LEN);
	static const uint8_t head[56] = {
		1, 0, 3, 0, 0, 0, 0, 0,
		0x0d, 0x0c, 0x0b, 0x0a, 0, 0, 0, 0,
		3, 0, 0, 0, 0, 0, 0, 0,
		0, 7, 0, 0, 0, 0, 0, 0,
		0, 0, 5, 0, 0, 0, 0, 0,
		0, 0x40, 0, 0, 0, 0, 0, 0,
		0x12, 0, 0, 0, 0, 0, 0, 0};
	cr_assert_arr_eq(buf, head, sizeof head);
	cr_assert_eq(buf[56], 1, "first sample");
	cr_assert_eq(buf[KB_OPP_V2_LEN - 1], KB_SAMPLES, "last sample");
	cr_assert_eq(kb_opp_decode(buf, KB_OPP_V3_LEN, &back), KB_REC_OK);
	cr_assert_eq(back.games, r.games);
	cr_assert_eq(back.won, 3);
	cr_assert_eq(back.lost, 0x700);
	cr_assert_eq(back.model.decisions, 0x50000);
	cr_assert_eq(back.model.easy_hits, 0x4000);
	cr_assert_eq(back.model.hard_hits, 0x12);
	cr_assert_eq(back.model.sample[KB_SAMPLES - 1].b[0], KB_SAMPLES);

	uint8_t v1[KB_OPP_V1_LEN];
	cr_assert_eq(kb_opp_encode_v1(&r, v1), KB_OPP_V1_LEN);
	cr_assert_arr_eq(v1 + 8, head + 8, 24);
	cr_assert_eq(v1[2], 1, "version 1");
	cr_assert_eq(kb_opp_decode(v1, KB_OPP_V1_LEN, &back), KB_REC_OLD);
	cr_assert_eq(back.lost, 0x700);
	cr_assert_eq(back.model.decisions, 0, "missing fields zero");
}

/* won or lost above games, or hits above decisions: damaged. */
Test(state_rules, counts_above_their_total_are_damage)
{
	uint8_t buf[KB_REC_MAX];
	kb_opp_rec r, back;

	memset(&r, 0, sizeof r);
	r.games = r.won = r.lost = 5;
	r.model.decisions = r.model.easy_hits = r.model.hard_hits = 9;
	kb_opp_encode(&r, buf);
	cr_assert_eq(kb_opp_decode(buf, KB_OPP_V3_LEN, &back), KB_REC_OK, "equal is fine");
	for (int field = 0; field < 4; field++) {
		kb_opp_rec bad = r;
		uint64_t *f[4] = {&bad.won, &bad.lost, &bad.model.easy_hits, &bad.model.hard_hits};
		*f[field] += 1;
		kb_opp_encode(&bad, buf);
		cr_assert_eq(kb_opp_decode(buf, KB_OPP_V3_LEN, &back), KB_REC_BAD, "field %d", field);
		cr_assert_eq(back.games, 0, "zeroed when refused");
	}
}

Test(state_rules, adding_records_adds_each_count)
{
	kb_opp_rec a, b;

	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	a.games = 10, a.won = 4, a.lost = 2;
	b.games = 100, b.won = 30, b.lost = 20;
	b.model.decisions = 7;
	kb_opp_add(&a, &b);
	cr_assert_eq(a.games, 110);
	cr_assert_eq(a.won, 34);
	cr_assert_eq(a.lost, 22);
	cr_assert_eq(a.model.decisions, 7);
}

typedef struct seen_results {
	int n;
	kb_res_rec rec;
	char version[80], name[80];
} seen_results;

static int on_results(void *ctx, const char *version, const char *name, const kb_res_rec *rec,
		      int status)
{
	seen_results *s = ctx;
	cr_assert_eq(status, KB_REC_OK);
	s->n++;
	s->rec = *rec;
	snprintf(s->version, sizeof s->version, "%s", version);
	snprintf(s->name, sizeof s->name, "%s", name);
	return 0;
}

/* Results under a bot version add games to games, wins to wins, losses
 * to losses, through the store. */
Test(state_rules, results_record_adds_each_count, .timeout = 20)
{
	char dir[256];
	kb_store *st;
	kb_err err;
	kb_store_add adds[2];

	st = fresh_store(dir, sizeof dir);
	memset(adds, 0, sizeof adds);
	adds[0].name = "bob";
	adds[0].version = "v1.2";
	adds[0].delta.games = 7, adds[0].delta.won = 3, adds[0].delta.lost = 1;
	adds[1] = adds[0];
	adds[1].delta.games = 20, adds[1].delta.won = 0, adds[1].delta.lost = 10;
	cr_assert_eq(kb_store_apply(st, adds, 2, NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(kb_store_apply(st, adds, 1, NULL, &err), 0, "%s", err.msg);

	seen_results seen = {0};
	kb_store_visitor v = {NULL, on_results, &seen};
	cr_assert_eq(kb_store_each(st, &v, &err), 0, "%s", err.msg);
	cr_assert_eq(seen.n, 1);
	cr_assert_str_eq(seen.version, "v1.2");
	cr_assert_str_eq(seen.name, "bob");
	cr_assert_eq(seen.rec.games, 34);
	cr_assert_eq(seen.rec.won, 6);
	cr_assert_eq(seen.rec.lost, 12);
	kb_opp_rec opp;
	cr_assert_eq(kb_store_get(st, "bob", &opp, &err), KB_STORE_ABSENT,
		     "a results-only addition writes no opponent record");
	kb_store_close(st);
}

Test(state_rules, names_at_their_boundaries)
{
	char name[KB_NAME_MAX + 2];

	memset(name, 'x', sizeof name);
	cr_assert(kb_name_ok(name, KB_NAME_MAX));
	cr_assert_not(kb_name_ok(name, KB_NAME_MAX + 1));
	cr_assert_not(kb_name_ok(name, 0));
	static const char good[] = "azAZ09_.-";
	for (size_t i = 0; good[i]; i++)
		cr_assert(kb_name_ok(good + i, 1), "'%c'", good[i]);
	static const char bad[] = "`{@[/: +,\x7f";
	for (size_t i = 0; bad[i]; i++)
		cr_assert_not(kb_name_ok(bad + i, 1), "'%c'", bad[i]);
}

Test(state_rules, keys_spell_kind_version_and_name)
{
	char key[KB_KEY_MAX], name[KB_NAME_MAX + 1];

	cr_assert_eq(kb_key_opponent("bob", key), 5);
	cr_assert_arr_eq(key, "o/bob", 5);
	cr_assert_eq(kb_key_results("1.0", "bob", key), 9);
	cr_assert_arr_eq(key, "v/1.0/bob", 9);
	cr_assert_eq(kb_key_opponent("b b", key), 0);
	cr_assert_eq(kb_key_results("1 0", "bob", key), 0);
	cr_assert_eq(kb_key_results("1.0", "", key), 0);
	memset(name, 'n', KB_NAME_MAX);
	name[KB_NAME_MAX] = '\0';
	cr_assert_eq(kb_key_results(name, name, key), KB_KEY_MAX - 1, "the longest key fits");
}

/* ---- the export's text lines, one rule at a time ---------------------- */

static int import(const char *text, kb_store_add *add, kb_err *err)
{
	static char line[4096];
	snprintf(line, sizeof line, "%s", text);
	return kb_import_line(line, add, err);
}

Test(state_rules, import_line_fields)
{
	kb_store_add a;
	kb_err err;

	cr_assert_eq(import("results v2 bob games 9 won 4 lost 3", &a, &err), 0, "%s", err.msg);
	cr_assert_str_eq(a.version, "v2");
	cr_assert_str_eq(a.name, "bob");
	cr_assert_eq(a.opponent, 0);
	cr_assert_eq(a.delta.games, 9);
	cr_assert_eq(a.delta.won, 4);
	cr_assert_eq(a.delta.lost, 3);
	cr_assert_eq(import("opponent eve games 18446744073709551615 won 0 lost 0 decisions 2 easy 1 hard 2 samples "
			    "000102030405060708ff0102030405060708", &a, &err), 0, "%s", err.msg);
	cr_assert_eq(a.opponent, 1);
	cr_assert_null(a.version);
	cr_assert_eq(a.delta.games, UINT64_MAX);
	cr_assert_eq(a.delta.model.decisions, 2);
	cr_assert_eq(a.delta.model.easy_hits, 1);
	cr_assert_eq(a.delta.model.hard_hits, 2);
	cr_assert_eq(a.delta.model.sample[0].b[8], 0x08);
	cr_assert_eq(a.delta.model.sample[1].b[0], 0xff);
	cr_assert_eq(a.delta.model.sample[1].b[8], 0x08);
}

Test(state_rules, import_line_errors)
{
	static const struct {
		const char *line, *why;
	} bad[] = {
		{"result v2 bob games 1 won 0 lost 0", "starting with"},
		{"", "starting with"},
		{"results v2 b/b games 1 won 0 lost 0", "an opponent name"},
		{"results v:2 bob games 1 won 0 lost 0", "a bot version"},
		{"results v2", "an opponent name"},
		{"results", "a bot version"},
		{"results v2 bob game 1 won 0 lost 0", "expected \"games\""},
		{"results v2 bob games x won 0 lost 0", "games \"x\": malformed; expected an unsigned 64-bit"},
		{"results v2 bob games -1 won 0 lost 0", "games \"-1\": out of range; expected an unsigned"},
		{"results v2 bob games 18446744073709551616 won 0 lost 0", "64-bit"},
		{"results v2 bob games 1x won 0 lost 0", "64-bit"},
		{"results v2 bob games 1 won 0", "expected \"lost\""},
		{"results v2 bob games 1 won 2 lost 0", "must not exceed games"},
		{"results v2 bob games 1 won 0 lost 2", "must not exceed games"},
		{"results v2 bob games 1 won 0 lost 0 more", "unexpected text \"more\""},
		{"opponent eve games 1 won 0 lost 0 decisions 1 easy 2 hard 0 samples 000000000000000000",
		 "must not exceed decisions"},
		{"opponent eve games 1 won 0 lost 0 decisions 1 easy 0 hard 2 samples 000000000000000000",
		 "must not exceed decisions"},
		{"opponent eve games 1 won 0 lost 0 decisions 1 easy 0 hard 0 samples -", "expected 1 samples"},
		{"opponent eve games 1 won 0 lost 0 decisions 0 easy 0 hard 0 samples 00", "found 2 digits"},
		{"opponent eve games 1 won 0 lost 0 decisions 1 easy 0 hard 0 samples 00000000000000000A",
		 "lowercase hex"},
		{"opponent eve games 1 won 0 lost 0 decisions 1 easy 0 hard 0 samples g00000000000000000",
		 "lowercase hex"},
		{"opponent eve games 1 won 0 lost 0 decisions 1 easy 0 hard 0 sample 000000000000000000",
		 "\"samples\""},
		{"opponent eve games 1 won 0 lost 0 decisions 1 easy 0 hard 0 samples", "\"samples\""},
		{"opponent eve games 1 won 2 lost 0 decisions 0 easy 0 hard 0 samples -", "must not exceed games"},
		{"opponent eve games 1 won 0 lost 0 decisions 0 easy 0 hard 0 samples - x", "unexpected text"},
	};
	kb_store_add a;
	kb_err err;

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err.msg[0] = '\0';
		cr_assert_eq(import(bad[i].line, &a, &err), KB_EXPORT_MALFORMED, "accepted: %s", bad[i].line);
		cr_assert(strstr(err.msg, bad[i].why) != NULL, "%s: %s", bad[i].line, err.msg);
	}
	cr_assert_eq(import("opponent eve games 1 won 1 lost 1 decisions 0 easy 0 hard 0 samples -", &a, &err),
		     0, "equal counts are fine: %s", err.msg);
}

/* An opponent line keeps the most recent samples, oldest first, and
 * importing it puts each back in its ring slot. */
Test(state_rules, opponent_line_round_trip_with_a_wrapped_ring)
{
	kb_opp_rec r;
	char line[4096];
	kb_store_add a;
	kb_err err;

	memset(&r, 0, sizeof r);
	r.games = 3;
	r.model.decisions = KB_SAMPLES + 5; /* the oldest kept sample is in slot 5 */
	for (int j = 0; j < KB_SAMPLES; j++)
		r.model.sample[j].b[0] = (uint8_t)j;
	int len = kb_export_opponent_line("eve", &r, line, sizeof line);
	cr_assert_gt(len, 0);
	const char *s = strstr(line, " samples ");
	cr_assert_not_null(s);
	cr_assert(strncmp(s + 9, "05", 2) == 0, "oldest first: %.20s", s + 9);
	cr_assert_eq(strlen(s + 9), 2 * KB_SAMPLE_LEN * KB_SAMPLES);
	cr_assert_eq(kb_export_opponent_line("eve", &r, line, (size_t)len), -1, "too small a buffer");
	cr_assert_eq(kb_export_opponent_line("eve", &r, line, sizeof line), len);
	cr_assert_eq(kb_import_line(line, &a, &err), 0, "%s", err.msg);
	for (int j = 0; j < KB_SAMPLES; j++)
		cr_assert_eq(a.delta.model.sample[j].b[0], j, "slot %d", j);
	memset(&r.model, 0, sizeof r.model);
	cr_assert_gt(kb_export_opponent_line("eve", &r, line, sizeof line), 0);
	cr_assert(strstr(line, "decisions 0 easy 0 hard 0 samples -") != NULL, "%s", line);
}

/* A whole export: magic line, comments and blank lines skipped, CRLF
 * accepted, and any bad line refuses the whole file. */
Test(state_rules, import_file, .timeout = 20)
{
	char dir[256];
	kb_store *st;
	kb_err err;
	long n = -1;

	st = fresh_store(dir, sizeof dir);
	static const char good[] = "kimble-state-export 1\r\n# a comment\n\nresults v1 bob games 2 won 1 lost 1\r\n"
				   "results v1 bob games 3 won 0 lost 2\n";
	FILE *in = fmemopen((void *)good, sizeof good - 1, "r");
	cr_assert_eq(kb_import(st, in, "good", &n, &err), 0, "%s", err.msg);
	fclose(in);
	cr_assert_eq(n, 2);
	seen_results seen = {0};
	kb_store_visitor v = {NULL, on_results, &seen};
	cr_assert_eq(kb_store_each(st, &v, &err), 0);
	cr_assert_eq(seen.rec.games, 5);
	cr_assert_eq(seen.rec.won, 1);
	cr_assert_eq(seen.rec.lost, 3);

	static const char bad[] = "kimble-state-export 1\nresults v1 bob games 2 won 1 lost 1\nresults v1 bob\n";
	in = fmemopen((void *)bad, sizeof bad - 1, "r");
	cr_assert_eq(kb_import(st, in, "bad", &n, &err), KB_EXPORT_MALFORMED);
	fclose(in);
	cr_assert(strstr(err.msg, "bad line 3: ") != NULL, "%s", err.msg);
	static const char magic[] = "kimble-state-export 2\n";
	in = fmemopen((void *)magic, sizeof magic - 1, "r");
	cr_assert_eq(kb_import(st, in, "m", &n, &err), KB_EXPORT_MALFORMED);
	fclose(in);
	cr_assert(strstr(err.msg, "m line 1: expected \"kimble-state-export 1\"") != NULL, "%s", err.msg);
	in = fmemopen((void *)magic, 0, "r");
	if (in) {
		cr_assert_eq(kb_import(st, in, "e", &n, &err), KB_EXPORT_MALFORMED);
		fclose(in);
	}
	seen.n = 0;
	cr_assert_eq(kb_store_each(st, &v, &err), 0);
	cr_assert_eq(seen.rec.games, 5, "nothing written by a refused import");
	kb_store_close(st);
}

/* ---- store paths, names and keys ----------------------------------------- */

Test(state_rules, store_path_choice_and_length)
{
	char buf[32];

	unsetenv(KB_STORE_ENV);
	cr_assert_str_eq(kb_store_path(NULL, buf, sizeof buf), KB_STORE_DEFAULT_DIR);
	setenv(KB_STORE_ENV, "", 1);
	cr_assert_str_eq(kb_store_path(NULL, buf, sizeof buf), KB_STORE_DEFAULT_DIR, "empty: unset");
	setenv(KB_STORE_ENV, "/e", 1);
	cr_assert_str_eq(kb_store_path(NULL, buf, sizeof buf), "/e");
	cr_assert_str_eq(kb_store_path("1234567", buf, 8), "1234567", "7 + NUL fit in 8");
	cr_assert_null(kb_store_path("12345678", buf, 8), "8 + NUL do not");
}

Test(state_rules, apply_names_the_bad_name, .timeout = 20)
{
	char dir[256];
	kb_store *st;
	kb_err err;
	kb_store_add a;

	st = fresh_store(dir, sizeof dir);
	memset(&a, 0, sizeof a);
	a.delta.games = 1;
	a.name = "bob";
	a.version = "v 1";
	cr_assert_eq(kb_store_apply(st, &a, 1, NULL, &err), KB_STORE_NAME);
	cr_assert(strstr(err.msg, "name \"v 1\"") != NULL, "the version is named: %s", err.msg);
	a.name = "b b";
	a.version = "v1";
	cr_assert_eq(kb_store_apply(st, &a, 1, NULL, &err), KB_STORE_NAME);
	cr_assert(strstr(err.msg, "name \"b b\"") != NULL, "the name is named: %s", err.msg);
	a.version = "v 1";
	cr_assert_eq(kb_store_apply(st, &a, 1, NULL, &err), KB_STORE_NAME);
	cr_assert(strstr(err.msg, "name \"b b\"") != NULL, "both bad: the name first: %s", err.msg);
	a.opponent = 1;
	a.version = NULL;
	cr_assert_eq(kb_store_apply(st, &a, 1, NULL, &err), KB_STORE_NAME);
	cr_assert(strstr(err.msg, "name \"b b\"") != NULL, "%s", err.msg);
	kb_store_close(st);
}

typedef struct seen_all {
	int opponents, results;
	char names[8][80];
} seen_all;

static int on_any_opponent(void *ctx, const char *name, const kb_opp_rec *rec, int status)
{
	seen_all *s = ctx;
	(void)rec, (void)status;
	if (s->opponents + s->results < 8)
		snprintf(s->names[s->opponents + s->results], 80, "o %s", name);
	s->opponents++;
	return 0;
}

static int on_any_results(void *ctx, const char *version, const char *name, const kb_res_rec *rec,
			  int status)
{
	seen_all *s = ctx;
	(void)rec, (void)status;
	if (s->opponents + s->results < 8)
		snprintf(s->names[s->opponents + s->results], 80, "v %s %s", version, name);
	s->results++;
	return 0;
}

/* Keys another program could have written: only well-formed ones are
 * visited, a one-character name included. */
Test(state_rules, walk_visits_only_well_formed_keys, .timeout = 20)
{
	char dir[256];
	kb_store *st;
	kb_err err;
	kb_store_add a[2];

	st = fresh_store(dir, sizeof dir);
	memset(a, 0, sizeof a);
	a[0].name = "b", a[0].opponent = 1, a[0].version = "7", a[0].delta.games = 1;
	cr_assert_eq(kb_store_apply(st, a, 1, NULL, &err), 0, "%s", err.msg);
	kb_store_close(st);

	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	static const char *const junk[] = {"v/bad version/bob", "v/v1/bad name", "v/v1/", "v//bob",
					   "v/nosplit", "o/", "o/a b", "x/bob"};
	uint8_t val[KB_RES_LEN] = {KB_REC_RESULTS, 0, 1};
	cr_assert_eq(mdb_env_create(&env), 0);
	cr_assert_eq(mdb_env_open(env, dir, 0, 0644), 0);
	cr_assert_eq(mdb_txn_begin(env, NULL, 0, &txn), 0);
	cr_assert_eq(mdb_dbi_open(txn, NULL, 0, &dbi), 0);
	for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++) {
		MDB_val k = {strlen(junk[i]), (void *)junk[i]}, v = {sizeof val, val};
		cr_assert_eq(mdb_put(txn, dbi, &k, &v, 0), 0);
	}
	cr_assert_eq(mdb_txn_commit(txn), 0);
	mdb_env_close(env);

	cr_assert_eq(kb_store_open(&st, dir, 0, NULL, &err), 0, "%s", err.msg);
	seen_all seen = {0};
	kb_store_visitor v = {on_any_opponent, on_any_results, &seen};
	cr_assert_eq(kb_store_each(st, &v, &err), 0, "%s", err.msg);
	cr_assert_eq(seen.opponents, 1, "%s %s %s", seen.names[0], seen.names[1], seen.names[2]);
	cr_assert_eq(seen.results, 1, "%s %s %s", seen.names[0], seen.names[1], seen.names[2]);
	cr_assert_str_eq(seen.names[0], "o b");
	cr_assert_str_eq(seen.names[1], "v 7 b");
	kb_store_close(st);
}

/* ---- merging model statistics and what kimble-state prints ----------------- */

/* b's kept samples (its last min(decisions, 96)) take the places of the
 * last decisions of the merged count. */
Test(state_rules, stats_add_keeps_the_ring_aligned)
{
	kb_model_stats a, b;

	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	a.decisions = 3, a.easy_hits = 1, a.hard_hits = 2;
	for (int j = 0; j < 3; j++)
		a.sample[j].b[0] = (uint8_t)(200 + j);
	b.decisions = 100, b.easy_hits = 40, b.hard_hits = 50;
	for (int j = 0; j < KB_SAMPLES; j++)
		b.sample[j].b[0] = (uint8_t)(j + 1);
	kb_model_stats_add(&a, &b);
	cr_assert_eq(a.decisions, 103);
	cr_assert_eq(a.easy_hits, 41);
	cr_assert_eq(a.hard_hits, 52);
	/* b's oldest kept decision (number 4) is merged decision 7 */
	for (int j = 0; j < KB_SAMPLES; j++)
		cr_assert_eq(a.sample[(7 + j) % KB_SAMPLES].b[0], (4 + j) % KB_SAMPLES + 1, "j %d", j);

	kb_model_stats c, d;
	memset(&c, 0, sizeof c);
	memset(&d, 0, sizeof d);
	c.decisions = 5;
	d.decisions = 2;
	d.sample[0].b[0] = 77, d.sample[1].b[0] = 88;
	kb_model_stats_add(&c, &d);
	cr_assert_eq(c.decisions, 7);
	cr_assert_eq(c.sample[5].b[0], 77);
	cr_assert_eq(c.sample[6].b[0], 88);
	cr_assert_eq(c.sample[0].b[0], 0);
	cr_assert_eq(kb_model_samples(&c), 7);
	c.decisions = 1000;
	cr_assert_eq(kb_model_samples(&c), KB_SAMPLES);
}

Test(state_rules, belief_and_feature_names)
{
	kb_model m;

	memset(&m, 0, sizeof m);
	m.weight[KB_C_HARD] = 0.914;
	m.weight[KB_C_EASY] = 0.05;
	m.weight[KB_C_LOGIT] = 0.036;
	char out[64];
	kb_listing_belief(&m, out, sizeof out);
	cr_assert_str_eq(out, "hard 0.91");
	cr_assert_eq(kb_model_belief(&m), KB_C_HARD);
	m.weight[KB_C_LOGIT] = 0.92;
	cr_assert_eq(kb_model_belief(&m), KB_C_LOGIT);
	cr_assert_str_eq(kb_component_name(KB_C_EASY), "easy");
	cr_assert_str_eq(kb_component_name(KB_C_RANDOM), "random");
	cr_assert_str_eq(kb_component_name(KB_C_LOGIT), "heuristic");
	cr_assert_str_eq(kb_component_name(KB_COMPONENTS), "?");
	cr_assert_str_eq(kb_feature_name(0), "foremost");
	cr_assert_str_eq(kb_feature_name(KB_FEATURES - 1), "advance");
	cr_assert_str_eq(kb_feature_name(KB_FEATURES), "?");
	cr_assert_str_eq(kb_feature_name(-1), "?");
}

static const char *report_text(kb_store *st, const char *show, int *rc)
{
	static char *buf;
	size_t len;
	kb_err err;

	free(buf);
	buf = NULL;
	FILE *f = open_memstream(&buf, &len);
	*rc = show ? kb_listing_opponent(st, show, f, &err) : kb_listing_opponents(st, f, &err);
	fclose(f);
	return buf;
}

Test(state_rules, list_and_show_print_the_counts, .timeout = 20)
{
	char dir[256];
	kb_store *st;
	kb_err err;
	kb_store_add a;
	int rc;

	st = fresh_store(dir, sizeof dir);
	memset(&a, 0, sizeof a);
	a.name = "pat", a.opponent = 1, a.version = "v9";
	a.delta.games = 8, a.delta.won = 2, a.delta.lost = 5;
	a.delta.model.decisions = 3, a.delta.model.easy_hits = 1, a.delta.model.hard_hits = 2;
	cr_assert_eq(kb_store_apply(st, &a, 1, NULL, &err), 0, "%s", err.msg);
	uint8_t newer[8] = {KB_REC_OPPONENT, 0, 9, 0, 0, 0, 0, 0};
	cr_assert_eq(kb_store_put_raw(st, "zed", newer, sizeof newer, &err), 0, "%s", err.msg);

	const char *list = report_text(st, NULL, &rc);
	cr_assert_eq(rc, 0);
	cr_assert(strncmp(list, "OPPONENT", 8) == 0, "%s", list);
	cr_assert(strstr(list, "\npat                         8        2   25.0%        5          3  ") != NULL,
		  "%s", list);
	cr_assert(strstr(list, "\nzed                  newer-format record, not read\n") != NULL, "%s", list);

	const char *show = report_text(st, "pat", &rc);
	cr_assert_eq(rc, 0);
	cr_assert(strstr(show, "opponent pat\ngames 8, won 2 (25.0%), lost 5\n") != NULL, "%s", show);
	cr_assert(strstr(show, "decisions 3 (matching easy 1, hard 2), 3 kept as samples\n") != NULL, "%s", show);
	cr_assert(strstr(show, "results by bot version:\n  v9               games 8 won 2 (25.0%) lost 5\n") != NULL,
		  "%s", show);
	show = report_text(st, "zed", &rc);
	cr_assert_eq(rc, 0);
	cr_assert(strstr(show, "opponent zed: newer-format record, not read\n") != NULL, "%s", show);
	show = report_text(st, "nobody", &rc);
	cr_assert_eq(rc, KB_STORE_ABSENT, "no records of that name");
	kb_store_close(st);
}

typedef struct status_seen {
	int results_status;
	uint64_t games;
} status_seen;

static int on_results_status(void *ctx, const char *version, const char *name, const kb_res_rec *rec,
			     int status)
{
	status_seen *s = ctx;
	(void)version, (void)name;
	s->results_status = status;
	s->games = rec->games;
	return 0;
}

/* An unreadable results record is left as it is and counted as skipped,
 * never overwritten by the addition. */
Test(state_rules, unreadable_results_record_left_alone, .timeout = 20)
{
	char dir[256];
	kb_store *st;
	kb_err err;
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	static const uint8_t newer[KB_RES_LEN] = {KB_REC_RESULTS, 0, 7};

	st = fresh_store(dir, sizeof dir);
	kb_store_close(st);
	cr_assert_eq(mdb_env_create(&env), 0);
	cr_assert_eq(mdb_env_open(env, dir, 0, 0644), 0);
	cr_assert_eq(mdb_txn_begin(env, NULL, 0, &txn), 0);
	cr_assert_eq(mdb_dbi_open(txn, NULL, 0, &dbi), 0);
	MDB_val k = {strlen("v/v1/bob"), "v/v1/bob"}, v = {sizeof newer, (void *)newer};
	cr_assert_eq(mdb_put(txn, dbi, &k, &v, 0), 0);
	cr_assert_eq(mdb_txn_commit(txn), 0);
	mdb_env_close(env);

	cr_assert_eq(kb_store_open(&st, dir, 0, NULL, &err), 0, "%s", err.msg);
	kb_store_add a;
	memset(&a, 0, sizeof a);
	a.name = "bob", a.version = "v1", a.delta.games = 3;
	int skipped = -1;
	cr_assert_eq(kb_store_apply(st, &a, 1, &skipped, &err), 0, "%s", err.msg);
	cr_assert_eq(skipped, 1);
	status_seen seen = {0, 99};
	kb_store_visitor vis = {NULL, on_results_status, &seen};
	cr_assert_eq(kb_store_each(st, &vis, &err), 0, "%s", err.msg);
	cr_assert_eq(seen.results_status, KB_REC_NEWER, "still the newer record");
	cr_assert_eq(seen.games, 0);
	kb_store_close(st);
}

/* Import into a store that cannot be written: a store error (-1), not
 * success. */
Test(state_rules, import_into_a_read_only_store_fails, .timeout = 20)
{
	char dir[256];
	kb_store *st = fresh_store(dir, sizeof dir);
	kb_err err;
	long n = -1;

	kb_store_close(st);
	cr_assert_eq(kb_store_open(&st, dir, KB_STORE_RDONLY, NULL, &err), 0, "%s", err.msg);
	static const char text[] = "kimble-state-export 1\nresults v1 bob games 2 won 1 lost 1\n";
	FILE *in = fmemopen((void *)text, sizeof text - 1, "r");
	err.msg[0] = '\0';
	cr_assert_eq(kb_import(st, in, "ro", &n, &err), KB_STORE_READONLY);
	fclose(in);
	cr_assert_neq(err.msg[0], '\0', "the reason is given");
	cr_assert_eq(n, -1, "no count on failure");
	kb_store_close(st);
}

Test(state_rules, store_refusals_are_errors, .timeout = 20)
{
	char dir[256], longer[700];
	kb_store *st = fresh_store(dir, sizeof dir);
	kb_err err;
	kb_store_add a;

	kb_store_close(st);
	memset(longer, 'x', sizeof longer - 1);
	longer[sizeof longer - 1] = '\0';
	memcpy(longer, dir, strlen(dir));
	longer[strlen(dir)] = '/';
	st = NULL;
	cr_assert_eq(kb_store_open(&st, longer, KB_STORE_CREATE, NULL, &err), KB_STORE_ERROR, "a path too long");
	cr_assert_null(st);
	cr_assert(strstr(err.msg, "expected at most") != NULL, "%s", err.msg);

	cr_assert_eq(kb_store_open(&st, dir, KB_STORE_RDONLY, NULL, &err), 0, "%s", err.msg);
	cr_assert(kb_store_readonly(st));
	memset(&a, 0, sizeof a);
	a.name = "bob", a.opponent = 1, a.delta.games = 1;
	cr_assert_eq(kb_store_apply(st, &a, 1, NULL, &err), KB_STORE_READONLY);
	cr_assert(strstr(err.msg, "opened read-only, cannot write") != NULL, "%s", err.msg);
	long deleted = 0;
	cr_assert_eq(kb_store_reset(st, NULL, &deleted, &err), KB_STORE_READONLY);
	static const uint8_t raw[KB_RES_LEN] = {KB_REC_OPPONENT, 0, 1};
	cr_assert_eq(kb_store_put_raw(st, "bob", raw, sizeof raw, &err), KB_STORE_READONLY);
	cr_assert(strstr(err.msg, "opened read-only, cannot write") != NULL, "%s", err.msg);
	kb_store_close(st);
}

/* ---- the opponent model's features, worked out by hand --------------------- */

static void features(const kb_pos *p, int d, unsigned mask, double f[KB_PIECES][KB_FEATURES])
{
	for (int i = 0; i < KB_PIECES; i++)
		for (int k = 0; k < KB_FEATURES; k++)
			f[i][k] = -7; /* untouched unless legal */
	kb_features(p, 0, d, mask, f);
}

Test(state_rules, features_of_hand_made_moves)
{
	double f[KB_PIECES][KB_FEATURES];

	/* B (progress 0 = ring 7, 12 = ring 19, two at home) threatens ring
	 * 7 (its start), 8..13 and 20..25.  A: 26, 20, 5, home; a 2. */
	kb_pos p = test_pos(0x3, "26 20 5", "12 0", "", "");
	unsigned mask = kb_legal(&p, 0, 2);
	cr_assert_eq(mask, 0x7u);
	features(&p, 2, mask, f);
	/* piece 0: 26 -> 28, into the goal */
	static const double want0[KB_FEATURES] = {1, 0, 0, 0, 1, 0, 0, 0, 27 / 32.0};
	/* piece 1: 20 -> 22, threatened before and after */
	static const double want1[KB_FEATURES] = {0, 0, 0, 0, 0, 0, 1, 0, 21 / 32.0};
	/* piece 2: 5 -> 7, captures B on its start square, which B threatens */
	static const double want2[KB_FEATURES] = {0, 1, 1, 0, 0, 0, 1, 0, 6 / 32.0};
	for (int k = 0; k < KB_FEATURES; k++) {
		cr_assert_eq(f[0][k], want0[k], "piece 0 %s", kb_feature_name(k));
		cr_assert_eq(f[1][k], want1[k], "piece 1 %s", kb_feature_name(k));
		cr_assert_eq(f[2][k], want2[k], "piece 2 %s", kb_feature_name(k));
		cr_assert_eq(f[3][k], -7, "piece 3 is not legal: %s written", kb_feature_name(k));
	}

	/* A on 9 (ring 9, threatened) moves 5 to ring 14, just out of reach */
	p = test_pos(0x3, "9", "0", "", "");
	features(&p, 5, 0x1, f);
	cr_assert_eq(f[0][KB_F_ESCAPE], 1);
	cr_assert_eq(f[0][KB_F_LAND_THREAT], 0);
	/* A on 25 moves 2 to 27, its last ring square, onto B: still the ring */
	p = test_pos(0x3, "25", "20", "", "");
	features(&p, 2, 0x1, f);
	cr_assert_eq(f[0][KB_F_ENTER_GOAL], 0);
	cr_assert_eq(f[0][KB_F_CAPTURE], 1);
	/* a 6: leaving home, and a goal piece moving inside the goal */
	p = test_pos(0x3, "28 3", "", "", "");
	mask = kb_legal(&p, 0, 2);
	features(&p, 2, mask, f);
	cr_assert_eq(f[0][KB_F_IN_GOAL], 1);
	cr_assert_eq(f[0][KB_F_ADVANCE], 29 / 32.0);
	p = test_pos(0x3, "3", "", "", "");
	mask = kb_legal(&p, 0, 6);
	cr_assert_eq(mask, 0x3u);
	features(&p, 6, mask, f);
	cr_assert_eq(f[1][KB_F_LEAVE], 1);
	cr_assert_eq(f[1][KB_F_ADVANCE], 0);
	cr_assert_eq(f[0][KB_F_LEAVE], 0);
}
