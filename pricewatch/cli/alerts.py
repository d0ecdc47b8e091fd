"""`pricewatch alerts ...`: what was sent (messages), the events they carry, acks and mutes.

    pricewatch alerts [--json] [--pending] [--limit N] [--messages]   events (or messages) and mutes in force
    pricewatch alerts show ID                                         a message (or an event) in full
    pricewatch alerts ack ID [--note TEXT]                            seen; a pending message is then not sent
    pricewatch alerts mute (--provider P | --gpu G | --claim C) --until DATE [--reason TEXT]
    pricewatch alerts unmute MUTE_ID                                  e.g. provider:thunder_compute
"""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from pricewatch.cli.tools import DbOption, cell, check_db_readable, fail, open_read_only, say_waiting

app = typer.Typer(help="Alerts: the messages sent, the events they carry, acks and mutes.")


@contextmanager
def _writable(db: Optional[Path]):
    from warehouse.db import WarehouseLocked, load_wait_s, session
    from warehouse.migrate import migrate
    path = check_db_readable(db)
    try:
        with session(path, wait_s=load_wait_s(), on_wait=say_waiting) as con:
            migrate(con)
            yield con
    except WarehouseLocked as exc:
        fail(str(exc), 1)


def _wide() -> Console:
    return Console(width=max(140, Console().width))


@app.callback(invoke_without_command=True)
def alerts(
    ctx: typer.Context,
    db: Optional[Path] = DbOption,
    as_json: bool = typer.Option(False, "--json", help="JSON records, with each alert's body and details"),
    pending: bool = typer.Option(False, "--pending", help="only alerts not delivered yet (retried on the next run)"),
    limit: Optional[int] = typer.Option(None, "--limit", help="newest N alerts only (N >= 1)"),
    messages: bool = typer.Option(False, "--messages", help="the messages sent to people instead of the events"),
):
    """Alerts raised by the runs (newest first): state, kind, what changed, delivery attempts;
    the messages that carried them, and the mute rules in force."""
    if ctx.invoked_subcommand is not None:
        return
    from pricewatch.alerts.deliver import list_alerts, list_messages
    from pricewatch.alerts.mutes import list_mutes
    if limit is not None and limit < 1:
        fail(f"--limit must be 1 or more (got {limit})")
    con = open_read_only(db)
    try:
        rows = (list_messages if messages else list_alerts)(con, pending_only=pending, limit=limit)
        mutes = list_mutes(con) if _has(con, "alert_mutes") else []
    finally:
        con.close()
    if as_json:
        sys.stdout.write(json.dumps(rows, default=str, ensure_ascii=False, indent=1) + "\n")
        return
    out = _wide()
    what = "message" if messages else "alert"
    table = Table(title=f"{len(rows)} {'pending ' if pending else ''}{what}(s)")
    for col in ("created", "state", "kind", "id", what, "tries", "last error"):
        table.add_column(col)
    for r in rows:
        state = r["state"] + (" (acked)" if r.get("acked_at") and r["state"] != "acked" else "")
        table.add_row(f"{r['created_at']:%Y-%m-%d %H:%M}", cell(state), cell(r["kind"]),
                      cell(r.get("message_id") or r.get("alert_id")), cell(r["title"]), str(r["attempts"]),
                      cell(r["last_error"]))
    out.print(table)
    if mutes:
        mt = Table(title=f"{len(mutes)} mute rule(s) in force")
        for col in ("mute", "until", "reason"):
            mt.add_column(col)
        for m in mutes:
            mt.add_row(cell(m["mute_id"]), f"{m['until']:%Y-%m-%d %H:%M %Z}", cell(m["reason"]))
        out.print(mt)


@app.command()
def show(ident: str = typer.Argument(..., metavar="ID", help="a message id or an alert (event) id"),
         db: Optional[Path] = DbOption,
         markdown: bool = typer.Option(False, "--markdown", help="the Markdown body chat targets get")):
    """One message (or event) in full, as a text target receives it."""
    from pricewatch.alerts.store import _has as has
    from pricewatch.alerts.store import _rows
    con = open_read_only(db)
    try:
        found = _rows(con, "SELECT title, body_text, body_markdown FROM alert_messages WHERE message_id = ?", [ident]) \
            if has(con, "alert_messages") else []
        if not found:
            found = [{**r, "body_markdown": r["body_text"]} for r in
                     _rows(con, "SELECT title, body AS body_text FROM alerts WHERE alert_id = ?", [ident])]
    finally:
        con.close()
    if not found:
        fail(f"no message or alert with id {ident!r} (pricewatch alerts --messages lists them)", 1)
    from pricewatch.record.text import plain
    sys.stdout.write(plain(found[0]["title"], 250) + "\n\n")
    body = found[0]["body_markdown" if markdown else "body_text"]
    sys.stdout.write("".join(ch for ch in body if ch == "\n" or ch.isprintable()) + "\n")


@app.command()
def ack(ident: str = typer.Argument(..., metavar="ID", help="a message id (or an alert id)"),
        note: Optional[str] = typer.Option(None, "--note", help="what is being done about it"),
        db: Optional[Path] = DbOption):
    """Acknowledge a message (or an event): recorded; a message not sent yet is then not sent."""
    from pricewatch.alerts.mutes import ack as do_ack
    with _writable(db) as con:
        try:
            result = do_ack(con, ident, note)
        except KeyError:
            fail(f"no message or alert with id {ident!r} (pricewatch alerts --messages lists them)", 1)
    typer.echo(f"{result['what']} {ident} acknowledged" + ("" if result["new"] else " (already)"))


@app.command()
def mute(provider: Optional[str] = typer.Option(None, "--provider", help="a provider id, e.g. thunder_compute"),
         gpu: Optional[str] = typer.Option(None, "--gpu", help="a canonical GPU model, e.g. 'A100 80GB'"),
         claim: Optional[str] = typer.Option(None, "--claim", help="a claim id, e.g. g-cite-thunder-a100"),
         until: str = typer.Option(..., "--until", help="until this date (exclusive; ISO 8601: 2026-12-31 "
                                                        "or 2026-12-31T12:00:00Z)"),
         reason: Optional[str] = typer.Option(None, "--reason", help="why (shown by pricewatch alerts)"),
         db: Optional[Path] = DbOption):
    """Mute the events about a provider, a GPU or a claim until a date: they are recorded as
    muted, never sent."""
    from pricewatch.alerts.mutes import add_mute
    chosen = [(s, v) for s, v in (("provider", provider), ("gpu", gpu), ("claim", claim)) if v]
    if len(chosen) != 1:
        fail("name exactly one of --provider, --gpu or --claim")
    try:
        end = datetime.fromisoformat(until.replace("Z", "+00:00"))
    except ValueError:
        fail(f"--until {until!r} is not an ISO 8601 date (e.g. 2026-12-31)")
    end = end if end.tzinfo else end.replace(tzinfo=timezone.utc)
    if end <= datetime.now(timezone.utc):
        fail(f"--until {until} is not in the future")
    scope, value = chosen[0]
    with _writable(db) as con:
        mute_id = add_mute(con, scope, value, end, reason)
    typer.echo(f"muted {mute_id} until {end:%Y-%m-%d %H:%M} UTC")


@app.command()
def unmute(mute_id: str = typer.Argument(..., metavar="MUTE_ID", help="scope:value, as pricewatch alerts lists it"),
           db: Optional[Path] = DbOption):
    """Remove a mute rule."""
    from pricewatch.alerts.mutes import remove_mute
    with _writable(db) as con:
        if not remove_mute(con, mute_id):
            fail(f"no mute rule {mute_id!r} (pricewatch alerts lists them)", 1)
    typer.echo(f"unmuted {mute_id}")


def _has(con, name: str) -> bool:
    from pricewatch.alerts.store import _has as has
    return has(con, name)


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="alerts")
