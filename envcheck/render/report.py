"""Rendering a doctor Report: rich text for terminals, markdown for issues."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from envcheck.model.finding import Severity

if TYPE_CHECKING:
    from envcheck.doctor import Report
    from envcheck.model.finding import Finding

_LABEL = {Severity.ERROR: "ERROR", Severity.WARNING: "WARN", Severity.INFO: "INFO"}
BULLET = "\u00b7"
"""The evidence bullet (middle dot); ``output_console`` streams that cannot encode
it print "?" instead of crashing (PYTHONIOENCODING=ascii)."""
_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}


def summary_line(report: Report, strict: bool = False) -> str:
    """The last line: the verdict the exit code gives (``strict``: warnings fail
    too), the counts, and how many findings were ignored."""
    e, w, i = (report.count(s) for s in (Severity.ERROR, Severity.WARNING, Severity.INFO))
    if e:
        verdict = "GPU stack has problems"
    elif strict and w:
        verdict = "warnings found (--strict fails on them)"
    else:
        verdict = "no errors found"
    ignored = f", {len(report.ignored)} ignored" if report.ignore else ""
    return (
        f"{verdict}: {e} error{'s' * (e != 1)}, {w} warning{'s' * (w != 1)}, "
        f"{i} note{'s' * (i != 1)}{ignored} (matrix {report.matrix_version})"
    )


def render_report_text(
    report: Report, console: Any, matrix: Any = None, strict: bool = False
) -> None:
    """The doctor report on a rich Console or a ``PlainConsole``; with the
    ``matrix``, a GPU without a reported CC gets it from its name; ``strict``:
    the summary says that warnings fail."""
    from envcheck.render.blocks import Line, emit
    from envcheck.render.text import matrix_gpu_lookup, snapshot_sections, stderr_tail_block

    lookup = matrix_gpu_lookup(matrix) if matrix is not None else None
    for section in snapshot_sections(report.snapshot, lookup):
        emit(console, section)
        emit(console, "")
    if report.deep:
        emit(console, Line.of("Smoke tests (--deep)", "bold italic"))
        for result in report.deep:
            if result.get("skipped"):
                status, style = "skipped", "dim"
            elif result.get("ok"):
                status, style = "ok", "green"
            else:
                status, style = "FAILED", "bold red"
            line = Line.of(f"  {result.get('framework', '?')}: ")
            line.append(status, style)
            summary = result.get("summary") if not result.get("skipped") else result["skipped"]
            if summary:
                line.append(f"  {summary}")
            emit(console, line)
            tail = result.get("stderr_tail")
            if tail:
                emit(console, stderr_tail_block(str(result.get("framework", "?")), tail))
        emit(console, "")
    emit(console, Line.of("Findings", "bold italic"))
    if not report.findings:
        emit(console, "  none")
    for f in report.findings:
        _render_finding(f, console)
    emit(console, "")
    if report.ignore:
        emit(console, Line.of("Ignored (--ignore, [tool.envcheck.doctor])", "bold italic"))
        for f in report.ignored:
            line = Line.of(f"  {_LABEL[f.severity]:<5}", "dim")
            line.append(f" {f.title}  [{f.id}]", "dim")
            emit(console, line, soft_wrap=True)
        for missing in report.ignore_unmatched:
            emit(console, Line.of(f"  {missing}: no such finding in this report", "dim"))
        emit(console, "")
    failed = report.failed(strict)
    style = "bold red" if failed else "bold green"
    emit(console, Line.of(summary_line(report, strict), style), soft_wrap=True)


def _render_finding(f: Finding, console: Any) -> None:
    from envcheck.render.blocks import Line, emit

    def say(text: str, style: Optional[str]) -> None:
        # soft_wrap: long commands and paths stay on one line (copy-pasteable);
        # the terminal wraps them visually.
        emit(console, Line.of(text, style), soft_wrap=True)

    head = Line.of("  ")
    head.append(f"{_LABEL[f.severity]:<5}", _STYLE[f.severity])
    head.append(f" {f.title}", "bold" if f.severity != Severity.INFO else None)
    head.append(f"  [{f.id}]", "dim")
    emit(console, head, soft_wrap=True)
    for e in f.evidence:
        say(f"        {BULLET} {e}", "dim")
    if f.fix:
        lines = f.fix.splitlines()
        label = "tip" if f.severity is Severity.INFO else "fix"
        say(f"        {label}: {lines[0]}", "green")
        for extra in lines[1:]:
            say(f"             {extra}", "green")
    if f.detail:
        say(f"        note: {f.detail}", "dim")
    for src in f.sources:
        say(f"        source: {src}", "dim")


def render_report_markdown(report: Report, strict: bool = False) -> str:
    """A markdown report for pasting into an issue (plain string, no rich)."""
    s = report.snapshot
    out = ["## envcheck doctor report", ""]
    out.append(f"**{summary_line(report, strict)}**")
    out.append("")
    out.append("| | |")
    out.append("|---|---|")
    p, py, d = s.platform, s.python, s.driver

    def row(k: str, v: object) -> None:
        out.append(f"| {k} | {_md(v)} |")

    row("OS", " ".join(x for x in (p.os, p.arch, p.distro, p.distro_version) if x) or None)
    row("Kernel", p.kernel)
    row("WSL", f"WSL {p.wsl_version}" if p.wsl and p.wsl_version else p.wsl)
    row("Container", p.container)
    row("Python", f"{py.version or '?'} ({py.env_kind or '?'})")
    row("Driver", d.version)
    row("Driver max CUDA", d.cuda_version)
    for g in s.gpus:
        row(
            f"GPU {g.index}",
            f"{g.name} (CC {g.compute_capability or '?'}, {g.memory_total_mib or '?'} MiB)",
        )
    for t in s.cuda_toolkits:
        row("CUDA toolkit", f"{t.version} ({t.source}) {t.path or ''}")
    for lib in s.libraries:
        row(lib.name or "library", f"{lib.version} ({lib.source})")
    for fw in s.frameworks:
        build = f"CUDA {fw.cuda_version}" if fw.cuda_version else "CPU" if fw.cpu_only else "?"
        row(fw.name or "framework", f"{fw.package or fw.name} {fw.version} ({build})")
    out.append("")
    out.append("### Findings")
    out.append("")
    if not report.findings:
        out.append("None.")
    for f in report.findings:
        out.append(f"- **{_LABEL[f.severity]}** {_md(f.title)} (`{f.id}`)")
        for e in f.evidence:
            out.append(f"  - {_md(e)}")
        if f.fix:
            if "\n" in f.fix or f.fix.startswith(("pip ", "conda ", "sudo ", "unset ")):
                out.append("  - fix:")
                out.append("")
                out.append("    ```")
                out.extend(f"    {line}" for line in f.fix.splitlines())
                out.append("    ```")
            else:
                out.append(f"  - fix: {_md(f.fix)}")
        for src in f.sources:
            out.append(f"  - source: <{src}>")
    if report.ignore:
        out.append("")
        out.append("### Ignored")
        out.append("")
        out.extend(f"- {_LABEL[f.severity]} {_md(f.title)} (`{f.id}`)" for f in report.ignored)
        out.extend(f"- `{_md(i)}`: no such finding" for i in report.ignore_unmatched)
    out.append("")
    return "\n".join(out)


def _md(value: object) -> str:
    if value is None:
        return "-"
    if value is True:
        return "yes"
    if value is False:
        return "no"
    return str(value).replace("|", "\\|").replace("\n", " ")
