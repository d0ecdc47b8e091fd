"""Vultr: parse_plans / parse_plans_metal on the shipped 2026-10-29 capture.

That capture is COMPOSED (no real recording of Vultr exists; see its exchanges.yaml): the GPU
plans vcg-a100-* , the MI300X and H100 bare-metal plans are the dstackai/gpuhunt test fixture
verbatim (real API shape), the B200 plan carries PROVIDERS.md section 14's dated values. The
expected values below are read off those bodies (quoted). Newer real answers carry fields the
capture lacks (gpu_count "1/4", gpu_brand, deploy_ondemand, location_cost): covered as variants.
"""

import json

from scrapy.http import Request, TextResponse
from scrapy.utils.test import get_crawler

from pricewatch.collect import judge
from spiders.items import OfferItem, SourceFactItem
from spiders.vultr import (
    METAL,
    PLANS,
    VultrSpider,
    next_page,
    parse_plans,
    parse_plans_metal,
)
from tests.conftest import CAPTURES, CAPTURES_SRC
from tests.inprocess import run_parsed

SRC = CAPTURES_SRC / "2026-10-29" / "vultr"
CAPTURE = CAPTURES / "2026-10-29" / "vultr.warc.gz"
PLANS_TEXT = (SRC / "plans.json").read_text()
METAL_TEXT = (SRC / "plans_metal.json").read_text()


def metal(plans=None, **changes):
    """The metal answer, optionally with its plans replaced or one plan's fields changed."""
    doc = json.loads(METAL_TEXT)
    if plans is not None:
        doc["plans_metal"] = plans
    for plan_id, fields in changes.items():
        plan = next(p for p in doc["plans_metal"] if p["id"] == plan_id.replace("_", "-"))
        plan.update(fields)
    return json.dumps(doc)


def cloud(*plans):
    return json.dumps({"plans": list(plans), "meta": {"total": len(plans), "links": {"next": "", "prev": ""}}})


def run_metal(text=METAL_TEXT):
    return run_parsed("vultr", parse_plans_metal(text, METAL), url=METAL)


def run_cloud(text=PLANS_TEXT):
    return run_parsed("vultr", parse_plans(text, PLANS), url=PLANS)


def plan_offers(result, plan_id):
    return {(o["billing"], o["region"]): o for o in result.items if o["sku"] == plan_id}


# --- the shipped capture ------------------------------------------------------------------

def test_replay_of_the_shipped_capture(crawl):
    result = crawl("vultr", CAPTURE)
    assert judge.judge_crawl(result).status == "ok"
    # 1 whole cloud GPU plan (on-demand only) + 3 GPU bare-metal plans x (on-demand, preemptible).
    assert len(result.items) == 7
    offers = {(o["sku"], o["billing"]): o for o in result.items}
    # plans_metal.json: "id": "vbm-112c-2048gb-8-h100-gpu", "hourly_cost": 23.92,
    # "hourly_cost_preemptible": 18.4, "locations": ["sea"]
    h100 = offers[("vbm-112c-2048gb-8-h100-gpu", "on-demand")]
    assert (h100["gpu_model"], h100["gpu_count"], h100["price_per_hour"], h100["price_per_gpu_hour"]) == \
        ("H100", 8, 23.92, 2.99)
    assert offers[("vbm-112c-2048gb-8-h100-gpu", "spot")]["tier"] == "preemptible"
    # plans.json: "id": "vcg-a100-12c-120g-80vram", "hourly_cost": 2.397, "gpu_vram_gb": 80
    assert offers[("vcg-a100-12c-120g-80vram", "on-demand")]["price_per_hour"] == 2.397
    assert result.report["unknown_labels"] == []
    facts = {f["fact"]: f for f in result.facts}
    assert facts["fractional_gpu_plans"]["value_num"] == 2


def test_bare_metal_prices_on_demand_and_preemptible_per_instance_hour():
    result = run_metal()
    assert judge.judge_crawl(result).status == "ok"
    # "vbm-112c-2048gb-8-h100-gpu": "hourly_cost": 23.92, "hourly_cost_preemptible": 18.4
    h100 = plan_offers(result, "vbm-112c-2048gb-8-h100-gpu")
    assert (h100[("on-demand", None)]["price_per_hour"], h100[("on-demand", None)]["price_per_gpu_hour"]) == (23.92, 2.99)
    spot = h100[("spot", None)]
    assert (spot["price_per_hour"], spot["price_per_gpu_hour"], spot["tier"]) == (18.4, 2.3, "preemptible")
    assert h100[("on-demand", None)]["price_unit"] == "instance_hour"
    # "vbm-256c-2048gb-8-mi300x-gpu": "hourly_cost": 17.52, "hourly_cost_preemptible": 14.72
    mi300x = plan_offers(result, "vbm-256c-2048gb-8-mi300x-gpu")
    assert (mi300x[("on-demand", None)]["price_per_hour"], mi300x[("spot", None)]["price_per_hour"]) == (17.52, 14.72)
    # "vbm-128c-2048gb-8-b200-gpu": "hourly_cost": 68.0, "hourly_cost_preemptible": 25.6 (PROVIDERS.md §14)
    b200 = plan_offers(result, "vbm-128c-2048gb-8-b200-gpu")
    assert (b200[("on-demand", None)]["price_per_hour"], b200[("spot", None)]["price_per_hour"]) == (68.0, 25.6)
    # Published claim: no self-service on-demand 8x B200 at or below $43.46.
    assert b200[("on-demand", None)]["price_per_hour"] > 43.46


def test_bare_metal_gpu_type_and_count_come_from_the_plan_id():
    result = run_metal()
    got = {o["sku"]: (o["gpu_label"], o["gpu_model"], o["gpu_count"]) for o in result.items}
    assert got == {"vbm-112c-2048gb-8-h100-gpu": ("h100", "H100", 8),
                   "vbm-128c-2048gb-8-b200-gpu": ("b200", "B200", 8),
                   "vbm-256c-2048gb-8-mi300x-gpu": ("mi300x", "MI300X", 8)}
    # "vbm-4c-32gb" (E3-1270v6, no GPU) is no offer.
    assert result.report["unknown_labels"] == []


def test_one_offer_per_plan_and_tier_not_one_per_location():
    # "vbm-128c-2048gb-8-b200-gpu" ... "locations": ["ord", "sea"]: one price for both.
    b200 = [o for o in run_metal().items if o["sku"] == "vbm-128c-2048gb-8-b200-gpu"]
    assert len(b200) == 2   # on-demand + preemptible, not 4
    assert {o["region"] for o in b200} == {None}
    assert {o["availability"] for o in b200} == {"locations: ord, sea"}
    assert {o["offer_key"] for o in b200} == {"8x vbm-128c-2048gb-8-b200-gpu on-demand",
                                             "8x vbm-128c-2048gb-8-b200-gpu spot/preemptible"}


def test_a_location_with_its_own_price_is_an_offer_of_its_own():
    # location_cost is Vultr's per-location price (e.g. a São Paulo surcharge).
    text = metal(vbm_128c_2048gb_8_b200_gpu={
        "locations": ["ord", "sea", "sao"],
        "location_cost": {"sao": {"hourly_cost": 74.8, "monthly_cost": 50265.6}, "sea": {"hourly_cost": 68.0, "hourly_cost_preemptible": 25.6}}})
    b200 = plan_offers(run_metal(text), "vbm-128c-2048gb-8-b200-gpu")
    assert b200[("on-demand", None)]["price_per_hour"] == 68.0
    assert b200[("on-demand", None)]["availability"] == "locations: ord, sea"
    assert (b200[("on-demand", "sao")]["price_per_hour"], b200[("on-demand", "sao")]["offer_key"]) == \
        (74.8, "8x vbm-128c-2048gb-8-b200-gpu on-demand @sao")
    # sao states no hourly_cost_preemptible: its preemptible price is not known, sao is left out.
    result = run_metal(text)
    assert plan_offers(result, "vbm-128c-2048gb-8-b200-gpu")[("spot", None)]["availability"] == "locations: ord, sea"
    facts = {f["fact"]: f for f in result.facts}
    assert "vbm-128c-2048gb-8-b200-gpu@sao" in facts["locations_without_hourly_price"]["value_text"]


def test_plan_listed_nowhere_is_kept_as_no_location():
    result = run_metal(metal(vbm_112c_2048gb_8_h100_gpu={"locations": []}))
    assert plan_offers(result, "vbm-112c-2048gb-8-h100-gpu")[("on-demand", None)]["availability"] == "no location"


def test_a_tier_that_cannot_be_deployed_is_no_offer():
    # Newer answers: "deploy_ondemand": false, "deploy_preemptible": true (a preemptible-only box).
    result = run_metal(metal(vbm_128c_2048gb_8_b200_gpu={"deploy_ondemand": False, "deploy_preemptible": True}))
    assert set(plan_offers(result, "vbm-128c-2048gb-8-b200-gpu")) == {("spot", None)}
    facts = {f["fact"]: f for f in result.facts}
    assert facts["tiers_not_deployable"]["value_text"].startswith("vbm-128c-2048gb-8-b200-gpu: on-demand")
    assert judge.judge_crawl(result).status == "ok"


def test_stated_gpu_type_and_count_on_a_bare_metal_plan():
    # The id's "l40" is Vultr's L40S: the stated gpu_type is the label, not the abbreviation.
    l40s = {"id": "vbm-64c-2048gb-8-l40-gpu", "gpu_type": "NVIDIA_L40S", "gpu_count": 8, "gpu_vram_gb": 384,
            "hourly_cost": 13.368, "locations": ["ewr"]}
    [offer] = run_metal(metal([l40s])).items
    assert (offer["gpu_label"], offer["gpu_model"], offer["gpu_count"], offer["vram_gb"]) == ("NVIDIA_L40S", "L40S", 8, 48)
    # A GH200 plan id names no count; a stated gpu_count gives it.
    gh200 = {"id": "vbm-72c-480gb-gh200-gpu", "hourly_cost": 2.99, "locations": ["ewr"]}
    result = run_metal(metal([gh200]))
    assert result.items == []
    assert {f["fact"] for f in result.facts} == {"gpu_plans_without_count"}
    [offer] = run_metal(metal([{**gh200, "gpu_count": 1}])).items
    assert (offer["gpu_model"], offer["gpu_count"]) == ("GH200", 1)


def test_a_stated_count_that_disagrees_with_the_id_fails():
    result = run_metal(metal(vbm_112c_2048gb_8_h100_gpu={"gpu_count": 4}))
    outcome = judge.judge_crawl(result)
    assert outcome.status == "failed"
    assert "gpu_count disagrees with the GPU count in the plan id: 'vbm-112c-2048gb-8-h100-gpu'" in outcome.error


def test_gpu_slices_are_not_priced_as_whole_gpus():
    result = run_cloud()
    # "vcg-a100-1c-6g-4vram" ($0.123/h, "gpu_vram_gb": 4) and "vcg-a100-6c-60g-40vram" ($1.397/h,
    # "gpu_vram_gb": 40) are 4 GB and 40 GB of an 80 GB A100; only the 80 GB plan is a whole GPU.
    [a100] = result.items
    assert (a100["sku"], a100["gpu_model"], a100["gpu_count"], a100["vram_gb"], a100["price_per_hour"]) == \
        ("vcg-a100-12c-120g-80vram", "A100 80GB", 1, 80, 2.397)
    assert a100["offer_key"] == "1x vcg-a100-12c-120g-80vram 80GB on-demand"
    facts = {f["fact"]: f for f in result.facts}
    assert facts["fractional_gpu_plans"]["value_num"] == 2
    assert "vcg-a100-1c-6g-4vram: 4 GB of one 80 GB NVIDIA_A100 ($0.123/h)" in facts["fractional_gpu_plans"]["value_text"]
    assert judge.judge_crawl(result).status == "ok"


def test_a_stated_gpu_count_decides_and_a_fraction_is_a_slice():
    # Newer answers state gpu_count as a string: "1" for a whole card, "1/4" for a quarter of an A40.
    whole = {"id": "vcg-l40s-16c-180g-48vram", "type": "vcg", "gpu_type": "NVIDIA_L40S", "gpu_vram_gb": 48,
             "gpu_count": "1", "gpu_brand": "NVIDIA", "hourly_cost": 1.671, "locations": ["ewr"]}
    two = {**whole, "id": "vcg-l40s-32c-375g-96vram", "gpu_vram_gb": 96, "gpu_count": "2", "hourly_cost": 3.342}
    quarter = {"id": "vcg-a40-6c-30g-12vram", "type": "vcg", "gpu_type": "NVIDIA_A40", "gpu_vram_gb": 12,
               "gpu_count": "1/4", "gpu_brand": "NVIDIA", "hourly_cost": 0.432, "locations": ["lax"]}
    result = run_cloud(cloud(whole, two, quarter))
    got = {o["sku"]: (o["gpu_model"], o["gpu_count"], o["vram_gb"], o["price_per_gpu_hour"]) for o in result.items}
    assert got == {"vcg-l40s-16c-180g-48vram": ("L40S", 1, 48, 1.671),
                   "vcg-l40s-32c-375g-96vram": ("L40S", 2, 48, 1.671)}
    facts = {f["fact"]: f for f in result.facts}
    assert facts["fractional_gpu_plans"]["value_text"] == "vcg-a40-6c-30g-12vram: gpu_count 1/4 of one NVIDIA_A40 (12 GB) ($0.432/h)"


def test_plans_without_gpu_and_gpu_plans_without_gpu_fields_are_not_offers():
    # "vc2-1c-1gb" (plans.json) has no GPU; newer answers put gpu_brand "none" on such plans.
    cpu = {**json.loads(PLANS_TEXT)["plans"][0], "gpu_brand": "none"}
    # A dedicated (vdm) GPU plan with gpu_brand but none of gpu_type / gpu_count / gpu_vram_gb:
    # the count is not in a field, so it is not guessed from the id.
    vdm = {"id": "vcg-a40-24c-120g-48vram", "type": "vdm", "gpu_brand": "NVIDIA", "hourly_cost": 1.712,
           "locations": ["blr"]}
    result = run_cloud(cloud(cpu, vdm))
    assert result.items == []
    assert [(f["fact"], f["value_num"], f["value_text"]) for f in result.facts] == [
        ("gpu_plans_without_gpu_type", 1, "vcg-a40-24c-120g-48vram: gpu_brand NVIDIA, no gpu_type/gpu_count ($1.712/h)")]


def test_preemptible_price_zero_or_absent_is_no_spot_offer():
    result = run_metal(metal(vbm_112c_2048gb_8_h100_gpu={"hourly_cost_preemptible": 0}))
    assert set(plan_offers(result, "vbm-112c-2048gb-8-h100-gpu")) == {("on-demand", None)}


# --- layout variants ----------------------------------------------------------------------

def test_renamed_price_field_fails_naming_the_field():
    for text, parse, url in ((PLANS_TEXT, parse_plans, PLANS), (METAL_TEXT, parse_plans_metal, METAL)):
        parsed = parse(text.replace('"hourly_cost":', '"price_hourly":'), url)
        outcome = judge.judge_crawl(run_parsed("vultr", parsed, url=url))
        assert outcome.status == "failed" and outcome.offers == []
        assert "GPU plan lacks hourly_cost" in outcome.error
        assert len(parsed.errors) == 1   # one message per distinct problem, naming the plans


def test_a_price_that_is_not_a_number_holds_that_offer_the_others_load():
    # Issue 20 item 2. "vbm-112c-2048gb-8-h100-gpu": "hourly_cost": 23.92, "hourly_cost_preemptible": 18.4,
    # the on-demand price changed to the text "23.92 USD": that one offer is held (unpriced, the text
    # kept), the provider suspect; its preemptible offer (18.4) and every other plan load as recorded.
    real = run_metal()
    result = run_metal(metal(vbm_112c_2048gb_8_h100_gpu={"hourly_cost": "23.92 USD"}))
    outcome = judge.judge_crawl(result)
    assert outcome.status == "suspect" and outcome.trusted
    assert f"1 of {len(real.items)} row(s) held" in outcome.error
    assert any("hourly_cost unreadable: '23.92 USD' is not a price" in m for m in result.report["layout_errors"])
    h100 = plan_offers(result, "vbm-112c-2048gb-8-h100-gpu")
    held = h100[("on-demand", None)]
    assert (held["is_priced"], held["price_raw"], held["price_per_hour"]) == (False, "23.92 USD", None)
    assert h100[("spot", None)]["price_per_hour"] == 18.4
    # "vbm-256c-2048gb-8-mi300x-gpu": "hourly_cost": 17.52
    assert plan_offers(result, "vbm-256c-2048gb-8-mi300x-gpu")[("on-demand", None)]["price_per_hour"] == 17.52
    others = sorted((o["offer_key"], o["price_per_hour"]) for o in result.items if o is not held)
    assert others == sorted((o["offer_key"], o["price_per_hour"]) for o in real.items if o["offer_key"] != held["offer_key"])


def test_metal_answer_without_its_list_fails():
    parsed = parse_plans_metal(METAL_TEXT.replace('"plans_metal":', '"bare_metal_plans":'), METAL)
    outcome = judge.judge_crawl(run_parsed("vultr", parsed, url=METAL))
    assert outcome.status == "failed"
    assert "vultr" in outcome.error and "expected a JSON object with a 'plans_metal' list, found nothing" in outcome.error


def test_an_answer_that_is_not_json_fails():
    parsed = parse_plans("<html><body>403 Forbidden</body></html>", PLANS)
    assert len(parsed.errors) == 1 and "not a JSON document" in parsed.errors[0]


# --- the spider: pagination and the whole-crawl check (in-process) -------------------------

def response(url, body):
    return TextResponse(url, body=body.encode(), encoding="utf-8", request=Request(url))


def spider():
    crawler = get_crawler(VultrSpider)
    return crawler, VultrSpider.from_crawler(crawler)


def test_next_page_cursor():
    page = json.dumps({"plans_metal": [], "meta": {"total": 9, "links": {"next": "bmV4dF9fMg==", "prev": ""}}})
    assert next_page(page, METAL) == METAL + "&cursor=bmV4dF9fMg%3D%3D"
    assert next_page(METAL_TEXT, METAL) is None   # "links": {"next": "", "prev": ""}


def test_spider_follows_the_cursor_and_merges_facts_over_pages():
    crawler, s = spider()
    out = list(s.parse_page(response(PLANS, PLANS_TEXT), field="plans", first_url=PLANS))
    assert [r.url for r in out if isinstance(r, Request)] == [METAL]
    doc = json.loads(METAL_TEXT)
    b200 = [p for p in doc["plans_metal"] if p["id"].endswith("-b200-gpu")]
    first = {"plans_metal": [p for p in doc["plans_metal"] if p not in b200] + [
        {"id": "vbm-72c-480gb-gh200-gpu", "hourly_cost": 2.99, "locations": ["ewr"]}],
        "meta": {"total": 5, "links": {"next": "bmV4dF9fMg==", "prev": ""}}}
    out = list(s.parse_page(response(METAL, json.dumps(first)), field="plans_metal", first_url=METAL))
    [following] = [r for r in out if isinstance(r, Request)]
    assert following.url == METAL + "&cursor=bmV4dF9fMg%3D%3D"
    second = {"plans_metal": b200, "meta": {"total": 5, "links": {"next": "", "prev": "cHJldg=="}}}
    out += list(s.parse_page(response(following.url, json.dumps(second)), field="plans_metal", first_url=METAL))
    offers = [i for i in out if isinstance(i, OfferItem)]
    assert {(o["sku"], o["billing"]) for o in offers} >= {("vbm-128c-2048gb-8-b200-gpu", "on-demand"),
                                                         ("vbm-112c-2048gb-8-h100-gpu", "spot")}
    facts = {f["fact"]: f for f in out if isinstance(f, SourceFactItem)}
    assert facts["fractional_gpu_plans"]["value_num"] == 2            # from the plans page
    assert facts["gpu_plans_without_count"]["value_num"] == 1         # from the first metal page
    assert crawler.stats.get_value("pricewatch/layout_errors") is None


def test_spider_reports_answers_without_any_gpu_plan():
    crawler, s = spider()
    list(s.parse_page(response(PLANS, cloud(json.loads(PLANS_TEXT)["plans"][0])), field="plans", first_url=PLANS))
    list(s.parse_page(response(METAL, metal([json.loads(METAL_TEXT)["plans_metal"][0]])),
                      field="plans_metal", first_url=METAL))
    [message] = crawler.stats.get_value("pricewatch/layout_errors")
    assert message.endswith("no GPU plan found (no gpu_type / gpu_vram_gb on cloud plans, "
                            "no '-<count>-<gpu>-gpu' bare-metal plan id)")


def test_spider_stops_on_a_cursor_that_points_back():
    crawler, s = spider()
    s.seen_pages.add(METAL + "&cursor=bG9vcA%3D%3D")
    page = json.dumps({**json.loads(METAL_TEXT), "meta": {"total": 4, "links": {"next": "bG9vcA==", "prev": ""}}})
    out = list(s.parse_page(response(METAL, page), field="plans_metal", first_url=METAL))
    assert not [r for r in out if isinstance(r, Request)]
    assert crawler.stats.get_value("pricewatch/layout_errors") == [
        f"{METAL}: meta.links.next points back to a page already read"]
