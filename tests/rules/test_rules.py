"""One snapshot that fires each rule and one that must not."""

from __future__ import annotations

from typing import Any

import pytest

from envcheck.doctor import diagnose
from envcheck.matrix import Matrix
from envcheck.model.finding import Category, Severity
from envcheck.model.snapshot import Snapshot
from tests.rules.snapshots import LINUX, TF_2_10_CU112, snap

RTX4090 = {
    "index": 0,
    "name": "NVIDIA GeForce RTX 4090",
    "compute_capability": "8.9",
    "memory_total_mib": 24564,
    "pcie_generation": 4,
    "pcie_width": 16,
    "pcie_max_generation": 4,
    "pcie_max_width": 16,
}
RTX5090 = {"index": 0, "name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0"}
K80 = {"index": 0, "name": "Tesla K80", "compute_capability": "3.7"}
TORCH_CU124 = {
    "name": "torch",
    "version": "2.5.1+cu124",
    "cuda_version": "12.4",
    "cpu_only": False,
    "package": "torch",
    "variant": "cu124",
}
TORCH_CU128 = {
    "name": "torch",
    "version": "2.7.0+cu128",
    "cuda_version": "12.8",
    "cpu_only": False,
    "package": "torch",
    "variant": "cu128",
}
TORCH_CPU = {
    "name": "torch",
    "version": "2.5.1+cpu",
    "cpu_only": True,
    "package": "torch",
    "variant": "cpu",
}
TF_2_15 = {
    "name": "tensorflow",
    "version": "2.15.0",
    "cuda_version": "12.2",
    "cudnn_version": "8.9",
    "cpu_only": False,
    "package": "tensorflow",
}


def ids(snapshot: Snapshot, matrix: Matrix) -> dict[str, Any]:
    return {f.id: f for f in diagnose(snapshot, matrix).findings}


def driver(version: str, **kw: Any) -> dict[str, Any]:
    return {"version": version, **kw}


HEALTHY = snap(
    driver=driver("550.54.14", cuda_version="12.4"), gpus=[RTX4090], frameworks=[TORCH_CU124]
)


def test_healthy_machine_has_no_errors_or_warnings(mini_matrix: Matrix) -> None:
    report = diagnose(HEALTHY, mini_matrix)
    assert [f.severity for f in report.findings] == [Severity.INFO]
    assert report.findings[0].id == "gpu-capabilities"
    assert "Ada Lovelace" in report.findings[0].title
    assert not report.failed(strict=True)


def test_driver_too_old_names_the_driver_needed(mini_matrix: Matrix) -> None:
    found = ids(
        snap(driver=driver("470.82.01"), gpus=[RTX4090], frameworks=[TORCH_CU124]), mini_matrix
    )
    f = found["driver-too-old"]
    assert f.severity is Severity.ERROR and f.category is Category.DRIVER_TOO_OLD
    assert "525.60.13" in f.fix  # the CUDA 12.x minor-version floor
    assert any("supports CUDA up to 11.4" in e for e in f.evidence)


def test_minor_compat_is_a_warning_not_an_error(mini_matrix: Matrix) -> None:
    # torch cu124 on a 535 driver runs through minor-version compatibility.
    found = ids(
        snap(driver=driver("535.104.05"), gpus=[RTX4090], frameworks=[TORCH_CU124]), mini_matrix
    )
    assert "driver-too-old" not in found
    assert found["driver-minor-compat"].severity is Severity.WARNING
    assert "550.54.14" in found["driver-minor-compat"].fix


def test_cuda13_build_on_535_is_an_error(mini_matrix: Matrix) -> None:
    fw = {
        "name": "torch",
        "version": "2.9.0+cu130",
        "cuda_version": "13.0",
        "cpu_only": False,
        "variant": "cu130",
    }
    found = ids(snap(driver=driver("535.104.05"), gpus=[RTX4090], frameworks=[fw]), mini_matrix)
    assert found["driver-too-old"].severity is Severity.ERROR
    assert "580" in found["driver-too-old"].fix


def test_rtx5090_with_cu124_build_is_unsupported(mini_matrix: Matrix) -> None:
    found = ids(
        snap(driver=driver("570.124.04"), gpus=[RTX5090], frameworks=[TORCH_CU124]), mini_matrix
    )
    f = found["gpu-arch-unsupported"]
    assert f.category is Category.GPU_ARCH_UNSUPPORTED
    assert "sm_120" in f.title
    assert any("sm_90" in e for e in f.evidence)


def test_rtx5090_with_cu128_build_is_fine(mini_matrix: Matrix) -> None:
    found = ids(
        snap(driver=driver("570.124.04"), gpus=[RTX5090], frameworks=[TORCH_CU128]), mini_matrix
    )
    assert "gpu-arch-unsupported" not in found
    assert "driver-too-old" not in found


def test_kepler_with_build_that_dropped_it(mini_matrix: Matrix) -> None:
    found = ids(snap(driver=driver("470.82.01"), gpus=[K80], frameworks=[TORCH_CU124]), mini_matrix)
    assert "gpu-arch-unsupported" in found


def test_cpu_only_build_with_gpu(mini_matrix: Matrix) -> None:
    found = ids(
        snap(driver=driver("550.54.14"), gpus=[RTX4090], frameworks=[TORCH_CPU]), mini_matrix
    )
    f = found["cpu-only-build"]
    assert f.severity is Severity.ERROR and f.category is Category.CPU_ONLY_BUILD
    assert "pip uninstall -y torch" in (f.fix or "")
    # A CUDA build of the user's own release runs here: the fix keeps the release.
    assert "torch==2.5.1" in (f.fix or "")


def test_cpu_only_build_beside_a_gpu_framework_is_a_warning(mini_matrix: Matrix) -> None:
    # GPU acceleration works through torch; the CPU onnxruntime package (often some
    # other package's dependency) is worth a warning, not an error that fails CI.
    ort = {"name": "onnxruntime", "version": "1.30.0", "package": "onnxruntime", "cpu_only": True}
    s = snap(driver=driver("550.54.14"), gpus=[RTX4090], frameworks=[TORCH_CU124, ort])
    f = ids(s, mini_matrix)["cpu-only-build"]
    assert f.severity is Severity.WARNING
    assert "onnxruntime 1.30.0" in f.title and "torch" in f.title
    # With no framework on the GPU, the same package is the error it always was.
    alone = ids(snap(driver=driver("550.54.14"), gpus=[RTX4090], frameworks=[ort]), mini_matrix)
    assert alone["cpu-only-build"].severity is Severity.ERROR


def test_cpu_only_build_without_gpu_is_fine(mini_matrix: Matrix) -> None:
    found = ids(snap(frameworks=[TORCH_CPU], probes=["driver"]), mini_matrix)
    assert "cpu-only-build" not in found
    assert found["no-gpu"].severity is Severity.INFO


def test_cuda_build_without_driver_is_an_error(mini_matrix: Matrix) -> None:
    found = ids(snap(frameworks=[TORCH_CU124], probes=["driver"]), mini_matrix)
    assert found["no-driver"].severity is Severity.ERROR
    assert found["no-driver"].category is Category.NO_GPU


def test_a_driver_nobody_looked_for_is_not_reported_missing(mini_matrix: Matrix) -> None:
    found = ids(snap(frameworks=[TORCH_CU124]), mini_matrix)
    assert "no-driver" not in found and "no-gpu" not in found
    # GPUs listed by hand, driver not recorded: unknown, not "no working driver".
    assert "no-driver" not in ids(snap(gpus=[RTX4090], frameworks=[TORCH_CU124]), mini_matrix)
    observed = snap(gpus=[RTX4090], frameworks=[TORCH_CU124], probes=["driver"])
    assert ids(observed, mini_matrix)["no-driver"].category is Category.NO_DRIVER


def test_cuda_reported_available_means_a_working_driver(mini_matrix: Matrix) -> None:
    torch = {**TORCH_CU124, "build": {"is_cuda_available": "True"}}
    s = snap(frameworks=[torch], probes=["driver"])
    assert s.nvidia() is True
    assert "no-driver" not in ids(s, mini_matrix)


def test_nvml_mismatch(mini_matrix: Matrix) -> None:
    s = snap(
        driver=driver(
            "550.54.14", kernel_module_version="535.104.05", nvml_library_version="550.54.14"
        ),
        gpus=[RTX4090],
    )
    f = ids(s, mini_matrix)["nvml-mismatch"]
    assert f.category is Category.NVML_MISMATCH
    assert "reboot" in (f.fix or "").lower()
    same = snap(
        driver=driver(
            "550.54.14", kernel_module_version="550.54.14", nvml_library_version="550.54.14"
        ),
        gpus=[RTX4090],
    )
    assert "nvml-mismatch" not in ids(same, mini_matrix)


def test_nvml_mismatch_from_probe_error(mini_matrix: Matrix) -> None:
    s = snap(
        errors=[{"probe": "driver", "message": "NVMLError: Driver/library version mismatch"}],
        driver=driver("550.54.14"),
    )
    assert "nvml-mismatch" in ids(s, mini_matrix)


@pytest.mark.parametrize("value", ["", "-1", "NoDevFiles", "3", "GPU-ffff"])
def test_cuda_visible_devices_hiding_every_gpu(mini_matrix: Matrix, value: str) -> None:
    s = snap(
        driver=driver("550.54.14"),
        gpus=[{**RTX4090, "uuid": "GPU-1234"}],
        env={"CUDA_VISIBLE_DEVICES": value},
    )
    f = ids(s, mini_matrix)["cuda-visible-devices-hides-gpus"]
    assert f.category is Category.ENV_VAR_HIDES_GPU


@pytest.mark.parametrize("value", ["0", "GPU-1234", "0,1"])
def test_cuda_visible_devices_valid(mini_matrix: Matrix, value: str) -> None:
    s = snap(
        driver=driver("550.54.14"),
        gpus=[{**RTX4090, "uuid": "GPU-1234"}],
        env={"CUDA_VISIBLE_DEVICES": value},
    )
    assert "cuda-visible-devices-hides-gpus" not in ids(s, mini_matrix)


def test_container_without_gpu(mini_matrix: Matrix) -> None:
    s = snap(platform={**LINUX, "container": "docker"}, frameworks=[TORCH_CU124])
    found = ids(s, mini_matrix)
    f = found["container-no-gpu"]
    assert f.severity is Severity.ERROR and "--gpus all" in (f.fix or "")
    assert "no-driver" not in found  # one explanation, not two
    with_gpu = snap(
        platform={**LINUX, "container": "docker"},
        driver=driver("550.54.14"),
        gpus=[RTX4090],
        frameworks=[TORCH_CU124],
    )
    assert "container-no-gpu" not in ids(with_gpu, mini_matrix)


def test_macos(mini_matrix: Matrix) -> None:
    s = snap(platform={"os": "darwin", "arch": "arm64"}, frameworks=[TORCH_CPU])
    found = ids(s, mini_matrix)
    assert found["macos-no-cuda"].severity is Severity.INFO
    assert "no-gpu" not in found and "no-driver" not in found


def test_windows_tensorflow_after_2_10(mini_matrix: Matrix) -> None:
    tf = {"name": "tensorflow", "version": "2.15.0", "cpu_only": True, "package": "tensorflow"}
    s = snap(
        platform={"os": "windows", "arch": "AMD64"},
        driver=driver("551.78"),
        gpus=[RTX4090],
        frameworks=[tf],
    )
    found = ids(s, mini_matrix)
    assert found["no-gpu-build-for-platform"].severity is Severity.ERROR
    assert "WSL2" in (found["no-gpu-build-for-platform"].fix or "")
    assert "cpu-only-build" not in found


def test_wsl_with_linux_driver_inside(mini_matrix: Matrix) -> None:
    s = snap(
        platform={**LINUX, "wsl": True},
        driver=driver("551.78", kernel_module_version="535.104.05"),
        gpus=[RTX4090],
    )
    assert ids(s, mini_matrix)["wsl-linux-driver-installed"].severity is Severity.ERROR
    ok = snap(platform={**LINUX, "wsl": True}, driver=driver("551.78"), gpus=[RTX4090])
    assert "wsl-linux-driver-installed" not in ids(ok, mini_matrix)


def test_python_unsupported(mini_matrix: Matrix) -> None:
    s = snap(
        python={"version": "3.8.18"},
        driver=driver("550.54.14"),
        gpus=[RTX4090],
        frameworks=[TORCH_CU124],
    )
    f = ids(s, mini_matrix)["python-unsupported"]
    assert f.category is Category.PYTHON_UNSUPPORTED
    # Installed means a wheel existed: a risk to flag, not a certain failure.
    assert f.severity is Severity.WARNING
    assert "python-unsupported" not in ids(HEALTHY, mini_matrix)


def test_mixed_cuda_wheels(mini_matrix: Matrix) -> None:
    s = snap(
        driver=driver("550.54.14"),
        gpus=[RTX4090],
        frameworks=[TORCH_CU124],
        packages={"torch": "2.5.1", "nvidia-cublas-cu12": "12.4.5.8", "cupy-cuda11x": "13.0.0"},
    )
    f = ids(s, mini_matrix)["mixed-cuda-wheels"]
    assert f.category is Category.MIXED_WHEELS
    assert any("cupy-cuda11x" in e for e in f.evidence)
    clean = snap(
        driver=driver("550.54.14"),
        gpus=[RTX4090],
        frameworks=[TORCH_CU124],
        packages={"nvidia-cublas-cu12": "12.4.5.8", "cupy-cuda12x": "13.0.0"},
    )
    assert "mixed-cuda-wheels" not in ids(clean, mini_matrix)


def test_conda_cudatoolkit_beside_pip_wheels(mini_matrix: Matrix) -> None:
    s = snap(conda_packages={"cudatoolkit": "11.8.0"}, packages={"nvidia-cudnn-cu12": "9.1.0.70"})
    assert "conda-cudatoolkit-beside-pip-cuda" in ids(s, mini_matrix)


def test_tensorflow_cudnn8_finding_only_cudnn9(mini_matrix: Matrix) -> None:
    tf = TF_2_10_CU112
    s = snap(
        driver=driver("550.54.14"),
        gpus=[RTX4090],
        frameworks=[tf],
        cuda_toolkits=[
            {"version": "11.2.152", "path": "/usr/local/cuda-11.2", "source": "version.txt"}
        ],
        libraries=[
            {
                "name": "cudnn",
                "version": "9.1.0",
                "path": "/usr/lib/libcudnn.so.9",
                "source": "system",
            }
        ],
    )
    f = ids(s, mini_matrix)["cudnn-major-mismatch"]
    assert f.category is Category.CUDNN_MISMATCH


def test_tensorflow_without_any_cudnn(mini_matrix: Matrix) -> None:
    tf = TF_2_10_CU112
    probes = ["driver", "toolkits", "libraries", "frameworks"]
    s = snap(driver=driver("550.54.14"), gpus=[RTX4090], frameworks=[tf], probes=probes)
    found = ids(s, mini_matrix)
    assert found["cudnn-missing"].category is Category.CUDA_RUNTIME_MISSING
    assert found["cuda-runtime-missing"].severity is Severity.ERROR
    # Not looked for is not absent: a hand-written snapshot without libraries.
    unknown = ids(snap(driver=driver("550.54.14"), gpus=[RTX4090], frameworks=[tf]), mini_matrix)
    assert "cudnn-missing" not in unknown
    assert "cuda-runtime-missing" not in unknown
    # The pip wheels in `packages` are cuDNN and the CUDA runtime.
    wheels = {"nvidia-cudnn-cu11": "8.6.0.163", "nvidia-cuda-runtime-cu11": "11.8.89"}
    s = snap(
        driver=driver("550.54.14"), gpus=[RTX4090], frameworks=[tf], probes=probes, packages=wheels
    )
    assert not {"cudnn-missing", "cuda-runtime-missing"} & set(ids(s, mini_matrix))


def test_older_cudnn_on_ld_library_path_shadows(mini_matrix: Matrix) -> None:
    tf = TF_2_15
    s = snap(
        driver=driver("550.54.14"),
        gpus=[RTX4090],
        frameworks=[tf],
        libraries=[
            {
                "name": "cudnn",
                "version": "8.6.0",
                "path": "/opt/cudnn/lib/libcudnn.so.8",
                "source": "LD_LIBRARY_PATH",
            },
            {
                "name": "cudnn",
                "version": "8.9.7.29",
                "source": "pip",
                "path": "/venv/lib/python3.11/site-packages/nvidia/cudnn/lib/libcudnn.so.8",
            },
        ],
    )
    assert ids(s, mini_matrix)["cudnn-shadowed"].category is Category.LIB_PATH_CONFLICT


def test_cudnn_of_the_same_major_but_older_than_the_build(mini_matrix: Matrix) -> None:
    tf = TF_2_15
    old = {
        "name": "cudnn",
        "version": "8.6.0",
        "path": "/usr/lib/libcudnn.so.8",
        "source": "system",
    }
    new = {"name": "cudnn", "version": "8.9.7", "path": "/opt/libcudnn.so.8", "source": "system"}
    base = {"driver": driver("550.54.14"), "gpus": [RTX4090], "frameworks": [tf]}
    # The only cuDNN 8 installed is older than 8.9: TensorFlow refuses it.
    found = ids(snap(**base, libraries=[old]), mini_matrix)["cudnn-older-than-build"]
    assert found.category is Category.CUDNN_MISMATCH and found.severity is Severity.ERROR
    # The resolver's plan: the same release with the extra that brings its cuDNN wheel.
    assert found.fix is not None and "'tensorflow[and-cuda]==2.15.0'" in found.fix
    # A new enough copy is installed too: which one loads is not known, no finding.
    assert "cudnn-older-than-build" not in ids(snap(**base, libraries=[old, new]), mini_matrix)
    # A process was seen loading the old one (source "message", as explain lays it over).
    seen = {"name": "cudnn", "version": "8.6.0", "source": "message"}
    found = ids(snap(**base, libraries=[seen, old, new]), mini_matrix)["cudnn-older-than-build"]
    assert "the process loaded the older cuDNN 8.6.0" in found.title
    assert found.fix is not None and "/opt/libcudnn.so.8" in found.fix
    # A framework that does not check the minor at start-up gets a warning.
    ort = {**tf, "name": "onnxruntime", "package": "onnxruntime-gpu", "version": "1.18.0"}
    s = snap(**{**base, "frameworks": [ort]}, libraries=[seen])
    assert ids(s, mini_matrix)["cudnn-older-than-build"].severity is Severity.WARNING
    # An unknown minor is not older.
    vague = {**old, "version": "8"}
    assert "cudnn-older-than-build" not in ids(snap(**base, libraries=[vague]), mini_matrix)


def test_a_cudnn_major_a_process_could_not_open_is_absent(mini_matrix: Matrix) -> None:
    from envcheck.model.snapshot import LIB_NOT_LOADABLE as NOT_LOADABLE

    tf = TF_2_15
    failed = {"name": "cudnn", "version": "8", "source": NOT_LOADABLE}
    # No libraries probe ran, yet the process was seen failing to open cuDNN 8.
    found = ids(snap(frameworks=[tf], libraries=[failed]), mini_matrix)["cudnn-missing"]
    assert found.title == "tensorflow 2.15.0 needs cuDNN 8.x but none could be loaded"
    # The record is not an installed cuDNN 8 for any other check.
    nine = {"name": "cudnn", "version": "9.1.0", "path": "/usr/lib/libcudnn.so.9"}
    found = ids(snap(libraries=[failed, nine]), mini_matrix)["cudnn-major-mismatch"]
    assert found.title == "the process needs cuDNN 8.x but only cuDNN 9.1.0 is installed"


def test_ld_library_path_older_cuda(mini_matrix: Matrix) -> None:
    s = snap(
        driver=driver("550.54.14"),
        gpus=[RTX4090],
        env={"LD_LIBRARY_PATH": "/usr/local/cuda-11.8/lib64:/usr/lib"},
        cuda_toolkits=[
            {"version": "12.4.131", "path": "/usr/local/cuda-12.4", "source": "nvcc"},
            {"version": "11.8.89", "path": "/usr/local/cuda-11.8", "source": "version.json"},
        ],
    )
    assert ids(s, mini_matrix)["ld-library-path-older-cuda"].severity is Severity.WARNING


def test_pcie_link_degraded_and_multi_gpu(mini_matrix: Matrix) -> None:
    narrow = {**RTX4090, "pcie_width": 4}
    t4 = {"index": 1, "name": "Tesla T4", "compute_capability": "7.5"}
    found = ids(snap(driver=driver("550.54.14"), gpus=[narrow, t4]), mini_matrix)
    assert found["pcie-link-degraded"].severity is Severity.WARNING
    assert found["multi-gpu"].severity is Severity.WARNING  # different models


def test_unknown_framework_version_is_not_silently_ok(mini_matrix: Matrix) -> None:
    fw = {"name": "torch", "version": "9.9.9", "cuda_version": "12.4", "cpu_only": False}
    found = ids(snap(driver=driver("550.54.14"), gpus=[RTX4090], frameworks=[fw]), mini_matrix)
    assert found["unknown-framework-version"].severity is Severity.WARNING


def test_unknown_gpu_name_is_reported(mini_matrix: Matrix) -> None:
    found = ids(
        snap(driver=driver("550.54.14"), gpus=[{"index": 0, "name": "Mystery GPU"}]), mini_matrix
    )
    assert found["gpu-unknown"].category is Category.OTHER


def test_gpu_name_fills_in_compute_capability(mini_matrix: Matrix) -> None:
    s = snap(
        driver=driver("550.54.14"),
        gpus=[{"index": 0, "name": "NVIDIA GeForce RTX 5090"}],
        frameworks=[TORCH_CU124],
    )
    assert "gpu-arch-unsupported" in ids(s, mini_matrix)


def test_crashing_rule_becomes_a_finding(mini_matrix: Matrix) -> None:
    def broken(snapshot: Snapshot, matrix: Matrix) -> list[Any]:
        raise ZeroDivisionError("boom")

    report = diagnose(HEALTHY, mini_matrix, rules=(("broken", broken),))
    assert [f.id for f in report.findings] == ["rule-crashed"]
    assert report.failed(strict=True)


def test_findings_sorted_errors_first(mini_matrix: Matrix) -> None:
    s = snap(driver=driver("470.82.01"), gpus=[RTX4090], frameworks=[TORCH_CU124])
    sev = [f.severity.rank for f in diagnose(s, mini_matrix).findings]
    assert sev == sorted(sev)


def _tf_with_caps(caps: str) -> dict[str, Any]:
    return {
        "name": "tensorflow",
        "version": "2.13.1",
        "cuda_version": "11.8",
        "cudnn_version": "8",
        "cpu_only": False,
        "package": "tensorflow",
        "build": {"cuda_compute_capabilities": caps},
    }


def test_installed_arch_list_from_build_info_is_used(mini_matrix: Matrix) -> None:
    # TensorFlow 2.13's build_info lists SASS up to sm_75 plus PTX compute_80:
    # an Ada card runs it only by JIT-compiling the PTX (slow first start).
    caps = "sm_35,sm_50,sm_60,sm_70,sm_75,compute_80"
    s = snap(driver=driver("550.54.14"), gpus=[RTX4090], frameworks=[_tf_with_caps(caps)])
    found = ids(s, mini_matrix)
    assert "gpu-arch-unsupported" not in found
    f = found["gpu-arch-ptx-only"]
    assert any("from the installed build_info.py" in e for e in f.evidence)


def test_installed_arch_list_without_ptx_blocks_newer_gpus(mini_matrix: Matrix) -> None:
    s = snap(
        driver=driver("550.54.14"),
        gpus=[RTX4090],
        frameworks=[_tf_with_caps("sm_50,sm_60,sm_70,sm_75")],
    )
    assert ids(s, mini_matrix)["gpu-arch-unsupported"].severity is Severity.ERROR


@pytest.mark.parametrize("value", ["void", "none", "NoDevFiles", "-1", "", "gpu0", "-2"])
def test_cuda_visible_devices_values_cuda_cannot_parse_hide_every_gpu(
    mini_matrix: Matrix, value: str
) -> None:
    found = ids(snap(gpus=[RTX4090], env={"CUDA_VISIBLE_DEVICES": value}), mini_matrix)
    assert found["cuda-visible-devices-hides-gpus"].severity == Severity.ERROR


@pytest.mark.parametrize("value", ["0", "0,1", "GPU-8a1b", "MIG-GPU-8a1b"])
def test_cuda_visible_devices_valid_values_are_quiet(mini_matrix: Matrix, value: str) -> None:
    gpu = {**RTX4090, "uuid": "GPU-8a1b2c3d"}
    found = ids(snap(gpus=[gpu], env={"CUDA_VISIBLE_DEVICES": value}), mini_matrix)
    assert "cuda-visible-devices-hides-gpus" not in found


def test_unknown_snapshot_keys_are_a_warning_not_silence(mini_matrix: Matrix) -> None:
    found = ids(snap(gpu=[RTX4090]), mini_matrix)
    assert found["snapshot-unknown-key"].severity == Severity.WARNING
    assert "did you mean 'gpus'" in found["snapshot-unknown-key"].evidence[0]


def test_null_package_version_loads_and_mixed_wheel_rules_still_read_names(
    mini_matrix: Matrix,
) -> None:
    found = ids(
        snap(packages={"torch": None, "nvidia-cudnn-cu11": "8.7", "nvidia-cublas-cu12": None}),
        mini_matrix,
    )
    assert "mixed-cuda-wheels" in found
    assert "cudnn-missing" not in found
