"""check_pins: one test per problem code, positive and negative (fixture matrix)."""

from __future__ import annotations

from typing import Any, Optional

from envcheck.check.check import check_pins
from envcheck.check.model import (
    DeclaredTarget,
    Environment,
    IndexRef,
    Location,
    Pin,
    Project,
    PythonBound,
)
from envcheck.check.parse_requirements import parse_requirements
from envcheck.compat.target import Target
from envcheck.model.versions import ComputeCapability, parse_driver_version


def _env(text: str, **kwargs: Any) -> Environment:
    parsed = parse_requirements(text, "r.txt")
    return Environment("r.txt", parsed.pins, parsed.indexes, **kwargs)


def _lines(matrix: Any, *envs: Environment, target: Optional[Target] = None) -> list[str]:
    report = check_pins(Project(("r.txt",), envs), target or Target(), matrix)
    return [p.render() for p in report.problems]


def _conda(name: str, spec: str, line: int) -> Pin:
    return Pin(name, spec, Location("environment.yml", line), f"{name}{spec}", source="conda")


def test_cudnn_major_conflict_torch_and_tensorflow(check_matrix: Any) -> None:
    lines = _lines(check_matrix, _env("torch==2.4.0\ntensorflow[and-cuda]==2.16.1\n"))
    assert lines == [
        (
            "r.txt:2: EC102 tensorflow[and-cuda]==2.16.1 needs cuDNN 8, but torch==2.4.0 (r.txt:1)"
            " needs cuDNN 9; one environment cannot load both"
        )
    ]


def test_plain_tensorflow_has_a_cpu_build_so_no_conflict(check_matrix: Any) -> None:
    assert _lines(check_matrix, _env("torch==2.4.0\ntensorflow==2.16.1\n")) == []


def test_nvidia_cudnn_wheel_beside_a_torch_that_needs_cudnn_8(check_matrix: Any) -> None:
    lines = _lines(check_matrix, _env("torch==2.1.0\nnvidia-cudnn-cu12==9.1.0.70\n"))
    assert lines == [
        (
            "r.txt:2: EC102 nvidia-cudnn-cu12==9.1.0.70 needs cuDNN 9, but torch==2.1.0 (r.txt:1)"
            " needs cuDNN 8; one environment cannot load both"
        )
    ]
    assert _lines(check_matrix, _env("torch==2.4.0\nnvidia-cudnn-cu12==9.1.0.70\n")) == []


def test_cupy_cuda11_beside_torch_cu12(check_matrix: Any) -> None:
    lines = _lines(check_matrix, _env("torch==2.5.1\ncupy-cuda11x\n"))
    assert lines[0] == (
        "r.txt:2: EC101 cupy-cuda11x needs CUDA 11, but torch==2.5.1 (r.txt:1) needs CUDA 12;"
        " one environment cannot load both"
    )
    assert lines[1].startswith("r.txt:2: EC202 warning: the matrix has no cupy builds")
    # The cu118 variant of the same torch has CUDA 11: no conflict.
    assert _lines(check_matrix, _env("torch==2.5.1+cu118\ncupy-cuda11x\n"))[:1] == [lines[1]]


def test_index_lacks_version(check_matrix: Any) -> None:
    text = "--index-url https://download.pytorch.org/whl/cu118\ntorch==2.8.0\n"
    (line,) = _lines(check_matrix, _env(text))
    assert line.startswith("r.txt:2: EC103 torch==2.8.0: https://download.pytorch.org/whl/cu118")
    ok = "--index-url https://download.pytorch.org/whl/cu118/\ntorch==2.5.1\n"
    assert _lines(check_matrix, _env(ok)) == []


def test_index_range_with_one_published_release_passes(check_matrix: Any) -> None:
    text = "-i https://download.pytorch.org/whl/cu118\ntorch>=2.4,<2.9\n"
    assert _lines(check_matrix, _env(text)) == []


def test_local_version_never_published(check_matrix: Any) -> None:
    (line,) = _lines(check_matrix, _env("torch==2.8.0+cu118\n"))
    assert line == (
        "r.txt:1: EC103 torch==2.8.0+cu118: no cu118 build of 2.8.0 was published"
        " (variants: cu126, cu128, cu129, cpu, rocm6.4)"
    )


def test_extra_index_lacking_version_is_a_warning(check_matrix: Any) -> None:
    text = "--extra-index-url https://download.pytorch.org/whl/cu118\ntorch==2.8.0\n"
    (line,) = _lines(check_matrix, _env(text))
    assert line.startswith("r.txt:2: EC103 warning: torch==2.8.0:")
    assert line.endswith("pip falls back to the PyPI build")


def test_private_mirror_is_not_judged(check_matrix: Any) -> None:
    text = "--index-url https://mirror.example.com/simple\ntorch==2.8.0\n"
    assert _lines(check_matrix, _env(text)) == []


def test_conda_cuda_contradiction(check_matrix: Any) -> None:
    env = Environment(
        "environment.yml",
        (_conda("cuda-version", "==11.8", 3), _conda("pytorch", "==2.8.*", 4)),
    )
    assert _lines(check_matrix, env) == [
        (
            "environment.yml:3: EC104 cuda-version==11.8 gives CUDA 11, but pytorch==2.8.*"
            " (environment.yml:4) is built for CUDA 12"
        )
    ]
    fine = Environment(
        "environment.yml",
        (_conda("cuda-version", "==11.8", 3), _conda("pytorch", "==2.5.*", 4)),
    )
    assert _lines(check_matrix, fine) == []


def test_conda_toolkit_beside_pip_wheels_that_bundle_cuda_is_fine(check_matrix: Any) -> None:
    pins = (_conda("cudatoolkit", "==11.8.*", 3), *_env("torch==2.8.0\n").pins)
    assert _lines(check_matrix, Environment("e", pins)) == []


def test_conda_toolkit_beside_pip_tensorflow_1(check_matrix: Any) -> None:
    pins = (_conda("cudatoolkit", "==11.8.*", 3), *_env("tensorflow-gpu==1.15.0\n").pins)
    (line,) = _lines(check_matrix, Environment("e", pins))
    assert line.startswith("environment.yml:3: EC104 cudatoolkit==11.8.* gives CUDA 11")


def test_python_bounds(check_matrix: Any) -> None:
    def bound(spec: str) -> tuple[PythonBound, ...]:
        return (PythonBound(spec, f"requires-python {spec}", Location("pyproject.toml", 3)),)

    assert _lines(check_matrix, _env("torch==2.8.0\n", python=bound(">=3.9"))) == []
    (low,) = _lines(check_matrix, _env("torch==2.8.0\n", python=bound(">=3.8")))
    assert low == (
        "pyproject.toml:3: EC105 requires-python >=3.8 allows Python 3.8, which torch==2.8.0"
        " (r.txt:1) does not support (Python 3.9 to 3.13)"
    )
    (none,) = _lines(check_matrix, _env("tensorflow-gpu==1.15.0\n", python=bound(">=3.10")))
    assert "allows Python 3.10 and newer, but tensorflow-gpu==1.15.0" in none


def test_declared_target(check_matrix: Any) -> None:
    declared = DeclaredTarget(
        Location("pyproject.toml", 20), min_driver="535", gpus=("sm_120",), platforms=("linux",)
    )
    (line,) = _lines(check_matrix, _env("torch==2.5.1\n", declared=declared))
    assert line.startswith("r.txt:1: EC106 torch==2.5.1 cannot serve linux/x86_64; driver 535;")
    assert "no kernels for sm_120" in line
    # A range that reaches a release with sm_120 kernels serves the target.
    assert _lines(check_matrix, _env("torch>=2.5\n", declared=declared)) == []


def test_declared_driver_too_old(check_matrix: Any) -> None:
    declared = DeclaredTarget(Location("pyproject.toml", 20), min_driver="470.57.02")
    (line,) = _lines(check_matrix, _env("torch==2.8.0\n", declared=declared))
    assert line.startswith("r.txt:1: EC106 torch==2.8.0 cannot serve driver 470.57.02")


def test_declared_windows_platform(check_matrix: Any) -> None:
    declared = DeclaredTarget(Location("p", 1), platforms=("windows",))
    (line,) = _lines(check_matrix, _env("tensorflow[and-cuda]==2.16.1\n", declared=declared))
    assert "has no build for native Windows" in line


def test_cli_target_applies_without_declaration(check_matrix: Any) -> None:
    target = Target(os="linux", gpus=(ComputeCapability(12, 0),))
    (line,) = _lines(check_matrix, _env("torch==2.4.0\n"), target=target)
    assert "EC106" in line
    driver = parse_driver_version("580.65.06")
    assert _lines(check_matrix, _env("torch==2.8.0\n"), target=Target(driver=driver)) == []


def test_unknown_version_is_a_warning_not_a_pass_or_an_error(check_matrix: Any) -> None:
    (line,) = _lines(check_matrix, _env("torch==9.9.0\ntensorflow[and-cuda]==2.16.1\n"))
    assert line == (
        "r.txt:1: EC201 warning: torch==9.9.0: no torch release matching this is in the matrix"
        " (it knows 2.1.0 to 2.8.0); not checked"
    )


def test_unknown_patch_release_uses_its_minor(check_matrix: Any) -> None:
    (line,) = _lines(check_matrix, _env("torch==2.4.1\ntensorflow[and-cuda]==2.16.1\n"))
    assert "EC102" in line


def test_constraints_alone_install_nothing(check_matrix: Any) -> None:
    parsed = parse_requirements("torch==2.4.0\ntensorflow[and-cuda]==2.16.1\n", "c.txt", True)
    assert _lines(check_matrix, Environment("c", parsed.pins)) == []


def test_report_is_sorted_and_deduplicated(check_matrix: Any) -> None:
    env = _env("torch==2.4.0\ntensorflow[and-cuda]==2.16.1\n")
    report = check_pins(Project(("r.txt",), (env, env)), Target(), check_matrix)
    assert len(report.problems) == 1
    assert report.to_json()["summary"] == {"errors": 1, "warnings": 0, "unreadable": 0}


def test_index_ref_kind_preserved() -> None:
    parsed = parse_requirements("-i https://x/simple\n", "r.txt")
    assert parsed.indexes == (IndexRef("https://x/simple", "index-url", Location("r.txt", 1)),)


def test_declared_values_that_cannot_be_read_are_unreadable(check_matrix: Any) -> None:
    declared = DeclaredTarget(
        Location("pyproject.toml", 7), min_driver="abc", gpus=("Banana GPU 9000",)
    )
    report = check_pins(
        Project(("pyproject.toml",), (_env("torch==2.5.1\n", declared=declared),)),
        Target(),
        check_matrix,
    )
    assert [(p.code, p.severity) for p in report.problems] == [
        ("EC006", "unreadable"),
        ("EC006", "unreadable"),
    ]
    assert "unknown GPU 'Banana GPU 9000'" in report.problems[1].message


PATCH_RULE = """
[[patch_rule]]
versions = ">=1.0.0"
source = "https://github.com/pytorch/pytorch/blob/main/RELEASE.md#patch-releases"
verified = false
"""

PATCH_ROWS = """
[[build]]
versions = ["2.8.1"]
variant = "cu128"
package = "torch"
cuda = "12.8"
bundles_cuda = true
platforms = ["linux-x86_64"]
pypi_default = true
source = "https://pypi.org/project/torch/2.8.1/#files"
verified = true
note = "test: only what the PyPI wheels of a patch release show"

[[build]]
versions = ["2.99.0"]
variant = "cu130"
package = "torch"
cuda = "13.0"
bundles_cuda = true
platforms = ["linux-x86_64"]
pypi_default = true
source = "https://pypi.org/project/torch/2.99.0/#files"
verified = true
note = "test: a release whose index variants the matrix does not list"
"""


def _with_patch_rows(tmp_path: Any, rule: bool = True) -> Any:
    import shutil

    from envcheck.matrix import load_matrix_from
    from tests.check.conftest import CHECK_MATRIX

    d = tmp_path / "m"
    shutil.copytree(CHECK_MATRIX, d)
    with (d / "torch.toml").open("a", encoding="utf-8") as f:
        f.write(PATCH_ROWS + (PATCH_RULE if rule else ""))
    return load_matrix_from(d)


def test_patch_release_shares_its_minor_release_variants(tmp_path: Any) -> None:
    """2.8.1's rows show only its PyPI wheels; its cu126 index build is 2.8.0's variant."""
    matrix = _with_patch_rows(tmp_path)
    assert _lines(matrix, _env("torch==2.8.1+cu126\n")) == []
    text = "--index-url https://download.pytorch.org/whl/cu126\ntorch==2.8.1\n"
    assert _lines(matrix, _env(text)) == []
    # A variant the whole 2.8 series never had is still an error.
    (line,) = _lines(matrix, _env("torch==2.8.1+cu118\n"))
    assert line.startswith("r.txt:1: EC103 torch==2.8.1+cu118: no cu118 build of 2.8.1")


def test_without_a_patch_rule_no_variant_is_inferred(tmp_path: Any) -> None:
    """The variant set is inferred from the minor release only under a [[patch_rule]]
    row, as the selector infers a patch release's builds (issue 27)."""
    matrix = _with_patch_rows(tmp_path, rule=False)
    (line,) = _lines(matrix, _env("torch==2.8.1+cu126\n"))
    assert line.startswith("r.txt:1: EC103 torch==2.8.1+cu126: no cu126 build of 2.8.1")


def test_release_with_unknown_index_variants_is_not_judged(tmp_path: Any) -> None:
    matrix = _with_patch_rows(tmp_path)
    (line,) = _lines(matrix, _env("torch==2.99.0+cu126\n"))
    assert line == (
        "r.txt:1: EC201 warning: torch==2.99.0+cu126: the matrix does not list which"
        " variants torch 2.99.0 was published for; not checked"
    )
    text = "--index-url https://download.pytorch.org/whl/cu126\ntorch==2.99.0\n"
    (line,) = _lines(matrix, _env(text))
    assert line.startswith("r.txt:2: EC201 warning: torch==2.99.0:")


def test_plain_tensorflow_1_x_is_cpu_only_for_a_gpu_target() -> None:
    # The shipped matrix: tensorflow 1.14.0's plain wheel is the CPU build (tested build
    # configurations, CPU table); the GPU build is tensorflow-gpu. From 1.15 plain
    # tensorflow includes GPU support (RELEASE.md 1.15.0).
    from pathlib import Path

    from envcheck.matrix import load_matrix_from

    shipped = load_matrix_from(Path(__file__).parents[2] / "matrices")
    target = Target(os="linux", gpus=(ComputeCapability(7, 5),))
    (line,) = _lines(shipped, _env("tensorflow==1.14.0\n"), target=target)
    assert "EC106 tensorflow==1.14.0 selects no CUDA build" in line
    assert _lines(shipped, _env("tensorflow-gpu==1.14.0\n"), target=target) == []
    assert _lines(shipped, _env("tensorflow==1.15.0\n"), target=target) == []


def test_a_withdrawn_release_cannot_be_installed() -> None:
    from pathlib import Path

    from envcheck.matrix import load_matrix_from

    shipped = load_matrix_from(Path(__file__).parents[2] / "matrices")
    (line,) = _lines(shipped, _env("onnxruntime-gpu==1.8.0\n"))
    assert "EC103 onnxruntime-gpu==1.8.0: onnxruntime 1.8.0 is gone from the index" in line
    assert _lines(shipped, _env("onnxruntime-gpu>=1.8\n")) == []
