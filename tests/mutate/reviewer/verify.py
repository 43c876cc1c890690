#!/usr/bin/env python3
"""Check that no mutant tests/mutate/mutate.py generates equals a reviewer bug.
usage: reviewer-verify.py BUGS TREE"""
import importlib.util, os, re, sys

USAGE = ("usage: verify.py BUGS TREE\n"
         "  BUGS: a bugs file (tests/mutate/reviewer/bugs.txt)\n"
         "  TREE: a checkout of this project (its tests/mutate/mutate.py makes the mutants)\n"
         "A bug equals a mutant when the source they make is the same text, whitespace\n"
         "collapsed: the same bug written another way (if (x) for if (!!x)) does not match.")

def read_bugs(path):
    bugs = []
    for block in open(path).read().split("\n\n"):
        d = {}
        for l in block.splitlines():
            if l.startswith("#"):
                continue
            m = re.match(r"(\w+): ?(.*)$", l)
            if m:
                d[m.group(1)] = m.group(2)
        if "bug" in d:
            bugs.append(d)
    return bugs

def apply_bug(src, b):
    out, n = [], 0
    for l in src.split("\n"):
        if l.strip() == b["orig"]:
            indent = l[:len(l) - len(l.lstrip())]
            l = indent + b["new"]
            n += 1
        out.append(l)
    return "\n".join(out), n

if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1] in ("-h", "--help"):
        print(USAGE)
        sys.exit(0)
    if len(sys.argv) != 3:
        sys.exit(USAGE)
    bugs_path, tree = sys.argv[1], sys.argv[2]
    if not os.path.isfile(tree + "/tests/mutate/mutate.py"):
        sys.exit("verify.py: %s is not a checkout of this project (no tests/mutate/mutate.py)" % tree)
    if not os.path.isfile(bugs_path):
        sys.exit("verify.py: %s: no such bugs file" % bugs_path)
    spec = importlib.util.spec_from_file_location("mutate", tree + "/tests/mutate/mutate.py")
    mut = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mut)
    norm = lambda s: " ".join(s.split())
    bad = 0
    for b in read_bugs(bugs_path):
        try:
            src = open(tree + "/" + b["file"]).read()
        except OSError:
            # moved: the one tracked C source that holds the line
            import subprocess
            files = subprocess.run(["git", "-C", tree, "ls-files", "*.c", "*.h"],
                                   capture_output=True, text=True).stdout.split()
            hits = [f for f in files if b["orig"] in
                    [l.strip() for l in open(tree + "/" + f).read().split("\n")]]
            if len(hits) != 1:
                print("%-32s file gone, line found in %d sources" % (b["bug"], len(hits)))
                bad += 1
                continue
            b["file"] = hits[0]
            src = open(tree + "/" + b["file"]).read()
        buggy, n = apply_bug(src, b)
        muts = mut.mutants_of(b["file"], src)
        same = [m for m in muts if norm(m.apply(src)) == norm(buggy)]
        on_line = [m for m in muts if m.line == norm(b["orig"])]
        print("%-32s %s: line found %d time(s); tool mutants of that line: %2d; equal to the bug: %d"
              % (b["bug"], b["file"], n, len(on_line), len(same)))
        bad += len(same) > 0 or n != 1
    sys.exit(1 if bad else 0)
