/* export.h - the store's text form, for moving a store between machines
 * and merging two stores.
 *
 * Format (one record per line, fields separated by single spaces):
 *
 *   kimble-state-export 1
 *   opponent NAME games G won W lost L decisions D easy E hard H samples S
 *   results VERSION NAME games G won W lost L
 *
 * Counts are unsigned decimal.  S is "-" when there are no samples, else
 * the min(D, 96) most recent decision samples, oldest first, each as 18
 * lowercase hex digits (the 9 bytes of model.h's kb_sample), concatenated.
 * Lines starting with '#' and empty lines are ignored on import.
 *
 * Import ADDS every line to the store (counts added, samples appended), in
 * one write transaction, so importing an export into an empty store copies
 * it and importing into a used store merges the two.
 */
#ifndef KB_STATE_EXPORT_H
#define KB_STATE_EXPORT_H

#include <stdio.h>

#include "core/store.h"

#define KB_EXPORT_MAGIC "kimble-state-export 1"

/* This module's statuses, in its own range -400..-499 (core/err.h).  The
 * functions below also pass on the store's statuses (store.h), which
 * cannot be mistaken for these. */
enum kb_export_status {
	KB_EXPORT_OK = 0,
	KB_EXPORT_MALFORMED = -401, /* import input malformed or unreadable:
				     * err names the line and what was expected */
	KB_EXPORT_WRITE = -402,     /* export: the output cannot be written */
	KB_EXPORT_NOMEM = -403      /* out of memory */
};

/* Write the whole store to out.  Unreadable records are written as
 * comments ("# skipped ...").  Returns KB_EXPORT_OK; KB_EXPORT_WRITE,
 * KB_EXPORT_NOMEM or KB_STORE_ERROR (cannot read the store), err set. */
int kb_export(kb_store *st, FILE *out, kb_err *err);

/* Read an export from in (named what, for messages) and add it to the
 * store.  *records (may be NULL) receives the number of records added.
 * Returns KB_EXPORT_OK; KB_EXPORT_MALFORMED with err naming the line and
 * what was expected when the input is malformed or cannot be read;
 * KB_EXPORT_NOMEM; or a store status of kb_store_apply (KB_STORE_READONLY,
 * KB_STORE_ERROR ...).  Nothing is written unless KB_EXPORT_OK. */
int kb_import(kb_store *st, FILE *in, const char *what, long *records, kb_err *err);

/* Format one opponent line (without '\n') into out of size bytes; for
 * tests.  Returns the length, or -1 when it does not fit. */
int kb_export_opponent_line(const char *name, const kb_opp_rec *rec, char *out, size_t size);

/* Parse one non-comment line into add (name and version point into line,
 * which is modified).  Returns KB_EXPORT_OK, or KB_EXPORT_MALFORMED with
 * err saying what was expected. */
int kb_import_line(char *line, kb_store_add *add, kb_err *err);

#endif
