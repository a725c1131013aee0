"""The records' attributes: every record of every input in tests/data shows its fields as Python
values (ints, floats, str or bytes, tuples, records), its repr names them, and its class made
from them gives the same record back (the same dump, the same bytes); equal records hash alike."""
import math

import profcodec

from conftest import read_all


def fields(rec):
    return [k for k in rec.to_dict() if not k.startswith("_")]


def attr(k):
    return k + "_" if k in ("class", "from", "import", "in", "is", "def", "global", "lambda", "pass", "return") else k


def test_attributes_make_the_record_again(data_file):
    path, _, _ = data_file
    n = 0
    try:
        with profcodec.open(path) as r:
            for rec in r:
                n += 1
                d = rec.to_dict()
                assert rec._kind == d["_kind"]
                assert repr(rec).startswith(type(rec).__name__ + "(")
                # (MOJO's negative zero is 0 as a Python int: its dump value keeps the sign)
                kw = {attr(k): d[k] if d[k] == "-0" else getattr(rec, attr(k)) for k in fields(rec)}
                if "_value" in d:   # a case whose value is not a struct: its one attribute
                    kw["value"] = rec.value
                # (a protobuf message's layout and unknown fields are the dump's, not attributes)
                kw.update({k: d[k] for k in ("_layout", "_unknown") if k in d})
                again = type(rec)(_kind=rec._kind, **kw)
                d.pop("_offset", None)
                assert again.to_dict() == d, rec
                assert again == rec and hash(again) == hash(rec)
    except profcodec.DamagedInput:
        pass
    assert n > 0


def test_values_are_pythons():
    import os
    base = os.environ["PCD_TESTDATA"]
    with profcodec.open(os.path.join(base, "tachyon", "deep_zstd.bin")) as r:
        root = r.header
        assert r.metadata["compression"] == "zstd" == root.compression
        assert isinstance(root.python_version, profcodec.tachyon_v1.FilePythonVersion)
        assert root.python_version.major == 3
        sample = next(x for x in r if isinstance(x, profcodec.tachyon_v1.Sample))
        assert isinstance(sample.stack, profcodec.tachyon_v1.SampleStack)
        assert sample.stack._kind == sample.to_dict()["stack"]["_kind"]
        assert isinstance(sample.stack.frames, tuple)
    with profcodec.open(os.path.join(base, "mojo", "v3_basic.mojo")) as r:
        recs = list(r)
    frame = next(x for x in recs if x._kind == "frame")
    assert frame.key == 2 ** 64 - 1 and frame.to_dict()["key"] == "18446744073709551615"
    s = [x for x in recs if x._kind == "string"]
    assert any(isinstance(x.value, bytes) for x in s) and any(isinstance(x.value, str) for x in s)
    assert recs[1]._offset == 4 and recs[0]._offset == 0 and "_offset" not in recs[0].to_dict()
    assert len({*recs}) < len(recs)       # equal records (offsets aside) are one in a set
    assert isinstance(recs[1], profcodec.mojo_v3.Event)
