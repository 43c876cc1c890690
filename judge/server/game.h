/* game.h - the server's running games: creation from a run seed,
 * lookup by token and by spectator id, expiry of unused tokens, the roll
 * log that spectators replay, and the per-game transcript.
 *
 * The k-th game (k = 0, 1, ...) a table starts uses the game seed
 * kb_stream_seed(run_seed, KB_TAG_GAME, k) (core/rng.h), so its dice and
 * first seat are the same in every run with the same seed.  Tokens and
 * spectator ids come from the operating system's random source
 * (getrandom), never from the seed: knowing the seed or another game's
 * token tells nothing about a token.
 *
 * Games are kept in least-recently-used order, so expiry is O(1) per game.
 * Each game logs its rolls one byte each; with a log folder it also keeps
 * its transcript (core/transcript.h) in memory and writes it to
 * DIR/game-SEED-K.txt (SEED the run seed in hex, K the game number) when
 * the game ends: won, expired, or ended by shutdown.
 */
#ifndef KB_SERVER_GAME_H
#define KB_SERVER_GAME_H

#include <stdint.h>
#include <stdio.h>

#include "core/game.h"
#include "core/wire.h"

struct srv_conn;
struct srv_addr;

typedef struct srv_game {
	kb_game g;
	char token[KB_TOKEN_LEN];
	uint64_t spec_id;
	uint64_t number;              /* k: this game's number in the run */
	uint8_t lineup[3];            /* digits of seats B, C, D */
	int64_t last_used_ms;
	int64_t started_ms;
	struct srv_game *lru_prev, *lru_next;
	struct srv_game *token_next, *spec_next;  /* hash chains */
	uint8_t *rolls;               /* played rolls, srv_roll_pack() each */
	uint32_t nrolls, cap_rolls;
	struct srv_conn *watchers;    /* spectators (owned by the server) */
	uint32_t nwatchers;
	struct srv_sse *sse;          /* HTTP event streams (http.h) */
	uint32_t nsse;
	struct srv_addr *owner;       /* address that started it (limits.h) */
	FILE *tx;                     /* transcript in memory, or NULL */
	char *tx_buf;
	size_t tx_len;
} srv_game;

typedef struct srv_games {
	uint64_t seed;                /* run seed */
	uint64_t started;             /* games started so far */
	int64_t ttl_ms;
	const char *log_dir;          /* NULL: no transcripts */
	size_t count;
	srv_game **by_token, **by_spec; /* hash buckets, nbuckets each */
	size_t nbuckets;
	srv_game *lru_head, *lru_tail;  /* head: least recently used */
	uint8_t rand[4096];           /* getrandom() bytes not used yet */
	size_t rand_left;
	unsigned log_errors;          /* transcripts that could not be written */
} srv_games;

/* Set up an empty table.  log_dir may be NULL.  Returns 0, or -1 on out of
 * memory (errno set). */
int srv_games_init(srv_games *t, uint64_t seed, int64_t ttl_ms, const char *log_dir);

/* End every game with reason (see srv_game_end) and free the table. */
void srv_games_free(srv_games *t, const char *reason);

/* Start a game with lineup digits for B, C, D (0..2), not advanced yet.
 * Returns the game, or NULL with errno set: ENOMEM, or the getrandom()
 * error. */
srv_game *srv_game_start(srv_games *t, const uint8_t lineup[3], int64_t now_ms);

/* The game of a token / a spectator id, or NULL. */
srv_game *srv_game_by_token(const srv_games *t, const char token[KB_TOKEN_LEN]);
srv_game *srv_game_by_spec(const srv_games *t, uint64_t spec_id);

/* Mark the game used now (it moves to the back of the expiry queue). */
void srv_game_touch(srv_games *t, srv_game *g, int64_t now_ms);

/* Hooks that log each played roll (and its transcript record); pass them
 * to kb_game_advance/kb_game_decide, with rolled set by the caller. */
void srv_game_played(void *game, const kb_roll *roll);

/* Record bytes the client sent for this game in the transcript. */
void srv_game_log_msg(srv_game *g, const char *bytes, size_t len, int64_t now_ms);

/* Remove the game: write its transcript (end record with the winner, or
 * "-" and reason when unfinished) and free it.  Watchers must have been
 * detached by the caller. */
void srv_game_end(srv_games *t, srv_game *g, const char *reason);

/* The least recently used game if its token has expired at now_ms, else
 * NULL. */
srv_game *srv_games_expired(const srv_games *t, int64_t now_ms);

/* Milliseconds until the next expiry (0 if due), or -1 with no games. */
int64_t srv_games_next_expiry(const srv_games *t, int64_t now_ms);

/* Pack / unpack one roll log byte: seat 0..3, die 1..6, index -1..3. */
static inline uint8_t srv_roll_pack(int seat, int die, int index)
{
	return (uint8_t)(seat | (die - 1) << 2 | (index + 1) << 5);
}
static inline void srv_roll_unpack(uint8_t b, int *seat, int *die, int *index)
{
	*seat = b & 3;
	*die = ((b >> 2) & 7) + 1;
	*index = (b >> 5) - 1;
}

/* Append every state line of the game so far (replayed from the roll log,
 * then the pending decision line) to out via put(ctx, line, 47). */
void srv_game_replay(const srv_game *g, void (*put)(void *ctx, const char *line, size_t len),
		     void *ctx);

#endif
