"""The sources table (issue 13): every spider declares its source, the warehouse table says the
same, and a source disabled by default runs only when asked by name."""

import re

import pytest

from pricewatch.collect.sources import (
    FAMILIES,
    default_providers,
    problems,
    source_rows,
    sync_sources,
)
from pricewatch.collect.store import load_runs
from tests.conftest import CAPTURES_SRC
from warehouse import db

ROWS = {r["provider"]: r for r in source_rows()}
# The spiders whose declarations include the unit as published and the capture kind (the
# others' helpers report theirs to the lead).
DECLARE_UNIT = None   # every source (below)


def shipped_header(provider: str) -> str | None:
    """REAL or COMPOSED: the first word of the newest shipped capture's exchanges.yaml header."""
    dated = sorted(p.parent for p in CAPTURES_SRC.glob(f"*/{provider}/exchanges.yaml"))
    if not dated:
        return None
    first = (dated[-1] / "exchanges.yaml").read_text().lstrip("# \n")
    return re.match(r"[A-Z]+", first).group()


def test_every_spider_declares_its_source():
    assert len(ROWS) >= 18
    assert [p for r in ROWS.values() for p in problems(r)] == []
    assert {r["family"] for r in ROWS.values()} <= set(FAMILIES)
    for name in DECLARE_UNIT or ROWS:
        assert ROWS[name]["unit"] and ROWS[name]["capture_kind"] in ("real", "composed"), name
        assert ROWS[name]["urls"] and all(u.startswith("https://") for u in ROWS[name]["urls"]), name


def test_families_of_known_sources():
    fam = {p: r["family"] for p, r in ROWS.items()}
    assert (fam["aws"], fam["azure"], fam["gcp"]) == ("hyperscaler",) * 3
    assert (fam["vastai"], fam["shadeform"], fam["gpuwithcrypto"], fam["arrakis"]) == \
        ("marketplace", "aggregator", "own", "own")
    assert fam["massed_compute"] == "neocloud"


def test_declared_capture_kind_matches_the_shipped_capture():
    for name, row in ROWS.items():
        header = shipped_header(name)
        if row["capture_kind"] is None or header is None:
            continue
        assert row["capture_kind"] == header.lower(), f"{name}: spider says {row['capture_kind']}, capture {header}"
    assert shipped_header("gcp") == "REAL" and shipped_header("azure") == "REAL"


def test_vast_terms_say_public_api_only():
    vast = ROWS["vastai"]
    assert "restrict automated scraping" in vast["terms"] and "public search API" in vast["terms"]
    assert vast["enabled_by_default"] is True   # only the documented API is read
    # tests/test_terms.py checks every source's terms and robots against what its stored copy says.
    assert "not checked offline" not in ROWS["gcp"]["terms"]


def test_a_disabled_source_runs_only_when_asked_by_name():
    rows = [dict(ROWS["vastai"], enabled_by_default=False), ROWS["aws"]]
    assert default_providers(["vastai", "aws"], rows) == ["aws"]
    assert default_providers(["vastai", "aws", "newcomer"], rows) == ["aws", "newcomer"]
    # Every shipped source is enabled but cudo, whose price is the GPU component alone (vCPU,
    # RAM and disk extra: not comparable with instance prices): a run without --provider reads
    # all the others.
    # and fluidstack, whose pricing page answered 404 on 2026-10-06.
    # and modal, whose GPU price per second is the GPU alone (CPU and memory billed on top).
    # and tensordock, whose price per GPU-hour is the GPU alone (vCPU, RAM and storage billed on top).
    assert default_providers(sorted(ROWS)) == sorted(set(ROWS) - {"cudo", "fluidstack", "modal", "tensordock"})


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory):
    path = tmp_path_factory.mktemp("sources") / "w.duckdb"
    con = db.connect(path)
    load_runs(con, [])   # a load with no run still writes the sources table
    yield con
    con.close()


def test_the_table_matches_the_spiders(warehouse):
    got = {r[0]: r[1:] for r in warehouse.execute(
        "SELECT provider, display_name, family, urls, unit, robots, terms, cadence, enabled_by_default, capture_kind "
        "FROM sources").fetchall()}
    want = {p: (r["display_name"], r["family"], r["urls"], r["unit"], r["robots"], r["terms"], r["cadence"],
                r["enabled_by_default"], r["capture_kind"]) for p, r in ROWS.items()}
    assert got == want
    # rules/providers.yaml: "aws: AWS EC2"
    assert got["aws"][0] == "AWS EC2" and got["gcp"][0] == "Google Cloud"


def test_every_column_is_commented(warehouse):
    comments = dict(warehouse.execute(
        "SELECT column_name, comment FROM duckdb_columns() WHERE table_name = 'sources'").fetchall())
    assert comments and all(comments.values()), comments
    (table,) = warehouse.execute("SELECT comment FROM duckdb_tables() WHERE table_name = 'sources'").fetchone()
    assert table.startswith("Every source a spider reads")


def test_a_wrong_declaration_is_left_out_not_a_failed_load(warehouse):
    bad = dict(ROWS["aws"], family="cloud")
    assert problems(bad) == ["aws: family 'cloud' is not one of hyperscaler, neocloud, marketplace, aggregator, own"]
    assert sync_sources(warehouse, [bad, ROWS["gcp"]]) == 1
    assert warehouse.execute("SELECT provider FROM sources").fetchall() == [("gcp",)]
    sync_sources(warehouse)   # back to every spider for the other tests
