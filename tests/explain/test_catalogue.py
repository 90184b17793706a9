"""The signature catalogue (signatures/*.toml) and its loader."""

from __future__ import annotations

import dataclasses

from envcheck.explain import signatures
from envcheck.explain.catalogue import bundled_dir, read_catalogue


def test_the_data_equals_the_python_rows_field_by_field() -> None:
    old = signatures._FROM_REPORTS + signatures.EMITTED
    new = read_catalogue(bundled_dir())
    assert [s.id for s in new] == [s.id for s in old]
    for a, b in zip(old, new):
        for f in dataclasses.fields(signatures.Signature):
            if f.compare:
                assert getattr(a, f.name) == getattr(b, f.name), (a.id, f.name)
        assert a.pattern.pattern == b.pattern.pattern
