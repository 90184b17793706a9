"""Start-up stays light: no framework (or other heavy) module is ever imported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import entry_in_fresh_process

FRAMEWORKS = {"torch", "tensorflow", "jax", "jaxlib", "cupy", "paddle", "onnxruntime", "numpy"}

PROBE = """
import json, sys
from envcheck.cli import main
code = main(sys.argv[1:])
sys.stdout.flush()
print("\\n@@" + json.dumps(sorted({m.split('.')[0] for m in sys.modules})))
"""


def loaded_modules(*args: str) -> tuple[int, set[str]]:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    marker = proc.stdout.rsplit("\n@@", 1)
    assert len(marker) == 2, proc.stderr
    return proc.returncode, set(json.loads(marker[1]))


@pytest.mark.real_machine
def test_version_imports_nothing_heavy() -> None:
    _, modules = loaded_modules("--version")
    assert not modules & (
        FRAMEWORKS | {"rich", "requests", "pynvml", "yaml", "packaging", "rattler"}
    )


@pytest.mark.real_machine
@pytest.mark.parametrize("command", [["detect", "--json"], ["doctor", "--json"]])
def test_detect_and_doctor_never_import_frameworks(command: list[str]) -> None:
    _, modules = loaded_modules(*command)
    assert not modules & FRAMEWORKS
    assert "requests" not in modules


@pytest.mark.real_machine
def test_version_is_answered_before_click_is_imported() -> None:
    probe = (
        "import sys; from envcheck._entry import main; code = main(['--version']); "
        "print('@@', code, 'click' in sys.modules)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.stdout.splitlines() == ["envcheck, version " + _version(), "@@ 0 False"]


def _version() -> str:
    from envcheck import __version__

    return __version__


def test_ctrl_c_while_the_cli_is_imported_exits_130_without_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import types

    from envcheck import _entry

    class Interrupting(types.ModuleType):
        def __getattr__(self, name: str) -> object:
            raise KeyboardInterrupt

    monkeypatch.setitem(sys.modules, "envcheck.cli", Interrupting("envcheck.cli"))
    assert _entry.main(["detect"]) == 130
    assert capsys.readouterr().err == "envcheck: interrupted\n"


def test_detect_json_fast_path_prints_what_the_cli_prints(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from pathlib import Path

    import envcheck.detect
    from envcheck import _entry
    from envcheck.snapshot_io import read_snapshot
    from tests.conftest import run_cli

    snap = read_snapshot(
        str(Path(__file__).parent / "fixtures/snapshots/what-if-rtx5090-torch-cu126.json")
    )
    monkeypatch.setattr(envcheck.detect, "detect", lambda *a, **k: snap)
    assert _entry.main(["detect", "--json"]) == 0
    fast = capsys.readouterr().out
    code, slow, _ = run_cli("detect", "--json")
    assert code == 0
    assert fast == slow


@pytest.mark.real_machine
def test_detect_json_without_a_terminal_does_not_import_click() -> None:
    code, clicked, out = entry_in_fresh_process("detect", "--json")
    assert (code, clicked) == (0, False)
    assert json.loads(out)["schema"] == "envcheck.snapshot/1"


def test_detect_json_fast_path_reports_internal_errors_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import envcheck.detect
    from envcheck import _entry

    def broken(*args: object, **kwargs: object) -> object:
        raise RuntimeError("boom")

    monkeypatch.setattr(envcheck.detect, "detect", broken)
    monkeypatch.delenv("ENVCHECK_DEBUG", raising=False)
    assert _entry.main(["detect", "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "envcheck: internal error: RuntimeError: boom (run with --debug for the traceback)\n"
    )


@pytest.mark.parametrize(
    "fixture", ["what-if-rtx5090-torch-cu126.json", "minimal-driver-only.json", "empty.json"]
)
def test_doctor_json_fast_path_prints_what_the_cli_prints(
    fixture: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from pathlib import Path

    import envcheck.detect
    from envcheck import _entry
    from envcheck.snapshot_io import read_snapshot
    from tests.conftest import run_cli

    snap = read_snapshot(str(Path(__file__).parent / "fixtures/snapshots" / fixture))
    monkeypatch.setattr(envcheck.detect, "detect", lambda *a, **k: snap)
    fast_code = _entry.main(["doctor", "--json"])
    fast = capsys.readouterr()
    slow_code, slow, slow_err = run_cli("doctor", "--json")
    assert (fast_code, fast.out, fast.err) == (slow_code, slow, slow_err)
    assert json.loads(fast.out)["schema"] == "envcheck.doctor/1"


@pytest.mark.real_machine
def test_doctor_json_without_a_terminal_does_not_import_click() -> None:
    _code, clicked, out = entry_in_fresh_process("doctor", "--json")
    assert not clicked
    assert json.loads(out)["schema"] == "envcheck.doctor/1"


def test_doctor_json_fast_path_reports_a_bad_matrix_like_the_cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import envcheck.detect
    from envcheck import _entry
    from envcheck.snapshot_io import read_snapshot
    from tests.conftest import run_cli

    snap = read_snapshot(str(Path(__file__).parent / "fixtures/snapshots/minimal-driver-only.json"))
    monkeypatch.setattr(envcheck.detect, "detect", lambda *a, **k: snap)
    monkeypatch.setenv("ENVCHECK_MATRIX", str(tmp_path / "no-such-matrix"))
    assert _entry.main(["doctor", "--json"]) == 2
    fast = capsys.readouterr()
    slow_code, slow, slow_err = run_cli(
        "doctor", "--json", env={"ENVCHECK_MATRIX": str(tmp_path / "no-such-matrix")}
    )
    assert (2, fast.out, fast.err) == (slow_code, slow, slow_err)
    assert fast.err.startswith("envcheck: error: ")


def test_the_json_fast_paths_leave_the_garbage_collector_as_they_found_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import gc

    import envcheck.detect
    from envcheck import _entry
    from envcheck.snapshot_io import read_snapshot

    snap = read_snapshot(str(Path(__file__).parent / "fixtures/snapshots/minimal-driver-only.json"))
    seen: list[bool] = []

    def fake_detect(*args: object, **kwargs: object) -> object:
        seen.append(gc.isenabled())
        return snap

    monkeypatch.setattr(envcheck.detect, "detect", fake_detect)
    assert gc.isenabled()
    assert _entry.main(["detect", "--json"]) == 0
    assert _entry.main(["doctor", "--json"]) in (0, 1)
    capsys.readouterr()
    assert seen == [False, False]  # off while the command ran
    assert gc.isenabled()  # and back on for the caller


@pytest.mark.real_machine
@pytest.mark.parametrize("command", ["detect", "doctor"])
def test_json_fast_paths_as_a_script_print_everything_and_keep_the_exit_code(
    command: str,
) -> None:
    # run() ends these with os._exit after flushing: the whole JSON must arrive.
    argv = [sys.executable, "-m", "envcheck", command, "--json"]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode in ((0,) if command == "detect" else (0, 1)), proc.stderr
    doc = json.loads(proc.stdout)
    if command == "doctor":
        assert proc.returncode == int(doc["summary"]["errors"] > 0)
    if Path("/dev/full").exists():
        with open("/dev/full", "w") as full:
            failed = subprocess.run(
                argv, stdout=full, stderr=subprocess.PIPE, text=True, timeout=120, check=False
            )
        assert failed.returncode == 2
        assert failed.stderr.startswith("envcheck: internal error: OSError"), failed.stderr
        assert "Traceback" not in failed.stderr
