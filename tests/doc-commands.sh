#!/usr/bin/env bash
# doc-commands.sh FILE - run every runnable example of one document, as
# written, in a fresh folder; exit 0 when all of them succeed.
#
# Runnable examples are marked so that a reader sees ordinary commands:
#   Markdown   a fenced block whose info string is "sh doc-test"
#   roff       the comment line  .\" doc-test  right before an .EX/.EE block
# The blocks of one document run in order, in one bash (set -e, pipefail),
# in a folder that looks like a built checkout: bin/ (the programs under
# test, $KB_BIN, on PATH), meta (the repository's bot directory) and docs/examples.
# Background jobs a block leaves running are killed at the end.
# Exit status: 0 all ran, 1 a command failed (its output is shown), 2 usage
# or no runnable example found.
set -u
file=${1:?usage: doc-commands.sh FILE}
root=${KB_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
bindir=${KB_BIN:-$root/bin}
case $file in /*) ;; *) file=$root/$file ;; esac

# The marked blocks as a script, each preceded by a line naming where it is.
extract() {
	awk -v name="${file#"$root"/}" '
	function unroff(s) {
		gsub(/\\-/, "-", s); gsub(/\\\(aq/, "\047", s); gsub(/\\\(dq/, "\"", s)
		gsub(/\\&/, "", s); gsub(/\\e/, "\\", s); return s }
	/^```sh doc-test[ \t]*$/ { md = 1; print "echo \"== " name ":" NR "\""; next }
	md && /^```/ { md = 0; next }
	md { print; next }
	/^\.\\" doc-test/ { marked = 1; next }
	marked && /^\.EX/ { roff = 1; print "echo \"== " name ":" NR "\""; next }
	roff && /^\.EE/ { roff = 0; marked = 0; next }
	roff { print unroff($0) }'
}

work=$(mktemp -d "${TMPDIR:-/tmp}/doc-commands.XXXXXX")
trap 'rm -rf "$work"' EXIT
{
	echo 'set -e -o pipefail'
	echo 'trap '\''status=$?; kill $(jobs -p) 2>/dev/null || :; wait; exit $status'\'' EXIT'
	extract <"$file"
} >"$work/.doc-script.sh"
grep -q '^echo "== ' "$work/.doc-script.sh" || { echo "doc-commands: no runnable example in $file" >&2; exit 2; }

# bin/: the programs under test.  A sanitized kimble-bot cannot run under
# the judge's default address-space limit (--mem-mb; ASan reserves
# terabytes of shadow memory), so with a sanitized build the bot alone is
# the release build of the same checkout.
mkdir "$work/bin"
for prog in "$bindir"/kimble-*; do
	ln -s "$prog" "$work/bin/${prog##*/}"
done
if ldd "$bindir/kimble-bot" 2>/dev/null | grep -q libasan && [ -x "$root/bin/kimble-bot" ]; then
	ln -sf "$root/bin/kimble-bot" "$work/bin/kimble-bot"
fi
cp "$root/meta" "$work/meta"
mkdir -p "$work/docs"
cp -r "$root/docs/examples" "$work/docs/examples"
rm -f "$work/docs/examples/c-bot/bot"
cd "$work"
if ! PS4='+ $SECONDS ' PATH="$work/bin:$PATH" bash -x .doc-script.sh >.doc-log 2>&1; then
	echo "doc-commands: a documented command failed in $file; the end of its output:" >&2
	tail -n 40 .doc-log >&2
	exit 1
fi
exit 0
