/* fuzz_msg.c - the client-message scanner: consumes within bounds, always
 * makes progress on a bad message, and never reports a message it did not
 * see. */
#include <stdlib.h>
#include <string.h>

#include "core/wire.h"
#include "fuzz.h"

int kb_fuzz_msg(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data;
	size_t left = size;
	kb_msg msg;

	while (left) {
		size_t used = kb_msg_scan(p, left, &msg);
		if (used > left)
			abort();
		if (msg.type == KB_MSG_BAD && used == 0)
			abort();
		if (msg.type == KB_MSG_MOVE && (msg.index < 0 || msg.index > 3 ||
						!kb_token_valid(msg.token, KB_TOKEN_LEN)))
			abort();
		if (msg.type == KB_MSG_START &&
		    (msg.lineup[0] > 2 || msg.lineup[1] > 2 || msg.lineup[2] > 2))
			abort();
		if (msg.type == KB_MSG_NONE) {
			/* only a prefix is left: scanning it again changes nothing */
			break;
		}
		p += used;
		left -= used;
	}
	return 0;
}
