/* run.c - tournaments: workers, resume, shards, removal, SPRT; see run.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run.h"

enum { PENDING, RUNNING, DONE, SKIPPED };

typedef struct runner {
	const kj_run_opts *opt;
	uint8_t *state;          /* per game */
	pid_t *pid;              /* per game while running */
	kj_result *res;          /* per game */
	int *timeouts;           /* consecutive timeout games per bot */
	uint8_t *removed;
	uint32_t accounted;      /* games before this one are final */
	uint32_t done, total;
	int running;
	int stop;                /* SPRT decided: start nothing more */
	uint32_t stop_deal;      /* deals up to this one count */
	uint32_t round_wins[KJ_MAX_BOTS], round_place[KJ_MAX_BOTS], round_games[KJ_MAX_BOTS];
	uint32_t all_wins[KJ_MAX_BOTS], all_games[KJ_MAX_BOTS];
} runner;

static int fail(kb_err *err, const char *what, const char *path)
{
	return kb_err_set(err, -1, "%.60s %.100s: %.25s", what, path, strerror(errno));
}

static void game_path(char *buf, size_t size, const char *out, uint32_t game, const char *ext)
{
	snprintf(buf, size, "%s/games/%06" PRIu32 "%s", out, game, ext);
}

static int read_result_file(const char *path, uint32_t *game, kj_result *res, kb_err *err)
{
	FILE *f = fopen(path, "r");
	int rc;

	if (!f)
		return -1;
	rc = kj_result_read(f, game, res, err);
	fclose(f);
	return rc;
}

/* In the worker process: play game g and leave its files.  Never returns. */
static void worker(const kj_run_opts *opt, const kj_game_spec *g)
{
	char tx_path[1024], res_tmp[1024], res_path[1024], prefix[1024];
	const kj_bot *seats[KB_SEATS];
	kj_match_opts mo = opt->match;
	kj_result res;
	kb_err err;
	FILE *tx, *rf;

	game_path(tx_path, sizeof tx_path, opt->out, g->index, ".tx");
	game_path(res_tmp, sizeof res_tmp, opt->out, g->index, ".res.tmp");
	game_path(res_path, sizeof res_path, opt->out, g->index, ".res");
	game_path(prefix, sizeof prefix, opt->out, g->index, "");
	for (int s = 0; s < KB_SEATS; s++)
		seats[s] = g->seat[s] >= 0 ? &opt->bots[g->seat[s]] : NULL;
	mo.err_prefix = prefix;
	if (g->start >= 0 && opt->starts) {
		mo.has_start = 1;
		mo.start = opt->starts[g->start].pos;
		mo.start_turn = opt->starts[g->start].turn;
		mo.start_die = opt->starts[g->start].die;
	}
	/* The .res file, renamed into place last, marks the game as played;
	 * a transcript without one is rewritten on resume. */
	if (!(tx = fopen(tx_path, "w"))) {
		fprintf(stderr, "kimble-judge: cannot write %s: %s\n", tx_path, strerror(errno));
		_exit(2);
	}
	if (kj_match_play(seats, g->seed, &mo, tx, &res, &err)) {
		fprintf(stderr, "kimble-judge: game %" PRIu32 ": %s\n", g->index, err.msg);
		_exit(2);
	}
	res.deal = g->deal;
	if (fclose(tx) || !(rf = fopen(res_tmp, "w")) || kj_result_write(rf, g->index, &res) ||
	    fclose(rf) || rename(res_tmp, res_path)) {
		fprintf(stderr, "kimble-judge: cannot write the files of game %" PRIu32 ": %s\n",
			g->index, strerror(errno));
		_exit(2);
	}
	_exit(0);
}

static int uses_removed(const runner *r, const kj_game_spec *g)
{
	for (int s = 0; s < KB_SEATS; s++)
		if (g->seat[s] >= 0 && r->removed[g->seat[s]])
			return 1;
	return 0;
}

/* A worker interrupted (Ctrl-C, a failed run) takes its bots with it. */
static void worker_stop(int sig)
{
	kj_proc_kill_all();
	_exit(128 + sig);
}

static int start_game(runner *r, uint32_t i, kb_err *err)
{
	const kj_game_spec *g = &r->opt->plan->games[i];
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return fail(err, "cannot fork a worker for game", "");
	if (pid == 0) {
		signal(SIGINT, worker_stop);
		signal(SIGTERM, worker_stop);
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

/* Game i is final: update timeouts, round lines, SPRT. */
static void account(runner *r, uint32_t i)
{
	const kj_run_opts *opt = r->opt;
	const kj_game_spec *g = &opt->plan->games[i];
	const kj_result *res = &r->res[i];

	if (r->state[i] != DONE || (r->stop && g->deal > r->stop_deal))
		return;
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
		int to = res->seat[s].reason == KJ_TIMEOUT || res->seat[s].reason == KJ_STARTUP;
		r->timeouts[b] = to ? r->timeouts[b] + 1 : 0;
		if (opt->max_timeouts && r->timeouts[b] >= opt->max_timeouts && !r->removed[b]) {
			r->removed[b] = 1;
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

static int reap_one(runner *r, kb_err *err)
{
	int st;
	pid_t pid = waitpid(-1, &st, 0);
	uint32_t n = r->opt->plan->ngames, game;
	char path[1024];

	if (pid < 0)
		return errno == EINTR ? 0 : fail(err, "waiting for workers", "");
	for (uint32_t i = 0; i < n; i++) {
		if (r->state[i] != RUNNING || r->pid[i] != pid)
			continue;
		r->running--;
		game_path(path, sizeof path, r->opt->out, i, ".res");
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 ||
		    read_result_file(path, &game, &r->res[i], err)) {
			snprintf(err->msg, sizeof err->msg, "game %" PRIu32 ": the worker failed (%s)",
				 i, WIFEXITED(st) ? "see above" : "killed");
			return -1;
		}
		r->state[i] = DONE;
		r->done++;
		return 0;
	}
	return 0; /* not ours (a bot reaped late): ignore */
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

static int mkdirs(const char *out, kb_err *err)
{
	char path[1024];

	snprintf(path, sizeof path, "%s/games", out);
	if (mkdir(out, 0755) && errno != EEXIST)
		return fail(err, "cannot create the output folder", out);
	if (mkdir(path, 0755) && errno != EEXIST)
		return fail(err, "cannot create the output folder", path);
	return 0;
}

/* 0 when res was played by the seats that game g puts at the table, or
 * -1 with err naming the first seat that differs. */
static int same_seats(const kj_run_opts *opt, const kj_game_spec *g, const kj_result *res,
		      const char *path, kb_err *err)
{
	for (int s = 0; s < KB_SEATS; s++) {
		const char *want = g->seat[s] >= 0 ? opt->bots[g->seat[s]].name : "(absent)";
		const char *had = res->seat[s].present ? res->seat[s].name : "(absent)";
		if (strcmp(want, had) != 0) {
			snprintf(err->msg, sizeof err->msg,
				 "%.56s is another tournament's game (seat %c: %.24s, now %.24s); "
				 "use another --out or remove it",
				 path, 'A' + s, had, want);
			return -1;
		}
	}
	return 0;
}

/* Mark games resumed from complete result files, or outside the shard.
 * Returns -1 with err when OUT holds a game of another lineup: resuming
 * would mix two tournaments' results. */
static int resume(runner *r, kb_err *err)
{
	const kj_run_opts *opt = r->opt;

	for (uint32_t i = 0; i < opt->plan->ngames; i++) {
		char path[1024];
		uint32_t game;
		kb_err ignored;
		if (!in_shard(opt, i)) {
			r->state[i] = SKIPPED;
			continue;
		}
		r->total++;
		game_path(path, sizeof path, opt->out, i, ".res");
		if (read_result_file(path, &game, &r->res[i], &ignored) == 0 && game == i &&
		    r->res[i].seed == opt->plan->games[i].seed) {
			if (same_seats(opt, &opt->plan->games[i], &r->res[i], path, err))
				return -1;
			r->state[i] = DONE;
			r->done++;
		}
	}
	return 0;
}

static int run_all(runner *r, kb_err *err)
{
	const kj_run_opts *opt = r->opt;
	uint32_t n = opt->plan->ngames, next = 0;

	advance_accounting(r);
	for (;;) {
		while (r->running < opt->concurrency && next < n) {
			uint32_t i = next++;
			if (r->state[i] != PENDING)
				continue;
			if (uses_removed(r, &opt->plan->games[i]) ||
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
		if (reap_one(r, err))
			return -1;
		advance_accounting(r);
	}
	advance_accounting(r);
	if (opt->progress)
		fprintf(stderr, "\n");
	return 0;
}

int kj_run(const kj_run_opts *opt, kb_err *err)
{
	uint32_t n = opt->plan->ngames;
	runner r = {0};
	int rc = -1;

	if (mkdirs(opt->out, err))
		return -1;
	r.opt = opt;
	r.state = calloc(n, 1);
	r.pid = calloc(n, sizeof *r.pid);
	r.res = calloc(n, sizeof *r.res);
	r.timeouts = calloc((size_t)opt->nbots, sizeof *r.timeouts);
	r.removed = calloc((size_t)opt->nbots, 1);
	if (!r.state || !r.pid || !r.res || !r.timeouts || !r.removed) {
		snprintf(err->msg, sizeof err->msg, "plan of %" PRIu32 " games: out of memory", n);
		goto out;
	}
	if (resume(&r, err))
		goto out;
	if (run_all(&r, err)) {
		for (uint32_t i = 0; i < n; i++)
			if (r.state[i] == RUNNING)
				kill(r.pid[i], SIGTERM);
		while (wait(NULL) > 0)
			;
		goto out;
	}
	{
		size_t m = 0;
		for (uint32_t i = 0; i < n; i++)
			if (r.state[i] == DONE && !(r.stop && opt->plan->games[i].deal > r.stop_deal))
				r.res[m++] = r.res[i];
		rc = kj_report_write(opt->out, r.res, m, opt->sprt, opt->seed, opt->match.timing, err);
	}
out:
	free(r.state), free(r.pid), free(r.res), free(r.timeouts), free(r.removed);
	return rc;
}

int kj_report_write(const char *out, const kj_result *res, size_t n, const kj_sprt *sprt,
		    uint64_t seed, int timing, kb_err *err)
{
	kj_report rep;
	char path[1024];
	FILE *f;

	if (kj_report_build(&rep, res, n, err))
		return -1;
	kj_report_print(stdout, &rep, timing);
	if (sprt)
		printf("sprt elo0 %.1f elo1 %.1f: LLR %.3f [%.3f, %.3f] after %u deals: %s\n",
		       sprt->elo0, sprt->elo1, sprt->llr, sprt->lower, sprt->upper, sprt->deals,
		       sprt->decided > 0 ? "H1 accepted" : sprt->decided < 0 ? "H0 accepted"
									: "inconclusive");
	fflush(stdout);
	snprintf(path, sizeof path, "%s/results.txt", out);
	if (!(f = fopen(path, "w"))) {
		kj_report_free(&rep);
		return fail(err, "cannot write", path);
	}
	kj_report_print(f, &rep, timing);
	fclose(f);
	snprintf(path, sizeof path, "%s/results.json", out);
	if (!(f = fopen(path, "w"))) {
		kj_report_free(&rep);
		return fail(err, "cannot write", path);
	}
	kj_report_json(f, &rep, sprt, seed);
	fclose(f);
	kj_report_free(&rep);
	return 0;
}

/* ---- loading and merging ----------------------------------------------- */

typedef struct indexed {
	uint32_t game;
	kj_result res;
} indexed;

static int by_index(const void *a, const void *b)
{
	const indexed *x = a, *y = b;

	return x->game < y->game ? -1 : x->game > y->game;
}

long kj_results_load(const char *const dirs[], int n, kj_result **out, kb_err *err)
{
	indexed *all = NULL;
	size_t count = 0, cap = 0;

	for (int d = 0; d < n; d++) {
		char path[1024];
		struct dirent *e;
		snprintf(path, sizeof path, "%s/games", dirs[d]);
		DIR *dir = opendir(path);
		if (!dir) {
			free(all);
			return fail(err, "cannot read results folder", path);
		}
		while ((e = readdir(dir))) {
			size_t len = strlen(e->d_name);
			if (len < 5 || strcmp(e->d_name + len - 4, ".res"))
				continue;
			if (count == cap) {
				indexed *p = realloc(all, (cap = cap ? cap * 2 : 256) * sizeof *p);
				if (!p)
					break;
				all = p;
			}
			snprintf(path, sizeof path, "%s/games/%s", dirs[d], e->d_name);
			if (read_result_file(path, &all[count].game, &all[count].res, err) == 0)
				count++;
		}
		closedir(dir);
	}
	if (count) /* all is NULL when no folder held a result */
		qsort(all, count, sizeof *all, by_index);
	kj_result *res = malloc((count ? count : 1) * sizeof *res);
	size_t m = 0;
	for (size_t i = 0; res && i < count; i++)
		if (m == 0 || all[i].game != all[i - 1].game)
			res[m++] = all[i].res;
	free(all);
	if (!res) {
		snprintf(err->msg, sizeof err->msg, "results: out of memory");
		return -1;
	}
	*out = res;
	return (long)m;
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	ssize_t got;
	int in, outfd, rc = 0;

	if (link(from, to) == 0 || errno == EEXIST)
		return 0;
	if ((in = open(from, O_RDONLY)) < 0)
		return -1;
	if ((outfd = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0) {
		close(in);
		return -1;
	}
	while ((got = read(in, buf, sizeof buf)) > 0)
		if (write(outfd, buf, (size_t)got) != got)
			rc = -1;
	close(in);
	close(outfd);
	return rc;
}

int kj_merge(const char *out, const char *const dirs[], int n, int timing, kb_err *err)
{
	kj_result *res;
	long m;

	if (mkdirs(out, err))
		return -1;
	for (int d = 0; d < n; d++) {
		char path[1024], to[1024];
		struct dirent *e;
		snprintf(path, sizeof path, "%s/games", dirs[d]);
		DIR *dir = opendir(path);
		if (!dir)
			return fail(err, "cannot read shard folder", path);
		while ((e = readdir(dir))) {
			if (e->d_name[0] == '.' || strstr(e->d_name, ".tmp"))
				continue;
			snprintf(path, sizeof path, "%s/games/%s", dirs[d], e->d_name);
			snprintf(to, sizeof to, "%s/games/%s", out, e->d_name);
			if (copy_file(path, to)) {
				closedir(dir);
				return fail(err, "cannot copy", path);
			}
		}
		closedir(dir);
	}
	if ((m = kj_results_load(&out, 1, &res, err)) < 0)
		return -1;
	int rc = kj_report_write(out, res, (size_t)m, NULL, 0, timing, err);
	free(res);
	return rc;
}
