"""The CUDA runtime rule judges a CUDA runtime library a process could not open
(a LIB_NOT_LOADABLE record whose version is the soname's CUDA version)."""

from __future__ import annotations

from typing import Any

from envcheck.doctor import diagnose
from envcheck.matrix import Matrix
from envcheck.model.finding import Category, Severity
from envcheck.model.snapshot import LIB_NOT_LOADABLE, Snapshot
from tests.rules.snapshots import PY310, TF_2_10_CU112
from tests.rules.snapshots import snap as snapshot


def snap(**parts: Any) -> Snapshot:
    return snapshot(PY310, **parts)


def gone(name: str, version: str) -> dict[str, str]:
    return {"name": name, "version": version, "source": LIB_NOT_LOADABLE}


def runtime(s: Snapshot, matrix: Matrix) -> list[Any]:
    ids = ("cuda-runtime-missing", "cuda-runtime-not-loadable")
    return [f for f in diagnose(s, matrix).findings if f.id in ids]


def test_a_framework_whose_cuda_runtime_could_not_be_opened(mini_matrix: Matrix) -> None:
    # Nothing says what is installed (no libraries probe): the failed open alone is
    # enough for that run, and the fix is the rule's own for the framework's CUDA.
    s = snap(frameworks=[TF_2_10_CU112], libraries=[gone("cudart", "11.0")])
    (f,) = runtime(s, mini_matrix)
    assert f.severity is Severity.ERROR and f.category is Category.CUDA_RUNTIME_MISSING
    assert (
        f.title
        == "tensorflow 2.10.0 needs the CUDA 11.x runtime but could not load its cudart library"
    )
    assert "the CUDA 11.0 cudart library could not be opened (from the message)" in f.evidence
    # The mini matrix knows no nvidia-* wheel versions: the resolver's conda plan for
    # the build brings the CUDA libraries it loads.
    assert f.fix is not None and _conda_plan("tensorflow==2.10.0", s, mini_matrix) in f.fix
    # Without the record the rule stays silent (libraries were never looked for).
    assert runtime(snap(frameworks=[TF_2_10_CU112]), mini_matrix) == []


def test_a_soname_of_another_cuda_is_not_the_frameworks(mini_matrix: Matrix) -> None:
    toolkit = {"version": "12.4.131", "path": "/usr/local/cuda-12.4"}
    s = snap(
        frameworks=[TF_2_10_CU112],
        cuda_toolkits=[toolkit],
        libraries=[gone("cublaslt", "11")],
        packages={"nvidia-cublas-cu12": "12.4.5.8"},
    )
    (f,) = runtime(s, mini_matrix)
    assert f.title == "tensorflow 2.10.0 needs the CUDA 11.x runtime but only CUDA 12 is installed"
    # Unknown which framework: the process needs what the soname names.
    s = snap(cuda_toolkits=[toolkit], libraries=[gone("cublaslt", "11")])
    (f,) = runtime(s, mini_matrix)
    assert f.title == "the process needs the CUDA 11.x runtime but only CUDA 12 is installed"
    assert f.fix is not None and "pip install nvidia-cublas-cu11" in f.fix


def test_installed_but_not_on_the_loader_path(mini_matrix: Matrix) -> None:
    toolkit = {"version": "11.8.89", "path": "/usr/local/cuda-11.8"}
    s = snap(
        frameworks=[TF_2_10_CU112], cuda_toolkits=[toolkit], libraries=[gone("cudart", "11.0")]
    )
    (f,) = runtime(s, mini_matrix)
    assert f.id == "cuda-runtime-not-loadable"
    assert f.category is Category.LIB_PATH_CONFLICT and f.severity is Severity.ERROR
    assert "CUDA toolkit 11.8.89 at /usr/local/cuda-11.8" in f.title
    assert f.fix is not None and "LD_LIBRARY_PATH" in f.fix
    # A wheel of another library does not carry libnvrtc.
    s = snap(libraries=[gone("nvrtc", "11.2")], packages={"nvidia-cublas-cu11": "11.11.3.6"})
    (f,) = runtime(s, mini_matrix)
    assert f.id == "cuda-runtime-missing"
    s = snap(libraries=[gone("nvrtc", "11.2")], packages={"nvidia-cuda-nvrtc-cu11": "11.8.89"})
    (f,) = runtime(s, mini_matrix)
    assert f.id == "cuda-runtime-not-loadable"


def test_cuda_10_runtimes_are_per_minor(mini_matrix: Matrix) -> None:
    toolkit = {"version": "10.0.130", "path": "/usr/local/cuda-10.0"}
    s = snap(cuda_toolkits=[toolkit], libraries=[gone("cudart", "10.1")])
    (f,) = runtime(s, mini_matrix)
    assert f.title == "the process needs the CUDA 10.1 runtime but only CUDA 10.0 is installed"
    assert f.fix is not None and f.fix.startswith("Install the CUDA 10.1 toolkit")


def test_libraries_numbered_by_their_own_major_are_not_judged(mini_matrix: Matrix) -> None:
    s = snap(frameworks=[TF_2_10_CU112], libraries=[gone("cufft", "10")])
    assert runtime(s, mini_matrix) == []


def _conda_plan(request: str, s: Snapshot, matrix: Matrix) -> str:
    """The first command of the resolver's conda plan for ``request`` on ``s``."""
    from envcheck.compat.target import target_from_snapshot
    from envcheck.resolve.emit import emit_conda
    from envcheck.resolve.plan import plan

    return emit_conda(plan([request], target_from_snapshot(s), matrix)).splitlines()[1]
