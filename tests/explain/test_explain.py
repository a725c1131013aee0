#!/usr/bin/env python3
"""test_explain.py: `profcodec explain` on every file of tests/data that profcodec reads
(tests/data/PROVENANCE: a format and version), checked against two things it does not share
code with:

  - tiling: the fields nothing lies inside (leaves) cover the file without a gap or an overlap,
    from its first byte to its last (a gzip file: its decompressed data); a compressed region is
    one leaf of the stream it lies in, and its decompressed data a stream of its own, whose
    records' leaves tile it from 0 to their end; every record explain shows is one dump writes
    (as many, the same kinds and offsets);
  - values: every value explain gives a field equals the value dump writes for it, found by the
    field's path (its names from the record down; a union's case adds nothing to the path,
    dump writes a case's fields with the union's, or the case's value alone when the union is
    chosen by other fields; "_tag" is dump's "_kind", "_count" the array's length; the
    occurrences of a repeated protobuf field together are dump's array).

A damaged file (validate fails) is explained up to its damage instead: the damage line names the
offset validate names, and the record that failed ends in a field marked failed.

Sized for the sanitizers (PCD_TEST_SMALL=1, make test's sanitize tree, not with PCD_TEST_LONG=1):
the files of at most 4 KB, and each format version's smallest; every file in the fast tree.

usage: test_explain.py PROFCODEC TESTDATA
"""
import json
import os
import subprocess
import sys

PCD, DATA = sys.argv[1], sys.argv[2]
failures = []
checked = {"files": 0, "records": 0, "leaves": 0, "values": 0, "streams": 0}


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def run(*args):
    p = subprocess.run([PCD, *args], capture_output=True)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


SMALL = os.environ.get("PCD_TEST_SMALL", "") not in ("", "0") and os.environ.get("PCD_TEST_LONG", "0") in ("", "0")


def inputs():
    every = []
    with open(os.path.join(DATA, "PROVENANCE")) as f:
        for ln in f:
            if not ln.strip() or ln.startswith("#"):
                continue
            parts = ln.rstrip("\n").split("\t")
            if len(parts) >= 3 and parts[2] != "-":
                every.append((os.path.join(DATA, parts[0]), parts[2]))
    if not SMALL:
        return [p for p, _ in every]
    smallest = {}
    for p, fv in every:
        if fv not in smallest or os.path.getsize(p) < os.path.getsize(smallest[fv]):
            smallest[fv] = p
    return [p for p, fv in every if os.path.getsize(p) <= 4096 or smallest[fv] == p]


def walk(fields, out, parent_path=""):
    for f in fields:
        out.append(f)
        walk(f.get("fields", []), out)


def leaves_of(record, region_sizes):
    got = []
    for f in flat(record["fields"]):
        if f["kind"] == "region":
            if f.get("compressed"):
                # its compressed bytes (a zstd frame's size is known once it is read: a later line)
                size = region_sizes.get((record["record"], f["name"], f["offset"]), f["size"])
                got.append(dict(f, size=size))
        elif f.get("leaf") and f["size"] > 0:
            got.append(f)
    return got


def flat(fields):
    out = []
    walk(fields, out)
    return out


def label(f):
    return "%s@%d+%d" % (f["name"] if f["name"] is not None else "[%d]" % f["index"], f["offset"], f["size"])


def tile(name, leaves, start, end):
    """leaves tile [start, end) (end None: wherever the last one ends)."""
    leaves = sorted(leaves, key=lambda f: (f["offset"], f["size"]))
    at = start
    for f in leaves:
        if f["offset"] > at:
            fail("%s: no field holds bytes %d..%d (before %s)" % (name, at, f["offset"], label(f)))
            return
        if f["offset"] < at:
            fail("%s: %s overlaps the field before it (which ends at %d)" % (name, label(f), at))
            return
        at = f["offset"] + f["size"]
    if end is not None and at != end:
        fail("%s: the fields end at %d, the data at %d" % (name, at, end))
    checked["leaves"] += len(leaves)


def dump_value(obj, path_nodes):
    """The value dump writes for the field at the end of path_nodes (explain's nodes from the
    record down); raises KeyError when dump has no such thing."""
    cur = obj
    for k, f in enumerate(path_nodes):
        last = k == len(path_nodes) - 1
        if f["kind"] == "tag":
            return cur["_kind"]
        if f["kind"] == "count":
            return None  # checked by the caller against the array
        if f["kind"] == "key":
            raise KeyError("a protobuf key has no value")
        if f.get("case"):
            if isinstance(cur, dict) and "_kind" in cur:
                if cur["_kind"] != f["name"]:
                    raise KeyError("case %s, dump says %s" % (f["name"], cur["_kind"]))
                if last and "_value" in cur:
                    return cur["_value"]
                continue  # the case's fields are the union's
            if last:
                return cur  # a union chosen by other fields: the case's value alone
            continue
        if f["kind"] == "element":
            cur = cur[f["index"]]
            continue
        cur = cur[f["name"]]
        if f.get("index") is not None and isinstance(cur, list) and not last:
            cur = cur[f["index"]]  # one occurrence of a repeated protobuf message
    return cur


def check_values(name, record, dumped):
    if record["kind"] != dumped.get("_kind"):
        fail("%s: record %d is %s, dump's %s" % (name, record["record"], record["kind"], dumped.get("_kind")))
        return
    if record["depth"] > 0 and record["offset"] != dumped.get("_offset"):
        fail("%s: record %d at %d, dump's at %s" % (name, record["record"], record["offset"], dumped.get("_offset")))
    repeated = {}  # protobuf: (parent path, name) -> the slices of each occurrence

    def visit(fields, chain):
        for f in fields:
            nodes = chain + [f]
            visit(f.get("fields", []), nodes)
            if "value" not in f:
                continue
            if f["kind"] == "field" and f.get("index") is not None and isinstance(f["value"], list) and record_is_pb:
                key = (tuple(id(n) for n in chain), f["name"])
                repeated.setdefault(key, (nodes, []))[1].extend(f["value"])
                continue
            try:
                want = dump_value(dumped, nodes)
            except (KeyError, IndexError, TypeError) as e:
                fail("%s: record %d: %s has value %r, dump has no such field (%s)" % (
                    name, record["record"], ".".join(n["name"] or "[%d]" % n["index"] for n in nodes), f["value"], e))
                continue
            if f["kind"] == "count":
                continue
            if want != f["value"]:
                fail("%s: record %d: %s is %r, dump says %r" % (
                    name, record["record"], ".".join(n["name"] or "[%d]" % n["index"] for n in nodes), f["value"], want))
            checked["values"] += 1

    record_is_pb = any(f["kind"] == "key" for f in flat(record["fields"])) or dumped.get("_kind") in PB_KINDS
    visit(record["fields"], [])
    for (nodes, got) in repeated.values():
        try:
            want = dump_value(dumped, nodes)
        except (KeyError, IndexError, TypeError) as e:
            fail("%s: record %d: repeated %s: dump has none (%s)" % (name, record["record"], nodes[-1]["name"], e))
            continue
        if want != got:
            fail("%s: record %d: repeated %s is %r, dump says %r" % (name, record["record"], nodes[-1]["name"], got, want))
        checked["values"] += 1


PB_KINDS = set()


def one(path):
    name = os.path.relpath(path, DATA)
    # damaged: decoding stops (validate also fails on what the checks above the bytes find)
    rc_v, _, _ = run("dump", path)
    rc, out, err = run("explain", "--to", "json", path)
    lines = [json.loads(ln) for ln in out.decode().splitlines() if ln]
    if not lines or lines[0].get("t") != "file":
        fail("%s: explain --to json: exit %d, no head line: %s" % (name, rc, err.strip()[:200]))
        return
    head = lines[0]
    records = [ln for ln in lines if ln["t"] == "record"]
    damage = [ln for ln in lines if ln["t"] == "damage"]
    if rc_v != 0:
        # damaged: explained up to the damage, which is where validate says
        _, _, verr = run("dump", path)
        if rc != 1 or not damage:
            fail("%s: damaged (dump exit %d) but explain exit %d, %d damage lines" % (name, rc_v, rc, len(damage)))
        elif "offset %d:" % damage[0]["offset"] not in verr:
            fail("%s: explain's damage at %d, dump says %s" % (name, damage[0]["offset"], verr.strip()[:200]))
        if damage and records and records[-1].get("failed") and not any(f.get("failed") for f in flat(records[-1]["fields"])):
            fail("%s: the record that failed has no field marked failed" % name)
        checked["files"] += 1
        return
    if rc != 0 or damage:
        fail("%s: explain exit %d, %d damage lines: %s" % (name, rc, len(damage), err.strip()[:200]))
        return
    # every record dump writes, in order
    rc, dout, derr = run("dump", path)
    dumped = [json.loads(ln) for ln in dout.decode().splitlines() if ln]
    if rc != 0 or len(dumped) != len(records):
        fail("%s: %d records explained, dump writes %d (exit %d)" % (name, len(records), len(dumped), rc))
        return
    for rec, d in zip(records, dumped):
        if rec["depth"] == 0:
            d = dict(d, _kind=rec["kind"])
        check_values(name, rec, d)
    # tiling, stream by stream
    by_stream = {}
    region_sizes = {(ln["record"], ln["name"], ln["offset"]): ln["size"] for ln in lines if ln["t"] == "region"}
    for rec in records:
        by_stream.setdefault(rec["stream"], []).extend(leaves_of(rec, region_sizes))
    tile(name + " (the file%s)" % (", decompressed" if head["gzip"] else ""), by_stream.get(0, []), 0, head["stream_size"])
    for s in [ln for ln in lines if ln["t"] == "stream"]:
        tile("%s (%s at %d, decompressed)" % (name, s["region"], s["offset"]), by_stream.get(s["stream"], []), 0, None)
        checked["streams"] += 1
    checked["records"] += len(records)
    checked["files"] += 1


for p in inputs():
    one(p)
print("explain: %d files, %d records, %d leaves tiled (%d decompressed streams), %d values equal to dump's" % (
    checked["files"], checked["records"], checked["leaves"], checked["streams"], checked["values"]))
if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
