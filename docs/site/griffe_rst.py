"""A griffe extension (mkdocs.yml, mkdocstrings' ``extensions:``) for the API reference.

The project's docstrings are Google-style sections in reStructuredText prose: Sphinx roles
(:class:`FortGame`), literal blocks introduced by ``::`` and simple tables framed by ``====``
lines. mkdocstrings renders docstrings as Markdown, where these show as raw markup, so this
extension rewrites them as they are loaded, in memory (the sources are not touched):

* ``:class:`~pkg.mod.Name``` (any role) becomes the code span ```Name``` (```pkg.mod.Name```
  without the ``~``);
* a paragraph ending in ``::`` ends in ``:`` (a lone ``::`` line goes) and the indented block
  after it becomes fenced code;
* a simple table becomes a Markdown table (a row whose first cell is blank continues the row
  above it, as in reStructuredText);
* in an ``Args:`` section, an entry naming several parameters (``setup, cards: as for
  FortGame``, the names possibly running onto the next line) becomes one entry per parameter,
  each with that description, and a line at the entries' indentation that starts no entry
  (such as one starting with a code span) continues the entry above it: the Google-style
  parser otherwise reports them as unknown parameters.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?[a-z]+:`(~?)([^`]+)`")
BORDER = re.compile(r"^(\s*)=+( +=+)+\s*$")
ARGS = re.compile(r"^(\s*)(Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments):\s*$")
NAMES = r"\*{0,2}\w+(?:\s*,\s*\*{0,2}\w+)*"
ENTRY = re.compile(rf"^({NAMES})(\s*\([^)]*\))?:(?:\s+(.*))?$")
PARTIAL = re.compile(rf"^{NAMES},$")  # names going on to the next line


def _role(match: re.Match[str]) -> str:
    target = match[2]
    if match[1]:
        target = target.rsplit(".", 1)[-1]
    return f"`{target}`"


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _literal_blocks(lines: list[str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.rstrip().endswith("::"):
            out.append(line)
            i += 1
            continue
        base = _indent(line)
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        k = j
        while k < len(lines) and (not lines[k].strip() or _indent(lines[k]) > base):
            k += 1
        while k > j and not lines[k - 1].strip():
            k -= 1
        if k == j and i == 0:
            # the summary line's "::" with the block at the margin (the summary's own
            # indentation is stripped from docstrings): the block runs to the next blank line
            while k < len(lines) and lines[k].strip():
                k += 1
        if k == j:  # no indented block follows: not a literal block
            out.append(line)
            i += 1
            continue
        text = line.rstrip()[:-2].rstrip()
        if text.strip():
            out.append(text + ":")
        out.append("")
        pad = " " * base
        out.append(pad + "```")
        out.extend(
            pad + block if block.strip() else ""
            for block in textwrap.dedent("\n".join(lines[j:k])).splitlines()
        )
        out.append(pad + "```")
        out.append("")
        i = k
    return out


def _cells(line: str, starts: list[int]) -> list[str]:
    """The cells of a table row: each column from its start to the next one's (the last to
    the end of the line)."""
    ends = [*starts[1:], None]
    return [line[a:b].strip() for a, b in zip(starts, ends, strict=True)]


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


def _tables(lines: list[str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(lines):
        top = BORDER.match(lines[i])
        if not top:
            out.append(lines[i])
            i += 1
            continue
        borders = [i]
        closed = False  # a border followed by a blank line (or the end) closes the table
        j = i + 1
        while j < len(lines):
            if BORDER.match(lines[j]) and lines[j].rstrip() == lines[i].rstrip():
                borders.append(j)
                if j + 1 >= len(lines) or not lines[j + 1].strip():
                    closed = True
                    break
            j += 1
        if not closed or len(borders) < 2:  # not a well-formed table: left as it is
            out.append(lines[i])
            i += 1
            continue
        starts = [m.start() for m in re.finditer(r"=+", lines[i])]
        pad = top[1]

        def rows(a: int, b: int, starts: list[int] = starts) -> list[list[str]]:
            result: list[list[str]] = []
            for line in lines[a:b]:
                if not line.strip():
                    continue
                cells = _cells(line, starts)
                if result and not cells[0]:
                    result[-1] = [
                        f"{x} {y}".strip() for x, y in zip(result[-1], cells, strict=True)
                    ]
                else:
                    result.append(cells)
            return result

        if len(borders) >= 3:
            header, body = rows(borders[0] + 1, borders[1]), rows(borders[1] + 1, borders[-1])
            head = header[0] if header else [""] * len(starts)
        else:
            head, body = [""] * len(starts), rows(borders[0] + 1, borders[1])
        if out and out[-1].strip():
            out.append("")
        out.append(pad + _row(head))
        out.append(pad + "|" + "|".join(" --- " for _ in starts) + "|")
        out.extend(pad + _row(r) for r in body)
        out.append("")
        i = borders[-1] + 1
    return out


def _args_sections(lines: list[str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(lines):
        section = ARGS.match(lines[i])
        out.append(lines[i])
        i += 1
        if not section:
            continue
        base = len(section[1])
        end = i
        while end < len(lines) and (not lines[end].strip() or _indent(lines[end]) > base):
            end += 1
        while end > i and not lines[end - 1].strip():
            end -= 1
        body = lines[i:end]
        if not body:
            continue
        indent = _indent(body[0])
        entries: list[list[str]] = []  # each: the header line, then its continuation lines
        j = 0
        while j < len(body):
            line = body[j]
            text = line.strip()
            if line.strip() and _indent(line) == indent:
                header = text
                k = j
                while PARTIAL.match(header) and k + 1 < len(body):  # names run on
                    k += 1
                    header = f"{header} {body[k].strip()}"
                if ENTRY.match(header):
                    entries.append([header])
                    j = k + 1
                    continue
                if entries:  # not an entry: the one above goes on
                    entries[-1].append(" " * (indent + 4) + text)
                    j += 1
                    continue
            (entries[-1] if entries else out).append(line)
            j += 1
        for header, *rest in entries:
            match = ENTRY.match(header)
            assert match is not None
            for name in re.split(r"\s*,\s*", match[1]):
                first = f"{name}{match[2] or ''}:" + (f" {match[3]}" if match[3] else "")
                out.append(" " * indent + first)
                out.extend(rest)
        i = end
    return out


def rst_to_markdown(text: str) -> str:
    """The docstring ``text`` with the reStructuredText markup above as Markdown."""
    text = ROLE.sub(_role, text)
    lines = _args_sections(_literal_blocks(text.splitlines()))
    return "\n".join(_tables(lines))


class RstToMarkdown(griffe.Extension):
    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = rst_to_markdown(obj.docstring.value)
