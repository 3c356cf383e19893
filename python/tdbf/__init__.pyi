# Type stubs of the tdbf package (the Filter type lives in tdbf._tdbf).
import datetime
import os
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Type, TypeVar, Union

Key = Union[bytes, bytearray, memoryview, str, Any]
"""bytes, str (hashed as UTF-8) or any C-contiguous buffer."""
Window = Union[int, float, str, datetime.timedelta]
"""int: a count of insertions; str ('10m'), float seconds, timedelta: a time."""
Now = Union[int, float, datetime.datetime, None]
"""Seconds on the caller's scale (e.g. Unix time), a datetime, or None: the clock."""
PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]

_F = TypeVar("_F", bound="Filter")
_T = TypeVar("_T")

__version__: str
simd: str

class Error(Exception):
    """Corrupt, truncated or foreign filter data, or an unsupported operation."""
    code: int

class FullError(Error):
    """An add refused: the filter is past max_error_ratio x its error target."""
    answers: Optional[List[bool]]

class Filter:
    def __init__(
        self,
        window: Window,
        error: float = 0.01,
        *,
        design: Optional[str] = None,
        seed: Optional[int] = None,
        capacity: Optional[int] = None,
        max_memory: Optional[int] = None,
        k: Optional[int] = None,
        l: Optional[int] = None,
        max_error_ratio: Optional[float] = 1.5,
    ) -> None: ...
    @property
    def max_error_ratio(self) -> float: ...
    @max_error_ratio.setter
    def max_error_ratio(self, ratio: Optional[float]) -> None: ...
    def add(self, key: Key, /, now: Now = None, *, now_ns: Optional[int] = None) -> bool: ...
    def contains(self, key: Key, /, now: Now = None, *, now_ns: Optional[int] = None) -> bool: ...
    def __contains__(self, key: object) -> bool: ...
    def add_many(self, keys: Iterable[Key], /, now: Now = None, *,
                 now_ns: Optional[int] = None) -> List[bool]: ...
    def contains_many(self, keys: Iterable[Key], /, now: Now = None, *,
                      now_ns: Optional[int] = None) -> List[bool]: ...
    def advance(self, /, now: Now = None, *, now_ns: Optional[int] = None) -> None: ...
    def current_error(self, /, now: Now = None, *, now_ns: Optional[int] = None) -> float: ...
    def stats(self) -> Dict[str, Any]: ...
    def copy(self: _F) -> _F: ...
    def clear(self) -> None: ...
    def posterior(self, key: Key, universe: float, now: Now = None, *, model: str = ...,
                  exponent: float = ..., key_probability: Optional[float] = ...,
                  now_ns: Optional[int] = ...) -> float: ...
    def expected_age(self, key: Key, universe: float, now: Now = None, *, model: str = ...,
                     exponent: float = ..., key_probability: Optional[float] = ...,
                     now_ns: Optional[int] = ...) -> float: ...
    def to_bytes(self) -> bytes: ...
    def save(self, path: PathLike, /) -> None: ...
    @classmethod
    def from_bytes(cls: Type[_F], data: Union[bytes, bytearray, memoryview], /) -> _F: ...
    @classmethod
    def load(cls: Type[_F], path: PathLike, /) -> _F: ...
    @property
    def design(self) -> str: ...
    @property
    def window(self) -> Union[int, float]: ...
    @property
    def time_window(self) -> bool: ...
    @property
    def error(self) -> float: ...
    @property
    def seed(self) -> int: ...

def load(path: PathLike) -> Filter: ...
def plan(window: Window, error: float = 0.01, design: Optional[str] = None, *,
         capacity: Optional[int] = None, block_bits: Optional[int] = None) -> Dict[str, Any]: ...
def designs() -> List[str]: ...
def parse_duration(text: str, /) -> float: ...
def dedup(
    iterable: Iterable[_T],
    window: Optional[Window] = None,
    error: float = 0.01,
    key: Optional[Callable[[_T], Key]] = None,
    *,
    time: Optional[Callable[[_T], Now]] = None,
    design: Optional[str] = None,
    seed: Optional[int] = None,
    capacity: Optional[int] = None,
    filter: Optional[Filter] = None,
) -> Iterator[_T]: ...
