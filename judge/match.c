/* match.c - one refereed game over pipes; see match.h. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "core/game.h"
#include "core/transcript.h"
#include "match.h"

void kj_token(uint64_t seed, int s, char out[KB_TOKEN_LEN + 1])
{
	out[0] = 't';
	for (int i = 0; i < 4; i++)
		snprintf(out + 1 + 16 * i, 17, "%016" PRIx64,
			 kb_stream_seed(seed, KB_TAG_USER + 1, (uint64_t)(s * 4 + i)));
}

uint64_t kj_bot_seed(uint64_t seed, int s)
{
	return kb_stream_seed(seed, KB_TAG_USER, (uint64_t)s);
}

/* ---- one game's state -------------------------------------------------- */

typedef struct seat {
	const kj_bot *bot;
	kj_proc proc;
	int running;          /* a process that has not forfeited */
	int token_sent;
	size_t sent;          /* rolls already sent */
	char token[KB_TOKEN_LEN + 1];
} seat;

typedef struct match {
	kb_game g;
	const kj_match_opts *opt;
	FILE *tx;
	kj_result *res;
	seat seats[KB_SEATS];
	kb_roll *rolls;       /* every roll so far (board before the move) */
	size_t nrolls, cap;
	int oom;
	uint32_t diverged;    /* first roll that differs from opt->expect */
	double t0;
} match;

static double stamp(const match *m)
{
	return m->opt->timing ? kj_now_ms() - m->t0 : 0.0;
}

static void on_rolled(void *ctx, const kb_roll *roll)
{
	match *m = ctx;

	if (m->nrolls == m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 512;
		kb_roll *p = realloc(m->rolls, ncap * sizeof *p);
		if (!p) {
			m->oom = 1;
			return;
		}
		m->rolls = p;
		m->cap = ncap;
	}
	m->rolls[m->nrolls++] = *roll;
}

/* 1 if roll number n differs from the expected transcript's. */
static int differs(const kb_transcript *e, uint32_t n, const kb_roll *roll)
{
	char line[KB_ROLL_LINE_LEN];

	if (n > e->nrolls)
		return 1;
	memcpy(line, roll->board, KB_BOARD_LEN);
	line[KB_BOARD_LEN] = (char)('A' + roll->seat);
	line[KB_BOARD_LEN + 1] = (char)('0' + roll->die);
	return memcmp(line, e->rolls[n - 1].line, KB_ROLL_LINE_LEN) ||
	       roll->index != e->rolls[n - 1].index || roll->how != e->rolls[n - 1].how;
}

static void on_played(void *ctx, const kb_roll *roll)
{
	match *m = ctx;

	if (m->tx)
		kb_tx_write_roll(m->tx, (uint32_t)m->nrolls, roll);
	if (m->opt->expect && !m->diverged && differs(m->opt->expect, (uint32_t)m->nrolls, roll))
		m->diverged = (uint32_t)m->nrolls;
}

static void debug_line(const match *m, int s, const char *dir, const char *text, size_t len)
{
	if (!m->opt->debug)
		return;
	while (len && (text[len - 1] == '\n' || text[len - 1] == '\r'))
		len--;
	fprintf(m->opt->debug, "%c %s %.*s\n", 'A' + s, dir, (int)len, text);
}

/* Queue text for seat s (and show it in a debug run, line by line). */
static int send_text(match *m, int s, const char *text, size_t len)
{
	for (size_t at = 0; at < len;) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (text + at)) + 1 : len - at;
		debug_line(m, s, ">", text + at, n);
		at += n;
	}
	return kj_proc_send(&m->seats[s].proc, text, len);
}

/* Everything seat s has not seen yet, up to roll upto (exclusive). */
static int send_rolls(match *m, int s, size_t upto)
{
	seat *c = &m->seats[s];
	char line[KB_ROLL_LINE_LEN + 1], board[KB_BOARD_LEN];

	if (!c->token_sent) { /* the first text the bot gets: its empty buffer has room */
		char tok[KB_TOKEN_LEN + 1];
		memcpy(tok, c->token, KB_TOKEN_LEN);
		tok[KB_TOKEN_LEN] = '\n';
		send_text(m, s, tok, sizeof tok);
		c->token_sent = 1;
	}
	for (; c->sent < upto; c->sent++) {
		const kb_roll *r = &m->rolls[c->sent];
		kb_board_rotate(r->board, s, board);
		kb_fmt_roll_line(line, board, kb_seat_rotate((char)('A' + r->seat), s) - 'A', r->die);
		if (send_text(m, s, line, sizeof line))
			return -1;
	}
	return 0;
}

static void note(match *m, const char *fmt, int s, const char *what)
{
	char text[256];

	snprintf(text, sizeof text, fmt, 'A' + s, m->seats[s].bot->name, what);
	if (m->tx)
		kb_tx_write_note(m->tx, text);
	if (m->opt->debug)
		fprintf(m->opt->debug, "%s\n", text);
}

/* What the judge knows about a forfeit beyond its reason. */
static void reason_detail(const match *m, const seat *c, int reason, char *out, size_t size)
{
	int st = c->proc.status;
	/* the run's total, which other workers add to (proc.c) */
	uint64_t written = c->proc.written ? __atomic_load_n(c->proc.written, __ATOMIC_RELAXED) : 0;

	if (reason == KJ_TIMEOUT)
		snprintf(out, size, "no answer within %d ms", m->opt->move_ms);
	else if (reason == KJ_STARTUP)
		snprintf(out, size, "no v001XYZ within %d ms", m->opt->startup_ms);
	else if (reason == KJ_CRASH && st >= 0 && WIFSIGNALED(st))
		snprintf(out, size, "killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
	else if (reason == KJ_EXIT && st >= 0 && WIFEXITED(st))
		snprintf(out, size, "exited with status %d before the game ended%s", WEXITSTATUS(st),
			 c->bot->keep_stderr || m->opt->debug ? ""
			 : "; its stderr is discarded (meta line 4 is 0)");
	else if (reason == KJ_UNREAD)
		snprintf(out, size, "left more than %d bytes of input unread", KJ_OUTBUF);
	else if (reason == KJ_WRITE && written)
		snprintf(out, size, "wrote %" PRIu64 " bytes (%.1f MiB) in this run, over its "
			 "budget of %d MiB (--max-write-mb)", written,
			 (double)written / (1 << 20), m->opt->limits.write_mb);
	else
		out[0] = '\0';
}

/* The bot in seat s is out: record why (detail, or NULL for what the
 * judge can tell from the reason), kill it, let hard play on. */
static void forfeit(match *m, int s, int reason, const char *detail)
{
	seat *c = &m->seats[s];
	kj_seat_result *sr = &m->res->seat[s];

	sr->reason = reason;
	sr->forfeit_roll = (uint32_t)m->nrolls;
	if (m->tx) { /* for older readers, which skip forfeit records */
		char text[160];
		snprintf(text, sizeof text, "forfeit %c %s %s", 'A' + s, c->bot->name,
			 kj_reason_name(reason));
		kb_tx_write_note(m->tx, text);
	}
	c->running = 0;
	kj_proc_finish(&c->proc, 0);
	m->g.ctl[s] = KB_HARD;
	if (detail)
		snprintf(sr->why, sizeof sr->why, "%s", detail);
	else
		reason_detail(m, c, reason, sr->why, sizeof sr->why);
	if (m->tx)
		kb_tx_write_forfeit(m->tx, s, sr->forfeit_roll, kj_reason_name(reason),
				    kb_policy_name(KB_HARD), sr->why);
	if (m->opt->debug) {
		char text[400];
		kj_forfeit_text(m->res, s, text, sizeof text);
		fprintf(m->opt->debug, "%s\n", text);
	}
}

/* Why a bot's stdout closed: it exited or was killed. */
static int eof_reason(seat *c)
{
	kj_proc_finish(&c->proc, 100);
	return c->proc.status >= 0 && WIFSIGNALED(c->proc.status) ? KJ_CRASH : KJ_EXIT;
}

/* Next message from seat s before deadline (ms on kj_now_ms's clock).
 * Returns 0 with msg set, or a kj_reason. */
static int next_msg(match *m, int s, double deadline, kb_msg *msg)
{
	seat *c = &m->seats[s];

	for (;;) {
		size_t used = kb_msg_scan(c->proc.ibuf, c->proc.ilen, msg);
		if (msg->type != KB_MSG_NONE) {
			if (m->tx)
				kb_tx_write_msg(m->tx, s, stamp(m), c->proc.ibuf, used);
			debug_line(m, s, "<", c->proc.ibuf, used);
			kj_proc_consume(&c->proc, used);
			return 0;
		}
		/* what is left is shorter than a message (wire.h), far less than
		 * KJ_INBUF: the buffer never fills with text not yet judged */
		kj_proc_consume(&c->proc, used);
		/* wait in slices, looking at the bot's writes after each: a bot
		 * that writes while it thinks is stopped within a slice */
		int left = (int)(deadline - kj_now_ms() + 0.999);
		int r = kj_proc_pump(&c->proc, left > KJ_CHARGE_MS ? KJ_CHARGE_MS : left > 0 ? left : 0);
		if (kj_proc_charge(&c->proc))
			return KJ_WRITE;
		/* a bot that exited while a process it left holds its
		 * output open is seen only here: it exited, not timed out */
		if (r == 0 && left <= 0)
			return kj_proc_exited(&c->proc) ? eof_reason(c) : KJ_TIMEOUT;
		if (r < 0)
			return c->proc.olen > KJ_OUTBUF / 2 ? KJ_UNREAD : eof_reason(c);
	}
}

static int lineup_digit(const match *m, int s)
{
	const kj_bot *b = m->seats[s].bot;

	return !b ? 0 : b->builtin == KB_EASY ? 1 : 2;
}

static void opponents_arg(const match *m, int s, char *out, size_t size)
{
	size_t n = 0;

	out[0] = '\0';
	for (int k = 1; k < KB_SEATS; k++) {
		const kj_bot *b = m->seats[(s + k) % KB_SEATS].bot;
		n += (size_t)snprintf(out + n, size - n, "%s%s", k > 1 ? "," : "",
				      b ? b->name : "none");
		if (n >= size)
			break;
	}
}

static int start_bot(match *m, int s, kb_err *err)
{
	seat *c = &m->seats[s];
	char opps[200], seedarg[24], errpath[1024];
	const char *ep = NULL;

	opponents_arg(m, s, opps, sizeof opps);
	snprintf(seedarg, sizeof seedarg, "%" PRIu64, kj_bot_seed(m->g.seed, s));
	if (c->bot->keep_stderr && m->opt->err_prefix) {
		snprintf(errpath, sizeof errpath, "%s.%c.err", m->opt->err_prefix, 'A' + s);
		ep = errpath;
	}
	if (m->opt->debug) {
		fprintf(m->opt->debug, "%c start %s in %s: %s", 'A' + s, c->bot->name, c->bot->dir,
			kj_bot_command(c->bot, m->opt->limits.sandbox, stderr));
		for (int i = 0; i < c->bot->argc; i++)
			fprintf(m->opt->debug, " %s", c->bot->argv[i]);
		fprintf(m->opt->debug, " %s %s\n", opps, seedarg);
	}
	if (m->opt->debug)
		ep = KJ_ERR_ECHO;
	if (kj_proc_start(&c->proc, c->bot, opps, seedarg, ep, &m->opt->limits, err))
		return -1;
	c->proc.echo = m->opt->debug;
	c->proc.tag = (char)('A' + s);
	c->running = 1;
	return 0;
}

/* Why a bot's command could not be run, with a hint for the usual
 * mistakes in a meta file. */
static void nostart_detail(const kj_bot *b, const kj_proc *p, char *out, size_t size)
{
	char path[1100], text[1400];
	struct stat st;
	const char *hint = "";

	snprintf(path, sizeof path, "%s/%s", b->dir, b->cmd);
	if (strchr(b->cmd, ' '))
		hint = "; meta line 2 is the program alone, arguments go on line 3";
	else if (!strchr(b->cmd, '/') && stat(path, &st) == 0)
		hint = "; without '/' the command is looked up in PATH: write ./ before it";
	else if (p->exec_errno == EACCES)
		hint = "; is the file executable (chmod +x)?";
	size_t n = (size_t)snprintf(text, sizeof text, "cannot run '%s", b->cmd);
	for (int i = 0; i < b->argc && n < sizeof text; i++)
		n += (size_t)snprintf(text + n, sizeof text - n, " %s", b->argv[i]);
	if (n < sizeof text)
		snprintf(text + n, sizeof text - n, "' in %s: %s: %s%s", b->dir, p->exec_step,
			 strerror(p->exec_errno), hint);
	/* the precision clips to the field on purpose (no truncation warning) */
	snprintf(out, size, "%.*s", (int)size - 1, text);
}

/* What a message that is not the one expected (what) was, into out. */
static void garbage_detail(const kb_msg *msg, const char *what, char *out, size_t size)
{
	if (msg->type == KB_MSG_BAD)
		snprintf(out, size, "sent a line that is not %s: %s", what, msg->why);
	else
		snprintf(out, size, "sent a %s, not %s",
			 msg->type == KB_MSG_START ? "start message" : "move", what);
}

/* A start message naming other opponents than the bot has is noted, not
 * forfeited: the note says what it should have sent. */
static void check_lineup(match *m, int s, const kb_msg *msg)
{
	uint8_t want[3];
	char line[9];

	for (int k = 0; k < 3; k++)
		want[k] = (uint8_t)lineup_digit(m, (s + k + 1) % KB_SEATS);
	if (!memcmp(want, msg->lineup, sizeof want))
		return;
	m->res->seat[s].lineup_ok = 0;
	kb_fmt_start(line, want);
	line[7] = '\0';
	note(m, "lineup %c %s sent a start message that does not match its opponents (expected %s)",
	     s, line);
}

/* Wait for every bot's v001XYZ; a wrong lineup is only noted. */
static void await_starts(match *m)
{
	double deadline = kj_now_ms() + m->opt->startup_ms;

	for (int s = 0; s < KB_SEATS; s++) {
		kb_msg msg;
		int r;
		if (!m->seats[s].running)
			continue;
		if (m->seats[s].proc.over_budget) { /* not started */
			forfeit(m, s, KJ_WRITE, NULL);
			continue;
		}
		if (m->seats[s].proc.exec_errno) {
			char why[256];
			nostart_detail(m->seats[s].bot, &m->seats[s].proc, why, sizeof why);
			forfeit(m, s, KJ_NOSTART, why);
			continue;
		}
		r = next_msg(m, s, deadline, &msg);
		if (r)
			forfeit(m, s, r == KJ_TIMEOUT ? KJ_STARTUP : r, NULL);
		else if (msg.type != KB_MSG_START) {
			char why[sizeof m->res->seat[s].why];
			garbage_detail(&msg, "v001XYZ", why, sizeof why);
			forfeit(m, s, KJ_GARBAGE, why);
		} else
			check_lineup(m, s, &msg);
	}
}

static void illegal_detail(int index, unsigned mask, char *out, size_t size)
{
	size_t n = (size_t)snprintf(out, size, "index %d refused; legal", index);

	for (int i = 0; i < KB_PIECES && n < size; i++)
		if (mask >> i & 1)
			n += (size_t)snprintf(out + n, size - n, " %d", i);
}

/* Seat s must decide on the pending roll: ask its bot until it answers
 * legally, or forfeit it.  Returns the index to play. */
static int ask(match *m, int s)
{
	seat *c = &m->seats[s];
	kj_seat_result *sr = &m->res->seat[s];
	unsigned mask = kb_game_pending_mask(&m->g);
	static const char end[] = "END\n";
	char why[sizeof m->res->seat[s].why] = "";

	if (kj_proc_charge(&c->proc)) { /* what it wrote since its last answer */
		forfeit(m, s, KJ_WRITE, NULL);
		return kb_pick_hard(mask);
	}
	if (send_rolls(m, s, m->nrolls) || send_text(m, s, end, 4)) {
		forfeit(m, s, KJ_UNREAD, NULL);
		return kb_pick_hard(mask);
	}
	for (;;) {
		double t = kj_now_ms();
		kb_msg msg;
		int r = next_msg(m, s, t + m->opt->move_ms, &msg);
		double took = kj_now_ms() - t;

		if (!m->opt->timing)
			took = 0;
		sr->decisions++;
		sr->ms_total += took;
		if (took > sr->ms_max)
			sr->ms_max = took;
		if (r == 0 && msg.type != KB_MSG_MOVE) {
			garbage_detail(&msg, "a move", why, sizeof why);
			r = KJ_GARBAGE;
		}
		if (r == 0 && strcmp(msg.token, c->token) != 0) {
			if (++sr->errors > m->opt->max_errors) {
				snprintf(why, sizeof why, "%d wrong tokens", sr->errors);
				r = KJ_TOKEN;
			}
			else if (send_text(m, s, KB_VIRHE_TOKEN "\nEND\n", sizeof KB_VIRHE_TOKEN + 4))
				r = KJ_UNREAD;
			else
				continue;
		} else if (r == 0 && !(mask >> msg.index & 1)) {
			char line[KB_ROLL_LINE_LEN + 1], board[KB_BOARD_LEN];
			if (++sr->errors > m->opt->max_errors) {
				illegal_detail(msg.index, mask, why, sizeof why);
				r = KJ_ILLEGAL;
			} else {
				kb_board_rotate(m->g.last.board, s, board);
				kb_fmt_roll_line(line, board, 0, m->g.last.die);
				if (send_text(m, s, line, sizeof line) || send_text(m, s, end, 4))
					r = KJ_UNREAD;
				else
					continue;
			}
		}
		if (r) {
			forfeit(m, s, r, why[0] ? why : NULL);
			return kb_pick_hard(mask);
		}
		return msg.index;
	}
}

static void finish_bots(match *m)
{
	kj_proc *live[KB_SEATS];
	int n = 0;

	for (int s = 0; s < KB_SEATS; s++) {
		seat *c = &m->seats[s];
		char win[12];
		if (!c->running)
			continue;
		if (m->g.winner >= 0) { /* else a rerun stopped: just close */
			kb_fmt_winner(win, kb_seat_rotate((char)('A' + m->g.winner), s) - 'A');
			send_rolls(m, s, m->nrolls);
			send_text(m, s, win, 12);
			send_text(m, s, "END\n", 4);
		}
		live[n++] = &c->proc;
	}
	kj_proc_finish_all(live, n, m->opt->grace_ms);
}

/* Every process the game's bots left behind, killed and reaped. */
static void sweep(match *m)
{
	kj_proc *procs[KB_SEATS];
	int n = 0;

	for (int s = 0; s < KB_SEATS; s++)
		if (m->seats[s].bot && !m->seats[s].bot->builtin)
			procs[n++] = &m->seats[s].proc;
	kj_proc_sweep(procs, n);
}

static int progress_score(const kb_pos *pos, int s)
{
	int sum = 0;

	for (int i = 0; i < KB_PIECES; i++)
		sum += pos->prog[s][i] + 1;
	return sum;
}

static void rank(match *m)
{
	kj_result *res = m->res;
	int key[KB_SEATS];

	for (int s = 0; s < KB_SEATS; s++) {
		res->seat[s].score = progress_score(&m->g.pos, s);
		key[s] = res->seat[s].reason ? -1 : s == m->g.winner ? 1000 : res->seat[s].score;
	}
	for (int s = 0; s < KB_SEATS; s++) {
		res->seat[s].place = 1;
		for (int o = 0; o < KB_SEATS; o++)
			if (res->seat[o].present && key[o] > key[s])
				res->seat[s].place++;
	}
}

/* The result and the transcript's end: a seat whose bot forfeited is not
 * credited with the win its replacement brought home. */
static void end_game(match *m)
{
	kj_result *res = m->res;
	int w = m->g.winner;
	char why[96] = "unfinished rerun differs";

	res->finished = w;
	res->winner = w >= 0 && !res->seat[w].reason ? w : -1;
	res->rolls = m->g.rolls;
	rank(m);
	if (res->winner >= 0)
		snprintf(why, sizeof why, "win");
	else if (w >= 0)
		snprintf(why, sizeof why, "win by the replacement (%s) of forfeited seat %c, not credited",
			 kb_policy_name(KB_HARD), 'A' + w);
	if (m->tx)
		kb_tx_write_end(m->tx, res->winner, m->g.rolls, why);
}

static int setup(match *m, const kj_bot *const seats[KB_SEATS], uint64_t seed, kb_err *err)
{
	uint8_t ctl[KB_SEATS];
	const kj_match_opts *opt = m->opt;

	for (int s = 0; s < KB_SEATS; s++) {
		const kj_bot *b = seats[s];
		kj_seat_result *sr = &m->res->seat[s];
		ctl[s] = !b ? KB_ABSENT : b->builtin ? (uint8_t)b->builtin : KB_EXTERNAL;
		m->seats[s].bot = b;
		kj_token(seed, s, m->seats[s].token);
		sr->present = b != NULL;
		sr->lineup_ok = 1;
		snprintf(sr->name, sizeof sr->name, "%s", b ? b->name : "-");
		if (b)
			kj_bot_fingerprint(b, sr->fingerprint);
	}
	if (!seats[0]) {
		snprintf(err->msg, sizeof err->msg, "game %" PRIu64 ": seat A must be present", seed);
		return -1;
	}
	if (!opt->has_start) {
		kb_game_init(&m->g, seed, ctl);
	} else if (kb_game_init_at(&m->g, seed, ctl, &opt->start, opt->start_turn,
				   opt->start_die)) {
		snprintf(err->msg, sizeof err->msg,
			 "start position: unsound, already won, or seats that do not match the lineup");
		return -1;
	}
	if (m->tx) {
		kb_tx_write_header(m->tx, seed, ctl);
		for (int s = 0; s < KB_SEATS; s++)
			if (seats[s]) {
				kb_tx_write_name(m->tx, s, seats[s]->name);
				if (!seats[s]->builtin)
					kb_tx_write_fingerprint(m->tx, s, m->res->seat[s].fingerprint);
			}
		if (opt->has_start)
			kb_tx_write_start(m->tx, &opt->start, opt->start_turn, opt->start_die);
	}
	return 0;
}

int kj_match_play(const kj_bot *const seats[KB_SEATS], uint64_t seed, const kj_match_opts *opt,
		  FILE *tx, kj_result *res, kb_err *err)
{
	match *m = calloc(1, sizeof *m);
	kb_hooks hooks;
	int rc = 0;

	if (!m) {
		snprintf(err->msg, sizeof err->msg, "game %" PRIu64 ": out of memory", seed);
		return -1;
	}
	memset(res, 0, sizeof *res);
	res->seed = seed;
	m->opt = opt;
	m->tx = tx;
	m->res = res;
	m->t0 = kj_now_ms();
	hooks = (kb_hooks){on_rolled, on_played, m};
	if (setup(m, seats, seed, err)) {
		free(m);
		return -1;
	}
	for (int s = 0; s < KB_SEATS && rc == 0; s++)
		if (seats[s] && !seats[s]->builtin)
			rc = start_bot(m, s, err);
	if (rc == 0) {
		await_starts(m);
		for (int s; (s = kb_game_advance(&m->g, &hooks)) >= 0 && !m->oom && !m->diverged;) {
			int idx = m->seats[s].running ? ask(m, s) : kb_pick_hard(kb_game_pending_mask(&m->g));
			kb_game_decide(&m->g, idx, &hooks);
		}
		if (m->oom) {
			snprintf(err->msg, sizeof err->msg, "game %" PRIu64 ": out of memory", seed);
			rc = -1;
		}
	}
	if (rc == 0) {
		finish_bots(m);
		end_game(m);
	} else {
		for (int s = 0; s < KB_SEATS; s++)
			if (m->seats[s].running)
				kj_proc_finish(&m->seats[s].proc, 0);
	}
	sweep(m);
	free(m->rolls);
	free(m);
	return rc;
}
