/* record.c - little-endian record formats; see record.h. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "core/record.h"

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void put_header(uint8_t *out, uint16_t kind, uint16_t version)
{
	put16(out, kind);
	put16(out + 2, version);
	memset(out + 4, 0, 4);
}

static void put_double(uint8_t *p, double d)
{
	uint64_t v;

	memcpy(&v, &d, sizeof v);
	put64(p, v);
}

static double get_double(const uint8_t *p)
{
	uint64_t v = get64(p);
	double d;

	memcpy(&d, &v, sizeof d);
	return d;
}

size_t kb_opp_encode_v2(const kb_opp_rec *r, uint8_t *out)
{
	const uint64_t v[6] = {r->games, r->won, r->lost, r->model.decisions,
			       r->model.easy_hits, r->model.hard_hits};

	put_header(out, KB_REC_OPPONENT, 2);
	for (int i = 0; i < 6; i++)
		put64(out + 8 + 8 * i, v[i]);
	for (int j = 0; j < KB_SAMPLES; j++)
		memcpy(out + 56 + KB_SAMPLE_LEN * j, r->model.sample[j].b, KB_SAMPLE_LEN);
	return KB_OPP_V2_LEN;
}

/* Number of binary64 fields after version 2's: version 3's, version 4's
 * (every one of version 3's, then the later features' weights) and
 * version 5's (version 4's, then the predictions by score). */
#define FADED_V3 (4 + KB_RULES + KB_F_CHASE)
#define FADED_V4 (FADED_V3 + KB_FEATURES - KB_F_CHASE)
#define FADED_V5 (FADED_V4 + 3 * KB_SCORES)

/* Where faded field k lives in kb_model_stats, in the order versions 3
 * to 5 keep them: recent, recent_log_choices, recent_miss[], fit_w[] of
 * the features before KB_F_CHASE, recent_judged, recent_predicted, then
 * (version 4) fit_w[] of KB_F_CHASE and after, then (version 5)
 * score_judged[], score_predicted[], score_hard[]. */
static size_t faded_offset(int k)
{
	if (k >= FADED_V4) {
		static const size_t by_score[3] = {offsetof(kb_model_stats, score_judged),
						   offsetof(kb_model_stats, score_predicted),
						   offsetof(kb_model_stats, score_hard)};
		return by_score[(k - FADED_V4) / KB_SCORES] +
		       sizeof(double) * (size_t)((k - FADED_V4) % KB_SCORES);
	}
	if (k == 0)
		return offsetof(kb_model_stats, recent);
	if (k == 1)
		return offsetof(kb_model_stats, recent_log_choices);
	if (k < 2 + KB_RULES)
		return offsetof(kb_model_stats, recent_miss) + sizeof(double) * (size_t)(k - 2);
	if (k < 2 + KB_RULES + KB_F_CHASE)
		return offsetof(kb_model_stats, fit_w) + sizeof(double) * (size_t)(k - 2 - KB_RULES);
	if (k == 2 + KB_RULES + KB_F_CHASE)
		return offsetof(kb_model_stats, recent_judged);
	if (k == 3 + KB_RULES + KB_F_CHASE)
		return offsetof(kb_model_stats, recent_predicted);
	return offsetof(kb_model_stats, fit_w) + sizeof(double) * (size_t)(k - FADED_V3 + KB_F_CHASE);
}

size_t kb_opp_encode(const kb_opp_rec *r, uint8_t *out)
{
	kb_opp_encode_v2(r, out);
	put16(out + 2, KB_OPP_VERSION);
	for (int k = 0; k < FADED_V5; k++) {
		double v;
		memcpy(&v, (const char *)&r->model + faded_offset(k), sizeof v);
		put_double(out + KB_OPP_V2_LEN + 8 * k, v);
	}
	return KB_OPP_V5_LEN;
}

/* 1 when hits (or misses) of judged faded decisions can be: judged
 * within 0..KB_MEMORY + 1 (the faded sums' bound), hits within
 * 0..judged (with rounding's slack). */
static int rate_possible(double judged, double hits)
{
	return judged >= 0 && judged <= KB_MEMORY + 1 && hits >= 0 &&
	       hits <= judged * (1 + 1e-9) + 1e-9;
}

/* Read the faded statistics of a version 3 (fields FADED_V3), 4
 * (FADED_V4) or 5 (FADED_V5) record; 0, or -1 when they cannot be (not
 * finite, negative, more misses or hits than decisions). */
static int decode_faded(const uint8_t *in, int fields, kb_model_stats *m)
{
	for (int k = 0; k < fields; k++) {
		double v = get_double(in + KB_OPP_V2_LEN + 8 * k);
		if (!isfinite(v))
			return -1;
		memcpy((char *)m + faded_offset(k), &v, sizeof v);
	}
	if (m->recent < 0 || m->recent > KB_MEMORY + 1 || m->recent_log_choices < 0)
		return -1;
	for (int r = 0; r < KB_RULES; r++)
		if (!rate_possible(m->recent, m->recent_miss[r]))
			return -1;
	if (!rate_possible(m->recent_judged, m->recent_predicted))
		return -1;
	for (int k = 0; k < KB_SCORES; k++)
		if (!rate_possible(m->score_judged[k], m->score_predicted[k]) ||
		    !rate_possible(m->score_judged[k], m->score_hard[k]))
			return -1;
	return 0;
}

size_t kb_opp_encode_v1(const kb_opp_rec *r, uint8_t *out)
{
	put_header(out, KB_REC_OPPONENT, 1);
	put64(out + 8, r->games);
	put64(out + 16, r->won);
	put64(out + 24, r->lost);
	return KB_OPP_V1_LEN;
}

size_t kb_res_encode(const kb_res_rec *r, uint8_t *out)
{
	put_header(out, KB_REC_RESULTS, KB_RES_VERSION);
	put64(out + 8, r->games);
	put64(out + 16, r->won);
	put64(out + 24, r->lost);
	return KB_RES_LEN;
}

/* Check the header; returns the version (> 0), or KB_REC_NEWER/KB_REC_BAD. */
static int check_header(const uint8_t *in, size_t len, uint16_t kind, uint16_t current)
{
	if (len < 8 || get16(in) != kind)
		return KB_REC_BAD;
	if (get16(in + 2) > current)
		return KB_REC_NEWER;
	if (get16(in + 2) == 0)
		return KB_REC_BAD;
	return get16(in + 2);
}

int kb_rec_usable(int status)
{
	return status == KB_REC_OK || status == KB_REC_OLD;
}

/* Counts no game could have produced (more games won than played) are
 * refused in every version: accepted, they would be added to and written
 * back as if sound. */
static int counts_possible(uint64_t games, uint64_t won, uint64_t lost)
{
	return won <= games && lost <= games;
}

/* games, won and lost after the header: 0, or -1 when no games give them. */
static int get_counts(const uint8_t *in, uint64_t *games, uint64_t *won, uint64_t *lost)
{
	*games = get64(in + 8);
	*won = get64(in + 16);
	*lost = get64(in + 24);
	return counts_possible(*games, *won, *lost) ? 0 : -1;
}

int kb_opp_decode(const uint8_t *in, size_t len, kb_opp_rec *r)
{
	static const size_t size_of[KB_OPP_VERSION + 1] = {
		0, KB_OPP_V1_LEN, KB_OPP_V2_LEN, KB_OPP_V3_LEN, KB_OPP_V4_LEN, KB_OPP_V5_LEN};
	static const int faded_of[KB_OPP_VERSION + 1] = {0, 0, 0, FADED_V3, FADED_V4, FADED_V5};
	int v = check_header(in, len, KB_REC_OPPONENT, KB_OPP_VERSION);

	memset(r, 0, sizeof *r);
	if (v < 0)
		return v;
	if (len != size_of[v])
		return KB_REC_BAD;
	if (get_counts(in, &r->games, &r->won, &r->lost)) {
		memset(r, 0, sizeof *r);
		return KB_REC_BAD;
	}
	r->format = v;
	if (v == 1)
		return KB_REC_OLD;
	r->model.decisions = get64(in + 32);
	r->model.easy_hits = get64(in + 40);
	r->model.hard_hits = get64(in + 48);
	for (int j = 0; j < KB_SAMPLES; j++)
		memcpy(r->model.sample[j].b, in + 56 + KB_SAMPLE_LEN * j, KB_SAMPLE_LEN);
	if (r->model.easy_hits > r->model.decisions || r->model.hard_hits > r->model.decisions ||
	    (v >= 3 && decode_faded(in, faded_of[v], &r->model))) {
		memset(r, 0, sizeof *r);
		return KB_REC_BAD;
	}
	if (v == 2)
		kb_model_stats_rebuild(&r->model);
	return v < KB_OPP_VERSION ? KB_REC_OLD : KB_REC_OK;
}

int kb_res_decode(const uint8_t *in, size_t len, kb_res_rec *r)
{
	int v = check_header(in, len, KB_REC_RESULTS, KB_RES_VERSION);

	memset(r, 0, sizeof *r);
	if (v < 0)
		return v;
	if (len != KB_RES_LEN)
		return KB_REC_BAD;
	if (get_counts(in, &r->games, &r->won, &r->lost)) {
		memset(r, 0, sizeof *r);
		return KB_REC_BAD;
	}
	return KB_REC_OK;
}

void kb_opp_add(kb_opp_rec *a, const kb_opp_rec *b)
{
	a->games += b->games;
	a->won += b->won;
	a->lost += b->lost;
	kb_model_stats_add(&a->model, &b->model);
}

int kb_name_ok(const char *name, size_t len)
{
	if (len == 0 || len > KB_NAME_MAX)
		return 0;
	for (size_t i = 0; i < len; i++) {
		char c = name[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'))
			return 0;
	}
	return 1;
}

size_t kb_key_opponent(const char *name, char *out)
{
	size_t n = strlen(name);

	if (!kb_name_ok(name, n))
		return 0;
	memcpy(out, "o/", 2);
	memcpy(out + 2, name, n);
	return n + 2;
}

size_t kb_key_results(const char *version, const char *name, char *out)
{
	size_t v = strlen(version), n = strlen(name);

	if (!kb_name_ok(version, v) || !kb_name_ok(name, n))
		return 0;
	memcpy(out, "v/", 2);
	memcpy(out + 2, version, v);
	out[2 + v] = '/';
	memcpy(out + 3 + v, name, n);
	return v + n + 3;
}
