"""Faults between crawl machines and the loader (issue 22 item 4), on the real flows
(flows/crawl.py, flows/load.py) and real stores: the same bundle delivered twice (loaded once),
a bundle whose checksum does not match (refused with one line, kept, never loaded), a second
loader started by mistake (waits, then refuses; never two writers), the store unreachable while a
bundle is written (one line naming the provider, retried, nothing half-written). The crashed
crawl worker and the loader down for two nights: tests/test_several_machines.py."""

from __future__ import annotations

import logging
import shutil
import threading
import time

import pytest

from pricewatch.collect import bundle_ledger, bundles
from tests.machines import S3Server, dump, night_folder

pytestmark = [pytest.mark.fault, pytest.mark.slow]   # real Prefect flows, crawl groups and a real S3 store: ~40 s
PROVIDERS = ["thunder_compute", "vultr"]


@pytest.fixture
def night(tmp_path):
    return night_folder(tmp_path / "night", PROVIDERS)


def _crawl(night, url, providers=PROVIDERS):
    from flows.crawl import crawl
    return crawl(providers=providers, storage=url, replay=str(night), return_state=True)


def _load(url, db_file):
    from flows.load import load
    return load(storage=url, db_path=str(db_file), return_state=True)


def test_the_same_bundle_delivered_twice_is_loaded_once(night, tmp_path, on_prefect, fault):
    url = f"file://{tmp_path}/bundles"
    assert _crawl(night, url).is_completed()
    db_file = tmp_path / "pricewatch.duckdb"
    assert _load(url, db_file).message == "2/2 providers ok"
    before = dump(db_file)
    # delivered again: the bundle removed and written anew (a crawl rerun, a copy restored)
    [ref] = [r for r in bundles.complete(url, {}) if "thunder" in bundles.manifest_of(r, url, {})["provider"]]
    shutil.rmtree(ref.path)
    state = _crawl(night, url, ["thunder_compute"])
    assert state.message.endswith("1 bundle(s) written")
    assert [r.bundle_id for r in bundles.complete(url, {}) if r.bundle_id == ref.bundle_id] == [ref.bundle_id]
    again = _load(url, db_file)
    assert again.message == f"no new bundles in {url}"
    assert dump(db_file) == before
    fault("the same bundle delivered twice to the store", expected="loaded once",
          observed=f"second load: {again.message!r}; every table unchanged")


def test_a_bundle_whose_checksum_does_not_match_is_refused_kept_and_never_loaded(night, tmp_path, on_prefect,
                                                                                 fault, caplog):
    url = f"file://{tmp_path}/bundles"
    assert _crawl(night, url).is_completed()
    refs = {bundles.manifest_of(r, url, {})["provider"]: r for r in bundles.complete(url, {})}
    bad = refs["vultr"]
    (tmp_path / "bundles" / bad.night / bad.bundle_id / "report.json").write_text('{"tampered": true}')
    db_file = tmp_path / "pricewatch.duckdb"
    with caplog.at_level(logging.ERROR):
        state = _load(url, db_file)
    assert state.is_completed() and state.message.startswith("1/1 providers ok"), state.message
    [line] = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
    assert line.startswith(f"refused: vultr: bundle {bad.night}/{bad.bundle_id}: report.json checksum does not match")
    assert "\n" not in line
    import duckdb
    con = duckdb.connect(str(db_file), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM offers WHERE provider = 'vultr'").fetchone()[0] == 0
        assert con.execute("SELECT status FROM provider_runs WHERE provider = 'vultr'").fetchall() == [("not attempted",)]
    finally:
        con.close()
    assert (tmp_path / "bundles" / bad.night / bad.bundle_id / "manifest.json").exists()   # kept
    assert bundle_ledger.done(db_file)[bad.bundle_id] == "refused"
    assert _load(url, db_file).message == f"no new bundles in {url}"   # not read again
    fault("a bundle whose part does not match its manifest's sha256", expected="refused in one line, kept, never loaded",
          observed=line[:160])


def test_a_second_loader_waits_then_refuses_and_never_writes(night, tmp_path, on_prefect, fault, monkeypatch):
    url = f"file://{tmp_path}/bundles"
    assert _crawl(night, url).is_completed()
    db_file = tmp_path / "pricewatch.duckdb"
    monkeypatch.setenv("PRICEWATCH_LOAD_WAIT_S", "2")
    with bundle_ledger.loader_lock(db_file, wait_s=0):   # the first loader, mid-load
        t = time.monotonic()
        state = _load(url, db_file)
        waited = time.monotonic() - t
    assert state.is_failed() and "another loader (pid " in state.message and "waited 2 s" in state.message
    assert waited >= 2 and not db_file.exists()
    # once the first is done, the next load goes on
    assert _load(url, db_file).message == "2/2 providers ok"
    fault("a second loader started while one loads", expected="waits, then refuses; never two writers",
          observed=state.message[:160])


def test_the_store_unreachable_while_a_bundle_is_written_is_retried_and_nothing_is_half_written(
        night, tmp_path, on_prefect, fault, monkeypatch):
    """The store is reached through a port where nothing listens (connection refused) until the
    first write has failed and said so; then a forwarder to the real S3 server opens there. No
    restart of the server, no timing guess: the store comes back after a failure, never before."""
    import socket

    import s3fs

    from tests.machines import free_port
    # fsspec keeps one S3 filesystem per set of options in the process: an earlier test's, bound
    # to its own (now stopped) server, must not answer this test's reads
    s3fs.S3FileSystem.clear_instance_cache()
    s3 = S3Server().start()
    front = free_port()
    for k, v in s3.env.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{front}")
    monkeypatch.setenv("PRICEWATCH_STORAGE_OPTIONS", '{"config_kwargs": {"connect_timeout": 1, "retries": {"max_attempts": 1}}}')
    failed_once, stop = threading.Event(), threading.Event()
    lines: list[str] = []

    class _Failures(logging.Handler):   # Prefect's run loggers do not propagate: listen on them
        def emit(self, record):
            msg = record.getMessage()
            if "bundle not written" in msg and msg not in lines:
                lines.append(msg)
                failed_once.set()
    watcher = _Failures(level=logging.ERROR)
    loggers = [logging.getLogger(n) for n in ("", "prefect.task_runs", "prefect.flow_runs", "pricewatch.nightly")]
    for lg in loggers:
        lg.addHandler(watcher)

    def pipe(src, dst):
        try:
            while chunk := src.recv(65536):
                dst.sendall(chunk)
        except OSError:
            pass
        finally:
            for sock in (src, dst):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def forward():   # after the first failed write: 127.0.0.1:front -> the S3 server
        failed_once.wait(timeout=120)
        with socket.create_server(("127.0.0.1", front)) as listener:
            listener.settimeout(0.2)
            while not stop.is_set():
                try:
                    client, _ = listener.accept()
                except TimeoutError:
                    continue
                upstream = socket.create_connection(("127.0.0.1", s3.port))
                for x, y in ((client, upstream), (upstream, client)):
                    threading.Thread(target=pipe, args=(x, y), daemon=True).start()
    threading.Thread(target=forward, daemon=True).start()
    try:
        state = _crawl(night, s3.url, ["thunder_compute"])
        assert state.is_completed(), state.message
        assert lines and all(line.startswith("thunder_compute: bundle not written") for line in lines)
        assert lines[0].endswith("; retrying") and "\n" not in lines[0]
        # moto keeps every test's objects in this process: this crawl's bundle is thunder_compute's
        # of this night; every complete bundle in the store reads whole (nothing half-written)
        read = [bundles.read_bundle(r, s3.url, {}) for r in bundles.complete(s3.url, {})]
        assert all(b.result.items for b in read)
        assert [b for b in read if b.provider == "thunder_compute" and b.night == "2026-10-29T0200Z"]
    finally:
        stop.set()
        for lg in loggers:
            lg.removeHandler(watcher)
        s3.stop()
    fault("the object store unreachable while a bundle is written",
          expected="one line naming the provider; retried; nothing half-written", observed=lines[0][:160])
