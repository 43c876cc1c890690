/* record.c - little-endian record formats; see record.h. */
#include <string.h>

#include "record.h"

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

size_t kb_opp_encode(const kb_opp_rec *r, uint8_t *out)
{
	const uint64_t v[6] = {r->games, r->won, r->lost, r->model.decisions,
			       r->model.easy_hits, r->model.hard_hits};

	put_header(out, KB_REC_OPPONENT, KB_OPP_VERSION);
	for (int i = 0; i < 6; i++)
		put64(out + 8 + 8 * i, v[i]);
	for (int j = 0; j < KB_SAMPLES; j++)
		memcpy(out + 56 + KB_SAMPLE_LEN * j, r->model.sample[j].b, KB_SAMPLE_LEN);
	return KB_OPP_V2_LEN;
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

int kb_opp_decode(const uint8_t *in, size_t len, kb_opp_rec *r)
{
	int v = check_header(in, len, KB_REC_OPPONENT, KB_OPP_VERSION);

	memset(r, 0, sizeof *r);
	if (v < 0)
		return v;
	if ((v == 1 && len != KB_OPP_V1_LEN) || (v == 2 && len != KB_OPP_V2_LEN))
		return KB_REC_BAD;
	r->games = get64(in + 8);
	r->won = get64(in + 16);
	r->lost = get64(in + 24);
	if (!counts_possible(r->games, r->won, r->lost)) {
		memset(r, 0, sizeof *r);
		return KB_REC_BAD;
	}
	if (v == 1)
		return KB_REC_OLD;
	r->model.decisions = get64(in + 32);
	r->model.easy_hits = get64(in + 40);
	r->model.hard_hits = get64(in + 48);
	for (int j = 0; j < KB_SAMPLES; j++)
		memcpy(r->model.sample[j].b, in + 56 + KB_SAMPLE_LEN * j, KB_SAMPLE_LEN);
	if (r->model.easy_hits > r->model.decisions || r->model.hard_hits > r->model.decisions) {
		memset(r, 0, sizeof *r);
		return KB_REC_BAD;
	}
	return KB_REC_OK;
}

int kb_res_decode(const uint8_t *in, size_t len, kb_res_rec *r)
{
	int v = check_header(in, len, KB_REC_RESULTS, KB_RES_VERSION);

	memset(r, 0, sizeof *r);
	if (v < 0)
		return v;
	if (len != KB_RES_LEN)
		return KB_REC_BAD;
	r->games = get64(in + 8);
	r->won = get64(in + 16);
	r->lost = get64(in + 24);
	if (!counts_possible(r->games, r->won, r->lost)) {
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
