"""The shipped matrix: provenance on every row, parseable versions, well-known
facts checked against the official tables they cite, and cross-domain consistency.

Every spot check below was compared with the data *and* the page the row cites
(NVIDIA CUDA release notes "CUDA Toolkit and Corresponding Driver Versions",
CUDA minor-version compatibility, the CUDA GPUs list, the cuDNN 8.9.7 support
matrix, pytorch.org previous versions, tensorflow.org tested build
configurations and the TF 2.11 release notes).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from envcheck.matrix import Matrix, bundled_dir, load_matrix_from
from envcheck.matrix.export import TABLES, table_rows
from envcheck.model.versions import ComputeCapability, CudaVersion

pytest.importorskip("packaging")


@pytest.fixture(scope="module")
def shipped() -> Matrix:
    return load_matrix_from(bundled_dir())


def all_rows(matrix: Matrix) -> list[tuple[str, Any]]:
    out = []
    for domain, tables in TABLES.items():
        for table, attribute in tables:
            out.extend((f"{domain}.{table}", row) for row in table_rows(matrix, attribute))
    return out


def test_the_core_domains_are_present(shipped: Matrix) -> None:
    files = {p.stem for p in bundled_dir().glob("*.toml")}
    assert {"cuda_driver", "cuda_arch", "gpus", "cudnn", "driver_branches", "torch"} <= files
    assert set(shipped.file_versions) == files


def test_every_row_has_an_http_source_and_a_verified_flag(shipped: Matrix) -> None:
    rows = all_rows(shipped)
    assert len(rows) > 500
    for where, row in rows:
        assert re.match(r"^https?://\S+$", row.origin.source), (where, row.origin)
        assert isinstance(row.origin.verified, bool), where
        assert row.origin.line >= 1


def test_unverified_rows_say_why(shipped: Matrix) -> None:
    """README rule: verified = false needs a note."""
    silent = [
        f"{Path(r.origin.file).name}:{r.origin.line}"
        for _, r in all_rows(shipped)
        if not r.origin.verified and not r.origin.note
    ]
    assert silent == []


def test_all_versions_parse(shipped: Matrix) -> None:
    from packaging.version import Version

    for framework, builds in shipped.builds.items():
        for b in builds:
            for v in b.versions:
                Version(v)
            assert b.variant, framework
    for r in shipped.cuda_releases:
        assert re.match(r"^\d+\.\d+\.\d+$", r.version), r.version
        # A release whose minimum driver no source gives is entered without one, and says so.
        if r.linux_min_driver is None and r.windows_min_driver is None:
            assert r.origin.note and "driver" in r.origin.note, r.version
    for c in shipped.cudnn_releases:
        Version(c.version)


def test_file_data_versions_are_dates(shipped: Matrix) -> None:
    for domain, version in shipped.file_versions.items():
        assert re.match(r"^\d{4}-\d{2}-\d{2}$", version), domain


# -- spot checks against the official tables ---------------------------------


def test_cuda_12_4_ga_linux_min_driver(shipped: Matrix) -> None:
    row = shipped.cuda_release(CudaVersion(12, 4))
    assert row is not None and row.linux_min_driver is not None
    assert row.linux_min_driver.raw == "550.54.14"
    assert "docs.nvidia.com" in row.origin.source


def test_cuda_11_8_ga_linux_min_driver(shipped: Matrix) -> None:
    row = shipped.cuda_release(CudaVersion(11, 8))
    assert row is not None and row.linux_min_driver is not None
    assert row.linux_min_driver.raw == "520.61.05"


def test_cuda_12_minor_version_compat_floor(shipped: Matrix) -> None:
    row = shipped.minor_compat_for(12)
    assert row is not None and row.linux_min_driver is not None
    assert row.linux_min_driver.raw == "525.60.13"
    assert row.not_covered, "what minor-version compatibility does not cover"


def test_driver_535_supports_cuda_up_to_12_2(shipped: Matrix) -> None:
    branch = shipped.driver_branch(535)
    assert branch is not None
    assert branch.max_cuda == CudaVersion(12, 2)


@pytest.mark.parametrize(
    ("branch", "cuda"),
    [(580, (13, 0)), (590, (13, 1)), (595, (13, 2)), (610, (13, 3)), (620, (13, 5))],
)
def test_newest_driver_branches_and_the_cuda_they_run(
    shipped: Matrix, branch: int, cuda: tuple[int, int]
) -> None:
    # R610/R620: NVIDIA's redistrib manifests pair each driver with one cuda_compat CUDA.
    row = shipped.driver_branch(branch)
    assert row is not None
    assert row.max_cuda == CudaVersion(*cuda)


def test_cudnn_8_9_7_has_a_cuda_12_build(shipped: Matrix) -> None:
    rows = [r for r in shipped.cudnn_releases if r.version == "8.9.7" and r.cuda_major == 12]
    assert len(rows) == 1
    assert rows[0].cuda_min == CudaVersion(12, 0)
    assert "8.9.7" in [r.version for r in shipped.cudnn_for_cuda(CudaVersion(12, 2))]


@pytest.mark.parametrize(
    ("name", "cc"),
    [
        ("NVIDIA GeForce RTX 4090", (8, 9)),
        ("GeForce RTX 4090", (8, 9)),
        ("Tesla V100-SXM2-16GB", (7, 0)),
        ("NVIDIA H100 80GB HBM3", (9, 0)),
        ("NVIDIA GeForce RTX 5090", (12, 0)),
        ("NVIDIA A100-SXM4-80GB", (8, 0)),
        ("Tesla T4", (7, 5)),
        # NVIDIA's driver table glues the suffix on: "RTX 3050Ti", "GTX 1660SUPER".
        ("NVIDIA GeForce RTX 2080Ti", (7, 5)),
        ("NVIDIA GeForce GTX 1660SUPER", (7, 5)),
        ("NVIDIA GeForce RTX 4070 Ti SUPER", (8, 9)),
    ],
)
def test_gpu_names_as_nvml_spells_them(shipped: Matrix, name: str, cc: tuple[int, int]) -> None:
    gpu = shipped.gpu(name)
    assert gpu is not None, name
    assert gpu.compute_capability == ComputeCapability(*cc)


def test_unknown_gpu_is_none(shipped: Matrix) -> None:
    assert shipped.gpu("Voodoo 5 5500") is None


def test_torch_2_5_1_cu124_and_its_index(shipped: Matrix) -> None:
    builds = shipped.builds_for("torch", "2.5.1", variant="cu124")
    assert builds
    assert {b.index_url for b in builds} == {"https://download.pytorch.org/whl/cu124"}
    assert all(b.cuda == CudaVersion(12, 4) for b in builds)


def test_jax_0_4_20_cuda_wheels_come_from_the_find_links_page(shipped: Matrix) -> None:
    builds = [b for b in shipped.builds_for("jax", "0.4.20") if b.extra == "cuda12_pip"]
    assert builds
    assert {b.find_links for b in builds} == {
        "https://storage.googleapis.com/jax-releases/jax_cuda_releases.html"
    }
    assert all(b.index_url is None for b in builds)


def test_onnxruntime_gpu_1_22_is_a_cuda_12_2_cudnn_9_build(shipped: Matrix) -> None:
    builds = [b for b in shipped.builds_for("onnxruntime", "1.22.0") if b.cuda is not None]
    assert {(b.cuda, b.cudnn) for b in builds} == {(CudaVersion(12, 2), "9")}


def test_cuda_13_0_targets_turing_to_blackwell_only(shipped: Matrix) -> None:
    """nvcc 13.0 --list-gpu-code: sm_75 ... sm_121; Maxwell, Pascal and Volta are gone."""
    row = shipped.toolkit_archs_for(CudaVersion(13, 0))
    assert row is not None
    ccs = {str(cc) for cc in row.compute_capabilities}
    assert {"7.5", "8.8", "9.0", "10.0", "11.0", "12.0", "12.1"} <= ccs
    assert not ccs & {"5.0", "5.2", "6.0", "6.1", "7.0", "7.2"}


def test_tensorflow_gpu_1_14_needs_cuda_10_0_and_cudnn_7_4(shipped: Matrix) -> None:
    builds = [
        b
        for b in shipped.builds_for("tensorflow", "1.14.0")
        if b.package == "tensorflow-gpu" and b.cuda is not None
    ]
    assert builds
    assert {(b.cuda, b.cudnn) for b in builds} == {(CudaVersion(10, 0), "7.4")}


def test_tensorflow_2_10_is_the_last_native_windows_gpu_release(shipped: Matrix) -> None:
    from packaging.version import Version

    windows_gpu = {
        v
        for b in shipped.framework_builds("tensorflow")
        if b.cuda is not None and "windows-x86_64" in b.platforms
        for v in b.versions
    }
    assert windows_gpu
    assert max(windows_gpu, key=Version).startswith("2.10.")


# -- cross-domain consistency -------------------------------------------------
# Build CUDA -> driver row, build cuDNN -> cudnn row, build archs -> known CCs, retired
# architectures, last_driver_branch vs [[retired]], branch max_cuda vs release minimums,
# companions and keras pins -> releases: checked by the loader (envcheck/matrix/validate.py
# check_cross_file) on every load, so `matrix update` is held to them too; the shipped
# matrix loading at all (the `shipped` fixture) is the test. Broken bundles:
# tests/matrix/test_load_errors.py.


def test_every_gpu_capability_is_known_to_its_architecture_and_a_toolkit(shipped: Matrix) -> None:
    toolkit_ccs = {cc for t in shipped.toolkit_archs for cc in t.compute_capabilities}
    problems = []
    for gpu in shipped.gpus:
        arch = shipped.architecture_named(gpu.architecture)
        if arch is None or gpu.compute_capability not in arch.compute_capabilities:
            problems.append(f"{gpu.name}: {gpu.compute_capability} not in {gpu.architecture}")
        # cuda_arch.toml starts at CUDA 9.0, which had already dropped Tesla (1.x) and
        # Fermi (2.x): no toolkit row can target those.
        legacy = gpu.architecture in ("Tesla", "Fermi")
        if gpu.compute_capability not in toolkit_ccs and not legacy:
            problems.append(f"{gpu.name}: {gpu.compute_capability} targeted by no toolkit row")
    assert problems == []


def test_cudnn_7_does_not_claim_cuda_9_1(shipped: Matrix) -> None:
    # cuDNN 7.5.1-7.6.5 matrices: CUDA 9.0.176 (r384.111) and 9.2 (r396.26); 9.1 "Not Supported".
    # 7.3.1-7.5.0: NVIDIA's download listings have 9.0 and 9.2 builds only. (7.1.4 and 7.2.1
    # are unread rows that still span 9.0-9.2.)
    from envcheck.model.versions import CudaVersion

    on_91 = {r.version for r in shipped.cudnn_for_cuda(CudaVersion(9, 1))}
    assert on_91 == {"7.1.4", "7.2.1"}
    assert all(not r.origin.verified for r in shipped.cudnn_for_cuda(CudaVersion(9, 1)))
    (row,) = [r for r in shipped.cudnn_for_cuda(CudaVersion(9, 2)) if r.version == "7.6.5"]
    assert row.linux_min_driver is not None and row.linux_min_driver.raw == "396.26"
    # 7.6.4 has no CUDA 10.2 build (NVIDIA's 7.6.4 matrix starts at 10.1.243).
    assert "7.6.4" not in {r.version for r in shipped.cudnn_for_cuda(CudaVersion(10, 2))}


def test_cudnn_blackwell_needs_the_cuda_12_8_build(shipped: Matrix) -> None:
    from envcheck.model.versions import CudaVersion, parse_compute_capability

    sm120 = parse_compute_capability("12.0")
    for cuda, want in ((CudaVersion(12, 4), False), (CudaVersion(12, 8), True)):
        rows = [r for r in shipped.cudnn_for_cuda(cuda) if r.version == "9.10.2"]
        assert any(sm120 in r.compute_capabilities for r in rows) is want, cuda


def test_rtx_3050_a_laptop_is_not_the_ampere_3050(shipped: Matrix) -> None:
    model = shipped.gpu("NVIDIA GeForce RTX 3050 A Laptop GPU")
    assert model is not None and str(model.compute_capability) == "8.9"
    plain = shipped.gpu("NVIDIA GeForce RTX 3050 Laptop GPU")
    assert plain is not None and str(plain.compute_capability) == "8.6"


def test_every_torch_cuda_build_has_archs_or_says_they_are_unknown(shipped: Matrix) -> None:
    """Issue 13: a torch CUDA build either lists its compiled archs or its note
    says "archs unknown" and why (never a silent hole)."""
    silent = [
        f"{Path(b.origin.file).name}:{b.origin.line}"
        for b in shipped.framework_builds("torch")
        if b.cuda is not None
        and b.archs is None
        and "archs unknown" not in (b.origin.note or "")
        and "archs/cuDNN unknown" not in (b.origin.note or "")
    ]
    assert silent == []


def test_every_torch_release_on_pypi_has_its_pypi_build(shipped: Matrix) -> None:
    """Every torch release PyPI serves (recorded list, no network) has a row for
    the Linux build plain `pip install torch==V` gives."""
    pypi = [
        "1.0.0",
        "1.0.1",
        "1.1.0",
        "1.2.0",
        "1.3.0",
        "1.3.1",
        "1.4.0",
        "1.5.0",
        "1.5.1",
        "1.6.0",
        "1.7.0",
        "1.7.1",
        "1.8.0",
        "1.8.1",
        "1.9.0",
        "1.9.1",
        "1.10.0",
        "1.10.1",
        "1.10.2",
        "1.11.0",
        "1.12.0",
        "1.12.1",
        "1.13.0",
        "1.13.1",
        "2.0.0",
        "2.0.1",
        "2.1.0",
        "2.1.1",
        "2.1.2",
        "2.2.0",
        "2.2.1",
        "2.2.2",
        "2.3.0",
        "2.3.1",
        "2.4.0",
        "2.4.1",
        "2.5.0",
        "2.5.1",
        "2.6.0",
        "2.7.0",
        "2.7.1",
        "2.8.0",
        "2.9.0",
        "2.9.1",
        "2.10.0",
        "2.11.0",
        "2.12.0",
        "2.12.1",
        "2.13.0",
        "2.14.0",
        "2.14.1",
        "2.15.0",
    ]
    missing = [
        v
        for v in pypi
        if not any(
            v in b.versions
            and "linux-x86_64" in b.platforms
            and (b.pypi_default or b.index_url is None)
            for b in shipped.framework_builds("torch")
        )
    ]
    assert missing == []


@pytest.mark.parametrize(
    ("gpu", "cc", "first_cuda"),
    [
        ("NVIDIA B300 SXM6 AC", "10.3", "12.9"),
        ("NVIDIA GB300", "10.3", "12.9"),
        ("NVIDIA GB10", "12.1", "12.9"),
        ("NVIDIA Thor", "11.0", "13.0"),
        ("NVIDIA RTX PRO 6000 Blackwell Server Edition", "12.0", "12.8"),
        ("NVIDIA RTX PRO 4000 Blackwell SFF Edition", "12.0", "12.8"),
    ],
)
def test_newest_gpus_and_the_first_cuda_that_targets_them(
    shipped: Matrix, gpu: str, cc: str, first_cuda: str
) -> None:
    found = shipped.gpu_match(gpu)
    assert found is not None and not found.inferred
    assert str(found.compute_capability) == cc
    rows = sorted(shipped.toolkit_archs, key=lambda r: r.cuda)
    first = next(r.cuda for r in rows if found.compute_capability in r.compute_capabilities)
    assert str(first) == first_cuda


def test_patch_release_variants_inferred_from_the_release_line_say_so(shipped: Matrix) -> None:
    inferred = [
        b
        for b in shipped.builds["torch"]
        if set(b.versions) & {"2.14.1", "2.15.0"}
        and not b.origin.source.startswith("https://pypi.org/")
    ]
    assert {b.variant for b in inferred if "2.14.1" in b.versions} >= {"cu126", "cu132", "cpu"}
    for b in inferred:
        assert b.origin.verified is False, (b.versions, b.variant)
        assert (b.origin.note or "").startswith("INFERRED"), (b.versions, b.variant)
        assert b.index_url is not None and b.index_url.startswith(
            "https://download.pytorch.org/whl/"
        )


def test_cu128_and_cu129_torch_builds_start_at_sm_70(shipped: Matrix) -> None:
    """.ci/manywheel/build_cuda.sh: 12.8/12.9 cases dropped sm_50/sm_60 (a Pascal GPU has
    no code in them); every such row records its list."""
    for b in shipped.builds["torch"]:
        if b.variant in ("cu128", "cu129"):
            assert b.archs is not None, (b.versions, b.variant)
            assert min(b.archs) >= ComputeCapability(7, 0), (b.versions, b.variant)
