/* svg.c - SVG pictures of positions; see svg.h. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "svg.h"

#define CELL 28
#define MARGIN 16
#define PANEL_X (2 * MARGIN + 16 * CELL)
#define PANEL_BOTTOM (KB_SVG_HEIGHT - 6) /* the lowest baseline */

_Static_assert(PANEL_X == KB_SVG_PANEL_X, "svg.h states where the panel starts");

static const char *const colors[KB_SEATS] = {"#d62728", "#1f77b4", "#2ca02c", "#e6b800"};
static const char *const tints[KB_SEATS] = {"#f7d4d4", "#d2e3f1", "#d5ecd5", "#f9efc2"};

/* Grid cell of board index idx (the terminal picture's layout). */
static void cell_of(int idx, int *row, int *col)
{
	if (idx < 8) {
		*row = 4, *col = 4 + idx;
	} else if (idx < 14) {
		*row = 5 + (idx - 8), *col = 11;
	} else if (idx < 22) {
		*row = 11, *col = 11 - (idx - 14);
	} else if (idx < 28) {
		*row = 10 - (idx - 22), *col = 4;
	} else {
		int s = (idx - 28) / 4, k = (idx - 28) % 4;
		int rows[4] = {3 - k, 3 - k, 12 + k, 12 + k}, cols[4] = {3 - k, 12 + k, 12 + k, 3 - k};
		*row = rows[s], *col = cols[s];
	}
}

/* Centre of a grid cell in picture coordinates. */
static int at(int cell)
{
	return MARGIN + cell * CELL + CELL / 2;
}

/* Centre of square sq, or of seat s's k-th home slot (inside the ring, in
 * the seat's corner) when sq is KB_SQ_HOME. */
static void point_of(int sq, int s, int k, int *x, int *y)
{
	static const int base_row[KB_SEATS] = {5, 5, 9, 9}, base_col[KB_SEATS] = {5, 9, 9, 5};
	int row, col;

	if (sq == KB_SQ_HOME)
		row = base_row[s] + k / 2, col = base_col[s] + k % 2;
	else
		cell_of(sq, &row, &col);
	*x = at(col), *y = at(row);
}

void kb_xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

/* A seat's name cut to max bytes (not inside a UTF-8 character). */
static void short_name(const kb_frame *fr, int s, size_t max, char *out)
{
	const char *src = fr->name[s];
	size_t len = strlen(src), n = len < max ? len : max;

	while (n > 0 && n < len && ((unsigned char)src[n] & 0xc0) == 0x80)
		n--;
	memcpy(out, src, n);
	out[n] = '\0';
}

static void piece(FILE *f, int x, int y, int s, int r)
{
	fprintf(f,
		"<circle cx=\"%d\" cy=\"%d\" r=\"%d\" fill=\"%s\" stroke=\"#fff\" stroke-width=\"1.5\"/>"
		"<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\" fill=\"#fff\">%c</text>\n",
		x, y, r, colors[s], x, y + 4, 'A' + s);
}

/* The ring, goals, start squares, empty home slots and the seats' names. */
void kb_svg_back(FILE *f, const kb_frame *fr)
{
	fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"#fafaf5\"/>\n", KB_SVG_WIDTH, KB_SVG_HEIGHT);
	for (int i = 0; i < KB_BOARD_LEN; i++) {
		int x, y, goal = i >= KB_TRACK, s = goal ? (i - KB_TRACK) / 4 : i / 7;
		int start = !goal && i % 7 == 0;
		point_of(i, 0, 0, &x, &y);
		fprintf(f, "<circle cx=\"%d\" cy=\"%d\" r=\"%d\" fill=\"%s\" stroke=\"%s\" "
			   "stroke-width=\"%d\"/>\n",
			x, y, CELL / 2 - 2, goal ? tints[s] : "#fff", start ? colors[s] : "#999",
			start ? 3 : 1);
	}
	for (int s = 0; s < KB_SEATS; s++) {
		char name[16];
		int x, y, right = s == 1 || s == 2, below = s >= 2;
		if (!((fr->present >> s) & 1))
			continue;
		point_of(KB_SQ_HOME, s, 0, &x, &y);
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"8\" "
			   "fill=\"%s\"/>\n", x - CELL / 2 + 2, y - CELL / 2 + 2, 2 * CELL - 4,
			2 * CELL - 4, tints[s]);
		for (int k = 0; k < KB_PIECES; k++) {
			point_of(KB_SQ_HOME, s, k, &x, &y);
			fprintf(f, "<circle cx=\"%d\" cy=\"%d\" r=\"%d\" fill=\"none\" stroke=\"%s\" "
				   "stroke-dasharray=\"2,2\"/>\n", x, y, CELL / 2 - 4, colors[s]);
		}
		short_name(fr, s, 12, name);
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"13\" font-weight=\"bold\" "
			   "text-anchor=\"%s\" fill=\"%s\">%c ", MARGIN + (right ? 12 : 4) * CELL,
			MARGIN + (below ? 12 * CELL + 15 : 4 * CELL - 6), right ? "end" : "start",
			colors[s], 'A' + s);
		kb_xml_text(f, name);
		fprintf(f, "</text>\n");
	}
}

/* An arrow from (x0, y0) to (x1, y1), stopping short of both centres. */
static void arrow(FILE *f, int x0, int y0, int x1, int y1)
{
	double dx = x1 - x0, dy = y1 - y0, len = sqrt(dx * dx + dy * dy);

	if (len < 1)
		return;
	dx /= len, dy /= len;
	double ax = x0 + dx * 8, ay = y0 + dy * 8, bx = x1 - dx * 9, by = y1 - dy * 9;
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#222\" "
		   "stroke-width=\"3\" stroke-linecap=\"round\"/>\n", ax, ay, bx - dx * 6, by - dy * 6);
	fprintf(f, "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"#222\"/>\n", bx, by,
		bx - dx * 12 - dy * 6, by - dy * 12 + dx * 6, bx - dx * 12 + dy * 6,
		by - dy * 12 - dx * 6);
}

/* Pieces on the board and at home, the legal pieces ringed, the move. */
static void pieces_layer(FILE *f, const kb_frame *fr)
{
	const kb_facts *fx = &fr->fx;
	int x, y, x1, y1;

	for (int i = 0; i < KB_BOARD_LEN; i++)
		if (fr->board[i] >= 'A' && fr->board[i] <= 'D') {
			point_of(i, 0, 0, &x, &y);
			piece(f, x, y, fr->board[i] - 'A', CELL / 2 - 5);
		}
	for (int s = 0; s < KB_SEATS; s++)
		for (int k = 0; k < fx->home[s]; k++) {
			point_of(KB_SQ_HOME, s, k, &x, &y);
			piece(f, x, y, s, CELL / 2 - 5);
		}
	for (int i = 0; fx->seat >= 0 && i < KB_PIECES; i++)
		if (fx->legal >> i & 1) {
			point_of(fx->legal_from[i], fx->seat, 0, &x, &y);
			fprintf(f, "<circle cx=\"%d\" cy=\"%d\" r=\"%d\" fill=\"none\" stroke=\"#222\" "
				   "stroke-width=\"2\" stroke-dasharray=\"4,2\"/>\n", x, y, CELL / 2);
		}
	if (fx->seat < 0 || fx->index < 0)
		return;
	point_of(fx->from, fx->seat, 0, &x, &y);
	point_of(fx->to, fx->seat, 0, &x1, &y1);
	arrow(f, x, y, x1, y1);
	if (fx->captured >= 0)
		fprintf(f, "<path d=\"M%d %dL%d %dM%d %dL%d %d\" stroke=\"#000\" stroke-width=\"3\"/>\n",
			x1 - 8, y1 - 8, x1 + 8, y1 + 8, x1 - 8, y1 + 8, x1 + 8, y1 - 8);
}

static void die_face(FILE *f, const kb_facts *fx)
{
	int cx = MARGIN + 8 * CELL, cy = MARGIN + 8 * CELL;

	if (fx->seat < 0)
		return;
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"44\" height=\"44\" rx=\"8\" fill=\"%s\"/>"
		   "<text x=\"%d\" y=\"%d\" font-size=\"28\" font-weight=\"bold\" "
		   "text-anchor=\"middle\" fill=\"#fff\">%d</text>\n",
		cx - 22, cy - 22, colors[fx->seat], cx, cy + 10, fx->die);
}

static void text_at(FILE *f, int y, int size, const char *weight, const char *color,
		    const char *text)
{
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"%d\" font-weight=\"%s\" fill=\"%s\">",
		PANEL_X, y, size, weight, color);
	kb_xml_text(f, text);
	fprintf(f, "</text>\n");
}

/* The panel's seat list: colour, name, home and goal, whose turn. */
static void seat_rows(FILE *f, const kb_frame *fr)
{
	for (int s = 0; s < KB_SEATS; s++) {
		char name[32], line[96];
		int y = 70 + 40 * s, in = (fr->present >> s) & 1;
		short_name(fr, s, 24, name);
		fprintf(f, "<circle cx=\"%d\" cy=\"%d\" r=\"8\" fill=\"%s\"/>\n", PANEL_X + 8, y - 5,
			in ? colors[s] : "#ccc");
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"14\" font-weight=\"%s\">%c ",
			PANEL_X + 22, y, fr->fx.seat == s ? "bold" : "normal", 'A' + s);
		kb_xml_text(f, in ? name : "(absent)");
		fprintf(f, "</text>\n");
		if (!in)
			continue;
		snprintf(line, sizeof line, "%s corner, home %d, goal %d%s", kb_corner_name(s),
			 fr->fx.home[s], fr->fx.goal[s],
			 fr->fx.seat == s ? ", to move" : fr->over && fr->winner == s ? ", winner" : "");
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#555\">", PANEL_X + 22,
			y + 15);
		kb_xml_text(f, line);
		fprintf(f, "</text>\n");
	}
}

/* The panel's account of the roll: die, legal pieces, the move. */
static int roll_lines(FILE *f, const kb_facts *fx, int y)
{
	char line[96], a[24], b[24];

	snprintf(line, sizeof line, "%c rolls %d", 'A' + fx->seat, fx->die);
	text_at(f, y, 16, "bold", colors[fx->seat], line);
	y += 22;
	if (!fx->legal)
		text_at(f, y, 13, "normal", "#222", "no piece can move: the roll passes");
	else
		text_at(f, y, 13, "normal", "#222", "pieces that could move:");
	for (int i = 0; i < KB_PIECES; i++)
		if (fx->legal >> i & 1) {
			kb_square_name(fx->legal_from[i], a, sizeof a);
			kb_square_name(fx->legal_to[i], b, sizeof b);
			snprintf(line, sizeof line, "  piece %d: %s \xe2\x86\x92 %s", i, a, b);
			text_at(f, y += 18, 12, "normal", "#444", line);
		}
	if (fx->index < 0)
		return y;
	kb_square_name(fx->from, a, sizeof a);
	kb_square_name(fx->to, b, sizeof b);
	snprintf(line, sizeof line, "moves piece %d: %s \xe2\x86\x92 %s", fx->index, a, b);
	text_at(f, y += 24, 14, "bold", "#222", line);
	if (fx->captured >= 0) {
		snprintf(line, sizeof line, "captures %c: sent home", 'A' + fx->captured);
		text_at(f, y += 20, 14, "bold", "#b00", line);
	}
	return y;
}

/* The characters of UTF-8 text s (its bytes that start one). */
static size_t chars_of(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* The font size, at most size, at which text fits the panel's width. */
static int fitting_size(const char *text, int size)
{
	size_t n = chars_of(text);

	while (size > 6 && (double)n * 0.6 * size > KB_SVG_PANEL_W)
		size--;
	return size;
}

/* Text from y on, broken at spaces into lines that fit the panel's width
 * (a word too long for a line is set smaller).  Returns the last line's y. */
static int wrapped(FILE *f, int y, int size, const char *text)
{
	size_t width = (size_t)(KB_SVG_PANEL_W / (0.6 * size));
	char line[160];

	while (*text) {
		size_t len = strlen(text), cut = len;
		if (chars_of(text) > width) {
			cut = 0;
			for (size_t i = 1; i < len && i <= width; i++)
				if (text[i] == ' ')
					cut = i;
			if (!cut)
				cut = strcspn(text, " ");
		}
		snprintf(line, sizeof line, "%.*s", (int)cut, text);
		text_at(f, y, fitting_size(line, size), "normal", "#222", line);
		text += cut + (text[cut] == ' ');
		if (*text)
			y += size + 4;
	}
	return y;
}

/* The panel; returns the y of its last line. */
static int panel(FILE *f, const kb_frame *fr)
{
	char line[160];
	int y = 70 + 40 * (KB_SEATS - 1) + 15; /* the last seat row */

	if (fr->roll > fr->rolls && fr->rolls)
		snprintf(line, sizeof line, "final position, %" PRIu32 " rolls", fr->rolls);
	else if (fr->rolls)
		snprintf(line, sizeof line, "roll %" PRIu32 " of %" PRIu32, fr->roll, fr->rolls);
	else
		snprintf(line, sizeof line, "roll %" PRIu32, fr->roll);
	text_at(f, 34, 18, "bold", "#222", line);
	seat_rows(f, fr);
	if (fr->fx.seat >= 0)
		y = roll_lines(f, &fr->fx, 248);
	if (!fr->over)
		return y;
	if (fr->winner >= 0) {
		char name[32];
		short_name(fr, fr->winner, 24, name);
		snprintf(line, sizeof line, "winner: %c %s", 'A' + fr->winner, name);
		text_at(f, 248, fitting_size(line, 20), "bold", colors[fr->winner], line);
	} else {
		text_at(f, 248, 20, "bold", "#222", "no winner");
	}
	snprintf(line, sizeof line, "ended: %s", fr->result);
	return wrapped(f, 274, 13, line);
}

/* A seat's forfeit as two lines: who, when, why; what finished the seat.
 * The name gets what room the first line leaves at 11 px (an ellipsis
 * marks a cut). */
static void forfeit_text(const kb_frame *fr, int s, char first[160], char second[64])
{
	const kb_frame_forfeit *ff = &fr->forfeit[s];
	char when[32], tail[80], name[72];
	int room;

	if (ff->roll)
		snprintf(when, sizeof when, "at roll %" PRIu32, ff->roll);
	else
		snprintf(when, sizeof when, "at the start");
	snprintf(tail, sizeof tail, " forfeited %s (%s)", when, ff->reason);
	room = (int)(KB_SVG_PANEL_W / (0.6 * 11)) - 2 - (int)strlen(tail);
	short_name(fr, s, room > 1 ? (size_t)room : 1, name);
	if (strlen(name) < strlen(fr->name[s]) && room > 1) {
		short_name(fr, s, (size_t)room - 1, name);
		strcat(name, "\xe2\x80\xa6"); /* ... */
	}
	snprintf(first, 160, "%c %s%s", 'A' + s, name[0] ? name : "", tail);
	snprintf(second, 64, "seat finished by %s", ff->replacement);
}

/* Two lines per seat whose bot had forfeited by this roll, from below the
 * panel's last line (y) down; closer together when many do not fit. */
static void forfeit_lines(FILE *f, const kb_frame *fr, int y)
{
	int n = 0, step = 14;

	for (int s = 0; s < KB_SEATS; s++)
		n += fr->forfeit[s].reason[0] != 0;
	if (!n)
		return;
	y += 22;
	if (y + (2 * n - 1) * step > PANEL_BOTTOM)
		step = (PANEL_BOTTOM - y) / (2 * n - 1);
	for (int s = 0; s < KB_SEATS; s++) {
		char first[160], second[64];
		if (!fr->forfeit[s].reason[0])
			continue;
		forfeit_text(fr, s, first, second);
		text_at(f, y, fitting_size(first, step < 13 ? step - 2 : 11), "bold", colors[s], first);
		text_at(f, y + step, fitting_size(second, step < 13 ? step - 2 : 11), "normal",
			colors[s], second);
		y += 2 * step;
	}
}

void kb_svg_front(FILE *f, const kb_frame *fr)
{
	pieces_layer(f, fr);
	die_face(f, &fr->fx);
	forfeit_lines(f, fr, panel(f, fr));
}

void kb_svg_open(FILE *f)
{
	fprintf(f,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n",
		KB_SVG_WIDTH, KB_SVG_HEIGHT, KB_SVG_WIDTH, KB_SVG_HEIGHT);
}

void kb_svg_frame(FILE *f, const kb_frame *fr, int layers)
{
	kb_svg_open(f);
	if (layers & KB_SVG_BACK)
		kb_svg_back(f, fr);
	if (layers & KB_SVG_FRONT)
		kb_svg_front(f, fr);
	fprintf(f, "</svg>\n");
}

void kb_frame_at(kb_frame *fr, const char board[KB_BOARD_LEN], unsigned present,
		 const char *const names[KB_SEATS], uint32_t roll, int s, int die, int index)
{
	memset(fr, 0, sizeof *fr);
	memcpy(fr->board, board, KB_BOARD_LEN);
	fr->present = present;
	for (int k = 0; k < KB_SEATS; k++)
		snprintf(fr->name[k], sizeof fr->name[k], "%s", names && names[k] ? names[k] : "");
	fr->roll = roll;
	fr->winner = -1;
	kb_facts_of(board, present, s, die, index, &fr->fx);
}

void kb_svg_board(FILE *f, const char board[KB_BOARD_LEN], int seat, int die, unsigned present)
{
	kb_frame fr;

	kb_frame_at(&fr, board, present, NULL, 0, seat, die, -1);
	kb_svg_frame(f, &fr, KB_SVG_ALL);
}

