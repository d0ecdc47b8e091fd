"""The nightly Prefect flow derives and delivers alerts after evaluating the claims.

Two replayed nights through the real flow (the session's Prefect server): the two seed sources'
shipped captures, then 2026-11-05 with Thunder Compute's A100 80GB at $1.05 instead of the $1.09 the
page cites. The alert reaches a real webhook configured through PRICEWATCH_ALERT_URLS. No report is
written (write_report=False: the editor's report of a flow run is tests/test_prefect_deployment.py's).
"""

import json
import shutil

from pytest_httpserver import HTTPServer

from flows.nightly import nightly
from tests.alerting import Captures
from tests.conftest import shipped


def test_nightly_flow_sends_the_price_alert_and_counts_it(tmp_path, monkeypatch, on_prefect):
    server = HTTPServer(host="127.0.0.1", port=0)
    server.start()
    try:
        server.expect_request("/pricewatch", method="POST").respond_with_data("ok")
        monkeypatch.setenv("PRICEWATCH_ALERT_URLS", f"json://127.0.0.1:{server.port}/pricewatch")
        monkeypatch.setenv("PRICEWATCH_CONFIG", str(tmp_path / "pricewatch.toml"))
        (tmp_path / "pricewatch.toml").write_text("[alerts]\nplausibility_pct = 60\n")
        db_path = str(tmp_path / "w.duckdb")
        night1, night2 = tmp_path / "2026-10-29", tmp_path / "2026-11-05"
        night1.mkdir(), night2.mkdir()
        for p in ("massed_compute", "thunder_compute"):
            shutil.copy(shipped(p), night1)
        shutil.copy(shipped("massed_compute"), night2)
        shutil.copy(Captures(tmp_path / "variants").thunder(1.05), night2 / "thunder_compute.warc.gz")

        first = nightly(db_path=db_path, replay=str(night1), as_of="2026-10-29T02:00:00Z", write_report=False)
        assert first["alerts"]["raised"] == 0 and first["alerts"]["sent"] == 0
        second = nightly(db_path=db_path, replay=str(night2), as_of="2026-11-05T02:00:00Z", write_report=False)
        # The price change and the page's claims that drifted with it (A100 citation, ratio): two
        # events, one message for the page.
        assert second["alerts"]["raised"] == 2 and second["alerts"]["messages"] == 1
        assert second["alerts"]["sent"] == 1 and second["alerts"]["pending"] == 0
        (sent,) = [json.loads(req.data) for req, _ in server.log]
        assert sent["title"].startswith("Which GPU is best for fine-tuning Llama 70B?: ")
        assert "$1.09/h → **$1.05/h** (-3.67%, cheaper)" in sent["message"]
    finally:
        server.clear()
        server.stop()
