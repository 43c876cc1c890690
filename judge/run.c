/* run.c - tournaments: workers, resume, shards, removal, SPRT; see run.h. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "html.h"
#include "run.h"
#include "sandbox.h"

enum { PENDING, RUNNING, DONE, SKIPPED };

#define NOT_REMOVED UINT32_MAX

typedef struct runner {
	const kj_run_opts *opt;
	uint8_t *state;          /* per game */
	pid_t *pid;              /* per game while running */
	kj_result *res;          /* per game */
	int *timeouts;           /* consecutive timeout games per bot */
	uint32_t *removed_at;    /* per bot: the game that removed it, or
				  * NOT_REMOVED (above every game) */
	uint8_t *unstarted;      /* per bot: its command could not be run */
	uint32_t accounted;      /* games before this one are final */
	uint32_t done, total;
	int running;
	int stop;                /* SPRT decided: start nothing more */
	int signo;               /* a stop signal arrived: end the run */
	sigset_t mask;           /* the signal mask before kj_run, for workers */
	uint32_t stop_deal;      /* deals up to this one count */
	uint32_t round_wins[KJ_MAX_BOTS], round_place[KJ_MAX_BOTS], round_games[KJ_MAX_BOTS];
	uint32_t all_wins[KJ_MAX_BOTS], all_games[KJ_MAX_BOTS];
} runner;

/* The files of the game a worker plays, for its stop handler: temporary
 * ones named after the worker (an orphan of an earlier run cannot touch a
 * new run's), renamed into place only once the game is over. */
static struct worker_files {
	char tx_tmp[1024], res_tmp[1024], err[KB_SEATS][1100];
} wf;

/* A worker stopped (Ctrl-C, kill, its judge gone) takes its bots with it
 * and removes every file of its unfinished game, so what remains in the
 * folder is only finished games. */
static void worker_stop(int sig)
{
	kj_proc_kill_all();
	unlink(wf.tx_tmp);
	unlink(wf.res_tmp);
	for (int s = 0; s < KB_SEATS; s++)
		unlink(wf.err[s]);
	_exit(128 + sig);
}

/* In the worker: stop signals run worker_stop, and the worker dies with
 * its judge even when the judge is killed with SIGKILL.  Returns -1 when
 * the judge is already gone. */
static int worker_signals(pid_t judge, const sigset_t *mask)
{
	struct sigaction sa = {0};

	sa.sa_handler = worker_stop;
	kj_proc_stop_signals(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGCHLD, SIG_DFL);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != judge)
		return -1;
	sigprocmask(SIG_SETMASK, mask, NULL);
	return 0;
}

/* In the worker: the finished game's files, the transcript first: a .res
 * in place means both are complete.  Stop signals wait until both are. */
static int commit_game(const char *tx_path, const char *res_path, uint32_t game,
		       const kj_result *res, FILE *tx)
{
	sigset_t stops;
	FILE *rf;

	kj_proc_stop_signals(&stops);
	sigprocmask(SIG_BLOCK, &stops, NULL);
	if (fclose(tx) || !(rf = fopen(wf.res_tmp, "w")))
		return -1;
	if (kj_result_write(rf, game, res) | fclose(rf))
		return -1;
	return rename(wf.tx_tmp, tx_path) || rename(wf.res_tmp, res_path) ? -1 : 0;
}

/* In the worker process: play game g and leave its files.  Never returns. */
static void worker(const kj_run_opts *opt, const kj_game_spec *g)
{
	char tx_path[1024], res_path[1024], prefix[1024], tmp[32];
	const kj_bot *seats[KB_SEATS];
	kj_match_opts mo = opt->match;
	kj_result res;
	kb_err err;
	FILE *tx;

	snprintf(tmp, sizeof tmp, ".tx.%ld.tmp", (long)getpid());
	kj_game_path(wf.tx_tmp, sizeof wf.tx_tmp, opt->out, g->index, tmp);
	snprintf(tmp, sizeof tmp, ".res.%ld.tmp", (long)getpid());
	kj_game_path(wf.res_tmp, sizeof wf.res_tmp, opt->out, g->index, tmp);
	kj_game_path(tx_path, sizeof tx_path, opt->out, g->index, ".tx");
	kj_game_path(res_path, sizeof res_path, opt->out, g->index, ".res");
	kj_game_path(prefix, sizeof prefix, opt->out, g->index, "");
	for (int s = 0; s < KB_SEATS; s++) {
		seats[s] = g->seat[s] >= 0 ? &opt->bots[g->seat[s]] : NULL;
		snprintf(wf.err[s], sizeof wf.err[s], "%s.%c.err", prefix, 'A' + s);
	}
	mo.err_prefix = prefix;
	kj_proc_adopt(); /* what its bots leave behind is reaped and counted here */
	if (g->start >= 0 && opt->starts) {
		mo.has_start = 1;
		mo.start = opt->starts[g->start].pos;
		mo.start_turn = opt->starts[g->start].turn;
		mo.start_die = opt->starts[g->start].die;
	}
	if (!(tx = fopen(wf.tx_tmp, "w"))) {
		fprintf(stderr, "kimble-judge: cannot write %s: %s\n", wf.tx_tmp, strerror(errno));
		_exit(2);
	}
	if (kj_match_play(seats, g->seed, &mo, tx, &res, &err)) {
		unlink(wf.tx_tmp);
		fprintf(stderr, "kimble-judge: game %" PRIu32 ": %s\n", g->index, err.msg);
		_exit(2);
	}
	res.deal = g->deal;
	if (commit_game(tx_path, res_path, g->index, &res, tx)) {
		int cause = errno; /* the unlinks below may fail and set another */
		unlink(wf.tx_tmp), unlink(wf.res_tmp);
		fprintf(stderr, "kimble-judge: cannot write the files of game %" PRIu32 ": %s\n",
			g->index, strerror(cause));
		_exit(2);
	}
	_exit(0);
}

static int has_bot(const kj_game_spec *g, int b)
{
	for (int s = 0; s < KB_SEATS; s++)
		if (g->seat[s] == b)
			return 1;
	return 0;
}

static int start_game(runner *r, uint32_t i, kb_err *err)
{
	const kj_game_spec *g = &r->opt->plan->games[i];
	pid_t pid, judge = getpid();

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return kj_file_error(err, "cannot fork a worker for game", "");
	if (pid == 0) {
		if (worker_signals(judge, &r->mask))
			_exit(128 + SIGKILL);
		worker(r->opt, g);
	}
	r->pid[i] = pid;
	r->state[i] = RUNNING;
	r->running++;
	return 0;
}

static void round_line(runner *r, uint32_t deal)
{
	const kj_run_opts *opt = r->opt;

	printf("round %" PRIu32 ":", deal + 1);
	for (int b = 0; b < opt->nbots; b++) {
		if (!r->round_games[b])
			continue;
		printf("  %s wins %u/%u place %.2f (total %.1f%%)", opt->bots[b].name, r->round_wins[b],
		       r->round_games[b], (double)r->round_place[b] / r->round_games[b],
		       100.0 * r->all_wins[b] / r->all_games[b]);
		r->round_wins[b] = r->round_place[b] = r->round_games[b] = 0;
	}
	printf("\n");
	fflush(stdout);
}

/* Does game i have a bot that a game before it removed?  At a game's
 * start that is any removed bot of it: games are started in order, and
 * only a game already accounted, so started earlier, removes a bot. */
static int after_removal(const runner *r, const kj_game_spec *g, uint32_t i)
{
	for (int s = 0; s < KB_SEATS; s++)
		if (g->seat[s] >= 0 && r->removed_at[g->seat[s]] < i)
			return 1;
	return 0;
}

/* Game i was played only because games ran at once: a bot of it had
 * been removed by an earlier game, which was still running when this one
 * started.  It does not count, and its files go, so that what a run
 * keeps does not depend on timing. */
static void drop_game(runner *r, uint32_t i)
{
	static const char *const ext[] = {".tx", ".res", ".A.err", ".B.err", ".C.err", ".D.err"};
	char path[1024];

	for (size_t e = 0; e < sizeof ext / sizeof *ext; e++) {
		kj_game_path(path, sizeof path, r->opt->out, i, ext[e]);
		unlink(path);
	}
	r->state[i] = SKIPPED;
	r->done--;
}

/* Game i is final: update timeouts, round lines, SPRT. */
static void account(runner *r, uint32_t i)
{
	const kj_run_opts *opt = r->opt;
	const kj_game_spec *g = &opt->plan->games[i];
	const kj_result *res = &r->res[i];

	if (r->state[i] != DONE || (r->stop && g->deal > r->stop_deal))
		return;
	if (after_removal(r, g, i)) {
		drop_game(r, i);
		return;
	}
	for (int s = 0; s < KB_SEATS; s++) {
		int b = g->seat[s];
		if (b < 0)
			continue;
		r->round_games[b]++, r->all_games[b]++;
		int won = res->winner == s && !res->seat[s].reason;
		r->round_wins[b] += (uint32_t)won;
		r->all_wins[b] += (uint32_t)won;
		r->round_place[b] += (uint32_t)res->seat[s].place;
		if (opt->bots[b].builtin)
			continue;
		if (res->seat[s].reason == KJ_NOSTART && !r->unstarted[b]) {
			char text[400];
			r->unstarted[b] = 1;
			kj_forfeit_text(res, s, text, sizeof text);
			fprintf(stderr, "kimble-judge: game %" PRIu32 ": %s\n", i, text);
		}
		int to = res->seat[s].reason == KJ_TIMEOUT || res->seat[s].reason == KJ_STARTUP;
		r->timeouts[b] = to ? r->timeouts[b] + 1 : 0;
		if (opt->max_timeouts && r->timeouts[b] >= opt->max_timeouts &&
		    r->removed_at[b] == NOT_REMOVED) {
			r->removed_at[b] = i;
			fprintf(stderr, "kimble-judge: %s timed out in %d games in a row: removed\n",
				opt->bots[b].name, r->timeouts[b]);
		}
	}
	if (g->rotation + 1 == (uint32_t)opt->plan->table) {
		if (opt->round_lines)
			round_line(r, g->deal);
		if (opt->sprt && !r->stop) {
			kj_pair_elo p;
			size_t first = 0;
			/* results so far, in order: the games 0..i that are done */
			kj_result *done = malloc((i + 1) * sizeof *done);
			if (done) {
				for (uint32_t k = 0; k <= i; k++)
					if (r->state[k] == DONE)
						done[first++] = r->res[k];
				kj_pair_compute(done, first, opt->bots[0].name, opt->bots[1].name, &p);
				kj_sprt_update(opt->sprt, &p);
				free(done);
			}
			if (opt->sprt->decided) {
				r->stop = 1;
				r->stop_deal = g->deal;
			}
		}
	}
}

static void progress(const runner *r)
{
	if (!r->opt->progress)
		return;
	fprintf(stderr, "\r%u/%u games done, %d running ", r->done, r->total, r->running);
	if (r->opt->sprt)
		fprintf(stderr, "LLR %.2f [%.2f, %.2f] ", r->opt->sprt->llr, r->opt->sprt->lower,
			r->opt->sprt->upper);
	fflush(stderr);
}

/* The stop signal pending, taking it, or 0. */
static int take_stop_signal(void)
{
	static const struct timespec now = {0, 0};
	sigset_t stops;
	int sig;

	kj_proc_stop_signals(&stops);
	sig = sigtimedwait(&stops, NULL, &now);
	return sig > 0 ? sig : 0;
}

/* Worker pid ended with wait status st: its game is done when it exited 0
 * and left a readable result.  Returns 0, or -1 with err when it failed. */
static int worker_ended(runner *r, pid_t pid, int st, kb_err *err)
{
	uint32_t n = r->opt->plan->ngames, game;
	char path[1024];

	for (uint32_t i = 0; i < n; i++) {
		if (r->state[i] != RUNNING || r->pid[i] != pid)
			continue;
		r->running--;
		r->state[i] = PENDING;
		kj_game_path(path, sizeof path, r->opt->out, i, ".res");
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 ||
		    kj_result_read_file(path, &game, &r->res[i], err)) {
			snprintf(err->msg, sizeof err->msg, "game %" PRIu32 ": the worker failed (%s)",
				 i, WIFEXITED(st) ? "see above" : "killed");
			return -1;
		}
		r->state[i] = DONE;
		r->done++;
		return 0;
	}
	return 0; /* not ours: ignore */
}

/* Wait until a worker ends or a stop signal arrives (then r->signo is set).
 * SIGCHLD and the stop signals are blocked in kj_run and taken here, so
 * none is lost between a check and the wait.  Returns 0, or -1 with err. */
static int next_event(runner *r, kb_err *err)
{
	sigset_t wake;
	int st;

	kj_proc_stop_signals(&wake);
	sigaddset(&wake, SIGCHLD);
	for (;;) {
		if ((r->signo = take_stop_signal()))
			return 0;
		pid_t pid = waitpid(-1, &st, WNOHANG);
		if (pid > 0) {
			if (worker_ended(r, pid, st, err) == 0)
				return 0;
			/* a worker hit by the same Ctrl-C as its judge */
			return (r->signo = take_stop_signal()) ? 0 : -1;
		}
		if (pid < 0 && errno != EINTR)
			return kj_file_error(err, "waiting for workers", "");
		int sig = sigwaitinfo(&wake, NULL);
		if (sig > 0 && sig != SIGCHLD) {
			r->signo = sig;
			return 0;
		}
	}
}

/* Stop every running worker (each kills and reaps its bots and removes
 * its unfinished game's files) and reap them all: SIGTERM, then SIGKILL
 * after STOP_GRACE_MS or at a second stop signal. */
#define STOP_GRACE_MS 5000
static void stop_workers(runner *r)
{
	double deadline = kj_now_ms() + STOP_GRACE_MS;
	uint32_t n = r->opt->plan->ngames;
	int sig = SIGTERM;
	sigset_t chld;
	kb_err ignored;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	while (r->running > 0) {
		if (sig) {
			for (uint32_t i = 0; i < n; i++)
				if (r->state[i] == RUNNING)
					kill(r->pid[i], sig);
			sig = 0;
		}
		int st;
		pid_t pid = waitpid(-1, &st, WNOHANG);
		if (pid > 0) {
			worker_ended(r, pid, st, &ignored);
			continue;
		}
		if (pid < 0 && errno != EINTR)
			break;
		if (kj_now_ms() >= deadline || take_stop_signal()) {
			sig = SIGKILL;
			deadline += 3600e3;
			continue;
		}
		long left = (long)(deadline - kj_now_ms()) + 1;
		struct timespec ts = {left / 1000, left % 1000 * 1000000L};
		sigtimedwait(&chld, NULL, &ts);
	}
}

static void advance_accounting(runner *r)
{
	uint32_t n = r->opt->plan->ngames;

	while (r->accounted < n && (r->state[r->accounted] == DONE || r->state[r->accounted] == SKIPPED))
		account(r, r->accounted++);
}

static int in_shard(const kj_run_opts *opt, uint32_t i)
{
	return opt->shard_n <= 1 || i % (uint32_t)opt->shard_n == (uint32_t)(opt->shard_k - 1);
}

/* 0 when res, read from path, is game g of this run: the same game
 * number, seed and bot in every seat.  Otherwise -1 with err naming the
 * folder, the game and the first thing that differs: resuming would mix
 * two runs' games (another -s, -g, format, table or lineup). */
static int same_game(const kj_run_opts *opt, const kj_game_spec *g, uint32_t game,
		     const kj_result *res, kb_err *err)
{
	char differs[80] = "";

	if (game != g->index)
		snprintf(differs, sizeof differs, "it says game %" PRIu32, game);
	for (int s = 0; s < KB_SEATS && !differs[0]; s++) {
		const char *want = g->seat[s] >= 0 ? opt->bots[g->seat[s]].name : "(absent)";
		const char *had = res->seat[s].present ? res->seat[s].name : "(absent)";
		if (strcmp(want, had) != 0)
			snprintf(differs, sizeof differs, "seat %c %.24s, not %.24s",
				 'A' + s, had, want);
	}
	if (!differs[0] && res->seed != g->seed)
		snprintf(differs, sizeof differs, "seed %" PRIu64 ", not %" PRIu64, res->seed,
			 g->seed);
	if (!differs[0])
		return 0;
	return kb_err_set(err, -1, "%.48s holds another run's games: game %" PRIu32 " has %s; "
			  "use another --out or remove it", opt->out, g->index, differs);
}

/* Mark games resumed from complete result files, or outside the shard.
 * Every result already in OUT (also other shards') is checked against
 * the plan first: returns -1 with err, nothing written, when one belongs
 * to another run. */
static int resume(runner *r, kb_err *err)
{
	const kj_run_opts *opt = r->opt;

	for (uint32_t i = 0; i < opt->plan->ngames; i++) {
		char path[1024];
		uint32_t game;
		kb_err ignored;
		kj_game_path(path, sizeof path, opt->out, i, ".res");
		int have = kj_result_read_file(path, &game, &r->res[i], &ignored) == 0;
		if (have && same_game(opt, &opt->plan->games[i], game, &r->res[i], err))
			return -1;
		if (!in_shard(opt, i)) {
			r->state[i] = SKIPPED;
			continue;
		}
		r->total++;
		if (have) {
			r->state[i] = DONE;
			r->done++;
		}
	}
	if (r->done)
		fprintf(stderr, "kimble-judge: resuming %s: %" PRIu32 " of %" PRIu32
			" games already done, not played again\n", opt->out, r->done, r->total);
	return 0;
}

static int run_all(runner *r, kb_err *err)
{
	const kj_run_opts *opt = r->opt;
	uint32_t n = opt->plan->ngames, next = 0;

	advance_accounting(r);
	while (!r->signo) {
		while (r->running < opt->concurrency && next < n) {
			uint32_t i = next++;
			if (r->state[i] != PENDING)
				continue;
			if (after_removal(r, &opt->plan->games[i], i) ||
			    (r->stop && opt->plan->games[i].deal > r->stop_deal)) {
				r->state[i] = SKIPPED;
				continue;
			}
			if (start_game(r, i, err))
				return -1;
		}
		progress(r);
		if (r->running == 0)
			break;
		if (next_event(r, err))
			return -1;
		advance_accounting(r);
	}
	advance_accounting(r);
	if (opt->progress)
		fprintf(stderr, "\n");
	return 0;
}

/* Run the games with SIGCHLD and the stop signals blocked (next_event
 * takes them).  Returns 0, -1 with err, or 128 + the stop signal, every
 * worker and bot stopped and reaped either way. */
static int run_blocked(runner *r, kb_err *err)
{
	sigset_t block;
	int rc;

	kj_proc_stop_signals(&block);
	sigaddset(&block, SIGCHLD);
	signal(SIGCHLD, SIG_DFL); /* an inherited SIG_IGN would reap workers for us */
	sigprocmask(SIG_BLOCK, &block, &r->mask);
	/* bots of a worker killed with SIGKILL (a second stop signal, the
	 * out-of-memory killer) come to the judge rather than to init: a
	 * confined bot loses its parent-death signal at its exec (its real
	 * and effective users differ under a root judge), so only the judge
	 * can stop it; unknown children are ignored until the sweep below */
	kj_proc_adopt();
	rc = run_all(r, err);
	if (rc || r->signo)
		stop_workers(r);
	kj_proc_sweep(NULL, 0);
	if (rc == 0 && r->signo) {
		rc = 128 + r->signo;
		snprintf(err->msg, sizeof err->msg,
			 "stopped by %s: %" PRIu32 " of %" PRIu32 " games done and kept in %.80s",
			 r->signo == SIGINT ? "SIGINT" : r->signo == SIGTERM ? "SIGTERM" : "SIGHUP",
			 r->done, r->total, r->opt->out);
	}
	sigprocmask(SIG_SETMASK, &r->mask, NULL);
	return rc;
}

/* The bots --max-timeouts removed, into out; returns how many. */
static int removals(const runner *r, kj_removal out[KJ_MAX_BOTS])
{
	const kj_run_opts *opt = r->opt;
	int n = 0;

	for (int b = 0; b < opt->nbots; b++) {
		if (r->removed_at[b] == NOT_REMOVED)
			continue;
		kj_removal *rm = &out[n++];
		snprintf(rm->name, sizeof rm->name, "%s", opt->bots[b].name);
		rm->game = r->removed_at[b];
		rm->in_a_row = opt->max_timeouts;
		rm->not_played = 0;
		for (uint32_t i = 0; i < opt->plan->ngames; i++)
			rm->not_played += r->state[i] == SKIPPED && has_bot(&opt->plan->games[i], b);
	}
	return n;
}

/* 1 with err naming the bots whose command could not be run, else 0. */
static int unstarted_error(const runner *r, kb_err *err)
{
	size_t n = 0;

	for (int b = 0; b < r->opt->nbots; b++)
		if (r->unstarted[b] && n < sizeof err->msg)
			n += (size_t)snprintf(err->msg + n, sizeof err->msg - n, "%s%s",
					      n ? ", " : "could not start (see above): ",
					      r->opt->bots[b].name);
	return n ? 1 : 0;
}

int kj_run(const kj_run_opts *opt, kb_err *err)
{
	uint32_t n = opt->plan->ngames;
	runner r = {0};
	int rc = -1;

	if (kj_results_mkdir(opt->out, err))
		return -1;
	/* a bot whose folder holds the output folder must not see the games */
	if (kj_sandbox_hide(opt->out))
		return kj_file_error(err, "cannot note the output folder", opt->out);
	r.opt = opt;
	r.state = calloc(n, 1);
	r.pid = calloc(n, sizeof *r.pid);
	r.res = calloc(n, sizeof *r.res);
	r.timeouts = calloc((size_t)opt->nbots, sizeof *r.timeouts);
	r.removed_at = malloc((size_t)opt->nbots * sizeof *r.removed_at);
	r.unstarted = calloc((size_t)opt->nbots, 1);
	if (!r.state || !r.pid || !r.res || !r.timeouts || !r.removed_at || !r.unstarted) {
		snprintf(err->msg, sizeof err->msg, "plan of %" PRIu32 " games: out of memory", n);
		goto out;
	}
	for (int b = 0; b < opt->nbots; b++)
		r.removed_at[b] = NOT_REMOVED;
	if (resume(&r, err) || (rc = run_blocked(&r, err)) != 0)
		goto out;
	{
		size_t m = 0;
		for (uint32_t i = 0; i < n; i++)
			if (r.state[i] == DONE && !(r.stop && opt->plan->games[i].deal > r.stop_deal))
				r.res[m++] = r.res[i];
		kj_removal removed[KJ_MAX_BOTS];
		int nremoved = removals(&r, removed);
		if (opt->html && kj_html_viewers(opt->out, r.res, m, err))
			rc = -1;
		else
			rc = kj_report_write(opt->out, r.res, m, opt->sprt, opt->seed,
					     opt->match.timing, opt->round_lines, removed, nremoved,
					     err);
	}
	if (rc == 0)
		rc = unstarted_error(&r, err);
out:
	free(r.state), free(r.pid), free(r.res), free(r.timeouts), free(r.removed_at);
	free(r.unstarted);
	return rc;
}
