"""A CPU->CUDA fix, run by the real pip against a local index, leaves no +cpu companion.

pip compares only the public version against ``==X`` (PEP 440: a local label matches
a pin without one), so with ``torchvision 0.28.0+cpu`` installed, ``pip install
torch==2.13.0 torchvision==0.28.0 --index-url .../cu126`` keeps that torchvision. The
doctor's fix must uninstall what the pins would otherwise leave in place. The index
is a directory of metadata-only stub wheels (tests/resolve/stubwheels.py): no network.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from envcheck.doctor import diagnose
from envcheck.model.snapshot import Snapshot
from tests.resolve.stubwheels import write_simple_index, write_stub_wheel

CU126 = "https://download.pytorch.org/whl/cu126"


def _pip(python: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # The test interpreter's pip, installing into the bare venv of ``python``.
    argv = [sys.executable, "-m", "pip", "--isolated", "--disable-pip-version-check"]
    argv += ["--python", str(python), *args]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)


def _installed(python: Path) -> dict[str, str]:
    """Name -> version of what the venv of ``python`` holds (read from its files)."""
    from importlib.metadata import distributions

    env = python.parent.parent
    sites = [str(p) for p in env.glob("lib/python*/site-packages")] + [
        str(env / "Lib/site-packages")
    ]
    return {d.metadata["Name"].lower(): d.version for d in distributions(path=sites)}


def _cpu_env(tmp_path: Path, cpu_links: Path) -> Path:
    env = tmp_path / "env"
    subprocess.run(  # argv list, no shell
        [sys.executable, "-m", "venv", "--without-pip", str(env)], check=True, timeout=60
    )
    python = env / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    done = _pip(
        python,
        "install",
        "--no-index",
        "--find-links",
        str(cpu_links),
        "torch==2.13.0+cpu",
        "torchvision==0.28.0+cpu",
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return python


def _run(command: str, python: Path, index: str) -> None:
    """Run one emitted ``pip ...`` line with the local index in place of the real one."""
    argv = shlex.split(command)
    assert argv[0] == "pip", command
    argv = [index if a == CU126 else a for a in argv[1:]]
    done = _pip(python, *argv)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow
@pytest.mark.real_machine
def test_cpu_to_cuda_fix_leaves_no_cpu_companion(matrix: Any, tmp_path: Path) -> None:
    cpu = tmp_path / "cpu"
    write_stub_wheel(cpu, "torch", "2.13.0+cpu")
    write_stub_wheel(cpu, "torchvision", "0.28.0+cpu", ["torch==2.13.0"])
    cuda = tmp_path / "cuda-wheels"
    wheels = [
        write_stub_wheel(cuda, "torch", "2.13.0+cu126"),
        write_stub_wheel(cuda, "torchvision", "0.28.0+cu126", ["torch==2.13.0"]),
    ]
    index = write_simple_index(tmp_path / "cu126", wheels)

    # The doctor on the machine of the issue: CPU wheels, an RTX 4090, a CUDA 12.6 driver.
    snapshot = Snapshot.from_json(
        {
            "schema": "envcheck.snapshot/1",
            "platform": {"os": "linux", "arch": "x86_64"},
            "python": {"version": "3.12.3", "env_kind": "venv"},
            "driver": {"version": "560.35.03"},
            "gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 4090"}],
            "frameworks": [
                {"name": "torch", "version": "2.13.0+cpu", "cpu_only": True, "variant": "cpu"}
            ],
            "packages": {"torch": "2.13.0+cpu", "torchvision": "0.28.0+cpu"},
        }
    )
    (finding,) = [f for f in diagnose(snapshot, matrix).findings if f.id == "cpu-only-build"]
    commands = [ln.strip() for ln in (finding.fix or "").splitlines()[1:]]
    install = commands[-1]
    assert install.startswith("pip install torch==2.13.0 torchvision==0.28.0"), commands
    assert f"--index-url {CU126}" in install, commands

    # Without the uninstall, pip keeps the +cpu torchvision: what the fix must prevent.
    python = _cpu_env(tmp_path, cpu)
    _run(install, python, index)
    assert _installed(python)["torchvision"] == "0.28.0+cpu"

    python = _cpu_env(tmp_path / "again", cpu)
    for command in commands:
        _run(command, python, index)
    after = _installed(python)
    assert after["torch"] == "2.13.0+cu126"
    assert after["torchvision"] == "0.28.0+cu126"
    assert not [name for name, v in after.items() if v.endswith("+cpu")]
