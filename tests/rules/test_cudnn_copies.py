"""The cuDNN rule: copies of one cuDNN soname, one older than the build needs."""

from __future__ import annotations

from typing import Any

from envcheck.doctor import diagnose
from envcheck.matrix import Matrix
from envcheck.model.finding import Category, Severity
from envcheck.model.snapshot import Snapshot
from tests.rules.snapshots import PY310, TF_2_10_CU112
from tests.rules.snapshots import snap as snapshot


def snap(**parts: Any) -> Snapshot:
    return snapshot(PY310, **parts)


def test_an_older_cudnn_copy_beside_the_one_the_build_needs(mini_matrix: Matrix) -> None:
    # The cuDNN rule: two copies of one soname (libcudnn.so.8), one older than the
    # build's; no probe says which the loader takes, so it warns.
    tf = {**TF_2_10_CU112, "cudnn_version": "8.1"}
    old = {"name": "cudnn", "version": "8.0.5", "path": "/opt/a/libcudnn.so.8", "source": "system"}
    new = {"name": "cudnn", "version": "8.9.7", "path": "/opt/b/libcudnn.so.8", "source": "conda"}
    findings = diagnose(snap(frameworks=[tf], libraries=[old, new]), mini_matrix).findings
    (f,) = [f for f in findings if f.id == "cudnn-several-copies"]
    assert f.severity is Severity.WARNING and f.category is Category.CUDNN_MISMATCH
    assert "older cuDNN 8.0.5 is installed beside cuDNN 8.9.7" in f.title
    assert f.fix is not None and "/opt/a/libcudnn.so.8" in f.fix
    # Copies of different majors do not compete (libcudnn.so.8 and .so.9), and a newer
    # copy first on LD_LIBRARY_PATH decides which is loaded.
    nine = {**new, "version": "9.1.0", "path": "/opt/b/libcudnn.so.9"}
    first = {**new, "source": "LD_LIBRARY_PATH"}
    for libs in ([old, nine], [first, old], [new]):
        findings = diagnose(snap(frameworks=[tf], libraries=libs), mini_matrix).findings
        assert "cudnn-several-copies" not in {f.id for f in findings}, libs
