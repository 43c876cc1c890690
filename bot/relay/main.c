/* main.c - kimble-relay: parse arguments, run the relay. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/relay/relay.h"
#include "core/err.h"
#include "core/num.h"

static const char usage[] =
	"NAME\n"
	"    kimble-relay - connect a Kimble bot's stdin/stdout to a server over TCP\n"
	"\n"
	"SYNOPSIS\n"
	"    kimble-relay [--host H] [--port P] [--transcript FILE] [--show]\n"
	"                 [--retry-ms N] [--grace-ms N] -- COMMAND [ARGS...]\n"
	"\n"
	"DESCRIPTION\n"
	"    Starts COMMAND (the bot) and passes its messages to the server and the\n"
	"    server's responses back, byte for byte, one message at a time.  A\n"
	"    dropped connection is reconnected and the unanswered message resent.\n"
	"    After the game (Voittaja and END handed to the bot) the bot's stdin is\n"
	"    closed; it has the grace period to save and exit, then it is killed.\n"
	"\n"
	"OPTIONS\n"
	"    --host H          server host (default 127.0.0.1)\n"
	"    --port P          server port 1..65535 (default: try 65430..65439 in\n"
	"                      order)\n"
	"    --transcript FILE log both directions with timestamps to FILE\n"
	"    --show            draw the board on stderr after each response\n"
	"    --retry-ms N      keep trying to reconnect for N ms, 0..3600000\n"
	"                      (default 3000)\n"
	"    --grace-ms N      after the game, wait N ms for the bot to exit before\n"
	"                      killing it, 0..60000 (default 500, as the judge)\n"
	"    --help            this text\n"
	"\n"
	"EXIT STATUS\n"
	"    the bot's exit status (128+N if killed by signal N); 64 usage error\n"
	"    (unknown option, bad or missing value, no COMMAND);\n"
	"    69 no server reachable (at start or after a drop); 71 the bot could\n"
	"    not be started; 124 the game ended but the bot did not exit within the\n"
	"    grace period and was killed.\n"
	"\n"
	"EXAMPLE\n"
	"    kimble-relay --show -- bin/kimble-bot hard,hard,hard 7\n";

#define PROG "kimble-relay"

int main(int argc, char **argv)
{
	kb_relay_cfg cfg = {"127.0.0.1", 0, NULL, 0, stderr, 3000, 500};
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
		} else if (!strcmp(a, "--host")) {
			cfg.host = kb_arg_value(PROG, argc, argv, &i);
		} else if (!strcmp(a, "--port")) {
			cfg.port = (int)kb_arg_range(PROG, a, kb_arg_value(PROG, argc, argv, &i), 1, 65535);
		} else if (!strcmp(a, "--retry-ms")) {
			cfg.retry_ms = (int)kb_arg_range(PROG, a, kb_arg_value(PROG, argc, argv, &i), 0,
							 3600000);
		} else if (!strcmp(a, "--grace-ms")) {
			cfg.grace_ms = (int)kb_arg_range(PROG, a, kb_arg_value(PROG, argc, argv, &i), 0,
							 60000);
		} else if (!strcmp(a, "--transcript")) {
			const char *path = kb_arg_value(PROG, argc, argv, &i);
			if (!(cfg.transcript = fopen(path, "we")))
				kb_die_usage(PROG, "--transcript %s: cannot open for writing", path);
		} else if (a[0] == '-') {
			kb_arg_unknown(PROG, a);
		} else {
			kb_die_usage(PROG, "unexpected argument \"%s\": the bot's COMMAND goes after --",
				     a);
		}
	}
	if (i >= argc)
		kb_die_usage(PROG, "expected -- COMMAND [ARGS...] after the options");
	int rc = kb_relay_run(&cfg, argv + i);
	if (cfg.transcript)
		fclose(cfg.transcript);
	return rc;
}
