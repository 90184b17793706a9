"""A GPU below every build's code gets one answer from plan, matrix why, check and
doctor: a GTX 670 (sm_30) has no torch wheel since 0.3.1 (torch.toml [[arch_floor]],
read from pytorch/builder's arch lists), even where a build's own list is unknown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envcheck.compat.candidate import from_build
from envcheck.compat.judge import GPU_ARCH, Level, Status, judge
from envcheck.compat.target import Target
from envcheck.doctor import diagnose
from envcheck.matrix import Matrix, load_matrix
from envcheck.model.snapshot import Snapshot
from envcheck.model.versions import parse_compute_capability
from tests.conftest import run_cli

GPU = ("--gpu", "GeForce GTX 670", "--driver", "470.256.02")
FLOOR_SOURCE = "https://github.com/pytorch/builder/commit/d3be5aa9"
FIXTURE = Path(__file__).parents[1] / "fixtures" / "doctor" / "07-k80-470-torch-2.5-cu118.json"


@pytest.fixture(scope="module")
def shipped() -> Matrix:
    return load_matrix(bundled=True)


def test_the_floor_row_is_sourced(shipped: Matrix) -> None:
    floor = shipped.arch_floor("torch", "1.3.1")
    assert floor is not None and str(floor.compute_capability) == "3.5"
    assert floor.origin.verified and floor.origin.source.startswith(FLOOR_SOURCE)


def test_a_build_with_unknown_archs_has_no_kernels_below_the_floor(shipped: Matrix) -> None:
    (build,) = [b for b in shipped.framework_builds("torch") if "1.3.1" in b.versions][:1]
    assert build.archs is None  # the bound, not a recorded list, decides
    cc = parse_compute_capability("3.0")
    assert cc is not None
    verdict = judge(from_build(build, "1.3.1"), Target(gpus=(cc,), nvidia=True), shipped)
    assert verdict.status is Status.FAILS
    (reason,) = verdict.of(GPU_ARCH)
    assert reason.level is Level.ERROR and reason.inferred
    assert "no code below sm_35" in reason.message


def test_a_gpu_at_the_floor_is_still_unknown_for_an_unknown_list(shipped: Matrix) -> None:
    """A K40 (sm_35) is not ruled out: 1.3.1 may be a 3.5 or a 3.7 build."""
    (build,) = [b for b in shipped.framework_builds("torch") if "1.3.1" in b.versions][:1]
    cc = parse_compute_capability("3.5")
    assert cc is not None
    verdict = judge(from_build(build, "1.3.1"), Target(gpus=(cc,), nvidia=True), shipped)
    assert not verdict.of(GPU_ARCH) or verdict.of(GPU_ARCH)[0].level is not Level.ERROR


def test_plan_exits_1_and_names_the_last_cuda_for_sm_30() -> None:
    result = run_cli("plan", "torch", *GPU)
    assert result.exit_code == 1
    text = " ".join(result.stderr.split())
    assert "no torch build matching torch has kernels for sm_30" in text
    assert "torch >=0.3.1 builds carry no code below sm_35" in text
    assert "the last CUDA release that can compile for sm_30 is 10.2" in text
    assert FLOOR_SOURCE in text


def test_matrix_why_agrees() -> None:
    result = run_cli("matrix", "why", "torch==1.3.1", *GPU)
    assert result.exit_code == 1
    assert "does NOT work" in result.stdout
    assert "has no kernels for GeForce GTX 670 (sm_30)" in result.stdout


def test_check_agrees(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("torch==1.3.1\n", encoding="utf-8")
    result = run_cli("check", *GPU, str(tmp_path))
    assert result.exit_code == 1
    assert "has no kernels for GeForce GTX 670 (sm_30)" in " ".join(result.stdout.split())


def test_doctor_agrees(shipped: Matrix) -> None:
    data = json.loads(FIXTURE.read_text(encoding="utf-8"))["snapshot"]
    data["gpus"][0].update(name="NVIDIA GeForce GTX 670", compute_capability=None)
    data["frameworks"][0].update(version="1.3.1", cuda_version="10.1", variant=None)
    report = diagnose(Snapshot.from_json(data), shipped)
    ids = {f.id for f in report.findings}
    assert {"gpu-arch-unsupported", "gpu-legacy-cuda"} <= ids
    (finding,) = [f for f in report.findings if f.id == "gpu-arch-unsupported"]
    assert "sm_30" in finding.title


def test_a_gpu_no_build_runs_on_is_named_before_an_old_driver() -> None:
    """A GTX 280 on its last driver branch (340): a newer driver would run no torch
    build on sm_13, so plan names the GPU, not a driver upgrade it cannot take."""
    result = run_cli("plan", "torch", "--gpu", "GeForce GTX 280", "--driver", "340.108")
    assert result.exit_code == 1
    text = " ".join(result.stderr.split())
    assert "(gpu_arch)" in text and "kernels for sm_13" in text
    assert "upgrade the driver" not in text


def test_a_driver_older_than_every_cuda_row_says_so() -> None:
    result = run_cli("plan", "torch", "--gpu", "RTX 3090", "--driver", "340.108")
    assert result.exit_code == 1
    text = " ".join(result.stderr.split())
    assert "driver 340.108 supports no CUDA release the matrix records" in text
    assert "up to ?" not in text
    assert "upgrade the driver to >= " in text


def test_fermi_hears_the_last_cuda_that_compiles_for_it(shipped: Matrix) -> None:
    """cuda_arch.toml's 7.0 and 8.0 rows (LLVM's per-release nvcc target lists) list
    sm_20/sm_21 and the 9.0 row drops them: the last release is 8.0."""
    for cc in ("2.0", "2.1"):
        parsed = parse_compute_capability(cc)
        assert parsed is not None
        assert str(shipped.last_cuda_for(parsed)) == "8.0"
    result = run_cli("plan", "torch", "--gpu", "GeForce GTX 580")
    assert "the last CUDA release that can compile for sm_20 is 8.0" in " ".join(
        result.stderr.split()
    )
