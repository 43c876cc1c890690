/* madeup.h - made-up opponent players of the learning bench
 * (tests/bench/learning.c) and of the judge's test bot
 * (tests/bots/madeup.c): simple rules, heuristics, a mixed player and
 * players of kinds the learned model does not contain.  Header-only so
 * that the bench and the bot play the very same policies. */
#ifndef KB_TESTS_MADEUP_H
#define KB_TESTS_MADEUP_H

#include "core/policy.h"
#include "core/rng.h"
#include "core/rules.h"
#include "core/model.h"

enum policy { POL_CAPTURER, POL_GREEDY, POL_CAUTIOUS, POL_PACIFIST, POL_MIXED, POL_SWITCHER,
	      POL_TARGETER, POL_MIDDLE, POL_EASY, POL_HARD, POLICIES };
static const char *const policy_name[POLICIES] = {"capturer", "greedy", "cautious", "pacifist",
						  "mixed", "switcher", "targeter", "middle",
						  "easy", "hard"};
static const char *const policy_alias[POLICIES] = {"cap1", "greed1", "safe1", "dove1", "mix1",
						   "turn1", "hunt1", "mid1", "zed", "qux"};
/* Pure rules: learned - told should be within 1 point. */
static const int policy_pure[POLICIES] = {1, 1, 1, 1, 0, 0, 0, 1, 1, 1};

/* The rearmost legal piece whose feature feat is (want) set, or -1. */
static inline int rearmost_where(const double f[KB_PIECES][KB_FEATURES], unsigned m, int feat,
				 int want)
{
	for (int i = KB_PIECES - 1; i >= 0; i--)
		if ((m >> i & 1) && (f[i][feat] != 0) == want)
			return i;
	return -1;
}

/* The rearmost legal piece whose feature feat is (want) set, else easy's
 * move. */
static inline int rearmost_or_easy(const kb_pos *p, int s, int d, unsigned m, int feat, int want)
{
	double f[KB_PIECES][KB_FEATURES];
	int i;

	kb_features(p, s, d, m, f);
	i = rearmost_where(f, m, feat, want);
	return i >= 0 ? i : kb_pick_easy(m);
}

static inline int play_capturer(const kb_pos *p, int s, int d, unsigned m)
{
	return rearmost_or_easy(p, s, d, m, KB_F_CAPTURE, 1);
}

/* Rearmost piece that escapes a threat, else the rearmost that does not
 * land where it can be hit, else easy's move. */
static inline int play_cautious(const kb_pos *p, int s, int d, unsigned m)
{
	double f[KB_PIECES][KB_FEATURES];
	int i;

	kb_features(p, s, d, m, f);
	if ((i = rearmost_where(f, m, KB_F_ESCAPE, 1)) >= 0 ||
	    (i = rearmost_where(f, m, KB_F_LAND_THREAT, 0)) >= 0)
		return i;
	return kb_pick_easy(m);
}

static inline int play_greedy(const kb_pos *p, int s, int d, unsigned m)
{
	double f[KB_PIECES][KB_FEATURES], best = -1e9;
	int pick = -1;

	kb_features(p, s, d, m, f);
	for (int i = 0; i < KB_PIECES; i++) {
		if (!(m >> i & 1))
			continue;
		double v = 3 * f[i][KB_F_CAPTURE] + 2 * f[i][KB_F_ENTER_GOAL] +
			   1.5 * f[i][KB_F_LEAVE] - 2 * f[i][KB_F_LAND_THREAT] +
			   1.5 * f[i][KB_F_ESCAPE] - 0.5 * f[i][KB_F_IN_GOAL] + f[i][KB_F_ADVANCE];
		if (v > best) {
			best = v;
			pick = i;
		}
	}
	return pick;
}

/* The rearmost piece that captures nothing, else easy's move. */
static inline int play_pacifist(const kb_pos *p, int s, int d, unsigned m)
{
	return rearmost_or_easy(p, s, d, m, KB_F_CAPTURE, 0);
}

/* Sum of seat s's progress (home pieces count -1). */
static inline int progress_of(const kb_pos *p, int s)
{
	int sum = 0;

	for (int i = 0; i < KB_PIECES; i++)
		sum += p->prog[s][i];
	return sum;
}

/* The seat the switcher compares itself with and the targeter hunts: the
 * bot (seat A in the bench; the judge's test bot sets its opponent). */
static int madeup_rival = 0;

/* Switches policy with the score: ahead of the rival (more progress) it
 * plays safe (cautious), behind it takes risks (hard's foremost piece). */
static inline int play_switcher(const kb_pos *p, int s, int d, unsigned m)
{
	return progress_of(p, s) > progress_of(p, madeup_rival) ? play_cautious(p, s, d, m)
								  : kb_pick_hard(m);
}

/* Hunts the rival's pieces: a move that captures one of them, else the
 * move that ends closest behind one (within a roll), else hard. */
static inline int play_targeter(const kb_pos *p, int s, int d, unsigned m)
{
	int best = -1, best_gap = 7;

	for (int i = 0; i < KB_PIECES; i++) {
		int r = p->prog[s][i], t = r == KB_HOME ? 0 : r + d;
		if (!(m >> i & 1) || t > KB_LAST_TRACK)
			continue;
		int sq = kb_ring_square(s, t);
		for (int j = 0; j < KB_PIECES; j++) {
			int b = p->prog[madeup_rival][j];
			if (b < 0 || b > KB_LAST_TRACK)
				continue;
			int gap = (kb_ring_square(madeup_rival, b) - sq + KB_TRACK) % KB_TRACK;
			if (gap < best_gap) {
				best_gap = gap;
				best = i;
			}
		}
	}
	return best >= 0 ? best : kb_pick_hard(m);
}

/* A pure rule the model does not contain: the second legal piece from the
 * front (play_policy calls it with two or more legal pieces). */
static inline int play_middle(const kb_pos *p, int s, int d, unsigned m)
{
	(void)p, (void)s, (void)d;
	return kb_pick_hard(m & (m - 1));
}

/* Greedy two times in three, a uniformly random legal move otherwise. */
static inline int play_mixed(const kb_pos *p, int s, int d, unsigned m, kb_rng *rng)
{
	if (rng && kb_rng_below(rng, 3) == 0)
		return kb_pick_random(m, rng);
	return play_greedy(p, s, d, m);
}

typedef int (*madeup_fn)(const kb_pos *p, int s, int d, unsigned m);

/* rng: the mixed player's draws (NULL: its most likely move). */
static inline int play_policy(enum policy pol, const kb_pos *p, int s, int d, unsigned m, kb_rng *rng)
{
	static const madeup_fn play[POLICIES] = {
		[POL_CAPTURER] = play_capturer, [POL_GREEDY] = play_greedy,
		[POL_CAUTIOUS] = play_cautious, [POL_PACIFIST] = play_pacifist,
		[POL_SWITCHER] = play_switcher, [POL_TARGETER] = play_targeter,
		[POL_MIDDLE] = play_middle};

	if (kb_count(m) < 2 || pol == POL_HARD)
		return kb_pick_hard(m);
	if (pol == POL_EASY)
		return kb_pick_easy(m);
	if (pol == POL_MIXED)
		return play_mixed(p, s, d, m, rng);
	return play[pol](p, s, d, m);
}

#endif
