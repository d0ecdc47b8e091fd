"""The one offer record: what identifies an offer, and what a stored offer must have.

The fields themselves are declared once, in pricewatch/record/fields.py (OFFER_FIELDS). Spiders
fill the source fields (``spiders/items.py`` is built from that table); the normalize pipeline
builds the offer key from the identity fields (IDENTITY_FIELDS) with :func:`offer_key`, so two
rows that differ in anything that tells offers apart (GPU count, VRAM, billing, tier, term,
region, the provider's own id) can never share a key, and two copies of one row always do
(tests/test_record_contract.py checks both, field by field).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, field_validator

from pricewatch.record.fields import IDENTITY_FIELDS  # noqa: F401 (the key's fields, in key order)

BILLINGS = ("on-demand", "spot", "reserved", "marketplace")

# Nominal memory sizes of GPUs sold today (GB per GPU). A figure within 3% of one is that size
# (81559 MiB is 79.6 GB: an 80 GB H100); anything else is kept as the source printed it (a B300
# printed as 268 GB stays 268, in the key and in the stored vram_gb: docs/catalog.md's VRAM rule).
NOMINAL_VRAM_GB = (4, 6, 8, 10, 11, 12, 16, 20, 24, 32, 40, 45, 48, 64, 80, 94, 96, 128, 141, 180, 186,
                   192, 256, 279, 288)


def nominal_vram(value, unit: str = "GB") -> float | None:
    """Per-GPU memory in GB from a reported figure (GB, or MiB when ``unit`` says so or the
    figure is too large to be GB); None when it cannot be read."""
    if value is None or isinstance(value, bool):
        return None
    try:
        v = float(str(value).strip().upper().removesuffix("GB").removesuffix("GIB").strip())
    except ValueError:
        return None
    if v <= 0:
        return None
    if unit.upper() in ("MIB", "MB") or v > 1024:
        v = v / 1024
    best = min(NOMINAL_VRAM_GB, key=lambda n: abs(n - v))
    if abs(best - v) <= 0.03 * best:
        return float(best)
    return round(v, 1)


def offer_key(item) -> str:
    """The offer's key, built from its identity fields (IDENTITY_FIELDS, in that order; it reads
    no other): ``8x B200 SXM6 180GB on-demand``, ``1x H100 80GB reserved 3 months @us-east``,
    ``1x H100 SXM 80GB spot/community``. The provider's own id (sku) stands for the label
    when there is one; VRAM is printed unless the label already says it."""
    label = str(item.get("sku") or item["gpu_label"]).strip()
    parts = [f"{int(item['gpu_count'])}x {label}"]
    vram = item.get("vram_gb")
    if vram and f"{float(vram):g}gb" not in label.lower().replace(" ", ""):
        parts.append(f"{float(vram):g}GB")
    billing, tier = item["billing"], item.get("tier") or item["billing"]
    parts.append(billing if tier == billing else f"{billing}/{tier}")
    if item.get("reserved_term"):
        parts.append(str(item["reserved_term"]))
    if item.get("region"):
        parts.append(f"@{item['region']}")
    if item.get("variant"):
        parts.append(f"#{item['variant']}")
    return " ".join(parts)


class OfferRecord(BaseModel):
    """What a stored offer must have; a crawl whose items miss any of it is not loaded. Its
    fields are item fields of OFFER_FIELDS (the contract test checks it); it stays a model of
    its own because its rules (required, allowed values, the evidence reference) are checks,
    not shapes."""

    provider: str
    offer_key: str
    gpu_label: str
    gpu_count: int
    form_factor: str
    billing: Literal["on-demand", "spot", "reserved", "marketplace"]
    tier: str
    self_service: bool
    currency: str
    price_unit: str
    is_priced: bool
    price_per_hour: float | None
    price_per_gpu_hour: float | None
    price_text: str | None
    capture: dict

    @field_validator("offer_key", "gpu_label", "tier", "currency")
    @classmethod
    def not_blank(cls, v: str) -> str:
        if not str(v).strip():
            raise ValueError("blank")
        return v

    @field_validator("gpu_count")
    @classmethod
    def positive(cls, v: int) -> int:
        if v < 1:
            raise ValueError("must be >= 1")
        return v

    @field_validator("capture")
    @classmethod
    def has_evidence(cls, v: dict) -> dict:
        missing = [k for k in ("warc_file", "warc_record_id", "body_sha256", "source_url") if not v.get(k)]
        if missing:
            raise ValueError(f"capture reference lacks {', '.join(missing)}")
        return v
