/* report.h - what kimble-state list and show print.
 *
 * Status: the store's (store.h): KB_STORE_OK; KB_STORE_ERROR (err set);
 * kb_listing_opponent also KB_STORE_ABSENT when NAME has no records at all and
 * KB_STORE_NAME for a name that is not valid.
 */
#ifndef KB_STATE_LISTING_H
#define KB_STATE_LISTING_H

#include <stdio.h>

#include "core/store.h"

/* One line per opponent: games, won, win rate, lost, decisions, belief. */
int kb_listing_opponents(kb_store *st, FILE *out, kb_err *err);

/* Everything about one opponent: counts, the fitted model's component
 * weights and feature weights, results per bot version. */
int kb_listing_opponent(kb_store *st, const char *name, FILE *out, kb_err *err);

/* "easy 0.98" style summary of a fitted model into out ("rule
 * capture>rear 1.00" for a rule), followed, when the model was fitted to
 * decisions (decisions > 0), by " (unused)" when the bot does not play
 * with it (kb_model_useful), " (used ahead only)" or " (used not ahead
 * only)" when it does in one score only (kb_model_useful_at). */
void kb_listing_belief(const kb_model *m, uint64_t decisions, char *out, size_t size);

#endif
