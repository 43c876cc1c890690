/* html.c - self-contained HTML game viewers; see html.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "replay.h"
#include "svg.h"

void kj_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == '<' || c == '>' || c == '&')
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void kj_html_head(FILE *f, const char *title)
{
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		   "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		   "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n<title>");
	kb_xml_text(f, title);
	fprintf(f, "</title>\n<style>\n"
		   "body{font-family:sans-serif;margin:1em;color:#222;background:#fff}\n"
		   "#board{position:relative;width:%dpx;height:%dpx}\n"
		   "#board svg{position:absolute;left:0;top:0}\n"
		   "#controls{margin:.5em 0}#slider{width:420px;vertical-align:middle}\n"
		   "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;"
		   "text-align:right}th{background:#f0f0f0}td.l,th.l{text-align:left}\n"
		   "#state{font-size:15px;min-height:2.5em}#msgs{color:#444;min-height:1.3em}\n"
		   "#decisions{max-height:16em;overflow:auto}\n</style></head>\n<body>\n",
		KB_SVG_WIDTH, KB_SVG_HEIGHT);
}

/* Frame n's state in words (the DOM text the tests and users read). */
static void frame_text(const kb_transcript *tx, const kb_frame *fr, char *out, size_t size)
{
	char facts[320];

	if (fr->roll > fr->rolls) {
		snprintf(out, size, "final position after %" PRIu32 " rolls: %s%c%s%s%s, %s",
			 fr->rolls, fr->winner >= 0 ? "winner " : "no winner",
			 fr->winner >= 0 ? 'A' + fr->winner : ' ', fr->winner >= 0 ? " (" : "",
			 fr->winner >= 0 ? kj_tx_seat_name(tx, fr->winner) : "", fr->winner >= 0 ? ")" : "",
			 fr->result);
		return;
	}
	kb_facts_text(&fr->fx, facts, sizeof facts);
	snprintf(out, size, "roll %" PRIu32 " of %" PRIu32 ": %s: %s", fr->roll, fr->rolls,
		 kj_tx_seat_name(tx, fr->fx.seat), facts);
}

/* Every frame's changing layer and words, as JSON objects. */
static int frames_json(FILE *f, const kb_transcript *tx)
{
	uint32_t frames = (uint32_t)tx->nrolls + 1;
	char *svg = NULL, text[512];
	size_t len = 0;

	fprintf(f, "\"frames\":[");
	for (uint32_t n = 1; n <= frames; n++) {
		kb_frame fr;
		FILE *mem;
		if (kj_frame_of(tx, n, &fr) || !(mem = open_memstream(&svg, &len)))
			return -1;
		kb_svg_frame(mem, &fr, KB_SVG_FRONT);
		fclose(mem);
		frame_text(tx, &fr, text, sizeof text);
		fprintf(f, "%s\n{\"text\":", n > 1 ? "," : "");
		kj_json_str(f, text);
		fprintf(f, ",\"svg\":");
		kj_json_str(f, svg);
		fputc('}', f);
		free(svg);
		svg = NULL;
	}
	fprintf(f, "]");
	return 0;
}

/* A message in words: a move answer (token + index) shows its index. */
static void msg_words(const char *text, char *out, size_t size)
{
	size_t len = strlen(text);

	if (len == KB_TOKEN_LEN + 1 && text[0] == 't')
		snprintf(out, size, "index %c (token %.9s...)", text[len - 1], text);
	else
		snprintf(out, size, "%s", text);
}

/* The bots' messages: [seat, ms, rolls before it, text]. */
static void msgs_json(FILE *f, const kb_transcript *tx)
{
	fprintf(f, ",\n\"names\":[");
	for (int s = 0; s < KB_SEATS; s++) {
		fprintf(f, "%s", s ? "," : "");
		kj_json_str(f, tx->ctl[s] == KB_ABSENT && s ? "" : kj_tx_seat_name(tx, s));
	}
	fprintf(f, "],\n\"msgs\":[");
	for (size_t i = 0; i < tx->nmsgs; i++) {
		const kb_tx_msg *m = &tx->msgs[i];
		char words[128];
		msg_words(m->text, words, sizeof words);
		fprintf(f, "%s\n[%d,%.3f,%" PRIu32 ",", i ? "," : "", m->seat, m->ms, m->after_roll);
		kj_json_str(f, words);
		fputc(']', f);
	}
	fprintf(f, "]");
}

/* The decisions table: every message a bot sent, with its roll and time. */
static void decisions_table(FILE *f, const kb_transcript *tx)
{
	char words[128];

	fprintf(f, "<h2>Decisions</h2>\n<table id=\"summary\"><tr><th class=\"l\">seat</th>"
		   "<th>messages</th><th>decided rolls</th><th>last at ms</th></tr>\n");
	for (int s = 0; s < KB_SEATS; s++) {
		unsigned msgs = 0, decided = 0;
		double last = 0;
		if (s && tx->ctl[s] == KB_ABSENT)
			continue;
		for (size_t i = 0; i < tx->nmsgs; i++)
			if (tx->msgs[i].seat == s)
				msgs++, last = tx->msgs[i].ms;
		for (size_t i = 0; i < tx->nrolls; i++)
			decided += tx->rolls[i].how == KB_DECIDED &&
				   tx->rolls[i].line[KB_BOARD_LEN] - 'A' == s;
		fprintf(f, "<tr><td class=\"l\">%c ", 'A' + s);
		kb_xml_text(f, kj_tx_seat_name(tx, s));
		fprintf(f, "</td><td>%u</td><td>%u</td><td>%.3f</td></tr>\n", msgs, decided, last);
	}
	fprintf(f, "</table>\n<div id=\"decisions\"><table><tr><th>roll</th><th class=\"l\">seat"
		   "</th><th>at ms</th><th class=\"l\">sent</th></tr>\n");
	for (size_t i = 0; i < tx->nmsgs; i++) {
		const kb_tx_msg *m = &tx->msgs[i];
		msg_words(m->text, words, sizeof words);
		fprintf(f, "<tr><td><a href=\"#roll=%" PRIu32 "\">%" PRIu32 "</a></td><td class=\"l\">"
			   "%c ", m->after_roll + 1, m->after_roll + 1, 'A' + m->seat);
		kb_xml_text(f, kj_tx_seat_name(tx, m->seat));
		fprintf(f, "</td><td>%.3f</td><td class=\"l\">", m->ms);
		kb_xml_text(f, words);
		fprintf(f, "</td></tr>\n");
	}
	fprintf(f, "</table></div>\n");
}

static const char viewer_js[] =
	"(function(){\n"
	"var $=function(id){return document.getElementById(id);};\n"
	"var D=JSON.parse($('data').textContent),N=D.frames.length,n=1,timer=null;\n"
	"function show(k){\n"
	" n=Math.max(1,Math.min(N,k|0));var fr=D.frames[n-1];\n"
	" $('front').innerHTML=fr.svg;$('slider').value=n;$('state').textContent=fr.text;\n"
	" $('pos').textContent=(n<N?'roll '+n:'end')+' / '+(N-1)+' rolls';\n"
	" var m=D.msgs.filter(function(x){return x[2]==n-1;}).map(function(x){\n"
	"  return String.fromCharCode(65+x[0])+' '+D.names[x[0]]+' at '+x[1].toFixed(3)+' ms: '+x[3];});\n"
	" $('msgs').textContent=m.length?'sent before this roll: '+m.join('; '):'';\n"
	" document.body.setAttribute('data-roll',n);\n"
	"}\n"
	"function play(on){\n"
	" if(timer){clearInterval(timer);timer=null;}\n"
	" if(on){if(n>=N)show(1);timer=setInterval(function(){if(n>=N)play(false);else show(n+1);},400);}\n"
	" $('play').textContent=timer?'pause':'play';\n"
	"}\n"
	"function step(d){play(false);show(n+d);}\n"
	"function fromHash(){var m=/roll=(\\d+)/.exec(location.hash);play(false);show(m?+m[1]:1);}\n"
	"$('first').onclick=function(){step(-N);};$('prev').onclick=function(){step(-1);};\n"
	"$('next').onclick=function(){step(1);};$('last').onclick=function(){step(N);};\n"
	"$('play').onclick=function(){play(!timer);};\n"
	"$('slider').oninput=function(){play(false);show(+this.value);};\n"
	"document.addEventListener('keydown',function(e){\n"
	" if(e.target&&e.target.id=='slider'&&e.key!=' ')return;\n"
	" if(e.key=='ArrowLeft')step(-1);else if(e.key=='ArrowRight')step(1);\n"
	" else if(e.key==' ')play(!timer);else if(e.key=='Home')step(-N);\n"
	" else if(e.key=='End')step(N);else return;\n"
	" e.preventDefault();});\n"
	"window.addEventListener('hashchange',fromHash);\n"
	"fromHash();\n"
	"})();\n";

static void controls(FILE *f, const kb_transcript *tx)
{
	fprintf(f, "<div id=\"controls\"><button id=\"first\" title=\"first roll (Home)\">|&lt;"
		   "</button> <button id=\"prev\" title=\"step back (left)\">&lt;</button> "
		   "<button id=\"play\" title=\"play/pause (space)\">play</button> "
		   "<button id=\"next\" title=\"step forward (right)\">&gt;</button> "
		   "<button id=\"last\" title=\"final position (End)\">&gt;|</button> "
		   "<input type=\"range\" id=\"slider\" min=\"1\" max=\"%zu\" value=\"1\"> "
		   "<span id=\"pos\"></span></div>\n"
		   "<p id=\"state\"></p>\n<p id=\"msgs\"></p>\n",
		tx->nrolls + 1);
}

int kj_html_game(FILE *f, const kb_transcript *tx, const char *title)
{
	kb_frame first;

	if (kj_frame_of(tx, 1, &first))
		kb_frame_at(&first, tx->start_board, kj_tx_present(tx), NULL, 0, -1, 0, -1);
	kj_html_head(f, title);
	fprintf(f, "<h1>");
	kb_xml_text(f, title);
	fprintf(f, "</h1>\n<p id=\"seats\">seed %" PRIu64 ":", tx->seed);
	for (int s = 0, k = 0; s < KB_SEATS; s++)
		if ((kj_tx_present(tx) >> s) & 1) {
			fprintf(f, "%s %c ", k++ ? ";" : "", 'A' + s);
			kb_xml_text(f, kj_tx_seat_name(tx, s));
			fprintf(f, " (%s corner)", kb_corner_name(s));
		}
	fprintf(f, "</p>\n<div id=\"board\">");
	kb_svg_frame(f, &first, KB_SVG_BACK);
	fprintf(f, "<div id=\"front\"></div></div>\n");
	controls(f, tx);
	decisions_table(f, tx);
	fprintf(f, "<script type=\"application/json\" id=\"data\">{");
	if (frames_json(f, tx))
		return KJ_HTML_UNDRAWABLE;
	msgs_json(f, tx);
	fprintf(f, "}</script>\n<script>\n%s</script>\n</body></html>\n", viewer_js);
	return ferror(f) ? -1 : 0;
}

int kj_html_game_file(const char *tx_path, const char *html_path, kb_err *err)
{
	kb_transcript tx;
	FILE *in = fopen(tx_path, "r"), *out;
	const char *base = strrchr(tx_path, '/');
	char title[256];
	int rc;

	if (!in) {
		snprintf(err->msg, sizeof err->msg, "%.140s: %.40s", tx_path, strerror(errno));
		return -1;
	}
	rc = kb_tx_read(in, &tx, err);
	fclose(in);
	if (rc)
		return -1;
	snprintf(title, sizeof title, "Kimble game %.200s", base ? base + 1 : tx_path);
	if (!(out = html_path ? fopen(html_path, "w") : stdout)) {
		snprintf(err->msg, sizeof err->msg, "cannot write %.120s: %.40s", html_path,
			 strerror(errno));
		kb_tx_free(&tx);
		return -1;
	}
	rc = kj_html_game(out, &tx, title);
	if (html_path && fclose(out) && rc == 0)
		rc = -1;
	kb_tx_free(&tx);
	if (rc == KJ_HTML_UNDRAWABLE)
		snprintf(err->msg, sizeof err->msg, "%.140s: a board of the game cannot be drawn",
			 tx_path);
	else if (rc)
		snprintf(err->msg, sizeof err->msg, "cannot write %.160s",
			 html_path ? html_path : "stdout");
	return rc ? -1 : 0;
}
