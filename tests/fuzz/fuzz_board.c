/* fuzz_board.c - the board parser: never crashes; what it accepts is a
 * sound position that formats back to the same string, and rotating it
 * there and back is the identity. */
#include <stdlib.h>
#include <string.h>

#include "core/board.h"
#include "fuzz.h"

int kb_fuzz_board(const uint8_t *data, size_t size)
{
	kb_pos pos, rot, back;
	kb_err err;
	char out[KB_BOARD_LEN], r1[KB_BOARD_LEN], r2[KB_BOARD_LEN];
	unsigned present = size ? data[0] & 0xf : 0xf;

	if (size)
		data++, size--;
	if (kb_board_parse((const char *)data, size, present, &pos, &err) != 0) {
		if (!memchr(err.msg, '\0', sizeof err.msg) || !err.msg[0])
			abort();
		return 0;
	}
	if (kb_pos_check(&pos) != 0)
		abort();
	kb_board_format(&pos, out);
	if (memcmp(out, data, KB_BOARD_LEN) != 0)
		abort();
	for (int v = 0; v < 4; v++) {
		kb_board_rotate(out, v, r1);
		kb_board_rotate(r1, (4 - v) & 3, r2);
		kb_pos_rotate(&pos, v, &rot);
		kb_pos_rotate(&rot, (4 - v) & 3, &back);
		if (memcmp(r2, out, KB_BOARD_LEN) || memcmp(&back, &pos, sizeof pos))
			abort();
		kb_board_format(&rot, r2);
		if (memcmp(r1, r2, KB_BOARD_LEN))
			abort();
	}
	return 0;
}
