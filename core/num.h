/* num.h - the one reader of numbers that users type (options, arguments,
 * environment variables), shared by every program so that they all accept
 * and refuse the same texts, and the programs' front door for usage errors.
 *
 * Syntax, the same for every kind of number:
 *   - decimal digits only: no leading or trailing space, no "0x", no
 *     digit group separators, nothing after the number ("5x", "5 ");
 *   - one optional sign: '+' is accepted everywhere ("+5" is 5, as strtol
 *     and the shells' arithmetic read it); '-' only where the range has
 *     negative values, so unsigned numbers never take a '-' (not even "-0");
 *   - whole numbers have no fraction or exponent ("1e3" and "5.0" are not
 *     whole numbers); decimals (kb_num_real, kb_num_seconds) may have a
 *     fraction and an exponent ("0.5", ".5", "1e3", "2.5E-1") but never
 *     "inf", "nan" or hexadecimal, and must be finite.
 * Every value is range-checked; nothing wraps or saturates.
 *
 * Status: KB_NUM_OK (0) with *out set, else one of enum kb_num_status in
 * this module's own range -100..-199 (core/err.h), *out untouched, and err
 * (may be NULL) saying `WHAT "TEXT": PROBLEM; expected EXPECTATION`, e.g.
 * `--port "70000": out of range; expected a whole number from 1 to 65535`.
 */
#ifndef KB_NUM_H
#define KB_NUM_H

#include <stdint.h>

#include "err.h"

enum kb_num_status {
	KB_NUM_OK = 0,
	KB_NUM_EMPTY = -101,  /* the text is empty (or NULL) */
	KB_NUM_SYNTAX = -102, /* not a number of the syntax above */
	KB_NUM_RANGE = -103   /* a number, but outside the range (also a value
			       * too large for 64 bits, or a decimal that is
			       * not finite) */
};

/* An unsigned 64-bit number, 0..UINT64_MAX (seeds). */
int kb_num_u64(const char *what, const char *text, uint64_t *out, kb_err *err);

/* A whole number from lo to hi. */
int kb_num_range(const char *what, const char *text, long long lo, long long hi, long long *out,
		 kb_err *err);

/* A decimal number from lo to hi. */
int kb_num_real(const char *what, const char *text, double lo, double hi, double *out,
		kb_err *err);

/* A duration given in seconds (a decimal), returned in whole milliseconds
 * (rounded to the nearest); the seconds must be from lo_ms/1000 to
 * hi_ms/1000. */
int kb_num_seconds(const char *what, const char *text, int64_t lo_ms, int64_t hi_ms,
		   int64_t *out_ms, kb_err *err);

/* ---- the programs' front door: each fails with kb_die_usage ------------- */

/* The value of option argv[*i] (argv[*i + 1]; *i is advanced).  Fatal when
 * there is none or when it looks like another option ("--port --seed 5":
 * a value was forgotten); negative numbers ("-1") are values. */
const char *kb_arg_value(const char *prog, int argc, char **argv, int *i);

/* The kb_num_* readers above, fatal on any status but KB_NUM_OK. */
uint64_t kb_arg_u64(const char *prog, const char *what, const char *text);
long long kb_arg_range(const char *prog, const char *what, const char *text, long long lo,
		       long long hi);
double kb_arg_real(const char *prog, const char *what, const char *text, double lo, double hi);
int64_t kb_arg_seconds(const char *prog, const char *what, const char *text, int64_t lo_ms,
		       int64_t hi_ms);

/* `unknown option "ARG"`, fatal. */
_Noreturn void kb_arg_unknown(const char *prog, const char *arg);

#endif
