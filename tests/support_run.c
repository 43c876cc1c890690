/* support_run.c - see support_run.h. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <sys/wait.h>

#include "support.h"
#include "support_run.h"

int test_run_prog(const char *prog, const char *const *args, const char **err_text)
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
	cr_assert_eq(test_spawn(&p, argv, dir, 0, 0, errp), 0, "cannot start %s", argv[0]);
	int st = test_wait(&p, 20000);
	*err_text = test_read_file(dir, "err");
	return st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}
