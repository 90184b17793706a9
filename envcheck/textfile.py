"""Reading a user's text file safely (kept for its callers; the gate is
:mod:`envcheck.inputs`): regular files only, size limit, binary refused,
UTF-8 / UTF-8-BOM / UTF-16 with BOM, errors naming the line.

Kept free of heavy imports: ``envcheck check`` (a pre-commit hook) and the
snapshot loader both use it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Union

from envcheck.inputs import DEFAULT_LIMIT, read_text

__all__ = ["DEFAULT_LIMIT", "read_text_file"]


def read_text_file(path: Union[str, Path], what: str = "file", limit: int = DEFAULT_LIMIT) -> str:
    """Read a text file (``-`` is stdin); every failure is an InputError
    naming the file (and the line of the first invalid byte)."""
    return read_text(path, what, limit)
