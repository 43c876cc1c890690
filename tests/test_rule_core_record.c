/* test_rule_core_record.c - the byte formats of core/record.h pinned byte
 * by byte (round 5 of make mutate, docs/mutation.md): each record encoded
 * at its offsets, little-endian, the header's zero word written; decoding
 * that keeps every field, and each way a record is refused (kind, version,
 * size, impossible counts, each bound of the faded statistics); names and
 * keys.  The expected bytes are laid out here from record.h's table with
 * the test's own little-endian writer, not with the code under test. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "core/record.h"

static void le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void le_double(uint8_t *p, double d)
{
	uint64_t v;

	memcpy(&v, &d, sizeof v);
	le64(p, v);
}

/* A sound opponent record with a distinct value in every field. */
static void sound_record(kb_opp_rec *r)
{
	memset(r, 0, sizeof *r);
	r->games = 0x0102030405060708ull, r->won = 0x0102030405060700ull, r->lost = 0x0102;
	r->model.decisions = 0x1112131415161718ull, r->model.easy_hits = 0x1112;
	r->model.hard_hits = 0x1112131415161700ull;
	for (int j = 0; j < KB_SAMPLES; j++)
		for (int b = 0; b < KB_SAMPLE_LEN; b++)
			r->model.sample[j].b[b] = (uint8_t)(j * 7 + b + 1);
	r->model.recent = 50;
	r->model.recent_log_choices = 2.25;
	for (int k = 0; k < KB_RULES; k++)
		r->model.recent_miss[k] = 0.5 + k;
	for (int f = 0; f < KB_FEATURES; f++)
		r->model.fit_w[f] = -0.125 * (f + 1);
	r->model.recent_judged = 40, r->model.recent_predicted = 30;
	for (int k = 0; k < KB_SCORES; k++) {
		r->model.score_judged[k] = 20 + k;
		r->model.score_predicted[k] = 10.5 + k;
		r->model.score_hard[k] = 3.25 + k;
	}
}

/* The bytes of r as record.h lays out version v (1 to 5) of kind 1. */
static size_t opp_bytes(const kb_opp_rec *r, int v, uint8_t *out)
{
	const uint64_t count[6] = {r->games, r->won, r->lost, r->model.decisions,
				   r->model.easy_hits, r->model.hard_hits};
	size_t at = 56;

	memset(out, 0, KB_REC_MAX);
	out[0] = 1, out[2] = (uint8_t)v;
	for (int i = 0; i < (v == 1 ? 3 : 6); i++)
		le64(out + 8 + 8 * i, count[i]);
	if (v == 1)
		return 32;
	for (int j = 0; j < KB_SAMPLES; j++, at += KB_SAMPLE_LEN)
		memcpy(out + at, r->model.sample[j].b, KB_SAMPLE_LEN);
	if (v == 2)
		return at;
	le_double(out + at, r->model.recent), at += 8;
	le_double(out + at, r->model.recent_log_choices), at += 8;
	for (int k = 0; k < KB_RULES; k++, at += 8)
		le_double(out + at, r->model.recent_miss[k]);
	for (int f = 0; f < KB_F_CHASE; f++, at += 8)
		le_double(out + at, r->model.fit_w[f]);
	le_double(out + at, r->model.recent_judged), at += 8;
	le_double(out + at, r->model.recent_predicted), at += 8;
	if (v == 3)
		return at;
	for (int f = KB_F_CHASE; f < KB_FEATURES; f++, at += 8)
		le_double(out + at, r->model.fit_w[f]);
	if (v == 4)
		return at;
	for (int k = 0; k < KB_SCORES; k++, at += 8)
		le_double(out + at, r->model.score_judged[k]);
	for (int k = 0; k < KB_SCORES; k++, at += 8)
		le_double(out + at, r->model.score_predicted[k]);
	for (int k = 0; k < KB_SCORES; k++, at += 8)
		le_double(out + at, r->model.score_hard[k]);
	return at;
}

Test(core_rules, record_bytes_of_each_version)
{
	kb_opp_rec r;
	kb_res_rec res = {.games = 0x0a0b0c0d0e0f1011ull, .won = 0x0a0b, .lost = 0x0a0b0c0d0e0f1000ull};
	uint8_t got[KB_REC_MAX], want[KB_REC_MAX];
	size_t len;

	sound_record(&r);
	for (int v = 1; v <= 5; v++) {
		if (v == 3 || v == 4) /* no program writes versions 3 and 4 any more */
			continue;
		memset(got, 0xee, sizeof got);
		len = v == 1 ? kb_opp_encode_v1(&r, got) : v == 2 ? kb_opp_encode_v2(&r, got)
								 : kb_opp_encode(&r, got);
		cr_assert_eq(len, opp_bytes(&r, v, want), "version %d: %zu bytes", v, len);
		for (size_t i = 0; i < len; i++)
			cr_assert_eq(got[i], want[i], "version %d, byte %zu: %#x, not %#x", v, i, got[i], want[i]);
	}
	cr_assert_eq(len, 1176, "version 5 is 1176 bytes (record.h)");
	cr_assert_eq(opp_bytes(&r, 4, want), 1128, "version 4 was 1128 bytes");
	cr_assert_eq(opp_bytes(&r, 3, want), 1120, "version 3 was 1120 bytes");
	memset(got, 0xee, sizeof got);
	memset(want, 0, sizeof want);
	want[0] = 2, want[2] = 1;
	le64(want + 8, res.games), le64(want + 16, res.won), le64(want + 24, res.lost);
	cr_assert_eq(kb_res_encode(&res, got), 32);
	cr_assert_eq(memcmp(got, want, 32), 0);
}

/* Every field read back from each version; versions 1 to 4 are old. */
Test(core_rules, record_decode_keeps_every_field)
{
	kb_opp_rec r, back;
	kb_res_rec res = {.games = 9, .won = 9, .lost = 0}, res_back;
	uint8_t bytes[KB_REC_MAX];
	size_t len;

	sound_record(&r);
	len = opp_bytes(&r, 5, bytes);
	cr_assert_eq(kb_opp_decode(bytes, len, &back), KB_REC_OK);
	r.format = 5; /* what the decoder read, not a field of the bytes */
	cr_assert_eq(memcmp(&back, &r, sizeof r), 0, "every field of version 5");
	kb_model_stats by_score = r.model; /* version 4 and 3 kept no predictions by score */
	memset(r.model.score_judged, 0, sizeof r.model.score_judged);
	memset(r.model.score_predicted, 0, sizeof r.model.score_predicted);
	memset(r.model.score_hard, 0, sizeof r.model.score_hard);
	len = opp_bytes(&r, 4, bytes);
	cr_assert_eq(kb_opp_decode(bytes, len, &back), KB_REC_OLD);
	cr_assert_eq(back.format, 4);
	back.format = 5;
	cr_assert_eq(memcmp(&back, &r, sizeof r), 0, "every field of version 4, none by score");
	len = opp_bytes(&r, 3, bytes);
	cr_assert_eq(kb_opp_decode(bytes, len, &back), KB_REC_OLD);
	cr_assert_eq(back.format, 3);
	cr_assert_eq(back.model.fit_w[KB_F_CHASE], 0, "version 3 kept no chase weight");
	back.model.fit_w[KB_F_CHASE] = r.model.fit_w[KB_F_CHASE], back.format = 5;
	cr_assert_eq(memcmp(&back, &r, sizeof r), 0, "every other field of version 3");
	r.model = by_score;
	len = opp_bytes(&r, 2, bytes);
	cr_assert_eq(kb_opp_decode(bytes, len, &back), KB_REC_OLD);
	cr_assert(back.games == r.games && back.won == r.won && back.lost == r.lost);
	cr_assert(back.model.decisions == r.model.decisions && back.model.easy_hits == r.model.easy_hits &&
		  back.model.hard_hits == r.model.hard_hits);
	cr_assert_eq(memcmp(back.model.sample, r.model.sample, sizeof r.model.sample), 0);
	len = opp_bytes(&r, 1, bytes);
	cr_assert_eq(kb_opp_decode(bytes, len, &back), KB_REC_OLD);
	cr_assert(back.games == r.games && back.won == r.won && back.lost == r.lost);
	cr_assert(back.model.decisions == 0 && back.model.recent == 0, "missing fields zero");
	cr_assert_eq(kb_res_encode(&res, bytes), 32);
	cr_assert_eq(kb_res_decode(bytes, 32, &res_back), KB_REC_OK);
	cr_assert(res_back.games == 9 && res_back.won == 9 && res_back.lost == 0);
	cr_assert(kb_rec_usable(KB_REC_OK) && kb_rec_usable(KB_REC_OLD));
	cr_assert(!kb_rec_usable(KB_REC_NEWER) && !kb_rec_usable(KB_REC_BAD));
}

/* A faded field at a bound: accepted at it, refused past it. */
typedef struct faded_case {
	int field;    /* 0 recent, 1 log choices, 2 a miss, 3 judged, 4 predicted,
			 5 judged ahead, 6 predicted ahead, 7 hard's ahead */
	double value;
	int status;
} faded_case;

static const faded_case faded_cases[] = {
	{0, 1001, KB_REC_OK},       {0, 1001.5, KB_REC_BAD},    {0, -0.5, KB_REC_BAD},
	{0, INFINITY, KB_REC_BAD},  {0, NAN, KB_REC_BAD},       {1, 0, KB_REC_OK},
	{1, -0.5, KB_REC_BAD},      {1, INFINITY, KB_REC_BAD},  {2, 50, KB_REC_OK},
	{2, 50.01, KB_REC_BAD},     {2, 0, KB_REC_OK},          {2, -0.01, KB_REC_BAD},
	{3, 1001, KB_REC_OK},       {3, 1001.5, KB_REC_BAD},    {3, 30, KB_REC_OK},
	{3, 29.99, KB_REC_BAD},     {3, -1, KB_REC_BAD},        {4, 40, KB_REC_OK},
	{4, 40.01, KB_REC_BAD},     {4, 0, KB_REC_OK},          {4, -0.01, KB_REC_BAD},
	{4, NAN, KB_REC_BAD},       {5, 1001, KB_REC_OK},       {5, 1001.5, KB_REC_BAD},
	{5, 11.5, KB_REC_OK},       {5, 11.49, KB_REC_BAD},     {5, INFINITY, KB_REC_BAD},
	{6, 21, KB_REC_OK},         {6, 21.01, KB_REC_BAD},     {6, -0.01, KB_REC_BAD},
	{7, 21, KB_REC_OK},         {7, 21.01, KB_REC_BAD},     {7, -0.01, KB_REC_BAD},
	{7, NAN, KB_REC_BAD},
};

Test(core_rules, record_faded_statistics_bounds)
{
	for (size_t i = 0; i < sizeof faded_cases / sizeof *faded_cases; i++) {
		const faded_case *c = &faded_cases[i];
		kb_opp_rec r, back;
		uint8_t bytes[KB_REC_MAX];

		sound_record(&r);
		switch (c->field) {
		case 0: r.model.recent = c->value; break;
		case 1: r.model.recent_log_choices = c->value; break;
		case 2: r.model.recent_miss[KB_RULES - 1] = c->value; break;
		case 3: r.model.recent_judged = c->value; break;
		case 4: r.model.recent_predicted = c->value; break;
		case 5: r.model.score_judged[KB_AHEAD] = c->value; break;
		case 6: r.model.score_predicted[KB_AHEAD] = c->value; break;
		default: r.model.score_hard[KB_AHEAD] = c->value;
		}
		size_t len = opp_bytes(&r, 5, bytes);
		int status = kb_opp_decode(bytes, len, &back);
		cr_assert_eq(status, c->status, "case %zu: field %d = %g: %d", i, c->field, c->value, status);
		if (status == KB_REC_BAD)
			cr_assert(back.games == 0 && back.model.decisions == 0 && back.model.recent == 0,
				  "case %zu: a refused record is zeroed", i);
	}
}

/* Each way a header, a size or the counts refuse a record, any version. */
Test(core_rules, record_refusals)
{
	kb_opp_rec r, back;
	kb_res_rec res = {.games = 3, .won = 1, .lost = 2}, res_back;
	uint8_t bytes[KB_REC_MAX];
	size_t len;

	sound_record(&r);
	for (int v = 1; v <= 5; v++) {
		len = opp_bytes(&r, v, bytes);
		cr_assert_eq(kb_opp_decode(bytes, len - 1, &back), KB_REC_BAD, "version %d short", v);
		cr_assert_eq(kb_opp_decode(bytes, len + 1, &back), KB_REC_BAD, "version %d long", v);
		bytes[0] = 2;
		cr_assert_eq(kb_opp_decode(bytes, len, &back), KB_REC_BAD, "version %d of kind 2", v);
		bytes[0] = 1, bytes[1] = 1;
		cr_assert_eq(kb_opp_decode(bytes, len, &back), KB_REC_BAD, "version %d of kind 257", v);
	}
	len = opp_bytes(&r, 5, bytes);
	cr_assert_eq(kb_opp_decode(bytes, 7, &back), KB_REC_BAD, "no whole header");
	bytes[2] = 0;
	cr_assert_eq(kb_opp_decode(bytes, len, &back), KB_REC_BAD, "version 0");
	bytes[2] = 6;
	cr_assert_eq(kb_opp_decode(bytes, len, &back), KB_REC_NEWER, "version 6");
	bytes[2] = 5, bytes[3] = 1;
	cr_assert_eq(kb_opp_decode(bytes, len, &back), KB_REC_NEWER, "version 261");
	cr_assert(back.games == 0, "a newer record is zeroed");

	static const struct {
		uint64_t games, won, lost, decisions, easy, hard;
		int status;
	} counts[] = {
		{5, 5, 5, 7, 7, 7, KB_REC_OK}, {5, 6, 0, 7, 0, 0, KB_REC_BAD}, {5, 0, 6, 7, 0, 0, KB_REC_BAD},
		{5, 0, 0, 7, 8, 0, KB_REC_BAD}, {5, 0, 0, 7, 0, 8, KB_REC_BAD},
	};
	for (size_t k = 0; k < sizeof counts / sizeof *counts; k++) {
		r.games = counts[k].games, r.won = counts[k].won, r.lost = counts[k].lost;
		r.model.decisions = counts[k].decisions;
		r.model.easy_hits = counts[k].easy, r.model.hard_hits = counts[k].hard;
		for (int v = 1; v <= 5; v++) {
			int want = v == 1 && k >= 3 ? KB_REC_OLD : counts[k].status;
			if (want == KB_REC_OK && v < 5)
				want = KB_REC_OLD;
			len = opp_bytes(&r, v, bytes);
			cr_assert_eq(kb_opp_decode(bytes, len, &back), want, "counts %zu, version %d", k, v);
		}
	}

	kb_res_encode(&res, bytes);
	cr_assert_eq(kb_res_decode(bytes, 31, &res_back), KB_REC_BAD);
	cr_assert_eq(kb_res_decode(bytes, 33, &res_back), KB_REC_BAD);
	bytes[2] = 2;
	cr_assert_eq(kb_res_decode(bytes, 32, &res_back), KB_REC_NEWER);
	bytes[2] = 1, bytes[0] = 1;
	cr_assert_eq(kb_res_decode(bytes, 32, &res_back), KB_REC_BAD, "an opponent record");
	bytes[0] = 2;
	le64(bytes + 16, 4);
	cr_assert_eq(kb_res_decode(bytes, 32, &res_back), KB_REC_BAD, "won > games");
	cr_assert_eq(res_back.games, 0);
}

/* Names: 1 to 64 of A-Z a-z 0-9 _ . -; keys "o/NAME" and "v/VERSION/NAME". */
Test(core_rules, record_names_and_keys)
{
	static const char good[] = "azAZ09_.-";
	static const char bad[] = "`{@[/: \x7f";
	char name[80], key[KB_KEY_MAX];

	for (const char *c = good; *c; c++)
		cr_assert(kb_name_ok(c, 1), "'%c'", *c);
	for (const char *c = bad; *c; c++)
		cr_assert(!kb_name_ok(c, 1), "'%c'", *c);
	memset(name, 'n', sizeof name);
	cr_assert(kb_name_ok(name, 64));
	cr_assert(!kb_name_ok(name, 65));
	cr_assert(!kb_name_ok(name, 0));
	cr_assert(!kb_name_ok("ab/", 3), "the last character is checked");
	cr_assert_eq(kb_key_opponent("bob", key), 5);
	cr_assert_eq(memcmp(key, "o/bob", 5), 0);
	cr_assert_eq(kb_key_opponent("b b", key), 0);
	cr_assert_eq(kb_key_results("v1.2", "bob", key), 10);
	cr_assert_eq(memcmp(key, "v/v1.2/bob", 10), 0);
	cr_assert_eq(kb_key_results("v 1", "bob", key), 0);
	cr_assert_eq(kb_key_results("v1", "", key), 0);
}

/* A record that does not decode leaves r zeroed (record.h: "zeroed
 * first"), whatever the caller's variable held: one of another kind (an
 * opponent record's), one too short. */
Test(core_rules, record_decode_failure_leaves_zeros)
{
	static const uint8_t zero[sizeof(kb_res_rec)];
	uint8_t bytes[64] = {0};
	kb_res_rec res;

	kb_res_encode(&(kb_res_rec){0}, bytes);
	bytes[0] = 1; /* an opponent record's kind */
	memset(&res, 0xa5, sizeof res);
	cr_assert_eq(kb_res_decode(bytes, 32, &res), KB_REC_BAD);
	cr_assert(memcmp(&res, zero, sizeof res) == 0, "bad kind: r not zeroed");
	memset(&res, 0xa5, sizeof res);
	cr_assert_eq(kb_res_decode(bytes, 3, &res), KB_REC_BAD);
	cr_assert(memcmp(&res, zero, sizeof res) == 0, "too short: r not zeroed");
}
