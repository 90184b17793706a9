"""Explain answers in time linear in its input (issue 26 item 1).

The shapes come from the signature table itself (tests/fuzz/shapes.py), so a
new signature is covered without a list to keep. Times are compared within one
run (one long line against ten short ones of the same total size; a 200 KB text
against a 20 KB one), never against a fixed number of seconds.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import pytest

from envcheck.explain import explain_findings, match_signatures
from envcheck.explain.anchors import anchors_of, lower
from envcheck.explain.core import MAX_LINE_CHARS
from envcheck.explain.signatures import SIGNATURES, Signature
from tests.fuzz.shapes import (
    grows_linearly,
    partial_matches,
    repeated,
    sample_matches,
    signature_keywords,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

CORPUS = Path(__file__).parents[1] / "fixtures" / "corpus" / "errors"


def _shapes(sig: Signature, size: int) -> list[tuple[str, str]]:
    """(name, line) of the worst shapes for ``sig`` at ``size`` characters: its
    anchors first (so the line is a candidate), then a partial match repeated or
    followed by a long tail of one character."""
    head = " ".join(sorted(anchors_of(sig.regex) or ())) + " "
    out = []
    for word in sorted(partial_matches(sig.regex) | set(anchors_of(sig.regex) or ())):
        room = size - len(head)
        if room <= len(word):
            continue
        out.append((f"{word!r} repeated", head + repeated(word, room)))
        out.append((f"{word!r} repeated with spaces", head + repeated(word, room, " ")))
        for tail in (" ", "a", "1", "."):
            out.append((f"{word!r} then {tail!r}s", head + word + tail * (room - len(word))))
    return out


def test_every_signature_has_a_literal_anchor() -> None:
    """A signature without one would be tried on every line of every log."""
    missing = [s.id for s in SIGNATURES if not anchors_of(s.regex)]
    assert missing == []
    short = {
        s.id: sorted(a)
        for s in SIGNATURES
        for a in [anchors_of(s.regex) or ()]
        if min(map(len, a), default=0) < 4
    }
    assert short == {}


@pytest.mark.parametrize("sig", SIGNATURES, ids=lambda s: s.id)
def test_every_sample_match_holds_an_anchor(sig: Signature) -> None:
    """The anchors are necessary: a line the signature matches always holds one."""
    anchors = anchors_of(sig.regex) or frozenset()
    for sample in sample_matches(sig.regex):
        if sig.pattern.search(sample):
            assert any(a in lower(sample) for a in anchors), sample


def _brute_force(text: str) -> dict[str, list[int]]:
    """Every signature on every capped line, as the anchors must agree with; a row a
    match on the same line supersedes is left out of that line, as the matcher does."""
    out: dict[str, list[int]] = {}
    for number, raw in enumerate(text.split("\n"), 1):
        line = raw[:MAX_LINE_CHARS].rstrip("\r")
        hits = [sig for sig in SIGNATURES if sig.pattern.search(line)]
        hidden = {h for sig in hits for h in sig.supersedes}
        for sig in hits:
            if sig.id not in hidden:
                out.setdefault(sig.id, []).append(number)
    return out


def _corpus_texts() -> list[str]:
    texts = []
    for path in sorted(CORPUS.glob("*.toml")):
        texts.extend(case["text"] for case in tomllib.loads(path.read_text())["case"])
    return texts


def test_anchored_matching_finds_what_brute_force_finds() -> None:
    """Over the whole failure corpus (and every sample match), the anchored
    matcher reports the same signatures on the same first lines as trying every
    signature on every line, superseded ones aside."""
    texts = _corpus_texts() + [s for sig in SIGNATURES for s in sample_matches(sig.regex)]
    assert len(texts) > 150
    for text in texts:
        brute = _brute_force(text)
        matches, _count = match_signatures(text)
        got = {m.signature.id: m.line_no for m in matches}
        hidden = {h for m in matches for h in m.signature.supersedes}
        for sid, lines in brute.items():
            if sid in got:
                assert got[sid] == lines[0], (sid, text[:200])
            else:
                assert sid in hidden, (sid, text[:200])
        assert set(got) <= set(brute)


@pytest.mark.parametrize("sig", SIGNATURES, ids=lambda s: s.id)
def test_signature_regex_is_linear_on_one_line(sig: Signature) -> None:
    """One line of the worst shapes, as long as a line is matched, costs what ten
    lines a tenth as long do."""
    slow = []
    for name, line in _shapes(sig, MAX_LINE_CHARS - 192):
        short = [line[: len(line) // 10]] * 10

        def one(line: str = line) -> object:
            return sig.pattern.search(line)

        def ten(short: list[str] = short) -> object:
            return [sig.pattern.search(x) for x in short]

        ok, why = grows_linearly(one, ten, 1.0)
        if not ok:
            slow.append(f"{name}: {why}")
    assert slow == []


def test_the_issue_shapes_are_linear() -> None:
    """The two reported shapes (issue 26 item 1): 200 KB on one line and on many
    lines within a small multiple of 20 KB's time, through what ``explain`` and
    ``doctor --from-collect-env`` call (the facts reader included)."""
    for word in ("NCCL error ", "libcudart"):
        for sep in ("", "\n"):
            big = repeated(word + sep, 200_000)
            small = repeated(word + sep, 20_000)
            ok, why = grows_linearly(
                functools.partial(explain_findings, big),
                functools.partial(explain_findings, small),
                10.0,
            )
            assert ok, (word, sep, why)


def test_every_keyword_is_linear_through_explain() -> None:
    """Every keyword any signature looks for, repeated on one 100 KB line, through
    the whole matcher (the line is cut before any regex runs; many lines of each
    shape are the regex test's ten lines above)."""
    words = sorted({w for ws in signature_keywords().values() for w in ws})
    slow = []
    for word in words:
        for sep in ("", " "):
            big = repeated(word, 100_000, sep)
            small = repeated(word, 10_000, sep)
            ok, why = grows_linearly(
                functools.partial(match_signatures, big),
                functools.partial(match_signatures, small),
                10.0,
            )
            if not ok:
                slow.append(f"{word!r} sep {sep!r}: {why}")
    assert slow == []
