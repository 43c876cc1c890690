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
	"\n"
	"A local Kimble game server speaking API 001 over TCP (docs/spec.md section 3).\n"
	"\n"
	"  --host ADDR            address to listen on (default 127.0.0.1)\n"
	"  --port PORT            listen on exactly PORT\n"
	"  --port-range F-L       try ports F..L in turn (default 65430-65439)\n"
	"  --seed SEED            run seed, unsigned 64-bit decimal: the k-th game of\n"
	"                         the run uses game seed stream (SEED, GAME, k); default\n"
	"                         random, printed on the first line\n"
	"  --token-ttl SECONDS    lifetime of an unused token (default 120; decimals ok)\n"
	"  --log-dir DIR          write one transcript per game into DIR\n"
	"  --help                 this text\n"
	"\n"
	"First line on stdout: \"kimble-server: listening on HOST:PORT seed SEED\".\n"
	"Spectators: \"?list\\n\" lists games, \"?watch gID\\n\" follows one.\n"
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

static int64_t parse_ttl(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0) || v > 1e9)
		die(EXIT_USAGE, "--token-ttl '%s': expected seconds > 0 (e.g. 120 or 0.5)", s);
	int64_t ms = (int64_t)(v * 1000 + 0.5);
	return ms > 0 ? ms : 1; /* below half a millisecond still expires */
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
		else
			die(EXIT_USAGE, "%s: unknown option", a);
	}
	if (o.log_dir && access(o.log_dir, W_OK | X_OK) != 0)
		die(EXIT_USAGE, "--log-dir '%s': not a writable folder: %s", o.log_dir,
		    strerror(errno));
	if (!seeded)
		o.seed = random_seed();
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
