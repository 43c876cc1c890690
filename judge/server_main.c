/* server_main.c - kimble-server: parse the arguments, run the server, map
 * its errors to exit codes.  See server.h and README "The server". */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "core/wire.h"
#include "server.h"
#include "core/err.h"

enum { EXIT_RUNTIME = 1, EXIT_USAGE = 2, EXIT_BIND = 3 };

static const char usage[] =
	"usage: kimble-server [--host ADDR] [--port PORT | --port-range FIRST-LAST]\n"
	"                     [--seed SEED] [--token-ttl SECONDS] [--log-dir DIR]\n"
	"                     [limits: --max-games N --addr-games N --addr-rate R\n"
	"                      --addr-burst N --game-spectators N --addr-spectators N\n"
	"                      --trust ADDR]\n"
	"\n"
	"A local Kimble game server speaking API 001 over TCP (KIMBLE.md section 2).\n"
	"\n"
	"  --host ADDR            address to listen on (default 127.0.0.1)\n"
	"  --port PORT            listen on exactly PORT\n"
	"  --port-range F-L       try ports F..L in turn (default 65430-65439)\n"
	"  --seed SEED            run seed, unsigned 64-bit decimal: the k-th game of\n"
	"                         the run uses game seed stream (SEED, GAME, k); default\n"
	"                         random, printed on the first line\n"
	"  --token-ttl SECONDS    lifetime of an unused token (default 120; decimals ok)\n"
	"  --log-dir DIR          write one transcript per game into DIR\n"
	"\n"
	"Limits (a start or ?watch beyond one is answered with a Virhe line and END,\n"
	"and logged on stderr, at most one line a second per limit; see\n"
	"docs/server-limits.md).  An address is an IPv4 address or an IPv6 /64;\n"
	"loopback is one address like any other unless trusted:\n"
	"  --max-games N          running games in all (default " SRV_STR(SRV_MAX_GAMES) ", about\n"
	"                         1 KB each; with --log-dir " SRV_STR(SRV_MAX_GAMES_LOGGED) ", 10-40 KB each)\n"
	"  --addr-games N         running games per address (default " SRV_STR(SRV_ADDR_GAMES) ")\n"
	"  --addr-rate R          new games a second per address, decimals ok\n"
	"                         (default " SRV_STR(SRV_ADDR_RATE_INT) ")\n"
	"  --addr-burst N         new games at once per address: the size of the\n"
	"                         token bucket that --addr-rate refills (default " SRV_STR(SRV_ADDR_BURST_INT) ")\n"
	"  --game-spectators N    spectators per game (default " SRV_STR(SRV_GAME_WATCHERS) ")\n"
	"  --addr-spectators N    spectators per address (default " SRV_STR(SRV_ADDR_WATCHERS) ")\n"
	"  --trust ADDR           exempt ADDR from the per-address limits: a numeric\n"
	"                         IPv4/IPv6 address, or \"loopback\" (127.0.0.0/8, ::1);\n"
	"                         repeatable, up to " SRV_STR(SRV_TRUST_MAX) " addresses\n"
	"  --help                 this text\n"
	"\n"
	"First line on stdout: \"kimble-server: listening on HOST:PORT seed SEED\".\n"
	"Spectators: \"?list\\n\" lists games (the " SRV_STR(SRV_LIST_MAX) " most recently used),\n"
	"\"?watch gID\\n\" follows one.\n"
	"SIGINT/SIGTERM end the run; running games are logged as unfinished.\n"
	"Exit status: 0 clean shutdown, 1 runtime error, 2 usage error,\n"
	"3 no port could be bound.\n";

/* Fatal error; a usage error also points at --help. */
#define die(code, fmt, ...)                                                     \
	kb_die("kimble-server", (code), fmt "%s", ##__VA_ARGS__,                \
	       (code) == EXIT_USAGE ? "\ntry 'kimble-server --help'" : "")

static long parse_port(const char *s, const char *opt)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > 65535)
		die(EXIT_USAGE, "%s '%s': expected a port number 1..65535", opt, s);
	return v;
}

static void parse_range(const char *s, srv_opts *o)
{
	char first[16];
	const char *dash = strchr(s, '-');

	if (!dash || dash == s || (size_t)(dash - s) >= sizeof first)
		die(EXIT_USAGE, "--port-range '%s': expected FIRST-LAST, e.g. 65430-65439", s);
	memcpy(first, s, (size_t)(dash - s));
	first[dash - s] = '\0';
	o->port_first = (int)parse_port(first, "--port-range");
	o->port_last = (int)parse_port(dash + 1, "--port-range");
	if (o->port_last < o->port_first)
		die(EXIT_USAGE, "--port-range '%s': LAST is below FIRST", s);
}

static uint64_t parse_seed(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-')
		die(EXIT_USAGE, "--seed '%s': expected an unsigned 64-bit decimal", s);
	return v;
}

/* A decimal number > 0 (and at most 1e9); expected says what it counts. */
static double parse_positive(const char *s, const char *opt, const char *expected)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0) || v > 1e9)
		die(EXIT_USAGE, "%s '%s': expected %s > 0 (e.g. 120 or 0.5)", opt, s, expected);
	return v;
}

static int64_t parse_ttl(const char *s)
{
	double v = parse_positive(s, "--token-ttl", "seconds");
	int64_t ms = (int64_t)(v * 1000 + 0.5);
	return ms > 0 ? ms : 1; /* below half a millisecond still expires */
}

/* A count option: a decimal in 1..max. */
static size_t parse_count(const char *s, const char *opt, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > max)
		die(EXIT_USAGE, "%s '%s': expected a whole number 1..%ld", opt, s, max);
	return (size_t)v;
}

/* The limit options; returns 0 when a is not one of them. */
static int parse_limit(const char *a, const char *v, srv_limits_opts *l)
{
	if (strcmp(a, "--max-games") == 0)
		l->max_games = parse_count(v, a, 100000000);
	else if (strcmp(a, "--addr-games") == 0)
		l->addr_games = parse_count(v, a, 100000000);
	else if (strcmp(a, "--addr-rate") == 0)
		l->addr_rate = parse_positive(v, a, "new games a second");
	else if (strcmp(a, "--addr-burst") == 0)
		l->addr_burst = (double)parse_count(v, a, 100000000);
	else if (strcmp(a, "--game-spectators") == 0)
		l->game_watchers = parse_count(v, a, 1000000);
	else if (strcmp(a, "--addr-spectators") == 0)
		l->addr_watchers = parse_count(v, a, 1000000);
	else if (strcmp(a, "--trust") == 0) {
		if (srv_limits_trust(l, v) != 0)
			die(EXIT_USAGE, "--trust '%s': expected \"loopback\" or a numeric IPv4 or "
			    "IPv6 address (at most %d)", v, SRV_TRUST_MAX);
	} else
		return 0;
	return 1;
}

static uint64_t random_seed(void)
{
	uint64_t v;

	if (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v)
		die(EXIT_RUNTIME, "getrandom: %s", strerror(errno));
	return v;
}

int main(int argc, char **argv)
{
	srv_opts o = {.host = "127.0.0.1", .port_first = KB_PORT_FIRST,
		      .port_last = KB_PORT_LAST, .ttl_ms = KB_TOKEN_TTL * 1000, .announce = stdout};
	int seeded = 0;
	kb_err err;

	srv_limits_defaults(&o.limits);

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			fputs(usage, stdout);
			return 0;
		}
		if (!v)
			die(EXIT_USAGE, "%s: unknown option or missing value", a);
		i++;
		if (strcmp(a, "--host") == 0)
			o.host = v;
		else if (strcmp(a, "--port") == 0)
			o.port_first = o.port_last = (int)parse_port(v, "--port");
		else if (strcmp(a, "--port-range") == 0)
			parse_range(v, &o);
		else if (strcmp(a, "--seed") == 0)
			o.seed = parse_seed(v), seeded = 1;
		else if (strcmp(a, "--token-ttl") == 0)
			o.ttl_ms = parse_ttl(v);
		else if (strcmp(a, "--log-dir") == 0)
			o.log_dir = v;
		else if (!parse_limit(a, v, &o.limits))
			die(EXIT_USAGE, "%s: unknown option", a);
	}
	if (o.log_dir && access(o.log_dir, W_OK | X_OK) != 0)
		die(EXIT_USAGE, "--log-dir '%s': not a writable folder: %s", o.log_dir,
		    strerror(errno));
	if (!seeded)
		o.seed = random_seed();
	if (!o.limits.max_games) /* transcripts in memory make a game 10-40 times larger */
		o.limits.max_games = o.log_dir ? SRV_MAX_GAMES_LOGGED : SRV_MAX_GAMES;
	switch (srv_run(&o, &err)) {
	case SRV_OK:
		return 0;
	case SRV_EBIND:
		die(EXIT_BIND, "%s", err.msg);
		break;
	case SRV_EHOST:
		die(EXIT_USAGE, "--host %s", err.msg);
		break;
	default:
		die(EXIT_RUNTIME, "%s", err.msg);
	}
	return EXIT_RUNTIME;
}
