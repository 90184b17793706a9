from __future__ import annotations

from pathlib import Path

import pytest

from envcheck.matrix import Matrix, load_matrix_from

MINI = Path(__file__).parents[1] / "fixtures" / "matrix-mini"


@pytest.fixture(scope="session")
def mini_matrix() -> Matrix:
    """Real NVIDIA tables plus a few hand-written framework builds."""
    return load_matrix_from(MINI)
