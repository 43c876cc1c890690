/* test_fuzz_corpus.c - replays each fuzz target's corpus (tests/fuzz/
 * corpus/fuzz_NAME/) under this build's sanitizers.  A new target adds one
 * CORPUS line here. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz/fuzz.h"
#include "support.h"

static int replay(const char *name, int (*entry)(const uint8_t *, size_t))
{
	char dir[512], path[1024];
	DIR *d = opendir(test_root_path(name, dir, sizeof dir));
	struct dirent *e;
	int files = 0;

	cr_assert_not_null(d, "corpus folder %s", dir);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		FILE *f = fopen(path, "rb");
		cr_assert_not_null(f, "%s", path);
		static uint8_t buf[1 << 20];
		size_t n = fread(buf, 1, sizeof buf, f);
		fclose(f);
		/* replay a private copy so reads past the end are caught */
		uint8_t *copy = malloc(n ? n : 1);
		memcpy(copy, buf, n);
		entry(copy, n);
		free(copy);
		files++;
	}
	closedir(d);
	return files;
}

#define CORPUS(name)                                                                       \
	Test(fuzz_corpus, name, .timeout = 120)                                            \
	{                                                                                  \
		cr_assert(replay("tests/fuzz/corpus/" #name, kb_##name) > 0, "empty corpus"); \
	}

CORPUS(fuzz_board)
CORPUS(fuzz_msg)
CORPUS(fuzz_line)
CORPUS(fuzz_transcript)
CORPUS(fuzz_request)
CORPUS(fuzz_result)
CORPUS(fuzz_botclient)
CORPUS(fuzz_state)
CORPUS(fuzz_num)
