"""The hook through the real ``pre-commit`` tool, against a temporary git repository.

``pre-commit try-repo`` installs this checkout (with its manifest,
``.pre-commit-hooks.yaml``) into a fresh virtualenv exactly as a user's
``.pre-commit-config.yaml`` entry would, so it tests the manifest, the build
(hatchling, in pip's isolated build environment), the wheel with its bundled
matrix, and the command together. Offline: pip finds the build backend and every
runtime dependency in a wheelhouse repacked from this test environment
(``tests/check/wheelhouse.py``; ``PIP_NO_INDEX``, ``PIP_FIND_LINKS``), pip's own
configuration files are ignored, and every HTTP(S) proxy and the index URL point
at a closed local port, so any attempt to reach the internet fails the test.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).parents[2]
CLOSED = "http://127.0.0.1:9/"  # the discard port: nothing listens, connections are refused


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The build backend and runtime dependencies of this checkout, as wheels."""
    # Before the wheels are built: without pre-commit (or hatchling) the tests skip.
    pytest.importorskip("pre_commit", reason="install the test extra: pip install -e .[test]")
    pytest.importorskip("hatchling", reason="install the test extra: pip install -e .[test]")
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib

    from tests.check.wheelhouse import build_wheelhouse

    doc = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    needs = [*doc["build-system"]["requires"], *doc["project"]["dependencies"]]
    directory = tmp_path_factory.mktemp("wheelhouse")
    build_wheelhouse(needs, directory)
    return directory


def _offline_env(tmp_path: Path, wheelhouse: Path) -> dict[str, str]:
    """pre-commit's environment: its own home, pip and virtualenv with no index and
    no configuration of this machine, every proxy a closed port."""
    proxies = ("http_proxy", "https_proxy", "all_proxy", "no_proxy")
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.upper().startswith(("PIP_", "VIRTUALENV_", "PRE_COMMIT"))
        and k.lower() not in proxies
    }
    env.update(
        PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"),
        PRE_COMMIT_COLOR="never",
        ENVCHECK_MATRIX="bundled",
        PIP_CONFIG_FILE=os.devnull,
        PIP_NO_INDEX="1",
        PIP_FIND_LINKS=str(wheelhouse),
        PIP_INDEX_URL=CLOSED,
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        VIRTUALENV_NO_PERIODIC_UPDATE="1",
    )
    for name in proxies[:3]:
        env[name] = env[name.upper()] = CLOSED
    return env


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False
    )


@pytest.mark.e2e
@pytest.mark.slow
@pytest.mark.real_machine
def test_hook_through_pre_commit(tmp_path: Path, wheelhouse: Path) -> None:
    pytest.importorskip("pre_commit", reason="install the test extra: pip install -e .[test]")
    project = tmp_path / "project"
    project.mkdir()
    (project / "requirements.txt").write_text(
        "--index-url https://download.pytorch.org/whl/cu118\ntorch==2.8.0\n", encoding="utf-8"
    )
    (project / "README.md").write_text("demo\n", encoding="utf-8")
    _git(project, "init", "-q")
    _git(project, "add", ".")
    _git(project, "commit", "-q", "-m", "init")
    env = _offline_env(tmp_path, wheelhouse)
    argv = [sys.executable, "-m", "pre_commit", "try-repo", str(REPO), "envcheck-check"]

    failed = _run([*argv, "--all-files"], project, env)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "envcheck check (GPU dependency pins)" in failed.stdout
    assert "- exit code: 1" in failed.stdout
    assert (
        "requirements.txt:2: EC103 torch==2.8.0: https://download.pytorch.org/whl/cu118"
        in failed.stdout
    )

    # Fixed pins pass; the hook's environment is reused, so this run is quick.
    (project / "requirements.txt").write_text(
        "--index-url https://download.pytorch.org/whl/cu126\ntorch==2.8.0\n", encoding="utf-8"
    )
    _git(project, "add", "requirements.txt")
    passed = _run(argv, project, env)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout

    # A commit touching no dependency file does not run the hook at all.
    _git(project, "commit", "-q", "-m", "fix pins")
    (project / "README.md").write_text("demo 2\n", encoding="utf-8")
    _git(project, "add", "README.md")
    skipped = _run(argv, project, env)
    assert skipped.returncode == 0, skipped.stdout + skipped.stderr
    assert "(no files to check)Skipped" in skipped.stdout


POETRY_ML = """\
[tool.poetry]
name = "ml"
version = "0.1.0"

[tool.poetry.dependencies]
python = "^3.11"
torch = { version = "2.8.0", source = "pytorch" }

[[tool.poetry.source]]
name = "pytorch"
url = "https://download.pytorch.org/whl/cu128"
priority = "explicit"
"""

PIXI_SIM = """\
[workspace]
name = "sim"
channels = ["conda-forge"]
platforms = ["linux-64"]

[system-requirements]
cuda = "12.0"

[dependencies]
python = "3.11.*"
cuda-version = "12.6.*"
pytorch = "2.5.*"
"""


@pytest.mark.e2e
@pytest.mark.slow
@pytest.mark.real_machine
def test_monorepo_hook_through_pre_commit(tmp_path: Path, wheelhouse: Path) -> None:
    """Three projects (requirements, poetry, pixi), one broken: the hook names its line."""
    pytest.importorskip("pre_commit", reason="install the test extra: pip install -e .[test]")
    repo = tmp_path / "monorepo"
    files = {
        "README.md": "demo\n",
        "services/api/requirements.txt": (
            "--index-url https://download.pytorch.org/whl/cu118\ntorch==2.8.0\n"
        ),
        "services/ml/pyproject.toml": POETRY_ML,
        "services/sim/pixi.toml": PIXI_SIM,
    }
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text, encoding="utf-8")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    env = _offline_env(tmp_path, wheelhouse)
    argv = [sys.executable, "-m", "pre_commit", "try-repo", str(REPO), "envcheck-check"]

    # The staged files are passed to the hook; it checks the projects they belong to.
    failed = _run(argv, repo, env)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert (
        "services/api/requirements.txt:2: EC103 torch==2.8.0: https://download.pytorch.org/whl/cu118"
        in failed.stdout
    )
    assert "envcheck check: 3 files checked, 1 problem" in failed.stdout

    (repo / "services/api/requirements.txt").write_text(
        "--index-url https://download.pytorch.org/whl/cu128\ntorch==2.8.0\n", encoding="utf-8"
    )
    _git(repo, "add", ".")
    passed = _run(argv, repo, env)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout
    _git(repo, "commit", "-q", "-m", "three projects")

    # A commit touching only the poetry project checks only that project.
    (repo / "services/ml/pyproject.toml").write_text(
        POETRY_ML.replace("/cu128", "/cu118"), encoding="utf-8"
    )
    _git(repo, "add", ".")
    broken = _run(argv, repo, env)
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "services/ml/pyproject.toml:7: EC103 torch==2.8.0" in broken.stdout
    assert "envcheck check: 1 file checked, 1 problem" in broken.stdout
