"""Plain terminal rendering of an ExplainReport (rich, markup and highlighting off)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from envcheck.model.finding import Severity

if TYPE_CHECKING:
    from rich.console import Console

    from envcheck.explain.core import ExplainReport, Match
    from envcheck.model.finding import Finding

_LABEL = {Severity.ERROR: "error", Severity.WARNING: "warn", Severity.INFO: "info"}
_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}


def summary_line(report: ExplainReport) -> str:
    n = len(report.matches)
    lines = f"{report.lines_scanned} line{'s' if report.lines_scanned != 1 else ''}"
    if n == 0:
        return f"No known error signature recognised ({lines} scanned)"
    errors = sum(1 for m in report.matches if m.signature.severity == Severity.ERROR)
    where = "" if report.snapshot_used else "; no snapshot: pass --snapshot or drop --no-detect"
    return (
        f"{n} known error signature{'s' if n != 1 else ''} recognised "
        f"({errors} error{'s' if errors != 1 else ''}) in {lines}{where}"
    )


def render_explain_text(report: ExplainReport, console: Console) -> None:
    from rich.text import Text

    if not report.matches:
        f = report.findings[0]
        head = Text("  ")
        head.append(f"{_LABEL[f.severity]:<5}", style=_STYLE[f.severity])
        head.append(f" {f.title}  [{f.id}]")
        console.print(head, soft_wrap=True)
        for e in f.evidence:
            console.print(Text(f"        · {e}", style="dim"), soft_wrap=True)
        if f.fix:
            console.print(Text(f"        next: {f.fix}", style="green"), soft_wrap=True)
    # The findings, in their order (the first is the first cause, as --json gives it): a
    # finding that is a match as recognised shows the match (its lines, root cause and
    # fix); one the message's facts re-read (another cause, a platform, a doctor finding
    # on the facts shown) shows as that finding.
    by_id = {m.signature.id: m for m in report.matches}
    shown: set[str] = set()
    for f in report.findings if report.matches else ():
        m = by_id.get(f.id)
        if m is not None and f.title == m.signature.title and f.id not in shown:
            _render_match(m, console)
            shown.add(f.id)
        else:
            _render_finding(f, console)
    for m in report.matches:
        if m.signature.id not in shown and not any(f.id == m.signature.id for f in report.findings):
            _render_match(m, console)
    console.print()
    console.print(Text(summary_line(report), style="bold"), soft_wrap=True)


def _render_match(m: Match, console: Console) -> None:
    from rich.text import Text

    sig = m.signature
    head = Text("  ")
    head.append(f"{_LABEL[sig.severity]:<5}", style=_STYLE[sig.severity])
    head.append(f" {sig.title}", style="bold")
    head.append(f"  [{sig.id}]", style="dim")
    console.print(head, soft_wrap=True)
    for number, text in m.lines:
        console.print(Text(f"        line {number}: {text}", style="dim"), soft_wrap=True)
    if m.count > len(m.lines):
        console.print(
            Text(f"        ... {m.count - len(m.lines)} more matching lines", style="dim")
        )
    console.print(Text(f"        why: {sig.cause}"), soft_wrap=True)
    if m.root_cause:
        console.print(Text(f"        root cause: {m.root_cause}", style="bold"), soft_wrap=True)
    for e in m.evidence:
        console.print(Text(f"        · {e}", style="dim"), soft_wrap=True)
    fix_lines = (m.fix or sig.fix).splitlines()
    console.print(Text(f"        fix: {fix_lines[0]}", style="green"), soft_wrap=True)
    for extra in fix_lines[1:]:
        console.print(Text(f"             {extra}", style="green"), soft_wrap=True)
    console.print(Text(f"        source: {sig.source}", style="dim"), soft_wrap=True)


def _render_finding(f: Finding, console: Console) -> None:
    from rich.text import Text

    head = Text("  ")
    head.append(f"{_LABEL[f.severity]:<5}", style=_STYLE[f.severity])
    head.append(f" {f.title}", style="bold")
    head.append(f"  [{f.id}]", style="dim")
    console.print(head, soft_wrap=True)
    for e in f.evidence:
        prefix = "        " if e.startswith(("line ", "... ")) else "        · "
        console.print(Text(f"{prefix}{e}", style="dim"), soft_wrap=True)
    if f.detail:
        console.print(Text(f"        why: {f.detail}"), soft_wrap=True)
    if f.fix:
        fix_lines = f.fix.splitlines()
        console.print(Text(f"        fix: {fix_lines[0]}", style="green"), soft_wrap=True)
        for extra in fix_lines[1:]:
            console.print(Text(f"             {extra}", style="green"), soft_wrap=True)
    for source in f.sources[:1]:
        console.print(Text(f"        source: {source}", style="dim"), soft_wrap=True)
