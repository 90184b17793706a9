"""Frameworks that bring NVIDIA's wheels must agree on their exact versions.

torch and ``tensorflow[and-cuda]`` pin exact ``nvidia-*`` versions in their wheel
METADATA (``[[nvidia_pin]]`` rows in torch.toml / tensorflow.toml); pip installs one
``nvidia-cudnn-cu12``, so the plan compares the pins, takes releases that agree where
the matrix has them, and otherwise says that pip re-pins one under the other (and
gives each its own pip command).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from envcheck.matrix.rows import NvidiaPin, Origin
from envcheck.resolve import emit
from envcheck.resolve.nvidia_pins import pin_conflicts
from envcheck.resolve.plan import plan
from tests.resolve.test_plan import ADA, machine

TARGET = machine("550.54.15", ADA, python="3.11")
REQUESTS = ("torch==2.5.*", "tensorflow==2.18.*")
CUDNN_91 = "nvidia-cudnn-cu12==9.1.0.70"
CUDNN_93 = "nvidia-cudnn-cu12==9.3.0.75"


def row(package: str, versions: tuple[str, ...], variant: str, *requires: str) -> NvidiaPin:
    extra = "and-cuda" if package == "tensorflow" else None
    origin = Origin(f"https://pypi.org/project/{package}/", True, "test.toml", 1)
    return NvidiaPin(package, package, extra, variant, versions, tuple(requires), origin)


def with_pins(matrix: Any, *rows: NvidiaPin) -> Any:
    return replace(matrix, nvidia_pins=tuple(rows))


def test_pin_conflicts_compare_exact_pins_and_ranges() -> None:
    a = row("torch", ("2.5.1",), "cu124", CUDNN_91, "nvidia-nccl-cu12==2.21.5")
    b = row("tensorflow", ("2.18.1",), "cu125", CUDNN_93, "nvidia-cublas-cu12==12.5.3.2")
    assert pin_conflicts(a, b) == ["nvidia-cudnn-cu12 ==9.1.0.70 vs ==9.3.0.75"]
    ranged = row("tensorflow", ("2.18.1",), "cu125", "nvidia-cudnn-cu12<10,>=9.1")
    assert pin_conflicts(a, ranged) == []
    assert pin_conflicts(row("tensorflow", ("2.18.1",), "cu125", "nvidia-cudnn-cu12>=9.3"), a)


def test_agreeing_pins_keep_the_newest(matrix: Any) -> None:
    m = with_pins(
        matrix,
        row("torch", ("2.5.0", "2.5.1"), "cu124", CUDNN_91),
        row("tensorflow", ("2.18.0", "2.18.1"), "cu125", CUDNN_91),
    )
    p = plan(REQUESTS, TARGET, m)
    assert p.ok, p.unsatisfiable
    assert [x.requirement for x in p.picks] == ["torch==2.5.1", "tensorflow[and-cuda]==2.18.1"]
    assert p.pin_conflicts == ()
    assert any("require the same versions of the NVIDIA wheels" in d.text for d in p.decisions)


def test_clashing_pins_pick_releases_that_agree(matrix: Any) -> None:
    m = with_pins(
        matrix,
        row("torch", ("2.5.0", "2.5.1"), "cu124", CUDNN_91),
        row("tensorflow", ("2.18.1",), "cu125", CUDNN_93),
        row("tensorflow", ("2.18.0",), "cu125", CUDNN_91),
    )
    p = plan(REQUESTS, TARGET, m)
    assert p.ok, p.unsatisfiable
    # torch (named first) keeps its newest; tensorflow steps back to the agreeing release
    assert [x.requirement for x in p.picks] == ["torch==2.5.1", "tensorflow[and-cuda]==2.18.0"]
    assert p.pin_conflicts == ()
    said = [d.text for d in p.decisions if "pins agree" in d.text]
    assert said and "nvidia-cudnn-cu12 ==9.1.0.70 vs ==9.3.0.75" in said[0]


def test_no_agreement_says_pip_repins_and_splits_the_commands(matrix: Any) -> None:
    m = with_pins(
        matrix,
        row("torch", ("2.5.0", "2.5.1"), "cu124", CUDNN_91),
        row("tensorflow", ("2.18.0", "2.18.1"), "cu125", CUDNN_93),
    )
    p = plan(REQUESTS, TARGET, m)
    assert p.ok, p.unsatisfiable
    assert [x.requirement for x in p.picks] == ["torch==2.5.1", "tensorflow[and-cuda]==2.18.1"]
    assert p.pin_conflicts == ("torch", "tensorflow")
    assert any("re-pins these NVIDIA wheels" in w for w in p.warnings)
    assert p.to_json()["pin_conflicts"] == ["torch", "tensorflow"]
    # one pip command per framework: a single command would not resolve at all
    assert emit.emit_pip(p).splitlines()[1:] == [
        "pip install torch==2.5.1",
        "pip install 'tensorflow[and-cuda]==2.18.1'",
    ]
    assert "# warning: torch and tensorflow pin different" in emit.emit_requirements(p)


def test_unknown_pins_are_said_not_checked(matrix: Any) -> None:
    m = with_pins(matrix, row("tensorflow", ("2.18.0", "2.18.1"), "cu125", CUDNN_93))
    p = plan(REQUESTS, TARGET, m)
    assert p.ok and p.pin_conflicts == ()
    assert any("whether pip re-pins them is not checked" in d.text for d in p.decisions)


def test_other_platforms_are_not_compared(matrix: Any) -> None:
    m = with_pins(
        matrix,
        row("torch", ("2.5.0", "2.5.1"), "cu124", CUDNN_91),
        row("tensorflow", ("2.18.0", "2.18.1"), "cu125", CUDNN_93),
    )
    p = plan(REQUESTS, machine("550.54.15", ADA, python="3.11", arch="aarch64"), m)
    assert p.pin_conflicts == ()


def test_shipped_pins_torch_and_tensorflow(matrix: Any) -> None:
    """The shipped rows: no torch 2.5 and TF 2.18 releases agree (torch pins cuDNN
    9.1.0.70, TensorFlow 2.18 9.3.0.75: torch.toml / tensorflow.toml [[nvidia_pin]])."""
    torch_pin = matrix.nvidia_pin("torch", "2.5.1", "cu124")
    tf_pin = matrix.nvidia_pin("tensorflow", "2.18.0", "cu125", "and-cuda")
    assert torch_pin is not None and tf_pin is not None
    assert CUDNN_91 in torch_pin.requires and CUDNN_93 in tf_pin.requires
    p = plan(REQUESTS, TARGET, matrix)
    assert p.ok, p.unsatisfiable
    assert p.pin_conflicts == ("torch", "tensorflow")


def test_shipped_pins_torch_210_and_tensorflow_220_agree(matrix: Any) -> None:
    """torch 2.10.0 pins nvidia-cudnn-cu12==9.10.2.21 (and cuBLAS 12.8.4.1, ...), inside
    tensorflow 2.20.0's and-cuda ranges (>=9.3.0.75,<10.0; >=12.5.3.2,<13.0)."""
    p = plan(("torch==2.10.*", "tensorflow>=2.18,<2.21"), machine("575.57.08", ADA), matrix)
    assert p.ok, p.unsatisfiable
    assert [x.requirement for x in p.picks] == ["torch==2.10.0", "tensorflow[and-cuda]==2.20.0"]
    assert p.pin_conflicts == ()
    assert any("require the same versions of the NVIDIA wheels" in d.text for d in p.decisions)
