"""A compiled cache of the validated matrix, so loading it costs milliseconds.

Parsing and validating the TOML files takes ~100 ms; unpickling the frozen rows
takes ~10. After a successful load the validated ``Matrix`` is stored in the
user cache directory, one pickle per field (``gpus``, ``builds``, ...) inside a
``marshal``-ed dict, together with a key made of:

* the matrix directory (resolved) and, for each data file, its name, size,
  ``st_mtime_ns`` and the CRC-32 of its bytes (an edit that keeps size and
  mtime, e.g. within one filesystem timestamp tick, still changes the key);
* the envcheck version, the Python version, and size + mtime of the modules that
  define and validate the rows (a code change in a source checkout rebuilds it).

Reading the file unpickles nothing: each field is unpickled the first time it
is used (``Matrix.__getattr__``), so a command pays only for the rows it reads
(a doctor run on a machine with no GPU and no framework reads none).

The whole key is stored in the file and compared on load. Any problem — no cache
directory, an unreadable, truncated or foreign file, a stale key — means "no
cache": the caller re-parses and re-validates (a field that no longer unpickles
when it is first used is read from the files again).
``ENVCHECK_NO_CACHE=1`` turns the cache off.

The file is written by us into the user's own cache directory, so unpickling it
carries the same trust as the home directory itself.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional, TypeVar

from envcheck.inputs import is_regular_file

T = TypeVar("T")

if TYPE_CHECKING:
    from envcheck.matrix import Matrix

ENV_NO_CACHE = "ENVCHECK_NO_CACHE"
CACHE_FORMAT = 2
"""Bump when the pickled layout changes in a way the key would not notice."""


def cache_dir() -> Optional[Path]:
    """``<user cache>/envcheck/compiled``; None when it cannot be determined."""
    from envcheck.matrix import user_cache_root

    try:
        return user_cache_root() / "compiled"
    except Exception:  # noqa: BLE001 - no cache is always acceptable
        return None


def cache_key(directory: Path, files: Mapping[str, Path]) -> Optional[str]:
    """The key of a matrix directory's current contents; None when unreadable."""
    import envcheck
    from envcheck.matrix import load, rows, validate

    parts = [
        f"format {CACHE_FORMAT}",
        f"envcheck {envcheck.__version__}",
        f"python {sys.version}",
    ]
    try:
        parts.append(f"dir {directory.resolve()}")
        for domain in sorted(files):
            path = files[domain]
            if not is_regular_file(path):  # a FIFO would block; the loader refuses it
                return None
            data = path.read_bytes()
            st = path.stat()
            parts.append(f"{domain} {st.st_size} {st.st_mtime_ns} {zlib.crc32(data):08x}")
        for module in (load, rows, validate):
            code = Path(str(module.__file__))
            st = code.stat()
            parts.append(f"{code.name} {st.st_size} {st.st_mtime_ns}")
    except (OSError, TypeError, ValueError):
        return None
    return "\n".join(parts)


def cache_file(directory: Path, root: Optional[Path] = None) -> Optional[Path]:
    """One cache file per matrix directory (a new key overwrites the old file)."""
    root = cache_dir() if root is None else root
    if root is None:
        return None
    try:
        name = str(directory.resolve())
    except OSError:
        return None
    return root / f"matrix-{zlib.crc32(name.encode('utf-8', 'surrogateescape')):08x}.pickle"


EAGER_FIELDS = ("data_version", "location", "file_versions")
"""Fields stored as plain values (marshal), not pickled: every command reads them."""
MAGIC = "envcheck compiled matrix"


class LazyFields:
    """The pickled fields of a cached matrix, unpickled on first use (``Matrix.__getattr__``)."""

    def __init__(self, pending: dict[str, bytes], location: str) -> None:
        self.pending = pending
        self.location = location

    def load(self, name: str) -> Any:
        import pickle

        # Unpickling allocates thousands of objects and none of them is garbage:
        # the cyclic collector's passes meanwhile cost ~15% of the load.
        collecting = gc.isenabled()
        gc.disable()
        try:
            value = pickle.loads(self.pending[name])
        except Exception:  # noqa: BLE001 - checked below
            value = None
        finally:
            if collecting:
                gc.enable()
        if not isinstance(value, (tuple, dict)):
            # A file that passed the key check but does not unpickle (cannot
            # happen short of tampering): the field from the files themselves.
            from envcheck.matrix import load_matrix_from

            value = getattr(load_matrix_from(Path(self.location)), name)
        # The pickle stays in ``pending``: a thread that asked for the field while
        # this one unpickled it must still find it (it unpickles it again).
        return value


def read_cache(path: Path, key: str) -> Optional[Matrix]:
    """The cached matrix when ``path`` holds one stored under ``key``; else None.

    Only the file is read here; its fields are unpickled on first use."""
    import marshal

    from envcheck.matrix import Matrix

    if not is_regular_file(path):  # missing, or a FIFO/device that would block
        return None
    try:
        with path.open("rb") as fh:
            stored = marshal.loads(fh.read())
    except Exception:  # noqa: BLE001 - missing, truncated, foreign or stale: re-parse
        return None
    if (
        not isinstance(stored, tuple)
        or len(stored) != 3
        or stored[0] != MAGIC
        or stored[1] != key
        or not isinstance(stored[2], dict)
    ):
        return None
    fields: dict[str, Any] = stored[2]
    names = Matrix.__record_fields__  # type: ignore[attr-defined]
    if set(fields) != set(names) or not all(
        isinstance(fields[name], bytes) for name in names if name not in EAGER_FIELDS
    ):
        return None
    location = fields["location"]
    if not isinstance(fields["data_version"], str) or not isinstance(location, str):
        return None
    matrix: Matrix = Matrix.__new__(Matrix)
    pending = {}
    for name in names:
        if name in EAGER_FIELDS:
            object.__setattr__(matrix, name, fields[name])
        else:
            pending[name] = fields[name]
    object.__setattr__(matrix, "_lazy", LazyFields(pending, location))
    return matrix


def write_atomic(path: Path, make: Callable[[], bytes]) -> bool:
    """Write ``make()`` to ``path`` through a temporary file and a rename; False (and
    no file left behind) when that fails: a cache that cannot be written is not used."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        data = make()
        path.parent.mkdir(parents=True, exist_ok=True)
        with tmp.open("wb") as fh:
            fh.write(data)
        tmp.replace(path)
    except Exception:  # noqa: BLE001 - a cache we cannot write is simply not used
        with contextlib.suppress(OSError):
            tmp.unlink()
        return False
    return True


def write_cache(path: Path, key: str, matrix: Matrix) -> bool:
    """Store ``matrix`` under ``key`` atomically; False (and no file) on failure."""
    import marshal
    import pickle

    def data() -> bytes:
        # Pickle a private copy in which equal values are one object, so each
        # field's pickle stores (and a load rebuilds) each string and version once.
        copy = pickle.loads(pickle.dumps(matrix, protocol=pickle.HIGHEST_PROTOCOL))
        copy = _share_equal_values(copy, {})
        fields: dict[str, Any] = {}
        for name in getattr(copy, "__record_fields__", ()):
            value = getattr(copy, name)
            if name in EAGER_FIELDS:
                fields[name] = dict(value) if isinstance(value, Mapping) else value
            else:
                fields[name] = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        return marshal.dumps((MAGIC, key, fields))

    if not write_atomic(path, data):
        return False
    prune_cache(path.parent, keep=path.name)
    return True


KEEP_FILES = 8
"""Compiled matrices kept (newest first): one per matrix directory in use, and
each installed update is a new directory, so without a bound they pile up."""
STALE_TMP_SECONDS = 3600.0


def prune_cache(root: Path, keep: str = "", limit: int = KEEP_FILES) -> list[str]:
    """Remove all but the ``limit`` newest compiled matrices (``keep``, the one
    just written, always stays) and temporary files a killed writer left long
    ago; returns the names removed."""
    import time

    pickles: list[tuple[float, Path]] = []
    doomed: list[Path] = []
    now = time.time()
    try:
        for item in root.iterdir():
            name = item.name
            if name.startswith("matrix-") and name.endswith(".pickle") and name != keep:
                pickles.append((item.stat().st_mtime, item))
            elif (
                name.startswith(".matrix-")
                and name.endswith(".tmp")
                and now - item.stat().st_mtime > STALE_TMP_SECONDS
            ):
                doomed.append(item)
    except OSError:
        return []
    pickles.sort(key=lambda entry: entry[0], reverse=True)
    room = max(0, limit - (1 if keep else 0))
    doomed.extend(item for _, item in pickles[room:])
    removed = []
    for item in doomed:
        with contextlib.suppress(OSError):
            item.unlink()
            removed.append(item.name)
    return removed


def _share_equal_values(obj: Any, canon: dict[Any, Any]) -> Any:
    """``obj`` with equal immutable values (strings, versions, tuples of them)
    replaced by one shared instance. Mutates the frozen rows of ``obj`` in place:
    only for the private copy ``write_cache`` pickles."""
    from dataclasses import fields, is_dataclass

    if is_dataclass(obj) and not isinstance(obj, type):
        for f in fields(obj):
            value = getattr(obj, f.name)
            shared = _share_equal_values(value, canon)
            if shared is not value:
                object.__setattr__(obj, f.name, shared)
        return obj
    if isinstance(obj, dict):
        return {
            _share_equal_values(k, canon): _share_equal_values(v, canon) for k, v in obj.items()
        }
    if type(obj) is tuple:
        obj = tuple(_share_equal_values(item, canon) for item in obj)
    try:
        return canon.setdefault((type(obj), obj), obj)
    except TypeError:  # unhashable: kept as it is
        return obj


def through_cache(
    key: Optional[str],
    path: Optional[Path],
    read: Callable[[Path, str], Optional[T]],
    write: Callable[[Path, str, T], bool],
    build: Callable[[], T],
) -> T:
    """The compiled copy at ``path`` when its ``key`` matches, else ``build()`` (which
    raises on bad data, so nothing is cached then), written back for the next run.
    No key or no path (an unreadable file, no cache directory): just ``build()``."""
    if key is not None and path is not None:
        cached = read(path, key)
        if cached is not None:
            return cached
    value = build()
    if key is not None and path is not None:
        write(path, key, value)
    return value


def cache_disabled(env: Optional[Mapping[str, str]] = None) -> bool:
    env = os.environ if env is None else env
    return env.get(ENV_NO_CACHE, "") not in ("", "0")


def load_compiled(directory: Path, env: Optional[Mapping[str, str]] = None) -> Matrix:
    """Load ``directory`` through the compiled cache (parse and validate on a miss)."""
    from envcheck.matrix import load_matrix_from
    from envcheck.matrix.load import matrix_dir_files

    if cache_disabled(env):
        return load_matrix_from(directory)
    key = cache_key(directory, matrix_dir_files(directory))
    path = None if key is None else cache_file(directory)
    return through_cache(key, path, read_cache, write_cache, lambda: load_matrix_from(directory))
