"""The `pricewatch` command.

Every command fails the same way: one line on stderr (`error: ...`) and a non-zero exit, never
a traceback (pricewatch/cli/tools.py: GuardedGroup); bad input is refused before anything runs.
Text from outside (scraped labels, errors quoting a page, query results) reaches the console
only through pricewatch.record.text.console; `--format csv/json` print the raw values.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from pricewatch.cli.query import open_query_connection, refused_statement
from pricewatch.cli.tools import (
    DbOption,
    GuardedGroup,
    error_text,
    fail,
    set_debug,
)

app = typer.Typer(help="GPU rental prices: scrape, archive, store, and keep published claims true.",
                  no_args_is_help=True, add_completion=False, cls=GuardedGroup,
                  context_settings={"help_option_names": ["-h", "--help"]})


def _print_version(value: bool) -> None:
    if value:
        from pricewatch.cli.tools import version_text
        typer.echo(version_text())
        raise typer.Exit(0)


@app.callback()
def _options(debug: bool = typer.Option(False, "--debug", help="let an error through with its traceback "
                                                                 "(also PRICEWATCH_DEBUG=1)"),
             version: bool = typer.Option(False, "--version", is_eager=True, callback=_print_version,
                                          help="print the version and exit")):
    set_debug(debug)


from pricewatch.cli.run import register as _register_run  # noqa: E402

_register_run(app)


@app.command(context_settings={"ignore_unknown_options": True})   # SQL may start with a -- comment
def query(
    sql: Optional[str] = typer.Argument(None, help="SQL to run (read-only); '-' or none with -f: read it "
                                        "from standard input / the file"),
    file: Optional[Path] = typer.Option(None, "--file", "-f", help="read the SQL from this file"),
    db: Optional[Path] = DbOption,
    fmt: str = typer.Option("table", "--format", help="table | csv | json"),
    expanded: bool = typer.Option(False, "--expanded", "-x", help="one block per row (column, value), "
                                  "as for results too wide for the terminal"),
    pager: bool = typer.Option(False, "--pager", help="page the output (less)"),
):
    """Run SQL against the warehouse, opened read-only; every statement runs and shows its result.

    The SQL is the argument, a file (-f FILE) or standard input ('-', or no argument when
    something is piped in); it may start with -- comments.

    Only reads run: SELECT (WITH, FROM, DESCRIBE, SHOW, SUMMARIZE), EXPLAIN and PRAGMAs that
    read (table_info, ...). The connection is read-only with DuckDB's external access off and
    its configuration locked: no ATTACH, COPY TO, reading other files, INSTALL/LOAD or SET.
    It is opened per command and closed at once (the nightly load waits at most that long);
    while a load holds the warehouse it waits up to PRICEWATCH_QUERY_WAIT_S (60 s).
    """
    import duckdb

    from pricewatch.cli.query import print_results, sql_text
    if fmt not in ("table", "csv", "json"):
        fail("--format must be table, csv or json")
    sql = sql_text(sql, file)
    con = open_query_connection(db)
    try:
        why = refused_statement(con, sql)
        if why:
            fail(f"query refused: {why}; pricewatch query is read-only (SELECT, WITH, DESCRIBE, SHOW, "
                 "EXPLAIN, PRAGMA table_info)", 1)
        print_results(con, sql, fmt, expanded=expanded, pager=pager)
    except duckdb.Error as exc:
        fail(f"query failed: {error_text(exc)}", 1)
    finally:
        con.close()


@app.command("build-captures")
def build_captures_cmd(
    src: Path = typer.Argument(..., help="dated source folder, e.g. captures/src/2026-10-29"),
    out: Path = typer.Argument(..., help="output folder for <provider>.warc.gz"),
    provider: Optional[list[str]] = typer.Option(None, "--provider", help="only these providers (repeatable)"),
):
    """Rebuild the shipped WARC captures from their readable sources (deterministic)."""
    from pricewatch.cli.tools import check_out_dir
    from pricewatch.evidence.captures import build_captures
    if not src.is_dir():
        fail(f"capture sources not found: {src} is not a folder")
    check_out_dir(out, "OUT")
    for path in build_captures(src, out, provider or None):
        typer.echo(path)


# `pricewatch alerts` (list, show, ack, mute, unmute) lives with the alerts (pricewatch/cli/alerts.py).
from pricewatch.cli.alerts import register as _register_alerts  # noqa: E402

_register_alerts(app)


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
    from pricewatch.server.serve import serve as serve_stack
    try:
        code = serve_stack(host, port, home, api_url, echo=lambda m: typer.echo(m))
    except (RuntimeError, TimeoutError, FileNotFoundError) as exc:
        fail(error_text(exc), 1)
    raise typer.Exit(code)


# `pricewatch claims` and `pricewatch report` live with the claims engine (pricewatch/cli/claims.py).
from pricewatch.cli.claims import register as _register_claims  # noqa: E402

_register_claims(app)

# `pricewatch export` and `pricewatch explore` live in pricewatch/export/datasets.py and pricewatch/cli/explore.py.
from pricewatch.cli.explore import register as _register_explore  # noqa: E402
from pricewatch.cli.export import register as _register_export  # noqa: E402

_register_export(app)
_register_explore(app)

# `pricewatch evidence` lives with the evidence lookup (pricewatch/cli/evidence.py).
from pricewatch.cli.evidence import register as _register_evidence  # noqa: E402

_register_evidence(app)
from pricewatch.cli.offers import register as _register_offers  # noqa: E402  (held readings: accept / reject)
_register_offers(app)


if __name__ == "__main__":
    app()
