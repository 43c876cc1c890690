#!/usr/bin/env python3
"""mutate.py - the project's mutation tester (see docs/mutation.md).

Makes one-token or one-statement changes ("mutants") to the C sources,
builds each in a scratch copy of the tree (build/mutate/tree: the working
tree is never written, so an interrupted run leaves nothing behind), runs
the release test suites that can see the mutated folder, and reports per
folder: mutants, killed, survived, timed out, not compiled, equivalent.

Python 3 standard library only: no Debian package does C mutation, and a
tokenizer, sampling, timeouts on process groups and JSON are short in it.
"""
import argparse
import fcntl
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time

# Which test suites can see each folder's code (Criterion extglob filters).
# core is used by everything, so every suite runs for it.
SUITES = {
    "core": "*",
    # (the browser-driven tests of the viewer and live pages, seconds each,
    # try the pages' scripts, which are strings that no mutant changes)
    "judge": "@(judge*|server*|relay*|rating|sandbox|viewer|live|cli|trial|fuzz_corpus)/!(html_steps_in_chromium|browser_*)",
    "state": "@(state*|bot*|fuzz_corpus)/*",
    # bot_rules ran first already; the 1000-game store stress test (11 s of
    # a 15 s run) tests state's concurrency, bot_rules the bot's records
    "bot": "@(bot!(_rules)|eval*|relay*|state_bot|fuzz_corpus)/!(eight_bots_*)",
}
FOLDERS = ["core", "judge", "state", "bot"]
# Between a folder's rule tests and its suites: fast unit suites that kill
# what the rule tests miss in seconds, before the minutes of all suites.
# core's modules are also unit-tested by their users (the model and the
# records by state's suites, the pictures by judge's, the policies by
# bot's): those suites run before the processes, games and documents that
# make most of the whole run.
UNIT = {
    "core": ["@(board|net|num|rng|rules|transcript|wire)/*",
             "@(judge_rules|state_rules|bot_rules|state_model|state_record|state_store|state_tool"
             "|eval|bot_search|bot_observe|bot_rollout|rating|frozen|trial|fuzz_corpus)/*"],
}
# A changed evaluation weight is a tuning choice, not a bug.
EXCLUDED = {"bot/weights.h"}

TOKEN_RE = re.compile(r"""
    (?P<ws>\s+)
  | (?P<comment>/\*.*?\*/|//[^\n]*)
  | (?P<str>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
  | (?P<num>0[xX][0-9a-fA-F]+[uUlL]*|\d+\.\d*(?:[eE][-+]?\d+)?[fF]?|\d+[eE][-+]?\d+[fF]?|\d+[uUlL]*)
  | (?P<id>[A-Za-z_]\w*)
  | (?P<op><<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|[-+*/%&|^<>=!~?:;,.(){}\[\]#])
""", re.S | re.X)

# Operator replacements: relational (boundary and negation), arithmetic,
# bitwise, logical, compound assignment, increment.
REPLACE = {
    "<": ["<="], "<=": ["<"], ">": [">="], ">=": [">"],
    "==": ["!="], "!=": ["=="],
    "+": ["-"], "-": ["+"], "*": ["/"], "/": ["*"], "%": ["/"],
    "&": ["|"], "|": ["&"], "^": ["|"], "<<": [">>"], ">>": ["<<"],
    "&&": ["||"], "||": ["&&"],
    "+=": ["-="], "-=": ["+="], "|=": ["&="], "&=": ["|="],
    "++": ["--"], "--": ["++"],
}
# Tokens that are binary only with a space on both sides (kernel style):
# this tells multiplication from a pointer and a - b from -1.
SPACED = {"+", "-", "*", "/", "%", "&", "|", "^", "<", ">", "<<", ">>"}
NOT_STATEMENT_START = {
    "return", "break", "continue", "goto", "case", "default", "else",
    "if", "for", "while", "do", "switch", "static", "const", "struct",
    "enum", "union", "typedef", "unsigned", "signed", "int", "char", "long",
    "short", "double", "float", "void", "bool", "extern", "volatile",
}


def tokenize(src):
    """Tokens (kind, text, start, end) of src, preprocessor lines marked."""
    toks, pos, line_start_pp = [], 0, False
    while pos < len(src):
        m = TOKEN_RE.match(src, pos)
        if not m:
            toks.append(("other", src[pos], pos, pos + 1))
            pos += 1
            continue
        kind = m.lastgroup
        toks.append((kind, m.group(), m.start(), m.end()))
        pos = m.end()
    # mark tokens on preprocessor lines (with continuations)
    out, in_pp = [], False
    for i, (kind, text, s, e) in enumerate(toks):
        if kind == "op" and text == "#":
            bol = src.rfind("\n", 0, s) + 1
            if src[bol:s].strip() == "":
                in_pp = True
        if kind == "ws" and "\n" in text:
            prev = src[s - 1] if s > 0 else ""
            if in_pp and prev != "\\":
                out.append((kind, text, s, e, True))
                in_pp = False
                continue
        out.append((kind, text, s, e, in_pp))
    return [t for t in out if t[0] not in ("ws", "comment")], out


def line_of(src, pos):
    bol = src.rfind("\n", 0, pos) + 1
    eol = src.find("\n", pos)
    return src[bol:eol if eol >= 0 else len(src)]


TOP_LEVEL = re.compile(r"^(?!typedef\b|struct\b\s*\w*\s*\{|enum\b\s*\w*\s*\{|\w+:\s*$)"
                       r"[A-Za-z_][^\n]*", re.M)
_scopes = {}


def scopes_of(src):
    """(offset, name) of every top-level definition of src (functions and
    variables start at column 0 in this project's style), in order."""
    if id(src) not in _scopes:
        out = []
        for m in TOP_LEVEL.finditer(src):
            text = m.group(0)
            head = text.split("(")[0] if "(" in text else re.split(r"[=\[;]", text)[0]
            names = re.findall(r"[A-Za-z_]\w*", head)
            if names:
                out.append((m.start(), names[-1]))
        _scopes.clear()  # one file at a time
        _scopes[id(src)] = (src, out)
    return _scopes[id(src)][1]


def scope_at(src, pos):
    """The function (or top-level variable) that holds position pos."""
    name = "-"
    for start, n in scopes_of(src):
        if start > pos:
            break
        name = n
    return name


class Mutant:
    def __init__(self, path, src, start, end, new, op):
        self.path, self.start, self.end, self.new, self.op = path, start, end, new, op
        self.lineno = src.count("\n", 0, start) + 1
        self.scope = scope_at(src, start)
        self.line = " ".join(line_of(src, start).split())
        self.old = src[start:end]
        self.key = None  # set by number_keys

    def apply(self, src):
        return src[:self.start] + self.new + src[self.end:]

    def diff(self, src):
        after = self.apply(src)
        a_lines, b_lines = src.splitlines(), after.splitlines()
        first = self.lineno - 1
        n_after = len(b_lines) - len(a_lines)
        last_a = first + self.old.count("\n")
        last_b = last_a + n_after
        # a real hunk without context (patch -p1, git apply --unidiff-zero)
        out = ["--- a/%s" % self.path, "+++ b/%s" % self.path,
               "@@ -%d,%d +%d,%d @@" % (self.lineno, last_a - first + 1,
                                       self.lineno, last_b - first + 1)]
        out += ["-" + l for l in a_lines[first:last_a + 1]]
        out += ["+" + l for l in b_lines[first:last_b + 1]]
        return "\n".join(out)


def is_binary(toks, i, src):
    """toks[i] is an operator used between two operands (spaced)."""
    _, _, s, e, _ = toks[i]
    return s > 0 and e < len(src) and src[s - 1] in " \t" and src[e] in " \t\n"


def match_paren(toks, i):
    depth = 0
    for j in range(i, len(toks)):
        if toks[j][1] == "(":
            depth += 1
        elif toks[j][1] == ")":
            depth -= 1
            if depth == 0:
                return j
    return None


def statement_end(toks, i):
    """Index of the ';' ending the simple statement starting at i, or None."""
    depth = 0
    for j in range(i, len(toks)):
        t = toks[j][1]
        if t in "([":
            depth += 1
        elif t in ")]":
            depth -= 1
            if depth < 0:
                return None
        elif t in "{}":
            return None
        elif t == ";" and depth == 0:
            return j
    return None


def mutants_of(path, src):
    toks, _ = tokenize(src)
    muts = []
    for i, (kind, text, s, e, pp) in enumerate(toks):
        if pp:
            # only the value of "#define NAME number" lines
            if kind == "num" and i >= 2 and toks[i - 2][1] == "define":
                muts += constant_mutants(path, src, text, s, e)
            continue
        if kind == "op" and text in REPLACE:
            if text in SPACED and not is_binary(toks, i, src):
                continue
            for new in REPLACE[text]:
                muts.append(Mutant(path, src, s, e, new, "'%s' -> '%s'" % (text, new)))
        elif kind == "num" and not in_array_size(toks, i):
            muts += constant_mutants(path, src, text, s, e)
        elif kind == "id" and text in ("if", "while") and i + 1 < len(toks) and toks[i + 1][1] == "(":
            close = match_paren(toks, i + 1)
            if close is not None:
                a, b = toks[i + 1][3], toks[close][2]
                muts.append(Mutant(path, src, a, b, "!(" + src[a:b] + ")",
                                   "negate %s condition" % text))
        elif kind == "id" and text == "return":
            end = statement_end(toks, i)
            if end is None:
                continue
            s_end = toks[end][3]
            # `return 0` for `return NULL` is the same statement
            null = end == i + 2 and toks[i + 1][1] == "NULL"
            if end > i + 1 and toks[i + 1][1] != "0" and not null:
                muts.append(Mutant(path, src, s, s_end, "return 0;", "return 0"))
            muts.append(Mutant(path, src, s, s_end, ";", "drop return"))
        elif kind == "id" and text not in NOT_STATEMENT_START and i > 0 \
                and toks[i - 1][1] in (";", "{", "}") and not toks[i - 1][4]:
            muts += statement_mutant(path, src, toks, i)
    return muts


def in_array_size(toks, i):
    return i > 0 and toks[i - 1][1] == "[" and i + 1 < len(toks) and toks[i + 1][1] == "]" \
        and i > 1 and toks[i - 2][0] == "id"


def constant_mutants(path, src, text, s, e):
    if "." in text or "e" in text.lower() and not text.lower().startswith("0x"):
        return []  # floating-point constants
    if text.lower().startswith("0x") and len(text) > 6:
        return []
    m = re.match(r"(0[xX][0-9a-fA-F]+|\d+)(.*)", text)
    digits, suffix = m.group(1), m.group(2)
    if digits[:2].lower() == "0x":
        value, fmt = int(digits, 16), "0x%x"
    elif len(digits) > 1 and digits[0] == "0":
        value, fmt = int(digits, 8), "0%o"  # file modes
    else:
        value, fmt = int(digits), "%d"
    out = []
    for new in (value + 1, value - 1):
        if new < 0:
            continue
        text_new = (fmt % new) + suffix
        out.append(Mutant(path, src, s, e, text_new, "%s -> %s" % (text, text_new)))
    return out


def statement_mutant(path, src, toks, i):
    """Drop an expression statement (a call or an assignment)."""
    end = statement_end(toks, i)
    if end is None:
        return []
    body = [t[1] for t in toks[i:end]]
    # a declaration starts with two identifiers (type name) or a type and '*'
    if len(body) > 1 and toks[i + 1][0] == "id":
        return []
    if len(body) > 2 and body[1] == "*" and toks[i + 2][0] == "id" and src[toks[i + 1][2] + 1] != " ":
        return []
    if not any(t in ("(", "=", "+=", "-=", "|=", "&=", "++", "--", "<<=", ">>=", "^=", "*=", "/=")
               for t in body):
        return []
    return [Mutant(path, src, toks[i][2], toks[end][3], ";", "drop statement")]


def number_keys(muts):
    """Stable keys: file, the function that holds the mutant, its line's
    text, the mutation, and its ordinal among equal mutations of equal
    lines in that function (an equal line added in another function leaves
    the key as it was)."""
    seen = {}
    for m in muts:
        base = "%s: %s: `%s` %s" % (m.path, m.scope, m.line, m.op)
        seen[base] = seen.get(base, 0) + 1
        m.key = "%s #%d" % (base, seen[base])


def read_equivalent(path):
    """Keys of equivalent mutants -> reason, from equivalent.txt."""
    eq, key = {}, None
    if not os.path.exists(path):
        return eq
    with open(path) as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            if line.startswith((" ", "\t")):
                text = line.strip()
                if key is None or not text.startswith("why:"):
                    sys.exit("%s:%d: expected a mutant key before '    why: REASON'" % (path, n))
                eq[key] = text[4:].strip()
                key = None
            else:
                if key is not None:
                    sys.exit("%s:%d: mutant key '%s' has no '    why: REASON' line" % (path, n - 1, key))
                key = line
    if key is not None:
        sys.exit("%s: the last key has no '    why: REASON' line" % path)
    return eq


# ---- the scratch tree ------------------------------------------------------

def project_files(root):
    out = subprocess.run(["git", "-C", root, "ls-files", "-co", "--exclude-standard", "-z"],
                         check=True, capture_output=True).stdout.decode()
    return [p for p in out.split("\0") if p and os.path.isfile(os.path.join(root, p))]


def sync_tree(root, tree):
    """Make tree a copy of root's sources, copying only what differs, so
    that the scratch build stays incremental from run to run."""
    os.makedirs(tree, exist_ok=True)
    for rel in project_files(root):
        if rel.startswith("build/mutate/"):
            continue
        src, dst = os.path.join(root, rel), os.path.join(tree, rel)
        if os.path.exists(dst) and same_bytes(src, dst):
            continue
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copyfile(src, dst)
        shutil.copymode(src, dst)


def same_bytes(a, b):
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


def kill_group(pgid):
    """SIGKILL to process group pgid, which may be gone already."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def run(cmd, cwd, timeout, env=None):
    """(returncode or 'timeout', output) of cmd in its own process group."""
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        return proc.returncode, out.decode(errors="replace")
    except subprocess.TimeoutExpired:
        exited = proc.poll()
        kill_group(proc.pid)
        try:
            out, _ = proc.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            # a process that left the group (a test's worker in a session
            # of its own, seen once under user nobody) still holds the
            # pipe: waiting for its end would wait for ever
            proc.stdout.close()
            proc.wait()
            out = b""
        # the command itself finished: its status, not a timeout
        return (exited if exited is not None else "timeout"), out.decode(errors="replace")
    except BaseException:
        # Ctrl-C reaches only this process (the child has its own
        # session): take the build or the tests down with it
        kill_group(proc.pid)
        proc.wait()
        raise


# ---- the fence: a PID namespace per test run --------------------------------
#
# A mutant can turn a process id into 1 (judge/proc.c's `track(0, pid)` ->
# `track(1, pid)` leaves 1 in the table kj_proc_kill_all() signals), and
# kill(-1, SIGKILL) from a root test then stops every process on the
# machine, this tool and its shell included.  Inside a PID namespace of its
# own, -1 reaches only the test run.  The namespace's first process (INIT)
# runs the tests and reaps the orphans they leave, as init does (tests wait
# for a bot to be gone, and an unreaped zombie still has its pid); when it
# exits the kernel kills whatever is left.  It mounts /proc afresh so that
# the judge's reads of /proc/PID (the write budget) see the namespace's pids.
# The tests get, inside, the pid INIT has outside (ns_last_pid): Criterion
# names its socket (/tmp/criterion_PID.sock) and shared memory
# (/dev/shm/bxfi_PID) by pid, and pid 2 in every namespace would make two
# runs at once collide, while INIT's own pid is no other process's.

INIT = """import os, subprocess, sys
outside = int(os.readlink("/proc/self"))  # the machine's /proc, not yet ours
subprocess.run(["mount", "-t", "proc", "proc", "/proc"], check=True)
with open("/proc/sys/kernel/ns_last_pid", "w") as f:
    f.write(str(outside - 1))
child = os.fork()
if child == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
while True:
    pid, status = os.wait()
    if pid == child:
        code = os.waitstatus_to_exitcode(status)
        sys.exit(code if code >= 0 else 128 - code)
"""
FENCE = ["unshare", "--pid", "--fork", "--kill-child", "--mount"]


def make_fence():
    """The command prefix that fences a test run, or [] (with a warning)
    when this process cannot make the namespaces (only root can here)."""
    cmd = FENCE + [sys.executable, "-c", INIT, "true"]
    try:
        ok = os.geteuid() == 0 and subprocess.run(cmd, stdout=subprocess.DEVNULL,
                                                  stderr=subprocess.DEVNULL).returncode == 0
    except OSError:
        ok = False
    if ok:
        return FENCE + [sys.executable, "-c", INIT]
    log("mutate: warning: tests run without a PID namespace (needs root and unshare): "
        "a mutant that signals process -1 can stop every process of this user")
    return []


class Scratch:
    def __init__(self, tree, jobs):
        self.tree, self.jobs = tree, jobs
        self.fence = make_fence()
        bots = [os.path.join("build/rel/testbots", os.path.basename(p)[:-2])
                for p in sorted(os.listdir(os.path.join(tree, "tests/bots"))) if p.endswith(".c")]
        self.targets = ["all", "build/rel/tests/kimble-tests"] + bots

    def build(self):
        return run(["make", "-s", "-j%d" % self.jobs] + self.targets, self.tree, 600)

    def test(self, pattern, timeout):
        env = dict(os.environ, KB_ROOT=self.tree, KB_BIN=os.path.join(self.tree, "bin"))
        cmd = self.fence + ["build/rel/tests/kimble-tests", "--fail-fast", "-j%d" % self.jobs,
               "--filter", pattern, "--ascii"]
        return run(cmd, self.tree, timeout, env)


# ---- the campaign ------------------------------------------------------------

def select_mutants(root, args, equivalent):
    """Per folder (live sample, listed equivalents, how many unlisted
    mutants the sample is drawn from), and how many mutants --only and
    --match select in all."""
    by_folder, matched = {}, 0
    for folder in args.folders:
        # the folder and its program subfolders (bot/relay, judge/server, ...)
        files = sorted(os.path.relpath(os.path.join(d, p), root)
                       for d, _, names in os.walk(os.path.join(root, folder))
                       for p in names if p.endswith(".c"))
        muts = []
        for rel in files:
            if rel in EXCLUDED or (args.only and not any(rel.startswith(o) for o in args.only)):
                continue
            with open(os.path.join(root, rel)) as f:
                src = f.read()
            file_muts = mutants_of(rel, src)
            number_keys(file_muts)
            muts += file_muts
        # the equivalent column counts the folder's (or --only's files')
        # listed mutants whatever --match picks
        eqs = [m for m in muts if m.key in equivalent]
        if args.match:
            muts = [m for m in muts if any(t in m.key for t in args.match)]
        live = [m for m in muts if m.key not in equivalent]
        candidates = len(live)
        if args.mutants and len(live) > args.mutants:
            # each mutant's place in the sample depends on the seed and its
            # key alone, so listing an equivalent mutant or editing another
            # file leaves the rest of the sample as it was
            def rank(m):
                return hashlib.sha256(("%d:%s" % (args.seed, m.key)).encode()).digest()
            live = sorted(sorted(live, key=rank)[:args.mutants], key=lambda m: (m.path, m.start))
        by_folder[folder] = (live, eqs, candidates)
        matched += len(muts)
    return by_folder, matched


def try_mutant(scratch, m, stages):
    path = os.path.join(scratch.tree, m.path)
    with open(path) as f:
        original = f.read()
    try:
        with open(path, "w") as f:
            f.write(m.apply(original))
        t0 = time.monotonic()
        rc, out = scratch.build()
        if rc != 0:
            return "not compiled", time.monotonic() - t0, out
        for stage, timeout in stages:
            rc, out = scratch.test(stage, timeout)
            if rc != 0:
                break
        status = "timed out" if rc == "timeout" else ("survived" if rc == 0 else "killed")
        return status, time.monotonic() - t0, out
    finally:
        with open(path, "w") as f:
            f.write(original)


def stages_of(scratch, folder, pattern, min_timeout):
    """The test stages of a folder's mutants with their timeouts: its fast
    rule tests first (most kills are there), its unit suites, then every
    suite that can see its code.  Each stage may run three times as long as
    it does unmutated (at least min_timeout), so that a mutant that hangs
    the rule tests is given up in seconds, not in minutes."""
    stages = []
    for stage in ["%s_rules/*" % folder] + UNIT.get(folder, []) + [rest(folder, pattern)]:
        for attempt in range(2):  # a test that failed once under load
            t0 = time.monotonic()
            rc, out = scratch.test(stage, 600)
            base = time.monotonic() - t0
            if rc == 0:
                break
        if rc != 0:
            raise UnmutatedFailure("the tests (%s) fail without a mutant: %s\n%s"
                                   % (stage, first_failure(out) or "?", out[-2000:]))
        stages.append((stage, max(min_timeout, 3 * base), base))
    return stages


def rest(folder, pattern):
    """The last stage: for a folder whose pattern is every suite ("*"),
    every suite its earlier stages did not run (a survivor runs each test
    once, not its unit suites twice)."""
    if pattern != "*":
        return pattern
    ran = ["%s_rules" % folder]
    for stage in UNIT.get(folder, []):
        ran += re.match(r"@\((.*)\)/\*$", stage).group(1).split("|")
    return "!(%s)/*" % "|".join(ran)


class UnmutatedFailure(Exception):
    """A folder's tests fail before any mutant: nothing can be measured."""


def campaign(args):
    root = os.path.abspath(args.root)
    if not all(os.path.isdir(os.path.join(root, f)) for f in FOLDERS + ["tests/mutate"]):
        log("mutate: --root %s: not this project's folder (expected %s and tests/mutate in it)"
            % (args.root, ", ".join(f + "/" for f in FOLDERS)))
        return 2
    equivalent = read_equivalent(os.path.join(root, "tests/mutate/equivalent.txt"))
    by_folder, matched = select_mutants(root, args, equivalent)
    if not matched:
        log("mutate: no mutant of %s matches%s%s" % (
            ",".join(args.folders),
            "".join(" --only %s" % o for o in args.only),
            "".join(" --match '%s'" % t for t in args.match)))
        return 2
    if args.list:
        for folder, (live, eqs, _) in by_folder.items():
            for m in live:
                print(m.key)
        return 0
    tree = os.path.join(root, "build/mutate/tree")
    os.makedirs(tree, exist_ok=True)
    lock = open(os.path.join(root, "build/mutate/lock"), "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        sys.exit("mutate: another run uses build/mutate/tree; wait for it to end")
    if args.json and os.path.exists(args.json):
        os.remove(args.json)  # never mistaken for this run's
    if os.path.exists(os.path.join(tree, "build/rel")):
        log("mutate: updating the scratch copy build/mutate/tree (an incremental build)")
    else:
        log("mutate: building the scratch copy build/mutate/tree for the first time "
            "(a whole release build: minutes)")
    sync_tree(root, tree)
    scratch = Scratch(tree, args.jobs)
    rc, out = scratch.build()
    if rc != 0:
        sys.exit("mutate: the unmutated tree does not build:\n" + out[-3000:])
    deadline = time.monotonic() + args.budget if args.budget else None
    results = {"seed": args.seed, "sample": args.mutants, "budget_s": args.budget,
               "commit": commit_of(root), "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
               "folders": {}, "mutants": []}
    try:
        run_folders(args, root, scratch, by_folder, equivalent, results, deadline)
    except KeyboardInterrupt:
        log("mutate: interrupted; the scratch copy is restored, the table holds the mutants run")
        results["interrupted"] = True
        report(results, args)
        return 130
    report(results, args)
    return 0 if all("error" not in f for f in results["folders"].values()) else 1


def run_folders(args, root, scratch, by_folder, equivalent, results, deadline):
    for folder, (live, eqs, candidates) in by_folder.items():
        if not live and not eqs:
            continue
        pattern = "*" if args.all_tests else SUITES[folder]
        # the last mutant's source was restored, its objects not yet
        scratch.build()
        try:
            stages = stages_of(scratch, folder, pattern, args.min_timeout)
        except UnmutatedFailure as e:
            log("mutate: %s: %s" % (folder, e))
            results["folders"][folder] = {"error": str(e).splitlines()[0]}
            continue
        log("== %s: %d of %d mutant%s (and %d listed equivalent), unmutated %s"
            % (folder, len(live), candidates, "" if candidates == 1 else "s", len(eqs), ", ".join(
                "%s %.1f s (timeout %.0f s)" % (st[0], st[2], st[1]) for st in stages)))
        results["folders"][folder] = {"stages": [
            {"tests": st[0], "unmutated_s": round(st[2], 2), "timeout_s": round(st[1], 1)}
            for st in stages]}
        for n, m in enumerate(live, 1):
            if deadline and time.monotonic() > deadline:
                log("   time budget spent: %d mutants of %s not run" % (len(live) - n + 1, folder))
                break
            status, secs, out = try_mutant(scratch, m, [st[:2] for st in stages])
            rec = {"folder": folder, "file": m.path, "line": m.lineno, "key": m.key,
                   "status": status, "seconds": round(secs, 2)}
            if status == "survived":
                with open(os.path.join(root, m.path)) as f:
                    rec["diff"] = m.diff(f.read())
                rec["rerun"] = rerun_command(rec)
            if status == "killed":
                rec["by"] = first_failure(out)
            if status == "not compiled":
                rec["error"] = first_error(out)
            results["mutants"].append(rec)
            log("   [%d/%d] %-12s %5.1fs  %s" % (n, len(live), status, secs, m.key))
        for m in eqs:
            results["mutants"].append({"folder": folder, "file": m.path, "line": m.lineno,
                                       "key": m.key, "status": "equivalent",
                                       "why": equivalent[m.key]})


def first_error(out):
    for line in out.splitlines():
        if "error" in line:
            return line.strip()
    return out.strip()[-300:]


def first_failure(out):
    m = re.search(r"\[(?:FAIL|----)\] (\S+::[^\s:]+)", out)
    return m.group(1) if m else ""


def commit_of(root):
    """The checked-out commit (with "+changes" when the tree differs), or ""."""
    try:
        head = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", root, "status", "--porcelain", "-uno"],
                               capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""
    return head + ("+changes" if head and dirty else "")


def log(text):
    print(text, file=sys.stderr, flush=True)


def tally(results, group):
    table = {}
    for r in results["mutants"]:
        row = table.setdefault(r[group], dict.fromkeys(
            ("mutants", "killed", "survived", "timed out", "not compiled", "equivalent"), 0))
        row[r["status"]] += 1
        if r["status"] != "equivalent":
            row["mutants"] += 1
    for row in table.values():
        judged = row["killed"] + row["survived"] + row["timed out"]
        row["score"] = round(100.0 * (row["killed"] + row["timed out"]) / judged, 1) if judged else None
    return table


def report(results, args):
    results["by_folder"] = tally(results, "folder")
    results["by_file"] = tally(results, "file")
    cols = ("mutants", "killed", "survived", "timed out", "not compiled", "equivalent")
    lines = ["| %s | %s | killed %% |" % ("folder/file", " | ".join(cols)),
             "|---|" + "---:|" * (len(cols) + 1)]
    for name, row in sorted(results["by_folder"].items()) + [("", None)] + sorted(results["by_file"].items()):
        if row is None:
            continue
        score = "-" if row["score"] is None else "%.1f" % row["score"]
        lines.append("| %s | %s | %s |" % (name, " | ".join(str(row[c]) for c in cols), score))
    if args.match and not args.mutants:
        # a re-run of chosen mutants: no sample, so no seed to speak of
        what = "every mutant whose key holds %s" % " or ".join("'%s'" % m for m in args.match)
    else:
        what = "seed %d, %s per folder%s" % (args.seed, args.mutants if args.mutants else "all",
                                             " of those matching" if args.match else "")
    text = ["Mutation testing (%s)" % what, ""] + lines
    survivors = [r for r in results["mutants"] if r["status"] == "survived"]
    if survivors:
        text += ["", "Survivors (a test should fail; or list the key in tests/mutate/equivalent.txt):"]
        for r in survivors:
            text += ["", r["key"], r["diff"], "re-run: " + r["rerun"]]
    print("\n".join(text))
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
        log("mutate: JSON in %s" % args.json)


def rerun_command(rec):
    """The command that runs this mutant alone, quoted for a POSIX shell
    (keys hold backquotes and quotes)."""
    return " ".join(["python3 tests/mutate/mutate.py --jobs 1 --only", shlex.quote(rec["file"]),
                     "--match", shlex.quote(rec["key"]), "--mutants 0"])


def at_least(low, kind, what):
    """An argparse type: a number of kind that is at least low."""
    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError("'%s' is not a number" % text)
        if value < low:
            raise argparse.ArgumentTypeError("expected %s, got %s" % (what, text))
        return value
    return parse


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 epilog="Survivors not listed in tests/mutate/equivalent.txt need a test. "
                                 "Runs at the lowest priority (nice 19). `make mutate` samples 20 "
                                 "per folder; this tool alone takes every mutant unless --mutants.")
    ap.add_argument("--root", default=".", help="the project (default: .)")
    ap.add_argument("--folders", default=",".join(FOLDERS),
                    help="comma-separated folders to mutate (default: %(default)s)")
    ap.add_argument("--only", action="append", default=[],
                    help="mutate only files whose path starts with this (repeatable)")
    ap.add_argument("--match", action="append", default=[],
                    help="only mutants whose key contains this text (repeatable)")
    ap.add_argument("--mutants", type=at_least(0, int, "0 (all) or more"), default=0,
                    help="sample this many mutants per folder (default: 0, all: hours)")
    ap.add_argument("--seed", type=int, default=1, help="sampling seed (default: 1)")
    ap.add_argument("--budget", type=at_least(0, float, "0 (none) or more seconds"), default=0,
                    help="stop starting mutants after this many seconds (default: 0, none)")
    ap.add_argument("--min-timeout", type=at_least(1, float, "1 second or more"), default=20,
                    help="least seconds a mutant's tests may run (default: 20; else 3x unmutated)")
    ap.add_argument("--jobs", type=at_least(1, int, "1 or more"), default=2,
                    help="make and test jobs (default: 2)")
    ap.add_argument("--all-tests", action="store_true", help="run every suite for every mutant")
    ap.add_argument("--json", help="write the results as JSON here (default: none; make mutate: "
                    "build/mutate/results.json)")
    ap.add_argument("--list", action="store_true", help="print the selected mutants' keys and stop")
    args = ap.parse_args()
    args.folders = [f for f in args.folders.split(",") if f]
    for f in args.folders:
        if f not in SUITES:
            ap.error("unknown folder '%s' (expected one of %s)" % (f, ", ".join(FOLDERS)))
    os.nice(19)  # a run takes the machine for minutes to hours: others first
    return campaign(args)


if __name__ == "__main__":
    sys.exit(main())
