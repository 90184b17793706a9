"""The failure corpus (tests/fixtures/corpus) is well formed.

The corpus is a held-out measure of `envcheck explain` and `doctor
--from-collect-env` (scripts/corpus_score.py scores it); these tests only check
its shape: unique ids, public URL sources, valid categories, non-empty texts,
and every collect_env report listed exactly once.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from envcheck.model.finding import Category

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

CORPUS = Path(__file__).parents[1] / "fixtures" / "corpus"
CATEGORIES = {c.value for c in Category}
MIN_ERRORS = 150
MIN_COLLECT_ENV = 30
COLLECTED_ERRORS = 776
COLLECTED_COLLECT_ENV = 31
# First cause only (scripts/corpus_score.py). Issue 28's target is >= 90 % for both;
# these are floors at the measured rates, so that a change that loses a case fails.
# The error floor fell from 0.9 when first-sight sets A and B (scored before any
# change, FIRST_SIGHT_A/B.md) joined the corpus: 201/247 then. Raise the floors
# as diagnosis improves (`python scripts/corpus_score.py --quiet` lists the misses).
EXPLAIN_HIT_TARGET = 0.86
DOCTOR_HIT_TARGET = 0.9


def _load(path: Path) -> list[dict[str, Any]]:
    doc = tomllib.loads(path.read_text(encoding="utf-8"))
    assert set(doc) <= {"case"}, f"{path.name}: only [[case]] tables belong here"
    cases: list[dict[str, Any]] = doc.get("case", [])
    return cases


def _error_cases() -> list[tuple[str, dict[str, Any]]]:
    return [
        (path.stem, case)
        for path in sorted((CORPUS / "errors").glob("*.toml"))
        for case in _load(path)
    ]


def _collect_env_cases() -> list[dict[str, Any]]:
    return _load(CORPUS / "collect_env" / "cases.toml")


def _check_common(where: str, case: dict[str, Any]) -> None:
    source = case.get("source", "")
    assert source.startswith("https://") and " " not in source, f"{where}: source must be a URL"
    assert case.get("category") in CATEGORIES, f"{where}: unknown category {case.get('category')!r}"
    cause = case.get("cause", "")
    assert cause.strip() and "\n" not in cause, f"{where}: cause must be one non-empty line"


def test_error_cases_are_well_formed() -> None:
    seen: set[str] = set()
    for framework, case in _error_cases():
        cid = case.get("id", "")
        where = f"errors/{framework}.toml:{cid}"
        assert cid and cid == cid.strip().lower() and " " not in cid, f"{where}: bad id"
        assert cid not in seen, f"{where}: duplicate id"
        seen.add(cid)
        assert set(case) == {"id", "source", "category", "cause", "text"}, where
        _check_common(where, case)
        assert case["text"].strip(), f"{where}: empty text"


def test_collect_env_cases_list_every_report_once() -> None:
    folder = CORPUS / "collect_env"
    listed = [case.get("file", "") for case in _collect_env_cases()]
    assert len(listed) == len(set(listed)), "a report is listed twice"
    on_disk = sorted(p.name for p in folder.glob("*.txt"))
    assert sorted(listed) == on_disk, "cases.toml and the .txt files differ"
    for case in _collect_env_cases():
        where = f"collect_env/{case['file']}"
        assert set(case) == {"file", "source", "category", "cause"}, where
        _check_common(where, case)
        assert (folder / case["file"]).read_text(encoding="utf-8").strip(), f"{where}: empty"


@pytest.mark.parametrize(
    ("count", "minimum"),
    [
        pytest.param(lambda: len(_error_cases()), COLLECTED_ERRORS, id="errors"),
        pytest.param(lambda: len(_collect_env_cases()), COLLECTED_COLLECT_ENV, id="collect_env"),
    ],
)
def test_corpus_never_shrinks(count: Any, minimum: int) -> None:
    # The target is MIN_ERRORS / MIN_COLLECT_ENV; the corpus holds fewer so far
    # (see the issue note). This floor keeps what was collected from being lost.
    assert count() >= minimum


def _scorer() -> Any:
    import importlib.util

    path = Path(__file__).parents[2] / "scripts" / "corpus_score.py"
    spec = importlib.util.spec_from_file_location("corpus_score", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_explain_names_the_established_cause_of_the_error_corpus() -> None:
    hits, total = _scorer().score_errors(CORPUS, True)
    assert total >= COLLECTED_ERRORS
    assert hits / total >= EXPLAIN_HIT_TARGET, f"{hits}/{total}"


def test_doctor_names_the_established_cause_of_the_collect_env_corpus() -> None:
    hits, total = _scorer().score_collect_env(CORPUS, True)
    assert total >= COLLECTED_COLLECT_ENV
    assert hits / total >= DOCTOR_HIT_TARGET, f"{hits}/{total}"
