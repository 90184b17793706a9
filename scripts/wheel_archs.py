#!/usr/bin/env python3
"""List the GPU architectures compiled into a wheel: SASS (native code) and PTX.

The matrix's ``archs``/``ptx`` fields for builds whose build scripts cannot be
read (the TensorFlow 1.x wheels, for instance) were read this way: every CUDA
fatbinary embedded in the wheel's shared libraries names, per entry, whether it
is PTX or SASS and the ``sm_XY`` it targets. ``cuobjdump --list-elf`` and
``--list-ptx`` give the same answer where a CUDA toolkit is installed.

    python scripts/wheel_archs.py tensorflow_gpu-1.14.0-cp36-cp36m-win_amd64.whl
    python scripts/wheel_archs.py --json some.whl

A fatbinary container starts with the magic 0xBA55ED50, a u16 version, a u16
header size (16) and a u64 payload size; the payload is a run of entries, each
with a u16 kind (1 = PTX, 2 = ELF/SASS), a u32 header size, a u64 payload size
and the target architecture as a u32 at offset 28.

One limit: the entry header gives 90 both for generic ``compute_90`` PTX (which
newer GPUs JIT-compile) and for ``compute_90a`` (Hopper only; likewise 100a,
120a). Only the PTX text's ``.target`` line tells them apart, and the payload is
usually LZ4- or Zstandard-compressed, which the standard library cannot read:
before recording PTX of 9.0 or newer, decompress a few entries and read
``.target`` (onnxruntime-gpu 1.23.0 ships sm_90a PTX; TensorFlow 2.16+ generic
sm_90).
"""

from __future__ import annotations

import argparse
import json
import struct
import sys
import zipfile
from collections import Counter

MAGIC = struct.pack("<I", 0xBA55ED50)
_KINDS = {1: "ptx", 2: "sass"}
_MIN_LIBRARY_BYTES = 64 * 1024


def scan(data: bytes) -> tuple[int, Counter[tuple[str, int]]]:
    """(fatbinaries found, Counter of (kind, sm) entries) in one binary."""
    entries: Counter[tuple[str, int]] = Counter()
    found = 0
    pos = 0
    while True:
        start = data.find(MAGIC, pos)
        if start < 0 or start + 16 > len(data):
            return found, entries
        pos = start + 4
        _version, header, size = struct.unpack_from("<HHQ", data, start + 4)
        end = start + header + size
        if header != 16 or size == 0 or end > len(data):
            continue
        found += 1
        at = start + header
        while at + 32 <= end:
            kind, _, entry_header, entry_size = struct.unpack_from("<HHIQ", data, at)
            if kind not in _KINDS or entry_header < 32:
                break
            entries[(_KINDS[kind], struct.unpack_from("<I", data, at + 28)[0])] += 1
            at += entry_header + entry_size
        pos = max(pos, end)


def _is_library(name: str) -> bool:
    return name.endswith((".so", ".pyd", ".dll")) or ".so." in name


def wheel_archs(path: str) -> dict[str, dict[str, object]]:
    """Per shared library in the wheel that embeds fatbinaries: their count and entries."""
    out: dict[str, dict[str, object]] = {}
    with zipfile.ZipFile(path) as wheel:
        for info in wheel.infolist():
            if info.file_size < _MIN_LIBRARY_BYTES or not _is_library(info.filename):
                continue
            found, entries = scan(wheel.read(info))
            if found:
                out[info.filename] = {
                    "fatbins": found,
                    "sass": sorted({sm for kind, sm in entries if kind == "sass"}),
                    "ptx": sorted({sm for kind, sm in entries if kind == "ptx"}),
                }
    return out


def _summary(libraries: dict[str, dict[str, object]]) -> dict[str, list[int]]:
    sass: set[int] = set()
    ptx: set[int] = set()
    for lib in libraries.values():
        sass.update(lib["sass"])  # type: ignore[arg-type]
        ptx.update(lib["ptx"])  # type: ignore[arg-type]
    return {"sass": sorted(sass), "ptx": sorted(ptx)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("wheels", nargs="+", help="wheel files (.whl)")
    parser.add_argument("--json", action="store_true", help="one JSON document per wheel")
    args = parser.parse_args(argv)
    status = 0
    for path in args.wheels:
        try:
            libraries = wheel_archs(path)
        except (OSError, zipfile.BadZipFile) as exc:
            print(f"{path}: {exc}", file=sys.stderr)
            status = 2
            continue
        summary = _summary(libraries)
        if args.json:
            print(json.dumps({"wheel": path, **summary, "libraries": libraries}))
            continue
        if not libraries:
            print(f"{path}: no CUDA fatbinaries (a CPU build?)")
            continue
        print(path)
        print("  sass: " + " ".join(f"sm_{sm}" for sm in summary["sass"]))
        print("  ptx:  " + " ".join(f"compute_{sm}" for sm in summary["ptx"]))
        for name, lib in sorted(libraries.items()):
            if lib["sass"] != summary["sass"] or lib["ptx"] != summary["ptx"]:
                print(f"  differs: {name}: sass {lib['sass']} ptx {lib['ptx']}")
    return status


if __name__ == "__main__":
    sys.exit(main())
