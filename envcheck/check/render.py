"""Renderings of a CheckReport: text (linter-style), JSON, GitHub annotations, SARIF.

Every rendering is one string for stdout: ``envcheck check > report.txt`` keeps
every diagnostic, unreadable input (EC001, EC003, EC004...) included.
"""

from __future__ import annotations

from envcheck.check.model import CODE_NAMES, EXPLANATIONS, WARNING, CheckReport, Problem

FORMATS = ("text", "json", "github", "sarif")


def render(report: CheckReport, fmt: str) -> str:
    if fmt == "json":
        return render_json(report)
    if fmt == "github":
        return render_github(report)
    if fmt == "sarif":
        return render_sarif(report)
    return render_text(report)


SHOWN_FILES = 20
"""The text summary names this many files read (``--json`` lists every one)."""


def render_text(report: CheckReport) -> str:
    """Problems one per line, then the files read, then a summary."""
    out = [p.render() for p in report.problems]
    n_files = len(report.files)
    if n_files:
        names = ", ".join(report.files[:SHOWN_FILES])
        more = n_files - SHOWN_FILES
        out.append(f"envcheck check: read {names}" + (f" and {more} more" if more > 0 else ""))
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
    return "\n".join(out) + "\n"


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'s' if n != 1 else ''}"


def render_json(report: CheckReport) -> str:
    import json

    return json.dumps(report.to_json(), indent=2) + "\n"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(report: CheckReport) -> str:
    """GitHub Actions workflow commands: one annotation per problem on its file and line."""
    lines = []
    for p in report.problems:
        level = "warning" if p.severity == WARNING else "error"
        props = [f"file={_escape_property(p.location.path)}"]
        if p.location.line is not None:
            props.append(f"line={p.location.line}")
        props.append(f"title={_escape_property(f'{p.code} {p.name}')}")
        lines.append(f"::{level} {','.join(props)}::{_escape_data(f'{p.code} {p.message}')}")
    return "".join(line + "\n" for line in lines)


def _sarif_result(p: Problem) -> dict[str, object]:
    region = {"startLine": p.location.line} if p.location.line is not None else {}
    location: dict[str, object] = {"artifactLocation": {"uri": p.location.path}}
    if region:
        location["region"] = region
    return {
        "ruleId": p.code,
        "level": "warning" if p.severity == WARNING else "error",
        "message": {"text": p.message},
        "locations": [{"physicalLocation": location}],
    }


def render_sarif(report: CheckReport) -> str:
    """SARIF 2.1.0 (GitHub code scanning and other tools read it)."""
    rules = [
        {
            "id": code,
            "name": name,
            "shortDescription": {"text": name.replace("-", " ")},
            "fullDescription": {"text": EXPLANATIONS.get(code, name)},
        }
        for code, name in sorted(CODE_NAMES.items())
    ]
    doc = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "envcheck",
                        "informationUri": "https://github.com/envcheck/envcheck",
                        "rules": rules,
                    }
                },
                "results": [_sarif_result(p) for p in report.problems],
            }
        ],
    }
    import json

    return json.dumps(doc, indent=2) + "\n"


def explain(code: str) -> str:
    """``envcheck check --explain EC103``: what a code means."""
    code = code.strip().upper()
    if code not in CODE_NAMES:
        raise KeyError(code)
    return (
        f"{code} {CODE_NAMES[code]}\n\n{EXPLANATIONS.get(code, '')}\n\n"
        f"Silence one line with `# envcheck: ignore[{code}]`, every line with"
        f' `--ignore {code}` or `ignore = ["{code}"]` in [tool.envcheck].\n'
    )
