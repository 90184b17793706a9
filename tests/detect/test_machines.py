"""Whole machines: a fake root, recorded commands, env and NVML → expected snapshot.

Each ``tests/fixtures/machines/<case>/`` holds:

- ``root/``: the machine's files (``drive-c/`` is the Windows ``C:`` drive,
  renamed to ``C:`` in a temporary copy so the repository stays checkout-able
  on Windows);
- ``env.json``: the environment variables;
- ``system.json``: ``platform`` and ``machine``;
- ``commands.json``: argv (joined by spaces, or a bare command name) →
  ``stdout_file`` under ``commands/``, ``returncode``, ``stderr``, ``timed_out``;
- ``nvml.json`` (optional): what NVML answers (see ``FakeNvml``); absent means
  NVML is not available;
- ``expected-snapshot.json``: the compared part of the snapshot.

``pytest --update-golden`` rewrites the expected snapshots; review the diff.

The whole snapshot is compared except ``envcheck_version``. The target
interpreter's facts come from the recorded ``python3`` command (what
``_pyinfo.py`` printed on that machine).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Callable, Optional

import pytest

from envcheck.detect import detect
from envcheck.detect.nvml import FakeNvml
from envcheck.detect.system import CommandResult, System
from tests.conftest import FIXTURES, FakeRunner

MACHINES = FIXTURES / "machines"
CASES = sorted(p.name for p in MACHINES.iterdir() if (p / "root").is_dir())
IGNORED = ("envcheck_version", "created_at")


def _load_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _commands(case: Path) -> dict[str, CommandResult]:
    outputs: dict[str, CommandResult] = {}
    for argv, spec in _load_json(case / "commands.json").items():
        stdout = ""
        if "stdout_file" in spec:
            stdout = (case / spec["stdout_file"]).read_text(encoding="utf-8")
        outputs[argv] = CommandResult(
            None if spec.get("timed_out") else spec.get("returncode", 0),
            stdout,
            spec.get("stderr", ""),
            timed_out=bool(spec.get("timed_out", False)),
            error="timed out after 5s" if spec.get("timed_out") else None,
        )
    return outputs


def machine_system(case: Path, tmp_path: Path) -> System:
    """The System a machine fixture describes."""
    root = case / "root"
    if (root / "drive-c").is_dir():
        root = tmp_path / "root"
        shutil.copytree(case / "root", root, symlinks=True)
        (root / "drive-c").rename(root / "C:")
    sysinfo = _load_json(case / "system.json")
    nvml: Optional[Callable[[], Any]] = None
    if (case / "nvml.json").is_file():
        data = _load_json(case / "nvml.json")

        def nvml() -> Any:
            return FakeNvml(data)

    return System(
        root=root,
        env=_load_json(case / "env.json"),
        run=FakeRunner(_commands(case)),
        platform=sysinfo["platform"],
        machine=sysinfo["machine"],
        nvml=nvml,
    )


def compared_part(snapshot_json: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in snapshot_json.items() if key not in IGNORED}


def test_there_are_machine_fixtures() -> None:
    assert len(CASES) >= 10


@pytest.mark.parametrize("case", CASES)
def test_machine(case: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    directory = MACHINES / case
    snapshot = detect(machine_system(directory, tmp_path))
    actual = compared_part(snapshot.to_json())
    expected_path = directory / "expected-snapshot.json"
    if request.config.getoption("--update-golden"):
        text = json.dumps(actual, indent=2, sort_keys=True) + "\n"
        expected_path.write_text(text, encoding="utf-8")
        return
    assert expected_path.exists(), f"missing {expected_path}; run pytest --update-golden"
    assert actual == _load_json(expected_path)
