#!/usr/bin/env python3
"""mprof68_compat.py IN.mlpd OUT.mlpd: a copy of a Mono 6.x log that Debian's mprof-report 6.8
reads correctly.

Mono's writer puts an image's MVID after its name only in load events (image_unloaded() in
log.c writes the name alone), but mprof-report 6.8 skips an MVID after every image event
of data version 16 or later: after an image unload it skips to the next NUL, swallowing the
start of the next event (and can lose its way in the buffer, or loop forever on the byte
where it lands). The copy adds an empty MVID (one NUL) after each image unload's name and
fixes its buffer's length; every event is otherwise the same, so mprof-report's output for
the copy is its output for the original as the writer meant it. Event offsets come from
`profcodec dump` (PROFCODEC, default build/profcodec). gzip input is decompressed."""
import gzip, json, os, struct, subprocess, sys

src, dst = sys.argv[1], sys.argv[2]
profcodec = os.environ.get("PROFCODEC", "build/profcodec")
raw = open(src, "rb").read()
if raw[:2] == b"\x1f\x8b":
    raw = gzip.decompress(raw)
recs = [json.loads(l) for l in subprocess.run([profcodec, "dump", src], check=True,
                                               capture_output=True).stdout.splitlines()]
recs = [r for r in recs if "_offset" in r]
inserts = {}          # offset -> offset of the buffer header whose length grows
buf = None
for i, r in enumerate(recs):
    if r["_kind"] == "buffer":
        buf = r
        continue
    if r["_kind"] == "metadata_unload" and r["mtype"] == "image":
        end = buf["_offset"] + 48 + buf["len"]
        if i + 1 < len(recs) and recs[i + 1]["_kind"] != "buffer":
            end = recs[i + 1]["_offset"]
        inserts[end] = buf["_offset"]
out = bytearray()
grow = {}
for b in inserts.values():
    grow[b] = grow.get(b, 0) + 1
pos = 0
for off in sorted(set(inserts) | set(grow)):
    out += raw[pos:off]
    pos = off
    if off in grow:   # a buffer header: its length field follows the 4-byte id
        (n,) = struct.unpack_from("<I", raw, off + 4)
        out += raw[off:off + 4] + struct.pack("<I", n + grow[off])
        pos = off + 8
    if off in inserts:
        out += b"\0"
out += raw[pos:]
open(dst, "wb").write(out)
print(f"{dst}: {len(inserts)} empty MVIDs added")
