/* facts.c - the facts of a roll from the rules engine; see facts.h. */
#include <stdio.h>
#include <string.h>

#include "facts.h"

int kb_square_of(int s, int prog)
{
	if (prog == KB_HOME)
		return KB_SQ_HOME;
	return kb_board_index(s, prog);
}

static void count_pieces(const kb_pos *pos, kb_facts *fx)
{
	for (int s = 0; s < KB_SEATS; s++)
		for (int i = 0; i < KB_PIECES; i++) {
			fx->home[s] += pos->prog[s][i] == KB_HOME && kb_present(pos, s);
			fx->goal[s] += pos->prog[s][i] >= KB_GOAL_FIRST;
		}
}

/* Where piece idx of seat s lands with die d (it is legal). */
static int target_of(const kb_pos *pos, int s, int idx, int d)
{
	int r = pos->prog[s][idx];

	return kb_square_of(s, kb_move_target(r, d));
}

int kb_facts_of(const char board[KB_BOARD_LEN], unsigned present, int s, int die, int index,
		kb_facts *out)
{
	kb_pos pos;

	memset(out, 0, sizeof *out);
	out->seat = s, out->die = die;
	out->index = -1, out->from = out->to = KB_SQ_HOME, out->captured = -1;
	for (int i = 0; i < KB_PIECES; i++)
		out->legal_from[i] = out->legal_to[i] = KB_SQ_HOME;
	if (kb_board_parse(board, KB_BOARD_LEN, present, &pos, NULL))
		return -1;
	count_pieces(&pos, out);
	if (s < 0 || s >= KB_SEATS || die < 1 || die > 6 || !kb_present(&pos, s))
		return s < 0 ? 0 : -1;
	out->legal = kb_legal(&pos, s, die);
	for (int i = 0; i < KB_PIECES; i++)
		if (out->legal >> i & 1) {
			out->legal_from[i] = kb_square_of(s, pos.prog[s][i]);
			out->legal_to[i] = target_of(&pos, s, i, die);
		}
	if (index < 0)
		return 0;
	if (index >= KB_PIECES || !(out->legal >> index & 1))
		return -1;
	out->index = index;
	out->from = out->legal_from[index];
	out->to = out->legal_to[index];
	out->captured = kb_apply(&pos, s, index, die);
	return 0;
}

void kb_square_name(int sq, char *out, size_t size)
{
	if (sq == KB_SQ_HOME)
		snprintf(out, size, "home");
	else if (sq < KB_TRACK)
		snprintf(out, size, "ring %d", sq);
	else
		snprintf(out, size, "goal %c%d", 'A' + (sq - KB_TRACK) / 4, (sq - KB_TRACK) % 4 + 1);
}

const char *kb_corner_name(int s)
{
	static const char *const names[KB_SEATS] = {"top left", "top right", "bottom right",
						    "bottom left"};
	return s >= 0 && s < KB_SEATS ? names[s] : "?";
}

void kb_facts_text(const kb_facts *fx, char *out, size_t size)
{
	char a[24], b[24];
	size_t n;

	if (fx->seat < 0) {
		snprintf(out, size, "final position");
		return;
	}
	n = (size_t)snprintf(out, size, "%c rolls %d, ", 'A' + fx->seat, fx->die);
	if (!fx->legal && n < size)
		n += (size_t)snprintf(out + n, size - n, "no piece can move");
	else if (n < size)
		n += (size_t)snprintf(out + n, size - n, "could move");
	for (int i = 0, k = 0; i < KB_PIECES && n < size; i++)
		if (fx->legal >> i & 1) {
			kb_square_name(fx->legal_from[i], a, sizeof a);
			kb_square_name(fx->legal_to[i], b, sizeof b);
			n += (size_t)snprintf(out + n, size - n, "%s %d (%s -> %s)", k++ ? "," : "", i,
					      a, b);
		}
	if (fx->index < 0 || n >= size)
		return;
	kb_square_name(fx->from, a, sizeof a);
	kb_square_name(fx->to, b, sizeof b);
	n += (size_t)snprintf(out + n, size - n, "; moves %d from %s to %s", fx->index, a, b);
	if (fx->captured >= 0 && n < size)
		snprintf(out + n, size - n, ", captures %c", 'A' + fx->captured);
}
