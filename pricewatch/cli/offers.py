"""`pricewatch offers ...`: readings the quality gate holds, and an editor's decision on one.

    pricewatch offers [--provider P]                                   held readings and their decisions
    pricewatch offers accept OFFER --provider P --run RUN [--note T]   the reading is the offer's price
    pricewatch offers reject OFFER --provider P --run RUN [--note T]   the reading stays out for good

A decision is recorded in offer_decisions with who ($PRICEWATCH_USER, else the OS user) and
when, covers the offer's held readings at the same price from that run on, and re-evaluates
the latest snapshot's claims; what changed is printed (pricewatch/claims/decisions.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from pricewatch.cli.tools import DbOption, cell, check_db_readable, fail, open_read_only, say_waiting

app = typer.Typer(help="Readings the quality gate holds: list them, accept or reject one.")


@app.callback(invoke_without_command=True)
def offers(
    ctx: typer.Context,
    db: Optional[Path] = DbOption,
    provider: Optional[str] = typer.Option(None, "--provider", help="only this provider"),
):
    """The readings the quality gate holds now (held_offers), with the decision on each (held_offer_decisions)."""
    if ctx.invoked_subcommand is not None:
        return
    con = open_read_only(db)
    try:
        rows = con.execute("SELECT h.provider, h.offer_key, h.run_id, h.price_per_hour, o.price_text, h.held_reason, "
                           "d.decision, d.decided_by FROM held_offers h "
                           "JOIN offers o USING (provider, offer_key, run_id) "
                           "LEFT JOIN held_offer_decisions d USING (provider, offer_key, run_id) "
                           "WHERE ? IS NULL OR h.provider = ? ORDER BY h.provider, h.offer_key",
                           [provider, provider]).fetchall()
    finally:
        con.close()
    if not rows:
        typer.echo("no held readings")
        return
    for p, key, run, price, text, why, decision, who in rows:
        shown = f"${float(price):g}/h" if price is not None else repr(text)
        state = f"{decision}ed by {who}" if decision else "needs a look"
        typer.echo(cell(f"{p} {key!r} run {run}: {shown} held ({why}): {state}"))


def _decide(decision: str, offer: str, provider: str, run: str, note: Optional[str], db: Optional[Path]) -> None:
    from pricewatch.alerts.evidence_links import evidence_command
    from pricewatch.claims.decisions import DecisionError, record_decision
    from pricewatch.claims.evaluate import reevaluate_decided
    from pricewatch.claims.rules import RulesError
    from warehouse.db import WarehouseLocked, load_wait_s, session
    from warehouse.migrate import migrate
    path = check_db_readable(db)
    try:
        with session(path, wait_s=load_wait_s(), on_wait=say_waiting) as con:
            migrate(con)
            row = record_decision(con, provider, offer, run, decision, note)
            result = reevaluate_decided(con)
    except (DecisionError, WarehouseLocked, RulesError) as exc:
        fail(str(exc), 1)
    shown = f"${float(row['price_per_hour']):g}/h" if row["price_per_hour"] is not None else repr(row["price_text"])
    verb = "accepted" if decision == "accept" else "rejected"
    typer.echo(cell(f"{verb}: {provider} {offer!r} at {shown} from run {run} (held: {row['held_reason']}), "
                   f"by {row['decided_by']} at {row['decided_at']:%Y-%m-%d %H:%M:%S} UTC"))
    typer.echo(cell(f"evidence: {evidence_command(offer, provider, run)}"))
    if result is None:
        typer.echo("no claim evaluations yet: nothing to re-evaluate")
        return
    typer.echo(cell(f"claims of run {result['run_id']} evaluated again: {len(result['changed'])} changed"))
    for c in result["changed"]:
        typer.echo(cell(f"  {c['claim_id']} ({c['page']}): {c['old_status'] or '—'} {c['old_text'] or ''} -> "
                       f"{c['new_status']} {c['new_text'] or ''}"))


@app.command()
def accept(
    offer: str = typer.Argument(..., help="the offer key, as `pricewatch offers` lists it"),
    provider: str = typer.Option(..., "--provider", help="the offer's provider"),
    run: str = typer.Option(..., "--run", help="the run whose held reading is accepted"),
    note: Optional[str] = typer.Option(None, "--note", help="why (kept with the decision)"),
    db: Optional[Path] = DbOption,
):
    """Accept a held reading: it becomes the offer's latest price and the claims are evaluated again."""
    _decide("accept", offer, provider, run, note, db)


@app.command()
def reject(
    offer: str = typer.Argument(..., help="the offer key, as `pricewatch offers` lists it"),
    provider: str = typer.Option(..., "--provider", help="the offer's provider"),
    run: str = typer.Option(..., "--run", help="the run whose held reading is rejected"),
    note: Optional[str] = typer.Option(None, "--note", help="why (kept with the decision)"),
    db: Optional[Path] = DbOption,
):
    """Reject a held reading: it stays out of the prices for good (its evidence is kept)."""
    _decide("reject", offer, provider, run, note, db)


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="offers")
