"""JSON Schemas of envcheck's JSON outputs, shipped in the package."""

from __future__ import annotations

import json
from importlib.resources import files
from typing import Any

SCHEMAS = ("snapshot-1", "doctor-1", "matrix-1")


def get_schema(name: str) -> dict[str, Any]:
    """Load a shipped schema by name (``snapshot-1``, ``doctor-1``, ``matrix-1``)."""
    if name not in SCHEMAS:
        raise ValueError(f"unknown schema {name!r}; known: {', '.join(SCHEMAS)}")
    text = (files("envcheck.schemas") / f"{name}.schema.json").read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema
