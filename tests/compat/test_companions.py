"""compat.companions: a torchvision/torchaudio release against the torch release and
variant beside it (shipped matrix: torch.toml's [[companion]] rows)."""

from __future__ import annotations

from typing import Any

import pytest

from envcheck.check.check import check_pins
from envcheck.check.model import Environment, Project
from envcheck.check.parse_requirements import parse_requirements
from envcheck.compat.companions import (
    COMPANION_RELEASE,
    COMPANION_VARIANT,
    companion_reason,
    companion_variant_reason,
    paired_torch,
)
from envcheck.compat.target import target_from_flags
from envcheck.doctor import diagnose
from envcheck.model.snapshot import Snapshot


@pytest.mark.parametrize(
    ("torch", "package", "version", "fails"),
    [
        ("2.5.1", "torchvision", "0.20.1", False),
        ("2.5.1+cu124", "torchvision", "0.20.1+cu124", False),
        ("2.5.1", "torchvision", "0.19.0", True),
        ("2.4.0", "torchaudio", "2.5.1", True),
        ("1.3.0", "torchvision", "0.4.1", False),
        ("1.3.1", "torchvision", "0.4.1", True),
    ],
)
def test_the_release_pairing_is_the_companion_rows(
    matrix: Any, torch: str, package: str, version: str, fails: bool
) -> None:
    reason = companion_reason(torch, package, version, matrix)
    assert (reason is not None) is fails
    if reason is not None:
        assert reason.code == COMPANION_RELEASE
        assert reason.sources  # the row that says so


def test_a_companion_names_the_torch_it_was_built_for(matrix: Any) -> None:
    assert paired_torch("torchvision", "0.19.0", matrix) == ("2.4.0",)
    reason = companion_reason("2.5.1", "torchvision", "0.19.0", matrix)
    assert reason is not None and "built for torch 2.4.0" in reason.message


def test_a_pair_the_rows_do_not_cover_is_not_judged(matrix: Any) -> None:
    assert companion_reason("2.5.1", "torchvision", "9.9.9", matrix) is None
    assert companion_reason("9.9.9", "torchvision", "9.9.9", matrix) is None
    # NVIDIA's containers build both from source against each other.
    assert companion_reason("2.5.0a0+e000cf0ad9.nv24.10", "torchvision", "0.20.0a0", matrix) is None
    assert companion_reason("2.5.1", "torchvision", "0.20.0a0+git1234", matrix) is None


@pytest.mark.parametrize(
    ("torch", "companion", "fails"),
    [
        ("2.5.1+cu124", "0.20.1+cpu", True),  # no CUDA kernels
        ("2.5.1+cu118", "0.20.1+cu124", True),  # another CUDA major
        ("2.5.1+cu121", "0.20.1+cu124", False),  # same major: torchvision loads
        ("1.4.0+cu92", "0.5.0+cu101", True),  # 9 vs 10, not "92" vs "10"
        ("2.5.1+cpu", "0.20.1+cu124", False),  # nothing CUDA runs beside a CPU torch
        ("2.5.1", "0.20.1+cpu", False),  # torch's variant not recorded: unknown
    ],
)
def test_the_variant_is_the_local_labels(torch: str, companion: str, fails: bool) -> None:
    reason = companion_variant_reason(torch, "torchvision", companion)
    assert (reason is not None) is fails
    if reason is not None:
        assert reason.code == COMPANION_VARIANT


def _torch_4090(torch: str, torchvision: str) -> Snapshot:
    """A Linux RTX 4090 on driver 550 with ``torch`` and ``torchvision`` installed."""
    return Snapshot.from_json(
        {
            "platform": {"os": "linux", "arch": "x86_64"},
            "python": {"version": "3.11.9"},
            "driver": {"version": "550.54.15"},
            "gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 4090", "compute_capability": "8.9"}],
            "frameworks": [{"name": "torch", "version": torch, "package": "torch"}],
            "packages": {"torch": torch, "torchvision": torchvision},
        }
    )


def test_the_doctor_and_check_agree_and_the_fix_is_the_resolvers(matrix: Any) -> None:
    snap = _torch_4090("2.5.1+cu124", "0.19.0+cu124")
    found = [f for f in diagnose(snap, matrix).findings if f.id == "companion-torch-mismatch"]
    assert [f.severity.value for f in found] == ["error"]
    assert "torchvision==0.20.1" in (found[0].fix or "")
    target = target_from_flags(matrix, driver="550.54.15", gpus=("RTX 4090",), os_name="linux")
    parsed = parse_requirements("torch==2.5.1\ntorchvision==0.19.0\n", "requirements.txt")
    env = Environment("requirements.txt", parsed.pins, parsed.indexes)
    problems = check_pins(Project(("requirements.txt",), (env,)), target, matrix).problems
    assert [(p.location.line, p.code) for p in problems if p.code == "EC109"] == [(2, "EC109")]


def test_the_fix_keeps_the_installed_torch_variant(matrix: Any) -> None:
    """torch 2.5.1+cu118 with torch 2.4's torchvision: the fix installs 2.5.1's torchvision
    from the cu118 index beside the same torch, and removes nothing first."""
    snap = _torch_4090("2.5.1+cu118", "0.19.0+cu118")
    found = next(f for f in diagnose(snap, matrix).findings if f.id == "companion-torch-mismatch")
    fix = found.fix or ""
    assert "torchvision==0.20.1" in fix and "/whl/cu118" in fix
    assert "uninstall" not in fix
