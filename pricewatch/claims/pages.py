"""The published pages regenerated whole from their claims (rules/<page>/page.tmpl).

A page template is the page in its own format and language with every number replaced by a
slot (``{claim id}``, ``{id|pick}``, ``{id|bare}``, ``{id|ja_list}``; a configuration label,
``{id|config_ja}`` "H200を2台", ``{id|config_x}`` "8× H200", ``{id|count}``, is read off the claim's
rule, so editing a rule's count relabels the page) and every sentence whose
truth rests on numbers carrying the claims it asserts (``{?id}``, which prints nothing). The page
is rendered sentence by sentence (a table cell is a sentence), so that what cannot be checked or
rewritten is marked where it is, and never half-filled:

* a claim that **holds** prints its published text (the page stays as it is), except where the
  page left the value blank ("価格確認日：" without a date), and a date whose readings changed:
  the regenerated page fills them in;
* a claim that **drifted** prints its current value (the number is rewritten by rule);
* a claim that is **unverifiable** prints its published text, and the sentence ends with
  （未確認）: nothing is blanked, no "?" is printed;
* a sentence whose asserted claim (``{?id}``: "the same ratio", "the smallest that fits", "fits
  on one H100") no longer holds cannot be rewritten by rule: it is kept, with its new numbers,
  and marked 【要編集: why】 (needs an editor).

With every claim as published the rendering is the published page byte for byte (a test).
"""

from __future__ import annotations

import difflib
import html
import re
from dataclasses import dataclass, field
from decimal import Decimal

from pricewatch.claims import rules as R
from pricewatch.claims.formatting import md, shown

UNVERIFIED = "（未確認）"
EDITOR = "【要編集: {why}】"
EDITOR_REASON_MAX = 160
_SENTENCE_END = re.compile(r"(?<=[。？！])")
_LEADING_ASSERTIONS = re.compile(r"(?:\{\?[a-z0-9][a-z0-9._\-]*\})*")
_CELL_BAR = re.compile(r"(\|)(?![^{}]*\})")     # a table's "|", not the one in {id|pick}


@dataclass
class Slot:
    claim_id: str
    modifier: str | None
    assertion: bool
    published: str            # the text the page prints today
    current: str              # the text the regenerated page prints
    status: str | None        # holds | drifted | unverifiable | None (not evaluated)
    reason: str | None = None

    @property
    def changed(self) -> bool:
        return not self.assertion and self.current != self.published


@dataclass
class Segment:
    """A sentence or a table cell: literal text and slots."""
    parts: list = field(default_factory=list)    # str | Slot
    unverified: list[str] = field(default_factory=list)
    editor: list[tuple[str, str]] = field(default_factory=list)   # (claim id, why)

    def text(self, published: bool = False) -> str:
        body = "".join(p if isinstance(p, str) else (p.published if published else p.current) for p in self.parts)
        if published:
            return body
        marks = ""
        if self.editor:
            why = "; ".join(f"{cid}: {reason}" for cid, reason in self.editor)
            marks += EDITOR.format(why=_short(why))
        if self.unverified:
            marks += UNVERIFIED
        return _mark(body, marks) if marks else body

    @property
    def slots(self) -> list[Slot]:
        return [p for p in self.parts if isinstance(p, Slot)]


@dataclass
class RenderedPage:
    page: R.Page
    segments: list[Segment]

    @property
    def text(self) -> str:
        return "".join(s.text() for s in self.segments)

    @property
    def published_text(self) -> str:
        return "".join(s.text(published=True) for s in self.segments)

    @property
    def changed(self) -> list[Slot]:
        return [sl for s in self.segments for sl in s.slots if sl.changed]

    @property
    def needs_editor(self) -> list[tuple[str, str, str]]:
        """(sentence as regenerated, claim id, why) of every sentence an editor must rewrite."""
        return [(s.text().strip(), cid, why) for s in self.segments for cid, why in s.editor]

    @property
    def unverified(self) -> list[str]:
        return sorted({cid for s in self.segments for cid in s.unverified})

    def diff(self, original: str) -> str:
        """A unified diff of the published page against the regenerated one ("" when equal)."""
        name = self.page.page.original
        return "".join(difflib.unified_diff(original.splitlines(keepends=True), self.text.splitlines(keepends=True),
                                            fromfile=f"published/{name}", tofile=f"regenerated/{name}"))


def _short(text: str) -> str:
    text = " ".join(str(text).split()).replace("|", "/").replace("】", "]")
    return text if len(text) <= EDITOR_REASON_MAX else text[:EDITOR_REASON_MAX - 1].rsplit(" ", 1)[0] + "…"


def _mark(body: str, marks: str) -> str:
    """Marks at the end of a sentence (before its 。) or a cell (before its trailing space)."""
    stripped = body.rstrip()
    tail = body[len(stripped):]
    if stripped.endswith(("。", "？", "！")):
        return stripped[:-1] + marks + stripped[-1] + tail
    return stripped + marks + tail


def segments_of(template: str) -> list[str]:
    """The template cut into sentences and table cells (their concatenation is the template)."""
    out: list[str] = []
    for line in template.splitlines(keepends=True):
        if line.lstrip().startswith("|"):
            out += [p for p in _CELL_BAR.split(line) if p]
        else:
            for p in _SENTENCE_END.split(line):
                lead = _LEADING_ASSERTIONS.match(p)
                if lead and lead.group(0) and out and not out[-1].endswith("\n"):
                    out[-1] += lead.group(0)       # "...。{?id}": the assertion belongs to that sentence
                    p = p[lead.end():]
                if p:
                    out.append(p)
    return out


class _Values:
    """Published and current text of each slot."""

    def __init__(self, rules: R.RuleSet, page: R.Page, rows: dict[str, dict] | None):
        self.rules, self.page, self.rows = rules, page, rows
        self.claims = rules.claims
        self.own_names = {c.published_pick for c in self.claims.values() if c.published_pick}
        self.own_names |= {g for p in rules.pages.values() for g in p.gpus} | set(rules.providers.values())

    def published(self, c: R.Claim, modifier: str | None) -> str:
        if modifier in R.CONFIG_MODIFIERS:
            return config_label(c, modifier)
        if modifier == "pick":
            return c.published_pick or ""
        text = shown(c, c.published, bare=modifier == "bare")
        return text.replace(", ", "、") if modifier == "ja_list" else text

    def current(self, c: R.Claim, modifier: str | None, row: dict) -> str:
        if modifier in R.CONFIG_MODIFIERS:
            return config_label(c, modifier)
        if modifier == "pick":
            pick = row.get("pick") or c.published_pick or ""
            return pick if pick in self.own_names or not self.markdown else md(pick)
        value = _value(c, row)
        text = shown(c, value, bare=modifier == "bare")
        if c.unit == "text" and self.markdown:
            text = md(text)     # a text the source printed, in a Markdown page
        return text.replace(", ", "、") if modifier == "ja_list" else text

    def _dates_a_change(self, c: R.Claim) -> bool:
        dated = c.compute.of if c.compute.kind == "observed_date" else [c.compute.of] \
            if c.compute.kind == "pick_source" else []
        return any((self.rows.get(cid) or {}).get("status") == "drifted" for cid in dated)

    @property
    def markdown(self) -> bool:
        return self.page.page.original.endswith(".md")

    def slot(self, claim_id: str, modifier: str | None, assertion: bool) -> Slot:
        c = self.claims[claim_id]
        published = "" if assertion else self.published(c, modifier)
        if self.rows is None or modifier in R.CONFIG_MODIFIERS:
            # a configuration label is the rule's, whatever the claim's value does
            return Slot(claim_id, modifier, assertion, published, published, None)
        row = self.rows.get(claim_id)
        if row is None:
            return Slot(claim_id, modifier, assertion, published, published, "unverifiable", "not evaluated yet")
        status = row["status"]
        current = published
        if not assertion and (status == "drifted" or (status == "holds" and row.get("current_text") and (
                published == "" or self._dates_a_change(c)))):
            # a new value; a blank the page left ("価格確認日："); the date of readings that changed
            current = self.current(c, modifier, row)
        return Slot(claim_id, modifier, assertion, published, current, status, row.get("reason"))


def config_label(c: R.Claim, modifier: str) -> str:
    """The configuration a claim's rule computes, as the page labels it: "H200を2台" (config_ja),
    "8× H200" (config_x), "4" (count). It is read off the rule, not the page: a rule whose count
    is edited relabels every cell that prints it."""
    count = c.compute.count
    if modifier == "count":
        return str(count)
    return f"{c.compute.gpu}を{count}台" if modifier == "config_ja" else f"{count}× {c.compute.gpu}"


def _value(c: R.Claim, row: dict):
    if c.unit == "mark":
        return bool(row["current_value"])
    if c.unit == "text" or row["current_value"] is None:
        return row["current_text"]
    return Decimal(row["current_value"])


def render_page(rules: R.RuleSet, page: R.Page, rows: dict[str, dict] | None = None,
                template: str | None = None) -> RenderedPage:
    """The page regenerated from the latest evaluations ``rows`` (claim id -> row of
    latest_claim_status); ``rows=None`` renders every claim as published. ``template``: a part
    of the page's template (a table) instead of the whole page."""
    template = page.template if template is None else template
    if not template:
        raise LookupError(f"rules/{page.id}/page.tmpl is missing: the page cannot be regenerated")
    values = _Values(rules, page, rows)
    segments = []
    for piece in segments_of(template):
        seg = Segment()
        pos = 0
        for m in R.SLOT.finditer(piece):
            if m.start() > pos:
                seg.parts.append(piece[pos:m.start()])
            slot = values.slot(m.group("id"), m.group("mod"), bool(m.group("assert")))
            if slot.assertion:
                if slot.status == "drifted":
                    seg.editor.append((slot.claim_id, slot.reason or "no longer holds"))
                elif slot.status == "unverifiable":
                    seg.unverified.append(slot.claim_id)
            elif slot.status == "unverifiable":
                seg.unverified.append(slot.claim_id)
            seg.parts.append(slot)
            pos = m.end()
        if pos < len(piece):
            seg.parts.append(piece[pos:])
        segments.append(seg)
    return RenderedPage(page, segments)


@dataclass
class TableBlock:
    title: str
    template: str

    def claim_ids(self) -> list[str]:
        return list(dict.fromkeys(m.group("id") for m in R.SLOT.finditer(self.template)))


def tables_of(page: R.Page) -> list[TableBlock]:
    """The page's tables, cut from its template: each run of table lines (with the "価格確認日："
    line right after it), titled by the heading above it (a "#" line, or a line that is not a
    sentence)."""
    lines = page.template.splitlines(keepends=True)
    out, i = [], 0
    while i < len(lines):
        if not lines[i].startswith("|"):
            i += 1
            continue
        j = i
        while j < len(lines) and lines[j].startswith("|"):
            j += 1
        while j < len(lines) and (lines[j].startswith("価格確認日") or (not lines[j].strip() and j + 1 < len(lines)
                                                                   and lines[j + 1].startswith("価格確認日"))):
            j += 1
        above = [l.strip() for l in lines[:i] if l.strip() and (l.startswith("#") or "。" not in l)]
        title = re.sub(r"^#+\s*", "", above[-1]) if above else page.id
        out.append(TableBlock(title, "".join(lines[i:j])))
        i = j
    return out


# ---- HTML view: each changed number old -> new, linked to its claim and evidence ---------------

def page_html(rendered: RenderedPage, claim_href=lambda cid: f"#claim-{cid}") -> str:
    """The regenerated page as an HTML fragment: every changed number shows old → new and links
    to its claim; sentences for an editor are marked. A Markdown page (page 2, ``.md``) is
    rendered as Markdown (markdown-it, raw HTML off: its headings, tables and links), the marks
    put in after; a text page keeps its lines (``white-space: pre-wrap``)."""
    marks: list[str] = []

    def mark(fragment: str) -> str:   # a placeholder Markdown passes through as text
        marks.append(fragment)
        return f"\ue000{len(marks) - 1}\ue001"

    markdown = rendered.page.page.original.endswith(".md")
    text = (lambda t: t) if markdown else html.escape
    out = []
    for seg in rendered.segments:
        inner = []
        for p in seg.parts:
            if isinstance(p, str):
                inner.append(text(p))
            elif p.assertion:
                continue
            elif p.changed:
                inner.append(mark(f'<a class="chg" href="{html.escape(claim_href(p.claim_id))}" title="{html.escape(p.claim_id)}">'
                                  f'<del>{html.escape(p.published)}</del> → <ins>{html.escape(p.current)}</ins></a>'))
            else:
                cls = "slot unverified" if p.status == "unverifiable" else "slot"
                inner.append(mark(f'<a class="{cls}" href="{html.escape(claim_href(p.claim_id))}" '
                                  f'title="{html.escape(p.claim_id)}: {html.escape(p.status or "published")}">'
                                  f'{html.escape(p.current)}</a>'))
        body = "".join(inner)
        lead = len(body) - len(body.lstrip())      # a mark never swallows the line break before it
        head, body = body[:lead], body[lead:]
        tail = body[len(body.rstrip()):]
        body = body.rstrip()
        if seg.editor:
            why = "; ".join(f"{cid}: {reason}" for cid, reason in seg.editor)
            body = (mark('<mark class="editor" title="needs an editor">') + body +
                    mark(f'<span class="why">要編集: {html.escape(why)}</span></mark>'))
        elif seg.unverified:
            body = mark('<span class="unverified">') + body + mark(f'<span class="why">{UNVERIFIED}</span></span>')
        out.append(head + body + tail)
    joined = "".join(out)
    if markdown:
        from markdown_it import MarkdownIt
        joined = MarkdownIt("commonmark", {"html": False}).enable("table").render(joined)
    joined = re.sub("\ue000(\\d+)\ue001", lambda m: marks[int(m.group(1))], joined)
    return f'<div class="page-view{" md" if markdown else ""}">{joined}</div>'


def sentences(rules: R.RuleSet, claim_id: str, rows: dict[str, dict] | None,
              rendered: RenderedPage | None = None) -> list[tuple[str, str]]:
    """Every sentence (or table cell) of the claim's page that prints or asserts the claim, as
    (published, regenerated) text: what an alert quotes for an editor. ``rendered``: the claim's
    page already rendered with ``rows`` (a digest of many claims renders its page once)."""
    claim = rules.claims[claim_id]
    rendered = rendered or render_page(rules, rules.pages[claim.page], rows)
    out = []
    for seg in rendered.segments:
        if any(s.claim_id == claim_id for s in seg.slots):
            pair = (seg.text(published=True).strip(), seg.text().strip())
            if pair not in out:
                out.append(pair)
    return out
