/* test_wire.c - client messages and response lines of API 001. */
#include <criterion/criterion.h>
#include <string.h>

#include "core/wire.h"

#define TOKEN "t0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

Test(wire, start_with_and_without_line_end)
{
	kb_msg m;
	cr_assert_eq(kb_msg_scan("v001102", 7, &m), 7u);
	cr_assert_eq(m.type, KB_MSG_START);
	cr_assert_eq(m.lineup[0], 1);
	cr_assert_eq(m.lineup[1], 0);
	cr_assert_eq(m.lineup[2], 2);
	cr_assert_eq(kb_msg_scan("\r\nv001222\r\n", 11, &m), 9u);
	cr_assert_eq(m.type, KB_MSG_START);
}

Test(wire, move_with_crlf_and_back_to_back)
{
	const char *two = TOKEN "2" TOKEN "0\r\n";
	kb_msg m;
	size_t used = kb_msg_scan(two, strlen(two), &m);
	cr_assert_eq(used, 66u);
	cr_assert_eq(m.type, KB_MSG_MOVE);
	cr_assert_str_eq(m.token, TOKEN);
	cr_assert_eq(m.index, 2);
	cr_assert_eq(kb_msg_scan(two + used, strlen(two) - used, &m), 66u);
	cr_assert_eq(m.index, 0);
}

Test(wire, prefixes_wait_for_more)
{
	kb_msg m;
	for (size_t n = 1; n < 7; n++) {
		cr_assert_eq(kb_msg_scan("v001222", n, &m), 0u);
		cr_assert_eq(m.type, KB_MSG_NONE);
	}
	const char *mv = TOKEN "3";
	for (size_t n = 1; n < 66; n++) {
		cr_assert_eq(kb_msg_scan(mv, n, &m), 0u, "prefix %zu", n);
		cr_assert_eq(m.type, KB_MSG_NONE);
	}
	/* only the bytes received are judged, not what lies after them */
	char buf[80];
	memset(buf, 'Z', sizeof buf);
	memcpy(buf, mv, 10);
	for (size_t n = 1; n <= 10; n++)
		cr_assert_eq(kb_msg_scan(buf, n, &m), 0u, "prefix %zu before garbage", n);
	cr_assert_eq(kb_msg_scan("  \n", 3, &m), 3u, "whitespace is consumed");
	cr_assert_eq(m.type, KB_MSG_NONE);
}

Test(wire, bad_messages_name_what_was_expected)
{
	kb_msg m;
	cr_assert_eq(kb_msg_scan("v002000\nv001000", 15, &m), 8u);
	cr_assert_eq(m.type, KB_MSG_BAD);
	cr_assert(m.bad_version);
	cr_assert(strstr(m.why, "001"), "%s", m.why);
	cr_assert_eq(kb_msg_scan("v001300", 7, &m), 7u);
	cr_assert_eq(m.type, KB_MSG_BAD);
	cr_assert(strstr(m.why, "opponent digit"), "%s", m.why);
	cr_assert_eq(kb_msg_scan("hello", 5, &m), 5u, "no newline: all of it");
	cr_assert_eq(m.type, KB_MSG_BAD);
	cr_assert(strstr(m.why, "'h'"), "%s", m.why);
	const char *upper = "t0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef1";
	cr_assert_eq(kb_msg_scan(upper, strlen(upper), &m), strlen(upper));
	cr_assert_eq(m.type, KB_MSG_BAD);
	cr_assert(strstr(m.why, "byte 11"), "%s", m.why);
	cr_assert_eq(kb_msg_scan(TOKEN "4\n", 67, &m), 67u);
	cr_assert_eq(m.type, KB_MSG_BAD, "index 4 is not a move");
}

Test(wire, token_validity)
{
	cr_assert(kb_token_valid(TOKEN, 65));
	cr_assert(!kb_token_valid(TOKEN, 64));
	cr_assert(!kb_token_valid("x0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", 65));
}

Test(wire, format_lines)
{
	char st[KB_ROLL_LINE_LEN + 1], w[12], s[9];
	const uint8_t lineup[3] = {1, 0, 2};
	kb_fmt_roll_line(st, "A0000000000000000000000000000000000000000000", 2, 6);
	cr_assert_eq(memcmp(st, "A0000000000000000000000000000000000000000000C6\n", 47), 0);
	kb_fmt_winner(w, 3);
	cr_assert_eq(memcmp(w, "Voittaja: D\n", 12), 0);
	cr_assert_eq(kb_fmt_start(s, lineup), 8);
	cr_assert_str_eq(s, "v001102\n");
}

Test(wire, parse_response_lines)
{
	kb_line l;
	kb_err err;
	cr_assert_eq(kb_line_parse(TOKEN, 65, &l, &err), 0);
	cr_assert_eq(l.type, KB_LINE_TOKEN);
	cr_assert_eq(kb_line_parse("END\r", 4, &l, &err), 0);
	cr_assert_eq(l.type, KB_LINE_END);
	cr_assert_eq(l.len, 3, "the length without the '\\r'");
	cr_assert_eq(kb_line_parse("Voittaja: B", 11, &l, &err), 0);
	cr_assert_eq(l.type, KB_LINE_WINNER);
	cr_assert_eq(l.seat, 1);
	cr_assert_eq(kb_line_parse("Virhe: tuntematon pelitoken", 27, &l, &err), 0);
	cr_assert_eq(l.type, KB_LINE_ERROR);
	const char *st = "A000000B000000C000000D0000000000000000000000D5";
	cr_assert_eq(kb_line_parse(st, 46, &l, &err), 0);
	cr_assert_eq(l.type, KB_LINE_ROLL);
	cr_assert_eq(l.seat, 3);
	cr_assert_eq(l.die, 5);
	cr_assert_eq(kb_line_parse(st, 45, &l, &err), -1);
	cr_assert(strstr(err.msg, "45 characters"), "%s", err.msg);
	cr_assert_eq(kb_line_parse("A000000B000000C000000D0000000000000000000000D7", 46, &l, &err), -1);
	cr_assert(strstr(err.msg, "die 1..6"), "%s", err.msg);
	cr_assert_eq(kb_line_parse("Voittaja: E", 11, &l, &err), -1);
}
