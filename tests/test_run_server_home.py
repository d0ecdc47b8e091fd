"""The Prefect server of one `pricewatch run` on a new PREFECT_HOME starts on a copy of a
database already migrated (pricewatch/server/home_template.py), and the CLI's flow runs send no
heartbeat (pricewatch/cli/run.py). Real servers: the first migrates a new home and leaves the
template, the second starts on a copy of it, and a flow run on it is seen through its API."""

from __future__ import annotations

import json
import sqlite3
import urllib.request
from importlib import metadata

import pytest

from pricewatch.server import home_template, run_server


def _alembic_version(db) -> list[tuple]:
    with sqlite3.connect(db) as con:
        return con.execute("SELECT version_num FROM alembic_version").fetchall()


@pytest.mark.slow   # two Prefect servers on new homes: ~20 s
def test_a_new_home_starts_on_the_migrated_template_and_records_its_own_runs(tmp_path, monkeypatch):
    root = tmp_path / "runs"
    root.mkdir(mode=0o700)
    monkeypatch.setattr(run_server, "_throwaway_root", lambda: root)
    for k in ("PREFECT_API_URL", "PREFECT_API_DATABASE_CONNECTION_URL", "PREFECT_SERVER_DATABASE_CONNECTION_URL"):
        monkeypatch.delenv(k, raising=False)
    template = root / f"template-prefect-{metadata.version('prefect')}.db"

    monkeypatch.setenv("PREFECT_HOME", str(tmp_path / "first"))
    first = run_server.wait_run_server(run_server.start_run_server())
    try:
        assert (first.home.reused, first.home.seeded) == (False, False)
        assert template.is_file()   # kept the moment the server answered
    finally:
        run_server.stop_run_server(first)
    migrated = _alembic_version(tmp_path / "first" / "prefect.db")
    assert _alembic_version(template) == migrated and len(migrated) == 1
    with sqlite3.connect(template) as con:
        assert con.execute("SELECT count(*) FROM flow_run").fetchone() == (0,)

    monkeypatch.setenv("PREFECT_HOME", str(tmp_path / "second"))
    second = run_server.wait_run_server(run_server.start_run_server())
    try:
        assert (second.home.reused, second.home.seeded) == (False, True)
        # Nothing left to migrate: the seeded server is a working Prefect API.
        body = json.dumps({"name": "seeded-check"}).encode()
        req = urllib.request.Request(second.api_url + "/flows/", data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as resp:
            assert resp.status in (200, 201)
        req = urllib.request.Request(second.api_url + "/flows/filter", data=b"{}", method="POST",
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as resp:
            assert [f["name"] for f in json.loads(resp.read())] == ["seeded-check"]
    finally:
        run_server.stop_run_server(second)
    # The template is only what the migrations wrote: the second server's flow is not in it.
    with sqlite3.connect(template) as con:
        assert con.execute("SELECT count(*) FROM flow").fetchone() == (0,)


def test_no_template_when_the_database_is_not_the_homes_sqlite_file(tmp_path, monkeypatch):
    root = tmp_path / "runs"
    root.mkdir(mode=0o700)
    (tmp_path / "home").mkdir()
    home_template.template_path(root).write_bytes(b"not used")
    monkeypatch.setenv("PREFECT_API_DATABASE_CONNECTION_URL", "postgresql+asyncpg://db/prefect")
    assert home_template.seed_home(tmp_path / "home", root) is False
    assert not (tmp_path / "home" / "prefect.db").exists()


def test_the_cli_flow_runs_send_no_heartbeat_unless_asked(monkeypatch):
    """Prefect's default is `default=180` (prefect/settings/models/flows.py heartbeat_frequency);
    the heartbeat thread sleeps `time.sleep(1)` steps that each flow run's end waits for."""
    from prefect.settings import PREFECT_FLOWS_HEARTBEAT_FREQUENCY, get_current_settings, temporary_settings

    from pricewatch.cli.run import _no_flow_heartbeats
    monkeypatch.delenv("PREFECT_FLOWS_HEARTBEAT_FREQUENCY", raising=False)
    # Prefect's own default, as the CLI's process starts with it (this suite's flows run without
    # heartbeats: tests/conftest.py flows_without_heartbeats).
    with temporary_settings(restore_defaults={PREFECT_FLOWS_HEARTBEAT_FREQUENCY}):
        assert get_current_settings().flows.heartbeat_frequency == 180
        with _no_flow_heartbeats():
            assert get_current_settings().flows.heartbeat_frequency is None
        assert get_current_settings().flows.heartbeat_frequency == 180
        # Asked for (the environment names a frequency): left as Prefect reads it.
        monkeypatch.setenv("PREFECT_FLOWS_HEARTBEAT_FREQUENCY", "45")
        with _no_flow_heartbeats():
            assert get_current_settings().flows.heartbeat_frequency == 180
