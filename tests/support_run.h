/* support_run.h - run one of the programs under test to its end (the
 * command-line tests of tests/test_rule_*.c). */
#ifndef KB_TEST_SUPPORT_RUN_H
#define KB_TEST_SUPPORT_RUN_H

#include <stddef.h>

/* Run program prog of this test run ($KB_BIN/prog) with args (a NULL-
 * terminated list, at most 14) in a fresh temporary folder, stdin
 * /dev/null; waits up to 20 s.  Returns its exit status (-1 when it did
 * not exit), points *out_text (when out_text is not NULL; else stdout is
 * /dev/null) at its stdout's text (valid until the next call) and
 * *err_text at its stderr's text (valid until the next test_read_file
 * call). */
int test_run_prog(const char *prog, const char *const *args, const char **out_text,
		  const char **err_text);

/* Run program prog of this test run ($KB_BIN/prog) with args (NULL-
 * terminated, at most 62) in folder dir with this process's environment,
 * stdout to dir/NAME.out and stderr to dir/NAME.err; waits up to
 * timeout_ms.  Returns its wait status, or -1 after killing it when it did
 * not exit in time.  The program dies with the test (PR_SET_PDEATHSIG). */
int test_run_in(const char *prog, const char *dir, const char *name, const char *const args[],
		int timeout_ms);

/* prog with each of its rows of the usage-error table (support_run.c),
 * option and value followed by rest (NULL-terminated, at most 6, or
 * NULL): a usage error (exit status 64) whose message says what the row
 * says. */
void test_usage_errors(const char *prog, const char *const rest[]);

/* prog with args (NULL-terminated) is a usage error whose message holds
 * says. */
void test_usage_says(const char *prog, const char *const args[], const char *says);

#endif
