"""EC108: an exact pin of a release that was never published (issue 26: ``torch==2.5.7``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from envcheck.check.check import check_pins
from envcheck.check.model import Location, Pin, Project
from envcheck.check.parse_requirements import parse_requirements
from envcheck.compat.target import Target
from envcheck.matrix import Matrix
from tests.conftest import run_cli


def _problems(text: str, matrix: Any) -> list[tuple[int, str, str]]:
    from envcheck.check.discover import _env

    parsed = parse_requirements(text, "requirements.txt")
    project = Project(files=("requirements.txt",), environments=(_env("r", parsed),))
    report = check_pins(project, Target(), matrix)
    return [(p.location.line or 0, p.code, p.message) for p in report.problems]


@pytest.fixture(scope="module")
def shipped(matrix: Matrix) -> Any:

    return matrix


def test_a_patch_release_after_the_last_of_its_minor(shipped: Any) -> None:
    ((line, code, message),) = _problems("torch==2.5.7\n", shipped)
    assert (line, code) == (1, "EC108")
    assert message.startswith("torch==2.5.7: torch 2.5.7 does not exist")
    assert message.endswith("nearest releases: 2.5.1, 2.6.0")


def test_a_minor_that_was_skipped(shipped: Any) -> None:
    ((_, code, message),) = _problems("torch==1.14.0\n", shipped)
    assert code == "EC108"
    assert message.endswith("nearest releases: 1.13.1, 2.0.0")


def test_the_local_label_does_not_hide_it(shipped: Any) -> None:
    assert [c for _, c, _ in _problems("torch==2.5.7+cu124\n", shipped)] == ["EC108"]


@pytest.mark.parametrize(
    "pin",
    [
        "torch==2.5.1",  # a release
        "torch==2.5",  # == pads with zeros: 2.5.0
        "torch==2.5.*",  # a prefix
        "torch>=2.5.7,<2.6",  # a range: not an exact release
        "torch==0.4.1",  # older than the matrix's first torch release
        "torch==99.0.0",  # newer than the matrix: EC201, the matrix may be old
        "torch==2.6.0rc1",  # pre-releases are not listed
        "jax==0.4.15",  # a gap inside a listed minor (yanked): not proof
        "numpy==1.99.0",  # a package the matrix tracks no releases of
    ],
)
def test_what_is_not_judged(pin: str, shipped: Any) -> None:
    assert "EC108" not in [c for _, c, _ in _problems(pin + "\n", shipped)]


def test_conda_pins_are_not_judged(shipped: Any) -> None:
    from envcheck.check.model import Environment

    pin = Pin("pytorch", "==2.5.7", Location("environment.yml", 3), "pytorch=2.5.7", "conda")
    project = Project(files=("environment.yml",), environments=(Environment("e", (pin,)),))
    assert "EC108" not in [p.code for p in check_pins(project, Target(), shipped).problems]


@pytest.mark.usefixtures("check_matrix_env")
def test_through_the_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "requirements.txt").write_text("numpy\ntorch==2.5.7\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, out, _ = run_cli("check")
    assert code == 1
    assert out.splitlines()[0].startswith("requirements.txt:2: EC108 torch==2.5.7:")
    assert "EC108 no-such-release" in run_cli("check", "--explain", "EC108").stdout
    assert run_cli("check", "--ignore", "EC108").exit_code == 0
