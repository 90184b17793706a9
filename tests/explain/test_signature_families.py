"""Each cause is recognised in its common wordings, not only in one message.

The lines are written from the libraries' message formats (case, singular or
plural, Windows DLL names, truncated tails), not copied from the failure corpus,
which stays a held-out measure (scripts/corpus_score.py).
"""

from __future__ import annotations

import time

import pytest

from envcheck.explain import SIGNATURES, match_signatures
from envcheck.model.finding import Category


def _categories(text: str) -> set[Category]:
    matches, _count = match_signatures(text)
    return {m.signature.category for m in matches}


def _ids(text: str) -> set[str]:
    matches, _count = match_signatures(text)
    return {m.signature.id for m in matches}


@pytest.mark.parametrize(
    ("line", "category"),
    [
        # NVML: nvidia-smi capitalises, nvidia-container-cli prints it lower-case.
        ("Failed to initialize NVML: DRIVER/LIBRARY VERSION MISMATCH", Category.NVML_MISMATCH),
        (
            (
                "nvidia-container-cli: initialization error: nvml error: driver/library version "
                "mismatch: unknown"
            ),
            Category.NVML_MISMATCH,
        ),
        # Busy devices: singular and plural, any case.
        ("cudaSetDevice failed: CUDA-capable device(s) is/are busy or unavailable", Category.OTHER),
        (
            "RuntimeError: cuda error: all cuda-capable devices are busy or unavailable",
            Category.OTHER,
        ),
        ("error 46: CUDA-capable device is busy or unavailable", Category.OTHER),
        # Out of memory: torch, CUDA error strings and lower-case forms.
        ("RuntimeError: cuda error: out of memory", Category.OTHER),
        ("CUDA error: out of memory (malloc at caching_allocator.cpp:412)", Category.OTHER),
        ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB", Category.OTHER),
        (
            (
                "UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). "
                "Error 2: out of memory"
            ),
            Category.OTHER,
        ),
        # No kernel image, with the tail cut off or in lower case.
        ("RuntimeError: CUDA error: no kernel image is available", Category.GPU_ARCH_UNSUPPORTED),
        ("cuda error: No kernel image is available for execution", Category.GPU_ARCH_UNSUPPORTED),
        # TensorFlow on Windows names DLLs, not sonames.
        (
            (
                "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load "
                "dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found"
            ),
            Category.CUDA_RUNTIME_MISSING,
        ),
        (
            "Could not load dynamic library 'cublasLt64_11.dll'; dlerror: cublasLt64_11.dll not found",
            Category.CUDA_RUNTIME_MISSING,
        ),
        (
            "Could not load dynamic library 'cudnn64_8.dll'; dlerror: cudnn64_8.dll not found",
            Category.CUDNN_MISMATCH,
        ),
        # cuDNN of either major, as the main library or a sub-library.
        (
            "OSError: libcudnn.so.8: cannot open shared object file: No such file or directory",
            Category.CUDNN_MISMATCH,
        ),
        (
            (
                "Could not load library libcudnn_cnn_infer.so.8. Error: libcudnn_cnn_infer.so.8: "
                "cannot open shared object file: No such file or directory"
            ),
            Category.CUDNN_MISMATCH,
        ),
        (
            (
                "Unable to load any of {libcudnn_engines_precompiled.so.9.1.0, "
                "libcudnn_engines_precompiled.so.9.1, libcudnn_engines_precompiled.so.9}"
            ),
            Category.CUDNN_MISMATCH,
        ),
        # nvJitLink and other versioned CUDA symbols from an older copy on the path.
        (
            "libcusparse.so.12: undefined symbol: __nvJitLinkCreate_12_8, version libnvJitLink.so.12",
            Category.LIB_PATH_CONFLICT,
        ),
        (
            "undefined symbol: __nvJitLinkGetErrorLog_12_4, version libnvJitLink.so.12",
            Category.LIB_PATH_CONFLICT,
        ),
        # cuBLAS handle creation (usually memory).
        ("failed to create cublas handle: CUBLAS_STATUS_NOT_INITIALIZED", Category.OTHER),
        # Containers.
        (
            (
                'Error response from daemon: could not select device driver "" with capabilities: '
                "[[gpu]]"
            ),
            Category.CONTAINER_NO_GPU,
        ),
        (
            "WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available.",
            Category.CONTAINER_NO_GPU,
        ),
        # pip: no wheel for this interpreter.
        (
            "ERROR: No matching distribution found for torch==1.12.1+cu113",
            Category.PYTHON_UNSUPPORTED,
        ),
        ("ERROR: No matching distribution found for tensorflow", Category.PYTHON_UNSUPPORTED),
        # JAX without a CUDA backend.
        ("No GPU/TPU found, falling back to CPU.", Category.CPU_ONLY_BUILD),
    ],
)
def test_cause_recognised_in_its_wordings(line: str, category: Category) -> None:
    assert category in _categories(line)


@pytest.mark.parametrize(
    ("line", "shown", "hidden"),
    [
        (
            (
                "Could not load library libcudnn_ops_infer.so.8. Error: libcudnn_ops_infer.so.8: "
                "cannot open shared object file: No such file or directory"
            ),
            "cudnn-sublibrary-load-failed",
            "cudnn-shared-library-missing",
        ),
        (
            (
                "Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open "
                "shared object file: No such file or directory"
            ),
            "tf-dlopen-cudnn",
            "cudnn-shared-library-missing",
        ),
    ],
)
def test_specific_cudnn_rows_hide_the_generic_one(line: str, shown: str, hidden: str) -> None:
    ids = _ids(line)
    assert shown in ids and hidden not in ids


@pytest.mark.parametrize(
    "line",
    [
        "Successfully installed torch-2.5.1+cu124 nvidia-cudnn-cu12-9.1.0.70",
        "Requirement already satisfied: jaxlib in ./venv/lib/python3.11/site-packages",
        "nvidia-container-toolkit is already the newest version (1.16.2-1).",
        "export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH",
        "cuDNN version: /usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.7",
    ],
)
def test_healthy_install_lines_match_nothing(line: str) -> None:
    assert _ids(line) == set()


@pytest.mark.parametrize(
    "line",
    [
        "undefined symbol: " + "a" * 20000,
        "could not select device driver " + "x" * 20000,
        "No matching distribution found for " + "torch" * 4000,
        "libcudnn" + "_" * 20000 + ".so",
        "Failed to initialize NVML: " + "driver/" * 3000,
    ],
)
def test_long_lines_stay_fast(line: str) -> None:
    start = time.perf_counter()
    for sig in SIGNATURES:
        sig.pattern.search(line)
    match_signatures(line)
    assert time.perf_counter() - start < 0.5
