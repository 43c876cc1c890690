/* testbot.c - a tiny bot for the judge's tests and bench: plays hard (the
 * foremost movable piece), or misbehaves in one chosen way.
 *
 * usage: testbot MODE OPPONENTS SEED
 * MODE: hard     plays the hard policy correctly
 *       crash    answers its first decision by aborting (SIGABRT)
 *       hang     never answers its first decision
 *       garbage  answers its first decision with a line of text
 *       illegal  always answers with an illegal index (when one exists)
 *       token    always answers with a wrong token
 *       mistakes answers the first decision where one piece cannot move
 *                with that piece's index, the next with a wrong token, then
 *                plays hard (for a server, which asks again after either)
 *       noread   sends its start message and never reads stdin again
 *       flood    sends its start message, then newlines without end
 *       exit     exits (status 0) at its first decision
 *       fork     plays hard, leaving a child that sleeps holding stdout
 *       slow     plays hard, but waits 400 ms before every answer
 *       crlf     garbage, ending each line it sends with CR LF
 *       lineup   plays hard but announces a wrong lineup (v001000)
 *       easy     plays the easy policy (the rearmost movable piece)
 *       farewell plays hard; when its stdin closes after the game it
 *                prints 1 MiB (more than a pipe holds), then creates
 *                farewell.done in its folder and exits
 *       silent   never says anything, not even v001XYZ
 *       silentodd  as silent when its SEED is odd, else moves its first
 *                movable piece
 *       log      plays hard, writing every line it reads to input.log in
 *                its folder
 *       environ  plays hard, having written its environment to
 *                environ.log in its folder, one variable a line
 *       stuff    shrinks its stdin pipe to one page, answers its first
 *                decision with as many wrong tokens as leave the judge's
 *                answers to them (32 bytes each) just under KJ_OUTBUF
 *                bytes unread, then rightly, and never reads again: the
 *                next decision's lines overflow the judge's buffer
 *       stuffquit  as stuff, but closes its stdout instead of answering
 *                rightly and waits, still not reading: the judge finds
 *                the end of its output with its buffer more than half full
 *       try-RULE=ARG  first tries something the KoTH rules forbid, reports
 *                on stderr "testbot MODE: held: ERROR" or "MODE: NOT held",
 *                then plays hard; when not held it exits (status 3) at its
 *                first decision, a forfeit.  RULE is read=PATH, list=PATH
 *                (a folder), write=PATH (create), connect=PORT (TCP to
 *                127.0.0.1), signal (kill(getppid(), 0)), fork=N (N
 *                sleeping children), fill=MB (a file in its folder) or
 *                fallocate=MB (disk space for a file, nothing written).
 *       spill=KB plays hard, writing a new file of KB KiB in its folder
 *                (spill.PID.N, each under any per-file limit) before every
 *                answer, without end across its games: a total that only
 *                a budget of bytes written can stop.
 *       spillkid=KB  the same, written by a child in a session of its own
 *                (out of the bot's process group): 64 files of KB KiB in
 *                each game, then it sleeps (a minute) until it is killed;
 *                the bot plays once the files are written.
 *       capturer, greedy, cautious, pacifist, mixed, switcher, targeter,
 *       middle   plays that made-up player of the learning bench
 *                (tests/bench/madeup.h; the rival of switcher and
 *                targeter is the first other seat, mixed draws from SEED)
 * Every mode's first line is v001XYZ from OPPONENTS (except lineup).
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/board.h"
#include "core/rules.h"
#include "core/wire.h"
#include "judge/proc.h"
#include "tests/bench/madeup.h"

static void pause_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) != 0)
		;
}

/* Lineup digits and the present mask from OPPONENTS. */
static unsigned lineup(const char *opps, char digits[4])
{
	unsigned present = 1;
	char buf[256];
	char *p = buf;

	snprintf(buf, sizeof buf, "%s", opps);
	for (int k = 0; k < 3; k++) {
		char *comma = p ? strchr(p, ',') : NULL;
		if (comma)
			*comma = '\0';
		int absent = !p || !*p || !strcmp(p, "none") || !strcmp(p, "-");
		digits[k] = absent ? '0' : !strcmp(p, "easy") ? '1' : '2';
		if (!absent)
			present |= 1u << (k + 1);
		p = comma ? comma + 1 : NULL;
	}
	digits[3] = '\0';
	return present;
}

static void say(const char *text)
{
	fputs(text, stdout);
	fflush(stdout);
}

/* try-RULE: each returns 0 when the attempt succeeded, else -1 with errno. */
static int try_list(const char *path)
{
	DIR *d = opendir(path);

	if (!d)
		return -1;
	errno = readdir(d) ? 0 : errno ? errno : EACCES;
	closedir(d);
	return errno ? -1 : 0;
}

static int try_connect(const char *port)
{
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port))};
	int fd = socket(AF_INET, SOCK_STREAM, 0), rc;

	if (fd < 0)
		return -1;
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	rc = connect(fd, (struct sockaddr *)&to, sizeof to);
	close(fd);
	return rc;
}

/* Up to n children that sleep; all are killed again before returning. */
static int try_fork(const char *n)
{
	static pid_t kids[4096];
	int want = atoi(n), got = 0, rc = 0;

	while (got < want && got < 4096 && rc == 0) {
		pid_t pid = fork();
		if (pid == 0) {
			pause();
			_exit(0);
		}
		if (pid < 0)
			rc = -1;
		else
			kids[got++] = pid;
	}
	int keep = errno;
	for (int i = 0; i < got; i++)
		kill(kids[i], SIGKILL), waitpid(kids[i], NULL, 0);
	errno = keep;
	return rc;
}

/* Write mb MiB into fill.bin in the bot's folder (removed again). */
static int try_fill(const char *mb)
{
	static char chunk[1 << 20];
	int fd = open("fill.bin", O_WRONLY | O_CREAT | O_TRUNC, 0644), rc = 0;

	signal(SIGXFSZ, SIG_IGN); /* see EFBIG instead of dying */
	if (fd < 0)
		return -1;
	for (int i = 0; i < atoi(mb) && rc == 0; i++)
		if (write(fd, chunk, sizeof chunk) != (ssize_t)sizeof chunk)
			rc = -1;
	int keep = errno;
	close(fd);
	unlink("fill.bin");
	errno = keep;
	return rc;
}

/* One more file spill.PID.N of kb KiB in the bot's folder (a new name in
 * every game, also in games played at once). */
static void spill(int kb)
{
	static char chunk[1024];
	static int next;
	char name[48];
	int fd;

	snprintf(name, sizeof name, "spill.%ld.%d", (long)getpid(), next++);
	memset(chunk, 'x', sizeof chunk);
	if ((fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0)
		return;
	for (int i = 0; i < kb; i++)
		if (write(fd, chunk, sizeof chunk) != (ssize_t)sizeof chunk)
			break;
	close(fd);
}

/* spillkid: a child out of the bot's process group writes, and lives on;
 * the bot waits until the files are written (the end of a pipe). */
static void spill_child(int kb)
{
	int done[2];
	char c;

	if (pipe(done) != 0)
		return;
	if (fork() == 0) {
		close(done[0]);
		setsid();
		for (int i = 0; i < 64; i++)
			spill(kb);
		close(done[1]);
		pause_ms(60000); /* alive, out of the bot's group, when the game ends */
		_exit(0);
	}
	close(done[1]);
	while (read(done[0], &c, 1) > 0)
		;
	close(done[0]);
}

/* Take mb MiB of disk for falloc.bin in the bot's folder (removed again). */
static int try_fallocate(const char *mb)
{
	int fd = open("falloc.bin", O_WRONLY | O_CREAT | O_TRUNC, 0644), rc;

	if (fd < 0)
		return -1;
	rc = fallocate(fd, 0, 0, (off_t)atoi(mb) << 20);
	int keep = errno;
	close(fd);
	unlink("falloc.bin");
	errno = keep;
	return rc;
}

static int try_rule(const char *rule, const char *arg)
{
	int fd;

	if (!strcmp(rule, "read") || !strcmp(rule, "write")) {
		fd = rule[0] == 'r' ? open(arg, O_RDONLY) : open(arg, O_WRONLY | O_CREAT, 0644);
		return fd < 0 ? -1 : close(fd);
	}
	if (!strcmp(rule, "list"))
		return try_list(arg);
	if (!strcmp(rule, "connect"))
		return try_connect(arg);
	if (!strcmp(rule, "signal"))
		return kill(getppid(), 0);
	if (!strcmp(rule, "fork"))
		return try_fork(arg);
	if (!strcmp(rule, "fill"))
		return try_fill(arg);
	if (!strcmp(rule, "fallocate"))
		return try_fallocate(arg);
	fprintf(stderr, "testbot: unknown rule %s\n", rule);
	exit(1);
}

static int rule_broken;

/* Mode try-RULE=ARG: attempt it and say whether the judge held it. */
static void attempt(const char *mode)
{
	char rule[64];
	const char *eq = strchr(mode, '=');

	snprintf(rule, sizeof rule, "%.*s", (int)(eq ? eq - mode - 4 : (long)strlen(mode) - 4),
		 mode + 4);
	if (try_rule(rule, eq ? eq + 1 : "") == 0) {
		rule_broken = 1;
		fprintf(stderr, "testbot %s: NOT held\n", mode);
	} else {
		fprintf(stderr, "testbot %s: held: %s\n", mode, strerror(errno));
	}
}

static void first_decision(const char *mode)
{
	if (rule_broken)
		exit(3);
	if (!strcmp(mode, "crash"))
		abort();
	if (!strcmp(mode, "hang"))
		for (;;)
			pause();
	if (!strcmp(mode, "garbage"))
		say("hello judge, this is not a move\n");
	if (!strcmp(mode, "crlf"))
		say("hello judge, this is not a move\r\n");
	if (!strcmp(mode, "exit"))
		exit(0);
}

/* Mode stuff: wrong tokens (each answered with KB_VIRHE_TOKEN and END,
 * 32 bytes, which this bot does not read), as many as leave 1 to 32 bytes
 * of the judge's buffer free once its stdin pipe is full, then the right
 * answer (quit: closes its stdout instead); then it waits without
 * reading. */
static void stuff_then_answer(const char *token, int index, int quit)
{
	int fill = (KJ_OUTBUF + fcntl(0, F_GETPIPE_SZ)) / 32 - 1;

	for (int i = 0; i < fill; i++)
		printf("t0000000000000000000000000000000000000000000000000000000000000000%d\n", index);
	if (quit)
		fclose(stdout);
	else
		printf("%s%d\n", token, index), fflush(stdout);
	for (;;)
		pause();
}

extern char **environ;

/* Our environment to file path, one variable a line: -1 if it cannot. */
static int write_environ(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	for (char **v = environ; *v; v++)
		fprintf(f, "%s\n", *v);
	return fclose(f) ? -1 : 0;
}

/* The made-up player named mode, or -1. */
static int madeup_mode(const char *mode)
{
	for (int p = 0; p < POL_EASY; p++)
		if (!strcmp(mode, policy_name[p]))
			return p;
	return -1;
}

/* The index to send for decision pos+die with legal mask. */
static int choose(const char *mode, const kb_pos *pos, int die, unsigned mask, kb_rng *rng)
{
	int madeup = madeup_mode(mode);

	if (madeup >= 0)
		return play_policy((enum policy)madeup, pos, 0, die, mask, rng);
	if (!strcmp(mode, "illegal"))
		for (int i = 3; i >= 0; i--)
			if (!(mask >> i & 1))
				return i;
	if (!strcmp(mode, "easy"))
		return 31 - __builtin_clz(mask);
	return __builtin_ctz(mask);
}

int main(int argc, char **argv)
{
	char line[256], token[KB_TOKEN_LEN + 2] = "", state[64] = "", digits[4];
	int decisions = 0, over = 0, mistakes = 0; /* mode mistakes: how many made */
	unsigned present;

	if (argc != 4) {
		fprintf(stderr, "usage: testbot MODE OPPONENTS SEED\n");
		return 1;
	}
	const char *mode = argv[1];
	present = lineup(argv[2], digits);
	kb_rng rng;
	unsigned long long seed = strtoull(argv[3], NULL, 10);
	kb_rng_seed(&rng, seed);
	madeup_rival = present & 2 ? 1 : present & 4 ? 2 : 3;
	if (!strcmp(mode, "silent") || (!strcmp(mode, "silentodd") && seed % 2))
		for (;;)
			pause();
	FILE *log = strcmp(mode, "log") ? NULL : fopen("input.log", "w");
	if (!strcmp(mode, "environ") && write_environ("environ.log"))
		return 1;
	if (!strncmp(mode, "stuff", 5) && fcntl(0, F_SETPIPE_SZ, 4096) != 4096)
		return 1;
	const char *eol = strcmp(mode, "crlf") ? "\n" : "\r\n";
	printf("v001%s%s", strcmp(mode, "lineup") ? digits : "000", eol);
	fflush(stdout);
	if (!strcmp(mode, "noread"))
		for (;;)
			pause();
	if (!strcmp(mode, "flood"))
		for (;;)
			if (fputs("\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n", stdout) == EOF)
				return 1;
	if (!strcmp(mode, "fork") && fork() == 0) {
		pause_ms(30000);
		_exit(0);
	}
	if (!strncmp(mode, "try-", 4))
		attempt(mode);
	if (!strncmp(mode, "spillkid=", 9))
		spill_child(atoi(mode + 9));
	fprintf(stderr, "testbot %s: playing %s\n", mode, argv[2]);
	while (fgets(line, sizeof line, stdin)) {
		if (log)
			fputs(line, log), fflush(log);
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] == 't' && strlen(line) == KB_TOKEN_LEN)
			snprintf(token, sizeof token, "%s", line);
		else if (strlen(line) == KB_ROLL_LINE_LEN)
			snprintf(state, sizeof state, "%s", line);
		else if (!strncmp(line, "Voittaja", 8))
			over = 1;
		if (strcmp(line, "END") || over)
			continue;
		kb_pos pos;
		if (state[KB_BOARD_LEN] != 'A' ||
		    kb_board_parse(state, KB_BOARD_LEN, present, &pos, NULL))
			continue;
		int die = state[KB_BOARD_LEN + 1] - '0';
		unsigned mask = kb_legal(&pos, 0, die);
		if (decisions++ == 0)
			first_decision(mode);
		if (!strcmp(mode, "slow"))
			pause_ms(400);
		if (!strncmp(mode, "spill=", 6))
			spill(atoi(mode + 6));
		if (!mask)
			continue;
		if (!strncmp(mode, "stuff", 5))
			stuff_then_answer(token, __builtin_ctz(mask), !strcmp(mode, "stuffquit"));
		/* mistakes: 0 none made yet, 1 an illegal index sent, 2 both */
		int by_mistake = !strcmp(mode, "mistakes");
		int illegal_now = by_mistake && mistakes == 0 && mask != 0xf;
		int wrong_token = !strcmp(mode, "token") || (by_mistake && mistakes == 1);
		const char *as = by_mistake ? illegal_now ? "illegal" : "hard" : mode;
		mistakes += by_mistake && (illegal_now || wrong_token);
		printf("%s%d%s", wrong_token ? "t0000000000000000000000000000000000000000000000000000000000000000" : token,
		       choose(as, &pos, die, mask, &rng), eol);
		fflush(stdout);
	}
	if (!strcmp(mode, "farewell")) {
		static char chunk[1 << 16];
		memset(chunk, '\n', sizeof chunk);
		for (int i = 0; i < 16; i++)
			if (fwrite(chunk, 1, sizeof chunk, stdout) != sizeof chunk)
				return 1;
		fflush(stdout);
		FILE *done = fopen("farewell.done", "w");
		if (!done)
			return 1;
		fclose(done);
	}
	return 0;
}
