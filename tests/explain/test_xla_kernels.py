"""'No kernel image' from kernels XLA compiled itself is a driver older than its ptxas."""

from __future__ import annotations

from envcheck.explain import explain
from envcheck.matrix import Matrix
from envcheck.model.finding import Category


def _first(matrix: Matrix, text: str) -> tuple[str, Category]:
    first = explain(text, None, matrix).findings[0]
    return first.id, first.category


def test_xla_compiled_kernel_without_image_is_driver_too_old(matrix: Matrix) -> None:
    # https://github.com/jax-ml/jax/issues/5445: a jax frame as pasted, the error as its
    # title states it (an RTX 2070, nvcc 11.1 beside a CUDA 11.0 driver).
    text = (
        "~/miniconda3/envs/pydata/lib/python3.8/site-packages/jax/interpreters/xla.py in "
        "_force(x)\n"
        "RuntimeError: Unknown: no kernel image is available for execution on the device\n"
    )
    assert _first(matrix, text)[1] == Category.DRIVER_TOO_OLD


def test_ptxas_warning_is_named_before_the_failure(matrix: Matrix) -> None:
    # The XLA warning of https://github.com/jax-ml/jax/issues/19821 above a failure it explains.
    text = (
        "2024-02-15 14:18:20.201828: W external/xla/xla/service/gpu/nvptx_compiler.cc:744] The "
        "NVIDIA driver's CUDA version is 12.2 which is older than the ptxas CUDA version "
        "(12.3.107). Because the driver is older than the ptxas version, XLA is disabling "
        "parallel compilation, which may slow down compilation.\n"
        "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: no kernel image is available for "
        "execution on the device\n"
    )
    assert _first(matrix, text) == ("xla-driver-older-than-ptxas", Category.DRIVER_TOO_OLD)
    (match,) = [m for m in explain(text).matches if m.signature.id == "xla-driver-older-than-ptxas"]
    assert match.facts == {"found": "12.2", "built": "12.3"}


def test_a_kernel_compiled_ahead_of_time_keeps_the_arch_reading(matrix: Matrix) -> None:
    # jaxlib's own kernel, found through the runtime API, on a GPU it was not built for:
    # https://github.com/jax-ml/jax/issues/22723 (Jetson Orin)
    text = (
        "F0729 12:58:37.236422     109 stream_executor_util.cc:504] Could not create "
        "RepeatBufferKernel: INTERNAL: Failed call to cudaGetFuncBySymbol: no kernel image is "
        "available for execution on the device\n"
        "    @     0xffff3204dd6c  xla::gpu::InitializeTypedBuffer<>()\n"
    )
    assert _first(matrix, text)[1] == Category.GPU_ARCH_UNSUPPORTED


def test_a_jaxlib_kernel_keeps_the_arch_reading(matrix: Matrix) -> None:
    # https://github.com/jax-ml/jax/issues/18514 (jaxlib's prng kernel)
    text = (
        "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to execute XLA Runtime "
        "executable: run time error: custom call 'xla.gpu.custom_call' failed: "
        "jaxlib/gpu/prng_kernels.cc:33: operation gpuGetLastError() failed: no kernel image is "
        "available for execution on the device; current tracing scope: custom-call.11"
    )
    assert _first(matrix, text)[1] == Category.GPU_ARCH_UNSUPPORTED


def test_other_frameworks_keep_the_arch_reading(matrix: Matrix) -> None:
    text = (
        "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
        '  File "/usr/lib/python3/dist-packages/torch/nn/modules/module.py", line 1'
    )
    assert _first(matrix, text)[1] == Category.GPU_ARCH_UNSUPPORTED
