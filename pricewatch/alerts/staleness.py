"""page_unchecked / page_checked_again: a page whose claims cannot be checked because sources
they read are stale (issue 21 item 2).

A stale source is not a failing one: its last good data is older than the staleness limit
(``mart_settings.stale_after_hours``), often because it was simply not crawled. Telling each of
the 43 claims it leaves unverifiable one by one is noise; telling nobody is worse. So each page
gets one event when its claims first go unchecked because of stale sources (grouped by source:
"3 sources stale → 43 claims", each with the age of its last good data), and one when none of
its claims is unchecked for staleness any more. The claim_status events of those same claims
(holds → unverifiable for staleness, and back) are left out of the page digest (claims.py).
"""

from __future__ import annotations

from pricewatch.alerts.model import Alert, _Run
from pricewatch.alerts.render import UTC_FMT, S, _L
from pricewatch.alerts.store import _rows, sql


def stale_claims(con, run_ids: list[str]) -> dict[str, dict[str, dict[str, list[str]]]]:
    """run_id -> page -> stale source -> the claims it leaves unverifiable."""
    out: dict = {}
    for r in _rows(con, sql("stale_claims"), [run_ids]):
        out.setdefault(r["run_id"], {}).setdefault(r["page"], {}).setdefault(r["provider"], []).append(r["claim_id"])
    return out


def _page_staleness(con, run: _Run) -> list[Alert]:
    if not run.claims:
        return []
    stale = stale_claims(con, [r for r in (run.run_id, run.previous_eval) if r])
    now, before = stale.get(run.run_id, {}), stale.get(run.previous_eval, {}) if run.previous_eval else {}
    out = []
    for page in sorted(set(now) | set(before)):
        if page in now and page not in before:
            out.append(_unchecked(con, run, page, now[page]))
        elif page in before and page not in now:
            out.append(_checked_again(run, page, before[page]))
    return out


def _last_good(con, run: _Run, provider: str):
    rows = _rows(con, """SELECT max(r.observed_at) AS at FROM provider_runs p JOIN runs r USING (run_id)
                         WHERE p.provider = ? AND p.trusted AND r.observed_at <= ?""", [provider, run.observed_at])
    return rows[0]["at"] if rows else None


def _unchecked(con, run: _Run, page: str, by_source: dict[str, list[str]]) -> Alert:
    limit = _rows(con, "SELECT stale_after_hours FROM mart_settings")
    limit_h = float(limit[0]["stale_after_hours"]) if limit else None
    claims = sorted({c for cs in by_source.values() for c in cs})
    sources = []
    for provider, ids in sorted(by_source.items()):
        at = _last_good(con, run, provider)
        age = (run.observed_at - at).total_seconds() / 3600 if at else None
        sources.append({"provider": provider, "claims": len(ids), "last_good_at": at.isoformat() if at else None,
                        "age_hours": round(age, 1) if age is not None else None})
    n_src = len(sources)
    lines: list = [f"Page {page}: {len(claims)} claim(s) can no longer be checked as of {run.observed_at:{UTC_FMT}}: "
                   f"{n_src} source(s) stale → {len(claims)} claim(s). The page keeps its published text; "
                   "nothing on it is known to be wrong."]
    for s in sources:
        seen = (f"last good data {s['age_hours']:.0f} h old (from {s['last_good_at'][:16].replace('T', ' ')} UTC)"
                if s["age_hours"] is not None else "never read")
        lines.append(_L("- ", S(s["provider"]), f": {seen}" + (f", limit {limit_h:g} h" if limit_h else "") +
                        f"; {s['claims']} claim(s)"))
    lines.append("Crawl the stale sources (pricewatch run --provider NAME) to check the page again.")
    return Alert("page_unchecked", page, f"unchecked|{','.join(sorted(by_source))}|{run.run_id}", run.run_id,
                 f"{page}: {len(claims)} claim(s) no longer checked ({n_src} source(s) stale)", lines,
                 {"page": page, "sources": sources, "claims": claims, "limit_hours": limit_h}, "warning")


def _checked_again(run: _Run, page: str, by_source: dict[str, list[str]]) -> Alert:
    claims = sorted({c for cs in by_source.values() for c in cs})
    statuses = {c: (run.claims.get(c) or {}).get("status") for c in claims}
    counts = {s: sum(1 for v in statuses.values() if v == s) for s in ("holds", "drifted", "unverifiable")}
    lines: list = [f"Page {page}: its {len(claims)} claim(s) left unchecked by stale sources are checked again as of "
                   f"{run.observed_at:{UTC_FMT}}: {counts['holds']} hold, {counts['drifted']} changed, "
                   f"{counts['unverifiable']} still unverifiable for another reason."]
    lines += [_L("- ", S(p), f": fresh again; {len(ids)} claim(s)") for p, ids in sorted(by_source.items())]
    return Alert("page_checked_again", page, f"checked-again|{','.join(sorted(by_source))}|{run.run_id}", run.run_id,
                 f"{page}: checked again ({len(by_source)} source(s) fresh)", lines,
                 {"page": page, "sources": [{"provider": p, "claims": len(ids)} for p, ids in sorted(by_source.items())],
                  "claims": claims, "counts": counts}, "success" if not counts["drifted"] else "warning")
