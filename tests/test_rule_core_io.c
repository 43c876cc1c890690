/* test_rule_core_io.c - what core/ writes and reads, pinned rule by rule
 * (found by make mutate, docs/mutation.md): transcript fields cut to their
 * buffers, transcript reads that fail or succeed and keep no memory, the
 * SVG panel's move line and forfeit lines at their coordinates, and the
 * server's END line.  Expectations are
 * written out by hand, never computed with the code under test. */
#include <criterion/criterion.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/svg.h"
#include "core/transcript.h"
#include "core/wire.h"
#include "support.h"

/* 26 letters, then 0-9, then the letters again: a name that shows where
 * it was cut. */
static const char long_text[] = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				 "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				 "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				 "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				 "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";

/* Append to out head, the first n characters of long_text and tail. */
static void want_cut(char *out, size_t size, const char *head, size_t n, const char *tail)
{
	size_t used = strlen(out);

	snprintf(out + used, size - used, "%s%.*s%s", head, (int)n, long_text, tail);
}

/* Names, fingerprints, notes and a forfeit's words keep as many characters
 * as their buffers hold but one (the terminator): 63, 39, 255, 15, 15 and
 * 255. */
Test(core_rules, transcript_fields_cut_to_their_buffers)
{
	char *text = NULL, want[2048];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	cr_assert_gt(strlen(long_text), 300);
	cr_assert_eq(kb_tx_write_name(f, 0, long_text), 0);
	cr_assert_eq(kb_tx_write_fingerprint(f, 1, long_text), 0);
	cr_assert_eq(kb_tx_write_note(f, long_text), 0);
	cr_assert_eq(kb_tx_write_forfeit(f, 2, 7, long_text, long_text, long_text), 0);
	fclose(f);
	want[0] = '\0';
	want_cut(want, sizeof want, "name A ", 63, "\n");
	want_cut(want, sizeof want, "fingerprint B ", 39, "\n");
	want_cut(want, sizeof want, "note ", 255, "\n");
	want_cut(want, sizeof want, "forfeit C 7 ", 15, " ");
	want_cut(want, sizeof want, "", 15, " ");
	want_cut(want, sizeof want, "", 255, "\n");
	cr_assert_str_eq(text, want);
	free(text);

	/* an end record's reason is free text: spaces kept, control
	 * characters made '_', 127 characters kept */
	f = open_memstream(&text, &len);
	cr_assert_eq(kb_tx_write_end(f, 1, 88, "win by\ta forfeit"), 0);
	cr_assert_eq(kb_tx_write_end(f, -1, 0, long_text), 0);
	fclose(f);
	strcpy(want, "end B 88 win by_a forfeit\n");
	want_cut(want, sizeof want, "end - 0 ", 127, "\n");
	cr_assert_str_eq(text, want);
	free(text);
}

/* Bytes the C library's allocator holds for the program. */
static size_t heap_held(void)
{
	struct mallinfo2 m = mallinfo2();

	return m.uordblks + m.hblkhd;
}

/* A transcript that does not fit in memory (an endless /dev/zero, 64 MB
 * of address space to spare) is refused as out of memory, and the buffer
 * read so far is given back.  (Not under ASan, whose allocator aborts
 * instead of returning NULL.) */
Test(core_rules, transcript_read_out_of_memory)
{
#ifdef __SANITIZE_ADDRESS__
	cr_skip_test("ASan's allocator does not return NULL");
#endif
	kb_transcript tx;
	kb_err err;
	unsigned long pages = 0;
	FILE *zero = fopen("/dev/zero", "r"), *statm = fopen("/proc/self/statm", "r");

	cr_assert(zero && statm);
	setvbuf(zero, NULL, _IONBF, 0); /* no stdio buffer allocated by the read */
	cr_assert_eq(fscanf(statm, "%lu", &pages), 1);
	fclose(statm);
	struct rlimit rl = {.rlim_cur = pages * (unsigned long)sysconf(_SC_PAGESIZE) + (64u << 20)};
	rl.rlim_max = rl.rlim_cur;
	cr_assert_eq(setrlimit(RLIMIT_AS, &rl), 0);
	size_t before = heap_held();
	err.msg[0] = '\0';
	cr_assert_eq(kb_tx_read(zero, &tx, &err), -1);
	cr_assert(strstr(err.msg, "out of memory"), "%s", err.msg);
	cr_assert_eq(heap_held(), before, "%zu bytes kept after the failed read", heap_held() - before);
	fclose(zero);
}

/* A transcript read from a folder fails with a read error and gives back
 * its buffer; a read that succeeds keeps nothing but the transcript, which
 * kb_tx_free gives back and leaves empty (freeing it again is harmless). */
Test(core_rules, transcript_reads_keep_no_memory)
{
	static const char text[] = "kimble-transcript 1\nstart A0000000000000000000000000000000000000000000 A 6\n"
				   "roll 1 A0000000000000000000000000000000000000000000A6 - auto\n"
				   "msg A 1.000 x\n";
	char dir[256];
	kb_transcript tx;
	kb_err err;

	test_tmpdir(dir, sizeof dir);
	FILE *folder = fopen(dir, "r");
	cr_assert_not_null(folder, "%s", dir);
	setvbuf(folder, NULL, _IONBF, 0);
	for (int i = 0; i < 40; i++) {
		size_t before = heap_held();
		FILE *f = fmemopen((void *)text, sizeof text - 1, "r");
		cr_assert_eq(kb_tx_read(f, &tx, &err), 0, "%s", err.msg);
		fclose(f);
		cr_assert_eq(tx.nrolls, 1);
		cr_assert_eq(tx.nmsgs, 1);
		kb_tx_free(&tx);
		cr_assert(tx.rolls == NULL && tx.msgs == NULL && tx.nrolls == 0 && tx.nmsgs == 0);
		kb_tx_free(&tx);
		err.msg[0] = '\0';
		cr_assert_eq(kb_tx_read(folder, &tx, &err), -1);
		cr_assert(strstr(err.msg, "read error"), "%s", err.msg);
		clearerr(folder);
		/* the first rounds fill the allocator's caches */
		if (i >= 8)
			cr_assert_eq(heap_held(), before, "round %d kept %zu bytes", i, heap_held() - before);
	}
	fclose(folder);
}

/* "END" is the whole line: another word of three letters is not it. */
Test(core_rules, end_line_is_exactly_end)
{
	kb_line l;
	kb_err err;

	cr_assert_eq(kb_line_parse("END", 3, &l, &err), 0);
	cr_assert_eq(l.type, KB_LINE_END);
	static const char *const not_end[] = {"ENX", "EXD", "XND", "END!"};
	for (size_t i = 0; i < sizeof not_end / sizeof *not_end; i++) {
		err.msg[0] = '\0';
		cr_assert_eq(kb_line_parse(not_end[i], strlen(not_end[i]), &l, &err), -1, "%s", not_end[i]);
		cr_assert(strstr(err.msg, "\"END\""), "%s: %s", not_end[i], err.msg);
	}
}

/* The SVG picture of frame fr, malloc'ed. */
static char *svg_of_frame(const kb_frame *fr)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	kb_svg_frame(f, fr, KB_SVG_ALL);
	fclose(f);
	return text;
}

/* The whole picture of frame fr holds want. */
static void svg_frame_has(const kb_frame *fr, const char *want)
{
	char *svg = svg_of_frame(fr);

	cr_assert(strstr(svg, want), "want %s in: %s", want, svg);
	free(svg);
}

/* A frame of four seats, none on the board, no roll yet. */
static void empty_frame(kb_frame *fr)
{
	memset(fr, 0, sizeof *fr);
	memset(fr->board, '0', KB_BOARD_LEN);
	fr->present = 0xf;
	fr->roll = 3, fr->rolls = 10;
	fr->fx.seat = -1, fr->fx.index = -1, fr->fx.captured = -1;
	fr->winner = -1;
}

/* The move line names the moved piece's own squares, also when a later
 * piece could have moved: piece 0 of A from ring 5 to ring 8, piece 1
 * could have gone from ring 9 to ring 12. */
Test(core_rules, svg_move_line_names_the_moved_piece)
{
	kb_frame fr;

	empty_frame(&fr);
	fr.fx.seat = 0, fr.fx.die = 3, fr.fx.legal = 0x3;
	fr.fx.legal_from[0] = 5, fr.fx.legal_to[0] = 8;
	fr.fx.legal_from[1] = 9, fr.fx.legal_to[1] = 12;
	fr.fx.index = 0, fr.fx.from = 5, fr.fx.to = 8;
	char *svg = svg_of_frame(&fr);
	/* rolls at 248, 22 lower the heading, 18 per piece, 24 to the move */
	cr_assert(strstr(svg, "<text x=\"480\" y=\"270\" font-size=\"13\" font-weight=\"normal\" "
			      "fill=\"#222\">pieces that could move:</text>\n"), "%s", svg);
	cr_assert(strstr(svg, "<text x=\"480\" y=\"306\" font-size=\"12\" font-weight=\"normal\" "
			      "fill=\"#444\">  piece 1: ring 9 \xe2\x86\x92 ring 12</text>\n"), "%s", svg);
	cr_assert(strstr(svg, "<text x=\"480\" y=\"330\" font-size=\"14\" font-weight=\"bold\" "
			      "fill=\"#222\">moves piece 0: ring 5 \xe2\x86\x92 ring 8</text>\n"), "%s", svg);
	cr_assert_null(strstr(svg, "stroke=\"#000\" stroke-width=\"3\"/>"), "no capture, no cross: %s", svg);
	free(svg);

	/* B's piece 1 from ring 14 to ring 19 (grid row 11, column 6: x 198,
	 * y 338) captures A's piece there: crossed out 8 px each way */
	fr.fx.seat = 1, fr.fx.legal = 0x2, fr.fx.index = 1, fr.fx.from = 14, fr.fx.to = 19;
	fr.fx.legal_from[1] = 14, fr.fx.legal_to[1] = 19, fr.fx.captured = 0;
	svg = svg_of_frame(&fr);
	cr_assert(strstr(svg, "<path d=\"M190 330L206 346M190 346L206 330\" stroke=\"#000\" "
			      "stroke-width=\"3\"/>\n"), "%s", svg);
	cr_assert(strstr(svg, ">captures A: sent home</text>\n"), "%s", svg);
	free(svg);
}

/* svg holds seat who's two forfeit lines ("forfeited at roll 2
 * (timeout)", "seat finished by easy") at heights y1 and y2, in colour
 * and font size size. */
static void forfeit_lines_at(const char *svg, int y1, int y2, int size, const char *colour,
			     const char *who)
{
	char want[512];

	snprintf(want, sizeof want,
		 "<text x=\"480\" y=\"%d\" font-size=\"%d\" font-weight=\"bold\" fill=\"%s\">"
		 "%s forfeited at roll 2 (timeout)</text>\n"
		 "<text x=\"480\" y=\"%d\" font-size=\"%d\" font-weight=\"normal\" fill=\"%s\">"
		 "seat finished by easy</text>\n",
		 y1, size, colour, who, y2, size, colour);
	cr_assert(strstr(svg, want), "%s\nwanted:\n%s", svg, want);
}

/* Forfeit lines start 22 below the panel's last line (the last seat row's
 * 205 without a roll), 14 apart; with more lines than room down to 474
 * (KB_SVG_HEIGHT - 6) they come closer, in a smaller font. */
Test(core_rules, svg_forfeit_lines_at_their_places)
{
	kb_frame fr;

	empty_frame(&fr);
	strcpy(fr.name[2], "dier");
	fr.forfeit[2].roll = 19;
	strcpy(fr.forfeit[2].reason, "exit");
	strcpy(fr.forfeit[2].replacement, "hard");
	svg_frame_has(&fr, "<text x=\"480\" y=\"227\" font-size=\"11\" font-weight=\"bold\" "
		      "fill=\"#2ca02c\">C dier forfeited at roll 19 (exit)</text>\n"
		      "<text x=\"480\" y=\"241\" font-size=\"11\" font-weight=\"normal\" "
		      "fill=\"#2ca02c\">seat finished by hard</text>\n");

	/* a roll of four movable pieces and no move ends the panel at 342:
	 * eight lines from 364 fit 14 apart, the last at 462 */
	fr.fx.seat = 1, fr.fx.die = 6, fr.fx.legal = 0xf;
	for (int i = 0; i < KB_PIECES; i++)
		fr.fx.legal_from[i] = 10 + i, fr.fx.legal_to[i] = 16 + i;
	for (int s = 0; s < KB_SEATS; s++) {
		fr.forfeit[s].roll = 2;
		strcpy(fr.forfeit[s].reason, "timeout");
		strcpy(fr.forfeit[s].replacement, "easy");
	}
	strcpy(fr.name[0], "ann");
	strcpy(fr.name[3], "dee");
	char *svg = svg_of_frame(&fr);
	forfeit_lines_at(svg, 364, 378, 11, "#d62728", "A ann");
	cr_assert(strstr(svg, "<text x=\"480\" y=\"462\" font-size=\"11\" font-weight=\"normal\" "
			      "fill=\"#e6b800\">seat finished by easy</text>\n"), "%s", svg);
	free(svg);

	/* a roll of four movable pieces and a capture ends the panel at 386:
	 * eight lines from 408 get (474 - 408) / 7 = 9 each, at 7 px */
	fr.fx.seat = 1, fr.fx.die = 6, fr.fx.legal = 0xf;
	for (int i = 0; i < KB_PIECES; i++)
		fr.fx.legal_from[i] = 10 + i, fr.fx.legal_to[i] = 16 + i;
	fr.fx.index = 3, fr.fx.from = 13, fr.fx.to = 19, fr.fx.captured = 0;
	strcpy(fr.name[0], "ann");
	strcpy(fr.name[3], "dee");
	for (int s = 0; s < KB_SEATS; s++) {
		fr.forfeit[s].roll = 2;
		strcpy(fr.forfeit[s].reason, "timeout");
		strcpy(fr.forfeit[s].replacement, "easy");
	}
	svg = svg_of_frame(&fr);
	cr_assert(strstr(svg, "<text x=\"480\" y=\"386\" font-size=\"14\" font-weight=\"bold\" "
			      "fill=\"#b00\">captures A: sent home</text>\n"), "%s", svg);
	forfeit_lines_at(svg, 408, 417, 7, "#d62728", "A ann");
	forfeit_lines_at(svg, 462, 471, 7, "#e6b800", "D dee");
	free(svg);

	/* the same move without a capture ends the panel at its move line,
	 * 366: eight lines from 388 get (474 - 388) / 7 = 12 each, at 10 px, both lines of a
	 * seat (from 13 px apart on, the full 11 px) */
	fr.fx.captured = -1;
	svg = svg_of_frame(&fr);
	forfeit_lines_at(svg, 388, 400, 10, "#d62728", "A ann");
	forfeit_lines_at(svg, 460, 472, 10, "#e6b800", "D dee");
	free(svg);
}

/* Home pieces wait in their seat's corner of the ring's inside, two by
 * two: A at grid rows 5-6 and columns 5-6, B at rows 5-6 and columns 9-10,
 * C at rows 9-10 and columns 9-10, D at rows 9-10 and columns 5-6 (a cell's
 * centre at 30 + 28 x its number). */
Test(core_rules, svg_home_pieces_in_their_corners)
{
	static const int first_row[KB_SEATS] = {5, 5, 9, 9}, first_col[KB_SEATS] = {5, 9, 9, 5};
	static const char *const fill[KB_SEATS] = {"#d62728", "#1f77b4", "#2ca02c", "#e6b800"};
	kb_frame fr;
	char want[128];

	empty_frame(&fr);
	for (int s = 0; s < KB_SEATS; s++)
		fr.fx.home[s] = 4;
	char *svg = svg_of_frame(&fr);
	for (int s = 0; s < KB_SEATS; s++)
		for (int k = 0; k < KB_PIECES; k++) {
			int x = 30 + 28 * (first_col[s] + k % 2), y = 30 + 28 * (first_row[s] + k / 2);
			snprintf(want, sizeof want, "<circle cx=\"%d\" cy=\"%d\" r=\"9\" fill=\"%s\"", x, y,
				 fill[s]);
			cr_assert(strstr(svg, want), "seat %c piece %d: %s", 'A' + s, k, want);
		}
	free(svg);
}

/* A roll record ends in how the move was made: pass, auto, builtin or
 * decided, and nothing else. */
Test(core_rules, transcript_roll_how_is_one_of_four)
{
	static const char *const how[] = {"pass", "auto", "builtin", "decided", "bogus", "Pass", "passes"};
	char text[200];
	kb_transcript tx;
	kb_err err;

	for (size_t h = 0; h < sizeof how / sizeof *how; h++) {
		int n = snprintf(text, sizeof text, "kimble-transcript 1\nroll 1 %s%s - %s\n",
				 "A0000000000000000000000000000000000000000000", "A6", how[h]);
		int rc = kb_tx_parse(text, (size_t)n, &tx, &err);
		if (h < 4) {
			cr_assert_eq(rc, 0, "%s: %s", how[h], err.msg);
			cr_assert_eq(tx.nrolls, 1);
			cr_assert_eq((int)tx.rolls[0].how, (int)h, "%s", how[h]);
			kb_tx_free(&tx);
		} else {
			cr_assert_eq(rc, -1, "\"%s\" taken", how[h]);
			cr_assert(strstr(err.msg, "expected pass, auto, builtin or decided"), "%s", err.msg);
		}
	}
}

/* An empty frame where C "dier" forfeited at roll 4000000000 (reason),
 * finished by hard. */
static void dier_forfeits_at_4e9(kb_frame *fr, const char *reason)
{
	empty_frame(fr);
	strcpy(fr->name[2], "dier");
	fr->forfeit[2].roll = 4000000000u;
	strcpy(fr->forfeit[2].reason, reason);
	strcpy(fr->forfeit[2].replacement, "hard");
}

/* A line too wide for the panel at its size is set smaller until it fits
 * (50 characters at 0.6 x 10 px fill the 300 px), and a forfeit line with
 * no room for the name keeps its first character: C "dier" forfeited at
 * roll 4000000000 for a reason of 15 characters.  The winner's line names
 * seat A like any other. */
Test(core_rules, svg_long_lines_and_seat_a_winning)
{
	kb_frame fr;

	dier_forfeits_at_4e9(&fr, "abcdefghijklmno");
	fr.over = 1, fr.winner = 0, fr.roll = 11;
	strcpy(fr.name[0], "ann");
	strcpy(fr.result, "win");
	char *svg = svg_of_frame(&fr);
	cr_assert(strstr(svg, "font-size=\"10\" font-weight=\"bold\" fill=\"#2ca02c\">C d forfeited at roll "
			      "4000000000 (abcdefghijklmno)</text>\n"), "%s", svg);
	cr_assert(strstr(svg, "<text x=\"480\" y=\"248\" font-size=\"20\" font-weight=\"bold\" "
			      "fill=\"#d62728\">winner: A ann</text>\n"), "%s", svg);
	free(svg);
}

/* A forfeit line's name gets what room its tail leaves (45 characters
 * at 0.6 x 11 px in the 300 px panel, less 2, less the tail); a name cut
 * shorter ends in an ellipsis, which takes one of that room.  Tail " forfeited
 * at roll 4000000000 (abcdefghi)": 41 characters, room 2: "d" and the
 * ellipsis; with a reason one shorter, room 3: "di" and the ellipsis. */
Test(core_rules, svg_forfeit_name_cut_with_an_ellipsis)
{
	kb_frame fr;

	dier_forfeits_at_4e9(&fr, "abcdefghi");
	svg_frame_has(&fr, ">C d\xe2\x80\xa6 forfeited at roll 4000000000 (abcdefghi)</text>\n");
	strcpy(fr.forfeit[2].reason, "abcdefgh");
	svg_frame_has(&fr, ">C di\xe2\x80\xa6 forfeited at roll 4000000000 (abcdefgh)</text>\n");
}

/* A name cut to fit (24 bytes in the seat list) is cut before a character
 * of several bytes, never inside it: 23 letters and an e with an acute
 * accent (0xc3 0xa9) keep the 23 letters. */
Test(core_rules, svg_name_cut_between_characters)
{
	kb_frame fr;

	empty_frame(&fr);
	strcpy(fr.name[1], "bbbbbbbbbbbbbbbbbbbbbbb\xc3\xa9");
	svg_frame_has(&fr, ">B bbbbbbbbbbbbbbbbbbbbbbb</text>\n");
}

/* An end record needs its winner and its roll count: "end A" alone is
 * refused, also after a record whose third field was a number. */
Test(core_rules, transcript_end_needs_its_roll_count)
{
	static const char text[] = "kimble-transcript 1\nname A 7\nend A\n";
	kb_transcript tx;
	kb_err err;

	err.msg[0] = '\0';
	cr_assert_eq(kb_tx_parse(text, sizeof text - 1, &tx, &err), -1);
	cr_assert(strstr(err.msg, "line 3") && strstr(err.msg, "expected \"end WINNER ROLLS REASON\""), "%s",
		  err.msg);
}

/* A record's fields end where its text ends: a space after the last one
 * adds no empty field (a seed record stays two fields; a forfeit record
 * of five fields has no detail, which reads as "-"). */
Test(core_rules, transcript_trailing_space_adds_no_field)
{
	static const char text[] = "kimble-transcript 1\nseed 42 \nforfeit B 7 timeout easy \n";
	kb_transcript tx;
	kb_err err;

	err.msg[0] = '\0';
	cr_assert_eq(kb_tx_parse(text, sizeof text - 1, &tx, &err), 0, "%s", err.msg);
	cr_assert_eq(tx.seed, 42);
	cr_assert(tx.forfeit[1].seen);
	cr_assert_eq(tx.forfeit[1].roll, 7);
	cr_assert_str_eq(tx.forfeit[1].reason, "timeout");
	cr_assert_str_eq(tx.forfeit[1].replacement, "easy");
	cr_assert_str_eq(tx.forfeit[1].detail, "-");
	kb_tx_free(&tx);
}

/* The back layer's 44 squares (svg.h: the terminal picture's layout, a
 * grid cell's centre at 30 + 28 x its number): the ring clockwise from A's
 * start at row 4, column 4, each seat's start square ringed in its colour
 * (3 px), the other ring squares white with a grey edge, and each goal
 * running out of the corner before its seat's start, tinted in the seat's
 * light colour. */
Test(core_rules, svg_squares_of_the_back_layer)
{
	static const char *const colour[KB_SEATS] = {"#d62728", "#1f77b4", "#2ca02c", "#e6b800"};
	static const char *const tint[KB_SEATS] = {"#f7d4d4", "#d2e3f1", "#d5ecd5", "#f9efc2"};
	kb_frame fr;
	char want[200];
	int circles = 0;

	empty_frame(&fr);
	char *svg = svg_of_frame(&fr);
	for (int i = 0; i < KB_BOARD_LEN; i++) {
		int goal = i >= 28, start = !goal && i % 7 == 0, s = goal ? (i - 28) / 4 : i / 7;
		snprintf(want, sizeof want,
			 "<circle cx=\"%d\" cy=\"%d\" r=\"12\" fill=\"%s\" stroke=\"%s\" stroke-width=\"%d\"/>\n",
			 30 + 28 * test_square_cell[i][1], 30 + 28 * test_square_cell[i][0], goal ? tint[s] : "#fff",
			 start ? colour[s] : "#999", start ? 3 : 1);
		cr_assert(strstr(svg, want), "square %d: %s", i, want);
	}
	for (const char *p = svg; (p = strstr(p, "r=\"12\"")) != NULL; p++)
		circles++;
	cr_assert_eq(circles, KB_BOARD_LEN, "one circle of 12 px per square");
	free(svg);
}

/* A piece leaving home: the arrow starts 8 px from the centre of the
 * seat's first home slot (row 5, column 5 for A: 170, 170), where a home
 * piece always stands, towards A's start square (row 4, column 4: 142,
 * 142), and the ring marking the legal piece is on that slot too. */
Test(core_rules, svg_arrow_from_home_starts_at_the_first_slot)
{
	kb_frame fr;
	char want[200];
	double off = 8 * 0.70710678118654752; /* 8 px along the diagonal */

	empty_frame(&fr);
	fr.fx.home[0] = 1;
	fr.fx.seat = 0, fr.fx.die = 6, fr.fx.legal = 0x1;
	fr.fx.legal_from[0] = KB_SQ_HOME, fr.fx.legal_to[0] = 0;
	fr.fx.index = 0, fr.fx.from = KB_SQ_HOME, fr.fx.to = 0;
	char *svg = svg_of_frame(&fr);
	snprintf(want, sizeof want, "<line x1=\"%.1f\" y1=\"%.1f\" ", 170 - off, 170 - off);
	cr_assert(strstr(svg, want), "%s\nwanted: %s", svg, want);
	cr_assert(strstr(svg, "<circle cx=\"170\" cy=\"170\" r=\"14\" fill=\"none\" stroke=\"#222\""), "%s", svg);
	free(svg);
}

/* A roll with no legal piece says so where the list of pieces would
 * start (248 + 22), at 13 px like that list's heading, and lists none. */
Test(core_rules, svg_roll_that_passes)
{
	kb_frame fr;

	empty_frame(&fr);
	fr.fx.seat = 2, fr.fx.die = 4, fr.fx.legal = 0;
	char *svg = svg_of_frame(&fr);
	cr_assert(strstr(svg, "<text x=\"480\" y=\"248\" font-size=\"16\" font-weight=\"bold\" "
			      "fill=\"#2ca02c\">C rolls 4</text>\n"
			      "<text x=\"480\" y=\"270\" font-size=\"13\" font-weight=\"normal\" "
			      "fill=\"#222\">no piece can move: the roll passes</text>\n"), "%s", svg);
	cr_assert_null(strstr(svg, "piece 0"), "%s", svg);
	free(svg);
}

/* The SVG of a game won by B that ended with the result text word, which
 * must stand on its own line 17 px below "ended:" at px pixels. */
static void ending_word_set_at(const char *word, int px)
{
	kb_frame fr;
	char want[300];

	empty_frame(&fr);
	fr.over = 1, fr.winner = 1;
	snprintf(fr.result, sizeof fr.result, "%s", word);
	char *svg = svg_of_frame(&fr);
	cr_assert(strstr(svg, "<text x=\"480\" y=\"274\" font-size=\"13\" font-weight=\"normal\" "
			      "fill=\"#222\">ended:</text>\n"), "%s", svg);
	snprintf(want, sizeof want, "<text x=\"480\" y=\"291\" font-size=\"%d\" font-weight=\"normal\" "
				    "fill=\"#222\">%s</text>\n", px, word);
	cr_assert(strstr(svg, want), "%s\nwanted: %s", svg, want);
	free(svg);
}

/* How the game ended, wrapped at spaces to the panel's 300 px (38
 * characters at 13 px): a word longer than a line is not broken but set
 * smaller on a line of its own (50 characters fit at 10 px), 17 px below
 * "ended:". */
Test(core_rules, svg_long_word_of_the_ending_set_smaller)
{
	ending_word_set_at("abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwx", 10);
}

/* The smallest size still fits the panel: a word of 83 characters is set
 * at 6 px (83 x 0.6 x 6 = 298.8 of the 300 px), not left at 7 px
 * (348.6 px, past the picture's edge). */
Test(core_rules, svg_word_of_83_characters_set_at_6_px)
{
	char word[84];

	memset(word, 'w', 83);
	word[83] = '\0';
	ending_word_set_at(word, 6);
}

/* A game that ended without a winner says so where the winner would
 * stand (248, 20 px), then how it ended. */
Test(core_rules, svg_no_winner)
{
	kb_frame fr;

	empty_frame(&fr);
	fr.over = 1;
	strcpy(fr.result, "roll limit");
	svg_frame_has(&fr, "<text x=\"480\" y=\"248\" font-size=\"20\" font-weight=\"bold\" "
		      "fill=\"#222\">no winner</text>\n"
		      "<text x=\"480\" y=\"274\" font-size=\"13\" font-weight=\"normal\" "
		      "fill=\"#222\">ended: roll limit</text>\n");
}

/* A forfeit line names the seat in the room its other words leave (45
 * characters at 11 px less 2, less " forfeited at roll 19 (exit)": 15);
 * a longer name is cut to 14 characters and an ellipsis, 15 in all. */
Test(core_rules, svg_forfeit_name_cut_to_its_room)
{
	kb_frame fr;
	const kb_frame_forfeit exit19 = {19, "exit", "hard"};

	empty_frame(&fr);
	strcpy(fr.name[2], "abcdefghijklmnopqrstuvwxyz");
	fr.forfeit[2] = exit19;
	svg_frame_has(&fr, ">C abcdefghijklmn\xe2\x80\xa6 forfeited at roll 19 (exit)</text>\n");
	strcpy(fr.name[2], "abcdefghijklmno");
	svg_frame_has(&fr, ">C abcdefghijklmno forfeited at roll 19 (exit)</text>\n"); /* 15 fit whole */
}

/* Each seat's home box, its four dashed home slots and its name sit in its
 * own corner: A top left, B top right, C bottom right, D bottom left (the
 * names of B and C set right-aligned from column 12, those of C and D
 * below the ring), a name cut to 12 bytes and its XML characters escaped;
 * an absent seat has none of them, and bits of present above D are no
 * seat. */
Test(core_rules, svg_seat_corners_of_the_back_layer)
{
	static const char *const colour[KB_SEATS] = {"#d62728", "#1f77b4", "#2ca02c", "#e6b800"};
	static const char *const tint[KB_SEATS] = {"#f7d4d4", "#d2e3f1", "#d5ecd5", "#f9efc2"};
	static const int box[KB_SEATS][2] = {{158, 158}, {270, 158}, {270, 270}, {158, 270}};
	static const int name_at[KB_SEATS][2] = {{128, 122}, {352, 122}, {352, 367}, {128, 367}};
	static const char *const anchor[KB_SEATS] = {"start", "end", "end", "start"};
	static const char *const shown[KB_SEATS] = {"alpha", "abcdefghijkl", "a&lt;b&amp;c&gt;&quot;", "d"};
	kb_frame fr;
	char want[300];

	empty_frame(&fr);
	snprintf(fr.name[0], sizeof fr.name[0], "alpha");
	snprintf(fr.name[1], sizeof fr.name[1], "abcdefghijklmn");
	snprintf(fr.name[2], sizeof fr.name[2], "a<b&c>\"");
	snprintf(fr.name[3], sizeof fr.name[3], "d");
	char *svg = svg_of_frame(&fr);
	for (int s = 0; s < KB_SEATS; s++) {
		snprintf(want, sizeof want, "<rect x=\"%d\" y=\"%d\" width=\"52\" height=\"52\" rx=\"8\" fill=\"%s\"/>\n",
			 box[s][0], box[s][1], tint[s]);
		cr_assert(strstr(svg, want), "seat %d: %s", s, want);
		for (int k = 0; k < KB_PIECES; k++) {
			snprintf(want, sizeof want, "<circle cx=\"%d\" cy=\"%d\" r=\"10\" fill=\"none\" stroke=\"%s\" "
				 "stroke-dasharray=\"2,2\"/>\n",
				 box[s][0] + 12 + 28 * (k % 2), box[s][1] + 12 + 28 * (k / 2), colour[s]);
			cr_assert(strstr(svg, want), "seat %d slot %d: %s", s, k, want);
		}
		snprintf(want, sizeof want, "<text x=\"%d\" y=\"%d\" font-size=\"13\" font-weight=\"bold\" "
			 "text-anchor=\"%s\" fill=\"%s\">%c %s</text>\n",
			 name_at[s][0], name_at[s][1], anchor[s], colour[s], 'A' + s, shown[s]);
		cr_assert(strstr(svg, want), "seat %d: %s in %s", s, want, svg);
		/* the panel's row of the seat, 40 px apart from y = 70 */
		static const char *const corner[KB_SEATS] = {"top left", "top right", "bottom right",
							     "bottom left"};
		snprintf(want, sizeof want, "<circle cx=\"488\" cy=\"%d\" r=\"8\" fill=\"%s\"/>\n"
			 "<text x=\"502\" y=\"%d\" font-size=\"14\" font-weight=\"normal\">%c ",
			 65 + 40 * s, colour[s], 70 + 40 * s, 'A' + s);
		cr_assert(strstr(svg, want), "seat %d: %s", s, want);
		snprintf(want, sizeof want, "<text x=\"502\" y=\"%d\" font-size=\"11\" fill=\"#555\">%s corner, "
			 "home 0, goal 0</text>\n", 85 + 40 * s, corner[s]);
		cr_assert(strstr(svg, want), "seat %d: %s", s, want);
	}
	int slots = 0;
	for (const char *p = svg; (p = strstr(p, "stroke-dasharray")) != NULL; p++)
		slots++;
	cr_assert_eq(slots, 16, "four home slots a seat");
	cr_assert(strstr(svg, "<rect width=\"780\" height=\"480\" fill=\"#fafaf5\"/>\n"), "the background");
	free(svg);

	fr.present = 0x1f; /* bits above D name no seat */
	svg = svg_of_frame(&fr);
	cr_assert_null(strstr(svg, ">E "), "no fifth seat: %s", svg);
	slots = 0;
	for (const char *p = svg; (p = strstr(p, "stroke-dasharray")) != NULL; p++)
		slots++;
	cr_assert_eq(slots, 16, "four seats' home slots");
	free(svg);

	fr.present = 0xd; /* B absent */
	svg = svg_of_frame(&fr);
	cr_assert_null(strstr(svg, "#d2e3f1\"/>"), "no box of B");
	cr_assert_null(strstr(svg, "stroke=\"#1f77b4\" stroke-dasharray"), "no home slot of B");
	cr_assert_null(strstr(svg, ">B abc"), "no name of B");
	cr_assert(strstr(svg, ">D d</text>"));
	free(svg);
}
