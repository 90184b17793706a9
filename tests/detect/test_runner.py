"""The subprocess runner: bounded output, bounded time, whole process groups."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from envcheck.detect import driver
from envcheck.detect.context import Context
from envcheck.detect.system import BudgetedRunner, System, run_command

pytestmark = [
    pytest.mark.skipif(os.name != "posix", reason="process groups are POSIX"),
    pytest.mark.real_machine,
]


def _no_nvml() -> object:
    raise ImportError("no NVML in this test")


def _tool(tmp_path: Path, name: str, body: str) -> str:
    script = tmp_path / name
    script.write_text(f"#!{sys.executable}\nimport os, sys, time, subprocess\n{body}\n")
    script.chmod(0o755)
    return str(script)


def test_plain_command_output_and_status(tmp_path: Path) -> None:
    exe = _tool(tmp_path, "t", "print('hello'); sys.stderr.write('warn\\n'); sys.exit(3)")
    result = run_command((exe,), 10)
    assert (result.returncode, result.stdout, result.stderr) == (3, "hello\n", "warn\n")
    assert not result.timed_out and result.error is None


def test_streaming_forever_is_capped_and_killed(tmp_path: Path) -> None:
    exe = _tool(
        tmp_path, "spew", "line = b'x' * 65535 + b'\\n'\nwhile True: sys.stdout.buffer.write(line)"
    )
    start = time.monotonic()
    result = run_command((exe,), 30, max_output=1_000_000)
    assert time.monotonic() - start < 10
    assert result.returncode is None and not result.ok
    assert result.error == "output exceeded 1000000 bytes"
    assert len(result.stdout) == 1_000_000


def test_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    exe = _tool(
        tmp_path,
        "hang",
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        f"open({str(pidfile)!r}, 'w').write(str(child.pid))\n"
        "time.sleep(60)",
    )
    start = time.monotonic()
    result = run_command((exe,), 1.5)
    assert time.monotonic() - start < 6
    assert result.timed_out and result.error == "timed out after 1.5s"
    child = int(pidfile.read_text())
    for _ in range(50):
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        pytest.fail("the hung tool's child survived")


def test_children_holding_the_pipes_do_not_keep_us_waiting(tmp_path: Path) -> None:
    exe = _tool(
        tmp_path,
        "fork",
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\nprint('done')",
    )
    start = time.monotonic()
    result = run_command((exe,), 20)
    assert time.monotonic() - start < 5
    assert result.returncode == 0 and result.stdout == "done\n"


def test_budget_is_shared_across_commands(tmp_path: Path) -> None:
    exe = _tool(tmp_path, "slow", "time.sleep(0.6)")
    runner = BudgetedRunner(run_command, budget=1.0)
    start = time.monotonic()
    results = [runner((exe,), 5) for _ in range(4)]
    assert time.monotonic() - start < 2.5
    assert results[0].ok
    assert results[-1].timed_out and "budget" in (results[-1].error or "")


def test_slow_failing_nvidia_smi_retries_stay_within_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A query that takes 1 s and says the field is invalid, then a retry and
    # the plain call: three slow calls must not add up past the smi budget.
    exe = _tool(
        tmp_path,
        "nvidia-smi",
        "time.sleep(1.0)\nprint('Field \"compute_cap\" is not a valid field to query.')\nsys.exit(2)",
    )
    monkeypatch.setattr(driver, "SMI_BUDGET", 1.5)
    system = System(
        root=Path("/"),
        env={},
        platform="linux",
        which=lambda n: exe,
        nvml=_no_nvml,
    )
    ctx = Context()
    start = time.monotonic()
    driver.probe_driver(system, ctx)
    assert time.monotonic() - start < 2.4
    assert any("nvidia-smi" in e.message for e in ctx.errors)


def test_a_tool_that_closes_its_pipes_is_waited_for(tmp_path: Path) -> None:
    exe = _tool(
        tmp_path,
        "quiet",
        "print('out'); sys.stdout.flush(); os.close(1); os.close(2); time.sleep(0.5); sys.exit(4)",
    )
    result = run_command((exe,), 10)
    assert (result.returncode, result.stdout, result.timed_out) == (4, "out\n", False)


def test_a_tool_that_closes_its_pipes_and_hangs_times_out(tmp_path: Path) -> None:
    exe = _tool(tmp_path, "mute", "os.close(1); os.close(2); time.sleep(60)")
    start = time.monotonic()
    result = run_command((exe,), 1.0)
    assert time.monotonic() - start < 5
    assert result.timed_out and result.returncode is None
