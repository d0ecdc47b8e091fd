"""The regenerated pages for the editor: each page in full (its own file name, format and
language), a unified diff against the published page, and an HTML view where each changed number
shows old → new and links to its claim; plus the Markdown summary the claims report carries."""

from __future__ import annotations

import html
from importlib.resources import files
from pathlib import Path

from pricewatch.claims import pages
from pricewatch.claims import rules as R
from pricewatch.claims.formatting import PROSE_MAX, md, md_code

CSS = """body{font-family:system-ui,sans-serif;max-width:70rem;margin:2rem auto;padding:0 1rem;line-height:1.6}
.page-view{white-space:pre-wrap;border:1px solid #ccc;padding:1rem;background:#fafafa}
.page-view.md{white-space:normal}.page-view table{border-collapse:collapse}.page-view td,.page-view th{border:1px solid #ccc;padding:2px 6px}
a.chg{background:#fff3b0;text-decoration:none;color:inherit;border-bottom:2px solid #e0a800}
a.chg del{color:#a00}a.chg ins{color:#060;text-decoration:none;font-weight:bold}
a.slot{color:inherit;text-decoration:none;border-bottom:1px dotted #888}
mark.editor{background:#ffd6d6}.why{font-size:.85em;color:#900;margin-left:.3em}
.unverified{background:#eee}pre.diff{background:#f6f8fa;padding:1rem;overflow:auto}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2rem .5rem;vertical-align:top}"""


def published_original(page: R.Page) -> str:
    """The published page as it is online (rules/published/<original>)."""
    return (files("rules") / "published" / page.page.original).read_text(encoding="utf-8")


def write_pages(rules: R.RuleSet, rows: dict[str, dict], out_dir: Path) -> tuple[list[Path], list[str]]:
    """Writes <original>, <page>.diff and <page>.html per page; returns the paths and the
    Markdown lines of the claims report's "regenerated pages" section."""
    paths, lines = [], ["## Regenerated pages", ""]
    for page in rules.pages.values():
        rendered = pages.render_page(rules, page, rows)
        original = published_original(page)
        text, diff = rendered.text, rendered.diff(original)
        full = out_dir / page.page.original
        full.write_text(text, encoding="utf-8")
        diff_path = out_dir / f"{page.id}.diff"
        diff_path.write_text(diff, encoding="utf-8")
        view = out_dir / f"{page.id}.html"
        view.write_text(page_view(page, rendered, diff), encoding="utf-8")
        paths += [full, diff_path, view]
        lines += summary_lines(page, rendered, diff, full.name, diff_path.name, view.name)
    return paths, lines


def summary_lines(page: R.Page, rendered: pages.RenderedPage, diff: str, full: str, diff_name: str,
                  view: str) -> list[str]:
    title = page.page.title.ja + (f" ({page.page.url})" if page.page.url else "")
    out = [f"### {title}", ""]
    if not diff:
        out += [f"Unchanged: the regenerated page is the published one (`{full}`).", ""]
    else:
        n = len(rendered.changed)
        out += [f"{n} number(s) changed: paste `{full}` (whole page), review `{diff_name}` (unified diff) "
                f"or open `{view}` (each change old → new).", ""]
        for slot in rendered.changed:
            out.append(f"- {md_code(slot.claim_id)}: {md(slot.published)} → {md(slot.current)}"
                       + (f" ({md(slot.reason, PROSE_MAX)})" if slot.reason else ""))
        out.append("")
    if rendered.needs_editor:
        out += ["**Needs an editor** (the sentence's logic no longer holds; it is marked 【要編集】 in the page):", ""]
        out += [f"- {md(sentence, PROSE_MAX)} — {md_code(cid)}: {md(why, PROSE_MAX)}"
                for sentence, cid, why in rendered.needs_editor]
        out.append("")
    if rendered.unverified:
        out += [f"Could not be checked (published text kept, marked {pages.UNVERIFIED}): "
                + ", ".join(md_code(c) for c in rendered.unverified), ""]
    return out


def page_view(page: R.Page, rendered: pages.RenderedPage, diff: str) -> str:
    """A self-contained HTML view of one regenerated page (its numbers link to their claims, with
    their evidence, in report.html): the page with its changes, the
    sentences for an editor, and the diff (every value escaped)."""
    title = html.escape(page.page.title.ja)
    url = html.escape(page.page.url or "")
    editor = "".join(f"<li>{html.escape(s)}<br><code>{html.escape(c)}</code>: {html.escape(w)}</li>"
                     for s, c, w in rendered.needs_editor)
    return (f"<!doctype html><html lang=\"ja\"><head><meta charset=\"utf-8\"><title>{title}</title>"
            f"<style>{CSS}</style></head><body><h1>{title}</h1>"
            + (f"<p><a href=\"{url}\">{url}</a></p>" if url else "")
            + f"<p>{len(rendered.changed)} changed number(s); {len(rendered.needs_editor)} sentence(s) need an editor.</p>"
            + (f"<h2>Needs an editor</h2><ul>{editor}</ul>" if editor else "")
            + "<h2>Regenerated page</h2>"
            + pages.page_html(rendered, claim_href=lambda cid: f"report.html#claim-{cid}")
            + "<h2>Diff against the published page</h2>"
            + f"<pre class=\"diff\">{html.escape(diff) or '(no change)'}</pre></body></html>")
