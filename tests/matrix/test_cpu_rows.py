"""CPU build rows: a release with CUDA builds also has a CPU build to plan on a machine
with no NVIDIA GPU, wherever PyPI still serves one (jaxlib, tensorflow-cpu and onnxruntime
file lists, read 2026-11-24)."""

from __future__ import annotations

from typing import Any

import pytest

from envcheck.matrix import Matrix, bundled_dir, load_matrix_from


@pytest.fixture(scope="module")
def shipped() -> Matrix:
    return load_matrix_from(bundled_dir())


def _cpu(shipped: Matrix, framework: str) -> dict[tuple[str, str], list[Any]]:
    out: dict[tuple[str, str], list[Any]] = {}
    for b in shipped.framework_builds(framework):
        if b.cpu_only and not b.withdrawn:
            for v in b.versions:
                for p in b.platforms:
                    out.setdefault((v, p), []).append(b)
    return out


def _gpu_versions(shipped: Matrix, framework: str, package: str = "") -> set[str]:
    return {
        v
        for b in shipped.framework_builds(framework)
        if b.cuda is not None and not b.withdrawn and (not package or b.package == package)
        for v in b.versions
    }


def test_every_jax_release_with_a_cpu_jaxlib_on_pypi_has_cpu_rows(shipped: Matrix) -> None:
    from envcheck.model.versions import release_key

    cpu = _cpu(shipped, "jax")
    # jaxlib before 0.4.13, and 0.4.14-0.4.17, are gone from PyPI.
    gone = {"0.4.14", "0.4.16", "0.4.17"}
    for v in _gpu_versions(shipped, "jax"):
        if release_key(v) < release_key("0.4.13") or v in gone:
            continue
        for platform in ("linux-x86_64", "macos-arm64", "windows-x86_64"):
            assert (v, platform) in cpu, (v, platform)
    # Plain jax is the CPU build from 0.4.30 (jaxlib a hard dependency); jax[cpu] before.
    (plain,) = [b for b in cpu[("0.4.30", "linux-x86_64")] if b.extra is None]
    assert plain.package == "jax" and plain.pypi_default
    assert {b.extra for b in cpu[("0.4.29", "linux-x86_64")]} == {"cpu"}
    assert ("0.4.13", "linux-aarch64") not in cpu  # jaxlib 0.4.13: no aarch64 wheel


def test_tensorflow_2_x_cpu_builds_are_tensorflow_cpu(shipped: Matrix) -> None:
    from envcheck.model.versions import release_key

    cpu = _cpu(shipped, "tensorflow")
    linux_gpu = {
        v
        for b in shipped.framework_builds("tensorflow")
        if b.cuda is not None and "linux-x86_64" in b.platforms
        for v in b.versions
    }
    for v in linux_gpu:
        if release_key(v) >= release_key("2.1"):
            assert [b.package for b in cpu[(v, "linux-x86_64")]] == ["tensorflow-cpu"], v
    assert ("2.21.0", "windows-x86_64") in cpu
    assert ("2.17.0", "macos-x86_64") not in cpu  # tensorflow-cpu macOS wheels end at 2.16


def test_every_onnxruntime_gpu_release_has_an_onnxruntime_cpu_row(shipped: Matrix) -> None:
    cpu = {v for v, _ in _cpu(shipped, "onnxruntime")}
    # No onnxruntime 1.20.2 on PyPI (onnxruntime-gpu only); 1.5.0 is withdrawn.
    assert _gpu_versions(shipped, "onnxruntime", "onnxruntime-gpu") - cpu == {"1.20.2"}
