/* relay_main.c - kimble-relay: parse arguments, run the relay. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "relay.h"
#include "core/err.h"

static const char usage[] =
	"NAME\n"
	"    kimble-relay - connect a Kimble bot's stdin/stdout to a server over TCP\n"
	"\n"
	"SYNOPSIS\n"
	"    kimble-relay [--host H] [--port P] [--transcript FILE] [--show]\n"
	"                 [--retry-ms N] -- COMMAND [ARGS...]\n"
	"\n"
	"DESCRIPTION\n"
	"    Starts COMMAND (the bot) and passes its messages to the server and the\n"
	"    server's responses back, byte for byte, one message at a time.  A\n"
	"    dropped connection is reconnected and the unanswered message resent.\n"
	"\n"
	"OPTIONS\n"
	"    --host H          server host (default 127.0.0.1)\n"
	"    --port P          server port (default: try 65430..65439 in order)\n"
	"    --transcript FILE log both directions with timestamps to FILE\n"
	"    --show            draw the board on stderr after each response\n"
	"    --retry-ms N      keep trying to reconnect for N ms (default 3000)\n"
	"    --help            this text\n"
	"\n"
	"EXIT STATUS\n"
	"    the bot's exit status (128+N if killed by signal N); 64 usage error;\n"
	"    69 no server reachable (at start or after a drop); 71 the bot could\n"
	"    not be started.\n"
	"\n"
	"EXAMPLE\n"
	"    kimble-relay --show -- bin/kimble-bot hard,hard,hard 7\n";

#define die(status, ...) kb_die("kimble-relay", (status), __VA_ARGS__)

static int parse_int(const char *s, int lo, int hi, const char *what)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v < lo || v > hi)
		die(KB_RELAY_USAGE, "%s \"%s\": expected a number %d..%d", what, s, lo, hi);
	return (int)v;
}

int main(int argc, char **argv)
{
	kb_relay_cfg cfg = {"127.0.0.1", 0, NULL, 0, stderr, 3000};
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			i++;
			break;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage, stdout);
			return 0;
		} else if (!strcmp(a, "--show")) {
			cfg.show = 1;
		} else if (i + 1 < argc && !strcmp(a, "--host")) {
			cfg.host = argv[++i];
		} else if (i + 1 < argc && !strcmp(a, "--port")) {
			cfg.port = parse_int(argv[++i], 1, 65535, "--port");
		} else if (i + 1 < argc && !strcmp(a, "--retry-ms")) {
			cfg.retry_ms = parse_int(argv[++i], 0, 3600000, "--retry-ms");
		} else if (i + 1 < argc && !strcmp(a, "--transcript")) {
			const char *path = argv[++i];
			if (!(cfg.transcript = fopen(path, "w")))
				die(KB_RELAY_USAGE, "--transcript %s: cannot open for writing", path);
		} else {
			die(KB_RELAY_USAGE, "unexpected argument \"%s\" (see kimble-relay --help)", a);
		}
	}
	if (i >= argc)
		die(KB_RELAY_USAGE, "usage: kimble-relay [options] -- COMMAND [ARGS...] (see --help)");
	int rc = kb_relay_run(&cfg, argv + i);
	if (cfg.transcript)
		fclose(cfg.transcript);
	return rc;
}
