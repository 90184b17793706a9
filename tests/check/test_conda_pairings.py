"""Conda pairings judged from the channel builds in matrices/conda.toml (issue 26).

``pytorch=2.1.0`` with ``pytorch-cuda=12.4``: the pytorch channel built 2.1.x for
pytorch-cuda 11.8 and 12.1 only (pytorch.org's install commands).
``tensorflow-gpu=1.14.0`` with ``cudatoolkit=10.1`` on Windows: defaults built it for
CUDA 10.0 and 9.0 there (AnacondaRecipes/tensorflow_recipes), 10.1 on Linux only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import pytest

from envcheck.check.check import check_pins
from envcheck.check.discover import _env
from envcheck.check.model import Project
from envcheck.check.parse_environment import parse_environment
from envcheck.compat.target import Target
from envcheck.matrix import Matrix
from tests.conftest import run_cli


@pytest.fixture(scope="module")
def shipped(matrix: Matrix) -> Any:

    return matrix


def _ec104(deps: list[str], matrix: Any, os: Optional[str] = None) -> list[tuple[int, str]]:
    text = "name: x\ndependencies:\n" + "".join(f"  - {d}\n" for d in deps)
    parsed = parse_environment(text, "environment.yml")
    project = Project(files=("environment.yml",), environments=(_env("e", parsed),))
    report = check_pins(project, Target(os=os), matrix)
    return [(p.location.line or 0, p.message) for p in report.problems if p.code == "EC104"]


def test_pytorch_2_1_has_no_pytorch_cuda_12_4_build(shipped: Any) -> None:
    ((line, message),) = _ec104(["pytorch=2.1.0", "pytorch-cuda=12.4"], shipped)
    assert line == 4  # the pytorch-cuda pin
    assert message == (
        "pytorch-cuda=12.4: the pytorch channel built pytorch 2.1.0 only for pytorch-cuda"
        " 11.8, 12.1; pytorch=2.1.0 (environment.yml:3) has no build for it"
    )


def test_the_cuda_versions_named_come_from_the_matrix(shipped: Any) -> None:
    """The message lists the rows' CUDA versions: drop a row and it changes."""
    import dataclasses

    rows = tuple(
        r for r in shipped.conda_packages if not (r.channel == "pytorch" and r.cuda == "12.1")
    )
    fewer = dataclasses.replace(shipped, conda_packages=rows)
    ((_, message),) = _ec104(["pytorch=2.1.0", "pytorch-cuda=12.1"], fewer)
    assert "only for pytorch-cuda 11.8;" in message


@pytest.mark.parametrize(
    "deps",
    [
        ["pytorch=2.1.0", "pytorch-cuda=12.1"],
        ["pytorch=2.1", "pytorch-cuda=11.8"],  # every 2.1.x has an 11.8 build
        ["pytorch>=2.3", "pytorch-cuda=12.4"],  # 2.4/2.5 are not in the rows: not judged
        ["pytorch", "pytorch-cuda=12.4"],  # no version: not judged
        ["pytorch=1.12.1", "pytorch-cuda=11.6"],  # no rows for 1.12: not judged
        ["pytorch=2.1.0", "cuda-version=12.4"],  # conda-forge's pin: rows incomplete
        ["tensorflow-gpu=1.14.0", "cudatoolkit=10.1"],  # Linux has a 10.1 build
        ["tensorflow-gpu=1.14.0", "cudatoolkit=9.2"],  # and a 9.2 one
    ],
)
def test_pairings_that_exist_or_are_not_known(deps: list[str], shipped: Any) -> None:
    assert _ec104(deps, shipped) == []


def test_tensorflow_gpu_1_14_on_windows_has_no_cudatoolkit_10_1(shipped: Any) -> None:
    ((line, message),) = _ec104(
        ["tensorflow-gpu=1.14.0", "cudatoolkit=10.1"], shipped, os="windows"
    )
    assert line == 4
    assert message.startswith(
        "cudatoolkit=10.1: the defaults channel built tensorflow-gpu 1.14.0 only for"
        " cudatoolkit 9.0, 10.0 on windows-x86_64;"
    )
    assert _ec104(["tensorflow-gpu=1.14.0", "cudatoolkit=10.0"], shipped, os="windows") == []
    assert _ec104(["tensorflow-gpu=1.14.0", "cudatoolkit=10.1"], shipped, os="linux") == []


def test_the_pip_wheel_cuda_no_longer_judges_a_conda_build(shipped: Any) -> None:
    """defaults' tensorflow-gpu 1.14.0 has CUDA 9.x builds on Linux; the pip wheels are
    CUDA 10 only, which used to make cudatoolkit=9.2 an EC104."""
    assert _ec104(["tensorflow-gpu=1.14.0", "cudatoolkit=9.2"], shipped, os="linux") == []
    assert _ec104(["tensorflow-gpu=1.14.0", "cudatoolkit=11.0"], shipped, os="linux") != []


def test_windows_declared_in_the_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "environment.yml").write_text(
        "dependencies:\n  - python=3.7\n  - tensorflow-gpu=1.14.0\n  - cudatoolkit=10.1\n",
        encoding="utf-8",
    )
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "p"\n[tool.envcheck]\nplatforms = ["windows"]\n', encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    code, out, _ = run_cli("check")
    assert code == 1
    assert out.splitlines()[0].startswith("environment.yml:4: EC104 cudatoolkit=10.1:")
