"""A target known to have no NVIDIA GPU gets CPU builds; a GPU target still gets CUDA builds.

The CPU picks are read off the CPU rows of the shipped matrices (PyPI file lists):
jax.toml (jaxlib CPU wheels; plain jax from 0.4.30, jax[cpu] before), tensorflow.toml
(tensorflow-cpu wheels), onnxruntime.toml (onnxruntime wheels), torch.toml (the cpu index).
"""

from __future__ import annotations

from typing import Any, Optional

import pytest

from envcheck.compat.target import Target
from envcheck.model.versions import parse_compute_capability, parse_driver_version
from envcheck.resolve.plan import plan
from tests.conftest import run_cli

A100_DRIVER = ("--gpu", "A100", "--driver", "550.54.14")


def no_gpu(python: Optional[str] = None, os: str = "linux", arch: str = "x86_64") -> Target:
    return Target(os=os, arch=arch, python=python, nvidia=False)


def a100(python: Optional[str] = None) -> Target:
    return Target(
        os="linux",
        arch="x86_64",
        driver=parse_driver_version("550.54.14"),
        gpus=(parse_compute_capability("8.0"),),
        python=python,
        nvidia=True,
    )


def _got(result: Any) -> dict[str, str]:
    return {p.package: f"{p.version} {p.variant}" for p in result.picks}


def _reqs(result: Any) -> list[str]:
    return [p.requirement for p in result.picks]


@pytest.mark.parametrize(
    ("requests", "target", "picks", "reqs"),
    [
        # jaxlib 0.12.0.1 has cp312-cp315 wheels; from 0.4.30 plain jax brings the CPU jaxlib.
        (("jax",), no_gpu("3.12"), {"jax": "0.12.0.1 cpu"}, ["jax==0.12.0.1"]),
        # Python 3.11: jaxlib 0.11+ ships no cp311 wheel; 0.10.2 does.
        (("jax",), no_gpu("3.11"), {"jax": "0.10.2 cpu"}, ["jax==0.10.2"]),
        # Before 0.4.30 plain jax brings no jaxlib: the CPU build is jax[cpu].
        (("jax==0.4.20",), no_gpu("3.10"), {"jax": "0.4.20 cpu"}, ["jax[cpu]==0.4.20"]),
        (("jax[cpu]",), no_gpu("3.12"), {"jax": "0.12.0.1 cpu"}, ["jax[cpu]==0.12.0.1"]),
        # jaxlib 0.12.0.1 has macOS arm64 and win_amd64 CPU wheels.
        (("jax",), no_gpu("3.12", os="macos", arch="aarch64"), {"jax": "0.12.0.1 cpu"}, None),
        (("jax",), no_gpu("3.12", os="windows"), {"jax": "0.12.0.1 cpu"}, None),
        # tensorflow-cpu 2.21.0: cp310-cp313, Linux and Windows.
        (
            ("tensorflow",),
            no_gpu("3.12"),
            {"tensorflow-cpu": "2.21.0 cpu"},
            ["tensorflow-cpu==2.21.0"],
        ),
        (
            ("tensorflow==2.15.*",),
            no_gpu("3.10"),
            {"tensorflow-cpu": "2.15.1 cpu"},
            ["tensorflow-cpu==2.15.1"],
        ),
        # 2.0.x has no tensorflow-cpu: its plain tensorflow package is the CPU build.
        (("tensorflow==2.0.0",), no_gpu("3.7"), {"tensorflow": "2.0.0 cpu"}, None),
        (("onnxruntime==1.16.3",), no_gpu("3.11"), {"onnxruntime": "1.16.3 cpu"}, None),
    ],
)
def test_no_nvidia_gpu_plans_cpu_builds(
    requests: tuple[str, ...],
    target: Target,
    picks: dict[str, str],
    reqs: Optional[list[str]],
    matrix: Any,
) -> None:
    result = plan(requests, target, matrix)
    assert result.unsatisfiable is None, str(result.unsatisfiable)
    assert _got(result) == picks
    if reqs is not None:
        assert _reqs(result) == reqs


def test_torch_jax_tensorflow_without_a_gpu_are_all_cpu(matrix: Any) -> None:
    result = plan(("torch", "jax", "tensorflow"), no_gpu("3.12"), matrix)
    assert result.unsatisfiable is None, str(result.unsatisfiable)
    assert {p.package: p.variant for p in result.picks} == {
        "torch": "cpu",
        "jax": "cpu",
        "tensorflow-cpu": "cpu",
    }
    assert all(p.cuda is None and not p.extra for p in result.picks)


def test_a_gpu_target_still_gets_cuda_builds(matrix: Any) -> None:
    result = plan(("torch", "jax", "tensorflow"), a100("3.12"), matrix)
    assert result.unsatisfiable is None, str(result.unsatisfiable)
    got = {p.package: p for p in result.picks}
    assert set(got) == {"torch", "jax", "tensorflow"}
    assert all(p.cuda is not None for p in got.values())
    assert got["jax"].extra == "cuda12"  # driver 550 < 580: not CUDA 13
    assert got["tensorflow"].extra == "and-cuda"


def test_an_explicit_cpu_distribution_is_honoured_on_a_gpu_target(matrix: Any) -> None:
    result = plan(("tensorflow-cpu",), a100("3.12"), matrix)
    assert _got(result) == {"tensorflow-cpu": "2.21.0 cpu"}


def test_cli_gpu_none_and_gpu_a100() -> None:
    code, out, err = run_cli("plan", "torch", "jax", "tensorflow", "--gpu", "none")
    assert code == 0, err
    assert "whl/cpu" in out
    assert "tensorflow-cpu==" in out
    assert "jax==" in out
    assert "cuda" not in out.replace("--index-url https://download.pytorch.org/whl/cpu", "")
    code, out, err = run_cli("plan", "torch", "jax", "tensorflow", *A100_DRIVER)
    assert code == 0, err
    assert "jax[cuda12]" in out
    assert "tensorflow[and-cuda]" in out
    assert "whl/cu" in out and "whl/cpu" not in out


def test_the_cpu_extra_is_an_explicit_cpu_request_on_a_gpu_machine(matrix: Any) -> None:
    from envcheck.compat.target import target_from_flags
    from envcheck.resolve.plan import plan

    target = target_from_flags(matrix, driver="550.54.14", gpus=("A100",), os_name="linux")
    result = plan(["jax[cpu]"], target, matrix)
    assert result.ok
    (pick,) = [p for p in result.picks if p.framework == "jax"]
    assert pick.variant == "cpu" and pick.cuda is None
