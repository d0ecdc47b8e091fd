"""Reading a Markdown twin of a web page (``/ja/gpus.html.md``) into headings, paragraphs and tables.

Parsed with markdown-it (CommonMark + GFM tables). GFM silently pads short rows and drops extra
cells; a price parser must not guess, so every table row is also checked against its source
line: a row with a different number of cells than the header is reported, not repaired.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from markdown_it import MarkdownIt

from spiders.base import STRUCK_ONLY

_MD = MarkdownIt("commonmark").enable(["table", "strikethrough"])
# Inline HTML that strikes text through: <s>, <del>, <strike> (opening and closing tags).
_STRIKE_TAG = re.compile(r"^<(/?)(s|del|strike)(?:\s[^>]*)?>$", re.I)


@dataclass
class Cell:
    text: str
    href: str | None = None
    struck: str = ""   # struck-through text (``~~$9.99~~``, ``<s>$9.99</s>``): a "was" price, not read


@dataclass
class Table:
    header: list[str]
    rows: list[list[Cell]]
    line: int                                        # 1-based line of the header in the source
    ragged: list[str] = field(default_factory=list)  # "line 12: 3 cells, header has 4"


@dataclass
class Block:
    kind: str            # heading | paragraph | table | list_item
    text: str = ""
    level: int = 0       # heading level
    table: Table | None = None


def _inline_cell(token) -> Cell:
    href = None
    for child in token.children or []:
        if child.type == "link_open" and href is None:
            href = child.attrs.get("href")
    current, struck, depth = [], [], 0
    for child in token.children or []:
        tag = _STRIKE_TAG.match(child.content.strip()) if child.type == "html_inline" else None
        if child.type == "s_open" or (tag and not tag.group(1)):
            depth += 1
        elif child.type == "s_close" or (tag and tag.group(1)):
            depth = max(0, depth - 1)
        elif child.type in ("text", "code_inline"):
            (struck if depth else current).append(child.content)
    text, was = "".join(current).strip(), " ".join("".join(struck).split())
    # Only a struck-through price: refused by every reader of the cell, never a price.
    return Cell(text or (STRUCK_ONLY + was if was else ""), href, was)


def _raw_cells(line: str) -> int:
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    return len(re.split(r"(?<!\\)\|", body))


def parse(markdown: str) -> list[Block]:
    lines = markdown.splitlines()
    tokens = _MD.parse(markdown)
    blocks: list[Block] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.type == "heading_open":
            blocks.append(Block("heading", tokens[i + 1].content.strip(), level=int(tok.tag[1:])))
            i += 3
            continue
        if tok.type == "paragraph_open":
            # A paragraph inside a list item is a list item (the page's bullet facts).
            kind = "list_item" if i and tokens[i - 1].type == "list_item_open" else "paragraph"
            blocks.append(Block(kind, tokens[i + 1].content.strip()))
            i += 3
            continue
        if tok.type == "table_open":
            header: list[str] = []
            rows: list[list[Cell]] = []
            ragged: list[str] = []
            cells: list[Cell] = []
            row_line = 0
            j = i + 1
            while tokens[j].type != "table_close":
                t = tokens[j]
                if t.type == "tr_open":
                    cells, row_line = [], (t.map[0] if t.map else -1)
                elif t.type in ("th_open", "td_open"):
                    cells.append(_inline_cell(tokens[j + 1]))
                elif t.type == "tr_close":
                    if not header:
                        header = [c.text for c in cells]
                    else:
                        rows.append(cells)
                    if row_line >= 0 and _raw_cells(lines[row_line]) != len(header):
                        ragged.append(f"line {row_line + 1}: {_raw_cells(lines[row_line])} cells, "
                                      f"header has {len(header)}")
                j += 1
            start = tok.map[0] + 1 if tok.map else 0
            blocks.append(Block("table", table=Table(header, rows, start, ragged)))
            i = j + 1
            continue
        i += 1
    return blocks


def sections(blocks: list[Block], level: int) -> list[tuple[str, list[Block]]]:
    """The blocks under each heading of ``level`` (up to the next heading of that level or higher)."""
    out: list[tuple[str, list[Block]]] = []
    for b in blocks:
        if b.kind == "heading" and b.level <= level:
            if b.level == level:
                out.append((b.text, []))
            elif out:
                out.append(("", []))  # a higher heading ends the current section
            continue
        if out:
            out[-1][1].append(b)
    return [(title, body) for title, body in out if title]


_USD = re.compile(r"^\$(\d{1,3}(?:,\d{3})*(?:\.\d+)?|\d+(?:\.\d+)?)$")


def usd(text: str) -> str | None:
    """The number of a "$1,234.56" cell as a string, or None when the cell is anything else."""
    m = _USD.match(text.strip())
    return m.group(1).replace(",", "") if m else None


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
