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
