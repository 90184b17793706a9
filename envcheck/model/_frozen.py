"""``@record``: frozen dataclass-compatible types that are cheap to define.

``@dataclass(frozen=True)`` compiles six methods per class with ``exec`` and
imports ``inspect`` (with ``ast``, ``dis`` and ``tokenize``) when the module is
imported; for the snapshot and matrix row types that was a measurable share of
every command's start-up. ``record`` compiles one ``__init__`` per class,
compiles ``__eq__``/``__hash__`` the first time an instance is compared or
hashed, and shares generic ``__repr__``/``__setattr__``, with the
behaviour of a frozen dataclass: fields compared in order, only instances of
the same class equal, ``Name(field=value, ...)``, assignment raises
``dataclasses.FrozenInstanceError``, ``__post_init__`` is called.

The result is still a dataclass to the ``dataclasses`` module (``fields``,
``replace``, ``asdict``, ``is_dataclass``): its ``__dataclass_fields__`` are
built on first use, which is also the first time ``dataclasses`` is imported.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Any, Callable, TypeVar

    from typing_extensions import dataclass_transform

    T = TypeVar("T")
else:

    def dataclass_transform(**kwargs):
        """Type checkers only: ``record`` makes frozen dataclasses."""
        return lambda f: f


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


_MISSING: Any = _Missing()


class _Factory:
    __slots__ = ("factory",)

    def __init__(self, factory: Callable[[], Any]) -> None:
        self.factory = factory


def field(*, default_factory: Callable[[], T]) -> T:
    """A field whose default is made per instance (like ``dataclasses.field``)."""
    made: T = _Factory(default_factory)  # type: ignore[assignment]
    return made


def replace(obj: T, **changes: Any) -> T:
    """``dataclasses.replace`` for a record, without importing ``dataclasses``."""
    names = obj.__record_fields__  # type: ignore[attr-defined]
    unknown = sorted(set(changes) - set(names))
    if unknown:
        raise TypeError(f"{obj.__class__.__qualname__} has no field {unknown[0]!r}")
    values = {name: getattr(obj, name) for name in names}
    values.update(changes)
    made: T = obj.__class__(**values)
    return made


def _eq_hash(owner: Any) -> tuple[Callable[[Any, Any], Any], Callable[[Any], int]]:
    """``__eq__`` and ``__hash__`` for ``owner`` that compile themselves on first
    use: a class never compared or hashed costs no ``exec``, and a hot one (the
    resolver compares candidate builds ~100k times per plan) gets the same
    attribute-by-attribute code a dataclass has."""

    def __eq__(self: Any, other: Any) -> Any:
        return _compile(owner, "__eq__")(self, other)

    def __hash__(self: Any) -> int:
        result: int = _compile(owner, "__hash__")(self)
        return result

    return __eq__, __hash__


def _compile(owner: Any, method: str) -> Callable[..., Any]:
    names = owner.__record_fields__
    mine = "".join(f"self.{name}," for name in names)
    if method == "__eq__":
        theirs = "".join(f"other.{name}," for name in names)
        source = (
            "def __eq__(self, other):\n"
            "    if other.__class__ is self.__class__:\n"
            f"        return ({mine}) == ({theirs})\n"
            "    return NotImplemented\n"
        )
    else:
        source = f"def __hash__(self):\n    return hash(({mine}))\n"
    env: dict[str, Any] = {}
    exec(source, env)  # noqa: S102 - generated from the class's own field names
    fn: Callable[..., Any] = env[method]
    fn.__qualname__ = f"{owner.__qualname__}.{method}"
    type.__setattr__(owner, method, fn)
    return fn


def _repr(self: Any) -> str:
    inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__record_fields__)
    return f"{self.__class__.__qualname__}({inner})"


def _frozen(self: Any, name: str, value: Any = None) -> None:
    from dataclasses import FrozenInstanceError

    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_del(self: Any, name: str) -> None:
    from dataclasses import FrozenInstanceError

    raise FrozenInstanceError(f"cannot delete field {name!r}")


class _DataclassFields:
    """``__dataclass_fields__``, made (with real ``dataclasses.Field`` objects)
    the first time something asks for it."""

    def __get__(self, obj: Any, owner: Any = None) -> dict[str, Any]:
        import dataclasses

        cls = owner if owner is not None else type(obj)
        made = cls.__dict__.get("_record_dc_fields")
        if made is None:
            made = {}
            for name, annotation, default in cls.__record_spec__:
                if isinstance(default, _Factory):
                    f = dataclasses.field(default_factory=default.factory)
                elif default is _MISSING:
                    f = dataclasses.field()
                else:
                    f = dataclasses.field(default=default)
                f.name = name
                f.type = annotation
                f._field_type = dataclasses._FIELD  # type: ignore[attr-defined]
                made[name] = f
            type.__setattr__(cls, "_record_dc_fields", made)
        return made


def _is_classvar(annotation: Any) -> bool:
    text = annotation if isinstance(annotation, str) else repr(annotation)
    return text.startswith(("ClassVar", "typing.ClassVar", "t.ClassVar"))


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def record(cls: type[T]) -> type[T]:
    """Make ``cls`` a frozen record (see the module docstring)."""
    # The class's own annotations (strings: every module using this has the
    # annotations future import); Python 3.14 computes them on access instead.
    annotations = cls.__dict__.get("__annotations__")  # noqa: RUF063
    if annotations is None:
        annotations = getattr(cls, "__annotations__", {})
    spec: list[tuple[str, Any, Any]] = []
    for name, annotation in annotations.items():
        if _is_classvar(annotation):
            continue
        default = cls.__dict__.get(name, _MISSING)
        if spec and spec[-1][2] is not _MISSING and default is _MISSING:
            raise TypeError(f"non-default field {name!r} follows a default field")
        spec.append((name, annotation, default))
        if default is not _MISSING:
            delattr(cls, name)  # like dataclasses for factories; plain defaults stay
            if not isinstance(default, _Factory):
                setattr(cls, name, default)
    names = [name for name, _, _ in spec]
    params = []
    body = []
    env: dict[str, Any] = {"_set": object.__setattr__, "_MISSING": _MISSING}
    for name, _, default in spec:
        if default is _MISSING:
            params.append(name)
        elif isinstance(default, _Factory):
            env[f"_f_{name}"] = default.factory
            params.append(f"{name}=_MISSING")
            body.append(f"    if {name} is _MISSING: {name} = _f_{name}()")
        else:
            env[f"_d_{name}"] = default
            params.append(f"{name}=_d_{name}")
        body.append(f"    _set(self, {name!r}, {name})")
    if "__post_init__" in dir(cls):
        body.append("    self.__post_init__()")
    if not body:
        body.append("    pass")
    source = f"def __init__(self, {', '.join(params)}):\n" + "\n".join(body) + "\n"
    exec(source, env)  # noqa: S102 - generated from the class's own field names
    init = env["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    out: Any = cls
    out.__init__ = init
    out.__record_fields__ = tuple(names)
    out.__record_spec__ = tuple(spec)
    out.__dataclass_fields__ = _DataclassFields()
    own = cls.__dict__
    eq, hash_ = _eq_hash(out)
    if "__eq__" not in own:
        out.__eq__ = eq
    if "__hash__" not in own or own["__hash__"] is None:
        out.__hash__ = hash_
    if "__repr__" not in own:
        out.__repr__ = _repr
    out.__setattr__ = _frozen
    out.__delattr__ = _frozen_del
    made: type[T] = out
    return made
