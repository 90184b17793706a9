"""Writing a user's output file: atomically, never through a symlink, and never
over an existing file without ``--force`` (issue 16 item 3).

The text goes to a temporary file in the destination's directory, is flushed to
disk, and is then renamed over the destination, so a reader (or a crash) sees
either the old file or the whole new one. A symbolic link at the destination
(dangling or not) is refused: following it would write wherever the link points.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path
from typing import Union

from envcheck.errors import InputError


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def check_destination(output: Union[str, Path], force: bool = False) -> int:
    """Refuse a destination we must not write (a symlink, a non-file, an existing
    file without ``force``, a missing directory); the mode the new file gets."""
    shown = str(output)
    path = Path(output)
    try:
        st = path.lstat()
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise InputError(shown, None, exc.strerror or type(exc).__name__) from None
    mode = 0o666 & ~_umask()
    if st is not None:
        if stat.S_ISLNK(st.st_mode):
            raise InputError(shown, None, "is a symbolic link; refusing to write through it")
        if not stat.S_ISREG(st.st_mode):
            raise InputError(shown, None, "exists and is not a regular file")
        if not force:
            raise InputError(shown, None, "exists; pass --force to overwrite it")
        mode = stat.S_IMODE(st.st_mode)
    if not path.parent.is_dir():
        raise InputError(shown, None, f"directory {str(path.parent)!r} does not exist")
    return mode


def write_text_atomic(output: Union[str, Path], text: str, force: bool = False) -> None:
    """Write ``text`` (UTF-8) to ``output``; InputError (one line, exit 2) when refused."""
    import tempfile

    shown = str(output)
    path = Path(output)
    parent = path.parent
    mode = check_destination(output, force)

    data = text.encode("utf-8")
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name[:64]}.", suffix=".tmp", dir=parent)
    except OSError as exc:
        raise InputError(shown, None, exc.strerror or type(exc).__name__) from None
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        with contextlib.suppress(OSError):
            tmp.chmod(mode)
        if force:
            tmp.replace(path)  # rename never follows a link at the destination
        else:
            _link_exclusive(tmp, path, shown)
    except OSError as exc:
        raise InputError(shown, None, exc.strerror or type(exc).__name__) from None
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()


def _link_exclusive(tmp: Path, path: Path, shown: str) -> None:
    """Publish ``tmp`` at ``path`` only if nothing appeared there meanwhile."""
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise InputError(shown, None, "exists; pass --force to overwrite it") from None
    except OSError:
        # No hard links on this file system (FAT, some network mounts): the
        # lstat above is the check; rename is still atomic.
        if os.path.lexists(path):
            raise InputError(shown, None, "exists; pass --force to overwrite it") from None
        tmp.replace(path)
