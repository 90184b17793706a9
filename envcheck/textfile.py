"""Reading a user's text file safely: size limit, binary refused, UTF-8 with line.

Kept free of heavy imports: ``envcheck check`` (a pre-commit hook) and the
snapshot loader both use it.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Union

from envcheck.errors import InputError

DEFAULT_LIMIT = 16 * 1024 * 1024


def read_text_file(path: Union[str, Path], what: str = "file", limit: int = DEFAULT_LIMIT) -> str:
    """Read a UTF-8 text file (``-`` is stdin); every failure is an InputError
    naming the file (and the line of the first invalid byte)."""
    shown = str(path)
    try:
        if shown == "-":
            data = sys.stdin.buffer.read(limit + 1)
        else:
            with Path(path).open("rb") as fh:
                data = fh.read(limit + 1)
    except FileNotFoundError:
        raise InputError(shown, None, f"{what} not found") from None
    except IsADirectoryError:
        raise InputError(shown, None, f"{what} is a directory") from None
    except PermissionError:
        raise InputError(shown, None, "permission denied") from None
    except OSError as exc:
        raise InputError(shown, None, exc.strerror or str(exc)) from None
    if len(data) > limit:
        raise InputError(shown, None, f"{what} is larger than {limit // 1024 // 1024} MiB")
    if b"\x00" in data:
        raise InputError(shown, None, f"{what} is binary, not text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(shown, line, "not valid UTF-8 text") from None
