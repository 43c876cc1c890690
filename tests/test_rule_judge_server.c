/* test_rule_judge_server.c - kimble-server's rules on their own (found by
 * make mutate, docs/mutation.md): request framing (request.h) and what
 * one client may take (limits.h), with the clock passed in, so
 * every bound is tried at its edge without waiting.  Suite judge_rules. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <stddef.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/rng.h"
#include "judge/server/game.h"
#include "judge/server/http.h"
#include "judge/server/limits.h"
#include "judge/server/request.h"
#include "judge/server/server.h"
#include "support.h"
#include "support_run.h"

/* ---- framing of requests ------------------------------------------------ */

static size_t req(const char *text, srv_req *r)
{
	return srv_req_next(text, strlen(text), r);
}

Test(judge_rules, spectator_commands_framed)
{
	srv_req r;

	cr_assert_eq(req("  ?list\n?list\n", &r), 8);
	cr_assert_eq(r.type, SRV_REQ_LIST);
	cr_assert_eq(r.text[0], '?', "text starts after the whitespace");
	cr_assert_eq(r.text_len, 6);
	cr_assert_eq(req("?list \t\r\n", &r), 9);
	cr_assert_eq(r.type, SRV_REQ_LIST, "trailing blanks are no part of the command");
	cr_assert_eq(req(" ?list", &r), 1, "no line end yet: only the blank is taken");
	cr_assert_eq(r.type, SRV_REQ_NONE);
	cr_assert_eq(r.text_len, 0);
	cr_assert_eq(req(" \t\r\n ", &r), 5);
	cr_assert_eq(r.type, SRV_REQ_NONE);
	cr_assert_eq(req("", &r), 0);

	cr_assert_eq(req("?watch g0123456789abcdef\nx", &r), 25);
	cr_assert_eq(r.type, SRV_REQ_WATCH);
	cr_assert_eq(r.spec_id, 0x0123456789abcdefull);
	cr_assert_eq(req("?watch \t gfedcba9876543210 \n", &r), 28);
	cr_assert_eq(r.type, SRV_REQ_WATCH);
	cr_assert_eq(r.spec_id, 0xfedcba9876543210ull);

	static const char *const bad_watch[] = {
		"?watchg0123456789abcdef\n",   /* no blank after ?watch */
		"?watchxg0123456789abcdef\n",  /* another character in its place */
		"?watch g0123456789abcdeF\n",  /* upper case */
		"?watch g0123456789abcde\n",   /* 15 digits */
		"?watch g0123456789abcdef0\n", /* 17 digits */
		"?watch h0123456789abcdef\n",  /* not g */
		"?watch g0123456789abcd/f\n",  /* '/' is just below '0' */
		"?watch g0123456789abcd:f\n",  /* ':' is just above '9' */
		"?watch g0123456789abcd`f\n",  /* '`' is just below 'a' */
		"?watch g0123456789abcdgf\n",  /* 'g' is just above 'f' */
		"?watch\n",
	};
	for (size_t i = 0; i < sizeof bad_watch / sizeof bad_watch[0]; i++) {
		cr_assert_eq(req(bad_watch[i], &r), strlen(bad_watch[i]), "%s", bad_watch[i]);
		cr_assert_eq(r.type, SRV_REQ_BAD, "%s", bad_watch[i]);
		cr_assert_str_eq(r.msg.why, "expected \"?watch g\" and 16 lowercase hex digits (a spectator id)",
				 "%s", bad_watch[i]);
	}
	/* "?watc" and another sixth character is no ?watch, even with an id;
	 * "?lis" and another fifth is no ?list */
	static const char *const bad_cmd[] = {"?lists\n", "?lis\n", "?lisx\n", "?\n", "?LIST\n",
					      "?watcx g0123456789abcdef\n", "?watcH g0123456789abcdef\n"};
	for (size_t i = 0; i < sizeof bad_cmd / sizeof bad_cmd[0]; i++) {
		cr_assert_eq(req(bad_cmd[i], &r), strlen(bad_cmd[i]), "%s", bad_cmd[i]);
		cr_assert_eq(r.type, SRV_REQ_BAD, "%s", bad_cmd[i]);
		cr_assert_str_eq(r.msg.why, "expected a spectator command \"?list\" or \"?watch gID\"");
	}
}

/* A command is at most SRV_CMD_MAX (64) bytes before its line end. */
Test(judge_rules, spectator_command_length_bound)
{
	char buf[200];
	srv_req r;

	/* 64 bytes without a line end: wait for more */
	memset(buf, 'x', sizeof buf);
	buf[0] = '?';
	cr_assert_eq(srv_req_next(buf, 64, &r), 0);
	cr_assert_eq(r.type, SRV_REQ_NONE);
	/* 65: too long, all of it taken */
	cr_assert_eq(srv_req_next(buf, 65, &r), 65);
	cr_assert_eq(r.type, SRV_REQ_TOO_LONG);
	cr_assert_str_eq(r.msg.why, "a spectator command is at most 64 bytes and ends with a line end");
	/* a line end as the 65th byte still ends a command (a bad one here) */
	buf[64] = '\n';
	cr_assert_eq(srv_req_next(buf, 100, &r), 65);
	cr_assert_eq(r.type, SRV_REQ_BAD);
	/* ... the 66th does not */
	buf[64] = 'x', buf[65] = '\n';
	cr_assert_eq(srv_req_next(buf, 100, &r), 100);
	cr_assert_eq(r.type, SRV_REQ_TOO_LONG);
	/* only the len bytes given are read: a line end just past them
	 * (left in the buffer from before) ends nothing */
	for (size_t len = 1; len <= 66; len++) {
		memset(buf, 'x', sizeof buf);
		buf[0] = '?';
		buf[len] = '\n';
		size_t used = srv_req_next(buf, len, &r);
		cr_assert_eq(used, len <= 64 ? 0 : len, "%zu bytes", len);
		cr_assert_eq(r.type, len <= 64 ? SRV_REQ_NONE : SRV_REQ_TOO_LONG, "%zu bytes", len);
	}
	/* after leading blanks, the bound counts from the '?' */
	memset(buf, 'x', sizeof buf);
	memcpy(buf, "   ?", 4);
	cr_assert_eq(srv_req_next(buf, 67, &r), 3);
	cr_assert_eq(r.type, SRV_REQ_NONE);
}

Test(judge_rules, game_messages_framed)
{
	srv_req r;

	cr_assert_eq(req(" v001212\n", &r), 8, "the line end is the next request's blank");
	cr_assert_eq(r.type, SRV_REQ_START);
	cr_assert_eq(r.msg.lineup[0], 2);
	cr_assert_eq(r.msg.lineup[1], 1);
	cr_assert_eq(r.msg.lineup[2], 2);
	cr_assert_eq(r.text_len, 7);
	cr_assert_eq(req("v0012", &r), 0, "a start's beginning waits");
	cr_assert_eq(r.type, SRV_REQ_NONE);
	cr_assert_eq(r.text_len, 0);
	/* only the bytes given count, after blanks too */
	cr_assert_eq(srv_req_next("  v001222", 7, &r), 2);
	cr_assert_eq(r.type, SRV_REQ_NONE, "\"v0012\" is a start's beginning");
	cr_assert_eq(srv_req_next("  ?list\n", 7, &r), 2);
	cr_assert_eq(r.type, SRV_REQ_NONE);
	cr_assert_eq(req("hello\nv001222", &r), 6);
	cr_assert_eq(r.type, SRV_REQ_BAD);
	cr_assert_eq(r.text_len, 6);
	char move[80];
	snprintf(move, sizeof move, "t%s%s3\n", "0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210");
	cr_assert_eq(req(move, &r), 66);
	cr_assert_eq(r.type, SRV_REQ_MOVE, "%s", r.msg.why);
	cr_assert_eq(strncmp(r.msg.token, move, 65), 0);
	cr_assert_eq(r.msg.index, 3);
}

Test(judge_rules, spectator_id_text)
{
	char out[SRV_SPEC_ID_LEN + 1] = {0};
	uint64_t id = 1;

	srv_spec_id_format(0x0123456789abcdefull, out);
	cr_assert_str_eq(out, "g0123456789abcdef");
	srv_spec_id_format(0xf00000000000000aull, out);
	cr_assert_str_eq(out, "gf00000000000000a");
	cr_assert_eq(srv_spec_id_parse("g000000000000002a", 17, &id), 0);
	cr_assert_eq(id, 42);
	cr_assert_eq(srv_spec_id_parse("g000000000000002a", 16, &id), -1);
	cr_assert_eq(srv_spec_id_parse("x000000000000002a", 17, &id), -1);
	cr_assert_eq(srv_spec_id_parse("g00000000000000A0", 17, &id), -1);
}

/* ---- per-address limits --------------------------------------------------- */

static struct sockaddr_in v4(const char *text)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	cr_assert_eq(inet_pton(AF_INET, text, &sa.sin_addr), 1);
	return sa;
}

static struct sockaddr_in6 v6(const char *text)
{
	struct sockaddr_in6 sa = {.sin6_family = AF_INET6};
	cr_assert_eq(inet_pton(AF_INET6, text, &sa.sin6_addr), 1);
	return sa;
}

#define SA(x) ((const struct sockaddr *)&(x))

static char *logbuf;
static size_t loglen;

static void limits(srv_limits *l, srv_limits_opts *o)
{
	FILE *log = open_memstream(&logbuf, &loglen);
	cr_assert_not_null(log);
	cr_assert_eq(srv_limits_init(l, o, log), 0);
}

Test(judge_rules, limit_defaults)
{
	srv_limits_opts o;

	memset(&o, 0x55, sizeof o);
	srv_limits_defaults(&o);
	cr_assert_eq(o.max_games, 0, "the caller chooses");
	cr_assert_eq(o.addr_games, 1000);
	cr_assert_eq(o.addr_rate, 1000.0);
	cr_assert_eq(o.addr_burst, 4000.0);
	cr_assert_eq(o.game_watchers, 64);
	cr_assert_eq(o.addr_watchers, 64);
	cr_assert_eq(o.ntrust, 0);
	cr_assert_eq(o.trust_loopback, 0);
}

Test(judge_rules, addresses_keyed_by_ipv4_and_ipv6_slash_64)
{
	srv_limits_opts o;
	srv_limits l;
	char text[64];

	srv_limits_defaults(&o);
	o.max_games = 10;
	limits(&l, &o);
	struct sockaddr_in a4 = v4("192.0.2.7");
	struct sockaddr_in6 mapped = v6("::ffff:192.0.2.7"), n1 = v6("2001:db8:1:2:3:4:5:6"),
			    n2 = v6("2001:db8:1:2:ffff::1"), other = v6("2001:db8:1:3::1");
	srv_addr *a = srv_addr_get(&l, SA(a4), 0);
	cr_assert_not_null(a);
	cr_assert_eq(a->refs, 1);
	cr_assert_eq(a->tokens, 4000.0, "a new address starts with a full bucket");
	cr_assert_eq(a->trusted, 0);
	static const uint8_t key4[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 7};
	cr_assert_eq(memcmp(a->key, key4, 16), 0);
	cr_assert_eq(srv_addr_get(&l, SA(mapped), 5), a, "IPv4-mapped is the same address");
	cr_assert_eq(a->refs, 2);
	srv_addr *b = srv_addr_get(&l, SA(n1), 0);
	cr_assert_neq(b, a);
	static const uint8_t key6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 2};
	cr_assert_eq(memcmp(b->key, key6, 16), 0, "cut to its /64");
	cr_assert_eq(srv_addr_get(&l, SA(n2), 0), b, "the same /64");
	cr_assert_neq(srv_addr_get(&l, SA(other), 0), b, "another /64");
	cr_assert_eq(l.count, 3);
	struct sockaddr_un un = {.sun_family = AF_UNIX};
	cr_assert_null(srv_addr_get(&l, SA(un), 0), "neither IPv4 nor IPv6");
	cr_assert_eq(l.count, 3);
	/* an IPv4-mapped address seen first is keyed as its IPv4 address,
	 * every byte of it */
	struct sockaddr_in6 mapped9 = v6("::ffff:198.51.100.9");
	struct sockaddr_in a9 = v4("198.51.100.9");
	srv_addr *c = srv_addr_get(&l, SA(mapped9), 0);
	static const uint8_t key9[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 198, 51, 100, 9};
	cr_assert_eq(memcmp(c->key, key9, 16), 0);
	cr_assert_eq(srv_addr_get(&l, SA(a9), 0), c, "the same as its IPv4 address");
	cr_assert_eq(l.count, 4);

	srv_addr_format(a->key, text, sizeof text);
	cr_assert_str_eq(text, "192.0.2.7");
	srv_addr_format(b->key, text, sizeof text);
	cr_assert_str_eq(text, "2001:db8:1:2::/64");
	srv_limits_free(&l);
}

/* 600 IPv4 addresses base + i * step (all different) added to a fresh
 * table, more than its 256 first buckets, then each looked up again: the
 * same record, holding both references, and nothing added twice. */
static void table_finds_600_again(uint32_t base, uint32_t step)
{
	srv_limits_opts o;
	srv_limits l;
	srv_addr *first[600];

	srv_limits_defaults(&o);
	limits(&l, &o);
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t i = 0; i < 600; i++) {
			struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(base + i * step)};
			srv_addr *got = srv_addr_get(&l, SA(sa), 0);
			if (pass == 0)
				first[i] = got;
			cr_assert_not_null(got, "address %u", i);
			cr_assert_eq(got, first[i], "address %u not found again", i);
			cr_assert_eq(got->refs, pass + 1, "address %u", i);
		}
		cr_assert_eq(l.count, 600, "pass %d: no address added twice", pass);
	}
	cr_assert_geq(l.nbuckets, 600);
	srv_limits_free(&l);
}

/* Consecutive addresses: every one is found again after the table grew. */
Test(judge_rules, address_table_grows)
{
	table_finds_600_again(0x0a000000u, 1);
}

/* Addresses spread over the whole IPv4 space ((i + 1) times an odd
 * constant: all different) share buckets, unlike consecutive ones, which
 * FNV-1a puts in different buckets of 256 and 512: every one is still
 * found after the table grew twice (256 to 1024 buckets), a chain's
 * order changed or not. */
Test(judge_rules, address_table_grows_with_shared_buckets)
{
	table_finds_600_again(2654435761u, 2654435761u);
}

/* The longest chain of a hash table of n buckets whose records link to
 * the next one of their chain by the pointer at next_off. */
static int longest_chain(void *const *buckets, size_t n, size_t next_off)
{
	int longest = 0;

	for (size_t b = 0; b < n; b++) {
		int chain = 0;
		for (const char *r = buckets[b]; r; r = *(const char *const *)(r + next_off))
			chain++;
		longest = chain > longest ? chain : longest;
	}
	return longest;
}

/* Every connection looks its address up, so an address is found in a
 * short chain, also among many of one network (a block of IPv4
 * addresses, /64s of one IPv6 prefix): 1000 of them in the table's 1024
 * buckets leave no chain longer than 12 (a uniform hash makes a longer
 * one about once in 2*10^7 tables; a hash that loses the address's bytes
 * puts all 1000 in one). */
Test(judge_rules, addresses_spread_over_the_buckets)
{
	srv_limits_opts o;
	srv_limits l;

	srv_limits_defaults(&o);
	for (int family = 0; family < 2; family++) {
		limits(&l, &o);
		for (uint32_t i = 0; i < 1000; i++) {
			struct sockaddr_in a4 = {.sin_family = AF_INET,
						 .sin_addr.s_addr = htonl(0x0a000000u + i)};
			struct sockaddr_in6 a6 = v6("2001:db8::1");
			a6.sin6_addr.s6_addr[6] = (uint8_t)(i >> 8);
			a6.sin6_addr.s6_addr[7] = (uint8_t)i;
			cr_assert_not_null(srv_addr_get(&l, family ? SA(a6) : SA(a4), 0));
		}
		cr_assert_eq(l.count, 1000);
		cr_assert_eq(l.nbuckets, 1024);
		int longest = longest_chain((void *const *)l.buckets, l.nbuckets,
					    offsetof(srv_addr, next));
		cr_assert_leq(longest, 12, "%s: a chain of %d addresses", family ? "IPv6" : "IPv4",
			      longest);
		srv_limits_free(&l);
	}
}

Test(judge_rules, trusted_addresses)
{
	srv_limits_opts o;
	srv_limits l;
	char name[32];

	srv_limits_defaults(&o);
	cr_assert_eq(srv_limits_trust(&o, "198.51.100.1"), 0);
	cr_assert_eq(srv_limits_trust(&o, "2001:db8:9:9::5"), 0);
	cr_assert_eq(o.ntrust, 2);
	cr_assert_eq(srv_limits_trust(&o, "not-an-address"), -1);
	cr_assert_eq(srv_limits_trust(&o, "256.1.1.1"), -1);
	cr_assert_eq(o.ntrust, 2);
	cr_assert_eq(o.trust_loopback, 0);
	o.max_games = 5;
	limits(&l, &o);
	struct sockaddr_in t4 = v4("198.51.100.1"), n4 = v4("198.51.100.2"), lo4 = v4("127.1.2.3");
	struct sockaddr_in6 t6 = v6("2001:db8:9:9:1::1"), lo6 = v6("::1");
	cr_assert_eq(srv_addr_get(&l, SA(t4), 0)->trusted, 1);
	cr_assert_eq(srv_addr_get(&l, SA(n4), 0)->trusted, 0);
	cr_assert_eq(srv_addr_get(&l, SA(t6), 0)->trusted, 1, "anywhere in the trusted /64");
	cr_assert_eq(srv_addr_get(&l, SA(lo4), 0)->trusted, 0, "loopback is not trusted unless asked");
	cr_assert_eq(srv_addr_get(&l, SA(lo6), 0)->trusted, 0);
	srv_limits_free(&l);

	srv_limits_defaults(&o);
	cr_assert_eq(srv_limits_trust(&o, "loopback"), 0);
	cr_assert_eq(o.trust_loopback, 1);
	cr_assert_eq(o.ntrust, 0);
	limits(&l, &o);
	cr_assert_eq(srv_addr_get(&l, SA(lo4), 0)->trusted, 1);
	cr_assert_eq(srv_addr_get(&l, SA(lo6), 0)->trusted, 1);
	struct sockaddr_in not_lo = v4("128.0.0.1");
	cr_assert_eq(srv_addr_get(&l, SA(not_lo), 0)->trusted, 0);
	srv_limits_free(&l);

	/* at most SRV_TRUST_MAX (16) addresses; loopback is no address */
	srv_limits_defaults(&o);
	for (int i = 0; i < 16; i++) {
		snprintf(name, sizeof name, "192.0.2.%d", i);
		cr_assert_eq(srv_limits_trust(&o, name), 0, "%s", name);
	}
	cr_assert_eq(srv_limits_trust(&o, "192.0.2.99"), -1, "the 17th");
	cr_assert_eq(o.ntrust, 16);
	cr_assert_eq(srv_limits_trust(&o, "loopback"), 0);
}

/* Running games in all, per address, and the bucket of new games:
 * burst 2, 1 a second (one token per 1000 ms). */
Test(judge_rules, starts_limited_in_all_per_address_and_per_second)
{
	srv_limits_opts o;
	srv_limits l;

	srv_limits_defaults(&o);
	o.max_games = 3, o.addr_games = 2, o.addr_rate = 1, o.addr_burst = 2;
	limits(&l, &o);
	struct sockaddr_in sa = v4("192.0.2.1");
	srv_addr *a = srv_addr_get(&l, SA(sa), 1000);
	cr_assert_eq(srv_limits_start(&l, a, 3, 1000), SRV_LIMIT_FULL);
	cr_assert_eq(srv_limits_start(&l, NULL, 3, 1000), SRV_LIMIT_FULL);
	cr_assert_eq(srv_limits_start(&l, NULL, 2, 1000), SRV_LIMIT_OK, "an unknown address: no bucket");
	cr_assert_eq(srv_limits_start(&l, a, 2, 1000), SRV_LIMIT_OK);
	cr_assert_eq(a->tokens, 1.0);
	cr_assert_eq(srv_limits_start(&l, a, 2, 1000), SRV_LIMIT_OK);
	cr_assert_eq(a->tokens, 0.0);
	cr_assert_eq(srv_limits_start(&l, a, 0, 1999), SRV_LIMIT_ADDR_RATE, "0.999 tokens");
	cr_assert_eq(srv_limits_start(&l, a, 0, 2000), SRV_LIMIT_OK, "one token a second");
	cr_assert_eq(srv_limits_start(&l, a, 0, 2000), SRV_LIMIT_ADDR_RATE);
	cr_assert_eq(srv_limits_start(&l, a, 0, 1000000), SRV_LIMIT_OK);
	cr_assert_eq(a->tokens, 1.0, "the bucket holds at most the burst");

	cr_assert_eq(a->refs, 1);
	srv_limits_game_began(a);
	cr_assert_eq(a->games, 1);
	cr_assert_eq(a->refs, 2, "a game holds its address");
	srv_limits_game_began(a);
	cr_assert_eq(srv_limits_start(&l, a, 2, 1000000), SRV_LIMIT_ADDR_GAMES);
	srv_limits_game_ended(&l, a, 1000000);
	cr_assert_eq(a->games, 1);
	cr_assert_eq(a->refs, 2);
	cr_assert_eq(srv_limits_start(&l, a, 1, 1000000), SRV_LIMIT_OK);
	srv_limits_game_began(NULL);
	srv_limits_game_ended(&l, NULL, 0);

	/* a trusted address skips the per-address limits, not the global one */
	cr_assert_eq(srv_limits_trust(&o, "192.0.2.2"), 0);
	srv_limits l2;
	limits(&l2, &o);
	struct sockaddr_in tsa = v4("192.0.2.2");
	srv_addr *t = srv_addr_get(&l2, SA(tsa), 0);
	t->games = 100;
	for (int i = 0; i < 10; i++)
		cr_assert_eq(srv_limits_start(&l2, t, 2, 0), SRV_LIMIT_OK);
	cr_assert_eq(srv_limits_start(&l2, t, 3, 0), SRV_LIMIT_FULL);
	srv_limits_free(&l2);
	srv_limits_free(&l);
}

Test(judge_rules, spectators_limited_per_game_and_per_address)
{
	srv_limits_opts o;
	srv_limits l;

	srv_limits_defaults(&o);
	o.max_games = 1, o.game_watchers = 3, o.addr_watchers = 2;
	cr_assert_eq(srv_limits_trust(&o, "192.0.2.9"), 0);
	limits(&l, &o);
	struct sockaddr_in sa = v4("192.0.2.1"), tsa = v4("192.0.2.9");
	srv_addr *a = srv_addr_get(&l, SA(sa), 0), *t = srv_addr_get(&l, SA(tsa), 0);
	cr_assert_eq(srv_limits_watch(&l, a, 2), SRV_LIMIT_OK);
	cr_assert_eq(srv_limits_watch(&l, a, 3), SRV_LIMIT_GAME_WATCHERS);
	a->watchers = 1;
	cr_assert_eq(srv_limits_watch(&l, a, 0), SRV_LIMIT_OK);
	a->watchers = 2;
	cr_assert_eq(srv_limits_watch(&l, a, 0), SRV_LIMIT_ADDR_WATCHERS);
	cr_assert_eq(srv_limits_watch(&l, NULL, 2), SRV_LIMIT_OK);
	t->watchers = 50;
	cr_assert_eq(srv_limits_watch(&l, t, 2), SRV_LIMIT_OK, "trusted: no per-address bound");
	cr_assert_eq(srv_limits_watch(&l, t, 3), SRV_LIMIT_GAME_WATCHERS, "but the game's holds");
	srv_limits_free(&l);
}

/* An address that holds nothing and whose bucket is full is forgotten;
 * the sweep runs at most once a second. */
Test(judge_rules, idle_addresses_forgotten)
{
	srv_limits_opts o;
	srv_limits l;

	srv_limits_defaults(&o);
	o.max_games = 9, o.addr_rate = 1, o.addr_burst = 2;
	limits(&l, &o);
	struct sockaddr_in s1 = v4("192.0.2.1"), s2 = v4("192.0.2.2"), s3 = v4("192.0.2.3");
	srv_addr *a = srv_addr_get(&l, SA(s1), 0);
	srv_addr_put(&l, a, 0);
	cr_assert_eq(l.count, 0, "nothing held, bucket full: gone at once");
	a = srv_addr_get(&l, SA(s1), 0);
	srv_addr *b = srv_addr_get(&l, SA(s2), 0);
	srv_addr *c = srv_addr_get(&l, SA(s3), 0);
	cr_assert_eq(srv_limits_start(&l, a, 0, 0), SRV_LIMIT_OK);
	cr_assert_eq(srv_limits_start(&l, b, 0, 0), SRV_LIMIT_OK);
	srv_addr_get(&l, SA(s2), 0);
	srv_addr_put(&l, b, 0);
	cr_assert_eq(b->refs, 1, "one reference left");
	srv_addr_put(&l, a, 0);
	cr_assert_eq(l.count, 3, "a's bucket is not full yet: remembered");
	srv_addr_put(&l, b, 500);
	cr_assert_eq(l.count, 3, "b's bucket is at 1.5 of 2");
	srv_addr_put(&l, NULL, 0);
	srv_limits_sweep(&l, 999);
	cr_assert_eq(l.count, 3, "less than a second after the last sweep (0): nothing swept");
	srv_limits_sweep(&l, 1000);
	cr_assert_eq(l.count, 1, "a and b refilled and forgotten; c is held");
	cr_assert_eq(c->refs, 1);
	srv_addr_put(&l, c, 1000);
	cr_assert_eq(l.count, 0);
	srv_limits_free(&l);
}

/* The Virhe line and the log of each refusal, with its limit. */
Test(judge_rules, refusals_answered_and_logged)
{
	srv_limits_opts o;
	srv_limits l;
	char line[160];

	srv_limits_defaults(&o);
	o.max_games = 7, o.addr_games = 3, o.addr_rate = 2.5, o.game_watchers = 4, o.addr_watchers = 5;
	limits(&l, &o);
	static const char *const want[] = {
		"Virhe: palvelin on taynna (server full: 7 running games)",
		"Virhe: liikaa peleja tasta osoitteesta (per-address limit: 3 running games)",
		"Virhe: liian monta uutta pelia tasta osoitteesta (per-address limit: 2.5 new games a second)",
		"Virhe: liikaa katsojia tassa pelissa (limit: 4 spectators per game)",
		"Virhe: liikaa katsojia tasta osoitteesta (per-address limit: 5 spectators)",
	};
	for (int i = 0; i < 5; i++) {
		srv_limits_virhe(&l, SRV_LIMIT_FULL - i, line, sizeof line);
		cr_assert_str_eq(line, want[i]);
	}
	srv_limits_virhe(&l, SRV_LIMIT_FULL, line, 10);
	cr_assert_str_eq(line, "Virhe: pa", "cut to size");

	srv_limits_report(&l);
	fflush(l.log);
	cr_assert_eq(loglen, 0, "no refusals: no summary");
	struct sockaddr_in sa = v4("192.0.2.7");
	srv_addr *a = srv_addr_get(&l, SA(sa), 0);
	srv_limits_refused(&l, SRV_LIMIT_ADDR_RATE, a, 5000);
	srv_limits_refused(&l, SRV_LIMIT_ADDR_RATE, a, 5999);
	srv_limits_refused(&l, SRV_LIMIT_ADDR_RATE, a, 5999);
	srv_limits_refused(&l, SRV_LIMIT_FULL, NULL, 5999);
	srv_limits_refused(&l, SRV_LIMIT_ADDR_RATE, a, 6000);
	srv_limits_refused(&l, SRV_LIMIT_ADDR_WATCHERS, a, 6000);
	srv_limits_report(&l);
	fflush(l.log);
	cr_assert_str_eq(logbuf,
			 "kimble-server: refused address-rate (per-address limit: 2.5 new games a second) from "
			 "192.0.2.7; 0 more refused for this reason since its last line\n"
			 "kimble-server: refused full (server full: 7 running games) from an unknown address; "
			 "0 more refused for this reason since its last line\n"
			 "kimble-server: refused address-rate (per-address limit: 2.5 new games a second) from "
			 "192.0.2.7; 2 more refused for this reason since its last line\n"
			 "kimble-server: refused address-spectators (per-address limit: 5 spectators) from "
			 "192.0.2.7; 0 more refused for this reason since its last line\n"
			 "kimble-server: refusals this run: 6 full 1 address-games 0 address-rate 4 "
			 "game-spectators 0 address-spectators 1\n");
	cr_assert_eq(l.refused[2], 4);
	cr_assert_eq(l.unlogged[2], 0);
	srv_limits_free(&l);
}

/* ---- the table of running games --------------------------------------------- */


static void put_line(void *ctx, const char *line, size_t len)
{
	FILE *f = ctx;
	fwrite(line, 1, len, f);
}

/* 300 games (more than the first 256 buckets): fresh random tokens and
 * spectator ids, each found again, numbered and seeded in order; the least
 * recently used game expires first, ttl after its last use. */
Test(judge_rules, game_table_finds_orders_and_expires)
{
	static srv_games t;
	static char tokens[300][KB_TOKEN_LEN];
	static uint64_t specs[300];
	static const uint8_t lineup[3] = {2, 0, 1};
	srv_game *g[300];

	cr_assert_eq(srv_games_init(&t, 5, 1000, NULL), 0);
	cr_assert_eq(srv_games_next_expiry(&t, 0), -1, "no games");
	cr_assert_null(srv_games_expired(&t, 1000000));
	for (int i = 0; i < 300; i++) {
		g[i] = srv_game_start(&t, lineup, 10 * i);
		cr_assert_not_null(g[i]);
		cr_assert_eq(g[i]->number, (uint64_t)i);
		cr_assert_eq(g[i]->g.seed, kb_stream_seed(5, KB_TAG_GAME, (uint64_t)i));
		cr_assert_eq(g[i]->token[0], 't');
		cr_assert_eq(strspn(g[i]->token + 1, "0123456789abcdef"), 64, "%.65s", g[i]->token);
		cr_assert_eq(memcmp(g[i]->lineup, lineup, 3), 0);
		memcpy(tokens[i], g[i]->token, KB_TOKEN_LEN);
		specs[i] = g[i]->spec_id;
	}
	/* every hex digit, in the high and in the low half of a byte alike
	 * (300 tokens of 32 bytes: about 600 of each digit per half, so a
	 * digit missing from one half means bits of the token are lost) */
	int seen[2][16] = {{0}};
	for (int i = 0; i < 300; i++)
		for (int k = 1; k < KB_TOKEN_LEN; k++) {
			char c = tokens[i][k];
			seen[(k - 1) & 1][c <= '9' ? c - '0' : c - 'a' + 10]++;
		}
	for (int half = 0; half < 2; half++)
		for (int d = 0; d < 16; d++)
			cr_assert_gt(seen[half][d], 300, "digit %x as the %s half of a byte: %d times", d,
				     half ? "low" : "high", seen[half][d]);
	cr_assert_eq(t.count, 300);
	cr_assert_eq(t.started, 300);
	cr_assert_geq(t.nbuckets, 300);
	for (int i = 0; i < 300; i++) {
		cr_assert_eq(srv_game_by_token(&t, tokens[i]), g[i], "game %d by token", i);
		cr_assert_eq(srv_game_by_spec(&t, specs[i]), g[i], "game %d by spectator id", i);
		for (int k = 0; k < i; k++)
			cr_assert(memcmp(tokens[k], tokens[i], KB_TOKEN_LEN) != 0 && specs[k] != specs[i]);
	}
	char other[KB_TOKEN_LEN];
	memcpy(other, tokens[7], KB_TOKEN_LEN);
	other[KB_TOKEN_LEN - 1] = other[KB_TOKEN_LEN - 1] == '0' ? '1' : '0';
	cr_assert_null(srv_game_by_token(&t, other), "the last digit counts too");
	cr_assert_null(srv_game_by_spec(&t, specs[7] ^ 1));

	/* game 0 was used at 0: due at 1000, not before */
	cr_assert_null(srv_games_expired(&t, 999));
	cr_assert_eq(srv_games_expired(&t, 1000), g[0]);
	cr_assert_eq(srv_games_next_expiry(&t, 400), 600);
	cr_assert_eq(srv_games_next_expiry(&t, 999), 1, "the last millisecond is waited for");
	cr_assert_eq(srv_games_next_expiry(&t, 1000), 0, "due now");
	cr_assert_eq(srv_games_next_expiry(&t, 1500), 0);
	srv_game_touch(&t, g[0], 5000);
	cr_assert_eq(g[0]->last_used_ms, 5000);
	cr_assert_eq(t.lru_tail, g[0]);
	cr_assert_eq(t.lru_head, g[1], "game 1 (used at 10) is next");
	cr_assert_eq(srv_games_next_expiry(&t, 1000), 10);
	srv_game_touch(&t, g[0], 6000);
	cr_assert_eq(t.lru_tail, g[0]);
	srv_game_touch(&t, g[150], 7000);
	cr_assert_eq(t.lru_tail, g[150]);
	cr_assert_eq(g[150]->lru_prev, g[0]);

	srv_game_end(&t, g[1], "expired");
	cr_assert_eq(t.count, 299);
	cr_assert_null(srv_game_by_token(&t, tokens[1]));
	cr_assert_null(srv_game_by_spec(&t, specs[1]));
	cr_assert_eq(t.lru_head, g[2]);
	srv_game_end(&t, g[150], "expired");
	cr_assert_eq(t.lru_tail, g[0]);
	cr_assert_null(g[0]->lru_next);
	cr_assert_eq(srv_game_by_token(&t, tokens[151]), g[151]);
	srv_games_free(&t, "shutdown");
	cr_assert_eq(t.count, 0);
	cr_assert_null(t.lru_head);
}

/* The roll log replays the game's state lines, then the pending one. */
/* Tokens are random, so the table finds a game in a short chain: 1000
 * games in 1024 buckets leave none longer than 12 (a uniform hash makes
 * a longer one about once in 2*10^7 runs; one bucket for all is 1000). */
Test(judge_rules, game_tokens_spread_over_the_buckets)
{
	static srv_games t;
	static const uint8_t lineup[3] = {1, 1, 1};

	cr_assert_eq(srv_games_init(&t, 1, 1000, NULL), 0);
	for (int i = 0; i < 1000; i++)
		cr_assert_not_null(srv_game_start(&t, lineup, 0));
	cr_assert_eq(t.nbuckets, 1024);
	int longest = longest_chain((void *const *)t.by_token, t.nbuckets,
				    offsetof(srv_game, token_next));
	cr_assert_leq(longest, 12, "a chain of %d games", longest);
	srv_games_free(&t, "test");
}

/* Without the operating system's randomness no game starts (its token
 * would be guessable): srv_game_start fails with getrandom's error and
 * the table stays empty. */
Test(judge_rules, game_without_randomness_is_not_started)
{
	static srv_games t;
	static const uint8_t lineup[3] = {1, 1, 1};

	cr_assert_eq(srv_games_init(&t, 1, 1000, NULL), 0);
	test_fail_syscall(SYS_getrandom, EIO);
	errno = 0;
	cr_assert_null(srv_game_start(&t, lineup, 0));
	cr_assert_eq(errno, EIO);
	cr_assert_eq(t.count, 0);
	srv_games_free(&t, "test");
}

Test(judge_rules, game_replayed_from_its_roll_log)
{
	static srv_games t;
	static const uint8_t lineup[3] = {0, 2, 0};
	char *text = NULL;
	size_t len = 0;

	cr_assert_eq(srv_games_init(&t, 1, 1000, NULL), 0);
	srv_game *g = srv_game_start(&t, lineup, 0);
	kb_roll r = {.seat = 0, .die = 6, .index = 0};
	srv_game_played(g, &r);
	r = (kb_roll){.seat = 2, .die = 2, .index = -1};
	srv_game_played(g, &r);
	r = (kb_roll){.seat = 0, .die = 3, .index = 0};
	srv_game_played(g, &r);
	cr_assert_eq(g->nrolls, 3);
	g->g.pending_seat = -1;
	FILE *f = open_memstream(&text, &len);
	srv_game_replay(g, put_line, f);
	fclose(f);
	cr_assert_str_eq(text, "00000000000000000000000000000000000000000000A6\n"
			       "A0000000000000000000000000000000000000000000C2\n"
			       "A0000000000000000000000000000000000000000000A3\n");
	free(text);
	/* a decision pending: its line comes last */
	g->g.pending_seat = 0;
	memcpy(g->g.last.board, "000A0000000000000000000000000000000000000000", KB_BOARD_LEN);
	g->g.last.seat = 0, g->g.last.die = 5;
	text = NULL;
	f = open_memstream(&text, &len);
	srv_game_replay(g, put_line, f);
	fclose(f);
	cr_assert(strstr(text, "A3\n000A0000000000000000000000000000000000000000A5\n") != NULL, "%s", text);
	free(text);
	/* more than 256 rolls: the log grows */
	for (int i = 0; i < 300; i++) {
		r = (kb_roll){.seat = 2, .die = 1 + i % 5, .index = -1};
		srv_game_played(g, &r);
	}
	cr_assert_eq(g->nrolls, 303);
	srv_games_free(&t, "shutdown");
}

/* With a log folder every game's transcript is written when it ends. */
Test(judge_rules, game_transcript_written_at_its_end)
{
	static srv_games t;
	static const uint8_t lineup[3] = {2, 0, 0};
	char dir[256], name[128];

	test_tmpdir(dir, sizeof dir);
	cr_assert_eq(srv_games_init(&t, 0xabcull, 1000, dir), 0);
	srv_game *g0 = srv_game_start(&t, lineup, 0);
	srv_game *g1 = srv_game_start(&t, lineup, 0);
	cr_assert_not_null(g0->tx);
	kb_roll r = {.seat = 0, .die = 2, .index = -1};
	memset(r.board, '0', KB_BOARD_LEN);
	g1->g.rolls = 1;
	srv_game_played(g1, &r);
	srv_game_log_msg(g1, "v001200", 7, 25);
	srv_game_end(&t, g1, "expired");
	snprintf(name, sizeof name, "game-0000000000000abc-000001.txt");
	const char *tx = test_read_file(dir, name);
	cr_assert(strncmp(tx, "kimble-transcript 1\nseed ", 25) == 0, "%s", tx);
	cr_assert(strstr(tx, "\nseats external hard absent absent\n"), "%s", tx);
	cr_assert(strstr(tx, "\nroll 1 " "00000000000000000000000000000000000000000000A2 - "), "%s", tx);
	cr_assert(strstr(tx, "\nmsg A 25.000 v001200\n"), "%s", tx);
	cr_assert(strstr(tx, "\nend - 1 expired\n"), "%s", tx);
	srv_games_free(&t, "shutdown");
	tx = test_read_file(dir, "game-0000000000000abc-000000.txt");
	cr_assert(strstr(tx, "\nend - 0 shutdown\n"), "%s", tx);
	cr_assert_eq(t.log_errors, 0);
}

/* ---- kimble-server's exit status when it cannot listen ------------------------ */


/* A port that this process holds (listening on 127.0.0.1). */
static int held_port(int *fd)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof sa;

	*fd = socket(AF_INET, SOCK_STREAM, 0);
	cr_assert_geq(*fd, 0);
	cr_assert_eq(bind(*fd, SA(sa), sizeof sa), 0);
	cr_assert_eq(listen(*fd, 1), 0);
	cr_assert_eq(getsockname(*fd, (struct sockaddr *)&sa, &len), 0);
	return ntohs(sa.sin_port);
}

Test(judge_rules, server_that_cannot_listen_says_so, .timeout = 30)
{
	char port[16], other[16], want[160];
	const char *err;
	int fd;

	snprintf(port, sizeof port, "%d", held_port(&fd));
	snprintf(other, sizeof other, "%d", test_free_port());
	snprintf(want, sizeof want, "kimble-server: 127.0.0.1 ports %s..%s: no port could be bound (all in use?)", port, port);
	const char *game[] = {"--host", "127.0.0.1", "--port", port, NULL};
	cr_assert_eq(test_run_prog("kimble-server", game, NULL, &err), 3, "%s", err);
	cr_assert(strstr(err, want), "%s", err);
	const char *http[] = {"--host", "127.0.0.1", "--port", other, "--http", port, NULL};
	cr_assert_eq(test_run_prog("kimble-server", http, NULL, &err), 3, "%s", err);
	cr_assert(strstr(err, want), "%s", err);
	close(fd);
}

/* A host that does not resolve ("a..b": an empty label, which no resolver
 * is asked about) is a usage error naming the option that gave it: the
 * game port's --host, or --http-host for the live pages. */
Test(judge_rules, server_host_that_does_not_resolve, .timeout = 30)
{
	char port[16], other[16];

	snprintf(port, sizeof port, "%d", test_free_port());
	snprintf(other, sizeof other, "%d", test_free_port());
	test_usage_says("kimble-server", (const char *[]){"--host", "a..b", "--port", port, NULL},
			"kimble-server: --host a..b: ");
	test_usage_says("kimble-server",
			(const char *[]){"--host", "127.0.0.1", "--port", port, "--http", other,
					 "--http-host", "a..b", NULL},
			"kimble-server: --http-host a..b: ");
	test_usage_says("kimble-server",
			(const char *[]){"--host", "a..b", "--port", port, "--http", other, NULL},
			"kimble-server: --host a..b: ");
}

/* Each limit option's bounds: its smallest and largest values are taken
 * (the server then fails only on the port it cannot bind), one less and
 * one more are refused. */
Test(judge_rules, server_limit_options_at_their_bounds, .timeout = 60)
{
	static const char *const opts[][6] = {
		/* option, smallest, largest, one less, one more, the message's range */
		{"--max-games", "1", "100000000", "0", "100000001", "from 1 to 100000000"},
		{"--addr-games", "1", "100000000", "0", "100000001", "from 1 to 100000000"},
		{"--game-spectators", "1", "1000000", "0", "1000001", "from 1 to 1000000"},
		{"--addr-spectators", "1", "1000000", "0", "1000001", "from 1 to 1000000"},
		{"--addr-burst", "1", "100000000", "0", "100000001", "from 1 to 100000000"},
		{"--http-connections", "1", "1000000", "0", "1000001", "from 1 to 1000000"},
		{"--http-addr-connections", "1", "1000000", "0", "1000001", "from 1 to 1000000"},
		{"--http-timeout", "1", "86400", "0", "86401", "from 1 to 86400"},
		{"--http-memory", "8192", "1048576", "8191", "1048577", "from 8192 to 1048576"},
	};
	char port[16], want[200];
	const char *err;
	int fd;

	snprintf(port, sizeof port, "%d", held_port(&fd));
	for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) {
		for (int k = 1; k <= 4; k++) {
			const char *v = opts[i][k];
			const char *args[] = {"--host", "127.0.0.1", "--port", port, opts[i][0], v, NULL};
			int refused = k > 2;
			cr_assert_eq(test_run_prog("kimble-server", args, NULL, &err), refused ? 64 : 3, "%s %s: %s",
				     opts[i][0], v, err);
			if (!refused)
				continue;
			snprintf(want, sizeof want, "%s \"%s\": out of range; expected a whole number %s", opts[i][0], v,
				 opts[i][5]);
			cr_assert(strstr(err, want), "want %s, got %s", want, err);
		}
	}
	close(fd);
}

/* --port-range FIRST-LAST: each side a port; FIRST of at most 15
 * characters (the parser's buffer), a missing side or dash is refused
 * with the expected form.  The --seed after it is malformed, so a range
 * taken ends in that error, not in a server. */
Test(judge_rules, server_port_range_forms, .timeout = 30)
{
	static const char *const cases[][2] = {
		{"000000000065430-65439", "--seed \"x\": malformed"},
		{"65430-65430", "--seed \"x\": malformed"},
		{"0000000000065430-65439", "\"0000000000065430-65439\": expected FIRST-LAST, e.g. 65430-65439"},
		{"-65439", "\"-65439\": expected FIRST-LAST"},
		{"65430", "\"65430\": expected FIRST-LAST"},
		{"65430-", "--port-range \"\": nothing given; expected a whole number from 1 to 65535"},
		{"0-5", "--port-range \"0\": out of range"},
		{"5-65536", "--port-range \"65536\": out of range"},
		{"65431-65430", "\"65431-65430\": LAST is below FIRST"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *args[] = {"--port-range", cases[i][0], "--seed", "x", NULL};
		test_usage_says("kimble-server", args, cases[i][1]);
	}
}

/* ---- out of descriptors ------------------------------------------------------------ */

/* Whether a connection is served: "?list" answered (END, no games), not
 * closed at once. */
static int served(test_conn *c)
{
	char line[64];

	if (test_write_all(c->fd, "?list\n", 6) != 0)
		return 0;
	return test_getline(&c->r, line, sizeof line, 20000) == 3 && strcmp(line, "END") == 0;
}

/* Every descriptor of process pid but 0..2 is close-on-exec (/proc's
 * fdinfo). */
static void all_close_on_exec(pid_t pid)
{
	char path[64];
	int fds = 0;

	for (int fd = 3; fd < 64; fd++) {
		snprintf(path, sizeof path, "/proc/%d/fdinfo/%d", (int)pid, fd);
		FILE *f = fopen(path, "r");
		char line[128];
		unsigned flags = 0;
		if (!f)
			continue;
		while (fgets(line, sizeof line, f))
			sscanf(line, "flags: %o", &flags);
		fclose(f);
		cr_assert(flags & O_CLOEXEC, "descriptor %d is not close-on-exec (flags %o)", fd, flags);
		fds++;
	}
	cr_assert_geq(fds, 4, "the listener, signalfd, epoll and the spare descriptor");
}

/* kimble-server on port (a string, into port[16]) with descriptor limits
 * lim and only descriptors 0..2 from us (not the test runner's): its
 * stdout to out, its stderr to err (or ours with -1).  Its process id. */
static pid_t run_limited(char *port, struct rlimit lim, int out, int err)
{
	char bin[512];

	snprintf(port, 16, "%d", test_free_port());
	char *argv[] = {(char *)test_bin("kimble-server", bin, sizeof bin), "--host", "127.0.0.1",
			"--port", port, NULL};
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (dup2(out, 1) != 1 || (err >= 0 && dup2(err, 2) != 2) ||
		    close_range(3, ~0U, 0) != 0 || setrlimit(RLIMIT_NOFILE, &lim) != 0)
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

/* run_limited, its announce line read from *r. */
static void spawn_limited(test_proc *p, test_reader *r, char *port, struct rlimit lim)
{
	char line[200];
	int out[2];

	cr_assert_eq(pipe(out), 0);
	*p = (test_proc){.in = -1};
	p->pid = run_limited(port, lim, out[1], -1);
	close(out[1]);
	p->out = out[0];
	test_reader_init(r, p->out);
	cr_assert_gt(test_getline(r, line, sizeof line, 20000), 0, "no announce line");
	cr_assert(strstr(line, "listening on"), "%s", line);
}

/* A runtime error at the start, after the port is bound (four
 * descriptors: none left for the signals' and epoll's after the
 * listener), is exit status 1 with the failed call named on stderr
 * (docs/exit-status.md), and no announce line. */
Test(judge_rules, server_runtime_error_exits_1, .timeout = 30)
{
	char dir[512], path[1024], port[16], text[400] = "";
	int st;

	snprintf(path, sizeof path, "%s/err", test_tmpdir(dir, sizeof dir));
	int err = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600), out[2];
	cr_assert_geq(err, 0);
	cr_assert_eq(pipe(out), 0);
	pid_t pid = run_limited(port, (struct rlimit){4, 4}, out[1], err);
	close(out[1]);
	close(err);
	cr_assert_eq(read(out[0], text, sizeof text - 1), 0, "nothing on stdout");
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	FILE *f = fopen(path, "r");
	cr_assert(f && fgets(text, sizeof text, f), "a message");
	fclose(f);
	cr_assert_str_eq(text, "kimble-server: signalfd/epoll: Too many open files\n");
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1, "exit status 1: %d", st);
}

/* Many idle connections are normal for the server: it raises its soft
 * descriptor limit to the hard one (16 of 64 here) and serves far more
 * than 16 descriptors would hold. */
Test(judge_rules, server_takes_every_descriptor_it_may, .timeout = 60)
{
	char port[16];
	test_proc p;
	test_reader r;
	test_conn *c[40];

	spawn_limited(&p, &r, port, (struct rlimit){16, 64});
	for (int i = 0; i < 40; i++) {
		c[i] = test_conn_open(NULL, atoi(port), 10000);
		cr_assert(served(c[i]), "connection %d served", i + 1);
	}
	for (int i = 0; i < 40; i++)
		test_conn_close(c[i]);
	test_kill(&p, SIGTERM);
	cr_assert_eq(test_wait(&p, 20000), 0);
}

/* With every descriptor taken, the server closes each further connection
 * at once (it keeps a spare descriptor for that, open again afterwards)
 * instead of leaving it waiting; a descriptor freed serves exactly one
 * more client; every descriptor the server holds is close-on-exec. */
Test(judge_rules, server_out_of_descriptors_closes_new_connections, .timeout = 60)
{
	char port[16], line[200];
	test_conn *c[24];
	test_proc p;
	test_reader r;
	int n = 0;

	spawn_limited(&p, &r, port, (struct rlimit){16, 16});
	for (;;) {
		cr_assert_lt(n, 24, "16 descriptors hold at most 13 connections");
		c[n] = test_conn_open(NULL, atoi(port), 10000);
		if (!served(c[n++]))
			break;
	}
	cr_assert_geq(n, 3, "some connections served before the limit");
	for (int i = 0; i < n - 1; i++) /* those served still are */
		cr_assert(served(c[i]), "connection %d", i);
	all_close_on_exec(p.pid);
	test_conn_close(c[n - 1]);
	for (int round = 0; round < 2; round++) {
		/* half-closed, the server closes its end once it has answered:
		 * the end of the stream says its descriptor is free */
		cr_assert_eq(shutdown(c[0]->fd, SHUT_WR), 0);
		while (test_getline(&c[0]->r, line, sizeof line, 20000) >= 0)
			;
		test_conn_close(c[0]);
		c[0] = test_conn_open(NULL, atoi(port), 10000);
		cr_assert(served(c[0]), "round %d: a freed descriptor serves the next client", round);
		test_conn *more = test_conn_open(NULL, atoi(port), 10000);
		cr_assert_not(served(more), "round %d: and only that one", round);
		test_conn_close(more);
	}
	all_close_on_exec(p.pid);
	for (int i = 0; i < n - 1; i++)
		test_conn_close(c[i]);
	test_kill(&p, SIGTERM);
	cr_assert_eq(test_wait(&p, 20000), 0);
}

/* ---- the HTTP server's start --------------------------------------------------- */

/* A descriptor libmicrohttpd cannot listen on (a regular file: its epoll
 * set refuses it) makes srv_http_start fail with its documented status
 * and message, and the descriptor it took over is closed. */
Test(judge_rules, http_start_refused_says_why_and_closes_the_socket)
{
	srv_http_opts o = {.max_conns = 8, .addr_conns = 4, .timeout_s = 60,
			   .conn_memory = SRV_HTTP_MEMORY};
	int64_t now = 0;
	kb_err err;
	char dir[512], path[600];
	int fd;

	snprintf(path, sizeof path, "%s/not-a-socket", test_tmpdir(dir, sizeof dir));
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	cr_assert_geq(fd, 0);
	strcpy(err.msg, "unset");
	cr_assert_null(srv_http_start(&o, fd, NULL, NULL, &now, &err));
	cr_assert_str_eq(err.msg, "http: libmicrohttpd would not start (--http-memory too small?)");
	cr_assert_eq(fcntl(fd, F_GETFD), -1, "the refused descriptor is closed");
	cr_assert_eq(errno, EBADF);
}

/* ---- a connection on descriptor 0 ------------------------------------------------ */

static int announce_pipe = -1;

/* The announce stream of the server below: once the server is set up
 * and says where it listens, its descriptor 0 is closed, so that the next
 * connection it accepts is descriptor 0 (as in a server started with its
 * standard input closed); the text goes on to the test. */
static ssize_t announce_write(void *cookie, const char *buf, size_t size)
{
	(void)cookie;
	close(0);
	return test_write_all(announce_pipe, buf, size) == 0 ? (ssize_t)size : -1;
}

/* accept may hand out descriptor 0, which is a connection like any
 * other: served, not taken for a failed accept.  After a clean shutdown
 * (SIGTERM), srv_run has closed every descriptor it opened, the HTTP
 * server's too. */
Test(judge_rules, server_serves_a_connection_on_descriptor_0, .timeout = 60)
{
	int to_test[2], port = test_free_port(), http_port = test_free_port();
	char line[200];
	test_reader r;
	pid_t kid;

	while (http_port == port) /* two free ports, not the same one twice */
		http_port = test_free_port();
	cr_assert_eq(pipe(to_test), 0);
	kid = fork();
	cr_assert_geq(kid, 0);
	if (kid == 0) {
		cookie_io_functions_t io = {.write = announce_write};
		srv_opts o = {.host = "127.0.0.1", .port_first = port, .port_last = port, .seed = 1,
			      .ttl_ms = 60000};
		kb_err err;
		prctl(PR_SET_PDEATHSIG, SIGKILL); /* a failed test leaves no server */
		close(to_test[0]);
		announce_pipe = to_test[1];
		o.announce = fopencookie(NULL, "w", io);
		srv_limits_defaults(&o.limits);
		srv_http_defaults(&o.http);
		o.http.port = http_port;
		int fds = test_open_fds();
		if (!o.announce || srv_run(&o, &err) != SRV_OK)
			_exit(1);
		/* everything the run opened is closed again (and 0 by us) */
		_exit(test_open_fds() == fds - 1 ? 0 : 2);
	}
	close(to_test[1]);
	test_reader_init(&r, to_test[0]);
	cr_assert_gt(test_getline(&r, line, sizeof line, 30000), 0, "no announce line");
	cr_assert(strstr(line, "kimble-server: listening on 127.0.0.1:"), "%s", line);
	test_conn *c = test_conn_open(NULL, port, 10000);
	cr_assert_eq(test_write_all(c->fd, "?list\n", 6), 0);
	cr_assert_eq(test_getline(&c->r, line, sizeof line, 20000), 3, "no answer on descriptor 0");
	cr_assert_str_eq(line, "END");
	test_conn_close(c);
	cr_assert_eq(kill(kid, SIGTERM), 0);
	int st;
	cr_assert_eq(waitpid(kid, &st, 0), kid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) != 1, "the run failed");
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the run left descriptors open (%d)", st);
	close(to_test[0]);
}

/* In test_rule_judge_server_mem.c: from here on the EPOLL_CTL_ADD after
 * the next skip ones fails with ENOSPC. */
void test_refuse_epoll_add(int skip);

/* In test_rule_judge_server_mem.c: the next calloc of bytes bytes fails. */
void test_refuse_calloc(size_t bytes);

static void game_table_refused(void)
{
	test_refuse_calloc(1024 * sizeof(srv_game *)); /* game.c's first buckets */
}

static void no_epoll(void)
{
	test_fail_syscall(SYS_epoll_create1, EMFILE);
}

static void listener_not_added(void)
{
	test_refuse_epoll_add(1); /* after the signalfd */
}

static void http_not_added(void)
{
	test_refuse_epoll_add(2); /* after the signalfd and the listener */
}

static void http_set_not_added(void)
{
	/* after the signalfd, the listener and libmicrohttpd's own
	 * listening socket in its epoll set */
	test_refuse_epoll_add(3);
}

/* srv_run with the live pages, fault() called first: its setup error
 * with message want, every descriptor it opened closed again (its
 * listening sockets, the game's and the HTTP one, included). */
static void setup_fails(void (*fault)(void), const char *want)
{
	int port = test_free_port(), http_port = test_free_port(), st;

	while (http_port == port)
		http_port = test_free_port();
	pid_t kid = fork();
	cr_assert_geq(kid, 0);
	if (kid == 0) {
		srv_opts o = {.host = "127.0.0.1", .port_first = port, .port_last = port, .seed = 1,
			      .ttl_ms = 60000, .announce = stdout};
		kb_err err = {{0}};
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		alarm(10); /* a server that runs anyway ends here */
		srv_limits_defaults(&o.limits);
		srv_http_defaults(&o.http);
		o.http.port = http_port;
		int fds = test_open_fds();
		fault();
		if (srv_run(&o, &err) != SRV_ESETUP || strcmp(err.msg, want) != 0)
			_exit(1);
		_exit(test_open_fds() == fds ? 0 : 2);
	}
	cr_assert_eq(waitpid(kid, &st, 0), kid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) != 1, "not the setup error \"%s\" (%d)", want, st);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "descriptors left open (%d)", st);
}

/* A server that cannot listen (its game port, or its live pages' port,
 * taken) returns SRV_EBIND and closes nothing it did not open: the
 * caller's descriptors, 0 to 2 included, stay open. */
Test(judge_rules, server_that_cannot_listen_leaves_our_descriptors, .timeout = 30)
{
	for (int taken = 0; taken < 2; taken++) {
		int ports[2] = {test_free_port(), test_free_port()}, st;
		while (ports[1] == ports[0])
			ports[1] = test_free_port();
		struct sockaddr_in sa = {.sin_family = AF_INET,
					 .sin_port = htons((uint16_t)ports[taken]),
					 .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
		int busy = socket(AF_INET, SOCK_STREAM, 0);
		cr_assert_eq(bind(busy, (struct sockaddr *)&sa, sizeof sa), 0);
		cr_assert_eq(listen(busy, 1), 0);
		pid_t kid = fork();
		cr_assert_geq(kid, 0);
		if (kid == 0) {
			srv_opts o = {.host = "127.0.0.1", .port_first = ports[0],
				      .port_last = ports[0], .seed = 1, .ttl_ms = 60000,
				      .announce = stdout};
			kb_err err = {{0}};
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			alarm(10); /* a server that runs anyway ends here */
			srv_limits_defaults(&o.limits);
			srv_http_defaults(&o.http);
			o.http.port = ports[1];
			int fds = test_open_fds();
			if (srv_run(&o, &err) != SRV_EBIND)
				_exit(1);
			for (int fd = 0; fd < 3; fd++)
				if (fcntl(fd, F_GETFD) < 0)
					_exit(3 + fd);
			_exit(test_open_fds() == fds ? 0 : 2);
		}
		cr_assert_eq(waitpid(kid, &st, 0), kid);
		cr_assert(WIFEXITED(st) && WEXITSTATUS(st) != 1, "port %d taken: not SRV_EBIND", taken);
		cr_assert(WIFEXITED(st) && WEXITSTATUS(st) < 3, "port %d taken: descriptor %d closed",
			  taken, WEXITSTATUS(st) - 3);
		cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0,
			  "port %d taken: descriptors not as before (%d)", taken, st);
		close(busy);
	}
}

/* A server that cannot be set up (no epoll instance: refused by a seccomp
 * filter) says which call failed and closes what it opened. */
Test(judge_rules, server_that_cannot_be_set_up_closes_what_it_opened, .timeout = 30)
{
	setup_fails(no_epoll, "signalfd/epoll: Too many open files");
}

/* No memory for the game table: a setup error naming it, not a server
 * that runs without one. */
Test(judge_rules, server_without_a_game_table_is_a_setup_error, .timeout = 30)
{
#ifdef __SANITIZE_ADDRESS__
	cr_skip_test("ASan's allocator cannot be put behind test_rule_judge_server_mem.c's");
#endif
	setup_fails(game_table_refused, "game table: Cannot allocate memory");
}

/* The game port's listener not taken by the epoll set: a setup error
 * naming the call, not a server that says it listens and accepts no one. */
Test(judge_rules, server_listener_refused_is_a_setup_error, .timeout = 30)
{
	setup_fails(listener_not_added, "epoll_ctl: No space left on device");
}

/* The live pages refused (libmicrohttpd's epoll set does not take its
 * listening socket): srv_run's setup error with the reason, not a server
 * without them. */
Test(judge_rules, server_http_refused_is_a_setup_error, .timeout = 30)
{
	setup_fails(http_not_added, "http: libmicrohttpd would not start (--http-memory too small?)");
}

/* libmicrohttpd started, but the server's epoll set does not take
 * libmicrohttpd's own: a setup error naming the call, not a server whose
 * live pages are never served. */
Test(judge_rules, server_http_set_refused_is_a_setup_error, .timeout = 30)
{
	setup_fails(http_set_not_added, "epoll_ctl (http): No space left on device");
}
