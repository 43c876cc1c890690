/* test_docs.c - the documentation cannot drift from the programs:
 *   docs_spec     every worked example of docs/spec.md (fenced
 *                 "kimble-example" blocks) holds for the rules engine;
 *   docs_man      every option of a program's --help is in its manual
 *                 page and every option the page's OPTIONS section lists
 *                 is in --help;
 *   docs_run      every runnable example (tests/doc-commands.sh) of the
 *                 README, the tutorial and the manual pages succeeds;
 *   docs_repo     nothing refers to files a clone does not have. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "core/board.h"
#include "core/rules.h"
#include "support.h"

/* ---- docs_spec ----------------------------------------------------------- */

typedef struct spec_example {
	unsigned present;
	char board[KB_BOARD_LEN + 1], after[KB_BOARD_LEN + 1], seen[KB_BOARD_LEN + 1];
	int seat, die, move, view;
	unsigned legal;
	int has_roll, has_legal;
} spec_example;

static unsigned seat_mask(const char *letters)
{
	unsigned mask = 0;
	for (; *letters && *letters != '\n'; letters++)
		if (*letters >= 'A' && *letters <= 'D')
			mask |= 1u << (*letters - 'A');
	return mask;
}

/* Copy the 44-character board that follows a field name. */
static void copy_board(const char *value, char out[KB_BOARD_LEN + 1], int line)
{
	size_t len = strcspn(value, "\n");
	cr_assert_eq(len, KB_BOARD_LEN, "spec example line %d: a board is 44 characters, got %zu",
		     line, len);
	memcpy(out, value, KB_BOARD_LEN);
	out[KB_BOARD_LEN] = '\0';
}

/* One field line of an example ("NAME   VALUE"). */
static void spec_field(spec_example *ex, const char *text, int line)
{
	char name[16];
	int skip = 0;
	cr_assert_eq(sscanf(text, "%15s %n", name, &skip), 1, "spec line %d: a field", line);
	const char *value = text + skip;
	if (!strcmp(name, "present"))
		ex->present = seat_mask(value);
	else if (!strcmp(name, "board"))
		copy_board(value, ex->board, line);
	else if (!strcmp(name, "after"))
		copy_board(value, ex->after, line);
	else if (!strcmp(name, "seen"))
		copy_board(value, ex->seen, line);
	else if (!strcmp(name, "view"))
		ex->view = value[0] - 'A';
	else if (!strcmp(name, "move"))
		ex->move = atoi(value);
	else if (!strcmp(name, "roll")) {
		ex->seat = value[0] - 'A';
		ex->die = atoi(value + 1);
		ex->has_roll = 1;
	} else if (!strcmp(name, "legal")) {
		for (const char *c = value; *c && *c != '\n'; c++)
			if (isdigit((unsigned char)*c))
				ex->legal |= 1u << (*c - '0');
		ex->has_legal = 1;
	} else
		cr_assert_fail("spec line %d: unknown field '%s'", line, name);
}

static void spec_check(const spec_example *ex, int line)
{
	kb_pos pos;
	kb_err err;
	char out[KB_BOARD_LEN + 1] = "";

	cr_assert_eq(kb_board_parse(ex->board, KB_BOARD_LEN, ex->present, &pos, &err), 0,
		     "spec example at line %d: %s", line, err.msg);
	if (ex->has_legal)
		cr_assert_eq(kb_legal(&pos, ex->seat, ex->die), ex->legal,
			     "spec example at line %d: legal mask 0x%x, the doc says 0x%x", line,
			     kb_legal(&pos, ex->seat, ex->die), ex->legal);
	if (ex->move >= 0) {
		kb_apply(&pos, ex->seat, ex->move, ex->die);
		kb_board_format(&pos, out);
		cr_assert_str_eq(out, ex->after, "spec example at line %d: the board after", line);
	}
	if (ex->view >= 0) {
		kb_board_rotate(ex->board, ex->view, out);
		cr_assert_str_eq(out, ex->seen, "spec example at line %d: the rotated board", line);
	}
}

Test(docs_spec, worked_examples_hold)
{
	char path[1024];
	const char *text = test_read_file(NULL, test_root_path("docs/spec.md", path, sizeof path));
	const char *fence = "```kimble-example\n";
	int examples = 0;

	for (const char *at = strstr(text, fence); at; at = strstr(at, fence)) {
		int line = 1;
		for (const char *c = text; c < at; c++)
			line += *c == '\n';
		spec_example ex = {.move = -1, .view = -1, .present = 1};
		at += strlen(fence);
		for (int row = 1; strncmp(at, "```", 3); row++) {
			cr_assert(*at, "spec example at line %d: no closing fence", line);
			spec_field(&ex, at, line + row);
			at = strchr(at, '\n') + 1;
		}
		spec_check(&ex, line);
		examples++;
	}
	cr_assert_geq(examples, 10, "docs/spec.md: %d kimble-example blocks found", examples);
}
