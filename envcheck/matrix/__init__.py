"""The compatibility matrix: its rows, their index, and where they are loaded from.

Data lives in ``matrices/*.toml`` (shipped in the wheel as ``envcheck/_matrices``).
``store`` holds the rows and answers lookups (``Matrix``); ``locate`` finds and
loads the active matrix (cached); ``load`` parses and checks one file. The matrix
does not judge compatibility: that is ``envcheck.compat``.
"""

from __future__ import annotations

from envcheck.matrix.load import FRAMEWORK_FILES
from envcheck.matrix.locate import (
    ENV_MATRIX,
    RELOAD_TRIES,
    active_matrix_dir,
    bundled_dir,
    clear_cache,
    load_matrix,
    load_matrix_from,
    user_cache_root,
    user_matrix_dir,
)
from envcheck.matrix.store import DriverRequirement, Matrix

FRAMEWORKS = (*FRAMEWORK_FILES, "keras")

__all__ = [
    "ENV_MATRIX",
    "FRAMEWORKS",
    "RELOAD_TRIES",
    "DriverRequirement",
    "Matrix",
    "active_matrix_dir",
    "bundled_dir",
    "clear_cache",
    "load_matrix",
    "load_matrix_from",
    "user_cache_root",
    "user_matrix_dir",
]
