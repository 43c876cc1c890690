/* wire.h - the Kimble client protocol, API 001 (docs/spec.md section 3).
 *
 * Client messages are recognised by content and length in a byte stream:
 * whitespace between messages is skipped and line ends are optional.
 *   start  "v001XYZ"          X, Y, Z in 0..2 choose seats B, C, D
 *   move   TOKEN DIGIT        TOKEN is 't' + 64 lowercase hex, DIGIT 0..3
 * Server responses are lines ending in '\n', each response closed by "END":
 *   TOKEN                     first line of a start response
 *   BOARD SEAT DIE            a 46-character roll line, the protocol's "state
 *                             line" (board before the roll, roller, die)
 *   "Voittaja: X"             the game is over, X won
 *   "Virhe..."                an error
 *   "END"
 * Nothing here allocates; parsers never read past the length given.
 */
#ifndef KB_WIRE_H
#define KB_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "board.h"

#define KB_API "001"
#define KB_PORT_FIRST 65430
#define KB_PORT_LAST 65439
#define KB_TOKEN_LEN 65          /* 't' + 64 hex */
#define KB_START_LEN 7           /* "v001XYZ" */
#define KB_MOVE_LEN 66           /* token + digit */
#define KB_ROLL_LINE_LEN 46      /* board + seat letter + die digit */
#define KB_TOKEN_TTL 120         /* seconds a token lives unused */

/* Error lines the server sends (each followed by "END"). */
#define KB_VIRHE_TOKEN "Virhe: tuntematon pelitoken"
#define KB_VIRHE_VERSION "Virhe: tuntematon API-versio"
#define KB_VIRHE_MESSAGE "Virhe: tuntematon viesti"
#define KB_VIRHE_TOO_LONG "Virhe: liian pitka viesti"

enum kb_msg_type {
	KB_MSG_NONE = 0, /* nothing complete yet: read more */
	KB_MSG_START,
	KB_MSG_MOVE,
	KB_MSG_BAD       /* not a message; why says what was expected */
};

typedef struct kb_msg {
	enum kb_msg_type type;
	uint8_t lineup[3];            /* START: digits of seats B, C, D */
	char token[KB_TOKEN_LEN + 1]; /* MOVE: the token, NUL-terminated */
	int index;                    /* MOVE: piece index 0..3 */
	int bad_version;              /* BAD: 1 if a start with another API */
	char why[128];                /* BAD: what was wrong */
} kb_msg;

/* Whitespace, which may stand between client messages: space, tab, CR, LF. */
static inline int kb_msg_is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* The number of whitespace bytes at the start of buf[0..len). */
size_t kb_msg_space(const char *buf, size_t len);

/* Scan the next client message from buf[0..len).  Returns the number of
 * bytes consumed (leading whitespace, the message itself; for a BAD message
 * everything up to and including the next '\n', or all of buf when there is
 * none).  msg->type is KB_MSG_NONE when buf holds only whitespace or the
 * prefix of a message (then nothing but whitespace is consumed). */
size_t kb_msg_scan(const char *buf, size_t len, kb_msg *msg);

/* 1 if s[0..KB_TOKEN_LEN) is a well-formed token. */
int kb_token_valid(const char *s, size_t len);

/* Format "v001XYZ\n" into out (9 bytes); returns its length 8.  Each of X,
 * Y, Z is its lineup value's last decimal digit (lineup[k] % 10). */
int kb_fmt_start(char out[9], const uint8_t lineup[3]);

/* Format a roll line with '\n' into out (47 bytes); returns 47. */
int kb_fmt_roll_line(char out[KB_ROLL_LINE_LEN + 1], const char board[KB_BOARD_LEN],
		 int seat, int die);

/* Format "Voittaja: X\n" (12 bytes); returns 12. */
int kb_fmt_winner(char out[12], int seat);

/* Server response lines as a client reads them. */
enum kb_line_type {
	KB_LINE_TOKEN = 1,
	KB_LINE_ROLL,
	KB_LINE_WINNER,
	KB_LINE_ERROR,
	KB_LINE_END
};

typedef struct kb_line {
	enum kb_line_type type;
	char token[KB_TOKEN_LEN + 1];  /* TOKEN */
	char board[KB_BOARD_LEN];      /* ROLL */
	int seat;                      /* ROLL: roller; WINNER: winner */
	int die;                       /* ROLL */
	size_t len;                    /* characters without the '\r' */
} kb_line;

/* Classify one response line (without its '\n'; a trailing '\r' is
 * ignored).  Returns 0, or -1 with err naming the line and what was
 * expected.  A roll line's board characters are checked here; whether
 * the board is one a game can show is kb_board_parse()'s business. */
int kb_line_parse(const char *line, size_t len, kb_line *out, kb_err *err);

#endif
