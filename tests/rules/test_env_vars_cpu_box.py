"""CPU CI boxes hide GPUs on purpose: with no GPU and no driver observed, a
hiding variable is information; with a GPU or a driver, or when neither is
known, it keeps its severity."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from envcheck.doctor import diagnose
from envcheck.matrix import Matrix
from envcheck.model.finding import Severity
from envcheck.rules.env_vars import (
    CUDA_VISIBLE_DEVICES_HIDES,
    NVIDIA_CAPABILITIES_NO_COMPUTE,
    NVIDIA_VISIBLE_DEVICES_NONE,
)
from tests.conftest import run_cli
from tests.rules.snapshots import snap

RTX4090 = {"index": 0, "name": "NVIDIA GeForce RTX 4090", "compute_capability": "8.9"}
DETECTED = ["platform", "env", "python", "driver", "toolkits", "libraries", "frameworks"]
"""The probes of a real detection: the driver probe ran, so what it did not find is absent."""


def severities(matrix: Matrix, **parts: Any) -> dict[str, Severity]:
    return {f.id: f.severity for f in diagnose(snap(**parts), matrix).findings}


@pytest.mark.parametrize("value", ["", "-1", "NoDevFiles"])
def test_cuda_visible_devices_on_a_cpu_box_is_information(mini_matrix: Matrix, value: str) -> None:
    found = severities(mini_matrix, probes=DETECTED, env={"CUDA_VISIBLE_DEVICES": value})
    assert found[CUDA_VISIBLE_DEVICES_HIDES] is Severity.INFO


@pytest.mark.parametrize(
    "parts",
    [
        {"gpus": [RTX4090]},
        {"driver": {"version": "550.54.14"}},
        {},  # a hand-written snapshot: whether the machine has a GPU is unknown
    ],
    ids=["gpu", "driver", "unknown"],
)
def test_cuda_visible_devices_stays_an_error_unless_no_gpu_was_observed(
    mini_matrix: Matrix, parts: dict[str, Any]
) -> None:
    probes = DETECTED if parts else []
    found = severities(mini_matrix, probes=probes, env={"CUDA_VISIBLE_DEVICES": "-1"}, **parts)
    assert found[CUDA_VISIBLE_DEVICES_HIDES] is Severity.ERROR


def test_container_hiding_variables_on_a_cpu_box_are_information(mini_matrix: Matrix) -> None:
    env = {"NVIDIA_VISIBLE_DEVICES": "void", "NVIDIA_DRIVER_CAPABILITIES": "utility"}
    cpu = severities(mini_matrix, probes=DETECTED, env=env)
    assert cpu[NVIDIA_VISIBLE_DEVICES_NONE] is Severity.INFO
    assert cpu[NVIDIA_CAPABILITIES_NO_COMPUTE] is Severity.INFO
    gpu = severities(mini_matrix, probes=DETECTED, env=env, driver={"version": "550.54.14"})
    assert gpu[NVIDIA_VISIBLE_DEVICES_NONE] is Severity.ERROR
    assert gpu[NVIDIA_CAPABILITIES_NO_COMPUTE] is Severity.WARNING


def _write(tmp_path: Path, data: dict[str, Any]) -> str:
    import json

    path = tmp_path / "snap.json"
    path.write_text(json.dumps({"schema": "envcheck.snapshot/1", **data}), encoding="utf-8")
    return str(path)


def test_doctor_exits_0_on_a_cpu_ci_box_with_cuda_visible_devices_empty(tmp_path: Path) -> None:
    data = {
        "platform": {"os": "linux", "arch": "x86_64"},
        "python": {"version": "3.11.9"},
        "env": {"CUDA_VISIBLE_DEVICES": ""},
        "probes": list(DETECTED),
    }
    code, out, err = run_cli("doctor", "--snapshot", _write(tmp_path, data))
    assert code == 0, out + err
    assert (
        f"INFO  CUDA_VISIBLE_DEVICES would hide every GPU (it is empty)  [{CUDA_VISIBLE_DEVICES_HIDES}]"
        in out
    )
    with_driver = {**data, "driver": {"version": "550.54.14"}}
    assert run_cli("doctor", "--snapshot", _write(tmp_path, with_driver)).exit_code == 1
