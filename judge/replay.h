/* replay.h - looking at a judged (or served) game again: the board after
 * every roll in the terminal, a rerun from the transcript's seeds with the
 * same bots that stops at the first decision that differs, and pictures.
 */
#ifndef KJ_REPLAY_H
#define KJ_REPLAY_H

#include <stdio.h>

#include "bots.h"
#include "core/transcript.h"
#include "match.h"

/* Print roll after roll: a header line "roll N: X rolls D, moves piece I
 * (how)" and the board before the move.  at > 0: only roll at.  step: wait
 * for a line on stdin before each roll.  Returns 0, or -1 when at is past
 * the last roll. */
int kj_replay_print(FILE *out, const kb_transcript *tx, uint32_t at, int step, int color);

/* Play the transcript's game again with bots[s] in the seats whose
 * transcript control is external (the others are built-ins), learning
 * frozen, and compare roll by roll.  Messages go to out: a line per seat
 * with a recorded fingerprint saying whether its learned state changed
 * since (kj_bot_fingerprint now against the transcript's), and the first
 * roll that differs.  Returns 0 when the whole game agrees, 1 when it differs, -1
 * with err when the game cannot be played. */
int kj_rerun(FILE *out, const kb_transcript *tx, const kj_bot *const bots[KB_SEATS],
	     const kj_match_opts *opt, kb_err *err);

/* The board string of the position before roll n (1-based) of tx; n =
 * nrolls + 1 gives the final position (reconstructed by playing the last
 * roll; an index that roll cannot play, only in a hand-edited transcript,
 * leaves its board as it is; a game of no rolls ends where it started).
 * Returns 0, or -1 when n is out of range. */
int kj_tx_board(const kb_transcript *tx, uint32_t n, char board[KB_BOARD_LEN], int *seat,
		int *die);

/* Presence mask of a transcript's seats. */
unsigned kj_tx_present(const kb_transcript *tx);

/* Seat s's display name: its player's name, else its built-in policy. */
const char *kj_tx_seat_name(const kb_transcript *tx, int s);

#endif
