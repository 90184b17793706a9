"""The wheel-name readings of envcheck.names (one place for every module)."""

from __future__ import annotations

from typing import Any

import pytest

from envcheck import names


@pytest.mark.parametrize(
    ("name", "major"),
    [
        ("cupy-cuda12x", 12),
        ("cupy-cuda11x", 11),
        ("cupy-cuda117", 11),
        ("cupy-cuda102", 10),
        ("cupy-cuda92", 9),
        ("cupy-cuda80", 8),
        ("CuPy-CUDA110", 11),
        ("cupy", None),
        ("cupy-rocm-5-0", None),
    ],
)
def test_cupy_wheel_cuda_major(name: str, major: Any) -> None:
    assert names.cupy_wheel_cuda_major(name) == major


def test_nvidia_wheel() -> None:
    assert names.nvidia_wheel("nvidia-cudnn-cu12") == ("cudnn", 12)
    assert names.nvidia_wheel("nvidia-cuda-runtime-cu11") == ("cuda-runtime", 11)
    assert names.nvidia_wheel("nvidia-ml-py") is None
    assert names.nvidia_wheel("torch") is None
