"""``plan --format pixi`` proved by rattler, the library pixi is built on.

pixi itself is not on PyPI, so each emitted conda dependency is parsed with
``rattler.MatchSpec`` (what pixi does with a manifest) and the set is solved
offline by rattler against a tiny local channel generated from the plan's own
pins, with the virtual package ``__cuda`` set from ``[system-requirements]
cuda`` as pixi sets it. The channel's ``cuda-version`` records carry the
constraints of conda-forge's cuda-version recipe (``__cuda >={major}`` and
``cudatoolkit {v}|{v}.*``; conda-forge/cuda-version-feedstock recipe/meta.yaml),
so a plan whose CUDA pins outrun its system requirement fails to solve.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
import rattler
from rattler import exceptions

from envcheck.resolve import emit
from tests.resolve.test_emit import PLANS, make

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


NOARCH = ("cuda-version",)  # noarch: generic on conda-forge


def _conda_specs(pixi_toml: str) -> list[Any]:
    """Every ``[dependencies]`` entry as pixi reads it; a bad one raises here."""
    doc = tomllib.loads(pixi_toml)
    specs = []
    for name, value in doc.get("dependencies", {}).items():
        assert isinstance(value, str), (name, value)
        specs.append(rattler.MatchSpec(f"{name} {value}"))
        rattler.NamelessMatchSpec(value)
    return specs


def _version_for(spec: Any) -> str:
    """A concrete version the spec accepts (``3.7.*`` -> ``3.7``; any -> ``1.0``)."""
    text = spec.version or "*"
    m = re.match(r"^(?:==|>=)?\s*(\d+(?:\.\d+)*)", text)
    return m.group(1) if m else "1.0"


def _record(name: str, version: str, subdir: str) -> dict[str, Any]:
    constrains: list[str] = []
    if name == "cuda-version":
        constrains = [f"__cuda >={version.split('.')[0]}", f"cudatoolkit {version}|{version}.*"]
    return {
        "name": name,
        "version": version,
        "build": "0",
        "build_number": 0,
        "subdir": subdir,
        "depends": [],
        "constrains": constrains,
        "timestamp": 1_700_000_000_000,
    }


def _channel(specs: list[Any], platform: str, root: Path) -> list[Any]:
    """A local channel holding one record per spec, in ``platform`` and noarch."""
    packages: dict[str, dict[str, Any]] = {platform: {}, "noarch": {}}
    for spec in specs:
        name = spec.name.normalized
        subdir = "noarch" if name in NOARCH else platform
        record = _record(name, _version_for(spec), subdir)
        packages[subdir][f"{name}-{record['version']}-0.conda"] = record
    channel = rattler.Channel(root.as_uri())
    sources = []
    for subdir, records in packages.items():
        (root / subdir).mkdir(parents=True, exist_ok=True)
        repodata = {"info": {"subdir": subdir}, "packages": {}, "packages.conda": records}
        (root / subdir / "repodata.json").write_text(json.dumps(repodata), encoding="utf-8")
        sources.append(rattler.SparseRepoData(channel, subdir, root / subdir / "repodata.json"))
    return sources


def _solve(pixi_toml: str, root: Path) -> list[str]:
    doc = tomllib.loads(pixi_toml)
    specs = _conda_specs(pixi_toml)
    sources = _channel(specs, doc["workspace"]["platforms"][0], root)
    virtual = []
    cuda = doc.get("system-requirements", {}).get("cuda")
    if cuda is not None:
        build = getattr(rattler, "BuildString", str)("0")
        name, version = rattler.PackageName("__cuda"), rattler.Version(cuda)
        virtual.append(rattler.GenericVirtualPackage(name, version, build))
    records = asyncio.run(
        rattler.solve_with_sparse_repodata(specs, sources, virtual_packages=virtual)
    )
    return sorted(f"{r.name.normalized}={r.version}" for r in records)


@pytest.mark.parametrize("name", sorted(PLANS))
def test_pixi_plan_conda_dependencies_parse_and_solve(
    name: str, matrix: Any, combo_matrix: Any, tmp_path: Path
) -> None:
    text = emit.emit_pixi(make(name, matrix, combo_matrix))
    wanted = sorted(tomllib.loads(text)["dependencies"])
    assert [r.split("=")[0] for r in _solve(text, tmp_path)] == wanted


def test_pixi_plan_with_conda_cuda_solves_only_on_a_new_enough_driver(
    matrix: Any, combo_matrix: Any, tmp_path: Path
) -> None:
    text = emit.emit_pixi(make("tf114", matrix, combo_matrix))
    assert 'cuda = "10.0"' in text
    assert 'cuda-version = "10.0.*"' in text
    assert _solve(text, tmp_path / "ok") == [
        "cuda-version=10.0",
        "cudatoolkit=10.0",
        "cudnn=7",
        "python=3.7",
    ]
    # A system requirement older than the CUDA the plan pins cannot be served.
    old = text.replace('cuda = "10.0"', 'cuda = "9.2"')
    with pytest.raises(exceptions.SolverError, match=r"__cuda >=10"):
        _solve(old, tmp_path / "old")


def test_broken_spec_syntax_fails_the_proof(matrix: Any, combo_matrix: Any, tmp_path: Path) -> None:
    text = emit.emit_pixi(make("tf114", matrix, combo_matrix))
    broken = text.replace('cudatoolkit = "10.0.*"', 'cudatoolkit = "=>10.0"')
    with pytest.raises(exceptions.InvalidMatchSpecError):
        _solve(broken, tmp_path)
