/* game.c - seeded games with built-in seats and autopilot; see game.h. */
#include <string.h>

#include "game.h"

static unsigned ctl_mask(const uint8_t ctl[KB_SEATS])
{
	unsigned mask = 1;

	for (int s = 1; s < KB_SEATS; s++)
		if (ctl[s] != KB_ABSENT)
			mask |= 1u << s;
	return mask;
}

int kb_ctl_seats(const uint8_t ctl[KB_SEATS])
{
	return __builtin_popcount(ctl_mask(ctl));
}

static void seed_streams(kb_game *g, uint64_t seed, const uint8_t ctl[KB_SEATS])
{
	memset(g, 0, sizeof *g);
	g->seed = seed;
	for (int s = 0; s < KB_SEATS; s++) {
		kb_rng_stream(&g->dice[s], seed, KB_TAG_DICE, (uint64_t)s);
		kb_rng_stream(&g->policy_rng[s], seed, KB_TAG_POLICY, (uint64_t)s);
		g->ctl[s] = ctl[s];
	}
	if (g->ctl[0] == KB_ABSENT)
		g->ctl[0] = KB_EXTERNAL;
	g->winner = KB_NO_WINNER;
	g->pending_seat = -1;
}

void kb_game_init(kb_game *g, uint64_t seed, const uint8_t ctl[KB_SEATS])
{
	unsigned mask = ctl_mask(ctl);
	kb_rng first;
	uint32_t k;

	seed_streams(g, seed, ctl);
	kb_pos_init(&g->pos, mask);
	kb_rng_stream(&first, seed, KB_TAG_FIRST, 0);
	k = kb_rng_below(&first, (uint32_t)__builtin_popcount(mask));
	for (int s = 0; s < KB_SEATS; s++)
		if ((mask >> s) & 1 && k-- == 0) {
			g->turn = (int8_t)s;
			break;
		}
}

int kb_game_init_at(kb_game *g, uint64_t seed, const uint8_t ctl[KB_SEATS],
		    const kb_pos *pos, int turn, int die)
{
	unsigned mask = ctl_mask(ctl);

	seed_streams(g, seed, ctl);
	if (kb_pos_check(pos) || pos->present != mask || turn < 0 || turn > 3 ||
	    !((mask >> turn) & 1) || die < 0 || die > 6)
		return -1;
	for (int s = 0; s < KB_SEATS; s++)
		if (kb_has_won(pos, s) && kb_present(pos, s))
			return -1;
	g->pos = *pos;
	g->turn = (int8_t)turn;
	g->forced_die = (int8_t)die;
	return 0;
}

unsigned kb_game_pending_mask(const kb_game *g)
{
	if (g->pending_seat < 0)
		return 0;
	return kb_legal(&g->pos, g->pending_seat, g->pending_die);
}

/* Play index idx (or pass when -1) for the current roll and move on. */
static void finish_roll(kb_game *g, int idx, enum kb_how how, const kb_hooks *hooks)
{
	int s = g->last.seat, d = g->last.die;

	g->last.index = idx;
	g->last.how = how;
	g->last.captured = idx >= 0 ? kb_apply(&g->pos, s, idx, d) : -1;
	if (hooks && hooks->played)
		hooks->played(hooks->ctx, &g->last);
	if (kb_has_won(&g->pos, s))
		g->winner = (int8_t)s;
	else
		g->turn = (int8_t)kb_next_seat(&g->pos, s, d);
}

int kb_game_advance(kb_game *g, const kb_hooks *hooks)
{
	while (g->winner == KB_NO_WINNER && g->pending_seat < 0) {
		int s = g->turn;
		int d = g->forced_die > 0 ? g->forced_die : kb_rng_die(&g->dice[s]);
		unsigned mask;

		g->forced_die = 0;
		g->rolls++;
		g->last.seat = s;
		g->last.die = d;
		g->last.index = -1;
		g->last.captured = -1;
		if (hooks) {
			kb_board_format(&g->pos, g->last.board);
			if (hooks->rolled)
				hooks->rolled(hooks->ctx, &g->last);
		}
		mask = kb_legal(&g->pos, s, d);
		if (mask == 0)
			finish_roll(g, -1, KB_PASS, hooks);
		else if ((mask & (mask - 1)) == 0)
			finish_roll(g, __builtin_ctz(mask), KB_AUTO, hooks);
		else if (g->ctl[s] == KB_EXTERNAL) {
			g->pending_seat = (int8_t)s;
			g->pending_die = (int8_t)d;
			if (!hooks)
				kb_board_format(&g->pos, g->last.board);
		} else
			finish_roll(g, kb_pick(g->ctl[s], mask, &g->policy_rng[s]),
				    KB_BUILTIN, hooks);
	}
	return g->winner == KB_NO_WINNER ? g->pending_seat : -1;
}

int kb_game_decide(kb_game *g, int idx, const kb_hooks *hooks)
{
	if (g->pending_seat < 0 || idx < 0 || idx > 3 ||
	    !(kb_game_pending_mask(g) & (1u << idx)))
		return -1;
	g->pending_seat = -1;
	finish_roll(g, idx, KB_DECIDED, hooks);
	return 0;
}
