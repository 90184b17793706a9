"""The scripts that run inside the *target* interpreter (``_pyinfo.py``,
``_smoke.py``) run on Python 3.6+ and refuse 2.7 in one line.

Two layers: a static check of the syntax and library each script uses (runs
everywhere), and runs under the real old interpreters pyenv installs, skipped
with a reason on a machine without them (CI images often have no pyenv).
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
from pathlib import Path
from typing import Optional

import pytest

from envcheck.deep import SMOKE_SCRIPT, parse_smoke_output
from envcheck.detect.python_env import PYINFO_SCRIPT, parse_pyinfo, too_old_message
from envcheck.detect.system import CommandResult

PACKAGE = Path(__file__).resolve().parents[2] / "envcheck"
CHILD_SCRIPTS = (PYINFO_SCRIPT, SMOKE_SCRIPT)

# The interpreters the issue names; each test says which one it lacks.
VERSIONS = ("2.7", "3.6", "3.7", "3.8", "3.9", "3.10", "3.11", "3.12", "3.13")
PYENV_ROOTS = tuple(
    dict.fromkeys(
        Path(p)
        for p in (os.environ.get("PYENV_ROOT"), Path("~/.pyenv").expanduser(), "/root/.pyenv")
        if p
    )
)


def pyenv_python(version: str) -> Optional[Path]:
    """The newest ``X.Y.*`` pyenv interpreter, or None."""
    found: list[Path] = []
    for root in PYENV_ROOTS:
        try:
            found.extend(root.glob(f"versions/{version}.*/bin/python"))
        except OSError:
            continue
    found = [p for p in found if re.fullmatch(rf"{re.escape(version)}\.\d+", p.parents[1].name)]
    return max(found, key=lambda p: int(p.parents[1].name.rsplit(".", 1)[1]), default=None)


def need(version: str) -> Path:
    exe = pyenv_python(version)
    if exe is None:
        roots = ", ".join(str(r) for r in PYENV_ROOTS)
        pytest.skip(f"no Python {version} under pyenv ({roots}/versions/{version}.*)")
    return exe


def run(argv: list[str], env: Optional[dict[str, str]] = None) -> CommandResult:
    done = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
        env=env or {"PATH": "/usr/bin:/bin"},
    )
    return CommandResult(done.returncode, done.stdout, done.stderr)


# --- static: what each script may use -------------------------------------------------

# Standard-library modules that are newer than Python 3.6.
NEWER_MODULES = {
    "dataclasses": "3.7",
    "contextvars": "3.7",
    "importlib.resources": "3.7",
    "importlib.metadata": "3.8",
    "zoneinfo": "3.9",
    "graphlib": "3.9",
    "tomllib": "3.11",
}
NEWER_KEYWORDS = {"capture_output": "3.7", "text": "3.7"}  # subprocess.run
NEWER_METHODS = {"removeprefix": "3.9", "removesuffix": "3.9", "is_relative_to": "3.9"}


def constructs_too_new(source: str) -> list[str]:
    """What in ``source`` Python 3.6 cannot run, or Python 2.7 cannot parse (the
    one-line refusal only works if 2.7 gets as far as running the script)."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        line = getattr(node, "lineno", "?")
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            found += [f"{line}: from __future__ import {a.name}" for a in node.names]
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names.append(node.module)
                names += [f"{node.module}.{a.name}" for a in node.names]
            found += [
                f"{line}: import {n} ({NEWER_MODULES[n]})" for n in names if n in NEWER_MODULES
            ]
        if isinstance(node, ast.NamedExpr):
            found.append(f"{line}: := (3.8)")
        if isinstance(node, ast.JoinedStr):
            found.append(f"{line}: f-string (2.7 cannot parse the file)")
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            found.append(f"{line}: @ operator (3.5)")
        if isinstance(node, (ast.AnnAssign, ast.AsyncFunctionDef, ast.Nonlocal, ast.YieldFrom)):
            found.append(f"{line}: {type(node).__name__} (2.7 cannot parse the file)")
        if isinstance(node, ast.arguments):
            if node.posonlyargs:
                found.append(f"{line}: positional-only parameters (3.8)")
            if node.kwonlyargs:
                found.append(f"{line}: keyword-only parameters (2.7 cannot parse the file)")
            if any(a.annotation for a in (*node.args, node.vararg, node.kwarg) if a):
                found.append(f"{line}: annotation (2.7 cannot parse the file)")
        if isinstance(node, ast.FunctionDef) and node.returns is not None:
            found.append(f"{node.lineno}: return annotation (2.7 cannot parse the file)")
        if isinstance(node, ast.Call):
            found += [
                f"{line}: {k.arg}= ({NEWER_KEYWORDS[k.arg]})"
                for k in node.keywords
                if k.arg in NEWER_KEYWORDS
            ]
        if isinstance(node, ast.Attribute) and node.attr in NEWER_METHODS:
            found.append(f"{line}: .{node.attr} ({NEWER_METHODS[node.attr]})")
        if type(node).__name__ == "Match":
            found.append(f"{line}: match (3.10)")
    return found


def test_every_script_run_by_a_target_interpreter_is_listed() -> None:
    """A new child script (a ``Path(__file__).with_name('x.py')`` that the code
    runs) joins CHILD_SCRIPTS, so the checks below cover it."""
    named = set()
    for path in PACKAGE.rglob("*.py"):
        for m in re.finditer(r"with_name\(\"(\w+\.py)\"\)", path.read_text(encoding="utf-8")):
            named.add(path.with_name(m.group(1)).resolve())
    assert named == {p.resolve() for p in CHILD_SCRIPTS}


@pytest.mark.parametrize("script", CHILD_SCRIPTS, ids=lambda p: p.name)
def test_child_script_uses_nothing_newer_than_python_3_6(script: Path) -> None:
    assert constructs_too_new(script.read_text(encoding="utf-8")) == []


def test_the_static_check_sees_what_it_looks_for() -> None:
    source = (
        "from __future__ import annotations\n"
        "import dataclasses\n"
        "from importlib.metadata import version\n"
        "def f(a, /, b): return a @ b\n"
        "x = f'{1}'\n"
        "if (n := 1): pass\n"
        "subprocess.run(['x'], capture_output=True, text=True)\n"
        "'x'.removeprefix('y')\n"
    )
    found = "\n".join(constructs_too_new(source))
    for what in (
        "__future__ import annotations",
        "import dataclasses",
        "importlib.metadata",
        "positional-only",
        "@ operator",
        "f-string",
        ":=",
        "capture_output=",
        "text=",
        ".removeprefix",
    ):
        assert what in found


# --- real interpreters ----------------------------------------------------------------

MODERN = [v for v in VERSIONS if v != "2.7"]

# A GPU-less onnxruntime: the smallest framework the smoke script knows.
_FAKE_ORT = (
    '__version__ = "1.16.3"\ndef get_available_providers():\n    return ["CPUExecutionProvider"]\n'
)


@pytest.mark.real_machine
@pytest.mark.parametrize("version", MODERN)
def test_pyinfo_runs_isolated_under_python(version: str) -> None:
    exe = need(version)
    outcome = run([str(exe), "-I", str(PYINFO_SCRIPT)])
    assert outcome.returncode == 0, outcome.stderr
    facts = parse_pyinfo(outcome.stdout)
    assert facts["version"] == exe.parents[1].name
    assert facts["site_dirs"], facts


@pytest.mark.real_machine
@pytest.mark.parametrize("version", MODERN)
def test_smoke_script_reports_a_result_under_python(version: str, tmp_path: Path) -> None:
    exe = need(version)
    (tmp_path / "onnxruntime.py").write_text(_FAKE_ORT, encoding="utf-8")
    # -I would drop PYTHONPATH; -E -s with an explicit PYTHONPATH puts the stub first.
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path)}
    fake = run([str(exe), "-s", str(SMOKE_SCRIPT), "onnxruntime"], env=env)
    r = parse_smoke_output("onnxruntime", fake)
    assert r.error is None, fake.stderr
    assert [(c["name"], c["ok"]) for c in r.checks] == [("cuda_provider", False)]
    assert r.seconds is not None
    missing = parse_smoke_output("torch", run([str(exe), "-I", str(SMOKE_SCRIPT), "torch"]))
    assert missing.error is not None
    assert missing.error.startswith(("ModuleNotFoundError", "ImportError")), missing.error


@pytest.mark.real_machine
@pytest.mark.parametrize("script", CHILD_SCRIPTS, ids=lambda p: p.name)
def test_python_2_gets_one_line_from_each_child_script(script: Path) -> None:
    exe = need("2.7")
    outcome = run([str(exe), "-E", "-s", str(script), "torch"])
    assert outcome.returncode == 3
    assert outcome.stdout == ""
    assert outcome.stderr == too_old_message(str(exe), exe.parents[1].name) + "\n"
