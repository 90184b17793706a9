"""``detect --python`` and ``doctor --deep --python`` against real old
interpreters (pyenv's 2.7, 3.6, 3.7), and a failed child's stderr in the report.

The 3.6 case is the seed user's: a TensorFlow 1.x environment on Python 3.6.
A throw-away ``python3.6 -m venv --without-pip`` gets a stub ``tensorflow-gpu``
distribution (dist-info, build_info.py and a package the smoke test imports),
so the whole --deep flow runs: detection finds the framework, the child imports
it under 3.6 and its result (or its real error) reaches the report.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from envcheck.deep import DEEP_FAILED
from envcheck.detect.python_env import too_old_message
from envcheck.detect.system import TAIL_CHARS, TAIL_LINES
from tests.conftest import run_cli
from tests.detect.test_child_scripts import need

_BUILD_INFO = 'is_cuda_build = True\ncuda_version_number = "10.0"\ncudnn_version_number = "7"\n'

# TensorFlow 1.14 on a machine where it sees no GPU: device_lib lists only the
# CPU and tf.test.gpu_device_name() is '' (the check TensorFlow's docs give).
_TF_NO_GPU = (
    '__version__ = "1.14.0"\n'
    "class test:\n"
    "    @staticmethod\n"
    "    def gpu_device_name():\n"
    "        return ''\n"
)
_DEVICE_LIB = (
    "class _Device:\n    device_type = 'CPU'\ndef list_local_devices():\n    return [_Device()]\n"
)
_TF_NO_CUDART = (
    "raise ImportError('libcudart.so.10.0: cannot open shared object file: "
    "No such file or directory')\n"
)
# A framework that dies without a word on stdout after a screenful of logs.
_TF_DIES = (
    "import os, sys\n"
    "for i in range(40):\n"
    "    sys.stderr.write('tensorflow log line %d ' % i + 'x' * 150 + '\\n')\n"
    "sys.stderr.flush()\n"
    "os._exit(1)\n"
)


def venv36_with_tensorflow(tmp_path: Path, init: str) -> Path:
    """A Python 3.6 venv holding a stub tensorflow-gpu 1.14.0; its python."""
    return venv_with_tensorflow(need("3.6"), tmp_path, init)


def venv_with_tensorflow(base: Path, tmp_path: Path, init: str) -> Path:
    """A venv of ``base`` holding a stub tensorflow-gpu 1.14.0; its python."""
    env = tmp_path / "tf1-env"
    subprocess.run([str(base), "-m", "venv", "--without-pip", str(env)], check=True, timeout=60)
    site = next((env / "lib").glob("python3.*/site-packages"))
    dist = site / "tensorflow_gpu-1.14.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: tensorflow-gpu\nVersion: 1.14.0\n", encoding="utf-8"
    )
    pkg = site / "tensorflow"
    (pkg / "python" / "platform").mkdir(parents=True)
    (pkg / "python" / "client").mkdir()
    (pkg / "__init__.py").write_text(init, encoding="utf-8")
    (pkg / "python" / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "python" / "client" / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "python" / "client" / "device_lib.py").write_text(_DEVICE_LIB, encoding="utf-8")
    (pkg / "python" / "platform" / "build_info.py").write_text(_BUILD_INFO, encoding="utf-8")
    return env / "bin" / "python"


def deep_json(python: Path) -> dict[str, Any]:
    code, out, err = run_cli("doctor", "--deep", "--python", str(python), "--json")
    assert code in (0, 1), err
    doc: dict[str, Any] = json.loads(out)
    assert doc["snapshot"]["python"]["version"].startswith("3.6."), doc["snapshot"]["errors"]
    assert [fw["name"] for fw in doc["snapshot"]["frameworks"]] == ["tensorflow"]
    return doc


@pytest.mark.real_machine
@pytest.mark.slow
def test_deep_on_python_36_reports_the_frameworks_own_result(tmp_path: Path) -> None:
    doc = deep_json(venv36_with_tensorflow(tmp_path, _TF_NO_GPU))
    [result] = doc["deep"]
    assert (result["framework"], result["ok"], result["error"]) == ("tensorflow", False, None)
    checks = {c["name"]: c for c in result["checks"]}
    assert checks["gpu_devices"]["ok"] is False
    assert checks["gpu_devices"]["detail"].startswith("GPU devices: 0")
    assert DEEP_FAILED in {f["id"] for f in doc["findings"]}


@pytest.mark.real_machine
@pytest.mark.slow
def test_deep_on_python_36_shows_the_real_import_error(tmp_path: Path) -> None:
    python = venv36_with_tensorflow(tmp_path, _TF_NO_CUDART)
    doc = deep_json(python)
    [result] = doc["deep"]
    assert result["error"].startswith("ImportError: libcudart.so.10.0")
    assert result["stderr_tail"].splitlines()[-1].startswith("ImportError: libcudart.so.10.0")
    code, out, _ = run_cli("doctor", "--deep", "--python", str(python))
    assert code == 1
    assert "tensorflow: FAILED  ImportError: libcudart.so.10.0" in out
    assert "tensorflow: end of stderr" in out


@pytest.mark.real_machine
@pytest.mark.slow
def test_deep_child_that_dies_shows_its_stderr_tail_bounded(tmp_path: Path) -> None:
    python = venv36_with_tensorflow(tmp_path, _TF_DIES)
    [result] = deep_json(python)["deep"]
    assert result["error"].startswith(
        "exited with status 1 without a result: tensorflow log line 39"
    )
    tail = result["stderr_tail"]
    assert len(tail) <= TAIL_CHARS
    lines = tail.splitlines()
    assert len(lines) <= TAIL_LINES
    assert lines[-1].startswith("tensorflow log line 39 ")
    _, out, _ = run_cli("doctor", "--deep", "--python", str(python))
    assert "    tensorflow log line 39 " in out
    assert "tensorflow log line 0 " not in out


@pytest.mark.real_machine
@pytest.mark.parametrize("version", ["3.6", "3.7"])
def test_detect_python_reads_an_old_interpreter(version: str) -> None:
    exe = need(version)
    code, out, err = run_cli("detect", "--python", str(exe), "--json")
    assert code == 0, err
    snap = json.loads(out)
    assert snap["python"]["version"] == exe.parents[1].name
    assert snap["python"]["executable"] == str(exe)
    assert [e for e in snap["errors"] if e["probe"] == "python"] == []


@pytest.mark.real_machine
def test_detect_python_27_says_one_line() -> None:
    exe = need("2.7")
    code, out, err = run_cli("detect", "--python", str(exe), "--json")
    assert code == 0, err
    snap = json.loads(out)
    assert snap["python"]["version"] == exe.parents[1].name
    assert [e for e in snap["errors"] if e["probe"] == "python"] == [
        {"probe": "python", "message": too_old_message(str(exe), exe.parents[1].name)}
    ]
    code, out, err = run_cli("doctor", "--deep", "--python", str(exe))
    assert "Traceback" not in out + err
    assert too_old_message(str(exe), exe.parents[1].name) in out


# --- a failed child, without real interpreters ------------------------------------------

_TRACEBACK = "".join(
    ["Traceback (most recent call last):\n"]
    + [
        f'  File "/env/lib/python3.6/site-packages/m{i}.py", line {i}, in <module>\n'
        for i in range(30)
    ]
    + ["ModuleNotFoundError: No module named 'encodings'\n"]
)


def test_python_probe_failure_keeps_the_end_of_the_traceback(tmp_path: Path) -> None:
    from envcheck.detect.context import Context
    from envcheck.detect.python_env import PYINFO_SCRIPT, probe_python
    from envcheck.detect.system import CommandResult
    from envcheck.model.snapshot import ProbeError, Snapshot
    from envcheck.render.blocks import render_plain
    from envcheck.render.text import snapshot_sections
    from tests.conftest import make_system

    exe = "/env/bin/python"
    system = make_system(
        tmp_path, outputs={f"{exe} -I {PYINFO_SCRIPT}": CommandResult(1, "", _TRACEBACK)}
    )
    system = type(system)(**{**system.__dict__, "python_executable": exe})
    ctx = Context()
    probe_python(system, ctx)
    [error] = ctx.errors
    assert error.message == (
        f"{exe} exited with status 1: ModuleNotFoundError: No module named 'encodings'"
    )
    assert error.detail is not None
    lines = error.detail.splitlines()
    assert len(lines) == TAIL_LINES
    assert lines[-1] == "ModuleNotFoundError: No module named 'encodings'"
    # The tail travels in the snapshot JSON and back, and the text report shows it.
    snapshot = Snapshot(errors=(error,))
    assert snapshot.to_json()["errors"][0]["detail"] == error.detail
    assert ProbeError.from_json(error.to_json()) == error
    assert "detail" not in ProbeError("driver", "one line").to_json()
    text = "\n".join(render_plain(b) for b in snapshot_sections(snapshot))
    assert "python probe: end of stderr (20 lines)" in text
    assert "    ModuleNotFoundError: No module named 'encodings'" in text


def test_python_3_5_refusal_from_the_script_is_kept_as_its_one_line(tmp_path: Path) -> None:
    from envcheck.detect.context import Context
    from envcheck.detect.python_env import PYINFO_SCRIPT, probe_python
    from envcheck.detect.system import CommandResult
    from tests.conftest import make_system

    exe = "/opt/py35/bin/python3.5"
    line = too_old_message(exe, "3.5.10")
    system = make_system(
        tmp_path, outputs={f"{exe} -I {PYINFO_SCRIPT}": CommandResult(3, "", line + "\n")}
    )
    system = type(system)(**{**system.__dict__, "python_executable": exe})
    ctx = Context()
    probe_python(system, ctx)
    assert [(e.message, e.detail) for e in ctx.errors] == [(line, None)]
    assert ctx.python.version == "3.5.10"


def test_deep_child_without_a_result_names_its_last_stderr_line() -> None:
    from envcheck.deep import parse_smoke_output
    from envcheck.detect.system import CommandResult

    r = parse_smoke_output("torch", CommandResult(1, "", _TRACEBACK))
    assert r.error == (
        "exited with status 1 without a result: ModuleNotFoundError: No module named 'encodings'"
    )
    doc = r.to_json()
    assert doc["stderr_tail"].splitlines()[-1] == "ModuleNotFoundError: No module named 'encodings'"
    assert len(doc["stderr_tail"].splitlines()) == TAIL_LINES
    old = parse_smoke_output("torch", CommandResult(3, "", too_old_message("/py", "3.5.1") + "\n"))
    assert old.error == too_old_message("/py", "3.5.1")
    # A run that passed carries no tail, even when the framework logged to stderr.
    good = CommandResult(0, '{"ok": true, "checks": [{"name": "x", "ok": true}]}', "log\n")
    assert parse_smoke_output("torch", good).to_json()["stderr_tail"] is None


def test_output_tail_bounds_lines_and_characters() -> None:
    from envcheck.detect.system import output_tail

    assert output_tail("a\n\n b \nc\n") == "a\n b\nc"
    long = "\n".join("y" * 500 for _ in range(50))
    tail = output_tail(long)
    assert len(tail) == TAIL_CHARS
    assert tail.startswith("...")
    assert output_tail("z" * 10**7).endswith("z") and len(output_tail("z" * 10**7)) == TAIL_CHARS


@pytest.mark.real_machine
@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="builds a POSIX venv layout (bin/, lib/)")
def test_deep_stderr_tail_is_redacted_in_the_text_report(tmp_path: Path) -> None:
    """The tail is output like any other: --redact hides the home directory in it."""
    dies = (
        "import os, sys\n"
        "sys.stderr.write('failed to load ' + os.path.expanduser('~/models/net.so') + '\\n')\n"
        "sys.stderr.flush()\n"
        "os._exit(1)\n"
    )
    python = venv_with_tensorflow(Path(sys.executable), tmp_path, dies)
    home = str(Path("~").expanduser())
    _, plain, _ = run_cli("doctor", "--deep", "--python", str(python))
    assert f"    failed to load {home}/models/net.so" in plain
    _, redacted, _ = run_cli("doctor", "--deep", "--python", str(python), "--redact")
    assert "tensorflow: end of stderr (1 lines)" in redacted
    assert "/models/net.so" in redacted
    assert home not in redacted
