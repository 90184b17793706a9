"""GPU names: match NVML, nvidia-smi and user spellings to ``gpus.toml`` rows.

A name resolves in this order:

1. its canonical key (``normalise_gpu_name`` minus memory sizes, form factors and
   MIG profiles, with "Laptop GPU" / "Mobile" / "Max-Q Design" folded into one
   ``laptop`` word) equals a row's name or alias, with or without the
   GeForce/Quadro/Tesla brand word: an exact match;
2. a laptop name whose desktop counterpart is a row ("GeForce RTX 3080 Ti Laptop
   GPU" -> "GeForce RTX 3080 Ti"): that row, marked ``inferred``;
3. a row whose key is a whole-word prefix of the name ("GeForce RTX 4090 D" ->
   "GeForce RTX 4090"): that row, marked ``inferred``;
4. a product family whose known members all share one compute capability
   ("RTX 4070 Something": every RTX 4070 model is 8.9): no row, ``inferred``.
   A family whose members disagree (RTX 3050 is 8.6, RTX 3050 A Laptop 8.9)
   infers nothing.

Non-NVIDIA names (``gpu_vendor_of``) never match. A name NVIDIA gave to boards
with different chips (``[[shared_name]]``: GeForce GT 730 is GF108, GK107 or
GK208B) matches no row: ``GpuIndex.shared`` returns it, and it is no member of a
family either.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Optional

from envcheck.matrix.rows import GpuModel, SharedGpuName
from envcheck.model.versions import ComputeCapability

_BRANDS = ("geforce", "quadro", "tesla", "grid")
"""Brand words a name may carry or drop. "GRID" also prefixes virtual-GPU names
("GRID T4-16Q": a T4 slice), whose chip is the board's."""

_NOISE = re.compile(
    r"^(\d+\s*gb|\d+g|hbm\d?e?|pcie|sxm\d?|nvl|nvlink|mxm|oam|fhhl|gpu|graphics|mig"
    r"|generation|\d+g\.\d+gb|\(tm\)|\(r\))$"
)
"""Tokens that name memory size, form factor or a MIG slice, not a different chip."""

_VGPU_PROFILE = re.compile(r"-\d+[abcq]$")
"""A virtual-GPU profile ending a name ("T4-16Q", "A100-40C": frame-buffer GB and
series), not a different chip. Only as a hyphenated suffix: "GeForce 710A" is a model."""

_LAPTOP_WORDS = re.compile(r"\b(?:with )?max q(?: design)?\b|\bmaxq\b|\b(?:mobile|notebook)\b")


def normalise_gpu_name(name: str) -> str:
    """Lower case, no "NVIDIA", punctuation as spaces; "3050Ti" -> "3050 ti"."""
    text = _VGPU_PROFILE.sub("", name.strip().lower()).replace("nvidia", " ")
    text = re.sub(r"[-_/,]+", " ", text)
    # NVIDIA's own tables write "RTX 3050Ti Laptop GPU" and "GTX 1660SUPER" too.
    text = re.sub(r"(\d)(ti|super)\b", r"\1 \2", text)
    return " ".join(text.split())


def gpu_key(name: str) -> str:
    """The canonical form both the table and a query are compared in."""
    text = normalise_gpu_name(name)
    text = _LAPTOP_WORDS.sub(" laptop ", text)
    out: list[str] = []
    for token in text.split():
        if _NOISE.match(token) or (token == "laptop" and "laptop" in out):
            continue
        out.append(token)
    return " ".join(out)


def _unbranded(key: str) -> str:
    tokens = key.split()
    while tokens and tokens[0] in _BRANDS:
        tokens = tokens[1:]
    return " ".join(tokens)


_GEFORCE_LINE = re.compile(r"^(rtx|gtx|gts|gt|mx) (\d{3,4})\b")
_RTX_A = re.compile(r"^rtx a(\d{3,4})\b")
_QUADRO_LETTER = re.compile(r"^quadro ([kmpt])(\d{3,4})|^(t)(\d{3,4})\b")
"""Quadro K/M/P/T models, and the Turing T-series sold without the Quadro brand
(T400 ... T1200); no other NVIDIA product is "T" and three or four digits."""
_DATACENTER = re.compile(r"^(gh|gb|a|h|l|b)(\d{1,3})[a-z]?$")
_WORKSTATION_MARKS = {"ada", "blackwell", "pro"}
_VARIANT_WORDS = {"ti", "super", "a", "s", "x", "xp", "z", "black", "m", "ada", "le", "boost"}
"""Words after a model name that make another model (not memory or form factor)."""


def _families(key: str) -> tuple[tuple[str, str], ...]:
    """Family keys of a canonical GPU key, most specific first: (family id, label)."""
    bare = _unbranded(key)
    tokens = set(bare.split())
    out: list[tuple[str, str]] = []
    m = _GEFORCE_LINE.match(bare)
    if m and not key.startswith("quadro") and not tokens & _WORKSTATION_MARKS:
        line, num = m.groups()
        out.append((f"{line}:{num}", f"{line.upper()} {num} models"))
        # One architecture per 4-digit series (GTX 10/16, RTX 20-50); older lines
        # mixed architectures inside a series (GTX 750 Maxwell, GTX 760 Kepler).
        if line in ("rtx", "gtx") and len(num) == 4:
            out.append((f"{line}:{num[:2]}xx", f"{line.upper()} {num[:2]} series"))
    m = _RTX_A.match(bare)
    if m:
        out.append((f"rtx-a:{m.group(1)}", f"RTX A{m.group(1)} models"))
        out.append(("rtx-a", "RTX A-series (Ampere workstation)"))
    if bare.startswith("rtx") and "ada" in tokens:
        out.append(("rtx-ada", "RTX Ada Generation workstation"))
    if bare.startswith("rtx pro") and "blackwell" in tokens:
        out.append(("rtx-pro-blackwell", "RTX PRO Blackwell"))
    if key.startswith("quadro rtx"):
        out.append(("quadro-rtx", "Quadro RTX"))
    m = _QUADRO_LETTER.match(key)
    if m:
        letter = m.group(1) or m.group(3)
        label = (
            "Quadro T and NVIDIA T series" if letter == "t" else f"Quadro {letter.upper()} series"
        )
        out.append((f"quadro-{letter}", label))
    first = bare.split(" ", 1)[0] if bare else ""
    m = _DATACENTER.match(first)
    if m:
        out.append((f"dc:{m.group(1)}", f"{m.group(1).upper()}-series data center"))
    for word in ("orin", "xavier", "thor"):
        if word in tokens:
            out.append((f"jetson-{word}", f"Jetson {word.capitalize()}"))
    return tuple(out)


_VENDOR_PATTERNS = (
    ("nvidia", re.compile(r"\b(nvidia|geforce|quadro|titan|jetson|tegra|nvs)\b")),
    (
        "amd",
        re.compile(r"\b(amd|radeon|ati|firepro|instinct|vega|mi\d{2,3}[a-z]?|gfx\d{3,4}[a-z]?)\b"),
    ),
    ("intel", re.compile(r"\b(intel|iris|uhd graphics|hd graphics|arc [abc]\d{3}m?)\b")),
    ("apple", re.compile(r"^(apple\b.*|m[1-9](?: (?:pro|max|ultra))?)$")),
    ("amd", re.compile(r"\brx ?\d{3,4}\b")),
    ("nvidia", re.compile(r"\b(rtx|gtx|tesla)\b")),
)


def gpu_vendor_of(name: str) -> Optional[str]:
    """``"nvidia"``, ``"amd"``, ``"intel"`` or ``"apple"`` when the name says so;
    None when it does not tell (a bare "A100" is left to the NVIDIA table)."""
    text = " ".join(re.sub(r"[-_/,()]+", " ", name.lower()).split())
    for vendor, pattern in _VENDOR_PATTERNS:
        if pattern.search(text):
            return vendor
    return None


@dataclass(frozen=True)
class GpuMatch:
    """A GPU name resolved against the table."""

    name: str
    """The name as asked for."""
    compute_capability: ComputeCapability
    architecture: str
    model: Optional[GpuModel]
    """The table row; None when only the family is known."""
    inferred: bool
    """False: the name (or an alias) is in the table. True: a laptop variant, a
    longer name or a family member the table does not list; ``basis`` says which."""
    basis: str
    """What decided: the row's name, or "<family> (all known models are X.Y)"."""


class GpuIndex:
    """All spellings of all rows, plus the families they belong to."""

    def __init__(self, gpus: Iterable[GpuModel], shared: Iterable[SharedGpuName] = ()) -> None:
        self.shared_by_key: dict[str, SharedGpuName] = {}
        for row in shared:
            for spelling in (row.name, *row.aliases):
                key = gpu_key(spelling)
                self.shared_by_key.setdefault(key, row)
                self.shared_by_key.setdefault(_unbranded(key), row)
        self.by_key: dict[str, GpuModel] = {}
        members: dict[str, set[tuple[ComputeCapability, str]]] = {}
        self.family_label: dict[str, str] = {}
        for gpu in gpus:
            for spelling in (gpu.name, *gpu.aliases):
                key = gpu_key(spelling)
                self.by_key.setdefault(key, gpu)
                # "Tesla K80" is also asked for as "K80"; "GeForce RTX 4090" as "RTX 4090".
                short = _unbranded(key)
                if short:
                    self.by_key.setdefault(short, gpu)
                for family, label in _families(key):
                    members.setdefault(family, set()).add(
                        (gpu.compute_capability, gpu.architecture)
                    )
                    self.family_label[family] = label
        self.families = members
        # Known keys by their first word, longest first: a prefix lookup scans only
        # the keys that can match (an unknown name costs microseconds, not a
        # millisecond, and a snapshot may list a thousand GPUs).
        self._by_first: dict[str, list[tuple[list[str], str]]] = {}
        for known in sorted(self.by_key, key=lambda k: -len(k.split())):
            ktoks = known.split()
            self._by_first.setdefault(ktoks[0] if ktoks else "", []).append((ktoks, known))

    def _exact(self, key: str) -> Optional[GpuModel]:
        hit = self.by_key.get(key)
        if hit is None:
            hit = self.by_key.get(_unbranded(key))
        return hit

    def shared(self, name: str) -> Optional[SharedGpuName]:
        """The shared-name row the name (or its unbranded form) spells exactly."""
        key = gpu_key(name)
        if not key or gpu_vendor_of(name) not in (None, "nvidia"):
            return None
        return self.shared_by_key.get(key) or self.shared_by_key.get(_unbranded(key))

    def match(self, name: str) -> Optional[GpuMatch]:
        key = gpu_key(name)
        if not key or gpu_vendor_of(name) not in (None, "nvidia"):
            return None
        if key in self.shared_by_key or _unbranded(key) in self.shared_by_key:
            return None  # several chips under one name: the caller asks ``shared``
        hit = self._exact(key)
        if hit is not None:
            return _row(name, hit, inferred=False)
        tokens = key.split()
        if "laptop" in tokens:
            desktop = " ".join(t for t in tokens if t != "laptop")
            hit = self._exact(desktop)
            if hit is not None:
                return _row(name, hit, inferred=True, why=f"laptop variant of {hit.name}")
        hit = self._prefix(key)
        if hit is not None:
            return _row(name, hit, inferred=True, why=f"a longer name for {hit.name}")
        return self._family(name, key)

    def _prefix(self, key: str) -> Optional[GpuModel]:
        """The longest known key that is a whole-word prefix of the name."""
        tokens = [t for t in key.split() if t != "laptop"]
        for candidate in (tokens, _unbranded(" ".join(tokens)).split()):
            if not candidate:
                continue
            # An empty key (none in the data) would sort last, as it does here.
            scan = self._by_first.get(candidate[0], []) + self._by_first.get("", [])
            for ktoks, known in scan:
                if len(ktoks) < len(candidate) and candidate[: len(ktoks)] == ktoks:
                    # "RTX 3050 Ti" is not a longer name for "RTX 3050": a model of its own.
                    if candidate[len(ktoks)] in _VARIANT_WORDS:
                        continue
                    return self.by_key[known]
        return None

    def _family(self, name: str, key: str) -> Optional[GpuMatch]:
        for family, _label in _families(key):
            found = self.families.get(family)
            if not found:
                continue
            if len(found) != 1:
                return None  # the family's models differ: a broader family cannot tell either
            ((cc, arch),) = found
            label = self.family_label[family]
            return GpuMatch(name, cc, arch, None, True, f"{label} (all known models are {cc})")
        return None

    def lookup(self, name: str) -> Optional[GpuModel]:
        found = self.match(name)
        return found.model if found else None


def _row(name: str, gpu: GpuModel, inferred: bool, why: str = "") -> GpuMatch:
    return GpuMatch(name, gpu.compute_capability, gpu.architecture, gpu, inferred, why or gpu.name)
