/* store.c - the LMDB environment and its transactions; see store.h. */
#include <errno.h>
#include <lmdb.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/store.h"
#include "core/hash.h"

/* Retries of one write transaction after MDB_MAP_FULL (each doubles). */
#define GROW_ATTEMPTS 8
/* Retries of mdb_txn_begin after MDB_MAP_RESIZED / MDB_READERS_FULL. */
#define BEGIN_ATTEMPTS 4
/* Reads of a frozen store again after writers changed it meanwhile. */
#define FROZEN_READ_ATTEMPTS 8

struct kb_store {
	MDB_env *env;
	MDB_dbi dbi;
	int readonly;
	int nolock;     /* no lock file: check each snapshot (store.h) */
	size_t map_max;
	FILE *warn;
	char path[512];
};

static void warn(const kb_store *st, const char *fmt, ...)
{
	va_list ap;

	if (!st->warn)
		return;
	va_start(ap, fmt);
	/* the program using the store (kimble-bot, kimble-state) names itself */
	fprintf(st->warn, "%s: store %s: ", program_invocation_short_name, st->path);
	vfprintf(st->warn, fmt, ap);
	fputc('\n', st->warn);
	va_end(ap);
}

const char *kb_store_path(const char *arg, char *buf, size_t size)
{
	const char *env = getenv(KB_STORE_ENV);
	const char *p = arg ? arg : env && *env ? env : KB_STORE_DEFAULT_DIR;

	if (strlen(p) >= size)
		return NULL;
	memcpy(buf, p, strlen(p) + 1);
	return buf;
}

/* mkdir -p */
static int make_dirs(const char *dir)
{
	char tmp[512];
	size_t n = strlen(dir);

	if (n >= sizeof tmp)
		return -1;
	memcpy(tmp, dir, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (tmp[i] != '/' && tmp[i] != 0)
			continue;
		char c = tmp[i];
		tmp[i] = 0;
		if (mkdir(tmp, 0755) && errno != EEXIST)
			return -1;
		tmp[i] = c;
	}
	return 0;
}

static int env_try_open(kb_store *st, unsigned mdb_flags, size_t map_size)
{
	int rc = mdb_env_create(&st->env);

	if (rc)
		return rc;
	if ((rc = mdb_env_set_mapsize(st->env, map_size)) ||
	    (rc = mdb_env_open(st->env, st->path, mdb_flags, 0644))) {
		mdb_env_close(st->env);
		st->env = NULL;
	}
	return rc;
}

/* Begin a transaction, riding out another process's resize and a full
 * reader table. */
static int begin(kb_store *st, unsigned flags, MDB_txn **txn)
{
	int rc = 0, dead;

	for (int i = 0; i < BEGIN_ATTEMPTS; i++) {
		rc = mdb_txn_begin(st->env, NULL, flags, txn);
		if (rc == MDB_MAP_RESIZED) {
			mdb_env_set_mapsize(st->env, 0);
		} else if (rc == MDB_READERS_FULL) {
			if (mdb_reader_check(st->env, &dead) || dead == 0)
				return rc;
			warn(st, "reader table full: cleared %d stale reader slot(s)", dead);
		} else {
			return rc;
		}
	}
	return rc;
}

static int open_dbi(kb_store *st)
{
	MDB_txn *txn;
	int rc = begin(st, st->readonly ? MDB_RDONLY : 0, &txn);

	if (rc)
		return rc;
	if ((rc = mdb_dbi_open(txn, NULL, 0, &st->dbi))) {
		mdb_txn_abort(txn);
		return rc;
	}
	return mdb_txn_commit(txn);
}

int kb_store_open(kb_store **out, const char *dir, unsigned flags,
		  const kb_store_opts *opts, kb_err *err)
{
	kb_store *st = calloc(1, sizeof *st);
	size_t map = opts && opts->map_size ? opts->map_size : KB_STORE_MAP_INITIAL;
	int rc, dead = 0;

	*out = NULL;
	if (!st)
		return kb_err_set(err, KB_STORE_ERROR, "store %.300s: out of memory", dir);
	st->map_max = opts && opts->map_max ? opts->map_max : KB_STORE_MAP_MAX;
	if (map > st->map_max)
		map = st->map_max;
	st->warn = opts ? opts->warn : NULL;
	if (strlen(dir) >= sizeof st->path) {
		free(st);
		return kb_err_set(err, KB_STORE_ERROR, "store path \"%.100s...\": expected at most %zu characters",
			    dir, sizeof st->path - 1);
	}
	strcpy(st->path, dir);
	if ((flags & KB_STORE_CREATE) && !(flags & (KB_STORE_RDONLY | KB_STORE_FROZEN)) &&
	    make_dirs(dir)) {
		kb_err_set(err, KB_STORE_ERROR, "store %.300s: cannot create the folder: %s", dir, strerror(errno));
		free(st);
		return KB_STORE_ERROR;
	}
	st->readonly = (flags & (KB_STORE_RDONLY | KB_STORE_FROZEN)) != 0;
	st->nolock = (flags & KB_STORE_FROZEN) != 0;
	rc = env_try_open(st, st->nolock ? MDB_RDONLY | MDB_NOLOCK : st->readonly ? MDB_RDONLY : 0,
			  map);
	if (!st->readonly && (rc == EACCES || rc == EROFS)) {
		warn(st, "not writable (%s): opened read-only, nothing learned this run",
		     mdb_strerror(rc));
		st->readonly = 1;
		rc = env_try_open(st, MDB_RDONLY, map);
	}
	if (st->readonly && !st->nolock && (rc == EACCES || rc == EROFS)) {
		st->nolock = 1;
		rc = env_try_open(st, MDB_RDONLY | MDB_NOLOCK, map);
	}
	if (!rc && !st->readonly && mdb_reader_check(st->env, &dead) == 0 && dead > 0)
		warn(st, "cleared %d stale reader slot(s) of crashed processes", dead);
	if (!rc)
		rc = open_dbi(st);
	if (rc) {
		kb_err_set(err, KB_STORE_ERROR, "store %.300s: cannot open: %s", dir, mdb_strerror(rc));
		kb_store_close(st);
		return KB_STORE_ERROR;
	}
	*out = st;
	return 0;
}

void kb_store_close(kb_store *st)
{
	if (!st)
		return;
	if (st->env)
		mdb_env_close(st->env);
	free(st);
}

int kb_store_readonly(const kb_store *st)
{
	return st->readonly;
}

size_t kb_store_mapsize(kb_store *st)
{
	MDB_envinfo info;

	mdb_env_info(st->env, &info);
	return info.me_mapsize;
}

/* "store PATH: WHAT: LMDB's reason" into err; returns KB_STORE_ERROR. */
static int lmdb_error(const kb_store *st, kb_err *err, const char *what, int rc)
{
	return kb_err_set(err, KB_STORE_ERROR, "store %.300s: %s: %s", st->path, what, mdb_strerror(rc));
}

/* 1 when the snapshot of read transaction txn was intact until now.  A
 * reader without the lock file holds no reader slot, so writers do not
 * spare its pages: pages a commit frees are reused from the second commit
 * after it on (LMDB reuses pages freed by transactions older than the
 * oldest reader, and without readers that is the last commit).  With at
 * most one commit since txn's, no page of its snapshot has been reused. */
static int snapshot_intact(kb_store *st, MDB_txn *txn)
{
	MDB_envinfo info;

	if (!st->nolock)
		return 1;
	mdb_env_info(st->env, &info);
	return info.me_last_txnid <= mdb_txn_id(txn) + 1;
}

static int key_error(kb_err *err, const char *name)
{
	return kb_err_set(err, KB_STORE_NAME,
			  "name \"%.80s\": expected 1..%d of letters, digits, '_', '.', '-'", name,
			  KB_NAME_MAX);
}

/* Read and decode opponent key; the value is copied out before decoding. */
static int get_opp(MDB_txn *txn, MDB_dbi dbi, const char *key, size_t klen, kb_opp_rec *rec)
{
	MDB_val k = {klen, (void *)key}, v;
	uint8_t buf[KB_REC_MAX];
	int rc = mdb_get(txn, dbi, &k, &v);

	memset(rec, 0, sizeof *rec);
	if (rc == MDB_NOTFOUND)
		return KB_STORE_ABSENT;
	if (rc)
		return KB_STORE_ERROR;
	if (v.mv_size > sizeof buf)
		return KB_REC_BAD;
	memcpy(buf, v.mv_data, v.mv_size);
	return kb_opp_decode(buf, v.mv_size, rec);
}

int kb_store_get(kb_store *st, const char *name, kb_opp_rec *rec, kb_err *err)
{
	char key[KB_KEY_MAX];
	size_t klen = kb_key_opponent(name, key);
	MDB_txn *txn;
	int rc;

	memset(rec, 0, sizeof *rec);
	if (!klen)
		return key_error(err, name);
	for (int attempt = 0;; attempt++) {
		if ((rc = begin(st, MDB_RDONLY, &txn)))
			return lmdb_error(st, err, "cannot read", rc);
		rc = get_opp(txn, st->dbi, key, klen, rec);
		int intact = snapshot_intact(st, txn);
		mdb_txn_abort(txn);
		if (intact)
			break;
		if (attempt + 1 == FROZEN_READ_ATTEMPTS) {
			memset(rec, 0, sizeof *rec);
			kb_err_set(err, KB_STORE_ERROR, "store %.300s: changed while read (frozen), opponent %s",
				   st->path, name);
			return KB_STORE_ERROR;
		}
	}
	if (rc == KB_STORE_ERROR)
		kb_err_set(err, KB_STORE_ERROR, "store %.300s: cannot read opponent %s", st->path, name);
	else if (rc == KB_REC_NEWER)
		kb_err_set(err, KB_STORE_ERROR, "store %.300s: opponent %s was written by a newer kimble-state format", st->path, name);
	else if (rc == KB_REC_BAD)
		kb_err_set(err, KB_STORE_ERROR, "store %.300s: opponent %s: damaged record", st->path, name);
	return rc;
}

/* A write transaction body: returns 0 or an LMDB error code. */
typedef int (*txn_body)(kb_store *st, MDB_txn *txn, void *ctx);

/* Run body in a write transaction, growing the map on MDB_MAP_FULL. */
static int write_txn(kb_store *st, txn_body body, void *ctx, kb_err *err)
{
	MDB_txn *txn;
	int rc = 0;

	if (st->readonly)
		return kb_err_set(err, KB_STORE_READONLY, "store %.300s: opened read-only, cannot write",
				  st->path);
	for (int attempt = 0; attempt < GROW_ATTEMPTS; attempt++) {
		if ((rc = begin(st, 0, &txn)))
			break;
		rc = body(st, txn, ctx);
		if (rc)
			mdb_txn_abort(txn);
		else
			rc = mdb_txn_commit(txn); /* frees txn, also when it fails */
		if (rc != MDB_MAP_FULL)
			break;
		size_t size = kb_store_mapsize(st);
		if (size >= st->map_max)
			return kb_err_set(err, KB_STORE_ERROR, "store %.300s: full at %zu bytes (bound %zu): %s",
				    st->path, size, st->map_max, mdb_strerror(rc));
		size = size * 2 > st->map_max ? st->map_max : size * 2;
		if ((rc = mdb_env_set_mapsize(st->env, size)))
			break;
		warn(st, "map full: grew it to %zu bytes", size);
		rc = MDB_MAP_FULL;
	}
	return rc ? lmdb_error(st, err, "write failed", rc) : 0;
}

typedef struct apply_ctx {
	const kb_store_add *adds;
	int n;
	int skipped;
} apply_ctx;

static int put(MDB_txn *txn, MDB_dbi dbi, const char *key, size_t klen,
	       const uint8_t *val, size_t vlen)
{
	MDB_val k = {klen, (void *)key}, v = {vlen, (void *)val};

	return mdb_put(txn, dbi, &k, &v, 0);
}

static int add_opponent(kb_store *st, MDB_txn *txn, const kb_store_add *a, apply_ctx *c)
{
	char key[KB_KEY_MAX];
	size_t klen = kb_key_opponent(a->name, key);
	uint8_t val[KB_REC_MAX];
	kb_opp_rec rec;
	int rc = get_opp(txn, st->dbi, key, klen, &rec);

	if (rc == KB_STORE_ERROR)
		return MDB_CORRUPTED;
	if (rc == KB_REC_NEWER || rc == KB_REC_BAD) {
		warn(st, "opponent %s: %s record left as it is", a->name,
		     rc == KB_REC_NEWER ? "newer-format" : "damaged");
		c->skipped++;
		return 0;
	}
	kb_opp_add(&rec, &a->delta);
	return put(txn, st->dbi, key, klen, val, kb_opp_encode(&rec, val));
}

static int add_results(kb_store *st, MDB_txn *txn, const kb_store_add *a, apply_ctx *c)
{
	char key[KB_KEY_MAX];
	size_t klen = kb_key_results(a->version, a->name, key);
	MDB_val k = {klen, key}, v;
	uint8_t val[KB_REC_MAX];
	kb_res_rec rec = {0, 0, 0};
	int rc = mdb_get(txn, st->dbi, &k, &v);

	if (rc && rc != MDB_NOTFOUND)
		return rc;
	if (rc == 0) {
		size_t n = v.mv_size < sizeof val ? v.mv_size : sizeof val;
		memcpy(val, v.mv_data, n);
		if (v.mv_size > sizeof val || kb_res_decode(val, n, &rec) != KB_REC_OK) {
			warn(st, "results of %s under version %s: unreadable record left as it is",
			     a->name, a->version);
			c->skipped++;
			return 0;
		}
	}
	rec.games += a->delta.games;
	rec.won += a->delta.won;
	rec.lost += a->delta.lost;
	return put(txn, st->dbi, key, klen, val, kb_res_encode(&rec, val));
}

static int apply_body(kb_store *st, MDB_txn *txn, void *ctx)
{
	apply_ctx *c = ctx;
	int rc = 0;

	c->skipped = 0;
	for (int i = 0; i < c->n && !rc; i++) {
		if (c->adds[i].opponent)
			rc = add_opponent(st, txn, &c->adds[i], c);
		if (!rc && c->adds[i].version)
			rc = add_results(st, txn, &c->adds[i], c);
	}
	return rc;
}

int kb_store_apply(kb_store *st, const kb_store_add *adds, int n, int *skipped,
		   kb_err *err)
{
	apply_ctx c = {adds, n, 0};
	char key[KB_KEY_MAX];
	int rc;

	for (int i = 0; i < n; i++)
		if (!kb_key_opponent(adds[i].name, key) ||
		    (adds[i].version && !kb_key_results(adds[i].version, adds[i].name, key)))
			return key_error(err, adds[i].version && kb_name_ok(adds[i].name, strlen(adds[i].name))
						      ? adds[i].version : adds[i].name);
	if ((rc = write_txn(st, apply_body, &c, err)))
		return rc;
	if (skipped)
		*skipped = c.skipped;
	return 0;
}

/* Split "v/VERSION/NAME" (klen bytes) into its parts; 0 or -1. */
static int split_results_key(const char *key, size_t klen, char *version, char *name)
{
	const char *slash = memchr(key + 2, '/', klen - 2);
	size_t v, n;

	if (!slash)
		return -1;
	v = (size_t)(slash - key) - 2;
	n = klen - v - 3;
	if (!kb_name_ok(key + 2, v) || !kb_name_ok(slash + 1, n))
		return -1;
	memcpy(version, key + 2, v);
	version[v] = 0;
	memcpy(name, slash + 1, n);
	name[n] = 0;
	return 0;
}

static int visit(const kb_store_visitor *vis, const MDB_val *k, const MDB_val *v)
{
	const char *key = k->mv_data;
	char name[KB_NAME_MAX + 1], version[KB_NAME_MAX + 1];
	uint8_t buf[KB_REC_MAX];
	size_t n = v->mv_size < sizeof buf ? v->mv_size : sizeof buf;
	int status;

	memcpy(buf, v->mv_data, n);
	if (k->mv_size > 2 && memcmp(key, "o/", 2) == 0 && vis->opponent &&
	    kb_name_ok(key + 2, k->mv_size - 2)) {
		kb_opp_rec rec;
		memcpy(name, key + 2, k->mv_size - 2);
		name[k->mv_size - 2] = 0;
		status = v->mv_size > sizeof buf ? KB_REC_BAD : kb_opp_decode(buf, n, &rec);
		if (!kb_rec_usable(status))
			memset(&rec, 0, sizeof rec);
		return vis->opponent(vis->ctx, name, &rec, status);
	}
	if (k->mv_size > 2 && memcmp(key, "v/", 2) == 0 && vis->results &&
	    split_results_key(key, k->mv_size, version, name) == 0) {
		kb_res_rec rec;
		status = v->mv_size > sizeof buf ? KB_REC_BAD : kb_res_decode(buf, n, &rec);
		if (!kb_rec_usable(status))
			memset(&rec, 0, sizeof rec);
		return vis->results(vis->ctx, version, name, &rec, status);
	}
	return 0;
}

int kb_store_each(kb_store *st, const kb_store_visitor *vis, kb_err *err)
{
	MDB_txn *txn;
	MDB_cursor *cur;
	MDB_val k, v;
	int rc, stop = 0;

	if ((rc = begin(st, MDB_RDONLY, &txn)))
		return lmdb_error(st, err, "cannot read", rc);
	if ((rc = mdb_cursor_open(txn, st->dbi, &cur))) {
		mdb_txn_abort(txn);
		return lmdb_error(st, err, "cannot read", rc);
	}
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0 && !stop;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT))
		stop = visit(vis, &k, &v);
	mdb_cursor_close(cur);
	int intact = snapshot_intact(st, txn);
	mdb_txn_abort(txn);
	if (!intact)
		return kb_err_set(err, KB_STORE_ERROR, "store %.300s: changed while read (frozen)", st->path);
	if (stop)
		return stop;
	if (rc != MDB_NOTFOUND)
		return lmdb_error(st, err, "cannot read", rc);
	return 0;
}

/* Hash one record: lengths as 4 little-endian bytes keep "ab"+"c" apart
 * from "a"+"bc". */
static uint64_t hash_record(uint64_t h, const MDB_val *k, const MDB_val *v)
{
	const MDB_val *part[2] = {k, v};

	for (int i = 0; i < 2; i++) {
		uint8_t len[4];
		for (int b = 0; b < 4; b++)
			len[b] = (uint8_t)(part[i]->mv_size >> (8 * b));
		h = kb_fnv1a(h, len, sizeof len);
		h = kb_fnv1a(h, part[i]->mv_data, part[i]->mv_size);
	}
	return h;
}

/* One pass of kb_store_digest: an LMDB code, or -1 when a frozen
 * reader's snapshot was overwritten meanwhile. */
static int digest_once(kb_store *st, uint64_t *digest)
{
	MDB_txn *txn;
	MDB_cursor *cur;
	MDB_val k, v;
	uint64_t h = KB_FNV_OFFSET;
	int rc;

	if ((rc = begin(st, MDB_RDONLY, &txn)))
		return rc;
	if ((rc = mdb_cursor_open(txn, st->dbi, &cur))) {
		mdb_txn_abort(txn);
		return rc;
	}
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT))
		h = hash_record(h, &k, &v);
	mdb_cursor_close(cur);
	if (rc == MDB_NOTFOUND)
		rc = snapshot_intact(st, txn) ? 0 : -1;
	mdb_txn_abort(txn);
	*digest = h;
	return rc;
}

int kb_store_digest(kb_store *st, uint64_t *digest, kb_err *err)
{
	int rc = -1;

	for (int attempt = 0; attempt < FROZEN_READ_ATTEMPTS && rc == -1; attempt++)
		rc = digest_once(st, digest);
	if (rc == -1)
		return kb_err_set(err, KB_STORE_ERROR, "store %.300s: changed while read (frozen)", st->path);
	return rc ? lmdb_error(st, err, "cannot read", rc) : 0;
}

typedef struct reset_ctx {
	const char *name;
	long deleted;
} reset_ctx;

/* 1 if key belongs to opponent name (or name is NULL). */
static int key_matches(const MDB_val *k, const char *name)
{
	char version[KB_NAME_MAX + 1], who[KB_NAME_MAX + 1];
	const char *key = k->mv_data;
	size_t n;

	if (!name)
		return 1;
	n = strlen(name);
	if (k->mv_size == n + 2 && memcmp(key, "o/", 2) == 0)
		return memcmp(key + 2, name, n) == 0;
	if (k->mv_size > 2 && memcmp(key, "v/", 2) == 0 &&
	    split_results_key(key, k->mv_size, version, who) == 0)
		return strcmp(who, name) == 0;
	return 0;
}

static int reset_body(kb_store *st, MDB_txn *txn, void *ctx)
{
	reset_ctx *c = ctx;
	MDB_cursor *cur;
	MDB_val k, v;
	int rc;

	c->deleted = 0;
	if ((rc = mdb_cursor_open(txn, st->dbi, &cur)))
		return rc;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		if (!key_matches(&k, c->name))
			continue;
		/* LMDB's next step after a delete lands on the following key */
		if ((rc = mdb_cursor_del(cur, 0)))
			break;
		c->deleted++;
	}
	mdb_cursor_close(cur);
	return rc == MDB_NOTFOUND ? 0 : rc;
}

int kb_store_reset(kb_store *st, const char *name, long *deleted, kb_err *err)
{
	reset_ctx c = {name, 0};
	int rc;

	if (name && !kb_name_ok(name, strlen(name)))
		return key_error(err, name);
	if ((rc = write_txn(st, reset_body, &c, err)))
		return rc;
	if (deleted)
		*deleted = c.deleted;
	return 0;
}

typedef struct raw_ctx {
	const char *key;
	size_t klen;
	const uint8_t *val;
	size_t len;
} raw_ctx;

static int raw_body(kb_store *st, MDB_txn *txn, void *ctx)
{
	raw_ctx *c = ctx;

	return put(txn, st->dbi, c->key, c->klen, c->val, c->len);
}

int kb_store_put_raw(kb_store *st, const char *name, const uint8_t *val, size_t len,
		     kb_err *err)
{
	char key[KB_KEY_MAX];
	raw_ctx c = {key, kb_key_opponent(name, key), val, len};

	if (!c.klen)
		return key_error(err, name);
	return write_txn(st, raw_body, &c, err);
}
