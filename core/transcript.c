/* transcript.c - write and read game transcripts; see transcript.h. */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "num.h"
#include "transcript.h"

static const char *const how_names[] = {"pass", "auto", "builtin", "decided"};

const char *kb_how_name(enum kb_how how)
{
	return (unsigned)how < 4 ? how_names[how] : "?";
}

static int done(int printed)
{
	return printed < 0 ? -1 : 0;
}

int kb_tx_write_header(FILE *f, uint64_t seed, const uint8_t ctl[KB_SEATS])
{
	return done(fprintf(f, "kimble-transcript %d\nseed %" PRIu64 "\nseats %s %s %s %s\n",
			    KB_TX_VERSION, seed, kb_policy_name(ctl[0]), kb_policy_name(ctl[1]),
			    kb_policy_name(ctl[2]), kb_policy_name(ctl[3])));
}

/* Names and notes are written as one line: control characters and spaces
 * in a name would break the record, so they become '_'. */
static void clean_copy(char *dst, size_t size, const char *src, int keep_spaces)
{
	size_t i = 0;

	for (; src[i] && i + 1 < size; i++) {
		unsigned char c = (unsigned char)src[i];
		dst[i] = (c < 0x20 || c == 0x7f || (c == ' ' && !keep_spaces)) ? '_' : (char)c;
	}
	dst[i] = '\0';
}

int kb_tx_write_name(FILE *f, int seat, const char *name)
{
	char clean[64];

	clean_copy(clean, sizeof clean, name, 0);
	return done(fprintf(f, "name %c %s\n", 'A' + seat, clean[0] ? clean : "_"));
}

int kb_tx_write_fingerprint(FILE *f, int seat, const char *hex)
{
	char clean[40];

	clean_copy(clean, sizeof clean, hex, 0);
	return done(fprintf(f, "fingerprint %c %s\n", 'A' + seat, clean[0] ? clean : "-"));
}

int kb_tx_write_start(FILE *f, const kb_pos *pos, int turn, int die)
{
	char board[KB_BOARD_LEN];

	kb_board_format(pos, board);
	return done(fprintf(f, "start %.44s %c %d\n", board, 'A' + turn, die));
}

int kb_tx_write_roll(FILE *f, uint32_t n, const kb_roll *roll)
{
	char idx[4] = "-";

	if (roll->index >= 0)
		idx[0] = (char)('0' + roll->index);
	return done(fprintf(f, "roll %" PRIu32 " %.44s%c%d %s %s\n", n, roll->board,
			    'A' + roll->seat, roll->die, idx, kb_how_name(roll->how)));
}

int kb_tx_write_msg(FILE *f, int seat, double ms, const char *bytes, size_t len)
{
	if (fprintf(f, "msg %c %.3f ", 'A' + seat, ms) < 0)
		return -1;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)bytes[i];
		int r = c == '\\' ? fputs("\\\\", f)
		      : (c > 0x20 && c < 0x7f) ? fputc(c, f)
		      : fprintf(f, "\\x%02x", c);
		if (r < 0)
			return -1;
	}
	return fputc('\n', f) == EOF ? -1 : 0;
}

int kb_tx_write_note(FILE *f, const char *text)
{
	char clean[256];

	clean_copy(clean, sizeof clean, text, 1);
	return done(fprintf(f, "note %s\n", clean));
}

int kb_tx_write_forfeit(FILE *f, int seat, uint32_t roll, const char *reason,
			const char *replacement, const char *detail)
{
	char word[16], repl[16], clean[256];

	clean_copy(word, sizeof word, reason, 0);
	clean_copy(repl, sizeof repl, replacement, 0);
	clean_copy(clean, sizeof clean, detail, 1);
	return done(fprintf(f, "forfeit %c %" PRIu32 " %s %s %s\n", 'A' + seat, roll,
			    word[0] ? word : "-", repl[0] ? repl : "-", clean[0] ? clean : "-"));
}

int kb_tx_write_end(FILE *f, int winner, uint32_t rolls, const char *reason)
{
	char clean[128];

	clean_copy(clean, sizeof clean, reason, 1);
	return done(fprintf(f, "end %c %" PRIu32 " %s\n", winner >= 0 ? 'A' + winner : '-', rolls,
			    clean));
}

/* ---- reading ---------------------------------------------------------- */

static int bad(kb_err *err, unsigned lineno, const char *what)
{
	if (err)
		snprintf(err->msg, sizeof err->msg, "transcript line %u: %s", lineno, what);
	return -1;
}

static int grow(void **arr, size_t *cap, size_t n, size_t elem)
{
	if (n < *cap)
		return 0;
	size_t ncap = *cap ? *cap * 2 : 256;
	void *p = realloc(*arr, ncap * elem);
	if (!p)
		return -1;
	*arr = p;
	*cap = ncap;
	return 0;
}

static int seat_of(const char *s)
{
	return (s[0] >= 'A' && s[0] <= 'D' && s[1] == '\0') ? s[0] - 'A' : -1;
}

static int parse_u64(const char *s, uint64_t *out)
{
	return kb_num_u64("", s, out, NULL) == KB_NUM_OK ? 0 : -1;
}

static int parse_how(const char *s)
{
	for (int h = 0; h < 4; h++)
		if (strcmp(s, how_names[h]) == 0)
			return h;
	return -1;
}

/* Split line into at most max space-separated fields (the last field keeps
 * the rest of the line).  Returns the count. */
static int split(char *line, char **field, int max)
{
	int n = 0;

	while (*line && n < max) {
		field[n++] = line;
		if (n == max)
			break;
		char *sp = strchr(line, ' ');
		if (!sp)
			break;
		*sp = '\0';
		line = sp + 1;
	}
	return n;
}

/* \\ and \xHH with two hex digits are escapes; anything else (a \x cut
 * short by the end of the line, a sign) is kept as it stands, so that
 * nothing past the line's end is read. */
static void unescape(char *dst, size_t size, const char *src)
{
	size_t n = 0;

	while (*src && n + 1 < size) {
		unsigned v;
		if (src[0] == '\\' && src[1] == '\\') {
			dst[n++] = '\\';
			src += 2;
		} else if (src[0] == '\\' && src[1] == 'x' && isxdigit((unsigned char)src[2]) &&
			   isxdigit((unsigned char)src[3]) && sscanf(src + 2, "%2x", &v) == 1) {
			dst[n++] = (char)v;
			src += 4;
		} else
			dst[n++] = *src++;
	}
	dst[n] = '\0';
}

static int read_roll(kb_transcript *tx, char **fld, int nf, unsigned lineno, kb_err *err)
{
	uint64_t n;
	kb_line line;
	int how;

	if (nf != 5 || parse_u64(fld[1], &n) || n != tx->nrolls + 1)
		return bad(err, lineno, "expected \"roll N STATELINE INDEX HOW\" with N counting up from 1");
	if (kb_line_parse(fld[2], strlen(fld[2]), &line, NULL) || line.type != KB_LINE_ROLL)
		return bad(err, lineno, "expected a 46-character state line after the roll number");
	if (!((fld[3][0] == '-' || (fld[3][0] >= '0' && fld[3][0] <= '3')) && fld[3][1] == '\0'))
		return bad(err, lineno, "expected a piece index 0..3 or - after the state line");
	if ((how = parse_how(fld[4])) < 0)
		return bad(err, lineno, "expected pass, auto, builtin or decided at the end of a roll");
	if (grow((void **)&tx->rolls, &tx->cap_rolls, tx->nrolls, sizeof *tx->rolls))
		return bad(err, lineno, "out of memory");
	kb_tx_roll *r = &tx->rolls[tx->nrolls++];
	r->n = (uint32_t)n;
	memcpy(r->line, fld[2], KB_ROLL_LINE_LEN);
	r->index = fld[3][0] == '-' ? -1 : fld[3][0] - '0';
	r->how = (enum kb_how)how;
	return 0;
}

static int read_msg(kb_transcript *tx, char **fld, int nf, unsigned lineno, kb_err *err)
{
	int seat = nf >= 3 ? seat_of(fld[1]) : -1;
	double ms = 0;

	if (seat < 0 || kb_num_real("ms", fld[2], 0, 1e15, &ms, NULL) != KB_NUM_OK)
		return bad(err, lineno, "expected \"msg SEAT MS TEXT\"");
	if (grow((void **)&tx->msgs, &tx->cap_msgs, tx->nmsgs, sizeof *tx->msgs))
		return bad(err, lineno, "out of memory");
	kb_tx_msg *m = &tx->msgs[tx->nmsgs++];
	m->seat = seat;
	m->ms = ms;
	m->after_roll = (uint32_t)tx->nrolls;
	unescape(m->text, sizeof m->text, nf > 3 ? fld[3] : "");
	return 0;
}

static int read_forfeit(kb_transcript *tx, char **fld, int nf, unsigned lineno, kb_err *err)
{
	uint64_t n;
	int seat = nf >= 5 ? seat_of(fld[1]) : -1;

	if (seat < 0 || parse_u64(fld[2], &n) || n > UINT32_MAX)
		return bad(err, lineno, "expected \"forfeit SEAT ROLL REASON REPLACEMENT DETAIL\"");
	kb_tx_forfeit *f = &tx->forfeit[seat];
	f->seen = 1;
	f->roll = (uint32_t)n;
	snprintf(f->reason, sizeof f->reason, "%s", fld[3]);
	snprintf(f->replacement, sizeof f->replacement, "%s", fld[4]);
	snprintf(f->detail, sizeof f->detail, "%s", nf > 5 ? fld[5] : "-");
	return 0;
}

static int read_record(kb_transcript *tx, char *text, unsigned lineno, kb_err *err)
{
	char *fld[6];
	const char *sp = strchr(text, ' ');
	size_t kind_len = sp ? (size_t)(sp - text) : strlen(text);
	/* Free-text records keep the rest of the line in their last field. */
	int max = (kind_len == 3 && !memcmp(text, "end", 3)) ? 4
		: (kind_len == 3 && !memcmp(text, "msg", 3)) ? 4 : 6;
	int nf = split(text, fld, max), seat;
	const char *kind = fld[0];

	if (strcmp(kind, "seed") == 0) {
		if (nf != 2 || parse_u64(fld[1], &tx->seed))
			return bad(err, lineno, "expected \"seed\" and an unsigned 64-bit decimal");
	} else if (strcmp(kind, "seats") == 0) {
		if (nf != 5)
			return bad(err, lineno, "expected \"seats\" and four controllers");
		for (int s = 0; s < KB_SEATS; s++) {
			int p = kb_policy_parse(fld[1 + s]);
			if (p < 0)
				p = strcmp(fld[1 + s], "absent") == 0 ? KB_ABSENT
				  : strcmp(fld[1 + s], "external") == 0 ? KB_EXTERNAL : -1;
			if (p < 0)
				return bad(err, lineno, "a seat controller is absent, easy, hard, random or external");
			tx->ctl[s] = (uint8_t)p;
		}
	} else if (strcmp(kind, "name") == 0 || strcmp(kind, "fingerprint") == 0) {
		if (nf != 3 || (seat = seat_of(fld[1])) < 0)
			return bad(err, lineno, "expected a seat letter A..D and one word");
		if (kind[0] == 'n')
			snprintf(tx->name[seat], sizeof tx->name[seat], "%s", fld[2]);
		else
			snprintf(tx->fingerprint[seat], sizeof tx->fingerprint[seat], "%s", fld[2]);
	} else if (strcmp(kind, "start") == 0) {
		kb_pos pos;
		if (nf != 4 || strlen(fld[1]) != KB_BOARD_LEN ||
		    kb_board_parse(fld[1], KB_BOARD_LEN, 0xf, &pos, NULL) ||
		    (seat = seat_of(fld[2])) < 0 || fld[3][0] < '0' || fld[3][0] > '6' || fld[3][1])
			return bad(err, lineno, "expected \"start BOARD SEAT DIE\"");
		tx->has_start = 1;
		memcpy(tx->start_board, fld[1], KB_BOARD_LEN);
		tx->start_turn = seat;
		tx->start_die = fld[3][0] - '0';
	} else if (strcmp(kind, "roll") == 0) {
		return read_roll(tx, fld, nf, lineno, err);
	} else if (strcmp(kind, "msg") == 0) {
		return read_msg(tx, fld, nf, lineno, err);
	} else if (strcmp(kind, "forfeit") == 0) {
		return read_forfeit(tx, fld, nf, lineno, err);
	} else if (strcmp(kind, "end") == 0) {
		uint64_t n;
		if (nf < 3 || (strcmp(fld[1], "-") && seat_of(fld[1]) < 0) || parse_u64(fld[2], &n))
			return bad(err, lineno, "expected \"end WINNER ROLLS REASON\"");
		tx->ended = 1;
		tx->winner = seat_of(fld[1]);
		tx->end_rolls = (uint32_t)n;
		snprintf(tx->reason, sizeof tx->reason, "%s", nf > 3 ? fld[3] : "");
	}
	return 0; /* note and unknown kinds are skipped */
}

int kb_tx_parse(const char *text, size_t len, kb_transcript *tx, kb_err *err)
{
	char line[1024];
	unsigned lineno = 0;
	size_t at = 0;

	memset(tx, 0, sizeof *tx);
	tx->winner = -1;
	while (at < len) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
		lineno++;
		if (n >= sizeof line) {
			kb_tx_free(tx);
			return bad(err, lineno, "line longer than 1023 characters");
		}
		if (memchr(text + at, '\0', n)) {
			kb_tx_free(tx);
			return bad(err, lineno, "NUL byte in a line");
		}
		memcpy(line, text + at, n);
		line[n] = '\0';
		if (n && line[n - 1] == '\r')
			line[n - 1] = '\0';
		at += n + (nl != NULL);
		if (lineno == 1) {
			if (strcmp(line, "kimble-transcript 1") != 0) {
				kb_tx_free(tx);
				return bad(err, 1, "expected \"kimble-transcript 1\"");
			}
			tx->version = 1;
			continue;
		}
		if (!line[0])
			continue;
		if (read_record(tx, line, lineno, err)) {
			kb_tx_free(tx);
			return -1;
		}
	}
	if (tx->version != 1) {
		kb_tx_free(tx);
		return bad(err, 1, "empty input, expected \"kimble-transcript 1\"");
	}
	return 0;
}

int kb_tx_read(FILE *f, kb_transcript *tx, kb_err *err)
{
	size_t len = 0, cap = 0;
	char *text = NULL;
	int rc;

	for (;;) {
		if (len == cap) {
			char *p = realloc(text, cap = cap ? cap * 2 : 65536);
			if (!p) {
				free(text);
				return bad(err, 0, "out of memory");
			}
			text = p;
		}
		size_t got = fread(text + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		free(text);
		return bad(err, 0, "read error");
	}
	rc = kb_tx_parse(text, len, tx, err);
	free(text);
	return rc;
}

void kb_tx_free(kb_transcript *tx)
{
	free(tx->rolls);
	free(tx->msgs);
	tx->rolls = NULL;
	tx->msgs = NULL;
	tx->nrolls = tx->nmsgs = tx->cap_rolls = tx->cap_msgs = 0;
}
