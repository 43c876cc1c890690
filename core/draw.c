/* draw.c - terminal board pictures; see draw.h. */
#include <string.h>

#include "draw.h"
#include "facts.h"

#define ROWS 16
#define COLS 16 /* cells; each cell is printed two characters wide */

/* Cell (row, col) of every board index in the picture. */
static void place(int idx, int *row, int *col)
{
	if (idx < 8) {                  /* top edge, left to right */
		*row = 4, *col = 4 + idx;
	} else if (idx < 14) {          /* right edge, downwards */
		*row = 5 + (idx - 8), *col = 11;
	} else if (idx < 22) {          /* bottom edge, right to left */
		*row = 11, *col = 11 - (idx - 14);
	} else if (idx < 28) {          /* left edge, upwards */
		*row = 10 - (idx - 22), *col = 4;
	} else {
		int s = (idx - 28) / 4, k = (idx - 28) % 4;
		switch (s) {
		case 0: *row = 3 - k, *col = 3 - k; break;   /* up-left  */
		case 1: *row = 3 - k, *col = 12 + k; break;  /* up-right */
		case 2: *row = 12 + k, *col = 12 + k; break; /* down-right */
		default: *row = 12 + k, *col = 3 - k; break; /* down-left */
		}
	}
}

static const char *const colour[] = {"\033[1;31m", "\033[1;34m", "\033[1;32m", "\033[1;33m"};

int kb_draw_board(FILE *out, const char board[KB_BOARD_LEN], int seat, int die,
		  unsigned present, int color)
{
	char cell[ROWS][COLS];
	int on_board[KB_SEATS] = {0};

	memset(cell, ' ', sizeof cell);
	for (int i = 0; i < KB_BOARD_LEN; i++) {
		int r, c;
		place(i, &r, &c);
		cell[r][c] = board[i] == '0' ? '.' : board[i];
		if (board[i] >= 'A' && board[i] <= 'D')
			on_board[board[i] - 'A']++;
	}
	if (seat >= 0 && seat < KB_SEATS) {
		cell[7][7] = (char)('A' + seat);
		cell[8][8] = (char)('0' + die);
	}
	for (int r = 0; r < ROWS; r++) {
		int last = COLS - 1;
		while (last >= 0 && cell[r][last] == ' ')
			last--;
		for (int c = 0; c <= last; c++) {
			char ch = cell[r][c];
			int piece = ch >= 'A' && ch <= 'D' && !(r == 7 && c == 7);
			if (fprintf(out, "%s%c%s%s", piece && color ? colour[ch - 'A'] : "", ch,
				    piece && color ? "\033[0m" : "", c < last ? " " : "") < 0)
				return -1;
		}
		if (fputc('\n', out) == EOF)
			return -1;
	}
	/* which corner is whose: the goal diagonal of a seat ends in it */
	for (int s = 0; s < KB_SEATS; s++) {
		int goal = 0;
		if (!(present ? (present >> s) & 1 : on_board[s] > 0))
			continue;
		for (int k = 0; k < KB_PIECES; k++)
			goal += board[kb_board_index(s, KB_GOAL_FIRST + k)] != '0';
		if (fprintf(out, "%c %s: home %d, goal %d\n", 'A' + s, kb_corner_name(s),
			    KB_PIECES - on_board[s], goal) < 0)
			return -1;
	}
	return 0;
}

int kb_draw_facts(FILE *out, const kb_facts *fx)
{
	char text[320];

	kb_facts_text(fx, text, sizeof text);
	return fprintf(out, "%s\n", text) < 0 ? -1 : 0;
}
