/* html.h - a game viewer and a tournament report as self-contained HTML.
 *
 * A viewer (kimble-judge html, or OUT/games/NNNNNN.html with --html) is one
 * file that needs nothing else: no network, no external script, style or
 * font.  A Content-Security-Policy meta element forbids every fetch
 * (default-src 'none'), scripts and styles are inline.  The board pictures
 * are the ones svg.h draws (the ring once, then the changing layer of
 * every frame, as strings in a JSON data block), so the drawing has one
 * owner.  The page offers play/pause, a step back and forward, a slider
 * over the rolls, the keys left/right (step), space (play/pause), Home and
 * End, and starts at the roll named in the URL fragment (#roll=N).  It
 * writes the state in words into #state (the roll number, the seats, the
 * move) and the messages each bot sent before the roll into #msgs, and
 * lists every decision of the game with its time.
 *
 * The tournament report OUT/report.html (kj_report_html) holds the table,
 * the rating list with intervals drawn to scale, the pairwise Elo, the
 * per-opponent table and the learning curve (an inline SVG plot of each
 * bot's moving-window win rate with its interval band) when the results
 * have them (standings.h), and a line per game (at most KJ_HTML_GAMES)
 * linking its viewer games/NNNNNN.html when one was written, else its
 * transcript.
 */
#ifndef KJ_HTML_H
#define KJ_HTML_H

#include <stdio.h>

#include "core/transcript.h"
#include "match.h"
#include "report.h"

/* kj_html_game's answer when a frame cannot be drawn (a roll's board
 * holds a piece of a seat that does not play: bad input, not a write
 * error). */
#define KJ_HTML_UNDRAWABLE (-2)

/* Write the viewer of tx to f (title: shown in the heading and the
 * window title).  Returns 0, -1 on a write error, or KJ_HTML_UNDRAWABLE
 * when a frame cannot be drawn, the page then cut short. */
int kj_html_game(FILE *f, const kb_transcript *tx, const char *title);

/* Write the viewer of the transcript file tx_path to html_path.  Returns
 * 0, or -1 with err naming the file (unreadable transcript, cannot write). */
int kj_html_game_file(const char *tx_path, const char *html_path, kb_err *err);

/* The page's head up to <body>: charset, the no-network policy, a title
 * and the shared style. */
void kj_html_head(FILE *f, const char *title);

/* s as a JSON string (with < escaped, so it can sit inside <script>). */
void kj_json_str(FILE *f, const char *s);

#define KJ_HTML_GAMES 5000

/* Write OUT/report.html for the report rep of res[0..n).  Returns 0, or
 * -1 with err naming the file. */
int kj_report_html(const char *out, const kj_report *rep, const kj_result *res, size_t n,
		   kb_err *err);

/* Write the viewer OUT/games/NNNNNN.html of every game of res[0..n) that
 * has none yet.  Returns 0, or -1 with err (a transcript unreadable, a
 * file that cannot be written). */
int kj_html_viewers(const char *out, const kj_result *res, size_t n, kb_err *err);

#endif
