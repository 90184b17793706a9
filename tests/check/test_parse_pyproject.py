"""parse_pyproject / parse_pixi: TOML text → environments with located pins."""

from __future__ import annotations

import pytest

from envcheck.check.parse_pixi import parse_pixi
from envcheck.check.parse_pyproject import parse_pyproject
from envcheck.errors import InputError

TEXT = """\
[project]
name = "demo"
requires-python = ">=3.10"
dependencies = [
    "torch==2.4.0",
    'numpy>=1.26',
]

[project.optional-dependencies]
tf = ["tensorflow[and-cuda]==2.16.1"]

[dependency-groups]
test = ["pytest>=8"]
dev = [{include-group = "test"}, "cupy-cuda12x"]

[tool.uv]
extra-index-url = ["https://download.pytorch.org/whl/cu121"]

[[tool.uv.index]]
name = "pytorch-cu124"
url = "https://download.pytorch.org/whl/cu124"
explicit = true

[tool.uv.sources]
torch = { index = "pytorch-cu124" }

[tool.envcheck]
min-driver = "535"
gpus = ["sm_120", "RTX 4090"]
platforms = ["linux", "windows"]
python = "3.11"
"""


def test_environments_and_lines() -> None:
    doc = parse_pyproject(TEXT, "pyproject.toml")
    assert [(p.name, p.location.line) for p in doc.base.pins] == [("torch", 5), ("numpy", 6)]
    assert [(b.specifier, b.location.line) for b in doc.base.python] == [(">=3.10", 3)]
    extras = {name: [(p.name, p.location.line) for p in part.pins] for name, part in doc.extras}
    assert extras == {
        "extra tf": [("tensorflow", 10)],
        "group test": [("pytest", 13)],
        "group dev": [("cupy-cuda12x", 14), ("pytest", 13)],
    }
    torch = doc.base.pins[0]
    assert torch.index_url == "https://download.pytorch.org/whl/cu124"
    assert torch.index_location is not None and torch.index_location.line == 21
    assert [(i.kind, i.url) for i in doc.base.indexes] == [
        ("extra-index-url", "https://download.pytorch.org/whl/cu121")
    ]


def test_declared_target() -> None:
    declared = parse_pyproject(TEXT, "pyproject.toml").declared
    assert declared is not None
    assert declared.location.line == 27
    assert declared.min_driver == "535"
    assert declared.gpus == ("sm_120", "RTX 4090")
    assert declared.platforms == ("linux", "windows")
    assert declared.python == "3.11"


def test_unknown_envcheck_key_is_unreadable() -> None:
    doc = parse_pyproject('[tool.envcheck]\nmin_driver = "535"\n', "p.toml")
    (problem,) = doc.problems
    assert (problem.code, problem.location.line, problem.severity) == ("EC005", 2, "unreadable")


def test_group_include_loop() -> None:
    text = '[dependency-groups]\na = [{include-group = "b"}]\nb = [{include-group = "a"}]\n'
    doc = parse_pyproject(text, "p.toml")
    assert {p.code for p in doc.problems} == {"EC003"}


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ('[project]\ndependencies = ["a"\n"b"]\n', 3, "invalid TOML"),
        ("[project]\ndependencies = 3\n", 2, "must be a list of strings"),
        ("[project]\nrequires-python = 3\n", 2, "requires-python must be a string"),
        ('[tool.envcheck]\nplatforms = ["beos"]\n', 2, "unknown platform"),
        ('[tool.uv.sources]\ntorch = { index = "nope" }\n', 2, "unknown index"),
        ('[dependency-groups]\na = [{include-group = "zz"}]\n', 2, "unknown group"),
    ],
)
def test_malformed(text: str, line: int, message: str) -> None:
    with pytest.raises(InputError) as info:
        parse_pyproject(text, "p.toml")
    assert info.value.line == line
    assert message in info.value.message


def test_pixi() -> None:
    text = """\
[project]
name = "p"

[dependencies]
python = "3.11.*"
pytorch = { version = ">=2.4,<2.5" }
cuda-version = "12.4"

[pypi-dependencies]
jax = { version = "==0.4.30", extras = ["cuda12"] }

[feature.tf.dependencies]
tensorflow = "2.16.*"
"""
    doc = parse_pixi(text, "pixi.toml")
    got = [(p.name, p.specifier, p.source, p.location.line) for p in doc.base.pins]
    assert got == [
        ("python", "==3.11.*", "conda", 5),
        ("pytorch", ">=2.4,<2.5", "conda", 6),
        ("cuda-version", "==12.4", "conda", 7),
        ("jax", "==0.4.30", "pip", 10),
    ]
    assert [b.specifier for b in doc.base.python] == ["==3.11.*"]
    assert [(n, [p.location.line for p in f.pins]) for n, f in doc.extras] == [("feature tf", [13])]


@pytest.mark.parametrize(
    "text",
    ["[dependencies]\npytorch = { version = 3 }\n", "[dependencies]\npytorch = 3\n"],
)
def test_pixi_bad_version(text: str) -> None:
    with pytest.raises(InputError) as info:
        parse_pixi(text, "pixi.toml")
    assert info.value.line == 2
