"""GPU names: every row of gpus.toml by every spelling, real NVML names, family
inference and non-NVIDIA names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envcheck.matrix import Matrix, bundled_dir, load_matrix_from
from envcheck.matrix.gpu_names import gpu_key, gpu_vendor_of

NVML_NAMES = Path(__file__).parents[1] / "fixtures" / "gpu_names" / "nvml_names.json"


@pytest.fixture(scope="module")
def shipped() -> Matrix:
    return load_matrix_from(bundled_dir())


def test_every_row_resolves_to_itself_by_its_name_and_every_alias(shipped: Matrix) -> None:
    wrong = []
    for gpu in shipped.gpus:
        for spelling in (gpu.name, *gpu.aliases):
            for asked in (spelling, f"NVIDIA {spelling}"):
                found = shipped.gpu_match(asked)
                if found is None or found.model != gpu or found.inferred:
                    got = found.model.name if found and found.model else found
                    wrong.append(f"{asked!r} -> {got!r}")
    assert wrong == []


def test_no_two_rows_share_a_spelling(shipped: Matrix) -> None:
    owners: dict[str, str] = {}
    clashes = []
    for gpu in shipped.gpus:
        for spelling in {gpu_key(s) for s in (gpu.name, *gpu.aliases)}:
            if owners.setdefault(spelling, gpu.name) != gpu.name:
                clashes.append(f"{spelling!r}: {owners[spelling]} and {gpu.name}")
    assert clashes == []


def _nvml_names() -> list[dict[str, str]]:
    names: list[dict[str, str]] = json.loads(NVML_NAMES.read_text(encoding="utf-8"))["names"]
    return names


@pytest.mark.parametrize("entry", _nvml_names(), ids=lambda e: e["name"])
def test_real_nvml_names_resolve_to_the_reported_capability(
    shipped: Matrix, entry: dict[str, str]
) -> None:
    found = shipped.gpu_match(entry["name"])
    assert found is not None, entry["seen"]
    assert str(found.compute_capability) == entry["cc"], (found.basis, entry["seen"])
    assert shipped.gpu(entry["name"]) is not None


@pytest.mark.parametrize(
    ("name", "cc", "row"),
    [
        ("NVIDIA GeForce RTX 3050 Ti Laptop GPU", "8.6", "GeForce RTX 3050 Ti"),
        ("Quadro RTX 5000 with Max-Q Design", "7.5", "Quadro RTX 5000"),
        ("NVIDIA GeForce RTX 4090 D", "8.9", "GeForce RTX 4090"),
        ("NVIDIA GeForce RTX 4070 Something", "8.9", "GeForce RTX 4070"),
        ("NVIDIA GeForce GTX 1050 Ti with Max-Q Design", "6.1", "GeForce GTX 1050 Ti"),
    ],
)
def test_laptop_and_longer_names_are_inferred_from_a_row(
    shipped: Matrix, name: str, cc: str, row: str
) -> None:
    found = shipped.gpu_match(name)
    assert found is not None and found.model is not None
    assert (found.model.name, str(found.compute_capability), found.inferred) == (row, cc, True)
    # Matrix.gpu keeps answering with the row, as it did before gpu_match existed.
    assert shipped.gpu(name) == found.model


@pytest.mark.parametrize(
    ("name", "cc", "arch"),
    [
        ("NVIDIA L2", "8.9", "Ada Lovelace"),
        ("NVIDIA RTX 5880 Ada Generation", "8.9", "Ada Lovelace"),
        ("NVIDIA RTX A5500 Laptop GPU", "8.6", "Ampere"),
        ("NVIDIA GeForce RTX 4075", "8.9", "Ada Lovelace"),
        ("NVIDIA GeForce RTX 5055 Laptop GPU", "12.0", "Blackwell"),
        ("Jetson Orin Industrial", "8.7", "Ampere"),
        ("NVIDIA RTX A500 Laptop GPU", "8.6", "Ampere"),
        ("NVIDIA T550 Laptop GPU", "7.5", "Turing"),
    ],
)
def test_unlisted_gpus_are_inferred_from_their_family(
    shipped: Matrix, name: str, cc: str, arch: str
) -> None:
    found = shipped.gpu_match(name)
    assert found is not None
    assert (str(found.compute_capability), found.architecture) == (cc, arch)
    assert found.inferred and found.model is None and "all known models" in found.basis
    assert shipped.gpu(name) is None


@pytest.mark.parametrize(
    ("name", "row"),
    [
        ("GRID T4-16Q", "Tesla T4"),
        ("GRID P40-24Q", "Tesla P40"),
        ("NVIDIA A100-40C", "A100"),
        ("NVIDIA L40S-48Q", "L40S"),
        ("NVIDIA GeForce 710A", "GeForce 710A"),  # a model, not a vGPU profile
    ],
)
def test_virtual_gpu_profiles_are_the_boards_chip(shipped: Matrix, name: str, row: str) -> None:
    """NVIDIA vGPU names (board, "-", frame buffer and series) run on the board's chip."""
    found = shipped.gpu_match(name)
    assert found is not None and found.model is not None, name
    assert (found.model.name, found.inferred) == (row, False)


@pytest.mark.parametrize(
    "name",
    [
        "NVIDIA B250",  # B100/B200 are 10.0, B300 10.3: the B family cannot tell
        "NVIDIA GeForce RTX 3050 Ti Super",  # RTX 3050 is 8.6, RTX 3050 A Laptop 8.9
        "GeForce GTX 860M",  # 3-digit GeForce series mixed architectures: no series inference
        "Voodoo 5 5500",
        "Tesla T10",  # Tesla-architecture T10: not the Turing T-series
    ],
)
def test_ambiguous_or_unknown_names_infer_nothing(shipped: Matrix, name: str) -> None:
    assert shipped.gpu_match(name) is None
    assert shipped.gpu(name) is None


@pytest.mark.parametrize(
    ("name", "vendor"),
    [
        ("Radeon RX 7900 XTX", "amd"),
        ("AMD Radeon RX 6800", "amd"),
        ("AMD Instinct MI300X", "amd"),
        ("RX 580", "amd"),
        ("Intel Arc A770", "intel"),
        ("Arc A750", "intel"),
        ("Intel(R) UHD Graphics 630", "intel"),
        ("Apple M2", "apple"),
        ("Apple M3 Max", "apple"),
        ("M1 Pro", "apple"),
        ("NVIDIA GeForce RTX 4090", "nvidia"),
        ("Tesla T4", "nvidia"),
        ("GeForce GTX 1080 Ti", "nvidia"),
        ("Quadro M2000M", "nvidia"),
        ("A100", None),
        ("", None),
    ],
)
def test_gpu_vendor_of(name: str, vendor: str) -> None:
    assert gpu_vendor_of(name) == vendor


@pytest.mark.parametrize("name", ["Radeon RX 7900 XTX", "Intel Arc A770", "Apple M2"])
def test_non_nvidia_names_never_match(shipped: Matrix, name: str) -> None:
    assert shipped.gpu_match(name) is None
    assert shipped.gpu(name) is None


def test_every_gpu_readable_on_nvidias_pages_is_a_row(shipped: Matrix) -> None:
    pages = json.loads((NVML_NAMES.parent / "nvidia_pages.json").read_text(encoding="utf-8"))
    missing = [
        name
        for url, names in pages.items()
        if url.startswith("https://")
        for name in names
        if (found := shipped.gpu_match(name)) is None or found.inferred
    ]
    assert missing == []


@pytest.mark.parametrize(
    ("name", "cc"),
    [
        ("GeForce MX110", "5.0"),
        ("NVIDIA GeForce MX130", "5.0"),
        ("NVIDIA GeForce 920MX", "5.0"),
        ("NVIDIA GeForce 930MX", "5.0"),
        ("NVIDIA GeForce 940MX", "5.0"),
        ("NVIDIA GeForce MX230", "6.1"),
        ("NVIDIA GeForce MX330", "6.1"),
        ("NVIDIA GeForce MX350", "6.1"),
        ("GeForce MX350", "6.1"),
        ("MX350", "6.1"),
    ],
)
def test_entry_notebook_parts_resolve_and_say_they_are_unverified(
    shipped: Matrix, name: str, cc: str
) -> None:
    """MX1xx-3xx and 9xxMX notebook GPUs (NVML spellings too): rows from pci.ids'
    chip names, their compute capability inferred from the chip, so unverified."""
    found = shipped.gpu_match(name)
    assert found is not None, name
    assert str(found.compute_capability) == cc
    assert found.model is not None and found.model.origin.verified is False


def test_every_gpu_in_a_full_copy_of_nvidias_legacy_table_resolves(shipped: Matrix) -> None:
    """The stored copy of NVIDIA's legacy page stops inside the 5.0 row; a full copy
    of its table walks the rest. Each name answers the table's capability, or is a
    name for boards of several chips, or (listed in ``chip_kept``) keeps its chip's
    capability, in an unverified row whose note quotes the table's."""
    copy = json.loads(
        (NVML_NAMES.parent / "nvidia_legacy_table_copy.json").read_text(encoding="utf-8")
    )
    kept: dict[str, str] = copy["chip_kept"]
    wrong = []
    for row in copy["rows"]:
        cc = row["compute_capability"]
        for spelled in row["names"]:
            name = spelled.rstrip("*")
            shared = shipped.gpu_shared(name)
            found = shipped.gpu_match(name)
            # NVML prefixes "NVIDIA " to the product name: the same answer either way.
            nvml = f"NVIDIA {name}" if not name.startswith("NVIDIA ") else name
            via_nvml = shipped.gpu_match(nvml)
            assert shipped.gpu_shared(nvml) == shared, nvml
            assert (via_nvml and (via_nvml.model, via_nvml.inferred)) == (
                found and (found.model, found.inferred)
            ), nvml
            if shared is not None:
                choices = {str(c) for c in shared.compute_capabilities}
                if cc not in choices and kept.get(name) != "shared":
                    wrong.append((name, cc, sorted(choices)))
                continue
            if found is None or found.inferred:
                wrong.append((name, cc, "unresolved"))
            elif name in kept and str(found.compute_capability) == kept[name] != cc:
                model = found.model
                assert model is not None
                assert model.origin.verified is False, name
                assert f"under {cc}" in model.origin.note, name
            elif str(found.compute_capability) != cc:
                wrong.append((name, cc, str(found.compute_capability)))
    assert wrong == []


@pytest.mark.parametrize(
    ("name", "cc"),
    [
        ("NVIDIA GeForce GTX 280", "1.3"),
        ("GeForce 9800 GT", "1.1"),
        ("GeForce 8800 GTS 512", "1.1"),
        ("GeForce 8800 GTS", "1.0"),
        ("NVIDIA GeForce 920M", "3.5"),
        ("GeForce GT 720", "3.5"),
        ("Tesla M2050", "2.0"),
        ("Quadro K6000M", "3.0"),
    ],
)
def test_legacy_names_from_the_full_table_resolve(shipped: Matrix, name: str, cc: str) -> None:
    found = shipped.gpu_match(name)
    assert found is not None and not found.inferred, name
    assert str(found.compute_capability) == cc


@pytest.mark.parametrize(
    ("name", "ccs"),
    [
        ("NVIDIA GeForce GT 730", {"2.1", "3.0", "3.5"}),
        ("GeForce GT 720M", {"2.1", "3.5"}),
        ("GeForce 820M", {"2.1", "3.0"}),
        ("GeForce GT 220", {"1.1", "1.2"}),
    ],
)
def test_names_sold_on_several_chips_stay_shared(shipped: Matrix, name: str, ccs: set[str]) -> None:
    assert shipped.gpu_match(name) is None
    shared = shipped.gpu_shared(name)
    assert shared is not None
    assert {str(c) for c in shared.compute_capabilities} == ccs
