"""harness.py: austin-python's MOJO reader (austin.format.mojo.MojoStreamReader) on one file, for
`profcodec fuzz` (fuzz/others/austin-python.sh runs it with the checkout named by AUSTIN_PYTHON
first on sys.path).

The file is read as austin-python's tools read it: every event, the samples made of them.
Exit 1 and one line on standard error: the reader rejected the file in its own way (MojoParseError,
which it raises for anything that goes wrong inside an event, or ValueError: not a MOJO stream, an
unknown event). Exit 0: accepted; standard output has the totals profcodec compares with its own:
the number of samples, and the sums of the time and memory metrics (memory split by sign, as
profcodec's model keeps allocations and releases apart). Any other exception is a finding (the
campaign runs with --python-tracebacks).
usage: python3 harness.py FILE
"""
import sys


def main(path):
    from austin.events import AustinSample
    from austin.format.mojo import MojoParseError, MojoStreamReader

    samples = time = allocated = released = 0
    with open(path, "rb") as f:
        try:
            for e in MojoStreamReader(f):
                if not isinstance(e, AustinSample):
                    continue
                samples += 1
                m = e.metrics
                if m.time is not None:
                    time += m.time
                if m.memory is not None:
                    if m.memory >= 0:
                        allocated += m.memory
                    else:
                        released -= m.memory
        except (MojoParseError, ValueError) as exc:
            print("rejected:", str(exc).splitlines()[0] if str(exc) else type(exc).__name__, file=sys.stderr)
            return 1
    print(f"samples {samples}")
    print(f"total time {time}")
    print(f"total memory {allocated}")
    print(f"total memory-released {released}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
