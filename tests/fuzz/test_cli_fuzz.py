"""The CLI entry points, fed generated and mutated files through click's
CliRunner: exit 0, 1 or 2 (the documented codes), no traceback, no internal
error, within the bound."""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import run_cli
from tests.fuzz.conftest import CLI_MEMORY_BOUND, SECONDS_PER_INPUT, bounded, cli_settings
from tests.fuzz.strategies import inputs_for

DOCUMENTED = (0, 1, 2)


def run_on_file(name: str, text: str, *args: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_bytes(text.encode("utf-8", "surrogatepass"))
        argv = [a.replace("{}", str(path)) for a in args]
        with bounded(len(text), SECONDS_PER_INPUT * 2, CLI_MEMORY_BOUND):
            code, out, err = run_cli(*argv)
    assert code in DOCUMENTED, (code, out[-500:], err[-500:])
    # stdout may quote a "Traceback" from the input; a crash shows on stderr
    assert "Traceback (most recent call last)" not in err, err[-2000:]
    assert "internal error" not in err, err[-2000:]


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
    with bounded(len(text), SECONDS_PER_INPUT * 2, CLI_MEMORY_BOUND):
        code, out, err = run_cli("explain", "--no-detect", "--json", text)
    assert code in DOCUMENTED, (code, err[-500:])
    assert "Traceback (most recent call last)" not in err, err[-2000:]
    assert "internal error" not in err, err[-2000:]


# --------------------------------------------------------------------------- real processes

SMOKE = [
    ("requirements.txt", "torch==2.1.0" + " " * 20_000 + "x\n", ("check", "{}")),
    ("environment.yml", "dependencies:\n" + "- " * 25_000 + "x\n", ("check", "{}")),
    (
        "environment.yml",
        "a: &a [x, x, x, x, x, x, x, x, x]\n"
        + "".join(
            f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
            for p, c in zip("abcdefgh", "bcdefghi")
        ),
        ("check", "{}"),
    ),
    ("pyproject.toml", "[project]\nversion = " + "9" * 5000 + "\n", ("check", "{}")),
    (
        "snap.json",
        '{"gpus": [' + ",".join(['{"name": "A100"}'] * 100_000) + "]}",
        ("doctor", "--snapshot", "{}"),
    ),
    (
        "log.txt",
        "RuntimeError: CUDA error: " + "a" * 300_000 + "\n",
        ("explain", "--no-detect", "{}"),
    ),
    (
        "collect_env.txt",
        "PyTorch version: 2.1.0\n" + "b" * 200_000 + "\n",
        ("doctor", "--redact", "--from-collect-env", "{}"),
    ),
]


@pytest.mark.real_machine
@pytest.mark.skipif(os.name != "posix", reason="RLIMIT_AS is POSIX")
@pytest.mark.parametrize(
    ("name", "text", "args"), SMOKE, ids=[f"{s[0]}-{i}" for i, s in enumerate(SMOKE)]
)
def test_real_process_smoke(tmp_path: Path, name: str, text: str, args: tuple[str, ...]) -> None:
    """A few of the issue's hostile inputs through a real ``python -m envcheck``:
    the exit status a shell sees (a C-level crash is a signal, not 2), stderr as
    printed, and memory bounded by the kernel (RLIMIT_AS), not only traced."""
    import resource
    import subprocess

    path = tmp_path / name
    path.write_text(text, encoding="utf-8")

    def limit() -> None:
        cap = 1024 * 1024 * 1024  # 1 GiB of address space
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    argv = [sys.executable, "-m", "envcheck", *(a.replace("{}", str(path)) for a in args)]
    env = {**os.environ, "ENVCHECK_NO_CACHE": "1"}
    start = time.monotonic()
    done = subprocess.run(
        argv, capture_output=True, text=True, timeout=60, preexec_fn=limit, env=env, check=False
    )
    elapsed = time.monotonic() - start
    assert done.returncode in DOCUMENTED, (done.returncode, done.stderr[-2000:])
    assert "Traceback (most recent call last)" not in done.stderr, done.stderr[-2000:]
    assert "internal error" not in done.stderr, done.stderr[-2000:]
    assert done.stderr.count("\n") <= 3, done.stderr[-2000:]
    assert elapsed < 30, f"took {elapsed:.1f} s"
