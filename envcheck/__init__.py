"""envcheck: diagnose and fix the GPU software stack of a machine."""

from __future__ import annotations

__all__ = ["__version__"]

# Kept as a literal (not importlib.metadata) so `envcheck --version` costs no
# metadata scan; pyproject.toml reads it from here (hatch `version.path`).
__version__ = "0.1.0"
