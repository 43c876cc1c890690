/* svg.c - SVG pictures of positions and games; see svg.h. */
#include <errno.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "replay.h"
#include "svg.h"

#define CELL 28
#define SIZE (16 * CELL)

extern char **environ;

static const char *const colors[KB_SEATS] = {"#d62728", "#1f77b4", "#2ca02c", "#e6b800"};

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

static void frame(FILE *f, const char board[KB_BOARD_LEN], int seat, int die, unsigned present)
{
	int on_board[KB_SEATS] = {0};
	/* home corners: A top left, B top right, C bottom right, D bottom left */
	static const int home_x[KB_SEATS] = {1, 12, 12, 1}, home_y[KB_SEATS] = {1, 1, 14, 14};

	for (int i = 0; i < KB_BOARD_LEN; i++) {
		int row, col, goal = i >= 28;
		cell_of(i, &row, &col);
		int cx = col * CELL + CELL / 2, cy = row * CELL + CELL / 2;
		fprintf(f, "<circle cx=\"%d\" cy=\"%d\" r=\"%d\" fill=\"%s\" stroke=\"#888\"/>\n", cx, cy,
			CELL / 2 - 2, goal ? "#f4f4f4" : (i % 7 == 0 ? "#ddd" : "#fff"));
		if (board[i] >= 'A' && board[i] <= 'D') {
			int s = board[i] - 'A';
			on_board[s]++;
			fprintf(f,
				"<circle cx=\"%d\" cy=\"%d\" r=\"%d\" fill=\"%s\"/>"
				"<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\" "
				"fill=\"#fff\">%c</text>\n",
				cx, cy, CELL / 2 - 5, colors[s], cx, cy + 4, board[i]);
		}
	}
	for (int s = 0; s < KB_SEATS; s++)
		if ((present >> s) & 1)
			fprintf(f,
				"<text x=\"%d\" y=\"%d\" font-size=\"13\" fill=\"%s\">%c home %d</text>\n",
				home_x[s] * CELL, home_y[s] * CELL, colors[s], 'A' + s, 4 - on_board[s]);
	if (seat >= 0)
		fprintf(f,
			"<text x=\"%d\" y=\"%d\" font-size=\"22\" text-anchor=\"middle\" fill=\"%s\">"
			"%c rolls %d</text>\n",
			SIZE / 2, SIZE / 2 + 8, colors[seat], 'A' + seat, die);
}

/* Text for an SVG text element: names may hold <, > and &. */
static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		const char *entity = *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : *s == '&' ? "&amp;" : NULL;
		if (entity)
			fputs(entity, f);
		else
			fputc(*s, f);
	}
}

/* A line per seat whose bot had forfeited by roll n, at the bottom. */
static void forfeit_marks(FILE *f, const kb_transcript *tx, uint32_t n)
{
	int line = 0;

	for (int s = 0; s < KB_SEATS; s++) {
		const kb_tx_forfeit *ff = &tx->forfeit[s];
		if (!ff->seen || ff->roll > n)
			continue;
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"12\" fill=\"%s\">%c ", CELL / 2,
			SIZE - CELL / 2 - 16 * line++, colors[s], 'A' + s);
		xml_text(f, tx->name[s][0] ? tx->name[s] : "?");
		fprintf(f, " forfeited at roll %" PRIu32 " (", ff->roll);
		xml_text(f, ff->reason);
		fprintf(f, "); seat finished by ");
		xml_text(f, ff->replacement);
		fprintf(f, "</text>\n");
	}
}

static void header(FILE *f)
{
	fprintf(f,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n"
		"<rect width=\"%d\" height=\"%d\" fill=\"#fafaf5\"/>\n",
		SIZE, SIZE, SIZE, SIZE, SIZE, SIZE);
}

void kj_svg_board(FILE *f, const char board[KB_BOARD_LEN], int seat, int die, unsigned present)
{
	header(f);
	frame(f, board, seat, die, present);
	fprintf(f, "</svg>\n");
}

static void animated(FILE *f, const kb_transcript *tx)
{
	unsigned present = kj_tx_present(tx);
	uint32_t frames = (uint32_t)tx->nrolls + (tx->nrolls > 0);

	header(f);
	for (uint32_t n = 1; n <= frames; n++) {
		char board[KB_BOARD_LEN];
		int seat, die;
		if (kj_tx_board(tx, n, board, &seat, &die))
			break;
		fprintf(f, "<g visibility=\"hidden\"><set attributeName=\"visibility\" to=\"visible\" "
			   "begin=\"%.1fs\"%s/>\n",
			(n - 1) * 0.5, n == frames ? "" : " dur=\"0.5s\"");
		frame(f, board, seat, die, present);
		forfeit_marks(f, tx, n);
		fprintf(f, "</g>\n");
	}
	fprintf(f, "</svg>\n");
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Convert svg to png with the first converter found. */
static int convert(const char *svg, const char *png)
{
	char *const rsvg[] = {"rsvg-convert", "-o", (char *)png, (char *)svg, NULL};
	char *const magick[] = {"convert", (char *)svg, (char *)png, NULL};
	char *const *tries[] = {rsvg, magick};

	for (int i = 0; i < 2; i++) {
		pid_t pid;
		int st;
		if (posix_spawnp(&pid, tries[i][0], NULL, NULL, tries[i], environ) == 0 &&
		    waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0)
			return 0;
	}
	return -1;
}

int kj_svg_anim_path_ok(const char *path)
{
	return !path || ends_with(path, ".svg");
}

int kj_svg_write(const char *path, const kb_transcript *tx, uint32_t n, kb_err *err)
{
	char svgpath[1024];
	int png = path && ends_with(path, ".png");
	FILE *f = stdout;
	char board[KB_BOARD_LEN];
	int seat = -1, die = 0;

	if (!n && !kj_svg_anim_path_ok(path))
		return kb_err_set(err, -1, "%.120s: an animation is written as SVG only (a PNG "
				  "cannot move); expected a FILE ending in .svg", path);
	if (n && kj_tx_board(tx, n, board, &seat, &die)) {
		snprintf(err->msg, sizeof err->msg, "roll %" PRIu32 ": the game has %zu rolls", n,
			 tx->nrolls);
		return -1;
	}
	snprintf(svgpath, sizeof svgpath, "%s%s", path ? path : "", png ? ".svg" : "");
	if (path && !(f = fopen(svgpath, "w"))) {
		snprintf(err->msg, sizeof err->msg, "cannot write %.140s: %.30s", svgpath,
			 strerror(errno));
		return -1;
	}
	if (n) {
		header(f);
		frame(f, board, seat, die, kj_tx_present(tx));
		forfeit_marks(f, tx, n);
		fprintf(f, "</svg>\n");
	} else
		animated(f, tx);
	if (path && fclose(f)) {
		snprintf(err->msg, sizeof err->msg, "cannot write %.150s", svgpath);
		return -1;
	}
	if (png) {
		int rc = convert(svgpath, path);
		unlink(svgpath);
		if (rc) {
			snprintf(err->msg, sizeof err->msg,
				 "%.120s: no working rsvg-convert or convert to make a PNG", path);
			return -1;
		}
	}
	return 0;
}
