"""Matrices for the resolver tests: the shipped data, and the shipped data with
fixed TensorFlow/JAX/Keras rows (tests/resolve/fixtures) for combined requests."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="session")
def combo_matrix(matrix: Any) -> Any:
    from envcheck.matrix.load import read_domain

    builds = dict(matrix.builds)
    extra: dict[str, Any] = {}
    for domain in ("tensorflow", "jax", "keras"):
        path = FIXTURES / f"{domain}.toml"
        _, rows = read_domain(domain, path.read_text(encoding="utf-8"), str(path))
        if "builds" in rows:
            builds[domain] = tuple(rows["builds"])
        else:
            extra.update({k: tuple(v) for k, v in rows.items()})
    return replace(matrix, builds=builds, **extra)
