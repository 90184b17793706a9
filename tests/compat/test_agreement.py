"""One answer per question from every command: platform support, Keras and companion pairs.

Each case is asked through the judge's consumers (``matrix why``, ``plan``,
``check`` on a requirements file, the doctor on a snapshot with the same packages
installed, ``fleet report`` over a one-node fleet of that snapshot, explain on the same
machine as a pasted session) and all must say the same thing: fails or works. The build grid for
torch is in test_judge.py; this covers the questions decided beside the build
verdict (compat/platform.py, compat/keras.py). Shipped matrix.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from envcheck.check.check import check_pins
from envcheck.check.model import Environment, Project
from envcheck.check.parse_requirements import parse_requirements
from envcheck.compat.target import Target, target_from_flags
from envcheck.doctor import diagnose
from envcheck.explain import explain
from envcheck.fleet.records import Entry
from envcheck.fleet.report import build_report
from envcheck.model.snapshot import Snapshot
from envcheck.resolve.plan import plan
from envcheck.why import explain_specs

_ADA = ("550.54.15", "NVIDIA GeForce RTX 4090", "8.9")
_TURING = ("431.86", "Quadro RTX 5000", "7.5")
"""The seed machine's GPU and a Windows driver of its time (CUDA 10.1)."""
_HOPPER = ("550.54.15", "NVIDIA H100 80GB HBM3", "9.0")
"""A data-centre board (named in prose without a brand) on a CUDA 12.4 driver."""
_AMPERE = ("550.54.15", "NVIDIA GeForce RTX 3090", "8.6")

# (pins, os, python, machine, fails, the doctor finding that says so)
_CASES = [
    (("tensorflow==2.15.1",), "windows", "3.10", _ADA, True, "no-gpu-build-for-platform"),
    (("tensorflow==2.10.1",), "windows", "3.10", _ADA, False, None),
    (("jax==0.4.30",), "windows", "3.10", _ADA, True, "no-gpu-build-for-platform"),
    (("tensorflow==2.15.1",), "linux", "3.10", _ADA, False, None),
    (
        ("tensorflow==2.15.1", "keras==3.3.3"),
        "linux",
        "3.10",
        _ADA,
        True,
        "keras-tensorflow-conflict",
    ),
    (("tensorflow==2.15.1", "keras==2.15.0"), "linux", "3.10", _ADA, False, None),
    (
        ("tensorflow==2.16.1", "keras==2.15.0"),
        "linux",
        "3.10",
        _ADA,
        True,
        "keras-tensorflow-conflict",
    ),
    (("tensorflow-gpu==1.14.0", "keras==2.2.5"), "linux", "3.6", _TURING, False, None),
    (
        ("tensorflow-gpu==1.14.0", "keras==2.4.3"),
        "linux",
        "3.6",
        _TURING,
        True,
        "keras-tensorflow-conflict",
    ),
    (("tensorflow-gpu==1.14.0", "keras==2.2.5"), "windows", "3.6", _TURING, False, None),
    (("tensorflow-gpu==1.14.0",), "linux", "3.6", _ADA, True, "gpu-arch-unsupported"),
    # PTX only for sm_90, from CUDA 12.5, which a 12.4 driver cannot JIT: a failure.
    (("tensorflow==2.21.0",), "linux", "3.11", _HOPPER, True, "gpu-arch-ptx-only"),
    (("tensorflow==2.21.0",), "linux", "3.11", _ADA, False, None),
    # CUDA 10 libraries predate Ampere.
    (("torch==1.4.0",), "linux", "3.7", _AMPERE, True, "gpu-arch-unsupported"),
    # Companions: torchvision 0.19.0 is torch 2.4.0's; 0.20.1 is 2.5.1's.
    (
        ("torch==2.5.1", "torchvision==0.19.0"),
        "linux",
        "3.11",
        _ADA,
        True,
        "companion-torch-mismatch",
    ),
    (("torch==2.5.1", "torchvision==0.20.1"), "linux", "3.11", _ADA, False, None),
    (
        ("torch==2.5.1", "torchaudio==2.4.0"),
        "linux",
        "3.11",
        _ADA,
        True,
        "companion-torch-mismatch",
    ),
]


def _target(matrix: Any, os_name: str, python: str, machine: tuple[str, str, str]) -> Target:
    driver, gpu, _ = machine
    t = target_from_flags(matrix, driver=driver, gpus=(gpu,), python=python, os_name=os_name)
    return replace(t, arch="x86_64")


def _check_fails(pins: tuple[str, ...], target: Target, matrix: Any) -> bool:
    parsed = parse_requirements("".join(f"{p}\n" for p in pins), "requirements.txt")
    env = Environment("requirements.txt", parsed.pins, parsed.indexes)
    report = check_pins(Project(("requirements.txt",), (env,)), target, matrix)
    return any(p.severity == "error" for p in report.problems)


def _snapshot_json(
    pins: tuple[str, ...], os_name: str, python: str, machine: tuple[str, str, str]
) -> dict[str, Any]:
    frameworks = []
    packages = dict(pin.split("==") for pin in pins)
    for pin in pins:
        package, version = pin.split("==")
        if package in ("torchvision", "torchaudio"):
            continue  # companions are packages beside torch, not frameworks
        name = "tensorflow" if package.startswith("tensorflow") else package
        frameworks.append({"name": name, "version": version, "package": package})
    return {
        "schema": "envcheck.snapshot/1",
        "platform": {"os": os_name, "arch": "x86_64"},
        "python": {"version": f"{python}.9"},
        "driver": {"version": machine[0]},
        "gpus": [{"index": 0, "name": machine[1], "compute_capability": machine[2]}],
        "frameworks": frameworks,
        "packages": packages,
    }


def _snapshot(
    pins: tuple[str, ...], os_name: str, python: str, machine: tuple[str, str, str]
) -> Snapshot:
    return Snapshot.from_json(_snapshot_json(pins, os_name, python, machine))


def _message(
    pins: tuple[str, ...], os_name: str, python: str, machine: tuple[str, str, str]
) -> str:
    """The same machine and install as a pasted session: the interpreter's banner, the
    nvidia-smi header, the GPU named in prose, the pip command and its summary."""
    prompt = "C:\\Users\\me>" if os_name == "windows" else "$"
    installed = " ".join(p.replace("==", "-") for p in pins)
    return (
        f"Python {python}.9 (default, Jan  1 2024, 00:00:00)\n"
        f"| NVIDIA-SMI {machine[0]}   Driver Version: {machine[0]}   CUDA Version: 12.4 |\n"
        f"I have a {machine[1]}\n"
        f"{prompt} pip install {' '.join(pins)}\n"
        f"Successfully installed {installed}\n"
    )


@pytest.mark.parametrize(("pins", "os_name", "python", "machine", "fails", "finding"), _CASES)
def test_every_command_gives_one_answer(
    matrix: Any,
    pins: tuple[str, ...],
    os_name: str,
    python: str,
    machine: tuple[str, str, str],
    fails: bool,
    finding: Any,
) -> None:
    target = _target(matrix, os_name, python, machine)
    errors = {
        f.id
        for f in diagnose(_snapshot(pins, os_name, python, machine), matrix).findings
        if f.severity.value == "error"
    }
    answers = {
        "why": not explain_specs(pins, target, matrix).works,
        "plan": not plan(pins, target, matrix).ok,
        "check": _check_fails(pins, target, matrix),
        "doctor": bool(errors),
        "fleet": any(
            g.finding.severity.value == "error"
            for g in build_report(
                [
                    Entry(
                        "node1",
                        "nodes.jsonl:1",
                        "ok",
                        _snapshot_json(pins, os_name, python, machine),
                    )
                ],
                matrix,
            ).findings
        ),
        "explain": any(
            f.severity.value == "error"
            for f in explain(_message(pins, os_name, python, machine), None, matrix).findings
        ),
    }
    assert answers == dict.fromkeys(answers, fails), (answers, sorted(errors))
    if finding is not None:
        assert finding in errors
