"""A GPU name NVIDIA gave to boards with different chips (``[[shared_name]]``):
every command judges each chip it may be, a known driver narrows the chips, and
the name is never a ``[[gpu]]`` row too.

The rows here are made up ("GeForce GT 999") so the tests hold whatever the
shipped table lists; the shipped rows are walked by tests/matrix."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from envcheck.compat import judge as J
from envcheck.compat.candidate import from_build
from envcheck.compat.target import Target, resolve_gpu, target_from_flags
from envcheck.doctor import diagnose
from envcheck.errors import InputError
from envcheck.matrix import Matrix, bundled_dir, load_matrix_from
from envcheck.model.snapshot import Snapshot
from envcheck.model.versions import parse_compute_capability
from tests.conftest import run_cli

_ROW = """
[[shared_name]]
name = "GeForce GT 999"
aliases = ["GT 999"]
segment = "geforce"
chips = ["GF108", "GK208B"]
compute_capabilities = ["2.1", "3.5"]
source = "https://example.invalid/shared-name-test"
verified = false
"""
_SEED = (
    Path(__file__).parents[1]
    / "fixtures"
    / "doctor"
    / "41-windows-quadro-rtx5000-tf-1.14-cuda-10.1.json"
)


def _matrix_dir(tmp: Path, extra: str) -> Path:
    where = tmp / "matrices"
    shutil.copytree(bundled_dir(), where)
    with (where / "gpus.toml").open("a", encoding="utf-8") as f:
        f.write(extra)
    return where


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _matrix_dir(tmp_path_factory.mktemp("shared"), _ROW)


@pytest.fixture(scope="module")
def matrix(data_dir: Path) -> Matrix:
    return load_matrix_from(data_dir)


def _cc(text: str):  # type: ignore[no-untyped-def]
    cc = parse_compute_capability(text)
    assert cc is not None
    return cc


def _torch(matrix: Matrix, version: str, variant: str):  # type: ignore[no-untyped-def]
    (build,) = [
        b
        for b in matrix.builds["torch"]
        if version in b.versions
        and b.variant == variant
        and (not b.platforms or "linux-x86_64" in b.platforms)
    ]
    return from_build(build, version)


def test_the_name_matches_no_row_but_its_shared_row(matrix: Matrix) -> None:
    for spelling in ("GeForce GT 999", "NVIDIA GeForce GT 999", "GT 999"):
        assert matrix.gpu_match(spelling) is None
        shared = matrix.gpu_shared(spelling)
        assert shared is not None and shared.chips == ("GF108", "GK208B")
    assert matrix.gpu_shared("GeForce GT 9999") is None


def test_a_flag_without_a_driver_keeps_every_chip(matrix: Matrix) -> None:
    target = target_from_flags(matrix, gpus=("GeForce GT 999",))
    assert target.gpus == ()
    (choice,) = target.gpu_choices
    assert [str(cc) for _, cc in choice.chips] == ["2.1", "3.5"]
    assert "GF108 sm_21 or GK208B sm_35" in target.describe()


def test_a_driver_past_fermi_leaves_the_kepler_chip(matrix: Matrix) -> None:
    """Driver branch 470 no longer supports Fermi (driver_branches.toml [[retired]]):
    a GT 999 it drives is the GK208B board."""
    target = target_from_flags(matrix, gpus=("GeForce GT 999",), driver="470.256.02")
    assert target.gpu_choices == ()
    assert target.gpus == (_cc("3.5"),)
    assert "the only chip" in target.gpu_names[0]


def test_a_build_for_one_chip_only_cannot_be_judged(matrix: Matrix) -> None:
    """torch 1.4.0 (cu92) has sm_37 and newer: not sm_21, nor sm_35."""
    fails = J.judge(
        _torch(matrix, "1.4.0", "cu92"), target_from_flags(matrix, gpus=("GT 999",)), matrix
    )
    assert fails.status is J.Status.FAILS
    arch = [r.message for r in fails.errors if r.code == J.GPU_ARCH]
    assert len(arch) == 2 and "GF108" in arch[0] and "GK208B" in arch[1]

    # torch 1.1.0 (cu90) has sm_35 but nothing for sm_21: the chip decides (driver
    # 390 is the last branch for Fermi, and new enough for CUDA 9.0).
    target = target_from_flags(matrix, gpus=("GeForce GT 999",), driver="390.157")
    either = J.judge(_torch(matrix, "1.1.0", "cu90"), target, matrix)
    assert either.status is J.Status.UNKNOWN
    (tell,) = either.of(J.GPU_ARCH_UNKNOWN)
    assert "runs only on GK208B sm_35" in tell.message
    assert "compute_cap" in tell.message
    assert tell.sources == ("https://example.invalid/shared-name-test (unverified)",)
    assert any(r.message.startswith("if it is GeForce GT 999 (GF108") for r in either.reasons)


def test_a_known_capability_is_judged_as_before(matrix: Matrix) -> None:
    """The same build on the same machine with the capability given: one answer."""
    plain = Target(os="linux", arch="x86_64", gpus=(_cc("3.5"),), nvidia=True)
    assert J.judge(_torch(matrix, "1.1.0", "cu90"), plain, matrix).runs


def test_plan_and_why_agree(data_dir: Path) -> None:
    env = {"ENVCHECK_MATRIX": str(data_dir)}
    why = run_cli(
        "matrix", "why", "torch==2.5.1+cu124", "--gpu", "GT 999", "--driver", "550.54.15", env=env
    )
    assert why.exit_code == 1
    assert "GF108, sm_21" in why.stdout and "GK208B, sm_35" in why.stdout
    plan = run_cli("plan", "torch", "--gpu", "GT 999", "--driver", "390.157", env=env)
    assert plan.exit_code == 0, plan.stderr
    assert "runs only on GK208B sm_35" in " ".join(plan.stderr.split())


def test_check_and_declared_targets_ask_for_the_capability(matrix: Matrix) -> None:
    with pytest.raises(ValueError, match=r"GF108 sm_21 or GK208B sm_35.*compute_cap"):
        resolve_gpu("GeForce GT 999", matrix)


def _snapshot(name: str, driver: str) -> Snapshot:
    data = json.loads(_SEED.read_text(encoding="utf-8"))["snapshot"]
    data["gpus"][0].update(name=name, compute_capability=None)
    data["driver"]["version"] = driver
    return Snapshot.from_json(data)


def test_the_doctor_says_several_chips_not_unknown(matrix: Matrix) -> None:
    report = diagnose(_snapshot("GeForce GT 999", "391.35"), matrix)
    ids = {f.id for f in report.findings}
    assert "gpu-unknown" not in ids
    (finding,) = [f for f in report.findings if f.id == "gpu-several-chips"]
    assert "GF108 sm_21 or GK208B sm_35" in finding.title
    # Even the newer chip is below what current CUDA releases target.
    (legacy,) = [f for f in report.findings if f.id == "gpu-legacy-cuda"]
    assert "GT 999" in legacy.title and "sm_35" in legacy.title
    # The capability line names each chip's architecture, not "unknown".
    (caps,) = [f for f in report.findings if f.id == "gpu-capabilities"]
    assert caps.title.endswith(": Fermi or Kepler")
    assert caps.evidence[0] == "compute capability 2.1 or 3.5"


def test_the_doctor_narrows_by_the_snapshot_driver(matrix: Matrix) -> None:
    report = diagnose(_snapshot("NVIDIA GeForce GT 999", "472.12"), matrix)
    assert "gpu-several-chips" not in {f.id for f in report.findings}
    (caps,) = [f for f in report.findings if f.id == "gpu-capabilities"]
    assert "inferred from the driver: GK208B is the only chip" in caps.evidence[0]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            _ROW.replace('["GT 999"]', '["GTX 680"]'),
            "shared name 'GTX 680' is also the [[gpu]] row 'GeForce GTX 680'",
        ),
        (_ROW.replace("GeForce GT 999", "GeForce GTX 680"), "duplicate GPU name"),
        (_ROW.replace('["2.1", "3.5"]', '["3.5", "3.5"]'), "two or more different"),
        (_ROW.replace('["2.1", "3.5"]', '["2.1"]'), "2 chips but 1 compute"),
    ],
)
def test_bad_rows_are_refused_with_their_line(tmp_path: Path, extra: str, message: str) -> None:
    where = _matrix_dir(tmp_path, extra)
    with pytest.raises(InputError) as info:
        load_matrix_from(where)
    assert message in str(info.value)
    assert "gpus.toml" in str(info.value)


@pytest.mark.parametrize(
    ("driver", "branch"),
    [("472.12", 470), ("474.04", 470), ("391.35", 390), ("581.57", 580), ("470.256.02", 470)],
)
def test_a_windows_driver_number_belongs_to_its_branch(driver: str, branch: int) -> None:
    """Windows drivers of one branch run past its number (R470: 471.11 to 474.xx)."""
    from envcheck.model.versions import parse_driver_version

    shipped = load_matrix_from(bundled_dir())
    parsed = parse_driver_version(driver)
    assert parsed is not None and shipped.branch_of(parsed) == branch


@pytest.mark.parametrize(
    ("gpu", "driver", "dropped"),
    [
        ("GeForce GTX 1080", "581.57", False),  # R580, the last for Pascal
        ("GeForce GTX 1080", "591.44", True),  # R590 dropped Pascal
        ("Tesla K80", "472.12", False),  # R470, the last for Kepler
        ("Tesla K80", "511.65", True),
    ],
)
def test_retired_architectures_follow_the_windows_branch(
    gpu: str, driver: str, dropped: bool
) -> None:
    shipped = load_matrix_from(bundled_dir())
    target = target_from_flags(shipped, gpus=(gpu,), driver=driver, os_name="windows")
    reasons = J.gpu_driver_reasons(target, shipped)
    assert bool(reasons) is dropped, reasons
