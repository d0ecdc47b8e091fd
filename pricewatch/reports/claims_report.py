"""Reading the latest claim evaluations back: for `pricewatch claims` and the Markdown report
(`pricewatch report`), which lists every claim with its evidence and re-renders both pages'
tables with current values, in the pages' own layout, ready to paste.

Our own text (the page templates, titles, what each claim says) is written as it is; every
scraped or stored value (offer keys, GPU labels, price texts, facts, provider errors quoted in a
reason, URLs) goes through the Markdown helpers of pricewatch.claims.formatting, so a page that
prints `|`, `<script>` or a `javascript:` URL cannot break a table, add a tag or a link."""

from __future__ import annotations

from collections import defaultdict
from datetime import timezone
from decimal import Decimal
from pathlib import Path

import duckdb

from pricewatch.claims import pages
from pricewatch.claims import rules as R
from pricewatch.claims.formatting import PROSE_MAX, md, md_code, md_link, own_cell
from pricewatch.reports.data import readings_seen

UNVERIFIED = pages.UNVERIFIED   # after a sentence that could not be checked: the published values are kept


def latest(con: duckdb.DuckDBPyConnection) -> list[dict]:
    """The latest evaluation of every claim, each with the inputs it used."""
    cur = con.execute("SELECT * FROM latest_claim_status ORDER BY page, claim_id")
    cols = [d[0] for d in cur.description]
    rows = [dict(zip(cols, r)) for r in cur.fetchall()]
    cur = con.execute("""SELECT i.* FROM claim_inputs i
                         JOIN latest_claim_status l USING (run_id, claim_id, rules_version)
                         ORDER BY i.claim_id, i.input_name""")
    cols = [d[0] for d in cur.description]
    inputs = defaultdict(list)
    for r in cur.fetchall():
        d = dict(zip(cols, r))
        inputs[d["claim_id"]].append(d)
    for row in rows:
        row["inputs"] = inputs.get(row["claim_id"], [])
    return rows


def rendered_tables(rules: R.RuleSet, rows: dict[str, dict], page: R.Page) -> list[tuple[pages.TableBlock, str, list[dict]]]:
    """Each table of the page with current values, and the evaluations behind it that do not hold."""
    out = []
    for table in pages.tables_of(page):
        text = pages.render_page(rules, page, rows, template=table.template).text
        changed = [rows[r] for r in table.claim_ids() if r in rows and rows[r]["status"] != "holds"]
        out.append((table, text, changed))
    return out


def _evidence(rules: R.RuleSet, row: dict) -> str:
    """The inputs of one evaluation, for a table cell: every scraped value escaped, links only
    to http(s) sources."""
    parts = []
    for i in row["inputs"]:
        if not i["used"] and i["input_status"] == "ok" and i["role"] != "cited":
            continue
        who = md(rules.provider_name(i["provider"]))
        what = md(i["offer_key"] or i["fact"] or "")
        if i["input_status"] != "ok":
            parts.append(f"{who} {what}: {md(i['input_status'])}")
            continue
        if i["fact"]:
            value = md(i["value_text"]) if i["value_text"] is not None else f"{i['value_num']:g}"
        else:
            value = f"${Decimal(i['price_per_hour']).normalize():f}/h"
            if i["gpu_count"] and i["gpu_count"] > 1:
                value += f" (${Decimal(i['price_per_gpu_hour']).normalize():f} per GPU)"
        seen = i["observed_at"].astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M UTC") if i["observed_at"] else "?"
        parts.append(f"{who} {what} {value} ({md(i['role'])}) {md_link(i['source_url'])} captured {seen}")
    return "<br>".join(parts) or "(no price input)"


def _why(status: str, reason, note) -> str:
    """A status with its reason and note (stored text that may quote a page), for a cell."""
    return (status + (f": {md(reason, PROSE_MAX)}" if reason else "")
            + (f" · {md(note, PROSE_MAX)}" if note else ""))


def write_report(con: duckdb.DuckDBPyConnection, out_dir: str | Path, rules: R.RuleSet | None = None) -> list[Path]:
    """claims-report.md (every claim, its evidence, the re-rendered tables) and one
    <page>.tables.md per page (only the tables, ready to paste)."""
    rules = rules or R.cached_rules()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    evaluations = latest(con)
    if not evaluations:
        raise LookupError("no claim evaluations in the warehouse yet (run `pricewatch run` first)")
    rows = {r["claim_id"]: r for r in evaluations}
    snapshot = max(r["snapshot_at"] for r in evaluations).astimezone(timezone.utc)
    counts = defaultdict(int)
    for r in evaluations:
        counts[r["status"]] += 1
    seen = readings_seen(evaluations)
    lines = [f"# Published claims as of {snapshot:%Y-%m-%d %H:%M} UTC", ""]
    if seen:
        lines += [f"The snapshot of {snapshot:%Y-%m-%d %H:%M} UTC uses the latest reading of each source: the readings "
                  f"the claims use were seen from {seen[0]:%Y-%m-%d %H:%M} to {seen[1]:%Y-%m-%d %H:%M} UTC.", ""]
    lines += [
             f"Run {md_code(evaluations[0]['run_id'])} · " + " · ".join(f"{s}: {counts[s]}" for s in
                                                              ("holds", "drifted", "unverifiable")), ""]
    attention = [r for r in evaluations if r["status"] != "holds"]
    lines += ["## Needs attention", ""]
    if attention:
        lines += ["| claim | status | published | current | why |", "|---|---|---|---|---|"]
        lines += [f"| {md_code(r['claim_id'], in_table=True)} | {md(r['status'])} | {own_cell(r['published_text'])} "
                  f"| {md(r['current_text'] or '—')} | {md(r['reason'], PROSE_MAX)} |" for r in attention]
    else:
        lines.append("Every claim holds.")
    notes = [r for r in evaluations if r["note"] and r["kind"] == "from_price" and "cheaper" in r["note"]]
    if notes:
        lines += ["", "### Cheaper fitting configurations (the page's pick is kept as written)", ""]
        lines += [f"- {md_code(r['claim_id'])} ({md(r['pick'])} from {md(r['current_text'])}): {md(r['note'], PROSE_MAX)}"
                  for r in notes]
    # The regenerated pages come right after what needs attention (pricewatch/reports/page_report.py).
    from pricewatch.reports.page_report import write_pages
    page_paths, page_lines = write_pages(rules, rows, out_dir)
    lines += [""] + page_lines
    written = []
    for page in rules.pages.values():
        page_rows = [r for r in evaluations if r["page"] == page.id]
        lines += ["", f"## {page.page.title.ja}", "",
                  f"{page.page.publisher} · original: `{page.page.original}` · prices cited: {page.page.prices_dated}", ""]
        paste = [f"<!-- {page.id}: tables with the prices of {snapshot:%Y-%m-%d %H:%M} UTC "
                 f"(generated by pricewatch report; {UNVERIFIED} = could not be checked, published value kept) -->", ""]
        for table, text, changed in rendered_tables(rules, rows, page):
            block = [f"### {table.title}", "", text.rstrip(), ""]
            paste += block
            lines += block
            for r in changed:
                lines.append(f"- {md_code(r['claim_id'])} {_why(md(r['status']), r['reason'], None)}")
            if changed:
                lines.append("")
        lines += ["### Every claim", "", "| claim | says | published | current | status | evidence |",
                  "|---|---|---|---|---|---|"]
        for r in page_rows:
            lines.append(f"| {md_code(r['claim_id'], in_table=True)} | {own_cell(r['says_ja'])} | "
                         f"{own_cell(r['published_text'])} | {md(r['current_text'] or '—')} | "
                         f"{_why(md(r['status']), r['reason'], r['note'])} | {_evidence(rules, r)} |")
        path = out_dir / f"{page.id}.tables.md"
        path.write_text("\n".join(paste).rstrip() + "\n", encoding="utf-8")
        written.append(path)
    report = out_dir / "claims-report.md"
    report.write_text("\n".join(lines).rstrip() + "\n", encoding="utf-8")
    from pricewatch.reports.html import (
        write_html,  # report.html beside the Markdown (pricewatch/reports/)
    )
    return [report, write_html(con, out_dir, rules, evaluations)] + page_paths + written
