"""Fixtures for ``envcheck check`` tests: a fixed matrix so expectations stay put."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

PROJECTS = Path(__file__).parents[1] / "fixtures" / "projects"
CHECK_MATRIX = PROJECTS / "_matrix"


@pytest.fixture
def check_matrix_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Point the CLI at the abridged fixture matrix (not the growing shipped one)."""
    from envcheck.matrix import clear_cache

    monkeypatch.setenv("ENVCHECK_MATRIX", str(CHECK_MATRIX))
    clear_cache()
    yield
    clear_cache()


@pytest.fixture(scope="session")
def check_matrix() -> Any:
    from envcheck.matrix import load_matrix_from

    return load_matrix_from(CHECK_MATRIX)
