"""replay.py: CPython 3.15's binary profile reader (the C reader of _remote_debugging, through
profiling.sampling.binary_reader.BinaryReader) on one file, for `profcodec fuzz`
(fuzz/others/cpython.sh runs it with the python3.15 of Debian's packages: the campaign when
there is no sanitizer build, and each finding of the sanitizer build, to say whether 3.15.2
has it).

The file is read as `python3.15 -m profiling.sampling replay` reads it: its header and footer
(get_info), every sample (replay_samples into a collector), the reader's statistics. Exit 1 and
one line on standard error: the reader rejected the file as it means to (ValueError, OSError).
Exit 0: accepted, and standard output has the number of samples (profcodec compares it with its
own). Any other exception (SystemError, IndexError, MemoryError on a small file, ...) is a finding
(the campaign runs with --python-tracebacks); so is a crash (faulthandler prints the stack).
usage: python3.15 -X faulthandler replay.py FILE
"""
import sys


class Collector:
    """Counts what the reader hands on, and touches every frame's fields as a collector would."""

    def __init__(self):
        self.samples = 0

    def collect(self, stack_frames, timestamps_us=None):
        n = len(timestamps_us) if timestamps_us else 1
        for interp in stack_frames:
            for th in interp.threads:
                for f in th.frame_info:
                    (f.filename, f.funcname, f.location, f.opcode)
                self.samples += n

    def collect_failed_sample(self):
        pass


def check(path, quiet=False):
    from profiling.sampling.binary_reader import BinaryReader

    c = Collector()
    try:
        with BinaryReader(path) as r:
            r.get_info()
            r.replay_samples(c)
            r.get_stats()
    except (ValueError, OSError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else ""
        if not quiet:
            print(f"rejected: {type(exc).__name__}: {first}", file=sys.stderr)
        return 1
    if not quiet:
        print(f"samples {c.samples}")
    return 0


if __name__ == "__main__":
    sys.exit(check(sys.argv[1]))
