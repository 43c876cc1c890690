/* main.c - kimble-judge: tournaments of Kimble bots, replays, pictures.
 * Parses the command line and hands over to the judge library. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/num.h"
#include "core/transcript.h"
#include "replay.h"
#include "run.h"
#include "shard.h"
#include "sandbox.h"
#include "html.h"
#include "svg.h"
#include "core/err.h"

static const char usage[] =
"usage: kimble-judge [OPTIONS] BOT...              play a tournament\n"
"       kimble-judge -d BOT [OPTIONS] [OPPONENT...]  one game, every line shown\n"
"       kimble-judge replay [--at N] [--step] [--color] TRANSCRIPT\n"
"       kimble-judge replay --rerun [--bots DIR] TRANSCRIPT [BOTDIR...]\n"
"       kimble-judge svg [--at N | --anim] [-o FILE.svg|FILE.png] TRANSCRIPT\n"
"       kimble-judge html [-o FILE.html] TRANSCRIPT    a game viewer page\n"
"       kimble-judge merge OUT SHARD_OUT...\n"
"\n"
"A BOT is easy, hard, random (built-in seats) or a directory holding a\n"
"meta file (name, command, arguments, stderr flag 0/1, optional state\n"
"path), given as a path or as a name under --bots DIR.  With --bots and no\n"
"BOT, every bot folder under DIR plays.  The bot runs in its folder as\n"
"COMMAND ARGUMENTS OPPONENTS SEED; a COMMAND without '/' is looked up in\n"
"PATH (python3, kimble-bot), one with '/' is relative to the bot's folder\n"
"(./bot.py, ./kimble-bot).  -d shows each bot's stderr as \"A! line\";\n"
"-d -o FILE.tx writes the game's transcript to FILE.tx, -d -o DIR to\n"
"DIR/debug.tx (for replay and svg); -d takes -s, -o, --bots, the times and\n"
"the bot limits, and refuses the other options (-g, -t, -q, ...).\n"
"\n"
"A bot that breaks the rules (illegal moves, timeouts, exits, a command\n"
"that cannot be run) forfeits: hard plays its seat on, the bot is placed\n"
"last and never credited with the win; -d, results and replay say when,\n"
"why and which index was refused.\n"
"\n"
"Tournament options:\n"
"  -f, --format F       rr (round robin, default), gauntlet (the first BOT\n"
"                       against the field), fixed (the BOTs as one lineup,\n"
"                       a line after every round: the learning mode)\n"
"  -t, --table N        seats per game, 1..4 (default: all BOTs, at most 4)\n"
"  -g, --games N        deals per lineup (default 1); each deal is played once\n"
"                       per rotation of the lineup through the seats, on the\n"
"                       same dice (duplicate format)\n"
"  -s, --seed S         tournament seed (default 1); game seeds derive from it\n"
"  -j, --concurrency N  games at once (default: the number of cores)\n"
"  -o, --out DIR        transcripts, results (default kimble-judge-out); an\n"
"                       existing DIR resumes: finished games are not replayed;\n"
"                       a DIR holding another run's games (other seed or\n"
"                       bots) is refused (exit 2)\n"
"      --starts FILE    start positions, one \"BOARD X D\" a line\n"
"      --shard K/N      play only games with number mod N = K-1\n"
"      --sprt E0,E1[,A,B]  A/B test of the first two BOTs (fixed, 2 seats):\n"
"                       stop when H0 elo=E0 or H1 elo=E1 is accepted\n"
"                       (alpha, beta default 0.05); --games is the maximum\n"
"      --move-ms N      time per decision (default 1000)\n"
"      --startup-ms N   time until v001XYZ (default 5000)\n"
"      --max-errors N   illegal moves or wrong tokens answered before a\n"
"                       forfeit (default 3)\n"
"      --max-timeouts N remove a bot after N games in a row lost on time (3; 0 never)\n"
"      --cpu-s N --mem-mb N --nofile N   bot limits (60, 2048, 256; 0 none)\n"
"      --max-procs N    processes and threads per bot (default 64; 0 none)\n"
"      --max-file-mb N  size of any one file a bot writes (default 256; 0 none)\n"
"      --max-write-mb N MiB a bot may write to disk in this run, all its games\n"
"                       and files together, removed ones too (default 4096;\n"
"                       0 none); past it the bot forfeits (write) every game\n"
"      --sandbox on|off confine bots (default on; also for -d and --rerun): a\n"
"                       bot may read and write its own folder, read and run\n"
"                       the system's programs and libraries (/usr, /lib*,\n"
"                       /bin, /sbin, /opt), /etc except secrets (shadow,\n"
"                       ssh, ...), /proc/self and its command; nothing else:\n"
"                       no other folder, no network (socket() fails), no\n"
"                       signals beyond its own processes, no privileges\n"
"                       (not even when the judge is root).  Needs Linux 6.12\n"
"                       (Landlock ABI 6) and user namespaces; the judge\n"
"                       refuses to run bots where they are missing.  off:\n"
"                       trusted bots only (docs/sandbox.md)\n"
"      --no-learn       run bots with KIMBLE_LEARN=0 (learning frozen)\n"
"      --pass-env NAMES also give bots these variables of the judge's\n"
"                       environment (comma-separated, repeatable; * all).\n"
"                       Bots get only PATH, HOME (set to their folder), LANG,\n"
"                       LANGUAGE, LC_*, TZ and KIMBLE_* otherwise, so the\n"
"                       organiser's tokens and passwords stay out of reach\n"
"      --html           also write a viewer page per game, OUT/games/NNNNNN.html\n"
"                       (about 5 KB per roll; OUT/report.html is always written\n"
"                       and links each game's viewer, else its transcript)\n"
"      --no-timing      write 0 for all times: byte-identical reruns\n"
"  -q, --quiet          no progress line\n"
"  -h, --help           this text\n"
"\n"
"Numbers are decimal, an optional '+' allowed (e.g. --games +5 is 5).\n"
"svg --anim writes SVG only: -o FILE must end in .svg.\n"
"\n"
"Exit status: 0 done (replay --rerun: the game agrees); 1 bad input (meta\n"
"file, start file, transcript); 2 a run failed (cannot write, bots cannot\n"
"be confined, a worker died) or a bot could not be started (its command cannot be run: the\n"
"games are still played and recorded, the message is on stderr); 3 replay\n"
"--rerun differs; 64 usage error (unknown option, bad or missing value,\n"
"missing argument); 128+N stopped by signal N: 130 SIGINT (Ctrl-C), 143\n"
"SIGTERM, 129 SIGHUP.  A stopped tournament first stops and reaps its\n"
"workers and bots and keeps only finished games; the same command again\n"
"resumes it, with the same results as a run never stopped.  After kill -9\n"
"the workers and bots die too; resume the same way.\n";

#define PROG "kimble-judge"
#define die(code, ...) kb_die(PROG, (code), __VA_ARGS__)
#define usage_error(...) kb_die_usage(PROG, __VA_ARGS__)

static long number(const char *opt, const char *arg, long lo, long hi)
{
	return (long)kb_arg_range(PROG, opt, arg, lo, hi);
}

typedef struct cli {
	enum kj_format format;
	int table, concurrency, quiet, timing, debug;
	long games;
	uint64_t seed;
	const char *out, *bots_dir, *starts, *shard, *sprt;
	kj_match_opts match;
	int max_timeouts;
	int at, step, color, rerun, anim, html;
	const char *svg_out;
	int out_given;  /* -o was given (c->out is never NULL) */
	int not_debug;  /* the first option given that -d does not use, or 0 */
} cli;

enum { O_STARTS = 256, O_SHARD, O_SPRT, O_MOVE, O_STARTUP, O_ERRORS, O_TIMEOUTS, O_CPU, O_MEM,
       O_NOFILE, O_PROCS, O_FILE_MB, O_WRITE_MB, O_SANDBOX, O_NOLEARN, O_NOTIMING, O_BOTS, O_AT,
       O_STEP, O_COLOR, O_RERUN, O_ANIM, O_HTML, O_PASS_ENV };

static const struct option longopts[] = {
	{"format", 1, 0, 'f'}, {"table", 1, 0, 't'}, {"games", 1, 0, 'g'},
	{"seed", 1, 0, 's'}, {"concurrency", 1, 0, 'j'}, {"out", 1, 0, 'o'},
	{"quiet", 0, 0, 'q'}, {"help", 0, 0, 'h'}, {"debug", 1, 0, 'd'},
	{"starts", 1, 0, O_STARTS}, {"shard", 1, 0, O_SHARD}, {"sprt", 1, 0, O_SPRT},
	{"move-ms", 1, 0, O_MOVE}, {"startup-ms", 1, 0, O_STARTUP},
	{"max-errors", 1, 0, O_ERRORS}, {"max-timeouts", 1, 0, O_TIMEOUTS},
	{"cpu-s", 1, 0, O_CPU}, {"mem-mb", 1, 0, O_MEM}, {"nofile", 1, 0, O_NOFILE},
	{"max-procs", 1, 0, O_PROCS}, {"max-file-mb", 1, 0, O_FILE_MB}, {"sandbox", 1, 0, O_SANDBOX},
	{"max-write-mb", 1, 0, O_WRITE_MB},
	{"no-learn", 0, 0, O_NOLEARN}, {"no-timing", 0, 0, O_NOTIMING}, {"bots", 1, 0, O_BOTS},
	{"at", 1, 0, O_AT}, {"step", 0, 0, O_STEP}, {"color", 0, 0, O_COLOR},
	{"rerun", 0, 0, O_RERUN}, {"anim", 0, 0, O_ANIM},
	{"html", 0, 0, O_HTML}, {"pass-env", 1, 0, O_PASS_ENV}, {0, 0, 0, 0}};

static const char *debug_bot;

/* The names of every --pass-env so far, comma-separated (botenv.h). */
static const char *pass_env(const char *arg)
{
	static char names[4096];
	size_t len = strlen(names);
	const char *p = strcmp(arg, "*") ? arg : arg + 1;

	if (p == arg)
		for (; *p; p++)
			if (!(*p == '_' || *p == ',' || (*p >= 'A' && *p <= 'Z') ||
			      (*p >= 'a' && *p <= 'z') || (p > arg && *p >= '0' && *p <= '9')))
				break;
	if (*p || !*arg)
		usage_error("--pass-env \"%s\": expected variable names separated by commas, "
			    "or * for all", arg);
	if (len + strlen(arg) + 2 > sizeof names)
		usage_error("--pass-env: at most %zu characters of names in all", sizeof names - 2);
	snprintf(names + len, sizeof names - len, "%s%s", len ? "," : "", arg);
	return names;
}

static void parse_option(cli *c, int opt, const char *arg)
{
	switch (opt) {
	case 'f':
		if (!strcmp(arg, "rr") || !strcmp(arg, "round-robin"))
			c->format = KJ_ROUND_ROBIN;
		else if (!strcmp(arg, "gauntlet"))
			c->format = KJ_GAUNTLET;
		else if (!strcmp(arg, "fixed"))
			c->format = KJ_FIXED;
		else
			usage_error("--format \"%s\": expected rr, gauntlet or fixed", arg);
		break;
	case 't': c->table = (int)number("--table", arg, 1, 4); break;
	case 'g': c->games = number("--games", arg, 1, 1000000); break;
	case 's': c->seed = kb_arg_u64(PROG, "--seed", arg); break;
	case 'j': c->concurrency = (int)number("--concurrency", arg, 1, 256); break;
	case 'o': c->out = c->svg_out = arg, c->out_given = 1; break;
	case 'q': c->quiet = 1; break;
	case 'h': fputs(usage, stdout); exit(0);
	case 'd': debug_bot = arg; c->debug = 1; break;
	case O_STARTS: c->starts = arg; break;
	case O_SHARD: c->shard = arg; break;
	case O_SPRT: c->sprt = arg; break;
	case O_MOVE: c->match.move_ms = (int)number("--move-ms", arg, 1, 3600000); break;
	case O_STARTUP: c->match.startup_ms = (int)number("--startup-ms", arg, 1, 3600000); break;
	case O_ERRORS: c->match.max_errors = (int)number("--max-errors", arg, 0, 1000); break;
	case O_TIMEOUTS: c->max_timeouts = (int)number("--max-timeouts", arg, 0, 1000000); break;
	case O_CPU: c->match.limits.cpu_s = (int)number("--cpu-s", arg, 0, 1000000); break;
	case O_MEM: c->match.limits.mem_mb = (int)number("--mem-mb", arg, 0, 1 << 20); break;
	case O_NOFILE: c->match.limits.nofile = (int)number("--nofile", arg, 0, 1 << 20); break;
	case O_PROCS: c->match.limits.procs = (int)number("--max-procs", arg, 0, 1 << 20); break;
	case O_FILE_MB: c->match.limits.file_mb = (int)number("--max-file-mb", arg, 0, 1 << 30); break;
	case O_WRITE_MB: c->match.limits.write_mb = (int)number("--max-write-mb", arg, 0, 1 << 30); break;
	case O_SANDBOX:
		if (strcmp(arg, "on") && strcmp(arg, "off"))
			usage_error("--sandbox \"%s\": expected on or off", arg);
		c->match.limits.sandbox = !strcmp(arg, "on");
		break;
	case O_NOLEARN: c->match.limits.learn = 0; break;
	case O_PASS_ENV: c->match.limits.pass_env = pass_env(arg); break;
	case O_HTML: c->html = 1; break;
	case O_NOTIMING: c->match.timing = 0; break;
	case O_BOTS: c->bots_dir = arg; break;
	case O_AT: c->at = (int)number("--at", arg, 1, 100000000); break;
	case O_STEP: c->step = 1; break;
	case O_COLOR: c->color = 1; break;
	case O_RERUN: c->rerun = 1; break;
	case O_ANIM: c->anim = 1; break;
	}
}

/* Options of tournaments, replays and pictures that a -d game has no use
 * for: refused with -d rather than silently ignored. */
static int unused_by_debug(int opt)
{
	static const int unused[] = {'f', 't', 'g', 'j', 'q', O_STARTS, O_SHARD, O_SPRT,
				     O_TIMEOUTS, O_AT, O_STEP, O_COLOR, O_RERUN, O_ANIM, O_HTML};

	for (size_t i = 0; i < sizeof unused / sizeof unused[0]; i++)
		if (unused[i] == opt)
			return 1;
	return 0;
}

/* "--games" for 'g': the long name of option opt. */
static const char *option_name(int opt)
{
	for (const struct option *o = longopts; o->name; o++)
		if (o->val == opt)
			return o->name;
	return "?";
}

/* getopt's '?' and ':' as usage errors that name the option. */
static void bad_option(int opt, char **argv)
{
	const char *arg = argv[optind - 1];
	char shortopt[3] = {'-', (char)optopt, 0};

	if (optopt && strncmp(arg, "--", 2) != 0)
		arg = shortopt;
	if (opt == ':')
		usage_error("%s: expected a value after it", arg);
	kb_arg_unknown(PROG, arg);
}

static void parse(cli *c, int argc, char **argv)
{
	int opt;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);

	memset(c, 0, sizeof *c);
	c->games = 1;
	c->seed = 1;
	c->concurrency = cores > 0 ? (int)cores : 1;
	c->out = "kimble-judge-out";
	c->max_timeouts = 3;
	c->match = (kj_match_opts){.move_ms = 1000, .startup_ms = 5000, .max_errors = 3,
				   .grace_ms = 500, .timing = 1,
				   .limits = {.cpu_s = 60, .mem_mb = 2048, .nofile = 256, .learn = 1,
					      .sandbox = 1, .procs = 64, .file_mb = 256,
					      .write_mb = 4096}};
	opterr = 0; /* our messages, our exit status */
	while ((opt = getopt_long(argc, argv, ":f:t:g:s:j:o:qhd:", longopts, NULL)) != -1) {
		if (opt == '?' || opt == ':')
			bad_option(opt, argv);
		/* "--out --games 5": the value was forgotten (a negative number
		 * would be a value) */
		if (optarg && optarg[0] == '-' && optarg[1] && !(optarg[1] >= '0' && optarg[1] <= '9'))
			usage_error("%s: expected a value after it, found the option \"%s\"",
				    argv[optind - 2], optarg);
		parse_option(c, opt, optarg);
		if (!c->not_debug && unused_by_debug(opt))
			c->not_debug = opt;
	}
}

static void resolve(const cli *c, const char *word, kj_bot *bot)
{
	kb_err err;

	if (kj_bot_resolve(word, c->bots_dir, bot, &err))
		die(1, "%s", err.msg);
}

/* The bots named by words[0..n), or with none the --bots folder's: their
 * names are read into a list of our own (words is the end of argv, with
 * no room after it: writing the folder's names there overwrote the
 * environment the bots get). */
static int load_bots(const cli *c, char **words, int n, kj_bot *bots)
{
	static char names[KJ_MAX_BOTS][256];
	int listed = n == 0 && c->bots_dir;
	kb_err err;

	if (listed && (n = kj_bots_list(c->bots_dir, names, KJ_MAX_BOTS, &err)) < 0)
		die(1, "%s", err.msg);
	if (n == 0)
		usage_error("no bots: name BOTs or a --bots folder");
	if (n > KJ_MAX_BOTS)
		usage_error("%d bots: at most %d", n, KJ_MAX_BOTS);
	for (int i = 0; i < n; i++) {
		resolve(c, listed ? names[i] : words[i], &bots[i]);
		for (int k = 0; k < i; k++)
			if (!strcmp(bots[k].name, bots[i].name) && (!bots[k].builtin || !bots[i].builtin))
				die(1, "%s and %s are both named %s: results are kept by name, so "
				    "bots must have names of their own", listed ? names[k] : words[k],
				    listed ? names[i] : words[i], bots[i].name);
	}
	return n;
}

static void parse_sprt(const char *arg, kj_sprt *s)
{
	static const char expected[] =
		"expected ELO0,ELO1[,ALPHA,BETA] with ELO0 < ELO1, 0 < ALPHA,BETA < 0.5";
	double v[4] = {0, 0, 0.05, 0.05};
	char buf[256], *save = NULL, *field;
	int got = 0;

	snprintf(buf, sizeof buf, "%s", arg);
	for (field = strtok_r(buf, ",", &save); field && got < 4; field = strtok_r(NULL, ",", &save))
		if (kb_num_real("--sprt", field, -10000, 10000, &v[got++], NULL) != KB_NUM_OK)
			usage_error("--sprt \"%s\": %s (\"%s\" is not a number)", arg, expected, field);
	if (field || (got != 2 && got != 4) || v[1] <= v[0] || v[2] <= 0 || v[2] >= 0.5 ||
	    v[3] <= 0 || v[3] >= 0.5)
		usage_error("--sprt \"%s\": %s", arg, expected);
	s->elo0 = v[0], s->elo1 = v[1], s->alpha = v[2], s->beta = v[3];
	kj_sprt_init(s);
}

static int main_argc;
static char **main_argv;

/* Argument arg as one word of a POSIX shell command line. */
static void put_shell_word(FILE *f, const char *arg)
{
	static const char plain[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				    "0123456789-_./=,:+@%";

	if (arg[0] && !arg[strspn(arg, plain)]) {
		fputs(arg, f);
		return;
	}
	fputc('\'', f);
	for (; *arg; arg++)
		if (*arg == '\'')
			fputs("'\\''", f);
		else
			fputc(*arg, f);
	fputc('\'', f);
}

/* The tournament was stopped by a signal: say so, and how to resume. */
static _Noreturn void stopped(int status, const kb_err *err)
{
	fprintf(stderr, "kimble-judge: %s\nkimble-judge: to resume, run the same command again:\n ",
		err->msg);
	for (int i = 0; i < main_argc; i++) {
		fputc(' ', stderr);
		put_shell_word(stderr, main_argv[i]);
	}
	fputc('\n', stderr);
	exit(status);
}

/* --shard K/N with 1 <= K <= N. */
static void parse_shard(const char *arg, kj_run_opts *ro)
{
	char buf[64];
	char *slash;

	snprintf(buf, sizeof buf, "%s", arg);
	if (!(slash = strchr(buf, '/')))
		usage_error("--shard \"%s\": expected K/N with 1 <= K <= N", arg);
	*slash = 0;
	ro->shard_n = (int)number("--shard N", slash + 1, 1, 1000000);
	ro->shard_k = (int)number("--shard K", buf, 1, ro->shard_n);
}

/* Write counters for bots[0..n), one per bot for the whole run. */
static void share_counters(kj_bot *bots, int n)
{
	if (kj_proc_counters(bots, n))
		die(2, "cannot count the bots' writes: %s", strerror(errno));
}

static int tournament(cli *c, char **words, int n)
{
	static kj_bot bots[KJ_MAX_BOTS];
	kj_plan plan;
	kj_start *starts = NULL;
	kj_sprt sprt;
	kb_err err;
	kj_run_opts ro = {0};
	int nstarts = 0;

	n = load_bots(c, words, n, bots);
	/* Any warning about a bot's command now, once: the workers that play
	 * the games are forked from here and remember it was given. */
	for (int i = 0; i < n; i++)
		if (!bots[i].builtin)
			kj_bot_command(&bots[i], c->match.limits.sandbox, stderr);
	share_counters(bots, n);
	if (c->sprt) {
		if (n != 2)
			usage_error("--sprt: expected exactly two bots, got %d", n);
		c->format = KJ_FIXED;
		c->table = 2;
		if (c->games == 1)
			c->games = 10000;
		parse_sprt(c->sprt, &sprt);
	}
	if (!c->table)
		c->table = c->format == KJ_FIXED ? n : n < 4 ? n : 4;
	if (c->starts) {
		/* the starts are checked against the table's seats: a table
		 * the plan would refuse has none (5 bots of -f fixed) */
		unsigned present = kj_table_present(c->table);
		if (!present)
			usage_error("table size: expected 1 to 4 seats, got %d", c->table);
		if ((nstarts = kj_starts_read(c->starts, present, &starts, &err)) < 0)
			die(1, "%s", err.msg);
	}
	if (kj_plan_build(&plan, c->format, n, c->table, (uint32_t)c->games, c->seed, nstarts, &err))
		usage_error("%s", err.msg); /* options that do not fit together */
	ro = (kj_run_opts){.bots = bots, .nbots = n, .plan = &plan, .starts = starts,
			   .match = c->match, .out = c->out, .concurrency = c->concurrency,
			   .max_timeouts = c->max_timeouts, .progress = !c->quiet && isatty(2),
			   .round_lines = c->format == KJ_FIXED, .sprt = c->sprt ? &sprt : NULL,
			   .seed = c->seed, .html = c->html};
	if (c->shard)
		parse_shard(c->shard, &ro);
	printf("kimble-judge: seed %" PRIu64 ", %" PRIu32 " games (%" PRIu32 " deals of %d seats), out %s\n",
	       c->seed, plan.ngames, plan.ndeals, c->table, c->out);
	int rc = kj_run(&ro, &err);
	if (rc > 1)
		stopped(rc, &err);
	if (rc < 0)
		die(2, "%s", err.msg);
	kj_plan_free(&plan);
	free(starts);
	if (rc > 0) /* the report is written; a bot's command could not be run */
		die(2, "%s", err.msg);
	return 0;
}

/* The end of a -d game; exit status 2 when a bot could not be started. */
static int debug_summary(const kj_result *res)
{
	int rc = 0;

	for (int s = 0; s < KB_SEATS; s++) {
		const kj_seat_result *r = &res->seat[s];
		char text[400];
		if (!r->present)
			continue;
		printf("seat %c %s: place %d, %u decisions\n", 'A' + s, r->name, r->place,
		       r->decisions);
		if (!r->reason)
			continue;
		kj_forfeit_text(res, s, text, sizeof text);
		printf("  %s\n", text);
		if (r->reason == KJ_NOSTART) {
			fflush(stdout);
			fprintf(stderr, "kimble-judge: %s\n", text);
			rc = 2;
		}
	}
	if (res->winner >= 0)
		printf("winner %c %s after %u rolls\n", 'A' + res->winner,
		       res->seat[res->winner].name, res->rolls);
	else if (res->finished >= 0)
		printf("no winner credited after %u rolls: seat %c was finished by hard, the "
		       "replacement of %s, which forfeited\n",
		       res->rolls, 'A' + res->finished, res->seat[res->finished].name);
	else
		printf("no winner after %u rolls\n", res->rolls);
	return rc;
}

/* The transcript file of a -d game: -o FILE.tx, or DIR/debug.tx in
 * folder DIR (created); NULL without -o.  Ends the run (exit 2) when it
 * cannot be created, before the game starts. */
static FILE *debug_transcript(const cli *c, char *path, size_t size)
{
	size_t len = strlen(c->out);
	FILE *f;

	if (!c->out_given)
		return NULL;
	if (len > 3 && !strcmp(c->out + len - 3, ".tx")) {
		snprintf(path, size, "%s", c->out);
	} else {
		if (mkdir(c->out, 0755) && errno != EEXIST)
			die(2, "-d -o %s: cannot create the folder: %s", c->out, strerror(errno));
		snprintf(path, size, "%s/debug.tx", c->out);
	}
	if (!(f = fopen(path, "w")))
		die(2, "-d -o: cannot create %s: %s", path, strerror(errno));
	return f;
}

static int debug_game(cli *c, char **words, int n)
{
	static kj_bot bots[KB_SEATS];
	const kj_bot *seats[KB_SEATS] = {0};
	kj_result res;
	kb_err err;
	char tx_path[1024];
	int k;

	resolve(c, debug_bot, &bots[0]);
	if (n > 3)
		usage_error("-d: at most three opponents, got %d", n);
	for (k = 0; k < n; k++)
		resolve(c, words[k], &bots[k + 1]);
	if (n == 0)
		for (k = 0; k < 3; k++)
			resolve(c, "hard", &bots[++n]);
	for (k = 0; k <= n; k++)
		seats[kj_table_seat(n + 1, k)] = &bots[k];
	share_counters(bots, KB_SEATS);
	kj_proc_adopt();
	c->match.debug = stdout;
	FILE *tx = debug_transcript(c, tx_path, sizeof tx_path);
	if (kj_match_play(seats, kb_stream_seed(c->seed, KB_TAG_GAME, 0), &c->match, tx, &res,
			  &err)) {
		if (tx)
			fclose(tx), unlink(tx_path);
		die(2, "%s", err.msg);
	}
	if (tx && fclose(tx))
		die(2, "-d -o: cannot write %s: %s", tx_path, strerror(errno));
	int rc = debug_summary(&res);
	if (tx)
		printf("transcript %s (kimble-judge replay or svg draws it)\n", tx_path);
	return rc;
}

static void read_transcript(const char *path, kb_transcript *tx)
{
	FILE *f = fopen(path, "r");
	kb_err err;

	if (!f)
		die(1, "transcript %s: cannot open: %s", path, strerror(errno));
	if (kb_tx_read(f, tx, &err))
		die(1, "%s: %s", path, err.msg);
	fclose(f);
}

/* The bots of a rerun: built-ins from the transcript, the others by name
 * among the directories given or under --bots. */
static void rerun_bots(const cli *c, const kb_transcript *tx, char **dirs, int n,
		       kj_bot bots[KB_SEATS], const kj_bot *seats[KB_SEATS])
{
	static kj_bot given[16];
	kb_err err;

	if (n > 16)
		usage_error("replay --rerun: at most 16 bot directories");
	for (int i = 0; i < n; i++)
		if (kj_bot_load(dirs[i], &given[i], &err))
			die(1, "%s", err.msg);
	for (int s = 0; s < KB_SEATS; s++) {
		seats[s] = NULL;
		if (tx->ctl[s] == KB_ABSENT)
			continue;
		if (tx->ctl[s] != KB_EXTERNAL) {
			resolve(c, kb_policy_name(tx->ctl[s]), &bots[s]);
		} else {
			int found = 0;
			for (int i = 0; i < n && !found; i++)
				if (!strcmp(given[i].name, tx->name[s]))
					bots[s] = given[i], found = 1;
			if (!found && (!c->bots_dir || kj_bot_resolve(tx->name[s], c->bots_dir, &bots[s], &err)))
				die(1, "seat %c: bot %s not found; give its directory or --bots DIR",
				    'A' + s, tx->name[s]);
		}
		seats[s] = &bots[s];
	}
}

/* Refuse before anything starts when bots cannot be confined. */
static void check_sandbox(const cli *c)
{
	kb_err err;

	if (c->match.limits.sandbox && kj_sandbox_init(&err))
		die(2, "%s", err.msg);
}

static int replay(cli *c, char **args, int n)
{
	kb_transcript tx;
	kj_bot bots[KB_SEATS];
	const kj_bot *seats[KB_SEATS];
	kb_err err;
	int rc;

	if (n < 1)
		usage_error("replay: expected a TRANSCRIPT");
	read_transcript(args[0], &tx);
	if (!c->rerun) {
		if (n > 1)
			usage_error("replay: one transcript only; bot directories go with --rerun");
		if (kj_replay_print(stdout, &tx, (uint32_t)c->at, c->step, c->color))
			usage_error("replay --at %d: the game has %zu rolls", c->at, tx.nrolls);
		kb_tx_free(&tx);
		return 0;
	}
	check_sandbox(c);
	rerun_bots(c, &tx, args + 1, n - 1, bots, seats);
	share_counters(bots, KB_SEATS);
	kj_proc_adopt();
	rc = kj_rerun(stdout, &tx, seats, &c->match, &err);
	kb_tx_free(&tx);
	if (rc < 0)
		die(2, "replay --rerun: %s", err.msg);
	return rc ? 3 : 0;
}

static int svg(cli *c, char **args, int n)
{
	kb_transcript tx;
	kb_err err;
	const char *out = c->svg_out;

	if (n != 1)
		usage_error("svg: expected one TRANSCRIPT");
	if (out && !strcmp(out, "kimble-judge-out"))
		out = NULL;
	if (c->anim && !kj_svg_anim_path_ok(out))
		usage_error("svg --anim -o \"%s\": an animation is written as SVG only (a PNG "
			    "cannot move); expected a FILE ending in .svg", out);
	read_transcript(args[0], &tx);
	if (kj_svg_write(out, &tx, c->anim ? 0 : (uint32_t)(c->at ? c->at : (int)tx.nrolls + 1),
			 &err))
		die(2, "svg: %s", err.msg);
	kb_tx_free(&tx);
	return 0;
}

static int html(cli *c, char **args, int n)
{
	kb_transcript tx;
	const char *path = c->svg_out && strcmp(c->svg_out, "kimble-judge-out") ? c->svg_out : NULL;
	FILE *f = stdout;
	char title[300];

	if (n != 1)
		usage_error("html: expected one TRANSCRIPT");
	read_transcript(args[0], &tx);
	if (path && !(f = fopen(path, "w")))
		die(2, "html: cannot write %s: %s", path, strerror(errno));
	snprintf(title, sizeof title, "Kimble game %s",
		 strrchr(args[0], '/') ? strrchr(args[0], '/') + 1 : args[0]);
	int rc = kj_html_game(f, &tx, title);
	if (rc == KJ_HTML_UNDRAWABLE)
		die(1, "html: %s: a board of the game cannot be drawn (a piece of a seat that "
		       "does not play)", args[0]);
	if (rc || (path && fclose(f)))
		die(2, "html: cannot write %s", path ? path : "stdout");
	kb_tx_free(&tx);
	return 0;
}

static int merge(cli *c, char **args, int n)
{
	kb_err err;

	if (n < 2)
		usage_error("merge: expected OUT and at least one SHARD_OUT folder");
	if (kj_merge(args[0], (const char *const *)(args + 1), n - 1, c->match.timing, &err))
		die(2, "merge: %s", err.msg);
	return 0;
}

/* Interrupted in a debug game or a rerun: no bot may outlive the judge. */
static void stop(int sig)
{
	kj_proc_kill_all();
	_exit(128 + sig);
}

int main(int argc, char **argv)
{
	cli c;

	/* A bot that exits early must not kill the judge: writes to its pipe
	 * fail with EPIPE instead. */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, stop);
	signal(SIGTERM, stop);
	signal(SIGHUP, stop);
	main_argc = argc, main_argv = argv;
	const char *cmd = argc > 1 ? argv[1] : "";
	int sub = !strcmp(cmd, "replay") || !strcmp(cmd, "svg") || !strcmp(cmd, "merge") ||
		  !strcmp(cmd, "html");

	parse(&c, argc - sub, argv + sub);
	char **rest = argv + sub + optind;
	int n = argc - sub - optind;
	if (!strcmp(cmd, "replay"))
		return replay(&c, rest, n);
	if (!strcmp(cmd, "svg"))
		return svg(&c, rest, n);
	if (!strcmp(cmd, "merge"))
		return merge(&c, rest, n);
	if (!strcmp(cmd, "html"))
		return html(&c, rest, n);
	if (c.debug && c.not_debug) /* before anything else can fail */
		usage_error("--%s: not used with -d, which plays one game (-d takes -s, -o, "
			    "--bots, the times and the bot limits)", option_name(c.not_debug));
	check_sandbox(&c);
	if (c.debug)
		return debug_game(&c, rest, n);
	return tournament(&c, rest, n);
}
