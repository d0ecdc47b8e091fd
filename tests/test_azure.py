"""Azure: parse_prices / NextPageLink paging on the shipped 2026-09-28 capture.

The capture is REAL items with an envelope added (see its exchanges.yaml): the 83 items are the
real recording tests/real/azure/ewyluda_azure.json unchanged; the documented envelope and the
split into two pages are ours. Expected values below are read off the real items (quoted).
"""

import json
from urllib.parse import unquote

from pricewatch.collect import judge
from spiders.azure import URL, next_page, parse_prices
from spiders.instance_types import AZURE_SKUS
from tests.conftest import CAPTURES_SRC, ROOT, shipped
from tests.inprocess import run_parsed

SRC = CAPTURES_SRC / "2026-09-28" / "azure"
PAGES = [(SRC / f"prices_page{n}.json").read_text() for n in (1, 2)]
REAL = json.loads((ROOT / "tests" / "real" / "azure" / "ewyluda_azure.json").read_text())
# {"armSkuName": "Standard_ND96isr_H100_v5", "armRegionName": "eastus", "retailPrice": 98.32,
#  "unitOfMeasure": "1 Hour", "meterName": "ND96isrH100v5", "productName": "Virtual Machines NDsr H100 v5 Series", ...}
H100 = next(i for i in REAL if (i["armSkuName"], i["armRegionName"]) == ("Standard_ND96isr_H100_v5", "eastus"))


def envelope(items, link=None, **changes):
    return json.dumps({"BillingCurrency": "USD", "CustomerEntityId": "Default", "CustomerEntityType": "Retail",
                       "Items": items, "NextPageLink": link, "Count": len(items), **changes})


def run(*texts):
    parsed = parse_prices(texts[0], URL)
    for text in texts[1:]:
        parsed.extend(parse_prices(text, URL))
    return run_parsed("azure", parsed, url=URL)


def offer(result, sku, region, billing="on-demand"):
    [o] = [o for o in result.items if (o["sku"], o["region"], o["billing"]) == (sku, region, billing)]
    return o


def test_the_request_asks_for_the_gpu_series_not_a_list_of_sizes():
    flt = unquote(URL.split("$filter=", 1)[1])
    assert flt == ("serviceName eq 'Virtual Machines' and priceType eq 'Consumption' and ("
                   "contains(armSkuName, 'Standard_NC') or contains(armSkuName, 'Standard_ND') or "
                   "contains(armSkuName, 'Standard_NG') or contains(armSkuName, 'Standard_NV'))")
    assert not [sku for sku in AZURE_SKUS if sku in flt]
    assert (SRC / "exchanges.yaml").read_text().startswith("# REAL items")


def test_the_pages_carry_the_real_items_unchanged():
    items = json.loads(PAGES[0])["Items"] + json.loads(PAGES[1])["Items"]
    assert items == REAL
    assert next_page(PAGES[0]).endswith("&$skip=50") and next_page(PAGES[1]) is None


def test_replay_follows_next_page_link(crawl):
    result = crawl("azure", shipped("azure"))
    assert judge.judge_crawl(result).status == "ok"
    # Both pages read: westus3 ND96isr H100 is on page 1, eastus ND96isr H100 on page 2.
    h100 = offer(result, "Standard_ND96isr_H100_v5", "eastus")
    assert (h100["gpu_model"], h100["gpu_count"], h100["price_per_hour"], h100["price_per_gpu_hour"]) == \
        ("H100", 8, 98.32, 12.29)
    assert offer(result, "Standard_ND96isr_H100_v5", "westus3")["price_per_hour"] == 98.32
    assert len(result.items) == 41
    assert result.report["unknown_labels"] == []


def test_sizes_give_gpu_model_count_and_vram():
    result = run(*PAGES)
    assert judge.judge_crawl(result).status == "ok"
    # "Standard_ND96isr_H100_v5", "eastus", 98.32, "1 Hour", "ND96isrH100v5", "Virtual Machines NDsr H100 v5 Series"
    assert offer(result, "Standard_ND96isr_H100_v5", "eastus")["price_unit"] == "instance_hour"
    # "Standard_ND96asr_v4", "eastus", 27.197, "ND96asr_A100_v4", "Virtual Machines NDasr A100 v4 Series": 8x A100 40GB
    nd = offer(result, "Standard_ND96asr_v4", "eastus")
    assert (nd["gpu_model"], nd["gpu_count"], nd["price_per_hour"]) == ("A100 40GB", 8, 27.197)
    # "Standard_ND96amsr_A100_v4", "eastus", 32.77: 8x A100 80GB
    assert offer(result, "Standard_ND96amsr_A100_v4", "eastus")["gpu_model"] == "A100 80GB"
    # "Standard_NC80adis_H100_v5", "eastus", 13.96: 2x H100 NVL 94 GB
    nc = offer(result, "Standard_NC80adis_H100_v5", "eastus")
    assert (nc["gpu_model"], nc["gpu_count"], nc["vram_gb"], nc["form_factor"], nc["price_per_gpu_hour"]) == \
        ("H100", 2, 94, "NVL", 6.98)
    # "Standard_ND96isr_MI300X_v5", "northeurope", 57.6: 8x MI300X
    assert offer(result, "Standard_ND96isr_MI300X_v5", "northeurope")["gpu_model"] == "MI300X"
    # "Standard_ND96isr_H200_v5", "japaneast", 106.0: 8x H200
    assert offer(result, "Standard_ND96isr_H200_v5", "japaneast")["price_per_gpu_hour"] == 13.25


def test_spot_kept_apart_low_priority_windows_and_gov_regions_skipped():
    result = run(*PAGES)
    # "Standard_ND96isr_H100_v5", "spaincentral", 23.620397, "ND96isrH100v5 Spot", "... NDsr H100 v5 Series"
    spot = offer(result, "Standard_ND96isr_H100_v5", "spaincentral", "spot")
    assert (spot["tier"], spot["price_per_hour"]) == ("spot", 23.620397)
    # "southcentralus", 23.594, "ND96isrH100v5 Low Priority" (Linux): not an offer.
    # "centralus", 125.35, "ND96isrH100v5", "... NDsr H100 v5 Series Windows": not an offer.
    h100 = {(o["region"], o["billing"]) for o in result.items if o["sku"] == "Standard_ND96isr_H100_v5"}
    assert h100 == {("westus3", "on-demand"), ("eastus", "on-demand"), ("spaincentral", "spot"),
                    ("japaneast", "on-demand"), ("westeurope", "on-demand")}
    assert not [o for o in result.items if o["region"].startswith("usgov")]
    # Of the 83 real items, 41 are Linux, not Low Priority, outside US Government regions.
    assert len(result.items) == 41


def test_a_reservation_row_is_not_read_as_an_hourly_price():
    reserved = {**H100, "type": "Reservation", "retailPrice": 525000.0, "meterName": "ND96isrH100v5"}
    result = run(envelope([reserved, H100]))
    facts = {f["fact"]: f for f in result.facts}
    assert facts["non_consumption_meters"]["value_num"] == 1
    assert [o["price_per_hour"] for o in result.items] == [H100["retailPrice"]]


def test_a_unit_switch_or_another_currency_fails():
    per_month = {**H100, "unitOfMeasure": "1/Month"}
    outcome = judge.judge_crawl(run(envelope([per_month])))
    assert outcome.status == "failed" and "unitOfMeasure is not '1 Hour'" in outcome.error
    outcome = judge.judge_crawl(run(envelope([H100], BillingCurrency="EUR")))
    assert outcome.status == "failed" and "BillingCurrency='EUR'" in outcome.error
    outcome = judge.judge_crawl(run(envelope([{**H100, "currencyCode": "EUR"}])))
    assert outcome.status == "failed" and "another currency" in outcome.error


def test_a_cut_page_or_a_changed_envelope_fails():
    cut = envelope(REAL[:10], Count=100)
    assert "Count 100 but 10 Items" in judge.judge_crawl(run(cut)).error
    outcome = judge.judge_crawl(run(json.dumps(REAL)))   # the bare list: no envelope
    assert outcome.status == "failed" and "'Items' list" in outcome.error


def test_an_unknown_size_is_reported_not_guessed():
    new = {**H100, "armSkuName": "Standard_ND128isr_GB300_v6", "productName": "Virtual Machines NDGB300v6 Series"}
    result = run(envelope([new]))
    assert result.items == []
    facts = {f["fact"]: f for f in result.facts}
    assert facts["unknown_instance_types"]["value_text"] == \
        "Standard_ND128isr_GB300_v6 (Virtual Machines NDGB300v6 Series)"


def test_an_unseen_size_of_a_gpu_series_arrives_as_news_beside_the_known_ones():
    # A GB200 v6 size (variant of the real eastus H100 item: name and price ours) in the answer the
    # series filter now asks for: news, the known offers unchanged, the provider ok.
    gb200 = {**H100, "armSkuName": "Standard_ND128isr_NDR_GB200_v6", "meterName": "ND128isr NDR GB200 v6",
             "productName": "Virtual Machines ND GB200 v6 Series", "retailPrice": 108.0}
    pages = [json.loads(p) for p in PAGES]
    pages[1]["Items"].append(gb200)
    pages[1]["Count"] += 1
    result = run(*(json.dumps(p) for p in pages))
    assert judge.judge_crawl(result).status == "ok" and len(result.items) == 41
    facts = {f["fact"]: f["value_text"] for f in result.facts}
    assert facts["unknown_instance_types"] == "Standard_ND128isr_NDR_GB200_v6 (Virtual Machines ND GB200 v6 Series)"
    assert result.report["unknown_labels"] == []


def test_fractional_and_whole_a10_sizes_and_items_outside_the_gpu_series():
    # Variants of the real eastus H100 item (prices ours) for NVadsA10 v5 sizes.
    whole = {**H100, "armSkuName": "Standard_NV72ads_A10_v5", "meterName": "NV72ads A10 v5",
             "productName": "Virtual Machines NVadsA10v5 Series", "retailPrice": 6.52}
    slice_ = {**whole, "armSkuName": "Standard_NV6ads_A10_v5", "meterName": "NV6ads A10 v5", "retailPrice": 0.454}
    other = {**H100, "armSkuName": "Standard_D4s_v5", "meterName": "D4s v5", "productName": "Virtual Machines Dsv5 Series"}
    result = run(envelope([whole, slice_, other, H100]))
    a10 = offer(result, "Standard_NV72ads_A10_v5", "eastus")
    assert (a10["gpu_model"], a10["gpu_count"], a10["price_per_gpu_hour"]) == ("A10", 2, 3.26)
    assert {o["sku"] for o in result.items} == {"Standard_NV72ads_A10_v5", "Standard_ND96isr_H100_v5"}
    facts = {f["fact"]: f["value_text"] for f in result.facts}
    assert facts == {"fractional_gpu_types": "Standard_NV6ads_A10_v5 (1/6 NVIDIA A10)"}


def test_a_placeholder_price_is_no_offer_and_a_text_price_fails():
    assert run(envelope([{**H100, "retailPrice": 0}])).items == []
    outcome = judge.judge_crawl(run(envelope([{**H100, "retailPrice": "98.32"}])))
    assert outcome.status == "failed" and "retailPrice is not a price" in outcome.error


def test_a_next_page_link_back_to_a_page_already_read_is_an_error():
    from scrapy.http import Request, TextResponse
    from scrapy.utils.test import get_crawler

    from spiders.azure import AzureSpider

    crawler = get_crawler(AzureSpider)
    spider = AzureSpider.from_crawler(crawler)
    spider.seen.add(URL)
    looping = envelope([H100], link=URL)   # page 1 pointing at itself
    out = list(spider.parse_page(TextResponse(URL, body=looping.encode(), encoding="utf-8", request=Request(URL))))
    assert not [o for o in out if isinstance(o, Request)]
    assert "NextPageLink points back to a page already read" in crawler.stats.get_value("pricewatch/layout_errors")[0]
