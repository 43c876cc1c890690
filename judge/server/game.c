/* game.c - running games, tokens, expiry, transcripts; see
 * game.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "core/transcript.h"
#include "judge/server/game.h"
#include "judge/server/list.h"

#define FIRST_BUCKETS 1024

int srv_games_init(srv_games *t, uint64_t seed, int64_t ttl_ms, const char *log_dir)
{
	memset(t, 0, sizeof *t);
	t->seed = seed;
	t->ttl_ms = ttl_ms;
	t->log_dir = log_dir;
	t->nbuckets = FIRST_BUCKETS;
	t->by_token = calloc(t->nbuckets, sizeof *t->by_token);
	t->by_spec = calloc(t->nbuckets, sizeof *t->by_spec);
	if (!t->by_token || !t->by_spec) {
		free(t->by_token);
		free(t->by_spec);
		return -1;
	}
	return 0;
}

void srv_games_free(srv_games *t, const char *reason)
{
	while (t->lru_head)
		srv_game_end(t, t->lru_head, reason);
	free(t->by_token);
	free(t->by_spec);
	t->by_token = t->by_spec = NULL;
}

/* Fill out with n bytes from the operating system's random source; a
 * buffer of them is fetched at a time to keep system calls rare. */
static int os_random(srv_games *t, uint8_t *out, size_t n)
{
	while (n) {
		if (t->rand_left == 0) {
			ssize_t got = getrandom(t->rand, sizeof t->rand, 0);
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0)
				return -1;
			t->rand_left = (size_t)got;
		}
		size_t take = n < t->rand_left ? n : t->rand_left;
		uint8_t *from = t->rand + sizeof t->rand - t->rand_left;
		memcpy(out, from, take);
		memset(from, 0, take); /* a used token never stays in the pool */
		t->rand_left -= take;
		out += take;
		n -= take;
	}
	return 0;
}

/* Tokens are uniformly random, so their first 16 hex digits hash well. */
static uint64_t token_key(const char *token)
{
	uint64_t v = 0;

	for (int i = 1; i <= 16; i++) {
		int c = (unsigned char)token[i];
		v = v << 4 | (uint64_t)(c <= '9' ? c - '0' : c - 'a' + 10);
	}
	return v;
}

static srv_game **token_slot(const srv_games *t, const char *token)
{
	return &t->by_token[token_key(token) & (t->nbuckets - 1)];
}

static srv_game **spec_slot(const srv_games *t, uint64_t id)
{
	return &t->by_spec[id & (t->nbuckets - 1)];
}

srv_game *srv_game_by_token(const srv_games *t, const char token[KB_TOKEN_LEN])
{
	for (srv_game *g = *token_slot(t, token); g; g = g->token_next)
		if (memcmp(g->token, token, KB_TOKEN_LEN) == 0)
			return g;
	return NULL;
}

srv_game *srv_game_by_spec(const srv_games *t, uint64_t spec_id)
{
	for (srv_game *g = *spec_slot(t, spec_id); g; g = g->spec_next)
		if (g->spec_id == spec_id)
			return g;
	return NULL;
}

static void link_hashes(srv_games *t, srv_game *g)
{
	srv_game **ts = token_slot(t, g->token), **ss = spec_slot(t, g->spec_id);

	g->token_next = *ts;
	*ts = g;
	g->spec_next = *ss;
	*ss = g;
}

/* Double the bucket arrays when the tables fill up; on out of memory keep
 * the old ones (chains only get longer). */
static void grow_tables(srv_games *t)
{
	size_t n = t->nbuckets * 2;
	srv_game **bt = calloc(n, sizeof *bt), **bs = calloc(n, sizeof *bs);

	if (!bt || !bs) {
		free(bt);
		free(bs);
		return;
	}
	free(t->by_token);
	free(t->by_spec);
	t->by_token = bt;
	t->by_spec = bs;
	t->nbuckets = n;
	for (srv_game *g = t->lru_head; g; g = g->lru_next)
		link_hashes(t, g);
}

static void unlink_hashes(srv_games *t, srv_game *g)
{
	srv_game **slot = token_slot(t, g->token);

	while (*slot && *slot != g)
		slot = &(*slot)->token_next;
	if (*slot)
		*slot = g->token_next;
	for (slot = spec_slot(t, g->spec_id); *slot && *slot != g;)
		slot = &(*slot)->spec_next;
	if (*slot)
		*slot = g->spec_next;
}

static void lru_unlink(srv_games *t, srv_game *g)
{
	SRV_LIST_UNLINK_ENDS(t->lru_head, t->lru_tail, g, lru_prev, lru_next);
}

static void lru_append(srv_games *t, srv_game *g)
{
	SRV_LIST_APPEND(t->lru_head, t->lru_tail, g, lru_prev, lru_next);
}

void srv_game_touch(srv_games *t, srv_game *g, int64_t now_ms)
{
	g->last_used_ms = now_ms;
	if (t->lru_tail != g) {
		lru_unlink(t, g);
		lru_append(t, g);
	}
}

static void hex_encode(const uint8_t *in, size_t n, char *out)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = hex[in[i] >> 4];
		out[2 * i + 1] = hex[in[i] & 0xf];
	}
}

/* A fresh token and spectator id, both unused in the table. */
static int new_ids(srv_games *t, srv_game *g)
{
	uint8_t raw[32 + 8];

	do {
		if (os_random(t, raw, sizeof raw))
			return -1;
		g->token[0] = 't';
		hex_encode(raw, 32, g->token + 1);
		memcpy(&g->spec_id, raw + 32, 8);
	} while (srv_game_by_token(t, g->token) || srv_game_by_spec(t, g->spec_id));
	/* explicit_bzero: a memset before the array goes out of scope is a
	 * dead store the compiler may drop, and did */
	explicit_bzero(raw, sizeof raw);
	return 0;
}

static void open_transcript(srv_game *g)
{
	uint8_t ctl[KB_SEATS] = {KB_EXTERNAL, g->lineup[0], g->lineup[1], g->lineup[2]};

	g->tx = open_memstream(&g->tx_buf, &g->tx_len);
	if (g->tx && kb_tx_write_header(g->tx, g->g.seed, ctl) != 0) {
		fclose(g->tx);
		free(g->tx_buf);
		g->tx = NULL;
		g->tx_buf = NULL;
	}
}

srv_game *srv_game_start(srv_games *t, const uint8_t lineup[3], int64_t now_ms)
{
	srv_game *g = calloc(1, sizeof *g);
	uint8_t ctl[KB_SEATS] = {KB_EXTERNAL, lineup[0], lineup[1], lineup[2]};

	if (!g)
		return NULL;
	if (new_ids(t, g)) {
		free(g);
		return NULL;
	}
	g->number = t->started++;
	memcpy(g->lineup, lineup, 3);
	kb_game_init(&g->g, kb_stream_seed(t->seed, KB_TAG_GAME, g->number), ctl);
	g->started_ms = g->last_used_ms = now_ms;
	if (t->log_dir)
		open_transcript(g);
	if (t->count >= t->nbuckets)
		grow_tables(t);
	link_hashes(t, g);
	lru_append(t, g);
	t->count++;
	return g;
}

void srv_game_played(void *game, const kb_roll *roll)
{
	srv_game *g = game;

	if (g->nrolls == g->cap_rolls) {
		uint32_t cap = g->cap_rolls ? g->cap_rolls * 2 : 256;
		uint8_t *r = realloc(g->rolls, cap);
		if (!r)
			return; /* spectators then see a shorter history */
		g->rolls = r;
		g->cap_rolls = cap;
	}
	g->rolls[g->nrolls++] = srv_roll_pack(roll->seat, roll->die, roll->index);
	if (g->tx)
		kb_tx_write_roll(g->tx, g->g.rolls, roll);
}

void srv_game_log_msg(srv_game *g, const char *bytes, size_t len, int64_t now_ms)
{
	if (g->tx)
		kb_tx_write_msg(g->tx, 0, (double)(now_ms - g->started_ms), bytes, len);
}

static void write_transcript(srv_games *t, srv_game *g, const char *reason)
{
	char path[4096];
	FILE *f;
	int ok;

	kb_tx_write_end(g->tx, g->g.winner, g->g.rolls,
			g->g.winner >= 0 ? "win" : reason);
	fclose(g->tx);
	g->tx = NULL;
	snprintf(path, sizeof path, "%s/game-%016" PRIx64 "-%06" PRIu64 ".txt", t->log_dir,
		 t->seed, g->number);
	f = fopen(path, "w");
	ok = f && fwrite(g->tx_buf, 1, g->tx_len, f) == g->tx_len;
	if (f && fclose(f) != 0)
		ok = 0;
	if (!ok) {
		t->log_errors++;
		fprintf(stderr, "kimble-server: cannot write transcript %s: %s\n", path,
			strerror(errno));
	}
	free(g->tx_buf);
	g->tx_buf = NULL;
}

void srv_game_end(srv_games *t, srv_game *g, const char *reason)
{
	if (g->tx)
		write_transcript(t, g, reason);
	unlink_hashes(t, g);
	lru_unlink(t, g);
	t->count--;
	explicit_bzero(g->token, sizeof g->token); /* not a memset: it would be dropped */
	free(g->rolls);
	free(g);
}

srv_game *srv_games_expired(const srv_games *t, int64_t now_ms)
{
	srv_game *g = t->lru_head;

	return g && now_ms - g->last_used_ms >= t->ttl_ms ? g : NULL;
}

int64_t srv_games_next_expiry(const srv_games *t, int64_t now_ms)
{
	int64_t left;

	if (!t->lru_head)
		return -1;
	left = t->lru_head->last_used_ms + t->ttl_ms - now_ms;
	return left > 0 ? left : 0;
}

void srv_game_replay(const srv_game *g, void (*put)(void *ctx, const char *line, size_t len),
		     void *ctx)
{
	kb_pos pos;
	char board[KB_BOARD_LEN], line[KB_ROLL_LINE_LEN + 1];
	unsigned present = 1;

	for (int s = 0; s < 3; s++)
		if (g->lineup[s])
			present |= 2u << s;
	kb_pos_init(&pos, present);
	for (uint32_t i = 0; i < g->nrolls; i++) {
		int seat, die, index;
		srv_roll_unpack(g->rolls[i], &seat, &die, &index);
		kb_board_format(&pos, board);
		put(ctx, line, (size_t)kb_fmt_roll_line(line, board, seat, die));
		if (index >= 0)
			kb_apply(&pos, seat, index, die);
	}
	if (g->g.pending_seat >= 0)
		put(ctx, line, (size_t)kb_fmt_roll_line(line, g->g.last.board, g->g.last.seat,
						     g->g.last.die));
}
