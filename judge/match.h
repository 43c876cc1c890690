/* match.h - one refereed game: the judge as the Kimble server over pipes.
 *
 * Every process bot is started for the game, sends v001XYZ, then gets, as a
 * server would send it to a client in seat A, its token line and every
 * state line since its last response (rotated to its own point of view)
 * up to its decision line and END; it answers token+index.  An illegal
 * index or a wrong token gets the decision line again (or Virhe) up to
 * max_errors times, then forfeits; a timeout, an early exit, a crash or
 * output that is not a move forfeit at once, and so does a bot whose
 * command cannot be run at all (nostart).  A confined bot that has
 * written more than its write budget in this run (proc.h; checked at each
 * decision, every KJ_CHARGE_MS while the judge waits for it, and when it
 * ends) forfeits at once, and every
 * later game before the first roll, without being started (write).  A forfeiting bot's seat is
 * played on by the hard policy (its replacement) so the game still counts,
 * and the bot is placed last: a forfeit is a loss.  If the replacement
 * brings the seat's pieces home first, the game has no credited winner
 * (res->winner -1, res->finished that seat).  The forfeit is recorded in
 * the transcript as a "forfeit" record (core/transcript.h) and in the
 * seat's result: the roll and a detail text (the refused index and the
 * legal ones, the exit status, the system's error).  At the end each bot still running gets the remaining state
 * lines, "Voittaja: X" and END; its stdin is closed and it is killed 500 ms
 * later if still running.
 *
 * Finishing place: the winner is 1st; every other seat is ranked by its
 * progress score, the sum over its pieces of progress+1 (home 0, a piece in
 * the last goal square 32), higher first, equal scores sharing a place;
 * forfeited bots come after all others.
 */
#ifndef KJ_MATCH_H
#define KJ_MATCH_H

#include <stdint.h>
#include <stdio.h>

#include "bots.h"
#include "core/rules.h"
#include "core/wire.h"
#include "proc.h"
#include "result.h"

#define KJ_CHARGE_MS 50 /* the longest wait between two looks at a bot's writes */

typedef struct kj_match_opts {
	int move_ms;       /* per decision */
	int startup_ms;    /* until v001XYZ */
	int max_errors;    /* illegal indices / wrong tokens tolerated */
	int grace_ms;      /* after END before the kill */
	int timing;        /* 0: write 0 for every time (byte-identical output) */
	kj_limits limits;
	FILE *debug;       /* every line sent and received, or NULL */
	const char *err_prefix; /* kept stderr goes to PREFIX.X.err, or NULL */
	int has_start;     /* start from pos with seat start_turn, die start_die */
	kb_pos start;
	int start_turn, start_die;
	/* A rerun: stop at the first roll that differs from this transcript
	 * (the game then ends unfinished, winner -1), or NULL. */
	const struct kb_transcript *expect;
} kj_match_opts;

/* Play one game seeded seed with seats[s] in seat s (NULL: absent),
 * writing its transcript to tx (may be NULL); res->deal is left 0 for the caller.  Returns 0 with res filled,
 * or -1 with err set when seat A is absent (NULL), a bot could not be started at all, the start
 * position is unsound or memory ran out ("game SEED: out of memory") (bots that misbehave are
 * results, not errors). */
int kj_match_play(const kj_bot *const seats[KB_SEATS], uint64_t seed, const kj_match_opts *opt,
		  FILE *tx, kj_result *res, kb_err *err);

/* The token of seat s in game seed ('t' + 64 hex + NUL). */
void kj_token(uint64_t seed, int s, char out[KB_TOKEN_LEN + 1]);

/* The SEED argument of the bot in seat s of game seed. */
uint64_t kj_bot_seed(uint64_t seed, int s);

#endif
