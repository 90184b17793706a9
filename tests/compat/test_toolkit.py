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
        verdict = cudnn_verdict(row, target, cuda, matrix)
        assert option.works is (verdict.status is J.Status.RUNS), option.label
    # A CUDA 11 build with CUDA 12: fails, by the CUDA span.
    eleven = next(r for r in rows if r.cuda_major == 11)
    assert cudnn_verdict(eleven, target, cuda, matrix).status is J.Status.FAILS


def test_a_cuda_past_the_cudnn_rows_newest_fails_only_without_minor_compat(matrix: Any) -> None:
    """Past a cuDNN row's newest CUDA of its major: outside for a major without
    minor-version compatibility (no [[minor_compat]] row, CUDA 10), inside for one with
    it (CUDA 12): the judgement reads cuda_driver.toml, not a hard-coded major."""
    from envcheck.compat.cudnn import cudnn_verdict

    target = target_from_flags(matrix, driver="580.65.06", gpus=("A100",))
    for major, fails in ((10, True), (12, False)):
        assert (matrix.minor_compat_for(major) is None) is fails
        rows = [r for r in matrix.cudnn_releases if r.cuda_major == major and r.cuda_max]
        assert rows, major
        row = rows[0]
        assert row.cuda_max is not None
        past = CudaVersion(major, row.cuda_max.minor + 1)
        codes = {r.code for r in cudnn_verdict(row, target, past, matrix).errors}
        assert ("cudnn_cuda" in codes) is fails, (row.version, past, codes)
