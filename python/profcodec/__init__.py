"""profcodec: profiler and tracer files at C speed.

Reads, writes, validates and converts the binary formats of Austin (MOJO), CPython's sampling
profiler (Tachyon), Mono's log profiler, MoarVM heap snapshots and Heph traces, with codecs
generated from declarative schemas. The classes of each format version are generated too
(``profcodec.mojo_v3``, ...; ``profcodec.schema("mojo:3")``).

    import profcodec
    with profcodec.open("profile.mojo") as r:
        for record in r:
            print(record.to_dict())

See docs/python.md.
"""
from array import array

from ._profcodec import (  # noqa: F401
    DamagedInput,
    Error,
    InputWarning,
    LimitError,
    NothingToShow,
    Reader,
    Record,
    UsageError,
    convert,
    encode,
    formats,
    merge,
    open,
    schema,
    validate,
)

__all__ = [
    "DamagedInput", "Error", "InputWarning", "LimitError", "NothingToShow", "Profile", "Reader", "Record",
    "UsageError",
    "convert", "encode", "formats", "merge", "open", "schema", "validate",
]

#: A line, column or id the source does not give, in the profile's integer columns.
NONE = -(2 ** 63)

#: The kinds of frames (Profile.frames.kind), by number.
FRAME_KINDS = ("code", "native", "kernel", "gc", "idle", "invalid", "label", "type", "root")


class Columns:
    """A table as columns: each attribute a memoryview of one field (NumPy takes them
    without a copy: ``numpy.asarray(profile.samples.stack)``)."""

    def __init__(self, columns):
        self.__dict__.update(columns)
        self._names = tuple(columns)

    def __len__(self):
        return len(getattr(self, self._names[0])) if self._names else 0

    def __repr__(self):
        return "Columns(%s; %d rows)" % (", ".join(self._names), len(self))


class Profile:
    """An input imported into profcodec's profile model (Reader.profile()).

    strings       the interned strings (str; bytes that are not UTF-8 as surrogate escapes)
    frames        columns: function, file, module (string ids), line, end_line, column,
                  end_column (NONE when unknown), address, kind (FRAME_KINDS), flags, key
    stacks        columns: parent (a stack), frame, depth; stack 0 is the empty stack
    threads       a list of dicts: pid, iid, tid, tid_text, key, name, process_name
    sample_types  a list of dicts: name, unit, title, secondary, signed
    samples       columns: thread, stack, time (ns, NONE when none), count, flags, and values
                  (rows x sample types, unsigned 64 bits; a signed type's are int64 in the same
                  bits, as pprof's: weights() reads them so)
    slices        columns: track (a thread), start, end (ns), name, category (string ids)
    metadata      (key, value) pairs in file order
    """

    def __init__(self, d):
        self.__dict__.update(d)
        self.frames = Columns(d["frames"])
        self.stacks = Columns(d["stacks"])
        self.samples = Columns(d["samples"])
        self.slices = Columns(d["slices"])

    def text(self, s):
        """The string with id s."""
        return self.strings[s]

    def function(self, frame):
        """The function name of a frame."""
        return self.strings[self.frames.function[frame]]

    def stack_frames(self, stack):
        """The frames of a stack, outermost first."""
        out = []
        parent, frame = self.stacks.parent, self.stacks.frame
        while stack:
            out.append(frame[stack])
            stack = parent[stack]
        out.reverse()
        return out

    def weights(self, sample_type=None):
        """What each row of samples adds to a total of a sample type (by name; None: the default
        one): its value times its count (a row may stand for a run of identical samples), as an
        array('Q'), or array('q') for a signed type (pprof's). With NumPy: ``values[:, t] * count``
        (``.view(np.int64)`` first for a signed type)."""
        t = self.sample_type(sample_type)
        k = len(self.sample_types)
        code = "q" if self.sample_types[t].get("signed") else "Q"
        v = self.samples.values
        flat = v.cast("B").cast(code) if v.ndim == 2 or code == "q" else v
        count = self.samples.count
        return array(code, [flat[i * k + t] * count[i] for i in range(len(count))])

    def sample_type(self, name):
        """The index of a sample type by name (the default one when name is None)."""
        if name is None:
            return self.default_type
        for i, t in enumerate(self.sample_types):
            if t["name"] == name:
                return i
        raise UsageError("no sample type %r (this profile has %s)"
                         % (name, ", ".join(t["name"] for t in self.sample_types)))

    def __repr__(self):
        return "<Profile %s %s: %d frames, %d stacks, %d threads, %d samples, %d slices>" % (
            self.format, self.version, len(self.frames), len(self.stacks), len(self.threads),
            len(self.samples), len(self.slices))
