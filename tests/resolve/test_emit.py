"""Emitters: whole outputs against golden files, and each output parsed by its tool."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any, Callable

import pytest

from envcheck.resolve import emit
from envcheck.resolve.plan import plan
from envcheck.resolve.plan_model import Plan
from tests.resolve.test_plan import ADA, H100, PASCAL, RTX5090, T4, machine

PLANS = {
    # PyPI default variant on linux-x86_64: no index needed
    "rtx5090": (
        ("torch==2.14.*", "torchvision"),
        machine("580.65.06", RTX5090, python="3.12"),
        False,
    ),
    # Windows: PyPI serves CPU wheels there, so the cu126 index
    "win-t4": (("torch", "torchaudio<2.12"), machine("537.13", T4, os="windows"), False),
    "h100-cu128": (("torch==2.10.*",), machine("575.57.08", H100, python="3.12"), False),
    "trio": (
        ("torch==2.14.*", "tensorflow", "jax"),
        machine("550.54.15", ADA, python="3.12"),
        True,
    ),
    "tf114": (("tensorflow-gpu==1.14.*",), machine("418.67", PASCAL, python="3.7"), True),
    "keras": (("keras",), machine("550.54.15", ADA, python="3.12"), True),
    # jaxlib CUDA wheels of this era came from a find-links page, not an index
    "jax-findlinks": (("jax==0.4.20",), machine("525.60.13", ADA, python="3.11"), True),
}


def make(name: str, matrix: Any, combo_matrix: Any) -> Plan:
    requests, target, combo = PLANS[name]
    result = plan(requests, target, combo_matrix if combo else matrix)
    assert result.ok, result.unsatisfiable
    return result


FORMATS: dict[str, tuple[Callable[[Plan], str], str]] = {
    "pip": (emit.emit_pip, "sh"),
    "requirements": (emit.emit_requirements, "txt"),
    "conda": (emit.emit_conda, "sh"),
    "yml": (emit.emit_environment_yml, "yml"),
    "uv": (emit.emit_uv, "toml"),
    "poetry": (emit.emit_poetry, "toml"),
    "pixi": (emit.emit_pixi, "toml"),
    "json": (emit.emit_json, "json"),
}


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@pytest.mark.parametrize("name", sorted(PLANS))
def test_golden(
    name: str, fmt: str, matrix: Any, combo_matrix: Any, golden: Callable[[str, str], None]
) -> None:
    fn, ext = FORMATS[fmt]
    golden(f"plan-{name}-{fmt}.{ext}", fn(make(name, matrix, combo_matrix)))


@pytest.mark.parametrize("name", sorted(PLANS))
def test_environment_yml_parses(name: str, matrix: Any, combo_matrix: Any) -> None:
    import yaml
    from packaging.requirements import Requirement

    doc = yaml.safe_load(emit.emit_environment_yml(make(name, matrix, combo_matrix)))
    # One channel per file: defaults where only it ships a pick (TF 1.x GPU builds).
    assert doc["channels"] == (["defaults"] if name == "tf114" else ["conda-forge"])
    deps = doc["dependencies"]
    assert all(isinstance(d, (str, dict)) for d in deps)
    for d in deps:
        if isinstance(d, dict):
            for line in d["pip"]:
                if not line.startswith("--"):
                    Requirement(line)


@pytest.mark.parametrize("name", sorted(PLANS))
def test_requirements_parse(name: str, matrix: Any, combo_matrix: Any, tmp_path: Path) -> None:
    from packaging.requirements import Requirement

    text = emit.emit_requirements(make(name, matrix, combo_matrix))
    for line in text.splitlines():
        if line and not line.startswith(("#", "--")):
            Requirement(line)
    # pip's own parser, where importable (pip internals are not an API). A local file
    # needs no network session; PipSession() would run lsb_release for its user agent.
    req_file = pytest.importorskip("pip._internal.req.req_file")
    path = tmp_path / "requirements.txt"
    path.write_text(text, encoding="utf-8")
    parsed = list(req_file.parse_requirements(str(path), session=object()))
    names = [p.requirement for p in parsed]
    assert len(names) == len([ln for ln in text.splitlines() if ln and ln[0] not in "#-"])


@pytest.mark.parametrize("name", sorted(PLANS))
def test_pip_commands_split_like_a_shell(name: str, matrix: Any, combo_matrix: Any) -> None:
    from packaging.requirements import Requirement

    for line in emit.emit_pip(make(name, matrix, combo_matrix)).splitlines()[1:]:
        argv = shlex.split(line)
        assert argv[:2] == ["pip", "install"]
        rest = argv[2:]
        if "--index-url" in rest:
            i = rest.index("--index-url")
            assert rest[i + 1].startswith("https://download.pytorch.org/whl/")
            rest = rest[:i] + rest[i + 2 :]
        if "--find-links" in rest:
            i = rest.index("--find-links")
            assert rest[i + 1].startswith("https://")
            rest = rest[:i] + rest[i + 2 :]
        for r in rest:
            Requirement(r)


def test_pip_argvs_match_pip_text(matrix: Any) -> None:
    p = make("win-t4", matrix, None)
    argvs = emit.pip_argvs(p, "/venv/bin/python")
    assert argvs == [
        [
            "/venv/bin/python",
            "-m",
            "pip",
            "install",
            "torch==2.11.0",
            "torchaudio==2.11.0",
            "--index-url",
            "https://download.pytorch.org/whl/cu128",
        ]
    ]


def test_find_links_reach_every_pip_output(matrix: Any, combo_matrix: Any) -> None:
    p = make("jax-findlinks", matrix, combo_matrix)
    page = "https://storage.googleapis.com/jax-releases/jax_cuda_releases.html"
    assert emit.pip_argvs(p, "py") == [
        ["py", "-m", "pip", "install", "jax[cuda11_pip]==0.4.20", "--find-links", page]
    ]
    assert f"--find-links {page}" in emit.emit_requirements(p).splitlines()
    assert p.to_json()["picks"][0]["find_links"] == page


def test_json_contract(matrix: Any) -> None:
    data = json.loads(emit.emit_json(make("rtx5090", matrix, None)))
    assert data["schema"] == "envcheck.plan/1"
    assert data["ok"] is True
    assert [p["requirement"] for p in data["picks"]] == ["torch==2.14.0", "torchvision==0.29.0"]
    assert data["cuda_major"] == 13


def test_unsatisfiable_plan_is_not_emitted(matrix: Any) -> None:
    p = plan(("torch>=2",), machine("418.67", "3.7"), matrix)
    with pytest.raises(ValueError, match="unsatisfiable"):
        emit.emit_pip(p)


def test_extras_survive_the_rich_console(
    combo_matrix: Any, matrix: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    # rich with markup on drops "[and-cuda]" from a pip command (STYLE.md, traps).
    from envcheck.render.console import make_console

    text = emit.emit_pip(make("trio", matrix, combo_matrix))
    make_console(color=False).print(text, end="")
    assert capsys.readouterr().out == text
    assert "tensorflow[and-cuda]==2.20.0" in text
