/* support_run.c - see support_run.h. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "support.h"
#include "support_run.h"

/* Everything the child writes to fd until it closes it (at most 256 KiB
 * kept), waiting up to 20 s for each piece. */
static const char *read_all(int fd)
{
	static char text[1 << 18];
	size_t n = 0;

	for (;;) {
		struct pollfd pf = {fd, POLLIN, 0};
		char buf[4096];
		if (poll(&pf, 1, 20000) <= 0)
			break;
		ssize_t k = read(fd, buf, sizeof buf);
		if (k <= 0)
			break;
		size_t take = (size_t)k < sizeof text - 1 - n ? (size_t)k : sizeof text - 1 - n;
		memcpy(text + n, buf, take);
		n += take;
	}
	text[n] = '\0';
	return text;
}

int test_run_prog(const char *prog, const char *const *args, const char **out_text,
		  const char **err_text)
{
	char bin[512], dir[256], errp[300];
	char *argv[16];
	int n = 0;
	test_proc p;

	test_tmpdir(dir, sizeof dir);
	argv[n++] = (char *)test_bin(prog, bin, sizeof bin);
	for (; *args && n < 15; args++)
		argv[n++] = (char *)*args;
	argv[n] = NULL;
	snprintf(errp, sizeof errp, "%s/err", dir);
	cr_assert_eq(test_spawn(&p, argv, dir, 0, out_text != NULL, errp), 0, "cannot start %s", argv[0]);
	if (out_text) {
		*out_text = read_all(p.out);
		close(p.out);
	}
	int st = test_wait(&p, 20000);
	*err_text = test_read_file(dir, "err");
	return st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int test_run_in(const char *prog, const char *dir, const char *name, const char *const args[],
		int timeout_ms)
{
	char bin[1024], out[1200], err[1200], *argv[64];
	int n = 0;
	test_proc p = {.in = -1, .out = -1};

	argv[n++] = (char *)test_bin(prog, bin, sizeof bin);
	while (n < 63 && args[n - 1])
		argv[n] = (char *)args[n - 1], n++;
	argv[n] = NULL;
	snprintf(out, sizeof out, "%s/%s.out", dir, name);
	snprintf(err, sizeof err, "%s/%s.err", dir, name);
	p.pid = fork();
	if (p.pid < 0)
		return -1;
	if (p.pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL); /* a failed test takes the program along */
		int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (o < 0 || e < 0 || chdir(dir) != 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	return test_wait(&p, timeout_ms);
}

/* Usage errors of the programs: program, option, value (NULL: the option
 * alone), and what the message says.  One table for every program, so
 * that each program's command-line test is a call of test_usage_errors. */
static const struct usage_error {
	const char *prog, *opt, *value, *says;
} usage_errors[] = {
	{"kimble-server", "--port", "0", "--port \"0\": out of range; expected a whole number from 1 to 65535"},
	{"kimble-server", "--port", "65536", "--port \"65536\": out of range; expected a whole number from 1 to 65535"},
	{"kimble-server", "--port-range", "65431-65430", "LAST is below FIRST"},
	{"kimble-server", "--seed", "x1", "--seed \"x1\": malformed; expected an unsigned 64-bit decimal"},
	{"kimble-server", "--token-ttl", "0", "--token-ttl \"0\": out of range; expected seconds from 0.001"},
	{"kimble-server", "--token-ttl", "1000000001", "out of range; expected seconds from 0.001 to 1000000000"},
	{"kimble-judge", "--max-procs", "1048577", "--max-procs \"1048577\": out of range; expected a whole number from 0 to 1048576"},
	{"kimble-judge", "--max-procs", "-1", "--max-procs \"-1\": out of range; expected a whole number from 0 to 1048576"},
	{"kimble-judge", "--max-file-mb", "1073741825", "--max-file-mb \"1073741825\": out of range; expected a whole number from 0 to 1073741824"},
	{"kimble-judge", "--shard", "0/2", "--shard K \"0\": out of range; expected a whole number from 1 to 2"},
	{"kimble-judge", "--shard", "3/2", "--shard K \"3\": out of range; expected a whole number from 1 to 2"},
	{"kimble-judge", "--shard", "1/1000001", "--shard N \"1000001\": out of range; expected a whole number from 1 to 1000000"},
	{"kimble-judge", "--shard", "2", "--shard \"2\": expected K/N with 1 <= K <= N"},
	{"kimble-judge", "--sandbox", "maybe", "--sandbox \"maybe\": expected on or off"},
	{"kimble-judge", "-g", "--table", "-g: expected a value after it, found the option \"--table\""},
	{"kimble-judge", "--games", "-x", "--games: expected a value after it, found the option \"-x\""},
	/* a minus and a digit is a (negative) number, not an option */
	{"kimble-judge", "--max-errors", "-9", "--max-errors \"-9\": out of range; expected a whole number from 0 to 1000"},
	{"kimble-judge", "--max-errors", "-1", "--max-errors \"-1\": out of range; expected a whole number from 0 to 1000"},
	{"kimble-relay", "--port", "0", "--port \"0\": out of range; expected a whole number from 1 to 65535"},
	{"kimble-relay", "--port", "65536", "--port \"65536\": out of range; expected a whole number from 1 to 65535"},
	{"kimble-relay", "--port", "", "--port \"\": nothing given; expected a whole number from 1 to 65535"},
	{"kimble-relay", "--retry-ms", "-1", "--retry-ms \"-1\": out of range; expected a whole number from 0 to 3600000"},
	{"kimble-relay", "--retry-ms", "3600001", "--retry-ms \"3600001\": out of range; expected a whole number from 0 to 3600000"},
	{"kimble-relay", "--port", "12x", "--port \"12x\": malformed; expected a whole number from 1 to 65535"},
	{"kimble-tune", "--td-lineup", "000", "--td-lineup \"000\": expected three digits 0-2 for seats B, C, D, not all 0"},
	{"kimble-tune", "--td-lineup", "300", "--td-lineup \"300\": expected three digits"},
	{"kimble-tune", "--td-lineup", "20", "--td-lineup \"20\": expected three digits"},
	{"kimble-tune", "--td-lineup", "2000", "--td-lineup \"2000\": expected three digits"},
	{"kimble-tune", "--depth", "101", "--depth \"101\": out of range"},
	{"kimble-tune", "--td-lambda", "1.5", "--td-lambda \"1.5\""},
	{"kimble-tune", "--games", "0", "--games \"0\""},
	{"kimble-tune", "--bogus", "1", "unknown option \"--bogus\""},
	{"kimble-tune", "-x", "1", "unknown option \"-x\""},
	{"kimble-tune", "extra", NULL, "unexpected argument \"extra\""},
};

void test_usage_errors(const char *prog, const char *const rest[])
{
	for (size_t i = 0; i < sizeof usage_errors / sizeof usage_errors[0]; i++) {
		const struct usage_error *u = &usage_errors[i];
		const char *args[9] = {u->opt}, *err;
		int k = 1;
		if (strcmp(u->prog, prog) != 0)
			continue;
		if (u->value)
			args[k++] = u->value;
		for (int r = 0; rest && rest[r] && r < 6; r++)
			args[k++] = rest[r];
		int st = test_run_prog(prog, args, NULL, &err);
		cr_assert_eq(st, 64, "%s %s %s: status %d: %s", prog, u->opt, u->value ? u->value : "",
			     st, err);
		cr_assert(strstr(err, u->says) != NULL, "want \"%s\", got: %s", u->says, err);
	}
}

void test_usage_says(const char *prog, const char *const args[], const char *says)
{
	const char *err;
	int st = test_run_prog(prog, args, NULL, &err);

	cr_assert_eq(st, 64, "%s %s: status %d: %s", prog, args[0] ? args[0] : "", st, err);
	cr_assert(strstr(err, says) != NULL, "want \"%s\", got: %s", says, err);
}
