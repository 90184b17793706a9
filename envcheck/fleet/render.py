"""The fleet report as JSON, plain text and markdown (pure)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from envcheck.model.finding import Severity

if TYPE_CHECKING:
    from envcheck.fleet.report import Environment, FleetReport

REPORT_SCHEMA = "envcheck.fleet-report/1"
PLAN_FORMATS = ("pip", "conda", "yml", "requirements", "json")
SHOWN = 20


def names(nodes: Sequence[str], limit: int = SHOWN) -> str:
    if len(nodes) <= limit:
        return ", ".join(nodes)
    return ", ".join(nodes[:limit]) + f", ... (+{len(nodes) - limit} more)"


def _count(n: int) -> str:
    return f"{n} node" if n == 1 else f"{n} nodes"


def emit_all(env: Environment) -> dict[str, str]:
    """The environment in every ``plan`` output format."""
    from envcheck.resolve.emit import EMITTERS

    if env.plan is None or not env.plan.ok:
        return {}
    return {fmt: EMITTERS[fmt](env.plan) for fmt in PLAN_FORMATS if fmt in EMITTERS}


def _env_json(env: Environment) -> dict[str, Any]:
    out: dict[str, Any] = {
        "target": env.target.describe(),
        "requirements": list(env.requirements),
        "nodes": list(env.nodes),
        "ok": env.plan is not None and env.plan.ok,
        "error": env.error,
        "plan": None if env.plan is None else env.plan.to_json(),
        "emitted": emit_all(env),
    }
    if env.plan is not None and env.plan.unsatisfiable is not None:
        out["error"] = str(env.plan.unsatisfiable)
    return out


def report_json(r: FleetReport) -> dict[str, Any]:
    return {
        "schema": REPORT_SCHEMA,
        "matrix_version": r.matrix_version,
        "summary": {
            "nodes": r.nodes_total,
            "judged": r.nodes_judged,
            "stacks": len(r.stacks),
            "distinct_snapshots": r.distinct_snapshots,
            "errors": r.count(Severity.ERROR),
            "warnings": r.count(Severity.WARNING),
            "problem_nodes": len([p for p in r.problems if p.status != "duplicate"]),
            "error_nodes": list(r.error_nodes),
        },
        "input_problems": list(r.input_problems),
        "stacks": [s.to_json() for s in r.stacks],
        "findings": [g.to_json() for g in r.findings],
        "problems": [p.to_json() for p in r.problems],
        "environments": [_env_json(e) for e in r.environments],
        "excluded": [{"reason": why, "nodes": list(n)} for why, n in r.excluded],
    }


def _env_text(env: Environment, fmt: str) -> list[str]:
    lines = [f"  for {_count(len(env.nodes))}: {env.target.describe()}"]
    if env.requirements:
        lines.append(f"  frameworks: {' '.join(env.requirements)}")
    if env.error:
        lines.append(f"  cannot resolve: {env.error}")
        return lines
    assert env.plan is not None
    if env.plan.unsatisfiable is not None:
        lines.append(f"  no environment runs on all of them: {env.plan.unsatisfiable}")
        return lines
    from envcheck.resolve.emit import EMITTERS

    lines.extend("    " + ln for ln in EMITTERS[fmt](env.plan).rstrip("\n").splitlines())
    lines.extend(f"  warning: {w}" for w in env.plan.warnings)
    return lines


def _plural(n: int, what: str) -> str:
    return f"{n} {what}{'s' if n != 1 else ''}"


def report_text(r: FleetReport, fmt: str = "pip") -> str:
    out = [
        (
            f"Fleet: {_count(r.nodes_total)}, {r.nodes_judged} judged,"
            f" {_plural(len(r.stacks), 'stack')}"
            f" ({_plural(r.distinct_snapshots, 'distinct snapshot')}); matrix {r.matrix_version}"
        )
    ]
    out.extend(f"input: {p}" for p in r.input_problems)
    if r.stacks:
        major = r.stacks[0]
        out.append("")
        out.append(f"Majority stack ({_count(len(major.nodes))}):")
        width = max(len(k) for k, _ in major.fields)
        out.extend(f"  {k.ljust(width)}  {v}" for k, v in major.fields)
        if len(r.stacks) > 1:
            out.append("")
            out.append("Nodes that differ:")
            for s in r.stacks[1:]:
                out.append(f"  {names(s.nodes)} ({_count(len(s.nodes))}):")
                for d in s.differences:
                    if d.majority:
                        out.append(f"    {d.field}: {d.value} (majority: {d.majority})")
                    else:
                        out.append(f"    {d.field}: {d.value}")
    if r.findings:
        out.append("")
        out.append("Findings (errors first):")
        info: dict[str, set[str]] = {}
        for g in r.findings:
            f = g.finding
            if f.severity == Severity.INFO:
                info.setdefault(f.id, set()).update(g.nodes)
                continue
            out.append(f"  {f.severity.value.upper()} {f.id}: {f.title}")
            out.append(f"    {_count(len(g.nodes))}: {names(g.nodes)}")
            out.extend(f"    - {e}" for e in f.evidence[:4])
            if f.fix:
                out.append("    fix: " + f.fix.replace("\n", "\n      "))
        if info:
            out.append("  info: " + ", ".join(f"{k} ({_count(len(v))})" for k, v in info.items()))
    if r.problems:
        out.append("")
        out.append("Nodes without a usable snapshot:")
        for p in r.problems:
            where = f" ({p.where})" if p.where else ""
            out.append(f"  {p.node}: {p.status}: {p.error}{where}")
    out.append("")
    out.append("The environment that runs on every node:")
    for why, nodes in r.excluded:
        out.append(f"  left out ({why}): {names(nodes)}")
    if not r.environments:
        out.append("  none: no node has a usable NVIDIA GPU and driver")
    for i, env in enumerate(r.environments):
        if i:
            out.append("")
        out.extend(_env_text(env, fmt))
    return "\n".join(out) + "\n"


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def report_markdown(r: FleetReport, fmt: str = "pip") -> str:
    out = [
        "## envcheck fleet report",
        "",
        (
            f"{r.nodes_total} nodes, {r.nodes_judged} judged, {len(r.stacks)} stacks; "
            f"matrix {r.matrix_version}."
        ),
    ]
    out.extend(f"- input: {_md_cell(p)}" for p in r.input_problems)
    if r.stacks:
        out += [
            "",
            "### Stacks",
            "",
            "| nodes | " + " | ".join(k for k, _ in r.stacks[0].fields) + " |",
        ]
        out.append("|" + "---|" * (len(r.stacks[0].fields) + 1))
        for s in r.stacks:
            label = (
                f"**{len(s.nodes)} (majority)**"
                if s.majority
                else f"{len(s.nodes)}: {names(s.nodes, 8)}"
            )
            out.append(
                f"| {_md_cell(label)} | " + " | ".join(_md_cell(v) for _, v in s.fields) + " |"
            )
        differ = [s for s in r.stacks if not s.majority]
        if differ:
            out += ["", "### Nodes that differ", ""]
            for s in differ:
                what = "; ".join(
                    f"{d.field} {d.value}" + (f" (majority {d.majority})" if d.majority else "")
                    for d in s.differences
                )
                out.append(f"- {_md_cell(names(s.nodes))}: {_md_cell(what)}")
    if r.findings:
        out += ["", "### Findings", "", "| severity | finding | nodes |", "|---|---|---|"]
        for g in r.findings:
            f = g.finding
            out.append(
                f"| {f.severity.value} | `{f.id}`: {_md_cell(f.title)} | "
                f"{len(g.nodes)}: {_md_cell(names(g.nodes, 10))} |"
            )
    if r.problems:
        out += ["", "### Nodes without a usable snapshot", ""]
        out.extend(f"- `{p.node}` {p.status}: {_md_cell(p.error)}" for p in r.problems)
    out += ["", "### The environment that runs on every node", ""]
    for why, nodes in r.excluded:
        out.append(f"- left out ({_md_cell(why)}): {_md_cell(names(nodes, 10))}")
    for env in r.environments:
        out.append(f"- for {len(env.nodes)} nodes: {_md_cell(env.target.describe())}")
        if env.error:
            out.append(f"  - cannot resolve: {_md_cell(env.error)}")
        elif env.plan is not None and env.plan.unsatisfiable is not None:
            out.append(
                f"  - no environment runs on all of them: {_md_cell(str(env.plan.unsatisfiable))}"
            )
        elif env.plan is not None:
            from envcheck.resolve.emit import EMITTERS

            out += ["", "```", EMITTERS[fmt](env.plan).rstrip("\n"), "```", ""]
    return "\n".join(out).rstrip("\n") + "\n"
