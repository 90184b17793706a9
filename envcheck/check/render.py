"""Text (linter-style) and JSON renderings of a CheckReport: plain strings."""

from __future__ import annotations

import json

from envcheck.check.model import UNREADABLE, CheckReport


def render_text(report: CheckReport) -> tuple[str, str]:
    """(stdout, stderr): problems one per line, then a summary; unreadable input on stderr."""
    out = [p.render() for p in report.problems if p.severity != UNREADABLE]
    err = [p.render() for p in report.unreadable]
    n_files = len(report.files)
    files = f"{n_files} file{'s' if n_files != 1 else ''} checked"
    parts = []
    if report.errors:
        parts.append(_count(len(report.errors), "problem"))
    if report.warnings:
        parts.append(_count(len(report.warnings), "warning"))
    if report.unreadable:
        parts.append(_count(len(report.unreadable), "unreadable input"))
    summary = f"envcheck check: {files}, " + (", ".join(parts) if parts else "no problems")
    out.append(summary)
    return "\n".join(out) + "\n", "".join(line + "\n" for line in err)


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'s' if n != 1 else ''}"


def render_json(report: CheckReport) -> str:
    return json.dumps(report.to_json(), indent=2) + "\n"
