"""--gpu NAME: table rows, family inference said as such, non-NVIDIA GPUs refused."""

from __future__ import annotations

import pytest

from envcheck.compat.target import resolve_gpu
from envcheck.matrix import Matrix, bundled_dir, load_matrix_from
from tests.conftest import run_cli


@pytest.fixture(scope="module")
def shipped() -> Matrix:
    return load_matrix_from(bundled_dir())


def test_a_table_row_resolves_to_its_name(shipped: Matrix) -> None:
    cc, name = resolve_gpu("Quadro RTX 5000", shipped)
    assert (str(cc), name) == ("7.5", "Quadro RTX 5000")


def test_a_family_inference_says_so(shipped: Matrix) -> None:
    cc, name = resolve_gpu("NVIDIA RTX A5500 Laptop GPU", shipped)
    assert str(cc) == "8.6"
    assert name is not None and "inferred from the family" in name


def test_rtx_2050_is_ampere_not_turing(shipped: Matrix) -> None:
    cc, _ = resolve_gpu("NVIDIA GeForce RTX 2050", shipped)
    assert str(cc) == "8.6"


@pytest.mark.parametrize(
    ("gpu", "words"), [("Radeon RX 7900 XTX", "ROCm"), ("Intel Arc A770", "XPU")]
)
def test_non_nvidia_gpus_exit_2_with_a_pointer(gpu: str, words: str) -> None:
    result = run_cli("plan", "torch", "--gpu", gpu, "--driver", "550.54.15")
    assert result.exit_code == 2
    assert "NVIDIA" in result.stderr and words in result.stderr


@pytest.mark.parametrize(
    ("name", "cc"),
    [
        ("NVIDIA GeForce RTX 3050 Ti Laptop GPU", "8.6"),
        ("Tesla V100-SXM2-16GB", "7.0"),
        ("NVIDIA H100 80GB HBM3", "9.0"),
        ("Quadro RTX 3000", "7.5"),
        ("NVIDIA T1200 Laptop GPU", "7.5"),
        ("NVIDIA T500", "7.5"),
        ("Quadro P520", "6.1"),
        ("NVIDIA A800-SXM4-80GB", "8.0"),
        ("NVIDIA GeForce MX450", "7.5"),
        ("NVIDIA GeForce MX570", "8.6"),
        ("NVIDIA GeForce RTX 2050", "8.6"),
        ("Quadro T2000 with Max-Q Design", "7.5"),
        ("NVIDIA RTX A3000 Laptop GPU", "8.6"),
        ("GeForce GTX 960M", "5.0"),
        ("NVIDIA GeForce RTX 2080 SUPER with Max-Q Design", "7.5"),
    ],
)
def test_the_spellings_users_meet_resolve(shipped: Matrix, name: str, cc: str) -> None:
    found = shipped.gpu_match(name)
    assert found is not None and str(found.compute_capability) == cc, found
