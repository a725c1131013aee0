"""Adding a schema needs no binding code by hand. The package pcdfx is the binding of three of
the generator's fixture schemas (tests/gen/ok/fx_stream.lua, fx_unions.lua, fx_mojo.lua, written
with no Python in mind), generated at build time by `pcgen --python --python-package pcdfx` and
compiled with profcodec's runtime (tests/python/CMakeLists.txt). Everything profcodec's own
formats have, these have: a class per type with the schema's docs and keyword signatures, stubs,
reading from paths, file objects and pipes, to_dict, encode, validate, damage."""
import ast
import inspect
import io
import os
import subprocess
import sys

import pytest

from conftest import ROOT

FIXTURE = os.environ.get("PCD_FIXTURE_PACKAGE", os.path.join(ROOT, "build", "tests", "python", "fixture"))
sys.path.insert(0, FIXTURE)
import pcdfx  # noqa: E402
from pcdfx import fx_mojo_v2 as M, fx_stream_v2 as S, fx_unions_v1 as U  # noqa: E402


def plain(records):
    """to_dict() without where a record stood (made records stand nowhere)."""
    return [{k: v for k, v in r.to_dict().items() if k != "_offset"} for r in records]


def read(source, **kw):
    with pcdfx.open(source, **kw) as r:
        return list(r)


def test_the_formats_and_their_classes():
    assert [(f["name"], f["version"], f["module"], f["schema"]) for f in pcdfx.formats()] == [
        ("fx_mojo", "2", "fx_mojo_v2", "tests/gen/ok/fx_mojo.lua"),
        ("fx_stream", "2", "fx_stream_v2", "tests/gen/ok/fx_stream.lua"),
        ("fx_unions", "1", "fx_unions_v1", "tests/gen/ok/fx_unions.lua"),
    ]
    assert pcdfx.schema("fx_stream") is S and (S.FORMAT, S.VERSION) == ("fx_stream", "2")

    def classes(m):
        return sorted(n for n, v in vars(m).items() if isinstance(v, type))
    # a class per struct, per union whose values say their case, per case that is not a struct
    assert classes(S) == ["Buffer", "Event", "File"]
    assert classes(M) == ["File", "Rec"]
    assert classes(U) == ["File", "Rec", "RecA", "RecABodyAlloc", "RecABodyGc", "RecB", "RecBItem",
                          "RecBItemEmpty", "RecBItemNum", "RecBItemPair"]
    assert all(issubclass(getattr(U, n), U.RecBItem) for n in ("RecBItemEmpty", "RecBItemNum", "RecBItemPair"))
    assert all(issubclass(getattr(m, n), pcdfx.Record) for m in (S, M, U) for n in classes(m))
    # the schema's docs and keyword signatures
    assert S.Buffer.len.__doc__ == "Bytes of events after this header."
    assert S.Event.time.__doc__ == "ns since the previous event."
    assert list(inspect.signature(S.Event).parameters) == ["type", "time", "obj"]
    assert str(inspect.signature(M.Rec)) == "(*, a, b, c=None, d)"
    assert list(inspect.signature(U.RecBItemPair).parameters) == ["_tag", "x", "y"]
    # and the stubs, beside the extension
    for m in ("fx_stream_v2", "fx_unions_v1", "fx_mojo_v2"):
        with open(os.path.join(FIXTURE, "pcdfx", m + ".pyi")) as f:
            tree = ast.parse(f.read())
        stubbed = sorted(n.name for n in tree.body if isinstance(n, ast.ClassDef))
        assert stubbed == classes(getattr(pcdfx, m))


STREAM = [
    S.File(version=2),
    S.Buffer(time_base=1000, obj_base=0x10000),
    S.Event(type="tick", time=1005),
    S.Event(type="alloc", time=1010, obj=0x10040),
    S.Buffer(time_base=2000, obj_base=0x20000),
    S.Event(type=2, time=2001, obj=0x20008),
]


def test_a_stream_with_state_written_and_read_back(tmp_path):
    data = pcdfx.encode(STREAM)
    # sizes computed, times as deltas, addresses relative to the buffer's base, shifted
    assert data == bytes.fromhex("465853 02"                                  # magic, version
                                 "46465542 07000000 e803000000000000 0000010000000000"   # buffer
                                 "01 05  02 05 88c07c"                        # tick, alloc
                                 "46465542 05000000 d007000000000000 0000020000000000"   # buffer
                                 "02 01 818079")                              # alloc
    got = read(io.BytesIO(data))          # the format told by its magic
    want = plain(STREAM)
    want[1]["len"], want[4]["len"] = 7, 5
    assert plain(got) == want
    assert [r._offset for r in got] == [0, 4, 28, 30, 35, 59]
    assert got[3].obj == 0x10040 and got[3].type == "alloc" and got[2].obj is None
    assert pcdfx.encode(got) == data and pcdfx.encode([r.to_dict() for r in got]) == data
    path = tmp_path / "trace.fxs"
    pcdfx.encode(got, path)
    assert plain(read(path)) == plain(got) and plain(read(str(path), format="fx_stream:2")) == plain(got)
    v = pcdfx.validate(path)
    assert v.valid and v.records == 5 and (v.format, v.version) == ("fx_stream", "2")
    # through a pipe
    p = subprocess.Popen(["cat", str(path)], stdout=subprocess.PIPE)
    assert plain(read(p.stdout)) == plain(got)
    p.wait()


def test_damage_in_a_stream():
    data = pcdfx.encode(STREAM)
    got, exc = [], None
    try:
        with pcdfx.open(io.BytesIO(data[:-1]), format="fx_stream") as r:
            for x in r:
                got.append(x)
    except pcdfx.DamagedInput as e:
        exc = e
    assert exc is not None and exc.records == len(got) == 5
    assert (exc.offset, exc.path, exc.expected) == (61, "obj", "SLEB128 varint")
    assert exc.found.startswith("end of data")
    with pytest.raises(pcdfx.DamagedInput) as v:
        pcdfx.validate(io.BytesIO(data[:-1]))
    assert v.value.offset == 61
    with pytest.raises(pcdfx.UsageError, match="not imported into the profile model"):
        with pcdfx.open(io.BytesIO(data)) as r:
            r.profile()
    with pytest.raises(pcdfx.UsageError, match="cannot be converted"):
        pcdfx.convert(io.BytesIO(data), "collapsed")


def test_unions_of_every_kind():
    recs = [
        U.File(),
        U.RecB(item=U.RecBItemNum(value=7)),                 # by a tag byte: a number
        U.RecB(item=U.RecBItemPair(_tag=3, x=1, y=2)),        # a case of two tags: which one
        U.RecB(item=U.RecBItemEmpty()),
        U.RecA(ev=0x81, body=U.RecABodyAlloc(size=5, bt=(1, -2))),   # by a nibble of an earlier byte
        U.RecA(ev=0x03, body=U.RecABodyGc(gen=2)),
        U.RecA(ev=0x07, body=b"\x01\x02"),                  # the default case: the rest, bytes
    ]
    data = pcdfx.encode(recs)
    got = read(io.BytesIO(data), format="fx_unions")
    assert [type(x).__name__ for x in got] == ["File", "RecB", "RecB", "RecB", "RecA", "RecA", "RecA"]
    assert got[2].item == recs[2].item and got[2].item._tag == 3 and got[2].item._kind == "pair"
    assert got[1].item.value == 7 and got[1].item._tag is None
    assert got[4].body.bt == (1, -2) and got[6].body == b"\x01\x02"
    assert got[2].to_dict()["item"] == {"_kind": "pair", "_tag": 3, "x": 1, "y": 2}
    assert [x.len for x in got[1:4]] == [5, 3, 1] and [x.size for x in got[4:]] == [9, 6, 7]
    assert pcdfx.encode(got) == data
    with pytest.raises(TypeError, match="'_tag'"):
        U.RecBItemPair(x=1, y=2)
    with pytest.raises(TypeError, match="cannot be made"):
        U.RecBItem()


def test_mojo_varints_and_their_checks():
    recs = [M.File(version=2), M.Rec(a=5, b=-3, d=-70), M.Rec(a=11, b=-3, c=-1, d=0)]
    data = pcdfx.encode(recs)
    assert data == bytes.fromhex("4d4a58020543c6010b434100")
    got = read(io.BytesIO(data))
    assert [(x.a, x.b, x.c, x.d) for x in got[1:]] == [(5, -3, None, -70), (11, -3, -1, 0)]
    with pytest.raises(pcdfx.UsageError, match="a: expected at most 1000, found 2000"):
        pcdfx.encode([M.File(version=2), M.Rec(a=2000, b=-3, d=0)])
    with pytest.raises(pcdfx.DamagedInput, match="b: expected -3, found 3"):
        read(io.BytesIO(bytes.fromhex("4d4a58020503")))
