"""`envcheck matrix show|why|export` through main(): exit codes, stdout/stderr, JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_cli

MINI = Path(__file__).parents[1] / "fixtures" / "matrix-mini"


def test_show_one_domain_filtered_by_version() -> None:
    code, out, err = run_cli("matrix", "show", "torch", "--version", "2.5")
    assert (code, err) == (0, "")
    assert "torch [[build]]" in out
    assert "cu124" in out
    assert "2.5.1" in out
    assert "2.4.0" not in out
    assert "[1] https://" in out


def test_show_marks_unverified_rows() -> None:
    code, out, _ = run_cli("matrix", "show", "cudnn", "--version", "7.0")
    assert code == 0
    assert "UNVERIFIED" in out


def test_show_unknown_domain_is_a_usage_error_listing_the_domains() -> None:
    code, out, err = run_cli("matrix", "show", "pytorch")
    assert code == 2
    assert out == ""
    assert "unknown domain 'pytorch'" in err
    assert "cuda_driver, cuda_arch, gpus, cudnn, driver_branches, torch" in err


def test_show_json_keeps_raw_driver_versions() -> None:
    code, out, _ = run_cli("matrix", "show", "cuda_driver", "--version", "11.8", "--json")
    assert code == 0
    doc = json.loads(out)
    rows = doc["domains"]["cuda_driver"]["release"]
    assert {r["version"] for r in rows} >= {"11.8.0"}
    ga = next(r for r in rows if r["version"] == "11.8.0")
    assert ga["linux_min_driver"] == "520.61.05"
    assert ga["source"].startswith("https://")


def test_show_brackets_survive_rich() -> None:
    """markup is off: '[[build]]' and '[and-cuda]'-like text must not vanish."""
    code, out, _ = run_cli("matrix", "show", "tensorflow", "--version", "2.16")
    assert code == 0
    assert "tensorflow [[build]]" in out


def test_why_works_exit_0_with_sources() -> None:
    code, out, err = run_cli(
        "matrix",
        "why",
        "torch==2.5.1+cu124",
        "--driver",
        "550.54.14",
        "--gpu",
        "NVIDIA GeForce RTX 4090",
        "--python-version",
        "3.11",
        "--os",
        "linux",
    )
    assert (code, err) == (0, ""), out
    assert "torch==2.5.1+cu124: works" in out
    assert "driver 550.54.14 >= 550.54.14, the minimum for CUDA 12.4 on linux" in out
    assert "has kernels for GeForce RTX 4090 (sm_89)" in out
    assert "Sources:" in out
    assert "https://download.pytorch.org/whl/cu124" in out


def test_why_old_driver_fails_exit_1_naming_the_driver_rule() -> None:
    code, out, _ = run_cli("matrix", "why", "torch==2.5.1+cu124", "--driver", "470.82.01")
    assert code == 1
    assert "does NOT work" in out
    assert "needs CUDA 12.4, which needs driver >= 525.60.13" in out
    assert "docs.nvidia.com" in out


def test_why_gpu_too_old_for_the_build() -> None:
    code, out, _ = run_cli("matrix", "why", "torch==2.5.1+cu124", "--gpu", "sm_35")
    assert code == 1
    assert "no kernels for sm_35" in out


def test_why_json_contract() -> None:
    code, out, _ = run_cli(
        "matrix", "why", "torch==2.5.1+cu124", "cuda==12.4", "--driver", "535.104.05", "--json"
    )
    doc = json.loads(out)
    assert doc["schema"] == "envcheck.matrix-why/1"
    assert doc["works"] is True
    assert code == 0
    assert doc["target"]["driver"] == "535.104.05"
    cuda = doc["results"][1]
    assert cuda["spec"] == "cuda==12.4"
    levels = [r["level"] for o in cuda["options"] for r in o["reasons"]]
    assert "warning" in levels  # below 550.54.14: minor-version compatibility
    for result in doc["results"]:
        for option in result["options"]:
            for reason in option["reasons"]:
                assert all(s.startswith("http") for s in reason["sources"])


def test_why_tensorflow_gpu_1_14_needs_cuda_10_0() -> None:
    code, out, _ = run_cli("matrix", "why", "tensorflow-gpu==1.14", "cuda==10.0", "cudnn==7.4")
    assert "tensorflow-gpu 1.14.0" in out
    assert "CUDA 10.0" in out
    assert code == 0, out


def test_why_tensorflow_after_2_10_has_no_native_windows_gpu() -> None:
    code, out, _ = run_cli("matrix", "why", "tensorflow==2.11", "--os", "windows")
    assert code == 1
    assert "no build for native Windows" in out


def test_why_cpu_and_rocm_builds_do_not_count_on_an_nvidia_target() -> None:
    # RTX 5090 (sm_120): no Linux CUDA build of torch 2.5.1 has its kernels (the Windows
    # cu118 wheels carry compute_37 PTX, so the test pins Linux). The CPU and ROCm wheels
    # install, but they are not GPU acceleration: the answer is "no".
    code, out, _ = run_cli(
        "matrix",
        "why",
        "torch==2.5.1",
        "--gpu",
        "NVIDIA GeForce RTX 5090",
        "--driver",
        "570.86",
        "--os",
        "linux",
    )
    assert code == 1, out
    assert "torch==2.5.1: does NOT work" in out
    assert "torch 2.5.1 (cpu): does not work" in out
    assert "is a CPU-only build: it cannot use the NVIDIA GPU" in out
    assert "(rocm6.2) is a ROCm (AMD) build; it cannot use NVIDIA GPUs" in out
    assert "needs system CUDA/cuDNN" not in out  # not said of CPU or ROCm builds


def test_why_explicit_cpu_build_is_judged_as_asked() -> None:
    code, out, _ = run_cli("matrix", "why", "torch==2.5.1+cpu", "--driver", "550.54.14")
    assert code == 0, out
    assert "no GPU acceleration" not in out


def test_why_without_an_nvidia_target_a_cpu_build_works() -> None:
    code, out, _ = run_cli("matrix", "why", "onnxruntime==1.20.0")
    assert code == 0, out
    code, out, _ = run_cli("matrix", "why", "onnxruntime==1.20.0", "--driver", "550.54.14")
    assert code == 1, out
    assert "CPU-only build" in out


def test_why_windows_build_uses_the_windows_driver_table_when_os_is_not_given() -> None:
    # CUDA 10.0 needs 410.48 on Linux, 411.31 on Windows: 410.48 is only enough for Linux.
    code, out, _ = run_cli("matrix", "why", "tensorflow-gpu==1.14.0", "--driver", "410.48")
    # The OS is a fact of the machine the target leaves open: not "works", but
    # which platform it works on.
    assert code == 1, out
    assert "depends on the platform: only tensorflow-gpu 1.14.0 (cu100) for linux" in out
    assert "driver 410.48 >= 410.48, the minimum for CUDA 10.0 on linux" in out
    assert "needs driver >= 411.31" in out
    assert "minimum for CUDA 10.0 on linux" in out.split("for windows-x86_64")[0]


def test_why_names_the_platform_when_only_another_platforms_build_runs() -> None:
    # torch 1.7.1+cu101 on sm_86: the Windows wheels carry compute_37 PTX, the Linux
    # ones no code for it. The PTX no longer saves the Windows build: the CUDA 10.1
    # cuBLAS/cuDNN those wheels bring predate Ampere (CUDA 11.0's nvcc is the first to
    # emit sm_8x code), so every platform fails and the answer no longer depends on it.
    args = ("matrix", "why", "torch==1.7.1+cu101", "--gpu", "RTX 3060 Laptop GPU")
    code, out, _ = run_cli(*args, "--driver", "460.32")
    assert code == 1, out
    assert "does NOT work" in out and "depends on the platform" not in out
    assert "CUDA 10.1 libraries" in out
    code, out, _ = run_cli(*args, "--driver", "460.32", "--os", "linux")
    assert code == 1 and "does NOT work" in out, out


def test_why_plain_tensorflow_1_14_is_cpu_only_on_a_gpu_machine() -> None:
    code, out, _ = run_cli(
        "matrix", "why", "tensorflow==1.14.0", "--driver", "418.67", "--python-version", "3.7"
    )
    assert code == 1, out
    assert "tensorflow 1.14.0 (cpu)" in out
    assert "CPU-only build" in out
    code, out, _ = run_cli(
        "matrix", "why", "tensorflow==1.15.0", "--driver", "418.67", "--python-version", "3.7"
    )
    assert code == 0, out  # from 1.15 the plain package includes GPU support
    assert "tensorflow 1.15.0 (cu100)" in out


def test_why_unknown_release_exit_1() -> None:
    code, out, _ = run_cli("matrix", "why", "torch==0.0.1")
    assert code == 1
    assert "torch 0.0.1 is not in the matrix" in out


@pytest.mark.parametrize(
    ("spec", "message"),
    [("torch", "expected NAME==VERSION"), ("numpy==1.26", "unknown package 'numpy'")],
)
def test_why_bad_spec_is_one_line_exit_2(spec: str, message: str) -> None:
    code, out, err = run_cli("matrix", "why", spec)
    assert code == 2
    assert out == ""
    assert message in err
    assert err.count("\n") == 1


def test_why_unknown_gpu_is_a_usage_error() -> None:
    code, _, err = run_cli("matrix", "why", "torch==2.5.1", "--gpu", "Voodoo 5")
    assert code == 2
    assert "unknown GPU 'Voodoo 5'" in err


def test_export_validates_against_the_shipped_schema() -> None:
    import jsonschema

    from envcheck.schemas import get_schema

    code, out, err = run_cli("matrix", "export", "--json")
    assert (code, err) == (0, "")
    doc = json.loads(out)
    schema = get_schema("matrix-1")
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(doc)
    assert doc["schema"] == "envcheck.matrix/1"
    assert doc["domains"]["torch"]["build"]


def test_export_of_the_mini_matrix_validates_too(tmp_path: Path) -> None:
    import jsonschema

    from envcheck.schemas import get_schema

    target = tmp_path / "matrix.json"
    code, out, err = run_cli(
        "matrix", "export", "--output", str(target), env={"ENVCHECK_MATRIX": str(MINI)}
    )
    assert (code, out) == (0, "")
    assert "matrix written to" in err
    doc = json.loads(target.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(get_schema("matrix-1")).validate(doc)
    assert doc["domains"]["keras"] == {"release": [], "tensorflow_pin": []}


def test_export_schema_rejects_a_missing_source() -> None:
    import jsonschema

    from envcheck.schemas import get_schema

    _, out, _ = run_cli("matrix", "export")
    doc = json.loads(out)
    del doc["domains"]["gpus"]["gpu"][0]["source"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(get_schema("matrix-1")).validate(doc)


def test_why_says_a_withdrawn_release_cannot_be_installed() -> None:
    code, out, _ = run_cli("matrix", "why", "onnxruntime-gpu==1.8.0", "--driver", "460.32.03")
    assert code == 0, out  # an installed copy works on this driver
    assert "pip cannot install it now" in out


def test_show_marks_withdrawn_rows() -> None:
    code, out, _ = run_cli("matrix", "show", "onnxruntime", "--version", "1.8")
    assert code == 0
    assert "WITHDRAWN" in out


def test_why_cudnn_has_no_minor_version_compatibility_before_cuda_11() -> None:
    # cuDNN 7.6.5 was built for CUDA 9.0 and 9.2 (9.1 "Not Supported"); nothing carries
    # a 9.0 build over to 9.1. From CUDA 11 a newer minor is only a warning.
    code, out, _ = run_cli("matrix", "why", "cudnn==7.6.5", "cuda==9.1")
    assert code == 1, out
    assert "FAIL CUDA 9.1 is outside CUDA 9.0" in out
    code, out, _ = run_cli("matrix", "why", "cudnn==8.9.5", "cuda==11.8")
    assert code == 0, out


def test_why_a_placeholder_release_without_wheels_does_not_work() -> None:
    # tensorflow-gpu 2.12.0 is an sdist stub that refuses to install.
    code, out, _ = run_cli("matrix", "why", "tensorflow-gpu==2.12.0")
    assert code == 1, out
    assert "is not a build" in out
    assert out.count("no longer on the index") == 0  # said once, by the judge, as an error
