/* test_bot_fake.h - a scripted Kimble server for the bot and relay tests:
 * one game of core/game.h answering client messages with the exact
 * responses of docs/spec.md section 3. */
#ifndef KB_TEST_BOT_FAKE_H
#define KB_TEST_BOT_FAKE_H

#include <stddef.h>
#include <stdint.h>

#include "core/game.h"
#include "core/wire.h"

typedef struct fake_game {
	kb_game g;
	uint64_t seed;
	int started, over;
	char token[KB_TOKEN_LEN + 1];
	char *out;          /* response being built */
	size_t n, cap;
	long refused;       /* illegal moves answered with the decision line */
	long moves;
} fake_game;

void fake_init(fake_game *f, uint64_t seed);

/* The response to message m, in f->out / f->n (valid until the next call). */
void fake_respond(fake_game *f, const kb_msg *m);

/* Play a whole game against a child process over pipes: read its
 * messages from fd_in, answer to fd_out.  Returns the winner seat, -1 when
 * the child stopped early, -2 on a timeout (timeout_ms for all). */
int fake_play_pipes(fake_game *f, int fd_in, int fd_out, int timeout_ms);

void fake_free(fake_game *f);

#endif
