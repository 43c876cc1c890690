/* limits.h - what one client of kimble-server may take: running
 * games in all, running games and new games per second per address,
 * spectators per game and per address; and the log of refusals.
 *
 * Every well-formed start costs the server memory until the game ends or
 * its token expires, so without limits one client could fill the memory
 * of the machine.  The limits are chosen so that an honest client never
 * meets them (docs/server-limits.md has the defaults and why):
 *
 *   - running games in all (max_games): the memory bound;
 *   - per address: running games (addr_games) and a token bucket of new
 *     games (addr_rate per second, addr_burst at once), so one address
 *     cannot take the whole capacity or the server's time;
 *   - spectators per game (game_watchers) and per address (addr_watchers).
 *
 * An address is an IPv4 address (also when it arrives IPv4-mapped on an
 * IPv6 socket) or the /64 prefix of an IPv6 address (one subscriber
 * network holds a whole /64).  Loopback counts as one address like any
 * other unless it is trusted: trusted addresses skip the per-address
 * limits, never the global ones or the per-game spectator limit.
 *
 * Refusals are counted per reason.  The log (stderr) gets at most one line
 * per reason per second, each naming the address and how many refusals of
 * that reason went unlogged since the last line, and one summary line at
 * the end of the run (srv_limits_report).
 */
#ifndef KB_SERVER_LIMITS_H
#define KB_SERVER_LIMITS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#define SRV_MAX_GAMES 100000     /* default running games in all (0.9 KB each) */
#define SRV_MAX_GAMES_LOGGED 10000 /* the same with transcripts (10-40 KB each) */
#define SRV_LIST_MAX 1000        /* games a ?list shows (the most recently used) */
#define SRV_ADDR_GAMES 1000      /* default running games per address */
#define SRV_ADDR_RATE_INT 1000   /* default new games per second per address */
#define SRV_ADDR_BURST_INT 4000  /* default bucket size (new games at once) */
#define SRV_ADDR_RATE ((double)SRV_ADDR_RATE_INT)
#define SRV_ADDR_BURST ((double)SRV_ADDR_BURST_INT)
#define SRV_GAME_WATCHERS 64     /* default spectators per game */
#define SRV_ADDR_WATCHERS 64     /* default spectators per address */
#define SRV_TRUST_MAX 16         /* --trust options kept */

/* A default as text, for help texts: SRV_STR(SRV_MAX_GAMES) is "100000". */
#define SRV_STR_(x) #x
#define SRV_STR(x) SRV_STR_(x)

/* What srv_limits_start / srv_limits_watch answer (server.h uses -1..-3). */
enum srv_limit {
	SRV_LIMIT_OK = 0,
	SRV_LIMIT_FULL = -701,          /* max_games games are running */
	SRV_LIMIT_ADDR_GAMES = -702,    /* the address runs addr_games games */
	SRV_LIMIT_ADDR_RATE = -703,     /* the address's bucket is empty */
	SRV_LIMIT_GAME_WATCHERS = -704, /* the game has game_watchers spectators */
	SRV_LIMIT_ADDR_WATCHERS = -705  /* the address has addr_watchers spectators */
};
#define SRV_LIMIT_REASONS 5         /* -701 .. -705 */

typedef struct srv_limits_opts {
	size_t max_games;
	size_t addr_games;
	double addr_rate;               /* > 0 */
	double addr_burst;              /* >= 1 */
	size_t game_watchers;
	size_t addr_watchers;
	int ntrust;
	uint8_t trust[SRV_TRUST_MAX][16]; /* address keys, see srv_addr_key */
	uint8_t trust_loopback;         /* 127.0.0.0/8 and ::1 */
} srv_limits_opts;

/* One client address (or IPv6 /64): what it holds now. */
typedef struct srv_addr {
	uint8_t key[16];
	uint32_t refs;                  /* connections + games that point here */
	uint32_t games, watchers;      /* watchers: game-port and HTTP spectators */
	uint32_t http_conns;            /* HTTP connections (http.h) */
	double tokens;                  /* the new-game bucket */
	int64_t filled_ms;              /* when tokens was last brought up to date */
	uint8_t trusted;
	struct srv_addr *next;          /* hash chain */
} srv_addr;

typedef struct srv_limits {
	srv_limits_opts o;
	srv_addr **buckets;
	size_t nbuckets, count;
	uint64_t refused[SRV_LIMIT_REASONS];
	uint64_t unlogged[SRV_LIMIT_REASONS]; /* since the reason's last log line */
	int64_t logged_ms[SRV_LIMIT_REASONS]; /* when its last line was written */
	int64_t swept_ms;
	FILE *log;
} srv_limits;

/* The defaults above, nobody trusted; max_games is left 0 for the caller
 * to choose (SRV_MAX_GAMES, or SRV_MAX_GAMES_LOGGED with transcripts). */
void srv_limits_defaults(srv_limits_opts *o);

/* Parse a --trust value: "loopback", or a numeric IPv4 or IPv6 address.
 * Returns 0, or -1 when it is neither or SRV_TRUST_MAX are given. */
int srv_limits_trust(srv_limits_opts *o, const char *addr);

/* Set up an empty address table logging to log.  Returns 0, or -1 on out
 * of memory. */
int srv_limits_init(srv_limits *l, const srv_limits_opts *o, FILE *log);
void srv_limits_free(srv_limits *l);

/* The record of the peer address sa, with one more reference (a
 * connection); NULL on out of memory or an address family that is neither
 * IPv4 nor IPv6 (then nothing is limited per address). */
srv_addr *srv_addr_get(srv_limits *l, const struct sockaddr *sa, int64_t now_ms);

/* Drop one reference (a connection closed, a game ended). */
void srv_addr_put(srv_limits *l, srv_addr *a, int64_t now_ms);

/* May address a (NULL: unknown) start a game while running games run?
 * SRV_LIMIT_OK takes a token from its bucket; the caller then counts the
 * game with srv_limits_game_began. */
int srv_limits_start(srv_limits *l, srv_addr *a, size_t running, int64_t now_ms);
void srv_limits_game_began(srv_addr *a);
void srv_limits_game_ended(srv_limits *l, srv_addr *a, int64_t now_ms);

/* May address a watch a game that has game_watchers spectators? */
int srv_limits_watch(const srv_limits *l, const srv_addr *a, size_t game_watchers);

/* Count a refusal (an enum srv_limit below 0) and log it unless its reason
 * was logged less than a second ago. */
void srv_limits_refused(srv_limits *l, int why, const srv_addr *a, int64_t now_ms);

/* The Virhe line that answers refusal why, with the limit in parentheses,
 * into out (NUL-terminated, cut to size). */
void srv_limits_virhe(const srv_limits *l, int why, char *out, size_t size);

/* Forget addresses that hold nothing and whose bucket is full again (at
 * most once a second; cheap otherwise). */
void srv_limits_sweep(srv_limits *l, int64_t now_ms);

/* Log the refusal totals of the run (one line; nothing when none). */
void srv_limits_report(const srv_limits *l);

/* Format an address key as text ("192.0.2.7", "2001:db8::/64"). */
void srv_addr_format(const uint8_t key[16], char *out, size_t size);

#endif
