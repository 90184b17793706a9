"""`envcheck explain`: recognise CUDA/cuDNN/driver errors in pasted text.

The signature table (``signatures.SIGNATURES``) is data, ``signatures/*.toml``
read by ``catalogue`` on first use; matching and the snapshot-based root cause
live in ``core``. Everything here is pure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from envcheck.explain.core import (
    EXPLAIN_SCHEMA,
    UNRECOGNISED,
    ExplainReport,
    Match,
    explain,
    explain_findings,
    match_signatures,
)
from envcheck.explain.signatures import Signature

if TYPE_CHECKING:
    from envcheck.explain.signatures import SIGNATURES

__all__ = [
    "EXPLAIN_SCHEMA",
    "SIGNATURES",
    "UNRECOGNISED",
    "ExplainReport",
    "Match",
    "Signature",
    "explain",
    "explain_findings",
    "match_signatures",
]


def __getattr__(name: str) -> Any:
    # SIGNATURES is read from the catalogue the first time it is used, not at import.
    if name == "SIGNATURES":
        from envcheck.explain.catalogue import load_catalogue

        return load_catalogue()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
