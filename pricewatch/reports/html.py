"""report.html: the claims report people would rather look at, one self-contained file.

Written by ``pricewatch report`` beside the Markdown (pricewatch/reports/claims_report.py calls
:func:`write_html`). Inline CSS, charts as inline SVG (pricewatch/reports/charts.py), no script,
no font, nothing fetched: it opens from disk with the network off. Every stored or scraped
string goes through Jinja2's autoescape; the only markup inserted as is comes from our own
renderers, which escape their inputs (vl-convert's SVG, pricewatch.claims.pages.page_html).
Links are made only to http(s) URLs.

Sections: summary (run, snapshot, counts, failed or stale sources); the claims table (status
colours, published / current, reason, archived evidence with `pricewatch evidence <claim>`, the
provider's URL as a secondary link); price-history charts; what changed since the previous
run; the regenerated pages with their "needs an editor" sentences.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from datetime import timezone
from decimal import Decimal
from pathlib import Path
from urllib.parse import quote

import duckdb
import jinja2
from markupsafe import Markup

from pricewatch.claims import pages
from pricewatch.claims import rules as R
from pricewatch.evidence.warc_common import archive_relpath
from pricewatch.reports import charts as C
from pricewatch.reports.data import one, readings_seen
from pricewatch.reports.data import rows as query

STATUSES = ("holds", "drifted", "unverifiable")
MAX_OFFER_CHARTS = 40
_HTTP = re.compile(r"^https?://", re.I)

def _inert(value):
    """Every value printed by the template: a string loses its control and format characters
    (escape sequences, bidi overrides, zero-width joiners: text.plain's rule, without its cap),
    then autoescape makes it text. Our own markup (Markup: SVG, the page views) is kept."""
    if isinstance(value, Markup) or not isinstance(value, str):
        return value
    return "".join(ch for ch in value if ch in "\n\t" or unicodedata.category(ch)[0] != "C")


_env = jinja2.Environment(loader=jinja2.PackageLoader("pricewatch.reports", "templates"), finalize=_inert,
                          autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)


def http_url(url) -> str | None:
    """The URL when it is http(s) (a link may be made), else None (shown as text only)."""
    return str(url) if url and _HTTP.match(str(url)) else None


def utc(ts) -> str:
    return ts.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M UTC") if ts else "?"


def warc_path(stored) -> str | None:
    """A stored WARC path as the report shows it: relative to the archive root."""
    if not stored:
        return None
    return archive_relpath(Path(stored)) if Path(stored).is_absolute() else str(stored)


def evidence_url(base: str | None, rel: str | None, record_id: str | None) -> str | None:
    """<base>/<WARC path>?record=<id> (as the alerts link it), only under an http(s) base."""
    if not http_url(base) or not rel:
        return None
    url = f"{base.rstrip('/')}/{quote(rel)}"
    return url + (f"?record={quote(record_id, safe='')}" if record_id else "")


def _value(i: dict) -> str:
    if i["fact"]:
        return str(i["value_text"]) if i["value_text"] is not None else f"{i['value_num']:g}"
    if i["price_per_hour"] is None:
        return i["price_text"] or ""
    text = f"{C.money(i['price_per_hour'])}/h"
    if i["gpu_count"] and i["gpu_count"] > 1:
        text += f" ({C.money(i['price_per_gpu_hour'])} per GPU)"
    return text


def evidence_of(rules: R.RuleSet, row: dict, base_url: str | None) -> list[dict]:
    """The inputs of one evaluation that a reader needs: each with its archived record."""
    out = []
    for i in row["inputs"]:
        if not i["used"] and i["input_status"] == "ok" and i["role"] != "cited":
            continue
        rel = warc_path(i["warc_file"])
        out.append({"provider": rules.provider_name(i["provider"]), "what": i["offer_key"] or i["fact"] or "",
                    "status": i["input_status"], "value": _value(i) if i["input_status"] == "ok" else "",
                    "role": i["role"], "seen": utc(i["observed_at"]) if i["observed_at"] else "",
                    "warc": rel, "record": i["warc_record_id"],
                    "href": evidence_url(base_url, rel, i["warc_record_id"]),
                    "source": i["source_url"] or "", "source_href": http_url(i["source_url"])})
    return out


def _evidence_base_url() -> str | None:
    from pricewatch.record.config import load_config
    return load_config().alerts.evidence_base_url


def _charts(con, rules: R.RuleSet, evaluations: list[dict]) -> dict:
    published = {r["claim_id"]: (r["published_value"], r["published_text"]) for r in evaluations}
    offers = query(con, "report_cited_offers")
    keys = list(dict.fromkeys((o["provider"], o["offer_key"]) for o in offers))
    left_out = max(0, len(keys) - MAX_OFFER_CHARTS)
    kept = set(keys[:MAX_OFFER_CHARTS])
    offer_charts = C.offer_charts(rules, [o for o in offers if (o["provider"], o["offer_key"]) in kept],
                                  query(con, "report_offer_spells"), published)
    cheapest_claims = [c for c in rules.claims.values() if c.compute.kind == "cheapest_offer"]
    models = list(dict.fromkeys([g.model for p in rules.pages.values() for g in p.gpus.values()]
                                + [c.compute.gpu for c in cheapest_claims]))
    daily = query(con, "report_cheapest_daily", [models])
    # a cheapest claim's chart shows the class it compares: the one it names, else its cited offer's
    classes = {(r["provider"], r["offer_key"]): r["comparable_class"] for r in query(con, "report_offer_classes")}
    claim_charts = [C.cheapest_for_claim(c, daily, *published.get(c.id, (None, "")),
                                         cls=c.compute.class_ or (classes.get((c.compute.cites.provider,
                                                                               c.compute.cites.offer))
                                                                  if c.compute.cites else None))
                    for c in cheapest_claims]
    gpu_charts = [chart for m in dict.fromkeys(g.model for p in rules.pages.values() for g in p.gpus.values())
                  for chart in C.cheapest_per_class(m, daily)]
    return {"offers": offer_charts, "offers_left_out": left_out, "cheapest_claims": claim_charts,
            "gpus": gpu_charts}


def _pages(rules: R.RuleSet, by_id: dict[str, dict]) -> list[dict]:
    out = []
    for page in rules.pages.values():
        rendered = pages.render_page(rules, page, by_id)
        out.append({"id": page.id, "title": page.page.title.ja, "title_en": page.page.title.en,
                    "url": page.page.url or "", "url_href": http_url(page.page.url),
                    "changed": rendered.changed, "needs_editor": rendered.needs_editor,
                    "unverified": rendered.unverified,
                    "html": Markup(pages.page_html(rendered, claim_href=lambda cid: f"#claim-{cid}"))})
    return out


def context(con: duckdb.DuckDBPyConnection, rules: R.RuleSet, evaluations: list[dict],
            evidence_base_url: str | None) -> dict:
    by_id = {r["claim_id"]: r for r in evaluations}
    latest = max(evaluations, key=lambda r: (r["snapshot_at"], r["evaluated_at"]))
    run_id, snapshot = latest["run_id"], latest["snapshot_at"]
    counts = Counter(r["status"] for r in evaluations)
    claims = []
    order = {"drifted": 0, "unverifiable": 1, "holds": 2}     # what needs attention first
    for r in sorted(evaluations, key=lambda r: (order.get(r["status"], 3), r["page"], r["claim_id"])):
        claims.append({**r, "evidence": evidence_of(rules, r, evidence_base_url),
                       "command": f"pricewatch evidence {r['claim_id']}"})
    price_changes = query(con, "report_price_changes", [run_id])
    for p in price_changes:
        p["provider_name"] = rules.provider_name(p["provider"])
    return {
        "run": one(con, "report_run", [run_id]) or {"run_id": run_id},
        "snapshot": utc(snapshot), "readings_seen": [utc(t) for t in readings_seen(evaluations) or ()], "counts": [(s, counts.get(s, 0)) for s in STATUSES], "total": len(evaluations),
        "sources": query(con, "report_sources", [run_id, snapshot]),
        "claims": claims, "evidence_base_url": evidence_base_url,
        "charts": _charts(con, rules, evaluations),
        "claim_changes": query(con, "report_claim_changes", [run_id]),
        "price_changes": price_changes,
        "pages": _pages(rules, by_id),
        "utc": utc, "money": C.money, "num": _num, "provider_name": rules.provider_name,
    }


def _num(value) -> str:
    return "—" if value is None else f"{Decimal(value).normalize():f}"


def render(con: duckdb.DuckDBPyConnection, rules: R.RuleSet, evaluations: list[dict],
           evidence_base_url: str | None = None) -> str:
    return _env.get_template("report.html.j2").render(**context(con, rules, evaluations, evidence_base_url))


def write_html(con: duckdb.DuckDBPyConnection, out_dir: str | Path, rules: R.RuleSet, evaluations: list[dict],
               evidence_base_url: str | None = ..., name: str = "report.html") -> Path:
    """Writes ``out_dir/report.html`` from the latest evaluations (pricewatch.reports.claims_report.latest)
    and returns its path. ``evidence_base_url``: where the archive is served (default: the
    ``[alerts] evidence_base_url`` setting); without one, evidence shows the WARC path, record
    id and the `pricewatch evidence` command, unlinked."""
    if evidence_base_url is ...:
        evidence_base_url = _evidence_base_url()
    path = Path(out_dir) / name
    path.write_text(render(con, rules, evaluations, evidence_base_url), encoding="utf-8")
    return path
