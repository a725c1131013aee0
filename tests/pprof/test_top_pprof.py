#!/usr/bin/env python3
"""`profcodec top` and the filters against go tool pprof (Go 1.19's, Debian's golang-1.19-go; offline).

For every pprof file of tests/data/pprof and ../shared/corpus/pprof (other-writers/ included):
  - for every sample type, `profcodec top --json --metric T` gives per function exactly the flat
    and cum of `go tool pprof -top -filefunctions -sample_index=T -unit=UNIT -nodecount=...
    -nodefraction=0 -edgefraction=0` (function identity is name and file: pprof's
    -filefunctions; values as exact integers: -unit with the type's own unit prints them
    whole). pprof's row "name file" is matched with ours by name and a tail of our file path
    (pprof shortens paths in reports). A frame without a name is told apart by its address in
    ours, while pprof's -filefunctions puts every nameless location of one binary in one node
    "[binary]": those rows are counted and left out on both sides (docs/design.md);
  - -functions (name only) agrees with ours on every name that only one file has; names in two
    files are counted (the one place the two identities differ);
  - `--focus/--ignore/--hide/--show/--prune-from R` give the stacks and totals of `go tool pprof -traces
    -focus/-ignore/-hide/-show/-prune_from=R`, for R the file's most frequent leaf function (so that each
    filter bites), escaped to a literal that POSIX ERE and RE2 read alike; `--show-from R` those of
    `-show_from=R` for R the function with the largest cum that is not on every stack;
  - `--tag bytes=RANGE` those of `-tagfocus=bytes=RANGE` (pprof's numeric ranges with units) for
    three ranges, on the files whose samples have a `bytes` number (Go heap profiles).
pprof runs with -symbolize=none: its default demangling simplifies names as it reads them
("<T as Trait>::f" becomes "::f" in pprof-rs's Rust profile); we keep names as written.

usage: test_top_pprof.py PROFCODEC TESTDATA [CORPUS]
"""
import collections
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile

GO = "/usr/lib/go-1.19/bin/go"
failures = []
notes = collections.Counter()


def fail(msg):
    failures.append(msg)
    print("FAIL " + msg)


def run(args, env=None):
    return subprocess.run(args, capture_output=True, env=env)


def go_env(tmp):
    env = dict(os.environ)
    env.update(GOTOOLCHAIN="local", HOME=tmp, GOCACHE=os.path.join(tmp, "cache"), GOPATH=os.path.join(tmp, "gopath"),
               GOFLAGS="", GOPROXY="off", PPROF_TMPDIR=tmp)
    env.pop("DISPLAY", None)
    return env


def pprof(env, *args):
    # -symbolize=none: pprof's default symbolization demangles and simplifies names it reads
    # ("<T as Trait>::f" becomes "::f" in a Rust profile), a display choice: names as written
    p = run([GO, "tool", "pprof", "-symbolize=none"] + list(args), env=env)
    if p.returncode != 0:
        raise RuntimeError("go tool pprof %s: %s" % (" ".join(args), p.stderr.decode(errors="replace")))
    return p.stdout.decode(errors="surrogateescape")


def inputs(pc, data, corpus):
    files = []
    d = os.path.join(data, "pprof")
    files += [os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith((".pprof", ".pb"))]
    if corpus and os.path.isdir(os.path.join(corpus, "pprof")):
        for root, dirs, names in sorted(os.walk(os.path.join(corpus, "pprof"))):
            dirs.sort()
            dirs[:] = [x for x in dirs if x != "gen"]
            for f in sorted(names):
                if f.endswith((".txt", ".md", ".tsv", ".go")):
                    continue
                p = run([pc, "info", "--json", os.path.join(root, f)])
                try:
                    if json.loads(p.stdout)["format"] == "pprof":
                        files.append(os.path.join(root, f))
                except (ValueError, KeyError):
                    pass
    return files


def sample_types(env, path):
    raw = pprof(env, "-raw", path)
    lines = raw.split("\n")
    i = lines.index("Samples:")
    return [tuple(t.replace("[dflt]", "").split("/", 1)) for t in lines[i + 1].split()]


ROW = re.compile(r"^\s*(-?[0-9.]+)(\S*)\s+\S+%\s+\S+%\s+(-?[0-9.]+)(\S*)\s+\S+%\s+(.*)$")


def pprof_top(env, path, t, unit, mode):
    text = pprof(env, "-top", mode, "-sample_index=%d" % t, "-unit=" + unit, "-nodecount=1000000",
                 "-nodefraction=0", "-edgefraction=0", path)
    rows, on = {}, False
    for ln in text.split("\n"):
        if re.match(r"^\s+flat\s+flat%", ln):
            on = True
            continue
        m = ROW.match(ln) if on else None
        if not m:
            continue
        flat, cum = float(m.group(1)), float(m.group(3))
        if flat != int(flat) or cum != int(cum):
            raise RuntimeError("%s: pprof printed a fraction with -unit=%s: %s" % (path, unit, ln))
        name = m.group(5).rstrip()
        # pprof's InlineLabel: every call of it was inlined, or some
        name = re.sub(r" \((partial-)?inline\)$", "", name)
        if name in rows:
            raise RuntimeError("%s: pprof printed %s twice" % (path, name))
        rows[name] = (int(flat), int(cum))
    return rows


def ours_top(pc, path, metric, extra=()):
    p = run([pc, "top", "--json", "--metric", metric] + list(extra) + [path])
    if p.returncode == 1 and b"nothing to show: no sample has a value of" in p.stderr:
        return None
    if p.returncode != 0:
        raise RuntimeError("profcodec top %s --metric %s: exit %d: %s" % (path, metric, p.returncode, p.stderr.decode()))
    return json.loads(p.stdout)


def tails(path):
    parts = path.split("/")
    return {"/".join(parts[i:]) for i in range(len(parts))}


def compare_filefunctions(name, ty, ours, theirs):
    """pprof's "name file" rows against ours (name, file)."""
    mine, nameless = {}, 0
    for r in ours["rows"]:
        if not r["name"]:
            nameless += 1
            continue
        keys = {r["name"] + " " + t for t in tails(r["file"])} if r["file"] else {r["name"]}
        mine[frozenset(keys)] = (r["flat"], r["cum"], r["name"], r["file"])
    index = {}
    for keys, v in mine.items():
        for k in keys:
            index.setdefault(k, []).append(v)
    matched, bad = set(), 0
    for text, (flat, cum) in theirs.items():
        if text.startswith("[") and text.endswith("]") or text == "<unknown>":
            notes["nameless rows of pprof ([binary], <unknown>), left out"] += 1
            continue
        cands = index.get(text, [])
        if len(cands) != 1:
            fail("%s %s: pprof's row %r: %d rows of ours match it" % (name, ty, text, len(cands)))
            bad += 1
            continue
        f, c, n, fl = cands[0]
        matched.add((n, fl))
        if (f, c) != (flat, cum):
            fail("%s %s: %s: ours flat %d cum %d, pprof's flat %d cum %d" % (name, ty, text, f, c, flat, cum))
            bad += 1
    for keys, (f, c, n, fl) in mine.items():
        if (n, fl) not in matched and (f or c):
            fail("%s %s: our row %s (%s) flat %d cum %d is not in pprof's" % (name, ty, n, fl, f, c))
            bad += 1
    notes["nameless rows of ours (told apart by address), left out"] += nameless
    return len(matched), bad


def compare_functions(name, ty, ours, theirs):
    files = collections.defaultdict(set)
    for r in ours["rows"]:
        if r["name"]:
            files[r["name"]].add(r["file"])
    n = 0
    for r in ours["rows"]:
        if not r["name"]:
            continue
        if len(files[r["name"]]) > 1:
            notes["names in two files or more (pprof -functions: one row; ours: one per file)"] += 1
            continue
        if r["name"] not in theirs:
            fail("%s %s -functions: %s not in pprof's" % (name, ty, r["name"]))
            continue
        if (r["flat"], r["cum"]) != theirs[r["name"]]:
            fail("%s %s -functions: %s: ours %s, pprof's %s" % (name, ty, r["name"], (r["flat"], r["cum"]), theirs[r["name"]]))
        n += 1
    return n


def literal(s):
    return re.sub(r"([.^$*+?()\[\]{}|\\])", r"\\\1", s)


SEP = "-----------+-------------------------------------------------------"


def pprof_traces(env, path, t, unit, flt, rx):
    text = pprof(env, "-traces", "-sample_index=%d" % t, "-unit=" + unit, "-%s=%s" % (flt, rx), path)
    stacks = collections.Counter()
    for block in text.split(SEP)[1:]:
        fns, value = [], None
        for ln in block.strip("\n").split("\n"):
            if not ln.strip():
                continue
            if value is None and re.match(r"^\s*\S+:  ", ln):
                continue  # a label
            if value is None:
                m = re.match(r"^\s*(-?[0-9.]+)\S*   (.*)$", ln)
                if not m:
                    continue
                value, fn = int(float(m.group(1))), m.group(2)
            else:
                fn = ln.strip()
            if fn.endswith(" (inline)"):
                fn = fn[:-9]
            fns.append(fn)
        if fns and value:
            stacks[";".join(reversed(fns))] += value
    return stacks


def frame_name(f, files):
    """A frame of our collapsed output as pprof's -traces names it: "name (file)" without the
    file (only when it is one of the profile's files: names may end in parentheses), and a
    nameless frame without the address that tells it apart in ours ("[binary]" in pprof's)."""
    m = re.match(r"^(.*) \(([^()]*)\)$", f)
    if m and m.group(2) in files:
        f = m.group(1)
    return re.sub(r"^[0-9a-f]{16} (\[.*\])$", r"\1", f)


def ours_traces(pc, path, metric, flt, rx, files):
    p = run([pc, "convert", "--to", "collapsed", "--dialect", "default", "--metric", metric, "--" + flt, rx, path])
    stacks = collections.Counter()
    if p.returncode == 1 and b"nothing to show" in p.stderr:
        return stacks
    if p.returncode != 0:
        raise RuntimeError("convert --%s %s: %s" % (flt, rx, p.stderr.decode()))
    for ln in p.stdout.decode(errors="surrogateescape").split("\n"):
        if not ln:
            continue
        stack, _, v = ln.rpartition(" ")
        key = ";".join(frame_name(f, files) for f in stack.split(";"))
        if int(v):
            stacks[key] += int(v)
    return stacks


RANGES = (":2kb", "1kb:8kb", "64kb:")


def has_bytes_labels(pc, path):
    return run([pc, "convert", "--to", "collapsed", "--tag", "bytes=0b:", path]).returncode == 0


def check_file(pc, env, path):
    """Returns (rows -filefunctions, rows -functions, filtered stacks, ranges that bit) equal;
    failures through fail()."""
    name = os.path.relpath(path)
    types = sample_types(env, path)
    rows = fns = stacks = ranges = 0
    filtered = False
    for t, (ty, unit) in enumerate(types):
        ours = ours_top(pc, path, ty)
        if ours is None or ours["shown"] == 0:
            notes["sample types without values (exit 1, nothing to show)"] += ours is None
            continue
        m, bad = compare_filefunctions(name, ty, ours, pprof_top(env, path, t, unit, "-filefunctions"))
        rows += m
        named = [r for r in ours["rows"] if r["name"] and r["flat"] > 0]
        if filtered or not named or ours["shown"] <= 0:
            continue
        # on the first type with values: -functions, and the filters by its most frequent named leaf
        filtered = True
        fns += compare_functions(name, ty, ours, pprof_top(env, path, t, unit, "-functions"))
        rx = literal(named[0]["name"])
        files = {r["file"].rsplit("/", 1)[-1] for r in ours["rows"] if r["file"]}
        # pprof's PruneFrom matches a name cut at its first "(" (simplifyFunc, to drop a C++
        # argument list): a Go method "pkg.(*T).m" is "pkg." to it, so no regex naming the method
        # matches there; ours matches the whole name (docs/design.md). The prune regex is a
        # function whose name has no "(", where the two agree (nor a leading ".", which simplifyFunc
        # takes off, for the PPC ELF v1 ABI).
        plain = [r for r in ours["rows"] if r["name"] and r["flat"] > 0 and "(" not in r["name"] and not r["name"].startswith(".")]
        prx = literal(plain[0]["name"]) if plain else None
        # show_from: the function on most stacks but not all (pprof's Location order: the
        # outermost match becomes the root)
        inner = sorted((r for r in ours["rows"] if r["name"] and 0 < r["cum"] < ours["shown"]),
                       key=lambda r: (-r["cum"], r["name"]))
        srx = literal(inner[0]["name"]) if inner else rx
        tags = [("tag", "bytes=" + r) for r in RANGES] if has_bytes_labels(pc, path) else []
        for flt, frx in [(f, rx) for f in ("focus", "ignore", "hide", "show", "prune_from")] + [("show_from", srx)] + tags:
            rx = frx
            if flt == "prune_from":
                if not prx:
                    notes["files without a plain name for --prune-from"] += 1
                    continue
                rx = prx
            a = ours_traces(pc, path, ty, flt.replace("_", "-"), rx, files)
            b = pprof_traces(env, path, t, unit, "tagfocus" if flt == "tag" else flt, rx)
            if flt == "tag" and b and sum(b.values()) < ours["shown"]:
                ranges += 1
            if a != b:
                only_a = sorted(set(a.items()) - set(b.items()))[:2]
                only_b = sorted(set(b.items()) - set(a.items()))[:2]
                fail("%s %s --%s %s: %d stacks (total %d), pprof's %d (total %d); only ours %s, only pprof's %s" % (
                    name, ty, flt, rx, len(a), sum(a.values()), len(b), sum(b.values()), only_a, only_b))
            stacks += len(b)
        print("ok   %s: %d sample types; filters on %s by %s (--prune-from %s, --show-from %s%s)" % (
            name, len(types), ty, literal(named[0]["name"]), prx, srx, ", --tag bytes=" + "/".join(RANGES) if tags else ""))
    return rows, fns, stacks, ranges


def main():
    pc, data = sys.argv[1], sys.argv[2]
    corpus = sys.argv[3] if len(sys.argv) > 3 else None
    paths = inputs(pc, data, corpus)
    with tempfile.TemporaryDirectory() as tmp:
        env = go_env(tmp)
        # two at a time: most of the time is go tool pprof starting
        with concurrent.futures.ThreadPoolExecutor(2) as ex:
            res = list(ex.map(lambda p: check_file(pc, env, p), paths))
    print("%d files, %d rows (-filefunctions) and %d (-functions) equal, %d filtered stacks equal, "
          "%d --tag ranges that kept some samples but not all" % (
        len(paths), sum(r[0] for r in res), sum(r[1] for r in res), sum(r[2] for r in res), sum(r[3] for r in res)))
    if sum(r[3] for r in res) < 3:
        fail("fewer than 3 --tag bytes= ranges kept some samples but not all: the ranges were not tried")
    for k, v in sorted(notes.items()):
        print("note: %d %s" % (v, k))
    if failures:
        print("%d failures" % len(failures))
        sys.exit(1)


if __name__ == "__main__":
    main()
