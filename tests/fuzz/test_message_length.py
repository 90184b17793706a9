"""One-line messages quote at most about 200 characters of user text (issue 26 item 8)."""

from __future__ import annotations

from pathlib import Path

import pytest

from envcheck.errors import MAX_QUOTED, InputError, clip
from tests.conftest import run_cli

HUGE = "x" * 100_000

CONDA_LOCK = """\
version: 1
metadata:
  content_hash: {{}}
  channels: []
  platforms: [linux-64]
  sources: [environment.yml]
package:
- name: pytorch
  version: '2.1.0{huge}'
  manager: conda
  platform: linux-64
  dependencies: {{}}
  url: https://conda.anaconda.org/x/pytorch-2.1.0.tar.bz2
  hash: {{md5: 0123456789abcdef0123456789abcdef}}
"""


def test_clip_keeps_short_text_and_says_what_it_cut() -> None:
    assert clip("abc") == "abc"
    cut = clip(HUGE)
    assert cut.startswith("x" * MAX_QUOTED)
    assert str(len(HUGE) - MAX_QUOTED) in cut
    assert len(cut) < MAX_QUOTED + 40


def test_input_error_lines_are_bounded() -> None:
    assert len(str(InputError("p" * 10_000, 3, HUGE))) < 8 * MAX_QUOTED


def test_conda_lock_with_a_100_kb_version(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "conda-lock.yml").write_text(CONDA_LOCK.format(huge=HUGE))
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli("check", "conda-lock.yml")
    assert "EC201" in out + err  # still reported
    assert all(len(line) < 4 * MAX_QUOTED for line in (out + err).splitlines())
    assert code in (0, 1)


def test_matrix_why_with_a_100_kb_spec_is_refused_in_one_short_line() -> None:
    code, out, err = run_cli("matrix", "why", f"torch==2.5.1+{HUGE}")
    assert code == 2
    assert len(out + err) < 4 * MAX_QUOTED
