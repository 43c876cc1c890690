/* client.h - the bot's side of the Kimble protocol on two streams.
 *
 * kb_client_run() writes the start message "v001XYZ", then reads server
 * responses line by line (bounded lines, END closes a response), checks
 * every state line against the previous one (observe.h), and answers each
 * decision with TOKEN+INDEX from the search (search.h).  A repeated
 * decision line (the server refused the move) gets another legal index.
 * It returns after the "Voittaja" response, or on the first error.
 *
 * Opponent names (docs/spec.md section 4.1): kb_lineup_parse() turns the
 * OPPONENTS argument into the start digits and the opponent models.
 */
#ifndef KB_BOT_CLIENT_H
#define KB_BOT_CLIENT_H

#include <stdint.h>
#include <stdio.h>

#include "core/board.h"
#include "observe.h"
#include "search.h"

/* Results of kb_client_run (also kimble-bot's exit statuses). */
enum kb_client_status {
	KB_CLIENT_OK = 0,       /* game played to "Voittaja" */
	KB_CLIENT_PROTOCOL = 2, /* input no legal game produces, or a bad line */
	KB_CLIENT_SERVER = 3,   /* the server answered "Virhe" */
	KB_CLIENT_IO = 4        /* end of input before the game ended, write error */
};

#define KB_CLIENT_NAME_MAX 64

/* Parse OPPONENTS ("easy,hard,-"): up to three comma-separated words for
 * seats B, C, D; "none", "-" or an empty field is absent.  Fills lineup
 * (start digits 0/1/2), present (seat mask) and opp (models; opp[0] and
 * absent seats NULL).  Returns 0, or -1 with err set for more than three
 * fields or a word longer than KB_CLIENT_NAME_MAX or with characters
 * other than letters, digits, '_', '.', '-'. */
int kb_lineup_parse(const char *spec, uint8_t lineup[3], unsigned *present,
		    const kb_opponent *opp[KB_SEATS], kb_err *err);

typedef struct kb_client {
	kb_search *bot;          /* decides; set up for this game */
	uint8_t lineup[3];       /* start digits */
	unsigned present;        /* seat mask */
	kb_observe_fn observe;   /* opponents' decided rolls, or NULL */
	void *observe_ctx;
	FILE *diag;              /* diagnostics (stderr), or NULL */
	/* results */
	int winner;              /* seat that won, or -1 */
	long decisions;          /* moves sent */
	long lines;              /* state lines accepted */
} kb_client;

/* Play one game over in/out.  Returns an enum kb_client_status; on an
 * error err names the offending input and what was expected. */
int kb_client_run(kb_client *c, FILE *in, FILE *out, kb_err *err);

#endif
