/* learn.c - learned opponent models and the end-of-game update; see
 * learn.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/num.h"
#include "core/policy.h"
#include "learn.h"

static void say(const kb_learn *l, const char *what, const char *why)
{
	if (l->diag)
		fprintf(l->diag, "kimble-bot: learning: %s: %s\n", what, why);
}

/* easy and hard keep their exact models; every other name is learned. */
static int builtin_name(const char *name)
{
	enum kb_policy kind = kb_opponent_kind_of(name, strlen(name));

	return kind == KB_EASY || kind == KB_HARD;
}

/* 1 when the learned model answers for seat in pos, 0 when hard's move
 * does (the model is not used in that score).  The search asks at every
 * opponent node: the score is computed only when it matters. */
static int model_answers(const kb_learned *ld, const kb_pos *pos, int seat)
{
	if (ld->use_at[KB_NOT_AHEAD] == ld->use_at[KB_AHEAD])
		return ld->use_at[KB_AHEAD];
	return ld->use_at[kb_model_score(pos, seat)];
}

static void learned_probs(void *ctx, const kb_pos *pos, int seat, int die, unsigned mask,
			  double prob[KB_PIECES])
{
	const kb_learned *ld = ctx;

	if (model_answers(ld, pos, seat))
		kb_model_probs(ld->model, pos, seat, die, mask, prob);
	else
		kb_opponent_hard.probs(NULL, pos, seat, die, mask, prob);
}

static int learned_pick(void *ctx, const kb_pos *pos, int seat, int die, unsigned mask)
{
	const kb_learned *ld = ctx;

	return model_answers(ld, pos, seat) ? kb_model_pick(ld->model, pos, seat, die, mask)
					    : kb_pick_hard(mask);
}

/* A model sure of one rule: the rule's pick, which computes only the
 * features the rule reads (the speed of a built-in model). */
static int rule_pick(void *ctx, const kb_pos *pos, int seat, int die, unsigned mask)
{
	const kb_learned *ld = ctx;

	return model_answers(ld, pos, seat) ? kb_rule_pick(ld->model->rule, pos, seat, die, mask)
					    : kb_pick_hard(mask);
}

/* Read and fit the model of seat s's opponent. */
static void load_seat(kb_learn *l, int s)
{
	kb_opp_rec rec;
	kb_err err;
	int rc = kb_store_get(l->store, l->name[s], &rec, &err);

	l->readable[s] = rc == KB_REC_OK || rc == KB_REC_OLD || rc == KB_STORE_ABSENT;
	if (!l->readable[s]) {
		say(l, "using the prior model", err.msg);
		return;
	}
	kb_model_fit(&l->model[s], &rec.model);
	l->easy_like[s] = rec.model.easy_hits > rec.model.hard_hits;
}

void kb_learn_names(const char *spec, char names[KB_SEATS][KB_NAME_MAX + 1])
{
	memset(names, 0, sizeof(char) * KB_SEATS * (KB_NAME_MAX + 1));
	for (int s = 1; s < KB_SEATS && spec; s++) {
		size_t n = strcspn(spec, ",");
		if (n <= KB_NAME_MAX && kb_opponent_kind_of(spec, n) != KB_ABSENT) {
			memcpy(names[s], spec, n);
			names[s][n] = 0;
		}
		spec = spec[n] ? spec + n + 1 : NULL;
	}
}

/* kb_learn_open and kb_learn_open_frozen. */
static void open_store(kb_learn *l, const char *path, unsigned present,
		       const char *const names[KB_SEATS], const kb_store_opts *opts, FILE *diag,
		       int frozen)
{
	char dir[512], data[600];
	kb_store_opts o = {0, 0, diag};
	kb_err err;

	memset(l, 0, sizeof *l);
	l->diag = diag;
	l->frozen = frozen;
	const char *max = getenv(KB_STORE_ENV_MAP_MAX);
	long long bytes;
	if (max && *max && kb_num_range(KB_STORE_ENV_MAP_MAX, max, 1, (long long)(SIZE_MAX >> 1),
					&bytes, &err) == KB_NUM_OK)
		o.map_max = (size_t)bytes;
	else if (max && *max)
		say(l, "map bound ignored, using the default", err.msg);
	if (opts)
		o = *opts;
	for (int s = 1; s < KB_SEATS; s++) {
		kb_model_prior(&l->model[s]);
		if ((present >> s & 1) && names[s] && kb_name_ok(names[s], strlen(names[s])))
			strcpy(l->name[s], names[s]);
	}
	if (!kb_store_path(path, dir, sizeof dir)) {
		say(l, "not learning this game", "the store path is too long");
		return;
	}
	snprintf(data, sizeof data, "%s/data.mdb", dir);
	if (frozen && access(data, F_OK) != 0 && errno == ENOENT) {
		if (l->diag)
			fprintf(l->diag, "kimble-bot: learning frozen: no store at %s (none created): "
				"playing with the prior models\n", dir);
		return;
	}
	if (kb_store_open(&l->store, dir, frozen ? KB_STORE_FROZEN : KB_STORE_CREATE, &o, &err)) {
		say(l, "not learning this game", err.msg);
		l->store = NULL;
		return;
	}
	for (int s = 1; s < KB_SEATS; s++)
		if (l->name[s][0])
			load_seat(l, s);
}

void kb_learn_open(kb_learn *l, const char *path, unsigned present,
		   const char *const names[KB_SEATS], const kb_store_opts *opts, FILE *diag)
{
	open_store(l, path, present, names, opts, diag, 0);
}

void kb_learn_open_frozen(kb_learn *l, const char *path, unsigned present,
			  const char *const names[KB_SEATS], const kb_store_opts *opts,
			  FILE *diag)
{
	open_store(l, path, present, names, opts, diag, 1);
}

void kb_learn_models(kb_learn *l, const kb_opponent *opp[KB_SEATS])
{
	for (int s = 1; s < KB_SEATS; s++) {
		if (!l->name[s][0] || builtin_name(l->name[s]))
			continue;
		kb_opponent *o = &l->opp[s];
		const kb_model *m = &l->model[s];
		/* a model that predicts no better than the default assumption
		 * leaves the seat as learning off plays it: learning never
		 * costs where it is unsure */
		kb_learned *ld = &l->learned[s];
		ld->model = m;
		for (int sc = 0; sc < KB_SCORES; sc++)
			ld->use_at[sc] = kb_model_useful_at(m, (enum kb_score)sc);
		if (!kb_model_useful(m))
			continue;
		o->probs = learned_probs;
		o->ctx = ld;
		o->name = l->name[s];
		o->kind = KB_EXTERNAL;
		o->pick = learned_pick;
		/* the built-ins' fast paths know no score */
		int every_score = ld->use_at[KB_NOT_AHEAD] && ld->use_at[KB_AHEAD];
		if (every_score && m->weight[KB_C_EASY] >= KB_LEARN_EXACT)
			o->kind = KB_EASY;
		else if (every_score && m->weight[KB_C_HARD] >= KB_LEARN_EXACT)
			o->kind = KB_HARD;
		else if (m->weight[KB_C_RULE] >= KB_LEARN_EXACT)
			o->pick = rule_pick;
		opp[s] = o;
	}
}

void kb_learn_set_evaluation(const kb_learn *l, kb_search *bot)
{
	for (int s = 1; s < KB_SEATS; s++) {
		if (bot->opp[s] != &l->opp[s] || l->opp[s].kind != KB_EXTERNAL)
			continue;
		if (l->easy_like[s])
			bot->kinds[s] = KB_EASY;
		/* a fitted heuristic predicts this seat's moves far better than
		 * foremost or rearmost: let it say what the seat threatens at the
		 * leaves too (the prior stays on the cheaper type rule) */
		if (l->leaf_models && ((kb_model_belief(&l->model[s]) == KB_C_LOGIT &&
					l->model[s].weight[KB_C_LOGIT] >= KB_LEARN_LEAF) ||
				       l->opp[s].pick == rule_pick))
			bot->leaf_model[s] = &l->opp[s];
	}
}

void kb_learn_observe(void *ctx, const kb_observation *ob)
{
	kb_learn *l = ctx;

	int s = ob->seat;

	if (s < 1 || s >= KB_SEATS || !l->name[s][0] ||
	    kb_model_observe(&l->seen[s], &ob->pos, s, ob->die, ob->mask, ob->index))
		return;
	/* the learned model's prediction, used or not: its out-of-sample
	 * accuracy decides whether it is used (kb_model_useful) */
	int predicted = kb_model_pick(&l->model[s], &ob->pos, s, ob->die, ob->mask);
	kb_model_observe_prediction(&l->seen[s], kb_model_score(&ob->pos, s),
				    predicted == ob->index, kb_pick_hard(ob->mask) == ob->index);
}

int kb_learn_commit(kb_learn *l, int winner)
{
	kb_store_add adds[KB_SEATS];
	int n = 0, skipped = 0;
	kb_err err;

	if (l->frozen)
		return 0;
	if (!l->store)
		return -1;
	if (kb_store_readonly(l->store)) {
		say(l, "game not recorded", "the store is read-only");
		return -1;
	}
	memset(adds, 0, sizeof adds);
	for (int s = 1; s < KB_SEATS; s++) {
		int k;
		if (!l->name[s][0] || !l->readable[s])
			continue;
		for (k = 0; k < n && strcmp(adds[k].name, l->name[s]); k++)
			;
		if (k == n) { /* first seat with this name: one game against it */
			adds[n].name = l->name[s];
			adds[n].version = KB_BOT_VERSION;
			adds[n].opponent = 1;
			adds[n].delta.games = 1;
			adds[n].delta.won = winner == 0;
			n++;
		}
		if (winner == s)
			adds[k].delta.lost = 1;
		kb_model_stats_add(&adds[k].delta.model, &l->seen[s]);
		/* the next fit starts from this one (model.h: fit_w) */
		memcpy(adds[k].delta.model.fit_w, l->model[s].w, sizeof l->model[s].w);
	}
	if (n == 0)
		return 0;
	if (kb_store_apply(l->store, adds, n, &skipped, &err)) {
		say(l, "game not recorded", err.msg);
		return -1;
	}
	return 0;
}

void kb_learn_close(kb_learn *l)
{
	kb_store_close(l->store);
	l->store = NULL;
}
