/* eval.c - softmax evaluation over seat scores; see eval.h. */
#include <math.h>
#include <stddef.h>

#include "eval.h"
#include "opponent.h"
#include "weights.h"

/* Add to the victims' danger what seat o's next roll would hit, for
 * each die, moving the piece its model picks (model non-NULL) or else the
 * piece its type picks. */
static void hits_of(const kb_pos *pos, int o, int type, const kb_opponent *model,
		    kb_seat_features f[KB_SEATS])
{
	for (int d = 1; d <= 6; d++) {
		unsigned mask = kb_legal(pos, o, d);
		if (!mask)
			continue;
		int idx = type == 1 ? 31 - __builtin_clz(mask) : __builtin_ctz(mask);
		if (model && (mask & (mask - 1)))
			idx = kb_opponent_pick(model, pos, o, d, mask);
		int r = pos->prog[o][idx];
		int to = r == KB_HOME ? 0 : r + d;
		if (to > KB_LAST_TRACK)
			continue;
		int sq = kb_ring_square(o, to);
		for (int v = 0; v < KB_SEATS; v++) {
			if (v == o || !kb_present(pos, v))
				continue;
			int rv = (sq - 7 * v + 2 * KB_TRACK) % KB_TRACK;
			const int8_t *q = pos->prog[v];
			if (q[0] == rv || q[1] == rv || q[2] == rv || q[3] == rv) {
				f[v].danger += 1.0 / 6;
				f[v].dprog += (rv + 1) / (6.0 * KB_TRACK);
				break;
			}
		}
	}
}

static void features_with(const kb_pos *pos, const uint8_t types[KB_SEATS],
			  const kb_opponent *const models[KB_SEATS], int turn,
			  kb_seat_features f[KB_SEATS])
{
	for (int s = 0; s < KB_SEATS; s++) {
		f[s].danger = f[s].dprog = 0;
		f[s].tempo = s == turn;
		for (int i = 0; i < KB_PIECES; i++)
			f[s].bucket[i] = kb_eval_bucket(pos->prog[s][i]);
	}
	for (int o = 0; o < KB_SEATS; o++)
		if (kb_present(pos, o))
			hits_of(pos, o, types[o], models ? models[o] : NULL, f);
}

void kb_eval_features(const kb_pos *pos, const uint8_t types[KB_SEATS], int turn,
		      kb_seat_features f[KB_SEATS])
{
	features_with(pos, types, NULL, turn, f);
}

double kb_eval_score(const kb_weights *w, int type, const kb_seat_features *f)
{
	double sc = w->danger[type] * f->danger + w->dprog[type] * f->dprog +
		    w->tempo[type] * f->tempo;

	for (int i = 0; i < KB_PIECES; i++)
		sc += w->piece[type][f->bucket[i]];
	return sc;
}

double kb_eval_models(const kb_weights *w, const uint8_t types[KB_SEATS],
		      const kb_opponent *const models[KB_SEATS], const kb_pos *pos, int turn)
{
	double score[KB_SEATS], sum = 0;
	kb_seat_features f[KB_SEATS];

	for (int s = 0; s < KB_SEATS; s++)
		if (kb_present(pos, s) && kb_has_won(pos, s))
			return s == 0 ? 1.0 : 0.0;
	features_with(pos, types, models, turn, f);
	for (int s = 0; s < KB_SEATS; s++)
		if (kb_present(pos, s))
			score[s] = kb_eval_score(w, kb_eval_type(pos, types[s]), &f[s]);
	for (int s = 0; s < KB_SEATS; s++)
		if (kb_present(pos, s))
			sum += exp(score[s] - score[0]);
	return 1.0 / sum;
}

double kb_eval(const kb_weights *w, const uint8_t types[KB_SEATS], const kb_pos *pos,
	       int turn)
{
	return kb_eval_models(w, types, NULL, pos, turn);
}
