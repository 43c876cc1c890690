/* request.h - framing of the requests a Kimble server connection sends.
 *
 * A connection's input is a byte stream.  Besides the API 001 messages that
 * core/wire.h scans (start "v001XYZ", move TOKEN+DIGIT, line ends optional),
 * the server understands spectator commands, which the original clients
 * never send and which cannot be mistaken for them because they start with
 * '?' and must end with a line end:
 *
 *   ?list              list the running games
 *   ?watch gHHHH...    follow the game whose spectator id is g + 16 hex
 *
 * srv_req_next() is a pure function of the bytes buffered so far, so it is
 * what the fuzz target fuzz_request drives.
 */
#ifndef KB_SERVER_REQ_H
#define KB_SERVER_REQ_H

#include <stddef.h>
#include <stdint.h>

#include "core/wire.h"

#define SRV_SPEC_ID_LEN 17   /* 'g' + 16 lowercase hex */
#define SRV_CMD_MAX 64       /* longest spectator command line accepted */

enum srv_req_type {
	SRV_REQ_NONE = 0,   /* nothing complete yet: read more */
	SRV_REQ_START,      /* msg.lineup */
	SRV_REQ_MOVE,       /* msg.token, msg.index */
	SRV_REQ_LIST,
	SRV_REQ_WATCH,      /* spec_id */
	SRV_REQ_BAD,        /* why says what was wrong; bad_version as in kb_msg */
	SRV_REQ_TOO_LONG    /* a spectator command longer than SRV_CMD_MAX */
};

typedef struct srv_req {
	enum srv_req_type type;
	kb_msg msg;          /* START, MOVE, BAD: what kb_msg_scan found */
	uint64_t spec_id;    /* WATCH */
	const char *text;    /* the request's bytes (without leading whitespace) */
	size_t text_len;
} srv_req;

/* Frame the next request in buf[0..len).  Returns the number of bytes
 * consumed (never more than len).  req->type is SRV_REQ_NONE when buf holds
 * only whitespace or the beginning of a request; then only whitespace is
 * consumed.  A BAD request consumes through the next '\n' or all of buf; a
 * TOO_LONG spectator command consumes all of buf.  Cannot fail. */
size_t srv_req_next(const char *buf, size_t len, srv_req *req);

/* Parse "g" + 16 lowercase hex digits (exactly len == 17).  Returns 0 and
 * sets *id, or -1. */
int srv_spec_id_parse(const char *s, size_t len, uint64_t *id);

/* Format a spectator id as "g" + 16 lowercase hex into out (no NUL). */
void srv_spec_id_format(uint64_t id, char out[SRV_SPEC_ID_LEN]);

#endif
