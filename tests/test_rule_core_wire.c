/* test_rule_core_wire.c - the client protocol of core/wire.h pinned whole
 * (round 5 of make mutate, docs/mutation.md): each client message with the
 * bytes it takes, its type and its whole error text; bytes past the length
 * given never read; the lines the server formats, with their lengths; a
 * bad response line's quoting.  Expectations are written out by hand from
 * wire.h and docs/spec.md. */
#include <criterion/criterion.h>
#include <string.h>

#include "core/wire.h"

#define HEX16 "0123456789abcdef"
#define TOKEN "t" HEX16 HEX16 HEX16 HEX16

/* A client message in a buffer: the bytes given (len of them; the rest of
 * text lies past the length and must not be read), what is taken, the
 * type, and the whole error text of a bad one. */
typedef struct msg_case {
	const char *text;
	size_t len;
	size_t used;
	enum kb_msg_type type;
	const char *why;
} msg_case;

static const msg_case msg_cases[] = {
	{"v001012", 7, 7, KB_MSG_START, ""},
	{"  v001222\n", 10, 9, KB_MSG_START, ""},
	/* a prefix after whitespace: only the whitespace is taken, whatever
	 * lies past the length */
	{"  v001222", 7, 2, KB_MSG_NONE, ""},
	{" \t\r\nv0", 6, 4, KB_MSG_NONE, ""},
	{"\n" TOKEN "3", 40, 1, KB_MSG_NONE, ""},
	{"   ", 3, 3, KB_MSG_NONE, ""},
	{"", 0, 0, KB_MSG_NONE, ""},
	/* a bad message takes all the bytes given when no newline is among
	 * them, never a newline past them */
	{"  xy\nz", 4, 4, KB_MSG_BAD,
	 "byte 0 of the message is 'x': expected a start 'v001XYZ' or a token and piece index"},
	{"  xy\nz", 6, 5, KB_MSG_BAD,
	 "byte 0 of the message is 'x': expected a start 'v001XYZ' or a token and piece index"},
	{"\x01", 1, 1, KB_MSG_BAD,
	 "byte 0 of the message is 0x01: expected a start 'v001XYZ' or a token and piece index"},
	{"V001000", 7, 7, KB_MSG_BAD,
	 "byte 0 of the message is 'V': expected a start 'v001XYZ' or a token and piece index"},
	{"v0x1000\n", 8, 8, KB_MSG_BAD,
	 "byte 2 of the message is 'x': expected the API version digits after 'v'"},
	{"v00/000\n", 8, 8, KB_MSG_BAD,
	 "byte 3 of the message is '/': expected the API version digits after 'v'"},
	{"v002000\nv001000", 15, 8, KB_MSG_BAD,
	 "byte 3 of the message is '2': this server speaks API version 001"},
	{"v009000", 7, 7, KB_MSG_BAD,
	 "byte 3 of the message is '9': this server speaks API version 001"},
	{"v011000", 7, 7, KB_MSG_BAD,
	 "byte 2 of the message is '1': this server speaks API version 001"},
	{"v101000", 7, 7, KB_MSG_BAD,
	 "byte 1 of the message is '1': this server speaks API version 001"},
	{"v001x22\n", 8, 8, KB_MSG_BAD,
	 "byte 4 of the message is 'x': expected an opponent digit 0, 1 or 2"},
	{"v0019", 5, 5, KB_MSG_BAD,
	 "byte 4 of the message is '9': expected an opponent digit 0, 1 or 2"},
	{"v00103", 6, 6, KB_MSG_BAD,
	 "byte 5 of the message is '3': expected an opponent digit 0, 1 or 2"},
	{"v001003", 7, 7, KB_MSG_BAD,
	 "byte 6 of the message is '3': expected an opponent digit 0, 1 or 2"},
	{" " TOKEN "0", 67, 67, KB_MSG_MOVE, ""},
	{TOKEN "3\r\n", 68, 66, KB_MSG_MOVE, ""},
	{TOKEN "3", 65, 0, KB_MSG_NONE, ""},
	{"t0g", 3, 3, KB_MSG_BAD,
	 "byte 2 of the message is 'g': expected a lowercase hexadecimal token digit"},
	{"t0A", 3, 3, KB_MSG_BAD,
	 "byte 2 of the message is 'A': expected a lowercase hexadecimal token digit"},
	{"t0 \n", 4, 4, KB_MSG_BAD,
	 "byte 2 of the message is 0x20: expected a lowercase hexadecimal token digit"},
	{TOKEN "4", 66, 66, KB_MSG_BAD,
	 "byte 65 of the message is '4': expected a piece index 0..3 after the token"},
	{TOKEN "\x7f", 66, 66, KB_MSG_BAD,
	 "byte 65 of the message is 0x7f: expected a piece index 0..3 after the token"},
	{TOKEN "~", 66, 66, KB_MSG_BAD,
	 "byte 65 of the message is '~': expected a piece index 0..3 after the token"},
};

Test(core_rules, wire_messages_whole)
{
	for (size_t i = 0; i < sizeof msg_cases / sizeof *msg_cases; i++) {
		const msg_case *c = &msg_cases[i];
		kb_msg m;
		memset(&m, 0x5a, sizeof m);
		size_t used = kb_msg_scan(c->text, c->len, &m);
		cr_assert_eq(used, c->used, "case %zu: %zu bytes taken", i, used);
		cr_assert_eq(m.type, c->type, "case %zu: type %d", i, (int)m.type);
		cr_assert_str_eq(m.why, c->why, "case %zu", i);
		cr_assert_eq(m.bad_version, strstr(c->why, "API version 001") != NULL, "case %zu", i);
	}
	kb_msg m;
	cr_assert_eq(kb_msg_scan("\tv001210", 8, &m), 8);
	cr_assert(m.lineup[0] == 2 && m.lineup[1] == 1 && m.lineup[2] == 0);
	cr_assert_eq(kb_msg_scan("\n" TOKEN "2", 67, &m), 67);
	cr_assert_str_eq(m.token, TOKEN);
	cr_assert_eq(m.index, 2);
}

/* The lines the server and the clients format, with their lengths. */
Test(core_rules, wire_formatted_lines)
{
	static const uint8_t lineups[][3] = {{0, 0, 0}, {1, 2, 2}, {2, 1, 0}, {19, 10, 21},
						   {9, 9, 9}};
	static const char *const starts[] = {"v001000\n", "v001122\n", "v001210\n", "v001901\n",
					       "v001999\n"};
	char out[64];

	for (size_t k = 0; k < sizeof lineups / sizeof *lineups; k++) {
		memset(out, 'z', sizeof out);
		cr_assert_eq(kb_fmt_start(out, lineups[k]), 8);
		cr_assert_str_eq(out, starts[k]);
	}
	memset(out, 'z', sizeof out);
	cr_assert_eq(kb_fmt_roll_line(out, "0000000000000000000000000000000000000000000D", 3, 1), 47);
	cr_assert_eq(memcmp(out, "0000000000000000000000000000000000000000000DD1\nz", 48), 0);
	memset(out, 'z', sizeof out);
	cr_assert_eq(kb_fmt_winner(out, 0), 12);
	cr_assert_eq(memcmp(out, "Voittaja: A\nz", 13), 0);
}

/* A bad response line is quoted with its control characters and bytes
 * outside ASCII shown as '?', the space and '~' as they are. */
Test(core_rules, wire_bad_line_quoted_printable)
{
	kb_line l;
	kb_err err;

	cr_assert_eq(kb_line_parse("x \x1f~\x7f\x80\x20y", 8, &l, &err), -1);
	cr_assert_str_eq(err.msg, "line \"x ?~?? y\" (8 characters): expected a 46-character state "
				  "line, a token, \"Voittaja: X\", \"Virhe...\" or \"END\"");
}

/* A state line whose seat letter is not A..D is named for its ending, not
 * for its board; a line of a lone CR is the empty line; a valid token is
 * answered with 1. */
Test(core_rules, wire_line_endings_named)
{
	kb_line l;
	kb_err err;

	cr_assert_eq(kb_line_parse("0000000000000000000000000000000000000000000" "0E6", 46, &l, &err), -1);
	cr_assert_str_eq(err.msg, "line \"0000000000000000000000000000000000000000000" "0E6\" (46 characters): "
				  "a state line ends with a seat letter A..D and a die 1..6");
	cr_assert_eq(kb_line_parse("\r", 1, &l, &err), -1);
	cr_assert_str_eq(err.msg, "line \"\" (0 characters): expected a 46-character state line, a token, "
				  "\"Voittaja: X\", \"Virhe...\" or \"END\"");
	cr_assert_eq(kb_token_valid(TOKEN, KB_TOKEN_LEN), 1);
}
