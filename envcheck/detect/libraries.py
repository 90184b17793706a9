"""Probe: libraries (placeholder until implemented)."""

from __future__ import annotations

from envcheck.detect.context import Context
from envcheck.detect.system import System


def probe_libraries(system: System, ctx: Context) -> None:
    """Not implemented yet."""
