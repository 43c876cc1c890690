/* num.c - numbers that users type, and the programs' front door; see num.h. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "num.h"

static const char *problem(int status)
{
	return status == KB_NUM_EMPTY ? "nothing given"
	       : status == KB_NUM_SYNTAX ? "malformed"
	       : "out of range";
}

/* Fill err for status; returns status. */
static int fail(kb_err *err, int status, const char *what, const char *text,
		const char *expected)
{
	return kb_err_set(err, status, "%s \"%.40s%s\": %s; expected %s", what, text ? text : "",
			  text && strlen(text) > 40 ? "..." : "", problem(status), expected);
}

/* An optional sign, then decimal digits and nothing else: *neg and the
 * magnitude *mag (KB_NUM_RANGE when it does not fit 64 bits). */
static int whole(const char *s, int *neg, uint64_t *mag)
{
	uint64_t v = 0;
	int status = KB_NUM_OK;

	if (!s || !*s)
		return KB_NUM_EMPTY;
	*neg = *s == '-';
	if (*s == '-' || *s == '+')
		s++;
	if (!*s)
		return KB_NUM_SYNTAX;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return KB_NUM_SYNTAX;
		unsigned d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			status = KB_NUM_RANGE; /* keep looking for junk: syntax first */
		else
			v = v * 10 + d;
	}
	*mag = v;
	return status;
}

int kb_num_u64(const char *what, const char *text, uint64_t *out, kb_err *err)
{
	static const char expected[] = "an unsigned 64-bit decimal number, 0 to 18446744073709551615";
	uint64_t mag = 0;
	int neg = 0, status = whole(text, &neg, &mag);

	if (status == KB_NUM_OK && neg)
		status = KB_NUM_RANGE;
	if (status)
		return fail(err, status, what, text, expected);
	*out = mag;
	return KB_NUM_OK;
}

int kb_num_range(const char *what, const char *text, long long lo, long long hi, long long *out,
		 kb_err *err)
{
	char expected[96];
	uint64_t mag = 0;
	int neg = 0, status = whole(text, &neg, &mag);
	long long v = 0;

	snprintf(expected, sizeof expected, "a whole number from %lld to %lld", lo, hi);
	if (status == KB_NUM_OK) {
		if (mag > (uint64_t)LLONG_MAX + neg)
			status = KB_NUM_RANGE;
		else
			v = neg ? (long long)(0 - mag) : (long long)mag;
	}
	if (status == KB_NUM_OK && (v < lo || v > hi))
		status = KB_NUM_RANGE;
	if (status)
		return fail(err, status, what, text, expected);
	*out = v;
	return KB_NUM_OK;
}

static size_t digits(const char *s)
{
	return strspn(s, "0123456789");
}

/* [+-] (D+ [. D*] | . D+) [(e|E) [+-] D+], the whole text. */
static int decimal_syntax(const char *s)
{
	size_t n;

	if (!s || !*s)
		return KB_NUM_EMPTY;
	if (*s == '+' || *s == '-')
		s++;
	n = digits(s);
	s += n;
	if (*s == '.') {
		size_t f = digits(s + 1);
		if (n + f == 0)
			return KB_NUM_SYNTAX;
		s += 1 + f;
	} else if (n == 0) {
		return KB_NUM_SYNTAX;
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!(n = digits(s)))
			return KB_NUM_SYNTAX;
		s += n;
	}
	return *s ? KB_NUM_SYNTAX : KB_NUM_OK;
}

/* The decimal text as a finite double in [lo, hi], or a status. */
static int real_value(const char *text, double lo, double hi, double *out)
{
	int status = decimal_syntax(text);
	double v;

	if (status)
		return status;
	v = strtod(text, NULL);
	if (!isfinite(v) || v < lo || v > hi)
		return KB_NUM_RANGE;
	*out = v;
	return KB_NUM_OK;
}

int kb_num_real(const char *what, const char *text, double lo, double hi, double *out,
		kb_err *err)
{
	char expected[96];
	int status = real_value(text, lo, hi, out);

	if (status) {
		snprintf(expected, sizeof expected, "a decimal number from %.15g to %.15g", lo, hi);
		return fail(err, status, what, text, expected);
	}
	return KB_NUM_OK;
}

int kb_num_seconds(const char *what, const char *text, int64_t lo_ms, int64_t hi_ms,
		   int64_t *out_ms, kb_err *err)
{
	char expected[96];
	double s = 0;
	int status = real_value(text, (double)lo_ms / 1000, (double)hi_ms / 1000, &s);

	if (status) {
		snprintf(expected, sizeof expected, "seconds from %.15g to %.15g (e.g. 120 or 0.5)",
			 (double)lo_ms / 1000, (double)hi_ms / 1000);
		return fail(err, status, what, text, expected);
	}
	int64_t ms = (int64_t)llround(s * 1000);
	/* the seconds are in range; the clamp only absorbs floating-point
	 * error at the ends (0.001 * 1000 may be 0.99999...) */
	*out_ms = ms < lo_ms ? lo_ms : ms > hi_ms ? hi_ms : ms;
	return KB_NUM_OK;
}

/* ---- the front door ------------------------------------------------------- */

const char *kb_arg_value(const char *prog, int argc, char **argv, int *i)
{
	const char *opt = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;

	if (!v)
		kb_die_usage(prog, "%s: expected a value after it", opt);
	if (v[0] == '-' && v[1] && !(v[1] >= '0' && v[1] <= '9') && v[1] != '.')
		kb_die_usage(prog, "%s: expected a value after it, found the option \"%s\"", opt, v);
	++*i;
	return v;
}

uint64_t kb_arg_u64(const char *prog, const char *what, const char *text)
{
	uint64_t v = 0;
	kb_err err;

	if (kb_num_u64(what, text, &v, &err))
		kb_die_usage(prog, "%s", err.msg);
	return v;
}

long long kb_arg_range(const char *prog, const char *what, const char *text, long long lo,
		       long long hi)
{
	long long v = 0;
	kb_err err;

	if (kb_num_range(what, text, lo, hi, &v, &err))
		kb_die_usage(prog, "%s", err.msg);
	return v;
}

double kb_arg_real(const char *prog, const char *what, const char *text, double lo, double hi)
{
	double v = 0;
	kb_err err;

	if (kb_num_real(what, text, lo, hi, &v, &err))
		kb_die_usage(prog, "%s", err.msg);
	return v;
}

int64_t kb_arg_seconds(const char *prog, const char *what, const char *text, int64_t lo_ms,
		       int64_t hi_ms)
{
	int64_t v = 0;
	kb_err err;

	if (kb_num_seconds(what, text, lo_ms, hi_ms, &v, &err))
		kb_die_usage(prog, "%s", err.msg);
	return v;
}

void kb_arg_unknown(const char *prog, const char *arg)
{
	kb_die_usage(prog, "unknown option \"%s\"", arg);
}
