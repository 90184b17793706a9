"""Rendering through rich must never eat brackets or split version numbers."""

from __future__ import annotations

import io

from rich.console import Console

from envcheck.doctor import Report
from envcheck.model.finding import Category, Finding, Severity
from envcheck.model.snapshot import Driver, Gpu, Snapshot
from envcheck.render.console import make_console
from envcheck.render.report import render_report_markdown, render_report_text

FIX = "pip install 'tensorflow[and-cuda]==2.16.1'"


def report() -> Report:
    snap = Snapshot(
        driver=Driver(version="535.104.05"),
        gpus=(Gpu(index=0, name="NVIDIA [beta] GPU", compute_capability="8.9"),),
    )
    finding = Finding(
        "cpu-only-build",
        Category.CPU_ONLY_BUILD,
        Severity.ERROR,
        "tensorflow-cpu 2.16.1 is a CPU-only build",
        evidence=("driver.version = 535.104.05",),
        fix=FIX,
    )
    return Report(snap, "1/2026-11-22", (finding,))


def render_with_colour() -> str:
    console = make_console(color=True)
    buf = io.StringIO()
    console.file = buf
    render_report_text(report(), console)
    return buf.getvalue()


def test_extras_survive_the_rich_path_with_colour_on() -> None:
    out = render_with_colour()
    assert "tensorflow[and-cuda]==2.16.1" in out
    assert "NVIDIA [beta] GPU" in out


def test_driver_version_is_not_highlighted_piecewise() -> None:
    out = render_with_colour()
    line = next(x for x in out.splitlines() if "driver.version" in x)
    # One style around the whole evidence line, none inside the version number.
    assert "535.104.05" in line


def test_plain_when_no_color(monkeypatch: object) -> None:
    console = make_console(color=False)
    buf = io.StringIO()
    console.file = buf
    render_report_text(report(), console)
    assert "\x1b[" not in buf.getvalue()


def test_default_console_is_plain_when_not_a_terminal() -> None:
    console = make_console()
    assert isinstance(console, Console)
    assert console.is_terminal is False  # pytest captures stdout
    assert console.no_color or console.color_system is None


def test_markdown_keeps_commands_verbatim() -> None:
    md = render_report_markdown(report())
    assert f"    {FIX}" in md
    assert "**ERROR** tensorflow-cpu 2.16.1 is a CPU-only build (`cpu-only-build`)" in md


def test_long_environment_values_are_shortened_in_text_not_in_json() -> None:
    # The value nvidia/cuda images set (read on the lent H100, 2026-11-24) is ~2 000
    # characters; the text report keeps the start and says where the rest is.
    require = "cuda>=13.0 " + " ".join(
        f"brand=tesla,driver>={b},driver<{b + 1}" for b in range(535, 600)
    )
    snap = Snapshot(env={"NVIDIA_REQUIRE_CUDA": require, "CUDA_HOME": "/usr/local/cuda"})
    console = make_console(color=False)
    buf = io.StringIO()
    console.file = buf
    render_report_text(Report(snap, "1/2026-11-22", ()), console)
    out = " ".join(buf.getvalue().split())  # the table may wrap the cell
    assert "cuda>=13.0 brand=tesla,driver>=535" in out
    assert f"({len(require)} characters; --json shows all)" in out
    assert "driver>=599" not in out
    assert "/usr/local/cuda" in out
    assert snap.to_json()["env"]["NVIDIA_REQUIRE_CUDA"] == require


def test_cuda_column_shows_the_major_a_plugin_name_gives() -> None:
    from envcheck.model.snapshot import Framework
    from envcheck.render.text import render_snapshot

    jax = Framework(name="jax", version="0.11.2", cpu_only=False, build={"cuda_major": "13"})
    console = make_console(color=False)
    buf = io.StringIO()
    console.file = buf
    render_snapshot(Snapshot(frameworks=(jax,)), console)
    row = next(x for x in buf.getvalue().splitlines() if "0.11.2" in x)
    assert "13.x" in row.replace("│", " ").split()
