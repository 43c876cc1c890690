/* wire.c - client messages and response lines; see wire.h. */
#include <stdio.h>
#include <string.h>

#include "wire.h"

static int is_hex(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

int kb_token_valid(const char *s, size_t len)
{
	if (len < KB_TOKEN_LEN || s[0] != 't')
		return 0;
	for (int i = 1; i < KB_TOKEN_LEN; i++)
		if (!is_hex((unsigned char)s[i]))
			return 0;
	return 1;
}

/* Bytes of a bad message: through the next newline, or all there is. */
static size_t bad(const char *p, size_t n, kb_msg *msg, const char *why, int at, int c)
{
	const char *nl = memchr(p, '\n', n);
	char shown[8];

	if (c >= 0x21 && c < 0x7f)
		snprintf(shown, sizeof shown, "'%c'", c);
	else
		snprintf(shown, sizeof shown, "0x%02x", c & 0xff);
	msg->type = KB_MSG_BAD;
	snprintf(msg->why, sizeof msg->why, "byte %d of the message is %s: %s", at, shown, why);
	return nl ? (size_t)(nl - p) + 1 : n;
}

static size_t scan_start(const char *p, size_t n, kb_msg *msg)
{
	for (size_t i = 1; i < n && i < KB_START_LEN; i++) {
		int c = (unsigned char)p[i];
		if (i <= 3 && (c < '0' || c > '9'))
			return bad(p, n, msg, "expected the API version digits after 'v'", (int)i, c);
		if (i == 3 && memcmp(p, "v" KB_API, 4) != 0) {
			/* name the first digit that differs from 001 */
			int at = 1;
			while (p[at] == KB_API[at - 1])
				at++;
			size_t used = bad(p, n, msg, "this server speaks API version 001", at, p[at]);
			msg->bad_version = 1;
			return used;
		}
		if (i >= 4 && (c < '0' || c > '2'))
			return bad(p, n, msg, "expected an opponent digit 0, 1 or 2", (int)i, c);
	}
	if (n < KB_START_LEN)
		return 0;
	msg->type = KB_MSG_START;
	for (int k = 0; k < 3; k++)
		msg->lineup[k] = (uint8_t)(p[4 + k] - '0');
	return KB_START_LEN;
}

static size_t scan_move(const char *p, size_t n, kb_msg *msg)
{
	for (size_t i = 1; i < n && i < KB_MOVE_LEN; i++) {
		int c = (unsigned char)p[i];
		if (i < KB_TOKEN_LEN && !is_hex(c))
			return bad(p, n, msg, "expected a lowercase hexadecimal token digit", (int)i, c);
		if (i == KB_TOKEN_LEN && (c < '0' || c > '3'))
			return bad(p, n, msg, "expected a piece index 0..3 after the token", (int)i, c);
	}
	if (n < KB_MOVE_LEN)
		return 0;
	msg->type = KB_MSG_MOVE;
	memcpy(msg->token, p, KB_TOKEN_LEN);
	msg->token[KB_TOKEN_LEN] = '\0';
	msg->index = p[KB_TOKEN_LEN] - '0';
	return KB_MOVE_LEN;
}

size_t kb_msg_space(const char *buf, size_t len)
{
	size_t n = 0;

	while (n < len && kb_msg_is_space((unsigned char)buf[n]))
		n++;
	return n;
}

size_t kb_msg_scan(const char *buf, size_t len, kb_msg *msg)
{
	size_t skip = kb_msg_space(buf, len), used;

	memset(msg, 0, sizeof *msg);
	if (skip == len)
		return skip;
	switch (buf[skip]) {
	case 'v':
		used = scan_start(buf + skip, len - skip, msg);
		break;
	case 't':
		used = scan_move(buf + skip, len - skip, msg);
		break;
	default:
		used = bad(buf + skip, len - skip, msg,
			   "expected a start 'v001XYZ' or a token and piece index", 0,
			   (unsigned char)buf[skip]);
	}
	return skip + used;
}

int kb_fmt_start(char out[9], const uint8_t lineup[3])
{
	return snprintf(out, 9, "v%s%u%u%u\n", KB_API, lineup[0] % 10u,
			lineup[1] % 10u, lineup[2] % 10u);
}

int kb_fmt_roll_line(char out[KB_ROLL_LINE_LEN + 1], const char board[KB_BOARD_LEN],
		 int seat, int die)
{
	memcpy(out, board, KB_BOARD_LEN);
	out[KB_BOARD_LEN] = (char)('A' + seat);
	out[KB_BOARD_LEN + 1] = (char)('0' + die);
	out[KB_ROLL_LINE_LEN] = '\n';
	return KB_ROLL_LINE_LEN + 1;
}

int kb_fmt_winner(char out[12], int seat)
{
	memcpy(out, "Voittaja: ", 10);
	out[10] = (char)('A' + seat);
	out[11] = '\n';
	return 12;
}

static int line_err(kb_err *err, const char *line, size_t len, const char *what)
{
	if (err) {
		int shown = len > 60 ? 60 : (int)len;
		snprintf(err->msg, sizeof err->msg, "line \"%.*s%s\" (%zu characters): %s",
			 shown, line, len > 60 ? "..." : "", len, what);
		for (char *c = err->msg; *c; c++)
			if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
				*c = '?';
	}
	return -1;
}

int kb_line_parse(const char *line, size_t len, kb_line *out, kb_err *err)
{
	memset(out, 0, sizeof *out);
	if (len > 0 && line[len - 1] == '\r')
		len--;
	out->len = len;
	if (len == 3 && memcmp(line, "END", 3) == 0) {
		out->type = KB_LINE_END;
		return 0;
	}
	if (len >= 5 && memcmp(line, "Virhe", 5) == 0) {
		out->type = KB_LINE_ERROR;
		return 0;
	}
	if (len >= 10 && memcmp(line, "Voittaja: ", 10) == 0) {
		if (len != 11 || line[10] < 'A' || line[10] > 'D')
			return line_err(err, line, len, "expected \"Voittaja: \" and a seat letter A..D");
		out->type = KB_LINE_WINNER;
		out->seat = line[10] - 'A';
		return 0;
	}
	if (len > 0 && line[0] == 't') {
		if (len != KB_TOKEN_LEN || !kb_token_valid(line, len))
			return line_err(err, line, len, "expected a token: 't' and 64 lowercase hex digits");
		out->type = KB_LINE_TOKEN;
		memcpy(out->token, line, KB_TOKEN_LEN);
		return 0;
	}
	if (len != KB_ROLL_LINE_LEN)
		return line_err(err, line, len,
				"expected a 46-character state line, a token, \"Voittaja: X\", \"Virhe...\" or \"END\"");
	for (int i = 0; i < KB_BOARD_LEN; i++)
		if (line[i] != '0' && (line[i] < 'A' || line[i] > 'D'))
			return line_err(err, line, len, "board characters must be 0, A, B, C or D");
	if (line[44] < 'A' || line[44] > 'D' || line[45] < '1' || line[45] > '6')
		return line_err(err, line, len, "a state line ends with a seat letter A..D and a die 1..6");
	out->type = KB_LINE_ROLL;
	memcpy(out->board, line, KB_BOARD_LEN);
	out->seat = line[44] - 'A';
	out->die = line[45] - '0';
	return 0;
}
