"""Small comparable version keys: CUDA, compute capability, driver.

Raw strings are kept for display; comparisons go through these keys. A driver
version is never round-tripped through ``packaging.version.Version``, which
prints ``580.65.06`` as ``580.65.6``.
"""

from __future__ import annotations

import re
from typing import NamedTuple, Optional

_CUDA_RE = re.compile(r"^\s*(?:cuda\s*)?[vV]?(\d{1,2})\.(\d{1,2})(?:\.(\d{1,4}))?")
_CU_TAG_RE = re.compile(r"^cu(\d{1,2})(\d)$")
_CC_RE = re.compile(r"^\s*(?:sm_|compute_)?(\d{1,2})\.?(\d)[a-z]?\s*$")
_DRIVER_RE = re.compile(r"^\s*(\d{2,4})(?:\.(\d{1,3}))?(?:\.(\d{1,3}))?\s*$")


class CudaVersion(NamedTuple):
    """A CUDA major.minor version, ordered numerically."""

    major: int
    minor: int

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"

    @property
    def tag(self) -> str:
        """The PyTorch-style variant tag, e.g. ``cu124``."""
        return f"cu{self.major}{self.minor}"


class ComputeCapability(NamedTuple):
    """A GPU compute capability, e.g. 8.9 (``sm_89``)."""

    major: int
    minor: int

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"

    @property
    def sm(self) -> str:
        return f"sm_{self.major}{self.minor}"


class DriverVersion(NamedTuple):
    """An NVIDIA driver version: the raw string plus a numeric comparison key."""

    raw: str
    key: tuple[int, int, int]

    def __str__(self) -> str:
        return self.raw

    @property
    def branch(self) -> int:
        return self.key[0]


def parse_cuda_version(text: Optional[str]) -> Optional[CudaVersion]:
    """Parse ``12.4``, ``12.4.1``, ``V12.4.131`` or ``cu124``; returns None when unknown."""
    if not text:
        return None
    tag = _CU_TAG_RE.match(text.strip().lower())
    if tag:
        return CudaVersion(int(tag.group(1)), int(tag.group(2)))
    m = _CUDA_RE.match(text)
    if not m:
        return None
    return CudaVersion(int(m.group(1)), int(m.group(2)))


def parse_compute_capability(text: Optional[str]) -> Optional[ComputeCapability]:
    """Parse ``8.9``, ``sm_89``, ``89`` or ``sm_90a``; returns None when unknown."""
    if not text:
        return None
    m = _CC_RE.match(text.strip().lower())
    if not m:
        return None
    return ComputeCapability(int(m.group(1)), int(m.group(2)))


def parse_driver_version(text: Optional[str]) -> Optional[DriverVersion]:
    """Parse ``535.104.05`` (or ``551.78``, ``418``); returns None when unknown."""
    if not text:
        return None
    m = _DRIVER_RE.match(text)
    if not m:
        return None
    parts = tuple(int(g) if g is not None else 0 for g in m.groups())
    return DriverVersion(text.strip(), (parts[0], parts[1], parts[2]))
