"""Impossible target flags are refused with the range the matrix knows, and unknown
package names get a did-you-mean (issue 26: `plan torch --driver 9999` and
`--gpu sm_999` planned without a word; `plan torchh` listed 16 names)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from envcheck.matrix import Matrix
from tests.conftest import run_cli


@pytest.fixture(scope="module")
def branches(matrix: Matrix) -> tuple[int, int]:

    known = sorted(b.branch for b in matrix.driver_branches)
    return known[0], known[-1]


def test_a_driver_branch_that_cannot_exist(branches: tuple[int, int]) -> None:
    oldest, newest = branches
    code, out, err = run_cli("plan", "torch", "--driver", "9999")
    assert (code, out) == (2, "")
    assert (
        f"no NVIDIA driver branch 9999 (from '9999'): the matrix knows branches {oldest} to {newest}"
        in err
    )
    assert "Traceback" not in err


def test_a_driver_newer_than_the_matrix_is_still_planned(branches: tuple[int, int]) -> None:
    """A branch released after the matrix data may exist: only far beyond it is refused."""
    from envcheck.compat.target import BRANCH_HEADROOM

    _, newest = branches
    assert run_cli("plan", "torch", "--driver", f"{newest + 5}.10").exit_code == 0
    assert run_cli("plan", "torch", "--driver", f"{newest + BRANCH_HEADROOM + 1}").exit_code == 2


def test_a_compute_capability_no_gpu_has(matrix: Matrix) -> None:

    known = {str(c) for a in matrix.architectures for c in a.compute_capabilities}
    code, _, err = run_cli("plan", "torch", "--gpu", "sm_999")
    assert code == 2
    m = re.search(
        r"no NVIDIA GPU has compute capability 99\.9 \('sm_999'\): known capabilities are (.*)", err
    )
    assert m is not None, err
    listed = {f"{s[3:-1]}.{s[-1]}" for s in m.group(1).strip().split(", ")}
    assert listed == known
    assert run_cli("check", "--gpu", "sm_999").exit_code == 2
    assert run_cli("matrix", "why", "torch==2.5.1", "--gpu", "8.8").exit_code == 2
    assert run_cli("plan", "torch", "--gpu", "sm_89").exit_code == 0


@pytest.mark.parametrize(
    ("args", "meant"),
    [
        (("plan", "torchh"), "torch"),
        (("plan", "tensorflw"), "tensorflow"),
        (("env", "torchh", "-o", "-"), "torch"),
        (("matrix", "why", "torchh==2.5.1"), "torch"),
        (("matrix", "why", "tensorflw==2.15.0"), "tensorflow"),
    ],
)
def test_did_you_mean(args: tuple[str, ...], meant: str) -> None:
    code, _, err = run_cli(*args)
    assert code == 2
    assert f"(did you mean {meant!r}?)" in err
    assert "envcheck: error: envcheck" not in err  # one prefix (issue 26)


def test_no_suggestion_for_a_name_unlike_any() -> None:
    code, _, err = run_cli("plan", "numpy")
    assert code == 2
    assert "did you mean" not in err
    assert err.startswith("envcheck: error: cannot plan 'numpy'; envcheck plans: ")


def test_the_same_ranges_apply_to_tool_envcheck(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "p"\ndependencies = ["torch==2.5.1"]\n'
        '[tool.envcheck]\nmin-driver = "9999"\ngpus = ["sm_999"]\n',
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    code, out, _ = run_cli("check")
    assert code == 2
    problems = [line for line in out.splitlines() if " EC006 " in line]
    assert [p.split(" EC006 ")[1].split(":")[0] for p in problems] == [
        "no NVIDIA GPU has compute capability 99.9 ('sm_999')",
        "no NVIDIA driver branch 9999 (from '9999')",
    ]
