/* fuzz_botclient.c - the bot's protocol loop on arbitrary server bytes:
 * the first byte picks the lineup, the rest is the server's side of the
 * conversation.  It must end with a status (never crash or hang), and a
 * game it accepts as finished must have a winner. */
#include <stdio.h>
#include <stdlib.h>

#include "bot/client.h"
#include "fuzz.h"

int kb_fuzz_botclient(const uint8_t *data, size_t size)
{
	static const char *const lineups[] = {"hard,hard,hard", "easy,easy,easy", "hard",
					      "easy,hard,easy", "none,easy,-", ""};
	const kb_opponent *opp[KB_SEATS];
	kb_client c = {0};
	kb_search bot;
	kb_err err;
	FILE *in, *out;

	if (size < 1)
		return 0;
	if (kb_lineup_parse(lineups[data[0] % 6], c.lineup, &c.present, opp, &err))
		abort();
	in = fmemopen((void *)(data + 1), size - 1 ? size - 1 : 1, "r");
	out = fopen("/dev/null", "w");
	if (!in || !out)
		abort();
	if (size == 1)
		fgetc(in); /* an empty stream */
	kb_search_init(&bot, c.present, opp, data[0], KB_BUDGET_DEFAULT_MS);
	c.bot = &bot;
	int rc = kb_client_run(&c, in, out, &err);
	if (getenv("KB_FUZZ_VERBOSE"))
		fprintf(stderr, "fuzz_botclient: status %d%s%s\n", rc, rc ? ": " : "", rc ? err.msg : "");
	if (rc == KB_CLIENT_OK && c.winner < 0)
		abort();
	fclose(in);
	fclose(out);
	return 0;
}
