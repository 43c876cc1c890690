/* limits.c - per-address records, token buckets and the refusal log;
 * see limits.h. */
#include <arpa/inet.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "judge/server/limits.h"

#define FIRST_BUCKETS 256

static const uint8_t v4_mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

/* Index of a refusal reason in the counters. */
static int reason_index(int why)
{
	return SRV_LIMIT_FULL - why;
}

void srv_limits_defaults(srv_limits_opts *o)
{
	memset(o, 0, sizeof *o);
	o->addr_games = SRV_ADDR_GAMES;
	o->addr_rate = SRV_ADDR_RATE;
	o->addr_burst = SRV_ADDR_BURST;
	o->game_watchers = SRV_GAME_WATCHERS;
	o->addr_watchers = SRV_ADDR_WATCHERS;
}

/* The key of an address: IPv4 as ::ffff:a.b.c.d, IPv6 cut to its /64
 * (one subscriber's network), so that every IPv4 client counts once and an
 * IPv6 client cannot become many by changing its interface id. */
static int addr_key(const struct sockaddr *sa, uint8_t key[16])
{
	if (sa->sa_family == AF_INET) {
		memcpy(key, v4_mapped, 12);
		memcpy(key + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		return 0;
	}
	if (sa->sa_family != AF_INET6)
		return -1;
	memcpy(key, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
	if (memcmp(key, v4_mapped, 12) != 0)
		memset(key + 8, 0, 8);
	return 0;
}

static int is_loopback(const uint8_t key[16])
{
	static const uint8_t v6_loopback_net[16]; /* ::1 cut to its /64: :: */

	return (memcmp(key, v4_mapped, 12) == 0 && key[12] == 127) ||
	       memcmp(key, v6_loopback_net, 16) == 0;
}

int srv_limits_trust(srv_limits_opts *o, const char *addr)
{
	struct sockaddr_in v4 = {.sin_family = AF_INET};
	struct sockaddr_in6 v6 = {.sin6_family = AF_INET6};
	const struct sockaddr *sa;

	if (strcmp(addr, "loopback") == 0) {
		o->trust_loopback = 1;
		return 0;
	}
	if (o->ntrust >= SRV_TRUST_MAX)
		return -1;
	if (inet_pton(AF_INET, addr, &v4.sin_addr) == 1)
		sa = (const struct sockaddr *)&v4;
	else if (inet_pton(AF_INET6, addr, &v6.sin6_addr) == 1)
		sa = (const struct sockaddr *)&v6;
	else
		return -1;
	return addr_key(sa, o->trust[o->ntrust++]);
}

int srv_limits_init(srv_limits *l, const srv_limits_opts *o, FILE *log)
{
	memset(l, 0, sizeof *l);
	l->o = *o;
	l->log = log;
	l->nbuckets = FIRST_BUCKETS;
	l->buckets = calloc(l->nbuckets, sizeof *l->buckets);
	for (int i = 0; i < SRV_LIMIT_REASONS; i++)
		l->logged_ms[i] = INT64_MIN / 2;
	return l->buckets ? 0 : -1;
}

void srv_limits_free(srv_limits *l)
{
	for (size_t i = 0; l->buckets && i < l->nbuckets; i++)
		while (l->buckets[i]) {
			srv_addr *a = l->buckets[i];
			l->buckets[i] = a->next;
			free(a);
		}
	free(l->buckets);
	l->buckets = NULL;
}

static size_t key_hash(const uint8_t key[16], size_t nbuckets)
{
	uint64_t h = 1469598103934665603u; /* FNV-1a */

	for (int i = 0; i < 16; i++)
		h = (h ^ key[i]) * 1099511628211u;
	return (size_t)(h & (nbuckets - 1));
}

/* Double the buckets when the addresses outnumber them; on out of memory
 * keep the old ones (chains only get longer). */
static void grow(srv_limits *l)
{
	size_t n = l->nbuckets * 2;
	srv_addr **b = calloc(n, sizeof *b);

	if (!b)
		return;
	for (size_t i = 0; i < l->nbuckets; i++)
		while (l->buckets[i]) {
			srv_addr *a = l->buckets[i];
			l->buckets[i] = a->next;
			a->next = b[key_hash(a->key, n)];
			b[key_hash(a->key, n)] = a;
		}
	free(l->buckets);
	l->buckets = b;
	l->nbuckets = n;
}

static int trusted(const srv_limits_opts *o, const uint8_t key[16])
{
	if (o->trust_loopback && is_loopback(key))
		return 1;
	for (int i = 0; i < o->ntrust; i++)
		if (memcmp(o->trust[i], key, 16) == 0)
			return 1;
	return 0;
}

srv_addr *srv_addr_get(srv_limits *l, const struct sockaddr *sa, int64_t now_ms)
{
	uint8_t key[16];
	srv_addr *a;

	if (addr_key(sa, key) != 0)
		return NULL;
	for (a = l->buckets[key_hash(key, l->nbuckets)]; a; a = a->next)
		if (memcmp(a->key, key, 16) == 0) {
			a->refs++;
			return a;
		}
	if (!(a = calloc(1, sizeof *a)))
		return NULL;
	if (l->count >= l->nbuckets)
		grow(l);
	memcpy(a->key, key, 16);
	a->refs = 1;
	a->tokens = l->o.addr_burst;
	a->filled_ms = now_ms;
	a->trusted = (uint8_t)trusted(&l->o, key);
	a->next = l->buckets[key_hash(key, l->nbuckets)];
	l->buckets[key_hash(key, l->nbuckets)] = a;
	l->count++;
	return a;
}

/* Bring the bucket up to date: addr_rate tokens a second, at most burst. */
static void refill(const srv_limits *l, srv_addr *a, int64_t now_ms)
{
	if (now_ms > a->filled_ms) {
		a->tokens += (double)(now_ms - a->filled_ms) * l->o.addr_rate / 1000;
		if (a->tokens > l->o.addr_burst)
			a->tokens = l->o.addr_burst;
		a->filled_ms = now_ms;
	}
}

/* An address that holds nothing and whose bucket is full tells nothing a
 * fresh record would not: forget it. */
static int forgettable(const srv_limits *l, srv_addr *a, int64_t now_ms)
{
	refill(l, a, now_ms);
	return a->refs == 0 && a->tokens >= l->o.addr_burst;
}

static void unlink_addr(srv_limits *l, srv_addr *a)
{
	srv_addr **slot = &l->buckets[key_hash(a->key, l->nbuckets)];

	while (*slot != a)
		slot = &(*slot)->next;
	*slot = a->next;
	l->count--;
	free(a);
}

void srv_addr_put(srv_limits *l, srv_addr *a, int64_t now_ms)
{
	if (!a)
		return;
	a->refs--;
	if (forgettable(l, a, now_ms))
		unlink_addr(l, a);
}

void srv_limits_sweep(srv_limits *l, int64_t now_ms)
{
	if (now_ms - l->swept_ms < 1000)
		return;
	l->swept_ms = now_ms;
	for (size_t i = 0; i < l->nbuckets; i++)
		for (srv_addr **slot = &l->buckets[i]; *slot;) {
			srv_addr *a = *slot;
			if (forgettable(l, a, now_ms)) {
				*slot = a->next;
				l->count--;
				free(a);
			} else {
				slot = &a->next;
			}
		}
}

int srv_limits_start(srv_limits *l, srv_addr *a, size_t running, int64_t now_ms)
{
	if (running >= l->o.max_games)
		return SRV_LIMIT_FULL;
	if (!a || a->trusted)
		return SRV_LIMIT_OK;
	if (a->games >= l->o.addr_games)
		return SRV_LIMIT_ADDR_GAMES;
	refill(l, a, now_ms);
	if (a->tokens < 1)
		return SRV_LIMIT_ADDR_RATE;
	a->tokens -= 1;
	return SRV_LIMIT_OK;
}

void srv_limits_game_began(srv_addr *a)
{
	if (a) {
		a->games++;
		a->refs++;
	}
}

void srv_limits_game_ended(srv_limits *l, srv_addr *a, int64_t now_ms)
{
	if (a) {
		a->games--;
		srv_addr_put(l, a, now_ms);
	}
}

int srv_limits_watch(const srv_limits *l, const srv_addr *a, size_t game_watchers)
{
	if (game_watchers >= l->o.game_watchers)
		return SRV_LIMIT_GAME_WATCHERS;
	if (a && !a->trusted && a->watchers >= l->o.addr_watchers)
		return SRV_LIMIT_ADDR_WATCHERS;
	return SRV_LIMIT_OK;
}

/* What each reason refuses, for the log and the Virhe line. */
static const char *const reason_text[SRV_LIMIT_REASONS] = {
	"server full: %zu running games",
	"per-address limit: %zu running games",
	"per-address limit: %.6g new games a second",
	"limit: %zu spectators per game",
	"per-address limit: %zu spectators",
};
static const char *const reason_virhe[SRV_LIMIT_REASONS] = {
	"Virhe: palvelin on taynna",
	"Virhe: liikaa peleja tasta osoitteesta",
	"Virhe: liian monta uutta pelia tasta osoitteesta",
	"Virhe: liikaa katsojia tassa pelissa",
	"Virhe: liikaa katsojia tasta osoitteesta",
};
static const char *const reason_name[SRV_LIMIT_REASONS] = {
	"full", "address-games", "address-rate", "game-spectators", "address-spectators",
};

/* The reason's text with its limit filled in. */
static void reason_format(const srv_limits *l, int i, char *out, size_t size)
{
	const srv_limits_opts *o = &l->o;
	size_t limit[SRV_LIMIT_REASONS] = {o->max_games, o->addr_games, 0, o->game_watchers,
					   o->addr_watchers};

	if (i == reason_index(SRV_LIMIT_ADDR_RATE))
		snprintf(out, size, reason_text[i], o->addr_rate);
	else
		snprintf(out, size, reason_text[i], limit[i]);
}

void srv_limits_virhe(const srv_limits *l, int why, char *out, size_t size)
{
	char text[96];
	int i = reason_index(why);

	reason_format(l, i, text, sizeof text);
	snprintf(out, size, "%s (%s)", reason_virhe[i], text);
}

void srv_addr_format(const uint8_t key[16], char *out, size_t size)
{
	char text[INET6_ADDRSTRLEN];

	if (memcmp(key, v4_mapped, 12) == 0) {
		inet_ntop(AF_INET, key + 12, text, sizeof text);
		snprintf(out, size, "%s", text);
	} else {
		inet_ntop(AF_INET6, key, text, sizeof text);
		snprintf(out, size, "%s/64", text);
	}
}

void srv_limits_refused(srv_limits *l, int why, const srv_addr *a, int64_t now_ms)
{
	int i = reason_index(why);
	char who[INET6_ADDRSTRLEN + 8] = "an unknown address", text[96];

	l->refused[i]++;
	if (now_ms - l->logged_ms[i] < 1000) {
		l->unlogged[i]++;
		return;
	}
	if (a)
		srv_addr_format(a->key, who, sizeof who);
	reason_format(l, i, text, sizeof text);
	fprintf(l->log, "kimble-server: refused %s (%s) from %s; %" PRIu64
		" more refused for this reason since its last line\n",
		reason_name[i], text, who, l->unlogged[i]);
	fflush(l->log);
	l->logged_ms[i] = now_ms;
	l->unlogged[i] = 0;
}

void srv_limits_report(const srv_limits *l)
{
	uint64_t total = 0;

	for (int i = 0; i < SRV_LIMIT_REASONS; i++)
		total += l->refused[i];
	if (!total)
		return;
	fprintf(l->log, "kimble-server: refusals this run: %" PRIu64, total);
	for (int i = 0; i < SRV_LIMIT_REASONS; i++)
		fprintf(l->log, " %s %" PRIu64, reason_name[i], l->refused[i]);
	fputc('\n', l->log);
	fflush(l->log);
}
