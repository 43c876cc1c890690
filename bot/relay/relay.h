/* relay.h - connect a bot's stdin/stdout to a Kimble server over TCP.
 *
 * The relay starts the bot as a child process with pipes, reads the bot's
 * messages (recognised with kb_msg_scan, passed on byte for byte), sends
 * each to the server and hands the server's whole response (up to and
 * including its END line) back to the bot unchanged.  One message is in
 * flight at a time.  If the connection drops, the relay reconnects (a new
 * connection per message is allowed by the protocol) and resends the
 * message whose response was not complete (also after KB_RELAY_SILENCE_MS
 * without an answer); a response is forwarded only
 * when complete, so the bot never sees half of one.  After the response
 * that ends the game (Voittaja: X, END) the relay closes the bot's stdin,
 * as the judge does, gives it grace_ms to save and exit, and then kills
 * its process group (the bot runs in a group of its own).  Without a port the
 * relay tries 65430..65439 in order, on every (re)connection.
 *
 * Transcript format (--transcript FILE), one record per line:
 *   SECONDS > MESSAGE     bytes sent to the server (escaped)
 *   SECONDS < LINE        one response line received (escaped)
 *   SECONDS # TEXT        connections, retries, the bot's exit
 * SECONDS since the relay started, 3 decimals; bytes outside 0x20..0x7e
 * and '\' are written as \xHH.
 */
#ifndef KB_BOT_RELAY_H
#define KB_BOT_RELAY_H

#include <stdio.h>

#include "core/err.h"

/* A message without any response byte for this long is resent on a new
 * connection (the server answers at once; a silent peer is a dead one). */
#define KB_RELAY_SILENCE_MS 3000

/* Exit statuses of kimble-relay besides the bot's own. */
enum kb_relay_status {
	KB_RELAY_USAGE = KB_EXIT_USAGE, /* bad arguments (64, core/err.h) */
	KB_RELAY_NOSERVER = 69,  /* no server reachable (first or reconnect) */
	KB_RELAY_SPAWN = 71,     /* the bot could not be started */
	KB_RELAY_GRACE = 124     /* game over, but the bot did not exit within
				  * grace_ms of its stdin closing: killed
				  * (the status timeout(1) gives) */
};

typedef struct kb_relay_cfg {
	const char *host;        /* numeric IPv4 or name; "127.0.0.1" default */
	int port;                /* 0: try 65430..65439 */
	FILE *transcript;        /* or NULL */
	int show;                /* draw the board on diag after each response */
	FILE *diag;              /* diagnostics (stderr) */
	int retry_ms;            /* how long to keep trying to reconnect */
	int grace_ms;            /* after the game, before the bot is killed */
} kb_relay_cfg;

/* Run argv (argv[0] searched in PATH) as the bot and relay until it
 * exits or the game is over.  Returns the bot's exit status (128+signal if
 * killed), or a kb_relay_status with a message on cfg->diag. */
int kb_relay_run(const kb_relay_cfg *cfg, char *const argv[]);

#endif
