"""Vultr spider on its recorded 2026-10-29 plans / plans-metal API answers."""

import json

from pricewatch import collect
from tests.conftest import CAPTURES, source_exchanges

CAPTURE = CAPTURES / "2026-10-29" / "vultr.warc.gz"


def by_key(result):
    return {i["offer_key"]: i for i in result.items}


def test_dated_bare_metal_prices_on_demand_and_preemptible(crawl):
    offers = by_key(crawl("vultr", CAPTURE))
    # PROVIDERS.md §14: 8x H100 $23.92 (preemptible $18.40), 8x B200 $68.00 ($25.60), per instance-hour.
    h100 = offers["vbm-112c-2048gb-8-h100-gpu@sea"]
    assert (h100["price_per_hour"], h100["price_per_gpu_hour"], h100["billing"]) == (23.92, 2.99, "on-demand")
    h100_spot = offers["vbm-112c-2048gb-8-h100-gpu@sea:preemptible"]
    assert (h100_spot["price_per_hour"], h100_spot["billing"], h100_spot["tier"]) == (18.4, "spot", "preemptible")
    for location in ("ord", "sea"):
        assert offers[f"vbm-128c-2048gb-8-b200-gpu@{location}"]["price_per_hour"] == 68.0
        assert offers[f"vbm-128c-2048gb-8-b200-gpu@{location}:preemptible"]["price_per_hour"] == 25.6


def test_bare_metal_gpu_type_and_count_come_from_the_plan_id(crawl):
    result = crawl("vultr", CAPTURE)
    offers = by_key(result)
    for key, model in [("vbm-112c-2048gb-8-h100-gpu@sea", "H100"), ("vbm-128c-2048gb-8-b200-gpu@ord", "B200"),
                       ("vbm-256c-2048gb-8-mi300x-gpu@ord", "MI300X")]:
        assert (offers[key]["gpu_model"], offers[key]["gpu_count"]) == (model, 8)
    # Published claim: no self-service on-demand 8x B200 at or below $43.46.
    assert offers["vbm-128c-2048gb-8-b200-gpu@ord"]["price_per_hour"] > 43.46
    assert result.report["unknown_labels"] == []
    assert collect.judge_crawl(result).status == "ok"


def test_plans_without_gpu_are_not_offers(crawl):
    plans = {k.split("@")[0] for k in by_key(crawl("vultr", CAPTURE))}
    assert not plans & {"vc2-1c-1gb", "vbm-4c-32gb"}


def test_gpu_slices_are_not_priced_as_whole_gpus(crawl):
    result = crawl("vultr", CAPTURE)
    offers = by_key(result)
    # vcg-a100-1c-6g-4vram ($0.123/h) and vcg-a100-6c-60g-40vram ($1.397/h) are 4 GB and 40 GB of an
    # 80 GB A100; only the 80 GB plan is a whole GPU.
    assert not [k for k in offers if k.startswith(("vcg-a100-1c-6g-4vram", "vcg-a100-6c-60g-40vram"))]
    a100 = offers["vcg-a100-12c-120g-80vram@ewr"]
    assert (a100["gpu_model"], a100["gpu_count"], a100["price_per_hour"]) == ("A100 80GB", 1, 2.397)
    facts = {f["fact"]: f for f in result.facts}
    assert facts["fractional_gpu_plans"]["value_num"] == 2
    assert "vcg-a100-1c-6g-4vram" in facts["fractional_gpu_plans"]["value_text"]


def test_next_cursor_is_followed(crawl, make_warc):
    ex = source_exchanges("2026-10-29", "vultr")
    metal = json.loads(ex[1]["body"])
    b200 = [p for p in metal["plans_metal"] if p["id"].endswith("-b200-gpu")]
    first = {"plans_metal": [p for p in metal["plans_metal"] if p not in b200],
             "meta": {"total": len(metal["plans_metal"]), "links": {"next": "bmV4dF9fMg==", "prev": ""}}}
    second = {"plans_metal": b200, "meta": {"total": len(metal["plans_metal"]), "links": {"next": "", "prev": "cHJldg=="}}}
    ex[1]["body"] = json.dumps(first)
    ex.append({**ex[1], "url": ex[1]["url"] + "&cursor=bmV4dF9fMg%3D%3D", "body": json.dumps(second)})
    result = crawl("vultr", make_warc(ex))
    offers = by_key(result)
    assert offers["vbm-128c-2048gb-8-b200-gpu@sea"]["price_per_hour"] == 68.0
    assert offers["vbm-112c-2048gb-8-h100-gpu@sea"]["price_per_hour"] == 23.92
    assert collect.judge_crawl(result).status == "ok"


def test_renamed_price_field_fails_naming_provider_and_field(crawl, make_warc):
    ex = source_exchanges("2026-10-29", "vultr")
    for n in (0, 1):
        ex[n]["body"] = ex[n]["body"].replace(b'"hourly_cost":', b'"price_hourly":')
    outcome = collect.judge_crawl(crawl("vultr", make_warc(ex)))
    assert outcome.status == "failed"
    assert "vultr" in outcome.error and "lacks hourly_cost" in outcome.error
    assert outcome.offers == []


def test_metal_answer_without_its_list_fails(crawl, make_warc):
    ex = source_exchanges("2026-10-29", "vultr")
    ex[1]["body"] = ex[1]["body"].replace(b'"plans_metal":', b'"bare_metal_plans":')
    outcome = collect.judge_crawl(crawl("vultr", make_warc(ex)))
    assert outcome.status == "failed"
    assert "vultr" in outcome.error and "'plans_metal' list" in outcome.error
