/* svg.c - SVG pictures of a transcript's positions and of whole games;
 * see svg.h. */
#include <errno.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "replay.h"
#include "svg.h"

extern char **environ;

int kj_frame_of(const kb_transcript *tx, uint32_t n, kb_frame *fr)
{
	char board[KB_BOARD_LEN];
	const char *names[KB_SEATS];
	int seat, die, index = -1;

	if (kj_tx_board(tx, n, board, &seat, &die))
		return -1;
	for (int s = 0; s < KB_SEATS; s++)
		names[s] = kj_tx_seat_name(tx, s);
	if (n <= tx->nrolls)
		index = tx->rolls[n - 1].index;
	kb_frame_at(fr, board, kj_tx_present(tx), names, n, seat, die, index);
	fr->rolls = (uint32_t)tx->nrolls;
	for (int s = 0; s < KB_SEATS; s++) {
		const kb_tx_forfeit *ff = &tx->forfeit[s];
		if (ff->seen && ff->roll <= n) {
			kb_frame_forfeit *out = &fr->forfeit[s];
			out->roll = ff->roll;
			snprintf(out->reason, sizeof out->reason, "%s", ff->reason);
			snprintf(out->replacement, sizeof out->replacement, "%s", ff->replacement);
		}
	}
	if (n > tx->nrolls) {
		fr->over = tx->ended;
		fr->winner = tx->winner;
		snprintf(fr->result, sizeof fr->result, "%s", tx->ended ? tx->reason : "unfinished");
	}
	return 0;
}

static void animated(FILE *f, const kb_transcript *tx)
{
	uint32_t frames = (uint32_t)tx->nrolls + 1;
	kb_frame fr;

	kb_svg_open(f);
	if (kj_frame_of(tx, 1, &fr) == 0)
		kb_svg_back(f, &fr);
	for (uint32_t n = 1; n <= frames; n++) {
		if (kj_frame_of(tx, n, &fr))
			break;
		fprintf(f, "<g visibility=\"hidden\"><set attributeName=\"visibility\" to=\"visible\" "
			   "begin=\"%.1fs\"%s/>\n",
			(n - 1) * 0.5, n == frames ? "" : " dur=\"0.5s\"");
		kb_svg_front(f, &fr);
		fprintf(f, "</g>\n");
	}
	fprintf(f, "</svg>\n");
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Convert svg to png with the first converter found. */
static int convert(const char *svg, const char *png)
{
	char *const rsvg[] = {"rsvg-convert", "-o", (char *)png, (char *)svg, NULL};
	char *const magick[] = {"convert", (char *)svg, (char *)png, NULL};
	char *const *tries[] = {rsvg, magick};

	for (int i = 0; i < 2; i++) {
		pid_t pid;
		int st;
		if (posix_spawnp(&pid, tries[i][0], NULL, NULL, tries[i], environ) == 0 &&
		    waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0)
			return 0;
	}
	return -1;
}

int kj_svg_anim_path_ok(const char *path)
{
	return !path || ends_with(path, ".svg");
}

int kj_svg_write(const char *path, const kb_transcript *tx, uint32_t n, kb_err *err)
{
	char svgpath[1024];
	int png = path && ends_with(path, ".png");
	FILE *f = stdout;
	kb_frame fr;

	if (!n && !kj_svg_anim_path_ok(path))
		return kb_err_set(err, -1, "%.120s: an animation is written as SVG only (a PNG "
				  "cannot move); expected a FILE ending in .svg", path);
	if (n && kj_frame_of(tx, n, &fr)) {
		snprintf(err->msg, sizeof err->msg, "roll %" PRIu32 ": the game has %zu rolls", n,
			 tx->nrolls);
		return -1;
	}
	snprintf(svgpath, sizeof svgpath, "%s%s", path ? path : "", png ? ".svg" : "");
	if (path && !(f = fopen(svgpath, "w"))) {
		snprintf(err->msg, sizeof err->msg, "cannot write %.140s: %.30s", svgpath,
			 strerror(errno));
		return -1;
	}
	if (n)
		kb_svg_frame(f, &fr, KB_SVG_ALL);
	else
		animated(f, tx);
	if (path && fclose(f)) {
		snprintf(err->msg, sizeof err->msg, "cannot write %.150s", svgpath);
		return -1;
	}
	if (png) {
		int rc = convert(svgpath, path);
		unlink(svgpath);
		if (rc) {
			snprintf(err->msg, sizeof err->msg,
				 "%.120s: no working rsvg-convert or convert to make a PNG", path);
			return -1;
		}
	}
	return 0;
}
