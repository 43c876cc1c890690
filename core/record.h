/* record.h - the byte formats of the learning store's records.
 *
 * Every value starts with an 8-byte header: u16 kind, u16 format version,
 * u32 zero; all integers are little-endian, whatever the host.  Values are
 * copied out of the store and decoded here, never cast to a struct.
 *
 *   kind 1, opponent record, key "o/NAME"
 *     version 1 (old):  u64 games, won, lost                     (32 bytes)
 *     version 2 (old):  u64 games, won, lost, decisions, easy_hits,
 *                       hard_hits; KB_SAMPLES samples of KB_SAMPLE_LEN
 *                       bytes, oldest at index decisions % KB_SAMPLES
 *                       (model.h)                               (920 bytes)
 *     version 3 (old):  version 2's fields, then IEEE-754 binary64 values
 *                       (as u64): recent, recent_log_choices,
 *                       recent_miss[KB_RULES], fit_w[0..KB_F_CHASE),
 *                       recent_judged, recent_predicted
 *                       (model.h)                              (1120 bytes)
 *     version 4 (old):  version 3's fields, then fit_w[KB_F_CHASE..
 *                       KB_FEATURES) as binary64               (1128 bytes)
 *     version 5 (now):  version 4's fields, then score_judged[],
 *                       score_predicted[], score_hard[] (KB_SCORES
 *                       each) as binary64                      (1176 bytes)
 *                       A version 2 record's faded statistics are rebuilt
 *                       from its samples (kb_model_stats_rebuild); the
 *                       samples of versions 2 and 3 hold no chase levels
 *                       (model.h: read as 0, which tells the fit nothing
 *                       about that feature), and version 3's missing
 *                       weight is 0; versions 2 to 4 kept no
 *                       predictions by score (0: the bot's rates over
 *                       both scores decide until it has made enough).
 *   kind 2, results per bot version, key "v/VERSION/NAME"
 *     version 1:        u64 games, won, lost                     (32 bytes)
 *
 * An older version is read (missing fields zero) and written back in the
 * current version at the next update; a newer version or a size that does
 * not match its version is refused (KB_REC_NEWER, KB_REC_BAD), never guessed.
 *
 * games: games played with NAME in a seat; won: of those, games the bot
 * won; lost: games NAME itself won.  Nothing here allocates.
 */
#ifndef KB_CORE_RECORD_H
#define KB_CORE_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "core/model.h"

#define KB_REC_OPPONENT 1
#define KB_REC_RESULTS 2
#define KB_OPP_VERSION 5      /* current opponent record version */
#define KB_RES_VERSION 1      /* current results record version */
#define KB_OPP_V1_LEN 32
#define KB_OPP_V2_LEN (8 + 6 * 8 + KB_SAMPLES * KB_SAMPLE_LEN)
#define KB_OPP_V3_LEN (KB_OPP_V2_LEN + (4 + KB_RULES + KB_F_CHASE) * 8)
#define KB_OPP_V4_LEN (KB_OPP_V3_LEN + (KB_FEATURES - KB_F_CHASE) * 8)
#define KB_OPP_V5_LEN (KB_OPP_V4_LEN + 3 * KB_SCORES * 8)
#define KB_RES_LEN 32
#define KB_REC_MAX KB_OPP_V5_LEN

/* Names (opponents, bot versions): 1..KB_NAME_MAX of A-Z a-z 0-9 _ . - */
#define KB_NAME_MAX 64

typedef struct kb_opp_rec {
	uint64_t games, won, lost;
	kb_model_stats model;
	uint64_t format; /* the version kb_opp_decode read (0: none); not encoded */
} kb_opp_rec;

typedef struct kb_res_rec {
	uint64_t games, won, lost;
} kb_res_rec;

/* Decoding results: this module's own range -200..-299 (core/err.h), so a
 * caller that also gets store statuses (store.h) cannot mistake one for
 * another.  OK and OLD filled the record; NEWER and BAD zeroed it. */
enum kb_rec_status {
	KB_REC_OK = 0,
	KB_REC_OLD = -201,   /* read from an older version: usable, its missing
			      * fields are zero; upgraded on the next write */
	KB_REC_NEWER = -202, /* written by a newer program: leave it alone */
	KB_REC_BAD = -203    /* wrong kind, a size its version does not have, or
			      * impossible counts (won or lost > games; for
			      * opponents also hits > decisions), any version */
};

/* 1 if status (an enum kb_rec_status) filled the record: OK or OLD. */
int kb_rec_usable(int status);

/* Encode in the current version into out (KB_REC_MAX bytes); returns the
 * length. */
size_t kb_opp_encode(const kb_opp_rec *r, uint8_t *out);
size_t kb_res_encode(const kb_res_rec *r, uint8_t *out);

/* Encode an opponent record in the old version 1 or 2 (for tests and for
 * checking upgrades); return KB_OPP_V1_LEN and KB_OPP_V2_LEN. */
size_t kb_opp_encode_v1(const kb_opp_rec *r, uint8_t *out);
size_t kb_opp_encode_v2(const kb_opp_rec *r, uint8_t *out);

/* Decode len bytes into r (zeroed first).  Returns an enum kb_rec_status. */
int kb_opp_decode(const uint8_t *in, size_t len, kb_opp_rec *r);
int kb_res_decode(const uint8_t *in, size_t len, kb_res_rec *r);

/* Add b's counts to a (merging). */
void kb_opp_add(kb_opp_rec *a, const kb_opp_rec *b);

/* 1 if name[0..len) is a valid name (see KB_NAME_MAX). */
int kb_name_ok(const char *name, size_t len);

/* Store keys: "o/NAME" and "v/VERSION/NAME".  Return the key length, or 0
 * when a name is not valid.  out must hold KB_KEY_MAX bytes. */
#define KB_KEY_MAX (4 + 2 * KB_NAME_MAX)
size_t kb_key_opponent(const char *name, char *out);
size_t kb_key_results(const char *version, const char *name, char *out);

#endif
