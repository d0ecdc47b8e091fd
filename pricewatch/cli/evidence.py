"""`pricewatch evidence`, registered on the main CLI by pricewatch/cli/main.py (the work is in
pricewatch/evidence/lookup.py; ``--open`` in pricewatch/server/evidence_viewer.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

from pricewatch.cli.tools import DbOption, check_db_readable, fail, say
from pricewatch.cli.tools import open_read_only as _open
from pricewatch.record.text import console as esc

HEADER_LEN = 200


def register(app: typer.Typer) -> None:
    app.command("evidence")(evidence)


def evidence(
    target: str = typer.Argument(..., metavar="OFFER|CLAIM",
                                 help="an offer row id (offers.rowid), an offer key (with --provider), or a claim id"),
    provider: Optional[str] = typer.Option(None, "--provider", help="the provider of an offer key"),
    run: Optional[str] = typer.Option(None, "--run", help="that run's reading of the offer (default: the latest)"),
    archive: Optional[list[Path]] = typer.Option(None, "--archive", help="an archive root to look in first (repeatable)"),
    open_: bool = typer.Option(False, "--open", help="serve the records for replay in a browser and print its URL"),
    port: int = typer.Option(0, "--port", help="with --open: the local port (default: a free one)"),
    as_json: bool = typer.Option(False, "--json", help="print the evidence as JSON"),
    db: Optional[Path] = DbOption,
):
    """Show the archived request/response a stored price came from: URL, time, status, headers,
    the body around the printed price, and its sha256 checked against the stored one.

    OFFER is a row id (`pricewatch query "SELECT rowid, * FROM offers"`) or, with --provider,
    an offer key (its latest reading, or --run's). CLAIM is a claim id (`pricewatch claims`):
    one block per input of its latest evaluation. Exit 1 when any evidence does not check out.
    """
    from pricewatch.evidence import lookup
    db_file = check_db_readable(db)
    con = _open(db)
    try:
        if provider:
            blocks = [lookup.of_offer(con, db_file, provider=provider, offer_key=target, run_id=run, roots=archive)]
        elif target.isdigit():
            blocks = [lookup.of_offer(con, db_file, row_id=int(target), roots=archive)]
        else:
            blocks = lookup.of_claim(con, target, db_file, roots=archive)
    except LookupError as exc:
        fail(str(exc))  # nothing by that name: bad input (exit 2)
    finally:
        con.close()
    if as_json:
        typer.echo(lookup.dumps(blocks))
    else:
        out = Console(highlight=False, soft_wrap=True)
        for block in blocks:
            show(out, block)
    problems = [b.problem for b in blocks if b.problem]
    for p in problems:
        say(p)
    if problems:
        raise typer.Exit(1)
    if open_:
        from pricewatch.server.evidence_viewer import serve_until_stopped
        serve_until_stopped([b for b in blocks if b.exchange], port=port, echo=typer.echo)


def _inert(text: str) -> str:
    """Page text for the console, spacing kept: line breaks shown as ↵, other control and
    format characters (bidi overrides, escapes) dropped, rich markup escaped."""
    import unicodedata

    from rich.markup import escape
    return escape("".join("↵ " if ch == "\n" else (" " if ch in "\t\r" else ch) for ch in text
                          if ch in "\t\r\n" or unicodedata.category(ch)[0] != "C"))


def show(out: Console, ev) -> None:
    """One block: what was stored, where it is archived, the exchange, the check, the excerpt."""
    row = ev.row
    out.print(f"\n[bold]── {esc(ev.title, 400)}[/bold]")
    price = row.get("price_per_hour")
    line = f"printed    {esc(repr(ev.printed) if ev.printed else '(nothing printed)')}"
    if price is not None:
        line += f"  -> {esc(price)} {esc(row.get('price_unit') or '')}"
    out.print(line)
    out.print(f"stored     {esc(row.get('source_url'))}  observed {esc(row.get('observed_at'))}")
    out.print(f"           {esc(row.get('warc_file'))}  record {esc(row.get('warc_record_id'))}")
    if ev.note and ev.exchange is None:
        out.print(f"[yellow]{esc(ev.note)}[/yellow]")
        return
    if ev.exchange is None:
        out.print(f"[bold red]{esc(ev.problem, 600)}[/bold red]")
        return
    ex = ev.exchange
    out.print(f"archive    {esc(ev.file)}" + (f"  (warcinfo: {esc(ex.warcinfo.get('software', ''))})" if ex.warcinfo else ""))
    out.print(f"request    {esc(ex.request_line or '(no request record)')}")
    for k, v in ex.request_headers:
        out.print(f"             {esc(k)}: {esc(v, HEADER_LEN)}")
    out.print(f"response   {esc(ex.status_line)}  at {esc(ex.response.ref.captured_at.isoformat())}"
              f"  ({len(ex.response.body):,} bytes)")
    for k, v in ex.response.headers:
        out.print(f"             {esc(k)}: {esc(v, HEADER_LEN)}")
    stored = row.get("body_sha256")
    if stored is None:
        out.print(f"sha256     {esc(ev.recomputed_sha256)} (recomputed; none stored for this input)")
    elif stored == ev.recomputed_sha256:
        out.print(f"sha256     {esc(stored)} [green]stored = recomputed: OK[/green]")
    else:
        out.print(f"[bold red]sha256     MISMATCH: stored {esc(stored)}, recomputed {esc(ev.recomputed_sha256)}[/bold red]")
    for kind, rid, ctype, data in ex.derived:
        out.print(f"derived    {esc(kind)} {esc(rid)} {esc(ctype)} ({len(data):,} bytes)")
    if ev.excerpt:
        before, match, after = ev.excerpt
        out.print(f"excerpt    in the {esc(ev.found_in, 300)}:")
        out.print("  " + _inert(before) + "[bold reverse]" + _inert(match) + "[/bold reverse]" + _inert(after))
    elif ev.note:
        out.print(f"[yellow]{esc(ev.note)}[/yellow]")
    if ev.problem:
        out.print(f"[bold red]{esc(ev.problem, 600)}[/bold red]")
