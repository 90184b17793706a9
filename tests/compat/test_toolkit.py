"""`matrix why cuda==X` is answered by the judge's Verdict (compat.toolkit)."""

from __future__ import annotations

from typing import Any

import pytest

from envcheck.compat import judge as J
from envcheck.compat.target import target_from_flags
from envcheck.compat.toolkit import toolkit_verdict
from envcheck.model.versions import CudaVersion
from envcheck.why import explain_specs


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


def test_cudnn_verdict_and_why_agree(matrix: Any) -> None:
    """`matrix why cudnn==X cuda==Y` shows compat.cudnn's verdict for each row."""
    from envcheck.compat.cudnn import cudnn_verdict

    target = target_from_flags(matrix, driver="550.54.15", gpus=("A100",))
    rows = [r for r in matrix.cudnn_releases if r.version.startswith("8.9")]
    assert rows
    cuda = CudaVersion(12, 4)
    result = explain_specs(("cudnn==8.9", "cuda==12.4"), target, matrix)
    options = result.results[0].options
    assert len(options) == len(rows)
    for row, option in zip(rows, options):
        verdict = cudnn_verdict(row, target, cuda)
        assert option.works is (verdict.status is J.Status.RUNS), option.label
    # A CUDA 11 build with CUDA 12: fails, by the CUDA span.
    eleven = next(r for r in rows if r.cuda_major == 11)
    assert cudnn_verdict(eleven, target, cuda).status is J.Status.FAILS
