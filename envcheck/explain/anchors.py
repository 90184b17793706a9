"""Literal anchors of the signature table: which lines can match at all (pure).

Matching a pasted log against every signature on every position costs time in
the number of signatures times the text's length, and a combined alternation of
the signatures' own regexes is slower still (Python's ``re`` tries each branch
at each position). Every signature, though, needs some literal text to match:
``NCCL (?:error|Error|failure)\\b.*unhandled system error`` cannot match a line
without "unhandled system error". :func:`anchors_of` reads those literals from
the regex's own parse tree (lower-cased, so ``(?i:...)`` parts are covered), and
:class:`AnchorIndex` finds them with one pattern built as a trie of literals,
which ``re`` walks with one character comparison per branch.

A line is matched against a signature only when one of its anchors is on it, so
the work is linear in the text for every signature; a signature whose regex has
no literal it always needs (none does today, a test holds that) is matched on
every line.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Optional


def _sre_parser() -> Any:
    """The regex parser of the running Python (``re._parser`` on 3.11+)."""
    try:
        return importlib.import_module("re._parser")
    except ImportError:
        return importlib.import_module("sre_parse")


def lower(text: str) -> str:
    """``text`` lower-cased with every character kept at its offset.

    U+0130 is the only character whose lower case is two characters long; it
    becomes ``i``, which ``(?i:i)`` matches too.
    """
    if not text.isascii():
        text = text.replace("\u0130", "i")
    return text.lower()


def anchors_of(regex: str) -> Optional[frozenset[str]]:
    """Lower-case literals one of which every match of ``regex`` contains.

    Returns None when the regex has no such literal (a signature made only of
    character classes or optional parts).
    """
    sre = _sre_parser()
    return _required(sre, list(sre.parse(regex)))


def _literal_char(sre: Any, op: Any, av: Any) -> Optional[str]:
    """The one lower-case character a LITERAL or a class like ``[Ee]`` stands for."""
    chars: set[str] = set()
    if op is sre.LITERAL:
        chars.add(chr(av))
    elif op is sre.IN and all(sub_op is sre.LITERAL for sub_op, _ in av):
        chars.update(chr(code) for _, code in av)
    else:
        return None
    lowered = {lower(c) for c in chars}
    if len(lowered) != 1:
        return None
    ch = lowered.pop()
    # Case folding outside ASCII has too many corners to trust for a filter.
    return ch if ch.isascii() else None


def _flatten(sre: Any, items: Iterable[tuple[Any, Any]]) -> Iterator[tuple[Any, Any]]:
    """Items of a sequence with plain groups opened (their contents are in sequence too)."""
    for op, av in items:
        if op is sre.SUBPATTERN:
            yield from _flatten(sre, list(av[-1]))
        else:
            yield op, av


def _required(sre: Any, items: Sequence[tuple[Any, Any]]) -> Optional[frozenset[str]]:
    """The best literal set of a sequence: every match of it contains one of them."""
    options: list[frozenset[str]] = []
    run: list[str] = []

    def close() -> None:
        if run:
            options.append(frozenset(("".join(run),)))
            run.clear()

    zero_width = (sre.AT, sre.ASSERT, sre.ASSERT_NOT)
    repeats = tuple(
        getattr(sre, name)
        for name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")
        if hasattr(sre, name)
    )
    for op, av in _flatten(sre, items):
        ch = _literal_char(sre, op, av)
        if ch is not None:
            run.append(ch)
            continue
        if op in zero_width:
            continue  # takes no characters: the literals around it are adjacent
        close()
        found: Optional[frozenset[str]] = None
        if op is sre.BRANCH:
            alternatives = [_required(sre, list(alt)) for alt in av[1]]
            if all(a is not None for a in alternatives):
                found = frozenset().union(*(a for a in alternatives if a is not None))
        elif op in repeats and av[0] >= 1:
            found = _required(sre, list(av[2]))
        if found:
            options.append(found)
    close()
    if not options:
        return None
    return max(options, key=lambda s: (min(map(len, s)), -len(s)))


@dataclass(frozen=True)
class AnchorIndex:
    """Where the signatures' anchors are, for a tuple of regexes."""

    first: re.Pattern[str]
    """Finds the leftmost anchor (a trie of literals, longest first)."""
    owners: dict[str, frozenset[int]]
    """Anchor (and every longer one the trie may report instead) -> regex indexes."""
    unanchored: frozenset[int]
    """Indexes of the regexes with no anchor: matched on every line."""

    @classmethod
    def build(cls, regexes: Sequence[str]) -> AnchorIndex:
        by_anchor: dict[str, set[int]] = {}
        unanchored = set()
        for i, regex in enumerate(regexes):
            found = anchors_of(regex)
            if not found:
                unanchored.add(i)
                continue
            for anchor in found:
                by_anchor.setdefault(anchor, set()).add(i)
        words = sorted(by_anchor)
        # The trie reports the longest anchor at a position: it stands for every
        # anchor that is a prefix of it too.
        owners = {
            w: frozenset(i for other in words if w.startswith(other) for i in by_anchor[other])
            for w in words
        }
        trie = _trie(words) if words else "(?!)"
        return cls(re.compile(trie), owners, frozenset(unanchored))

    def hits(self, lowered: str, start: int, end: int) -> frozenset[int]:
        """Indexes of the regexes with an anchor in ``lowered[start:end]``."""
        found: set[str] = set()
        pos = start
        while True:
            # One position past each hit, not past its end: anchors may overlap.
            m = self.first.search(lowered, pos, end)
            if m is None:
                break
            found.add(m.group())
            pos = m.start() + 1
        out: set[int] = set(self.unanchored)
        for word in found:
            out.update(self.owners[word])
        return frozenset(out)


def _trie(words: Sequence[str]) -> str:
    """One regex matching any of ``words``, longest first at each position, as a trie."""
    root: dict[str, Any] = {}
    for word in words:
        node = root
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}
    return _emit(root)


def _emit(node: dict[str, Any]) -> str:
    ends = "" in node
    branches = [re.escape(ch) + _emit(child) for ch, child in sorted(node.items()) if ch]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    return f"(?:{body})?" if ends else body
