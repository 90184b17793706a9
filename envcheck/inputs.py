"""The input gate: every file envcheck reads from a user goes through here.

Bounded in size, time and memory whatever the file holds:

* regular files only: FIFOs, devices, sockets and directories are refused from
  ``os.stat`` before opening (and the open is non-blocking, re-checked with
  ``fstat``), so a FIFO at a path never blocks a command;
* a size cap per format, read with one bounded ``read``;
* UTF-8, UTF-8 with BOM and UTF-16/UTF-32 with BOM (what PowerShell 5.1's ``>``
  writes) are decoded; anything else is refused naming the line;
* JSON, TOML and YAML nesting is bounded by a linear pre-scan *before* the
  parser runs (PyYAML's C composer recurses in C: a deep file kills the process,
  ``except RecursionError`` never fires), YAML alias expansion is bounded before
  the node graph is built, and numbers longer than :data:`MAX_DIGITS` digits are
  refused (Python's int-conversion limit would raise a bare ``ValueError``).

Every violation is an :class:`~envcheck.errors.InputError` (``file:line: message``,
exit 2). Kept free of heavy imports: ``envcheck check`` is a pre-commit hook.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from pathlib import Path
from typing import Any, BinaryIO, Optional, Union

from envcheck.errors import InputError

MIB = 1024 * 1024
DEFAULT_LIMIT = 16 * MIB
LIMITS = {
    "snapshot": 16 * MIB,
    "collect_env": 4 * MIB,
    "log": 16 * MIB,
    "dependency": 4 * MIB,
    "matrix": 8 * MIB,
    "json": 16 * MIB,
}
"""Size caps per kind of input (bytes)."""

MAX_DEPTH = 64
"""Deepest nesting accepted in JSON, TOML and YAML (real files stay below 10)."""
MAX_DIGITS = 200
"""Longest run of digits accepted in structured data (a version part, a size)."""
MAX_YAML_NODES = 200_000
"""Most YAML nodes a document may stand for once aliases are expanded."""
MAX_YAML_ALIASES = 1_000

PathLike = Union[str, Path]


# --------------------------------------------------------------------------- reading


def _kind_of_mode(mode: int) -> Optional[str]:
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe), not a regular file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device, not a regular file"
    if stat.S_ISSOCK(mode):
        return "a socket, not a regular file"
    return "not a regular file"


def _os_error(shown: str, what: str, exc: OSError) -> InputError:
    if isinstance(exc, FileNotFoundError):
        return InputError(shown, None, f"{what} not found")
    if isinstance(exc, IsADirectoryError):
        return InputError(shown, None, f"{what} is a directory")
    if isinstance(exc, PermissionError):
        return InputError(shown, None, "permission denied")
    return InputError(shown, None, exc.strerror or type(exc).__name__)


def open_binary(path: PathLike, what: str = "file") -> BinaryIO:
    """A regular file opened for reading, checked like :func:`read_bytes` (a FIFO,
    a device, a name over the length limit are one-line InputErrors); for readers
    that stream a file too large to hold at once (fleet records)."""
    shown = str(path)
    try:
        st = Path(path).stat()
    except (OSError, ValueError) as exc:
        if isinstance(exc, ValueError):  # embedded NUL byte in the name
            raise InputError(shown, None, f"{what} not found") from None
        raise _os_error(shown, what, exc) from None
    bad = _kind_of_mode(st.st_mode)
    if bad is not None:
        raise InputError(shown, None, f"{what} is {bad}")
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    flags |= getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise _os_error(shown, what, exc) from None
    try:
        # The path may have been swapped for a FIFO between stat and open.
        bad = _kind_of_mode(os.fstat(fd).st_mode)
        if bad is not None:
            raise InputError(shown, None, f"{what} is {bad}")
        return os.fdopen(fd, "rb", closefd=True)
    except BaseException:
        os.close(fd)
        raise


def read_bytes(path: PathLike, what: str = "file", limit: int = DEFAULT_LIMIT) -> bytes:
    """The bytes of a regular file (``-`` is stdin), at most ``limit`` of them."""
    shown = str(path)
    if shown == "-":
        try:
            data: bytes = sys.stdin.buffer.read(limit + 1)
        except OSError as exc:
            raise _os_error("<stdin>", what, exc) from None
    else:
        with open_binary(path, what) as fh:
            try:
                data = fh.read(limit + 1)
            except OSError as exc:
                raise _os_error(shown, what, exc) from None
    if len(data) > limit:
        raise InputError(shown, None, f"{what} is larger than {_size(limit)}")
    return data


def _size(limit: int) -> str:
    if limit >= MIB and limit % MIB == 0:
        return f"{limit // MIB} MiB"
    return f"{limit} bytes"


_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)


def decode_text(data: bytes, shown: str, what: str = "file") -> str:
    """Text of ``data``: UTF-8 (BOM optional) or UTF-16/32 with a BOM."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            body = data[len(bom) :]
            try:
                text = body.decode(encoding)
            except UnicodeDecodeError as exc:
                # Count the newlines decoded before the bad unit.
                good = body[: exc.start].decode(encoding, errors="replace")
                raise InputError(
                    shown, good.count("\n") + 1, f"not valid {encoding} text"
                ) from None
            if "\x00" in text:
                line = text[: text.index("\x00")].count("\n") + 1
                raise InputError(shown, line, f"{what} is binary, not text")
            return text
    if b"\x00" in data:
        raise InputError(shown, None, f"{what} is binary, not text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(shown, line, "not valid UTF-8 text") from None


def read_text(path: PathLike, what: str = "file", limit: int = DEFAULT_LIMIT) -> str:
    """Read a text file through the gate (``-`` is stdin)."""
    shown = "<stdin>" if str(path) == "-" else str(path)
    return decode_text(read_bytes(path, what, limit), shown, what)


def path_exists(path: PathLike) -> bool:
    """Whether anything is at ``path``; False (never an exception) for a name over
    the file-name limit, a NUL byte or an unreadable directory."""
    try:
        Path(path).lstat()
    except (OSError, ValueError):
        return False
    return True


def is_regular_file(path: PathLike) -> bool:
    """True for an existing regular file (FIFOs/devices are not); never blocks."""
    try:
        return stat.S_ISREG(Path(path).stat().st_mode)
    except (OSError, ValueError):
        return False


# --------------------------------------------------------------------------- numbers

_LONG_DIGITS = re.compile(rf"[0-9][0-9_]{{{MAX_DIGITS},}}")


def has_long_number(text: str) -> bool:
    """Whether ``text`` holds a run of more than :data:`MAX_DIGITS` digits."""
    return _LONG_DIGITS.search(text) is not None


def check_digits(text: str, shown: str, max_digits: int = MAX_DIGITS) -> None:
    """Refuse a run of more than ``max_digits`` digits (int-conversion limit)."""
    pattern = (
        _LONG_DIGITS if max_digits == MAX_DIGITS else re.compile(rf"[0-9][0-9_]{{{max_digits},}}")
    )
    m = pattern.search(text)
    if m is not None:
        line = text.count("\n", 0, m.start()) + 1
        raise InputError(shown, line, f"a number with more than {max_digits} digits")


# --------------------------------------------------------------------------- nesting

# Strings are matched "unrolled" (a run of plain characters, then escape + run):
# ``(?:[^"\\]|\\.)*`` keeps one backtracking frame per character, ~100 bytes each,
# so a 100 KB string cost 12 MB to skip.
_JSON_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]', re.DOTALL)
_TOML_TOKENS = re.compile(
    r'"""[\s\S]*?(?:"""|\Z)|\'\'\'[\s\S]*?(?:\'\'\'|\Z)'
    r'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"?|\'[^\'\n]*\'?|#[^\n]*|[\[\]{}]'
)


def _check_depth(text: str, shown: str, tokens: re.Pattern[str], max_depth: int, what: str) -> None:
    if text.count("[") + text.count("{") <= max_depth:
        return
    depth = 0
    for m in tokens.finditer(text):
        ch = m.group()
        if ch in "[{":
            depth += 1
            if depth > max_depth:
                line = text.count("\n", 0, m.start()) + 1
                raise InputError(shown, line, f"invalid {what}: nested more than {max_depth} deep")
        elif ch in "]}":
            depth = max(depth - 1, 0)


_JSON_KEEP = b'[]{}"'
_JSON_DROP = bytes(b for b in range(256) if b not in _JSON_KEEP)
_JSON_STRING = re.compile(rb'"[^"]*"?')
_JSON_RUN = re.compile(rb"[\[{]+|[\]}]+")


def check_json_depth(text: str, shown: str, max_depth: int = MAX_DEPTH) -> None:
    # Fast path, all in C: drop escaped backslashes and quotes (pairs from the
    # left, as JSON reads them), every byte but brackets and quotes, then the
    # strings; what is left is the bracket skeleton. Only when it nests too deep
    # does the exact (slower) scan run, to name the line.
    if text.count("[") + text.count("{") <= max_depth:
        return
    data = text.encode("utf-8", "surrogatepass")
    if b"\\" in data:
        data = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    # Inside-a-string is the parity of the quotes before a byte: dropping
    # adjacent quote pairs (most strings hold no bracket) keeps it, then the
    # few strings left go by a regex.
    skeleton = data.translate(None, _JSON_DROP).replace(b'""', b"")
    skeleton = _JSON_STRING.sub(b"", skeleton)
    depth = deepest = 0
    for run in _JSON_RUN.finditer(skeleton):
        size = len(run.group())
        if run.group()[0] in b"[{":
            depth += size
            deepest = max(deepest, depth)
        else:
            depth = max(depth - size, 0)
    if deepest > max_depth:
        _check_depth(text, shown, _JSON_TOKENS, max_depth, "JSON")


def check_toml_depth(text: str, shown: str, max_depth: int = MAX_DEPTH) -> None:
    _check_depth(text, shown, _TOML_TOKENS, max_depth, "TOML")


# YAML flow collections, read from the text before any YAML library sees it
# (libyaml's own nesting limit and wording differ between releases): quoted
# scalars and comments are skipped; a bracket inside a plain scalar counts,
# which can only over-count a file that is already absurd.
_YAML_TOKENS = re.compile(
    r'"[^"\\]*(?:\\.[^"\\]*)*"?|\'[^\']*(?:\'\'[^\']*)*\'?|(?:^|(?<=\s))#[^\n]*|[\[\]{}]',
    re.MULTILINE,
)


def check_yaml_flow_depth(text: str, shown: str, max_depth: int = MAX_DEPTH) -> None:
    _check_depth(text, shown, _YAML_TOKENS, max_depth, "YAML")


# --------------------------------------------------------------------------- parsers


def parse_json(text: str, shown: str, max_depth: int = MAX_DEPTH) -> Any:
    """``json.loads`` behind the nesting and digit bounds; errors name the line."""
    import json

    check_json_depth(text, shown, max_depth)
    check_digits(text, shown)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(shown, exc.lineno, f"invalid JSON: {exc.msg}") from None
    except RecursionError:
        raise InputError(shown, None, "invalid JSON: nested too deeply") from None
    except ValueError as exc:  # the int-conversion limit, should the scan miss one
        raise InputError(shown, None, f"invalid JSON: {_first_line(exc)}") from None


_TOML_AT_LINE = re.compile(r"\s*\(at line (\d+), column \d+\)")


def parse_toml(text: str, shown: str, max_depth: int = MAX_DEPTH) -> dict[str, Any]:
    """``tomllib.loads`` behind the bounds; a syntax error is ``file:line: message``."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.9/3.10 only
        import tomli as tomllib

    check_toml_depth(text, shown, max_depth)
    check_digits(text, shown)
    try:
        doc: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        # lineno exists only on Python 3.14+ / tomli 2.1+; older versions put
        # "(at line N, column M)" in the message.
        line = getattr(exc, "lineno", None)
        message = getattr(exc, "msg", None) or str(exc)
        if line is None:
            m = _TOML_AT_LINE.search(str(exc))
            line = int(m.group(1)) if m else None
            message = _TOML_AT_LINE.sub("", str(exc))
        raise InputError(shown, line, f"invalid TOML: {_first_line(message)}") from None
    except RecursionError:
        raise InputError(shown, None, "invalid TOML: nested too deeply") from None
    except ValueError as exc:
        raise InputError(shown, None, f"invalid TOML: {_first_line(exc)}") from None
    return doc


def _first_line(value: object) -> str:
    text = str(value).strip()
    return text.splitlines()[0] if text else "malformed"


def _yaml_loader(yaml: Any) -> Any:
    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def check_yaml_events(
    text: str,
    shown: str,
    max_depth: int = MAX_DEPTH,
    max_nodes: int = MAX_YAML_NODES,
    max_aliases: int = MAX_YAML_ALIASES,
) -> None:
    """Walk the YAML event stream (flat, no recursion) bounding the nesting
    depth, the number of aliases and the node count after alias expansion."""
    import yaml

    check_yaml_flow_depth(text, shown, max_depth)
    try:
        loader = _yaml_loader(yaml)(text)
    except UnicodeError:  # a lone surrogate (undecodable bytes kept by the caller)
        raise InputError(shown, None, "invalid YAML: not valid Unicode text") from None
    # stack of [anchor, size]; sizes count nodes with aliases expanded
    stack: list[list[Any]] = [[None, 0]]
    sizes: dict[str, int] = {}
    aliases = 0
    try:
        while True:
            event = loader.get_event()
            if event is None or isinstance(event, yaml.StreamEndEvent):
                break
            line = event.start_mark.line + 1 if event.start_mark is not None else None
            if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                stack.append([event.anchor, 1])
                if len(stack) - 1 > max_depth:
                    raise InputError(
                        shown, line, f"invalid YAML: nested more than {max_depth} deep"
                    )
                continue
            if isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                anchor, size = stack.pop()
                if anchor is not None:
                    sizes[anchor] = size
                stack[-1][1] += size
            elif isinstance(event, yaml.ScalarEvent):
                if event.anchor is not None:
                    sizes[event.anchor] = 1
                stack[-1][1] += 1
            elif isinstance(event, yaml.AliasEvent):
                aliases += 1
                if aliases > max_aliases:
                    raise InputError(shown, line, f"invalid YAML: more than {max_aliases} aliases")
                stack[-1][1] += sizes.get(event.anchor, 1)
            else:
                continue
            if sum(entry[1] for entry in stack) > max_nodes:
                raise InputError(
                    shown,
                    line,
                    f"invalid YAML: expands to more than {max_nodes} nodes (aliases)",
                )
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise InputError(
            shown,
            mark.line + 1 if mark is not None else None,
            f"invalid YAML: {exc.problem or exc}",
        ) from None
    except yaml.YAMLError as exc:
        raise InputError(shown, None, f"invalid YAML: {_first_line(exc)}") from None
    finally:
        loader.dispose()


def compose_yaml(text: str, shown: str) -> Any:
    """``yaml.compose`` (the node tree, with marks) behind the depth, alias and
    digit bounds. Returns None for an empty document."""
    import yaml

    check_yaml_events(text, shown)
    check_digits(text, shown)
    try:
        return yaml.compose(text, Loader=_yaml_loader(yaml))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        raise InputError(shown, line, f"invalid YAML: {exc.problem or exc}") from None
    except yaml.YAMLError as exc:
        raise InputError(shown, None, f"invalid YAML: {_first_line(exc)}") from None
    except RecursionError:
        raise InputError(shown, None, "invalid YAML: nested too deeply") from None


def read_json(path: PathLike, what: str = "JSON file", limit: int = LIMITS["json"]) -> Any:
    shown = "<stdin>" if str(path) == "-" else str(path)
    return parse_json(read_text(path, what, limit), shown)


def read_toml(path: PathLike, what: str = "TOML file", limit: int = LIMITS["dependency"]) -> Any:
    return parse_toml(read_text(path, what, limit), str(path))
