"""Dependency-file readers answer in time linear in their input (issue 26 items 2, 6).

Each test compares a tenfold input with the small one in the same run.
"""

from __future__ import annotations

import functools
import shlex

from hypothesis import given
from hypothesis import strategies as st

from envcheck.check.parse_pixi import parse_pixi
from envcheck.check.parse_pyproject import parse_pyproject
from envcheck.check.parse_requirements import _unquote, parse_requirements
from tests.fuzz.shapes import grows_linearly


def _pyproject(n: int) -> str:
    deps = "\n".join(f'  "pkg{i}>=1.{i}",' for i in range(n))
    return f'[project]\nname = "x"\nversion = "1"\ndependencies = [\n{deps}\n]\n'


def _pixi(n: int) -> str:
    deps = "\n".join(f'pkg{i} = ">=1.{i}"' for i in range(n))
    pypi = "\n".join(f'py{i} = ">=1.{i}"' for i in range(n))
    return (
        '[workspace]\nname = "x"\nchannels = ["conda-forge"]\nplatforms = ["linux-64"]\n'
        f"[dependencies]\n{deps}\n[pypi-dependencies]\n{pypi}\n"
    )


def test_pyproject_dependencies_are_located_in_linear_time() -> None:
    """Each dependency's line was found by a scan from the table header (O(n^2))."""
    small, big = _pyproject(300), _pyproject(3000)
    ok, why = grows_linearly(
        functools.partial(parse_pyproject, big, "p"),
        functools.partial(parse_pyproject, small, "p"),
        10.0,
    )
    assert ok, why
    parsed = parse_pyproject(big, "pyproject.toml")
    lines = [p.location.line for p in parsed.base.pins]
    assert lines == list(range(5, 3005))  # every pin keeps its own line


def test_pixi_dependencies_are_located_in_linear_time() -> None:
    small, big = _pixi(200), _pixi(2000)
    ok, why = grows_linearly(
        functools.partial(parse_pixi, big, "p"),
        functools.partial(parse_pixi, small, "p"),
        10.0,
    )
    assert ok, why


def test_pyproject_header_and_key_lines_with_long_space_runs_stay_linear() -> None:
    """Headers and keys are found with string operations, not regexes a space run
    makes quadratic."""

    def text(n: int) -> str:
        pad = " " * n
        return f'[{pad}project{pad}]\nname{pad}= "x"\nversion = "1"\ndependencies = ["torch"]\n'

    ok, why = grows_linearly(
        functools.partial(parse_pyproject, text(100_000), "p"),
        functools.partial(parse_pyproject, text(10_000), "p"),
        10.0,
    )
    assert ok, why


def test_include_values_are_unquoted_in_linear_time() -> None:
    """``-r``/``-c`` values went through shlex, quadratic in a word's length: an
    unquoted 1 MB value took 13 s, a line of repeated ${HOME} over 30 s."""
    for unit in ("a", "${HOME}", '"a b"', "'x'\\ "):
        for opt in ("-r ", "-c ", "--requirement="):
            small = opt + unit * (20_000 // len(unit)) + "\n"
            big = opt + unit * (200_000 // len(unit)) + "\n"
            ok, why = grows_linearly(
                functools.partial(parse_requirements, big, "r"),
                functools.partial(parse_requirements, small, "r"),
                10.0,
            )
            assert ok, (unit, opt, why)


def test_a_long_include_value_is_kept_whole() -> None:
    parsed = parse_requirements("-r " + "a" * 100_000 + "\n", "r")
    assert [len(i.target) for i in parsed.includes] == [100_000]


def _shlex_first(value: str) -> str:
    try:
        parts = shlex.split(value)
    except ValueError:
        return value
    return parts[0] if parts else value


@given(st.text(alphabet="ab \t\r\n'\"\\$#=", max_size=24))
def test_unquote_reads_the_first_word_as_shlex_does(value: str) -> None:
    """The linear reader agrees with ``shlex.split`` (POSIX) on every value."""
    assert _unquote(value) == _shlex_first(value)
