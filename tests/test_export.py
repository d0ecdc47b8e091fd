"""`pricewatch export` on the small history of tests/test_marts.py (three runs: day1 2026-10-27
with 5 offers, day2 2026-10-28 with 2 (massed_compute failed), day3 2026-10-30 with 2).

The fast tests read the export back with DuckDB 2.0 and check the manifest; the slow one reads
it with DuckDB 1.x, polars and pandas/pyarrow installed in a throwaway venv (none of them is a
dependency of pricewatch; the venv is cached under the system temp folder between runs)."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from pricewatch.cli.main import app
from pricewatch.export import datasets as ex
from tests.test_marts import B200_KEY, build_history

# Read off tests/test_marts.py's history: offers per run and partition.
OFFERS_PER_DAY = {"2026-10-27": 5, "2026-10-28": 2, "2026-10-30": 2}


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory):
    path = tmp_path_factory.mktemp("export") / "pw.duckdb"
    con, runs = build_history(path)
    con.close()
    return path, runs


@pytest.fixture(scope="module")
def parquet(warehouse, tmp_path_factory):
    out = tmp_path_factory.mktemp("out") / "export"
    r = CliRunner().invoke(app, ["export", "--out", str(out), "--db", str(warehouse[0])])
    assert r.exit_code == 0, r.output
    return out, r.stdout


def read(out: Path, name: str) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    return con.execute(f"SELECT * FROM read_parquet('{out}/{name}/*.parquet')")


def records(out: Path, name: str) -> list[dict]:
    cur = read(out, name)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def test_parquet_is_one_file_per_dataset_with_a_manifest(parquet):
    out, stdout = parquet
    assert "offers: 9 rows, 1 file(s)" in stdout
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["pricewatch_export"] == ex.EXPORT_VERSION == 3 and manifest["format"] == "parquet"
    assert sorted(p.name for p in (out / "offers").iterdir()) == ["data_0.parquet"]
    # the marts too (issue 21 item 6)
    assert {"cheapest_offer_daily", "provider_price_index", "source_freshness", "provider_runs"} <= set(manifest["datasets"])
    assert manifest["datasets"]["offers"]["rows"] == sum(OFFERS_PER_DAY.values())
    for name, columns in ex.DATASETS.items():
        d = manifest["datasets"][name]
        assert [c["name"] for c in d["columns"]] == [c.name for c in columns]
        assert all(c["description"] for c in d["columns"])
        for f in d["files"]:   # every file listed with its sha256
            import hashlib
            assert hashlib.sha256((out / f["path"]).read_bytes()).hexdigest() == f["sha256"]
    assert not list(out.parent.glob(".export.partial-*"))


def test_the_parquet_reads_back_with_the_declared_columns_and_values(parquet):
    out, _ = parquet
    cur = read(out, "offers")
    names = [d[0] for d in cur.description]
    assert sorted(names) == sorted(c.name for c in ex.DATASETS["offers"])
    rows = [dict(zip(names, r)) for r in cur.fetchall()]
    per_day = {}
    for r in rows:
        per_day[r["snapshot_date"].isoformat()] = per_day.get(r["snapshot_date"].isoformat(), 0) + 1
    assert per_day == OFFERS_PER_DAY
    b200 = sorted((r["snapshot_date"].isoformat(), r["price_per_hour"], r["price_raw"]) for r in rows
                  if r["provider"] == "massed_compute" and r["offer_key"] == B200_KEY)
    # massed_compute prints $43.46 for 8x B200 on day1 and day3 (failed on day2)
    assert b200 == [("2026-10-27", 43.46, "$43.46"), ("2026-10-30", 43.46, "$43.46")]
    claims = records(out, "claims")
    assert len(claims) == 3 * len({r["claim_id"] for r in claims})   # every claim in each of the 3 runs


def test_every_offer_spell_and_mart_row_carries_its_comparable_class(parquet):
    # v3: the history's offers are "H100 SXM" labels (gpu_catalog.yaml: H100 classes_by form_factor)
    # and Massed Compute's "B200 SXM6" (B200 is one class); the marts compare one class per row.
    out, _ = parquet
    offers = {(r["gpu_model"], r["form_factor"], r["comparable_class"]) for r in records(out, "offers")}
    assert offers == {("H100", "SXM", "H100 SXM"), ("B200", "SXM", "B200")}
    spells = {(r["gpu_model"], r["comparable_class"]) for r in records(out, "price_history")}
    assert spells == {("H100", "H100 SXM"), ("B200", "B200")}
    for mart in ("cheapest_offer_daily", "provider_price_index"):
        got = {(r["gpu_model"], r["comparable_class"]) for r in records(out, mart)}
        assert got == {("H100", "H100 SXM"), ("B200", "B200")}, mart


def test_parquet_uses_only_types_every_reader_knows(parquet):
    """No DuckDB-only types: physical types INT32/INT64/DOUBLE/BOOLEAN/BYTE_ARRAY with standard
    logical annotations (dates, timestamps in UTC micros, strings); prices are DOUBLE (v2), so
    pandas reads numbers, not Decimal objects."""
    out, _ = parquet
    con = duckdb.connect()
    kinds = con.execute(f"""SELECT DISTINCT type, logical_type FROM parquet_schema('{out}/*/**/*.parquet')
                            WHERE type IS NOT NULL ORDER BY ALL""").fetchall()
    assert {t for t, _ in kinds} <= {"INT32", "INT64", "DOUBLE", "BOOLEAN", "BYTE_ARRAY"}, kinds
    prices = con.execute(f"""SELECT DISTINCT type FROM parquet_schema('{out}/offers/*.parquet')
                             WHERE name IN ('price_per_hour', 'price_per_gpu_hour')""").fetchall()
    assert prices == [("DOUBLE",)]


def test_pandas_reads_prices_as_numbers_and_dates_as_dates(parquet):
    """issue 21 item 6: an analyst's notebook gets floats and dates, not Decimal objects and
    partition strings."""
    from datetime import date
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    out, _ = parquet
    offers = pd.read_parquet(out / "offers")
    assert offers["price_per_hour"].dtype == "float64"
    assert isinstance(offers["snapshot_date"].iloc[0], date) and str(offers["observed_at"].dtype).startswith("datetime64")
    daily = pd.read_parquet(out / "cheapest_offer_daily")
    assert daily["min_price_per_gpu_hour"].dtype == "float64" and isinstance(daily["day"].iloc[0], date)


def test_since_keeps_the_later_snapshots(warehouse, tmp_path):
    con = duckdb.connect(str(warehouse[0]), read_only=True)
    con.execute("SET TimeZone = 'UTC'")
    from datetime import date
    manifest = ex.export(con, tmp_path / "x", "parquet", since=date(2026, 10, 28))
    con.close()
    assert manifest["since"] == "2026-10-28"
    assert manifest["datasets"]["offers"]["rows"] == 4   # day2 2 + day3 2
    days = {r["snapshot_date"].isoformat() for r in records(tmp_path / "x", "claims")}
    assert days == {"2026-10-28", "2026-10-30"}


def test_csv_has_one_file_per_dataset_with_the_declared_header(warehouse, tmp_path):
    r = CliRunner().invoke(app, ["export", "--format", "csv", "--out", str(tmp_path / "c"), "--db", str(warehouse[0])])
    assert r.exit_code == 0, r.output
    with open(tmp_path / "c" / "offers.csv", newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == [c.name for c in ex.DATASETS["offers"]]
    assert len(rows) - 1 == 9
    assert json.loads((tmp_path / "c" / "manifest.json").read_text())["datasets"]["offers"]["path"] == "offers.csv"


def test_an_export_replaces_its_previous_one_and_refuses_other_folders(warehouse, tmp_path, monkeypatch):
    runner = CliRunner()
    target = tmp_path / "e"
    assert runner.invoke(app, ["export", "--out", str(target), "--db", str(warehouse[0])]).exit_code == 0
    before = (target / "manifest.json").read_text()
    # a drifted query is refused before anything is written: the previous export stays whole
    monkeypatch.setitem(ex.DATASETS, "claims", ex.DATASETS["claims"][:-1])
    r = runner.invoke(app, ["export", "--out", str(target), "--db", str(warehouse[0])])
    assert r.exit_code == 2 and f"no longer yields the declared column set v{ex.EXPORT_VERSION}" in r.stderr, r.output
    assert (target / "manifest.json").read_text() == before
    assert not list(tmp_path.glob(".e.partial-*"))
    monkeypatch.undo()
    assert runner.invoke(app, ["export", "--out", str(target), "--db", str(warehouse[0]), "--format", "csv"]).exit_code == 0
    assert sorted(p.name for p in target.iterdir()) == sorted([f"{n}.csv" for n in ex.DATASETS] + ["manifest.json"])
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "mine.txt").write_text("keep")
    r = runner.invoke(app, ["export", "--out", str(tmp_path / "notes"), "--db", str(warehouse[0])])
    assert r.exit_code == 2 and "holds no pricewatch export" in r.stderr
    assert [p.name for p in (tmp_path / "notes").iterdir()] == ["mine.txt"]
    r = runner.invoke(app, ["export", "--out", str(target), "--db", str(warehouse[0]), "--since", "last week"])
    assert r.exit_code == 2 and "is not a date" in r.stderr


# --- the same Parquet read by other clients --------------------------------------------------

READERS = ["duckdb<2", "polars", "pandas", "pyarrow"]
READ_SCRIPT = r"""
import json, sys
import duckdb, polars as pl, pandas as pd
root = sys.argv[1]
out = {"duckdb_version": duckdb.__version__}
for name in sys.argv[2].split(","):
    glob = f"{root}/{name}/*.parquet"
    d = duckdb.sql(f"SELECT * FROM read_parquet('{glob}')")
    p = pl.scan_parquet(glob).collect()
    f = pd.read_parquet(f"{root}/{name}")
    out[name] = {"duckdb": [d.shape[0], dict(zip(d.columns, map(str, d.types)))],
                 "polars": [p.height, {k: str(v) for k, v in p.schema.items()}],
                 "pandas": [len(f), {k: str(v) for k, v in f.dtypes.items()}]}
b200 = duckdb.sql(f"SELECT snapshot_date::VARCHAR, price_per_hour::VARCHAR FROM read_parquet('{root}/offers/*.parquet') "
                  "WHERE offer_key = '8x B200 SXM6 on-demand' ORDER BY 1").fetchall()
out["b200"] = b200
print(json.dumps(out))
"""


def _readers_python() -> Path:
    venv = Path(tempfile.gettempdir()) / "pricewatch-export-readers-v1"
    python = venv / "bin" / "python"
    probe = [str(python), "-c", "import duckdb, polars, pandas, pyarrow; assert duckdb.__version__ < '2'"]
    if python.exists() and subprocess.run(probe, capture_output=True).returncode == 0:
        return python
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True, timeout=120)
    subprocess.run([str(python), "-m", "pip", "install", "-q", *READERS], check=True, timeout=600,
                   capture_output=True)
    return python


@pytest.mark.slow
def test_duckdb_1x_polars_and_pandas_read_the_parquet(parquet):
    out, _ = parquet
    python = _readers_python()
    with_rows = [n for n in ex.DATASETS if list((out / n).glob("*.parquet"))]
    r = subprocess.run([str(python), "-c", READ_SCRIPT, str(out), ",".join(with_rows)], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    assert got["duckdb_version"].startswith("1.")
    for name in with_rows:
        rows = {client: got[name][client][0] for client in ("duckdb", "polars", "pandas")}
        assert len(set(rows.values())) == 1, rows
    offers = got["offers"]
    assert offers["duckdb"][0] == 9
    assert offers["duckdb"][1]["price_per_hour"] == "DOUBLE"
    assert offers["duckdb"][1]["observed_at"] == "TIMESTAMP WITH TIME ZONE"
    assert offers["duckdb"][1]["snapshot_date"] == "DATE"
    assert offers["polars"][1]["price_per_hour"] == "Float64"
    assert offers["polars"][1]["observed_at"] == "Datetime(time_unit='us', time_zone='UTC')"
    assert offers["pandas"][1]["observed_at"] == "datetime64[us, UTC]"
    assert got["b200"] == [["2026-10-27", "43.46"], ["2026-10-30", "43.46"]]


# --- a DuckDB file the analysts' own DuckDB (the 1.5 CLI from PyPI) opens -------------------

def duckdb15() -> str:
    import shutil
    import sys
    exe = Path(sys.executable).parent / "duckdb"
    found = str(exe) if exe.exists() else shutil.which("duckdb")
    assert found, "the dev extra installs duckdb-cli (the 1.5 CLI)"
    return found


def cli15(db_file: Path, sql: str) -> str:
    import subprocess
    done = subprocess.run([duckdb15(), "-readonly", "-csv", str(db_file), "-c", sql],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_duckdb_copy_opens_in_the_duckdb_15_cli_with_every_view_and_comment(warehouse, tmp_path):
    import subprocess
    # the warehouse itself: DuckDB 2's storage, which the 1.5 CLI cannot read
    plain = subprocess.run([duckdb15(), "-readonly", str(warehouse[0]), "-c", "SELECT 1"],
                           capture_output=True, text=True, timeout=60)
    assert plain.returncode != 0 and "version" in (plain.stderr + plain.stdout).lower()
    r = CliRunner().invoke(app, ["export", "--format", "duckdb", "--out", str(tmp_path / "x"), "--db", str(warehouse[0])])
    assert r.exit_code == 0, r.output
    copy = tmp_path / "x" / "pricewatch.duckdb"
    assert f"duckdb -readonly {copy}" in r.output
    version = cli15(copy, "SELECT version()")
    assert "v1.5" in version
    src = duckdb.connect(str(warehouse[0]), read_only=True)
    try:
        views = src.execute("SELECT count(*) FROM duckdb_views() WHERE NOT internal").fetchone()[0]
        commented = src.execute("SELECT count(*) FROM duckdb_columns() WHERE comment IS NOT NULL").fetchone()[0]
        offers = src.execute("SELECT count(*) FROM latest_offers").fetchone()[0]
        macros = src.execute("SELECT count(*) FROM duckdb_functions() "
                             "WHERE function_type LIKE '%macro%' AND NOT internal").fetchone()[0]
    finally:
        src.close()
    assert views == 16
    out = cli15(copy, "SELECT (SELECT count(*) FROM duckdb_views() WHERE NOT internal) AS v, "
                      "(SELECT count(*) FROM duckdb_columns() WHERE comment IS NOT NULL) AS c, "
                      "(SELECT count(*) FROM latest_offers) AS o, "
                      "(SELECT count(*) FROM duckdb_functions() WHERE function_type LIKE '%macro%' AND NOT internal) AS m")
    assert macros == len(list((Path(__file__).resolve().parent.parent / "warehouse" / "macros").glob("*.sql")))
    assert out.splitlines()[1] == f"{views},{commented},{offers},{macros}"


def test_the_explore_snapshot_opens_in_the_duckdb_15_cli(warehouse):
    from pricewatch.cli.explore import take_snapshot
    snap = take_snapshot(warehouse[0], wait_s=0)
    assert cli15(snap, "SELECT count(*) FROM cheapest_offer_daily").splitlines()[1].isdigit()
