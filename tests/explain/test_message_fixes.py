"""Fixes for a message alone come from the resolver when the message shows the machine
(issue 27: fixes come from the resolver, never from hand-written text): the OS and the
driver decide which build runs, so without them the signature's version-free advice stays."""

from __future__ import annotations

from envcheck.explain import explain
from envcheck.matrix import Matrix

CPU_TORCH = "AssertionError: Torch not compiled with CUDA enabled\n"
WINDOWS_SMI = (
    "C:\\Users\\me> nvidia-smi\n"
    "| NVIDIA-SMI 531.14   Driver Version: 531.14   CUDA Version: 12.1 |\n"
)


def _fix(text: str, matrix: Matrix) -> str:
    report = explain(text, None, matrix)
    return report.findings[0].fix or ""


def test_a_cpu_torch_on_a_shown_windows_machine_gets_the_resolvers_commands(
    matrix: Matrix,
) -> None:
    fix = _fix(WINDOWS_SMI + CPU_TORCH, matrix)
    # The installed CPU build goes first (pip would keep a +cpu torch that satisfies the
    # pin), and the CUDA build comes from PyTorch's index, not PyPI's Windows CPU wheel.
    assert "pip uninstall -y torch" in fix
    assert "--index-url https://download.pytorch.org/whl/cu" in fix
    assert fix.index("uninstall") < fix.index("pip install")


def test_without_the_os_or_the_driver_the_signature_advice_stays(matrix: Matrix) -> None:
    for text in (
        CPU_TORCH + "I have a GeForce RTX 3060\n",
        "C:\\Users\\me> python x.py\n" + CPU_TORCH,
    ):
        fix = _fix(text, matrix)
        assert "pip install" not in fix
        assert "envcheck plan torch" in fix
