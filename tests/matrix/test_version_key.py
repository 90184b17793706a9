"""Version ordering used by 'newest release' decisions."""

from __future__ import annotations

from envcheck.model.versions import release_key


def test_prereleases_sort_before_their_final_release() -> None:
    versions = ["3.0.0", "3.0.0b2", "2.6.2.post120", "2.6.2", "3.0.0rc1", "3.0.0b1", "2.5"]
    assert sorted(versions, key=release_key) == [
        "2.5",
        "2.6.2",
        "2.6.2.post120",
        "3.0.0b1",
        "3.0.0b2",
        "3.0.0rc1",
        "3.0.0",
    ]


def test_local_labels_and_padding() -> None:
    assert release_key("2.5.1+cu124") == release_key("2.5.1")
    assert release_key("2.5") == release_key("2.5.0")
    assert release_key("3.10") > release_key("3.9")
