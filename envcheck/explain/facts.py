"""Facts an error message states about the machine it came from (pure).

A pasted log often says more than its error line: the interpreter's banner, the
``pip install`` command that failed, a ``CUDA_VISIBLE_DEVICES=...`` prefix, a
Windows path. ``extract`` reads those facts and ``overlay`` lays them over a
snapshot (or an empty one), so ``explain`` judges them with the doctor's own
rules instead of rules of its own.

Every pattern is anchored to a short window and runs on bounded lines, so a
hostile log stays linear.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Optional

from envcheck.model.snapshot import Framework, Snapshot

MAX_LINES = 5000
MAX_LINE = 4096

_PY_BANNER = re.compile(r"^\s*Python (\d\.\d{1,2})\.\d{1,3}\b[^\n]{0,40}\(")
_PY_PATH = re.compile(r"[/\\][Pp]ython(\d\.\d{1,2})[/\\](?:site|dist)-packages[/\\]")
_PY_WIN = re.compile(r"[/\\]Python(3)(\d{1,2})[/\\]")
_WIN_PATH = re.compile(r"(?:^|[\s\"'(])[A-Za-z]:\\")
_PIP = re.compile(r"\bpip3?(?:\.exe)?\"?\s+install\s+(.{1,1000})")
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]{0,80})(?:\[[\w,-]{1,80}\])?==([\w.+!-]{1,60})$")
_ENV = re.compile(
    r"(?:^|[\s;&])(?:export\s+|set\s+|%env\s+)?"
    r"(CUDA_VISIBLE_DEVICES|NVIDIA_VISIBLE_DEVICES|NVIDIA_DRIVER_CAPABILITIES)"
    r"=(\"[^\"]{0,200}\"|'[^']{0,200}'|[^\s;&]{0,200})"
)
_PY_ENV = re.compile(
    r"os\.environ\[\s*[\"'](CUDA_VISIBLE_DEVICES|NVIDIA_VISIBLE_DEVICES)[\"']\s*\]\s*=\s*"
    r"[\"']([^\"']{0,200})[\"']"
)


@dataclass(frozen=True)
class MessageFacts:
    """What the text says; None/empty where it says nothing."""

    python: Optional[str] = None
    os: Optional[str] = None
    pins: tuple[tuple[str, str], ...] = ()
    """(distribution, version) of frameworks a ``pip install`` line asks for."""
    env: tuple[tuple[str, str], ...] = ()
    """Environment assignments the failing command made."""

    def __bool__(self) -> bool:
        return bool(self.python or self.os or self.pins or self.env)

    def lines(self) -> tuple[str, ...]:
        """The facts, one per line, for a finding's evidence."""
        out = []
        if self.python:
            out.append(f"the message shows Python {self.python}")
        if self.os:
            out.append(f"the message shows {self.os} paths")
        out.extend(f"the message installs {n}=={v}" for n, v in self.pins)
        out.extend(f"the message sets {k}={v!r}" for k, v in self.env)
        return tuple(out)


def extract(text: str) -> MessageFacts:
    """Read the facts of ``text`` (first MAX_LINES lines, MAX_LINE chars each)."""
    from envcheck import names

    python: Optional[str] = None
    os_name: Optional[str] = None
    pins: dict[str, tuple[str, str]] = {}
    env: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines()):
        if number >= MAX_LINES:
            break
        line = raw[:MAX_LINE]
        if python is None:
            m = _PY_BANNER.match(line) or _PY_PATH.search(line)
            if m:
                python = m.group(1)
            else:
                w = _PY_WIN.search(line)
                if w:
                    python = f"{w.group(1)}.{w.group(2)}"
        if os_name is None and _WIN_PATH.search(line):
            os_name = "windows"
        p = _PIP.search(line)
        if p:
            for word in p.group(1).replace('"', " ").replace("'", " ").split()[:50]:
                pin = _PIN.match(word)
                fw = names.framework_of(pin.group(1), aliases=False) if pin else None
                if pin and fw:
                    pins.setdefault(fw, (names.canonical(pin.group(1)), pin.group(2)))
        for m in (*_ENV.finditer(line), *_PY_ENV.finditer(line)):
            env[m.group(1)] = m.group(2).strip("\"'")
    return MessageFacts(python, os_name, tuple(pins.values()), tuple(sorted(env.items())))


def overlay(snapshot: Optional[Snapshot], facts: MessageFacts) -> Snapshot:
    """``snapshot`` with the message's facts laid over it.

    The message describes the failing process, so its environment assignments
    and the builds its pip command asks for win; the interpreter and OS fill in
    only what the snapshot does not know.
    """
    from envcheck import names

    base = snapshot if snapshot is not None else Snapshot(source="explain")
    python = base.python
    if facts.python and python.version is None:
        python = dataclasses.replace(python, version=facts.python)
    platform = base.platform
    if facts.os and platform.os is None:
        platform = dataclasses.replace(platform, os=facts.os)
    frameworks = list(base.frameworks)
    for dist, version in facts.pins:
        fw_name = names.framework_of(dist, aliases=False)
        frameworks = [f for f in frameworks if f.name != fw_name]
        frameworks.append(_framework(fw_name or dist, dist, version))
    env = {**base.env, **dict(facts.env)}
    return dataclasses.replace(
        base,
        platform=platform,
        python=python,
        frameworks=tuple(frameworks),
        env=env,
    )


def _framework(name: str, package: str, version: str) -> Framework:
    local = version.split("+", 1)[1] if "+" in version else None
    cuda = None
    if local and re.fullmatch(r"cu\d{3,4}", local):
        digits = local[2:]
        cuda = f"{digits[:-1]}.{digits[-1]}"
    return Framework(
        name=name,
        version=version,
        package=package,
        variant=local,
        cuda_version=cuda,
        cpu_only=True if local == "cpu" else (False if cuda else None),
    )
