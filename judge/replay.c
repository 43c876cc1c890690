/* replay.c - replays and reruns of transcripts; see replay.h. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/draw.h"
#include "replay.h"

unsigned kj_tx_present(const kb_transcript *tx)
{
	unsigned mask = 1;

	for (int s = 1; s < KB_SEATS; s++)
		if (tx->ctl[s] != KB_ABSENT)
			mask |= 1u << s;
	return mask;
}

int kj_tx_board(const kb_transcript *tx, uint32_t n, char board[KB_BOARD_LEN], int *seat,
		int *die)
{
	if (n < 1 || n > tx->nrolls + 1)
		return -1;
	if (n <= tx->nrolls) {
		const kb_tx_roll *r = &tx->rolls[n - 1];
		memcpy(board, r->line, KB_BOARD_LEN);
		*seat = r->line[KB_BOARD_LEN] - 'A';
		*die = r->line[KB_BOARD_LEN + 1] - '0';
		return 0;
	}
	if (!tx->nrolls) { /* no roll: the game stands where it started */
		kb_pos start;
		if (tx->has_start) {
			memcpy(board, tx->start_board, KB_BOARD_LEN);
		} else {
			kb_pos_init(&start, kj_tx_present(tx));
			kb_board_format(&start, board);
		}
		*seat = -1;
		*die = 0;
		return 0;
	}
	/* After the last roll: play it on its board. */
	const kb_tx_roll *last = &tx->rolls[tx->nrolls - 1];
	kb_pos pos;
	int s = last->line[KB_BOARD_LEN] - 'A', d = last->line[KB_BOARD_LEN + 1] - '0';
	if (kb_board_parse(last->line, KB_BOARD_LEN, kj_tx_present(tx), &pos, NULL))
		return -1;
	if (last->index >= 0 && (kb_legal(&pos, s, d) >> last->index & 1))
		kb_apply(&pos, s, last->index, d);
	kb_board_format(&pos, board);
	*seat = -1;
	*die = 0;
	return 0;
}

const char *kj_tx_seat_name(const kb_transcript *tx, int s)
{
	return tx->name[s][0] ? tx->name[s] : kb_policy_name(tx->ctl[s]);
}

/* "A mybot forfeited at roll 37 (illegal: DETAIL); seat finished by hard
 * (replacement)" */
static void forfeit_line(FILE *out, const kb_transcript *tx, int s)
{
	const kb_tx_forfeit *f = &tx->forfeit[s];

	fprintf(out, "%c %s forfeited ", 'A' + s, kj_tx_seat_name(tx, s));
	if (f->roll)
		fprintf(out, "at roll %" PRIu32, f->roll);
	else
		fprintf(out, "before the first roll");
	fprintf(out, " (%s%s%s); seat finished by %s (replacement)\n", f->reason,
		strcmp(f->detail, "-") ? ": " : "", strcmp(f->detail, "-") ? f->detail : "",
		f->replacement);
}

static void roll_header(FILE *out, const kb_transcript *tx, const kb_tx_roll *r)
{
	int s = r->line[KB_BOARD_LEN] - 'A';
	const kb_tx_forfeit *f = &tx->forfeit[s];
	int replaced = f->seen && r->n >= f->roll;

	if (f->seen && r->n == f->roll)
		forfeit_line(out, tx, s);
	fprintf(out, "roll %" PRIu32 ": %c (%s%s%s) rolls %c", r->n, 'A' + s,
		replaced ? f->replacement : kj_tx_seat_name(tx, s), replaced ? ", replacing " : "",
		replaced ? kj_tx_seat_name(tx, s) : "", r->line[KB_BOARD_LEN + 1]);
	if (r->index >= 0)
		fprintf(out, ", moves piece %d (%s)\n", r->index,
			replaced && r->how == KB_DECIDED ? "replacement" : kb_how_name(r->how));
	else
		fprintf(out, ", cannot move\n");
}

/* The roll's legal moves, from and to and capture, from the rules. */
static void roll_facts(FILE *out, const kb_transcript *tx, const kb_tx_roll *r)
{
	kb_facts fx;

	kb_facts_of(r->line, kj_tx_present(tx), r->line[KB_BOARD_LEN] - 'A',
		    r->line[KB_BOARD_LEN + 1] - '0', r->index, &fx);
	kb_draw_facts(out, &fx);
}

int kj_replay_print(FILE *out, const kb_transcript *tx, uint32_t at, int step, int color)
{
	unsigned present = kj_tx_present(tx);

	if (at > tx->nrolls)
		return -1;
	fprintf(out, "game seed %" PRIu64 ", seats", tx->seed);
	for (int s = 0; s < KB_SEATS; s++)
		if ((present >> s) & 1)
			fprintf(out, " %c=%s (%s%s)", 'A' + s, kj_tx_seat_name(tx, s), kb_corner_name(s),
				tx->forfeit[s].seen ? ", forfeited" : "");
	fprintf(out, ", %zu rolls\n", tx->nrolls);
	for (int s = 0; s < KB_SEATS; s++)
		if (!at && tx->forfeit[s].seen && tx->forfeit[s].roll == 0)
			forfeit_line(out, tx, s);
	for (size_t i = 0; i < tx->nrolls; i++) {
		const kb_tx_roll *r = &tx->rolls[i];
		if (at && r->n != at)
			continue;
		if (step) {
			char line[64];
			fflush(out);
			if (!fgets(line, sizeof line, stdin))
				step = 0;
		}
		roll_header(out, tx, r);
		roll_facts(out, tx, r);
		kb_draw_board(out, r->line, r->line[KB_BOARD_LEN] - 'A', r->line[KB_BOARD_LEN + 1] - '0',
			      present, color);
	}
	if (!at && tx->ended) {
		char board[KB_BOARD_LEN];
		int seat, die;
		if (tx->nrolls && kj_tx_board(tx, (uint32_t)tx->nrolls + 1, board, &seat, &die) == 0) {
			fprintf(out, "final position\n");
			kb_draw_board(out, board, -1, 0, present, color);
		}
		for (int s = 0; s < KB_SEATS; s++)
			if (tx->forfeit[s].seen)
				forfeit_line(out, tx, s);
		fprintf(out, "winner: %c (%s)\n", tx->winner >= 0 ? 'A' + tx->winner : '-', tx->reason);
	}
	return 0;
}

static void check_fingerprints(FILE *out, const kb_transcript *tx,
			       const kj_bot *const bots[KB_SEATS])
{
	for (int s = 0; s < KB_SEATS; s++) {
		char now[17];
		if (!bots[s] || bots[s]->builtin || !tx->fingerprint[s][0])
			continue;
		kj_bot_fingerprint(bots[s], now);
		if (!strcmp(now, tx->fingerprint[s]))
			fprintf(out, "seat %c: %s's learned state unchanged (fingerprint %s)\n",
				'A' + s, bots[s]->name, now);
		else if (!strcmp(tx->fingerprint[s], "-"))
			fprintf(out,
				"seat %c: %s had no learned state when the game was played, and has "
				"one now (fingerprint %s)\n",
				'A' + s, bots[s]->name, now);
		else
			fprintf(out,
				"seat %c: %s's learned state changed since the game was played "
				"(fingerprint %s, now %s)\n",
				'A' + s, bots[s]->name, tx->fingerprint[s], now);
	}
}

/* First roll where the two transcripts differ, 0 when they agree. */
static uint32_t first_difference(const kb_transcript *a, const kb_transcript *b)
{
	size_t n = a->nrolls < b->nrolls ? a->nrolls : b->nrolls;

	for (size_t i = 0; i < n; i++)
		if (memcmp(a->rolls[i].line, b->rolls[i].line, KB_ROLL_LINE_LEN) ||
		    a->rolls[i].index != b->rolls[i].index || a->rolls[i].how != b->rolls[i].how)
			return (uint32_t)i + 1;
	if (a->nrolls != b->nrolls || a->winner != b->winner)
		return (uint32_t)n + 1;
	return 0;
}

static void show_roll(FILE *out, const char *label, const kb_transcript *tx, uint32_t n)
{
	if (n > tx->nrolls) {
		fprintf(out, "  %s: the game ended after %zu rolls, winner %c\n", label, tx->nrolls,
			tx->winner >= 0 ? 'A' + tx->winner : '-');
		return;
	}
	const kb_tx_roll *r = &tx->rolls[n - 1];
	fprintf(out, "  %s: %.46s moves %d (%s)\n", label, r->line, r->index, kb_how_name(r->how));
}

int kj_rerun(FILE *out, const kb_transcript *tx, const kj_bot *const bots[KB_SEATS],
	     const kj_match_opts *opt, kb_err *err)
{
	kj_match_opts mo = *opt;
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	kb_transcript again;
	kj_result res;
	uint32_t diff;

	if (!mem) {
		snprintf(err->msg, sizeof err->msg, "rerun: out of memory");
		return -1;
	}
	check_fingerprints(out, tx, bots);
	mo.limits.learn = 0;
	mo.timing = 0;
	mo.expect = tx;
	if (tx->has_start) {
		mo.has_start = 1;
		mo.start_turn = tx->start_turn;
		mo.start_die = tx->start_die;
		if (kb_board_parse(tx->start_board, KB_BOARD_LEN, kj_tx_present(tx), &mo.start, err)) {
			fclose(mem);
			free(text);
			return -1;
		}
	}
	if (kj_match_play(bots, tx->seed, &mo, mem, &res, err)) {
		fclose(mem);
		free(text);
		return -1;
	}
	fclose(mem);
	/* The rerun's notes (forfeits, lineups) explain most differences. */
	for (const char *p = text; (p = strstr(p, "\nnote ")); p++) {
		const char *eol = strchr(p + 1, '\n');
		fprintf(out, "rerun %.*s\n", (int)(eol ? eol - p - 1 : (long)strlen(p + 1)), p + 1);
	}
	if (kb_tx_parse(text, len, &again, err)) {
		free(text);
		return -1;
	}
	free(text);
	diff = first_difference(tx, &again);
	if (diff) {
		fprintf(out, "rerun differs at roll %" PRIu32 ":\n", diff);
		show_roll(out, "transcript", tx, diff);
		show_roll(out, "rerun     ", &again, diff);
	} else {
		fprintf(out, "rerun agrees with the transcript: %zu rolls, winner %c\n", again.nrolls,
			again.winner >= 0 ? 'A' + again.winner : '-');
	}
	kb_tx_free(&again);
	return diff ? 1 : 0;
}
