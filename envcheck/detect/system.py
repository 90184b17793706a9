"""The one seam between detection and the machine.

``System`` bundles a filesystem root, the environment variables and a command
runner. Production code builds it with ``real_system()``; tests build one over a
temporary directory with a runner that replays recorded outputs. This module
holds the only ``subprocess`` call in ``envcheck.detect``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

DEFAULT_TIMEOUT = 5.0
"""Seconds any probe subprocess may run (a hung nvidia-smi costs at most this)."""


@dataclass(frozen=True)
class CommandResult:
    """What a command did; never raised, always returned."""

    returncode: Optional[int]
    """None when the command could not start or timed out."""
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False
    error: Optional[str] = None
    """Why the command did not run (not found, permission denied, timeout)."""

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out

    def describe_failure(self, argv0: str) -> str:
        """One line saying why the command failed, for a ProbeError."""
        if self.error:
            return f"{argv0}: {self.error}"
        detail = (self.stderr or self.stdout).strip().splitlines()
        tail = f": {detail[0][:200]}" if detail else ""
        return f"{argv0} exited with status {self.returncode}{tail}"


Runner = Callable[[Sequence[str], float], CommandResult]


def run_command(argv: Sequence[str], timeout: float = DEFAULT_TIMEOUT) -> CommandResult:
    """Run ``argv`` without a shell and with a timeout; never raises for failures."""
    try:
        proc = subprocess.run(  # noqa: S603 - argv tuple, no shell
            list(argv),
            capture_output=True,
            timeout=timeout,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return CommandResult(None, timed_out=True, error=f"timed out after {timeout:g}s")
    except FileNotFoundError:
        return CommandResult(None, error="not found")
    except PermissionError:
        return CommandResult(None, error="permission denied")
    except OSError as exc:
        return CommandResult(None, error=exc.strerror or str(exc))
    return CommandResult(
        proc.returncode,
        proc.stdout.decode("utf-8", "replace"),
        proc.stderr.decode("utf-8", "replace"),
    )


@dataclass(frozen=True)
class System:
    """The machine as probes see it.

    ``root`` prefixes absolute paths such as ``/proc`` and ``/usr/local/cuda``
    (``/`` in production, a fake tree in tests). ``env`` is the process
    environment. ``run`` executes a command (argv, timeout) and returns a
    ``CommandResult``. ``platform``/``machine`` are what ``sys.platform`` and
    ``platform.machine()`` say, so a test can pretend to be Windows.
    """

    root: Path = Path("/")
    env: Mapping[str, str] = field(default_factory=dict)
    run: Runner = run_command
    platform: str = sys.platform
    machine: str = ""
    which: Optional[Callable[[str], Optional[str]]] = None
    python_executable: Optional[str] = None
    """The interpreter whose environment is inspected (None: this one)."""
    nvml: Optional[Callable[[], Any]] = None
    """Returns an NVML module-like object (``pynvml`` API). None: the real
    ``pynvml`` when ``root`` is ``/``, otherwise NVML is not available."""

    def path(self, absolute: str) -> Path:
        """Map an absolute machine path onto ``root``."""
        if self.root == Path("/"):
            return Path(absolute)
        return self.root / absolute.lstrip("/\\").replace("\\", "/")

    def find_executable(self, name: str) -> Optional[str]:
        """Locate ``name`` on this System's PATH (under ``root``)."""
        if self.which is not None:
            return self.which(name)
        path_var = self.env.get("PATH", "")
        sep = ";" if self.platform == "win32" else ":"
        exts = ("", ".exe") if self.platform == "win32" else ("",)
        for entry in path_var.split(sep):
            if not entry:
                continue
            for ext in exts:
                candidate = self.path(entry) / f"{name}{ext}"
                if candidate.is_file() and os.access(candidate, os.X_OK):
                    return str(Path(entry) / f"{name}{ext}")
        return None


def real_system(python_executable: Optional[str] = None) -> System:
    """The System of the running process."""
    import platform as _platform

    return System(
        root=Path("/"),
        env=dict(os.environ),
        run=run_command,
        platform=sys.platform,
        machine=_platform.machine(),
        which=shutil.which,
        python_executable=python_executable,
    )
