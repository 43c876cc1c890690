/* client.c - protocol loop of the bot; see client.h. */
#include <ctype.h>
#include <stdarg.h>
#include <string.h>

#include "client.h"
#include "core/wire.h"
#include "core/err.h"

#define LINE_MAX_LEN 128

static int word_ok(const char *w, size_t n)
{
	if (n > KB_CLIENT_NAME_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)w[i]) && !strchr("_.-", w[i]))
			return 0;
	return 1;
}

int kb_lineup_parse(const char *spec, uint8_t lineup[3], unsigned *present,
		    const kb_opponent *opp[KB_SEATS], kb_err *err)
{
	const char *p = spec;
	int seat = 1;

	memset(lineup, 0, 3);
	*present = 1;
	for (int s = 0; s < KB_SEATS; s++)
		opp[s] = NULL;
	while (1) {
		size_t n = strcspn(p, ",");
		char word[KB_CLIENT_NAME_MAX + 1];

		if (seat > 3)
			return kb_err_set(err, -1, "OPPONENTS \"%.60s\": more than three seats, expected at most B,C,D", spec);
		if (!word_ok(p, n))
			return kb_err_set(err, -1, "OPPONENTS \"%.60s\": seat %c: expected a name of letters, digits, '_', '.' or '-' (at most %d)",
				       spec, 'A' + seat, KB_CLIENT_NAME_MAX);
		memcpy(word, p, n);
		word[n] = 0;
		enum kb_policy kind = kb_opponent_kind_of(word, n);
		if (kind != KB_ABSENT) {
			lineup[seat - 1] = (uint8_t)kb_nearest_builtin(kind);
			*present |= 1u << seat;
			opp[seat] = kb_opponent_for_name(word);
		}
		seat++;
		if (p[n] == 0)
			break;
		p += n + 1;
	}
	return 0;
}

/* Read one line (without '\n'; a '\r' before it is kb_line_parse's to
 * drop) of at most LINE_MAX_LEN characters.  Returns its length, -1 at end
 * of input before any byte, -2 for an over-long line (consumed up to its
 * '\n'), -3 for a final line cut off by end of input. */
static long read_line(FILE *in, char *buf)
{
	long n = 0;
	int c, too_long = 0;

	while ((c = getc(in)) != EOF && c != '\n') {
		if (n < LINE_MAX_LEN)
			buf[n] = (char)c;
		else
			too_long = 1;
		n++;
	}
	if (c == EOF && n == 0)
		return -1;
	if (too_long)
		return -2;
	if (c == EOF)
		return -3;
	buf[n] = 0;
	return n;
}

typedef struct game {
	kb_client *c;
	kb_tracker tr;
	char token[KB_TOKEN_LEN + 1];
	int have_token;
	int over;
	char decision[KB_ROLL_LINE_LEN]; /* the last decision line answered */
	int decided;                 /* a move was sent, no line seen since */
	unsigned tried;              /* indices refused for this decision */
	int last_index;
} game;

static int send_move(game *g, FILE *out, kb_err *err)
{
	kb_tracker *t = &g->tr;
	unsigned mask = t->mask & ~g->tried;
	int idx;

	if (!mask)
		return kb_err_set(err, KB_CLIENT_PROTOCOL,
			       "the server refused every legal move of state line %.44s%c%d",
			       g->decision, 'A' + t->seat, t->die);
	idx = kb_search_decide(g->c->bot, &t->pos, t->die, mask, NULL);
	kb_tracker_own_move(t, idx);
	g->last_index = idx;
	g->decided = 1;
	g->c->decisions++;
	if (fprintf(out, "%s%d\n", g->token, idx) < 0 || fflush(out))
		return kb_err_set(err, KB_CLIENT_IO, "cannot write the move to standard output");
	return KB_CLIENT_OK;
}

/* A state line; handles a repeated decision line (refused move). */
static int on_roll_line(game *g, const char *raw, const kb_line *ln, kb_err *err)
{
	if (g->decided && memcmp(raw, g->decision, KB_ROLL_LINE_LEN) == 0) {
		g->tried |= 1u << g->last_index;
		if (g->c->diag)
			fprintf(g->c->diag, "kimble-bot: the server refused piece %d; choosing again\n",
				g->last_index);
		g->decided = 0;
		kb_tracker_own_move(&g->tr, -1);
		return KB_CLIENT_OK;
	}
	if (kb_tracker_line(&g->tr, ln, err))
		return KB_CLIENT_PROTOCOL;
	g->decided = 0;
	g->tried = 0;
	memcpy(g->decision, raw, KB_ROLL_LINE_LEN);
	g->c->lines++;
	return KB_CLIENT_OK;
}

/* The response is complete: answer the pending decision. */
static int on_end(game *g, FILE *out, int roll_lines_seen, kb_err *err)
{
	kb_tracker *t = &g->tr;

	if (g->over)
		return KB_CLIENT_OK;
	if (!g->have_token)
		return kb_err_set(err, KB_CLIENT_PROTOCOL, "response ended (END) before a token line");
	if (!roll_lines_seen)
		return kb_err_set(err, KB_CLIENT_PROTOCOL, "response had no state line and no winner");
	if (!t->have || t->seat != 0 || kb_count(t->mask) < 2)
		return kb_err_set(err, KB_CLIENT_PROTOCOL,
			       "response ended without a decision for A: the last state line %.46s offers A no choice",
			       g->decision);
	return send_move(g, out, err);
}

/* A parsed line other than END; buf is its text. */
static int on_line(game *g, const char *buf, const kb_line *ln, int *roll_lines_seen, kb_err *err)
{
	int shown = (int)ln->len;

	if (g->over)
		return kb_err_set(err, KB_CLIENT_PROTOCOL, "line \"%.*s\" after the winner line, expected END",
			       shown < 60 ? shown : 60, buf);
	switch (ln->type) {
	case KB_LINE_TOKEN:
		if (g->have_token)
			return kb_err_set(err, KB_CLIENT_PROTOCOL, "a second token line \"%.20s...\"", buf);
		memcpy(g->token, ln->token, sizeof g->token);
		g->have_token = 1;
		return KB_CLIENT_OK;
	case KB_LINE_ROLL:
		if (!g->have_token)
			return kb_err_set(err, KB_CLIENT_PROTOCOL, "state line before the token line");
		if (*roll_lines_seen > 0 && g->tr.have && g->tr.seat == 0 && kb_count(g->tr.mask) >= 2)
			return kb_err_set(err, KB_CLIENT_PROTOCOL,
				       "state line %.46s follows an A decision line in the same response", buf);
		(*roll_lines_seen)++;
		return on_roll_line(g, buf, ln, err);
	case KB_LINE_WINNER:
		if (kb_tracker_winner(&g->tr, ln->seat, err))
			return KB_CLIENT_PROTOCOL;
		g->c->winner = ln->seat;
		g->over = 1;
		return KB_CLIENT_OK;
	case KB_LINE_ERROR:
		return kb_err_set(err, KB_CLIENT_SERVER, "the server answered \"%.*s\"",
			       shown < 100 ? shown : 100, buf);
	default:
		return KB_CLIENT_OK;
	}
}

int kb_client_run(kb_client *c, FILE *in, FILE *out, kb_err *err)
{
	game g;
	char start[9], buf[LINE_MAX_LEN + 1];
	int roll_lines_seen = 0, rc;

	memset(&g, 0, sizeof g);
	g.c = c;
	c->winner = -1;
	c->decisions = c->lines = 0;
	kb_tracker_init(&g.tr, c->present, c->observe, c->observe_ctx);
	kb_fmt_start(start, c->lineup);
	if (fwrite(start, 1, 8, out) != 8 || fflush(out))
		return kb_err_set(err, KB_CLIENT_IO, "cannot write the start message to standard output");
	while (1) {
		long n = read_line(in, buf);
		if (n == -1 || n == -3) {
			if (g.over)
				return KB_CLIENT_OK; /* winner seen; END missing */
			return kb_err_set(err, KB_CLIENT_IO, "standard input ended before the game was over");
		}
		if (n == -2)
			return kb_err_set(err, KB_CLIENT_PROTOCOL, "a line longer than %d characters", LINE_MAX_LEN);
		kb_line ln;
		kb_err why;
		if (kb_line_parse(buf, (size_t)n, &ln, &why))
			return kb_err_set(err, KB_CLIENT_PROTOCOL, "%s", why.msg);
		if (ln.type == KB_LINE_END) {
			if ((rc = on_end(&g, out, roll_lines_seen, err)) || g.over)
				return rc;
			roll_lines_seen = 0;
			continue;
		}
		if ((rc = on_line(&g, buf, &ln, &roll_lines_seen, err)))
			return rc;
	}
}
