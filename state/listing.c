/* listing.c - kimble-state list and show; see listing.h. */
#include <inttypes.h>
#include <string.h>

#include "listing.h"

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* The scores in which the bot plays with m: bit KB_NOT_AHEAD and bit
 * KB_AHEAD (kb_model_useful_at), 0 to 3. */
static int used_scores(const kb_model *m)
{
	return kb_model_useful_at(m, KB_NOT_AHEAD) << KB_NOT_AHEAD |
	       kb_model_useful_at(m, KB_AHEAD) << KB_AHEAD;
}

void kb_listing_belief(const kb_model *m, uint64_t decisions, char *out, size_t size)
{
	/* a model the bot does not trust is not used: say so, or the belief
	 * reads as what the bot plays against; likewise in one score */
	static const char *const mark[4] = {" (unused)", " (used not ahead only)",
					    " (used ahead only)", ""};
	enum kb_component c = kb_model_belief(m);
	const char *use = decisions ? mark[used_scores(m)] : "";

	snprintf(out, size, "%s%s%s %.2f%s", kb_component_name(c), c == KB_C_RULE ? " " : "",
		 c == KB_C_RULE ? kb_rule_name(m->rule) : "", m->weight[c], use);
}

/* What an old record (KB_REC_OLD) lacks, by its format version. */
static const char *old_format(const kb_opp_rec *r)
{
	static const char *const word[] = {"", "  (old format, version 1)", "  (old format, version 2)",
					   "  (old format, version 3)", "  (old format, version 4)"};

	return r->format >= 1 && r->format <= 4 ? word[r->format] : "";
}

/* Whether the bot plays against this opponent with the model, and why:
 * the rates kb_model_useful weighs (a bot author's first question). */
static void print_use(FILE *out, const kb_model *m, uint64_t decisions)
{
	if (!decisions) {
		fprintf(out, "\nused by the bot: no (no decisions yet: it assumes hard)");
		return;
	}
	if (kb_model_awaits_own_rate(m)) {
		fprintf(out, "\nused by the bot: not yet (fitted weights choose its most likely move: "
			"used only after %.0f of the bot's own predictions; on its samples that move "
			"was played %.0f%% of the time)", KB_MODEL_JUDGED_ENOUGH, 100.0 * m->accuracy);
		return;
	}
	static const char *const answer[4] = {"no", "when it is not ahead of the bot only",
					      "when it is ahead of the bot only", "yes"};
	const char *used = answer[used_scores(m)];
	/* the two rates come from different decisions: the bot's own
	 * predictions were made with each game's earlier model */
	fprintf(out, "\nused by the bot: %s (%s, its most likely move was played %.0f%% of the time,"
		" hard's %.0f%%; ", used,
		m->own_rate ? "predicted by the bot before each game" : "on its samples",
		100.0 * m->accuracy, 100.0 * m->hard_accuracy);
	if (m->score_own[KB_NOT_AHEAD] || m->score_own[KB_AHEAD])
		fprintf(out, "the rates by score below decide)");
	else
		fprintf(out, "used from %.0f%% and %.0f points above hard's)",
			100.0 * KB_MODEL_USEFUL_ACCURACY, 100.0 * KB_MODEL_USEFUL_MARGIN);
}

/* The rates by score (kb_model_useful_at), once the bot has predicted
 * the opponent itself: where a player switches policy with the score,
 * the model can be used in one score and not in the other. */
static void print_scores(FILE *out, const kb_model *m, const kb_model_stats *st)
{
	static const char *const score_name[KB_SCORES] = {"not ahead of the bot", "ahead of the bot"};

	if (st->score_judged[KB_NOT_AHEAD] + st->score_judged[KB_AHEAD] <= 0)
		return;
	fprintf(out, "\nby score, the bot's own predictions (used from %.0f%% and %.0f points above "
		"hard's):", 100.0 * KB_MODEL_USEFUL_SCORE_ACCURACY, 100.0 * KB_MODEL_USEFUL_MARGIN);
	for (int k = 0; k < KB_SCORES; k++) {
		fprintf(out, "\n  %s: ", score_name[k]);
		if (!m->score_own[k])
			fprintf(out, "%.0f judged, fewer than %.0f: the rates over both scores decide (%s)",
				st->score_judged[k], KB_MODEL_JUDGED_ENOUGH,
				kb_model_useful_at(m, (enum kb_score)k) ? "used" : "not used");
		else
			fprintf(out, "its most likely move %.0f%%, hard's %.0f%%, of %.0f judged: %s",
				100.0 * m->score_accuracy[k], 100.0 * m->score_hard_accuracy[k],
				st->score_judged[k],
				kb_model_useful_at(m, (enum kb_score)k) ? "used"
									: "not used (hard's move assumed)");
	}
}

static const char *status_word(int status)
{
	return status == KB_REC_NEWER ? "newer-format record, not read" : "damaged record";
}

static int list_one(void *ctx, const char *name, const kb_opp_rec *r, int status)
{
	FILE *out = ctx;
	kb_model m;
	char belief[64];

	if (!kb_rec_usable(status)) {
		fprintf(out, "%-20s %s\n", name, status_word(status));
		return 0;
	}
	kb_model_fit(&m, &r->model);
	kb_listing_belief(&m, r->model.decisions, belief, sizeof belief);
	fprintf(out, "%-20s %8" PRIu64 " %8" PRIu64 " %6.1f%% %8" PRIu64 " %10" PRIu64 "  %s%s\n",
		name, r->games, r->won, pct(r->won, r->games), r->lost, r->model.decisions, belief,
		status == KB_REC_OLD ? old_format(r) : "");
	return 0;
}

int kb_listing_opponents(kb_store *st, FILE *out, kb_err *err)
{
	kb_store_visitor v = {list_one, NULL, out};

	fprintf(out, "%-20s %8s %8s %7s %8s %10s  %s\n", "OPPONENT", "GAMES", "WON", "WIN%",
		"LOST", "DECISIONS", "BELIEF");
	return kb_store_each(st, &v, err);
}

typedef struct show_ctx {
	FILE *out;
	const char *name;
	int versions;
} show_ctx;

static int show_results(void *ctx, const char *version, const char *name,
			const kb_res_rec *r, int status)
{
	show_ctx *c = ctx;

	if (strcmp(name, c->name) != 0)
		return 0;
	if (!c->versions++)
		fprintf(c->out, "results by bot version:\n");
	if (!kb_rec_usable(status))
		fprintf(c->out, "  %-16s unreadable record\n", version);
	else
		fprintf(c->out, "  %-16s games %" PRIu64 " won %" PRIu64 " (%.1f%%) lost %" PRIu64 "\n",
			version, r->games, r->won, pct(r->won, r->games), r->lost);
	return 0;
}

int kb_listing_opponent(kb_store *st, const char *name, FILE *out, kb_err *err)
{
	kb_opp_rec r;
	kb_model m;
	show_ctx c = {out, name, 0};
	kb_store_visitor v = {NULL, show_results, &c};
	int rc = kb_store_get(st, name, &r, err), each;

	if (rc == KB_STORE_ERROR || rc == KB_STORE_NAME)
		return rc;
	if (rc == KB_REC_NEWER || rc == KB_REC_BAD) {
		fprintf(out, "opponent %s: %s\n", name, status_word(rc));
	} else if (kb_rec_usable(rc)) {
		kb_model_fit(&m, &r.model);
		fprintf(out, "opponent %s\n", name);
		if (rc == KB_REC_OLD && r.format == 1)
			fprintf(out, "old record format (version 1): games, won and lost only;\n"
				"no decisions were kept, so the model is the prior; the record\n"
				"is rewritten in the current format at the next game or import\n");
		else if (rc == KB_REC_OLD && r.format == 2)
			fprintf(out, "old record format (version 2): the model's faded statistics\n"
				"were rebuilt from the kept samples; the record is rewritten in\n"
				"the current format at the next game or import\n");
		else if (rc == KB_REC_OLD && r.format == 3)
			fprintf(out, "old record format (version 3): no chase levels were kept\n"
				"(the heuristic learns that feature from new decisions); the record\n"
				"is rewritten in the current format at the next game or import\n");
		else if (rc == KB_REC_OLD)
			fprintf(out, "old record format (version 4): no predictions by score were\n"
				"kept (the bot's rates over both scores decide until it has made\n"
				"%.0f in a score); the record is rewritten in the current format at\n"
				"the next game or import\n", KB_MODEL_JUDGED_ENOUGH);
		fprintf(out, "games %" PRIu64 ", won %" PRIu64 " (%.1f%%), lost %" PRIu64 "\n",
			r.games, r.won, pct(r.won, r.games), r.lost);
		fprintf(out, "decisions %" PRIu64 " (matching easy %" PRIu64 ", hard %" PRIu64
			"), %d kept as samples\n", r.model.decisions, r.model.easy_hits,
			r.model.hard_hits, kb_model_samples(&r.model));
		fprintf(out, "model:");
		for (int k = 0; k < KB_COMPONENTS; k++)
			fprintf(out, " %s %.3f", kb_component_name((enum kb_component)k), m.weight[k]);
		if (kb_model_belief(&m) == KB_C_RULE)
			fprintf(out, "\nrule: %s", kb_rule_name(m.rule));
		print_use(out, &m, r.model.decisions);
		print_scores(out, &m, &r.model);
		fprintf(out, "\nheuristic weights:");
		for (int k = 0; k < KB_FEATURES; k++)
			fprintf(out, " %s %+.2f", kb_feature_name(k), m.w[k]);
		fprintf(out, "\n");
	}
	if ((each = kb_store_each(st, &v, err)))
		return each;
	if (rc == KB_STORE_ABSENT && c.versions == 0)
		return KB_STORE_ABSENT;
	return KB_STORE_OK;
}
