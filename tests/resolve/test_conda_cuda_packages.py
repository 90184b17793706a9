"""conda-forge's cuda-version and cudatoolkit releases are matrix rows (conda.toml
[[cuda_package]]), and the conda and pixi emitters pin only releases listed there."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from envcheck.errors import InputError
from envcheck.matrix import bundled_dir, load_matrix_from
from envcheck.resolve import emit
from envcheck.resolve.conda import CondaFacts
from envcheck.resolve.plan import plan
from tests.resolve.test_plan import machine


def test_the_rows_list_what_the_feedstocks_build(matrix: Any) -> None:
    facts = CondaFacts.of(matrix)
    assert facts.has_cuda_package("cuda-version", 12, 4)
    assert not facts.has_cuda_package("cuda-version", 12, 7)  # never released
    assert facts.has_cuda_package("cudatoolkit", 11, 8)
    assert not facts.has_cuda_package("cudatoolkit", 12, 0)  # CUDA 12 is cuda-* packages


def test_the_pixi_toolkit_follows_the_rows(matrix: Any) -> None:
    """tensorflow-gpu 1.14 (CUDA 10.0, no CUDA in the wheel): cudatoolkit and
    cuda-version 10.0 where the rows list them, neither where they do not."""
    p = plan(["tensorflow-gpu==1.14.0"], machine("430.50", "7.5", python="3.6"), matrix)
    assert p.ok
    text = emit.emit_pixi(p)
    assert 'cudatoolkit = "10.0.*"' in text and 'cuda-version = "10.0.*"' in text
    without = replace(CondaFacts.of(matrix), cuda_packages=())
    assert all(not brings for brings in emit._pixi_toolkit(p, without).values())


def test_the_conda_cuda_version_pin_needs_a_listed_release(matrix: Any) -> None:
    p = plan(["torch"], machine("575.51.03", "8.9", python="3.12"), matrix)
    assert p.ok
    facts = CondaFacts.of(matrix)
    pin = emit._cuda_version_pin(p, facts)
    assert pin is not None
    assert emit._cuda_version_pin(p, replace(facts, cuda_packages=())) is None


def test_a_bad_release_in_a_row_names_the_file_and_line(tmp_path: Path) -> None:
    import shutil

    data = tmp_path / "matrices"
    shutil.copytree(bundled_dir(), data)
    path = data / "conda.toml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('"12.9", "13.0"', '"12.9", "13"', 1), encoding="utf-8")
    line = next(
        i for i, row in enumerate(path.read_text().splitlines(), 1) if row == "[[cuda_package]]"
    )
    with pytest.raises(InputError) as info:
        load_matrix_from(data)
    assert info.value.path is not None and info.value.path.endswith("conda.toml")
    assert info.value.line == line
    assert "versions" in str(info.value)
