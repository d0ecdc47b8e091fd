"""Helpers for the alert tests: later captures built from the shipped ones, and a warehouse fed
run by run with the nightly flow's own steps (crawl, judge, build, load, evaluate claims,
derive alerts, deliver), without Prefect."""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from pathlib import Path

from pricewatch.alerts.deliver import deliver_alerts, list_alerts, list_messages
from pricewatch.alerts.derive import derive_alerts
from pricewatch.claims.evaluate import evaluate_claims
from pricewatch.collect import judge, store
from pricewatch.evidence.archive import write_exchanges
from pricewatch.record.config import AlertConfig
from tests.conftest import migrated_warehouse, shipped, shipped_exchanges
from warehouse import db

A100_PRICING_KEY = "a100xl_x1_prototyping"   # its key in the /v1/pricing answer
A100 = "1x a100xl 80GB on-demand/prototyping"   # the offer key pricewatch builds for it
MASSED_B200 = "8x B200 SXM6 on-demand"
LAMBDA_B200 = "8x NVIDIA B200 SXM6 180GB on-demand"


class Captures:
    """Variants of the shipped captures (same structure, other values), written once
    per test module so the session's crawl cache replays each only once."""

    def __init__(self, root: Path):
        self.root = root
        self.made: dict[tuple, Path] = {}

    def _write(self, key: tuple, exchanges: list[dict]) -> Path:
        if key not in self.made:
            name = re.sub(r"[^\w.-]+", "_", "-".join(map(str, key))) + ".warc.gz"
            self.made[key] = write_exchanges(self.root / name, exchanges)
        return self.made[key]

    def thunder(self, a100: float | None = 1.09, specs_entry: bool = True) -> Path:
        """Thunder Compute's API with another price for the cited A100 80GB (None: the key is
        gone from both responses); specs_entry=False drops it from /v1/specs only, which the
        spider must refuse (pricing and specs disagree)."""
        if a100 == 1.09 and specs_entry:
            return shipped("thunder_compute")
        ex = shipped_exchanges("thunder_compute")
        pricing, specs = json.loads(ex[0]["body"]), json.loads(ex[1]["body"])
        if a100 is None:
            del pricing["pricing"][A100_PRICING_KEY]
        else:
            pricing["pricing"][A100_PRICING_KEY] = a100
        if a100 is None or not specs_entry:
            del specs["specs"][A100_PRICING_KEY]
        ex[0]["body"], ex[1]["body"] = json.dumps(pricing).encode(), json.dumps(specs).encode()
        return self._write(("thunder", a100, specs_entry), ex)

    def lambda_b200(self, per_gpu: str = "6.69") -> Path:
        """Lambda's real pricing page with another per-GPU price for its 8x B200 SXM6 (the
        rendered 8x row and its escaped copy in the islands blob, which always agree)."""
        if per_gpu == "6.69":
            return shipped("lambda_cloud")
        ex = shipped_exchanges("lambda_cloud")
        body = ex[0]["body"]
        row = body.index(b'data-plan="NVIDIA B200 SXM6"')   # the first row is the 8x tab's
        end = body.index(b"</tr>", row)
        assert body[row:end].count(b"$6.69") == 1
        ex[0]["body"] = body[:row] + body[row:end].replace(b"$6.69", f"${per_gpu}".encode()) + body[end:]
        return self._write(("lambda", per_gpu), ex)

    @staticmethod
    def massed() -> Path:
        return shipped("massed_compute")


class Warehouse:
    """A real DuckDB file, fed one snapshot at a time."""

    def __init__(self, path: Path, crawl, config: AlertConfig = AlertConfig()):
        self.path, self.crawl, self.config = str(path), crawl, config
        if not Path(path).exists():
            migrated_warehouse(path)
        self.last: dict = {}

    def run(self, as_of: str, **warcs: Path) -> str:
        outcomes = [judge.judge_crawl(self.crawl(p, w)) for p, w in sorted(warcs.items())]
        at = datetime.fromisoformat(as_of.replace("Z", "+00:00"))
        run, provider_runs, offers, facts = judge.build_run(outcomes, "replay", datetime.now(timezone.utc), at, None)
        con = db.connect(self.path)
        try:
            loaded = store.load_run(con, run, provider_runs, offers, facts)
            evaluate_claims(con, run["run_id"])
            derived = derive_alerts(con, run["run_id"], self.config)
            delivered = deliver_alerts(con, self.config)
        finally:
            con.close()
        self.last = {"run_id": run["run_id"], "loaded": loaded, "derived": derived, "delivered": delivered}
        return run["run_id"]

    def alerts(self, kind: str | None = None, run_id: str | None = None, subject: str | None = None) -> list[dict]:
        con = db.connect(self.path, read_only=True)
        try:
            rows = list_alerts(con)
        finally:
            con.close()
        return [a for a in rows if (kind is None or a["kind"] == kind) and (run_id is None or a["run_id"] == run_id)
                and (subject is None or a["subject"] == subject)]

    def messages(self, run_id: str | None = None) -> list[dict]:
        """The messages sent (or to send) to people, newest first."""
        con = db.connect(self.path, read_only=True)
        try:
            rows = list_messages(con)
        finally:
            con.close()
        return [m for m in rows if run_id is None or m["run_id"] == run_id]

    def claim(self, run_id: str, claim_id: str) -> dict:
        return self.query("SELECT * FROM claim_evaluations WHERE run_id = ? AND claim_id = ?", [run_id, claim_id])[0]

    def query(self, sql: str, params=()) -> list[dict]:
        con = db.connect(self.path, read_only=True)
        try:
            cur = con.execute(sql, list(params))
            cols = [c[0] for c in cur.description]
            return [dict(zip(cols, r)) for r in cur.fetchall()]
        finally:
            con.close()
