"""The `pricewatch` command."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

app = typer.Typer(help="GPU rental prices: scrape, archive, store, and keep published claims true.",
                  no_args_is_help=True, add_completion=False)
from pricewatch.clitools import DbOption, err, open_read_only
from pricewatch.clitools import db_path as _db


def _quiet_prefect() -> None:
    # Prefect's temporary server cannot start when PREFECT_HOME's parent folders are missing.
    Path(os.environ.get("PREFECT_HOME", "~/.prefect")).expanduser().mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("PREFECT_LOGGING_TO_API_WHEN_MISSING_FLOW", "ignore")
    # The temporary server migrates its database on first start: ~20 s on 2 cores.
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")


@app.command()
def run(
    replay: Optional[Path] = typer.Option(None, "--replay", help="WARC file or folder to replay instead of the network"),
    db: Optional[Path] = DbOption,
    as_of: Optional[str] = typer.Option(None, "--as-of", help="observation time of a replayed run (ISO 8601, e.g. 2026-10-29T00:00:00Z)"),
    archive_dir: Path = typer.Option(Path("data/archive"), "--archive-dir", help="where a live run writes its WARC files"),
    provider: Optional[list[str]] = typer.Option(None, "--provider", help="only these providers (repeatable)"),
):
    """Run the nightly job once: crawl (or replay), validate, load into DuckDB.

    --replay takes a WARC file, a folder of WARC files (one run), or a folder of dated folders
    such as captures/ (one run per date, oldest first).
    Exits 0 when at least one provider succeeded in every run, 1 when a run had none.
    """
    _quiet_prefect()
    if as_of and not replay:
        err.print("[red]--as-of only applies to a replay (a live run is observed now)[/red]")
        raise typer.Exit(2)
    from flows.nightly import nightly, parse_as_of
    from flows.outcome import summary_of
    try:
        parse_as_of(as_of)
    except ValueError as exc:
        err.print(f"[red]--as-of: {exc}[/red]")
        raise typer.Exit(2)
    if replay and not replay.exists():
        err.print(f"[red]replay archive not found: {replay}[/red]")
        raise typer.Exit(2)
    from pricewatch.collect import replay_batches
    batches = replay_batches(replay) if replay else [None]
    if as_of and len(batches) > 1:
        err.print(f"[red]--as-of needs a single capture set; {replay} holds {len(batches)} dated folders[/red]")
        raise typer.Exit(2)
    ok = True
    for batch in batches:
        # return_state: a run where every provider failed ends Failed but still has a summary.
        state = nightly(db_path=_db(db), replay=str(batch) if batch else None, as_of=as_of,
                        archive_dir=str(archive_dir), providers=provider or None, return_state=True)
        summary = summary_of(state)
        _print_summary(summary)
        ok = ok and any(p["status"] == "ok" for p in summary["providers"].values())
    raise typer.Exit(0 if ok else 1)


def _print_summary(summary: dict) -> None:
    out = Console()
    table = Table(title=f"run {summary['run_id']} ({summary['status']})"
                  + ("" if summary["loaded"] else " - already loaded, nothing changed"))
    for col in ("provider", "status", "offers", "seconds", "error / warnings"):
        table.add_column(col)
    for name, p in summary["providers"].items():
        note = p["error"] or "; ".join(p["warnings"])
        table.add_row(name, p["status"], str(p["offers"]), f"{p['duration_s'] or 0:.1f}", note or "")
    out.print(table)
    out.print(f"snapshot observed at {summary['observed_at']} -> {summary['db']}")
    claims = summary.get("claims")
    if claims:
        out.print("published claims: " + " · ".join(f"{s} {n}" for s, n in claims["counts"].items())
                  + " (pricewatch claims)")


@app.command()
def query(
    sql: str = typer.Argument(..., help="SQL to run (read-only)"),
    db: Optional[Path] = DbOption,
    fmt: str = typer.Option("table", "--format", help="table | csv | json"),
):
    """Run SQL against the warehouse, opened read-only."""
    if fmt not in ("table", "csv", "json"):
        err.print("[red]--format must be table, csv or json[/red]")
        raise typer.Exit(2)
    con = open_read_only(db)
    try:
        df = con.execute(sql).df()
    except Exception as exc:
        err.print(f"[red]{type(exc).__name__}: {exc}[/red]")
        raise typer.Exit(1)
    finally:
        con.close()
    if fmt == "csv":
        sys.stdout.write(df.to_csv(index=False))
    elif fmt == "json":
        sys.stdout.write(df.to_json(orient="records", date_format="iso", date_unit="s", force_ascii=False) + "\n")
    else:
        table = Table(show_lines=False)
        for c in df.columns:
            table.add_column(str(c))
        for row in df.itertuples(index=False):
            table.add_row(*["" if _isnull(v) else str(v) for v in row])
        Console(width=max(120, Console().width)).print(table)


def _isnull(v) -> bool:
    try:
        import pandas as pd
        return v is None or (not isinstance(v, (list, tuple)) and bool(pd.isna(v)))
    except (TypeError, ValueError):
        return False


@app.command("build-captures")
def build_captures_cmd(
    src: Path = typer.Argument(..., help="dated source folder, e.g. captures/src/2026-10-29"),
    out: Path = typer.Argument(..., help="output folder for <provider>.warc.gz"),
    provider: Optional[list[str]] = typer.Option(None, "--provider", help="only these providers (repeatable)"),
):
    """Rebuild the shipped WARC captures from their readable sources (deterministic)."""
    from pricewatch.captures import build_captures
    for path in build_captures(src, out, provider or None):
        typer.echo(path)


@app.command()
def alerts(
    db: Optional[Path] = DbOption,
    as_json: bool = typer.Option(False, "--json", help="JSON records, with each alert's body and details"),
    pending: bool = typer.Option(False, "--pending", help="only alerts not delivered yet (retried on the next run)"),
    limit: Optional[int] = typer.Option(None, "--limit", help="newest N alerts only"),
):
    """Alerts raised by the runs (newest first): state, kind, what changed, delivery attempts."""
    from pricewatch.alerts import list_alerts
    con = open_read_only(db)
    try:
        rows = list_alerts(con, pending_only=pending, limit=limit)
    finally:
        con.close()
    if as_json:
        sys.stdout.write(json.dumps(rows, default=str, ensure_ascii=False, indent=1) + "\n")
        return
    table = Table(title=f"{len(rows)} {'pending ' if pending else ''}alert(s)")
    for col in ("created", "state", "kind", "alert", "tries", "last error"):
        table.add_column(col)
    for r in rows:
        table.add_row(f"{r['created_at']:%Y-%m-%d %H:%M}", r["state"], r["kind"], r["title"],
                      str(r["attempts"]), r["last_error"] or "")
    Console(width=max(140, Console().width)).print(table)


@app.command()
def serve(
    port: int = typer.Option(4200, "--port", help="port of the local Prefect server (UI and API)"),
    host: str = typer.Option("127.0.0.1", "--host", help="address the server listens on"),
    home: Path = typer.Option(Path(".prefect"), "--home", help="PREFECT_HOME: server database and logs (relative to the checkout)"),
    api_url: Optional[str] = typer.Option(None, "--api-url", help="use this running Prefect server instead of starting one"),
):
    """Start a local Prefect server, create the work pool, deploy prefect.yaml and start a worker.

    The nightly deployment then runs at 02:00 UTC; runs, logs and artifacts are in the UI.
    Ctrl-C (or SIGTERM) stops the worker and the server.
    """
    from pricewatch.service import serve as serve_stack
    try:
        code = serve_stack(host, port, home, api_url, echo=lambda m: typer.echo(m))
    except (RuntimeError, TimeoutError, FileNotFoundError) as exc:
        err.print(f"[red]{exc}[/red]")
        raise typer.Exit(1)
    raise typer.Exit(code)


# `pricewatch claims` and `pricewatch report` live with the claims engine (pricewatch/claims/cli.py).
from pricewatch.claims.cli import register as _register_claims  # noqa: E402

_register_claims(app)


if __name__ == "__main__":
    app()
