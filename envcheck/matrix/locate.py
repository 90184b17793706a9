"""Where the active matrix lives and how it is loaded (cached per directory).

``ENVCHECK_MATRIX`` (``bundled`` or a directory), then an installed update, then
the matrix shipped with envcheck.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Optional

from envcheck.errors import InputError
from envcheck.matrix.load import DOMAINS, matrix_dir_files, read_domain
from envcheck.matrix.store import Matrix, _gpu_index

ENV_MATRIX = "ENVCHECK_MATRIX"
"""``bundled`` forces the shipped data; a directory path uses that directory."""


def bundled_dir() -> Path:
    """The matrix shipped with envcheck (wheel) or the source checkout's ``matrices/``."""
    # The package directory itself (what importlib.resources.files("envcheck")
    # returns for an installed wheel) without importing importlib.resources and
    # zipfile on the start-up path; a zipped envcheck is not supported anyway.
    packaged = Path(__file__).resolve().parents[1] / "_matrices"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "matrices"


def user_cache_root(env: Optional[Mapping[str, str]] = None) -> Path:
    """envcheck's user cache directory (``platformdirs.user_cache_dir("envcheck")``).

    On Linux this is ``$XDG_CACHE_HOME/envcheck`` or ``~/.cache/envcheck``, computed
    here without importing platformdirs (a few ms of every command's start-up);
    other systems ask platformdirs.
    """
    import sys

    platform = sys.platform  # a variable: mypy would drop the other branch as unreachable
    if platform.startswith("linux"):
        env = os.environ if env is None else env
        xdg = env.get("XDG_CACHE_HOME", "").strip()
        base = Path(xdg) if xdg else Path(os.path.expanduser("~/.cache"))  # noqa: PTH111
        return base / "envcheck"
    import platformdirs

    return Path(platformdirs.user_cache_dir("envcheck"))


def user_matrix_dir() -> Path:
    """Where ``envcheck matrix update`` installs a downloaded matrix."""
    return user_cache_root() / "matrix" / "current"


def active_matrix_dir(env: Optional[Mapping[str, str]] = None, bundled: bool = False) -> Path:
    """Choose the matrix directory: ENVCHECK_MATRIX, then an update, then bundled."""
    env = os.environ if env is None else env
    choice = env.get(ENV_MATRIX, "").strip()
    if bundled or choice == "bundled":
        return bundled_dir()
    if choice:
        return Path(choice)
    resolved = _resolve_update(str(user_matrix_dir()))
    return resolved if resolved is not None else bundled_dir()


@functools.lru_cache(maxsize=4)
def _resolve_update(current: str) -> Optional[Path]:
    """The bundle directory an installed update's ``current`` link points to,
    resolved once per process: every file is then read from that one bundle even
    if ``matrix update`` swaps the link meanwhile."""
    try:
        real = Path(current).resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    return real if (real / "cuda_driver.toml").is_file() else None


def load_matrix_from(directory: Path) -> Matrix:
    """Load and validate every domain file in ``directory``."""
    files = matrix_dir_files(directory)
    if not files:
        raise InputError(str(directory), None, "no matrix files (*.toml) found")
    kinds: dict[str, Any] = {"builds": {}}
    versions: dict[str, str] = {}
    for domain in DOMAINS:
        path = files.get(domain)
        if path is None:
            continue
        from envcheck.inputs import LIMITS, read_text

        text = read_text(path, "matrix file", LIMITS["matrix"])
        data_version, rows = read_domain(domain, text, str(path))
        versions[domain] = data_version
        if "builds" in rows:
            kinds["builds"][domain] = tuple(rows.pop("builds"))
        for key, value in rows.items():
            # nvidia_pins come from several framework files: gather them all.
            kinds[key] = kinds.get(key, ()) + tuple(value)
    matrix = Matrix(
        data_version=max(versions.values()),
        location=str(directory),
        file_versions=versions,
        **kinds,
    )
    from envcheck.matrix.validate import check_invariants

    check_invariants(matrix)
    return matrix


@functools.lru_cache(maxsize=4)
def _load_cached(directory: str) -> Matrix:
    from envcheck.matrix.cache import load_compiled

    return load_compiled(Path(directory))


def load_matrix(directory: Optional[Path] = None, bundled: bool = False) -> Matrix:
    """The active matrix: cached per directory in the process, and on disk as a
    compiled (pickled) copy keyed by the files' size, mtime and CRC (see ``cache``)."""
    if directory is not None:
        return _load_cached(str(directory))
    target = active_matrix_dir(bundled=bundled)
    for _ in range(RELOAD_TRIES):
        try:
            return _load_cached(str(target))
        except InputError:
            # The bundle resolved at start-up may have been swapped out and
            # removed by a concurrent `matrix update`: resolve `current` again.
            _resolve_update.cache_clear()
            again = active_matrix_dir(bundled=bundled)
            if again == target:
                raise
            target = again
    return _load_cached(str(target))


RELOAD_TRIES = 5
"""Times a load follows `current` to a newer bundle when the one it was reading
was removed under it (each try needs another concurrent update to fail)."""


def clear_cache() -> None:
    _load_cached.cache_clear()
    _resolve_update.cache_clear()
    _gpu_index.cache_clear()
