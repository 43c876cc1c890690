/* fuzz_result.c - the judge's result-file reader (judge/match.h): never
 * reads out of bounds, accepts only results within their ranges, and what
 * it accepts writes back and reads again to the same result. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "judge/match.h"

static int same(const kj_result *a, const kj_result *b)
{
	if (a->deal != b->deal || a->seed != b->seed || a->winner != b->winner || a->rolls != b->rolls)
		return 0;
	for (int s = 0; s < KB_SEATS; s++) {
		const kj_seat_result *x = &a->seat[s], *y = &b->seat[s];
		if (x->present != y->present || strcmp(x->name, y->name) || x->place != y->place ||
		    x->score != y->score || x->reason != y->reason || x->decisions != y->decisions)
			return 0;
	}
	return 1;
}

int kb_fuzz_result(const uint8_t *data, size_t size)
{
	kj_result res, back;
	uint32_t game, game2;
	kb_err err;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (size == 0 || !(f = fmemopen((void *)data, size, "r")))
		return 0;
	int rc = kj_result_read(f, &game, &res, &err);
	fclose(f);
	if (rc)
		return 0;
	if (res.winner < -1 || res.winner > 3)
		abort();
	for (int s = 0; s < KB_SEATS; s++)
		if (res.seat[s].present && (res.seat[s].reason < 0 || res.seat[s].reason >= KJ_REASONS ||
					    strlen(res.seat[s].name) >= sizeof res.seat[s].name))
			abort();
	if (!(f = open_memstream(&text, &len)))
		return 0;
	kj_result_write(f, game, &res);
	fclose(f);
	f = fmemopen(text, len, "r");
	if (!f || kj_result_read(f, &game2, &back, &err) || game2 != game || !same(&res, &back))
		abort();
	fclose(f);
	free(text);
	return 0;
}
