/* plan.c - the games of a tournament in order; see plan.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "plan.h"
#include "core/num.h"

#define MAX_GAMES 1000000u

int kj_table_seat(int n, int k)
{
	static const int seats[5][4] = {{0}, {0}, {0, 2}, {0, 1, 2}, {0, 1, 2, 3}};

	return seats[n][k];
}

unsigned kj_table_present(int n)
{
	static const unsigned masks[KB_SEATS] = {0x1, 0x5, 0x7, 0xf};

	return n >= 1 && n <= KB_SEATS ? masks[n - 1] : 0; /* 5 bots of -f fixed: none */
}

static int fail(kb_err *err, const char *what)
{
	return kb_err_set(err, -1, "%s", what);
}

/* Advance comb (k indices out of 0..n-1, increasing) to the next
 * combination; returns 0 when there is none. */
static int next_comb(int *comb, int k, int n)
{
	int i = k - 1;

	while (i >= 0 && comb[i] == n - k + i)
		i--;
	if (i < 0)
		return 0;
	comb[i]++;
	for (int j = i + 1; j < k; j++)
		comb[j] = comb[j - 1] + 1;
	return 1;
}

static int add_deal(kj_plan *plan, const int *lineup, int n, uint64_t seed, int nstarts,
		    uint32_t *cap)
{
	uint32_t d = plan->ndeals++;

	if (plan->ngames + (uint32_t)n > *cap) {
		uint32_t ncap = *cap ? *cap * 2 : 256;
		kj_game_spec *p = realloc(plan->games, ncap * sizeof *p);
		if (!p)
			return -1;
		plan->games = p;
		*cap = ncap;
	}
	for (int r = 0; r < n; r++) {
		kj_game_spec *g = &plan->games[plan->ngames];
		memset(g->seat, -1, sizeof g->seat);
		g->index = plan->ngames++;
		g->deal = d;
		g->rotation = (uint32_t)r;
		g->seed = kb_stream_seed(seed, KB_TAG_GAME, d);
		g->start = nstarts ? (int)(d % (uint32_t)nstarts) : -1;
		for (int k = 0; k < n; k++)
			g->seat[kj_table_seat(n, k)] = (int8_t)lineup[(k + r) % n];
	}
	return 0;
}

int kj_plan_build(kj_plan *plan, enum kj_format fmt, int nbots, int table, uint32_t rounds,
		  uint64_t seed, int nstarts, kb_err *err)
{
	int comb[KB_SEATS], lineup[KB_SEATS];
	int k = fmt == KJ_GAUNTLET ? table - 1 : table;
	int pool = fmt == KJ_GAUNTLET ? nbots - 1 : nbots;
	uint32_t cap = 0;

	memset(plan, 0, sizeof *plan);
	plan->table = table;
	if (table < 1 || table > KB_SEATS)
		return fail(err, "table size: expected 1 to 4 seats");
	if (nbots < 1 || nbots > KJ_MAX_BOTS)
		return fail(err, "participants: expected 1 to 64 bots");
	if (fmt == KJ_FIXED && nbots != table)
		return fail(err, "fixed lineup: expected as many bots as seats");
	if (fmt == KJ_GAUNTLET && table < 2)
		return kb_err_set(err, -1, "table size %d: a gauntlet needs at least 2 seats", table);
	if (k > pool)
		return kb_err_set(err, -1, "table size %d: larger than the number of bots allows "
				  "(%d bot(s): at most %d seats)", table, nbots,
				  nbots < KB_SEATS ? nbots : KB_SEATS);
	for (int i = 0; i < k; i++)
		comb[i] = i;
	do {
		for (int i = 0; i < k; i++)
			lineup[i + (fmt == KJ_GAUNTLET)] = comb[i] + (fmt == KJ_GAUNTLET);
		lineup[0] = fmt == KJ_GAUNTLET ? 0 : lineup[0];
		for (uint32_t j = 0; j < rounds; j++) {
			if (plan->ngames + (uint32_t)table > MAX_GAMES) {
				kj_plan_free(plan);
				return fail(err, "plan: more than 1000000 games; use fewer --games");
			}
			if (add_deal(plan, lineup, table, seed, nstarts, &cap)) {
				kj_plan_free(plan);
				return fail(err, "plan: out of memory");
			}
		}
	} while (fmt != KJ_FIXED && next_comb(comb, k, pool));
	return 0;
}

void kj_plan_free(kj_plan *plan)
{
	free(plan->games);
	plan->games = NULL;
	plan->ngames = plan->ndeals = 0;
}

/* ---- start positions ---------------------------------------------------- */

static int start_line(char *line, unsigned present, kj_start *st, kb_err *err)
{
	char board[64], seat[8], die_text[8], rest[2];
	long long die = 0;
	kb_err perr;

	if (sscanf(line, "%63s %7s %7s %1s", board, seat, die_text, rest) != 3 ||
	    strlen(board) != KB_BOARD_LEN || seat[1] || seat[0] < 'A' || seat[0] > 'D' ||
	    kb_num_range("die", die_text, 0, 6, &die, NULL) != KB_NUM_OK) {
		snprintf(err->msg, sizeof err->msg,
			 "expected \"BOARD X D\": a 44-character board, a seat letter A-D, a die 0-6");
		return -1;
	}
	if (kb_board_parse(board, KB_BOARD_LEN, present, &st->pos, &perr)) {
		snprintf(err->msg, sizeof err->msg, "%.180s", perr.msg);
		return -1;
	}
	st->turn = seat[0] - 'A';
	st->die = (int)die;
	if (!((present >> st->turn) & 1)) {
		snprintf(err->msg, sizeof err->msg, "seat %c to roll does not play at this table",
			 seat[0]);
		return -1;
	}
	return 0;
}

int kj_starts_read(const char *path, unsigned present, kj_start **out, kb_err *err)
{
	FILE *f = fopen(path, "r");
	char line[256];
	int n = 0, cap = 0, lineno = 0;
	kj_start *list = NULL;

	if (!f) {
		snprintf(err->msg, sizeof err->msg, "start positions %.150s: cannot open", path);
		return -1;
	}
	while (fgets(line, sizeof line, f)) {
		kb_err lerr;
		lineno++;
		if (line[0] == '#' || strspn(line, " \t\r\n") == strlen(line))
			continue;
		if (n == cap) {
			kj_start *p = realloc(list, (size_t)(cap = cap ? cap * 2 : 16) * sizeof *p);
			if (!p) { /* not a shorter list: every position or an error */
				snprintf(err->msg, sizeof err->msg, "start positions %.150s: out of memory",
					 path);
				goto fail;
			}
			list = p;
		}
		if (start_line(line, present, &list[n], &lerr)) {
			snprintf(err->msg, sizeof err->msg, "%.60s:%d: %.110s", path, lineno, lerr.msg);
			goto fail;
		}
		n++;
	}
	fclose(f);
	if (n == 0) {
		free(list);
		snprintf(err->msg, sizeof err->msg, "start positions %.150s: no positions", path);
		return -1;
	}
	*out = list;
	return n;
fail: /* err is set */
	free(list);
	fclose(f);
	return -1;
}
