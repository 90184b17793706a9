"""Legacy notebook GPUs added from pci.ids chip names: every such row resolves by
its name and its NVML spelling, says it is unverified and names its anchor; a user
with one hears its compute capability and the legacy-CUDA verdict."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Optional

import pytest

from envcheck.doctor import diagnose
from envcheck.matrix import Matrix, bundled_dir, load_matrix_from
from envcheck.matrix.rows import GpuModel
from envcheck.model.snapshot import Snapshot
from tests.conftest import run_cli

_PCI_IDS = "https://pci-ids.ucw.cz/read/PC/10de/"
_CHIP_ARCH = {
    "G8": "Tesla",
    "G9": "Tesla",
    "GT": "Tesla",
    "GF": "Fermi",
    "GK": "Kepler",
    "GM": "Maxwell",
    "GP": "Pascal",
    "TU": "Turing",
    "GA": "Ampere",
}
_SEED = (
    Path(__file__).parents[1]
    / "fixtures"
    / "doctor"
    / "41-windows-quadro-rtx5000-tf-1.14-cuda-10.1.json"
)


@pytest.fixture(scope="module")
def shipped() -> Matrix:
    return load_matrix_from(bundled_dir())


def _chip_rows(matrix: Matrix) -> list[GpuModel]:
    """Rows whose capability comes from a pci.ids chip and same-chip anchors."""
    return [
        g
        for g in matrix.gpus
        if g.origin.source.startswith(_PCI_IDS)
        and "(anchors, chip per pci.ids device id: " in (g.origin.note or "")
    ]


def _read_in_a_copy(row: GpuModel) -> bool:
    """An unverified row whose note says its capability was read in a copy of
    NVIDIA's page (a sourced fact, not from the stored canonical copy)."""
    note = row.origin.note or ""
    return (
        f"read at {row.compute_capability} in " in note
        and ("copy" in note or "quoted from developer.nvidia.com" in note)
        and "developer.nvidia.com/cuda" in row.origin.source
    )


def test_the_chip_anchored_rows_are_there(shipped: Matrix) -> None:
    names = {g.name for g in _chip_rows(shipped)}
    assert {"GeForce GTX 680M", "GeForce GTX 880M", "Quadro K5100M", "GeForce 945M"} <= names
    assert {"GeForce GT 750M", "GeForce GT 650M", "Quadro K1100M", "Quadro K2100M"} <= names
    assert {"GeForce GTX 765M", "GeForce GT 735M", "Tesla K20s", "Tesla M10"} <= names
    assert {"Tesla M2090", "Quadro 4000", "GeForce GTX 560", "GeForce GTX 580M"} <= names
    assert {"NVS 310", "NVS 315", "GeForce GT 705", "GeForce 410M"} <= names
    assert {"GeForce 210", "GeForce GT 320M", "GeForce 8800 GTS", "Quadro FX 380 LP"} <= names
    # GF108, anchored by capabilities CUDA tools printed in GitHub issues
    assert {"GeForce GT 430", "GeForce GT 540M", "Quadro 1000M", "NVS 5400M"} <= names
    # GF106 (one observed anchor), and names sold with GF106 and GF108
    assert {"Quadro 2000", "GeForce GTX 460M", "GeForce GT 440", "GeForce GT 555M"} <= names
    # names outside the GeForce/Quadro/NVS/Tesla prefixes: GRID and mining boards
    assert {"GRID K520", "GRID K1", "GRID K2", "GRID K340", "GRID M30"} <= names
    assert {"P102-100", "P104-100", "P106-100", "P106-090", "CMP 30HX", "CMP 90HX"} <= names
    # GA100 boards beside the A100 and A30 NVIDIA lists
    assert {"CMP 170HX", "GRID A100A", "GRID A100B", "A100X", "A30X"} <= names


def test_every_chip_anchored_row_resolves_by_name_and_nvml_spelling(shipped: Matrix) -> None:
    wrong = []
    for gpu in _chip_rows(shipped):
        for asked in (gpu.name, f"NVIDIA {gpu.name}", *gpu.aliases):
            found = shipped.gpu_match(asked)
            if found is None or found.model != gpu or found.inferred:
                wrong.append(asked)
            elif found.compute_capability != gpu.compute_capability:
                wrong.append(f"{asked}: {found.compute_capability}")
    assert wrong == []


def test_every_chip_anchored_row_is_unverified_and_agrees_with_its_chip(
    shipped: Matrix,
) -> None:
    """The note names the pci.ids chip and its anchors; the chip's family letters
    agree with the row's architecture; every anchor row named in the note was read
    on NVIDIA's page (verified) or in a dated copy of it, and every observed anchor
    (a capability CUDA tools printed, in a GitHub file at a commit or an issue)
    reports the same capability."""
    by_name = {g.name: g for g in shipped.gpus}
    for gpu in _chip_rows(shipped):
        note = gpu.origin.note or ""
        assert gpu.origin.verified is False, gpu.name
        assert "pci.ids 2023.04.11" in note, gpu.name
        assert "not read for this product in an NVIDIA source" in note, gpu.name
        chip = note.split(", chip ", 1)[1][:2]
        assert _CHIP_ARCH[chip] == gpu.architecture, gpu.name
        anchor_text = note.split("(anchors, chip per pci.ids device id: ", 1)[1]
        observed = re.findall(r"observed: [^;]*? reports [^;]*?https://\S+", anchor_text)
        named = re.sub(r"observed: [^;]*? reports [^;]*?https://\S+", "", anchor_text)
        anchors = [n for n in by_name if f" {n} (" in f" {named}"]
        assert anchors or observed, gpu.name
        for name in anchors:
            anchor = by_name[name]
            assert anchor.origin.verified or _read_in_a_copy(anchor), (gpu.name, name)
            assert "cuda" in anchor.origin.source, (gpu.name, name)
            assert anchor.compute_capability == gpu.compute_capability, (gpu.name, name)
        for seen in observed:
            assert f" reports {gpu.compute_capability}, https://github.com/" in seen, gpu.name
            assert _CITABLE.search(seen), (gpu.name, seen)


# An observed anchor cites a GitHub file at a commit or a GitHub issue thread.
_CITABLE = re.compile(r"https://github\.com/[^/\s]+/[^/\s]+/(blob/[0-9a-f]{40}/\S+|issues/\d+)")
_OBSERVED = re.compile(
    r"observed: (.+?) of an? (.+?) \(([0-9a-f]{4})\) reports (\d+\.\d+), (https://\S+?)(?:[,)]|$)"
)


def _anchors_by_chip(matrix: Matrix) -> dict[str, dict[str, set[str]]]:
    """chip -> anchor (row name or observed product and URL) -> capabilities, read
    from the notes of every chip-anchored row."""
    by_name = {g.name: g for g in matrix.gpus}
    out: dict[str, dict[str, set[str]]] = {}
    for gpu in _chip_rows(matrix):
        text = (gpu.origin.note or "").split("(anchors, chip per pci.ids device id: ", 1)[1]
        for part in re.split(r"; (?=G[A-Z0-9]+: )", text):
            chip, _, rest = part.partition(": ")
            seen = out.setdefault(chip, {})
            for _what, product, _did, cc, url in _OBSERVED.findall(rest):
                seen.setdefault(f"{product} {url}", set()).add(cc)
            named = _OBSERVED.sub("", rest)
            for name, row in by_name.items():
                if f" {name} (" in f" {named}":
                    seen.setdefault(name, set()).add(str(row.compute_capability))
    return out


def test_the_anchors_of_each_chip_agree(shipped: Matrix) -> None:
    """A chip gets a capability only when all its anchors, read or observed, give
    the same one; an observed anchor is named with what printed it and its URL."""
    anchors = _anchors_by_chip(shipped)
    assert anchors["GF108"] == {
        "GeForce GT 430 https://github.com/alicevision/Meshroom/issues/830": {"2.1"},
        "Quadro 1000M https://github.com/VLOGroup/dvs-reconstruction/issues/1": {"2.1"},
    }
    assert anchors["GF106"] == {
        "Quadro 2000 https://github.com/alicevision/Meshroom/issues/260": {"2.1"}
    }
    # GRID K520 (AWS g2): TensorFlow's logs and a deviceQuery paste, next to the
    # GK104 rows read on NVIDIA's page
    observed_k520 = {k: v for k, v in anchors["GK104"].items() if k.startswith("GRID K520 ")}
    assert observed_k520 == {
        "GRID K520 https://github.com/tensorflow/tensorflow/issues/29": {"3.0"},
        "GRID K520 https://github.com/tensorflow/tensorflow/issues/112": {"3.0"},
        "GRID K520 https://github.com/heterodb/pg-strom/issues/223": {"3.0"},
    }
    for chip, seen in anchors.items():
        assert seen, chip
        assert len(set().union(*seen.values())) == 1, (chip, seen)


def _snapshot_with(name: str) -> Snapshot:
    data = json.loads(_SEED.read_text(encoding="utf-8"))["snapshot"]
    data["gpus"][0].update(name=name, compute_capability=None)
    return Snapshot.from_json(data)


@pytest.mark.parametrize(
    "name", ["NVIDIA GeForce GTX 680M", "NVIDIA GeForce GTX 880M", "Quadro K4100M"]
)
def test_a_kepler_notebook_gpu_hears_the_legacy_verdict(shipped: Matrix, name: str) -> None:
    report = diagnose(_snapshot_with(name), shipped)
    ids = {f.id for f in report.findings}
    assert "gpu-unknown" not in ids
    (finding,) = [f for f in report.findings if f.id == "gpu-legacy-cuda"]
    assert "no CUDA release that current frameworks use supports sm_30" in finding.title
    assert "the last one was CUDA 10.2" in finding.title


def test_plan_knows_a_kepler_notebook_gpu_by_name() -> None:
    """Before these rows: exit 2, "unknown GPU 'GeForce GTX 680M'"."""
    result = run_cli("plan", "torch", "--gpu", "GeForce GTX 680M", "--driver", "470.256.02")
    assert "unknown GPU" not in result.stderr
    assert "sm_30" in result.stderr
    assert result.exit_code == 1  # no torch wheel has code for sm_30 (torch.toml [[arch_floor]])


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("GRID K520", "has no kernels for GRID K520 (sm_30)"),
        ("NVIDIA P106-100", "has kernels for P106-100 (sm_61)"),
        ("CMP 70HX", "has kernels for CMP 70HX (sm_86)"),
    ],
)
def test_matrix_why_knows_grid_and_mining_boards(name: str, said: str) -> None:
    """Before these rows: "unknown GPU 'GRID K520'" (AWS g2), and the same for the
    P10x and CMP mining boards."""
    result = run_cli("matrix", "why", "torch==2.5.1", "--gpu", name)
    out = result.stdout + result.stderr
    assert "unknown GPU" not in out
    assert said in out


def test_a_gk107_notebook_gpu_resolves_from_its_chip(shipped: Matrix) -> None:
    """GT 750M: pci.ids gives only GK107M; GK107's capability was read at 3.0 in
    copies of NVIDIA's page (Quadro K2000/K600, GeForce GTX 650)."""
    found = shipped.gpu_match("NVIDIA GeForce GT 750M")
    assert found is not None and not found.inferred
    assert (found.model.name, str(found.compute_capability)) == ("GeForce GT 750M", "3.0")


@pytest.mark.parametrize(
    ("name", "chips"),
    [
        ("NVIDIA GeForce GT 740M", {"GK107M": "3.0", "GK208M": "3.5"}),
        ("NVIDIA GeForce GTX 860M", {"GK104M": "3.0", "GM107M": "5.0"}),
        ("GT 730M", {"GK107M": "3.0", "GK208M": "3.5"}),
        # GF117M and GK208M: GF117's anchor is the GT 625M, the one name pci.ids
        # gives GF117 alone, read at 2.1 in a full copy of NVIDIA's legacy table.
        ("NVIDIA GeForce GT 720M", {"GF117M": "2.1", "GK208M": "3.5"}),
        # GF108, GK107 and GK208B: GK208B is 3.5 by the GT 720 and 920M rows of that
        # copy; the GeForce 910M row NVIDIA gives 5.2 does not anchor it.
        ("NVIDIA GeForce GT 730", {"GF108": "2.1", "GK107": "3.0", "GK208B": "3.5"}),
        # GF108M and GK107M (pci.ids); not the GT 640M row with a longer name.
        ("NVIDIA GeForce GT 640M LE", {"GF108M": "2.1", "GK107M": "3.0"}),
        # GF108, GK107 (the OEM board) and GK208
        ("GeForce GT 630", {"GF108": "2.1", "GK107": "3.0", "GK208": "3.5"}),
    ],
)
def test_a_name_shared_by_chips_of_different_capability_gets_no_single_row(
    shipped: Matrix, name: str, chips: Optional[dict[str, str]]
) -> None:
    """Series numbers do not give a capability, and a name pci.ids gives to chips of
    different capabilities has no one capability: no [[gpu]] row, no inference; a
    [[shared_name]] row lists its chips when each chip is anchored."""
    assert shipped.gpu_match(name) is None
    shared = shipped.gpu_shared(name)
    if chips is None:
        assert shared is None
    else:
        assert shared is not None
        assert {chip: str(cc) for chip, cc in shared.choices} == chips


def test_every_shared_name_cites_pci_ids_and_anchored_chips(shipped: Matrix) -> None:
    """Each chip of a shared name has the one capability of the chip-anchored rows
    of that chip (desktop or mobile) in the table."""
    by_chip: dict[str, set[str]] = {}
    for gpu in _chip_rows(shipped):
        note = gpu.origin.note or ""
        chip = note.split(", chip ", 1)[1].split(".", 1)[0].rstrip("M").rstrip("B")
        by_chip.setdefault(chip, set()).add(str(gpu.compute_capability))
    # Rows read in a copy of NVIDIA's legacy table that agree with every chip pci.ids
    # gives their name anchor those chips too.
    for gpu in shipped.gpus:
        note = gpu.origin.note or ""
        if "It agrees with the chip: pci.ids" not in note:
            continue
        for chip in re.findall(r"10de:[0-9a-f]{4} '(\w+) \[", note):
            base = re.sub(r"(GLM|GL|M)$", "", chip).rstrip("B")
            by_chip.setdefault(base, set()).add(str(gpu.compute_capability))
    assert shipped.shared_gpu_names
    for shared in shipped.shared_gpu_names:
        assert shared.origin.source.startswith(_PCI_IDS) and not shared.origin.verified
        for chip, cc in shared.choices:
            assert chip in (shared.origin.note or ""), (shared.name, chip)
            base = chip.rstrip("M").rstrip("B")
            assert by_chip.get(base) == {str(cc)}, (shared.name, chip, by_chip.get(base))


def test_its_user_gives_sm_30_and_hears_the_legacy_answer() -> None:
    result = run_cli("plan", "torch", "--gpu", "sm_30", "--driver", "470.256.02")
    assert result.exit_code == 1
    assert "carry no code below sm_35" in " ".join(result.stderr.split())
