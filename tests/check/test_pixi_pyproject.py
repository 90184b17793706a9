"""pixi through rattler: match specs in pixi.toml, and ``[tool.pixi.*]`` in pyproject.toml."""

from __future__ import annotations

from pathlib import Path

import pytest

from envcheck.check.parse_pixi import parse_pixi
from envcheck.check.parse_pyproject import parse_pyproject
from tests.conftest import run_cli

# A service of a monorepo in pixi's pyproject mode: [project] feeds the default
# feature, its optional dependencies are pixi features too.
SIM_PYPROJECT = """\
[project]
name = "sim"
version = "0.3.0"
requires-python = ">=3.11"
dependencies = ["numpy>=1.26"]

[project.optional-dependencies]
viz = ["matplotlib>=3.8"]

[tool.pixi.workspace]
channels = ["conda-forge"]
platforms = ["linux-64"]

[tool.pixi.system-requirements]
cuda = "11.8"

[tool.pixi.dependencies]
python = "3.11.*"

[tool.pixi.pypi-dependencies]
sim = { path = ".", editable = true }

[tool.pixi.feature.gpu.dependencies]
cuda-version = "12.4.*"
pytorch = { version = ">=2.4", build = "*cuda*" }

[tool.pixi.feature.cpu.dependencies]
pytorch = { version = ">=2.4", build = "*cpu*" }

[tool.pixi.environments]
gpu = ["gpu"]
viz = { features = ["viz", "cpu"] }
"""

EC104 = (
    "EC104 cuda-version 12.4.* gives CUDA 12.4, but [system-requirements] cuda = '11.8'"
    " ({path}:15) declares a driver for CUDA 11.8; CUDA 12 needs a CUDA 12 driver"
)


def _as_pixi_toml(text: str) -> str:
    """The same tables as a pixi.toml, line for line (it has no [project] extras)."""
    return text.replace("[tool.pixi.", "[").replace('"viz", "cpu"', '"cpu"')


def _check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str]) -> list[str]:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli("check")
    assert "Traceback" not in out + err
    return [*out.splitlines(), f"exit {code}"]


def test_tool_pixi_environments_are_read_like_pixi_toml() -> None:
    doc = parse_pyproject(SIM_PYPROJECT, "pyproject.toml")
    # [tool.pixi.environments] has no "default": the default feature is one too.
    assert doc.base_environment
    assert doc.extras_standalone
    assert [(p.name, p.specifier, p.source) for p in doc.base.pins] == [
        ("numpy", ">=1.26", "pip"),
        ("python", "==3.11.*", "conda"),
    ]
    assert [s.version for s in doc.base.system_cuda] == ["11.8"]
    envs = dict(doc.extras)
    assert [(p.name, p.specifier, p.location.line) for p in envs["environment gpu"].pins] == [
        ("numpy", ">=1.26", 5),
        ("python", "==3.11.*", 18),
        ("cuda-version", "==12.4.*", 24),
        ("pytorch", ">=2.4", 25),
    ]
    assert [p.name for p in envs["environment viz"].pins] == [
        "numpy",
        "python",
        "matplotlib",
        "pytorch",
    ]
    # The same tables in a pixi.toml (same lines) read the same.
    pixi = parse_pixi(_as_pixi_toml(SIM_PYPROJECT), "pixi.toml")
    assert [(p.name, p.location.line) for p in dict(pixi.extras)["environment gpu"].pins] == [
        ("python", 18),
        ("cuda-version", 24),
        ("pytorch", 25),
    ]


@pytest.mark.usefixtures("check_matrix_env")
def test_tool_pixi_in_a_monorepo_gets_the_pixi_toml_diagnostics(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    api = "--index-url https://download.pytorch.org/whl/cu128\ntorch==2.8.0\n"
    lines = _check(
        tmp_path,
        monkeypatch,
        {"services/api/requirements.txt": api, "services/sim/pyproject.toml": SIM_PYPROJECT},
    )
    shown = "services/sim/pyproject.toml"
    assert lines == [
        f"{shown}:24: " + EC104.format(path=shown),
        "envcheck check: read services/api/requirements.txt, services/sim/pyproject.toml",
        "envcheck check: 2 files checked, 1 problem",
        "exit 1",
    ]
    # The same tables as a pixi.toml give the same diagnostic on the same line.
    pixi = _as_pixi_toml(SIM_PYPROJECT)
    lines = _check(tmp_path / "p", monkeypatch, {"pixi.toml": pixi})
    assert lines[0] == "pixi.toml:24: " + EC104.format(path="pixi.toml")
    # A driver for CUDA 12 fixes it.
    fixed = SIM_PYPROJECT.replace('cuda = "11.8"', 'cuda = "12.4"')
    assert _check(tmp_path / "f", monkeypatch, {"pyproject.toml": fixed})[-1] == "exit 0"


@pytest.mark.usefixtures("check_matrix_env")
@pytest.mark.parametrize("name", ["pixi.toml", "pyproject.toml"])
def test_malformed_pixi_spec_is_one_line_ec001(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    text = SIM_PYPROJECT.replace('version = ">=2.4", build = "*cuda*"', 'version = "=>2.4"')
    if name == "pixi.toml":
        text = _as_pixi_toml(text)
    lines = _check(tmp_path, monkeypatch, {name: text})
    assert lines == [
        f"{name}:25: EC001 invalid conda spec 'pytorch =>2.4': unable to parse version spec: =>2.4",
        f"envcheck check: read {name}",
        "envcheck check: 1 file checked, 1 unreadable input",
        "exit 2",
    ]


def test_pixi_spec_forms() -> None:
    text = (
        "[dependencies]\n"
        'pytorch = { version = "2.4.*", build = "*cuda*", channel = "pytorch" }\n'
        'cuda-version = "12.4"\n'
        'numpy = "*"\n'
        'scipy = ">=1.11, <2"\n'
        'jax = "0.4.30 *cuda12*"\n'
    )
    doc = parse_pixi(text, "pixi.toml")
    assert [(p.name, p.specifier, p.location.line) for p in doc.base.pins] == [
        ("pytorch", "==2.4.*", 2),
        ("cuda-version", "==12.4", 3),
        ("numpy", "", 4),
        ("scipy", ">=1.11,<2", 5),
        ("jax", "==0.4.30", 6),
    ]
    assert doc.base.problems == ()
