"""The matrix as plain JSON data (``envcheck matrix export``/``show --json``).

The document is described by ``envcheck/schemas/matrix-1.schema.json``; field
names are the TOML field names of ``matrices/README.md``, versions are strings
exactly as written in the data (driver versions raw: ``"535.104.05"``), and
every row carries ``source``, ``verified`` and ``note``. Pure: no I/O.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from envcheck.matrix.load import DOMAINS
from envcheck.model.versions import ComputeCapability, CudaVersion, DriverVersion

if TYPE_CHECKING:
    from envcheck.matrix import Matrix

SCHEMA = "envcheck.matrix/1"

# domain -> ((table name in the export, Matrix attribute or builds key), ...)
TABLES: Mapping[str, tuple[tuple[str, str], ...]] = {
    "cuda_driver": (
        ("release", "cuda_releases"),
        ("minor_compat", "minor_compat"),
        ("forward_compat", "forward_compat"),
    ),
    "cuda_arch": (("toolkit", "toolkit_archs"),),
    "gpus": (
        ("architecture", "architectures"),
        ("gpu", "gpus"),
        ("shared_name", "shared_gpu_names"),
    ),
    "cudnn": (("release", "cudnn_releases"),),
    "driver_branches": (("branch", "driver_branches"), ("retired", "retired_archs")),
    "torch": (("build", "builds:torch"), ("companion", "companions")),
    "tensorflow": (("build", "builds:tensorflow"),),
    "jax": (("build", "builds:jax"),),
    "cupy": (("build", "builds:cupy"),),
    "onnxruntime": (("build", "builds:onnxruntime"),),
    "paddle": (("build", "builds:paddle"),),
    "keras": (("release", "keras_releases"), ("tensorflow_pin", "keras_pins")),
    "conda": (
        ("package", "conda_packages"),
        ("absent", "conda_absent"),
        ("cuda_package", "conda_cuda_packages"),
    ),
}
assert tuple(TABLES) == DOMAINS

# Row fields that are derived or implied, not written in the TOML.
_DROP = {"cuda_releases": ("cuda",), "builds": ("framework",)}


def value_json(value: Any) -> Any:
    """One field value as JSON: versions as their strings, tuples as lists."""
    if isinstance(value, DriverVersion):
        return value.raw
    if isinstance(value, (CudaVersion, ComputeCapability)):
        return str(value)
    if isinstance(value, tuple):
        return [value_json(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def row_json(row: Any, drop: tuple[str, ...] = ()) -> dict[str, Any]:
    """A frozen row as a dict in field order, provenance flattened at the end."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(row):
        if f.name == "origin" or f.name in drop:
            continue
        out[f.name] = value_json(getattr(row, f.name))
    origin = row.origin
    out["source"] = origin.source
    out["verified"] = origin.verified
    out["note"] = origin.note
    return out


def table_rows(matrix: Matrix, attribute: str) -> tuple[Any, ...]:
    if attribute.startswith("builds:"):
        return tuple(matrix.framework_builds(attribute.split(":", 1)[1]))
    rows: tuple[Any, ...] = getattr(matrix, attribute)
    return rows


def domain_json(matrix: Matrix, domain: str) -> dict[str, list[dict[str, Any]]]:
    """Every table of one domain: ``{"release": [...], "minor_compat": [...]}``."""
    out: dict[str, list[dict[str, Any]]] = {}
    for table, attribute in TABLES[domain]:
        drop = _DROP.get(attribute.split(":", 1)[0], ())
        out[table] = [row_json(r, drop) for r in table_rows(matrix, attribute)]
    return out


def matrix_json(matrix: Matrix) -> dict[str, Any]:
    """The whole matrix as one JSON document (schema ``envcheck.matrix/1``)."""
    return {
        "schema": SCHEMA,
        "schema_version": 1,
        "data_version": matrix.data_version,
        "file_versions": dict(sorted(matrix.file_versions.items())),
        "domains": {d: domain_json(matrix, d) for d in DOMAINS},
    }
