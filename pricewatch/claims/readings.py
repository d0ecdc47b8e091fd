"""An offer's trusted readings up to a run, read without reading the history (issue 11).

A trusted reading is an offer's row in a successful provider run that the quality gate did not
hold. ``trusted_readings(con, wanted)`` gives, for each (provider, offer_key, run_id): the
offer's trusted reading in that run (None if it has none) and its last trusted reading before
it (None if it never had one). The claims read the last trusted reading behind a held one
(pricewatch/claims/snapshot.py); the alerts compare a cited offer's reading with the one before
(pricewatch/alerts/observe.py).

Bounded: sql/reading_plan.sql names the rows to read from small tables (the provider's last
WINDOW_RUNS successful runs, and the stored price spells for anything older),
sql/trusted_readings.sql reads just those rows by their observed_at (the zone maps of offers
skip every other run), and sql/trusted_reading_before.sql searches a spell only in the rare
case that every reading of the window was held. tests/test_claims_alerts_at_scale.py checks
the answers against the full-history query they replaced.
"""

from __future__ import annotations

import duckdb

from pricewatch.claims.queries import query

#: Successful runs of a provider whose rows are read for each offer (the window).
WINDOW_RUNS = 4

Key = tuple[str, str, str]       # (provider, offer_key, run_id read up to)


def _rows(con, sql: str, params) -> list[dict]:
    cur = con.execute(sql, params)
    cols = [c[0] for c in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def trusted_readings(con: duckdb.DuckDBPyConnection, wanted) -> dict[Key, tuple[dict | None, dict | None]]:
    """{(provider, offer_key, run_id): (its trusted reading in run_id, the last one before)}:
    offers rows (every column, and seq: the run's place in run_sequence)."""
    wanted = sorted(set(wanted))
    if not wanted:
        return {}
    plan = _rows(con, query("reading_plan"), [[w[0] for w in wanted], [w[1] for w in wanted],
                                               [w[2] for w in wanted], WINDOW_RUNS])
    cells = sorted({(p["provider"], p["offer_key"], r, t) for p in plan
                    for r, t in zip(p["run_ids"] or [], p["times"] or [])})
    rows: dict[tuple[str, str, str], dict] = {}
    if cells:
        for row in _rows(con, query("trusted_readings"), [list(col) for col in zip(*cells)]):
            rows[(row["provider"], row["offer_key"], row["run_id"])] = row
    out: dict[Key, tuple[dict | None, dict | None]] = {}
    search = []
    for p in plan:
        key = (p["provider"], p["offer_key"], p["upto_run"])
        found = [rows[(key[0], key[1], r)] for r in p["run_ids"] or [] if (key[0], key[1], r) in rows]
        at = next((r for r in found if r["run_id"] == key[2]), None)
        before = max((r for r in found if r["run_id"] != key[2]), key=lambda r: r["seq"], default=None)
        out[key] = (at, before)
        if before is None and p["spell_from"] is not None:
            search.append((key, p["spell_from"], p["edge_at"]))
    if search:
        spans: dict[tuple, list[Key]] = {}
        for key, _, to_at in search:
            spans.setdefault((key[0], key[1], to_at), []).append(key)
        for row in _rows(con, query("trusted_reading_before"), [[k[0] for k, _, _ in search], [k[1] for k, _, _ in search],
                                                                [f for _, f, _ in search], [t for _, _, t in search]]):
            for key in spans[(row["provider"], row["offer_key"], row.pop("to_at"))]:
                out[key] = (out[key][0], row)
    return out
