/* bot.c - a Kimble bot in plain C (no library beyond libc): capture when
 * it can, else bring a piece into the goal, else leave home, else move the
 * foremost piece that does not land where an opponent can hit it.
 *
 *   cc -O2 -o bot bot.c        then meta runs ./bot OPPONENTS SEED
 *
 * The protocol and the board are described in docs/spec.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TRACK = 28, GOAL_END = 31, BOARD = 44, STATE = 46 };

/* One digit per seat B, C, D: 0 absent, 1 easy, 2 anything else. */
static void start_line(const char *opponents, char out[8])
{
	char names[128];
	char *rest = names, *name;
	snprintf(names, sizeof names, "%s", opponents);
	strcpy(out, "v001000");
	for (int seat = 0; seat < 3 && rest; seat++) {
		name = strsep(&rest, ",");
		if (*name && strcmp(name, "-") && strcmp(name, "none"))
			out[4 + seat] = strcmp(name, "easy") ? '2' : '1';
	}
}

/* A's pieces foremost first: progress 0..31, -1 for a home piece. */
static void my_pieces(const char *board, int piece[4])
{
	int n = 0;
	for (int square = GOAL_END; square >= 0; square--)
		if (board[square] == 'A')
			piece[n++] = square;
	while (n < 4)
		piece[n++] = -1;
}

/* danger[q] = 1 when an opponent's next roll can end on ring square q. */
static void threats(const char *board, char danger[TRACK])
{
	memset(danger, 0, TRACK);
	for (int seat = 1; seat < 4; seat++) {
		char letter = (char)('A' + seat);
		int start = 7 * seat, seen = 0;
		for (int square = 0; square < BOARD; square++) {
			if (board[square] != letter)
				continue;
			seen++;
			int progress = (square - start + TRACK) % TRACK;
			for (int die = 1; square < TRACK && die <= 6; die++)
				if (progress + die < TRACK)
					danger[(start + progress + die) % TRACK] = 1;
		}
		if (seen < 4)	/* a home piece leaves onto its start with a 6 */
			danger[start] = 1;
	}
}

/* Score of moving piece i with die, or -1e9 when the move is illegal. */
static double score(const char *board, const char *danger, const int piece[4], int i, int die)
{
	int from = piece[i];
	if (from < 0) {
		if (die != 6 || (i > 0 && piece[i - 1] < 0) || board[0] == 'A')
			return -1e9;
		return board[0] != '0' ? 1000 : 300;
	}
	int to = from + die;
	if (to > GOAL_END || board[to] == 'A')
		return -1e9;
	double value = from / 10.0;
	if (to < TRACK && board[to] != '0')
		value += 1000 + to;
	if (to >= TRACK && from < TRACK)
		value += 400;
	if (from < TRACK && danger[from])
		value += 200 + from;
	if (to < TRACK && danger[to])
		value -= 350 + to;
	return value;
}

static int choose(const char *board, int die)
{
	int piece[4], best = 0;
	double best_value = -2e9;
	char danger[TRACK];
	my_pieces(board, piece);
	threats(board, danger);
	for (int i = 0; i < 4; i++) {
		double value = score(board, danger, piece, i, die);
		if (value > best_value) {
			best_value = value;
			best = i;
		}
	}
	return best;
}

int main(int argc, char **argv)
{
	char start[8], line[256], token[66] = "", last[STATE + 1] = "";
	if (argc < 3) {
		fprintf(stderr, "usage: %s OPPONENTS SEED\n", argv[0]);
		return 1;
	}
	start_line(argv[1], start);
	printf("%s\n", start);
	fflush(stdout);
	while (fgets(line, sizeof line, stdin)) {
		line[strcspn(line, "\r\n")] = '\0';
		size_t len = strlen(line);
		if (line[0] == 't' && len == 65)
			memcpy(token, line, sizeof token);
		else if (!strncmp(line, "Voittaja", 8))
			return 0;
		else if (!strncmp(line, "Virhe", 5))
			return 3;
		else if (len == STATE)
			memcpy(last, line, sizeof last);
		else if (!strcmp(line, "END") && last[BOARD] == 'A') {
			printf("%s%d\n", token, choose(last, last[BOARD + 1] - '0'));
			fflush(stdout);
		}
	}
	return 0;
}
