"""TensorFlow 2.x compiled architectures, read from the PyPI wheels (issue 13).

The lists in matrices/tensorflow.toml were read from the entry headers of every CUDA
fatbinary in one sha256-checked wheel per release (each row's note names the wheel):
TF 2.13 carries SASS sm_35/50/60/70/75 and PTX compute_80 (the same list its
build_info.py states), TF 2.17-2.21 SASS sm_60/70/80/89 and PTX compute_90, and
TF 2.16 SASS sm_50/60/70/80 and PTX compute_90.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import run_cli

pytest.importorskip("packaging")


@pytest.fixture(scope="module")
def shipped() -> Any:
    from envcheck.matrix import bundled_dir, load_matrix_from

    return load_matrix_from(bundled_dir())


def _row(matrix: Any, version: str, package: str = "tensorflow", extra: Any = None) -> Any:
    (row,) = [
        b
        for b in matrix.builds_for("tensorflow", version)
        if b.package == package
        and b.extra == extra
        and b.cuda is not None
        and "linux-x86_64" in b.platforms
    ]
    return row


@pytest.mark.parametrize(
    ("version", "archs", "ptx"),
    [
        ("2.21.0", ["6.0", "7.0", "8.0", "8.9"], ["9.0"]),
        ("2.17.1", ["6.0", "7.0", "8.0", "8.9"], ["9.0"]),
        ("2.16.2", ["5.0", "6.0", "7.0", "8.0"], ["9.0"]),
        ("2.15.1", ["5.0", "6.0", "7.0", "7.5"], ["8.0"]),
        ("2.13.1", ["3.5", "5.0", "6.0", "7.0", "7.5"], ["8.0"]),
    ],
)
def test_wheel_read_lists(shipped: Any, version: str, archs: list[str], ptx: list[str]) -> None:
    for extra in (None, "and-cuda") if version >= "2.14" else (None,):
        row = _row(shipped, version, extra=extra)
        assert [str(a) for a in row.archs] == archs, (version, extra)
        assert [str(p) for p in row.ptx] == ptx, (version, extra)
        assert "sha256 matched PyPI" in row.origin.note
        assert f"tensorflow-{version}-" in row.origin.note


def test_every_read_tf_row_names_its_wheels(shipped: Any) -> None:
    """A TF row with archs names, for every release it covers, the wheel read."""
    silent = []
    for b in shipped.framework_builds("tensorflow"):
        if b.archs is None:
            continue
        note = b.origin.note or ""
        dist = b.package.replace("-", "_")
        for v in b.versions:
            if f"{dist}-{v}-" not in note and f"{b.package}-{v}-" not in note:
                silent.append(f"{b.package} {v} {b.platforms}")
    assert silent == []


def test_gtx_680_has_no_kernels_in_tf_2_13() -> None:
    # Kepler sm_30: SASS starts at sm_35, and PTX compute_80 cannot JIT to 3.0.
    code, out, _ = run_cli(
        "matrix", "why", "tensorflow==2.13.1", "--gpu", "GTX 680", "--driver", "470"
    )
    assert code == 1, out
    assert "has no kernels for GeForce GTX 680 (sm_30)" in out
    assert "sm_35, sm_50, sm_60, sm_70, sm_75 + PTX 8.0" in out


def test_rtx_4090_jits_tf_2_13_and_runs_tf_2_21_natively() -> None:
    code, out, _ = run_cli("matrix", "why", "tensorflow==2.13.1", "--gpu", "RTX 4090")
    assert code == 0, out
    assert "only by JIT-compiling PTX for 8.0" in out
    code, out, _ = run_cli("matrix", "why", "tensorflow==2.21.0", "--gpu", "RTX 4090")
    assert code == 0, out
    assert "has kernels for GeForce RTX 4090 (sm_89) (SASS for sm_89)" in out


def test_rtx_5090_runs_tf_only_through_ptx() -> None:
    # TF 2.13 loads the system's CUDA 11.x cuBLAS/cuDNN: no CUDA 11 release compiles for
    # sm_120 (12.8 is the first), so its own PTX does not help them.
    code, out, _ = run_cli(
        "matrix", "why", "tensorflow==2.13.1", "--gpu", "RTX 5090", "--driver", "575"
    )
    assert code == 1, out
    assert "its CUDA 11.x libraries (cuBLAS, cuDNN) predate the GPU's architecture" in out
    # TF 2.21 (CUDA 12.5) may load a 12.8+ cuBLAS of its major: PTX JIT, a warning.
    code, out, _ = run_cli(
        "matrix", "why", "tensorflow==2.21.0", "--gpu", "RTX 5090", "--driver", "575"
    )
    assert code == 0, out
    assert "only by JIT-compiling PTX for 9.0" in out


def test_maxwell_lost_its_kernels_in_tf_2_17() -> None:
    # TF 2.16 still carries sm_50 SASS; 2.17 starts at sm_60 and its PTX is compute_90.
    code, out, _ = run_cli("matrix", "why", "tensorflow==2.16.2", "--gpu", "GTX 980")
    assert code == 0, out
    assert "SASS for sm_50" in out
    code, out, _ = run_cli("matrix", "why", "tensorflow==2.17.1", "--gpu", "GTX 980")
    assert code == 1, out
    assert "has no kernels for GeForce GTX 980 (sm_52)" in out


def test_h100_jits_tf_2_21() -> None:
    # sm_90 SASS is in only some fatbins; the listed SASS stops at sm_89.
    code, out, _ = run_cli("matrix", "why", "tensorflow==2.21.0", "--gpu", "H100")
    assert code == 0, out
    assert "only by JIT-compiling PTX for 9.0" in out
