#!/usr/bin/env python3
"""pprof's decoder and checks on the paths a file can take (issue 26, i26aa).

The generated decoder fills a message in one pass when its fields are known ones, singular ones
written once and its arrays small (what writers do), and in the general two passes otherwise; the
checks look a reference up in a bitmap when ids are dense and in the hash table when they are
not. Small crafted profiles take each path: the fast one (Go's field order: values unpacked, the
locations packed, the labels), and each way off it (an unknown field in a sample or a label, a
label's key written twice, a label's fields out of order, 210 locations in one sample, 40
labels, more runs of fields than the fast path keeps), and the faults it must still find (an
unknown location id, small and past the bitmap, a location id of 0, a varint of 11 bytes and one
cut off at the end of a packed run, a label cut off, a file cut off in a sample, a string index
past the table, a sample with two values for one sample type).

For each file, `profcodec validate` (its text and exit status) and `profcodec dump` (every record,
the layout of each message as written) must be exactly tests/pprof/paths/<case>.txt. Those files
were made by main's build before the one-pass decoder and the bitmap (7e1e0c5b, --fix), so that
the two paths give what the general path gave. And for every valid file, `dump` then `encode`
gives back its bytes.

usage: test_pprof_paths.py PROFCODEC [--fix]
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
EXPECTED = os.path.join(HERE, "paths")


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def key(n, w):
    return varint(n << 3 | w)


def vf(n, v):
    return key(n, 0) + varint(v)


def lf(n, b):
    return key(n, 2) + varint(len(b)) + b


def packed(vals):
    return b"".join(varint(v) for v in vals)


def label(k, s):
    return vf(1, k) + vf(2, s)


def sample(locs, vals, labels=(), extra=b""):
    """Go's order: each value unpacked, the location ids packed, then the labels."""
    return lf(2, b"".join(vf(2, v) for v in vals) + lf(1, packed(locs)) + b"".join(lf(3, l) for l in labels) + extra)


STRINGS = [b"", b"samples", b"count", b"k", b"v", b"f"]


def head():
    return lf(1, vf(1, 1) + vf(2, 2))


def tables(nloc=3):
    t = lf(3, vf(1, 1))
    for i in range(1, nloc + 1):
        t += lf(4, vf(1, i) + vf(2, 1) + lf(4, vf(1, 1) + vf(2, i)))
    t += lf(5, vf(1, 1) + vf(2, 5))
    for s in STRINGS:
        t += lf(6, s)
    return t


def cases():
    L = [label(3, 4)]
    c = {}
    c["valid"] = head() + sample([1, 2, 3], [1]) + sample([3, 2], [2], L) + tables()
    c["unknown_id"] = (head() + sample([1, 2, 3], [1]) + sample([2, 4, 1], [1], L) + sample([1 << 40, 3], [1]) +
                       sample([5], [1]) + tables())
    c["zero_id"] = head() + sample([1, 0, 3], [1]) + tables()
    c["long_varint"] = head() + sample([1, 2], [1]) + lf(2, vf(2, 1) + lf(1, varint(1) + b"\xff" * 10 + b"\x01")) + tables()
    c["cut_varint"] = head() + sample([1, 2], [1]) + lf(2, vf(2, 1) + lf(1, varint(1) + b"\x82")) + tables()
    c["cut_label"] = head() + sample([1], [1]) + lf(2, vf(2, 1) + lf(1, packed([1])) + lf(3, b"\x08")) + tables()
    full = head() + sample([1, 2], [1], L) + sample([3, 1], [1], L)
    c["truncated"] = full[:-3]
    c["deep"] = head() + sample([1, 2, 3] * 70, [1]) + tables()
    runs = vf(2, 1) + b"".join(vf(1, 1 + i % 3) + lf(3, label(3, 4)) for i in range(20))
    c["many_runs"] = head() + lf(2, runs) + tables()
    c["unknown_field"] = head() + sample([1, 2], [1], L, extra=vf(9, 7)) + tables()
    c["label_twice"] = head() + sample([1], [1], [vf(1, 3) + vf(1, 4) + vf(2, 4)]) + tables()
    c["label_unknown"] = head() + sample([1], [1], [vf(1, 3) + vf(2, 4) + vf(7, 1)]) + tables()
    c["label_order"] = head() + sample([1], [1], [vf(2, 4) + vf(1, 3)]) + tables()
    c["many_labels"] = head() + sample([1], [1], [label(3, 4)] * 40) + tables()
    c["bad_index"] = head() + sample([1], [1], [label(3, 99)]) + tables()
    c["value_count"] = head() + sample([1], [1, 2]) + tables()
    # 1500 locations: the bitmap grows (512 ids, then more as the table grows), two ids missing
    big = b"".join(sample(list(range(i, i + 100)), [1]) for i in range(1, 1500, 100))
    c["dense_ids"] = head() + big + sample([1501, 7, 3000], [1]) + big + tables(1500)
    return c


# (cases whose dump is long: validate only)
VALIDATE_ONLY = {"dense_ids"}


def run(args, cwd, stdin=None):
    r = subprocess.run(args, cwd=cwd, capture_output=True, input=stdin)
    return r.returncode, r.stdout, r.stderr


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    pc = os.path.abspath(sys.argv[1])
    fix = "--fix" in sys.argv[2:]
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, data in sorted(cases().items()):
            f = name + ".pprof"
            with open(os.path.join(tmp, f), "wb") as o:
                o.write(data)
            vrc, vout, verr = run([pc, "--format", "pprof", "validate", f], tmp)
            drc, dout, derr = run([pc, "--format", "pprof", "dump", f], tmp)
            text = "validate: exit %d\n" % vrc + (vout + verr).decode()
            if name not in VALIDATE_ONLY:
                text += "dump: exit %d\n" % drc + (dout + derr).decode()
            exp = os.path.join(EXPECTED, name + ".txt")
            if fix:
                os.makedirs(EXPECTED, exist_ok=True)
                with open(exp, "w") as o:
                    o.write(text)
            else:
                with open(exp) as i:
                    want = i.read()
                if text != want:
                    failed += 1
                    print("FAIL %s: validate/dump differ from %s" % (name, exp))
                    for a, b in zip(want.splitlines(), text.splitlines()):
                        if a != b:
                            print("  expected: %s\n  found:    %s" % (a[:300], b[:300]))
                            break
                    continue
            if vrc == 0:
                erc, eout, eerr = run([pc, "encode", "-", "-o", "-"], tmp, stdin=dout)
                if erc != 0 or eout != data:
                    failed += 1
                    print("FAIL %s: dump | encode does not give the file back (exit %d) %s" % (name, erc, eerr.decode()))
                    continue
            print("ok   %s (validate exit %d)" % (name, vrc))
    if failed:
        print("%d of %d cases failed" % (failed, len(cases())))
        return 1
    print("all %d cases passed" % len(cases()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
