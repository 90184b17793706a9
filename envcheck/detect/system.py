"""The one seam between detection and the machine.

``System`` bundles a filesystem root, the environment variables and a command
runner. Production code builds it with ``real_system()``; tests build one over a
temporary directory with a runner that replays recorded outputs. This module
holds the only ``subprocess`` call in ``envcheck.detect``.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional

from envcheck.model._frozen import field, record

if TYPE_CHECKING:
    import subprocess

DEFAULT_TIMEOUT = 5.0
"""Seconds any probe subprocess may run (a hung nvidia-smi costs at most this)."""

MAX_OUTPUT = 4 * 1024 * 1024
"""Bytes kept per stream; a tool that streams past this is killed."""

DETECT_BUDGET = 20.0
"""Seconds all probe subprocesses of one detection may take together."""

_EXIT_GRACE = 0.5
"""After the tool exits, seconds to wait for children still holding its pipes."""


TAIL_LINES = 20
TAIL_CHARS = 2000


def output_tail(text: str, max_lines: int = TAIL_LINES, max_chars: int = TAIL_CHARS) -> str:
    """The last ``max_lines`` non-blank lines of ``text``, at most ``max_chars``
    characters (cut at the start): what a report shows of a failed child's
    stderr, where a Python traceback ends with its cause."""
    lines = [line.rstrip() for line in text[-(max_chars * 4) :].splitlines() if line.strip()]
    tail = "\n".join(lines[-max_lines:])
    if len(tail) > max_chars:
        tail = "..." + tail[-(max_chars - 3) :]
    return tail


@record
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


def run_command(
    argv: Sequence[str], timeout: float = DEFAULT_TIMEOUT, max_output: int = MAX_OUTPUT
) -> CommandResult:
    """Run ``argv`` without a shell, bounded in time and output; never raises.

    The tool runs in its own session (process group) so that on a timeout, an
    output overflow or children outliving it, the whole group is killed, not
    just the direct child. Each stream keeps at most ``max_output`` bytes.
    """
    import subprocess  # here, not at import: most detections never run a tool

    try:
        proc = subprocess.Popen(  # noqa: S603 - argv tuple, no shell
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            **group_kwargs(),
        )
    except FileNotFoundError:
        return CommandResult(None, error="not found")
    except PermissionError:
        return CommandResult(None, error="permission denied")
    except OSError as exc:
        return CommandResult(None, error=exc.strerror or str(exc))
    if os.name != "posix":  # Windows: pipes cannot be select()ed; a thread per pipe
        return _pump_threads(proc, timeout, max_output)
    return _pump(proc, timeout, max_output)


CREATE_NEW_PROCESS_GROUP = 0x00000200
CREATE_NO_WINDOW = 0x08000000
"""Windows process creation flags (``subprocess`` defines them on Windows only)."""
TASKKILL_TIMEOUT = 5.0


def group_kwargs() -> dict[str, Any]:
    """``Popen`` arguments that start the tool as the head of its own process
    group, so that it and every child it starts can be killed together: a new
    session on POSIX, a new process group (and no console window) on Windows."""
    if os.name == "posix":
        return {"start_new_session": True}
    return {"creationflags": CREATE_NEW_PROCESS_GROUP | CREATE_NO_WINDOW}


def taskkill_path(env: Optional[Mapping[str, str]] = None) -> str:
    """``taskkill.exe`` in System32 by full path (not whatever PATH finds first)."""
    env = os.environ if env is None else env
    root = (env.get("SystemRoot") or env.get("SYSTEMROOT") or "C:\\Windows").rstrip("\\")
    return f"{root}\\System32\\taskkill.exe"


def kill_tree(proc: subprocess.Popen[bytes], sig: Optional[int] = None) -> None:
    """Kill the tool and every process it started; never raises.

    POSIX: ``sig`` (SIGKILL by default) to the tool's process group. Windows:
    ``taskkill /T /F /PID`` (the tree by parent pid; no shell, bounded in time),
    then ``TerminateProcess`` on the tool should taskkill be missing or fail."""
    import signal
    import subprocess

    if os.name == "posix":
        with contextlib.suppress(OSError, AttributeError):
            os.killpg(proc.pid, signal.SIGKILL if sig is None else sig)
    else:
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            subprocess.run(  # noqa: S603 - fixed argv, no shell
                [taskkill_path(), "/T", "/F", "/PID", str(proc.pid)],
                check=False,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=TASKKILL_TIMEOUT,
                creationflags=CREATE_NO_WINDOW,
            )
    if sig is None or os.name != "posix":
        with contextlib.suppress(OSError):
            proc.kill()


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    kill_tree(proc)


def _decode(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def _pump(proc: subprocess.Popen[bytes], timeout: float, max_output: int) -> CommandResult:
    """Read both pipes with a bound on bytes and on time (POSIX)."""
    import selectors
    import subprocess

    assert proc.stdout is not None
    assert proc.stderr is not None
    deadline = time.monotonic() + max(0.0, timeout)
    out, err = bytearray(), bytearray()
    buffers = {proc.stdout.fileno(): out, proc.stderr.fileno(): err}
    sel = selectors.DefaultSelector()
    for pipe in (proc.stdout, proc.stderr):
        sel.register(pipe, selectors.EVENT_READ)
    error: Optional[str] = None
    timed_out = False
    exited_at: Optional[float] = None
    stragglers = False
    try:
        while sel.get_map() and error is None:
            now = time.monotonic()
            if exited_at is None and proc.poll() is not None:
                exited_at = now
            if exited_at is not None and now - exited_at > _EXIT_GRACE:
                stragglers = True  # children of the tool still hold its pipes
                break
            if now >= deadline:
                timed_out = True
                error = f"timed out after {timeout:g}s"
                break
            if exited_at is None:
                wait = min(deadline - now, 0.2)  # notice an exit while children keep the pipes
            else:
                wait = min(deadline, exited_at + _EXIT_GRACE) - now + 0.01
            for key, _ in sel.select(wait):
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    sel.unregister(key.fileobj)
                    continue
                buf = buffers[key.fd]
                room = max_output - len(buf)
                buf += chunk[:room]
                if len(chunk) > room:
                    error = f"output exceeded {max_output} bytes"
    finally:
        sel.close()
    if error is None and not stragglers and proc.poll() is None:
        # Both pipes closed but the tool still runs: wait for it, within the time.
        try:
            proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            timed_out = True
            error = f"timed out after {timeout:g}s"
    if error is not None or stragglers or proc.poll() is None:
        _kill_group(proc)
    try:
        returncode: Optional[int] = proc.wait(timeout=2.0)
    except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL not delivered
        returncode = None
    proc.stdout.close()
    proc.stderr.close()
    return CommandResult(
        None if error is not None else returncode,
        _decode(bytes(out)),
        _decode(bytes(err)),
        timed_out=timed_out,
        error=error,
    )


def _pump_threads(proc: subprocess.Popen[bytes], timeout: float, max_output: int) -> CommandResult:
    """Read both pipes with a bound on bytes and on time, one thread per pipe
    (Windows, where pipes cannot be selected; works anywhere)."""
    import subprocess
    import threading

    assert proc.stdout is not None
    assert proc.stderr is not None
    deadline = time.monotonic() + max(0.0, timeout)
    overflow = threading.Event()
    bufs: list[bytearray] = [bytearray(), bytearray()]

    def drain(pipe: Any, buf: bytearray) -> None:
        with contextlib.suppress(OSError, ValueError):
            while True:
                chunk = pipe.read1(65536) if hasattr(pipe, "read1") else pipe.read(65536)
                if not chunk:
                    return
                room = max_output - len(buf)
                buf += chunk[:room]
                if len(chunk) > room:
                    overflow.set()
                    return

    readers = [
        threading.Thread(target=drain, args=(pipe, buf), daemon=True)
        for pipe, buf in zip((proc.stdout, proc.stderr), bufs)
    ]
    for reader in readers:
        reader.start()
    error: Optional[str] = None
    timed_out = False
    while True:
        if overflow.is_set():
            error = f"output exceeded {max_output} bytes"
            break
        left = deadline - time.monotonic()
        if left <= 0:
            timed_out = True
            error = f"timed out after {timeout:g}s"
            break
        try:
            proc.wait(timeout=min(left, 0.05))
            break
        except subprocess.TimeoutExpired:
            continue
    if error is None:
        # The tool exited: its pipes close unless children of it still hold them.
        grace = time.monotonic() + _EXIT_GRACE
        for reader in readers:
            reader.join(max(0.0, grace - time.monotonic()))
        if overflow.is_set():
            error = f"output exceeded {max_output} bytes"
    if error is not None or any(r.is_alive() for r in readers) or proc.poll() is None:
        kill_tree(proc)
    try:
        returncode: Optional[int] = proc.wait(timeout=2.0)
    except subprocess.TimeoutExpired:  # pragma: no cover - kill not delivered
        returncode = None
    for reader, pipe in zip(readers, (proc.stdout, proc.stderr)):
        reader.join(1.0)
        if not reader.is_alive():  # closing under a blocked read would wait for it
            with contextlib.suppress(OSError):
                pipe.close()
    return CommandResult(
        None if error is not None else returncode,
        _decode(bytes(bufs[0])),
        _decode(bytes(bufs[1])),
        timed_out=timed_out,
        error=error,
    )


class BudgetedRunner:
    """A runner that shares one time budget across every command it runs.

    Each command gets ``min(its own timeout, what is left)``; once the budget
    is spent, commands are not started and come back as timed out.
    """

    def __init__(self, run: Runner, budget: float = DETECT_BUDGET) -> None:
        self._run = run
        self.deadline = time.monotonic() + budget
        self.budget = budget

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    def __call__(self, argv: Sequence[str], timeout: float = DEFAULT_TIMEOUT) -> CommandResult:
        left = self.remaining()
        if left <= 0.05:
            return CommandResult(
                None,
                timed_out=True,
                error=f"not run: detection time budget of {self.budget:g}s spent",
            )
        return self._run(argv, min(timeout, left))


@record
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

    def with_runner(self, run: Runner) -> System:
        """This System with another command runner."""
        values = {name: getattr(self, name) for name in self.__record_fields__}  # type: ignore[attr-defined]
        values["run"] = run
        return System(**values)

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
    which: Optional[Callable[[str], Optional[str]]] = None
    if hasattr(os, "uname"):
        # POSIX: os.uname() is what platform.machine() reads, and the PATH search
        # of ``find_executable`` is shutil.which's (importing shutil and platform
        # costs several ms of every command's start-up).
        machine = os.uname().machine
    else:  # pragma: no cover - Windows: PATHEXT and the registry need the stdlib
        import platform as _platform
        import shutil

        machine = _platform.machine()
        which = shutil.which
    return System(
        root=Path("/"),
        env=dict(os.environ),
        run=run_command,
        platform=sys.platform,
        machine=machine,
        which=which,
        python_executable=python_executable,
    )
