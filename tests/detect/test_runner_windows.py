"""The subprocess runners' Windows branch, exercised on Linux (issue 16).

``os.name`` is set to ``"nt"`` and ``os.killpg`` removed (Windows has none)
around each call; ``subprocess.Popen`` is wrapped to check what a Windows start
would get (a new process group, no console window, no shell) and to start the
real tool in a session of its own; ``subprocess.run`` answers ``taskkill /T /F
/PID`` by killing that session, as taskkill kills the process tree. The tools
are real processes: output caps, timeouts and tree kills are observed, not
assumed.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from envcheck.detect import system as detect_system
from envcheck.detect.driver import find_nvidia_smi
from envcheck.detect.system import (
    CREATE_NEW_PROCESS_GROUP,
    CREATE_NO_WINDOW,
    run_command,
    taskkill_path,
)
from tests.conftest import make_system, write_tree

pytestmark = [
    pytest.mark.skipif(os.name != "posix", reason="emulates Windows on a POSIX machine"),
    pytest.mark.real_machine,
]


class Windows:
    """Pretend to be Windows around a call; records Popen and taskkill calls."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.monkeypatch = monkeypatch
        self.popen_kwargs: list[dict[str, Any]] = []
        self.taskkills: list[list[str]] = []
        self.taskkill_missing = False
        self._real_popen = subprocess.Popen
        self._real_killpg = os.killpg
        monkeypatch.setattr(subprocess, "Popen", self._popen)
        monkeypatch.setattr(subprocess, "run", self._run)

    def _popen(self, argv: Any, **kwargs: Any) -> Any:
        self.popen_kwargs.append(dict(kwargs))
        assert isinstance(argv, list) and not kwargs.get("shell"), (argv, kwargs)
        flags = kwargs.pop("creationflags", 0)
        assert "start_new_session" not in kwargs or not kwargs["start_new_session"]
        kwargs.pop("start_new_session", None)
        # A new process group on Windows; on this machine, a session of its own.
        return self._real_popen(argv, start_new_session=bool(flags & 0x200), **kwargs)

    def _run(self, argv: Any, **kwargs: Any) -> Any:
        assert isinstance(argv, list) and not kwargs.get("shell"), (argv, kwargs)
        assert kwargs.get("timeout") is not None, "taskkill must be bounded in time"
        self.taskkills.append(list(argv))
        if self.taskkill_missing:
            raise FileNotFoundError(2, "taskkill.exe not found")
        assert argv[0].lower().endswith("\\system32\\taskkill.exe"), argv
        assert argv[1:4] == ["/T", "/F", "/PID"], argv
        with contextlib.suppress(ProcessLookupError):
            self._real_killpg(int(argv[4]), signal.SIGKILL)  # the whole tree
        return subprocess.CompletedProcess(argv, 0)

    @contextlib.contextmanager
    def active(self) -> Iterator[None]:
        with self.monkeypatch.context() as m:
            m.setattr(os, "name", "nt")
            m.delattr(os, "killpg")
            yield


@pytest.fixture
def windows(monkeypatch: pytest.MonkeyPatch) -> Windows:
    return Windows(monkeypatch)


def _tool(tmp_path: Path, name: str, body: str) -> list[str]:
    script = tmp_path / name
    script.write_text(f"import os, sys, time, subprocess\n{body}\n")
    return [sys.executable, str(script)]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (killed, not yet reaped by its parent) counts as gone.
    with contextlib.suppress(OSError):
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[0] != "Z"
    return True


def _wait_gone(pid: int, seconds: float = 5.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False


def test_a_windows_start_is_a_new_process_group_without_a_shell(
    tmp_path: Path, windows: Windows
) -> None:
    argv = _tool(tmp_path, "t", "print('hello'); sys.stderr.write('warn\\n'); sys.exit(3)")
    with windows.active():
        result = run_command(argv, 10)
    assert (result.returncode, result.stdout, result.stderr) == (3, "hello\n", "warn\n")
    assert not result.timed_out and result.error is None
    (kwargs,) = windows.popen_kwargs
    assert kwargs["creationflags"] == CREATE_NEW_PROCESS_GROUP | CREATE_NO_WINDOW
    assert "start_new_session" not in kwargs
    assert windows.taskkills == []  # nothing left to kill


def test_a_hung_tool_and_its_children_are_killed_as_a_tree(
    tmp_path: Path, windows: Windows
) -> None:
    pidfile = tmp_path / "child.pid"
    argv = _tool(
        tmp_path,
        "hang",
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        f"open({str(pidfile)!r}, 'w').write(str(child.pid))\n"
        "time.sleep(60)",
    )
    start = time.monotonic()
    with windows.active():
        result = run_command(argv, 1.5)
    assert time.monotonic() - start < 8
    assert result.timed_out and result.returncode is None
    assert result.error == "timed out after 1.5s"
    assert len(windows.taskkills) == 1
    child = int(pidfile.read_text())
    assert _wait_gone(child), "the tool's child outlived the timeout"


def test_streaming_forever_is_capped_and_killed(tmp_path: Path, windows: Windows) -> None:
    argv = _tool(
        tmp_path, "spew", "line = b'x' * 65535 + b'\\n'\nwhile True: sys.stdout.buffer.write(line)"
    )
    start = time.monotonic()
    with windows.active():
        result = run_command(argv, 30, max_output=1_000_000)
    assert time.monotonic() - start < 10
    assert result.returncode is None and result.error == "output exceeded 1000000 bytes"
    assert len(result.stdout) == 1_000_000
    assert len(windows.taskkills) == 1


def test_children_holding_the_pipes_do_not_keep_us_waiting(
    tmp_path: Path, windows: Windows
) -> None:
    pidfile = tmp_path / "child.pid"
    argv = _tool(
        tmp_path,
        "fork",
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        f"open({str(pidfile)!r}, 'w').write(str(child.pid))\n"
        "print('done')",
    )
    start = time.monotonic()
    with windows.active():
        result = run_command(argv, 30)
    assert time.monotonic() - start < 8
    assert result.returncode == 0 and result.stdout == "done\n"
    assert _wait_gone(int(pidfile.read_text()))


def test_without_taskkill_the_tool_itself_is_still_killed(tmp_path: Path, windows: Windows) -> None:
    windows.taskkill_missing = True
    argv = _tool(tmp_path, "hang", "time.sleep(60)")
    start = time.monotonic()
    with windows.active():
        result = run_command(argv, 1.0)
    assert time.monotonic() - start < 8
    assert result.timed_out and result.returncode is None
    assert len(windows.taskkills) == 1


def test_fleet_collectors_kill_the_tree_on_windows(tmp_path: Path, windows: Windows) -> None:
    from envcheck.fleet.collect import run_bounded

    pidfile = tmp_path / "child.pid"
    argv = _tool(
        tmp_path,
        "hang",
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        f"open({str(pidfile)!r}, 'w').write(str(child.pid))\n"
        "print('partial', flush=True)\n"
        "time.sleep(60)",
    )
    with windows.active():
        done = run_bounded(argv, 1.5)
    assert done.timed_out and done.returncode is None
    assert done.stdout == "partial\n"
    assert windows.popen_kwargs[0]["creationflags"] & CREATE_NEW_PROCESS_GROUP
    assert windows.taskkills
    assert _wait_gone(int(pidfile.read_text()))


def test_taskkill_is_named_by_its_full_path() -> None:
    assert taskkill_path({}) == "C:\\Windows\\System32\\taskkill.exe"
    assert taskkill_path({"SystemRoot": "D:\\WINDOWS\\"}) == "D:\\WINDOWS\\System32\\taskkill.exe"


def test_posix_starts_a_new_session() -> None:
    assert detect_system.group_kwargs() == {"start_new_session": True}


# --------------------------------------------------------------------------- nvidia-smi


def test_nvidia_smi_in_the_nvsmi_folder_of_older_drivers(tmp_path: Path) -> None:
    write_tree(tmp_path, {"C:/Program Files/NVIDIA Corporation/NVSMI/nvidia-smi.exe": ""})
    system = make_system(tmp_path, platform="win32", executables={})
    assert find_nvidia_smi(system) == "C:\\Program Files\\NVIDIA Corporation\\NVSMI\\nvidia-smi.exe"


def test_nvidia_smi_follows_program_files_and_system_root(tmp_path: Path) -> None:
    write_tree(tmp_path, {"E:/Programs/NVIDIA Corporation/NVSMI/nvidia-smi.exe": ""})
    env = {"ProgramFiles": "E:\\Programs", "SystemRoot": "D:\\Windows"}
    system = make_system(tmp_path, env=env, platform="win32", executables={})
    assert find_nvidia_smi(system) == "E:\\Programs\\NVIDIA Corporation\\NVSMI\\nvidia-smi.exe"
    write_tree(tmp_path, {"D:/Windows/System32/nvidia-smi.exe": ""})
    # System32 (DCH drivers) first: the NVSMI copy may be a stale leftover.
    assert find_nvidia_smi(system) == "D:\\Windows\\System32\\nvidia-smi.exe"


def test_nvidia_smi_on_path_wins(tmp_path: Path) -> None:
    write_tree(tmp_path, {"C:/Windows/System32/nvidia-smi.exe": ""})
    system = make_system(
        tmp_path, platform="win32", executables={"nvidia-smi": "C:\\tools\\nvidia-smi.exe"}
    )
    assert find_nvidia_smi(system) == "C:\\tools\\nvidia-smi.exe"
