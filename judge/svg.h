/* svg.h - board pictures of a transcript as SVG (PNG through rsvg-convert
 * or ImageMagick's convert when one is installed), for kimble-judge svg
 * and the HTML viewer; the drawing itself is core/svg.h's.
 *
 * An animated picture shows every position of the game in turn, half a
 * second each (SMIL <set> elements, so browsers play it without scripts),
 * and stays on the final position.
 *
 * From the roll on which a seat's bot forfeited, every picture says so
 * under the panel (who, when, why, and which policy finished the seat).
 */
#ifndef KJ_SVG_H
#define KJ_SVG_H

#include <stdio.h>

#include "core/err.h"
#include "core/svg.h"
#include "core/transcript.h"

/* Frame n (1..nrolls + 1) of a transcript.  Returns 0, or -1 when n is out
 * of range. */
int kj_frame_of(const kb_transcript *tx, uint32_t n, kb_frame *fr);

/* Write to path (NULL: stdout) the position before roll n of tx (n =
 * nrolls + 1: the final position), or with n = 0 the whole game animated.
 * A path ending in .png is converted.  Returns 0, or -1 with err (n out of
 * range, cannot write, no converter for PNG). */
int kj_svg_write(const char *path, const kb_transcript *tx, uint32_t n, kb_err *err);

/* 1 if an animation may be written to path: NULL (stdout) or a name ending
 * in .svg (PNG and other formats hold no animation). */
int kj_svg_anim_path_ok(const char *path);

#endif
