"""`pricewatch claims` and `pricewatch report`, registered on the main CLI by pricewatch/cli/main.py."""

from __future__ import annotations

import json
import sys
from decimal import Decimal
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from pricewatch.cli.tools import DbOption, cell, check_out_dir, fail, say, say_waiting
from pricewatch.cli.tools import open_read_only as _open

STATUSES = ("holds", "drifted", "unverifiable")


def _has_claims(con) -> bool:
    return bool(con.execute("SELECT count(*) FROM information_schema.tables "
                            "WHERE table_name = 'claim_evaluations'").fetchone()[0])


def _has_view(con, name: str) -> bool:
    return bool(con.execute("SELECT count(*) FROM duckdb_views() WHERE view_name = ?", [name]).fetchone()[0])


def _jsonable(v):
    if isinstance(v, Decimal):
        return float(v)
    if hasattr(v, "isoformat"):
        return v.isoformat()
    return v


INPUT_FIELDS = ("input_name", "role", "provider", "offer_key", "gpu_model", "gpu_count", "billing", "price_per_hour",
                "price_per_gpu_hour", "observed_at", "source_url", "warc_file", "warc_record_id", "input_status",
                "used", "price_text", "fact", "value_num", "value_text")
CLAIM_FIELDS = ("claim_id", "claim_group", "page", "kind", "status", "published_value", "published_text",
                "current_value", "current_text", "difference", "tolerance", "reason", "note", "pick",
                "unverifiable_since", "previous_status", "snapshot_at", "run_id", "cited_date", "says_ja", "says_en")


def _input_line(i: dict) -> str:
    what = i["offer_key"] or i["fact"] or ""
    if i["input_status"] != "ok":
        return f"{i['provider']} {what}: {i['input_status']}"
    if i["fact"]:
        return f"{i['provider']} {what} = {i['value_text'] if i['value_text'] is not None else i['value_num']:}"
    return f"{i['provider']} {what} ${Decimal(i['price_per_hour']).normalize():f} ({i['role']}{', used' if i['used'] else ''})"


def _reevaluate(db: Optional[Path]) -> None:
    """`pricewatch claims --reevaluate`: the latest snapshot under the current rules, once."""
    from pricewatch.claims.evaluate import reevaluate_latest
    from pricewatch.claims.rules import RulesError
    from warehouse.db import WarehouseLocked, default_db_path, load_wait_s, session
    path = Path(db or default_db_path())
    if not path.is_file():
        fail(f"no warehouse at {path} (run `pricewatch run` first)", 1)
    from pricewatch.alerts.deliver import deliver_alerts
    from pricewatch.alerts.derive import derive_alerts
    from pricewatch.record.config import ConfigError, load_config
    try:
        config = load_config()
        with session(path, wait_s=load_wait_s(), on_wait=say_waiting) as con:
            result = reevaluate_latest(con)
            # The rule change is told as such (one message per page and rules version).
            alerts = derive_alerts(con, result["run_id"], config) if result else None
            delivered = deliver_alerts(con, config) if result else None
    except (WarehouseLocked, RulesError, ConfigError) as exc:
        fail(str(exc), 1)
    out = Console()
    if result is None:
        out.print("rules unchanged since the latest snapshot was evaluated: nothing to re-evaluate")
        return
    out.print(cell(f"run {result['run_id']} evaluated again under rules {result['rules_version']} "
                   f"(was {result['previous_version']}): {len(result['changed'])} claim(s) changed by the rules"))
    for c in result["changed"]:
        out.print(cell(f"  {c['change']}: {c['claim_id']} ({c['page']}): {c['old_status'] or '—'} {c['old_text'] or ''}"
                       f" -> {c['new_status'] or '—'} {c['new_text'] or ''}"))
    # deliver_alerts counts what it sent as "sent" (and failed / pending): say those, not a guess
    out.print(cell(f"alerts: {_count(alerts, 'raised')} raised, {_count(delivered, 'sent')} delivered"
                   + "".join(f", {_count(delivered, k)} {k}" for k in ("failed", "pending") if _count(delivered, k))))


def _count(result, key: str) -> int:
    v = (result or {}).get(key, 0)
    return len(v) if isinstance(v, (list, tuple, set, dict)) else int(v or 0)


def unchecked_by_source(rows: list[dict]) -> list[str]:
    """The unverifiable claims grouped by why, per source: "3 source(s) stale → 43 claim(s):
    gpuwithcrypto (12), ...", then the failing ones, never one line per claim."""
    out = []
    for status, word in (("stale", "stale (not read lately)"), ("failed", "failing"),
                         ("never_seen", "never read")):
        per: dict[str, set] = {}
        for r in rows:
            if r["status"] == "unverifiable":
                for i in r["inputs"]:
                    if i["input_status"] == status:
                        per.setdefault(i["provider"], set()).add(r["claim_id"])
        if per:
            claims = set().union(*per.values())
            out.append(f"{len(per)} source(s) {word} → {len(claims)} claim(s) unverifiable: " +
                       ", ".join(f"{p} ({len(c)})" for p, c in sorted(per.items(), key=lambda x: (-len(x[1]), x[0]))))
    return out


def register(app: typer.Typer) -> None:
    @app.command()
    def claims(
        db: Optional[Path] = DbOption,
        as_json: bool = typer.Option(False, "--json", help="JSON: every claim with its inputs"),
        page: Optional[str] = typer.Option(None, "--page", help="only this page (rules/<page>/)"),
        status: Optional[str] = typer.Option(None, "--status", help="only holds | drifted | unverifiable"),
        reevaluate: bool = typer.Option(False, "--reevaluate",
                                        help="evaluate the latest snapshot again under the current rules/ "
                                             "and list what the rules change moved (writes the warehouse)"),
    ):
        """The latest evaluation of every published claim: status, published and current value, inputs."""
        from pricewatch.reports.claims_report import latest
        if status and status not in STATUSES:
            fail(f"--status must be one of {', '.join(STATUSES)} (got {status})")
        if reevaluate:
            _reevaluate(db)
        con = _open(db)
        try:
            rows = latest(con) if _has_claims(con) else []
            held = con.execute("SELECT provider, offer_key, price_per_hour, held_reason FROM held_offers "
                               "ORDER BY provider, offer_key").fetchall() if _has_view(con, "held_offers") else []
        finally:
            con.close()
        rows = [r for r in rows if (not page or r["page"] == page) and (not status or r["status"] == status)]
        if not rows:
            say("no claim evaluations (run `pricewatch run` first, or check --page/--status)", style="yellow",
                prefix="")
            raise typer.Exit(1)
        if as_json:
            out = [{**{k: _jsonable(r[k]) for k in CLAIM_FIELDS},
                    "inputs": [{k: _jsonable(i[k]) for k in INPUT_FIELDS} for i in r["inputs"]]} for r in rows]
            sys.stdout.write(json.dumps(out, ensure_ascii=False, indent=1) + "\n")
            return
        table = Table(title=cell(f"claims as of {rows[0]['snapshot_at']:%Y-%m-%d %H:%M} UTC (run {rows[0]['run_id']})"))
        for col in ("claim", "page", "status", "published", "current", "inputs", "why / note"):
            table.add_column(col, overflow="fold")
        colour = {"holds": "green", "drifted": "red", "unverifiable": "yellow"}
        for r in rows:
            used = [i for i in r["inputs"] if i["used"] or i["role"] == "cited" or i["input_status"] != "ok"]
            table.add_row(cell(r["claim_id"]), cell(r["page"]),
                          f"[{colour.get(r['status'], 'white')}]{cell(r['status'])}[/]", cell(r["published_text"]),
                          cell(r["current_text"] or "—"), "\n".join(cell(_input_line(i)) for i in used[:4]),
                          cell("; ".join(x for x in (r["reason"], r["note"]) if x), max_len=600))
        Console(width=max(160, Console().width)).print(table)
        counts = {s: sum(1 for r in rows if r["status"] == s) for s in ("holds", "drifted", "unverifiable")}
        Console().print(" · ".join(f"{k}: {v}" for k, v in counts.items()))
        for line in unchecked_by_source(rows):
            Console().print(cell(line), style="yellow")
        # Readings the quality gate holds are used by no claim: they show here, only as held.
        for provider, key, price, why in held:
            Console().print(cell(f"held (not used until confirmed): {provider} {key} ${float(price):g}/h: {why}"),
                            style="yellow")

    @app.command()
    def report(
        out: Path = typer.Option(..., "--out", help="folder for claims-report.md, the regenerated pages, "
                                                    "their diffs and HTML views"),
        db: Optional[Path] = DbOption,
    ):
        """The editor's report: both pages regenerated whole in their own file names (<original>,
        ready to paste), a unified diff against each published page (<page>.diff), an HTML view
        of each (<page>.html: every changed number old → new, sentences that need an editor),
        the tables alone (<page>.tables.md) and claims-report.md (every claim with its evidence)."""
        from pricewatch.claims.rules import rules_version
        from pricewatch.reports.claims_report import write_report
        check_out_dir(out)
        con = _open(db)
        try:
            if not _has_claims(con):
                fail("no claim evaluations in the warehouse yet (run `pricewatch run` first)", 1)
            evaluated = con.execute("SELECT arg_max(rules_version, evaluated_at) FROM claim_evaluations").fetchone()[0]
        finally:
            con.close()
        if evaluated != rules_version():
            # Never the old evaluation without a word: the rules changed, so evaluate again first.
            say(f"rules/ changed since the latest evaluation (rules {evaluated}, now {rules_version()}): "
                "evaluating the latest snapshot again before the report", style="yellow", prefix="")
            _reevaluate(db)
        con = _open(db)
        try:
            paths = write_report(con, out)
        except LookupError as exc:
            fail(str(exc), 1)
        finally:
            con.close()
        for p in paths:
            typer.echo(p)
