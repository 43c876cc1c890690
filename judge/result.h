/* result.h - what one refereed game gave (kj_result) and the .res file
 * that keeps it: match.c fills a result (places and scores as match.h
 * says), run.c writes one file per game and reads them back for the
 * standings, the ratings and the reports.
 */
#ifndef KJ_RESULT_H
#define KJ_RESULT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/err.h"
#include "core/rules.h"

/* Why a bot lost its seat. */
enum kj_reason {
	KJ_OK = 0,
	KJ_TIMEOUT,   /* no answer within the move limit */
	KJ_STARTUP,   /* no v001XYZ within the start-up limit */
	KJ_CRASH,     /* killed by a signal */
	KJ_EXIT,      /* exited before the game ended */
	KJ_GARBAGE,   /* sent something that is not a move */
	KJ_ILLEGAL,   /* too many illegal indices */
	KJ_TOKEN,     /* too many wrong tokens */
	KJ_UNREAD,    /* left more than 1 MiB of input unread */
	KJ_NOSTART,   /* its command could not be run (chdir or execvp failed) */
	KJ_WRITE,     /* wrote more than its budget in this run (proc.h) */
	KJ_REASONS
};

const char *kj_reason_name(int reason);
int kj_reason_parse(const char *word); /* -1 when unknown */

typedef struct kj_seat_result {
	int present;
	char name[64];
	int place;          /* 1-based */
	int score;          /* progress score (see above) */
	int reason;         /* enum kj_reason */
	int errors;         /* illegal indices and wrong tokens answered */
	int lineup_ok;      /* its v001XYZ matched the lineup (1 for built-ins) */
	uint32_t decisions;
	double ms_total, ms_max;
	char fingerprint[17];
	uint32_t forfeit_roll; /* roll during which it forfeited, 0: before the first */
	char why[256];      /* forfeit detail, one line ("" when none) */
} kj_seat_result;

typedef struct kj_result {
	uint32_t game;      /* game number (set by kj_result_read) */
	uint32_t deal;      /* games of one deal share seed and start (duplicate) */
	uint64_t seed;
	int winner;         /* credited winner: never a forfeited seat; -1 none */
	int finished;       /* seat whose pieces came home first, -1 unfinished */
	uint32_t rolls;
	kj_seat_result seat[KB_SEATS];
} kj_result;

/* One line about seat s's forfeit: "A NAME forfeited at roll R (REASON:
 * DETAIL); seat finished by hard (replacement)". */
void kj_forfeit_text(const kj_result *res, int s, char *out, size_t size);

/* Write / read a result as text.  Version 2 (written):
 *   kimble-result 2
 *   game K deal D seed S winner X rolls N finished Y
 *   seat X NAME place P score S forfeit R errors E lineup L decisions N
 *        ms T max M fp F at ROLL why TEXT        (one line; TEXT may be -)
 *   done
 * winner is the credited winner (- when none), finished the seat whose
 * pieces came home first.  Version 1 (no finished, at, why) is still read;
 * its winner is then not credited when that seat forfeited.  Read returns
 * 0, or -1 with err naming the line that is malformed. */
int kj_result_write(FILE *f, uint32_t game, const kj_result *res);
int kj_result_read(FILE *f, uint32_t *game, kj_result *res, kb_err *err);

/* ---- the folder of .res files: OUT/games/NNNNNN.res (run.h) ---------- */

/* "WHAT PATH: the system's error" into err; returns -1. */
int kj_file_error(kb_err *err, const char *what, const char *path);

/* OUT/games/NNNNNN followed by ext (".res", ".tx", "" ...) into buf. */
void kj_game_path(char *buf, size_t size, const char *out, uint32_t game, const char *ext);

/* Create OUT and OUT/games if missing (mode 0755 before the umask:
 * others may read the results).  Returns 0, or -1 with err. */
int kj_results_mkdir(const char *out, kb_err *err);

/* Read the .res file at path.  Returns 0, or -1 with err (cannot open,
 * malformed). */
int kj_result_read_file(const char *path, uint32_t *game, kj_result *res, kb_err *err);

/* Read every complete OUT/games/NNNNNN.res of the folders dirs[0..n) (later
 * folders do not override earlier ones), sorted by game number, into *out
 * (malloc'ed).  Returns the count, or -1 with err. */
long kj_results_load(const char *const dirs[], int n, kj_result **out, kb_err *err);

#endif
