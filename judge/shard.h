/* shard.h - a tournament split into shards (kimble-judge --shard K/N)
 * and merged again (kimble-judge merge OUT DIR...): each shard folder
 * holds the games it played, OUT the union and one report.
 */
#ifndef KJ_SHARD_H
#define KJ_SHARD_H

#include "core/err.h"

/* Merge shard folders into out: link or copy their game files into
 * OUT/games and write the report.  Returns 0, or -1 with err. */
int kj_merge(const char *out, const char *const dirs[], int n, int timing, kb_err *err);

#endif
