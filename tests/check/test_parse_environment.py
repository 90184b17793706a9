"""parse_environment: conda environment.yml text → pins with their YAML lines."""

from __future__ import annotations

import pytest

from envcheck.check.model import Location
from envcheck.check.parse_environment import parse_conda_spec, parse_environment
from envcheck.errors import InputError

TEXT = """\
name: demo
channels:
  - pytorch
  - nvidia
dependencies:
  - python=3.10
  - pytorch::pytorch=2.1.0=py3.10_cuda11.8_cudnn8.7.0_0
  - pytorch-cuda=11.8
  - cuda-version==12.4
  - cudatoolkit 11.8.*
  - numpy>=1.24,<2
  - pip
  - pip:
      - --extra-index-url https://download.pytorch.org/whl/cu118
      - -r requirements.txt
      - tensorflow[and-cuda]==2.16.1
"""


def test_conda_and_pip_pins_with_lines() -> None:
    parsed = parse_environment(TEXT, "environment.yml")
    got = [(p.name, p.specifier, p.source, p.location.line) for p in parsed.pins]
    assert got == [
        ("python", "==3.10.*", "conda", 6),
        ("pytorch", "==2.1.0", "conda", 7),
        ("pytorch-cuda", "==11.8.*", "conda", 8),
        ("cuda-version", "==12.4", "conda", 9),
        ("cudatoolkit", "==11.8.*", "conda", 10),
        ("numpy", ">=1.24,<2", "conda", 11),
        ("pip", "", "conda", 12),
        ("tensorflow", "==2.16.1", "pip", 16),
    ]
    assert [(b.specifier, b.location.line) for b in parsed.python] == [("==3.10.*", 6)]
    assert [(i.kind, i.location.line) for i in parsed.indexes] == [("extra-index-url", 14)]
    assert [(i.target, i.location.line) for i in parsed.includes] == [("requirements.txt", 15)]
    assert parsed.problems == ()


@pytest.mark.parametrize(
    ("spec", "name", "expected"),
    [
        ("python=3.10", "python", "==3.10.*"),
        ("pytorch==2.1.0", "pytorch", "==2.1.0"),
        ("pytorch 2.1.*", "pytorch", "==2.1.*"),
        ("numpy>=1.0,<2", "numpy", ">=1.0,<2"),
        # With a build string the version is exact (conda's rule).
        ("pytorch=2.1.0=py310_0", "pytorch", "==2.1.0"),
        ("pytorch 2.1.0 *cuda*", "pytorch", "==2.1.0"),
        ("pytorch", "pytorch", ""),
        ("pytorch *", "pytorch", ""),
        ("conda-forge::pytorch=2.1", "pytorch", "==2.1.*"),
        ("conda-forge/linux-64::pytorch>=2", "pytorch", ">=2"),
        ("pytorch[version='>=2',build=*cuda*]", "pytorch", ">=2"),
        ('pytorch::pytorch[version="2.1.*", channel=pytorch]', "pytorch", "==2.1.*"),
        ("cuda-version >=11.8.*,<12", "cuda-version", ">=11.8,<12"),
        ("Py_Torch 2.1", "py-torch", "==2.1"),
        ("numpy ~=1.24", "numpy", "~=1.24"),
        ("numpy 2.*,!=2.0.3", "numpy", "==2.*,!=2.0.3"),
    ],
)
def test_match_specs_read_by_rattler(spec: str, name: str, expected: str) -> None:
    pin, problem = parse_conda_spec(spec, Location("e.yml", 3))
    assert (pin.name, pin.specifier, pin.source, pin.text) == (name, expected, "conda", spec)
    assert problem is None


@pytest.mark.parametrize("spec", ["numpy 1.2|1.4", "numpy >=1,<2|>=3", "pytorch=2.1.0+cu118"])
def test_versions_pep440_cannot_say_are_warnings(spec: str) -> None:
    pin, problem = parse_conda_spec(spec, Location("e.yml", 3))
    assert pin.specifier == ""
    assert problem is not None
    assert (problem.code, problem.severity, problem.location.line) == ("EC002", "warning", 3)


@pytest.mark.parametrize(
    ("spec", "why"),
    [
        ("pytorch =>2", "unable to parse version spec: =>2"),
        ("pytorch 2..1", "malformed version string '2..1'"),
        ("pytorch[version=", "invalid package name"),
        ("pytorch[foo=bar]", "invalid bracket key: foo"),
        ("*", "looks like a glob"),
    ],
)
def test_malformed_spec_is_one_line_input_error(spec: str, why: str) -> None:
    text = f"dependencies:\n  - python=3.11\n  - '{spec}'\n"
    with pytest.raises(InputError) as info:
        parse_environment(text, "env.yml")
    assert (info.value.path, info.value.line) == ("env.yml", 3)
    assert info.value.message.startswith(f"invalid conda spec {spec!r}: ")
    assert why in info.value.message
    assert "\n" not in info.value.message


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("dependencies:\n  - a\n - b\n", 3, "invalid YAML"),
        ("- just\n- a list\n", 1, "must be a mapping"),
        ("dependencies: 3\n", 1, "must be a list"),
        ("dependencies:\n  - pip: nope\n", 2, "pip: must be a list"),
        ("dependencies:\n  - [1, 2]\n", 2, "must be a string"),
        ("a: [\n", 2, "invalid YAML"),
    ],
)
def test_malformed_yaml_points_at_the_line(text: str, line: int, message: str) -> None:
    with pytest.raises(InputError) as info:
        parse_environment(text, "env.yml")
    assert info.value.path == "env.yml"
    assert info.value.line == line
    assert message in info.value.message


def test_unknown_key_and_bad_spec_are_warnings() -> None:
    parsed = parse_environment("nme: x\ndependencies:\n  - numpy 1.2|1.4\n", "e.yml")
    assert [(p.code, p.location.line, p.severity) for p in parsed.problems] == [
        ("EC005", 1, "warning"),
        ("EC002", 3, "warning"),
    ]


def test_empty_file() -> None:
    assert parse_environment("", "e.yml").pins == ()


def test_empty_pip_list_is_fine() -> None:
    assert parse_environment("dependencies:\n  - pip:\n", "e.yml").pins == ()


def test_alias_and_deep_nesting_do_not_crash() -> None:
    parsed = parse_environment("a: &a [*a]\n", "e.yml")
    assert [p.code for p in parsed.problems] == ["EC005"]
    deep = "dependencies:\n  - " + "[" * 2000 + "]" * 2000 + "\n"
    with pytest.raises(InputError):
        parse_environment(deep, "e.yml")
