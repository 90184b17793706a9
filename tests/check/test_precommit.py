"""The hook through the real ``pre-commit`` tool, against a temporary git repository.

``pre-commit try-repo`` installs this checkout (with its manifest,
``.pre-commit-hooks.yaml``) into a fresh virtualenv exactly as a user's
``.pre-commit-config.yaml`` entry would, so it tests the manifest, the wheel
(including the bundled matrix) and the command together. It needs PyPI (or the
configured pip index) for envcheck's dependencies, and nothing else.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).parents[2]


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


@pytest.mark.slow
@pytest.mark.real_machine
@pytest.mark.network
def test_hook_through_pre_commit(tmp_path: Path) -> None:
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
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "PRE_COMMIT_COLOR": "never",
        "ENVCHECK_MATRIX": "bundled",
    }
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
