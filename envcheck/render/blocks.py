"""Renderer-neutral blocks (tables and styled lines) and their two renderings.

``text.py`` and ``report.py`` describe output as ``Table``/``Line`` blocks. A
``PlainConsole`` writes them as aligned plain text and never imports rich: that
is what pipes, files and CI logs get (and it keeps ``doctor > report.txt``
fast). A rich ``Console`` gets rich tables; a table that would not fit the
terminal's width is printed as one record per row instead of being squeezed
into columns a few characters wide.
"""

from __future__ import annotations

import sys
from typing import IO, Any, Optional, Union

Style = Optional[str]


class Line:
    """One line of text made of (text, style) segments."""

    def __init__(self, segments: Optional[list[tuple[str, Style]]] = None) -> None:
        self.segments: list[tuple[str, Style]] = list(segments or ())

    @classmethod
    def of(cls, text: str, style: Style = None) -> Line:
        return cls([(text, style)])

    def append(self, text: str, style: Style = None) -> Line:
        self.segments.append((text, style))
        return self

    @property
    def plain(self) -> str:
        return "".join(text for text, _ in self.segments)


class Table:
    """A titled table; ``headers`` None for a key/value list (first column bold)."""

    def __init__(self, title: str, headers: Optional[list[str]], rows: list[list[str]]) -> None:
        self.title = title
        self.headers = headers
        self.rows = rows


Block = Union[Line, Table, str]

MIN_COLUMN = 12
"""A rich table whose columns would get narrower than this is shown as records."""


class PlainConsole:
    """The subset of rich's Console the renderers use, writing plain text."""

    is_terminal = False

    def __init__(self, file: Optional[IO[str]] = None) -> None:
        self.file = file if file is not None else sys.stdout

    def print(self, block: Block = "", soft_wrap: bool = False) -> None:
        self.file.write(render_plain(block) + "\n")


def render_plain(block: Block) -> str:
    if isinstance(block, Line):
        return block.plain
    if isinstance(block, Table):
        return "\n".join(_plain_table(block))
    return str(block)


def _plain_table(table: Table) -> list[str]:
    rows = [list(r) for r in table.rows]
    out = [table.title]
    if table.headers is None:
        width = max((len(r[0]) for r in rows), default=0)
        out.extend(f"  {r[0]:<{width}}  {' '.join(r[1:])}".rstrip() for r in rows)
        return out
    grid = [table.headers, *rows]
    widths = [max(len(row[i]) for row in grid) for i in range(len(table.headers))]

    def fmt(row: list[str]) -> str:
        return "  " + "  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip()

    out.append(fmt(table.headers))
    out.append("  " + "  ".join("-" * w for w in widths))
    out.extend(fmt(r) for r in rows)
    return out


def emit(console: Any, block: Block, soft_wrap: bool = False) -> None:
    """Print ``block`` on a PlainConsole or a rich Console."""
    if isinstance(console, PlainConsole):
        console.print(block)
        return
    if isinstance(block, Table):
        for item in _rich_table(block, console.width):
            console.print(item)
        return
    if isinstance(block, Line):
        from rich.text import Text

        text = Text()
        for part, style in block.segments:
            text.append(part, style=style or "")
        console.print(text, soft_wrap=soft_wrap)
        return
    console.print(block, soft_wrap=soft_wrap)


def _rich_table(table: Table, width: int) -> list[Any]:
    from rich.table import Table as RichTable
    from rich.text import Text

    if table.headers is None:
        out = RichTable(title=table.title, title_justify="left", show_header=False, box=None)
        out.add_column(style="bold", no_wrap=True)
        out.add_column(overflow="fold")
        for row in table.rows:
            out.add_row(*row)
        return [out]
    columns = len(table.headers)
    natural = [max(len(r[i]) for r in [table.headers, *table.rows]) for i in range(columns)]
    # Borders and padding: one bar plus two spaces per column, one closing bar.
    if sum(min(n, MIN_COLUMN) for n in natural) + 3 * columns + 1 > width:
        # Too narrow for columns: one record per row, "Header: value" lines.
        items: list[Any] = [Text(table.title, style="italic")]
        label = max(len(h) for h in table.headers)
        for row in table.rows:
            for i, (head, cell) in enumerate(zip(table.headers, row)):
                lead = "- " if i == 0 else "  "
                line = Text(f"{lead}{head:<{label}}  ", style="bold")
                line.append(cell)
                items.append(line)
        return items
    out = RichTable(title=table.title, title_justify="left")
    for head, n in zip(table.headers, natural):
        out.add_column(head, min_width=min(n, MIN_COLUMN), overflow="fold")
    for row in table.rows:
        out.add_row(*row)
    return [out]
