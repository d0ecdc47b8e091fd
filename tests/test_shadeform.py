"""Shadeform (aggregator) on its REAL homepage recording of 2026-08-22 (tests/real/shadeform/,
an excerpt: 103 of the page's 276 escaped instance objects, starting mid-tag, ending mid-string),
and the warehouse rule that an aggregator never becomes "the cheapest provider".

Expected values are read off the recording (snippets quoted unescaped, ``\\"`` -> ``"``)."""

from datetime import datetime, timezone

import pytest

from pricewatch.collect import judge, store
from spiders.lambda_cloud import parse_pricing as parse_lambda
from spiders.shadeform import parse_homepage
from tests.conftest import CAPTURES, CAPTURES_SRC, source_exchanges
from tests.inprocess import run_parsed
from warehouse import db

URL = "https://www.shadeform.ai/"
AUG22 = datetime(2026, 8, 22, 12, 0, tzinfo=timezone.utc)
BODY = (CAPTURES_SRC / "2026-08-22" / "shadeform" / "homepage_excerpt.html").read_text(encoding="utf-8")
REAL = (CAPTURES_SRC.parent.parent / "tests" / "real" / "shadeform" / "homepage_excerpt.html")


def run(text: str = BODY):
    return run_parsed("shadeform", parse_homepage(text, URL), url=URL, captured_at=AUG22, is_aggregator=True)


def by_sku(result) -> dict[str, dict]:
    skus = [i["sku"] for i in result.items]
    assert len(skus) == len(set(skus))
    return {i["sku"]: i for i in result.items}


@pytest.fixture(scope="module")
def real():
    return run()


def test_shipped_body_is_the_real_recording_unchanged():
    assert BODY.encode("utf-8") == REAL.read_bytes()
    assert BODY.startswith('ipt>self.__next_f.push([1,"7:[')  # mid-tag, as SOURCE.md says
    assert BODY.endswith('\\"isInvalidat')                   # mid-string: the push is never closed


def test_every_gpu_object_is_one_offer_cpu_only_are_none(real):
    # SOURCE.md: "99 GPU rows + 4 CPU-only rows".
    assert judge.judge_crawl(real).status == "ok"
    assert len(real.items) == 99
    offers = by_sku(real)
    # '"cloud":"lambdalabs","shade_instance_type":"cpu_small",…,"num_gpus":0,"gpu_type":"CPU",…"hourly_price":20'
    assert not [s for s in offers if s.endswith(":cpu_small") or ":cpu_" in s]
    assert {i["gpu_label"] for i in real.items}.isdisjoint({"CPU"})


def test_hourly_price_is_us_cents_per_instance_hour(real):
    offers = by_sku(real)
    # SOURCE.md: "lambdalabs B200 (192 GB): 1× 699 ¢ → 6.99/GPU-h, 2× 1378 → 6.89, 4× 2716 → 6.79, 8× 5352 → 6.69"
    # '"shade_instance_type":"B200_sxm6x8","cloud_instance_type":"gpu_8x_b200_sxm6",…"num_gpus":8,
    #  "gpu_type":"B200","interconnect":"sxm6",…"hourly_price":5352'
    for sku, count, hourly, per_gpu in [("lambdalabs:B200_sxm6", 1, 6.99, 6.99), ("lambdalabs:B200_sxm6x2", 2, 13.78, 6.89),
                                        ("lambdalabs:B200_sxm6x4", 4, 27.16, 6.79), ("lambdalabs:B200_sxm6x8", 8, 53.52, 6.69)]:
        o = offers[sku]
        assert (o["gpu_label"], o["gpu_count"], o["gpu_model"], o["price_unit"]) == ("B200", count, "B200", "instance_hour")
        assert (o["price_per_hour"], o["price_per_gpu_hour"]) == (hourly, pytest.approx(per_gpu))
    # SOURCE.md: "A16 ×16 919 ¢ → 0.5744": '"shade_instance_type":"A16x16",…"num_gpus":16,…"hourly_price":919'
    a16 = offers["vultr:A16x16"]
    assert (a16["gpu_count"], a16["price_per_hour"], a16["price_per_gpu_hour"]) == (16, 9.19, pytest.approx(0.574375))
    # SOURCE.md: "boostrun B200 baremetal 3.74/GPU-h": '"shade_instance_type":"B200_sxm6x8_NVLINK",…
    #  "num_gpus":8,"gpu_type":"B200",…"hourly_price":2992,…"deployment_type":"baremetal"'
    assert offers["boostrun:B200_sxm6x8_NVLINK"]["price_per_gpu_hour"] == 3.74
    # SOURCE.md: "scaleway B300 → 9.0075/GPU-h": '"cloud":"scaleway","shade_instance_type":"B300x8",…"hourly_price":7206'
    b300 = offers["scaleway:B300x8"]
    assert (b300["gpu_model"], b300["gpu_count"], b300["price_per_hour"], b300["price_per_gpu_hour"]) == (
        "B300", 8, 72.06, pytest.approx(9.0075))


def test_aggregator_offers_keyed_and_tiered_by_the_underlying_cloud(real):
    assert all(i["is_aggregator"] is True and i["provider"] == "shadeform" for i in real.items)
    assert {i["billing"] for i in real.items} == {"on-demand"}
    b200 = by_sku(real)["lambdalabs:B200_sxm6x8"]
    assert (b200["tier"], b200["offer_key"]) == ("lambdalabs", "8x lambdalabs:B200_sxm6x8 192GB on-demand/lambdalabs")
    assert {i["tier"] for i in real.items} == {
        "imwt", "lambdalabs", "crusoe", "paperspace", "hyperstack", "boostrun", "scaleway", "massedcompute",
        "excesssupply", "denvr", "vultr", "latitude", "digitalocean", "verda"}


def test_same_instance_type_name_on_two_clouds_is_two_offers(real):
    offers = by_sku(real)
    # '"cloud":"verda","shade_instance_type":"B300x8",…"hourly_price":6164' and
    # '"cloud":"scaleway","shade_instance_type":"B300x8",…"hourly_price":7206'
    assert (offers["verda:B300x8"]["price_per_hour"], offers["scaleway:B300x8"]["price_per_hour"]) == (61.64, 72.06)
    # RTX6000Adax8 at boostrun (480), massedcompute (776), verda (886)
    assert [offers[f"{c}:RTX6000Adax8"]["price_per_hour"] for c in ("boostrun", "massedcompute", "verda")] == [
        4.8, 7.76, 8.86]
    # SOURCE.md: "excesssupply H200 ×8 two distinct rows both 3613 ¢ → 4.5163"
    h200 = [offers[f"excesssupply:H200_sxm5x8_NVLINK{s}"] for s in ("", "_eu")]
    assert [(o["gpu_model"], o["gpu_count"], o["price_per_gpu_hour"]) for o in h200] == [
        ("H200", 8, pytest.approx(4.51625))] * 2


def test_one_offer_per_instance_type_with_its_regions_summarised(real):
    offers = by_sku(real)
    assert {i["region"] for i in real.items} == {None}  # one price for all regions of a type
    # '"shade_instance_type":"L4",…"hourly_price":95,"availability":[{"region":"paris-france-5",…"available":true},
    #  {"region":"paris-france-1",…"available":false},{"region":"warsaw-poland-1",…"available":true}]'
    assert offers["scaleway:L4"]["availability"] == "available in 2 of 3 listed regions: paris-france-5, warsaw-poland-1"
    # SOURCE.md: scaleway B300 availability '[{"region":"paris-france-1","display_name":"FR, Paris","available":false}]'
    assert offers["scaleway:B300x8"]["availability"] == "unavailable in the 1 listed region"
    # '"shade_instance_type":"B200_sxm6x8",…"availability":[{"region":"sydney-australia-2",…false},{…"dulles-usa-1",…false}]'
    assert offers["lambdalabs:B200_sxm6x8"]["availability"] == "unavailable in all 2 listed regions"


def test_vram_and_look_alike_labels_as_the_source_states_them(real):
    offers = by_sku(real)
    parsed = {o["sku"]: o for o in parse_homepage(BODY, URL).offers}
    # '"vram_per_gpu_in_gb":24' RTX6000 vs '…48' RTX6000Ada vs '…96' RTXPro6000; A4000x10 16 vs RTX4000Ada 20
    assert [(parsed[s]["gpu_label"], parsed[s]["vram_gb"]) for s in (
        "lambdalabs:RTX6000", "massedcompute:RTX6000Ada", "hyperstack:RTXPro6000", "hyperstack:A4000x10",
        "digitalocean:RTX4000Ada")] == [("RTX6000", 24), ("RTX6000Ada", 48), ("RTXPro6000", 96), ("A4000", 16),
                                        ("RTX4000Ada", 20)]
    assert parsed["lambdalabs:B200_sxm6x8"]["vram_gb"] == 192
    # '"shade_instance_type":"H100_nvlx8_NVLINK",…"gpu_type":"H100_nvl",…"vram_per_gpu_in_gb":94'
    nvl = offers["massedcompute:H100_nvlx8_NVLINK"]
    assert (nvl["gpu_label"], nvl["gpu_model"], nvl["vram_gb"], nvl["form_factor"]) == ("H100_nvl", "H100", 94, "NVL")
    # '"shade_instance_type":"Gaudi2x8",…"gpu_type":"GAUDI2",…"gpu_manufacturer":"intel"…"hourly_price":880'
    assert (offers["denvr:Gaudi2x8"]["gpu_label"], offers["denvr:Gaudi2x8"]["price_per_hour"]) == ("GAUDI2", 8.8)


def test_form_factor_only_from_the_instance_type_name(real):
    offers = by_sku(real)
    # '"shade_instance_type":"A100_80G_sxm4x8","cloud_instance_type":"a100-80gb-sxm-ib.8x",…"interconnect":"pcie"'
    assert offers["crusoe:A100_80G_sxm4x8"]["form_factor"] == "SXM"
    # '"cloud":"boostrun","shade_instance_type":"RTX6000Adax8",…"interconnect":"sxm5"': an RTX card, not SXM
    assert offers["boostrun:RTX6000Adax8"]["form_factor"] != "SXM"
    assert offers["lambdalabs:B200_sxm6x8"]["form_factor"] == "SXM"


# ---- layout variants (in-process) -------------------------------------------------------------

def judged(text: str):
    return judge.judge_crawl(run(text))


def test_page_without_flight_data_fails_naming_it():
    outcome = judged("<html><body><h1>Shadeform</h1></body></html>")
    assert outcome.status == "failed" and "no Next.js flight data (self.__next_f.push)" in outcome.error


def test_flight_data_without_instance_objects_fails_naming_them():
    outcome = judged(BODY.replace('{\\"cloud\\":', '{\\"provider\\":'))
    assert outcome.status == "failed" and 'no instance objects ({"cloud": …})' in outcome.error


def test_renamed_price_field_is_one_short_message():
    parsed = parse_homepage(BODY.replace('\\"hourly_price\\":', '\\"hourly_price_cents\\":'), URL)
    assert parsed.offers == []
    assert parsed.errors == [f"{URL}: 103 instance object(s) lack hourly_price (imwt:A6000x8, lambdalabs:A6000x4, "
                             "crusoe:A100_80G_sxm4x8, …)"]
    assert judged(BODY.replace('\\"hourly_price\\":', '\\"hourly_price_cents\\":')).status == "failed"


def test_price_in_dollars_instead_of_cents_fails():
    text = BODY.replace('\\"hourly_price\\":5352,', '\\"hourly_price\\":53.52,')
    outcome = judged(text)
    assert outcome.status == "failed"
    assert "1 hourly_price is not whole cents (unit changed?) (lambdalabs:B200_sxm6x8=53.52)" in outcome.error


def test_one_unreadable_price_holds_that_offer_the_others_load(real):
    # Issue 20 item 2. lambdalabs B200_sxm6x8: '"num_gpus":8,"gpu_type":"B200",…"hourly_price":5352'
    # (SOURCE.md "8× 5352 → 6.69"), changed to the string "N/A": that one offer is held (unpriced, the
    # text kept), the provider suspect, the 98 other offers load as recorded.
    assert BODY.count('\\"hourly_price\\":5352,') == 1
    result = run(BODY.replace('\\"hourly_price\\":5352,', '\\"hourly_price\\":\\"N/A\\",'))
    outcome = judge.judge_crawl(result)
    assert outcome.status == "suspect" and outcome.trusted
    assert "1 of 99 row(s) held" in outcome.error and "hourly_price unreadable: 'N/A'" in outcome.error
    offers = by_sku(result)
    held = offers["lambdalabs:B200_sxm6x8"]
    assert (held["is_priced"], held["price_raw"], held["price_per_hour"], held["gpu_count"]) == (False, "N/A", None, 8)
    # the 4x of the same cloud, read off the page: "4× 2716 → 6.79"
    assert offers["lambdalabs:B200_sxm6x4"]["price_per_hour"] == 27.16
    reference = by_sku(real)
    assert {k: o["price_per_hour"] for k, o in offers.items() if k != "lambdalabs:B200_sxm6x8"} == \
        {k: o["price_per_hour"] for k, o in reference.items() if k != "lambdalabs:B200_sxm6x8"}
    assert all(o["is_priced"] for k, o in offers.items() if k != "lambdalabs:B200_sxm6x8")


def test_gpu_count_that_reads_two_ways_fails():
    beside = '\\"vcpus\\":208,\\"num_gpus\\":8,\\"gpu_type\\":\\"B200\\",\\"interconnect\\":\\"sxm6\\",\\"nvlink\\":false,\\"hourly_price\\":5352'
    assert BODY.count(beside) == 1
    outcome = judged(BODY.replace(beside, beside.replace('\\"num_gpus\\":8', '\\"num_gpus\\":4')))
    assert outcome.status == "failed"
    assert "num_gpus differs inside and beside configuration (lambdalabs:B200_sxm6x8)" in outcome.error


def test_object_printed_twice_is_one_offer():
    start = BODY.index('{\\"cloud\\":\\"imwt\\"')
    end = BODY.index('{\\"cloud\\":\\"lambdalabs\\"')
    twice = BODY[:end] + BODY[start:end] + BODY[end:]
    result = run(twice)
    assert judge.judge_crawl(result).status == "ok" and len(result.items) == 99
    assert by_sku(result)["imwt:A6000x8"]["price_per_hour"] == 3.92


def test_same_sku_with_two_prices_fails_naming_it():
    start = BODY.index('{\\"cloud\\":\\"imwt\\"')
    end = BODY.index('{\\"cloud\\":\\"lambdalabs\\"')
    other = BODY[start:end].replace('\\"hourly_price\\":392,', '\\"hourly_price\\":400,')
    outcome = judged(BODY[:end] + other + BODY[end:])
    assert outcome.status == "failed"
    assert "imwt:A6000x8 is listed twice with different price_raw (USD/h 3.92 vs 4)" in outcome.error
    assert outcome.offers == []


def test_copies_that_differ_only_in_availability_are_one_offer_saying_so():
    start = BODY.index('{\\"cloud\\":\\"imwt\\"')
    end = BODY.index('{\\"cloud\\":\\"lambdalabs\\"')
    other = BODY[start:end].replace('\\"available\\":false', '\\"available\\":true', 1)
    result = run(BODY[:end] + other + BODY[end:])
    assert judge.judge_crawl(result).status == "ok" and len(result.items) == 99
    assert by_sku(result)["imwt:A6000x8"]["availability"] == "copies list different availability"


def test_object_cut_at_the_end_of_the_document_is_no_offer_and_no_error():
    cut = BODY[:BODY.index('{\\"cloud\\":\\"scaleway\\",\\"shade_instance_type\\":\\"B300x8\\"') + 300]
    result = run(cut)
    assert judge.judge_crawl(result).status == "ok"
    assert len(result.items) == 98 and "scaleway:B300x8" not in by_sku(result)
    # cut inside an escape sequence: still read up to there
    assert len(run(cut + "\\").items) == 98


def test_broken_object_inside_the_document_is_an_error():
    outcome = judged(BODY.replace('\\"hourly_price\\":392,', '\\"hourly_price\\":392,,'))
    assert outcome.status == "failed" and "1 instance object(s) are not JSON we can read" in outcome.error


def test_objects_split_across_push_chunks_are_joined():
    # The served page streams the flight data in many pushes; a chunk may end mid-object.
    at = BODY.index('{\\"cloud\\":\\"lambdalabs\\",\\"shade_instance_type\\":\\"B200_sxm6x8\\"') + 40
    split = BODY[:at] + '"])</script><script>self.__next_f.push([1,"' + BODY[at:]
    result = run(split)
    assert judge.judge_crawl(result).status == "ok" and len(result.items) == 99
    assert by_sku(result)["lambdalabs:B200_sxm6x8"]["price_per_hour"] == 53.52


def test_cheaper_republished_b200_never_becomes_the_cheapest_offer(real, tmp_path):
    # Lambda's own page of the same day (its real 2026-08-22 capture) next to Shadeform's listing,
    # whose boostrun 8x B200 (2992 ¢ = $29.92/h) is far cheaper than anything Lambda sells itself.
    ex = source_exchanges("2026-08-22", "lambda_cloud")[0]
    lam = run_parsed("lambda_cloud", parse_lambda(ex["body"].decode("utf-8"), ex["url"]), url=ex["url"],
                     captured_at=AUG22)
    outcomes = [judge.judge_crawl(lam), judge.judge_crawl(real)]
    assert [o.status for o in outcomes] == ["ok", "ok"]
    run_row, provider_runs, offers, facts = judge.build_run(outcomes, "replay", datetime.now(timezone.utc), None,
                                                              CAPTURES / "2026-08-22")
    con = db.connect(tmp_path / "w.duckdb")
    try:
        assert store.load_run(con, run_row, provider_runs, offers, facts)
        cheapest = con.execute("""SELECT provider, price_per_hour::DOUBLE FROM cheapest_offer
                                  WHERE gpu_model = 'B200' AND gpu_count = 8 AND billing = 'on-demand'""").fetchall()
        shade = con.execute("""SELECT min(price_per_hour)::DOUBLE, bool_and(is_aggregator) FROM latest_offers
                               WHERE provider = 'shadeform' AND gpu_model = 'B200' AND gpu_count = 8""").fetchall()
    finally:
        con.close()
    # Lambda's own 8x B200 at $6.69/GPU-h = $53.52/h (the same price Shadeform re-publishes as 5352 ¢).
    assert cheapest == [("lambda_cloud", 53.52)]
    assert shade == [(29.92, True)]  # stored, just never "a provider" of its own


def test_replay_of_the_shipped_capture(crawl):
    result = crawl("shadeform", CAPTURES / "2026-08-22" / "shadeform.warc.gz")
    assert judge.judge_crawl(result).status == "ok"
    assert len(result.items) == 99 and all(i["is_aggregator"] for i in result.items)
    b200 = by_sku(result)["lambdalabs:B200_sxm6x8"]
    assert (b200["price_per_hour"], b200["price_per_gpu_hour"], b200["gpu_count"]) == (53.52, 6.69, 8)
    assert b200["capture"]["source_url"] == URL and b200["capture"]["captured_at"].startswith("2026-08-22T12:00:00")
