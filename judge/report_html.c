/* report_html.c - the tournament report as one HTML page; see html.h. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "html.h"
#include "standings.h"
#include "svg.h"

static const char *const palette[] = {"#d62728", "#1f77b4", "#2ca02c", "#e6b800",
				      "#9467bd", "#8c564b", "#e377c2", "#17becf"};
#define PALETTE (int)(sizeof palette / sizeof palette[0])

static void name_cell(FILE *f, const char *name)
{
	fprintf(f, "<td class=\"l\">");
	kb_xml_text(f, name);
	fprintf(f, "</td>");
}

/* One bot's line of the table. */
static void bot_row(FILE *f, const kj_bot_stats *st)
{
	double games = st->games ? st->games : 1, lo, hi;
	char forfeits[128];

	kj_forfeit_counts(st, forfeits, sizeof forfeits);
	kj_wilson(st->wins, st->games, &lo, &hi);
	fprintf(f, "<tr>");
	name_cell(f, st->name);
	fprintf(f, "<td>%u</td><td>%u</td><td>%.1f%%</td><td>%.1f%% &ndash; %.1f%%</td><td>%.2f</td>",
		st->games, st->wins, 100.0 * st->wins / games, 100 * lo, 100 * hi,
		st->place_sum / games);
	name_cell(f, forfeits);
	fprintf(f, "<td>%.3f</td><td>%.3f</td></tr>\n",
		st->decisions ? st->ms_total / st->decisions : 0.0, st->ms_max);
}

static void bot_table(FILE *f, const kj_report *rep)
{
	fprintf(f, "<h2>Results</h2>\n<table id=\"results\"><tr><th class=\"l\">bot</th>"
		   "<th>games</th><th>wins</th><th>win%%</th><th>95%% interval</th>"
		   "<th>mean place</th><th class=\"l\">forfeits</th><th>mean ms</th>"
		   "<th>max ms</th></tr>\n");
	for (int i = 0; i < rep->nbots; i++)
		bot_row(f, &rep->bots[i]);
	fprintf(f, "</table>\n");
	/* what results.txt says of each bot's first forfeit, the reason too */
	for (int i = 0; i < rep->nbots; i++)
		if (rep->bots[i].forfeited) {
			fprintf(f, "<p class=\"forfeit\">first forfeit of ");
			kb_xml_text(f, rep->bots[i].name);
			fprintf(f, ": game %u: ", rep->bots[i].first_forfeit_game);
			kb_xml_text(f, rep->bots[i].first_forfeit);
			fprintf(f, "</p>\n");
		}
}

/* The rating list with each interval drawn on a common scale. */
/* The rating column's header: an Elo axis from lo to hi with its 0 (the
 * field's average) marked, so that the bars below read on a scale. */
static void rating_axis(FILE *f, double lo, double hi)
{
	double z = 300 * -lo / (hi - lo);

	fprintf(f, "Elo, 0 = field average<br><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"300\" "
		   "height=\"18\" font-size=\"10\" font-weight=\"normal\">"
		   "<line x1=\"0\" x2=\"300\" y1=\"4\" y2=\"4\" stroke=\"#999\"/>"
		   "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"0\" y2=\"8\" stroke=\"#000\" stroke-width=\"2\"/>"
		   "<text x=\"%.1f\" y=\"17\" text-anchor=\"middle\">0</text>"
		   "<text x=\"0\" y=\"17\" text-anchor=\"start\">%+.0f</text>"
		   "<text x=\"300\" y=\"17\" text-anchor=\"end\">%+.0f</text></svg>",
		z, z, z, lo, hi);
}

static void rating_table(FILE *f, const kj_standings *st, const kj_report *rep)
{
	double lo = 0, hi = 0;

	for (int b = 0; b < rep->nbots; b++) {
		double l = st->rating.lo[b] > -1000 ? st->rating.lo[b] : -1000;
		double h = st->rating.hi[b] < 1000 ? st->rating.hi[b] : 1000;
		lo = l < lo ? l : lo, hi = h > hi ? h : hi;
	}
	if (hi - lo < 1)
		hi = lo + 1;
	fprintf(f, "<h2>Rating list</h2>\n<p>Bradley-Terry on every pair of places, Elo scale, "
		   "0 = the field's mean, 95%% intervals robust to the dependence within a deal "
		   "(%u games, %u deals).</p>\n<table id=\"rating\"><tr><th>rank</th>"
		   "<th class=\"l\">bot</th><th>rating</th><th>95%% interval</th><th class=\"l\">",
		st->rating.games, st->rating.clusters);
	rating_axis(f, lo, hi);
	fprintf(f, "</th></tr>\n");
	for (int k = 0; k < rep->nbots; k++) {
		int b = st->order[k];
		double x0 = 300 * (st->rating.lo[b] - lo) / (hi - lo);
		double x1 = 300 * (st->rating.hi[b] - lo) / (hi - lo);
		double xm = 300 * (st->rating.elo[b] - lo) / (hi - lo), z = 300 * -lo / (hi - lo);
		x0 = x0 < 0 ? 0 : x0, x1 = x1 > 300 ? 300 : x1;
		fprintf(f, "<tr><td>%d</td>", k + 1);
		name_cell(f, rep->bots[b].name);
		char iv[80];
		kj_interval_text(iv, sizeof iv, "%+.1f &hellip; %+.1f", st->rating.clusters,
				 st->rating.se[b], st->rating.lo[b], st->rating.hi[b]);
		fprintf(f, "<td>%+.1f</td><td>%s</td><td class=\"l\">"
			   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"300\" height=\"14\">"
			   "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"0\" y2=\"14\" stroke=\"#555\" "
			   "stroke-dasharray=\"2,2\"/>"
			   "<rect x=\"%.1f\" y=\"4\" width=\"%.1f\" height=\"6\" fill=\"#9ec5e8\"/>"
			   "<circle cx=\"%.1f\" cy=\"7\" r=\"4\" fill=\"#1f77b4\"/></svg></td></tr>\n",
			st->rating.elo[b], iv, z, z, x0,
			x1 - x0 > 1 ? x1 - x0 : 1, xm);
	}
	fprintf(f, "</table>\n");
}

static void pair_table(FILE *f, const kj_report *rep)
{
	if (!rep->npairs)
		return;
	fprintf(f, "<h2>Pairwise Elo</h2>\n<table id=\"pairs\"><tr><th class=\"l\">bot</th>"
		   "<th class=\"l\">against</th><th>Elo</th><th>95%% interval</th><th>deals</th>"
		   "<th>score</th></tr>\n");
	for (int i = 0; i < rep->npairs; i++) {
		const kj_pair_elo *p = &rep->pairs[i];
		fprintf(f, "<tr>");
		name_cell(f, rep->bots[p->a].name);
		name_cell(f, rep->bots[p->b].name);
		char iv[80];
		fprintf(f, "<td>%+.1f</td><td>%s</td><td>%u</td><td>%.3f</td></tr>\n", p->elo,
			kj_interval_text(iv, sizeof iv, "%+.1f &hellip; %+.1f", p->deals,
					 kj_pair_se(p), p->lo, p->hi),
			p->deals, p->mean);
	}
	fprintf(f, "</table>\n");
}

static void opponent_table(FILE *f, const kj_standings *st, const kj_report *rep)
{
	fprintf(f, "<h2>");
	kb_xml_text(f, rep->bots[st->subject].name);
	fprintf(f, " per opponent</h2>\n<table id=\"opponents\"><tr><th class=\"l\">opponent</th>"
		   "<th>games</th><th>its win%%</th><th>opponent win%%</th><th>Elo</th>"
		   "<th>95%% interval</th><th>deals</th></tr>\n");
	for (int i = 0; i < st->nopp; i++) {
		const kj_opponent *o = &st->opp[i];
		kj_opponent_pct p;
		char iv[80];
		kj_opponent_percent(o, &p);
		fprintf(f, "<tr>");
		name_cell(f, rep->bots[o->bot].name);
		fprintf(f, "<td>%u</td><td>%.1f%% (%.0f&ndash;%.0f)</td><td>%.1f%% (%.0f&ndash;%.0f)"
			   "</td><td>%+.1f</td><td>%s</td><td>%u</td></tr>\n",
			o->games, p.win, p.lo, p.hi, p.opp_win, p.opp_lo, p.opp_hi, o->pair.elo,
			kj_interval_text(iv, sizeof iv, "%+.1f &hellip; %+.1f", o->pair.deals,
					 kj_pair_se(&o->pair), o->pair.lo, o->pair.hi),
			o->pair.deals);
	}
	fprintf(f, "</table>\n");
}

#define PLOT_W 640
#define PLOT_H 280
#define PLOT_L 44
#define PLOT_R 150
#define PLOT_T 10
#define PLOT_B 34

static double plot_x(const kj_standings *st, int p)
{
	double d0 = st->curve[0].deal, d1 = st->curve[st->ncurve - 1].deal;

	return PLOT_L + (st->curve[p].deal - d0) / (d1 > d0 ? d1 - d0 : 1) * (PLOT_W - PLOT_L - PLOT_R);
}

static double plot_y(double rate)
{
	return PLOT_T + (1 - rate) * (PLOT_H - PLOT_T - PLOT_B);
}

/* One bot's band (the interval) and line (the rate). */
static void curve_series(FILE *f, const kj_standings *st, int b, const char *color)
{
	double lo, hi;

	fprintf(f, "<polygon fill=\"%s\" fill-opacity=\"0.15\" points=\"", color);
	for (int p = 0; p < st->ncurve; p++) {
		kj_curve_rate(&st->curve[p], b, &lo, &hi);
		fprintf(f, "%.1f,%.1f ", plot_x(st, p), plot_y(hi));
	}
	for (int p = st->ncurve - 1; p >= 0; p--) {
		kj_curve_rate(&st->curve[p], b, &lo, &hi);
		fprintf(f, "%.1f,%.1f ", plot_x(st, p), plot_y(lo));
	}
	fprintf(f, "\"/>\n<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", color);
	for (int p = 0; p < st->ncurve; p++)
		fprintf(f, "%.1f,%.1f ", plot_x(st, p), plot_y(kj_curve_rate(&st->curve[p], b, &lo, &hi)));
	fprintf(f, "\"/>\n");
}

static void curve_plot(FILE *f, const kj_standings *st, const kj_report *rep)
{
	fprintf(f, "<h2>Learning curve</h2>\n<p>Win rate of each bot over the last %u deals "
		   "(moving window), with its 95%% interval as a band, from deal 1.  Each bot is "
		   "drawn in the board's colour of the seat it had in the first game (seats rotate "
		   "every deal); the legend names it.</p>\n"
		   "<svg id=\"curve\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		   "font-family=\"sans-serif\" font-size=\"11\">\n", st->window, PLOT_W, PLOT_H);
	for (int k = 0; k <= 4; k++) {
		double y = plot_y(k / 4.0);
		fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
			   "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%d%%</text>\n", PLOT_L,
			PLOT_W - PLOT_R, y, y, PLOT_L - 4, y + 4, 25 * k);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">deal</text>",
		(PLOT_L + PLOT_W - PLOT_R) / 2, PLOT_H - 12);
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"start\">deal %u</text>"
		   "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">deal %u</text>\n", PLOT_L, PLOT_H - 12,
		st->curve[0].deal + 1, PLOT_W - PLOT_R, PLOT_H - 12, st->curve[st->ncurve - 1].deal + 1);
	for (int b = 0; b < rep->nbots; b++) {
		int seat = st->first_seat[b];
		/* palette[0..3] are the seat colours of the board (svg.c) */
		const char *color = palette[seat >= 0 ? seat : b % PALETTE];
		curve_series(f, st, b, color);
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			   "<text x=\"%d\" y=\"%d\">", PLOT_W - PLOT_R + 12, PLOT_T + 18 * b, color,
			PLOT_W - PLOT_R + 28, PLOT_T + 18 * b + 10);
		kb_xml_text(f, rep->bots[b].name);
		if (seat >= 0)
			fprintf(f, " (%c)", 'A' + seat);
		fprintf(f, "</text>\n");
	}
	fprintf(f, "</svg>\n");
}

/* games/NNNNNN.html when written, else games/NNNNNN.tx. */
static void game_link(FILE *f, const char *out, uint32_t game)
{
	char path[1024];
	int viewer;

	snprintf(path, sizeof path, "%s/games/%06" PRIu32 ".html", out, game);
	viewer = access(path, R_OK) == 0;
	fprintf(f, "<a href=\"games/%06" PRIu32 ".%s\">%s</a>", game, viewer ? "html" : "tx",
		viewer ? "viewer" : "transcript");
}

/* After a seat's name in the games table: its forfeit's reason, and the
 * whole account (kj_forfeit_text) when the pointer rests on it. */
static void forfeit_note(FILE *f, const kj_result *r, int s)
{
	char text[400];

	if (r->seat[s].reason) {
		kj_forfeit_text(r, s, text, sizeof text);
		fprintf(f, " <span title=\"");
		kb_xml_text(f, text);
		fprintf(f, "\">(forfeit: %s)</span>", kj_reason_name(r->seat[s].reason));
	}
	fputc(' ', f);
}

static void games_table(FILE *f, const char *out, const kj_result *res, size_t n)
{
	fprintf(f, "<h2>Games</h2>\n");
	if (n > KJ_HTML_GAMES)
		fprintf(f, "<p>The first %d of %zu games.</p>\n", KJ_HTML_GAMES, n);
	fprintf(f, "<table id=\"games\"><tr><th>game</th><th>deal</th><th class=\"l\">seats</th>"
		   "<th class=\"l\">winner</th><th>rolls</th><th class=\"l\">view</th></tr>\n");
	for (size_t i = 0; i < n && i < KJ_HTML_GAMES; i++) {
		const kj_result *r = &res[i];
		fprintf(f, "<tr><td>%" PRIu32 "</td><td>%" PRIu32 "</td><td class=\"l\">", r->game,
			r->deal);
		for (int s = 0; s < KB_SEATS; s++)
			if (r->seat[s].present) {
				fprintf(f, "%c&nbsp;", 'A' + s);
				kb_xml_text(f, r->seat[s].name);
				forfeit_note(f, r, s);
			}
		fprintf(f, "</td><td class=\"l\">");
		if (r->winner >= 0 && r->winner < KB_SEATS)
			kb_xml_text(f, r->seat[r->winner].name);
		else
			fprintf(f, "-");
		fprintf(f, "</td><td>%" PRIu32 "</td><td class=\"l\">", r->rolls);
		game_link(f, out, r->game);
		fprintf(f, "</td></tr>\n");
	}
	fprintf(f, "</table>\n");
}

/* Each bot --max-timeouts removed, as results.txt says it. */
static void removed_lines(FILE *f, const kj_report *rep)
{
	for (int i = 0; i < rep->nremoved; i++) {
		char text[200];
		kj_removal_text(&rep->removed[i], text, sizeof text);
		fprintf(f, "<p class=\"removed\">Removed: ");
		kb_xml_text(f, text);
		fprintf(f, ".</p>\n");
	}
}

int kj_report_html(const char *out, const kj_report *rep, const kj_result *res, size_t n,
		   kb_err *err)
{
	char path[1024];
	FILE *f;
	const kj_standings *st = rep->standings;

	snprintf(path, sizeof path, "%s/report.html", out);
	if (!(f = fopen(path, "w"))) {
		snprintf(err->msg, sizeof err->msg, "cannot write %.120s: %.40s", path,
			 strerror(errno));
		return -1;
	}
	kj_html_head(f, "Kimble tournament report");
	fprintf(f, "<h1>Kimble tournament report</h1>\n<p>%u games, %d bots.</p>\n", rep->games,
		rep->nbots);
	removed_lines(f, rep);
	bot_table(f, rep);
	if (st && st->has_rating)
		rating_table(f, st, rep);
	pair_table(f, rep);
	if (st && st->subject >= 0)
		opponent_table(f, st, rep);
	if (st && st->fixed && st->ncurve > 1)
		curve_plot(f, st, rep);
	games_table(f, out, res, n);
	fprintf(f, "</body></html>\n");
	if (fclose(f)) {
		snprintf(err->msg, sizeof err->msg, "cannot write %.150s", path);
		return -1;
	}
	return 0;
}

int kj_html_viewers(const char *out, const kj_result *res, size_t n, kb_err *err)
{
	char tx[1024], html[1024];

	for (size_t i = 0; i < n; i++) {
		snprintf(tx, sizeof tx, "%s/games/%06" PRIu32 ".tx", out, res[i].game);
		snprintf(html, sizeof html, "%s/games/%06" PRIu32 ".html", out, res[i].game);
		if (access(html, F_OK) == 0)
			continue;
		if (kj_html_game_file(tx, html, err))
			return -1;
	}
	return 0;
}
