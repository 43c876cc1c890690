/* eval.c - softmax evaluation over seat scores; see eval.h. */
#include <math.h>
#include <stddef.h>

#include "core/policy.h"
#include "eval.h"
#include "opponent.h"
#include "weights.h"

/* The position as the features need it, computed once per evaluation. */
typedef struct view {
	uint32_t occ[KB_SEATS];        /* bit r: the seat has a piece at progress r */
	int8_t owner[KB_TRACK];        /* seat on each ring square, or -1 */
	int ntrack[KB_SEATS];          /* ring pieces of each seat... */
	int8_t sq[KB_SEATS][KB_PIECES];   /* ...their squares */
	int8_t prog[KB_SEATS][KB_PIECES]; /* ...and progress */
} view;

static void view_of(const kb_pos *pos, view *v)
{
	for (int q = 0; q < KB_TRACK; q++)
		v->owner[q] = -1;
	for (int s = 0; s < KB_SEATS; s++) {
		v->occ[s] = 0;
		v->ntrack[s] = 0;
		if (!kb_present(pos, s))
			continue;
		for (int i = 0; i < KB_PIECES; i++) {
			int r = pos->prog[s][i];
			if (r < 0)
				break;
			v->occ[s] |= 1u << r;
			if (r > KB_LAST_TRACK)
				continue;
			int q = kb_ring_square(s, r), n = v->ntrack[s]++;
			v->owner[q] = (int8_t)s;
			v->sq[s][n] = (int8_t)q;
			v->prog[s][n] = (int8_t)r;
		}
	}
}

/* Add to the victims' danger what seat o's next roll would hit, for
 * each die, moving the piece its model picks (model non-NULL) or else the
 * piece its kind picks. */
static void hits_of(const kb_pos *pos, const view *v, int o, int kind,
		    const kb_opponent *model, kb_seat_features f[KB_SEATS])
{
	const int8_t *p = pos->prog[o];

	for (int d = 1; d <= 6; d++) {
		int idx;
		if (model || kind == KB_EASY) {
			unsigned mask = kb_legal_occ(p, v->occ[o], d);
			if (!mask)
				continue;
			idx = kind == KB_EASY ? kb_pick_easy(mask) : kb_pick_hard(mask);
			if (model && (mask & (mask - 1)))
				idx = kb_opponent_pick(model, pos, o, d, mask);
		} else if ((idx = kb_hard_occ(p, v->occ[o], d)) < 0) {
			continue; /* hard's piece found without the whole mask */
		}
		int to = kb_move_target(p[idx], d);
		if (to > KB_LAST_TRACK)
			continue;
		int sq = kb_ring_square(o, to), victim = v->owner[sq];
		if (victim < 0 || victim == o)
			continue;
		int rv = kb_ring_progress(victim, sq);
		f[victim].danger += 1.0 / 6;
		f[victim].dprog += (rv + 1) / (6.0 * KB_TRACK);
		f[victim].hit[f[victim].nhit++] = (uint8_t)kb_eval_bucket(rv);
	}
}

/* Record in f[s] every piece of another seat o that stands k = 1..12
 * squares behind one of s's ring pieces and could still reach it (it
 * would not have turned into its goal first), and k = 0 for a piece of s
 * on o's start square while o has a piece at home.  The search sees the
 * next roll exactly; these say what threatens over the rolls after it. */
static void near_of(const kb_pos *pos, const view *v, int s, kb_seat_features *f)
{
	for (int i = 0; i < v->ntrack[s]; i++) {
		int sq = v->sq[s][i], zone = v->prog[s][i] / 4;
		for (int o = 0; o < KB_SEATS; o++) {
			if (o == s || !kb_present(pos, o))
				continue;
			if (sq == kb_ring_square(o, 0) && pos->prog[o][KB_PIECES - 1] == KB_HOME)
				f->near[f->nnear++] = (uint8_t)zone;
			for (int j = 0; j < v->ntrack[o]; j++) {
				int k = (sq - v->sq[o][j] + KB_TRACK) % KB_TRACK;
				if (k >= 1 && k < KB_EVAL_REACH && v->prog[o][j] + k <= KB_LAST_TRACK)
					f->near[f->nnear++] = (uint8_t)(k * KB_EVAL_ZONES + zone);
			}
		}
	}
}

static void features_with(const kb_pos *pos, const uint8_t kinds[KB_SEATS],
			  const kb_opponent *const models[KB_SEATS], int turn,
			  kb_seat_features f[KB_SEATS])
{
	view v;

	view_of(pos, &v);
	for (int s = 0; s < KB_SEATS; s++) {
		f[s].danger = f[s].dprog = 0;
		f[s].tempo = s == turn;
		f[s].nhit = f[s].nnear = 0;
		for (int i = 0; i < KB_PIECES; i++)
			f[s].bucket[i] = kb_eval_bucket(pos->prog[s][i]);
		if (kb_present(pos, s))
			near_of(pos, &v, s, &f[s]);
	}
	for (int o = 0; o < KB_SEATS; o++)
		if (kb_present(pos, o))
			hits_of(pos, &v, o, kinds[o], models ? models[o] : NULL, f);
}

void kb_eval_features(const kb_pos *pos, const uint8_t kinds[KB_SEATS], int turn,
		      kb_seat_features f[KB_SEATS])
{
	features_with(pos, kinds, NULL, turn, f);
}

double kb_eval_score(const kb_weights *w, int type, const kb_seat_features *f)
{
	double sc = w->danger[type] * f->danger + w->dprog[type] * f->dprog +
		    w->tempo[type] * f->tempo;

	const float *near = &w->behind[type][0][0];

	for (int i = 0; i < KB_PIECES; i++) {
		sc += w->piece[type][f->bucket[i]];
		for (int j = i + 1; j < KB_PIECES; j++)
			sc += w->pair[type][f->bucket[i]][f->bucket[j]];
	}
	for (int h = 0; h < f->nhit; h++)
		sc += w->hit[type][f->hit[h]] * (1.0 / 6);
	for (int n = 0; n < f->nnear; n++)
		sc += near[f->near[n]];
	return sc;
}

void kb_eval_step(kb_weights *w, int type, const kb_seat_features *f, double delta)
{
	float *near = &w->behind[type][0][0];

	w->danger[type] += (float)(delta * f->danger);
	w->dprog[type] += (float)(delta * f->dprog);
	w->tempo[type] += (float)(delta * f->tempo);
	for (int i = 0; i < KB_PIECES; i++) {
		w->piece[type][f->bucket[i]] += (float)delta;
		for (int j = i + 1; j < KB_PIECES; j++)
			w->pair[type][f->bucket[i]][f->bucket[j]] += (float)delta;
	}
	for (int h = 0; h < f->nhit; h++)
		w->hit[type][f->hit[h]] += (float)(delta / 6);
	for (int n = 0; n < f->nnear; n++)
		near[f->near[n]] += (float)delta;
}

double kb_eval_models(const kb_weights *w, const uint8_t kinds[KB_SEATS],
		      const kb_opponent *const models[KB_SEATS], const kb_pos *pos, int turn)
{
	double score[KB_SEATS], sum = 0;
	kb_seat_features f[KB_SEATS];

	for (int s = 0; s < KB_SEATS; s++)
		if (kb_present(pos, s) && kb_has_won(pos, s))
			return s == 0 ? 1.0 : 0.0;
	features_with(pos, kinds, models, turn, f);
	for (int s = 0; s < KB_SEATS; s++)
		if (kb_present(pos, s))
			score[s] = kb_eval_score(w, kb_eval_type(pos, kinds[s]), &f[s]);
	for (int s = 0; s < KB_SEATS; s++)
		if (kb_present(pos, s))
			sum += exp(score[s] - score[0]);
	return 1.0 / sum;
}

double kb_eval(const kb_weights *w, const uint8_t kinds[KB_SEATS], const kb_pos *pos,
	       int turn)
{
	return kb_eval_models(w, kinds, NULL, pos, turn);
}

int kb_eval_greedy(const kb_weights *w, const uint8_t kinds[KB_SEATS], const kb_pos *pos,
		   int d, unsigned mask)
{
	double best = -1.0;
	int pick = kb_pick_hard(mask);

	if (!(mask & (mask - 1)))
		return pick;
	for (int i = 0; i < KB_PIECES; i++) {
		if (!((mask >> i) & 1))
			continue;
		kb_pos p = *pos;
		kb_apply(&p, 0, i, d);
		if (kb_has_won(&p, 0))
			return i;
		double v = kb_eval(w, kinds, &p, kb_next_seat(&p, 0, d));
		if (v > best) {
			best = v;
			pick = i;
		}
	}
	return pick;
}
