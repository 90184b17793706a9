"""The compiled matrix cache: used when the key matches, rebuilt on any change."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from envcheck.errors import InputError
from envcheck.matrix import cache as mcache
from envcheck.matrix import clear_cache, load_matrix, user_cache_root

MINI = Path(__file__).parents[1] / "fixtures" / "matrix-mini"


@pytest.fixture
def matrix_dir(tmp_path: Path) -> Iterator[Path]:
    d = tmp_path / "m"
    shutil.copytree(MINI, d)
    clear_cache()
    yield d
    clear_cache()


def cache_path(directory: Path) -> Path:
    path = mcache.cache_file(directory)
    assert path is not None
    return path


def test_first_load_writes_the_cache_and_the_second_reads_it(
    matrix_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = mcache.load_compiled(matrix_dir)
    path = cache_path(matrix_dir)
    assert path.is_file()
    assert path.parent == user_cache_root() / "compiled"

    def no_parse(directory: Path) -> None:
        raise AssertionError("parsed although the cache is valid")

    monkeypatch.setattr("envcheck.matrix.load_matrix_from", no_parse)
    second = mcache.load_compiled(matrix_dir)
    assert second == first
    assert second is not first


def test_an_edited_toml_invalidates_the_cache(matrix_dir: Path) -> None:
    before = mcache.load_compiled(matrix_dir)
    toml = matrix_dir / "cuda_driver.toml"
    text = toml.read_text(encoding="utf-8")
    old = before.cuda_releases[0].label
    assert old is not None
    toml.write_text(text.replace(old, old + " (edited)", 1), encoding="utf-8")
    after = mcache.load_compiled(matrix_dir)
    assert after.cuda_releases[0].label == old + " (edited)"


def test_an_edit_keeping_size_and_mtime_still_invalidates(matrix_dir: Path) -> None:
    mcache.load_compiled(matrix_dir)
    toml = matrix_dir / "cuda_driver.toml"
    st = toml.stat()
    text = toml.read_text(encoding="utf-8")
    edited = text.replace("verified = true", "verified = frue", 1)
    assert len(edited) == len(text)
    toml.write_text(edited, encoding="utf-8")
    os.utime(toml, ns=(st.st_atime_ns, st.st_mtime_ns))
    with pytest.raises(InputError, match="invalid TOML"):
        mcache.load_compiled(matrix_dir)


def test_an_invalid_edit_is_never_served_from_the_cache(matrix_dir: Path) -> None:
    mcache.load_compiled(matrix_dir)
    toml = matrix_dir / "gpus.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + "\n[[gpu]]\nname = 1\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"gpus.toml:\d+: \[\[gpu\]\] #\d+ field '"):
        mcache.load_compiled(matrix_dir)


def test_a_new_file_invalidates_the_cache(matrix_dir: Path) -> None:
    before = mcache.load_compiled(matrix_dir)
    assert before.keras_releases == ()
    (matrix_dir / "keras.toml").write_text(
        'schema_version = 1\ndata_version = "2026-11-22"\n\n[[release]]\n'
        'versions = ["3.0.0"]\nbackends = ["jax"]\n'
        'source = "https://keras.io/getting_started/"\nverified = true\n',
        encoding="utf-8",
    )
    assert len(mcache.load_compiled(matrix_dir).keras_releases) == 1


@pytest.mark.parametrize("garbage", [b"", b"not a pickle", b"\x80\x05K\x01."])
def test_a_corrupt_cache_is_ignored_and_rewritten(matrix_dir: Path, garbage: bytes) -> None:
    expected = mcache.load_compiled(matrix_dir)
    path = cache_path(matrix_dir)
    path.write_bytes(garbage)
    assert mcache.load_compiled(matrix_dir) == expected
    assert path.read_bytes() != garbage


def test_a_cache_stored_under_another_key_is_ignored(matrix_dir: Path) -> None:
    expected = mcache.load_compiled(matrix_dir)
    path = cache_path(matrix_dir)
    assert mcache.write_cache(path, "some other key", expected)
    assert mcache.read_cache(path, "the real key") is None


def test_an_unwritable_cache_dir_still_loads(
    matrix_dir: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    blocker = tmp_path / "file-not-dir"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setattr(mcache, "cache_dir", lambda: blocker / "compiled")
    assert mcache.load_compiled(matrix_dir).cuda_releases
    assert not (blocker / "compiled").exists()


def test_no_cache_env_turns_it_off(matrix_dir: Path) -> None:
    mcache.load_compiled(matrix_dir, env={mcache.ENV_NO_CACHE: "1"})
    assert not cache_path(matrix_dir).exists()


def test_load_matrix_goes_through_the_cache(matrix_dir: Path) -> None:
    m = load_matrix(matrix_dir)
    assert cache_path(matrix_dir).is_file()
    assert m.location == str(matrix_dir)


def test_key_covers_versions_and_files(matrix_dir: Path) -> None:
    from envcheck.matrix.load import matrix_dir_files

    key = mcache.cache_key(matrix_dir, matrix_dir_files(matrix_dir))
    assert key is not None
    import sys

    import envcheck

    assert f"envcheck {envcheck.__version__}" in key
    assert sys.version in key
    assert "cuda_driver " in key
    assert str(matrix_dir.resolve()) in key


def test_the_cache_stores_equal_values_once_and_loads_an_equal_matrix(matrix_dir: Path) -> None:
    import gc

    first = mcache.load_compiled(matrix_dir)  # parsed, then written
    rows = first.cudnn_releases
    sources = {r.origin.source for r in rows}
    assert len(sources) < len(rows)  # several rows cite one support matrix
    assert len({id(r.origin.source) for r in rows}) == len(rows)  # parsed: one object each
    second = mcache.load_compiled(matrix_dir)  # read back
    assert second == first
    # Read from the cache, rows share one object per distinct value.
    assert len({id(r.origin.source) for r in second.cudnn_releases}) == len(sources)
    assert gc.isenabled()


def test_a_cached_matrix_unpickles_a_field_only_when_it_is_used(matrix_dir: Path) -> None:
    import copy
    import pickle

    parsed = mcache.load_compiled(matrix_dir)  # parsed, then written
    cached = mcache.load_compiled(matrix_dir)
    lazy = cached.__dict__["_lazy"]
    assert "gpus" in lazy.pending and "gpus" not in cached.__dict__
    assert "data_version" not in lazy.pending
    assert cached.version == parsed.version  # eager fields need no unpickling
    assert cached.gpus == parsed.gpus
    assert "gpus" in cached.__dict__  # unpickled once, then a plain attribute
    assert "cuda_releases" not in cached.__dict__
    # Pickling or copying loads every field and leaves the loader behind.
    for clone in (pickle.loads(pickle.dumps(cached)), copy.copy(cached)):
        assert "_lazy" not in clone.__dict__
        assert clone == parsed
    assert cached == parsed and repr(cached) == repr(parsed)
    with pytest.raises(AttributeError, match="no attribute 'no_such_field'"):
        cached.no_such_field  # noqa: B018


def test_a_field_that_no_longer_unpickles_is_read_from_the_files(matrix_dir: Path) -> None:
    parsed = mcache.load_compiled(matrix_dir)
    cached = mcache.load_compiled(matrix_dir)
    cached.__dict__["_lazy"].pending["cuda_releases"] = b"\x80\x05garbage"
    assert cached.cuda_releases == parsed.cuda_releases


@pytest.mark.parametrize(
    "stored",
    [
        ("envcheck compiled matrix", "KEY"),
        ("another format", "KEY", {}),
        ("envcheck compiled matrix", "KEY", {"data_version": "x"}),
    ],
)
def test_a_cache_file_of_another_shape_is_ignored(
    matrix_dir: Path, stored: tuple[object, ...]
) -> None:
    import marshal

    path = cache_path(matrix_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(marshal.dumps(stored))
    assert mcache.read_cache(path, "KEY") is None


def test_answers_derived_from_a_matrix_are_not_copied_with_it() -> None:
    # The judge keeps answers keyed by row identity on the matrix (``memo``); a copy
    # (the compiled cache pickles one) has other row objects and must derive its own.
    import pickle

    from envcheck.compat.candidate import from_build
    from envcheck.compat.judge import judge
    from envcheck.compat.target import Target
    from envcheck.model.versions import parse_compute_capability, parse_driver_version

    matrix = load_matrix()
    build = next(b for b in matrix.builds["torch"] if b.cuda is not None and b.archs is None)
    cc = parse_compute_capability("8.0")
    assert cc is not None
    target = Target(os="linux", driver=parse_driver_version("580.65.06"), gpus=(cc,))
    first = judge(from_build(build, build.versions[0]), target, matrix)
    assert matrix.memo and matrix._driver_requirements
    copy = pickle.loads(pickle.dumps(matrix))
    assert "memo" not in copy.__dict__ and "_driver_requirements" not in copy.__dict__
    twin = next(b for b in copy.builds["torch"] if b == build)
    again = judge(from_build(twin, build.versions[0]), target, copy)
    assert again.status == first.status
    assert [r.message for r in again.reasons] == [r.message for r in first.reasons]
    assert any(k[0] == "inferred_code" for k in matrix.memo)  # the memoised path ran
