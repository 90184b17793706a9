"""Emitted pip plans resolve with pip itself.

Each plan's packages become metadata-only stub wheels (tests/resolve/stubwheels.py)
carrying what the matrix says their real wheels require: the exact ``nvidia-*`` pins
(``[[nvidia_pin]]``), the keras a TensorFlow release requires (``[[tensorflow_pin]]``
in keras.toml) and the torch a torchvision release pairs with (``[[companion]]``).
``pip install --dry-run --no-index --find-links DIR`` then resolves all the picks in one
run; where the plan says their NVIDIA pins clash, pip must refuse that, and resolve each
emitted command on its own.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from envcheck.resolve import emit
from envcheck.resolve.plan import plan
from envcheck.resolve.plan_model import Plan
from tests.resolve.stubwheels import write_stub_wheel
from tests.resolve.test_plan import ADA, machine

PLANS = {
    # PyPI's default torch: its nvidia-* pins, and torchvision's torch pin
    "torch-torchvision": (
        ("torch==2.5.*", "torchvision"),
        machine("550.54.15", ADA, python="3.11"),
    ),
    # tensorflow[and-cuda] with its nvidia-* pins and its keras pin
    "tensorflow-keras": (
        ("tensorflow==2.15.*", "keras"),
        machine("535.104.05", ADA, python="3.11"),
    ),
    # a PyTorch-index build (+cu126 local version) beside a PyPI framework
    "index-and-pypi": (("torch==2.14.*", "jax"), machine("550.54.15", ADA, python="3.12")),
    # torch 2.10's exact pins fall inside tensorflow 2.20's ranges: one command
    "torch-tensorflow-agree": (
        ("torch==2.10.*", "tensorflow==2.20.*"),
        machine("575.57.08", ADA, python="3.11"),
    ),
    # torch and tensorflow whose pins disagree: one command each
    "torch-tensorflow": (
        ("torch==2.5.*", "tensorflow==2.18.*"),
        machine("550.54.15", ADA, python="3.11"),
    ),
}


def _stubs(p: Plan, matrix: Any, directory: Path) -> None:
    """Stub wheels for every pick and everything the matrix says it requires."""
    from packaging.requirements import Requirement

    nvidia: set[str] = set()
    extra_keras: set[str] = set()
    for pick in p.picks:
        assert pick.version is not None
        version = pick.version
        if emit._uses_index(pick, p) and pick.variant:
            version = f"{pick.version}+{pick.variant}"
        requires: list[str] = []
        pins = matrix.nvidia_pin(pick.package, pick.version, pick.variant or "", pick.extra)
        pinned = list(pins.requires) if pins is not None else []
        nvidia.update(pinned)
        if pick.framework == "torchvision":
            row = matrix.companion(next(x.version for x in p.picks if x.framework == "torch"))
            requires.append(f"torch=={row.version}")
        if pick.package == "tensorflow":
            keras = next((k for k in matrix.keras_pins if pick.version in k.tensorflow), None)
            if keras is not None:
                requires.append(f"keras{keras.keras}")
                if not any(x.package == "keras" for x in p.picks):
                    extra_keras.add(_newest_keras(matrix, keras.keras))
        extras = {pick.extra: pinned} if pick.extra else None
        write_stub_wheel(
            directory, pick.package, version, requires + ([] if pick.extra else pinned), extras
        )
    for text in nvidia:
        # the exact pin, or a range's lower bound (tensorflow 2.20: >=9.3.0.75,<10.0)
        req = Requirement(text)
        for spec in req.specifier:
            if spec.operator in ("==", ">="):
                write_stub_wheel(directory, req.name, spec.version)
    for version in extra_keras:
        write_stub_wheel(directory, "keras", version)


def _newest_keras(matrix: Any, spec: str) -> str:
    """The newest Keras release in the matrix inside a TensorFlow release's keras pin."""
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version

    inside = [
        v for r in matrix.keras_releases for v in r.versions if SpecifierSet(spec).contains(v)
    ]
    return str(max(inside, key=Version))


def _dry_run(requirements: list[str], links: Path) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "pip", "--isolated", "--disable-pip-version-check"]
    argv += ["install", "--dry-run", "--ignore-installed", "--no-index", "--find-links"]
    argv += [str(links), *requirements]
    return subprocess.run(  # argv list, no shell
        argv, capture_output=True, text=True, timeout=120, check=False
    )


def _requirements(argv: list[str]) -> list[str]:
    """The requirement arguments of one emitted ``python -m pip install`` command."""
    out, skip = [], False
    for arg in argv[4:]:
        if skip:
            skip = False
        elif arg in ("--index-url", "--extra-index-url", "--find-links"):
            skip = True
        else:
            out.append(arg)
    return out


@pytest.mark.real_machine
@pytest.mark.parametrize("name", sorted(PLANS))
def test_emitted_pip_plan_resolves(name: str, matrix: Any, tmp_path: Path) -> None:
    requests, target = PLANS[name]
    p = plan(requests, target, matrix)
    assert p.ok, p.unsatisfiable
    _stubs(p, matrix, tmp_path)
    commands = emit.pip_argvs(p, sys.executable)
    everything = [r for argv in commands for r in _requirements(argv)]
    together = _dry_run(everything, tmp_path)
    if not p.pin_conflicts:
        # every pick in one resolver run: the plan installs together
        assert together.returncode == 0, together.stdout + together.stderr
        return
    # What the plan warns about is real: pip refuses them in one command ...
    assert together.returncode != 0
    assert "ResolutionImpossible" in together.stdout + together.stderr
    # ... and each emitted command resolves on its own.
    assert len(commands) > 1
    for argv in commands:
        done = _dry_run(_requirements(argv), tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr
