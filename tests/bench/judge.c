/* judge.c - bench: kimble-judge's overhead with real bot processes.
 *
 * Four seats of the tiny test bot (tests/bots/testbot.c in mode hard, a
 * static program started once per game) play a fixed lineup under
 * bin/kimble-judge --concurrency 2; the table shows games per second,
 * the mean pipe round trip per decision (judge sends END, bot answers)
 * from the judge's own timing, and, for comparison, games per second of
 * the in-process referee (core/game.h) with four hard seats.  It does so
 * with bots confined (judge/sandbox.h, the default) and --sandbox off, and
 * measures the start-up of one bot process either way: start, first line
 * (v001XYZ), stdin closed, exit reaped (a game starts up to four).  The
 * two settings alternate and the best of two runs counts (a busy host
 * moves wall times a lot); CPU time per game is the steadier figure.
 *
 * usage: judge [DEALS]   (default 250 deals = 1000 games)
 */
#define _XOPEN_SOURCE 700
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/game.h"
#include "judge/proc.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what, const char *arg)
{
	fprintf(stderr, "bench judge: %s %s\n", what, arg);
	exit(1);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static void make_bots(const char *dir, const char *testbot)
{
	for (int i = 1; i <= 4; i++) {
		char path[1200];
		FILE *f;
		snprintf(path, sizeof path, "%s/h%d", dir, i);
		mkdir(path, 0755);
		snprintf(path, sizeof path, "%s/h%d/meta", dir, i);
		if (!(f = fopen(path, "w")))
			die("cannot write", path);
		fprintf(f, "h%d\n%s\nhard\n0\n", i, testbot);
		fclose(f);
	}
}

/* CPU seconds of this process's reaped children (the judge, its workers
 * and bots): unlike wall time, hardly moved by other work on the host. */
static double children_cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_CHILDREN, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* Run the judge, --sandbox on or off; returns wall seconds. */
static double run_judge(const char *judge, const char *bots, const char *out, const char *deals,
			const char *sandbox)
{
	char *argv[] = {(char *)judge, "-q", "-f", "fixed", "-g", (char *)deals, "-j2", "--bots",
			(char *)bots, "-o", (char *)out, "--sandbox", (char *)sandbox, "h1", "h2",
			"h3", "h4", NULL};
	double t = now_s();
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		execv(judge, argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		die("kimble-judge failed:", judge);
	return now_s() - t;
}

/* Decisions and decision-weighted mean ms from results.json. */
static void round_trip(const char *out, double *decisions, double *mean_ms, double *max_ms)
{
	char path[1200], line[2048];
	FILE *f;
	double n = 0, total = 0, max = 0;

	snprintf(path, sizeof path, "%s/results.json", out);
	if (!(f = fopen(path, "r")))
		die("cannot read", path);
	while (fgets(line, sizeof line, f)) {
		char *d = strstr(line, "\"decisions\": ");
		char *m = strstr(line, "\"mean_ms\": ");
		char *x = strstr(line, "\"max_ms\": ");
		if (!d || !m || !x)
			continue;
		double dn = atof(d + 13), mm = atof(m + 11), mx = atof(x + 10);
		n += dn, total += dn * mm;
		if (mx > max)
			max = mx;
	}
	fclose(f);
	*decisions = n;
	*mean_ms = n ? total / n : 0;
	*max_ms = max;
}

static double core_games_per_s(void)
{
	const uint8_t ctl[KB_SEATS] = {KB_HARD, KB_HARD, KB_HARD, KB_HARD};
	double t = now_s(), dt;
	uint64_t games = 0;

	do {
		for (int k = 0; k < 1000; k++, games++) {
			kb_game g;
			uint8_t c[KB_SEATS];
			memcpy(c, ctl, sizeof c);
			kb_game_init(&g, kb_stream_seed(7, KB_TAG_GAME, games), c);
			kb_game_advance(&g, NULL);
		}
	} while ((dt = now_s() - t) < 0.5);
	return (double)games / dt;
}

/* Mean microseconds to start the test bot in dir (confined or not), read
 * its first line, close its stdin and reap it, over 200 starts. */
static double startup_us(const char *dir, const char *testbot, int sandbox)
{
	static uint64_t written; /* counted as in a tournament (the default budget) */
	kj_bot bot = {.name = "h1", .argv = {"hard"}, .argc = 1, .written = &written};
	kj_limits lim = {.cpu_s = 60, .mem_mb = 2048, .nofile = 256, .learn = 1,
			 .sandbox = sandbox, .procs = 64, .file_mb = 256, .write_mb = 1024};
	kb_err err;
	int n = 0;
	double t;

	snprintf(bot.dir, sizeof bot.dir, "%.511s", dir);
	snprintf(bot.cmd, sizeof bot.cmd, "%.511s", testbot);
	t = now_s();
	for (; n < 200; n++) {
		kj_proc p;
		if (kj_proc_start(&p, &bot, "hard,hard,hard", "1", NULL, &lim, &err))
			die("cannot start the test bot:", err.msg);
		while (!memchr(p.ibuf, '\n', p.ilen))
			if (kj_proc_pump(&p, 5000) <= 0)
				die("no first line from", testbot);
		kj_proc_finish(&p, 500);
	}
	return (now_s() - t) * 1e6 / n;
}

int main(int argc, char **argv)
{
	const char *deals = argc > 1 ? argv[1] : "250";
	const char *bin = getenv("KB_BIN"), *root = getenv("KB_ROOT"), *tmp = getenv("TMPDIR");
	char judge[1024], rel[1024], testbot[PATH_MAX], dir[512], bots[600], out[600], h1[700];
	double decisions = 0, mean_ms[2], max_ms[2], secs[2], cpu_s[2], start_us[2];
	double games = 4.0 * atof(deals);
	const char *modes[2] = {"on", "off"};

	snprintf(judge, sizeof judge, "%s/kimble-judge", bin ? bin : "bin");
	snprintf(rel, sizeof rel, "%s/build/rel/testbots/testbot", root ? root : ".");
	if (access(judge, X_OK) || access(rel, X_OK) || !realpath(rel, testbot))
		die("missing programs (run make bench):", access(judge, X_OK) ? judge : rel);
	snprintf(dir, sizeof dir, "%s/kimble-bench-XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		die("cannot create a folder in", tmp ? tmp : "/tmp");
	snprintf(bots, sizeof bots, "%s/bots", dir);
	snprintf(out, sizeof out, "%s/out", dir);
	mkdir(bots, 0755);
	make_bots(bots, testbot);
	printf("%-44s %10s %10s %12s %14s %10s %12s\n", "setup (best of 2, alternating)", "games",
	       "seconds", "games/s", "round trip us", "max ms", "cpu ms/game");
	signal(SIGPIPE, SIG_IGN);
	snprintf(h1, sizeof h1, "%s/h1", bots);
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < 2; i++) {
			double cpu = children_cpu_s(), t = run_judge(judge, bots, out, deals, modes[i]);
			cpu = children_cpu_s() - cpu;
			if (round == 0 || t < secs[i]) {
				secs[i] = t;
				round_trip(out, &decisions, &mean_ms[i], &max_ms[i]);
			}
			if (round == 0 || cpu < cpu_s[i])
				cpu_s[i] = cpu;
			nftw(out, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
			double us = startup_us(h1, testbot, i == 0);
			if (round == 0 || us < start_us[i])
				start_us[i] = us;
		}
	nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	for (int i = 0; i < 2; i++) {
		char setup[64];
		snprintf(setup, sizeof setup, "judge, 4 testbot hard, -j2, sandbox %s", modes[i]);
		printf("%-44s %10.0f %10.2f %12.1f %14.1f %10.2f %12.2f\n", setup, games, secs[i],
		       games / secs[i], 1000 * mean_ms[i], max_ms[i], 1000 * cpu_s[i] / games);
	}
	printf("%-44s %10s %10s %12.0f %14s %10s %12s\n", "in-process referee, 4 hard seats", "-",
	       "0.5", core_games_per_s(), "-", "-", "-");
	printf("decisions answered by bots: %.0f (%.1f per game); target >= 300 games/s\n",
	       decisions, decisions / games);
	printf("start-up of one bot process (start, first line, exit; best of 2 x 200): %.0f us "
	       "confined, %.0f us unconfined (%+.0f us; a game starts up to 4)\n", start_us[0],
	       start_us[1], start_us[0] - start_us[1]);
	return 0;
}
