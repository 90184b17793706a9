"""Driver versions that diagnostic lines state are judged as the driver's facts."""

from __future__ import annotations

import pytest

from envcheck.explain import explain
from envcheck.explain.facts import extract
from envcheck.matrix import Matrix
from envcheck.model.finding import Category


@pytest.mark.parametrize(
    ("line", "driver"),
    [
        # tensorflow/stream_executor/cuda/cuda_diagnostics.cc, both of its version lines
        (
            (
                "I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:204] kernel reported version "
                "is: 418.67.0"
            ),
            "418.67",
        ),
        (
            (
                "I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:200] libcuda reported version "
                "is: 535.104.5"
            ),
            "535.104.5",
        ),
        # The NGC banner's second line; https://github.com/omarabid59/yolov8-triton/issues/6
        (
            "       version 470.199.02 was detected and compatibility mode is UNAVAILABLE.",
            "470.199.02",
        ),
    ],
)
def test_driver_version_from_diagnostic_lines(line: str, driver: str) -> None:
    assert extract(line).driver == driver


def test_an_unknown_libcuda_is_no_driver_fact() -> None:
    line = (
        "libcuda reported version is: Not found: was unable to find libcuda.so DSO loaded into "
        "this program"
    )
    assert extract(line).driver is None


# NGC entrypoint banners (triton-inference-server/server nvidia_entrypoint.sh) as pasted.
@pytest.mark.parametrize(
    ("banner", "built", "found"),
    [
        # https://github.com/ultralytics/yolov5/issues/1232
        (
            (
                "ERROR: This container was built for NVIDIA Driver Release 455.23 or later, but\n"
                "       version 450.66 was detected and compatibility mode is UNAVAILABLE.\n\n"
                "       [[CUDA Driver UNAVAILABLE (cuInit(0) returned 804)]]\n"
            ),
            "455.23",
            "450.66",
        ),
        # https://github.com/isarsoft/yolov4-triton-tensorrt/issues/5
        (
            (
                "ERROR: This container was built for NVIDIA Driver Release 450.51 or later, but\n"
                "       version 410.78 was detected and compatibility mode is UNAVAILABLE.\n\n"
                "       [[CUDA Driver UNAVAILABLE (cuInit(0) returned 803)]\n"
            ),
            "450.51",
            "410.78",
        ),
    ],
)
def test_ngc_banner_is_driver_too_old_with_both_versions(
    matrix: Matrix, banner: str, built: str, found: str
) -> None:
    report = explain(banner, None, matrix)
    first = report.findings[0]
    assert (first.id, first.category) == ("ngc-container-driver-too-old", Category.DRIVER_TOO_OLD)
    assert built in (first.detail or "") and found in (first.detail or "")


def test_the_kernel_modules_version_wins_over_libcudas() -> None:
    # https://github.com/tensorflow/tensorflow/issues/1158 (user space updated, module not)
    text = (
        "I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:189] libcuda reported version "
        "is: 384.111.0\n"
        "I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:193] kernel reported version is: "
        "384.90.0\n"
    )
    assert extract(text).driver == "384.90"


# TensorFlow's dso_loader.cc and cuda_diagnostics.cc lines: the CUDA the build opened (or
# could not open) beside the driver the kernel reports.
@pytest.mark.parametrize(
    ("runtime", "needed"),
    [
        (
            (
                "I tensorflow/stream_executor/platform/default/dso_loader.cc:53] Successfully opened "
                "dynamic library libcudart.so.11.0"
            ),
            "11.0",
        ),
        (
            (
                "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load "
                "dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared "
                "object file: No such file or directory"
            ),
            "11.0",
        ),
    ],
)
def test_driver_below_the_cuda_the_build_needs_is_first(
    matrix: Matrix, runtime: str, needed: str
) -> None:
    text = (
        runtime + "\n"
        "E tensorflow/stream_executor/cuda/cuda_driver.cc:328] failed call to cuInit: "
        "CUDA_ERROR_UNKNOWN: unknown error\n"
        "I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:204] kernel reported version is: "
        "418.67.0\n"
    )
    first = explain(text, None, matrix).findings[0]
    assert first.category == Category.DRIVER_TOO_OLD
    assert "418.67" in first.title and needed in first.title


def test_a_driver_new_enough_names_no_driver_cause(matrix: Matrix) -> None:
    text = (
        "Successfully opened dynamic library libcudart.so.11.0\n"
        "kernel reported version is: 470.57.2\n"
    )
    report = explain(text, None, matrix)
    assert all(f.category != Category.DRIVER_TOO_OLD for f in report.findings)
