/* test_bot_fake.c - the scripted server of test_bot_fake.h. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "support.h"
#include "test_bot_fake.h"

static void put(fake_game *f, const char *s, size_t n)
{
	if (f->n + n > f->cap) {
		f->cap = (f->n + n) * 2 + 256;
		f->out = realloc(f->out, f->cap);
	}
	memcpy(f->out + f->n, s, n);
	f->n += n;
}

static void on_rolled(void *ctx, const kb_roll *roll)
{
	fake_game *f = ctx;
	char line[KB_ROLL_LINE_LEN + 1];

	put(f, line, (size_t)kb_fmt_roll_line(line, roll->board, roll->seat, roll->die));
}

static void advance(fake_game *f)
{
	kb_hooks h = {on_rolled, NULL, f};
	char w[12];

	if (kb_game_advance(&f->g, &h) < 0) {
		put(f, w, (size_t)kb_fmt_winner(w, f->g.winner));
		f->over = 1;
	}
	put(f, "END\n", 4);
}

void fake_init(fake_game *f, uint64_t seed)
{
	memset(f, 0, sizeof *f);
	f->seed = seed;
	snprintf(f->token, sizeof f->token, "t%016llx%048d", (unsigned long long)seed, 0);
}

void fake_respond(fake_game *f, const kb_msg *m)
{
	f->n = 0;
	if (m->type == KB_MSG_START && !f->started) {
		uint8_t ctl[KB_SEATS] = {KB_EXTERNAL, m->lineup[0], m->lineup[1], m->lineup[2]};
		kb_game_init(&f->g, f->seed, ctl);
		f->started = 1;
		put(f, f->token, KB_TOKEN_LEN);
		put(f, "\n", 1);
		advance(f);
	} else if (m->type == KB_MSG_MOVE && f->started && !f->over &&
		   strcmp(m->token, f->token) == 0) {
		f->moves++;
		if (kb_game_decide(&f->g, m->index, &(kb_hooks){NULL, NULL, NULL}) == 0) {
			advance(f);
		} else {
			f->refused++;
			on_rolled(f, &f->g.last);
			put(f, "END\n", 4);
		}
	} else {
		const char *e = m->type == KB_MSG_MOVE ? KB_VIRHE_TOKEN : KB_VIRHE_MESSAGE;
		put(f, e, strlen(e));
		put(f, "\nEND\n", 5);
	}
}

static long ms_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

int fake_play_pipes(fake_game *f, int fd_in, int fd_out, int timeout_ms)
{
	char buf[4096];
	size_t len = 0;
	long until = ms_now() + timeout_ms;

	while (!f->over) {
		kb_msg m;
		size_t used = kb_msg_scan(buf, len, &m);
		if (m.type != KB_MSG_NONE) {
			memmove(buf, buf + used, len - used);
			len -= used;
			fake_respond(f, &m);
			if (test_write_all(fd_out, f->out, f->n))
				return -1;
			continue;
		}
		struct pollfd pf = {fd_in, POLLIN, 0};
		long left = until - ms_now();
		if (left <= 0)
			return -2;
		if (poll(&pf, 1, (int)left) <= 0)
			continue;
		if (len == sizeof buf)
			return -1;
		ssize_t k = read(fd_in, buf + len, sizeof buf - len);
		if (k <= 0)
			return -1;
		len += (size_t)k;
	}
	return f->g.winner;
}

void fake_free(fake_game *f)
{
	free(f->out);
	f->out = NULL;
}
