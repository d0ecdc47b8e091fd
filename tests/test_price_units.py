"""The units a source prices in (pricewatch/record/prices.py PRICE_UNITS): per instance-hour, per
GPU-hour, and per GPU-second, which Modal prints ("Nvidia H100 ... $0.001097 / sec", modal.com/pricing;
spiders/modal.py). A per-second price is kept as printed (price_raw "$0.001097"); its GPU-hour is
3600 seconds of it: 0.001097 x 3600 = 3.9492, the "$3.9492/hr from $0.001097/sec" a stored review
of the page (techbytes.app, 2026-05-07) works out by hand."""

from decimal import Decimal

import pytest

from pricewatch.record.prices import PRICE_UNITS, per_hour_prices
from spiders.base import Parsed
from tests.conftest import migrated_warehouse
from tests.test_history_and_gate import Warehouse


def test_a_gpu_second_price_is_3600_times_per_gpu_hour_and_times_the_count_per_instance_hour():
    assert "gpu_second" in PRICE_UNITS
    assert per_hour_prices(Decimal("0.001097"), "gpu_second", 1) == (Decimal("3.949200"), Decimal("3.949200"))
    # 8 GPUs ("H100:8"): the instance-hour is eight GPU-hours
    assert per_hour_prices(Decimal("0.001097"), "gpu_second", 8) == (Decimal("31.593600"), Decimal("3.949200"))
    assert per_hour_prices(None, "gpu_second", 1) == (None, None)


def test_the_other_units_are_unchanged_and_an_unknown_one_is_refused():
    assert per_hour_prices(Decimal("8"), "instance_hour", 8) == (Decimal("8"), Decimal("1"))
    assert per_hour_prices(Decimal("2"), "gpu_hour", 8) == (Decimal("16"), Decimal("2"))
    with pytest.raises(ValueError, match="gpu_minute"):
        per_hour_prices(Decimal("0.06"), "gpu_minute", 1)


def test_a_per_second_offer_is_stored_in_the_warehouse_with_its_hourly_prices(tmp_path):
    wh = Warehouse(migrated_warehouse(tmp_path / "w.duckdb"))
    page = Parsed()
    page.offer(gpu_label="Nvidia H100", gpu_count=1, vram_gb=None, billing="on-demand", tier="on-demand",
               reserved_term=None, region=None, currency="USD", price_unit="gpu_second", price_raw="$0.001097",
               self_service=True, availability=None)
    wh.run(0, acme=page)
    [(unit, raw, per_hour, per_gpu, model)] = wh.q(
        "SELECT price_unit, price_raw, price_per_hour, price_per_gpu_hour, gpu_model FROM offers WHERE provider = 'acme'")
    assert (unit, raw, float(per_hour), float(per_gpu), model) == ("gpu_second", "$0.001097", 3.9492, 3.9492, "H100")
