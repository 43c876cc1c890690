/* shard.c - merging shard folders into one; see shard.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"
#include "shard.h"

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	ssize_t got;
	int in, outfd, rc = 0;

	if (link(from, to) == 0 || errno == EEXIST)
		return 0;
	if ((in = open(from, O_RDONLY)) < 0)
		return -1;
	if ((outfd = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0) {
		close(in);
		return -1;
	}
	while ((got = read(in, buf, sizeof buf)) > 0)
		if (write(outfd, buf, (size_t)got) != got)
			rc = -1;
	close(in);
	close(outfd);
	return rc;
}

/* Whether the shards were one fixed lineup: the results do not say, their
 * reports do (a learning curve is written for -f fixed only). */
static int shards_fixed(const char *const dirs[], int n)
{
	char path[1024], line[4096];
	int fixed = n > 0;

	for (int d = 0; d < n && fixed; d++) {
		snprintf(path, sizeof path, "%s/results.json", dirs[d]);
		FILE *f = fopen(path, "r");
		fixed = 0;
		/* fgets starts every line afresh: the key opens its line */
		while (f && !fixed && fgets(line, sizeof line, f))
			fixed = strncmp(line, "  \"learning_curve\"", 18) == 0;
		if (f)
			fclose(f);
	}
	return fixed;
}

int kj_merge(const char *out, const char *const dirs[], int n, int timing, kb_err *err)
{
	kj_result *res;
	long m;

	if (kj_results_mkdir(out, err))
		return -1;
	for (int d = 0; d < n; d++) {
		char path[1024], to[1024];
		struct dirent *e;
		snprintf(path, sizeof path, "%s/games", dirs[d]);
		DIR *dir = opendir(path);
		if (!dir)
			return kj_file_error(err, "cannot read shard folder", path);
		while ((e = readdir(dir))) {
			if (e->d_name[0] == '.' || strstr(e->d_name, ".tmp"))
				continue;
			snprintf(path, sizeof path, "%s/games/%s", dirs[d], e->d_name);
			snprintf(to, sizeof to, "%s/games/%s", out, e->d_name);
			if (copy_file(path, to)) {
				closedir(dir);
				return kj_file_error(err, "cannot copy", path);
			}
		}
		closedir(dir);
	}
	if ((m = kj_results_load(&out, 1, &res, err)) < 0)
		return -1;
	int rc = kj_report_write(out, res, (size_t)m, NULL, 0, timing, shards_fixed(dirs, n), NULL, 0,
				 err);
	free(res);
	return rc;
}
