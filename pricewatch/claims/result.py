"""What evaluating one claim gives (Outcome) and the record of each input it used."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from decimal import Decimal

from pricewatch.claims.formatting import quantize


@dataclass
class Outcome:
    value: Decimal | bool | str | None = None
    inputs: list[dict] = field(default_factory=list)
    pick: str | None = None
    note: str | None = None
    unverifiable: str | None = None     # which input is missing or failed
    since: datetime | None = None       # ... and since when
    drift: str | None = None            # drifted even if the number is within tolerance (e.g. another provider)


def ts(dt: datetime | None) -> str:
    return dt.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M UTC") if dt else "?"


def usd(v) -> str:
    v = Decimal(v)
    return f"${quantize(v, max(2, min(4, -v.normalize().as_tuple().exponent))):,}"


def _input(name: str, role: str, provider: str, offer: dict | None = None, status: str = "ok",
           used: bool = True, offer_key: str | None = None, fact: dict | None = None) -> dict:
    o = offer or {}
    f = fact or {}
    return {
        "input_name": name, "role": role, "provider": provider,
        "offer_key": o.get("offer_key", offer_key), "gpu_model": o.get("gpu_model"), "gpu_count": o.get("gpu_count"),
        "billing": o.get("billing"), "price_per_hour": o.get("price_per_hour"),
        "price_per_gpu_hour": o.get("price_per_gpu_hour"),
        "observed_at": o.get("observed_at", f.get("observed_at")), "source_url": o.get("source_url", f.get("source_url")),
        "warc_file": o.get("warc_file", f.get("warc_file")), "warc_record_id": o.get("warc_record_id", f.get("warc_record_id")),
        "input_status": status, "used": used, "offer_run_id": o.get("run_id", f.get("run_id")),
        "price_text": o.get("price_text"), "fact": f.get("fact"), "value_num": f.get("value_num"),
        "value_text": f.get("value_text"),
    }
