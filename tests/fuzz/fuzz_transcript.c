/* fuzz_transcript.c - the transcript reader: any bytes give either an error
 * with a message or a transcript whose rolls are numbered 1..n and hold
 * well-formed state lines. */
#include <stdlib.h>
#include <string.h>

#include "core/transcript.h"
#include "fuzz.h"

int kb_fuzz_transcript(const uint8_t *data, size_t size)
{
	kb_transcript tx;
	kb_err err;
	kb_line line;

	if (kb_tx_parse((const char *)data, size, &tx, &err) != 0) {
		if (!err.msg[0])
			abort();
		return 0;
	}
	for (size_t i = 0; i < tx.nrolls; i++)
		if (tx.rolls[i].n != i + 1 ||
		    kb_line_parse(tx.rolls[i].line, KB_ROLL_LINE_LEN, &line, NULL) != 0)
			abort();
	kb_tx_free(&tx);
	return 0;
}
