"""Keras releases are filtered by their Requires-Python (what pip enforces).

Found by running `envcheck install keras` into a Python 3.9 venv: the plan chose
keras 3.15.1 (requires-python >=3.11, keras.toml) and pip refused it.
"""

from __future__ import annotations

from typing import Any

import pytest

from envcheck.compat.target import Target
from envcheck.resolve.plan import plan


@pytest.mark.parametrize(
    ("python", "expected"),
    [("3.9", "3.10.0"), ("3.10", "3.12.4"), ("3.11", "3.15.1"), ("3.14", "3.15.1")],
)
def test_keras_respects_requires_python(python: str, expected: str, matrix: Any) -> None:
    result = plan(["keras"], Target(os="linux", arch="x86_64", python=python), matrix)
    assert result.ok, result.unsatisfiable
    (pick,) = result.picks
    assert pick.version == expected


def test_keras_requires_python_blocks_with_a_reason(matrix: Any) -> None:
    result = plan(["keras>=3.13"], Target(os="linux", python="3.10"), matrix)
    assert result.unsatisfiable is not None
    assert "requires Python >=3.11" in result.unsatisfiable.message
