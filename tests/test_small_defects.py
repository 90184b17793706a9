"""Issue 14's smaller defects, each reproduced (they failed before the fix)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from envcheck.detect.context import Context
from envcheck.detect.python_env import PYINFO_SCRIPT, probe_python
from envcheck.detect.system import CommandResult
from tests.conftest import make_system, run_cli

ROOT = Path(__file__).parents[1]
RTX5090 = ROOT / "tests" / "fixtures" / "snapshots" / "what-if-rtx5090-torch-cu126.json"


def test_doctor_with_a_missing_interpreter_is_an_error() -> None:
    code, out, err = run_cli("doctor", "--python", "/nonexistent/python")
    assert code == 2
    assert out == ""
    assert err == "envcheck: error: --python /nonexistent/python: no such interpreter\n"


def test_python2_interpreter_is_named_and_said_unsupported(tmp_path: Path) -> None:
    from envcheck.detect import python_env

    exe = "/usr/bin/python2.7"
    usage = "Unknown option: -I\nusage: /usr/bin/python2.7 [option] ... [-c cmd | -m mod]\n"
    system = make_system(
        tmp_path,
        outputs={
            f"{exe} -I {PYINFO_SCRIPT}": CommandResult(2, "", usage),
            f"{exe} -E -s -c {python_env._OLD_PYTHON_PROBE}": "2.7.18 CPython",
        },
    )
    system = type(system)(**{**system.__dict__, "python_executable": exe})
    ctx = Context()
    probe_python(system, ctx)
    assert (ctx.python.version, ctx.python.implementation) == ("2.7.18", "CPython")
    assert [e.message for e in ctx.errors] == [
        f"envcheck needs the target Python to be 3.6 or newer; {exe} is 2.7.18"
    ]


def _popen(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "envcheck", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, **(env or {})},
        cwd=ROOT,
    )


@pytest.mark.real_machine
@pytest.mark.parametrize(
    "args",
    [
        ("doctor", "--snapshot", str(RTX5090)),
        ("doctor", "--json", "--snapshot", str(RTX5090)),
        ("--color", "matrix", "show", "torch"),
    ],
)
def test_a_closed_pipe_is_not_an_error(args: tuple[str, ...]) -> None:
    # `envcheck doctor | head -1`: read one line, close the pipe, expect exit 0
    # (the doctor's own status: 0 or 1) and nothing on stderr.
    proc = _popen(*args)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.stderr.close()
    code = proc.wait(timeout=60)
    expected = {0, 1} if args[0] == "doctor" else {0}
    assert code in expected, err
    assert err == ""


@pytest.mark.real_machine
def test_ascii_output_encoding_does_not_crash_on_the_bullet() -> None:
    proc = _popen("doctor", "--snapshot", str(RTX5090), env={"PYTHONIOENCODING": "ascii"})
    out, err = proc.communicate(timeout=60)
    assert proc.returncode in (0, 1), err
    assert b"internal error" not in err
    assert b"        ? " in out  # the middle-dot bullet, replaced


def test_narrow_terminal_shows_records_not_fragments() -> None:
    from rich.console import Console

    from envcheck.render.blocks import Table, emit

    console = Console(file=io.StringIO(), width=40, force_terminal=False, color_system=None)
    path = "/usr/local/cuda-12.4/targets/x86_64-linux/lib/libcudart.so.12"
    emit(
        console,
        Table(
            "CUDA libraries",
            ["Library", "Version", "Source", "Path"],
            [
                ["cudart", "12.4.127", "toolkit", path],
            ],
        ),
    )
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert "- Library  cudart" in text
    assert "  Version  12.4.127" in text
    assert "  Source   toolkit" in text
    # Nothing chopped into a column a few characters wide.
    assert "12.4.127" in text and "toolkit" in text and "cudart" in text


def test_wide_terminal_keeps_the_table() -> None:
    from rich.console import Console

    from envcheck.render.blocks import Table, emit

    console = Console(file=io.StringIO(), width=120, force_terminal=False, color_system=None)
    emit(console, Table("CUDA toolkits", ["Version", "Path"], [["12.4.1", "/usr/local/cuda"]]))
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert "┃ Version" in text or "│ Version" in text


def test_compiled_cache_keeps_only_the_newest(tmp_path: Path) -> None:
    from envcheck.matrix import cache

    matrix = object()  # never read back: only the files matter here
    for i in range(cache.KEEP_FILES + 5):
        path = tmp_path / f"matrix-{i:08x}.pickle"
        assert cache.write_cache(path, f"key {i}", matrix)  # type: ignore[arg-type]
        os.utime(path, (time.time() - 1000 + i, time.time() - 1000 + i))
    stale = tmp_path / ".matrix-00000000.pickle.999.tmp"
    stale.write_bytes(b"x")
    os.utime(stale, (0, 0))
    last = tmp_path / "matrix-ffffffff.pickle"
    assert cache.write_cache(last, "key last", matrix)  # type: ignore[arg-type]
    names = sorted(p.name for p in tmp_path.iterdir())
    assert len(names) == cache.KEEP_FILES
    assert last.name in names
    assert f"matrix-{cache.KEEP_FILES + 4:08x}.pickle" in names  # newest kept
    assert "matrix-00000000.pickle" not in names  # oldest gone
    assert stale.name not in names


def _report_text(snapshot_json: dict[str, object]) -> str:
    from envcheck.doctor import diagnose
    from envcheck.matrix import load_matrix
    from envcheck.model.snapshot import Snapshot
    from envcheck.render.blocks import PlainConsole
    from envcheck.render.report import render_report_text

    snapshot = Snapshot.from_json(snapshot_json)
    matrix = load_matrix(bundled=True)
    out = io.StringIO()
    render_report_text(diagnose(snapshot, matrix), PlainConsole(out), matrix)
    return out.getvalue()


def test_unknown_container_is_unknown_not_no() -> None:
    pasted = {"schema": "envcheck.snapshot/1", "platform": {"os": "linux"}, "source": "collect_env"}
    assert "  Container     unknown\n" in _report_text(pasted)
    detected = {**pasted, "source": "detect"}
    assert "  Container     none detected\n" in _report_text(detected)
    docker = {**detected, "platform": {"os": "linux", "container": "docker"}}
    assert "  Container     docker\n" in _report_text(docker)


def test_gpu_identified_by_name_gets_cc_and_architecture() -> None:
    snap = {
        "schema": "envcheck.snapshot/1",
        "platform": {"os": "linux"},
        "gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 4090"}],
    }
    text = _report_text(snap)
    row = next(line for line in text.splitlines() if "RTX 4090" in line)
    assert "8.9 (by name)" in row
    assert "Ada Lovelace (by name)" in row or "Ada (by name)" in row


@pytest.mark.real_machine
def test_plain_text_output_never_imports_rich() -> None:
    probe = (
        "import sys; from envcheck._entry import main; "
        f"main(['doctor', '--snapshot', {str(RTX5090)!r}]); "
        "sys.stderr.write('@@rich=%s' % ('rich' in sys.modules))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=False
    )
    assert "@@rich=False" in proc.stderr
    assert "Findings" in proc.stdout
