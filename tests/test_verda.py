"""Verda on its REAL recorded pricing page (2026-08-22): the JSON-LD element with 163 schema.org
Offers (captures/src/2026-08-22/verda, a byte copy of tests/real/verda/pricing_jsonld.html).

Expected values are read off that document; each test quotes the Offer it relies on, e.g.
``{"name":"1x B300 SXM6 268GB on-demand","description":"Hourly on-demand instance price",
"price":7.5,"priceCurrency":"USD","priceSpecification":{...,"unitText":"hour"}}``.
"""

import json
import re

import pytest

from pricewatch.collect import judge
from spiders.verda import parse_pricing
from tests.conftest import CAPTURES, source_exchanges
from tests.inprocess import run_parsed

URL = "https://verda.com/pricing"
CAPTURE = CAPTURES / "2026-08-22" / "verda.warc.gz"
ELEMENT = re.compile(r'^(<script type="application/ld\+json">)(.*)(</script>)$', re.S)


def page() -> str:
    return source_exchanges("2026-08-22", "verda")[0]["body"].decode()


def edited(edit) -> str:
    """The recorded element with its JSON-LD document rewritten by ``edit(graph)`` (in place)."""
    head, body, tail = ELEMENT.match(page()).groups()
    doc = json.loads(body)
    edit(doc["@graph"])
    return head + json.dumps(doc) + tail


def offer_nodes(graph, name):
    return [n for n in graph if n.get("@type") == "Offer" and n.get("name") == name]


def run(text: str):
    return run_parsed("verda", parse_pricing(text, URL), URL)


@pytest.fixture(scope="module")
def real():
    return run(page())


def find(result, count, label, billing, tier):
    hits = [i for i in result.items if (i["gpu_count"], i["gpu_label"], i["billing"], i["tier"])
            == (count, label, billing, tier)]
    assert len(hits) == 1, hits
    return hits[0]


def failed(text: str) -> str:
    outcome = judge.judge_crawl(run(text))
    assert outcome.status == "failed" and outcome.offers == []
    assert outcome.error.startswith("verda: layout changed:")
    return outcome.error


def test_1x_instances_on_demand_and_spot_per_gpu_hour(real):
    # "1x B300 SXM6 268GB on-demand" 7.5 / "spot" 3.75; "1x B200 SXM6 180GB on-demand" 6.11 /
    # "spot" 3.055; "1x H200 SXM5 141GB" 4 / 2; "1x H100 SXM5 80GB" 3.25 / 1.625;
    # "1x A100 SXM4 80GB" 1.79 / 0.895; "1x A100 SXM4 40GB" 1.29 / 0.645 (all "priceCurrency":"USD",
    # descriptions "Hourly on-demand instance price" / "Hourly spot instance price", unitText "hour").
    expected = {"B300 SXM6 268GB": ("B300", 7.5, 3.75), "B200 SXM6 180GB": ("B200", 6.11, 3.055),
                "H200 SXM5 141GB": ("H200", 4.0, 2.0), "H100 SXM5 80GB": ("H100", 3.25, 1.625),
                "A100 SXM4 80GB": ("A100 80GB", 1.79, 0.895), "A100 SXM4 40GB": ("A100 40GB", 1.29, 0.645)}
    for label, (model, on_demand, spot) in expected.items():
        od = find(real, 1, label, "on-demand", "on-demand")
        sp = find(real, 1, label, "spot", "spot")
        for o, price in ((od, on_demand), (sp, spot)):
            assert (o["gpu_model"], o["form_factor"], o["currency"], o["self_service"]) == (model, "SXM", "USD", True)
            # One GPU: the instance-hour is the GPU-hour.
            assert (o["price_unit"], o["price_per_hour"], o["price_per_gpu_hour"]) == ("instance_hour", price, price)


def test_gb300_is_its_own_gpu_not_a_b300(real):
    # "1x GB300 SXM6 288GB on-demand" 8.62, "spot" 4.31.
    gb300 = find(real, 1, "GB300 SXM6 288GB", "on-demand", "on-demand")
    assert (gb300["gpu_model"], gb300["vram_gb"], gb300["price_per_hour"]) == ("GB300", 288, 8.62)
    assert find(real, 1, "GB300 SXM6 288GB", "spot", "spot")["price_per_hour"] == 4.31


def test_vram_is_read_from_the_name():
    # "1x B300 SXM6 268GB on-demand", "1x Tesla V100 16GB on-demand", "1x RTX PRO 6000 96GB on-demand".
    offers = parse_pricing(page(), URL).offers
    vram = {o["gpu_label"]: o["vram_gb"] for o in offers}
    assert (vram["B300 SXM6 268GB"], vram["Tesla V100 16GB"], vram["RTX PRO 6000 96GB"]) == (268, 16, 96)


def test_instant_clusters_are_per_cluster_hour_on_demand_self_service(real):
    # "104x B300 SXM6 268GB instant cluster" 780 (= 104 x 7.50); "16x B200 SXM6 180GB instant
    # cluster" 97.76; "8x GB300 SXM6 288GB instant cluster" 68.96; "64x H200 SXM5 141GB instant
    # cluster" 256 — description "Hourly instant cluster price".
    for count, label, cluster_hour, gpu_hour in ((104, "B300 SXM6 268GB", 780, 7.5),
                                                 (16, "B200 SXM6 180GB", 97.76, 6.11),
                                                 (8, "GB300 SXM6 288GB", 68.96, 8.62),
                                                 (64, "H200 SXM5 141GB", 256, 4.0)):
        c = find(real, count, label, "on-demand", "instant cluster")
        assert (c["price_unit"], c["price_per_hour"], c["self_service"]) == ("instance_hour", cluster_hour, True)
        assert c["price_per_gpu_hour"] == pytest.approx(gpu_hour, abs=5e-4)
    clusters = [i for i in real.items if i["tier"] == "instant cluster"]
    # 17 GB300 (8x..72x), 18 B300 (16x..144x), 15 B200 (16x..128x), 7 H200 (16x..64x) cluster rows.
    assert len(clusters) == 56 and {i["billing"] for i in clusters} == {"on-demand"}


def test_serverless_containers_are_gpu_offers_with_a_serverless_tier(real):
    # "8x B200 SXM6 180GB serverless continuous" 53.77 ("Hourly serverless container price"):
    # an 8-GPU container per hour, $6.7213 per GPU-hour.
    cont = find(real, 8, "B200 SXM6 180GB", "on-demand", "serverless")
    assert (cont["price_per_hour"], cont["gpu_model"]) == (53.77, "B200")
    assert round(cont["price_per_gpu_hour"], 4) == 6.7213
    # "1x B300 SXM6 268GB serverless spot" 4.13 ("Hourly serverless spot container price"): a spot
    # container, not the B300 spot instance ("1x B300 SXM6 268GB spot" 3.75).
    container = find(real, 1, "B300 SXM6 268GB", "spot", "serverless")
    instance = find(real, 1, "B300 SXM6 268GB", "spot", "spot")
    assert (container["price_per_hour"], instance["price_per_hour"]) == (4.13, 3.75)
    assert container["offer_key"] != instance["offer_key"] and "serverless" in container["offer_key"]
    # 6 GPUs x {1,2,4,8} x {continuous, spot}.
    assert len([i for i in real.items if i["tier"] == "serverless"]) == 48


def test_8x_b200_offers_on_the_real_page_are_serverless_containers_only(real):
    # The page has no 8x B200 instance or instant cluster (B200 clusters start at "16x ... 97.76");
    # its only 8x B200 offers are "8x B200 SXM6 180GB serverless continuous" 53.77 and
    # "8x B200 SXM6 180GB serverless spot" 26.88.
    b200x8 = sorted((i["billing"], i["tier"], i["price_per_hour"]) for i in real.items
                    if i["gpu_model"] == "B200" and i["gpu_count"] == 8)
    assert b200x8 == [("on-demand", "serverless", 53.77), ("spot", "serverless", 26.88)]
    instances = [i for i in real.items if i["gpu_model"] == "B200" and i["gpu_count"] == 8
                 and i["billing"] == "on-demand" and i["tier"] != "serverless"]
    assert instances == []


def test_confidential_compute_is_a_distinct_offer(real):
    # "1x B200 CC SXM6 180GB on-demand" 6.232 beside "1x B200 SXM6 180GB on-demand" 6.11;
    # "1x RTX PRO 6000 CC 96GB on-demand" 1.928 beside "1x RTX PRO 6000 96GB on-demand" 1.89.
    cc = find(real, 1, "B200 CC SXM6 180GB", "on-demand", "on-demand")
    plain = find(real, 1, "B200 SXM6 180GB", "on-demand", "on-demand")
    assert (cc["price_per_hour"], plain["price_per_hour"]) == (6.232, 6.11)
    assert "CC" in cc["offer_key"] and cc["offer_key"] != plain["offer_key"]
    cc_pro = find(real, 1, "RTX PRO 6000 CC 96GB", "on-demand", "on-demand")
    assert cc_pro["price_per_hour"] == 1.928
    assert cc_pro["offer_key"] != find(real, 1, "RTX PRO 6000 96GB", "on-demand", "on-demand")["offer_key"]


def test_cpu_storage_and_repeated_rows_are_not_gpu_offers(real):
    # 163 Offers: 3 storage ("Monthly storage price per GiB"), 24 with a blank model (" on-demand"
    # 0.048 ... , " serverless continuous" 0.11 ...), the H100 on-demand/spot pair printed twice.
    assert {len(offer_nodes(json.loads(ELEMENT.match(page())[2])["@graph"], n))
            for n in ("1x H100 SXM5 80GB on-demand", "1x H100 SXM5 80GB spot")} == {2}
    assert real.report["duplicates_dropped"] == 2
    assert len(real.items) == 163 - 3 - 24 - 2
    assert all(i["gpu_label"].strip() and i["gpu_count"] >= 1 for i in real.items)
    assert not [i for i in real.items if "storage" in i["gpu_label"].lower() or i["gpu_label"].startswith("CPU")]
    tiers = {}
    for i in real.items:
        tiers[(i["billing"], i["tier"])] = tiers.get((i["billing"], i["tier"]), 0) + 1
    # 16 GPU instance names, one of them (H100) repeated: 15 each.
    assert tiers == {("on-demand", "on-demand"): 15, ("spot", "spot"): 15,
                     ("on-demand", "instant cluster"): 56, ("on-demand", "serverless"): 24,
                     ("spot", "serverless"): 24}


def test_currency_is_read_per_offer():
    def euro(graph):
        offer_nodes(graph, "1x L40S 48GB on-demand")[0]["priceCurrency"] = "EUR"
        offer_nodes(graph, "1x L40S 48GB on-demand")[0]["priceSpecification"]["priceCurrency"] = "EUR"
    result = run(edited(euro))
    assert find(result, 1, "L40S 48GB", "on-demand", "on-demand")["currency"] == "EUR"
    assert find(result, 1, "L40S 48GB", "spot", "spot")["currency"] == "USD"


def test_offer_without_currency_fails():
    def no_currency(graph):
        for n in offer_nodes(graph, "1x L40S 48GB on-demand"):
            del n["priceCurrency"], n["priceSpecification"]["priceCurrency"]
    assert "1 offer(s) without priceCurrency, e.g. '1x L40S 48GB on-demand'" in failed(edited(no_currency))


def test_unknown_description_is_a_layout_error_for_that_kind():
    def per_gpu(graph):
        for n in graph:
            if n.get("description") == "Hourly instant cluster price":
                n["description"] = "Hourly instant cluster price per GPU"
    assert "56 instant cluster offer(s) described as 'Hourly instant cluster price per GPU'" in failed(edited(per_gpu))
    assert parse_pricing(edited(per_gpu), URL).errors == [
        "56 instant cluster offer(s) described as 'Hourly instant cluster price per GPU', not 'Hourly instant "
        "cluster price', e.g. '8x GB300 SXM6 288GB instant cluster'"]


def test_description_contradicting_the_name_fails():
    def relabel(graph):
        offer_nodes(graph, "1x B200 SXM6 180GB spot")[0]["description"] = "Hourly on-demand instance price"
    assert ("1 spot offer(s) described as 'Hourly on-demand instance price', not 'Hourly spot instance price', "
            "e.g. '1x B200 SXM6 180GB spot'") in parse_pricing(edited(relabel), URL).errors
    assert "spot offer(s) described as 'Hourly on-demand instance price'" in failed(edited(relabel))


def test_unit_other_than_hour_fails():
    def per_minute(graph):
        for n in graph:
            if n.get("description") == "Hourly serverless container price":
                n["priceSpecification"]["unitText"] = "minute"
    assert "27 serverless continuous offer(s) priced per 'minute' (unitText), not per 'hour'" in failed(
        edited(per_minute))


def test_one_unreadable_price_holds_that_offer_the_others_load(real):
    # Issue 20 item 2. {"name":"1x B300 SXM6 268GB on-demand","description":"Hourly on-demand instance
    # price","price":7.5,"priceCurrency":"USD","priceSpecification":{...,"price":7.5,...}}: both prices
    # changed to the text "N/A—": that one offer is held (unpriced, the text kept), the provider
    # suspect, every other offer loads as recorded.
    def garbled(graph):
        [node] = offer_nodes(graph, "1x B300 SXM6 268GB on-demand")
        node["price"] = node["priceSpecification"]["price"] = "N/A—"
    result = run(edited(garbled))
    outcome = judge.judge_crawl(result)
    assert outcome.status == "suspect" and outcome.trusted
    assert f"1 of {len(real.items)} row(s) held" in outcome.error and "price unreadable: not a price ('N/A—')" in outcome.error
    held = find(result, 1, "B300 SXM6 268GB", "on-demand", "on-demand")
    assert (held["is_priced"], held["price_raw"], held["price_per_hour"]) == (False, "N/A—", None)
    others = sorted((i["offer_key"], i["price_per_hour"]) for i in result.items if i is not held)
    assert others == sorted((i["offer_key"], i["price_per_hour"]) for i in real.items if i["offer_key"] != held["offer_key"])
    assert all(i["is_priced"] for i in result.items if i is not held)


def test_price_disagreeing_with_its_price_specification_fails():
    def two_prices(graph):
        offer_nodes(graph, "1x B300 SXM6 268GB on-demand")[0]["priceSpecification"]["price"] = 7.9
    assert "1 offer(s) whose price/priceCurrency disagrees with priceSpecification, e.g. '1x B300 SXM6 268GB on-demand'" \
        in failed(edited(two_prices))


def test_offer_names_without_gpu_count_fail_instead_of_guessing():
    def drop_counts(graph):
        for n in graph:
            if n.get("@type") == "Offer":
                n["name"] = re.sub(r"^\d+x ", "", n["name"])
    # 136 GPU offers (163 minus 3 storage and 24 CPU offers) lose their count.
    assert "136 offer name(s) without a leading '<N>x ' GPU count, e.g. 'GB300 SXM6 288GB on-demand'" in failed(
        edited(drop_counts))


def test_unknown_offer_kind_fails():
    def reserved(graph):
        offer_nodes(graph, "1x H200 SXM5 141GB on-demand")[0]["name"] = "1x H200 SXM5 141GB reserved 1 year"
    assert "1 offer(s) named with no kind we know (described as 'Hourly on-demand instance price')" in failed(
        edited(reserved))


def test_page_without_json_ld_fails():
    assert "no JSON-LD (<script type=\"application/ld+json\">)" in failed("<html><body><table></table></body></html>")


def test_json_ld_without_offers_fails():
    def drop_offers(graph):
        graph[:] = [n for n in graph if n.get("@type") != "Offer"]
    assert "JSON-LD has no schema.org Offer nodes" in failed(edited(drop_offers))


def test_broken_offer_json_fails():
    assert "JSON-LD block with offers is not readable" in failed(page().replace('"price":7.5,', '"price":7.5,,', 1))


def test_real_capture_replays_through_the_spider(crawl):
    result = crawl("verda", CAPTURE)
    outcome = judge.judge_crawl(result)
    assert outcome.status == "ok", outcome.error
    assert len(result.items) == 134 and result.report["duplicates_dropped"] == 2
    # "1x B200 SXM6 180GB spot" 3.055; "104x B300 SXM6 268GB instant cluster" 780.
    assert find(result, 1, "B200 SXM6 180GB", "spot", "spot")["price_per_hour"] == 3.055
    cluster = find(result, 104, "B300 SXM6 268GB", "on-demand", "instant cluster")
    assert (cluster["price_per_hour"], cluster["price_per_gpu_hour"]) == (780, 7.5)
    assert cluster["capture"]["source_url"] == URL and cluster["capture"]["captured_at"].startswith("2026-08-22")


def test_only_cpu_and_storage_offers_left_fails():
    def no_gpus(graph):
        graph[:] = [n for n in graph if n.get("@type") != "Offer" or not re.match(r"\d+x ", n["name"])]
    assert "none of the 27 JSON-LD Offers is a GPU offer" in failed(edited(no_gpus))
