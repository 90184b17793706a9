"""Output files (issue 16 item 3): atomic, never through a symlink, refused
without --force — for ``detect -o``, ``env -o`` and ``matrix export -o``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from envcheck import outfile
from envcheck.errors import InputError
from tests.conftest import run_cli

MINI = Path(__file__).parent / "fixtures" / "matrix-mini"
MACHINE = ("--driver", "580.65.06", "--gpu", "RTX 5090", "--os", "linux")
needs_symlinks = pytest.mark.skipif(os.name == "nt", reason="symlinks need privileges")


def one_line(code: int, err: str, needle: str) -> None:
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1, err
    assert needle in err, err


# ------------------------------------------------------------------ --force


def test_matrix_export_refuses_an_existing_file_without_force(tmp_path: Path) -> None:
    target = tmp_path / "matrix.json"
    target.write_text("mine", encoding="utf-8")
    env = {"ENVCHECK_MATRIX": str(MINI)}
    code, _, err = run_cli("matrix", "export", "-o", str(target), env=env)
    one_line(code, err, "--force")
    assert target.read_text(encoding="utf-8") == "mine"
    code, _, err = run_cli("matrix", "export", "-o", str(target), "--force", env=env)
    assert code == 0, err
    assert target.read_text(encoding="utf-8").startswith("{")


def test_detect_refuses_an_existing_file_before_detecting(tmp_path: Path) -> None:
    target = tmp_path / "snap.json"
    target.write_text("mine", encoding="utf-8")
    code, _, err = run_cli("detect", "-o", str(target))  # the fence: no probe may run
    one_line(code, err, "--force")
    assert target.read_text(encoding="utf-8") == "mine"


# ------------------------------------------------------------------ symlinks


@needs_symlinks
@pytest.mark.parametrize("force", [False, True])
def test_env_never_writes_through_a_symlink(tmp_path: Path, force: bool) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious", encoding="utf-8")
    link = tmp_path / "environment.yml"
    link.symlink_to(victim)
    args = ["env", "torch", "-o", str(link), *MACHINE] + (["--force"] if force else [])
    code, _, err = run_cli(*args)
    one_line(code, err, "symbolic link")
    assert victim.read_text(encoding="utf-8") == "precious"
    assert link.is_symlink()


@needs_symlinks
def test_env_does_not_create_a_dangling_links_target(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere" / "created.yml"
    target.parent.mkdir()
    link = tmp_path / "environment.yml"
    link.symlink_to(target)
    code, _, err = run_cli("env", "torch", "-o", str(link), *MACHINE)
    one_line(code, err, "symbolic link")
    assert not target.exists()


@needs_symlinks
@pytest.mark.parametrize("command", [("detect",), ("matrix", "export")])
def test_detect_and_export_refuse_a_symlink(tmp_path: Path, command: tuple[str, ...]) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious", encoding="utf-8")
    link = tmp_path / "out.json"
    link.symlink_to(victim)
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to(tmp_path / "nowhere.json")
    env = {"ENVCHECK_MATRIX": str(MINI)}
    for dest in (link, dangling):
        code, _, err = run_cli(*command, "-o", str(dest), "--force", env=env)
        one_line(code, err, "symbolic link")
    assert victim.read_text(encoding="utf-8") == "precious"
    assert not (tmp_path / "nowhere.json").exists()


# ------------------------------------------------------------------ atomicity


def test_a_failed_write_leaves_the_old_file_and_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "out.json"
    target.write_text("old", encoding="utf-8")

    def broken(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", broken)
    with pytest.raises(InputError, match="No space left"):
        outfile.write_text_atomic(target, "new" * 1000, force=True)
    assert target.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


def test_overwrite_keeps_the_mode_and_leaves_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    target.write_text("old", encoding="utf-8")
    target.chmod(0o640)
    outfile.write_text_atomic(target, "new", force=True)
    assert target.read_text(encoding="utf-8") == "new"
    if os.name != "nt":
        assert target.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


def test_a_new_file_gets_the_umask_mode(tmp_path: Path) -> None:
    target = tmp_path / "new.json"
    outfile.write_text_atomic(target, "x")
    if os.name != "nt":
        mask = os.umask(0)
        os.umask(mask)
        assert target.stat().st_mode & 0o777 == 0o666 & ~mask


def test_a_missing_directory_and_a_directory_destination(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        outfile.write_text_atomic(tmp_path / "no" / "f.json", "x")
    with pytest.raises(InputError, match="not a regular file"):
        outfile.write_text_atomic(tmp_path, "x", force=True)


# ------------------------------------------------------------------ env --name


@pytest.mark.parametrize(
    "name", ["x\nchannels: [evil]", "a b", "a/b", "a:b", "#x", "", "-x", "x" * 200]
)
def test_env_name_must_be_a_plain_name(tmp_path: Path, name: str) -> None:
    out = tmp_path / "environment.yml"
    code, _, err = run_cli("env", "torch", "-o", str(out), "--name", name, *MACHINE)
    assert code == 2, err
    assert "not an environment name" in err
    assert not out.exists()


@pytest.mark.parametrize("name", ["null", "true", "3.11", "no", "gpu", "my-env_1.0"])
def test_env_name_is_read_back_as_the_same_string(tmp_path: Path, name: str) -> None:
    import yaml

    out = tmp_path / "environment.yml"
    code, _, err = run_cli("env", "torch", "-o", str(out), "--name", name, *MACHINE)
    assert code == 0, err
    assert yaml.safe_load(out.read_text(encoding="utf-8"))["name"] == name
