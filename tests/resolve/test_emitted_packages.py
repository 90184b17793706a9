"""Every package and version in every command envcheck emits exists where the command
looks for it (issue 27).

Commands come from the plan emitters over a grid of targets and requests, from the
golden plan files, and from the doctor's fixes on the doctor fixture snapshots. Each
``pip install`` requirement is checked:

- on PyPI (no ``--index-url``): the name is in the recorded PyPI listing
  (tests/fixtures/index/pypi-listing.tsv, with its source in its header), a pinned
  version is no newer than the newest there, and the matrix knows that version of
  that package (a build, a companion pairing, a wheel METADATA pin, a Keras release);
- on another index (``--index-url``): the matrix has a build of that package served
  from that index (torch's variants) or a companion paired with one;
- a package only served elsewhere (``[[route]]`` rows: nvidia-tensorflow, a
  placeholder on PyPI) must come with its index;
- a ``conda create``/``conda install`` names only packages its channel ships (the
  matrix's conda.toml rows, the conda-forge names the emitter maps to, the toolkit).
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from envcheck.doctor import diagnose
from envcheck.model.snapshot import Snapshot
from envcheck.resolve.emit import emit_conda, emit_pip, emit_requirements
from envcheck.resolve.plan import plan
from tests.resolve.test_plan import machine

FIXTURES = Path(__file__).parents[1] / "fixtures"
LISTING = FIXTURES / "index" / "pypi-listing.tsv"
PYPI = ("https://pypi.org/simple",)

REQUESTS = [
    ("torch",),
    ("torch", "torchvision", "torchaudio"),
    ("torch==2.5.*", "torchvision"),
    ("tensorflow",),
    ("tensorflow==2.15.*",),
    ("tensorflow==2.10.*",),
    ("tensorflow-gpu==1.15.5",),
    ("tensorflow==1.14.0",),
    ("jax",),
    ("cupy",),
    ("onnxruntime-gpu",),
    ("paddlepaddle-gpu",),
    ("tensorflow", "keras"),
]
TARGETS = [
    machine("580.65.06", "8.9", python="3.12"),
    machine("535.104.05", "8.6", python="3.10"),
    machine("470.82.01", "7.0", python="3.7"),
    machine("550.54.15", "9.0", python="3.11"),
    machine("537.13", "8.6", os="windows", python="3.9"),
    machine("418.67", "7.5", python="3.6"),
]


def _machine(**over: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "schema": "envcheck.snapshot/1",
        "platform": {"os": "linux", "arch": "x86_64"},
        "python": {"version": "3.8.10", "env_kind": "venv"},
        "driver": {"version": "535.104.05"},
        "gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 3090"}],
        "probes": ["libraries"],
    }
    data.update(over)
    return data


# The machines of the issue's wrong fixes: their fixes are checked too.
ISSUE_MACHINES = [
    _machine(
        frameworks=[
            {"name": "tensorflow", "version": "1.15.5", "package": "tensorflow-gpu"}
            | {"cuda_version": "10.0", "cudnn_version": "7", "cpu_only": False}
        ],
        packages={"tensorflow-gpu": "1.15.5"},
    ),
    _machine(
        frameworks=[{"name": "torch", "version": "2.9.0+cpu", "cpu_only": True, "variant": "cpu"}],
        packages={"torch": "2.9.0+cpu", "torchvision": "0.24.0+cpu"},
        driver={"version": "580.65.06"},
    ),
    _machine(
        frameworks=[
            {"name": "tensorflow", "version": "2.12.0", "cuda_version": "11.8"}
            | {"cudnn_version": "8.6", "cpu_only": False}
        ],
        packages={"tensorflow": "2.12.0"},
    ),
]


def _listing() -> dict[str, str]:
    rows = [ln for ln in LISTING.read_text(encoding="utf-8").splitlines() if ln[:1] != "#"]
    return {canonicalize_name(r.split("\t")[0]): r.split("\t")[1] for r in rows[1:]}


def _known(matrix: Any) -> tuple[set[tuple[str, str]], dict[str, set[str]]]:
    """(package, version) pairs the matrix knows, and per non-PyPI index the packages
    it serves."""
    known: set[tuple[str, str]] = set()
    served: dict[str, set[str]] = {}
    for rows in matrix.builds.values():
        for b in rows:
            for v in b.versions:
                known.add((canonicalize_name(b.package), v))
            if b.index_url:
                url = b.index_url.rstrip("/")
                served.setdefault(url, set()).add(canonicalize_name(b.package))
                if b.framework == "torch":
                    served[url] |= {"torchvision", "torchaudio"}
    for c in matrix.companions:
        for name in ("torchvision", "torchaudio"):
            if getattr(c, name):
                known.add((name, getattr(c, name)))
    for pin in matrix.nvidia_pins:
        for text in pin.requires:
            req = Requirement(text)
            known |= {(canonicalize_name(req.name), s.version) for s in req.specifier}
    for k in matrix.keras_releases:
        known |= {("keras", v) for v in k.versions}
    for route in matrix.build_routes:
        served.setdefault(route.index_url.rstrip("/"), set()).add(canonicalize_name(route.package))
    return known, served


def _pip_lines(text: str) -> Iterator[str]:
    for line in text.splitlines():
        line = line.strip()
        if line.startswith(("pip install", "conda create", "conda install")):
            yield line


def _requirements_file(text: str) -> Iterator[str]:
    """requirements.txt as one pip command (its index lines become options)."""
    args = []
    for line in text.splitlines():
        if line and not line.startswith("#"):
            args += line.split()
    yield shlex.join(["pip", "install", *args])


def _commands(matrix: Any) -> Iterator[tuple[str, str]]:
    for requests in REQUESTS:
        for target in TARGETS:
            p = plan(list(requests), target, matrix)
            if not p.ok:
                continue
            where = f"plan {' '.join(requests)} on {target.describe()}"
            for line in _pip_lines(emit_pip(p) + emit_conda(p)):
                yield where, line
            for line in _requirements_file(emit_requirements(p)):
                yield where + " (requirements)", line
    for golden in sorted((FIXTURES / "golden").glob("plan-*")):
        text = golden.read_text(encoding="utf-8")
        lines = _requirements_file(text) if golden.suffix == ".txt" else _pip_lines(text)
        for line in lines:
            yield golden.name, line
    cases = [
        (case.name, json.loads(case.read_text(encoding="utf-8"))["snapshot"])
        for case in sorted((FIXTURES / "doctor").glob("*.json"))
    ]
    cases += [(f"issue-27 {i}", data) for i, data in enumerate(ISSUE_MACHINES)]
    for name, data in cases:
        for f in diagnose(Snapshot.from_json(data), matrix).findings:
            for line in _pip_lines(f.fix or ""):
                yield f"{name} {f.id}", line


# conda packages every conda command may name: the interpreter, pip, and the CUDA
# toolkit, cuDNN and cuda-version metapackage the emitters pin beside a framework.
_CONDA_BASE = {"python", "pip", "cudatoolkit", "cudnn", "cuda-version"}


def _conda_problems(line: str, matrix: Any) -> list[str]:
    """A ``conda create``/``conda install`` names only packages the channel ships: the
    matrix's ``[[package]]`` rows of that channel (and their versions, on defaults,
    whose rows are the only record) or the conda-forge names the emitter maps to."""
    from envcheck.resolve.emit import CONDA_FORGE_NAMES

    argv = shlex.split(line)
    channel = argv[argv.index("-c") + 1]
    specs = argv[argv.index("--override-channels") + 1 :]
    rows = [r for r in matrix.conda_packages if r.channel == channel]
    names = {r.name for r in rows} | _CONDA_BASE
    if channel == "conda-forge":
        names |= {n for n, _ in CONDA_FORGE_NAMES.values()} | {"jax"}
    out = []
    for spec in specs:
        name, _, rest = spec.partition("=")
        version = rest.split("=")[0]
        if name not in names:
            out.append(f"{spec}: {channel} ships no {name} the matrix knows")
        elif (
            channel == "defaults"
            and name not in _CONDA_BASE
            and not any(r.name == name and version in r.versions for r in rows)
        ):
            out.append(f"{spec}: the matrix records no {name} {version} on {channel}")
    return out


def _problems(line: str, listing: dict[str, str], matrix: Any) -> list[str]:
    if line.startswith("conda"):
        return _conda_problems(line, matrix)
    known, served = _known(matrix)
    argv = shlex.split(line)[2:]
    reqs, index, extra = [], None, []
    it = iter(argv)
    for arg in it:
        if arg in ("--index-url", "--extra-index-url", "--find-links"):
            value = next(it)
            if arg == "--index-url":
                index = value.rstrip("/")
            elif arg == "--extra-index-url":
                extra.append(value.rstrip("/"))
        elif arg.startswith("-"):
            continue
        else:
            reqs.append(Requirement(arg))
    out = []
    for req in reqs:
        name = canonicalize_name(req.name)
        pins = [s.version for s in req.specifier if s.operator == "=="]
        elsewhere = [i for i in (index, *extra) if i and name in served.get(i, set())]
        routed = any(name in pkgs for pkgs in served.values() if pkgs and name not in listing)
        on_index = index is not None and index not in PYPI
        if on_index and not elsewhere:
            out.append(f"{req}: {index} serves no {name} build the matrix knows")
            continue
        route_only = any(
            canonicalize_name(r.package) == name and r.index_url for r in matrix.build_routes
        )
        if route_only and not elsewhere:
            out.append(f"{req}: only its own index serves it, and the command names none")
            continue
        if not on_index and not elsewhere:
            if name not in listing and not routed:
                out.append(f"{req}: {name} is not on the PyPI listing")
                continue
            for v in pins:
                if name in listing and Version(v) > Version(listing[name]):
                    out.append(f"{req}: newer than PyPI's newest {name} {listing[name]}")
        for v in pins:
            public = v.split("+")[0]
            if (name, public) not in known and (name, v) not in known:
                out.append(f"{req}: the matrix knows no {name} {v}")
    return out


@pytest.fixture(scope="module")
def commands(matrix: Any) -> list[tuple[str, str]]:
    return list(dict.fromkeys(_commands(matrix)))


def test_the_listing_is_a_recorded_fixture_with_its_source() -> None:
    head = LISTING.read_text(encoding="utf-8").splitlines()[:3]
    assert any("Source:" in line for line in head)
    assert {"torch", "torchvision", "tensorflow", "nvidia-cudnn-cu12"} <= set(_listing())


def test_every_emitted_package_and_version_exists(matrix: Any, commands: list[Any]) -> None:
    listing = _listing()
    assert len(commands) > 50  # the grid, the golden files and the doctor's fixes
    bad = [f"{where}: {p}" for where, line in commands for p in _problems(line, listing, matrix)]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize(
    "line",
    [
        "pip install 'nvidia-cudnn-cu10>=7,<8'",  # the old TF 1.14 fix: no such package
        "pip install torch==2.99.0",  # no such release
        "pip install nvidia-tensorflow",  # PyPI has only a placeholder
        "pip install torchvision==0.28.0 --index-url https://download.pytorch.org/whl/cu999",
        "conda create -n gpu -c defaults --override-channels tensorflow-gpu=9.9.9",
        "conda install -c conda-forge --override-channels nvidia-cudnn-cu10",
    ],
)
def test_the_check_catches_a_command_that_cannot_work(matrix: Any, line: str) -> None:
    assert _problems(line, _listing(), matrix)
