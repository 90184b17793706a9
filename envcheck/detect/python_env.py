"""Probe: python_env (placeholder until implemented)."""

from __future__ import annotations

from envcheck.detect.context import Context
from envcheck.detect.system import System


def probe_python(system: System, ctx: Context) -> None:
    """Not implemented yet."""
