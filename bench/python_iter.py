"""make bench (bench/python.sh): the records of a MOJO file, iterated from Python.
usage: python_iter.py profcodec|austin FILE
  profcodec  `for record in profcodec.open(FILE)` (PYTHONPATH: the build's python/)
  austin     austin-python's reader, `for event in MojoFile(f).parse()` (PYTHONPATH: a checkout of
             austin-python 1.7.1)
Both only count what they are given; prints the count."""
import sys


def with_profcodec(path):
    import profcodec
    n = 0
    with profcodec.open(path) as r:
        for _ in r:
            n += 1
    return n


def with_austin(path):
    from austin.format.mojo import MojoFile
    n = 0
    with open(path, "rb") as f:
        for _ in MojoFile(f).parse():
            n += 1
    return n


if __name__ == "__main__":
    how, path = sys.argv[1], sys.argv[2]
    print({"profcodec": with_profcodec, "austin": with_austin}[how](path))
