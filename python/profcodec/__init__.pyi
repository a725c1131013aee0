# Type stubs of the profcodec package: the module API (written by hand, as the API is).
import os
from array import array
from types import SimpleNamespace
from typing import IO, Any, Iterable, Iterator, Mapping, Sequence, Union

# (each format version's module, profcodec.mojo_v3 and the others, has a stub of its own beside
# this one, generated from its schema)

Source = Union[str, bytes, os.PathLike[str], os.PathLike[bytes], IO[bytes]]
Output = Union[str, bytes, os.PathLike[str], os.PathLike[bytes], IO[bytes], None]

NONE: int
FRAME_KINDS: tuple[str, ...]

class Error(Exception): ...

class DamagedInput(Error):
    message: str
    file: str | None
    offset: int | None
    path: str | None
    expected: str | None
    found: str | None
    status: str | None
    region: str | None
    region_offset: int | None
    records: int
    errors: list[DamagedInput]
    output: bytes | None
    profile: Profile | None

class LimitError(DamagedInput): ...
class UsageError(Error, ValueError): ...
class NothingToShow(Error): ...
class InputWarning(UserWarning): ...

class Record:
    """A record, or a value inside one: immutable, its fields as attributes."""
    @property
    def _kind(self) -> str | None: ...
    @property
    def _offset(self) -> int | None: ...
    @property
    def _tag(self) -> int | None: ...
    def to_dict(self) -> dict[str, Any]: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class Reader(Iterator[Record]):
    format: str
    version: str
    title: str
    schema: Any
    header: Record
    metadata: dict[str, Any]
    records: int
    damage: list[DamagedInput]
    source: Any
    def __iter__(self) -> Reader: ...
    def __next__(self) -> Record: ...
    def __enter__(self) -> Reader: ...
    def __exit__(self, *exc: object) -> bool: ...
    def close(self) -> None: ...
    def validate(self, all: bool = ..., strict: bool = ...) -> SimpleNamespace: ...
    def profile(self, times: bool = ..., *, metric: str | None = ...) -> Profile: ...

class Columns:
    def __len__(self) -> int: ...
    def __getattr__(self, name: str) -> memoryview: ...

class Profile:
    format: str
    version: str
    dialect: str
    strings: list[str]
    frames: Columns
    stacks: Columns
    samples: Columns
    slices: Columns
    threads: list[dict[str, Any]]
    sample_types: list[dict[str, Any]]
    metadata: list[tuple[str, str]]
    time_origin: int | None
    duration: int | None
    period: int
    period_type: int | None
    default_type: int
    def __init__(self, d: Mapping[str, Any]) -> None: ...
    def text(self, s: int) -> str: ...
    def function(self, frame: int) -> str: ...
    def stack_frames(self, stack: int) -> list[int]: ...
    def sample_type(self, name: str | None) -> int: ...
    def weights(self, sample_type: str | None = ...) -> array[int]: ...

def open(source: Source, format: str | None = ..., *, all: bool = ..., max_memory: int | str | None = ...,
         threads: bool = ...) -> Reader: ...
def validate(source: Source, format: str | None = ..., *, all: bool = ..., strict: bool = ...,
             max_memory: int | str | None = ..., threads: bool = ...) -> SimpleNamespace: ...
def convert(source: Source, to: str, output: Output = ..., *, format: str | None = ..., all: bool = ...,
            metric: str | None = ..., dialect: str | None = ..., heph_compat: bool = ..., compat: bool = ...,
            compression: str | None = ..., base: Source | None = ..., force: bool = ..., raw: bool = ...,
            max_memory: int | str | None = ..., threads: bool = ..., version: str | None = ...) -> bytes | None: ...
def merge(sources: Iterable[Source], to: str, output: Output = ..., *, all: bool = ..., metric: str | None = ...,
          dialect: str | None = ..., force: bool = ..., max_memory: int | str | None = ...,
          threads: bool = ...) -> bytes | None: ...
def encode(records: Iterable[Record | Mapping[str, Any]], output: Output = ..., format: str | None = ..., *,
           byte_order: str | None = ..., partial: bool = ..., max_memory: int | str | None = ...) -> bytes | None: ...
def formats() -> list[dict[str, Any]]: ...
def schema(name: str) -> Any: ...
