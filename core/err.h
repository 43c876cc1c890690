/* err.h - error messages for callers, fatal errors for programs.
 *
 * Library functions report failure by returning a status and filling a
 * caller's kb_err with a message that names the input and what was
 * expected.  Programs end on a fatal error with kb_die(), suckless style:
 * "PROGRAM: message" on stderr and an exit status.
 *
 * Status codes: a module whose functions have several outcomes names them
 * in an enum documented in its header, in a negative range of its own (as
 * LMDB keeps its codes apart from errno), so that a caller handed statuses
 * of two modules can never mistake one outcome for another:
 *   -100..-199  core/num.h     (enum kb_num_status)
 *   -200..-299  core/record.h (enum kb_rec_status)
 *   -300..-399  core/store.h  (enum kb_store_status)
 *   -400..-499  state/export.h (enum kb_export_status)
 *   -500..-599  judge/sandbox.h (enum kj_sandbox_status)
 *   -600..-699  judge/rating.h (enum kj_rating_status)
 *   -700..-799  judge/server/limits.h (enum srv_limit)
 *   -800..-899  judge/server/http.h (enum srv_http_error)
 *   -900..-999  core/net.h     (enum kb_net_status)
 * 0 is success everywhere.
 *
 * Exit statuses: every program exits KB_EXIT_USAGE (64, EX_USAGE of
 * sysexits.h) on a usage error (an unknown option, a missing or malformed
 * value, a missing argument); docs/exit-status.md lists each program's
 * statuses.
 */
#ifndef KB_ERR_H
#define KB_ERR_H

#define KB_EXIT_USAGE 64

/* An error message naming the input and what was expected. */
typedef struct kb_err {
	char msg[192];
} kb_err;

/* Format a message into err->msg (err may be NULL: nothing is written) and
 * return status, so a failing function can end with
 * "return kb_err_set(err, -1, ...)".  Cannot fail; long messages are cut. */
int kb_err_set(kb_err *err, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Print "prog: message\n" on stderr and exit with status.  Does not return. */
_Noreturn void kb_die(const char *prog, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A usage error: "prog: message (see prog --help)" on stderr, exit
 * KB_EXIT_USAGE.  Does not return. */
_Noreturn void kb_die_usage(const char *prog, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
