"""Hand-written JSON (de)serialisation for the frozen model types.

Each model class lists its fields once in ``_FIELDS`` as ``(name, kind)`` pairs; this
module turns that list into ``to_json`` and ``from_json``. It deliberately does not
use ``typing.get_type_hints`` (which fails on Python 3.9 for ``X | None``).

Kinds: ``str``, ``int``, ``bool``, ``float``, a model class (nested object),
``Many(cls)`` (a JSON array of a model class), ``Many(str)`` (an array of strings)
and ``STR_MAP`` (an object of string to string).
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from typing import Any, Optional, TypeVar

from envcheck.errors import InputError


class Many:
    """Field kind: a JSON array whose items are of ``item`` kind. ``optional``: a
    missing or null array is None (not looked for), apart from an empty one
    (looked for, none found)."""

    __slots__ = ("item", "optional")

    def __init__(self, item: Any, optional: bool = False) -> None:
        self.item = item
        self.optional = optional


STR_MAP = "str-map"
OPT_STR_MAP = "optional-str-map"
"""An object of string to string-or-null: null is a known key whose value is
unknown (a package installed in an unknown version)."""

T = TypeVar("T")


def frozen_map(data: Optional[Mapping[str, Any]] = None) -> Mapping[str, Any]:
    """A read-only, key-sorted mapping (so JSON output is stable)."""
    return types.MappingProxyType(dict(sorted((data or {}).items())))


def _type_name(value: object) -> str:
    if value is None:
        return "null"
    return {
        bool: "boolean",
        int: "integer",
        float: "number",
        str: "string",
        list: "array",
        dict: "object",
    }.get(type(value), type(value).__name__)


class SchemaError(InputError):
    """A JSON document does not match the model; names the JSON path."""

    def __init__(self, path: str, message: str, source: Optional[str] = None) -> None:
        super().__init__(source, None, f"{path}: {message}" if path else message)


def _load_value(kind: Any, value: Any, path: str) -> Any:
    if kind is bool:
        if not isinstance(value, bool):
            raise SchemaError(path, f"expected a boolean, got {_type_name(value)}")
        return value
    if kind is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise SchemaError(path, f"expected an integer, got {_type_name(value)}")
        return value
    if kind is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise SchemaError(path, f"expected a number, got {_type_name(value)}")
        return float(value)
    if kind is str:
        if not isinstance(value, str):
            raise SchemaError(path, f"expected a string, got {_type_name(value)}")
        return value
    if kind in (STR_MAP, OPT_STR_MAP):
        if not isinstance(value, dict):
            raise SchemaError(path, f"expected an object, got {_type_name(value)}")
        for k, v in value.items():
            if v is None and kind == OPT_STR_MAP:
                continue
            if not isinstance(v, str):
                raise SchemaError(f"{path}.{k}", f"expected a string, got {_type_name(v)}")
        return frozen_map(value)
    if isinstance(kind, Many):
        if not isinstance(value, list):
            raise SchemaError(path, f"expected an array, got {_type_name(value)}")
        return tuple(_load_value(kind.item, item, f"{path}[{i}]") for i, item in enumerate(value))
    # a nested model class
    return kind.from_json(value, path)


def _dump_value(kind: Any, value: Any) -> Any:
    if value is None:
        return None
    if kind in (STR_MAP, OPT_STR_MAP):
        return dict(value)
    if isinstance(kind, Many):
        return [_dump_value(kind.item, v) for v in value]
    if kind in (str, int, bool, float):
        return value
    return value.to_json()


def dump_fields(obj: Any) -> dict[str, Any]:
    """Serialise a model instance to a JSON-ready dict, in field order."""
    return {name: _dump_value(kind, getattr(obj, name)) for name, kind in obj._FIELDS}


def load_fields(cls: type[T], data: Any, path: str) -> T:
    """Build ``cls`` from a JSON object; missing keys become None (or empty)."""
    if not isinstance(data, dict):
        raise SchemaError(path, f"expected an object, got {_type_name(data)}")
    kwargs: dict[str, Any] = {}
    for name, kind in cls._FIELDS:  # type: ignore[attr-defined]
        sub = f"{path}.{name}" if path else name
        value = data.get(name)
        if value is None:
            if isinstance(kind, Many):
                kwargs[name] = None if kind.optional else ()
            elif kind in (STR_MAP, OPT_STR_MAP):
                kwargs[name] = frozen_map()
            else:
                kwargs[name] = None
            continue
        kwargs[name] = _load_value(kind, value, sub)
    return cls(**kwargs)


def unknown_keys(cls: Any, data: Any, path: str = "") -> list[str]:
    """One line per key ``cls`` does not define, nested models included, with the
    closest known key (a typo in a hand-written file must not pass silently as
    an unknown fact)."""
    if not isinstance(data, dict):
        return []
    kinds = dict(cls._FIELDS)
    out: list[str] = []
    for key, value in data.items():
        sub = f"{path}.{key}" if path else str(key)
        if key not in kinds:
            import difflib  # only for a key that needs a suggestion

            close = difflib.get_close_matches(str(key), list(kinds), n=1)
            out.append(
                f"unknown key {sub!r} ignored" + (f" (did you mean {close[0]!r}?)" if close else "")
            )
            continue
        kind = kinds[key]
        if isinstance(kind, Many) and hasattr(kind.item, "_FIELDS") and isinstance(value, list):
            for i, item in enumerate(value):
                out.extend(unknown_keys(kind.item, item, f"{sub}[{i}]"))
        elif hasattr(kind, "_FIELDS"):
            out.extend(unknown_keys(kind, value, sub))
    return out
