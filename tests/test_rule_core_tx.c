/* test_rule_core_tx.c - the transcript format of core/transcript.h, record
 * by record: the whole text each writer puts out, a writer's failure at
 * every byte, what the reader keeps of each field, and the error it names
 * for each malformed record (round 5 of make mutate, docs/mutation.md).
 * Every expectation is written out by hand from transcript.h. */
#include <criterion/criterion.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/transcript.h"
#include "support.h"

#define ZEROS10 "0000000000"
/* An empty board (44 characters), and one with A on ring square 0, B on
 * ring square 7 and D on its last goal square. */
#define EMPTY_BOARD ZEROS10 ZEROS10 ZEROS10 ZEROS10 "0000"
#define SOME_BOARD "A000000B00" ZEROS10 ZEROS10 ZEROS10 "000D"

/* Every writer once, at the ends of its fields' ranges: the whole text. */
Test(core_rules, transcript_writers_whole_text)
{
	static const char want[] =
		"kimble-transcript 1\n"
		"seed 18446744073709551615\n"
		"seats external random hard absent\n"
		"kimble-transcript 1\n"
		"seed 0\n"
		"seats absent easy ? ?\n"
		"name B a_b_c__~\x80\n"
		"name C _\n"
		"fingerprint D -\n"
		"fingerprint A ab_cd\n"
		"start " SOME_BOARD " D 0\n"
		"start " EMPTY_BOARD " A 6\n"
		"roll 4294967295 " SOME_BOARD "D6 3 decided\n"
		"roll 1 " EMPTY_BOARD "A1 - pass\n"
		"roll 2 " EMPTY_BOARD "B2 0 auto\n"
		"roll 3 " EMPTY_BOARD "C3 1 builtin\n"
		"msg D 12.346 \\\\\\x20!~\\x7f\\x80\\x00a\n"
		"msg A 0.000 \n"
		"note two words_and_ kept\n"
		"forfeit D 0 - - -\n"
		"forfeit A 4294967295 time_out ha_rd x_y z\n"
		"end D 12 win by forfeit\n"
		"end - 0 unfinished_ shutdown\n";
	uint8_t ctl[4] = {KB_EXTERNAL, KB_RANDOM, KB_HARD, KB_ABSENT};
	uint8_t odd[4] = {KB_ABSENT, KB_EASY, 5, 255};
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	kb_pos pos, empty;
	kb_roll roll = {.seat = 3, .die = 6, .index = 3, .how = KB_DECIDED};

	cr_assert_eq(kb_board_parse(SOME_BOARD, KB_BOARD_LEN, 0xf, &pos, NULL), 0);
	cr_assert_eq(kb_board_parse(EMPTY_BOARD, KB_BOARD_LEN, 0xf, &empty, NULL), 0);
	cr_assert_eq(kb_tx_write_header(f, UINT64_MAX, ctl), 0);
	cr_assert_eq(kb_tx_write_header(f, 0, odd), 0);
	cr_assert_eq(kb_tx_write_name(f, 1, "a b\tc\x7f\x1f~\x80"), 0);
	cr_assert_eq(kb_tx_write_name(f, 2, ""), 0);
	cr_assert_eq(kb_tx_write_fingerprint(f, 3, ""), 0);
	cr_assert_eq(kb_tx_write_fingerprint(f, 0, "ab cd"), 0);
	cr_assert_eq(kb_tx_write_start(f, &pos, 3, 0), 0);
	cr_assert_eq(kb_tx_write_start(f, &empty, 0, 6), 0);
	memcpy(roll.board, SOME_BOARD, KB_BOARD_LEN);
	cr_assert_eq(kb_tx_write_roll(f, UINT32_MAX, &roll), 0);
	memcpy(roll.board, EMPTY_BOARD, KB_BOARD_LEN);
	for (int k = 0; k < 3; k++) {
		roll.seat = k, roll.die = k + 1, roll.index = k - 1, roll.how = (enum kb_how)k;
		cr_assert_eq(kb_tx_write_roll(f, (uint32_t)k + 1, &roll), 0);
	}
	cr_assert_eq(kb_tx_write_msg(f, 3, 12.3456, "\\ !~\x7f\x80\0a", 8), 0);
	cr_assert_eq(kb_tx_write_msg(f, 0, 0, "", 0), 0);
	cr_assert_eq(kb_tx_write_note(f, "two words\tand\x01 kept"), 0);
	cr_assert_eq(kb_tx_write_forfeit(f, 3, 0, "", "", ""), 0);
	cr_assert_eq(kb_tx_write_forfeit(f, 0, UINT32_MAX, "time out", "ha rd", "x\ty z"), 0);
	cr_assert_eq(kb_tx_write_end(f, 3, 12, "win by forfeit"), 0);
	cr_assert_eq(kb_tx_write_end(f, -1, 0, "unfinished\n shutdown"), 0);
	fclose(f);
	cr_assert_str_eq(text, want);
	free(text);
}

/* A stream that takes limit bytes and fails every write that would go
 * past them, as a full device does. */
typedef struct capped {
	char text[512];
	size_t len, limit;
} capped;

static ssize_t capped_write(void *cookie, const char *buf, size_t size)
{
	capped *c = cookie;

	if (c->len + size > c->limit)
		return -1;
	memcpy(c->text + c->len, buf, size);
	c->len += size;
	c->text[c->len] = '\0';
	return (ssize_t)size;
}

static FILE *capped_open(capped *c, size_t limit)
{
	cookie_io_functions_t io = {.write = capped_write};
	FILE *f;

	memset(c, 0, sizeof *c);
	c->limit = limit;
	f = fopencookie(c, "w", io);
	cr_assert_not_null(f);
	setvbuf(f, NULL, _IONBF, 0);
	return f;
}

enum { W_HEADER, W_NAME, W_FINGERPRINT, W_START, W_ROLL, W_MSG, W_NOTE, W_FORFEIT, W_END, W_KINDS };

/* Write one record of kind k to f. */
static int write_kind(FILE *f, int k)
{
	static const uint8_t ctl[4] = {KB_EASY, KB_HARD, KB_RANDOM, KB_EXTERNAL};
	kb_roll roll = {.seat = 1, .die = 5, .index = 2, .how = KB_AUTO};
	kb_pos pos;

	memcpy(roll.board, EMPTY_BOARD, KB_BOARD_LEN);
	kb_board_parse(EMPTY_BOARD, KB_BOARD_LEN, 0xf, &pos, NULL);
	switch (k) {
	case W_HEADER: return kb_tx_write_header(f, 42, ctl);
	case W_NAME: return kb_tx_write_name(f, 0, "bob");
	case W_FINGERPRINT: return kb_tx_write_fingerprint(f, 1, "c0ffee");
	case W_START: return kb_tx_write_start(f, &pos, 2, 4);
	case W_ROLL: return kb_tx_write_roll(f, 9, &roll);
	case W_MSG: return kb_tx_write_msg(f, 3, 1.5, "ab\\ c", 5);
	case W_NOTE: return kb_tx_write_note(f, "a note");
	case W_FORFEIT: return kb_tx_write_forfeit(f, 2, 3, "illegal", "hard", "index 4");
	default: return kb_tx_write_end(f, 1, 30, "win");
	}
}

/* Each writer answers -1 when any byte of its record cannot be written
 * (whichever of its output calls meets the full device), and 0 with the
 * whole record written when the device holds it exactly. */
Test(core_rules, transcript_writers_fail_at_every_byte)
{
	static const char *const want[W_KINDS] = {
		"kimble-transcript 1\nseed 42\nseats easy hard random external\n",
		"name A bob\n",
		"fingerprint B c0ffee\n",
		"start " EMPTY_BOARD " C 4\n",
		"roll 9 " EMPTY_BOARD "B5 2 auto\n",
		"msg D 1.500 ab\\\\\\x20c\n",
		"note a note\n",
		"forfeit C 3 illegal hard index 4\n",
		"end B 30 win\n",
	};
	capped c;

	for (int k = 0; k < W_KINDS; k++) {
		size_t len = strlen(want[k]);
		for (size_t limit = 0; limit < len; limit++) {
			FILE *f = capped_open(&c, limit);
			cr_assert_eq(write_kind(f, k), -1, "%s with room for %zu bytes", want[k], limit);
			fclose(f);
		}
		FILE *f = capped_open(&c, len);
		cr_assert_eq(write_kind(f, k), 0, "%s", want[k]);
		fclose(f);
		cr_assert_str_eq(c.text, want[k]);
	}
}

/* Every record kind read back, each field at the ends of its range; blank
 * lines, a CR before the newline and unknown kinds skipped. */
Test(core_rules, transcript_reader_keeps_every_field)
{
	static const char text[] =
		"kimble-transcript 1\r\n"
		"seed 18446744073709551615\n"
		"\n"
		"seats external easy absent random\n"
		"name D bob\n"
		"fingerprint C 0a1b\r\n"
		"names A x\n"
		"start " SOME_BOARD " D 0\n"
		"roll 1 " EMPTY_BOARD "A6 - pass\n"
		"roll 2 " EMPTY_BOARD "B1 3 auto\n"
		"msg D 1000000000000000 \\x41\\\\B\\x7e \\x20x\n"
		"roll 3 " EMPTY_BOARD "C2 0 builtin\n"
		"roll 4 " SOME_BOARD "D3 2 decided\n"
		"msg A 0\n"
		"forfeit D 4294967295 timeout easy\n"
		"forfeit A 0 illegal hard index 4 refused\n"
		"note whatever it says\n"
		"endx 1 2\n"
		"end D 4 win by forfeit\n";
	static const char *const lines[4] = {EMPTY_BOARD "A6", EMPTY_BOARD "B1", EMPTY_BOARD "C2",
					     SOME_BOARD "D3"};
	static const int index[4] = {-1, 3, 0, 2};
	kb_transcript tx;
	kb_err err = {{0}};

	cr_assert_eq(kb_tx_parse(text, sizeof text - 1, &tx, &err), 0, "%s", err.msg);
	cr_assert_eq(tx.version, 1);
	cr_assert_eq(tx.seed, UINT64_MAX);
	cr_assert(tx.ctl[0] == KB_EXTERNAL && tx.ctl[1] == KB_EASY && tx.ctl[2] == KB_ABSENT &&
		  tx.ctl[3] == KB_RANDOM);
	cr_assert_str_eq(tx.name[3], "bob");
	cr_assert_str_eq(tx.name[0], "");
	cr_assert_str_eq(tx.fingerprint[2], "0a1b");
	cr_assert_eq(tx.has_start, 1);
	cr_assert_eq(memcmp(tx.start_board, SOME_BOARD, KB_BOARD_LEN), 0);
	cr_assert_eq(tx.start_turn, 3);
	cr_assert_eq(tx.start_die, 0);
	cr_assert_eq(tx.nrolls, 4);
	for (int k = 0; k < 4; k++) {
		cr_assert_eq(tx.rolls[k].n, (uint32_t)k + 1);
		cr_assert_eq(memcmp(tx.rolls[k].line, lines[k], KB_ROLL_LINE_LEN), 0, "roll %d", k + 1);
		cr_assert_eq(tx.rolls[k].index, index[k], "roll %d", k + 1);
		cr_assert_eq((int)tx.rolls[k].how, k, "roll %d", k + 1);
	}
	cr_assert_eq(tx.nmsgs, 2);
	cr_assert_eq(tx.msgs[0].seat, 3);
	cr_assert_eq(tx.msgs[0].ms, 1e15);
	cr_assert_eq(tx.msgs[0].after_roll, 2);
	cr_assert_str_eq(tx.msgs[0].text, "A\\B~  x");
	cr_assert_eq(tx.msgs[1].seat, 0);
	cr_assert_eq(tx.msgs[1].ms, 0);
	cr_assert_eq(tx.msgs[1].after_roll, 4);
	cr_assert_str_eq(tx.msgs[1].text, "");
	cr_assert(tx.forfeit[3].seen && tx.forfeit[0].seen && !tx.forfeit[1].seen && !tx.forfeit[2].seen);
	cr_assert_eq(tx.forfeit[3].roll, UINT32_MAX);
	cr_assert_str_eq(tx.forfeit[3].reason, "timeout");
	cr_assert_str_eq(tx.forfeit[3].replacement, "easy");
	cr_assert_str_eq(tx.forfeit[3].detail, "-");
	cr_assert_eq(tx.forfeit[0].roll, 0);
	cr_assert_str_eq(tx.forfeit[0].reason, "illegal");
	cr_assert_str_eq(tx.forfeit[0].replacement, "hard");
	cr_assert_str_eq(tx.forfeit[0].detail, "index 4 refused");
	cr_assert_eq(tx.ended, 1);
	cr_assert_eq(tx.winner, 3);
	cr_assert_eq(tx.end_rolls, 4);
	cr_assert_str_eq(tx.reason, "win by forfeit");
	kb_tx_free(&tx);

	/* an end without a reason, won by nobody; a message of 100 bytes
	 * keeps 95 */
	char more[300];
	snprintf(more, sizeof more, "kimble-transcript 1\nend - 7\nmsg B 2.5 %.100s\n",
		 ZEROS10 ZEROS10 ZEROS10 ZEROS10 ZEROS10 ZEROS10 ZEROS10 ZEROS10 ZEROS10 ZEROS10 "x");
	cr_assert_eq(kb_tx_parse(more, strlen(more), &tx, &err), 0, "%s", err.msg);
	cr_assert(tx.ended && tx.winner == -1 && tx.end_rolls == 7 && tx.reason[0] == '\0');
	cr_assert_eq(tx.nmsgs, 1);
	cr_assert_eq(tx.msgs[0].seat, 1);
	cr_assert_eq(tx.msgs[0].ms, 2.5);
	cr_assert_eq(strlen(tx.msgs[0].text), 95);
	cr_assert_eq(strspn(tx.msgs[0].text, "0"), 95);
	kb_tx_free(&tx);
}

/* A message's escapes are \\ and \xHH with two hex digits; anything else
 * (a \x cut short by the end of the line, a sign) is kept as it stands,
 * and nothing past the end of the line is read.  Each text ends where its
 * message does, also in memory the allocator hands out dirty (every byte
 * of a fresh block set to 0xa5 here, as ASan sets it to 0xbe). */
Test(core_rules, transcript_message_escapes)
{
	mallopt(M_PERTURB, 0x5a);
	static const char text[] = "kimble-transcript 1\n"
				   "note 0123456789abcdefghijklmnopqrstuvwxyz\n"
				   "msg A 1 \\x4\n"
				   "msg A 1 \\x-1\\x+f\\x 1\\\n"
				   "msg A 1 \\x41\\x4a\\xFF\\x00z\\\\x41\n";
	kb_transcript tx;
	kb_err err = {{0}};

	cr_assert_eq(kb_tx_parse(text, sizeof text - 1, &tx, &err), 0, "%s", err.msg);
	cr_assert_eq(tx.nmsgs, 3);
	cr_assert_str_eq(tx.msgs[0].text, "\\x4");
	cr_assert_str_eq(tx.msgs[1].text, "\\x-1\\x+f\\x 1\\");
	cr_assert_eq(memcmp(tx.msgs[2].text, "AJ\xff\0z\\x41", 10), 0);
	kb_tx_free(&tx);
}

/* A malformed record, the line it is on (in the text after the first
 * line) and the whole error the reader gives for it. */
typedef struct bad_record {
	const char *text;
	unsigned line;
	const char *msg;
} bad_record;

#define SEED_ERR "expected \"seed\" and an unsigned 64-bit decimal"
#define SEATS_ERR "expected \"seats\" and four controllers"
#define CTL_ERR "a seat controller is absent, easy, hard, random or external"
#define WORD_ERR "expected a seat letter A..D and one word"
#define START_ERR "expected \"start BOARD SEAT DIE\""
#define ROLL_ERR "expected \"roll N STATELINE INDEX HOW\" with N counting up from 1"
#define LINE_ERR "expected a 46-character state line after the roll number"
#define INDEX_ERR "expected a piece index 0..3 or - after the state line"
#define HOW_ERR "expected pass, auto, builtin or decided at the end of a roll"
#define MSG_ERR "expected \"msg SEAT MS TEXT\""
#define FORFEIT_ERR "expected \"forfeit SEAT ROLL REASON REPLACEMENT DETAIL\""
#define END_ERR "expected \"end WINNER ROLLS REASON\""
#define ROLL1 "roll 1 " EMPTY_BOARD "A6 - auto\n"

static const bad_record bad_records[] = {
	{"seed\n", 2, SEED_ERR},
	{"seed 1 2\n", 2, SEED_ERR},
	{"seed -1\n", 2, SEED_ERR},
	{"seed 18446744073709551616\n", 2, SEED_ERR},
	{"\r\n\nseed x\r\n", 4, SEED_ERR},
	{"seats easy easy easy\n", 2, SEATS_ERR},
	{"seats easy easy easy easy easy\n", 2, SEATS_ERR},
	{"seats easy easy easy nobody\n", 2, CTL_ERR},
	{"seats Easy easy easy easy\n", 2, CTL_ERR},
	{"seats absent absent absent ?\n", 2, CTL_ERR},
	{"name A\n", 2, WORD_ERR},
	{"name A two words\n", 2, WORD_ERR},
	{"name E x\n", 2, WORD_ERR},
	{"name @ x\n", 2, WORD_ERR},
	{"name AB x\n", 2, WORD_ERR},
	{"name a x\n", 2, WORD_ERR},
	{"fingerprint A\n", 2, WORD_ERR},
	{"fingerprint E 00\n", 2, WORD_ERR},
	{"fingerprint A 0 0\n", 2, WORD_ERR},
	{"start " EMPTY_BOARD " A\n", 2, START_ERR},
	{"start " EMPTY_BOARD " A 1 x\n", 2, START_ERR},
	{"start " EMPTY_BOARD "0 A 1\n", 2, START_ERR},
	{"start " ZEROS10 ZEROS10 ZEROS10 ZEROS10 "000 A 1\n", 2, START_ERR},
	{"start E" ZEROS10 ZEROS10 ZEROS10 ZEROS10 "000 A 1\n", 2, START_ERR},
	{"start " EMPTY_BOARD " E 1\n", 2, START_ERR},
	{"start " EMPTY_BOARD " @ 1\n", 2, START_ERR},
	{"start " EMPTY_BOARD " A 7\n", 2, START_ERR},
	{"start " EMPTY_BOARD " A /\n", 2, START_ERR},
	{"start " EMPTY_BOARD " A 10\n", 2, START_ERR},
	{"roll 1 " EMPTY_BOARD "A6 -\n", 2, ROLL_ERR},
	{"roll 1 " EMPTY_BOARD "A6 - auto x\n", 2, ROLL_ERR},
	{"roll x " EMPTY_BOARD "A6 - auto\n", 2, ROLL_ERR},
	{"roll 0 " EMPTY_BOARD "A6 - auto\n", 2, ROLL_ERR},
	{"roll 2 " EMPTY_BOARD "A6 - auto\n", 2, ROLL_ERR},
	{ROLL1 "\n" ROLL1, 4, ROLL_ERR},
	{ROLL1 "roll 3 " EMPTY_BOARD "A6 - auto\n", 3, ROLL_ERR},
	{"roll 1 " EMPTY_BOARD "A - auto\n", 2, LINE_ERR},
	{"roll 1 " EMPTY_BOARD "A7 - auto\n", 2, LINE_ERR},
	{"roll 1 END - auto\n", 2, LINE_ERR},
	{"roll 1 " EMPTY_BOARD "A6 4 auto\n", 2, INDEX_ERR},
	{"roll 1 " EMPTY_BOARD "A6 / auto\n", 2, INDEX_ERR},
	{"roll 1 " EMPTY_BOARD "A6 00 auto\n", 2, INDEX_ERR},
	{"roll 1 " EMPTY_BOARD "A6 -1 auto\n", 2, INDEX_ERR},
	{"roll 1 " EMPTY_BOARD "A6 - Auto\n", 2, HOW_ERR},
	{"roll 1 " EMPTY_BOARD "A6 - decide\n", 2, HOW_ERR},
	{"msg A\n", 2, MSG_ERR},
	{"msg E 1 x\n", 2, MSG_ERR},
	{"msg A -1 x\n", 2, MSG_ERR},
	{"msg A 1000000000000001 x\n", 2, MSG_ERR},
	{"msg A x y\n", 2, MSG_ERR},
	{"forfeit A 1 illegal\n", 2, FORFEIT_ERR},
	{"forfeit E 1 illegal hard x\n", 2, FORFEIT_ERR},
	{"forfeit - 1 illegal hard x\n", 2, FORFEIT_ERR},
	{"forfeit A x illegal hard x\n", 2, FORFEIT_ERR},
	{"forfeit A 4294967296 illegal hard x\n", 2, FORFEIT_ERR},
	{"end A\n", 2, END_ERR},
	{"end E 1 win\n", 2, END_ERR},
	{"end AB 1 win\n", 2, END_ERR},
	{"end -- 1 win\n", 2, END_ERR},
	{"end A x win\n", 2, END_ERR},
	{"note 12345\0 NUL\n", 2, "NUL byte in a line"},
};

/* Each malformed record is refused with its line and what was expected,
 * and the transcript is left empty. */
Test(core_rules, transcript_reader_names_each_malformed_record)
{
	kb_transcript tx;
	kb_err err;
	char text[512], want[256];

	for (size_t i = 0; i < sizeof bad_records / sizeof *bad_records; i++) {
		const bad_record *b = &bad_records[i];
		/* the NUL case is the only one whose text holds a NUL */
		size_t body = strlen(b->text) + (strstr(b->text, "12345") ? 1 + strlen(b->text + 11) : 0);
		int head = snprintf(text, sizeof text, "kimble-transcript 1\n");
		memcpy(text + head, b->text, body);
		snprintf(want, sizeof want, "transcript line %u: %s", b->line, b->msg);
		err.msg[0] = '\0';
		cr_assert_eq(kb_tx_parse(text, (size_t)head + body, &tx, &err), -1, "%s", b->text);
		cr_assert_str_eq(err.msg, want, "%s", b->text);
		cr_assert(tx.rolls == NULL && tx.nrolls == 0 && tx.msgs == NULL, "%s", b->text);
	}
}

/* The first line is "kimble-transcript 1" exactly, and no line is longer
 * than 1023 characters. */
Test(core_rules, transcript_reader_first_line_and_line_length)
{
	static const char *const not_first[] = {"kimble-transcript 2\n", "kimble-transcript 1 \n",
						 "\nkimble-transcript 1\n", "kimble-transcript\n",
						 "kimble-transcript 10\n"};
	kb_transcript tx;
	kb_err err;
	char text[2200];

	for (size_t i = 0; i < sizeof not_first / sizeof *not_first; i++) {
		err.msg[0] = '\0';
		cr_assert_eq(kb_tx_parse(not_first[i], strlen(not_first[i]), &tx, &err), -1);
		cr_assert_str_eq(err.msg, "transcript line 1: expected \"kimble-transcript 1\"", "%s",
				 not_first[i]);
	}
	cr_assert_eq(kb_tx_parse("", 0, &tx, &err), -1);
	cr_assert_str_eq(err.msg, "transcript line 1: empty input, expected \"kimble-transcript 1\"");
	cr_assert_eq(kb_tx_parse("kimble-transcript 1", 19, &tx, &err), 0, "%s", err.msg);
	cr_assert_eq(tx.version, 1);
	kb_tx_free(&tx);
	/* the last line needs no newline */
	cr_assert_eq(kb_tx_parse("kimble-transcript 1\nseed 5\nseed 77", 34, &tx, &err), 0, "%s", err.msg);
	cr_assert_eq(tx.seed, 77);
	kb_tx_free(&tx);

	/* a note of 1023 characters with its word, then one of 1024 */
	for (int extra = 0; extra < 2; extra++) {
		int n = snprintf(text, sizeof text, "kimble-transcript 1\nseed 5\nnote ");
		memset(text + n, 'x', 1018 + extra);
		n += 1018 + extra;
		n += snprintf(text + n, sizeof text - n, "\nseed 6\n");
		err.msg[0] = '\0';
		int rc = kb_tx_parse(text, (size_t)n, &tx, &err);
		if (extra) {
			cr_assert_eq(rc, -1);
			cr_assert_str_eq(err.msg, "transcript line 3: line longer than 1023 characters");
		} else {
			cr_assert_eq(rc, 0, "%s", err.msg);
			cr_assert_eq(tx.seed, 6);
			kb_tx_free(&tx);
		}
	}
}

/* A transcript longer than the reader's first buffer (64 KiB) with more
 * rolls and messages than their first arrays (256) is read whole. */
Test(core_rules, transcript_read_of_a_long_file)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	kb_transcript tx;
	kb_err err = {{0}};

	fprintf(f, "kimble-transcript 1\n");
	for (int k = 1; k <= 600; k++) {
		fprintf(f, "roll %d " EMPTY_BOARD "%c%d - pass\n", k, 'A' + k % 4, 1 + k % 6);
		fprintf(f, "msg %c %d.250 m%d%.80s\n", 'A' + k % 4, k, k,
			ZEROS10 ZEROS10 ZEROS10 ZEROS10 ZEROS10 ZEROS10 ZEROS10 ZEROS10);
	}
	fprintf(f, "end C 600 win\n");
	fclose(f);
	cr_assert_gt(len, 65536);
	f = fmemopen(text, len, "r");
	cr_assert_eq(kb_tx_read(f, &tx, &err), 0, "%s", err.msg);
	fclose(f);
	cr_assert_eq(tx.nrolls, 600);
	cr_assert_eq(tx.nmsgs, 600);
	for (int k = 1; k <= 600; k++) {
		char want[16];
		cr_assert_eq(tx.rolls[k - 1].n, (uint32_t)k);
		cr_assert_eq(tx.rolls[k - 1].line[KB_BOARD_LEN], 'A' + k % 4);
		cr_assert_eq(tx.msgs[k - 1].after_roll, (uint32_t)k);
		cr_assert_eq(tx.msgs[k - 1].ms, k + 0.25);
		snprintf(want, sizeof want, "m%d0", k);
		cr_assert_eq(strncmp(tx.msgs[k - 1].text, want, strlen(want)), 0, "%s", tx.msgs[k - 1].text);
	}
	cr_assert(tx.ended && tx.winner == 2 && tx.end_rolls == 600);
	kb_tx_free(&tx);
	free(text);
}

/* The names of the four ways a roll is played, and "?" for any other. */
Test(core_rules, transcript_how_names)
{
	cr_assert_str_eq(kb_how_name(KB_PASS), "pass");
	cr_assert_str_eq(kb_how_name(KB_AUTO), "auto");
	cr_assert_str_eq(kb_how_name(KB_BUILTIN), "builtin");
	cr_assert_str_eq(kb_how_name(KB_DECIDED), "decided");
	cr_assert_str_eq(kb_how_name((enum kb_how)4), "?");
	cr_assert_str_eq(kb_how_name((enum kb_how)-1), "?");
}

/* A read that fails after rolls and messages were read gives them back
 * and leaves the transcript empty, whichever line ends it: one too long,
 * one holding a NUL, a malformed record. */
Test(core_rules, transcript_failed_read_keeps_nothing)
{
	static const char head[] = "kimble-transcript 1\n" ROLL1 "msg A 1 hello\n";
	char text[2200];
	kb_transcript tx;
	kb_err err;

	for (int k = 0; k < 3; k++) {
		size_t n = sizeof head - 1;
		memcpy(text, head, n);
		if (k == 0) {
			memset(text + n, 'x', 1100);
			n += 1100;
		} else if (k == 1) {
			memcpy(text + n, "note a\0b\n", 9);
			n += 9;
		} else {
			memcpy(text + n, "seed x\n", 7);
			n += 7;
		}
		cr_assert_eq(kb_tx_parse(text, n, &tx, &err), -1, "case %d", k);
		cr_assert(tx.rolls == NULL && tx.nrolls == 0 && tx.cap_rolls == 0, "case %d: rolls kept", k);
		cr_assert(tx.msgs == NULL && tx.nmsgs == 0 && tx.cap_msgs == 0, "case %d: messages kept", k);
	}
}

/* No memory for the text of a transcript: kb_tx_read fails, says so and
 * names no line (line 0: nothing was read, not line 1). */
Test(core_rules, transcript_read_out_of_memory_names_no_line)
{
	static const char text[] = "kimble-transcript 1\n";
	static char iobuf[4096];
	FILE *in = fmemopen((void *)text, sizeof text - 1, "r");
	kb_transcript tx;
	kb_err err = {0};
	void *hoard = NULL, *p;

	cr_assert_not_null(in);
	cr_assert_eq(setvbuf(in, iobuf, _IOFBF, sizeof iobuf), 0);
	test_limit_memory(1u << 20);
	for (size_t size = 1u << 16; size >= 4096; size /= 2)
		while ((p = malloc(size))) {
			*(void **)p = hoard;
			hoard = p;
		}
	int rc = kb_tx_read(in, &tx, &err);
	while (hoard) {
		p = *(void **)hoard;
		free(hoard);
		hoard = p;
	}
	cr_assert_eq(rc, -1);
	cr_assert_str_eq(err.msg, "transcript line 0: out of memory");
	fclose(in);
}

/* A transcript without an end record (a game cut short) credits no
 * winner: -1 (transcript.h), not seat A. */
Test(core_rules, transcript_without_an_end_has_no_winner)
{
	static const char text[] = "kimble-transcript 1\nseed 5\nseats external hard absent absent\n";
	kb_transcript tx;
	kb_err err;

	cr_assert_eq(kb_tx_parse(text, sizeof text - 1, &tx, &err), 0, "%s", err.msg);
	cr_assert_eq(tx.ended, 0);
	cr_assert_eq(tx.winner, -1);
	kb_tx_free(&tx);
}
