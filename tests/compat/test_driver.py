"""The driver's CUDA reach is judged in compat; the matrix only stores and indexes."""

from __future__ import annotations

from typing import Any

import pytest

from envcheck.compat.driver import MINOR_COMPAT, NATIVE, NO, driver_supports
from envcheck.model.versions import parse_cuda_version, parse_driver_version


@pytest.mark.parametrize(
    ("driver", "cuda", "os_name", "expected"),
    [
        ("550.54.15", "12.4", "linux", NATIVE),
        ("550.54.15", "12.5", "linux", MINOR_COMPAT),
        ("470.256.02", "12.1", "linux", NO),
        ("418.67", "11.0", "linux", NO),
    ],
)
def test_driver_supports(matrix: Any, driver: str, cuda: str, os_name: str, expected: str) -> None:
    d = parse_driver_version(driver)
    c = parse_cuda_version(cuda)
    assert d is not None
    assert c is not None
    assert driver_supports(matrix, d, c, os_name) == expected


def test_the_matrix_does_not_judge_driver_support(matrix: Any) -> None:
    assert not hasattr(type(matrix), "driver_supports")
