/* request.c - request framing for the server; see request.h. */
#include <stdio.h>
#include <string.h>

#include "judge/server/request.h"

int srv_spec_id_parse(const char *s, size_t len, uint64_t *id)
{
	uint64_t v = 0;

	if (len != SRV_SPEC_ID_LEN || s[0] != 'g')
		return -1;
	for (size_t i = 1; i < len; i++) {
		int c = (unsigned char)s[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (d < 0)
			return -1;
		v = v << 4 | (uint64_t)d;
	}
	*id = v;
	return 0;
}

void srv_spec_id_format(uint64_t id, char out[SRV_SPEC_ID_LEN])
{
	static const char hex[] = "0123456789abcdef";

	out[0] = 'g';
	for (int i = 0; i < 16; i++)
		out[1 + i] = hex[(id >> (60 - 4 * i)) & 0xf];
}

static void cmd_bad(srv_req *req, const char *why)
{
	req->type = SRV_REQ_BAD;
	snprintf(req->msg.why, sizeof req->msg.why, "%s", why);
}

/* One spectator command line p[0..n) without its line end. */
static void parse_cmd(const char *p, size_t n, srv_req *req)
{
	while (n > 0 && kb_msg_is_space((unsigned char)p[n - 1]))
		n--;
	if (n == 5 && memcmp(p, "?list", 5) == 0) {
		req->type = SRV_REQ_LIST;
		return;
	}
	if (n >= 6 && memcmp(p, "?watch", 6) == 0) {
		size_t i = 6;
		while (i < n && (p[i] == ' ' || p[i] == '\t'))
			i++;
		if (i > 6 && srv_spec_id_parse(p + i, n - i, &req->spec_id) == 0) {
			req->type = SRV_REQ_WATCH;
			return;
		}
		cmd_bad(req, "expected \"?watch g\" and 16 lowercase hex digits (a spectator id)");
		return;
	}
	cmd_bad(req, "expected a spectator command \"?list\" or \"?watch gID\"");
}

static size_t next_cmd(const char *p, size_t n, srv_req *req)
{
	const char *nl = memchr(p, '\n', n < SRV_CMD_MAX + 1 ? n : SRV_CMD_MAX + 1);

	if (!nl) {
		if (n <= SRV_CMD_MAX)
			return 0; /* wait for the line end */
		req->type = SRV_REQ_TOO_LONG;
		snprintf(req->msg.why, sizeof req->msg.why,
			 "a spectator command is at most %d bytes and ends with a line end",
			 SRV_CMD_MAX);
		return n;
	}
	parse_cmd(p, (size_t)(nl - p), req);
	return (size_t)(nl - p) + 1;
}

size_t srv_req_next(const char *buf, size_t len, srv_req *req)
{
	/* the server's requests are core/wire.h's messages and '?' commands */
	static const enum srv_req_type of_msg[] = {
		[KB_MSG_NONE] = SRV_REQ_NONE, [KB_MSG_START] = SRV_REQ_START,
		[KB_MSG_MOVE] = SRV_REQ_MOVE, [KB_MSG_BAD] = SRV_REQ_BAD};
	size_t skip = kb_msg_space(buf, len), used;

	memset(req, 0, sizeof *req);
	if (skip == len)
		return skip;
	req->text = buf + skip;
	if (buf[skip] == '?') {
		used = next_cmd(buf + skip, len - skip, req);
	} else {
		used = kb_msg_scan(buf + skip, len - skip, &req->msg);
		req->type = of_msg[req->msg.type];
	}
	if (req->type == SRV_REQ_NONE)
		used = 0;
	req->text_len = used;
	return skip + used;
}
