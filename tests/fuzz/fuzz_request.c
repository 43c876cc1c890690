/* fuzz_request.c - the server's request framer (judge/server/request.h), fed
 * the way a connection feeds it: bytes arrive in chunks into a bounded
 * buffer.  It must consume within bounds, make progress on every request
 * it reports, report only well-formed requests, and never leave a full
 * buffer with nothing to do. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "judge/server/server.h"
#include "judge/server/request.h"

static void check(const srv_req *r, size_t used, size_t len)
{
	if (used > len)
		abort();
	if (r->type != SRV_REQ_NONE && (r->text_len == 0 || r->text_len > used))
		abort();
	if (r->type == SRV_REQ_MOVE &&
	    (r->msg.index < 0 || r->msg.index > 3 || !kb_token_valid(r->msg.token, KB_TOKEN_LEN)))
		abort();
	if (r->type == SRV_REQ_START &&
	    (r->msg.lineup[0] > 2 || r->msg.lineup[1] > 2 || r->msg.lineup[2] > 2))
		abort();
	if (r->type == SRV_REQ_WATCH) {
		char id[SRV_SPEC_ID_LEN];
		uint64_t back;
		srv_spec_id_format(r->spec_id, id);
		if (srv_spec_id_parse(id, sizeof id, &back) || back != r->spec_id)
			abort();
	}
}

int kb_fuzz_request(const uint8_t *data, size_t size)
{
	char buf[SRV_IN_MAX];
	size_t len = 0, at = 0;
	/* the first byte chooses the chunk size, as reads would split input */
	size_t chunk = size ? (size_t)(data[0] % 97) + 1 : 1;

	while (at < size || len) {
		size_t take = size - at < chunk ? size - at : chunk;
		if (take > SRV_IN_MAX - len)
			take = SRV_IN_MAX - len;
		memcpy(buf + len, data + at, take);
		len += take;
		at += take;
		size_t off = 0;
		for (;;) {
			srv_req r;
			size_t used = srv_req_next(buf + off, len - off, &r);
			check(&r, used, len - off);
			off += used;
			if (r.type == SRV_REQ_NONE)
				break;
		}
		memmove(buf, buf + off, len - off);
		len -= off;
		if (len == SRV_IN_MAX)
			abort(); /* a full buffer the framer cannot use */
		if (at == size)
			break; /* what is left is an unfinished request */
	}
	return 0;
}
