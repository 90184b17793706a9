"""Hostile inputs to ``check`` (issue 16): bounded time, one-line errors, no secrets printed."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.conftest import run_cli

SPACES = " " * 20_000


def _timed_check(*args: str) -> tuple[float, int, str, str]:
    start = time.monotonic()
    code, out, err = run_cli("check", *args)
    return time.monotonic() - start, code, out, err


@pytest.mark.usefixtures("check_matrix_env")
@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("requirements.txt", f"torch{SPACES}==2.4.0\n"),
        ("requirements.txt", f"torch==2.4.0{SPACES}x\n"),
        ("requirements.txt", f"torch[{SPACES}a\n"),
        ("requirements.txt", f"torch ; python_version{SPACES}<'3.9'\n"),
        ("requirements.txt", f"-r{SPACES}x.txt\n"),
        ("requirements.txt", f".{SPACES}x\n"),
        ("requirements.txt", "torch" + "\t " * 10_000 + "x\n"),
        ("pyproject.toml", f'[project]\nname = "p"\ndependencies = ["torch{SPACES}x"]\n'),
        ("environment.yml", f'dependencies:\n  - pip:\n    - "torch{SPACES}x"\n'),
    ],
)
def test_long_runs_of_whitespace_parse_in_linear_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, text: str
) -> None:
    from envcheck.check.parse_environment import parse_environment
    from envcheck.check.parse_pyproject import parse_pyproject
    from envcheck.check.parse_requirements import parse_requirements

    parse = {
        "requirements.txt": parse_requirements,
        "pyproject.toml": parse_pyproject,
        "environment.yml": parse_environment,
    }[name]
    start = time.monotonic()
    parse(text, name)  # type: ignore[operator]
    seconds = time.monotonic() - start
    assert seconds < 2, seconds  # was 4.5-55 s: quadratic regexes
    (tmp_path / name).write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli("check")
    assert "Traceback" not in out + err
    assert code in (0, 1, 2)


def _count_expansions(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Record each time a file's includes are expanded."""
    from envcheck.check import discover

    calls: list[object] = []
    original = discover._Reader._children

    def counting(self: discover._Reader, key: object, *args: object) -> object:
        calls.append(key)
        return original(self, key, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(discover._Reader, "_children", counting)
    return calls


@pytest.mark.usefixtures("check_matrix_env")
def test_include_fan_out_is_a_dag_not_a_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 22 tiny files, each including the next one twice: 2^22 expansions as a tree.
    for i in range(22):
        (tmp_path / f"part{i}.txt").write_text(
            f"-r part{i + 1}.txt\n-r part{i + 1}.txt\nnumpy\n", encoding="utf-8"
        )
    (tmp_path / "part22.txt").write_text("torch==2.4.0\n", encoding="utf-8")
    (tmp_path / "requirements.txt").write_text(
        "-r part0.txt\ntensorflow[and-cuda]==2.16.1\n", encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    calls = _count_expansions(monkeypatch)
    seconds, code, out, _ = _timed_check()
    assert seconds < 30, seconds
    assert len(calls) == 24  # each file expanded once
    assert code == 1
    assert out.splitlines()[0].startswith(
        "requirements.txt:2: EC102 tensorflow[and-cuda]==2.16.1 needs cuDNN 8, but torch==2.4.0"
        " (part22.txt:1)"
    )


@pytest.mark.usefixtures("check_matrix_env")
def test_two_hundred_chained_includes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Every file is discovered (requirements-N.txt) and includes the next: the
    # closure is computed once, not once per discovered file.
    n = 300
    for i in range(n):
        (tmp_path / f"requirements-{i}.txt").write_text(
            f"-r requirements-{i + 1}.txt\npkg{i}\n", encoding="utf-8"
        )
    (tmp_path / f"requirements-{n}.txt").write_text("torch==2.8.0+cu118\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    calls = _count_expansions(monkeypatch)
    seconds, code, out, _ = _timed_check()
    assert seconds < 30, seconds  # was 7.8 s for 300
    assert len(calls) == n + 1  # each file expanded once, not once per discovered file
    assert code == 1
    # One environment (the root of the chain), so the pin is reported once.
    assert [line for line in out.splitlines() if "EC103" in line] == [
        (
            f"requirements-{n}.txt:1: EC103 torch==2.8.0+cu118: no cu118 build of 2.8.0 was"
            " published (variants: cu126, cu128, cu129, cpu, rocm6.4)"
        )
    ]


@pytest.mark.usefixtures("check_matrix_env")
def test_dependency_group_fan_out_and_long_chains(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fan = "".join(
        f'g{i} = [{{include-group = "g{i + 1}"}}, {{include-group = "g{i + 1}"}}, "numpy"]\n'
        for i in range(22)
    )
    chain = "".join(f'c{i} = [{{include-group = "c{i + 1}"}}]\n' for i in range(1500))
    text = (
        '[project]\nname = "p"\n\n[dependency-groups]\n'
        + fan
        + 'g22 = ["torch==2.4.0", "tensorflow[and-cuda]==2.16.1"]\n'
        + chain
        + 'c1500 = ["numpy"]\n'
    )
    (tmp_path / "pyproject.toml").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    seconds, code, out, err = _timed_check()
    assert seconds < 20, seconds
    assert "Traceback" not in out + err and "RecursionError" not in out + err
    assert code == 1
    assert "EC102" in out


@pytest.mark.usefixtures("check_matrix_env")
def test_pins_are_not_compared_pairwise(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = "".join(
        "torch==2.4.0\n" if i % 2 else "tensorflow[and-cuda]==2.16.1\n" for i in range(20_000)
    )
    (tmp_path / "requirements.txt").write_text(lines, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    seconds, code, out, _ = _timed_check()
    assert seconds < 30, seconds  # pairwise: 2 000 lines took 50 s and 10^6 problems
    assert code == 1
    # One problem per conflicting line (against the first pin of the other kind).
    assert out.splitlines()[-1] == "envcheck check: 1 file checked, 19999 problems"


@pytest.mark.usefixtures("check_matrix_env")
def test_a_300_character_include_is_a_one_line_ec001(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "requirements.txt").write_text(f"-r {'a' * 300}.txt\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli("check")
    assert code == 2
    assert err == ""
    first = out.splitlines()[0]
    assert first.startswith("requirements.txt:1: EC001 included file aaaa")
    assert first.endswith("... cannot be read: File name too long")
    assert len(first) < 200


@pytest.mark.usefixtures("check_matrix_env")
def test_an_expanded_variable_is_never_printed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_SECRET", "sk-live-123")
    (tmp_path / "requirements.txt").write_text("-r ${MY_SECRET}\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for fmt in ("text", "json", "github", "sarif"):
        code, out, err = run_cli("check", "--output-format", fmt)
        assert code == 2
        assert "sk-live" not in out + err
        assert "${MY_SECRET}" in out
