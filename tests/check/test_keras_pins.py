"""EC107: keras and tensorflow pins pip cannot install together (keras.toml's
[[release]] TensorFlow ranges and [[tensorflow_pin]] Requires-Dist), judged by
compat.keras exactly as the planner judges them."""

from __future__ import annotations

import pytest

from envcheck.check.check import check_pins
from envcheck.check.model import Environment, Project
from envcheck.check.parse_requirements import parse_requirements
from envcheck.compat.keras import keras_tensorflow_reason
from envcheck.compat.target import Target
from envcheck.matrix import Matrix, bundled_dir, load_matrix_from
from envcheck.resolve.plan import plan


@pytest.fixture(scope="module")
def shipped() -> Matrix:
    return load_matrix_from(bundled_dir())


def _lines(matrix: Matrix, text: str) -> list[str]:
    parsed = parse_requirements(text, "r.txt")
    env = Environment("r.txt", parsed.pins, parsed.indexes)
    report = check_pins(Project(("r.txt",), (env,)), Target(), matrix)
    return [p.render() for p in report.problems if p.code == "EC107"]


def test_keras_3_beside_tensorflow_2_15(shipped: Matrix) -> None:
    assert _lines(shipped, "tensorflow==2.15.0\nkeras==3.3.3\n") == [
        (
            "r.txt:2: EC107 keras==3.3.3 cannot be installed with tensorflow==2.15.0 (r.txt:1):"
            " tensorflow 2.15.0 requires keras<2.16,>=2.15.0"
        )
    ]


def test_ranges_conflict_only_when_no_pair_can_go_together(shipped: Matrix) -> None:
    (line,) = _lines(shipped, "tensorflow>=2.16\nkeras<3\n")
    assert line.startswith("r.txt:2: EC107 keras<3 cannot be installed with tensorflow>=2.16")
    assert _lines(shipped, "tensorflow>=2.15\nkeras<3\n") == []  # 2.15 with keras 2.15
    assert _lines(shipped, "tensorflow\nkeras\n") == []


@pytest.mark.parametrize(
    "text",
    [
        "tensorflow-gpu==1.14.0\nkeras==2.2.5\n",  # the seed's stack
        "tensorflow==2.16.1\nkeras==3.3.3\n",
        "tensorflow==2.15.0\nkeras==99.0\n",  # a keras the matrix lacks: not judged
        "keras==3.3.3\n",
    ],
)
def test_pairs_pip_installs_pass(shipped: Matrix, text: str) -> None:
    assert _lines(shipped, text) == []


def test_plan_refuses_the_same_pair_for_the_same_reason(shipped: Matrix) -> None:
    why = keras_tensorflow_reason("3.0.0", "2.15.0", shipped)
    assert why is not None and why.message == "tensorflow 2.15.0 requires keras<2.16,>=2.15.0"
    result = plan(("keras==3.0.0", "tensorflow==2.15.0"), Target(os="linux"), shipped)
    assert result.unsatisfiable is not None
    assert why.message in result.unsatisfiable.message
    assert (
        "tensorflow 2.15.0 requires keras"
        in _lines(shipped, "tensorflow==2.15.0\nkeras==3.0.0\n")[0]
    )
