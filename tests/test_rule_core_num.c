/* test_rule_core_num.c - the number reader and the programs' front door of
 * core/num.h pinned whole (round 5 of make mutate, docs/mutation.md): each
 * kind of number's whole error text, the text cut at 40 characters, and
 * each kb_arg_* call that dies with its whole message and exit status 64.
 * Expectations are written out by hand from num.h. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/num.h"

enum kind { U64, RANGE, REAL, SECONDS };

typedef struct num_case {
	enum kind kind;
	const char *text;
	long long lo, hi; /* RANGE, REAL (lo, hi), SECONDS (ms) */
	int status;
	const char *msg;
} num_case;

#define U64_EXPECTED "expected an unsigned 64-bit decimal number, 0 to 18446744073709551615"
#define FORTY "0123456789012345678901234567890123456789"

static const num_case num_cases[] = {
	{U64, NULL, 0, 0, KB_NUM_EMPTY, "N \"\": nothing given; " U64_EXPECTED},
	{U64, "", 0, 0, KB_NUM_EMPTY, "N \"\": nothing given; " U64_EXPECTED},
	{U64, "-0", 0, 0, KB_NUM_RANGE, "N \"-0\": out of range; " U64_EXPECTED},
	{U64, "+", 0, 0, KB_NUM_SYNTAX, "N \"+\": malformed; " U64_EXPECTED},
	{U64, "18446744073709551616", 0, 0, KB_NUM_RANGE,
	 "N \"18446744073709551616\": out of range; " U64_EXPECTED},
	/* 40 characters shown whole, 41 cut to 40 and "..." */
	{U64, FORTY, 0, 0, KB_NUM_RANGE,
	 "N \"" FORTY "\": out of range; " U64_EXPECTED},
	{U64, "x" FORTY, 0, 0, KB_NUM_SYNTAX, "N \"x012345678901234567890123456789012345678...\": "
					      "malformed; " U64_EXPECTED},
	{RANGE, "7", -3, 6, KB_NUM_RANGE,
	 "N \"7\": out of range; expected a whole number from -3 to 6"},
	{RANGE, "-4", -3, 6, KB_NUM_RANGE,
	 "N \"-4\": out of range; expected a whole number from -3 to 6"},
	{RANGE, "9223372036854775808", LLONG_MIN, LLONG_MAX, KB_NUM_RANGE,
	 "N \"9223372036854775808\": out of range; expected a whole number from "
	 "-9223372036854775808 to 9223372036854775807"},
	{RANGE, "5.0", 0, 9, KB_NUM_SYNTAX, "N \"5.0\": malformed; expected a whole number from 0 to 9"},
	{REAL, "0.25", 1, 3, KB_NUM_RANGE,
	 "N \"0.25\": out of range; expected a decimal number from 1 to 3"},
	{REAL, "1e400", 0, 1, KB_NUM_RANGE,
	 "N \"1e400\": out of range; expected a decimal number from 0 to 1"},
	{REAL, "e5", 0, 1, KB_NUM_SYNTAX, "N \"e5\": malformed; expected a decimal number from 0 to 1"},
	{REAL, "", 0, 1, KB_NUM_EMPTY, "N \"\": nothing given; expected a decimal number from 0 to 1"},
	{SECONDS, "0.0004", 1, 60000, KB_NUM_RANGE,
	 "N \"0.0004\": out of range; expected seconds from 0.001 to 60 (e.g. 120 or 0.5)"},
	{SECONDS, "1.5.", 1500, 2500, KB_NUM_SYNTAX,
	 "N \"1.5.\": malformed; expected seconds from 1.5 to 2.5 (e.g. 120 or 0.5)"},
};

/* Each refusal's whole text, with the status it returns, and err left
 * alone by nothing: the message is the one of this call. */
Test(core_rules, num_refusals_whole)
{
	for (size_t i = 0; i < sizeof num_cases / sizeof *num_cases; i++) {
		const num_case *c = &num_cases[i];
		kb_err err;
		uint64_t u;
		long long v;
		double d;
		int64_t ms;
		int status;

		memset(err.msg, 'Z', sizeof err.msg - 1);
		err.msg[sizeof err.msg - 1] = '\0';
		switch (c->kind) {
		case U64: status = kb_num_u64("N", c->text, &u, &err); break;
		case RANGE: status = kb_num_range("N", c->text, c->lo, c->hi, &v, &err); break;
		case REAL: status = kb_num_real("N", c->text, (double)c->lo, (double)c->hi, &d, &err); break;
		default: status = kb_num_seconds("N", c->text, c->lo, c->hi, &ms, &err); break;
		}
		cr_assert_eq(status, c->status, "case %zu (%s): %d", i, c->text, status);
		cr_assert_str_eq(err.msg, c->msg, "case %zu", i);
	}
}

/* What a front-door call left on stderr and its exit status, run in a
 * child: case k of front_door below. */
typedef struct died {
	int status;
	char text[512];
} died;

static char *argv_of[][4] = {
	{"p", "--port", NULL, NULL},
	{"p", "--port", "--seed", "5"},
	{"p", "--port", "-x", NULL},
	{"p", "--port", "5", NULL}, /* given argc 2: the 5 lies past it */
};

static void front_door(int k)
{
	int i = 1;

	switch (k) {
	case 0: kb_arg_value("kimble-x", 2, argv_of[0], &i); break;
	case 1: kb_arg_value("kimble-x", 4, argv_of[1], &i); break;
	case 2: kb_arg_value("kimble-x", 3, argv_of[2], &i); break;
	case 3: kb_arg_value("kimble-x", 2, argv_of[3], &i); break;
	case 4: kb_arg_u64("kimble-x", "--seed", "-1"); break;
	case 5: kb_arg_range("kimble-x", "--games", "0", 1, 9); break;
	case 6: kb_arg_real("kimble-x", "--c", "2", 0, 1); break;
	case 7: kb_arg_seconds("kimble-x", "--ttl", "x", 1000, 2000); break;
	default: kb_arg_unknown("kimble-x", "--colour");
	}
}

static void run_front_door(int k, died *d)
{
	int fd[2];
	ssize_t got;
	size_t len = 0;

	cr_assert_eq(pipe(fd), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		dup2(fd[1], 2);
		close(fd[0]);
		front_door(k);
		_exit(0);
	}
	close(fd[1]);
	while ((got = read(fd[0], d->text + len, sizeof d->text - 1 - len)) > 0)
		len += (size_t)got;
	d->text[len] = '\0';
	close(fd[0]);
	cr_assert_eq(waitpid(pid, &d->status, 0), pid);
}

Test(core_rules, front_door_dies_with_its_message)
{
	static const char *const want[] = {
		"kimble-x: --port: expected a value after it (see kimble-x --help)\n",
		"kimble-x: --port: expected a value after it, found the option \"--seed\" (see kimble-x --help)\n",
		"kimble-x: --port: expected a value after it, found the option \"-x\" (see kimble-x --help)\n",
		"kimble-x: --port: expected a value after it (see kimble-x --help)\n",
		"kimble-x: --seed \"-1\": out of range; " U64_EXPECTED " (see kimble-x --help)\n",
		"kimble-x: --games \"0\": out of range; expected a whole number from 1 to 9 (see kimble-x --help)\n",
		"kimble-x: --c \"2\": out of range; expected a decimal number from 0 to 1 (see kimble-x --help)\n",
		"kimble-x: --ttl \"x\": malformed; expected seconds from 1 to 2 (e.g. 120 or 0.5) (see kimble-x --help)\n",
		"kimble-x: unknown option \"--colour\" (see kimble-x --help)\n",
	};
	died d;

	for (int k = 0; k < (int)(sizeof want / sizeof *want); k++) {
		run_front_door(k, &d);
		cr_assert(WIFEXITED(d.status) && WEXITSTATUS(d.status) == KB_EXIT_USAGE, "case %d: %#x: %s", k,
			  d.status, d.text);
		/* what follows the message line can only be the sanitizers'
		 * notes (LeakSanitizer in a child forked from a threaded
		 * process) */
		cr_assert_eq(strncmp(d.text, want[k], strlen(want[k])), 0, "case %d: %s", k, d.text);
		cr_assert(d.text[strlen(want[k])] == '\0' || strstr(d.text, "=="), "case %d: %s", k, d.text);
	}
}

/* Values the front door takes: the option's value (a negative number, a
 * lone "-" and ".5"-style decimals are values), *i moved onto it; the
 * numbers read. */
Test(core_rules, front_door_takes_values)
{
	char *argv[] = {"p", "--a", "-0", "--b", "-", "--c", "-.5", "--d", "5", "--e", "-9", NULL};
	static const char *const value[] = {"-0", "-", "-.5", "5", "-9"};

	for (int k = 0; k < 5; k++) {
		int i = 1 + 2 * k;
		cr_assert_str_eq(kb_arg_value("p", 11, argv, &i), value[k]);
		cr_assert_eq(i, 2 + 2 * k);
	}
	cr_assert_eq(kb_arg_u64("p", "N", "18446744073709551615"), UINT64_MAX);
	cr_assert_eq(kb_arg_range("p", "N", "-3", -3, 6), -3);
	cr_assert_eq(kb_arg_real("p", "N", "2.5E-1", 0, 1), 0.25);
	cr_assert_eq(kb_arg_seconds("p", "N", "1.5", 1000, 2000), 1500);
}
