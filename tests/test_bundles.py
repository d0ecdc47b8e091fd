"""Run bundles (pricewatch/collect/bundles.py): the format on a local folder and on an
S3-compatible store (moto's server on localhost, through s3fs), complete-or-absent, named by
content, refused when a part does not match; then the crawl and load flows (flows/crawl.py,
flows/load.py) through a local folder giving the warehouse a single-machine replay gives."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from pricewatch.collect import bundles
from tests.conftest import shipped
from tests.machines import S3Server, differences, night_folder

NIGHT = "2026-10-29"


@pytest.fixture(scope="module")
def thunder(crawl):
    return crawl("thunder_compute", shipped("thunder_compute"))


def _write(url, result, **kw):
    return bundles.write_bundle(url, NIGHT, "thunder_compute", result, mode="replay",
                                replay=str(shipped("thunder_compute")), options={}, **kw)


def test_a_bundle_reads_back_as_the_crawl_wrote_it_and_is_named_by_its_content(tmp_path, thunder):
    url = f"file://{tmp_path}/store"
    first = _write(url, thunder)
    again = _write(url, thunder)
    assert first == again and len(first) == 32
    [ref] = bundles.complete(url, {})
    assert (ref.night, ref.bundle_id) == (NIGHT, first)
    b = bundles.read_bundle(ref, url, {})
    assert b.result.items == thunder.items and b.result.facts == thunder.facts
    assert b.result.report == json.loads(json.dumps(thunder.report, default=str))
    assert (b.provider, b.mode, b.result.returncode) == ("thunder_compute", "replay", 0)
    # the evidence its items cite travels with it, under the path the items store
    cited = {i["capture"]["warc_file"] for i in thunder.items}
    assert set(b.manifest["evidence"]) == cited
    folder = tmp_path / "store" / NIGHT / first
    assert sorted(p.name for p in folder.iterdir()) == ["evidence", "items.parquet", "manifest.json", "report.json"]
    # a different crawl (one offer less) is a different bundle
    other = type(thunder)(**{**thunder.__dict__, "items": thunder.items[1:]})
    assert _write(url, other) != first


def test_a_bundle_being_written_is_invisible(tmp_path, thunder):
    url = f"file://{tmp_path}/store"
    bundle_id = _write(url, thunder)
    half = tmp_path / "store" / NIGHT / ".incoming-x"
    shutil.copytree(tmp_path / "store" / NIGHT / bundle_id, half)
    no_manifest = tmp_path / "store" / NIGHT / ("0" * 32)
    shutil.copytree(tmp_path / "store" / NIGHT / bundle_id, no_manifest)
    (no_manifest / "manifest.json").unlink()
    assert [r.bundle_id for r in bundles.complete(url, {})] == [bundle_id]


@pytest.mark.parametrize("damage", ["part", "manifest", "missing"])
def test_a_bundle_that_does_not_match_its_manifest_is_refused_in_one_line(tmp_path, thunder, damage):
    url = f"file://{tmp_path}/store"
    bundle_id = _write(url, thunder)
    folder = tmp_path / "store" / NIGHT / bundle_id
    if damage == "part":
        (folder / "report.json").write_text("{}")
    elif damage == "manifest":
        m = json.loads((folder / "manifest.json").read_text())
        m["replay"] = "/elsewhere"
        (folder / "manifest.json").write_text(json.dumps(m))
    else:
        next((folder / "evidence").rglob("*.warc.gz")).unlink()
    [ref] = bundles.complete(url, {})
    with pytest.raises(bundles.BundleRefused) as err:
        bundles.read_bundle(ref, url, {})
    line = str(err.value)
    assert "\n" not in line and line.startswith(f"thunder_compute: bundle {NIGHT}/{bundle_id}: ")
    assert {"part": "report.json checksum does not match", "manifest": "does not match the bundle's name",
            "missing": "missing"}[damage] in line


def test_an_s3_store_holds_bundles_through_s3fs(tmp_path, thunder, monkeypatch):
    s3 = S3Server().start()
    try:
        for k, v in s3.env.items():
            monkeypatch.setenv(k, v)
        bundle_id = _write(s3.url, thunder)
        assert _write(s3.url, thunder) == bundle_id
        [ref] = bundles.complete(s3.url, {})
        b = bundles.read_bundle(ref, s3.url, {})
        assert b.result.items == thunder.items
        # parts without their manifest (a writer that died) are not a bundle
        fs, root = bundles.open_storage(s3.url, {})
        fs.pipe_file(f"{root}/{NIGHT}/{'f' * 32}/items.parquet", b"half")
        assert [r.bundle_id for r in bundles.complete(s3.url, {})] == [bundle_id]
        # placing a live bundle's evidence on the loading machine
        placed = bundles.place_evidence(b, tmp_path / "archive", s3.url, {})
        assert [p.relative_to(tmp_path / "archive").as_posix() for p in placed] == sorted(b.manifest["evidence"])
    finally:
        s3.stop()


# --- the crawl and load flows, through a local folder -----------------------------------------

GROUPS = [["thunder_compute", "vultr"], ["gpuwithcrypto", "massed_compute"], ["lambda_cloud", "civo"]]


@pytest.fixture(scope="module")
def night(tmp_path_factory):
    return night_folder(tmp_path_factory.mktemp("night") / "night", [p for g in GROUPS for p in g])


@pytest.fixture(scope="module")
def single(night, tmp_path_factory, prefect_server):
    """The single-machine nightly of the same captures."""
    from prefect.settings import PREFECT_API_URL, temporary_settings

    from flows.nightly import nightly
    db_file = tmp_path_factory.mktemp("single") / "pricewatch.duckdb"
    with temporary_settings({PREFECT_API_URL: prefect_server.api}):
        state = nightly(db_path=str(db_file), replay=str(night), return_state=True)
    assert state.is_completed(), state.message
    return db_file


@pytest.mark.slow   # seven flow runs (~20 s); the fast suite's bundle tests are the ones above
def test_three_crawl_groups_then_one_load_give_the_single_machine_warehouse(night, single, tmp_path, on_prefect):
    """The flows in one process, a local folder between them (tests/test_several_machines.py
    runs the same on two work pools, separate workers and S3)."""
    from flows.crawl import crawl
    from flows.load import load
    url = f"file://{tmp_path}/bundles"
    for group in GROUPS:
        state = crawl(providers=group, storage=url, replay=str(night), return_state=True)
        assert state.is_completed() and state.message.endswith(f"{len(group)} bundle(s) written"), state.message
    assert len(bundles.complete(url, {})) == 6
    db_file = tmp_path / "pricewatch.duckdb"
    state = load(storage=url, db_path=str(db_file), return_state=True)
    assert state.is_completed() and state.message == "6/6 providers ok", state.message
    assert differences(single, db_file) == []
    # loaded once: a second load finds nothing new, a crawl written again is the same bundles
    state = crawl(providers=GROUPS[0], storage=url, replay=str(night), return_state=True)
    assert "2 already there" in state.message
    state = load(storage=url, db_path=str(db_file), return_state=True)
    assert state.message == f"no new bundles in {url}"
    assert differences(single, db_file) == []
