"""Every input in tests/data: the records as profcodec.open gives them are the lines of
`profcodec dump`, to_dict() for to_dict() (keys, values and their conventions); damage ends
both at the same record with the same offset and field path."""
import profcodec

from conftest import dump_lines, read_all


def test_records_are_the_dump(data_file):
    path, _, fmt = data_file
    rc, lines, err = dump_lines(path)
    got, exc = read_all(path)
    if lines and lines[-1].get("_kind") == "stopped":
        stopped = lines.pop()
        assert exc is not None, "the CLI stopped at damage, profcodec.open did not"
        assert exc.offset == stopped["_offset"]
        assert exc.message == stopped["error"]
        assert exc.records == stopped["records"]
        assert rc == 1
    else:
        assert exc is None, str(exc)
        assert rc == 0, err
    assert got == lines


def test_records_with_the_format_named(data_file):
    path, _, fmt = data_file
    rc, lines, _ = dump_lines(path, "--format", fmt)
    got, exc = read_all(path, format=fmt)
    if lines and lines[-1].get("_kind") == "stopped":
        stopped = lines.pop()
        assert exc is not None and exc.message == stopped["error"]
    assert got == lines


def test_records_from_a_file_object(data_file):
    path, _, _ = data_file
    want, wexc = read_all(path)
    with open(path, "rb") as f:
        got, exc = read_all(f)
    assert got == want
    assert (exc is None) == (wexc is None)
    if exc is not None:
        assert (exc.offset, exc.path) == (wexc.offset, wexc.path)
