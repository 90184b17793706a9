"""``matrix why`` as plain text: one verdict per spec, each option and its reasons,
sources numbered once and listed at the end (``envcheck.why`` computes the result)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from envcheck.compat.judge import Level

if TYPE_CHECKING:
    from envcheck.compat.judge import Reason
    from envcheck.why import WhyResult

OPTION_VERDICT = {
    "works": ("+", "works"),
    "unknown": ("?", "cannot tell"),
    "fails": ("-", "does not work"),
}


def render_why(result: WhyResult) -> str:
    """Plain text: one verdict per spec, each option and its reasons; sources
    are numbered once and listed at the end."""
    marks = {
        Level.OK: "ok  ",
        Level.ERROR: "FAIL",
        Level.WARNING: "warn",
        Level.UNKNOWN: "warn",
        Level.INFO: "    ",
    }
    numbers: dict[str, int] = {}

    def refs(reason: Reason) -> str:
        if not reason.sources:
            return ""
        ns = [numbers.setdefault(s, len(numbers) + 1) for s in reason.sources]
        return " " + "".join(f"[{n}]" for n in ns)

    lines = [f"Target: {result.target.describe()}  (matrix {result.matrix_version})", ""]
    for r in result.results:
        if r.status == "depends":
            good = ", ".join(o.label for o in r.options if o.works)
            lines.append(
                f"{r.spec.text}: depends on the platform: only {good} works "
                "(give --os/--arch to decide)"
            )
        elif r.status == "unknown":
            lines.append(
                f"{r.spec.text}: cannot tell: nothing known rules it out, but a fact it "
                "depends on is not in the matrix (see the warnings)"
            )
        else:
            lines.append(f"{r.spec.text}: {'works' if r.works else 'does NOT work'}")
        for reason in r.reasons:
            lines.append(f"  {marks[reason.level]} {reason.message}{refs(reason)}")
        for o in r.options:
            mark, verdict = OPTION_VERDICT[o.status]
            lines.append(f"  {mark} {o.label}: {verdict}")
            for reason in o.reasons:
                lines.append(f"      {marks[reason.level]} {reason.message}{refs(reason)}")
        lines.append("")
    if result.confirmed:
        verdict = "works"
    elif result.works:
        verdict = "is not ruled out, but envcheck cannot confirm it works here"
    elif any(r.status == "depends" for r in result.results) and not any(
        r.status == "fails" for r in result.results
    ):
        verdict = "works only on some of the platforms the target leaves open"
    else:
        verdict = "does NOT work"
    lines.append(f"Result: the combination {verdict}")
    if numbers:
        lines.append("")
        lines.append("Sources:")
        lines.extend(f"  [{n}] {url}" for url, n in numbers.items())
    return "\n".join(lines) + "\n"
