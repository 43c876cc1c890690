/* test_rule_state.c - the learning store's record rules, each on its own
 * (found by make mutate, docs/mutation.md): header versions (0 is never
 * valid), little-endian fields written out byte by byte, results that add
 * each count to itself, names and keys at their boundaries. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <lmdb.h>
#include <malloc.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "state/export.h"
#include "core/policy.h"
#include "core/model.h"
#include "core/record.h"
#include "state/listing.h"
#include "core/store.h"
#include "support.h"
#include "support_run.h"

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

/* A record of kind and version decoded from len bytes by the results
 * decoder (opp 0) or the opponent decoder (opp 1). */
typedef struct decode_case {
	int kind, version, opp;
	size_t len;
	int expect;
	const char *why;
} decode_case;

static void expect_decodes(const decode_case *cases, size_t n)
{
	uint8_t buf[KB_REC_MAX] = {0};
	kb_opp_rec opp;
	kb_res_rec res;

	for (size_t i = 0; i < n; i++) {
		const decode_case *c = &cases[i];
		header(buf, c->kind, c->version);
		int got = c->opp ? kb_opp_decode(buf, c->len, &opp) : kb_res_decode(buf, c->len, &res);
		cr_assert_eq(got, c->expect, "case %zu: kind %d version %d, %zu bytes%s%s", i, c->kind,
			     c->version, c->len, c->why ? ": " : "", c->why ? c->why : "");
	}
}

Test(state_rules, version_zero_is_refused)
{
	static const decode_case cases[] = {
		{KB_REC_RESULTS, 0, 0, KB_RES_LEN, KB_REC_BAD, NULL},
		{KB_REC_OPPONENT, 0, 1, KB_OPP_V1_LEN, KB_REC_BAD, NULL},
		{KB_REC_OPPONENT, 0, 1, KB_OPP_V2_LEN, KB_REC_BAD, NULL},
	};
	expect_decodes(cases, sizeof cases / sizeof cases[0]);
}

Test(state_rules, versions_kinds_and_sizes)
{
	static const decode_case cases[] = {
		{KB_REC_RESULTS, 1, 0, KB_RES_LEN, KB_REC_OK, NULL},
		{KB_REC_RESULTS, 1, 0, KB_RES_LEN - 1, KB_REC_BAD, NULL},
		{KB_REC_RESULTS, 1, 0, KB_RES_LEN + 1, KB_REC_BAD, NULL},
		{KB_REC_RESULTS, 1, 0, 7, KB_REC_BAD, "shorter than a header"},
		{KB_REC_RESULTS, 2, 0, KB_RES_LEN, KB_REC_NEWER, NULL},
		{KB_REC_OPPONENT, 1, 0, KB_RES_LEN, KB_REC_BAD, "an opponent record"},
		{KB_REC_OPPONENT, 1, 1, KB_OPP_V1_LEN, KB_REC_OLD, NULL},
		{KB_REC_OPPONENT, 1, 1, KB_OPP_V1_LEN + 1, KB_REC_BAD, NULL},
		{KB_REC_OPPONENT, 1, 1, KB_OPP_V2_LEN, KB_REC_BAD, "v1 with v2's size"},
		{KB_REC_OPPONENT, 2, 1, KB_OPP_V2_LEN, KB_REC_OLD, NULL},
		{KB_REC_OPPONENT, 2, 1, KB_OPP_V1_LEN, KB_REC_BAD, "v2 with v1's size"},
		{KB_REC_OPPONENT, 2, 1, KB_OPP_V2_LEN - 1, KB_REC_BAD, NULL},
		{KB_REC_OPPONENT, 2, 1, KB_OPP_V3_LEN, KB_REC_BAD, "v2 with v3's size"},
		{KB_REC_OPPONENT, 3, 1, KB_OPP_V3_LEN, KB_REC_OLD, NULL},
		{KB_REC_OPPONENT, 3, 1, KB_OPP_V2_LEN, KB_REC_BAD, "v3 with v2's size"},
		{KB_REC_OPPONENT, 3, 1, KB_OPP_V4_LEN, KB_REC_BAD, "v3 with v4's size"},
		{KB_REC_OPPONENT, 4, 1, KB_OPP_V4_LEN, KB_REC_OLD, NULL},
		{KB_REC_OPPONENT, 4, 1, KB_OPP_V3_LEN, KB_REC_BAD, "v4 with v3's size"},
		{KB_REC_OPPONENT, 4, 1, KB_OPP_V5_LEN, KB_REC_BAD, "v4 with v5's size"},
		{KB_REC_OPPONENT, 5, 1, KB_OPP_V5_LEN, KB_REC_OK, NULL},
		{KB_REC_OPPONENT, 5, 1, KB_OPP_V4_LEN, KB_REC_BAD, "v5 with v4's size"},
		{KB_REC_OPPONENT, 6, 1, KB_OPP_V5_LEN, KB_REC_NEWER, NULL},
		{KB_REC_RESULTS, 1, 1, KB_OPP_V1_LEN, KB_REC_BAD, "a results record"},
	};
	uint8_t buf[KB_REC_MAX] = {0};
	kb_res_rec res;

	expect_decodes(cases, sizeof cases / sizeof cases[0]);
	header(buf, KB_REC_RESULTS, 1);
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
	cr_assert_eq(kb_opp_encode(&r, buf), KB_OPP_V5_LEN);
	static const uint8_t head[56] = {
		1, 0, 5, 0, 0, 0, 0, 0,
		0x0d, 0x0c, 0x0b, 0x0a, 0, 0, 0, 0,
		3, 0, 0, 0, 0, 0, 0, 0,
		0, 7, 0, 0, 0, 0, 0, 0,
		0, 0, 5, 0, 0, 0, 0, 0,
		0, 0x40, 0, 0, 0, 0, 0, 0,
		0x12, 0, 0, 0, 0, 0, 0, 0};
	cr_assert_arr_eq(buf, head, sizeof head);
	cr_assert_eq(buf[56], 1, "first sample");
	cr_assert_eq(buf[KB_OPP_V2_LEN - 1], KB_SAMPLES, "last sample");
	cr_assert_eq(kb_opp_decode(buf, KB_OPP_V5_LEN, &back), KB_REC_OK);
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
	cr_assert_eq(kb_opp_decode(buf, KB_OPP_V5_LEN, &back), KB_REC_OK, "equal is fine");
	for (int field = 0; field < 4; field++) {
		kb_opp_rec bad = r;
		uint64_t *f[4] = {&bad.won, &bad.lost, &bad.model.easy_hits, &bad.model.hard_hits};
		*f[field] += 1;
		kb_opp_encode(&bad, buf);
		cr_assert_eq(kb_opp_decode(buf, KB_OPP_V5_LEN, &back), KB_REC_BAD, "field %d", field);
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

/* An export writes each results record's counts under their own words:
 * games, won (the bot's wins), lost. */
Test(state_rules, export_writes_results_counts_in_their_places, .timeout = 20)
{
	const kb_store_add add = {.name = "bob", .version = "v1.2",
				  .delta = {.games = 7, .won = 3, .lost = 1}};
	char dir[256], *text = NULL;
	size_t len;
	kb_err err;
	kb_store *st = fresh_store(dir, sizeof dir);

	cr_assert_eq(kb_store_apply(st, &add, 1, NULL, &err), 0, "%s", err.msg);
	FILE *f = open_memstream(&text, &len);
	cr_assert_eq(kb_export(st, f, &err), 0, "%s", err.msg);
	fclose(f);
	cr_assert(strstr(text, "\nresults v1.2 bob games 7 won 3 lost 1\n") != NULL, "%s", text);
	free(text);
	kb_store_close(st);
}

/* A stream whose first write fails (ENOSPC) and whose later ones work. */
static ssize_t fail_first_write(void *cookie, const char *buf, size_t n)
{
	int *writes = cookie;

	(void)buf;
	if ((*writes)++ == 0) {
		errno = ENOSPC;
		return -1;
	}
	return (ssize_t)n;
}

/* Output lost on the way is an error even when the last flush goes
 * through: the export's first block fails (a 16-byte buffer: the magic
 * line alone fills it), the rest is written, and the export says it
 * could not write. */
Test(state_rules, export_fails_on_an_earlier_write_error, .timeout = 20)
{
	const kb_store_add add = {.name = "bob", .version = "v1.2",
				  .delta = {.games = 7, .won = 3, .lost = 1}};
	cookie_io_functions_t io = {.write = fail_first_write};
	static char buf[16];
	char dir[256];
	int writes = 0;
	kb_err err;
	kb_store *st = fresh_store(dir, sizeof dir);

	cr_assert_eq(kb_store_apply(st, &add, 1, NULL, &err), 0, "%s", err.msg);
	FILE *f = fopencookie(&writes, "w", io);
	cr_assert_not_null(f);
	setvbuf(f, buf, _IOFBF, sizeof buf);
	cr_assert_eq(kb_export(st, f, &err), KB_EXPORT_WRITE);
	cr_assert(strstr(err.msg, "export: cannot write") != NULL, "%s", err.msg);
	cr_assert_gt(writes, 1, "the later writes went through");
	fclose(f);
	kb_store_close(st);
}

/* Results under a bot version add games to games, wins to wins, losses
 * to losses, through the store. */
Test(state_rules, results_record_adds_each_count, .timeout = 20)
{
	const kb_store_add adds[2] = {
		{.name = "bob", .version = "v1.2", .delta = {.games = 7, .won = 3, .lost = 1}},
		{.name = "bob", .version = "v1.2", .delta = {.games = 20, .won = 0, .lost = 10}},
	};
	char dir[256];
	kb_err err;
	kb_store *st = fresh_store(dir, sizeof dir);

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

/* An opponent line keeps the samples only, and importing it gives back
 * the faded statistics they make (model.h): two decisions of A with a 2
 * (A on 5 and 2, B at home), hard's pick then easy's: 0.999 + 1 decisions,
 * easy's rule missed the older, hard's the newer, and log 2 choices
 * each. */
Test(state_rules, import_rebuilds_the_faded_statistics_from_the_samples)
{
	kb_pos p = test_pos(0x3, "5 2", "", "", "");
	kb_opp_rec r;
	char line[4096];
	kb_store_add a;
	kb_err err;

	memset(&r, 0, sizeof r);
	r.games = 1;
	cr_assert_eq(kb_model_observe(&r.model, &p, 0, 2, 0x3, 0), 0);
	cr_assert_eq(kb_model_observe(&r.model, &p, 0, 2, 0x3, 1), 0);
	cr_assert_gt(kb_export_opponent_line("eve", &r, line, sizeof line), 0);
	cr_assert_eq(kb_import_line(line, &a, &err), 0, "%s", err.msg);
	const kb_model_stats *m = &a.delta.model;
	cr_assert_float_eq(m->recent, 1.999, 1e-12);
	cr_assert_float_eq(m->recent_miss[KB_R_EASY], 0.999, 1e-12);
	cr_assert_float_eq(m->recent_miss[KB_R_HARD], 1.0, 1e-12);
	cr_assert_float_eq(m->recent_log_choices, 1.999 * log(2), 1e-12);
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

/* An import gives back what it allocated, refused or not: after 16 calls
 * (the allocator's per-size caches full), four more leave the heap figure
 * where it was (not under ASan, whose figure does not move: LeakSanitizer
 * checks there). */
Test(state_rules, import_leaves_nothing_allocated, .timeout = 20)
{
	char dir[256];
	kb_store *st = fresh_store(dir, sizeof dir);
	static const char text[] = "kimble-state-export 1\nresults v1 bob games 2 won 1 lost 1\n"
				   "results v1 amy games 1 won 0 lost 1\n";
	kb_err err;
	long n;

	kb_store_close(st);
	cr_assert_eq(kb_store_open(&st, dir, KB_STORE_RDONLY, NULL, &err), 0, "%s", err.msg);
	for (int k = 0; k < 20; k++) {
		size_t before = mallinfo2().uordblks;
		FILE *in = fmemopen((void *)text, sizeof text - 1, "r");
		cr_assert_eq(kb_import(st, in, "ro", &n, &err), KB_STORE_READONLY);
		fclose(in);
		size_t after = mallinfo2().uordblks;
		if (k >= 16)
			cr_assert_eq(after, before, "import keeps %zd bytes a call", (ssize_t)(after - before));
	}
	kb_store_close(st);
}

/* A stream that gives its text, then fails with EIO. */
static ssize_t read_then_fail(void *cookie, char *buf, size_t size)
{
	const char **rest = cookie;
	size_t n = strlen(*rest);

	if (!n) {
		errno = EIO;
		return -1;
	}
	if (n > size)
		n = size;
	memcpy(buf, *rest, n);
	*rest += n;
	return (ssize_t)n;
}

/* A read error after good lines refuses the import (the records read so
 * far are not applied): no lines are lost silently. */
Test(state_rules, import_read_error, .timeout = 20)
{
	char dir[256];
	kb_store *st = fresh_store(dir, sizeof dir);
	const char *rest = "kimble-state-export 1\nresults v1 bob games 2 won 1 lost 1\n";
	cookie_io_functions_t io = {read_then_fail, NULL, NULL, NULL};
	FILE *in = fopencookie(&rest, "r", io);
	kb_err err;
	long n = -1;

	cr_assert_not_null(in);
	cr_assert_eq(kb_import(st, in, "cut", &n, &err), KB_EXPORT_MALFORMED);
	fclose(in);
	cr_assert_str_eq(err.msg, "cut: read error: Input/output error");
	cr_assert_eq(n, -1);
	seen_results seen = {0};
	kb_store_visitor v = {NULL, on_results, &seen};
	cr_assert_eq(kb_store_each(st, &v, &err), 0);
	cr_assert_eq(seen.n, 0, "nothing written");
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

/* Keys another program could have written: only well-formed ones are
 * visited, a one-character name included. */
Test(state_rules, walk_visits_only_well_formed_keys, .timeout = 20)
{
	char dir[256];
	kb_store *st;
	kb_err err;
	kb_store_add a[2] = {{0}};

	st = fresh_store(dir, sizeof dir);
	a[0].name = "b", a[0].opponent = 1, a[0].version = "7", a[0].delta.games = 1;
	cr_assert_eq(kb_store_apply(st, a, 1, NULL, &err), 0, "%s", err.msg);
	kb_store_close(st);

	static const char *const junk[] = {"v/bad version/bob", "v/v1/bad name", "v/v1/", "v//bob",
					   "v/nosplit", "o/", "o/a b", "x/bob"};
	static const uint8_t val[KB_RES_LEN] = {KB_REC_RESULTS, 0, 1};
	test_record rec[sizeof junk / sizeof junk[0]];
	for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++)
		rec[i] = (test_record){junk[i], val, sizeof val};
	test_lmdb_put(dir, rec, sizeof junk / sizeof junk[0]);

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
	kb_listing_belief(&m, 0, out, sizeof out);
	cr_assert_str_eq(out, "hard 0.91");
	cr_assert_eq(kb_model_belief(&m), KB_C_HARD);
	m.weight[KB_C_LOGIT] = 0.92;
	cr_assert_eq(kb_model_belief(&m), KB_C_LOGIT);
	cr_assert_str_eq(kb_component_name(KB_C_EASY), "easy");
	cr_assert_str_eq(kb_component_name(KB_C_RANDOM), "random");
	cr_assert_str_eq(kb_component_name(KB_C_LOGIT), "heuristic");
	cr_assert_str_eq(kb_component_name(KB_COMPONENTS), "?");
	cr_assert_str_eq(kb_feature_name(0), "foremost");
	cr_assert_str_eq(kb_feature_name(KB_F_ADVANCE), "advance");
	cr_assert_str_eq(kb_feature_name(KB_FEATURES - 1), "chase");
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

/* report_text of a listing that must succeed. */
static const char *report_ok(kb_store *st, const char *show)
{
	int rc;
	const char *text = report_text(st, show, &rc);

	cr_assert_eq(rc, 0, "listing %s: %s", show ? show : "all", text);
	return text;
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

	const char *list = report_ok(st, NULL);
	cr_assert(strncmp(list, "OPPONENT", 8) == 0, "%s", list);
	static const char pat_counts[] = "\npat                         8        2   25.0%        5          3  ";
	const char *pat = strstr(list, pat_counts);
	cr_assert(pat != NULL, "%s", list);
	/* then the belief: a component of the mixture and its weight */
	char comp[32];
	double weight;
	cr_assert_eq(sscanf(pat + sizeof pat_counts - 1, "%31s %lf", comp, &weight), 2, "%s", list);
	cr_assert(strstr("easy hard random heuristic rule", comp) != NULL && weight >= 0 && weight <= 1,
		  "%s", list);
	/* zed, the last name, has that one line and nothing after it */
	static const char zed[] = "\nzed                  newer-format record, not read\n";
	cr_assert(strlen(list) > strlen(zed) && strcmp(list + strlen(list) - strlen(zed), zed) == 0, "%s",
		  list);

	const char *show = report_ok(st, "pat");
	cr_assert(strstr(show, "opponent pat\ngames 8, won 2 (25.0%), lost 5\n") != NULL, "%s", show);
	cr_assert(strstr(show, "decisions 3 (matching easy 1, hard 2), 3 kept as samples\n") != NULL, "%s", show);
	cr_assert(strstr(show, "results by bot version:\n  v9               games 8 won 2 (25.0%) lost 5\n") != NULL,
		  "%s", show);
	show = report_ok(st, "zed");
	cr_assert(strstr(show, "opponent zed: newer-format record, not read\n") != NULL, "%s", show);
	show = report_text(st, "nobody", &rc);
	cr_assert_eq(rc, KB_STORE_ABSENT, "no records of that name");
	show = report_text(st, "bad name!", &rc);
	cr_assert_eq(rc, KB_STORE_NAME, "not a name");
	cr_assert_str_eq(show, "", "nothing printed for it");
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
	static const uint8_t newer[KB_RES_LEN] = {KB_REC_RESULTS, 0, 7};
	const test_record bob = {"v/v1/bob", newer, sizeof newer};

	st = fresh_store(dir, sizeof dir);
	kb_store_close(st);
	test_lmdb_put(dir, &bob, 1);

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
 * success; an import of no records succeeds. */
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
	/* an export without records writes nothing: nothing to refuse */
	in = fmemopen((void *)text, strlen("kimble-state-export 1\n"), "r");
	cr_assert_eq(kb_import(st, in, "none", &n, &err), 0, "%s", err.msg);
	fclose(in);
	cr_assert_eq(n, 0);
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

/* Chase (model.h): how close behind an opponent's piece a move ends, in
 * thirds: 1 for 1..2 squares, 2/3 for 3..4, 1/3 for 5..6, else 0. */
Test(state_rules, chase_levels_of_hand_made_moves)
{
	double f[KB_PIECES][KB_FEATURES];
	kb_pos p;

	/* A's piece ends 1, 4, 5, 6 and 7 squares behind B's (on ring 7, B's
	 * start, or on ring 17, its progress 10); onto it is a capture, not a
	 * chase */
	static const struct {
		const char *a, *b;
		int die;
		double want;
	} one[] = {{"4", "0", 2, 1.0}, {"1", "0", 2, 2 / 3.0}, {"0", "0", 2, 1 / 3.0},
		   {"5", "0", 1, 1.0}, {"0", "0", 1, 1 / 3.0}, {"0", "0", 6, 1.0},
		   {"1", "0", 6, 0.0}, {"8", "10", 2, 0.0},
		   {"8", "10", 3, 1 / 3.0}, {"8", "10", 5, 2 / 3.0}};
	for (size_t i = 0; i < sizeof one / sizeof one[0]; i++) {
		p = test_pos(0x3, one[i].a, one[i].b, "", "");
		features(&p, one[i].die, 0x1, f);
		cr_assert_eq(f[0][KB_F_CHASE], one[i].want, "A on %s, B on %s, a %d", one[i].a,
			     one[i].b, one[i].die);
	}
	/* across ring square 0: A ends on 27, B's piece on ring 1 (its
	 * progress 22) is 2 squares ahead */
	p = test_pos(0x3, "25", "22", "", "");
	features(&p, 2, 0x1, f);
	cr_assert_eq(f[0][KB_F_CHASE], 1.0);
	/* A's own piece ahead, B's pieces at home or in its goal: nothing to
	 * chase */
	p = test_pos(0x3, "10 12", "28", "", "");
	features(&p, 1, 0x1, f);
	cr_assert_eq(f[0][KB_F_CHASE], 0.0);
	/* moving into the goal leaves the ring: no chase even with a piece
	 * of B ahead of A's last ring square */
	p = test_pos(0x3, "26", "21", "", "");
	features(&p, 3, 0x1, f);
	cr_assert_eq(f[0][KB_F_ENTER_GOAL], 1);
	cr_assert_eq(f[0][KB_F_CHASE], 0.0);
}

/* ---- versions 3 and 4's faded statistics, byte by byte -------------------- */

/* The binary64 at p, read little-endian by hand. */
static double le_double(const uint8_t *p)
{
	uint64_t v = 0;
	double d;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	memcpy(&d, &v, sizeof d);
	return d;
}

/* A record whose faded values are all different. */
static kb_opp_rec faded_rec(void)
{
	kb_opp_rec r;

	memset(&r, 0, sizeof r);
	r.games = 4;
	r.model.recent = 5.0;
	r.model.recent_log_choices = 0.5;
	for (int k = 0; k < KB_RULES; k++)
		r.model.recent_miss[k] = 0.25 * k;
	for (int k = 0; k < KB_FEATURES; k++)
		r.model.fit_w[k] = -1.0 - k; /* negative weights are weights too */
	r.model.recent_judged = 3.0;
	r.model.recent_predicted = 2.0;
	for (int k = 0; k < KB_SCORES; k++) {
		r.model.score_judged[k] = 1.5 + k;
		r.model.score_predicted[k] = 1.25 + k;
		r.model.score_hard[k] = 0.5 + k;
	}
	return r;
}

/* record.h: after version 2's 920 bytes, recent, recent_log_choices,
 * recent_miss[12], fit_w[0..9) (the features before chase),
 * recent_judged, recent_predicted, 8 bytes each: version 3's 1120 bytes;
 * version 4 then adds fit_w[9] (chase), version 5 score_judged[2],
 * score_predicted[2], score_hard[2] (not ahead, ahead). */
Test(state_rules, faded_fields_at_their_offsets)
{
	kb_opp_rec r = faded_rec(), back;
	uint8_t buf[KB_REC_MAX];

	cr_assert_eq(kb_opp_encode(&r, buf), 1176);
	cr_assert_eq(buf[2], 5, "version 5");
	cr_assert_eq(le_double(buf + 920), 5.0, "recent");
	cr_assert_eq(le_double(buf + 928), 0.5, "recent_log_choices");
	for (int k = 0; k < 12; k++)
		cr_assert_eq(le_double(buf + 936 + 8 * k), 0.25 * k, "recent_miss[%d]", k);
	for (int k = 0; k < 9; k++)
		cr_assert_eq(le_double(buf + 1032 + 8 * k), -1.0 - k, "fit_w[%d]", k);
	cr_assert_eq(le_double(buf + 1104), 3.0, "recent_judged");
	cr_assert_eq(le_double(buf + 1112), 2.0, "recent_predicted");
	cr_assert_eq(le_double(buf + 1120), -10.0, "fit_w[9]");
	cr_assert_eq(le_double(buf + 1128), 1.5, "score_judged[not ahead]");
	cr_assert_eq(le_double(buf + 1136), 2.5, "score_judged[ahead]");
	cr_assert_eq(le_double(buf + 1144), 1.25, "score_predicted[not ahead]");
	cr_assert_eq(le_double(buf + 1152), 2.25, "score_predicted[ahead]");
	cr_assert_eq(le_double(buf + 1160), 0.5, "score_hard[not ahead]");
	cr_assert_eq(le_double(buf + 1168), 1.5, "score_hard[ahead]");
	cr_assert_eq(kb_opp_decode(buf, 1176, &back), KB_REC_OK);
	cr_assert_eq(back.format, 5);
	cr_assert_eq(back.model.score_judged[KB_AHEAD], 2.5);
	cr_assert_eq(back.model.score_predicted[KB_NOT_AHEAD], 1.25);
	cr_assert_eq(back.model.score_hard[KB_AHEAD], 1.5);
	cr_assert_eq(back.model.recent, 5.0);
	cr_assert_eq(back.model.recent_log_choices, 0.5);
	cr_assert_eq(back.model.recent_miss[11], 2.75);
	cr_assert_eq(back.model.fit_w[0], -1.0);
	cr_assert_eq(back.model.fit_w[8], -9.0);
	cr_assert_eq(back.model.fit_w[KB_F_CHASE], -10.0);
	cr_assert_eq(back.model.recent_judged, 3.0);
	cr_assert_eq(back.model.recent_predicted, 2.0);
}

/* faded_rec's bytes cut to len and labelled version v: read as old, in
 * that version; the bytes are left in buf. */
static kb_opp_rec read_as_old(int v, size_t len, uint8_t buf[KB_REC_MAX])
{
	kb_opp_rec r = faded_rec(), back;

	kb_opp_encode(&r, buf);
	buf[2] = (uint8_t)v;
	cr_assert_eq(kb_opp_decode(buf, len, &back), KB_REC_OLD, "version %d", v);
	cr_assert_eq(back.format, v);
	return back;
}

/* A version 3 record (the same bytes without the last weight) is read as
 * old: every field where version 3 kept it, the chase weight 0. */
Test(state_rules, version_3_is_read_without_the_chase_weight)
{
	uint8_t buf[KB_REC_MAX];
	kb_opp_rec back = read_as_old(3, 1120, buf);

	cr_assert_eq(back.model.recent_miss[11], 2.75);
	cr_assert_eq(back.model.fit_w[8], -9.0);
	cr_assert_eq(back.model.fit_w[KB_F_CHASE], 0.0);
	cr_assert_eq(back.model.recent_judged, 3.0);
	cr_assert_eq(back.model.recent_predicted, 2.0);
	buf[1120] = 0x7f; /* a version 3 record is 1120 bytes, no more */
	cr_assert_eq(kb_opp_decode(buf, 1128, &back), KB_REC_BAD);
}

/* A version 4 record (the same bytes without the predictions by score)
 * is read as old: every field where version 4 kept it, none by score. */
Test(state_rules, version_4_is_read_without_predictions_by_score)
{
	uint8_t buf[KB_REC_MAX];
	kb_opp_rec back = read_as_old(4, 1128, buf);

	cr_assert_eq(back.model.fit_w[KB_F_CHASE], -10.0);
	cr_assert_eq(back.model.recent_predicted, 2.0);
	for (int k = 0; k < KB_SCORES; k++)
		cr_assert(back.model.score_judged[k] == 0 && back.model.score_predicted[k] == 0 &&
				  back.model.score_hard[k] == 0,
			  "score %d", k);
	cr_assert_eq(kb_opp_decode(buf, 1176, &back), KB_REC_BAD, "a version 4 record is 1128 bytes");
}

/* Encode r, decode it: its status. */
static int faded_status(const kb_opp_rec *r)
{
	uint8_t buf[KB_REC_MAX];
	kb_opp_rec back;

	kb_opp_encode(r, buf);
	return kb_opp_decode(buf, KB_OPP_V5_LEN, &back);
}

/* Each faded value at its bound is read, just past it is damage: counts
 * of at most KB_MEMORY decisions (1000, one of slack), none negative,
 * misses at most the decisions, right predictions at most the judged. */
Test(state_rules, faded_values_at_their_bounds)
{
	kb_opp_rec r = faded_rec();
	const struct {
		double *field;
		double ok, bad;
		const char *what;
	} bound[] = {
		{&r.model.recent, 1000.5, 1001.5, "recent"},
		{&r.model.recent_judged, 1000.5, 1001.5, "recent_judged"},
		{&r.model.recent_miss[11], 5.0, 5.01, "misses of the last rule against 5 decisions"},
		{&r.model.recent_predicted, 3.0, 3.01, "right predictions against 3 judged"},
		{&r.model.score_judged[KB_AHEAD], 1000.5, 1001.5, "judged ahead"},
		{&r.model.score_predicted[KB_AHEAD], 2.5, 2.51, "right ahead against 2.5 judged"},
		{&r.model.score_hard[KB_NOT_AHEAD], 1.5, 1.51, "hard's right against 1.5 judged"},
	};

	cr_assert_eq(faded_status(&r), KB_REC_OK);
	for (size_t i = 0; i < sizeof bound / sizeof bound[0]; i++) {
		r = faded_rec(); /* r is the same object: the pointers hold */
		*bound[i].field = bound[i].ok;
		cr_assert_eq(faded_status(&r), KB_REC_OK, "%s %g", bound[i].what, bound[i].ok);
		*bound[i].field = bound[i].bad;
		cr_assert_eq(faded_status(&r), KB_REC_BAD, "%s %g", bound[i].what, bound[i].bad);
	}
	double *negative[] = {&r.model.recent, &r.model.recent_log_choices, &r.model.recent_miss[0],
			      &r.model.recent_judged, &r.model.recent_predicted,
			      &r.model.score_judged[KB_NOT_AHEAD], &r.model.score_predicted[KB_AHEAD],
			      &r.model.score_hard[KB_AHEAD]};
	for (size_t i = 0; i < sizeof negative / sizeof negative[0]; i++) {
		r = faded_rec();
		*negative[i] = -0.5;
		cr_assert_eq(faded_status(&r), KB_REC_BAD, "negative field %zu", i);
	}
}

/* ---- the export text at its limits ---------------------------------------- */

static kb_opp_rec two_samples(void)
{
	kb_opp_rec r;
	static const uint8_t s0[KB_SAMPLE_LEN] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x10};
	static const uint8_t s1[KB_SAMPLE_LEN] = {0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10, 0x0a};

	memset(&r, 0, sizeof r);
	r.games = 3, r.won = 1, r.lost = 2;
	r.model.decisions = 2, r.model.easy_hits = 1, r.model.hard_hits = 1;
	memcpy(r.model.sample[0].b, s0, KB_SAMPLE_LEN);
	memcpy(r.model.sample[1].b, s1, KB_SAMPLE_LEN);
	return r;
}

/* An opponent line takes exactly its length plus the terminating NUL, and
 * nothing past size is written when it does not fit. */
Test(state_rules, opponent_line_needs_its_length_and_a_nul)
{
	static const char want[] = "opponent bob games 3 won 1 lost 2 decisions 2 easy 1 hard 1 samples "
				   "0123456789abcdef10fedcba98765432100a";
	kb_opp_rec r = two_samples();
	char out[sizeof want + 16];

	memset(out, 'x', sizeof out);
	cr_assert_eq(kb_export_opponent_line("bob", &r, out, sizeof want), (int)strlen(want));
	cr_assert_str_eq(out, want);
	memset(out, 'x', sizeof out);
	cr_assert_eq(kb_export_opponent_line("bob", &r, out, sizeof want - 1), -1, "no room for the NUL");
	for (size_t i = sizeof want - 1; i < sizeof out; i++)
		cr_assert_eq(out[i], 'x', "byte %zu written", i);
}

/* Every hex digit reads as its value, any other character refuses the
 * line; a count of digits that does not match the decisions is named
 * with what was expected. */
Test(state_rules, sample_digits_and_their_count)
{
	char line[256];
	kb_store_add add;
	kb_err err;
	kb_opp_rec want = two_samples();

	snprintf(line, sizeof line, "opponent bob games 3 won 1 lost 2 decisions 2 easy 1 hard 1 samples "
		 "0123456789abcdef10fedcba98765432100a");
	cr_assert_eq(kb_import_line(line, &add, &err), KB_EXPORT_OK, "%s", err.msg);
	cr_assert_arr_eq(add.delta.model.sample[0].b, want.model.sample[0].b, KB_SAMPLE_LEN);
	cr_assert_arr_eq(add.delta.model.sample[1].b, want.model.sample[1].b, KB_SAMPLE_LEN);
	snprintf(line, sizeof line, "opponent bob games 3 won 1 lost 2 decisions 2 easy 1 hard 1 samples "
		 "0123456789abcdef10fedcba98765432100");
	cr_assert_eq(kb_import_line(line, &add, &err), KB_EXPORT_MALFORMED);
	cr_assert_str_eq(err.msg, "samples: expected 2 samples of 18 hex digits for 2 decisions, found 35 digits");
	/* a character that is no lowercase hex digit, as either digit of a
	 * byte, refuses the line (it is not read as some value) */
	static const char *const bad[] = {"0123456789abcdef10fedcba98765432100A", "0123456789abcdef10fedcba98765432100g",
					  "0123456789abcdef10fedcba98765432:00a"};
	static const char *const found[] = {"0A", "0g", ":0"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(line, sizeof line, "opponent bob games 3 won 1 lost 2 decisions 2 easy 1 hard 1 samples %s", bad[i]);
		cr_assert_eq(kb_import_line(line, &add, &err), KB_EXPORT_MALFORMED, "%s", bad[i]);
		char want_msg[80];
		snprintf(want_msg, sizeof want_msg, "samples: expected lowercase hex digits, found \"%s\"", found[i]);
		cr_assert_str_eq(err.msg, want_msg);
	}
}

/* Import lines may be 1984 characters long (256 + 2 x 96 x 9: an opponent
 * line with every sample), not one more. */
Test(state_rules, import_line_length_limit, .timeout = 20)
{
	char dir[256];
	kb_store *st = fresh_store(dir, sizeof dir);
	static char text[2100];
	kb_err err;
	long n = -1;

	for (int extra = 0; extra < 2; extra++) {
		int len = snprintf(text, sizeof text, "kimble-state-export 1\n#");
		memset(text + len, 'x', 1983 + extra);
		len += 1983 + extra;
		len += snprintf(text + len, sizeof text - len, "\nresults v1 bob games 1 won 1 lost 0\n");
		FILE *in = fmemopen(text, (size_t)len, "r");
		int rc = kb_import(st, in, "t", &n, &err);
		fclose(in);
		if (extra == 0) {
			cr_assert_eq(rc, KB_EXPORT_OK, "a line of 1984 characters: %s", err.msg);
			cr_assert_eq(n, 1);
		} else {
			cr_assert_eq(rc, KB_EXPORT_MALFORMED, "a line of 1985 characters");
			cr_assert_str_eq(err.msg, "t line 2: longer than 1984 characters");
		}
	}
	kb_store_close(st);
}

/* ---- show's model lines ---------------------------------------------------- */

/* An opponent without decisions: the model is the prior, every component
 * and every feature weight printed once. */
Test(state_rules, show_prints_each_weight_once, .timeout = 20)
{
	char dir[256];
	kb_store *st = fresh_store(dir, sizeof dir);
	kb_store_add a = {.name = "pat", .opponent = 1, .delta.games = 2, .delta.won = 1};
	kb_err err;

	cr_assert_eq(kb_store_apply(st, &a, 1, NULL, &err), 0, "%s", err.msg);
	const char *show = report_ok(st, "pat");
	cr_assert(strstr(show, "\nmodel: easy 0.175 hard 0.175 random 0.200 heuristic 0.430 rule 0.020\n"
			       "used by the bot: no (no decisions yet: it assumes hard)\n"
			       "heuristic weights: foremost +0.00 rearmost +0.00 capture +0.00 leave +0.00 "
			       "enter-goal +0.00 in-goal +0.00 land-threat +0.00 escape +0.00 advance +0.00 "
			       "chase +0.00\n") != NULL,
		  "%s", show);
	kb_store_close(st);
}

/* A player of one rule: list and show name the rule, and show says the
 * bot plays with the model and the rates that decided it; a player hard
 * predicts as well: its model is marked unused in the list. */
Test(state_rules, list_and_show_say_which_models_the_bot_uses, .timeout = 30)
{
	char dir[256];
	kb_store *st;
	kb_err err;

	test_tmpdir(dir, sizeof dir);
	test_store_decisions(dir, "dove", KB_R_PEACE_REAR, 60);
	test_store_decisions(dir, "hardy", KB_R_HARD, 60);
	cr_assert_eq(kb_store_open(&st, dir, 0, NULL, &err), 0, "%s", err.msg);
	const char *list = report_ok(st, NULL);
	cr_assert(strstr(list, "  rule peace>rear 0.98\n") != NULL, "%s", list);
	cr_assert(strstr(list, "  hard 0.98 (unused)\n") != NULL, "%s", list);
	const char *show = report_ok(st, "dove");
	cr_assert(strstr(show, "\nrule: peace>rear\nused by the bot: yes (on its samples, its most "
			       "likely move was played 100% of the time, hard's ") != NULL, "%s", show);
	show = report_ok(st, "hardy");
	cr_assert(strstr(show, "\nused by the bot: no (on its samples, its most likely move was played "
			       "100% of the time, hard's 100%; used from 90% and 3 points above "
			       "hard's)\n") != NULL, "%s", show);
	cr_assert_null(strstr(show, "\nrule:"), "%s", show);
	kb_store_close(st);
}

/* ---- store names at their longest and refusals ------------------------------ */

typedef struct seen_long {
	char opponent[80], version[80], name[80];
} seen_long;

static int on_long_opponent(void *ctx, const char *name, const kb_opp_rec *rec, int status)
{
	seen_long *s = ctx;
	(void)rec, (void)status;
	snprintf(s->opponent, sizeof s->opponent, "%s", name);
	return 0;
}

static int on_long_results(void *ctx, const char *version, const char *name, const kb_res_rec *rec,
			   int status)
{
	seen_long *s = ctx;
	(void)rec, (void)status;
	snprintf(s->version, sizeof s->version, "%s", version);
	snprintf(s->name, sizeof s->name, "%s", name);
	return 0;
}

/* 64-character names (the longest) come back whole from a walk, and a
 * reset by such a name finds both of its records. */
Test(state_rules, longest_names_walk_and_reset, .timeout = 20)
{
	char dir[256], name[65], version[65];
	kb_store *st = fresh_store(dir, sizeof dir);
	kb_err err;
	long deleted = 0;

	memset(name, 'n', 64);
	name[63] = 'N';
	name[64] = '\0';
	memset(version, 'v', 64);
	version[0] = 'V';
	version[64] = '\0';
	kb_store_add a = {.name = name, .version = version, .opponent = 1, .delta.games = 1};
	cr_assert_eq(kb_store_apply(st, &a, 1, NULL, &err), 0, "%s", err.msg);
	seen_long seen = {"", "", ""};
	kb_store_visitor v = {on_long_opponent, on_long_results, &seen};
	cr_assert_eq(kb_store_each(st, &v, &err), 0, "%s", err.msg);
	cr_assert_str_eq(seen.opponent, name);
	cr_assert_str_eq(seen.version, version);
	cr_assert_str_eq(seen.name, name);
	cr_assert_eq(kb_store_reset(st, name, &deleted, &err), 0, "%s", err.msg);
	cr_assert_eq(deleted, 2);
	kb_store_close(st);
}

Test(state_rules, raw_write_checks_the_name, .timeout = 20)
{
	char dir[256];
	kb_store *st = fresh_store(dir, sizeof dir);
	static const uint8_t raw[KB_RES_LEN] = {KB_REC_OPPONENT, 0, 1};
	kb_opp_rec got;
	kb_err err;

	cr_assert_eq(kb_store_put_raw(st, "a b", raw, sizeof raw, &err), KB_STORE_NAME);
	cr_assert(strstr(err.msg, "name \"a b\"") != NULL, "%s", err.msg);
	cr_assert_eq(kb_store_put_raw(st, "ab", raw, sizeof raw, &err), 0, "%s", err.msg);
	cr_assert_eq(kb_store_get(st, "ab", &got, &err), KB_REC_OLD);
	kb_store_close(st);
}

/* Read-only (and frozen) opens never create the folder, CREATE or not. */
Test(state_rules, read_only_open_creates_nothing, .timeout = 20)
{
	char dir[256], none[300];
	struct stat sb;
	kb_store *st;
	kb_err err;

	test_tmpdir(dir, sizeof dir);
	snprintf(none, sizeof none, "%s/none", dir);
	cr_assert_eq(kb_store_open(&st, none, KB_STORE_CREATE | KB_STORE_RDONLY, NULL, &err), KB_STORE_ERROR);
	cr_assert_neq(stat(none, &sb), 0, "a read-only open created %s", none);
	cr_assert_eq(kb_store_open(&st, none, KB_STORE_CREATE, NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(stat(none, &sb), 0);
	kb_store_close(st);
}

/* Run kimble-state ARGS (at most 6, NULL-terminated) in dir, its stderr to
 * dir/err; returns its exit status (-1: it did not exit). */
static int state_tool(const char *dir, const char *const args[])
{
	char bin[512], errp[300];
	char *argv[8] = {(char *)test_bin("kimble-state", bin, sizeof bin)};

	for (int i = 0; args[i] && i < 6; i++)
		argv[i + 1] = (char *)args[i];
	snprintf(errp, sizeof errp, "%s/err", dir);
	unlink(errp); /* this run's stderr only */
	return test_run_status(argv, dir, errp, 10000);
}

/* kimble-state names the longest --state it takes. */
Test(state_rules, tool_names_the_longest_state_path, .timeout = 20)
{
	char dir[256], longer[600];
	test_tmpdir(dir, sizeof dir);
	memset(longer, 'x', 599);
	longer[599] = '\0';

	cr_assert_eq(state_tool(dir, (const char *const[]){"--state", longer, "list", NULL}), 64);
	cr_assert_str_eq(test_read_file(dir, "err"),
			 "kimble-state: --state: path too long, expected at most 511 characters "
			 "(see kimble-state --help)\n");
}

/* export FILE that cannot be created, import FILE that cannot be opened:
 * exit status 3 (a file that cannot be opened), with the FILE named. */
Test(state_rules, tool_files_it_cannot_open, .timeout = 20)
{
	char dir[256], out[300], want[700];

	test_tmpdir(dir, sizeof dir);
	snprintf(out, sizeof out, "%s/no/such/folder", dir);
	cr_assert_eq(state_tool(dir, (const char *const[]){"--state", dir, "export", out, NULL}), 3, "%s",
		     test_read_file(dir, "err"));
	snprintf(want, sizeof want, "kimble-state: export: cannot create %s\n", out);
	cr_assert_str_eq(test_read_file(dir, "err"), want);
	cr_assert_eq(state_tool(dir, (const char *const[]){"--state", dir, "import", out, NULL}), 3, "%s",
		     test_read_file(dir, "err"));
	snprintf(want, sizeof want, "kimble-state: import: cannot open %s\n", out);
	cr_assert_str_eq(test_read_file(dir, "err"), want);
}

/* reset changes the store: one it can only read (files and folder
 * read-only, for this process's user) is exit status 2, named. */
Test(state_rules, tool_refuses_to_change_a_read_only_store, .timeout = 20)
{
	char dir[256], work[256], path[300], want[400];
	kb_store *st = fresh_store(dir, sizeof dir);
	kb_store_add a = {.name = "bob", .opponent = 1, .delta.games = 3};
	kb_err err;

	cr_assert_eq(kb_store_apply(st, &a, 1, NULL, &err), 0, "%s", err.msg);
	kb_store_close(st);
	for (const char *const *file = (const char *const[]){"data.mdb", "lock.mdb", NULL}; *file; file++) {
		snprintf(path, sizeof path, "%s/%s", dir, *file);
		chmod(path, 0444);
	}
	chmod(dir, 0555);
	test_tmpdir(work, sizeof work);
	test_drop_root(work);
	cr_assert_eq(state_tool(work, (const char *const[]){"--state", dir, "reset", "bob", NULL}), 2, "%s",
		     test_read_file(work, "err"));
	snprintf(want, sizeof want, "kimble-state: store %s: not writable\n", dir);
	cr_assert_not_null(strstr(test_read_file(work, "err"), want), "%s", test_read_file(work, "err"));
}

/* export FILE whose writing fails (a full disk, found when the export is
 * flushed): exit status 2 with the reason, not a silent loss. */
Test(state_rules, tool_export_write_error, .timeout = 20)
{
	char dir[256], work[256];
	kb_store *st = fresh_store(dir, sizeof dir);

	kb_store_close(st);
	test_tmpdir(work, sizeof work);
	cr_assert_eq(state_tool(work, (const char *const[]){"--state", dir, "export", "/dev/full", NULL}), 2,
		     "%s", test_read_file(work, "err"));
	cr_assert_str_eq(test_read_file(work, "err"),
			 "kimble-state: export: cannot write: No space left on device\n");
}

/* export FILE whose closing fails after every byte was written: exit
 * status 2, the file named, as for any other write error. */
Test(state_rules, tool_export_close_error, .timeout = 20)
{
	char dir[256], work[256], out[300], errp[300], bin[512], want[700];
	kb_store *st = fresh_store(dir, sizeof dir);

	kb_store_close(st);
	test_tmpdir(work, sizeof work);
	snprintf(out, sizeof out, "%s/export.txt", work);
	snprintf(errp, sizeof errp, "%s/err", work);
	char *argv[] = {(char *)test_bin("kimble-state", bin, sizeof bin), "--state", dir, "export", out, NULL};
	/* every close() of a descriptor open on out fails with EIO, as on a
	 * network file system that writes at close; the others work */
	int status = test_run_failing(argv, SYS_close, out, EIO, errp);
	cr_assert_eq(status, 2, "status %d: %s", status, test_read_file(NULL, errp));
	snprintf(want, sizeof want, "kimble-state: export: cannot write %s\n", out);
	cr_assert_str_eq(test_read_file(NULL, errp), want);
}

/* A command takes one word after it at most (list none); an option is a word that
 * starts with '-' and has more ("-" is a FILE; --state=PATH whole, not any
 * word that starts like it); -h is --help. */
Test(state_rules, tool_words_and_options, .timeout = 20)
{
	char dir[256];
	const char *out, *err;

	test_tmpdir(dir, sizeof dir);
	const char *const args[] = {"--state", dir, "show", "bob", "extra", NULL};
	test_usage_says("kimble-state", args, "unexpected argument \"extra\"");
	const char *const listed[] = {"--state", dir, "list", "extra", NULL};
	test_usage_says("kimble-state", listed, "list: unexpected argument \"extra\" (list takes none)");
	const char *const dash[] = {"--state", dir, "-x", "list", NULL};
	test_usage_says("kimble-state", dash, "unknown option \"-x\"");
	const char *const longer[] = {"--statex", "list", NULL};
	test_usage_says("kimble-state", longer, "unknown option \"--statex\"");
	char work[256];
	kb_store *st = fresh_store(dir, sizeof dir);
	kb_store_close(st);
	test_tmpdir(work, sizeof work);
	cr_assert_eq(state_tool(work, (const char *const[]){"--state", dir, "export", "-", NULL}), 0,
		     "\"-\" is a FILE: %s", test_read_file(work, "err"));
	cr_assert_str_eq(test_read_file(work, "-"), "kimble-state-export 1\n");
	const char *const help[] = {"-h", NULL};
	cr_assert_eq(test_run_prog("kimble-state", help, &out, &err), 0, "%s", err);
	cr_assert(strncmp(out, "NAME\n    kimble-state - ", 24) == 0, "%.80s", out);
}

/* show needs the opponent's NAME: without one it is a usage error that
 * says so, before any store is opened. */
Test(state_rules, tool_show_without_a_name, .timeout = 20)
{
	char dir[256];

	test_tmpdir(dir, sizeof dir);
	const char *const args[] = {"--state", dir, "show", NULL};
	test_usage_says("kimble-state", args, "show: expected an opponent NAME");
}

/* ---- LMDB's transient conditions, made for real ----------------------------- */

/* Another process (kimble-state import) grows the store past this
 * process's map: the next transaction adopts the new size (MAP_RESIZED). */
Test(state_rules, store_grown_by_another_process_is_followed, .timeout = 60)
{
	char dir[256], path[300], bin[512];
	kb_store_opts small = {64 << 10, 0, NULL};
	kb_store *st;
	kb_opp_rec got;
	kb_err err;

	test_tmpdir(dir, sizeof dir);
	cr_assert_eq(kb_store_open(&st, dir, KB_STORE_CREATE, &small, &err), 0, "%s", err.msg);
	cr_assert_eq(kb_store_mapsize(st), (size_t)64 << 10);
	snprintf(path, sizeof path, "%s/export.txt", dir);
	FILE *f = fopen(path, "w");
	fprintf(f, "kimble-state-export 1\n");
	for (int i = 0; i < 300; i++)
		fprintf(f, "opponent o%d games 1 won 0 lost 1 decisions 0 easy 0 hard 0 samples -\n", i);
	fclose(f);
	char *argv[] = {(char *)test_bin("kimble-state", bin, sizeof bin), "--state", dir, "import",
			path, NULL};
	test_proc p;
	cr_assert_eq(test_spawn(&p, argv, dir, 0, 0, "/dev/null"), 0);
	int status = test_wait(&p, 30000);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the import failed");

	cr_assert_eq(kb_store_get(st, "o299", &got, &err), KB_REC_OK, "%s", err.msg);
	cr_assert_eq(got.lost, 1);
	cr_assert_eq(kb_store_mapsize(st), KB_STORE_MAP_INITIAL, "the importer's map size adopted");
	kb_store_add a = {.name = "o0", .opponent = 1, .delta.games = 1};
	cr_assert_eq(kb_store_apply(st, &a, 1, NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(kb_store_get(st, "o0", &got, &err), KB_REC_OK, "%s", err.msg);
	cr_assert_eq(got.games, 2);
	kb_store_close(st);
}

/* A child process that takes up to max reader slots of the store in dir
 * and exits without giving them back, as a crashed reader would; returns
 * how many it took. */
static int crash_readers(const char *dir, int max)
{
	pid_t pid = fork();
	int status;

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		MDB_env *env;
		MDB_txn *txn;
		int n = 0;
		if (mdb_env_create(&env) || mdb_env_open(env, dir, MDB_RDONLY | MDB_NOTLS, 0644))
			_exit(255);
		while (n < max && mdb_txn_begin(env, NULL, MDB_RDONLY, &txn) == 0)
			n++;
		_exit(n);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) != 255);
	return WEXITSTATUS(status);
}

/* A child process that keeps the store in dir open until *release is
 * closed, so that the next open is not the only one (LMDB resets the
 * reader table when one process opens a store no other has open). */
static pid_t hold_open(const char *dir, int *release)
{
	int ready[2], hold[2];
	char c;
	pid_t pid;

	cr_assert_eq(pipe(ready), 0);
	cr_assert_eq(pipe(hold), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		MDB_env *env;
		close(ready[0]);
		close(hold[1]);
		if (mdb_env_create(&env) || mdb_env_open(env, dir, MDB_RDONLY, 0644))
			_exit(1);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		while (read(hold[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(ready[1]);
	close(hold[0]);
	cr_assert_eq(read(ready[0], &c, 1), 1, "the holder could not open the store");
	close(ready[0]);
	*release = hold[1];
	return pid;
}

/* Reader slots of crashed processes are cleared when a writer opens the
 * store, and when the reader table is full at a read (READERS_FULL), each
 * time with a warning; the read then succeeds. */
Test(state_rules, stale_readers_cleared, .timeout = 60)
{
	char dir[256], text[2048];
	FILE *warn = tmpfile();
	kb_store_opts opts = {0, 0, warn};
	kb_store *st = fresh_store(dir, sizeof dir);
	kb_store_add a = {.name = "bob", .opponent = 1, .delta.games = 3};
	kb_opp_rec got;
	kb_err err;
	int release, status;

	cr_assert_eq(kb_store_apply(st, &a, 1, NULL, &err), 0, "%s", err.msg);
	kb_store_close(st);
	pid_t holder = hold_open(dir, &release);
	cr_assert_eq(crash_readers(dir, 5), 5);
	cr_assert_eq(kb_store_open(&st, dir, 0, &opts, &err), 0, "%s", err.msg);
	close(release);
	cr_assert_eq(waitpid(holder, &status, 0), holder);
	int full = crash_readers(dir, 1000);
	cr_assert_gt(full, 5, "the reader table holds %d", full);
	cr_assert_eq(kb_store_get(st, "bob", &got, &err), KB_REC_OK, "%s", err.msg);
	cr_assert_eq(got.games, 3);
	kb_store_close(st);
	rewind(warn);
	size_t n = fread(text, 1, sizeof text - 1, warn);
	text[n] = '\0';
	fclose(warn);
	/* two lines, each starting with the program's name (here Criterion's
	 * worker's) */
	char want[800], *nl = strchr(text, '\n');
	cr_assert(nl != NULL && strchr(nl + 1, '\n') == text + n - 1, "%s", text);
	*nl = '\0';
	snprintf(want, sizeof want, ": store %s: cleared 5 stale reader slot(s) of crashed processes", dir);
	cr_assert(strlen(text) > strlen(want) && strcmp(text + strlen(text) - strlen(want), want) == 0,
		  "%s", text);
	text[n - 1] = '\0';
	snprintf(want, sizeof want, ": store %s: reader table full: cleared %d stale reader slot(s)", dir, full);
	cr_assert(strlen(nl + 1) > strlen(want) && strcmp(nl + 1 + strlen(nl + 1) - strlen(want), want) == 0,
		  "%s", nl + 1);
}

/* kimble-state list, show, export (here with --state=PATH), reset and
 * import close the store: while another process has it open, they leave
 * no reader slot behind for the next writer to clear (and warn about);
 * reset and import say how many records they removed or added. */
Test(state_rules, tool_leaves_no_reader_slot, .timeout = 60)
{
	char dir[256], work[256], text[512] = "";
	FILE *warn = tmpfile();
	kb_store_opts opts = {0, 0, warn};
	kb_store *st = fresh_store(dir, sizeof dir);
	kb_store_add a = {.name = "bob", .opponent = 1, .delta.games = 3};
	kb_err err;
	int release, status;

	cr_assert_eq(kb_store_apply(st, &a, 1, NULL, &err), 0, "%s", err.msg);
	kb_store_close(st);
	test_tmpdir(work, sizeof work);
	pid_t holder = hold_open(dir, &release);
	cr_assert_eq(state_tool(work, (const char *const[]){"--state", dir, "list", NULL}), 0, "%s",
		     test_read_file(work, "err"));
	cr_assert_eq(state_tool(work, (const char *const[]){"--state", dir, "show", "bob", NULL}), 0,
		     "%s", test_read_file(work, "err"));
	char state_eq[300]; /* --state=PATH is --state PATH */
	snprintf(state_eq, sizeof state_eq, "--state=%s", dir);
	cr_assert_eq(state_tool(work, (const char *const[]){state_eq, "export", NULL}), 0, "%s",
		     test_read_file(work, "err"));
	cr_assert_eq(state_tool(work, (const char *const[]){"--state", dir, "reset", "bob", NULL}), 0);
	cr_assert_str_eq(test_read_file(work, "err"), "kimble-state: reset: 1 record(s) removed\n");
	char import[300];
	snprintf(import, sizeof import, "%s/import", work);
	FILE *f = fopen(import, "w");
	fputs("kimble-state-export 1\nresults v1 bob games 2 won 1 lost 1\n", f);
	fclose(f);
	cr_assert_eq(state_tool(work, (const char *const[]){"--state", dir, "import", import, NULL}), 0);
	cr_assert_str_eq(test_read_file(work, "err"), "kimble-state: import: 1 record(s) added\n");
	cr_assert_eq(kb_store_open(&st, dir, 0, &opts, &err), 0, "%s", err.msg);
	kb_store_close(st);
	close(release);
	cr_assert_eq(waitpid(holder, &status, 0), holder);
	rewind(warn);
	text[fread(text, 1, sizeof text - 1, warn)] = '\0';
	fclose(warn);
	cr_assert_str_eq(text, "", "no stale reader slot");
}

/* ---- the logit fit and the bot's own accuracy ------------------------------- */

/* One hand-made sample: legal mask, chosen index, and per piece its
 * feature bits and progress + 1 (model.h's compact form). */
static kb_sample make_sample(unsigned mask, int chosen, const uint8_t bits[4], const uint8_t prog1[4])
{
	kb_sample s;

	s.b[0] = (uint8_t)(mask | (unsigned)chosen << 4);
	for (int i = 0; i < 4; i++) {
		s.b[1 + 2 * i] = bits[i];
		s.b[2 + 2 * i] = prog1[i];
	}
	return s;
}

/* The fitted logit weights are where the log-posterior is flat: for every
 * feature, the sum over the samples of (the chosen piece's feature - its
 * expectation under the model) equals 0.3 x the weight (the prior
 * N(0, 1/0.3), model.h).  The probabilities and features are worked out
 * here from the sample bytes, not by the model. */
Test(state_rules, logit_fit_is_the_posterior_mode)
{
	static const struct {
		unsigned mask;
		int chosen;
		uint8_t bits[4], prog1[4];
	} in[] = {
		{0x3, 0, {0x05, 0x02, 0, 0}, {11 | 0x80, 4, 0, 0}},
		{0x3, 1, {0x01, 0x0a, 0, 0}, {21, 0 | 0x40, 0, 0}},
		{0x7, 2, {0x01, 0x40, 0x06, 0}, {26 | 0xc0, 13, 6 | 0x40, 0}},
		{0x5, 0, {0x11, 0, 0x82, 0}, {27, 0, 3, 0}},
		{0xf, 3, {0x01, 0x20, 0x40, 0x0a}, {31, 19, 10, 0}},
		{0x6, 1, {0, 0x81, 0x02, 0}, {0, 15, 3, 0}},
		{0x3, 0, {0x11, 0x42, 0, 0}, {27, 9, 0, 0}},
		{0xb, 1, {0x01, 0x04, 0, 0x0a}, {23, 16, 0, 0}},
	};
	enum { N = sizeof in / sizeof in[0] };
	kb_model_stats st;
	kb_model m;

	memset(&st, 0, sizeof st);
	for (int j = 0; j < N; j++)
		st.sample[j] = make_sample(in[j].mask, in[j].chosen, in[j].bits, in[j].prog1);
	st.decisions = N;
	st.recent = N;
	kb_model_fit(&m, &st);

	double grad[KB_FEATURES];
	for (int k = 0; k < KB_FEATURES; k++)
		grad[k] = -0.3 * m.w[k];
	for (int j = 0; j < N; j++) {
		double f[4][KB_FEATURES], z[4], sum = 0;
		for (int i = 0; i < 4; i++) {
			z[i] = 0;
			for (int k = 0; k < KB_FEATURES; k++) {
				f[i][k] = k < KB_F_ADVANCE ? (in[j].bits[i] >> k & 1)
					  : k == KB_F_ADVANCE ? (in[j].prog1[i] & 63) / 32.0
							      : (in[j].prog1[i] >> 6) / 3.0;
				z[i] += m.w[k] * f[i][k];
			}
		}
		for (int i = 0; i < 4; i++)
			if (in[j].mask >> i & 1)
				sum += exp(z[i]);
		for (int k = 0; k < KB_FEATURES; k++) {
			double expect = 0;
			for (int i = 0; i < 4; i++)
				if (in[j].mask >> i & 1)
					expect += exp(z[i]) / sum * f[i][k];
			grad[k] += f[in[j].chosen][k] - expect;
		}
	}
	for (int k = 0; k < KB_FEATURES; k++)
		cr_assert(fabs(grad[k]) < 1e-3, "%s: gradient %g at w %g", kb_feature_name(k), grad[k], m.w[k]);
	cr_assert(fabs(m.w[KB_F_CAPTURE]) > 0.1, "the data move the weights: %g", m.w[KB_F_CAPTURE]);
	cr_assert(fabs(m.w[KB_F_CHASE]) > 0.1, "the chase levels move theirs: %g", m.w[KB_F_CHASE]);
}

/* The bot's own predictions decide the accuracy from 30 judged decisions
 * on (model.h), the samples' before: at 30.0 exactly the own rate. */
Test(state_rules, own_accuracy_from_thirty_judged)
{
	kb_model_stats st;
	kb_model m;

	memset(&st, 0, sizeof st);
	st.recent = 40.0;
	st.recent_miss[KB_R_HARD] = 10.0;
	st.recent_judged = 30.0;
	st.recent_predicted = 15.0;
	kb_model_fit(&m, &st);
	cr_assert_eq(m.accuracy, 0.5, "15 of 30 right");
	cr_assert_eq(m.hard_accuracy, 0.75, "hard missed 10 of 40");
	cr_assert_eq(m.own_rate, 1);
	st.recent_judged = 29.5;
	kb_model_fit(&m, &st);
	cr_assert_eq(m.accuracy, 0.0, "no samples, too few judged");
	cr_assert_eq(m.hard_accuracy, 0.0);
	cr_assert_eq(m.own_rate, 0);
}

/* ---- a store whose pages are damaged --------------------------------------- */

/* A store with one record whose data pages (all but LMDB's two meta
 * pages) are then zeroed: it opens, but every read of a record fails. */
static void damaged_store(char *dir, size_t size)
{
	char path[300];
	kb_store *st = fresh_store(dir, size);
	kb_store_add a = {.name = "bob", .opponent = 1, .version = "v1", .delta.games = 3};
	kb_err err;
	long page = sysconf(_SC_PAGESIZE);

	cr_assert_eq(kb_store_apply(st, &a, 1, NULL, &err), 0, "%s", err.msg);
	kb_store_close(st);
	snprintf(path, sizeof path, "%s/data.mdb", dir);
	FILE *f = fopen(path, "r+b");
	cr_assert_not_null(f);
	cr_assert_eq(fseek(f, 0, SEEK_END), 0);
	long end = ftell(f);
	cr_assert_gt(end, 2 * page);
	cr_assert_eq(fseek(f, 2 * page, SEEK_SET), 0);
	for (long i = 2 * page; i < end; i++)
		fputc(0, f);
	fclose(f);
}

/* Reads, walks, exports and updates of damaged pages are store errors
 * naming the store, never a record or a crash. */
Test(state_rules, damaged_pages_are_store_errors, .timeout = 20)
{
	char dir[256];
	kb_store *st;
	kb_opp_rec got;
	kb_err err;

	damaged_store(dir, sizeof dir);
	cr_assert_eq(kb_store_open(&st, dir, 0, NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(kb_store_get(st, "bob", &got, &err), KB_STORE_ERROR);
	cr_assert(strstr(err.msg, "cannot read opponent bob") != NULL, "%s", err.msg);
	FILE *out = tmpfile();
	cr_assert_eq(kb_export(st, out, &err), KB_STORE_ERROR);
	cr_assert(strstr(err.msg, "cannot read") != NULL && strstr(err.msg, dir) != NULL, "%s", err.msg);
	fclose(out);
	kb_store_add a = {.name = "bob", .opponent = 1, .delta.games = 1};
	cr_assert_eq(kb_store_apply(st, &a, 1, NULL, &err), KB_STORE_ERROR);
	cr_assert(strstr(err.msg, "write failed") != NULL, "%s", err.msg);
	kb_store_close(st);
}

/* kimble-state: a store it cannot read (or change) is exit status 2 with
 * the reason. */
Test(state_rules, tool_store_error_is_status_2, .timeout = 20)
{
	char dir[256], bin[512], errp[300];
	static const char *const cmds[] = {"list", "export", "show", "reset", "import"};
	char import[300];

	damaged_store(dir, sizeof dir);
	snprintf(errp, sizeof errp, "%s/err", dir);
	snprintf(import, sizeof import, "%s/import", dir);
	FILE *f = fopen(import, "w");
	fputs("kimble-state-export 1\nresults v1 bob games 2 won 1 lost 1\n", f);
	fclose(f);
	for (int c = 0; c < 5; c++) {
		char *argv[] = {(char *)test_bin("kimble-state", bin, sizeof bin), "--state", dir,
				(char *)cmds[c], c < 2 ? NULL : c < 4 ? "bob" : import, NULL};
		test_proc p;
		unlink(errp);
		cr_assert_eq(test_spawn(&p, argv, dir, 0, 0, errp), 0);
		int status = test_wait(&p, 10000);
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 2, "%s: status %d", cmds[c], status);
		const char *says = c < 3 ? "cannot read" : "write failed: MDB_CORRUPTED";
		cr_assert(strstr(test_read_file(NULL, errp), says) != NULL, "%s: %s", cmds[c],
			  test_read_file(NULL, errp));
	}
}

/* ---- observing one decision -------------------------------------------------- */

/* A sample keeps each candidate's chase level above its progress byte's
 * six bits (model.h).  A: 5 and 2, B on 3 (ring 10) and three at home, a
 * 2: piece 0 to ring 7, 3 squares behind B's piece (level 2), piece 1 to
 * ring 4, 6 squares behind it (level 1). */
Test(state_rules, a_sample_keeps_the_chase_levels)
{
	kb_pos p = test_pos(0x3, "5 2", "3", "", "");
	kb_model_stats st;
	static const uint8_t want[KB_SAMPLE_LEN] = {0x13, 0x41, 6 | 2 << 6, 0x02, 3 | 1 << 6,
						    0, 0, 0, 0};

	memset(&st, 0, sizeof st);
	cr_assert_eq(kb_model_observe(&st, &p, 0, 2, 0x3, 1), 0);
	cr_assert_arr_eq(st.sample[0].b, want, KB_SAMPLE_LEN);
}

/* A decision for piece 0 counts like any other (hard's pick, here); a
 * single legal move, an index outside 0..3 or outside the mask is ignored
 * and changes nothing.  A: 5 and 2, B all home, a 2: piece 0 to ring 7
 * (B's start square, threatened by B's home pieces), piece 1 to ring 4. */
Test(state_rules, observing_one_decision)
{
	kb_pos p = test_pos(0x3, "5 2", "", "", "");
	kb_model_stats st, before;
	static const uint8_t want[KB_SAMPLE_LEN] = {0x03, 0x41, 6, 0x02, 3, 0, 0, 0, 0};

	memset(&st, 0, sizeof st);
	cr_assert_eq(kb_legal(&p, 0, 2), 0x3u);
	cr_assert_eq(kb_model_observe(&st, &p, 0, 2, 0x3, 0), 0);
	cr_assert_eq(st.decisions, 1);
	cr_assert_eq(st.hard_hits, 1);
	cr_assert_eq(st.easy_hits, 0);
	cr_assert_arr_eq(st.sample[0].b, want, KB_SAMPLE_LEN);
	cr_assert_eq(st.recent, 1.0);
	cr_assert_eq(st.recent_miss[KB_R_EASY], 1.0);
	cr_assert_eq(st.recent_miss[KB_R_HARD], 0.0);
	cr_assert_eq(kb_model_observe(&st, &p, 0, 2, 0x3, 1), 0);
	cr_assert_eq(st.decisions, 2);
	cr_assert_eq(st.easy_hits, 1);
	cr_assert_eq(st.sample[1].b[0], 0x13, "mask 3, chosen 1");

	before = st;
	cr_assert_eq(kb_model_observe(&st, &p, 0, 2, 0x3, -1), -1);
	cr_assert_eq(kb_model_observe(&st, &p, 0, 2, 0x3, 4), -1);
	cr_assert_eq(kb_model_observe(&st, &p, 0, 2, 0x3, 2), -1, "not in the mask");
	cr_assert_eq(kb_model_observe(&st, &p, 0, 2, 0x1, 0), -1, "no choice");
	cr_assert_eq(memcmp(&st, &before, sizeof st), 0, "a refused decision changed the statistics");
}

/* A version 2 record (decisions and samples kept) is shown as version 2,
 * with its decisions; only version 1 has none (it was once shown as
 * version 1 whose "model is the prior"); a version 3 record as version 3,
 * with or without decisions. */
Test(state_rules, old_records_name_their_version, .timeout = 20)
{
	char dir[256];
	kb_store *st = fresh_store(dir, sizeof dir);
	kb_opp_rec r = two_samples();
	uint8_t buf[KB_REC_MAX];
	kb_err err;
	int rc;

	cr_assert_eq(kb_store_put_raw(st, "two", buf, kb_opp_encode_v2(&r, buf), &err), 0, "%s", err.msg);
	cr_assert_eq(kb_store_put_raw(st, "one", buf, kb_opp_encode_v1(&r, buf), &err), 0, "%s", err.msg);
	const char *list = report_ok(st, NULL);
	cr_assert(strstr(list, "\none ") && strstr(strstr(list, "\none "), "  (old format, version 1)\ntwo "),
		  "%s", list);
	cr_assert(strstr(list, "  (old format, version 2)\n") != NULL, "%s", list);
	const char *show = report_ok(st, "two");
	cr_assert(strstr(show, "opponent two\nold record format (version 2): ") != NULL, "%s", show);
	cr_assert(strstr(show, "\ndecisions 2 (matching easy 1, hard 1), 2 kept as samples\n") != NULL, "%s", show);
	show = report_text(st, "one", &rc);
	cr_assert(strstr(show, "opponent one\nold record format (version 1): ") != NULL, "%s", show);
	/* version 3: the current bytes without the chase weight, and with no
	 * decisions a version 3 all the same */
	kb_opp_encode(&r, buf);
	buf[2] = 3;
	cr_assert_eq(kb_store_put_raw(st, "three", buf, KB_OPP_V3_LEN, &err), 0, "%s", err.msg);
	buf[2] = 4; /* version 4: the current bytes without the predictions by score */
	cr_assert_eq(kb_store_put_raw(st, "four", buf, KB_OPP_V4_LEN, &err), 0, "%s", err.msg);
	memset(&r, 0, sizeof r);
	kb_opp_encode(&r, buf);
	buf[2] = 3;
	cr_assert_eq(kb_store_put_raw(st, "zero3", buf, KB_OPP_V3_LEN, &err), 0, "%s", err.msg);
	list = report_ok(st, NULL);
	cr_assert(strstr(list, "\nthree ") && strstr(strstr(list, "\nthree "), "  (old format, version 3)\n"),
		  "%s", list);
	show = report_ok(st, "three");
	cr_assert(strstr(show, "opponent three\nold record format (version 3): no chase levels") != NULL,
		  "%s", show);
	show = report_ok(st, "zero3");
	cr_assert(strstr(show, "opponent zero3\nold record format (version 3): ") != NULL, "%s", show);
	list = report_ok(st, NULL);
	cr_assert(strstr(list, "\nfour ") && strstr(strstr(list, "\nfour "), "  (old format, version 4)\n"),
		  "%s", list);
	show = report_ok(st, "four");
	cr_assert(strstr(show, "opponent four\nold record format (version 4): no predictions by score") !=
			  NULL,
		  "%s", show);
	kb_store_close(st);
}

/* Rebuilding the faded statistics from two kept samples, oldest first: A
 * (pieces 0 and 1 legal, 0 chosen, nothing to prefer) and then B (the
 * same, piece 0 would capture, 1 chosen).  A missed every rear rule, B
 * hard, both capture rules, safe>front, leave>front and goal>front; A's
 * count has faded once (x 0.999) when B comes. */
Test(state_rules, rebuild_fades_the_samples_in_order)
{
	static const uint8_t bits_a[4] = {0x01, 0x02, 0, 0}, bits_b[4] = {0x05, 0x02, 0, 0};
	static const uint8_t prog1[4] = {11, 4, 0, 0};
	static const double miss[KB_RULES] = {0.999, 1, 1.999, 1, 0.999, 0, 0.999, 1, 0.999, 1, 0.999, 1};
	kb_model_stats st;

	memset(&st, 0, sizeof st);
	st.sample[0] = make_sample(0x3, 0, bits_a, prog1);
	st.sample[1] = make_sample(0x3, 1, bits_b, prog1);
	st.decisions = 2;
	st.recent = 50; /* replaced, not added to */
	kb_model_stats_rebuild(&st);
	cr_assert(fabs(st.recent - 1.999) < 1e-12, "%.15g", st.recent);
	cr_assert(fabs(st.recent_log_choices - 1.999 * log(2)) < 1e-12, "%.15g", st.recent_log_choices);
	for (int r = 0; r < KB_RULES; r++)
		cr_assert(fabs(st.recent_miss[r] - miss[r]) < 1e-12, "%s: %.15g", kb_rule_name((enum kb_rule)r),
			  st.recent_miss[r]);
}

/* Every rule's pick, worked out by hand: A on 5 and 2, B all home, a 2.
 * Piece 0 (foremost) lands on ring 7, B's start square, threatened by
 * B's home pieces; piece 1 (rearmost) lands on ring 4, safe.  Nothing
 * captures, leaves home or enters the goal, so those rules fall back to
 * rear or front; the safe rules both take piece 1. */
Test(state_rules, each_rule_picks_by_hand)
{
	static const int want[KB_RULES] = {1, 0, 1, 0, 1, 0, 1, 1, 1, 0, 1, 0};
	kb_pos p = test_pos(0x3, "5 2", "", "", "");

	for (int r = 0; r < KB_RULES; r++)
		cr_assert_eq(kb_rule_pick((enum kb_rule)r, &p, 0, 2, 0x3), want[r], "%s",
			     kb_rule_name((enum kb_rule)r));
}

/* Merging: a's faded values age by b's decisions (one here: x 0.999) and
 * b's are added; counts add; b's last fit replaces a's. */
Test(state_rules, stats_add_fades_then_adds_each_value)
{
	kb_model_stats a, b;

	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	a.decisions = 4, a.easy_hits = 1, a.hard_hits = 2;
	a.recent = 4, a.recent_log_choices = 2, a.recent_judged = 2, a.recent_predicted = 1;
	for (int r = 0; r < KB_RULES; r++)
		a.recent_miss[r] = 1;
	b.decisions = 1, b.easy_hits = 1, b.hard_hits = 0;
	b.recent = 1, b.recent_log_choices = 0.5, b.recent_judged = 3, b.recent_predicted = 2;
	b.recent_miss[KB_R_HARD] = 1;
	b.fit_w[KB_F_CAPTURE] = 0.25;
	kb_model_stats_add(&a, &b);
	cr_assert_eq(a.decisions, 5);
	cr_assert_eq(a.easy_hits, 2);
	cr_assert_eq(a.hard_hits, 2);
	cr_assert(fabs(a.recent - (4 * 0.999 + 1)) < 1e-12, "%.15g", a.recent);
	cr_assert(fabs(a.recent_log_choices - (2 * 0.999 + 0.5)) < 1e-12, "%.15g", a.recent_log_choices);
	cr_assert(fabs(a.recent_judged - (2 * 0.999 + 3)) < 1e-12, "%.15g", a.recent_judged);
	cr_assert(fabs(a.recent_predicted - (1 * 0.999 + 2)) < 1e-12, "%.15g", a.recent_predicted);
	cr_assert(fabs(a.recent_miss[KB_R_EASY] - 0.999) < 1e-12);
	cr_assert(fabs(a.recent_miss[KB_R_HARD] - 1.999) < 1e-12);
	cr_assert_eq(a.fit_w[KB_F_CAPTURE], 0.25);
}

/* A model sure of the logit picks the legal index of the largest w . f,
 * the lowest on ties, never an index outside the mask.  A on 9, 5, 2; a
 * 1; pieces 1 and 2 offered. */
Test(state_rules, sure_logit_picks_the_best_legal_lowest_on_ties)
{
	kb_pos p = test_pos(0x3, "9 5 2", "", "", "");
	kb_model m;

	test_model_sure_of(&m, KB_C_LOGIT);
	cr_assert_eq(kb_model_pick(&m, &p, 0, 1, 0x6), 1, "all equal: the lowest legal");
	m.w[KB_F_REARMOST] = 1.0;
	cr_assert_eq(kb_model_pick(&m, &p, 0, 1, 0x6), 2, "the rearmost offered");
	m.w[KB_F_REARMOST] = 0;
	m.w[KB_F_ADVANCE] = 1.0;
	cr_assert_eq(kb_model_pick(&m, &p, 0, 1, 0x6), 1, "the further advanced offered");
	/* B on 0 (ring 7): piece 2 ends on 3, 4 squares behind it (chase
	 * 2/3), piece 1 on 6, 1 behind (chase 1), piece 0 on 10, past it;
	 * chase weighs more than the advance's 9/32 */
	p = test_pos(0x3, "9 5 2", "0", "", "");
	m.w[KB_F_ADVANCE] = 0;
	m.w[KB_F_FOREMOST] = 1.0;
	cr_assert_eq(kb_model_pick(&m, &p, 0, 1, 0x7), 0, "the foremost");
	m.w[KB_F_CHASE] = 1.2;
	cr_assert_eq(kb_model_pick(&m, &p, 0, 1, 0x7), 1, "the closest behind B's piece");
	cr_assert_eq(kb_model_pick(&m, &p, 0, 1, 0x5), 0, "2/3 x 1.2 < 1");
	m.w[KB_F_CHASE] = 1.6;
	cr_assert_eq(kb_model_pick(&m, &p, 0, 1, 0x5), 2, "2/3 x 1.6 > 1");
}

/* ---- an import out of memory -------------------------------------------------------- */

/* strdup as the C library's, except that the call after strdups_left
 * more fails with ENOMEM (-1: none fails): the import's copy of a line
 * cannot be made to fail otherwise without failing everything around it.
 * The test binary's definition is the one every strdup in it calls. */
static int strdups_left = -1;

char *strdup(const char *s)
{
	if (strdups_left == 0) {
		strdups_left = -1;
		errno = ENOMEM;
		return NULL;
	}
	if (strdups_left > 0)
		strdups_left--;
	size_t size = strlen(s) + 1;
	char *copy = malloc(size);
	if (copy)
		memcpy(copy, s, size);
	return copy;
}

/* The records an import of text writes into a fresh store (its status in
 * *rc, its message in err): bob's games, the lines summed.  The import's
 * strdup after strdups more fails (-1: none). */
static uint64_t import_games(const char *text, int strdups, int *rc, kb_err *err)
{
	char dir[256];
	kb_store *st = fresh_store(dir, sizeof dir);
	long n = -1;
	FILE *in = fmemopen((void *)text, strlen(text), "r");

	cr_assert_not_null(in);
	err->msg[0] = 0;
	strdups_left = strdups;
	*rc = kb_import(st, in, "oom", &n, err);
	strdups_left = -1;
	fclose(in);
	seen_results seen = {0};
	kb_store_visitor v = {NULL, on_results, &seen};
	kb_err why;
	cr_assert_eq(kb_store_each(st, &v, &why), 0, "%s", why.msg);
	kb_store_close(st);
	return seen.rec.games;
}

/* A line the import cannot keep (its copy out of memory) refuses the
 * whole import: status KB_EXPORT_NOMEM, nothing written, not the lines
 * around it imported as if it had not been there. */
Test(state_rules, import_line_out_of_memory, .timeout = 20)
{
	static const char text[] = "kimble-state-export 1\nresults v1 bob games 2 won 1 lost 1\n"
				   "results v1 bob games 3 won 0 lost 3\nresults v1 bob games 4 won 1 lost 3\n";
	kb_err err;
	int rc;

	cr_assert_eq(import_games(text, -1, &rc, &err), 9, "all three lines without a fault");
	cr_assert_eq(rc, 0, "%s", err.msg);
	cr_assert_eq(import_games(text, 1, &rc, &err), 0, "the second line's copy fails: nothing written");
	cr_assert_eq(rc, KB_EXPORT_NOMEM);
	cr_assert_str_eq(err.msg, "import: out of memory");
}

/* Fill the address space: no room is left for a block of size bytes. */
static void exhaust_memory(size_t size)
{
	test_limit_memory(256 * 4096);
	while (malloc(size))
		;
}

/* No memory for the import's line buffer: status KB_EXPORT_NOMEM and its
 * message, nothing read (not a success with nothing imported). */
Test(state_rules, import_out_of_memory, .timeout = 20)
{
	static const char text[] = "kimble-state-export 1\nresults v1 bob games 2 won 1 lost 1\n";
	char dir[256];
	kb_store *st = fresh_store(dir, sizeof dir);
	FILE *in = fmemopen((void *)text, sizeof text - 1, "r");
	long n = -1;
	kb_err err = {0};

	cr_assert_not_null(in);
	exhaust_memory(256 + 2 * KB_SAMPLES * KB_SAMPLE_LEN + 2);
	cr_assert_eq(kb_import(st, in, "oom", &n, &err), KB_EXPORT_NOMEM);
	cr_assert_str_eq(err.msg, "import: out of memory");
	cr_assert_eq(n, -1, "no records counted");
	cr_assert_eq(ftell(in), 0, "nothing read");
}

/* No memory for the export's line buffer: status KB_EXPORT_NOMEM and its
 * message, nothing written (not a success with an empty export: a user
 * would keep a file without its magic line, which import refuses). */
Test(state_rules, export_out_of_memory, .timeout = 20)
{
	static char iobuf[4096], text[4096];
	char dir[256];
	kb_store *st = fresh_store(dir, sizeof dir);
	FILE *out = fmemopen(text, sizeof text, "w");
	kb_err err = {0};

	cr_assert_not_null(out);
	cr_assert_eq(setvbuf(out, iobuf, _IOFBF, sizeof iobuf), 0);
	exhaust_memory(256);
	cr_assert_eq(kb_export(st, out, &err), KB_EXPORT_NOMEM);
	cr_assert_str_eq(err.msg, "export: out of memory");
	cr_assert_eq(ftell(out), 0, "nothing written");
}

/* ---- round 6 (SEED=9503's survivors) ---------------------------------------------- */

/* A seat B that plays easy's pick and hard's pick in turn: a player no
 * single move rule predicts every time. */
static int alternating_pick(int arg, int nth, const kb_pos *pos, int die, unsigned mask)
{
	(void)arg, (void)pos, (void)die;
	return nth % 2 ? kb_pick_easy(mask) : kb_pick_hard(mask);
}

/* show's "played P% of the time, hard's H%" are shares of the kept
 * decisions: for a player no rule predicts every time, both lie in
 * 0..100 and the model's is the bot's own rate once it has judged 40
 * decisions (20 of them right: 50%, not 100 divided by the share). */
Test(state_rules, show_rates_are_percentages_of_the_decisions, .timeout = 30)
{
	char dir[256];
	kb_store *st;
	kb_err err;
	double mine = -1, hard = -1;
	kb_store_add judged = {.name = "switcher", .opponent = 1};

	test_tmpdir(dir, sizeof dir);
	test_store_player(dir, "switcher", 80, alternating_pick, 0);
	judged.delta.model.recent_judged = 40, judged.delta.model.recent_predicted = 20;
	cr_assert_eq(kb_store_open(&st, dir, 0, NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(kb_store_apply(st, &judged, 1, NULL, &err), 0, "%s", err.msg);
	const char *show = report_ok(st, "switcher");
	const char *use = strstr(show, "(predicted by the bot before each game, its most likely move "
				       "was played ");
	cr_assert_not_null(use, "%s", show);
	use = strstr(use, "most likely move was played ");
	cr_assert_eq(sscanf(use, "most likely move was played %lf%% of the time, hard's %lf%%", &mine, &hard), 2,
		     "%s", show);
	cr_assert_eq(mine, 50, "the model's share %g%%: %s", mine, show);
	cr_assert(hard > 0 && hard < 100, "hard's share %g%%: %s", hard, show);
	kb_store_close(st);
}

/* A player the model explains by the heuristic is not played with until
 * the bot has judged enough of its moves itself, however well the logit
 * fits its own samples: show says so, and what the samples say. */
Test(state_rules, show_says_a_heuristic_waits_for_the_bots_own_rate, .timeout = 30)
{
	char dir[256];
	kb_store *st;
	kb_err err;

	test_tmpdir(dir, sizeof dir);
	test_store_player(dir, "switcher", 80, alternating_pick, 0);
	cr_assert_eq(kb_store_open(&st, dir, 0, NULL, &err), 0, "%s", err.msg);
	const char *show = report_ok(st, "switcher");
	cr_assert(strstr(show, "\nused by the bot: not yet (fitted weights choose its most likely "
			       "move: used only after 30 of the bot's own predictions; on its samples "
			       "that move was played ") != NULL, "%s", show);
	kb_store_close(st);
}

/* Once the bot has predicted a player in a score, show gives that score's
 * rates and whether the model is used there; a score with too few
 * predictions says the rates over both scores decide.  The store's
 * peace>rear player, with 40 predictions ahead of the bot (right 34,
 * hard's move 5) and 10 not ahead, 70% right in all: below the bound
 * over both scores, which decides where the predictions are too few. */
Test(state_rules, show_gives_the_rates_by_score, .timeout = 30)
{
	char dir[256];
	kb_store *st;
	kb_err err;
	kb_store_add add = {.name = "dove", .opponent = 1};

	test_tmpdir(dir, sizeof dir);
	test_store_decisions(dir, "dove", KB_R_PEACE_REAR, 60);
	cr_assert_eq(kb_store_open(&st, dir, 0, NULL, &err), 0, "%s", err.msg);
	add.delta.model.score_judged[KB_AHEAD] = 40, add.delta.model.score_predicted[KB_AHEAD] = 34;
	add.delta.model.score_hard[KB_AHEAD] = 5, add.delta.model.score_judged[KB_NOT_AHEAD] = 10;
	add.delta.model.recent_judged = 50, add.delta.model.recent_predicted = 35;
	cr_assert_eq(kb_store_apply(st, &add, 1, NULL, &err), 0, "%s", err.msg);
	const char *show = report_ok(st, "dove");
	cr_assert(strstr(show, "\nused by the bot: when it is ahead of the bot only (predicted by the bot "
			       "before each game, its most likely move was played 70% of the time") != NULL,
		  "%s", show);
	cr_assert(strstr(show, "; the rates by score below decide)\nby score, the bot's own predictions "
			       "(used from 70% and 3 points above hard's):\n"
			       "  not ahead of the bot: 10 judged, fewer than 30: the rates over both "
			       "scores decide (not used)\n"
			       "  ahead of the bot: its most likely move 85%, hard's 12%, of 40 judged: "
			       "used\n") != NULL,
		  "%s", show);
	kb_store_close(st);
}

/* show whose walk over the results records fails (no cursor: out of
 * memory) fails with the store's status and message, not a listing that
 * says nothing of the results as if there were none. */
Test(state_rules, show_fails_when_the_results_cannot_be_read, .timeout = 20)
{
	char dir[256];
	kb_store *st = fresh_store(dir, sizeof dir);
	kb_store_add adds[2] = {{.name = "bob", .opponent = 1, .delta.games = 2},
				{.name = "bob", .version = "v1", .delta.games = 2, .delta.won = 1}};
	char *buf = NULL;
	size_t len;
	kb_err err = {0};

	cr_assert_eq(kb_store_apply(st, adds, 2, NULL, &err), 0, "%s", err.msg);
	FILE *f = open_memstream(&buf, &len);
	failed_cursors = 1;
	int rc = kb_listing_opponent(st, "bob", f, &err);
	failed_cursors = 0;
	fclose(f);
	cr_assert_eq(rc, KB_STORE_ERROR, "%s", buf);
	cr_assert(strstr(err.msg, ": cannot read: Cannot allocate memory"), "%s", err.msg);
	free(buf);
	kb_store_close(st);
}

/* No memory for the import's array of records (its first 64 slots): the
 * import fails with KB_EXPORT_NOMEM and its message, nothing counted (not
 * a success that goes on with no room for the line).  The heap is filled
 * under an address-space limit, a 4 KiB block set aside first and given
 * back: room for the line buffer, none for 64 records. */
Test(state_rules, import_out_of_memory_for_its_records, .timeout = 20)
{
	static const char text[] = "kimble-state-export 1\nresults v1 bob games 2 won 1 lost 1\n";
	static char iobuf[4096];
	char dir[256];
	kb_store *st = fresh_store(dir, sizeof dir);
	FILE *in = fmemopen((void *)text, sizeof text - 1, "r");
	long n = -1;
	kb_err err = {0};
	void *hoard = NULL, *p;

	cr_assert_not_null(in);
	cr_assert_eq(setvbuf(in, iobuf, _IOFBF, sizeof iobuf), 0);
	cr_assert_gt(64 * sizeof(kb_store_add), 16 * 4096, "the records' array is the big block");
	test_limit_memory(1u << 20);
	void *room = malloc(4096);
	cr_assert_not_null(room);
	for (size_t size = 1u << 16; size >= sizeof(void *); size /= 2)
		while ((p = malloc(size))) {
			*(void **)p = hoard;
			hoard = p;
		}
	free(room);
	int rc = kb_import(st, in, "oom", &n, &err);
	while (hoard) {
		p = *(void **)hoard;
		free(hoard);
		hoard = p;
	}
	cr_assert_eq(rc, KB_EXPORT_NOMEM, "%s", err.msg);
	cr_assert_str_eq(err.msg, "import: out of memory");
	cr_assert_eq(n, -1, "no records counted");
	fclose(in);
	kb_store_close(st);
}
