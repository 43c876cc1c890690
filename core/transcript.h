/* transcript.h - the plain-text game transcript that the server writes per
 * game (--log-dir), the judge writes per game, and the judge's replay reads.
 *
 * Format, version 1: UTF-8 text, one record a line, fields separated by one
 * space; seats are absolute (the server's point of view, A = the client).
 *
 *   kimble-transcript 1                 first line, always
 *   seed S                              the game seed (rng.h), decimal
 *   seats CA CB CC CD                   absent|easy|hard|random|external
 *   name X WORD                         player name of seat X (optional)
 *   fingerprint X HEX                   learned state seat X started with (optional)
 *   start BOARD X D                     game started from BOARD, seat X rolls
 *                                       first, with die D (0: from its dice)
 *   roll N STATELINE I HOW              the N-th roll (1-based): the 46-char
 *                                       state line as sent, the index moved
 *                                       (- for none), HOW = pass|auto|builtin|decided
 *   msg X MS TEXT                       bytes seat X's player sent, MS
 *                                       milliseconds after the game started
 *                                       (3 decimals), TEXT escaped: \\ and
 *                                       \xHH for bytes outside 0x21..0x7e
 *   note TEXT                           free text (forfeits, timeouts, ...)
 *   forfeit X N REASON REPL DETAIL      the player of seat X forfeited during
 *                                       roll N (0: before the first roll) for
 *                                       REASON (one word: illegal, timeout,
 *                                       nostart, ...); the built-in REPL
 *                                       played the seat on; DETAIL is free
 *                                       text (the refused index and the
 *                                       legal ones, the system's error)
 *   end X N REASON                      credited winner letter (- when
 *                                       unfinished or when the seat that
 *                                       finished first had forfeited), rolls
 *                                       played, reason word(s): "win",
 *                                       "unfinished shutdown", ...
 *
 * Readers skip blank lines and record kinds they do not know, so later
 * versions can add records; a known record that is malformed is an error.
 * (The forfeit record was added within version 1: older readers skip it.)
 */
#ifndef KB_TRANSCRIPT_H
#define KB_TRANSCRIPT_H

#include <stdint.h>
#include <stdio.h>

#include "board.h"
#include "game.h"
#include "wire.h"

#define KB_TX_VERSION 1

typedef struct kb_tx_roll {
	uint32_t n;                 /* 1-based roll number */
	char line[KB_ROLL_LINE_LEN];    /* board + seat letter + die digit */
	int index;                  /* -1: no move */
	enum kb_how how;
} kb_tx_roll;

typedef struct kb_tx_msg {
	int seat;
	double ms;
	uint32_t after_roll;        /* rolls recorded before this message */
	char text[96];              /* unescaped, NUL-terminated, truncated */
} kb_tx_msg;

typedef struct kb_tx_forfeit {
	int seen;                   /* a forfeit record for this seat was read */
	uint32_t roll;
	char reason[16];
	char replacement[16];
	char detail[256];
} kb_tx_forfeit;

typedef struct kb_transcript {
	int version;
	uint64_t seed;
	uint8_t ctl[KB_SEATS];      /* enum kb_policy */
	char name[KB_SEATS][64];
	char fingerprint[KB_SEATS][40];
	int has_start;
	char start_board[KB_BOARD_LEN];
	int start_turn, start_die;
	kb_tx_roll *rolls;
	size_t nrolls, cap_rolls;
	kb_tx_msg *msgs;
	size_t nmsgs, cap_msgs;
	kb_tx_forfeit forfeit[KB_SEATS];
	int ended;                  /* an end record was read */
	int winner;                 /* seat, or -1 */
	uint32_t end_rolls;
	char reason[128];
} kb_transcript;

/* Writers.  Each writes one record and returns 0, or -1 on a write error
 * (errno set); they do not flush. */
int kb_tx_write_header(FILE *f, uint64_t seed, const uint8_t ctl[KB_SEATS]);
int kb_tx_write_name(FILE *f, int seat, const char *name);
int kb_tx_write_fingerprint(FILE *f, int seat, const char *hex);
int kb_tx_write_start(FILE *f, const kb_pos *pos, int turn, int die);
int kb_tx_write_roll(FILE *f, uint32_t n, const kb_roll *roll);
int kb_tx_write_msg(FILE *f, int seat, double ms, const char *bytes, size_t len);
int kb_tx_write_note(FILE *f, const char *text);
int kb_tx_write_forfeit(FILE *f, int seat, uint32_t roll, const char *reason,
			const char *replacement, const char *detail);
int kb_tx_write_end(FILE *f, int winner, uint32_t rolls, const char *reason);

/* Read a whole transcript.  Returns 0, or -1 with err naming the line
 * number and what was expected (not a transcript, unknown version, a
 * malformed record, rolls out of order, out of memory).  On success free
 * the result with kb_tx_free(). */
int kb_tx_read(FILE *f, kb_transcript *tx, kb_err *err);

/* Parse a transcript held in memory (same rules as kb_tx_read). */
int kb_tx_parse(const char *text, size_t len, kb_transcript *tx, kb_err *err);

/* Free what kb_tx_read or kb_tx_parse allocated and leave tx empty (no
 * rolls, no messages), so that freeing it again is harmless. */
void kb_tx_free(kb_transcript *tx);

/* Name of a kb_how ("pass", "auto", "builtin", "decided"). */
const char *kb_how_name(enum kb_how how);

#endif
