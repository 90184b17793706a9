"""The CLI entry points, fed generated and mutated files through click's
CliRunner: exit 0, 1 or 2 (the documented codes), no traceback, no internal
error, within the bound."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import run_cli
from tests.fuzz.conftest import SECONDS_PER_INPUT, cli_settings
from tests.fuzz.strategies import inputs_for

DOCUMENTED = (0, 1, 2)


def run_on_file(name: str, text: str, *args: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_bytes(text.encode("utf-8", "surrogatepass"))
        argv = [a.replace("{}", str(path)) for a in args]
        start = time.monotonic()
        code, out, err = run_cli(*argv)
        elapsed = time.monotonic() - start
    assert code in DOCUMENTED, (code, out[-500:], err[-500:])
    # stdout may quote a "Traceback" from the input; a crash shows on stderr
    assert "Traceback (most recent call last)" not in err, err[-2000:]
    assert "internal error" not in err, err[-2000:]
    assert elapsed < SECONDS_PER_INPUT * 2, f"took {elapsed:.1f} s"


@cli_settings
@given(inputs_for("requirements"))
def test_check_requirements(text: str) -> None:
    run_on_file("requirements.txt", text, "check", "{}")


@cli_settings
@given(inputs_for("yaml"))
def test_check_environment(text: str) -> None:
    run_on_file("environment.yml", text, "check", "--json", "{}")


@cli_settings
@given(inputs_for("toml"))
def test_check_pyproject(text: str) -> None:
    run_on_file("pyproject.toml", text, "check", "{}")


@cli_settings
@given(inputs_for("json"))
def test_doctor_snapshot(text: str) -> None:
    run_on_file("snap.json", text, "doctor", "--json", "--redact", "--snapshot", "{}")


@cli_settings
@given(inputs_for("log"))
def test_doctor_from_collect_env(text: str) -> None:
    run_on_file("collect_env.txt", text, "doctor", "--redact", "--from-collect-env", "{}")


@cli_settings
@given(inputs_for("log"))
def test_explain_file(text: str) -> None:
    run_on_file("log.txt", text, "explain", "--no-detect", "{}")


@cli_settings
@given(st.text(min_size=1, max_size=400).filter(lambda s: s.strip() and not s.startswith("-")))
def test_explain_argument(text: str) -> None:
    start = time.monotonic()
    code, out, err = run_cli("explain", "--no-detect", "--json", text)
    assert code in DOCUMENTED, (code, err[-500:])
    assert "Traceback (most recent call last)" not in err, err[-2000:]
    assert "internal error" not in err, err[-2000:]
    assert time.monotonic() - start < SECONDS_PER_INPUT * 2
