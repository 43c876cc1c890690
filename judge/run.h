/* run.h - running a tournament plan: parallel games, resume, shards,
 * removal of bots that keep timing out, learning-mode round lines, SPRT.
 *
 * Layout of the output folder OUT:
 *   OUT/games/NNNNNN.tx       transcript of game NNNNNN (core/transcript.h)
 *   OUT/games/NNNNNN.res      its result ("kimble-result 2", result.h)
 *   OUT/games/NNNNNN.X.err    stderr of the bot in seat X (meta flag 1)
 *   OUT/games/NNNNNN.html     its viewer (html.h), only with html set
 *   OUT/results.txt, OUT/results.json   the report (report.h, standings.h)
 *   OUT/report.html           the report as a page linking every game (html.h)
 * A game counts as played when its .res file is in place.  A worker writes
 * NNNNNN.tx.PID.tmp and NNNNNN.res.PID.tmp and renames them into place
 * only when the game is over, the transcript first, so a .res means both
 * files are complete, and running the same command again resumes an
 * interrupted tournament without replaying finished games.  Each game runs
 * in a forked worker process; at most `concurrency` run at once.
 */
#ifndef KJ_RUN_H
#define KJ_RUN_H

#include <stdio.h>

#include "bots.h"
#include "match.h"
#include "plan.h"
#include "report.h"
#include "result.h"

typedef struct kj_run_opts {
	const kj_bot *bots;      /* participants, plan indices */
	int nbots;
	const kj_plan *plan;
	const kj_start *starts;  /* plan start indices, or NULL */
	kj_match_opts match;
	const char *out;
	int concurrency;
	int shard_k, shard_n;    /* play games with index % n == k - 1 */
	int max_timeouts;        /* consecutive timeout games before removal, 0: never */
	int progress;            /* live line on stderr */
	int round_lines;         /* a line on stdout after every deal */
	kj_sprt *sprt;           /* stop early (bots 0 and 1), or NULL */
	int html;                /* write a viewer per game (OUT/games/NNNNNN.html) */
	uint64_t seed;
} kj_run_opts;

/* Play the plan.  Prints the report to stdout and writes it to OUT.
 * Returns 0; 1 when the report is complete but the command of some bot
 * could not be run (err names those bots; each is also named on stderr
 * with the system's error when its first such game is accounted); -1
 * with err (cannot create OUT, a worker failed, a result file is
 * unreadable); or 128 + N with err saying how many games are done
 * when stop signal N (SIGINT, SIGTERM, SIGHUP) arrived: then every worker
 * and bot has been stopped and reaped, the unfinished games' files are
 * removed, and no report is written.  Running the same plan again then
 * completes the run exactly as an uninterrupted one.  A worker dies with
 * the judge even after SIGKILL (PR_SET_PDEATHSIG), removing its files. */
int kj_run(const kj_run_opts *opt, kb_err *err);

#endif
