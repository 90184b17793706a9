"""One loader failure, in glibc's, CTranslate2's and ctypes' wordings, gives the library
and the CUDA major its name carries."""

from __future__ import annotations

import pytest

from envcheck.explain import explain
from envcheck.explain.facts import extract
from envcheck.matrix import Matrix
from envcheck.model.finding import Category


@pytest.mark.parametrize(
    ("text", "lib", "cuda"),
    [
        # CTranslate2 src/cuda/cublas_stub.cc; https://github.com/billwuhao/ComfyUI_gemmax/issues/2
        ("Library cublas64_11.dll is not found or cannot be loaded", "cublas", "11"),
        # the same text for CUDA 12 (the name CTranslate2 4.x builds)
        ("RuntimeError: Library cublas64_12.dll is not found or cannot be loaded", "cublas", "12"),
        # CPython Modules/_ctypes/callproc.c
        (
            (
                "FileNotFoundError: Could not find module 'C:\\\\cuda\\\\bin\\\\cudart64_110.dll' (or "
                "one of its dependencies). Try using the full path with constructor syntax."
            ),
            "cudart",
            "11.0",
        ),
        # glibc elf/dl-load.c for a program
        (
            (
                "./app: error while loading shared libraries: libcublasLt.so.12: cannot open shared "
                "object file: No such file or directory"
            ),
            "cublaslt",
            "12",
        ),
    ],
)
def test_cuda_major_from_every_wording(matrix: Matrix, text: str, lib: str, cuda: str) -> None:
    assert extract(text).cuda_unloadable == ((lib, cuda),)
    first = explain(text, None, matrix).findings[0]
    assert first.category == Category.CUDA_RUNTIME_MISSING


@pytest.mark.parametrize(
    "text",
    [
        # https://github.com/PaddlePaddle/Serving/issues/1435
        (
            "serving: error while loading shared libraries: libnvinfer.so.7: cannot open shared object "
            "file: No such file or directory"
        ),
        # https://github.com/triton-inference-server/server/issues/3754 (title)
        (
            "/bin/bash: error while loading shared libraries: libnvinfer.so.8: cannot open shared "
            "object file: No such file or directory"
        ),
        "libcufft.so.10: cannot open shared object file: No such file or directory",
        "libnccl.so.2: cannot open shared object file: No such file or directory",
        "libcurand.so.10: cannot open shared object file: No such file or directory",
    ],
)
def test_any_nvidia_library_the_loader_cannot_open(matrix: Matrix, text: str) -> None:
    report = explain(text, None, matrix)
    (match,) = report.matches
    assert match.signature.id == "cuda-shared-library-missing"
    assert match.facts["lib"].startswith("lib")
    assert match.facts["major"].isdigit()
    assert report.findings[0].category == Category.CUDA_RUNTIME_MISSING


def test_a_cudnn_dll_is_a_cudnn_finding(matrix: Matrix) -> None:
    text = (
        "FileNotFoundError: Could not find module 'C:\\\\x\\\\cudnn64_8.dll' (or one of its "
        "dependencies). Try using the full path with constructor syntax."
    )
    assert extract(text).cudnn_unloadable == ("8",)
    assert explain(text, None, matrix).findings[0].category == Category.CUDNN_MISMATCH


def test_a_library_of_another_vendor_is_no_cuda_finding() -> None:
    text = "Could not find module 'D:\\\\code\\\\shared.dll' (or one of its dependencies)."
    assert not explain(text).recognised
