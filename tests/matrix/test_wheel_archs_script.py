"""scripts/wheel_archs.py: the reader the matrix's wheel-read arch lists come from."""

from __future__ import annotations

import importlib.util
import json
import struct
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).parents[2] / "scripts" / "wheel_archs.py"


@pytest.fixture(scope="module")
def wa() -> ModuleType:
    spec = importlib.util.spec_from_file_location("wheel_archs", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _entry(kind: int, sm: int, payload: bytes) -> bytes:
    header = bytearray(64)
    struct.pack_into("<HHIQ", header, 0, kind, 0, len(header), len(payload))
    struct.pack_into("<I", header, 28, sm)
    return bytes(header) + payload


def _fatbin(*entries: tuple[int, int]) -> bytes:
    body = b"".join(_entry(kind, sm, b"\x00" * 40) for kind, sm in entries)
    return struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(body)) + body


def _wheel(tmp_path: Path, files: dict[str, bytes]) -> Path:
    path = tmp_path / "stub-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    return path


def _library(*fatbins: bytes) -> bytes:
    # Real libraries: fatbins sit among code; pad past the reader's size floor.
    filler = b"\x7fELF" + b"\x90" * (70 * 1024)
    return filler + b"".join(fatbins) + filler


def test_reads_sass_and_ptx_of_every_library(wa: ModuleType, tmp_path: Path) -> None:
    whl = _wheel(
        tmp_path,
        {
            "pkg/_core.so": _library(_fatbin((2, 60), (2, 70), (1, 70)), _fatbin((2, 60))),
            "pkg/_ops.pyd": _library(_fatbin((2, 37), (1, 37))),
            "pkg/readme.txt": b"not a library",
            "pkg/_cpu.so": _library(),
        },
    )
    libs = wa.wheel_archs(str(whl))
    assert libs == {
        "pkg/_core.so": {"fatbins": 2, "sass": [60, 70], "ptx": [70]},
        "pkg/_ops.pyd": {"fatbins": 1, "sass": [37], "ptx": [37]},
    }


def test_cli_summary_and_json(
    wa: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    whl = _wheel(tmp_path, {"a.so": _library(_fatbin((2, 75), (1, 80)))})
    assert wa.main([str(whl)]) == 0
    out = capsys.readouterr().out
    assert "sass: sm_75" in out and "ptx:  compute_80" in out
    assert wa.main(["--json", str(whl)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["sass"] == [75] and doc["ptx"] == [80]


def test_truncated_fatbin_and_bad_wheel(
    wa: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A container whose declared size runs past the end is skipped, not read past.
    cut = _fatbin((2, 86))[:-20]
    whl = _wheel(tmp_path, {"a.so": b"\x00" * (70 * 1024) + cut})
    assert wa.wheel_archs(str(whl)) == {}
    bad = tmp_path / "bad.whl"
    bad.write_bytes(b"not a zip")
    assert wa.main([str(bad)]) == 2
    assert "bad.whl" in capsys.readouterr().err
