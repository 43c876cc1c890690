/* fuzz_line.c - the response-line parser a client uses: classifies any
 * bytes without crashing, and a state line it accepts formats back to the
 * same bytes. */
#include <stdlib.h>
#include <string.h>

#include "core/wire.h"
#include "fuzz.h"

int kb_fuzz_line(const uint8_t *data, size_t size)
{
	kb_line line;
	kb_err err;
	char out[KB_ROLL_LINE_LEN + 1];

	if (kb_line_parse((const char *)data, size, &line, &err) != 0)
		return 0;
	if (line.type == KB_LINE_ROLL) {
		kb_fmt_roll_line(out, line.board, line.seat, line.die);
		if (memcmp(out, data, KB_ROLL_LINE_LEN))
			abort();
	}
	return 0;
}
