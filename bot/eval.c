/* eval.c - softmax evaluation over seat scores; see eval.h. */
#include <math.h>

#include "eval.h"
#include "weights.h"

/* 1 if a ring piece of seat s at progress r can be hit by seat o's next
 * roll: an o piece 1..6 squares behind that does not pass its own goal
 * entry, or r's square is o's start square and o has a piece at home. */
static int hittable(const kb_pos *pos, int s, int r, int o)
{
	int sq = kb_ring_square(s, r);
	int ro = (sq - 7 * o + 2 * KB_TRACK) % KB_TRACK; /* sq as o's progress */
	const int8_t *q = pos->prog[o];

	for (int j = 0; j < KB_PIECES; j++) {
		int d = ro - q[j];
		if (q[j] == KB_HOME)
			return ro == 0;
		if (q[j] <= KB_LAST_TRACK && d >= 1 && d <= 6)
			return 1;
	}
	return 0;
}

void kb_eval_features(const kb_pos *pos, int s, int turn, kb_seat_features *f)
{
	f->threat = 0;
	f->tempo = s == turn;
	for (int i = 0; i < KB_PIECES; i++) {
		int r = pos->prog[s][i];
		f->bucket[i] = kb_eval_bucket(r);
		if (r < 0 || r > KB_LAST_TRACK)
			continue;
		for (int o = 0; o < KB_SEATS; o++)
			if (o != s && kb_present(pos, o) && hittable(pos, s, r, o)) {
				f->threat++;
				break;
			}
	}
}

double kb_eval_score(const kb_weights *w, int type, const kb_seat_features *f)
{
	double sc = w->threat[type] * f->threat + w->tempo[type] * f->tempo;

	for (int i = 0; i < KB_PIECES; i++)
		sc += w->piece[type][f->bucket[i]];
	return sc;
}

double kb_eval(const kb_weights *w, const uint8_t types[KB_SEATS], const kb_pos *pos,
	       int turn)
{
	double score[KB_SEATS], sum = 0;
	kb_seat_features f;

	for (int s = 0; s < KB_SEATS; s++) {
		if (!kb_present(pos, s))
			continue;
		if (kb_has_won(pos, s))
			return s == 0 ? 1.0 : 0.0;
		kb_eval_features(pos, s, turn, &f);
		score[s] = kb_eval_score(w, types[s], &f);
	}
	for (int s = 0; s < KB_SEATS; s++)
		if (kb_present(pos, s))
			sum += exp(score[s] - score[0]);
	return 1.0 / sum;
}
