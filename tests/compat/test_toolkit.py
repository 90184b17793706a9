"""`matrix why cuda==X` is answered by the judge's Verdict (compat.toolkit)."""

from __future__ import annotations

from typing import Any

import pytest

from envcheck.compat import judge as J
from envcheck.compat.target import target_from_flags
from envcheck.compat.toolkit import toolkit_verdict
from envcheck.model.versions import CudaVersion
from envcheck.why import explain_specs


@pytest.fixture(scope="module")
def matrix() -> Any:
    from envcheck.matrix import bundled_dir, load_matrix_from

    return load_matrix_from(bundled_dir())


@pytest.mark.parametrize(
    ("cuda", "flags", "status"),
    [
        (CudaVersion(12, 4), {"driver": "550.54.15", "gpus": ("RTX 4090",)}, J.Status.RUNS),
        (CudaVersion(12, 4), {"driver": "470.256.02"}, J.Status.FAILS),
        (CudaVersion(12, 4), {"gpus": ("3.0",)}, J.Status.FAILS),
        (CudaVersion(12, 4), {"os_name": "macos"}, J.Status.FAILS),
    ],
)
def test_toolkit_verdict_and_why_agree(
    matrix: Any, cuda: CudaVersion, flags: dict[str, Any], status: J.Status
) -> None:
    release = matrix.cuda_release(cuda)
    assert release is not None
    target = target_from_flags(matrix, **flags)
    verdict = toolkit_verdict(release, target, matrix)
    assert verdict.status is status
    works = explain_specs((f"cuda=={cuda}",), target, matrix).works
    assert works is (status is J.Status.RUNS)
