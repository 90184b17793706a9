"""parse_environment: conda environment.yml text → pins with their YAML lines."""

from __future__ import annotations

import pytest

from envcheck.check.parse_environment import conda_spec_to_pep440, parse_environment
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
        ("pytorch", "==2.1.0.*", "conda", 7),
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
    ("spec", "expected"),
    [
        ("=3.10", "==3.10.*"),
        ("==2.1.0", "==2.1.0"),
        ("2.1.*", "==2.1.*"),
        (">=1.0,<2", ">=1.0,<2"),
        ("=2.1.0=py310_0", "==2.1.0.*"),
        ("", ""),
        ("1.2|1.4", None),
        ("[version='>=2']", None),
    ],
)
def test_match_spec_translation(spec: str, expected: object) -> None:
    assert conda_spec_to_pep440(spec) == expected


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
