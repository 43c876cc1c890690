/* test_num.c - the one number reader of every program (core/num.h): what
 * it accepts, what it refuses, and the message of a refusal. */
#include <criterion/criterion.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#include "core/num.h"

/* A text a reader refuses, and how. */
typedef struct refusal {
	const char *text;
	int status;
} refusal;

Test(num, unsigned_64)
{
	uint64_t v = 7;
	kb_err err;

	cr_assert_eq(kb_num_u64("SEED", "5", &v, &err), KB_NUM_OK);
	cr_assert_eq(v, 5);
	cr_assert_eq(kb_num_u64("SEED", "+5", &v, &err), KB_NUM_OK, "+5 is 5 everywhere");
	cr_assert_eq(v, 5);
	cr_assert_eq(kb_num_u64("SEED", "0", &v, &err), KB_NUM_OK);
	cr_assert_eq(v, 0);
	cr_assert_eq(kb_num_u64("SEED", "18446744073709551615", &v, &err), KB_NUM_OK);
	cr_assert_eq(v, UINT64_MAX);
	v = 7;
	cr_assert_eq(kb_num_u64("SEED", "18446744073709551616", &v, &err), KB_NUM_RANGE);
	cr_assert_eq(v, 7, "untouched on failure");
	cr_assert_eq(kb_num_u64("SEED", "-1", &v, &err), KB_NUM_RANGE);
	cr_assert_eq(kb_num_u64("SEED", "-0", &v, &err), KB_NUM_RANGE, "no '-' on unsigned");
	cr_assert_eq(kb_num_u64("SEED", "", &v, &err), KB_NUM_EMPTY);
	cr_assert_eq(kb_num_u64("SEED", NULL, &v, &err), KB_NUM_EMPTY);
	cr_assert_eq(kb_num_u64("SEED", " 5", &v, &err), KB_NUM_SYNTAX);
	cr_assert_eq(kb_num_u64("SEED", "5 ", &v, &err), KB_NUM_SYNTAX);
	cr_assert_eq(kb_num_u64("SEED", "5x", &v, &err), KB_NUM_SYNTAX);
	cr_assert_eq(kb_num_u64("SEED", "1e3", &v, &err), KB_NUM_SYNTAX);
	cr_assert_eq(kb_num_u64("SEED", "0x10", &v, &err), KB_NUM_SYNTAX);
	cr_assert_eq(kb_num_u64("SEED", "+", &v, &err), KB_NUM_SYNTAX);
	cr_assert_eq(kb_num_u64("SEED", "++5", &v, &err), KB_NUM_SYNTAX);
	cr_assert_eq(kb_num_u64("SEED", "99999999999999999999x", &v, &err), KB_NUM_SYNTAX,
		     "junk is reported before size");
	cr_assert_eq(v, 7);
}

Test(num, whole_in_a_range)
{
	long long v = 0;
	kb_err err;

	cr_assert_eq(kb_num_range("--port", "+5", 1, 65535, &v, &err), KB_NUM_OK);
	cr_assert_eq(v, 5);
	cr_assert_eq(kb_num_range("--port", "65535", 1, 65535, &v, &err), KB_NUM_OK);
	cr_assert_eq(kb_num_range("--port", "65536", 1, 65535, &v, &err), KB_NUM_RANGE);
	cr_assert_eq(kb_num_range("--port", "0", 1, 65535, &v, &err), KB_NUM_RANGE);
	cr_assert_eq(kb_num_range("--x", "-1", -5, 5, &v, &err), KB_NUM_OK);
	cr_assert_eq(v, -1);
	cr_assert_eq(kb_num_range("--x", "-1", 0, 5, &v, &err), KB_NUM_RANGE);
	cr_assert_eq(kb_num_range("--x", "-9223372036854775808", LLONG_MIN, LLONG_MAX, &v, &err),
		     KB_NUM_OK);
	cr_assert_eq(v, LLONG_MIN);
	cr_assert_eq(kb_num_range("--x", "9223372036854775808", LLONG_MIN, LLONG_MAX, &v, &err),
		     KB_NUM_RANGE);
	static const refusal refused[] = {
		{"99999999999999999999999", KB_NUM_RANGE}, {"1e3", KB_NUM_SYNTAX},
		{"5.0", KB_NUM_SYNTAX}, {"", KB_NUM_EMPTY}, {" 5", KB_NUM_SYNTAX},
		{"5x", KB_NUM_SYNTAX}};
	for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
		cr_assert_eq(kb_num_range("--x", refused[i].text, 0, 5000, &v, &err), refused[i].status,
			     "\"%s\"", refused[i].text);
}

Test(num, decimals_and_seconds)
{
	double v = 0;
	int64_t ms = 0;
	kb_err err;

	cr_assert_eq(kb_num_real("--rate", "0.5", 0, 1, &v, &err), KB_NUM_OK);
	cr_assert_float_eq(v, 0.5, 1e-12);
	cr_assert_eq(kb_num_real("--rate", ".5", 0, 1, &v, &err), KB_NUM_OK);
	cr_assert_eq(kb_num_real("--rate", "+5", 0, 10, &v, &err), KB_NUM_OK);
	cr_assert_eq(kb_num_real("--rate", "1e3", 0, 1e4, &v, &err), KB_NUM_OK);
	cr_assert_float_eq(v, 1000, 1e-9);
	cr_assert_eq(kb_num_real("--rate", "2.5E-1", 0, 1, &v, &err), KB_NUM_OK);
	cr_assert_eq(kb_num_real("--rate", "-1", 0, 1, &v, &err), KB_NUM_RANGE);
	cr_assert_eq(kb_num_real("--rate", "1e999", 0, INFINITY, &v, &err), KB_NUM_RANGE,
		     "not finite");
	static const refusal refused[] = {
		{"nan", KB_NUM_SYNTAX}, {"inf", KB_NUM_SYNTAX}, {"0x1p3", KB_NUM_SYNTAX},
		{"", KB_NUM_EMPTY}, {".", KB_NUM_SYNTAX}, {"1e", KB_NUM_SYNTAX},
		{" 0.5", KB_NUM_SYNTAX}, {"0.5s", KB_NUM_SYNTAX}, {"e5", KB_NUM_SYNTAX},
		{"-E3", KB_NUM_SYNTAX}}; /* an exponent needs digits before it */
	for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
		cr_assert_eq(kb_num_real("--rate", refused[i].text, 0, INFINITY, &v, &err),
			     refused[i].status, "\"%s\"", refused[i].text);
	cr_assert_eq(kb_num_seconds("--ttl", "0.5", 1, 60000, &ms, &err), KB_NUM_OK);
	cr_assert_eq(ms, 500);
	cr_assert_eq(kb_num_seconds("--ttl", "120", 1, 1000000, &ms, &err), KB_NUM_OK);
	cr_assert_eq(ms, 120000);
	cr_assert_eq(kb_num_seconds("--ttl", "0.0015", 1, 60000, &ms, &err), KB_NUM_OK);
	cr_assert_eq(ms, 2, "rounded to the nearest millisecond");
	cr_assert_eq(kb_num_seconds("--ttl", "0", 1, 60000, &ms, &err), KB_NUM_RANGE);
	cr_assert_eq(kb_num_seconds("--ttl", "61", 1, 60000, &ms, &err), KB_NUM_RANGE);
}

/* A refusal names the option, the text and what was expected. */
Test(num, messages)
{
	long long v;
	uint64_t u;
	kb_err err;

	kb_num_range("--port", "70000", 1, 65535, &v, &err);
	cr_assert_str_eq(err.msg, "--port \"70000\": out of range; expected a whole number "
				  "from 1 to 65535");
	kb_num_u64("SEED", "5x", &u, &err);
	cr_assert(strstr(err.msg, "SEED \"5x\": malformed; expected an unsigned 64-bit"), "%s",
		  err.msg);
	kb_num_u64("SEED", "", &u, &err);
	cr_assert(strstr(err.msg, "SEED \"\": nothing given; expected"), "%s", err.msg);
	cr_assert_eq(kb_num_u64("SEED", "x", &u, NULL), KB_NUM_SYNTAX, "err may be NULL");
}
