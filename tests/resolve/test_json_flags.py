"""--json on plan, env and install: one JSON document on stdout, nothing else."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import run_cli

TARGET = ("--driver", "550.54.14", "--gpu", "sm_89", "--os", "linux", "--python-version", "3.11")


def test_plan_json_flag_equals_format_json() -> None:
    a = run_cli("plan", "torch", *TARGET, "--json")
    b = run_cli("plan", "torch", *TARGET, "--format", "json")
    assert a.exit_code == b.exit_code == 0
    assert json.loads(a.stdout) == json.loads(b.stdout)
    assert json.loads(a.stdout)["schema"] == "envcheck.plan/1"


def test_env_json_reports_the_file_and_plan(tmp_path: Path) -> None:
    out = tmp_path / "environment.yml"
    result = run_cli("env", "torch", *TARGET, "-o", str(out), "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["written"] == str(out)
    assert data["plan"]["ok"] is True
    assert out.read_text().startswith("#") or "dependencies:" in out.read_text()


def test_env_refuses_to_overwrite_in_json_mode_too(tmp_path: Path) -> None:
    out = tmp_path / "environment.yml"
    out.write_text("mine\n")
    result = run_cli("env", "torch", *TARGET, "-o", str(out), "--json")
    assert result.exit_code == 2
    assert out.read_text() == "mine\n"
    assert "pass --force" in result.stderr


def test_plan_json_wins_over_another_format() -> None:
    """--json is --format json: with --format yml (or any other) the output is JSON."""
    result = run_cli("plan", "torch", *TARGET, "--format", "yml", "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["schema"] == "envcheck.plan/1"


def test_env_to_stdout_with_json_prints_json_holding_the_file() -> None:
    result = run_cli("env", "torch", *TARGET, "-o", "-", "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["written"] is None
    assert "dependencies:" in data["content"] and data["content"].startswith("# envcheck plan")
    assert data["plan"]["schema"] == "envcheck.plan/1"
