"""Undo what log tools and terminals do to a message before signatures see it (pure).

A kernel line reaches a bug report through dmesg (``[    3.513141] NVRM: ...``),
journalctl or syslog (``Jun 30 11:07:05 host kernel: NVRM: ...``), rsyslog's
``#012`` escape for an embedded newline (sysklogd writes ``\\x0a``), Windows line ends, or a terminal that
broke a long line at its width. The NVIDIA kernel module prints one message as
several ``NVRM:`` records (one ``printk`` per line of its text), and journalctl
aligns the records after the first under the first one's prefix.

``normalise`` turns that back into one logical line per message, in one pass
over the text (each physical line is looked at a bounded number of times), and
keeps, for every logical line, the original line number it starts on, so what
is shown points at the text as pasted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

# dmesg's monotonic stamp, dmesg -T's wall clock, journalctl's short format and
# syslog's RFC 3164 / ISO header, each followed by the host and the tag
# (``kernel:``, ``nvidia-persistenced[123]:``); a bare ``kernel:`` (journalctl -o cat
# plus a hand-added tag) as well.
_PREFIX = re.compile(
    r"^\s{0,40}(?:"
    r"\[\s{0,12}\d{1,10}\.\d{1,9}\]\s?"
    r"|\[[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}\]\s?"
    r"|(?:[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[\d.:+-]{0,16})"
    r" [\w.-]{1,64} [\w./-]{1,64}(?:\[\d{1,10}\])?: (?:\[\s{0,12}\d{1,10}\.\d{1,9}\]\s?)?"
    r"|kernel: (?:\[\s{0,12}\d{1,10}\.\d{1,9}\]\s?)?"
    r")"
)
# The NVIDIA module's record prefix: a message goes on in the next record until a
# record ends a sentence.
_NVRM = re.compile(r"^\s{0,60}NVRM:\s{0,4}")
_NVRM_IN = re.compile(r"\bNVRM:")
# A stamped record goes on with the message before it only when it goes on mid-sentence
# (an unstamped, aligned record always does).
_LOWER = re.compile(r"[a-z']")
_SENTENCE_END = re.compile(r"[.!]\s{0,4}$")
# A row that starts a record of its own, never the rest of a wrapped one: indented,
# stamped, a traceback's header or an exception's name.
_RECORD_START = re.compile(
    r"\s|\d{4}-\d\d-\d\d|\[|[EWIF]\d{4} |Traceback |During handling"
    r"|[A-Z]\w{0,60}(?:Error|Exception|Warning):"
)
# An interactive session (the Python REPL's ``>>>``, IPython's ``In [3]:``) prints a
# call's one-word answer on the next row (IPython as ``Out[3]:``, after a blank row):
# the two are read as one line, "call -> answer", so a check answered False is one
# message.
_REPL_IN = re.compile(r"\s{0,8}(?:>>>|In \[\d{1,6}\]:)\s{0,4}(\S[^\n]{0,300})$")
_REPL_OUT = re.compile(
    r"\s{0,8}(?:Out\[\d{1,6}\]:\s{0,4})?(False|True|None|\[\]|0|''|\"\"|'cpu'|\[CpuDevice\(id=0\)\])\s{0,4}$"
)
MAX_JOINED = 16
"""At most this many records or terminal rows make one logical line."""
_MIN_WIDTH = 60
"""A terminal narrower than this is not assumed to have wrapped anything."""


@dataclass(frozen=True)
class Normalised:
    """The logical lines of a text and where each starts in the original."""

    text: str
    origins: Optional[tuple[int, ...]] = None
    """1-based original line number of each logical line; None when every line is
    where it was."""

    def origin(self, line_no: int) -> int:
        """The original line number of logical line ``line_no`` (1-based)."""
        if self.origins is not None and 1 <= line_no <= len(self.origins):
            return self.origins[line_no - 1]
        return line_no


# Where a line may need more than copying: a log prefix at its start, or a kernel
# record, an escape or a carriage return anywhere in it. Lines without one are copied
# in bulk. The literals are looked for only when the text holds them at all.
_MARK_START = re.compile(
    r"^\s{0,40}(?:\[|kernel: |[A-Z][a-z]{2} [ \d]\d \d\d:|\d{4}-\d\d-\d\dT|>>> |In \[\d)",
    re.MULTILINE,
)
_MARK_LITERALS = ("NVRM:", "#012", "\\x0a", "\r")


def _split(line: str) -> list[str]:
    """One physical line's records: lone CRs and syslog's escapes are line breaks."""
    line = line.rstrip("\r")
    if "\r" in line or "#012" in line or "\\x0a" in line:
        line = line.replace("\r", "\n").replace("#012", "\n").replace("\\x0a", "\n")
        return line.split("\n")
    return [line]


def _terminal_width(lines: list[str]) -> int:
    """The width a terminal wrapped at: the longest row, when at least two rows have
    exactly that length (a wrapped line fills every row but its last); 0 otherwise."""
    if not lines:
        return 0
    width = max(map(len, lines))
    if width < _MIN_WIDTH:
        return 0
    count = 0
    for line in lines:
        if len(line) == width:
            count += 1
            if count >= 2:
                return width
    return 0


def _marked(text: str, lines: list[str], width: int) -> list[int]:
    """Indices (0-based) of the lines that need a look, in order."""
    starts = [hit.start() for hit in _MARK_START.finditer(text)]
    for literal in _MARK_LITERALS:
        if literal in text:
            starts.extend(hit.start() for hit in re.finditer(re.escape(literal), text))
    marks: set[int] = set()
    index = 0
    counted = 0
    for start in sorted(set(starts)):
        index += text.count("\n", counted, start)
        counted = start
        marks.add(index)
    if width:
        last = len(lines) - 1
        for i, line in enumerate(lines):
            # A full row whose next row starts a record of its own was not wrapped.
            if len(line) == width and i < last and not _RECORD_START.match(lines[i + 1]):
                marks.add(i)
                marks.add(i + 1)
    return sorted(m for m in marks if m < len(lines))


def normalise(text: str) -> Normalised:
    """``text`` with log prefixes dropped and wrapped messages joined (linear time)."""
    lines = text.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    width = _terminal_width(lines)
    marks = _marked(text, lines, width)
    if not marks:
        return Normalised(text)
    out: list[str] = []
    origins: list[int] = []
    nvrm_open = wrap_open = False
    joined = 0
    done = 0
    for index in marks:
        if index < done:
            continue  # the answer row of a REPL call, already joined
        if index > done:
            # Untouched lines: copied, and no message runs on across them.
            out.extend(lines[done:index])
            origins.extend(range(done + 1, index + 1))
            nvrm_open = wrap_open = False
        done = index + 1
        answer = _repl_answer(lines, index)
        if answer is not None:
            out.append(answer[0])
            origins.append(index + 1)
            done = answer[1]
            nvrm_open = wrap_open = False
            continue
        for raw in _split(lines[index]):
            hit = _PREFIX.match(raw)
            line = raw[hit.end() :] if hit else raw
            nv = _NVRM.match(line)
            if (
                nv
                and nvrm_open
                and joined < MAX_JOINED
                and (not hit or _LOWER.match(line, nv.end()))
            ):
                # The next record of the same kernel message.
                out[-1] = out[-1].rstrip() + " " + line[nv.end() :].strip()
                joined += 1
            elif wrap_open and joined < MAX_JOINED and not hit and not _RECORD_START.match(raw):
                # The terminal broke this line at its width: the rows join as they are.
                out[-1] += raw
                joined += 1
            else:
                out.append(line)
                origins.append(index + 1)
                joined = 0
            opens = nv is not None or _NVRM_IN.search(line, 0, 200) is not None
            nvrm_open = opens and not _SENTENCE_END.search(out[-1])
            wrap_open = width > 0 and len(raw) == width
    out.extend(lines[done:])
    origins.extend(range(done + 1, len(lines) + 1))
    return Normalised("\n".join(out), tuple(origins))


def _repl_answer(lines: list[str], index: int) -> Optional[tuple[str, int]]:
    """("call -> answer", index after the answer row) when line ``index`` is a REPL
    call whose one-word answer is on the next row (or the one after a blank row)."""
    call = _REPL_IN.match(lines[index])
    if call is None:
        return None
    for step in (1, 2):
        at = index + step
        if at >= len(lines):
            return None
        answer = _REPL_OUT.match(lines[at])
        if answer is not None:
            return f"{call.group(1).rstrip()} -> {answer.group(1)}", at + 1
        if lines[at].strip():
            return None
    return None


def as_pasted(
    norm: Normalised, original_lines: list[str], line_no: int, shown: str
) -> tuple[int, str]:
    """(original line number, text to show) for logical line ``line_no`` whose matched
    text is ``shown``: the line as pasted when it holds the whole message, else the
    logical line (a message joined from several records or rows)."""
    start = norm.origin(line_no)
    if not 1 <= start <= len(original_lines):
        return start, shown
    line = original_lines[start - 1].rstrip("\r")
    return start, (line if shown.strip() and shown.strip() in line else shown)
