"""Encoding: the records of every input in tests/data, as objects and as dicts, give the bytes
`profcodec dump | profcodec encode` gives (the original bytes, for every input that reads back
exactly); constructors make records that encode like the ones read."""
import gzip
import io
import os
import tempfile

import pytest

import profcodec

from conftest import cli, read_all


def cli_round_trip(path):
    rc, dump, _ = cli("dump", path)
    if rc != 0:
        return None
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "out")
        rc, _, err = cli("encode", "-o", out, stdin=dump)
        assert rc == 0, err
        with open(out, "rb") as f:
            return f.read()


def test_encode_records_and_dicts(data_file, tmp_path):
    path, _, fmt = data_file
    want = cli_round_trip(path)
    if want is None:
        # damaged: encode refuses records that stopped at damage... unless partial
        got, exc = read_all(path)
        assert exc is not None
        return
    with profcodec.open(path) as r:
        records = list(r)
    assert profcodec.encode(records) == want
    assert profcodec.encode([x.to_dict() for x in records]) == want
    out = tmp_path / "out.bin"
    assert profcodec.encode(records, out) is None
    assert out.read_bytes() == want
    buf = io.BytesIO()
    profcodec.encode(iter(records), buf)
    assert buf.getvalue() == want
    with open(path, "rb") as f:
        original = f.read()
    if original[:2] != b"\x1f\x8b" and want == original:
        assert profcodec.encode(records) == original


def test_encode_gives_the_original_bytes(data_file):
    """encode(list(profcodec.open(f))) is f's bytes, for every input. The exceptions, each checked
    for what it is: a gzip input (Mono's zip option) gives the bytes inside the gzip (encode does
    not compress the whole file); a Tachyon profile whose sample records are one zstd stream gives
    the same records, and the same bytes only when this libzstd is the one CPython used (1.5.7;
    Debian 12's 1.5.4 differs in a few bytes of larger streams: docs/tachyon.md); a damaged input
    gives its bytes up to the damaged record."""
    path, real, fmt = data_file
    with open(path, "rb") as f:
        original = f.read()
    records, exc = [], None
    with profcodec.open(path) as r:
        try:
            for x in r:
                records.append(x)
        except profcodec.DamagedInput as e:
            exc = e
    if exc is not None:
        got = profcodec.encode(records)
        assert got == original[:len(got)] and len(got) <= exc.offset
        return
    got = profcodec.encode(records)
    if original[:2] == b"\x1f\x8b":
        assert got == gzip.decompress(original)
        return
    if got != original:
        assert fmt.startswith("tachyon") and records[0].compression == "zstd", "encode changed the bytes"
        assert len(got) == pytest.approx(len(original), rel=0.01)
        # the same records; where the tables after the stream start (and the file's size) moved
        moved = {"_offset", "string_table_offset", "frame_table_offset", "file_size"}

        def same(rs):
            return [{k: v for k, v in x.to_dict().items() if k not in moved} for x in rs]
        with profcodec.open(io.BytesIO(got)) as r:
            assert same(r) == same(records)
        return
    assert got == original


def test_constructors_make_the_same_records():
    path = os.path.join(os.environ["PCD_TESTDATA"], "mojo", "v3_basic.mojo")
    with profcodec.open(path) as r:
        records = list(r)
    m = profcodec.schema("mojo:3")
    assert m is profcodec.mojo_v3
    made = []
    for x in records:
        fields = {k for k in x.to_dict() if not k.startswith("_")}
        made.append(type(x)(**{k: getattr(x, k) for k in fields}))
    assert made == records
    assert profcodec.encode(made) == profcodec.encode(records)
    # the dump's conventions are accepted too
    f = m.EventFrame(key="18446744073709551615", filename=1, scope=2, line=3, line_end=0, column=0, column_end=0)
    assert f.key == 2 ** 64 - 1
    assert f.to_dict() == {"_kind": "frame", "key": "18446744073709551615", "filename": 1, "scope": 2, "line": 3,
                           "line_end": 0, "column": 0, "column_end": 0}
    s = m.EventString(key=5, value=b"fi\xfc.py")
    assert s.value == b"fi\xfc.py" and s.to_dict()["value"] == {"hex": "6669fc2e7079"}
    assert m.EventString(key=5, value={"hex": "6669fc2e7079"}) == s


def test_constructor_errors():
    m = profcodec.mojo_v3
    with pytest.raises(TypeError, match="missing the keyword argument 'line'"):
        m.EventFrame(key=1, filename=2, scope=3, line_end=0, column=0, column_end=0)
    with pytest.raises(TypeError, match="unexpected keyword argument 'nope'"):
        m.EventFrameRef(key=1, nope=2)
    with pytest.raises(TypeError, match="keyword"):
        m.EventFrameRef(1)
    with pytest.raises(profcodec.UsageError):
        m.EventFrameRef(key="not a number")
    with pytest.raises(TypeError):
        m.Event()
    with pytest.raises(AttributeError):
        m.EventFrameRef(key=1).key = 2


def test_encode_errors(tmp_path):
    m = profcodec.mojo_v3
    with pytest.raises(profcodec.UsageError, match="no records"):
        profcodec.encode([])
    with pytest.raises(profcodec.UsageError, match="does not name a format"):
        profcodec.encode([{"_kind": "frame_ref", "key": 1}])
    with pytest.raises(profcodec.UsageError, match="stopped at damage"):
        profcodec.encode([{"_kind": "file", "_format": "mojo", "_version": "3", "version": 3},
                          {"_kind": "stopped", "_offset": 4, "error": "x"}])
    out = tmp_path / "partial.mojo"
    profcodec.encode([m.File(version=3), {"_kind": "stopped", "_offset": 4, "error": "x"},
                      m.EventFrameRef(key=1)], out, partial=True)
    assert out.read_bytes() == b"MOJ\x03\x05\x01"
    with pytest.raises(TypeError):
        profcodec.encode([object()])
    # nothing is left behind when encoding fails
    bad = tmp_path / "bad.mojo"
    with pytest.raises(profcodec.UsageError):
        profcodec.encode([m.File(version=3), {"_kind": "nonsense"}], bad)
    assert not bad.exists() and os.listdir(tmp_path) == ["partial.mojo"]


def test_encode_caps_the_records_json():
    """The JSON a dict becomes on its way to the record (jansson's memory) counts against
    max_memory (common/json_mem.c): a 2 MB string under a 1 MB cap is LimitError, not a crash
    nor MemoryError; with room it encodes."""
    big = "x" * (2 << 20)
    records = [{"_kind": "file", "_format": "mojo", "_version": "3", "version": 3},
               {"_kind": "metadata", "key": "note", "value": big}]
    with pytest.raises(profcodec.LimitError, match="out of memory for the record's JSON"):
        profcodec.encode(records, max_memory="1M")
    with pytest.raises(profcodec.LimitError):
        profcodec.encode(records, max_memory="64k")
    out = profcodec.encode(records, max_memory="64M")
    assert big.encode() in out
    # and again after the refusals: the hook still works, with and without a cap
    assert profcodec.encode(records) == out
