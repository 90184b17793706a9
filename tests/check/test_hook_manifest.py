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
    assert hook["pass_filenames"] is True


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
        ("environment-gpu.yml", True),
        ("services/api/uv.lock", True),
        ("poetry.lock", True),
        ("pixi.lock", True),
        ("conda-lock.yml", True),
        ("linux.conda-lock.yml", True),
        ("my-environment.yml", False),
        ("uv.lock.bak", False),
        ("pyproject.toml.bak", False),
        ("docs/requirements/nested/x.txt", False),
        ("dev-requirements.txt", True),
        ("Requirements.txt", True),
        ("requirements.in", True),
        ("requirements/dev.in", True),
        ("conda.yml", True),
        ("services/ml/conda.yaml", True),
        ("MANIFEST.in", False),
        ("conda_build_config.yaml", False),
    ],
)
def test_files_regex(path: str, runs: bool) -> None:
    pattern = re.compile(str(_hook()["files"]))
    assert bool(pattern.search(path)) is runs


@pytest.mark.parametrize(
    "path",
    [
        "requirements.txt",
        "requirements/base.txt",
        "environment-gpu.yml",
        "pyproject.toml",
        "pixi.toml",
        "uv.lock",
        "poetry.lock",
        "pixi.lock",
        "conda-lock.yml",
        "linux-64.conda-lock.yml",
        "dev-requirements.txt",
        "Requirements.txt",
        "requirements-gpu.in",
        "requirements/dev.in",
        "conda.yml",
        "conda.yaml",
    ],
)
def test_the_hook_runs_for_every_file_check_discovers(path: str, tmp_path: Path) -> None:
    from envcheck.check.discover import discover

    target = tmp_path / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("", encoding="utf-8")
    assert [p.relative_to(tmp_path).as_posix() for p in discover(tmp_path)] == [path]
    assert re.search(str(_hook()["files"]), path)
