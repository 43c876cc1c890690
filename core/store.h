/* store.h - the learning store: one LMDB environment holding the records
 * of record.h.  Nothing outside this module touches LMDB.
 *
 * The store is a folder (default ./kimble-state, see kb_store_path) with
 * LMDB's data.mdb and lock.mdb.  Any number of processes may open it at
 * once: LMDB serialises write transactions, and every update is a
 * read-modify-write of the affected records inside one write transaction,
 * so no update is lost and a process killed at any point leaves either all
 * or none of its update.
 *
 * Open once per process.  Transient LMDB conditions are handled here:
 * MDB_MAP_FULL (from a put or from commit, which has already freed the
 * transaction) doubles the map and retries, up to the map bound;
 * MDB_MAP_RESIZED adopts the size another process set; MDB_READERS_FULL
 * and stale reader slots of crashed processes are cleared with
 * mdb_reader_check.  Warnings about such events go to opts->warn.
 *
 * Status: every function returning int gives KB_STORE_OK (0) on success,
 * otherwise one of enum kb_store_status with err naming the store path (or
 * the name) and the LMDB or system reason, unless said differently.  The
 * store's statuses have their own range, -300..-399 (core/err.h), apart
 * from LMDB's codes, errno values and the record statuses (record.h) that
 * kb_store_get and the visitors also give, so no outcome can be taken for
 * another.
 */
#ifndef KB_CORE_STORE_H
#define KB_CORE_STORE_H

#include <stddef.h>
#include <stdio.h>

#include "core/board.h"
#include "core/record.h"

#define KB_STORE_DEFAULT_DIR "kimble-state"
#define KB_STORE_ENV "KIMBLE_STATE"
#define KB_STORE_ENV_MAP_MAX "KIMBLE_STATE_MAP_MAX" /* bytes; the bot's bound */
#define KB_STORE_MAP_INITIAL ((size_t)32 << 20)
#define KB_STORE_MAP_MAX ((size_t)1 << 30)

typedef struct kb_store kb_store;

enum kb_store_status {
	KB_STORE_OK = 0,
	KB_STORE_ABSENT = -301, /* kb_store_get: no record of that name */
	KB_STORE_ERROR = -302,  /* LMDB or system error: cannot open, read or
				 * write, map full beyond the bound, memory */
	KB_STORE_NAME = -303,   /* a name that is not valid (record.h) */
	KB_STORE_READONLY = -304  /* a write to a store opened read-only */
};

enum kb_store_flags {
	KB_STORE_RDONLY = 1, /* never write (inspection) */
	KB_STORE_CREATE = 2, /* create the folder (and parents) if missing */
	KB_STORE_FROZEN = 4  /* read-only and no file touched, see below */
};

/* KB_STORE_FROZEN (learning frozen, fingerprints): the store is opened
 * read-only without LMDB's lock file (MDB_NOLOCK), so no file of the store
 * is created, written or even opened for writing, lock.mdb included; a
 * missing store stays missing (kb_store_open fails).  Such a reader is
 * invisible to writers, which may reuse the pages of its snapshot from the
 * second commit after it on: every read checks that at most one commit
 * happened meanwhile and reads again otherwise (a few times, then
 * KB_STORE_ERROR "changed while read").  Implies KB_STORE_RDONLY and
 * ignores KB_STORE_CREATE. */

typedef struct kb_store_opts {
	size_t map_size; /* initial map size in bytes (0: KB_STORE_MAP_INITIAL) */
	size_t map_max;  /* bound for growing the map (0: KB_STORE_MAP_MAX);
			  * the initial size is clamped to it */
	FILE *warn;      /* warnings, each one line starting with the
			  * program's name (program_invocation_short_name),
			  * or NULL */
} kb_store_opts;

/* The store folder: arg when not NULL (--state), else $KIMBLE_STATE when
 * set and non-empty, else "kimble-state" (relative to the working folder).
 * Returns buf, or NULL when the path does not fit in size bytes. */
const char *kb_store_path(const char *arg, char *buf, size_t size);

/* Open (and with KB_STORE_CREATE create) the store in folder dir.  When the
 * store cannot be opened for writing because of permissions (EACCES,
 * EROFS), it is opened read-only with a warning; kb_store_readonly() then
 * says so.  Errors: the folder cannot be created or opened, the files are
 * not an LMDB environment (MDB_INVALID, MDB_VERSION_MISMATCH), memory:
 * all KB_STORE_ERROR. */
int kb_store_open(kb_store **out, const char *dir, unsigned flags,
		  const kb_store_opts *opts, kb_err *err);

/* Close the store (NULL is ignored). */
void kb_store_close(kb_store *st);

/* 1 if the store was opened read-only. */
int kb_store_readonly(const kb_store *st);

/* Current map size in bytes. */
size_t kb_store_mapsize(kb_store *st);

/* Read opponent NAME.  Returns one of:
 *   KB_REC_OK       rec filled from a current record
 *   KB_REC_OLD      rec filled from an older format version (missing
 *                   fields zero); usable, upgraded at the next update
 *   KB_STORE_ABSENT no record of NAME (rec zeroed)
 *   KB_REC_NEWER    a record of a newer format, not read (rec zeroed, err)
 *   KB_REC_BAD      a damaged record (rec zeroed, err says why)
 *   KB_STORE_NAME   NAME is not a valid name (err)
 *   KB_STORE_ERROR  LMDB error (err)
 * kb_rec_usable(status) says whether rec was filled. */
int kb_store_get(kb_store *st, const char *name, kb_opp_rec *rec, kb_err *err);

/* One addition: with opponent set, delta (counts and samples) is added to
 * opponent NAME's record; with version not NULL, delta's games/won/lost
 * are added to the results of NAME under bot version VERSION. */
typedef struct kb_store_add {
	const char *name;
	const char *version;
	int opponent;
	kb_opp_rec delta;
} kb_store_add;

/* Apply n additions in ONE write transaction.  Records that cannot be
 * read (newer version, damaged) are left as they are and counted in
 * *skipped (may be NULL), with a warning.  Errors: KB_STORE_READONLY,
 * KB_STORE_NAME, KB_STORE_ERROR (map full beyond the bound, other LMDB
 * errors); then nothing was written. */
int kb_store_apply(kb_store *st, const kb_store_add *adds, int n, int *skipped,
		   kb_err *err);

/* Visit every record in key order inside one read transaction.  status is
 * the enum kb_rec_status of the decoding (the record is zero unless
 * kb_rec_usable(status)).  A callback returning non-zero stops the walk
 * (that value is returned, so callbacks should return values outside the
 * store's range).  Errors: KB_STORE_ERROR. */
typedef struct kb_store_visitor {
	int (*opponent)(void *ctx, const char *name, const kb_opp_rec *rec, int status);
	int (*results)(void *ctx, const char *version, const char *name,
		       const kb_res_rec *rec, int status);
	void *ctx;
} kb_store_visitor;
int kb_store_each(kb_store *st, const kb_store_visitor *v, kb_err *err);

/* Digest of the store's contents: FNV-1a 64 (core/hash.h) over every
 * record in key order, each as its key's length (4 bytes, little-endian),
 * key, value length and value, from one snapshot.  It changes exactly when
 * a record is added, removed or changed, never when LMDB merely reuses
 * pages or a process opens the store.  The records are hashed as stored,
 * whatever their format, so any LMDB environment can be digested (named
 * databases count as their entries in the main one).  Returns 0 with
 * *digest set, or KB_STORE_ERROR with err. */
int kb_store_digest(kb_store *st, uint64_t *digest, kb_err *err);

/* Delete opponent NAME's record and its results under every version, or
 * every record when name is NULL, in one write transaction; *deleted (may
 * be NULL) receives the number of records removed.  Errors:
 * KB_STORE_READONLY, KB_STORE_NAME, KB_STORE_ERROR. */
int kb_store_reset(kb_store *st, const char *name, long *deleted, kb_err *err);

/* Write len raw bytes as opponent NAME's record, unchecked: for tests that
 * need a record as an older or newer program (or damage) left it. */
int kb_store_put_raw(kb_store *st, const char *name, const uint8_t *val, size_t len,
		     kb_err *err);

#endif
