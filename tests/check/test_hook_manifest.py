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


README = MANIFEST.parent / "README.md"


def _readme_snippet() -> dict[str, object]:
    """The `.pre-commit-config.yaml` block the README tells users to paste."""
    import yaml

    blocks = re.findall(r"```yaml\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
    (block,) = [b for b in blocks if "envcheck-check" in b and "repos:" in b]
    doc = yaml.safe_load(block)
    assert isinstance(doc, dict)
    return doc


def test_manifest_is_valid_for_pre_commit() -> None:
    """pre-commit's own manifest schema accepts the file (what `pre-commit try-repo`,
    and every user's `pre-commit install`, load first)."""
    clientlib = pytest.importorskip("pre_commit.clientlib", reason="pre-commit is in .[test]")
    (hook,) = clientlib.load_manifest(str(MANIFEST))
    assert (hook["id"], hook["entry"], hook["language"]) == (
        "envcheck-check",
        "envcheck check",
        "python",
    )
    re.compile(hook["files"])


def test_readme_snippet_is_a_valid_config_pinned_to_a_commit(tmp_path: Path) -> None:
    """There are no release tags: the snippet's rev is a full commit hash (issue 26:
    `rev: v0.1.0` named a tag that does not exist)."""
    clientlib = pytest.importorskip("pre_commit.clientlib", reason="pre-commit is in .[test]")
    doc = _readme_snippet()
    (repo,) = doc["repos"]  # type: ignore[index]
    assert re.fullmatch(r"[0-9a-f]{40}", repo["rev"]), repo["rev"]
    assert [h["id"] for h in repo["hooks"]] == [_hook()["id"]]
    config = tmp_path / ".pre-commit-config.yaml"
    import yaml

    config.write_text(yaml.safe_dump(doc), encoding="utf-8")
    assert clientlib.load_config(str(config))["repos"][0]["rev"] == repo["rev"]


@pytest.mark.real_machine
def test_readme_rev_is_a_commit_of_this_history_with_the_hook() -> None:
    """The pinned commit is in this repository's history and ships the hook id."""
    import shutil
    import subprocess

    import yaml

    git = shutil.which("git")
    root = MANIFEST.parent
    if git is None or not (root / ".git").exists():
        pytest.skip("not a git checkout (an sdist or a copied tree)")
    shallow = subprocess.run(
        [git, "-C", str(root), "rev-parse", "--is-shallow-repository"],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    if shallow.stdout.strip() == "true":
        pytest.skip("a shallow clone lacks older commits")
    rev = str(_readme_snippet()["repos"][0]["rev"])  # type: ignore[index]
    ancestor = subprocess.run(
        [git, "-C", str(root), "merge-base", "--is-ancestor", rev, "HEAD"],
        capture_output=True,
        timeout=30,
        check=False,
    )
    assert ancestor.returncode == 0, f"{rev} is not an ancestor of HEAD"
    shown = subprocess.run(
        [git, "-C", str(root), "show", f"{rev}:.pre-commit-hooks.yaml"],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    assert [h["id"] for h in yaml.safe_load(shown.stdout)] == [_hook()["id"]]
