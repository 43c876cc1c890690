/* learn.h - the bot's learning across games: the learned
 * opponent models loaded from the store (core/store.h) at the start of a game,
 * this game's observed opponent choices, and the one write transaction
 * that records the game at its end.
 *
 * Failure is never fatal to play: when the store cannot be opened (missing
 * and not creatable, not an LMDB environment, read-only) or a record
 * cannot be read, the bot plays with the prior model (or without learning)
 * and says why on the diagnostics stream.
 *
 * Names: "easy" and "hard" are the server's built-in policies and keep
 * their exact models (their statistics are still recorded); every other
 * name gets the learned model (model.h), the prior when nothing is known.
 */
#ifndef KB_BOT_LEARN_H
#define KB_BOT_LEARN_H

#include <stdio.h>

#include "observe.h"
#include "opponent.h"
#include "search.h"
#include "core/model.h"
#include "core/store.h"

/* Results are kept per bot version under this name. */
#define KB_BOT_VERSION "kimble-bot-1"

/* A learned model at least this sure of easy, hard or one rule is used as
 * that exact policy (fast path of the search; easy and hard also set the
 * evaluation kind). */
#define KB_LEARN_EXACT 0.9

/* With leaf_models set, a learned model at least this sure of the
 * heuristic (logit) explanation, or exact for a rule, also decides the
 * seat's danger terms in the evaluation (eval.h).  Off by default: a leaf
 * costs about 0.2 us and the model's pick for each of six dice 1.5 to 2.7
 * times that (learned decisions were 3x slower), for about one point
 * against the pacifist and nothing measurable against the others. */
#define KB_LEARN_LEAF 0.5

/* What the search asks about a learned seat: its fitted model, and the
 * scores in which the model is used (kb_model_useful_at); in the others
 * the seat plays hard's move, the default assumption. */
typedef struct kb_learned {
	const kb_model *model;
	int use_at[KB_SCORES];
} kb_learned;

typedef struct kb_learn {
	kb_store *store;                     /* NULL: nothing is recorded */
	int frozen;                          /* use the store, change nothing */
	int leaf_models;                     /* 1: leaf models (KB_LEARN_LEAF);
						kb_learn_open sets 0 */
	FILE *diag;                          /* warnings, or NULL */
	char name[KB_SEATS][KB_NAME_MAX + 1];/* opponent names, "" for A/absent */
	int readable[KB_SEATS];              /* record read fine (or absent) */
	kb_model model[KB_SEATS];            /* fitted models */
	kb_opponent opp[KB_SEATS];           /* their kb_opponent adapters */
	kb_learned learned[KB_SEATS];        /* the adapters' contexts */
	kb_model_stats seen[KB_SEATS];       /* this game's observations */
	int easy_like[KB_SEATS];             /* matched easy more often than hard */
} kb_learn;

/* The names of seats B, C, D from an OPPONENTS argument that
 * kb_lineup_parse accepted ("" for absent seats and for seat A). */
void kb_learn_names(const char *spec, char names[KB_SEATS][KB_NAME_MAX + 1]);

/* Open the store at path (NULL: kb_store_path's default rules), creating
 * it (map growth bounded by $KIMBLE_STATE_MAP_MAX bytes when set), and fit the model of every named opponent seat (names[s] for s = 1..3,
 * NULL for absent seats).  Never fails: problems are reported on diag and
 * leave l->store NULL or models at their prior.  opts may be NULL. */
void kb_learn_open(kb_learn *l, const char *path, unsigned present,
		   const char *const names[KB_SEATS], const kb_store_opts *opts, FILE *diag);

/* As kb_learn_open with learning frozen (KIMBLE_LEARN=0): the store is
 * read as a KB_STORE_FROZEN store (store.h: no file created, written or
 * locked, lock.mdb included) and kb_learn_commit records nothing, so the
 * store's files stay byte for byte as they were.  A missing store is not
 * created: the bot plays with the prior models, the same as with an empty
 * store, and says so on diag.  The models, and so the bot's decisions, are
 * those kb_learn_open would give for the same store. */
void kb_learn_open_frozen(kb_learn *l, const char *path, unsigned present,
			  const char *const names[KB_SEATS], const kb_store_opts *opts,
			  FILE *diag);

/* Replace opp[s] by the learned model for every seat whose name is not
 * "easy" or "hard" and whose model predicts the seat's moves better than
 * the default (kb_model_useful); the others keep opp[s]. */
void kb_learn_models(kb_learn *l, const kb_opponent *opp[KB_SEATS]);

/* After kb_search_init: evaluate a learned seat whose choices matched easy
 * more often than hard as an easy-like player (the evaluation's piece
 * order, eval.h), the rest as hard-like (kb_search_init's default); with
 * l->leaf_models, a seat whose model is at least KB_LEARN_LEAF sure of the
 * heuristic, or exact for a rule, also gets that model as its leaf model
 * (bot->leaf_model, search.h). */
void kb_learn_set_evaluation(const kb_learn *l, kb_search *bot);

/* A kb_observe_fn (ctx = the kb_learn): records an opponent's choice. */
void kb_learn_observe(void *ctx, const kb_observation *ob);

/* Record the finished game (winner seat from the bot's point of view) in
 * one write transaction.  Returns 0 (also when learning is frozen: nothing
 * is written), or -1 after a warning on diag when nothing could be
 * recorded. */
int kb_learn_commit(kb_learn *l, int winner);

/* Close the store. */
void kb_learn_close(kb_learn *l);

#endif
