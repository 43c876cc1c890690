/* export.c - text export and merging import; see export.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "core/num.h"

/* Longest line: an opponent line with every sample. */
#define LINE_MAX_LEN (256 + 2 * KB_SAMPLES * KB_SAMPLE_LEN)

int kb_export_opponent_line(const char *name, const kb_opp_rec *rec, char *out, size_t size)
{
	const kb_model_stats *m = &rec->model;
	int n = kb_model_samples(m), len;
	uint64_t first = m->decisions - (uint64_t)n;

	len = snprintf(out, size,
		       "opponent %s games %" PRIu64 " won %" PRIu64 " lost %" PRIu64
		       " decisions %" PRIu64 " easy %" PRIu64 " hard %" PRIu64 " samples %s",
		       name, rec->games, rec->won, rec->lost, m->decisions, m->easy_hits,
		       m->hard_hits, n ? "" : "-");
	if (len < 0 || (size_t)len + 2 * KB_SAMPLE_LEN * (size_t)n >= size)
		return -1;
	for (int j = 0; j < n; j++) {
		const kb_sample *smp = &m->sample[(first + (uint64_t)j) % KB_SAMPLES];
		for (int b = 0; b < KB_SAMPLE_LEN; b++)
			len += sprintf(out + len, "%02x", smp->b[b]);
	}
	return len;
}

typedef struct export_ctx {
	FILE *out;
	char line[LINE_MAX_LEN];
} export_ctx;

static int export_opponent(void *ctx, const char *name, const kb_opp_rec *rec, int status)
{
	export_ctx *c = ctx;

	if (!kb_rec_usable(status)) {
		fprintf(c->out, "# skipped opponent %s: %s record\n", name,
			status == KB_REC_NEWER ? "newer-format" : "damaged");
		return 0;
	}
	if (kb_export_opponent_line(name, rec, c->line, sizeof c->line) < 0)
		return 0; /* cannot happen: the line is sized for every sample */
	fprintf(c->out, "%s\n", c->line);
	return 0;
}

static int export_results(void *ctx, const char *version, const char *name,
			  const kb_res_rec *rec, int status)
{
	export_ctx *c = ctx;

	if (!kb_rec_usable(status))
		fprintf(c->out, "# skipped results %s %s: unreadable record\n", version, name);
	else
		fprintf(c->out, "results %s %s games %" PRIu64 " won %" PRIu64 " lost %" PRIu64 "\n",
			version, name, rec->games, rec->won, rec->lost);
	return 0;
}

int kb_export(kb_store *st, FILE *out, kb_err *err)
{
	export_ctx *c = malloc(sizeof *c);
	kb_store_visitor v = {export_opponent, export_results, c};
	int rc;

	if (!c)
		return kb_err_set(err, KB_EXPORT_NOMEM, "export: out of memory");
	c->out = out;
	fprintf(out, "%s\n", KB_EXPORT_MAGIC);
	rc = kb_store_each(st, &v, err);
	free(c);
	if (rc)
		return rc;
	if (fflush(out) || ferror(out))
		return kb_err_set(err, KB_EXPORT_WRITE, "export: cannot write: %s", strerror(errno));
	return 0;
}

/* Next space-separated field of *p (NULL at the end). */
static char *field(char **p)
{
	char *s = *p, *e;

	if (!s || !*s)
		return NULL;
	e = strchr(s, ' ');
	if (e) {
		*e = 0;
		*p = e + 1;
	} else {
		*p = NULL;
	}
	return s;
}

/* Expect "LABEL NUMBER"; 0 or KB_EXPORT_MALFORMED with err. */
static int labelled(char **p, const char *label, uint64_t *v, kb_err *err)
{
	char *l = field(p), *num = field(p);
	kb_err why;

	if (!l || strcmp(l, label) != 0)
		return kb_err_set(err, KB_EXPORT_MALFORMED, "expected \"%s\" here, found \"%.30s\"", label, l ? l : "end of line");
	if (kb_num_u64(label, num, v, &why))
		return kb_err_set(err, KB_EXPORT_MALFORMED, "%s", why.msg);
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Samples field into the ring of m (m->decisions already set). */
static int parse_samples(const char *hex, kb_model_stats *m, kb_err *err)
{
	size_t len = strlen(hex);
	int n = kb_model_samples(m);
	uint64_t first = m->decisions - (uint64_t)n;

	if (strcmp(hex, "-") == 0)
		len = 0;
	if (len != (size_t)n * 2 * KB_SAMPLE_LEN)
		return kb_err_set(err, KB_EXPORT_MALFORMED, "samples: expected %d samples of %d hex digits for %" PRIu64
			    " decisions, found %zu digits", n, 2 * KB_SAMPLE_LEN, m->decisions, len);
	for (int j = 0; j < n; j++) {
		kb_sample *smp = &m->sample[(first + (uint64_t)j) % KB_SAMPLES];
		for (int b = 0; b < KB_SAMPLE_LEN; b++) {
			const char *h = hex + 2 * (j * KB_SAMPLE_LEN + b);
			int hi = hexval(h[0]), lo = hexval(h[1]);
			if (hi < 0 || lo < 0)
				return kb_err_set(err, KB_EXPORT_MALFORMED, "samples: expected lowercase hex digits, found \"%.2s\"", h);
			smp->b[b] = (uint8_t)(hi << 4 | lo);
		}
	}
	return 0;
}

static int check_name(const char *what, const char *name, kb_err *err)
{
	if (!name || !kb_name_ok(name, strlen(name)))
		return kb_err_set(err, KB_EXPORT_MALFORMED, "expected %s of 1..%d letters, digits, '_', '.', '-', found \"%.40s\"",
			    what, KB_NAME_MAX, name ? name : "end of line");
	return 0;
}

int kb_import_line(char *line, kb_store_add *add, kb_err *err)
{
	char *p = line, *kind = field(&p), *samples;
	kb_opp_rec *r = &add->delta;
	kb_model_stats *m = &r->model;

	memset(add, 0, sizeof *add);
	if (kind && strcmp(kind, "results") == 0) {
		add->version = field(&p);
		add->name = field(&p);
		if (check_name("a bot version", add->version, err) ||
		    check_name("an opponent name", add->name, err) ||
		    labelled(&p, "games", &r->games, err) || labelled(&p, "won", &r->won, err) ||
		    labelled(&p, "lost", &r->lost, err))
			return KB_EXPORT_MALFORMED;
	} else if (kind && strcmp(kind, "opponent") == 0) {
		add->opponent = 1;
		add->name = field(&p);
		if (check_name("an opponent name", add->name, err) ||
		    labelled(&p, "games", &r->games, err) || labelled(&p, "won", &r->won, err) ||
		    labelled(&p, "lost", &r->lost, err) ||
		    labelled(&p, "decisions", &m->decisions, err) ||
		    labelled(&p, "easy", &m->easy_hits, err) ||
		    labelled(&p, "hard", &m->hard_hits, err))
			return KB_EXPORT_MALFORMED;
		if (!(samples = field(&p)) || strcmp(samples, "samples") || !(samples = field(&p)))
			return kb_err_set(err, KB_EXPORT_MALFORMED, "expected \"samples\" and the sample digits (or -)");
		if (parse_samples(samples, m, err))
			return KB_EXPORT_MALFORMED;
		/* the line keeps the samples only: the faded statistics come
		 * from them (model.h) */
		kb_model_stats_rebuild(m);
		if (m->easy_hits > m->decisions || m->hard_hits > m->decisions)
			return kb_err_set(err, KB_EXPORT_MALFORMED, "easy and hard must not exceed decisions");
	} else {
		return kb_err_set(err, KB_EXPORT_MALFORMED, "expected a line starting with \"opponent\" or \"results\", found \"%.30s\"",
			    kind ? kind : "");
	}
	if (r->won > r->games || r->lost > r->games)
		return kb_err_set(err, KB_EXPORT_MALFORMED, "won and lost must not exceed games");
	if (p)
		return kb_err_set(err, KB_EXPORT_MALFORMED, "unexpected text \"%.30s\" at the end of the line", p);
	return 0;
}

typedef struct import_buf {
	kb_store_add *adds;
	char **lines;
	long n, cap;
} import_buf;

static void import_free(import_buf *b)
{
	for (long i = 0; i < b->n; i++)
		free(b->lines[i]);
	free(b->adds);
	free(b->lines);
}

static int import_push(import_buf *b, const char *line, kb_err *err)
{
	if (b->n == b->cap) {
		long cap = b->cap ? 2 * b->cap : 64;
		kb_store_add *a = realloc(b->adds, (size_t)cap * sizeof *a);
		if (a)
			b->adds = a;
		char **l = realloc(b->lines, (size_t)cap * sizeof *l);
		if (l)
			b->lines = l;
		if (!a || !l)
			return kb_err_set(err, KB_EXPORT_NOMEM, "import: out of memory");
		b->cap = cap;
	}
	if (!(b->lines[b->n] = strdup(line)))
		return kb_err_set(err, KB_EXPORT_NOMEM, "import: out of memory");
	b->n++;
	return 0;
}

int kb_import(kb_store *st, FILE *in, const char *what, long *records, kb_err *err)
{
	import_buf b = {0};
	char *line = malloc(LINE_MAX_LEN + 2);
	long lineno = 0;
	int rc = 0;
	kb_err why;

	if (!line)
		return kb_err_set(err, KB_EXPORT_NOMEM, "import: out of memory");
	while (rc == 0 && fgets(line, LINE_MAX_LEN + 2, in)) {
		size_t len = strlen(line);
		lineno++;
		if (len && line[len - 1] == '\n')
			line[--len] = 0;
		else if (!feof(in))
			rc = kb_err_set(err, KB_EXPORT_MALFORMED, "%s line %ld: longer than %d characters", what, lineno, LINE_MAX_LEN);
		if (len && line[len - 1] == '\r')
			line[--len] = 0;
		if (rc)
			break;
		if (lineno == 1) {
			if (strcmp(line, KB_EXPORT_MAGIC) != 0)
				rc = kb_err_set(err, KB_EXPORT_MALFORMED, "%s line 1: expected \"%s\"", what, KB_EXPORT_MAGIC);
			continue;
		}
		if (len == 0 || line[0] == '#')
			continue;
		rc = import_push(&b, line, err);
		if (!rc && kb_import_line(b.lines[b.n - 1], &b.adds[b.n - 1], &why))
			rc = kb_err_set(err, KB_EXPORT_MALFORMED, "%s line %ld: %s", what, lineno, why.msg);
	}
	if (rc == 0 && lineno == 0)
		rc = kb_err_set(err, KB_EXPORT_MALFORMED, "%s: empty, expected \"%s\" on line 1", what, KB_EXPORT_MAGIC);
	if (rc == 0 && ferror(in))
		rc = kb_err_set(err, KB_EXPORT_MALFORMED, "%s: read error: %s", what, strerror(errno));
	if (rc == 0 && b.n > 0)
		rc = kb_store_apply(st, b.adds, (int)b.n, NULL, err);
	if (rc == 0 && records)
		*records = b.n;
	import_free(&b);
	free(line);
	return rc;
}
