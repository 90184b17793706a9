"""``@record``: a frozen dataclass that costs less to define.

``@dataclass(frozen=True)`` compiles six methods per class with ``exec`` when the
module is imported (``__init__``, ``__repr__``, ``__eq__``, ``__hash__``,
``__setattr__``, ``__delattr__``); for the snapshot and matrix row types that is
a measurable share of every command's start-up. ``record`` lets dataclasses
compile only ``__init__`` and the two frozen guards and attaches shared, generic
``__eq__``/``__hash__``/``__repr__`` with the same behaviour (fields compared in
order, only instances of the same class equal, ``Name(field=value, ...)``).
The result is still a dataclass: ``fields``, ``replace``, ``asdict`` and pickle
work as before.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Callable, TypeVar

T = TypeVar("T")

if TYPE_CHECKING:
    from typing_extensions import dataclass_transform
else:

    def dataclass_transform(**kwargs: Any) -> Callable[[T], T]:
        """Type checkers only: ``record`` makes frozen dataclasses."""
        return lambda f: f


def _values(self: Any) -> tuple[Any, ...]:
    return tuple([getattr(self, name) for name in self.__record_fields__])


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is self.__class__:
        return _values(self) == _values(other)
    return NotImplemented


def _hash(self: Any) -> int:
    return hash(_values(self))


def _repr(self: Any) -> str:
    inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__record_fields__)
    return f"{self.__class__.__qualname__}({inner})"


@dataclass_transform(frozen_default=True)
def record(cls: type[T]) -> type[T]:
    """Make ``cls`` a frozen dataclass with shared comparison and repr methods."""
    out: Any = dataclass(frozen=True, eq=False, repr=False)(cls)
    out.__record_fields__ = tuple(f.name for f in fields(out))
    own = out.__dict__
    if "__eq__" not in own:
        out.__eq__ = _eq
    if "__hash__" not in own or own["__hash__"] is None:
        out.__hash__ = _hash
    if "__repr__" not in own:
        out.__repr__ = _repr
    made: type[T] = out
    return made
