"""`envcheck explain`: recognise CUDA/cuDNN/driver errors in pasted text.

The signature table (``signatures.SIGNATURES``) is data; matching and the
snapshot-based root cause live in ``core``. Everything here is pure.
"""

from __future__ import annotations

from envcheck.explain.core import (
    EXPLAIN_SCHEMA,
    UNRECOGNISED,
    ExplainReport,
    Match,
    explain,
    explain_findings,
    match_signatures,
)
from envcheck.explain.signatures import SIGNATURES, Signature

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
