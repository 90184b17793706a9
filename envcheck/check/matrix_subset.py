"""Load only the matrix files a check needs (pre-commit runs it on every commit).

``envcheck check`` needs the framework files of the frameworks pinned, the
driver tables (for a declared minimum driver) and the GPU table (for GPU names
in ``[tool.envcheck]``); not cuDNN or nvcc tables, nor frameworks nobody pins.
Rows are validated by the same ``read_domain`` as the full loader; the
cross-file invariants are checked wherever the full matrix is loaded.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from envcheck.errors import InputError
from envcheck.matrix import Matrix, active_matrix_dir
from envcheck.matrix.load import FRAMEWORK_FILES, matrix_dir_files, read_domain

ALWAYS = ("cuda_driver", "driver_branches")


def load_check_matrix(frameworks: Iterable[str], gpu_names: bool) -> Matrix:
    """The active matrix restricted to what ``check_pins`` asks about."""
    directory = active_matrix_dir()
    files = matrix_dir_files(directory)
    if not files:
        raise InputError(str(directory), None, "no matrix files (*.toml) found")
    wanted = [*ALWAYS, *(["gpus"] if gpu_names else [])]
    wanted += [f for f in FRAMEWORK_FILES if f in set(frameworks)]
    kinds: dict[str, Any] = {"builds": {}}
    versions: dict[str, str] = {}
    for domain in wanted:
        path = files.get(domain)
        if path is None:
            continue
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
