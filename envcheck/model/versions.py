"""Small comparable version keys: CUDA, compute capability, driver.

Raw strings are kept for display; comparisons go through these keys. A driver
version is never round-tripped through ``packaging.version.Version``, which
prints ``580.65.06`` as ``580.65.6``.
"""

from __future__ import annotations

import functools
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


# -- release versions (frameworks, cuDNN, Python): the one key ---------------------

FINAL_RELEASE_RE = re.compile(r"^\d+(?:\.\d+)*(?:\.post\d+)?$")
"""A final release (no a/b/rc/dev): what "a framework's newest release" means."""
_RELEASE_RE = re.compile(
    r"^(\d+(?:\.\d+)*)(?:[._-]?(a|alpha|b|beta|c|rc|pre|preview|dev)\.?(\d*))?"
)
_PRE_RANK = {
    "dev": 0,
    "a": 1,
    "alpha": 1,
    "b": 2,
    "beta": 2,
    "c": 3,
    "rc": 3,
    "pre": 3,
    "preview": 3,
}


@functools.lru_cache(maxsize=4096)
def release_key(text: str) -> tuple[int, ...]:
    """The one ordering key for release versions: ``3.0.0b2`` < ``3.0.0`` <
    ``3.0.0.post1``; ``2.5`` == ``2.5.0``; a ``+local`` label is ignored.

    Framework, cuDNN and Python versions all compare through it (never driver
    versions: see ``parse_driver_version``)."""
    base = text.split("+")[0].strip()
    m = _RELEASE_RE.match(base)
    if not m:
        return tuple(int(p) for p in re.findall(r"\d+", base))
    nums = tuple(int(p) for p in m.group(1).split("."))
    nums += (0,) * max(0, 4 - len(nums))
    if m.group(2):
        return (*nums, 0, _PRE_RANK[m.group(2)], int(m.group(3) or 0))
    post = re.match(r"[._-]?post(\d+)", base[m.end(1) :])
    return (*nums, 1, int(post.group(1)) if post else 0, 0)


def release_numbers(text: Optional[str]) -> tuple[int, ...]:
    """The numbers a version is written with, unpadded: ``8.9.7.29`` -> (8, 9, 7, 29);
    ``8`` -> (8,); () when it has none."""
    return tuple(int(p) for p in re.findall(r"\d+", (text or "").split("+")[0]))


def release_minor(text: str) -> tuple[int, ...]:
    """``2.10.1`` -> (2, 10): the minor release a patch release belongs to."""
    return release_key(text)[:2]


def normalise_release(version: str) -> str:
    """``2.5.1+cu124`` -> ``2.5.1``; ``2.15`` -> ``2.15.0``."""
    base = version.split("+")[0].strip()
    parts = base.split(".")
    while len(parts) < 3 and all(p.isdigit() for p in parts):
        parts.append("0")
    return ".".join(parts)


def release_matches(wanted: str, version: str) -> bool:
    """``2.5`` matches ``2.5.0`` and ``2.5.1``; ``2.5.1`` matches only itself (and
    ``2.5.1.0``): a version a user typed, as a prefix of the releases it means."""
    w = [p for p in wanted.split("+")[0].split(".") if p]
    v = version.split("+")[0].split(".")
    if v[: len(w)] == w:
        return True
    # 2.15 == 2.15.0: trailing zeros are equal
    return bool(len(w) > len(v) and w[: len(v)] == v and all(p == "0" for p in w[len(v) :]))
