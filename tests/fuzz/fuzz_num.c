/* fuzz_num.c - the number reader every program's options use (core/num.h):
 * any bytes give one of its statuses without crashing; a number it accepts
 * has the documented syntax, lies in the range and prints back to the same
 * digits; a refusal says what was expected. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/num.h"
#include "fuzz.h"

static void check_status(int status, const kb_err *err)
{
	if (status != KB_NUM_OK && status != KB_NUM_EMPTY && status != KB_NUM_SYNTAX &&
	    status != KB_NUM_RANGE)
		abort();
	if (status != KB_NUM_OK && (!strstr(err->msg, "--opt") || !strstr(err->msg, "expected")))
		abort();
}

/* text without its '+' and leading zeros, as printf would write it. */
static const char *canonical(const char *text, char *buf, size_t size)
{
	const char *s = text + (text[0] == '+' || text[0] == '-');

	while (s[0] == '0' && s[1])
		s++;
	snprintf(buf, size, "%s%s", text[0] == '-' && strcmp(s, "0") ? "-" : "", s);
	return buf;
}

static void check_whole(const char *text)
{
	char a[64], b[64];
	uint64_t u = 0;
	long long v = 0;
	kb_err err;
	int status = kb_num_u64("--opt", text, &u, &err);

	check_status(status, &err);
	if (status == KB_NUM_OK) {
		snprintf(a, sizeof a, "%llu", (unsigned long long)u);
		if (strcmp(a, canonical(text, b, sizeof b)))
			abort();
	}
	size_t n = strlen(text), d = strspn(text + (text[0] == '+'), "0123456789");
	if (n && n <= 20 && d + (text[0] == '+') == n && d > 0 && d < 20 && status != KB_NUM_OK)
		abort(); /* up to 19 digits always fit */
	status = kb_num_range("--opt", text, -1000, 1000, &v, &err);
	check_status(status, &err);
	if (status == KB_NUM_OK) {
		snprintf(a, sizeof a, "%lld", v);
		if (v < -1000 || v > 1000 || strcmp(a, canonical(text, b, sizeof b)))
			abort();
	}
}

static void check_decimal(const char *text)
{
	double v = 0;
	int64_t ms = 0;
	kb_err err;
	int status = kb_num_real("--opt", text, -1e6, 1e6, &v, &err);

	check_status(status, &err);
	if (status == KB_NUM_OK &&
	    (!isfinite(v) || v < -1e6 || v > 1e6 || v != strtod(text, NULL) ||
	     strpbrk(text, "xXnN") || strspn(text, "+-.0123456789eE") != strlen(text)))
		abort();
	status = kb_num_seconds("--opt", text, 1, 3600000, &ms, &err);
	check_status(status, &err);
	if (status == KB_NUM_OK && (ms < 1 || ms > 3600000))
		abort();
}

int kb_fuzz_num(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);

	memcpy(text, data, size);
	text[size] = 0;
	check_whole(text);
	check_decimal(text);
	free(text);
	return 0;
}
