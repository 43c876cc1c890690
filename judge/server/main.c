/* main.c - kimble-server: parse the arguments, run the server, map
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
#include "judge/server/server.h"
#include "core/err.h"
#include "core/num.h"

enum { EXIT_RUNTIME = 1, EXIT_BIND = 3 }; /* usage errors: KB_EXIT_USAGE */

static const char usage[] =
	"usage: kimble-server [--host ADDR] [--port PORT | --port-range FIRST-LAST]\n"
	"                     [--seed SEED] [--token-ttl SECONDS] [--log-dir DIR]\n"
	"                     [limits: --max-games N --addr-games N --addr-rate R\n"
	"                      --addr-burst N --game-spectators N --addr-spectators N\n"
	"                      --trust ADDR]\n"
	"                     [live pages: --http PORT --http-host ADDR\n"
	"                      --http-connections N --http-addr-connections N\n"
	"                      --http-timeout SECONDS --http-memory BYTES]\n"
	"\n"
	"A local Kimble game server speaking API 001 over TCP (docs/spec.md section 3).\n"
	"\n"
	"  --host ADDR            address to listen on (default 127.0.0.1)\n"
	"  --port PORT            listen on exactly PORT\n"
	"  --port-range F-L       try ports F..L in turn (default 65430-65439)\n"
	"  --seed SEED            run seed, unsigned 64-bit decimal: the k-th game of\n"
	"                         the run uses game seed stream (SEED, GAME, k); default\n"
	"                         random, printed on the first line\n"
	"  --token-ttl SECONDS    lifetime of an unused token, 0.001..1000000000\n"
	"                         (default 120; decimals ok)\n"
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
	"\n"
	"Live pages: a browser lists the games and watches one as it is played\n"
	"(docs/live.md).  Spectators there count in the spectator limits above:\n"
	"  --http PORT            serve them over HTTP on PORT (default: none)\n"
	"  --http-host ADDR       address for them (default: the --host address)\n"
	"  --http-connections N   HTTP connections in all (default " SRV_STR(SRV_HTTP_CONNS) ")\n"
	"  --http-addr-connections N  HTTP connections per address (default " SRV_STR(SRV_HTTP_ADDR_CONNS) ";\n"
	"                         --trust exempts an address)\n"
	"  --http-timeout SECONDS close an HTTP connection idle this long, 1..86400\n"
	"                         (default " SRV_STR(SRV_HTTP_TIMEOUT) "; a watched game's stream is not idle)\n"
	"  --http-memory BYTES    memory for one HTTP connection's request and output\n"
	"                         buffers, 8192..1048576 (default " SRV_STR(SRV_HTTP_MEMORY) ")\n"
	"  --help                 this text\n"
	"\n"
	"First line on stdout: \"kimble-server: listening on HOST:PORT seed SEED\";\n"
	"with --http a second line \"kimble-server: http on HOST:PORT\".\n"
	"Spectators: \"?list\\n\" lists games (the " SRV_STR(SRV_LIST_MAX) " most recently used),\n"
	"\"?watch gID\\n\" follows one.\n"
	"SIGINT/SIGTERM end the run; running games are logged as unfinished.\n"
	"Exit status: 0 clean shutdown, 1 runtime error, 3 no port could be bound,\n"
	"64 usage error (unknown option, bad or missing value, unusable --host or\n"
	"--log-dir).\n";

#define PROG "kimble-server"
#define die(code, ...) kb_die(PROG, (code), __VA_ARGS__)
#define usage_error(...) kb_die_usage(PROG, __VA_ARGS__)

static long parse_port(const char *s, const char *opt)
{
	return (long)kb_arg_range(PROG, opt, s, 1, 65535);
}

static void parse_range(const char *s, srv_opts *o)
{
	char first[16];
	const char *dash = strchr(s, '-');

	if (!dash || dash == s || (size_t)(dash - s) >= sizeof first)
		usage_error("--port-range \"%s\": expected FIRST-LAST, e.g. 65430-65439", s);
	memcpy(first, s, (size_t)(dash - s));
	first[dash - s] = '\0';
	o->port_first = (int)parse_port(first, "--port-range");
	o->port_last = (int)parse_port(dash + 1, "--port-range");
	if (o->port_last < o->port_first)
		usage_error("--port-range \"%s\": LAST is below FIRST", s);
}

/* The limit options; returns 0 when argv[*i] is not one of them. */
static int parse_limit(int argc, char **argv, int *i, srv_limits_opts *l)
{
	const struct {
		const char *name;
		size_t *field;
		long long max;
	} counts[] = {{"--max-games", &l->max_games, 100000000},
		      {"--addr-games", &l->addr_games, 100000000},
		      {"--game-spectators", &l->game_watchers, 1000000},
		      {"--addr-spectators", &l->addr_watchers, 1000000}};
	const char *a = argv[*i];

	for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
		if (strcmp(a, counts[k].name) == 0) {
			*counts[k].field = (size_t)kb_arg_range(
				PROG, a, kb_arg_value(PROG, argc, argv, i), 1, counts[k].max);
			return 1;
		}
	if (strcmp(a, "--addr-burst") == 0)
		l->addr_burst = (double)kb_arg_range(PROG, a, kb_arg_value(PROG, argc, argv, i), 1,
						     100000000);
	else if (strcmp(a, "--addr-rate") == 0)
		l->addr_rate = kb_arg_real(PROG, a, kb_arg_value(PROG, argc, argv, i), 1e-6, 1e9);
	else if (strcmp(a, "--trust") == 0) {
		const char *v = kb_arg_value(PROG, argc, argv, i);
		if (srv_limits_trust(l, v) != 0)
			usage_error("--trust \"%s\": expected \"loopback\" or a numeric IPv4 or "
				    "IPv6 address (at most %d)", v, SRV_TRUST_MAX);
	} else
		return 0;
	return 1;
}

/* The live page options; returns 0 when argv[*i] is not one of them. */
static int parse_http(int argc, char **argv, int *i, srv_http_opts *h)
{
	const char *a = argv[*i];

	if (strncmp(a, "--http", 6) != 0)
		return 0;
	if (strcmp(a, "--http-host") == 0) {
		h->host = kb_arg_value(PROG, argc, argv, i);
		return 1;
	}
	if (strcmp(a, "--http") == 0)
		h->port = (int)parse_port(kb_arg_value(PROG, argc, argv, i), a);
	else if (strcmp(a, "--http-connections") == 0)
		h->max_conns = (unsigned)kb_arg_range(PROG, a, kb_arg_value(PROG, argc, argv, i), 1, 1000000);
	else if (strcmp(a, "--http-addr-connections") == 0)
		h->addr_conns = (unsigned)kb_arg_range(PROG, a, kb_arg_value(PROG, argc, argv, i), 1, 1000000);
	else if (strcmp(a, "--http-timeout") == 0)
		h->timeout_s = (unsigned)kb_arg_range(PROG, a, kb_arg_value(PROG, argc, argv, i), 1, 86400);
	else if (strcmp(a, "--http-memory") == 0)
		h->conn_memory = (size_t)kb_arg_range(PROG, a, kb_arg_value(PROG, argc, argv, i), 8192, 1048576);
	else
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
	srv_http_defaults(&o.http);

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			fputs(usage, stdout);
			return 0;
		}
		if (strcmp(a, "--host") == 0)
			o.host = kb_arg_value(PROG, argc, argv, &i);
		else if (strcmp(a, "--port") == 0)
			o.port_first = o.port_last =
				(int)parse_port(kb_arg_value(PROG, argc, argv, &i), "--port");
		else if (strcmp(a, "--port-range") == 0)
			parse_range(kb_arg_value(PROG, argc, argv, &i), &o);
		else if (strcmp(a, "--seed") == 0)
			o.seed = kb_arg_u64(PROG, a, kb_arg_value(PROG, argc, argv, &i)), seeded = 1;
		else if (strcmp(a, "--token-ttl") == 0)
			o.ttl_ms = kb_arg_seconds(PROG, a, kb_arg_value(PROG, argc, argv, &i), 1,
						  (int64_t)1000000000 * 1000);
		else if (strcmp(a, "--log-dir") == 0)
			o.log_dir = kb_arg_value(PROG, argc, argv, &i);
		else if (!parse_limit(argc, argv, &i, &o.limits) && !parse_http(argc, argv, &i, &o.http))
			kb_arg_unknown(PROG, a);
	}
	if (o.log_dir && access(o.log_dir, W_OK | X_OK) != 0)
		usage_error("--log-dir \"%s\": not a writable folder: %s", o.log_dir, strerror(errno));
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
		usage_error("%s", err.msg);
		break;
	default:
		die(EXIT_RUNTIME, "%s", err.msg);
	}
	return EXIT_RUNTIME;
}
