"""Every file a project uses for its dependencies is found and named in the report.

Layouts from issue 26: a project with only ``dev-requirements.txt``, ``conda.yml``
or pip-tools ``*.in`` files was "0 files checked, no problems".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_cli

# Each layout lists its files in the order check reads them.
LAYOUTS = {
    "dev-requirements": ["dev-requirements.txt"],
    "requirements-dev": ["requirements-dev.txt"],
    "capitalised": ["Requirements.txt"],
    "requirements-dir": ["requirements/base.txt", "requirements/gpu.txt"],
    "pip-tools": ["requirements.in", "requirements.txt"],
    "pip-tools-dir": ["requirements/dev.in", "requirements/dev.txt"],
    "conda-yml": ["conda.yml"],
    "conda-yaml": ["conda.yaml"],
    "environment-variant": ["environment-gpu.yaml"],
}


@pytest.mark.usefixtures("check_matrix_env")
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_each_layout_is_found_and_every_file_read_is_named(
    layout: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in LAYOUTS[layout]:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if name.endswith((".yml", ".yaml")):
            path.write_text("dependencies:\n  - python=3.11\n  - numpy\n", encoding="utf-8")
        else:
            path.write_text("numpy\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli("check")
    assert (code, err) == (0, "")
    n = len(LAYOUTS[layout])
    assert out.splitlines() == [
        f"envcheck check: read {', '.join(LAYOUTS[layout])}",
        f"envcheck check: {n} file{'s' if n > 1 else ''} checked, no problems",
    ]
    assert sorted(run_cli("check", "--json").json()["files"]) == sorted(LAYOUTS[layout])


@pytest.mark.usefixtures("check_matrix_env")
def test_a_dev_requirements_file_is_judged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "dev-requirements.txt").write_text(
        "--index-url https://download.pytorch.org/whl/cu118\ntorch==2.8.0\n", encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    code, out, _ = run_cli("check")
    assert code == 1
    assert out.startswith("dev-requirements.txt:2: EC103 torch==2.8.0")


@pytest.mark.usefixtures("check_matrix_env")
def test_an_include_of_any_name_is_read_and_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "deps").mkdir()
    (tmp_path / "deps" / "gpu.pip").write_text("-c pins.constraints\ntorch\n", encoding="utf-8")
    (tmp_path / "deps" / "pins.constraints").write_text("torch==2.8.0\n", encoding="utf-8")
    (tmp_path / "requirements.txt").write_text(
        "--index-url https://download.pytorch.org/whl/cu118\n-r deps/gpu.pip\n", encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    code, out, _ = run_cli("check")
    lines = out.splitlines()
    assert lines[-2] == "envcheck check: read requirements.txt, deps/gpu.pip, deps/pins.constraints"
    assert lines[-1].startswith("envcheck check: 3 files checked")


def test_files_that_are_not_dependency_files_are_left_alone(tmp_path: Path) -> None:
    from envcheck.check.discover import discover

    for name in ("MANIFEST.in", "conda_build_config.yaml", "my-environment.yml", "setup.in"):
        (tmp_path / name).write_text("x\n", encoding="utf-8")
    assert discover(tmp_path) == []


def test_a_long_file_list_is_cut_in_text_but_whole_in_json() -> None:
    from envcheck.check.model import CheckReport
    from envcheck.check.render import SHOWN_FILES, render_json, render_text

    files = tuple(f"p{i}/requirements.txt" for i in range(SHOWN_FILES + 5))
    report = CheckReport(files, ())
    read = render_text(report).splitlines()[0]
    assert read.endswith(f"p{SHOWN_FILES - 1}/requirements.txt and 5 more")
    assert f"p{SHOWN_FILES}/" not in read
    assert f"p{SHOWN_FILES + 4}/requirements.txt" in render_json(report)
