#!/bin/sh
# run.sh - try an outside reviewer's one-line bugs against the test suite.
#
# usage: run.sh [--no-baseline] [--only NAME] [--try-first RESULTS] BUGS TREE [OUTDIR]
#
#   BUGS    the bugs file (blocks of "bug:", "file:", "orig:", "new:",
#           "why:" lines; see bugs.txt)
#   TREE    a SCRATCH git work tree of the project (e.g. made with
#           `git worktree add --detach /tmp/x COMMIT`); its files are
#           changed one bug at a time and restored with git checkout.
#           Never give it a tree anyone works in.
#   OUTDIR  logs and the result table (default: TREE/build/reviewer)
#
# For each bug: find the original line by its text (whitespace-trimmed;
# it must occur exactly once, else the bug is reported as "line not
# found"), replace it, build the release programs, the test binary and
# the test bots (what the Makefile's test target needs, without the ASan
# build), run the release suite as `make test` does, record caught / not
# caught and the first failing test, and restore the file.  A suite that
# runs longer than its time limit (3x the unmutated run, at least 600 s)
# counts as caught (timed out); a build that fails as "not compiled".
# --try-first RESULTS (a results.md of an earlier run): run first, alone,
# the test that caught each bug then; if it still fails the bug is caught
# (the count of failing tests is then 1), else the whole suite runs.
# --no-baseline skips the unmutated suite run.  Everything runs under nice.
set -u

BASELINE=1 ONLY= HINTS=
while [ $# -gt 0 ]; do
	case $1 in
	--try-first) HINTS=$(realpath "$2"); shift 2 ;;
	--no-baseline) BASELINE=; shift ;;
	--only) ONLY=$2; shift 2 ;;
	-h|--help) sed -n '2,/^set -u/p' "$0" | sed 's/^# \{0,1\}//; /^set -u/d'; exit 0 ;;
	-*) echo "run.sh: unknown option $1" >&2; exit 64 ;;
	*) break ;;
	esac
done
[ $# -ge 2 ] || { echo "usage: run.sh [--no-baseline] [--only NAME] [--try-first RESULTS] BUGS TREE [OUTDIR]" >&2; exit 64; }
BUGS=$(realpath "$1") TREE=$(realpath "$2")
OUT=${3:-$TREE/build/reviewer}
mkdir -p "$OUT" && OUT=$(realpath "$OUT")
cd "$TREE" || exit 2
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "run.sh: $TREE is not a git work tree" >&2; exit 2; }
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
	echo "run.sh: $TREE has changed tracked files; give it a clean scratch tree" >&2
	git status --short --untracked-files=no >&2
	exit 2
fi
COMMIT=$(git rev-parse --short HEAD)

# What the test target builds besides the ASan build and `deps`.
TARGETS=$(make -pq 2>/dev/null | sed -n 's/^test: *//p' | head -1 | tr ' ' '\n' |
	grep -v -e '^deps$' -e '^build/asan/' -e '^$' | tr '\n' ' ')
[ -n "$TARGETS" ] || TARGETS="all build/rel/tests/kimble-tests"

build() {
	nice make -j2 $TARGETS >"$1" 2>&1
}

# suite LOG TAP LIMIT [FILTER]: run the release suite (or the tests
# FILTER matches); prints its exit status.
suite() {
	timeout "$3" nice env KB_ROOT="$TREE" ASAN_OPTIONS=abort_on_error=0:detect_leaks=1 \
		UBSAN_OPTIONS=print_stacktrace=1 KB_BIN="$TREE/bin" \
		build/rel/tests/kimble-tests -j2 ${4:+--filter "$4"} --tap="$2" >"$1" 2>&1
	echo $?
}

# The failing tests of a TAP file, one a line, as suite::name.
failed() {
	grep -a '^not ok' "$1" 2>/dev/null | sed 's/^not ok [0-9]* *- *//; s/:* *([0-9.]*s)$//; s/ *#.*//'
}

# The test that caught bug $1 in the results table $HINTS, as a filter.
hint() {
	[ -n "$HINTS" ] || return 0
	awk -F' [|] ' -v b="$1" '$1 == "| " b && $3 ~ /^yes/ { print $4 }' "$HINTS" |
		sed -n 's/^\([A-Za-z0-9_]*\)::\([A-Za-z0-9_]*\)$/\1\/\2/p' | head -1
}

# Apply (or check) bug NAME of BUGS to its file in TREE.  Exit 0 applied,
# 3 line not found (or not once), 4 no such bug.
apply_bug() {
	python3 - "$BUGS" "$1" "$2" <<'EOF'
import re, sys
bugs, name, mode = sys.argv[1:4]
for block in open(bugs).read().split("\n\n"):
    d = {}
    for l in block.splitlines():
        m = re.match(r"(\w+): ?(.*)$", l)
        if m and not l.startswith("#"):
            d[m.group(1)] = m.group(2)
    if d.get("bug") != name:
        continue
    def places(path):
        try:
            lines = open(path).read().split("\n")
        except OSError:
            return [], []
        return lines, [i for i, l in enumerate(lines) if l.strip() == d["orig"].strip()]
    lines, at = places(d["file"])
    if len(at) != 1:
        # the file moved or was renamed: look for the line in every
        # tracked C source
        import subprocess
        files = subprocess.run(["git", "ls-files", "*.c", "*.h"], capture_output=True,
                               text=True).stdout.split()
        found = [(f,) + places(f) for f in files]
        found = [x for x in found if x[2]]
        if len(found) != 1 or len(found[0][2]) != 1:
            print("line found %d times in %s (%d times in all sources): %s"
                  % (len(at), d["file"], sum(len(x[2]) for x in found), d["orig"]))
            sys.exit(3)
        d["file"], lines, at = found[0]
    if mode == "apply":
        l = lines[at[0]]
        lines[at[0]] = l[:len(l) - len(l.lstrip())] + d["new"].strip()
        open(d["file"], "w").write("\n".join(lines))
    print(d["file"])
    sys.exit(0)
sys.exit(4)
EOF
}

names=$(sed -n 's/^bug: *//p' "$BUGS")
[ -z "$ONLY" ] || names=$ONLY
TABLE=$OUT/results.md
{
	echo "reviewer bugs on commit $COMMIT ($(git log -1 --format=%cd --date=iso)), run $(date -u '+%Y-%m-%d %H:%M UTC')${HINTS:+, trying first the tests of $HINTS}"
	echo
} >"$TABLE"

echo "== build (unmutated, $COMMIT)" >&2
t0=$(date +%s)
build "$OUT/build-base.log" || { echo "run.sh: the unmutated tree does not build (see $OUT/build-base.log)" >&2; exit 1; }
echo "   build took $(( $(date +%s) - t0 )) s" >&2
LIMIT=600
if [ -n "$BASELINE" ]; then
	echo "== suite (unmutated)" >&2
	t0=$(date +%s)
	rc=$(suite "$OUT/suite-base.log" "$OUT/suite-base.tap" 3600)
	secs=$(( $(date +%s) - t0 ))
	echo "   suite took $secs s, exit $rc" >&2
	echo "unmutated suite: exit $rc in $secs s ($(grep -a 'Synthesis' "$OUT/suite-base.log" | sed 's/.*Synthesis: //'))" >>"$TABLE"
	[ "$rc" = 0 ] || echo "run.sh: WARNING: the unmutated suite fails; failures below may not be the bug's" >&2
	[ $((3 * secs)) -gt $LIMIT ] && LIMIT=$((3 * secs))
	echo >>"$TABLE"
fi
echo "| bug | file | caught? | first failing test | failing tests | seconds (build + suite) |" >>"$TABLE"
echo "|---|---|---|---|---:|---:|" >>"$TABLE"

for name in $names; do
	t0=$(date +%s)
	log=$OUT/$name
	if ! file=$(apply_bug "$name" check); then
		echo "== $name: $file" >&2
		echo "| $name | - | LINE NOT FOUND: $file | - | - | - |" >>"$TABLE"
		continue
	fi
	apply_bug "$name" apply >/dev/null
	git diff -- "$file" >"$log.diff"
	echo "== $name ($file)" >&2
	if ! build "$log.build.log"; then
		verdict="not compiled" first=- nfail=-
	else
		rc=0 h=$(hint "$name")
		if [ -n "$h" ]; then
			rc=$(suite "$log.try.log" "$log.try.tap" $LIMIT "$h")
			[ "$rc" = 0 ] || { cp "$log.try.log" "$log.suite.log"; cp "$log.try.tap" "$log.tap"; }
		fi
		[ "$rc" != 0 ] || rc=$(suite "$log.suite.log" "$log.tap" $LIMIT)
		nfail=$(failed "$log.tap" | grep -c .)
		first=$(failed "$log.tap" | head -1)
		if [ "$rc" = 0 ]; then
			verdict="no"
		elif [ "$rc" = 124 ]; then
			verdict="yes (timed out)"
		else
			verdict="yes"
		fi
		[ -n "$first" ] || first=-
		[ "$rc" = 0 ] || [ "$first" != - ] || first="(exit $rc, see $name.suite.log)"
	fi
	git checkout -q -- "$file"
	secs=$(( $(date +%s) - t0 ))
	echo "   $verdict; first failing: $first; $secs s" >&2
	echo "| $name | $file | $verdict | $first | $nfail | $secs |" >>"$TABLE"
done
echo "== restore build" >&2
build "$OUT/build-restore.log"
[ -z "$(git status --porcelain --untracked-files=no)" ] || echo "run.sh: WARNING: $TREE still has changes" >&2
cat "$TABLE"
