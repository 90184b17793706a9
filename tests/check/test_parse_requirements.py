"""parse_requirements: pip requirement file text → pins, indexes, includes, problems."""

from __future__ import annotations

from envcheck.check.model import (
    INVALID_REQUIREMENT,
    UNKNOWN_OPTION,
    WARNING,
    Location,
)
from envcheck.check.parse_requirements import logical_lines, parse_requirements

TEXT = """\
# comment line
--index-url https://download.pytorch.org/whl/cu121
--extra-index-url=https://pypi.org/simple
-f https://download.pytorch.org/whl/torch_stable.html
-r base.txt
-c constraints.txt
--requirement=more.txt

torch==2.1.0+cu121  # pinned for the cluster
tensorflow[and-cuda]==2.16.1 ; sys_platform == "linux"
numpy>=1.24,<2 \\
    --hash=sha256:aaaa \\
    --hash=sha256:bbbb
Jax_Lib === 0.4.30
-e ./local/package
git+https://github.com/example/lib.git@main#egg=lib
https://example.com/wheels/thing-1.0-py3-none-any.whl
pkg @ https://example.com/pkg-1.0.tar.gz
./vendored
--pre
--trusted-host example.com
"""


def test_pins_with_lines() -> None:
    parsed = parse_requirements(TEXT, "req.txt")
    got = [(p.name, p.specifier, p.location.line, p.extras, p.local) for p in parsed.pins]
    assert got == [
        ("torch", "==2.1.0+cu121", 9, (), "cu121"),
        ("tensorflow", "==2.16.1", 10, ("and-cuda",), None),
        ("numpy", "<2,>=1.24", 11, (), None),
        ("jax-lib", "===0.4.30", 14, (), None),
    ]
    assert parsed.problems == ()


def test_options() -> None:
    parsed = parse_requirements(TEXT, "req.txt")
    assert [(i.kind, i.url, i.location.line) for i in parsed.indexes] == [
        ("index-url", "https://download.pytorch.org/whl/cu121", 2),
        ("extra-index-url", "https://pypi.org/simple", 3),
        ("find-links", "https://download.pytorch.org/whl/torch_stable.html", 4),
    ]
    assert [(i.target, i.constraint, i.location.line) for i in parsed.includes] == [
        ("base.txt", False, 5),
        ("constraints.txt", True, 6),
        ("more.txt", False, 7),
        ("./local/package", False, 15),
        ("./vendored", False, 19),
    ]
    assert [i.project for i in parsed.includes] == [False, False, False, True, True]


def test_continuations_and_comments() -> None:
    text = "a==1 \\\n  ; python_version < '3.12'\n#x\n  \nb  # c\nc#not-a-comment\n"
    assert logical_lines(text) == [
        (1, "a==1    ; python_version < '3.12'"),
        (5, "b"),
        (6, "c#not-a-comment"),
    ]


def test_trailing_backslash_at_end_of_file() -> None:
    assert logical_lines("torch==2.1.0 \\") == [(1, "torch==2.1.0")]


def test_garbage_lines_are_problems_not_crashes() -> None:
    text = "torch==2.1.0\n!!! not a requirement\nnumpy==\n\u00e9\u00e9 ==1\n--frobnicate x\n-r\n"
    parsed = parse_requirements(text, "r.txt")
    assert [p.name for p in parsed.pins] == ["torch"]
    assert [(p.location, p.code, p.severity) for p in parsed.problems] == [
        (Location("r.txt", 2), INVALID_REQUIREMENT, "error"),
        (Location("r.txt", 3), INVALID_REQUIREMENT, "error"),
        (Location("r.txt", 4), INVALID_REQUIREMENT, "error"),
        (Location("r.txt", 5), UNKNOWN_OPTION, WARNING),
        (Location("r.txt", 6), INVALID_REQUIREMENT, "error"),
    ]
    assert parsed.problems[0].render().startswith("r.txt:2: EC002 not a valid requirement")


def test_constraint_file_pins_are_marked() -> None:
    parsed = parse_requirements("torch==2.1.0\n", "c.txt", constraint=True)
    assert parsed.pins[0].constraint


def test_empty() -> None:
    assert parse_requirements("", "r.txt").pins == ()


def test_local_project_lines_are_project_includes() -> None:
    text = ".\n-e .[gpu, Test]\n./sub ; python_version > '3.8'\n-e ../other\n-e git+https://x/y.git#egg=y\n"
    parsed = parse_requirements(text, "r.txt")
    got = [(i.target, i.project, i.extras, i.location.line) for i in parsed.includes]
    assert got == [
        (".", True, (), 1),
        (".", True, ("gpu", "test"), 2),
        ("./sub", True, (), 3),
        ("../other", True, (), 4),
    ]
    assert parsed.pins == ()
    assert parsed.problems == ()


def test_fast_path_agrees_with_packaging() -> None:
    from packaging.requirements import Requirement

    from envcheck.check.parse_requirements import _parse_simple, normalise_name

    lines = [
        "torch",
        "torch==2.1.0+cu118",
        "Tensorflow[and-cuda]==2.16.1",
        "jax[cuda12, tpu] >= 0.4.30, <0.5",
        "numpy>=1.24,<2,!=1.25.0",
        "a.b_c-d~=1.4.2",
        "x===1.0",
        "y==1.*",
        "z<3",
    ]
    for line in lines:
        simple = _parse_simple(line)
        assert simple is not None, line
        req = Requirement(line)
        assert normalise_name(simple[0]) == normalise_name(req.name)
        assert sorted(simple[1]) == sorted(req.extras)
        assert str(simple[2]) == str(req.specifier)
    for line in ("torch; python_version < '3.9'", "pkg @ https://x/y.whl", "numpy==", "t (>=1)"):
        assert _parse_simple(line) is None, line
