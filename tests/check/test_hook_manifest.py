"""The pre-commit manifest: the hook runs for dependency files and nothing else."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

MANIFEST = Path(__file__).parents[2] / ".pre-commit-hooks.yaml"


def _hook() -> dict[str, object]:
    import yaml

    (hook,) = yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))
    assert isinstance(hook, dict)
    return hook


def test_manifest_fields() -> None:
    hook = _hook()
    assert hook["id"] == "envcheck-check"
    assert hook["entry"] == "envcheck check"
    assert hook["language"] == "python"
    assert hook["pass_filenames"] is False


@pytest.mark.parametrize(
    ("path", "runs"),
    [
        ("requirements.txt", True),
        ("requirements-dev.txt", True),
        ("services/api/requirements_gpu.txt", True),
        ("requirements/base.txt", True),
        ("environment.yml", True),
        ("conda/environment.yaml", True),
        ("pyproject.toml", True),
        ("pixi.toml", True),
        ("README.md", False),
        ("src/requirements.py", False),
        ("my-environment.yml", False),
        ("pyproject.toml.bak", False),
        ("docs/requirements/nested/x.txt", False),
    ],
)
def test_files_regex(path: str, runs: bool) -> None:
    pattern = re.compile(str(_hook()["files"]))
    assert bool(pattern.search(path)) is runs
