#!/usr/bin/env python3
"""pprof against Go's own tools (go tool pprof, Go 1.19: Debian's golang-1.19-go).

Reading, for every pprof written by Go (tests/data/pprof, and ../shared/corpus/pprof when it is
there):
  - profcodec validates it;
  - dump | encode gives the protobuf's bytes back (once gzip is undone);
  - for every sample type, convert --to collapsed gives per stack the totals that
    `go tool pprof -raw` shows (frames rendered as our collapsed output renders them: function
    (file:line), inlined functions as frames of their own);
  - the stacks (function names) are those `go tool pprof -traces` shows.
Writing, for every file of tests/data that profcodec converts to pprof:
  - `go tool pprof -raw` reads convert --to pprof's output without a word on stderr;
  - its per-stack totals (the thread from the pid/iid/tid/tid_text/thread/process labels) equal
    our collapsed output of the same input, for every sample type;
  - its sample types are the input's with their units, and `go tool pprof -top` names the
    default one.
The Go tool runs offline: GOTOOLCHAIN=local, HOME and GOCACHE in a temporary directory.

usage: test_pprof_go.py PROFCODEC TESTDATA [CORPUS]
"""
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile

GO = "/usr/lib/go-1.19/bin/go"
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL " + msg)


def run(args, env=None, check=True, input=None):
    p = subprocess.run(args, capture_output=True, env=env, input=input)
    if check and p.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.decode(errors="replace")))
    return p


def go_env(tmp):
    env = dict(os.environ)
    env.update(GOTOOLCHAIN="local", HOME=tmp, GOCACHE=os.path.join(tmp, "cache"), GOPATH=os.path.join(tmp, "gopath"),
               GOFLAGS="", GOPROXY="off", PPROF_TMPDIR=tmp)
    env.pop("DISPLAY", None)
    return env


# ---- go tool pprof -raw, parsed ---------------------------------------------------------

LOC_RE = re.compile(r"^\s*(\d+): (0x[0-9a-f]+) (?:M=(\d+) )?(?:\[F\] )?(.*)$")
LINE_RE = re.compile(r"^(.*) (\S*):(-?\d+) s=-?\d+(?:\(.*\))?$")
LABEL_RE = re.compile(r"(\S+?):\[(.*?)\]")


def parse_raw(text, spaced_files=()):
    """Sample types [(type, unit)], default type, samples [(values, location ids, labels)],
    locations {id: [(function, file, line)] innermost first}. -raw writes a line as
    "function file:line", so a file name with a space ("<frozen runpy>") is ambiguous: the
    profile's own file names with spaces (spaced_files) are tried first."""
    spaced = [re.compile(r"^(.*) (%s):(-?\d+) s=-?\d+(?:\(.*\))?$" % re.escape(f))
              for f in sorted(spaced_files, key=len, reverse=True)]
    lines = text.split("\n")
    i = 0
    while i < len(lines) and lines[i] != "Samples:":
        i += 1
    i += 1
    types, default = [], None
    for t in lines[i].split():
        dflt = t.endswith("[dflt]")
        t = t[:-6] if dflt else t
        ty, _, unit = t.rpartition("/")
        types.append((ty, unit))
        if dflt:
            default = ty
    i += 1
    samples = []
    while i < len(lines) and lines[i] != "Locations":
        ln = lines[i]
        if ln.startswith("                ") and samples:
            for k, v in LABEL_RE.findall(ln):
                samples[-1][2].setdefault(k, []).extend(v.split(" ") if k in ("pid", "iid", "tid") else [v])
        elif ":" in ln:
            vals, _, locs = ln.partition(":")
            samples.append(([int(x) for x in vals.split()], [int(x) for x in locs.split()], {}))
        i += 1
    i += 1
    locs, cur = {}, None
    while i < len(lines) and lines[i] != "Mappings":
        ln = lines[i]
        m = LOC_RE.match(ln)
        if m and not ln.startswith("             "):
            cur = int(m.group(1))
            locs[cur] = []
            rest = m.group(4)
        else:
            rest = ln.strip()
        if rest:
            lm = next((m2 for m2 in (r.match(rest) for r in spaced) if m2), None) or LINE_RE.match(rest)
            if lm:
                locs[cur].append((lm.group(1), lm.group(2), int(lm.group(3))))
            else:
                locs[cur].append((rest, "", 0))
        i += 1
    return types, default, samples, locs


def spaced_strings(pc, path):
    """The strings of a pprof's string table that hold a space (file names such as
    CPython's "<frozen runpy>"), from our own dump."""
    out = run([pc, "dump", path]).stdout.decode(errors="surrogateescape")
    found = set()
    for ln in out.splitlines():
        if '"_kind":"string_table"' in ln:
            v = json.loads(ln)["_value"]
            if " " in v:
                found.add(v)
    return found


def frame_text(fn, file, line):
    """A frame as profcodec's collapsed output (default dialect) renders it."""
    fn = fn.replace(";", ":").replace("\n", " ").replace("\r", " ")
    if not file:
        return fn
    base = file.rsplit("/", 1)[-1].replace(";", ":")
    return "%s (%s%s)" % (fn, base, ":%d" % line if line else "")


def thread_prefix(labels):
    """The thread prefix our collapsed output writes for a thread, from our pprof's labels."""
    num = lambda k: int(labels[k][0]) if k in labels else None
    pid, iid, tid = num("pid"), num("iid"), num("tid")
    ttext = labels.get("tid_text", [None])[0]
    if pid is not None or tid is not None or ttext is not None:
        parts = []
        if pid is not None:
            parts.append("P%d" % pid)
        if tid is not None or ttext is not None:
            t = ttext if ttext is not None else str(tid % (1 << 64))
            parts.append("T%s%s" % ("%d:" % iid if iid is not None and iid >= 0 else "", t))
        return ";".join(parts)
    return labels.get("thread", labels.get("process", [None]))[0]


def raw_totals(types, samples, locs, type_index, threads=False):
    """{collapsed stack text: total} for one sample type, as our collapsed lines would say."""
    out = {}
    for vals, ids, labels in samples:
        frames = []
        for lid in ids:                       # leaf first; a location's lines innermost first
            for fn, file, line in locs.get(lid, [("[location %d]" % lid, "", 0)]) or [("", "", 0)]:
                frames.append(frame_text(fn, file, line))
        frames.reverse()
        if threads:
            pre = thread_prefix(labels)
            if pre is not None:
                frames.insert(0, pre.replace(";", "\0"))
        key = ";".join(frames).replace("\0", ";")
        out[key] = out.get(key, 0) + vals[type_index]
    return {k: v for k, v in out.items() if v}


def labelled(samples, locs):
    """{(stack, labels): summed values} of -raw's samples (the thread labels left out)."""
    out = {}
    for vals, ids, labels in samples:
        frames = [frame_text(fn, file, line) for lid in ids for fn, file, line in locs.get(lid, [])]
        lab = ";".join("%s=%s" % (k, ",".join(v)) for k, v in sorted(labels.items())
                       if k not in ("pid", "iid", "tid", "tid_text", "thread", "process"))
        key = (";".join(frames), lab)
        prev = out.get(key, [0] * len(vals))
        out[key] = [x + y for x, y in zip(prev, vals)]
    return {k: tuple(v) for k, v in out.items()}


def collapsed_totals(text):
    out = {}
    for ln in text.splitlines():
        if not ln:
            continue
        stack, _, v = ln.rpartition(" ")
        out[stack] = out.get(stack, 0) + int(v)
    return out


def diff(a, b, what):
    missing = [k for k in a if k not in b][:3]
    extra = [k for k in b if k not in a][:3]
    wrong = [(k, a[k], b[k]) for k in a if k in b and a[k] != b[k]][:3]
    return "%s: %d stacks vs %d; only ours: %s; only Go's: %s; different: %s" % (
        what, len(a), len(b), missing, extra, wrong)


# ---- reading what Go wrote ------------------------------------------------------------------

def check_go_file(pc, path, env):
    name = os.path.relpath(path)
    p = run([pc, "validate", path], check=False)
    if p.returncode != 0 or b"valid pprof" not in p.stdout:
        fail("%s: validate: %s" % (name, (p.stdout + p.stderr).decode(errors="replace")))
        return
    data = open(path, "rb").read()
    raw = gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
    with tempfile.TemporaryDirectory() as tmp:
        j, out = os.path.join(tmp, "d.jsonl"), os.path.join(tmp, "e.pb")
        run([pc, "dump", path, "-o", j])
        run([pc, "encode", j, "-o", out])
        if open(out, "rb").read() != raw:
            fail("%s: dump | encode does not give the protobuf's bytes back" % name)
    ref = os.path.splitext(path)[0] + ".raw.txt"
    text = open(ref, errors="surrogateescape").read() if os.path.exists(ref) else run([GO, "tool", "pprof", "-raw", path], env=env).stdout.decode(errors="surrogateescape")
    types, default, samples, locs = parse_raw(text)
    for t, (ty, unit) in enumerate(types):
        ours = collapsed_totals(run([pc, "convert", "--to", "collapsed", "--granularity", "address", "--dialect", "default", "--metric", ty, path])
                                .stdout.decode(errors="surrogateescape"))
        theirs = raw_totals(types, samples, locs, t)
        if ours != theirs:
            fail("%s: %s" % (name, diff(ours, theirs, "collapsed --metric %s against go tool pprof -raw" % ty)))
    # -traces: the same stacks, by function
    tref = os.path.splitext(path)[0] + ".traces.txt"
    traces = open(tref, errors="surrogateescape").read() if os.path.exists(tref) else run([GO, "tool", "pprof", "-traces", path], env=env).stdout.decode(errors="surrogateescape")
    theirs = set()
    for block in traces.split("-----------+-------------------------------------------------------")[1:]:
        fns = []
        for ln in block.strip("\n").split("\n"):
            if not ln.strip() or re.match(r"^\s+\S+:\s", ln) and not fns:
                continue
            parts = ln.split(None, 1) if not ln.startswith(" " * 13) else [ln.strip()]
            fn = parts[-1].strip()
            if fn.startswith("bytes:") or re.match(r"^\S+:\[", fn):
                continue
            if fn.endswith(" (inline)"):
                fn = fn[:-9]
            fns.append(fn)
        if fns:
            theirs.add(";".join(reversed(fns)))
    ours = set()
    for stack in collapsed_totals(run([pc, "convert", "--to", "collapsed", "--granularity", "address", "--dialect", "default", "--metric",
                                       types[0][0], path]).stdout.decode(errors="surrogateescape")):
        ours.add(";".join(re.sub(r" \([^()]*\)$", "", f) for f in stack.split(";")))
    zero = {";".join(reversed([frame_text(fn, "", 0) for lid in ids for fn, _, _ in locs[lid]]))
            for vals, ids, _ in samples if not vals[0]}
    if ours - theirs or (theirs - ours) - zero:
        fail("%s: stacks differ from go tool pprof -traces: only ours %s, only Go's %s" % (
            name, sorted(ours - theirs)[:2], sorted((theirs - ours) - zero)[:2]))
    print("ok   %s: valid, dump | encode, %d sample types against -raw, %d stacks against -traces" % (
        name, len(types), len(theirs)))


# ---- what we write, read by Go ---------------------------------------------------------------

def empty_stacks(pc, path):
    """The collapsed keys (thread prefixes) of the samples without frames in a pprof we wrote,
    from our own dump of it."""
    strings, empty = [], []
    for line in run([pc, "dump", path]).stdout.decode(errors="surrogateescape").splitlines():
        r = json.loads(line)
        if r.get("_kind") == "string_table":
            v = r["_value"]
            strings.append(v if isinstance(v, str) else bytes.fromhex(v["hex"]).decode(errors="surrogateescape"))
        elif r.get("_kind") == "sample" and not r.get("location_id"):
            empty.append(r.get("label", []))
    keys = set()
    for labels in empty:
        d = {}
        for l in labels:
            k = strings[l["key"]]
            d.setdefault(k, []).append(str(l["num"]) if "num" in l else strings[l.get("str", 0)])
        pre = thread_prefix(d)
        keys.add(pre if pre is not None else "")
    return keys


# pprof's own names of the model's sample types (outputs/pprof.c)
MODEL_NAME = {"alloc_space": "alloc-bytes", "alloc_objects": "alloc-count"}


def our_collapsed(pc, path, ty):
    """Our collapsed lines of the input for the sample type go tool pprof calls ty."""
    p = run([pc, "convert", "--to", "collapsed", "--granularity", "address", "--dialect", "default", "--metric", ty, path], check=False)
    if p.returncode != 0 and ty in MODEL_NAME:
        p = run([pc, "convert", "--to", "collapsed", "--granularity", "address", "--dialect", "default", "--metric", MODEL_NAME[ty], path])
    return p.stdout.decode(errors="surrogateescape")
UNITS = {"nanoseconds", "microseconds", "milliseconds", "seconds", "bytes", "count"}


def check_written(pc, path, env):
    name = os.path.relpath(path)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.pprof")
        p = run([pc, "convert", "--to", "pprof", path, "-o", out], check=False)
        if p.returncode == 1 and b": nothing to show: " in p.stderr and not os.path.exists(out):
            # an input without sample values (a Mono log of counters): said, no file, as collapsed says
            if run([pc, "convert", "--to", "collapsed", "--granularity", "address", path], check=False).stdout:
                fail("%s: convert --to pprof has nothing to show, but collapsed has lines" % name)
            else:
                print("ok   %s: nothing to show (no sample values), no pprof written" % name)
            return
        if p.returncode != 0:
            fail("%s: convert --to pprof: %s" % (name, p.stderr.decode(errors="replace")))
            return
        if open(out, "rb").read(2) != b"\x1f\x8b":
            fail("%s: convert --to pprof is not gzip-compressed" % name)
        rp = run([GO, "tool", "pprof", "-raw", out], env=env, check=False)
        if rp.returncode != 0 or rp.stderr.strip():
            fail("%s: go tool pprof -raw: exit %d: %s" % (name, rp.returncode, rp.stderr.decode(errors="replace")))
            return
        types, default, samples, locs = parse_raw(rp.stdout.decode(errors="surrogateescape"), spaced_strings(pc, out))
        empty = empty_stacks(pc, out)
        for t, (ty, unit) in enumerate(types):
            if unit not in UNITS:
                fail("%s: sample type %s has the unit %r" % (name, ty, unit))
            ours = collapsed_totals(our_collapsed(pc, path, ty))
            # a sample without frames is written (no location ids), but go tool pprof drops it
            ours = {k: v for k, v in ours.items() if k not in empty}
            # values are int64 in pprof: an amount above 2^63-1 is written as 2^63-1
            ours = {k: min(v, (1 << 63) - 1) for k, v in ours.items()}
            theirs = raw_totals(types, samples, locs, t, threads=True)
            if ours != theirs:
                fail("%s: %s" % (name, diff(ours, theirs, "pprof --metric %s against our collapsed" % ty)))
        top = run([GO, "tool", "pprof", "-top", out], env=env, check=False)
        if top.returncode != 0 or top.stderr.strip() or ("Type: %s" % default).encode() not in top.stdout:
            fail("%s: go tool pprof -top does not show the type %s: %s" % (name, default, (top.stdout + top.stderr)[:300]))
        # a pprof input's labels come back as they were: per (stack, label set), the same values
        if path.endswith((".pprof", ".pb")):
            ref = os.path.splitext(path)[0] + ".raw.txt"
            text = open(ref, errors="surrogateescape").read() if os.path.exists(ref) else \
                run([GO, "tool", "pprof", "-raw", path], env=env).stdout.decode(errors="surrogateescape")
            a = labelled(*parse_raw(text)[2:])
            b = labelled(samples, locs)
            if a != b:
                fail("%s: %s" % (name, diff(a, b, "samples by stack and labels, through convert --to pprof")))
        # and our own importer reads it back to the same collapsed lines
        back = run([pc, "convert", "--to", "collapsed", "--granularity", "address", "--dialect", "default", out]).stdout.decode(errors="surrogateescape")
        orig = our_collapsed(pc, path, default)
        orig = {k: min(v, (1 << 63) - 1) for k, v in collapsed_totals(orig).items()}
        if collapsed_totals(back) != orig:
            fail("%s: %s" % (name, diff(orig, collapsed_totals(back), "pprof read back")))
        print("ok   %s: go tool pprof reads convert --to pprof (%s), %d stacks" % (
            name, ", ".join("%s/%s" % t for t in types), len(samples)))


def main():
    pc, data = sys.argv[1], sys.argv[2]
    corpus = sys.argv[3] if len(sys.argv) > 3 else None
    if not os.path.exists(GO):
        print("FAIL %s is not installed (scripts/setup-deps.sh installs golang-1.19-go)" % GO)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        env = go_env(tmp)
        files = []
        for d in [os.path.join(data, "pprof")] + ([os.path.join(corpus, "pprof")] if corpus else []):
            if os.path.isdir(d):
                files += [os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith((".pprof", ".pb"))]
        for f in files:
            check_go_file(pc, f, env)
        # every file of tests/data that converts to pprof
        for sub in sorted(os.listdir(data)):
            d = os.path.join(data, sub)
            if not os.path.isdir(d):
                continue
            for f in sorted(os.listdir(d)):
                path = os.path.join(d, f)
                if not os.path.isfile(path) or f.endswith((".txt", ".md", ".json", ".jsonl", ".gz", ".cs", ".sha256", ".py")):
                    continue
                p = run([pc, "info", path], check=False)
                if p.returncode != 0:
                    continue
                fmt = re.search(rb"format:\s+(\S+)", p.stdout)
                if not fmt:
                    continue
                fp = run([pc, "formats", "--json"]).stdout.decode(errors="surrogateescape")
                if '"name":"%s"' % fmt.group(1).decode() not in fp:
                    continue
                convertible = {x["name"]: x["convert_to"] for x in json.loads(fp)}
                if "pprof" in convertible.get(fmt.group(1).decode(), []):
                    check_written(pc, path, env)
    if failures:
        print("%d failures" % len(failures))
        return 1
    print("all pprof checks against go tool pprof passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
