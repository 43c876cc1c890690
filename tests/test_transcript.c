/* test_transcript.c - transcripts written by a game read back exactly. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "core/transcript.h"

typedef struct writer {
	FILE *f;
	uint32_t n;
} writer;

static void played(void *ctx, const kb_roll *roll)
{
	writer *w = ctx;
	kb_tx_write_roll(w->f, ++w->n, roll);
}

/* Write a whole built-in game; return the text (malloc'd). */
static char *write_game(uint64_t seed, const uint8_t ctl[4], kb_game *g, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);
	writer w = {f, 0};
	kb_hooks hooks = {.played = played, .ctx = &w};

	kb_tx_write_header(f, seed, ctl);
	kb_tx_write_name(f, 0, "my bot\n");
	kb_tx_write_fingerprint(f, 0, "0123abcd");
	kb_game_init(g, seed, ctl);
	kb_game_advance(g, &hooks);
	kb_tx_write_msg(f, 0, 1.5, "t00\\ \x01", 6);
	kb_tx_write_note(f, "a note");
	kb_tx_write_end(f, g->winner, g->rolls, "win");
	fclose(f);
	return text;
}

Test(transcript, round_trip_of_a_game, .timeout = 10)
{
	uint8_t ctl[4] = {KB_HARD, KB_EASY, KB_ABSENT, KB_RANDOM};
	kb_game g;
	size_t len;
	char *text = write_game(77, ctl, &g, &len);
	kb_transcript tx;
	kb_err err;

	cr_assert_eq(kb_tx_parse(text, len, &tx, &err), 0, "%s", err.msg);
	cr_assert_eq(tx.seed, 77u);
	cr_assert_eq(memcmp(tx.ctl, ctl, 4), 0);
	cr_assert_str_eq(tx.name[0], "my_bot_", "spaces and control characters are replaced");
	cr_assert_str_eq(tx.fingerprint[0], "0123abcd");
	cr_assert_eq(tx.nrolls, g.rolls);
	cr_assert(tx.ended);
	cr_assert_eq(tx.winner, g.winner);
	cr_assert_eq(tx.end_rolls, g.rolls);
	cr_assert_eq(tx.nmsgs, 1u);
	cr_assert_eq(memcmp(tx.msgs[0].text, "t00\\ \x01", 6), 0);
	cr_assert_eq(tx.msgs[0].after_roll, g.rolls);

	/* Replaying the recorded moves from the seed reproduces the game. */
	kb_game r;
	uint8_t ext[4] = {KB_EXTERNAL, KB_EXTERNAL, KB_ABSENT, KB_EXTERNAL};
	kb_game_init(&r, tx.seed, ext);
	while (kb_game_advance(&r, NULL) >= 0) {
		const kb_tx_roll *rec = &tx.rolls[r.rolls - 1];
		cr_assert_eq(rec->n, r.rolls);
		cr_assert_eq(rec->how, KB_BUILTIN, "a real choice at roll %u", r.rolls);
		cr_assert_eq(kb_game_decide(&r, rec->index, NULL), 0);
	}
	cr_assert_eq(r.winner, g.winner);
	cr_assert_eq(r.rolls, g.rolls);
	kb_tx_free(&tx);
	free(text);
}

Test(transcript, errors_name_the_line)
{
	kb_transcript tx;
	kb_err err;
	const char *bad1 = "kimble-transcript 2\n";
	cr_assert_eq(kb_tx_parse(bad1, strlen(bad1), &tx, &err), -1);
	cr_assert(strstr(err.msg, "line 1"), "%s", err.msg);
	const char *bad2 = "kimble-transcript 1\nseed 5\nroll 2 x 0 auto\n";
	cr_assert_eq(kb_tx_parse(bad2, strlen(bad2), &tx, &err), -1);
	cr_assert(strstr(err.msg, "line 3") && strstr(err.msg, "counting up"), "%s", err.msg);
	const char *bad3 = "kimble-transcript 1\nseats easy hard nobody absent\n";
	cr_assert_eq(kb_tx_parse(bad3, strlen(bad3), &tx, &err), -1);
	cr_assert(strstr(err.msg, "line 2"), "%s", err.msg);
	const char *ok = "kimble-transcript 1\n\nfuture-record 1 2 3\nend - 0 unfinished shutdown\n";
	cr_assert_eq(kb_tx_parse(ok, strlen(ok), &tx, &err), 0, "%s", err.msg);
	cr_assert_eq(tx.winner, -1);
	cr_assert_str_eq(tx.reason, "unfinished shutdown");
	kb_tx_free(&tx);
}

/* The forfeit record: written and read back, a malformed one named. */
Test(transcript, forfeit_records_round_trip, .timeout = 10)
{
	kb_transcript tx;
	kb_err err;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	fprintf(f, "kimble-transcript 1\nseed 3\n");
	cr_assert_eq(kb_tx_write_forfeit(f, 2, 37, "illegal", "hard", "index 3 refused; legal 0 1"), 0);
	cr_assert_eq(kb_tx_write_forfeit(f, 0, 0, "nostart", "hard", ""), 0);
	fclose(f);
	cr_assert(strstr(text, "\nforfeit C 37 illegal hard index 3 refused; legal 0 1\n"), "%s", text);
	cr_assert_eq(kb_tx_parse(text, len, &tx, &err), 0, "%s", err.msg);
	free(text);
	cr_assert(tx.forfeit[2].seen && !tx.forfeit[1].seen);
	cr_assert_eq(tx.forfeit[2].roll, 37u);
	cr_assert_str_eq(tx.forfeit[2].reason, "illegal");
	cr_assert_str_eq(tx.forfeit[2].replacement, "hard");
	cr_assert_str_eq(tx.forfeit[2].detail, "index 3 refused; legal 0 1");
	cr_assert(tx.forfeit[0].seen && tx.forfeit[0].roll == 0);
	cr_assert_str_eq(tx.forfeit[0].detail, "-");
	kb_tx_free(&tx);
	const char *bad = "kimble-transcript 1\nforfeit E 1 illegal hard -\n";
	cr_assert_eq(kb_tx_parse(bad, strlen(bad), &tx, &err), -1);
	cr_assert(strstr(err.msg, "line 2") && strstr(err.msg, "forfeit SEAT ROLL"), "%s", err.msg);
}
