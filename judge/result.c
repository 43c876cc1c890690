/* result.c - a game's result and its .res file; see result.h. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/policy.h"
#include "result.h"

static const char *const reason_names[KJ_REASONS] = {
	"none", "timeout", "startup", "crash", "exit", "garbage", "illegal", "token", "unread",
	"nostart", "write"};

const char *kj_reason_name(int reason)
{
	return reason >= 0 && reason < KJ_REASONS ? reason_names[reason] : "?";
}

int kj_reason_parse(const char *word)
{
	for (int r = 0; r < KJ_REASONS; r++)
		if (strcmp(word, reason_names[r]) == 0)
			return r;
	return -1;
}

void kj_forfeit_text(const kj_result *res, int s, char *out, size_t size)
{
	const kj_seat_result *r = &res->seat[s];
	char when[40];

	if (r->forfeit_roll)
		snprintf(when, sizeof when, "at roll %" PRIu32, r->forfeit_roll);
	else
		snprintf(when, sizeof when, "before the first roll");
	snprintf(out, size, "%c %s forfeited %s (%s%s%s); seat finished by %s (replacement)",
		 'A' + s, r->name, when, kj_reason_name(r->reason), r->why[0] ? ": " : "", r->why,
		 kb_policy_name(KB_HARD));
}

int kj_result_write(FILE *f, uint32_t game, const kj_result *res)
{
	fprintf(f,
		"kimble-result 2\ngame %" PRIu32 " deal %" PRIu32 " seed %" PRIu64
		" winner %c rolls %" PRIu32 " finished %c\n",
		game, res->deal, res->seed, res->winner >= 0 ? 'A' + res->winner : '-', res->rolls,
		res->finished >= 0 ? 'A' + res->finished : '-');
	for (int s = 0; s < KB_SEATS; s++) {
		const kj_seat_result *r = &res->seat[s];
		if (!r->present)
			continue;
		fprintf(f,
			"seat %c %s place %d score %d forfeit %s errors %d lineup %d decisions %" PRIu32
			" ms %.3f max %.3f fp %s at %" PRIu32 " why ",
			'A' + s, r->name, r->place, r->score, kj_reason_name(r->reason), r->errors,
			r->lineup_ok, r->decisions, r->ms_total, r->ms_max,
			r->fingerprint[0] ? r->fingerprint : "-", r->forfeit_roll);
		for (const char *c = r->why[0] ? r->why : "-"; *c; c++)
			fputc(*c == '\n' || *c == '\r' ? ' ' : *c, f);
		fputc('\n', f);
	}
	return fprintf(f, "done\n") < 0 || ferror(f) ? -1 : 0;
}

static int bad_result(kb_err *err, int line, const char *what)
{
	snprintf(err->msg, sizeof err->msg, "result line %d: expected %s", line, what);
	return -1;
}

/* A seat line of version (1 or 2) into res; 0 or -1. */
static int read_seat(const char *line, int version, kj_result *res)
{
	char seatc, reason[32];
	kj_seat_result r = {0};
	int why_at = -1, tail_at = 0;

	if (sscanf(line,
		   "seat %c %63s place %d score %d forfeit %31s errors %d lineup %d "
		   "decisions %" SCNu32 " ms %lf max %lf fp %16s%n",
		   &seatc, r.name, &r.place, &r.score, reason, &r.errors, &r.lineup_ok,
		   &r.decisions, &r.ms_total, &r.ms_max, r.fingerprint, &tail_at) != 11 ||
	    seatc < 'A' || seatc > 'D' || kj_reason_parse(reason) < 0)
		return -1;
	if (version == 2) {
		const char *tail = line + tail_at;
		if (sscanf(tail, " at %" SCNu32 " why %n", &r.forfeit_roll, &why_at) != 1 ||
		    why_at < 0)
			return -1;
		snprintf(r.why, sizeof r.why, "%.*s", (int)strcspn(tail + why_at, "\r\n"),
			 tail + why_at);
		if (strcmp(r.why, "-") == 0)
			r.why[0] = '\0';
	}
	r.present = 1;
	r.reason = kj_reason_parse(reason);
	res->seat[seatc - 'A'] = r;
	return 0;
}

int kj_result_read(FILE *f, uint32_t *game, kj_result *res, kb_err *err)
{
	char line[512], w, fin = '-';
	int n = 0, version = 0;

	memset(res, 0, sizeof *res);
	res->winner = res->finished = -1;
	while (fgets(line, sizeof line, f)) {
		n++;
		if (n == 1) {
			version = !strcmp(line, "kimble-result 1\n") ? 1
				: !strcmp(line, "kimble-result 2\n") ? 2 : 0;
			if (!version)
				return bad_result(err, n, "\"kimble-result 2\" (or 1)");
		}
		if (n == 2) {
			if (sscanf(line,
				   "game %" SCNu32 " deal %" SCNu32 " seed %" SCNu64
				   " winner %c rolls %" SCNu32 " finished %c",
				   game, &res->deal, &res->seed, &w, &res->rolls, &fin) != 4 + version)
				return bad_result(err, n, version == 2
					? "game K deal D seed S winner X rolls N finished Y"
					: "game K deal D seed S winner X rolls N");
			res->game = *game;
			res->winner = w >= 'A' && w <= 'D' ? w - 'A' : -1;
			res->finished = fin >= 'A' && fin <= 'D' ? fin - 'A' : res->winner;
		}
		if (n > 2 && strcmp(line, "done\n") == 0) {
			/* version 1 credited a forfeited seat's replacement */
			if (version == 1 && res->winner >= 0 && res->seat[res->winner].reason)
				res->winner = -1;
			return 0;
		}
		if (n > 2 && read_seat(line, version, res))
			return bad_result(err, n, version == 2
				? "seat X NAME place P score S forfeit R ... fp F at ROLL why TEXT"
				: "seat X NAME place P score S forfeit R ...");
	}
	return bad_result(err, n + 1, "\"done\" (an unfinished result file)");
}

/* ---- the folder of .res files ------------------------------------------ */

int kj_file_error(kb_err *err, const char *what, const char *path)
{
	return kb_err_set(err, -1, "%.60s %.100s: %.25s", what, path, strerror(errno));
}

void kj_game_path(char *buf, size_t size, const char *out, uint32_t game, const char *ext)
{
	snprintf(buf, size, "%s/games/%06" PRIu32 "%s", out, game, ext);
}

int kj_results_mkdir(const char *out, kb_err *err)
{
	char path[1024];

	snprintf(path, sizeof path, "%s/games", out);
	if (mkdir(out, 0755) && errno != EEXIST)
		return kj_file_error(err, "cannot create the output folder", out);
	if (mkdir(path, 0755) && errno != EEXIST)
		return kj_file_error(err, "cannot create the output folder", path);
	return 0;
}

int kj_result_read_file(const char *path, uint32_t *game, kj_result *res, kb_err *err)
{
	FILE *f = fopen(path, "r");
	int rc;

	if (!f)
		return kj_file_error(err, "cannot read", path);
	rc = kj_result_read(f, game, res, err);
	fclose(f);
	return rc;
}

static int by_game(const void *a, const void *b)
{
	const kj_result *x = a, *y = b;

	return x->game < y->game ? -1 : x->game > y->game;
}

long kj_results_load(const char *const dirs[], int n, kj_result **out, kb_err *err)
{
	kj_result *all = NULL;
	size_t count = 0, cap = 0, m = 0;
	uint32_t game;

	for (int d = 0; d < n; d++) {
		char path[1024];
		struct dirent *e;
		snprintf(path, sizeof path, "%s/games", dirs[d]);
		DIR *dir = opendir(path);
		if (!dir) {
			free(all);
			return kj_file_error(err, "cannot read results folder", path);
		}
		while ((e = readdir(dir))) {
			size_t len = strlen(e->d_name);
			if (len < 5 || strcmp(e->d_name + len - 4, ".res"))
				continue;
			if (count == cap) {
				kj_result *p = realloc(all, (cap = cap ? cap * 2 : 256) * sizeof *p);
				if (!p)
					break;
				all = p;
			}
			snprintf(path, sizeof path, "%s/games/%s", dirs[d], e->d_name);
			if (kj_result_read_file(path, &game, &all[count], err) == 0)
				count++;
		}
		closedir(dir);
	}
	if (count) /* all is NULL when no folder held a result */
		qsort(all, count, sizeof *all, by_game);
	for (size_t i = 0; i < count; i++) /* the first result of each game */
		if (m == 0 || all[i].game != all[m - 1].game)
			all[m++] = all[i];
	if (!all && !(all = malloc(sizeof *all))) {
		snprintf(err->msg, sizeof err->msg, "results: out of memory");
		return -1;
	}
	*out = all;
	return (long)m;
}
