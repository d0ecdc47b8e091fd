"""The VRAM rule (docs/catalog.md), stated once and true for every provider (issue 23 item 3): an
offer's stored ``vram_gb`` is the memory per GPU the provider prints, read as a nominal size
(81559 MiB is 80 GB), else the catalog's value for the label's variant (an "H100 NVL" is 94 GB, a
bare "B300" 288 GB). Checked on every offer of every shipped capture (every dated folder of
captures/, each provider's WARC replayed by its real spider), then on the values the sources
print, quoted."""

from __future__ import annotations

import re

import pytest

from pricewatch.record.catalog import load_catalog
from pricewatch.record.offer import nominal_vram
from tests.conftest import CAPTURES

WARCS = sorted(CAPTURES.glob("*/*.warc.gz"))
GB = re.compile(r"(\d+(?:\.\d+)?)\s*GB\b", re.I)


def printed_vram(offer: dict) -> float | None:
    """The VRAM the provider printed for the offer: the figure the offer key adds after the label
    (pricewatch/record/offer.py offer_key: "8x p6-b300.48xlarge 268GB on-demand"), else the one
    the label itself prints ("B300 SXM6 268GB"), else, for a family label that names no size, the
    one its provider id prints (E2E's "NVIDIA A100", sku "nvidia-a100-40gb": the key leaves out a
    size its id already says), else None."""
    prefix = f"{int(offer['gpu_count'])}x {str(offer.get('sku') or offer['gpu_label']).strip()}"
    assert offer["offer_key"].startswith(prefix), offer["offer_key"]
    after = re.match(r" (\d+(?:\.\d+)?)GB(?: |$)", offer["offer_key"][len(prefix):])
    if after:
        return float(after[1])
    in_label = GB.findall(offer["gpu_label"])
    if in_label:
        return nominal_vram(in_label[-1])
    in_sku = GB.findall(str(offer.get("sku") or ""))
    if in_sku and load_catalog().resolve(offer["gpu_label"]) is None:
        return nominal_vram(in_sku[-1])
    return None


@pytest.fixture(scope="module")
def offers(crawl) -> list[dict]:
    out = []
    for warc in WARCS:
        provider = warc.name.removesuffix(".warc.gz")
        out += [{**o, "_capture": f"{warc.parent.name}/{provider}"} for o in crawl(provider, warc).items]
    return out


def test_every_resolved_offer_of_every_shipped_capture_follows_the_rule(offers):
    catalog = load_catalog()
    resolved = [o for o in offers if o.get("gpu_model")]
    assert len({o["_capture"] for o in resolved}) >= 40 and len(resolved) > 1000
    wrong = []
    for o in resolved:
        printed = printed_vram(o)
        expected = printed if printed else catalog.resolve(o["gpu_label"]).vram_gb
        if o["vram_gb"] != expected:
            wrong.append((o["_capture"], o["offer_key"], o["vram_gb"], expected))
    assert wrong == []


def test_the_values_the_sources_print(offers):
    def vram(capture: str, key: str) -> float:
        [found] = [o["vram_gb"] for o in offers if o["_capture"].endswith(capture) and o["offer_key"] == key]
        return found

    # Verda (tests/real/verda/pricing_jsonld.html): '"name":"1x B300 SXM6 268GB"', '"name":"1x GB300
    # SXM6 288GB"': as printed, 268 and 288 (not the catalog's 288 for a B300 and 279 for a GB300).
    assert vram("verda", "1x B300 SXM6 268GB on-demand") == 268
    assert vram("verda", "1x GB300 SXM6 288GB on-demand") == 288
    # DeepInfra (its SOURCE.md): "B300 270 GB $4.89": 270, as printed.
    assert vram("deepinfra", "1x B300 270GB on-demand") == 270
    # AWS prints no memory; its spec table (spiders/instance_types.py, "P6-B300 8x B300 (2.1 TB in
    # all)") gives 268 per GPU: 268.
    assert {o["vram_gb"] for o in offers if o["_capture"].endswith("aws") and o["gpu_model"] == "B300"} == {268}
    # Massed Compute's "H100 NVL" row prints no memory: the catalog's H100 NVL variant, 94 GB
    # (gpu_catalog.yaml: {label: "H100 NVL", form_factor: NVL, vram_gb: 94}).
    assert vram("massed_compute", "1x H100 NVL on-demand") == 94
