"""Reading fleet records and snapshots: bad answers become per-node entries."""

from __future__ import annotations

import json
from pathlib import Path

from envcheck.fleet.records import (
    FAILED,
    OK,
    UNREACHABLE,
    UNREADABLE,
    input_files,
    make_record,
    read_file_entries,
    read_json_lines,
    record_line,
)
from tests.fleet import fleetgen as G


def _lines(*recs: object) -> list[str]:
    return [r if isinstance(r, str) else json.dumps(r) for r in recs]


def test_records_round_trip() -> None:
    snap = G.snapshot()
    line = record_line(make_record("n1", snapshot=snap, job_id="7", collector="slurm"))
    (e,) = read_json_lines([line], "f.jsonl")
    assert (e.node, e.status, e.job_id, e.where) == ("n1", OK, "7", "f.jsonl:1")
    assert e.snapshot == snap


def test_truncated_line_keeps_its_node_and_others() -> None:
    good = record_line(make_record("n1", snapshot=G.snapshot()))
    cut = record_line(make_record("n2", snapshot=G.snapshot()))[:150]
    entries = list(read_json_lines([good, cut, good.replace('"n1"', '"n3"')], "f"))
    assert [(e.node, e.status) for e in entries] == [("n1", OK), ("n2", UNREADABLE), ("n3", OK)]
    assert "truncated" in (entries[1].error or "")


def test_traceback_lines_are_one_entry() -> None:
    tb = [
        "Traceback (most recent call last):",
        '  File "x.py", line 1, in <module>',
        "ModuleNotFoundError: No module named 'envcheck'",
    ]
    good = record_line(make_record("n1", snapshot=G.snapshot()))
    entries = list(read_json_lines([good, *tb, good.replace('"n1"', '"n2"')], "f"))
    assert [e.status for e in entries] == [OK, UNREADABLE, OK]
    assert entries[1].where == "f:2-4"
    assert "traceback" in (entries[1].error or "")
    assert "ModuleNotFoundError" in (entries[1].error or "")


def test_newer_schemas_are_per_node() -> None:
    newer_record = {"schema": "envcheck.fleet/9", "node": "n1", "status": "ok"}
    newer_snap = make_record("n2", snapshot={**G.snapshot(), "schema": "envcheck.snapshot/9"})
    e1, e2 = read_json_lines(_lines(newer_record, newer_snap), "f")
    assert e1.status == UNREADABLE and "newer" in (e1.error or "")
    # The snapshot's own schema is checked when it is parsed (once per distinct one).
    assert e2.status == OK


def test_unreachable_and_failed_records() -> None:
    recs = [
        make_record("n1", status=UNREACHABLE, error="no answer within 60 s"),
        make_record(
            "n2",
            status=FAILED,
            error="exit 1",
            output="Traceback (most recent call last):\nBoom: x",
        ),
    ]
    e1, e2 = read_json_lines(_lines(*recs), "f")
    assert (e1.status, e1.error) == (UNREACHABLE, "no answer within 60 s")
    assert e2.status == FAILED and "Boom: x" in (e2.error or "")


def test_directory_of_single_snapshots(tmp_path: Path) -> None:
    (tmp_path / "node-a.json").write_text(json.dumps(G.snapshot(), indent=2))
    (tmp_path / "node-b.json").write_text("Traceback (most recent call last):\nKeyError: 'x'\n")
    (tmp_path / "node-c.json").write_text(json.dumps(G.snapshot(), indent=2)[:300])
    (tmp_path / "README.md").write_text("not a snapshot")
    files = input_files(str(tmp_path))
    assert [Path(f).name for f in files] == ["node-a.json", "node-b.json", "node-c.json"]
    entries = [e for f in files for e in read_file_entries(f)]
    assert [(e.node, e.status) for e in entries] == [
        ("node-a", OK),
        ("node-b", UNREADABLE),
        ("node-c", UNREADABLE),
    ]


def test_bare_snapshot_lines_are_named_by_line(tmp_path: Path) -> None:
    p = tmp_path / "snaps.jsonl"
    p.write_text(json.dumps(G.snapshot()) + "\n\n" + json.dumps(G.snapshot()) + "\n")
    assert [e.node for e in read_file_entries(str(p))] == [f"{p}:1", f"{p}:3"]


def test_empty_file_has_no_entries(tmp_path: Path) -> None:
    p = tmp_path / "empty.jsonl"
    p.write_text("\n")
    assert list(read_file_entries(str(p))) == []
