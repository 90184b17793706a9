"""explain(): ordering, the "nothing recognised" finding, root causes from a snapshot."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from envcheck.explain import UNRECOGNISED, explain, explain_findings
from envcheck.matrix import Matrix, load_matrix
from envcheck.model.finding import Category, Severity
from envcheck.model.snapshot import Snapshot

RTX5090 = {"index": 0, "name": "NVIDIA GeForce RTX 5090"}
RTX4090 = {"index": 0, "name": "NVIDIA GeForce RTX 4090", "memory_total_mib": 24564}
LINUX = {"os": "linux", "arch": "x86_64", "distro": "ubuntu", "distro_version": "22.04"}


def snap(**parts: Any) -> Snapshot:
    data: dict[str, Any] = {"schema": "envcheck.snapshot/1", "platform": LINUX}
    data.update(parts)
    return Snapshot.from_json(data)


def torch(version: str, cuda: str | None, variant: str) -> dict[str, Any]:
    return {
        "name": "torch",
        "version": version,
        "cuda_version": cuda,
        "cpu_only": cuda is None,
        "package": "torch",
        "variant": variant,
    }


def only(report: Any, sig_id: str) -> Any:
    found = [m for m in report.matches if m.signature.id == sig_id]
    assert len(found) == 1, [m.signature.id for m in report.matches]
    return found[0]


LOG = """\
Traceback (most recent call last):
  File "train.py", line 12, in <module>
    model.cuda()
RuntimeError: CUDA error: no kernel image is available for execution on the device
CUDA kernel errors might be asynchronously reported at some other API call
RuntimeError: CUDA error: no kernel image is available for execution on the device
NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.
"""


def test_matches_carry_line_numbers_and_are_ordered() -> None:
    report = explain(LOG)
    assert [m.signature.id for m in report.matches] == [
        "no-kernel-image",
        "torch-gpu-arch-not-compatible",
    ]
    kernel = report.matches[0]
    assert kernel.lines[0][0] == 4
    assert [n for n, _ in kernel.lines] == [4, 6]
    assert kernel.count == 2
    assert report.lines_scanned == 7
    assert report.failed()
    assert not report.snapshot_used
    finding = report.findings[0]
    assert finding.id == "no-kernel-image"
    assert finding.category == Category.GPU_ARCH_UNSUPPORTED
    assert finding.evidence[0].startswith("line 4: RuntimeError: CUDA error: no kernel image")
    assert finding.sources == ("https://github.com/NVIDIA/cuml/issues/2315",)


def test_nothing_recognised_is_said_clearly_not_all_good() -> None:
    report = explain("Traceback (most recent call last):\nValueError: bad shape (3, 4)\n")
    assert not report.recognised
    assert not report.failed()
    (f,) = report.findings
    assert f.id == UNRECOGNISED
    assert f.category == Category.OTHER
    assert f.severity == Severity.WARNING
    assert "does not mean the setup is healthy" in (f.fix or "")
    assert explain_findings("ValueError: bad shape") == ()


def test_empty_text_says_so() -> None:
    report = explain("   \n\n")
    assert report.findings[0].title.startswith("The text is empty")


def test_garbage_and_hostile_text_never_crash() -> None:
    junk = "\x1b[31m\x00\x07" + "A" * 100_000 + "\n" + "\ufffd" * 50
    assert not explain(junk).recognised
    # ANSI colour codes around a real message are stripped from the shown line.
    report = explain("\x1b[31mRuntimeError: No CUDA GPUs are available\x1b[0m")
    assert report.matches[0].lines[0][1] == "RuntimeError: No CUDA GPUs are available"


def test_huge_log_with_the_error_at_the_end() -> None:
    noise = "Epoch 3/10 step 120 loss=0.1234 lr=3e-4\n" * 200_000
    report = explain(noise + "RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED\n")
    assert [m.signature.id for m in report.matches] == ["cublas-alloc-failed"]
    assert report.matches[0].line_no == 200_001


def test_explain_findings_for_the_doctor() -> None:
    findings = explain_findings("RuntimeError: CUDA error: device-side assert triggered")
    assert [f.id for f in findings] == ["cuda-device-side-assert"]
    assert findings[0].category == Category.OTHER


# -- root causes ---------------------------------------------------------------------


def test_driver_too_old_for_the_installed_torch(mini_matrix: Matrix) -> None:
    s = snap(
        driver={"version": "470.182.03"},
        gpus=[{"index": 0, "name": "NVIDIA A100-SXM4-80GB"}],
        frameworks=[torch("2.5.1+cu124", "12.4", "cu124")],
    )
    report = explain(
        "RuntimeError: CUDA driver version is insufficient for CUDA runtime version", s, mini_matrix
    )
    m = only(report, "cuda-driver-insufficient")
    # The doctor's driver rule decides; explain adopts its finding and evidence.
    assert m.root_cause == "Driver 470.182.03 is too old for torch 2.5.1+cu124 (CUDA 12.4)"
    assert any("driver >= 525.60.13" in e for e in m.evidence)
    assert "driver.version = 470.182.03" in m.evidence
    assert m.fix is not None and "525.60.13" in m.fix
    finding = report.findings[0]
    assert finding.detail is not None and finding.detail.startswith("On this machine: Driver 470")


def test_driver_new_enough_is_not_blamed(mini_matrix: Matrix) -> None:
    s = snap(
        driver={"version": "550.54.14"},
        gpus=[RTX4090],
        frameworks=[torch("2.5.1+cu124", "12.4", "cu124")],
    )
    m = only(
        explain("CUDA driver version is insufficient for CUDA runtime version", s, mini_matrix),
        "cuda-driver-insufficient",
    )
    # 550 runs the installed cu124 build: the process that failed did not load it.
    assert m.category is Category.CONTAINER_NO_GPU
    assert "did not load that driver" in (m.root_cause or "")
    assert not any(e.startswith("doctor: ") for e in m.evidence)


def test_ptx_error_under_minor_version_compatibility(mini_matrix: Matrix) -> None:
    s = snap(
        driver={"version": "535.104.05"},
        gpus=[RTX4090],
        frameworks=[torch("2.5.1+cu124", "12.4", "cu124")],
    )
    m = only(
        explain(
            "CUDA error: the provided PTX was compiled with an unsupported toolchain.",
            s,
            mini_matrix,
        ),
        "cuda-unsupported-ptx",
    )
    assert m.root_cause is not None
    assert m.root_cause == (
        "torch 2.5.1+cu124 (CUDA 12.4) runs on driver 535.104.05 only through CUDA "
        "minor-version compatibility"
    )
    assert m.fix is not None and "550.54.14" in m.fix


def test_torch_driver_too_old_uses_the_version_in_the_message(mini_matrix: Matrix) -> None:
    s = snap(frameworks=[torch("2.1.0+cu121", "12.1", "cu121")], source="collect_env")
    text = (
        "UserWarning: CUDA initialization: The NVIDIA driver on your system is too old "
        "(found version 11040)."
    )
    m = only(explain(text, s, mini_matrix), "torch-driver-too-old")
    # The message's "found version 11040" is a driver fact: the doctor's driver rule judges it.
    assert m.root_cause == (
        "Driver supporting CUDA up to 11.4 is too old for torch 2.1.0+cu121 (CUDA 12.1)"
    )
    assert "from the message: the driver supports CUDA up to 11.4" in m.evidence
    assert any("needs driver >= 525.60.13" in e for e in m.evidence)


def test_rtx5090_with_a_cu124_wheel_names_the_build_that_runs(mini_matrix: Matrix) -> None:
    s = snap(
        driver={"version": "575.57.08"},
        gpus=[RTX5090],
        frameworks=[torch("2.5.1+cu124", "12.4", "cu124")],
        python={"version": "3.11.9"},
    )
    report = explain(LOG, s, mini_matrix)
    m = only(report, "torch-gpu-arch-not-compatible")
    assert m.root_cause == "torch 2.5.1+cu124 has no kernels for NVIDIA GeForce RTX 5090 (sm_120)"
    assert (
        "torch 2.5.1 (cu124) has no kernels for NVIDIA GeForce RTX 5090 (sm_120) "
        "(built for sm_50, sm_60, sm_70, sm_75, sm_80, sm_86, sm_90)"
    ) in m.evidence
    assert m.fix is not None and m.fix.startswith("Install a build compiled for this GPU")
    assert "--index-url https://download.pytorch.org/whl/cu1" in m.fix
    # The no-kernel-image line gets the same concrete cause.
    assert only(report, "no-kernel-image").root_cause == m.root_cause


def test_arch_uses_the_sm_in_the_message_when_the_snapshot_has_no_gpu(
    mini_matrix: Matrix,
) -> None:
    s = snap(frameworks=[torch("2.5.1+cu124", "12.4", "cu124")])
    m = only(explain(LOG, s, mini_matrix), "torch-gpu-arch-not-compatible")
    # The GPU the message names (with its capability) is a fact the doctor's arch rule judges.
    assert m.root_cause == "torch 2.5.1+cu124 has no kernels for NVIDIA GeForce RTX 5090 (sm_120)"
    assert "from the message: GPU NVIDIA GeForce RTX 5090 (compute capability 12.0)" in m.evidence


def test_cpu_only_torch_on_a_gpu_machine(mini_matrix: Matrix) -> None:
    s = snap(
        driver={"version": "550.54.14"},
        gpus=[RTX4090],
        frameworks=[torch("2.5.1+cpu", None, "cpu")],
        python={"version": "3.11.9"},
    )
    m = only(
        explain("AssertionError: Torch not compiled with CUDA enabled", s, mini_matrix),
        "torch-not-compiled-with-cuda",
    )
    assert m.root_cause == "torch 2.5.1+cpu is a CPU-only build on a machine with an NVIDIA GPU"
    assert "torch 2.5.1+cpu: CPU-only build" in m.evidence
    # The user's own release, whose PyPI wheel on Linux is the CUDA 12.4 build: the
    # fix does not jump releases.
    assert m.fix is not None and m.fix.endswith(
        "pip uninstall -y torch\n  pip install torch==2.5.1"
    )


def test_a_cuda_build_is_not_blamed_for_a_cpu_fallback_message(mini_matrix: Matrix) -> None:
    # JAX prints this fallback whenever its CUDA plugin fails to start, plugin installed
    # or not; with the plugin installed the cause is elsewhere in the log.
    jax = {"name": "jax", "version": "0.4.30", "package": "jax", "cpu_only": False}
    ort = {"name": "onnxruntime", "version": "1.18.0", "package": "onnxruntime", "cpu_only": True}
    s = snap(
        driver={"version": "550.54.14"},
        gpus=[RTX4090],
        frameworks=[{**jax, "build": {"cuda_major": "12"}}, ort],
        python={"version": "3.11.9"},
    )
    text = (
        "An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not "
        "installed. Falling back to cpu."
    )
    m = only(explain(text, s, mini_matrix), "jaxlib-without-cuda")
    assert m.root_cause is not None and "is a CUDA 12.x build, not a CPU one" in m.root_cause
    assert "jax 0.4.30: CUDA 12.x" in m.evidence
    # The doctor's finding about the CPU onnxruntime is no evidence about JAX.
    assert not any("onnxruntime" in line for line in m.evidence)


def test_a_cpu_build_fix_is_the_resolvers_plan(mini_matrix: Matrix) -> None:
    from envcheck.compat.target import target_from_snapshot
    from envcheck.resolve.emit import emit_pip
    from envcheck.resolve.plan import plan

    text = (
        'File "demo.py", line 7, in <module>\nAssertionError: Torch not compiled with CUDA enabled'
    )
    # torch of unknown build (no CUDA version): the doctor's CPU-build rule does not
    # judge it, explain's analysis names the cause and the resolver's plan the fix.
    unknown = {"name": "torch", "version": "2.5.1", "package": "torch"}
    s = snap(
        driver={"version": "550.54.14"},
        gpus=[{"index": 0, "name": "NVIDIA GeForce RTX 4090", "compute_capability": "8.9"}],
        frameworks=[unknown],
        packages={"torch": "2.5.1", "torchvision": "0.20.1"},
        python={"version": "3.11.9"},
    )
    m = only(explain(text, s, mini_matrix), "torch-not-compiled-with-cuda")
    assert m.root_cause == "torch 2.5.1 is a CPU-only build on a machine with an NVIDIA GPU"
    planned = plan(["torch", "torchvision"], target_from_snapshot(s), mini_matrix)
    assert planned.ok
    lines = [ln for ln in emit_pip(planned).splitlines() if ln and not ln.startswith("#")]
    assert m.fix == "Install a GPU build that runs here:\n  pip uninstall -y torch\n  " + (
        "\n  ".join(lines)
    )
    # A Tesla K80 on a driver branch that dropped Kepler: no build runs, so no install
    # command is offered (the plan is unsatisfiable).
    k80 = {"index": 0, "name": "Tesla K80", "compute_capability": "3.7"}
    s = snap(driver={"version": "550.54.14"}, gpus=[k80], frameworks=[unknown])
    m = only(explain(text, s, mini_matrix), "torch-not-compiled-with-cuda")
    assert m.root_cause is not None and "on a machine with an NVIDIA GPU" in m.root_cause
    assert m.fix is None or "pip install" not in m.fix


def test_cpu_only_torch_without_gpu(mini_matrix: Matrix) -> None:
    s = snap(frameworks=[torch("2.5.1+cpu", None, "cpu")])
    m = only(
        explain("Torch not compiled with CUDA enabled", s, mini_matrix),
        "torch-not-compiled-with-cuda",
    )
    assert m.root_cause == (
        "torch 2.5.1+cpu is a CPU-only build, and this machine shows no NVIDIA GPU either"
    )


def test_onnxruntime_cpu_and_gpu_both_installed(mini_matrix: Matrix) -> None:
    s = snap(
        driver={"version": "550.54.14"},
        gpus=[RTX4090],
        frameworks=[{"name": "onnxruntime", "version": "1.19.2", "cpu_only": True}],
        packages={"onnxruntime": "1.19.2", "onnxruntime-gpu": "1.19.2"},
    )
    text = "Specified provider 'CUDAExecutionProvider' is not in available provider names."
    m = only(explain(text, s, mini_matrix), "onnxruntime-cuda-provider-missing")
    assert m.root_cause is not None
    assert "CPU-only build on a machine with an NVIDIA GPU" in m.root_cause


def test_cudnn_mismatch_with_two_copies_installed(mini_matrix: Matrix) -> None:
    s = snap(
        driver={"version": "550.54.14"},
        gpus=[RTX4090],
        libraries=[
            {
                "name": "cudnn",
                "version": "8.0.5",
                "path": "/opt/old/lib/libcudnn.so.8",
                "source": "LD_LIBRARY_PATH",
            },
            {
                "name": "cudnn",
                "version": "8.9.7",
                "path": "/usr/lib/x86_64-linux-gnu/libcudnn.so.8",
                "source": "system",
            },
        ],
        env={"LD_LIBRARY_PATH": "/opt/old/lib"},
    )
    text = (
        "Loaded runtime CuDNN library: 8.0.5 but source was compiled with: 8.1.0.  CuDNN "
        "library needs to have matching major version and equal or higher minor version."
    )
    m = only(explain(text, s, mini_matrix), "cudnn-version-mismatch")
    # The loaded and compiled versions are overlay facts; the doctor's cuDNN rule
    # judges them and, seeing a newer copy installed, says which path to drop.
    assert m.root_cause == (
        "the framework (version unknown) was built with cuDNN 8.1.0, but the process "
        "loaded the older cuDNN 8.0.5"
    )
    assert m.fix is not None and m.fix.startswith("Remove /opt/old/lib from LD_LIBRARY_PATH")
    assert "from the message: loaded cuDNN 8.0.5, built with 8.1.0" in m.evidence
    assert "cudnn 8.9.7 at /usr/lib/x86_64-linux-gnu/libcudnn.so.8 (system)" in m.evidence
    assert "LD_LIBRARY_PATH = /opt/old/lib" in m.evidence


def test_an_older_cudnn_copy_is_the_doctors_call(mini_matrix: Matrix) -> None:
    tf = {
        "name": "tensorflow",
        "version": "2.10.0",
        "cuda_version": "11.2",
        "cudnn_version": "8.1",
        "cpu_only": False,
        "package": "tensorflow",
    }
    libs = [
        {"name": "cudnn", "version": "8.0.5", "path": "/srv/x/libcudnn.so.8", "source": "system"},
        {"name": "cudnn", "version": "8.9.7", "path": "/srv/y/libcudnn.so.8", "source": "conda"},
    ]
    text = "my_model.py:12 failed: CUDNN_STATUS_NOT_INITIALIZED while creating the handle"
    m = only(
        explain(text, snap(frameworks=[tf], libraries=libs), mini_matrix), "cudnn-not-initialized"
    )
    assert m.root_cause == (
        "tensorflow 2.10.0 needs cuDNN 8.1, but an older cuDNN 8.0.5 is installed beside "
        "cuDNN 8.9.7: whichever comes first on the loader path is the one that gets loaded"
    )
    # Copies of two majors do not compete for one soname: not a cause by themselves.
    libs[1] = {**libs[1], "version": "9.1.0", "path": "/srv/y/libcudnn.so.9"}
    m = only(explain(text, snap(libraries=libs), mini_matrix), "cudnn-not-initialized")
    assert m.root_cause is None or "several" not in m.root_cause


@pytest.mark.parametrize(
    ("text", "loaded", "compiled", "framework"),
    [
        (
            (
                "E external/xla/xla/stream_executor/cuda/cuda_dnn.cc:417] Loaded runtime CuDNN "
                "library: 8.5.0 but source was compiled with: 8.6.0."
            ),
            "8.5.0",
            "8.6.0",
            "jax",
        ),
        # PyTorch's own check prints tuples: the cuDNN it was built with lands on torch,
        # not on a TensorFlow the message never named.
        (
            (
                "RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against "
                "(8, 9, 2) but found runtime version (8, 5, 0). PyTorch already comes bundled."
            ),
            "8.5.0",
            "8.9.2",
            "torch",
        ),
        # ... and cuDNN's integer version before 1.12.
        (
            (
                "RuntimeError: cuDNN version mismatch: PyTorch was compiled against 7102 but "
                "linked against 7600"
            ),
            "7.6.0",
            "7.1.2",
            "torch",
        ),
    ],
)
def test_cudnn_loaded_older_names_the_framework_the_message_names(
    mini_matrix: Matrix, text: str, loaded: str, compiled: str, framework: str
) -> None:
    from envcheck.explain.facts import extract

    facts = extract(text)
    assert (facts.cudnn_loaded, facts.cudnn_compiled, facts.cudnn_framework) == (
        loaded,
        compiled,
        framework,
    )
    m = only(explain(text, None, mini_matrix), "cudnn-version-mismatch")
    assert m.root_cause is not None
    if loaded < compiled:
        assert m.root_cause.startswith(f"{framework} (version unknown)")
    else:  # a newer copy: only the old wording says it was refused
        assert f"needs exactly the cuDNN {compiled}" in m.root_cause


def test_paddle_cudnn_check_is_judged_on_paddle(mini_matrix: Matrix) -> None:
    from envcheck.explain.facts import extract

    # PaddlePaddle/PaddleDetection#3331: Paddle's own start-up check, major.minor only.
    text = (
        "W0608 17:24:55.806937 14489 device_context.h:360] WARNING: device: 0. The installed "
        "Paddle is compiled with CUDNN 7.6, but CUDNN version in your machine is 7.4, which may "
        "cause serious incompatible bug."
    )
    facts = extract(text)
    assert (facts.cudnn_loaded, facts.cudnn_compiled, facts.cudnn_framework) == (
        "7.4",
        "7.6",
        "paddle",
    )
    m = only(explain(text, None, mini_matrix), "paddle-cudnn-version-mismatch")
    assert m.root_cause == (
        "paddlepaddle-gpu (version unknown) was built with cuDNN 7.6, but the process loaded "
        "the older cuDNN 7.4"
    )
    # An installed paddlepaddle-gpu carries the message's cuDNN, not a second framework.
    s = snap(frameworks=[{"name": "paddle", "package": "paddlepaddle-gpu", "version": "2.1.0"}])
    m = only(explain(text, s, mini_matrix), "paddle-cudnn-version-mismatch")
    assert m.root_cause is not None and m.root_cause.startswith("paddlepaddle-gpu 2.1.0")


def test_tf1_compared_cudnn_major_and_minor_exactly(mini_matrix: Matrix) -> None:
    from envcheck.explain.facts import extract

    # TF 1.x printed 7.0.5 as 7005 and compared major and minor exactly.
    old = (
        "Loaded runtime CuDNN library: 7301 (compatibility version 7300) but source was "
        "compiled with 7003 (compatibility version 7000)."
    )
    assert extract(old).cudnn_loaded == "7.3.1"
    m = only(explain(old, None, mini_matrix), "cudnn-version-mismatch")
    assert m.root_cause is not None and "needs the same major and minor" in m.root_cause


def test_cudnn_major_missing(mini_matrix: Matrix) -> None:
    s = snap(libraries=[{"name": "cudnn", "version": "9.1.0", "path": "/usr/lib/libcudnn.so.9"}])
    text = "Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open"
    m = only(explain(text, s, mini_matrix), "tf-dlopen-cudnn")
    # The library the message failed to open is an overlay fact (observed absent for
    # that run); the doctor's cuDNN rule compares it with what is installed.
    assert m.root_cause == "the process needs cuDNN 8.x but only cuDNN 9.1.0 is installed"
    assert "libcudnn.so.8 could not be opened (from the message)" in m.evidence
    # Nothing installed is known: for that run cuDNN 8 is absent all the same.
    m = only(explain(text, None, mini_matrix), "tf-dlopen-cudnn")
    assert m.root_cause == "the process needs cuDNN 8.x but none could be loaded"
    # cuDNN 8 is installed, but not where that process looks.
    s = snap(libraries=[{"name": "cudnn", "version": "8.9.7", "path": "/opt/c/libcudnn.so.8"}])
    m = only(explain(text, s, mini_matrix), "tf-dlopen-cudnn")
    assert m.root_cause is not None and m.root_cause.startswith(
        "cuDNN 8.9.7 is installed at /opt/c/libcudnn.so.8, but the process could not load it"
    )
    assert m.fix is not None and m.fix.startswith("Add /opt/c to LD_LIBRARY_PATH")


def test_onnxruntime_built_for_cuda_11_on_cuda_12(mini_matrix: Matrix) -> None:
    s = snap(
        driver={"version": "550.54.14"},
        cuda_toolkits=[{"version": "12.4.131", "path": "/usr/local/cuda-12.4", "source": "nvcc"}],
        packages={"onnxruntime-gpu": "1.16.0", "nvidia-cublas-cu12": "12.4.5.8"},
    )
    text = (
        "FAIL : Failed to load library libonnxruntime_providers_cuda.so with error: "
        "libcublasLt.so.11: cannot open shared object file: No such file or directory"
    )
    m = only(explain(text, s, mini_matrix), "onnxruntime-cuda-provider-load-failed")
    # The library the message could not open is an overlay fact; the doctor's CUDA
    # runtime rule compares it with what is installed. The onnxruntime-gpu fix is
    # message-only (only the message says whose dependency the library was).
    assert m.root_cause == "the process needs the CUDA 11.x runtime but only CUDA 12 is installed"
    assert "the CUDA 11 cublasLt library could not be opened (from the message)" in m.evidence
    assert m.fix is not None and m.fix.startswith("Install the onnxruntime-gpu build for CUDA 12")


def test_a_cuda_runtime_library_the_process_could_not_open(mini_matrix: Matrix) -> None:
    from envcheck.explain.facts import extract

    tf = {
        "name": "tensorflow",
        "version": "2.10.0",
        "cuda_version": "11.2",
        "cpu_only": False,
        "package": "tensorflow",
    }
    text = (
        "W0101 12:00:00.000 myapp/loader.cc:42] Could not load dynamic library "
        "'cublas64_11.dll'; dlerror: cublas64_11.dll not found"
    )
    assert extract(text).cuda_unloadable == (("cublas", "11"),)
    m = only(explain(text, snap(frameworks=[tf]), mini_matrix), "tf-dlopen-cuda-library")
    assert m.root_cause == (
        "tensorflow 2.10.0 needs the CUDA 11.x runtime but could not load its cublas library"
    )
    # The resolver's plan for the build (the mini matrix knows no nvidia-* wheel versions).
    from envcheck.compat.target import target_from_snapshot
    from envcheck.resolve.emit import emit_conda
    from envcheck.resolve.plan import plan

    planned = plan(["tensorflow==2.10.0"], target_from_snapshot(snap(frameworks=[tf])), mini_matrix)
    conda = emit_conda(planned).splitlines()[1]
    assert m.fix is not None and conda in m.fix
    # The CUDA it lacked is installed, but not where the process looks.
    kit = [{"version": "11.8.89", "path": "/opt/cuda-11.8"}]
    m = only(
        explain(text, snap(frameworks=[tf], cuda_toolkits=kit), mini_matrix),
        "tf-dlopen-cuda-library",
    )
    assert m.root_cause is not None and m.root_cause.startswith(
        "The CUDA 11.x runtime is installed (CUDA toolkit 11.8.89 at /opt/cuda-11.8)"
    )
    # Nothing known about the machine: the message alone says what that run lacked.
    other = "ImportError: libnvrtc.so.12: cannot open shared object file: No such file"
    assert extract(other).cuda_unloadable == (("nvrtc", "12"),)
    m = only(explain(other, None, mini_matrix), "cupy-nvrtc-missing")
    assert m.root_cause == (
        "the process needs the CUDA 12.x runtime but could not load its nvrtc library"
    )
    # A library numbered by its own major (cuFFT 10 is CUDA 11's) states no CUDA.
    assert extract("libcufft.so.10: cannot open shared object file").cuda_unloadable == ()


def test_a_dll_in_the_message_makes_an_unknown_platform_windows(mini_matrix: Matrix) -> None:
    from envcheck.explain.facts import extract

    text = "Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found"
    assert extract(text).os == "windows"
    assert extract("libcudart.so.11.0: cannot open shared object file").os is None
    m = only(explain(text, None, mini_matrix), "tf-dlopen-cuda-library")
    # Windows finds DLLs on PATH; LD_LIBRARY_PATH means nothing there.
    assert m.fix is not None and "on PATH" in m.fix and "LD_LIBRARY_PATH" not in m.fix


def test_cuda_visible_devices_hides_every_gpu(mini_matrix: Matrix) -> None:
    s = snap(driver={"version": "550.54.14"}, gpus=[RTX4090], env={"CUDA_VISIBLE_DEVICES": ""})
    m = only(
        explain("RuntimeError: No CUDA GPUs are available", s, mini_matrix),
        "no-cuda-gpus-available",
    )
    # The doctor's env-var rule decides; explain adopts its finding.
    assert m.root_cause == "CUDA_VISIBLE_DEVICES hides every GPU (it is empty)"
    assert "CUDA_VISIBLE_DEVICES = ''" in m.evidence


def test_cuda_visible_devices_names_a_missing_gpu(mini_matrix: Matrix) -> None:
    s = snap(driver={"version": "550.54.14"}, gpus=[RTX4090], env={"CUDA_VISIBLE_DEVICES": "1"})
    m = only(
        explain(
            "failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected",
            s,
            mini_matrix,
        ),
        "cuda-no-device",
    )
    assert m.root_cause == "CUDA_VISIBLE_DEVICES hides every GPU (index 1 does not exist (1 GPU))"
    assert m.fix is not None and "unset CUDA_VISIBLE_DEVICES" in m.fix


def test_an_assignment_in_the_message_is_judged_by_the_doctors_rule(mini_matrix: Matrix) -> None:
    # The message's own command line sets the variable; the machine has a GPU.
    s = snap(driver={"version": "550.54.14"}, gpus=[RTX4090])
    text = "$ CUDA_VISIBLE_DEVICES=void python train.py\nRuntimeError: No CUDA GPUs are available"
    m = only(explain(text, s, mini_matrix), "no-cuda-gpus-available")
    assert m.root_cause is not None and "CUDA_VISIBLE_DEVICES hides every GPU" in m.root_cause
    assert "CUDA_VISIBLE_DEVICES = 'void'" in m.evidence


def test_a_pip_command_for_a_python_it_has_no_wheel_for(
    matrix: Matrix, mini_matrix: Matrix
) -> None:
    from envcheck.explain.facts import extract

    text = (
        "Python 3.11.1 (tags/v3.11.1:a7a450f, Dec  6 2022, 19:58:39) [MSC v.1934 64 bit (AMD64)]\n"
        'Command: "C:\\sd\\venv\\Scripts\\python.exe" -m pip install torch==1.12.1+cu113 '
        "--extra-index-url https://download.pytorch.org/whl/cu113\n"
        "Error code: 1"
    )
    facts = extract(text)
    assert facts.python == "3.11" and facts.os == "windows"
    assert facts.pins == (("torch", "1.12.1+cu113"),)
    report = explain(text, None, matrix)
    found = {f.id: f for f in report.findings}
    assert "python-unsupported" in found
    assert (
        "from the message: pip install torch==1.12.1+cu113" in found["python-unsupported"].evidence
    )


def test_nvml_mismatch_names_both_versions(mini_matrix: Matrix) -> None:
    s = snap(
        driver={
            "version": "535.129.03",
            "kernel_module_version": "535.104.05",
            "nvml_library_version": "535.129.03",
        }
    )
    m = only(
        explain("Failed to initialize NVML: Driver/library version mismatch", s, mini_matrix),
        "nvml-driver-library-mismatch",
    )
    # The doctor's NVML rule reads both versions from the snapshot.
    assert m.root_cause is not None and m.root_cause.startswith("NVIDIA kernel module and user")
    assert "kernel module = 535.104.05" in m.evidence
    assert "NVML library = 535.129.03" in m.evidence


def test_no_driver_inside_a_container(mini_matrix: Matrix) -> None:
    s = snap(platform={**LINUX, "container": "docker"})
    m = only(
        explain("RuntimeError: Found no NVIDIA driver on your system.", s, mini_matrix),
        "torch-found-no-nvidia-driver",
    )
    assert m.root_cause == "the program runs in a docker container without GPU access"
    assert m.fix is not None and "--gpus all" in m.fix


def test_libcuda_missing_on_wsl(mini_matrix: Matrix) -> None:
    s = snap(platform={**LINUX, "wsl": True, "kernel": "5.15.153.1-microsoft-standard-WSL2"})
    text = (
        "Could not load library libcudnn_cnn_infer.so.8. Error: libcuda.so: cannot open shared "
        "object file: No such file or directory"
    )
    report = explain(text, s, mini_matrix)
    m = only(report, "libcuda-missing")
    assert m.root_cause == "WSL2 sees no NVIDIA driver"
    assert m.fix is not None and "Windows" in m.fix
    sub = only(report, "cudnn-sublibrary-load-failed")
    assert sub.root_cause is not None and "libcuda.so" in sub.root_cause


def test_bf16_on_a_turing_gpu(mini_matrix: Matrix) -> None:
    s = snap(driver={"version": "550.54.14"}, gpus=[{"index": 0, "name": "Tesla T4"}])
    text = (
        "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling "
        "`cublasGemmStridedBatchedEx(handle, opa, opb, m, n, k, &falpha, a, CUDA_R_16BF, lda)`"
    )
    m = only(explain(text, s, mini_matrix), "cublas-not-supported")
    assert (
        m.root_cause == "the operation uses bfloat16, which GPU 0 Tesla T4 (sm_75) does not support"
    )


def test_out_of_memory_shows_gpu_memory(mini_matrix: Matrix) -> None:
    s = snap(driver={"version": "550.54.14"}, gpus=[RTX4090])
    m = only(
        explain("torch.cuda.OutOfMemoryError: CUDA out of memory.", s, mini_matrix),
        "cuda-out-of-memory",
    )
    assert "GPU 0 NVIDIA GeForce RTX 4090: 24564 MiB" in m.evidence
    assert m.root_cause is None


def test_doctor_findings_back_the_explanation(mini_matrix: Matrix) -> None:
    # The doctor's env-var rule sees the same problem: its finding is the root cause,
    # stated once (not repeated as a "doctor:" evidence line).
    s = snap(driver={"version": "550.54.14"}, gpus=[RTX4090], env={"CUDA_VISIBLE_DEVICES": ""})
    m = only(
        explain("RuntimeError: No CUDA GPUs are available", s, mini_matrix),
        "no-cuda-gpus-available",
    )
    assert m.root_cause is not None and "CUDA_VISIBLE_DEVICES" in m.root_cause
    assert f"doctor: {m.root_cause}" not in m.evidence


def test_root_cause_analysis_never_crashes_on_odd_snapshots(mini_matrix: Matrix) -> None:
    s = snap(
        driver={"version": "garbage"},
        gpus=[{"index": None, "name": None, "compute_capability": "x.y"}],
        frameworks=[{"name": "torch", "version": "not-a-version", "cuda_version": "banana"}],
        libraries=[{"name": "cudnn"}],
        env={"CUDA_VISIBLE_DEVICES": ",,,"},
    )
    from envcheck.explain import SIGNATURES

    from .test_signatures import EXAMPLES

    text = "\n".join(lines[0] for lines in EXAMPLES.values())
    report = explain(text, s, mini_matrix)
    assert len(report.matches) >= len(SIGNATURES) - 5
    assert report.snapshot_used
    assert all(f.title for f in report.findings)


def test_line_numbers_with_crlf_and_bare_cr_inside_lines() -> None:
    text = "a\r\nb\r\nRuntimeError: CUDA error: device-side assert triggered\r\nprogress 10%\rprogress 20%\n"
    report = explain(text)
    assert [(m.signature.id, m.line_no) for m in report.matches] == [("cuda-device-side-assert", 3)]
    assert report.matches[0].lines[0][1] == "RuntimeError: CUDA error: device-side assert triggered"
    assert report.lines_scanned == 4


def test_a_match_never_swallows_the_next_line() -> None:
    text = "CUDA_VISIBLE_DEVICES=\nRuntimeError: No CUDA GPUs are available\n"
    m = only(explain(text), "no-cuda-gpus-available")
    assert [n for n, _ in m.lines] == [1, 2]


def test_driver_facts_from_the_message_alone(mini_matrix: Matrix) -> None:
    from envcheck.explain.facts import extract

    text = (
        "| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: 11.4     |\n"
        "$ pip install torch==2.5.1+cu124\n"
        "RuntimeError: CUDA driver version is insufficient for CUDA runtime version\n"
    )
    facts = extract(text)
    assert (facts.driver, facts.driver_cuda) == ("470.82.01", "11.4")
    m = only(explain(text, None, mini_matrix), "cuda-driver-insufficient")
    assert m.root_cause == "Driver 470.82.01 is too old for torch 2.5.1+cu124 (CUDA 12.4)"
    assert "from the message: driver 470.82.01" in m.evidence


def test_message_driver_overrides_the_local_one_for_this_run(mini_matrix: Matrix) -> None:
    # The local machine's driver is new; the message's process saw CUDA 11.4 at most.
    s = snap(driver={"version": "550.54.14"}, frameworks=[torch("2.1.0+cu121", "12.1", "cu121")])
    text = "The NVIDIA driver on your system is too old (found version 11040)."
    m = only(explain(text, s, mini_matrix), "torch-driver-too-old")
    assert m.root_cause is not None and "supporting CUDA up to 11.4" in m.root_cause
    assert s.driver.version == "550.54.14"  # the snapshot itself is untouched


def test_a_cuda_of_the_same_major_is_minor_version_compatible(mini_matrix: Matrix) -> None:
    s = snap(frameworks=[torch("2.5.1+cu124", "12.4", "cu124")])
    text = "The NVIDIA driver on your system is too old (found version 12020)."
    m = only(explain(text, s, mini_matrix), "torch-driver-too-old")
    assert m.root_cause is not None and "minor-version compatibility" in m.root_cause


def test_arch_facts_from_the_message_alone(mini_matrix: Matrix) -> None:
    # No snapshot, no torch version: the compiled list PyTorch prints is enough.
    text = (
        "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the "
        "current PyTorch installation.\n"
        "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 "
        "sm_86 sm_90.\n"
    )
    m = only(explain(text, None, mini_matrix), "torch-gpu-arch-not-compatible")
    assert m.root_cause == (
        "torch (version unknown) has no kernels for NVIDIA GeForce RTX 5090 (sm_120)"
    )
    assert (
        "from the message: the installed PyTorch was compiled for sm_50, sm_60, sm_70, sm_75, "
        "sm_80, sm_86, sm_90"
    ) in m.evidence


def test_a_gpu_the_list_covers_is_not_blamed(mini_matrix: Matrix) -> None:
    text = (
        "NVIDIA A100-SXM4-40GB with CUDA capability sm_80 is not compatible with the current "
        "PyTorch installation.\n"
        "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80.\n"
    )
    m = only(explain(text, None, mini_matrix), "torch-gpu-arch-not-compatible")
    assert m.root_cause is None


def test_tensorflow_device_lines_are_gpu_facts() -> None:
    from envcheck.explain.facts import extract

    text = (
        "Ignoring visible gpu device (device: 0, name: GeForce GT 730, pci bus id: "
        "0000:01:00.0, compute capability: 3.5) with Cuda compute capability 3.5.\n"
        "Found GPU0 Tesla K80 which is of cuda capability 3.7.\n"
    )
    assert extract(text).gpus == (("GeForce GT 730", "3.5"), ("Tesla K80", "3.7"))


def test_driver_too_old_without_the_build_plans_for_the_driver_the_message_states(
    matrix: Matrix,
) -> None:
    # Colab-style: an unpinned `pip install torch`, then PyTorch's "found version 10010"
    # (a CUDA 10.1 driver). No build is known, so no rule judges it; the fix must be a
    # build that driver runs, not a fixed newer CUDA variant.
    import re

    from envcheck.model.versions import parse_cuda_version

    text = (
        "!pip install torch torchvision\n"
        "RuntimeError: The NVIDIA driver on your system is too old (found version 10010)."
        " Please update your GPU driver by downloading and installing a new version\n"
    )
    m = only(explain(text, None, matrix), "torch-driver-too-old")
    assert m.root_cause is not None and "CUDA up to 10.1" in m.root_cause
    assert m.fix is not None and "pip install torch==" in m.fix
    variant = re.search(r"/whl/cu(\d+)(\d)\b", m.fix)
    assert variant is not None, m.fix
    cuda = parse_cuda_version(f"{variant.group(1)}.{variant.group(2)}")
    top = parse_cuda_version("10.1")
    assert cuda is not None and top is not None and cuda <= top


def test_driver_too_old_with_a_known_build_is_the_doctors_call(mini_matrix: Matrix) -> None:
    # The build is known: the doctor's driver rule names the cause, not the fallback.
    s = snap(
        frameworks=[
            {"name": "torch", "version": "2.5.1+cu124", "cuda_version": "12.4", "cpu_only": False}
        ],
    )
    text = "RuntimeError: The NVIDIA driver on your system is too old (found version 11040)."
    m = only(explain(text, s, mini_matrix), "torch-driver-too-old")
    assert m.root_cause is not None
    assert "made for a newer CUDA" not in m.root_cause


def test_nvcc_older_than_the_gpu_names_the_toolkit(matrix: Matrix) -> None:
    """facebookresearch/3detr#59's situation: an RTX 4090 and a CUDA 11.5 nvcc."""
    s = snap(
        gpus=[{"index": 0, "name": "NVIDIA GeForce RTX 4090"}],
        cuda_toolkits=[{"version": "11.5.119", "path": "/usr/local/cuda-11.5", "source": "nvcc"}],
    )
    text = "nvcc fatal   : Unsupported gpu architecture 'compute_89'"
    m = only(explain(text, s, matrix), "ptxas-unknown-gpu-arch")
    assert m.root_cause == (
        "the CUDA 11.5 toolkit at /usr/local/cuda-11.5 predates GPU 0 NVIDIA GeForce RTX 4090 "
        "(sm_89); its compiler cannot build for it"
    )


# https://github.com/justchenhao/STANet/issues/57 (the reporter's own words)
PROSE_GT730 = (
    "I use NVIDIA Geforce GT 730 graphics card with 2GB dedicated memory. Anytime I run "
    'either the demo.py or train.py, I get the error "RuntimeError: CUDA error: no kernel '
    'image is available for execution on the device".'
)


def test_a_gpu_named_in_prose_is_judged_by_the_matrix() -> None:
    """A GPU the reporter names without its capability is resolved like an nvidia-smi
    name: the GT 730's chips are all older than every CUDA current builds use."""
    shipped = load_matrix(bundled=True)
    m = only(explain(PROSE_GT730, snap(), shipped), "no-kernel-image")
    assert m.root_cause is not None
    assert "GF108 sm_21 or GK107 sm_30 or GK208B sm_35" in m.root_cause
    assert "no CUDA release that current frameworks use supports sm_35" in m.root_cause
    assert "from the message: GPU NVIDIA Geforce GT 730" in m.evidence


def test_prose_gpu_names_the_matrix_does_not_know_are_dropped() -> None:
    from envcheck.explain.facts import extract, known_gpus

    shipped = load_matrix(bundled=True)
    text = "Tried on a GeForce GTX 9999 and an RTX 3090 Ti; Tesla 3 owners too."
    assert extract(text).gpu_names == ("GeForce GTX 9999", "RTX 3090 Ti")
    assert known_gpus(extract(text), shipped).gpu_names == ("RTX 3090 Ti",)
    # A GPU stated with its capability wins over prose names.
    stated = "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible (RTX 3090)"
    assert extract(stated).gpu_names == ()


def test_a_machines_own_gpus_are_not_replaced_by_prose_names() -> None:
    from envcheck.explain.facts import extract, known_gpus, overlay

    shipped = load_matrix(bundled=True)
    machine = snap(gpus=[{"index": 0, "name": "NVIDIA A100-SXM4-40GB"}])
    laid = overlay(machine, known_gpus(extract(PROSE_GT730), shipped))
    assert [g.name for g in laid.gpus] == ["NVIDIA A100-SXM4-40GB"]


SMI_DIR = Path(__file__).parent.parent / "fixtures" / "nvidia_smi"


@pytest.mark.parametrize(
    ("name", "driver", "cuda"),
    [
        ("r610-plain-2x-b200.txt", "610.43.02", "13.3"),
        ("r610-plain-rtx5070.txt", "610.43.02", "13.3"),
        ("r610-plain-rtx3080-610.43.03.txt", "610.43.03", "13.3"),
        ("r610-q-documented.txt", "610.57.04", "13.3"),
    ],
)
def test_driver_facts_from_an_r610_nvidia_smi_paste(name: str, driver: str, cuda: str) -> None:
    from envcheck.explain.facts import extract, overlay

    text = (SMI_DIR / name).read_text(encoding="utf-8")
    text += "RuntimeError: CUDA driver version is insufficient for CUDA runtime version\n"
    facts = extract(text)
    assert (facts.driver, facts.driver_cuda) == (driver, cuda)
    s = overlay(None, facts)
    assert (s.driver.version, s.driver.cuda_version) == (driver, cuda)


def test_a_cuda_version_far_from_a_q_driver_line_is_not_the_drivers() -> None:
    from envcheck.explain.facts import extract

    text = (
        "Driver Version                      : 440.82\n"
        "Attached GPUs                       : 1\n"
        "GPU 00000000:01:00.0\n"
        "    Product Name                    : GeForce GTX 1650\n"
        "    Product Brand                   : GeForce\n"
        "CUDA Version                        : 12.1\n"
    )
    assert (extract(text).driver, extract(text).driver_cuda) == ("440.82", None)
    # Beside it, it is (https://github.com/NVIDIA/nvidia-docker/issues/1330).
    text = (
        "Driver Version                      : 440.82\nCUDA Version                        : 10.2\n"
    )
    assert (extract(text).driver, extract(text).driver_cuda) == ("440.82", "10.2")


def test_a_cause_without_a_doctor_fix_gets_the_resolvers_commands(mini_matrix: Matrix) -> None:
    # The doctor names no fix of its own here, the signature's advice is version-free:
    # the fix is the resolver's plan replacing the installed build.
    from envcheck.explain.core import _resolver_fix
    from envcheck.rules._fix import install_fix

    unknown = {"name": "torch", "version": "2.5.1", "package": "torch"}
    s = snap(
        driver={"version": "550.54.14"},
        gpus=[{"index": 0, "name": "NVIDIA GeForce RTX 4090", "compute_capability": "8.9"}],
        frameworks=[unknown],
        python={"version": "3.11.9"},
    )
    m = only(
        explain("AssertionError: Torch not compiled with CUDA enabled", s, mini_matrix),
        "torch-not-compiled-with-cuda",
    )
    from envcheck.compat.target import target_from_snapshot

    command = install_fix(
        "torch", target_from_snapshot(s), mini_matrix, s.packages, "2.5.1", "torch"
    )
    assert command is not None and "pip uninstall -y torch" in command
    assert _resolver_fix(m, s, mini_matrix) == f"Install a build that runs here:\n  {command}"
