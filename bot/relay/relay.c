/* relay.c - the bot <-> server relay; see relay.h. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/draw.h"
#include "core/net.h"
#include "core/wire.h"
#include "bot/relay/relay.h"

#define BUF_MAX (1 << 20)

typedef struct relay {
	const kb_relay_cfg *cfg;
	pid_t pid;
	int to_bot, from_bot;       /* pipe ends, -1 when closed */
	int sock;                   /* -1 when not connected */
	char out[BUF_MAX];          /* bot bytes not yet sent */
	size_t nout;
	char msg[BUF_MAX];          /* the message in flight */
	size_t nmsg;
	int pending;                /* a message waits for its response */
	char resp[BUF_MAX];         /* response bytes so far */
	size_t nresp;
	double t0;
	double sent_at;             /* when the message in flight was sent */
	unsigned present;           /* from the start message, for --show */
	unsigned decisions;         /* decisions shown so far */
	int moved;                  /* the bot's last message was a move: */
	int moved_index;            /* this piece */
	char last_roll_line[KB_ROLL_LINE_LEN]; /* the last state line seen, for --show */
	int have_roll_line;
	int over;                   /* Voittaja handed to the bot */
} relay;

/* The bot's process group, for a relay stopped by a signal. */
static volatile sig_atomic_t bot_group;

/* The signals that stop the relay and its bot (on_signal), held back
 * while the bot is started (spawn). */
static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void tx(relay *r, char dir, const char *p, size_t n)
{
	FILE *f = r->cfg->transcript;

	if (!f)
		return;
	fprintf(f, "%.3f %c ", now_s() - r->t0, dir);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];
		if (c < 0x20 || c > 0x7e || c == '\\')
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
	fputc('\n', f);
	fflush(f);
}

static void note(relay *r, const char *text)
{
	tx(r, '#', text, strlen(text));
}

/* Connect to the configured port or the first of 65430..65439 that
 * answers, retrying for up to retry_ms.  Returns 0 or -1. */
static int reconnect(relay *r)
{
	const kb_relay_cfg *c = r->cfg;
	double until = now_s() + c->retry_ms / 1e3;
	char text[96];

	if (r->sock >= 0)
		close(r->sock);
	r->sock = -1;
	do {
		int first = c->port ? c->port : KB_PORT_FIRST;
		int last = c->port ? c->port : KB_PORT_LAST;
		for (int p = first; p <= last; p++) {
			if (kb_net_connect(c->host, p, &r->sock, NULL) == KB_NET_OK) {
				snprintf(text, sizeof text, "connected to %s port %d", c->host, p);
				note(r, text);
				return 0;
			}
		}
		struct timespec ts = {0, 50 * 1000 * 1000};
		nanosleep(&ts, NULL); /* wait for a restarting server */
	} while (now_s() < until);
	return -1;
}

/* Send the message in flight, reconnecting as needed.  Returns 0 or -1. */
static int send_msg(relay *r)
{
	for (int attempt = 0; attempt < 3; attempt++) {
		if (r->sock < 0 && reconnect(r))
			return -1;
		if (kb_net_write_all(r->sock, r->msg, r->nmsg) == 0) {
			tx(r, '>', r->msg, r->nmsg);
			r->sent_at = now_s();
			return 0;
		}
		note(r, "write to server failed; reconnecting");
		close(r->sock);
		r->sock = -1;
	}
	return -1;
}

/* Take the next complete message from the bot's bytes and send it. */
static int next_msg(relay *r)
{
	kb_msg m;
	size_t n;

	if (r->pending || !r->nout)
		return 0;
	n = kb_msg_scan(r->out, r->nout, &m);
	if (m.type == KB_MSG_NONE)
		return 0; /* keep even whitespace: it goes out with the next message */
	if (m.type == KB_MSG_START)
		r->present = 1u | (m.lineup[0] ? 2u : 0) | (m.lineup[1] ? 4u : 0) | (m.lineup[2] ? 8u : 0);
	if (m.type == KB_MSG_MOVE && r->cfg->show)
		fprintf(r->cfg->diag, "== the bot moves piece %d\n", m.index);
	r->moved = m.type == KB_MSG_MOVE;
	r->moved_index = m.index;
	/* consume trailing line end too, so it is passed on unchanged */
	while (n < r->nout && (r->out[n] == '\r' || r->out[n] == '\n') && m.type != KB_MSG_BAD)
		n++;
	memcpy(r->msg, r->out, n);
	r->nmsg = n;
	memmove(r->out, r->out + n, r->nout - n);
	r->nout -= n;
	r->pending = 1;
	r->nresp = 0;
	return send_msg(r);
}

/* The board after the winning roll of ln: the legal move of the roller
 * that leaves it with every piece in goal (the last roll of a game is the
 * winner's, and only the winning move ends it).  Returns 0 or -1. */
static int final_board(const kb_line *ln, unsigned present, char out[KB_BOARD_LEN], int *index)
{
	kb_pos pos;

	if (kb_board_parse(ln->board, KB_BOARD_LEN, present, &pos, NULL))
		return -1;
	unsigned legal = kb_legal(&pos, ln->seat, ln->die);
	for (int i = 0; i < KB_PIECES; i++) {
		kb_pos after = pos;
		if (!(legal & (1u << i)))
			continue;
		kb_apply(&after, ln->seat, i, ln->die);
		if (kb_has_won(&after, ln->seat)) {
			kb_board_format(&after, out);
			*index = i;
			return 0;
		}
	}
	return -1;
}

/* --show after Voittaja: the winning roll in words, then the final
 * position (as kimble-judge replay ends). */
static void show_end(relay *r, const kb_line *ln, int winner)
{
	FILE *out = r->cfg->diag;
	char board[KB_BOARD_LEN];
	int index = -1;
	kb_facts fx;

	fprintf(out, "\n== last roll: %c rolled %d; winner %c%s\n", 'A' + ln->seat, ln->die,
		'A' + winner, winner == 0 ? " (the bot)" : "");
	if (final_board(ln, r->present, board, &index) == 0 &&
	    kb_facts_of(ln->board, r->present, ln->seat, ln->die, index, &fx) == 0)
		kb_draw_facts(out, &fx);
	kb_draw_board(out, ln->board, ln->seat, ln->die, r->present, 0);
	if (index >= 0) {
		fprintf(out, "\n== final position\n");
		kb_draw_board(out, board, -1, 0, r->present, 0);
	}
}

/* --show: draw the position of the response's last state line with a
 * caption: the bot's decision (and the pieces it may move), or the end
 * (the last state line seen, which is the bot's own decision when its
 * move won). */
static void show(relay *r, const char *line, int winner)
{
	FILE *out = r->cfg->diag;
	kb_line ln;
	kb_pos pos;

	/* a legal move always changes the board: the same decision line
	 * after a move is the server asking again */
	int again = line && r->have_roll_line && r->moved &&
		    !memcmp(r->last_roll_line, line, KB_ROLL_LINE_LEN);
	if (line) {
		memcpy(r->last_roll_line, line, KB_ROLL_LINE_LEN);
		r->have_roll_line = 1;
	}
	if (again && r->cfg->show) {
		fprintf(out, "== the server refused piece %d (not a legal move) and asks decision %u "
			     "again\n", r->moved_index, r->decisions);
		fflush(out);
		return;
	}
	if (!r->cfg->show || !r->have_roll_line || (!line && winner < 0) ||
	    kb_line_parse(r->last_roll_line, KB_ROLL_LINE_LEN, &ln, NULL) || ln.type != KB_LINE_ROLL)
		return;
	if (winner >= 0) {
		show_end(r, &ln, winner);
	} else {
		unsigned legal = kb_board_parse(ln.board, KB_BOARD_LEN, r->present, &pos, NULL)
					 ? 0 : kb_legal(&pos, ln.seat, ln.die);
		fprintf(out, "\n== decision %u: the bot (A) rolled %d; pieces it may move:",
			++r->decisions, ln.die);
		for (int i = 0; i < KB_PIECES; i++)
			if (legal & (1u << i))
				fprintf(out, " %d", i);
		fputc('\n', out);
		kb_facts fx;
		if (kb_facts_of(ln.board, r->present, ln.seat, ln.die, -1, &fx) == 0)
			kb_draw_facts(out, &fx);
		kb_draw_board(out, ln.board, ln.seat, ln.die, r->present, 0);
	}
	fflush(out);
}

/* Log, show and forward the response once its END line arrived. */
static int check_response(relay *r)
{
	size_t start = 0, end = 0;
	const char *last = NULL;
	int complete = 0, winner = -1;

	for (size_t i = 0; i < r->nresp && !complete; i++)
		if (r->resp[i] == '\n') {
			size_t n = i - start;
			if (n && r->resp[start + n - 1] == '\r')
				n--;
			complete = n == 3 && memcmp(r->resp + start, "END", 3) == 0;
			start = i + 1;
		}
	if (!complete)
		return 0;
	end = start;
	for (size_t i = 0, s = 0; i < end; i++)
		if (r->resp[i] == '\n') {
			size_t n = i - s;
			if (n && r->resp[s + n - 1] == '\r')
				n--;
			tx(r, '<', r->resp + s, n);
			if (n >= 5 && memcmp(r->resp + s, "Virhe", 5) == 0 && r->cfg->show)
				fprintf(r->cfg->diag, "== the server says: %.*s\n", (int)n, r->resp + s);
			if (n == 11 && memcmp(r->resp + s, "Voittaja: ", 10) == 0)
				winner = r->resp[s + 10] - 'A';
			else if (n == KB_ROLL_LINE_LEN)
				last = r->resp + s;
			s = i + 1;
		}
	show(r, last, winner);
	if (r->to_bot >= 0 && kb_net_write_all(r->to_bot, r->resp, end)) {
		close(r->to_bot);
		r->to_bot = -1;
	}
	memmove(r->resp, r->resp + end, r->nresp - end);
	r->nresp -= end;
	r->pending = 0;
	if (winner >= 0) {
		r->over = 1; /* nothing more to relay: the bot gets EOF */
		return 0;
	}
	return next_msg(r);
}

/* Close both ends of both pipes (those not made yet are -1: a close
 * that fails, harmlessly). */
static void close_pipes(int fds[2][2])
{
	for (int i = 0; i < 4; i++)
		close(fds[i / 2][i % 2]);
}

/* Start argv as the bot with pipes to its stdin and from its stdout.
 * Returns 0, or the errno value of what failed, with nothing left open
 * or blocked. */
static int spawn(relay *r, char *const argv[])
{
	int pipes[2][2] = {{-1, -1}, {-1, -1}}; /* the bot's stdin, its stdout */
	int *in = pipes[0], *out = pipes[1];
	sigset_t stops, old;

	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC)) {
		int err = errno;
		close_pipes(pipes);
		return err;
	}
	/* the stop signals wait until bot_group is set: the bot may run (and
	 * be seen running) before the parent returns from fork, and a signal
	 * taken then would end the relay without the bot */
	sigemptyset(&stops);
	for (size_t i = 0; i < sizeof stop_signals / sizeof *stop_signals; i++)
		sigaddset(&stops, stop_signals[i]);
	sigprocmask(SIG_BLOCK, &stops, &old);
	r->pid = fork();
	if (r->pid < 0) {
		int err = errno;
		sigprocmask(SIG_SETMASK, &old, NULL);
		close_pipes(pipes);
		return err;
	}
	if (r->pid == 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		setpgid(0, 0); /* a group of its own, killed as one after the grace */
		dup2(in[0], 0);
		dup2(out[1], 1);
		close_range(3, ~0u, 0); /* the bot gets stdin, stdout and stderr only */
		execvp(argv[0], argv);
		fprintf(stderr, "kimble-relay: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(r->pid, r->pid); /* also here, so a kill right away hits the group */
	bot_group = r->pid;
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(in[0]);
	close(out[1]);
	r->to_bot = in[1];
	r->from_bot = out[0];
	return 0;
}

static int bot_status(relay *r, int st)
{
	char text[64];
	int rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);

	snprintf(text, sizeof text, "bot exited with status %d", rc);
	note(r, text);
	return rc;
}

/* After Voittaja: close the bot's stdin, drain what it still prints, and
 * give it grace_ms to save and exit; then kill its process group (as the
 * judge does).  Returns the bot's status or KB_RELAY_GRACE. */
static int finish_game(relay *r)
{
	double deadline = now_s() + r->cfg->grace_ms / 1e3;
	char text[96];
	int st;

	if (r->to_bot >= 0)
		close(r->to_bot);
	r->to_bot = -1;
	for (;;) {
		pid_t w = waitpid(r->pid, &st, WNOHANG);
		if (w == r->pid) {
			kill(-r->pid, SIGKILL); /* children it left behind */
			break;
		}
		if (w < 0 && errno != EINTR)
			return 0;
		double left = deadline - now_s();
		if (left <= 0) {
			kill(-r->pid, SIGKILL);
			kill(r->pid, SIGKILL);
			while (waitpid(r->pid, &st, 0) < 0 && errno == EINTR)
				;
			snprintf(text, sizeof text, "the bot did not exit within %d ms after the game; killed",
				 r->cfg->grace_ms);
			note(r, text);
			fprintf(r->cfg->diag, "kimble-relay: %s\n", text);
			return KB_RELAY_GRACE;
		}
		if (r->from_bot >= 0) {
			/* wait on the bot's stdout closing (it exits), not a sleep */
			struct pollfd pf = {r->from_bot, POLLIN, 0};
			char sink[4096];
			if (poll(&pf, 1, (int)(left * 1e3) + 1) > 0 && read(r->from_bot, sink, sizeof sink) == 0) {
				close(r->from_bot);
				r->from_bot = -1;
			}
		} else {
			struct timespec ts = {0, 1000000};
			nanosleep(&ts, NULL);
		}
	}
	return bot_status(r, st);
}

static int finish(relay *r, int status_override)
{
	int st = 0;

	if (r->over && !status_override) {
		int rc = finish_game(r);
		kb_net_close(&r->from_bot);
		kb_net_close(&r->sock);
		return rc;
	}
	kb_net_close(&r->to_bot);
	kb_net_close(&r->from_bot);
	kb_net_close(&r->sock);
	if (status_override)
		kill(-r->pid, SIGTERM);
	while (waitpid(r->pid, &st, 0) < 0 && errno == EINTR)
		;
	if (status_override)
		return status_override;
	return bot_status(r, st);
}
/* Read from the server; a closed connection with a message in flight is
 * reconnected and the message resent. */
static int on_server(relay *r)
{
	ssize_t k = read(r->sock, r->resp + r->nresp, BUF_MAX - r->nresp);

	if (k < 0 && errno == EINTR)
		return 0;
	if (k <= 0) {
		note(r, "server closed the connection");
		close(r->sock);
		r->sock = -1;
		if (r->pending) {
			r->nresp = 0;
			return send_msg(r);
		}
		return 0;
	}
	r->nresp += (size_t)k;
	if (r->nresp == BUF_MAX)
		return -2;
	return check_response(r);
}

/* The bot runs in a group of its own, so a Ctrl-C at the terminal reaches
 * only the relay: stop the bot's group, then end as the signal says. */
static void on_signal(int sig)
{
	if (bot_group > 0)
		kill(-bot_group, SIGKILL);
	signal(sig, SIG_DFL);
	raise(sig);
}

int kb_relay_run(const kb_relay_cfg *cfg, char *const argv[])
{
	static relay r; /* large buffers: not on the stack */

	memset(&r, 0, sizeof r);
	r.cfg = cfg;
	r.sock = -1;
	r.t0 = now_s();
	signal(SIGPIPE, SIG_IGN);
	for (size_t i = 0; i < sizeof stop_signals / sizeof *stop_signals; i++)
		signal(stop_signals[i], on_signal);
	if (reconnect(&r)) {
		if (cfg->port)
			fprintf(cfg->diag, "kimble-relay: no Kimble server reachable at %s port %d\n",
				cfg->host, cfg->port);
		else
			fprintf(cfg->diag, "kimble-relay: no Kimble server reachable at %s ports "
				"65430..65439\n", cfg->host);
		return KB_RELAY_NOSERVER;
	}
	int err = spawn(&r, argv);
	if (err) {
		fprintf(cfg->diag, "kimble-relay: cannot start %s: %s\n", argv[0], strerror(err));
		kb_net_close(&r.sock);
		return KB_RELAY_SPAWN;
	}
	while (r.from_bot >= 0 && !r.over) {
		struct pollfd pf[2] = {{r.from_bot, POLLIN, 0}, {r.sock, POLLIN, 0}};
		int rc = 0;

		int ready = poll(pf, r.sock >= 0 ? 2 : 1, r.pending ? 200 : -1);
		if (ready < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (r.pending && r.nresp == 0 && now_s() - r.sent_at > KB_RELAY_SILENCE_MS / 1e3) {
			/* a server that accepted but went away without a reset */
			note(&r, "no response; reconnecting and resending");
			close(r.sock);
			r.sock = -1;
			rc = send_msg(&r);
			pf[0].revents = pf[1].revents = 0;
		}
		if (rc == 0 && r.sock >= 0 && pf[1].revents)
			rc = on_server(&r);
		if (rc == 0 && !r.over && pf[0].revents) {
			ssize_t k = read(r.from_bot, r.out + r.nout, BUF_MAX - r.nout);
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0) {
				close(r.from_bot);
				r.from_bot = -1;
				break;
			}
			r.nout += (size_t)k;
			if (r.nout == BUF_MAX)
				rc = -2;
			else
				rc = next_msg(&r);
		}
		if (rc == -1) {
			fprintf(cfg->diag, "kimble-relay: lost the server at %s and could not reconnect within %d ms\n",
				cfg->host, cfg->retry_ms);
			return finish(&r, KB_RELAY_NOSERVER);
		}
		if (rc == -2) {
			fprintf(cfg->diag, "kimble-relay: more than %d bytes without a complete message or response\n",
				BUF_MAX);
			return finish(&r, KB_RELAY_NOSERVER);
		}
	}
	return finish(&r, 0);
}
