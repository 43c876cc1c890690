/* fuzz_state.c - the learning store's decoders: any bytes as an export line
 * (kb_import_line) and as a stored record (kb_opp_decode, kb_res_decode).
 * An accepted opponent line exports and parses back to the same record; a
 * decoded record fits to a model whose weights are finite and sum to 1. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "state/export.h"
#include "core/record.h"

static void check_line(const uint8_t *data, size_t size)
{
	char *line = malloc(size + 1), out[4096];
	kb_store_add add, again;
	kb_err err;

	memcpy(line, data, size);
	line[size] = 0;
	if (kb_import_line(line, &add, &err) == 0 && add.opponent) {
		if (kb_export_opponent_line(add.name, &add.delta, out, sizeof out) < 0)
			abort();
		if (kb_import_line(out, &again, &err) != 0 ||
		    memcmp(&again.delta, &add.delta, sizeof add.delta) != 0)
			abort();
	}
	free(line);
}

static void check_record(const uint8_t *data, size_t size)
{
	kb_opp_rec r;
	kb_res_rec res;
	kb_model m;
	double sum = 0;

	if (kb_opp_decode(data, size, &r) >= 0) {
		kb_model_fit(&m, &r.model);
		for (int c = 0; c < KB_COMPONENTS; c++) {
			if (!isfinite(m.weight[c]) || m.weight[c] < 0)
				abort();
			sum += m.weight[c];
		}
		for (int k = 0; k < KB_FEATURES; k++)
			if (!isfinite(m.w[k]))
				abort();
		if (fabs(sum - 1.0) > 1e-9)
			abort();
	}
	kb_res_decode(data, size, &res);
}

int kb_fuzz_state(const uint8_t *data, size_t size)
{
	check_line(data, size);
	check_record(data, size);
	return 0;
}
