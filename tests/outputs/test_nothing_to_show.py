#!/usr/bin/env python3
"""Issue 21's cases, through the CLI: outputs with nothing to show, damage before the first
sample, gzip's own errors, signed values, what the headers count, lines of the same text.

The rule (docs/design.md, "Nothing to show"): an output that has nothing to show says so on
stderr, naming what is missing, exits 1 and writes no file; the default metric is one the file
has data for.

usage: test_nothing_to_show.py PROFCODEC TESTDATA WORKDIR
"""
import gzip
import json
import os
import re
import subprocess
import sys

PC, DATA, WORK = sys.argv[1:4]
os.makedirs(WORK, exist_ok=True)
failures = []
passed = 0
SAMPLE_OUTPUTS = ["collapsed", "austin", "speedscope", "html", "svg", "pprof", "mojo"]


def check(cond, what):
    global passed
    if cond:
        passed += 1
        print("ok   " + what)
    else:
        failures.append(what)
        print("FAIL " + what)


def convert(path, to, *opts, name=None):
    """(exit status, stderr, the output's bytes or None when no file was written)."""
    out = os.path.join(WORK, "%s.%s" % (name or os.path.basename(path), to))
    if os.path.exists(out):
        os.unlink(out)
    p = subprocess.run([PC, "convert", "--to", to, *opts, path, "-o", out], capture_output=True)
    data = open(out, "rb").read() if os.path.exists(out) else None
    return p.returncode, p.stderr.decode(errors="replace"), data


def refused(path, to, opts, needle, what):
    rc, err, data = convert(path, to, *opts)
    check(rc == 1 and data is None and needle in err and "not written" in err,
          "%s: exit 1, no file, says %r (exit %d, %s)" % (what, needle, rc, err.strip().replace("\n", " | ")[:200]))


def collapsed_total(data):
    return sum(int(ln.rsplit(b" ", 1)[1]) for ln in data.split(b"\n") if ln)


def info(path):
    return json.loads(subprocess.run([PC, "info", "--json", path], capture_output=True).stdout)["summary"]


# ---- item 3: the default metric has data; an output with nothing to show says so ----------

sample = os.path.join(DATA, "mono", "sample.mlpd")     # a sampling log: hits, no allocations
hits = info(sample)["sample_hits"]["total"]
for to in SAMPLE_OUTPUTS:
    rc, err, data = convert(sample, to)
    check(rc == 0 and data, "Mono log:sample --to %s with the default metric: exit 0, an output (%d, %s)" % (
        to, rc, err.strip()[:120]))
    if to == "collapsed" and data:
        check(collapsed_total(data) == hits, "Mono log:sample: the default is its hits (%d lines total %d, hits %d)" % (
            data.count(b"\n"), collapsed_total(data), hits))
    if to == "austin" and data:
        vals = [int(ln.rsplit(b" ", 1)[1]) for ln in data.split(b"\n") if ln and not ln.startswith(b"#")]
        check(sum(vals) == hits, "Mono log:sample --to austin: its hits, not a time of 0 (total %d)" % sum(vals))
    if to == "svg" and data:
        check(b", 0 in total" not in data and re.search(rb">widths: [^<,]+, [\d,]+ in total from [\d,]+ distinct stacks<", data),
              "Mono log:sample --to svg: a total of hits, in distinct stacks")
    if to == "html" and data:
        d = json.loads(re.search(rb'id="pcd-data">(.*?)</script>', data, re.S).group(1))
        # (its hits are timed samples on the page: its time order; docs/mono.md)
        check(d["types"][d["type"]]["name"] == "samples" and d["noun"] == "samples",
              "Mono log:sample --to html: the page opens on samples, and counts its hits as samples (%s, %s)" % (
                  d["types"][d["type"]]["name"], d["noun"]))
for to in ("collapsed", "svg", "html", "speedscope"):
    refused(sample, to, ["--metric", "alloc-bytes"], "no sample has a value of alloc-bytes",
            "Mono log:sample --to %s --metric alloc-bytes" % to)

wall = os.path.join(DATA, "mojo", "v3_basic.mojo")     # wall time, no memory
for to in ("collapsed", "svg", "html"):
    refused(wall, to, ["--metric", "memory"], "no sample has a value of memory",
            "wall-time MOJO --to %s --metric memory" % to)
rc, err, data = convert(wall, "pprof")
types = []
if data:
    pb = os.path.join(WORK, "wall.pprof")
    open(pb, "wb").write(data)
    types = [t["type"] for t in info(pb)["sample_types"]]
check(rc == 0 and types and not any("memory" in t for t in types),
      "wall-time MOJO --to pprof: no all-zero memory sample types (%s)" % types)

counters = os.path.join(DATA, "mono", "counters.mlpd")   # neither samples nor allocations
for to in SAMPLE_OUTPUTS:
    refused(counters, to, [], "nothing to show", "Mono log without samples --to %s" % to)
rc, err, data = convert(counters, "collapsed")
check("no samples" in err, "Mono log without samples: the message names what is missing (%s)" % err.strip()[:100])

# A Mono log of GCs and no sample hits: the page takes its spans but shows none without samples;
# it names the outputs that show them, and the first of those does.
gcs = os.path.join(DATA, "mono", "heapwalk.mlpd")
refused(gcs, "html", [], "the input has no samples, but 6 spans (--to speedscope, chrome, firefox, perfetto",
        "Mono log of GCs without samples --to html: names the outputs that show its spans")
rc, err, data = convert(gcs, "chrome")
check(rc == 0 and data and data.count(b'"cat":"gc"') + data.count(b'"cat": "gc"') == 6,
      "... --to chrome: its 6 GC spans (exit %d)" % rc)

# A CPU profile whose cpu values are all 0, its sample counts not: speedscope leaves counts kept
# beside a time out, so it has no profile to write. It wrote a file with no profile in it and
# exit 0; it says so now, as the other pictures do. collapsed weighs the counts (the default
# falls to a type with values).
dumped = subprocess.run([PC, "dump", os.path.join(DATA, "pprof", "labels.cpu.pprof")], capture_output=True,
                        check=True).stdout.decode()
zero = []
for ln in dumped.splitlines():
    r = json.loads(ln)
    r.pop("_offset", None)
    r.pop("_layout", None)
    if r.get("_kind") == "sample":
        r["value"] = [r["value"][0], 0]
    zero.append(json.dumps(r))
zj = os.path.join(WORK, "zero_cpu.jsonl")
open(zj, "w").write("\n".join(zero) + "\n")
zpb = os.path.join(WORK, "zero_cpu.pb")
subprocess.run([PC, "encode", zj, "-o", zpb], check=True)
refused(zpb, "speedscope", [], "no sample has a value of cpu (the samples have values of samples",
        "a CPU profile with no cpu values --to speedscope")
rc, err, data = convert(zpb, "collapsed")
check(rc == 0 and data and collapsed_total(data) == sum(json.loads(z)["value"][0] for z in zero
                                                        if '"sample"' in z),
      "a CPU profile with no cpu values --to collapsed: its sample counts (exit %d)" % rc)
rc, err, data = convert(zpb, "speedscope", "--metric", "samples")
check(rc == 0 and data and b'"sampled"' in data, "... --to speedscope --metric samples: a profile (exit %d)" % rc)

# ---- item 4: damage before the first sample, gzip's own errors --------------------------------

tc = bytearray(open(os.path.join(DATA, "tachyon", "threads_gil_none.bin"), "rb").read())
tc[36:40] = b"\0\0\0\0"    # the header's thread_count: the first sample is damage
cut = os.path.join(WORK, "tachyon_first_sample_damaged.bin")
open(cut, "wb").write(tc)
for to in ("collapsed", "html", "svg", "speedscope", "pprof", "chrome", "austin", "tachyon", "mojo"):
    refused(cut, to, [], "nothing to convert before the damage", "Tachyon damaged at its first sample --to %s" % to)

# MoarVM: a valid file with no snapshot has nothing to show; a cut one nothing before the damage
# (both were "no complete snapshot with sound references", as if invalid; the summary wrote a file
# of one line, "No complete snapshot.", with exit 0, and exit 1 when cut)
nosnap = os.path.join(DATA, "..", "regress", "moarvm", "filemeta-no-snapshot.bin")
for to in ("collapsed", "table", "html", "svg", "speedscope", "pprof", "summary"):
    refused(nosnap, to, [], "nothing to show: the input has no complete heap snapshot",
            "MoarVM with no snapshot --to %s" % to)
mv = open(os.path.join(DATA, "moarvm", "synthetic-three.mvmheap"), "rb").read()
mvcut = os.path.join(WORK, "moarvm_cut_in_first_snapshot.mvmheap")
open(mvcut, "wb").write(mv[:len(mv) // 4])
for to in ("collapsed", "table", "summary"):
    rc, err, data = convert(mvcut, to)
    check(rc == 1 and data is None and "nothing to convert before the damage (no complete heap snapshot before it)" in err
          and "sound references" not in err,
          "MoarVM cut in its first snapshot --to %s: nothing before the damage (exit %d, %s)" % (
              to, rc, err.strip().replace("\n", " | ")[:200]))

raw = gzip.decompress(open(os.path.join(DATA, "pprof", "labels.cpu.pprof"), "rb").read())
gz = gzip.compress(raw, mtime=0)
cutgz = os.path.join(WORK, "truncated.pprof")
open(cutgz, "wb").write(gz[:len(gz) * 2 // 3])
rc, err, data = convert(cutgz, "collapsed")
check(rc == 1 and "gzip: the gzip stream ends early at byte %d of the compressed file" % (len(gz) * 2 // 3) in err
      and "expected readable input" not in err,
      "truncated gzip pprof: gzip's own error (%s)" % err.strip().replace("\n", " | ")[:200])
check(data is not None and data and not re.search(rb"(^|;);|;( |$)", data, re.M),
      "truncated gzip pprof: the samples before the damage, no frame without a name")
bad = bytearray(gz)
bad[len(bad) // 2] ^= 0xFF
badgz = os.path.join(WORK, "damaged.pprof")
open(badgz, "wb").write(bad)
rc, err, data = convert(badgz, "collapsed")
check(rc == 1 and re.search(r"gzip: .* at byte \d+ of the compressed file", err) and "expected readable input" not in err,
      "damaged gzip pprof: gzip's own error (%s)" % err.strip().replace("\n", " | ")[:200])

# ---- item 2: signed values; pictures that cannot draw them say so -------------------------------

neg = os.path.join(WORK, "negative.pb")
subprocess.run([PC, "encode", os.path.join(os.path.dirname(__file__), "..", "pprof", "crafted", "negative.jsonl"),
                "-o", neg], check=True)
rc, err, data = convert(neg, "collapsed", "--metric", "inuse_space")
check(rc == 0 and data and collapsed_total(data) == -6144 and b" -" in data,
      "a difference of heap profiles: collapsed sums with signs (%s)" % (collapsed_total(data) if data else None))
for to in ("svg", "html", "speedscope"):
    refused(neg, to, ["--metric", "inuse_space"], "inuse_space has negative values",
            "a difference of profiles --to %s" % to)
rc, err, data = convert(neg, "pprof")
back = os.path.join(WORK, "negative.back.pprof")
if data:
    open(back, "wb").write(data)
rc2, err2, d2 = convert(back, "collapsed", "--metric", "inuse_space") if data else (None, None, None)
check(rc == 0 and d2 and collapsed_total(d2) == -6144, "a difference of profiles through --to pprof keeps its signs")

# ---- item 1: unsymbolized frames named in every output, pprof round trip -----------------------

uns = os.path.join(WORK, "unsymbolized.pb")
subprocess.run([PC, "encode", os.path.join(os.path.dirname(__file__), "..", "pprof", "crafted", "unsymbolized.jsonl"),
                "-o", uns], check=True)
name = b"00007f00000123f0 [libc.so.6]"
for to in ("collapsed", "speedscope", "html", "svg", "austin", "mojo", "pprof"):
    rc, err, data = convert(uns, to)
    if to in ("mojo", "pprof") and data:
        p = os.path.join(WORK, "uns." + to)
        open(p, "wb").write(data)
        rc, err, data = convert(p, "collapsed", name="uns-back-" + to)
    check(rc == 0 and data and name in data and b";;" not in data,
          "an unsymbolized frame is named by address and mapping --to %s" % to)

# ---- item 6: lines that print the same are one ------------------------------------------------

for f in sorted(os.listdir(os.path.join(DATA, "mojo"))):
    if not f.endswith(".mojo") or "unsupported" in f or "truncated" in f:
        continue
    rc, err, data = convert(os.path.join(DATA, "mojo", f), "collapsed")
    texts = [ln.rsplit(b" ", 1)[0] for ln in (data or b"").split(b"\n") if ln]
    check(rc == 0 and len(texts) == len(set(texts)), "MOJO %s --to collapsed: every text once (%d lines, %d texts)" % (
        f, len(texts), len(set(texts))))

print("%d passed, %d failed" % (passed, len(failures)))
sys.exit(1 if failures else 0)
