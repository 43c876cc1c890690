/* err.h - error messages for callers, fatal errors for programs.
 *
 * Library functions report failure by returning a status and filling a
 * caller's kb_err with a message that names the input and what was
 * expected.  Programs end on a fatal error with kb_die(), suckless style:
 * "PROGRAM: message" on stderr and an exit status.
 */
#ifndef KB_ERR_H
#define KB_ERR_H

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

#endif
