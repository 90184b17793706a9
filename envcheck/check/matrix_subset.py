"""Load only the matrix files a check needs (pre-commit runs it on every commit).

``envcheck check`` needs the framework files of the frameworks pinned, the
driver tables (for a declared minimum driver) and the GPU table (for GPU names
in ``[tool.envcheck]``); not cuDNN or nvcc tables, nor frameworks nobody pins.
Rows are validated by the same ``read_domain`` as the full loader; the
cross-file invariants are checked wherever the full matrix is loaded.

Parsing TOML is most of a check's time, so the validated rows are kept in the
user cache directory, keyed by each file's path, size and mtime and by the
envcheck sources that define the rows; any change rebuilds them, and a cache
that cannot be read or written is ignored.
"""

from __future__ import annotations

import sys
import zlib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Optional

from envcheck.errors import InputError
from envcheck.matrix import Matrix, active_matrix_dir
from envcheck.matrix.load import FRAMEWORK_FILES, matrix_dir_files, read_domain

ALWAYS = ("cuda_driver", "driver_branches")
ENV_NO_CACHE = "ENVCHECK_NO_CACHE"


def load_check_matrix(
    frameworks: Iterable[str], gpu_names: bool, env: Optional[Mapping[str, str]] = None
) -> Matrix:
    """The active matrix restricted to what ``check_pins`` asks about."""
    import os

    env = os.environ if env is None else env
    directory = active_matrix_dir(env)
    files = matrix_dir_files(directory)
    if not files:
        raise InputError(str(directory), None, "no matrix files (*.toml) found")
    wanted = [*ALWAYS, *(["gpus"] if gpu_names else [])]
    wanted += [f for f in FRAMEWORK_FILES if f in set(frameworks)]
    paths = [files[d] for d in wanted if d in files]
    cache = None if env.get(ENV_NO_CACHE) else _cache_file(paths)
    if cache is not None:
        cached = _read_cache(*cache)
        if cached is not None:
            return cached
    matrix = _load(directory, paths)
    if cache is not None:
        _write_cache(*cache, matrix)
    return matrix


def _load(directory: Path, paths: list[Path]) -> Matrix:
    kinds: dict[str, Any] = {"builds": {}}
    versions: dict[str, str] = {}
    for path in paths:
        domain = path.stem
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(str(path), None, f"cannot read matrix file: {exc}") from None
        data_version, rows = read_domain(domain, text, str(path))
        versions[domain] = data_version
        if "builds" in rows:
            kinds["builds"][domain] = tuple(rows.pop("builds"))
        for key, value in rows.items():
            kinds[key] = tuple(value)
    return Matrix(
        data_version=max(versions.values()) if versions else "unknown",
        location=str(directory),
        file_versions=versions,
        **kinds,
    )


def _cache_file(paths: list[Path]) -> Optional[tuple[Path, str]]:
    import envcheck
    from envcheck.matrix import load, rows

    key = f"{envcheck.__version__} {sys.version}\n"
    try:
        for path in (*paths, Path(rows.__file__), Path(load.__file__)):
            st = path.stat()
            key += f"{path.resolve()} {st.st_size} {st.st_mtime_ns}\n"
        import platformdirs

        root = Path(platformdirs.user_cache_dir("envcheck"))
    except (OSError, TypeError):
        return None
    # The file name only spreads keys; the whole key is stored and compared on load.
    return root / "check" / f"matrix-{zlib.crc32(key.encode()):08x}.pickle", key


def _read_cache(path: Path, key: str) -> Optional[Matrix]:
    import pickle

    try:
        with path.open("rb") as fh:
            # Our own file in the user's cache directory (same trust as the home dir).
            stored_key, value = pickle.load(fh)
    except Exception:  # noqa: BLE001 - a missing or stale cache is rebuilt
        return None
    return value if stored_key == key and isinstance(value, Matrix) else None


def _write_cache(path: Path, key: str, matrix: Matrix) -> None:
    import os
    import pickle

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        with tmp.open("wb") as fh:
            pickle.dump((key, matrix), fh, protocol=pickle.HIGHEST_PROTOCOL)
        tmp.replace(path)
    except (OSError, pickle.PicklingError):
        return
