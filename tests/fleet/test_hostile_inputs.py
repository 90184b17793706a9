"""`fleet report` reads through the input gate (issue 26 item 3).

A FIFO, a name over the file-name limit, a schema of 5 000 digits (fleet or
snapshot) and a 40 MB node name: each is one line (exit 2) or one node's
recorded problem, never an internal error, a hang or an echo of the input.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from envcheck.fleet.records import make_record, record_line
from tests.conftest import run_cli
from tests.fleet import fleetgen as G


def _report(*paths: str) -> tuple[int, str, str]:
    code, out, err = run_cli("fleet", "report", "--json", *paths)
    assert "internal error" not in err and "Traceback" not in err
    return code, out, err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "nodes.jsonl"
    os.mkfifo(fifo)
    done: list[tuple[int, str, str]] = []
    worker = threading.Thread(target=lambda: done.append(_report(str(fifo))), daemon=True)
    worker.start()
    worker.join(20)
    if not done:  # unblock the reader so the test process can end
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
    assert done, "fleet report blocked on a FIFO"
    code, _out, err = done[0]
    assert code == 2
    assert "FIFO" in err and len(err.strip().splitlines()) == 1


def test_a_name_over_the_length_limit_is_one_line(tmp_path: Path) -> None:
    code, _out, err = _report(str(tmp_path / ("n" * 300 + ".jsonl")))
    assert code == 2
    assert len(err.strip().splitlines()) == 1


def test_a_fifo_in_a_folder_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_text(record_line(make_record("n1", snapshot=G.snapshot())))
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "b.jsonl")
    code, out, _err = _report(str(tmp_path))
    assert code in (0, 1)
    assert json.loads(out)["summary"]["nodes"] == 1


def test_a_fleet_schema_of_5000_digits_is_that_node_only(tmp_path: Path) -> None:
    bad = {**make_record("n2", snapshot=G.snapshot()), "schema": "envcheck.fleet/" + "9" * 5000}
    path = tmp_path / "f.jsonl"
    path.write_text(record_line(make_record("n1", snapshot=G.snapshot())) + json.dumps(bad) + "\n")
    code, out, err = _report(str(path))
    doc = json.loads(out)
    assert doc["summary"]["nodes"] == 2  # the report is not lost
    problems = {p["node"]: p for p in doc["problems"]}
    assert problems["n2"]["status"] == "unreadable"
    assert len(problems["n2"]["error"]) < 400
    assert code == 1


def test_a_snapshot_schema_of_5000_digits_is_a_newer_schema(tmp_path: Path) -> None:
    snap = {**G.snapshot(), "schema": "envcheck.snapshot/" + "9" * 5000}
    path = tmp_path / "f.jsonl"
    path.write_text(record_line(make_record("n1", snapshot=snap)))
    _code, out, _err = _report(str(path))
    errors = [p["error"] for p in json.loads(out)["problems"]]
    assert errors and all("newer envcheck" in e and len(e) < 400 for e in errors)
    assert not any("ValueError" in e for e in errors)


def test_a_40_mb_node_name_is_not_echoed(tmp_path: Path) -> None:
    path = tmp_path / "f.jsonl"
    huge = "x" * (40 * 1024 * 1024)
    path.write_text(
        record_line(make_record(huge, snapshot=G.snapshot()))
        + record_line(make_record("n2", snapshot=G.snapshot()))
    )
    code, out, _err = _report(str(path))
    assert code in (0, 1)
    assert len(out) < 1024 * 1024
    doc = json.loads(out)
    assert doc["summary"]["nodes"] == 2
