"""Verda spider on its recorded 2026-10-29 pricing page (schema.org Offers in JSON-LD)."""

import json
import re

from pricewatch import collect
from tests.conftest import CAPTURES, source_exchanges

CAPTURE = CAPTURES / "2026-10-29" / "verda.warc.gz"


def by_key(result):
    return {i["offer_key"]: i for i in result.items}


def with_offers_graph(body: bytes, edit) -> bytes:
    """The page with its @graph JSON-LD block rewritten by ``edit(graph) -> graph``."""
    html = body.decode()
    block = re.search(r'<script type="application/ld\+json">(\{"@context":"https://schema.org","@graph".*?)</script>', html)
    doc = json.loads(block[1])
    doc["@graph"] = edit(doc["@graph"])
    return html.replace(block[1], json.dumps(doc)).encode()


def test_1x_instances_match_the_dated_on_demand_and_spot_prices(crawl):
    offers = by_key(crawl("verda", CAPTURE))
    # PROVIDERS.md §8, 2026-10-06: H100 SXM5 $3.81 / spot $1.91, H200 SXM5 $4.97 / $2.49,
    # B200 SXM6 $7.20 / $3.60 (1x: one GPU, so per instance-hour = per GPU-hour).
    expected = {"H100 SXM5 80GB": (3.81, 1.91), "H200 SXM5 141GB": (4.97, 2.49), "B200 SXM6 180GB": (7.20, 3.60)}
    for label, (on_demand, spot) in expected.items():
        od, sp = offers[f"1x {label} on-demand"], offers[f"1x {label} spot"]
        assert (od["price_per_hour"], od["price_per_gpu_hour"], od["gpu_count"]) == (on_demand, on_demand, 1)
        assert (od["billing"], od["tier"]) == ("on-demand", "on-demand")
        assert (sp["price_per_gpu_hour"], sp["billing"], sp["tier"]) == (spot, "spot", "spot")
        assert od["gpu_label"] == label and od["form_factor"] == "SXM" and od["currency"] == "USD"


def test_8x_instant_clusters_are_priced_per_node_hour(crawl):
    offers = by_key(crawl("verda", CAPTURE))
    # PROVIDERS.md §8 (2026-07): 8x H200 $32.00, 8x B200 $48.88, 8x B300 $60.00 per node-hour.
    for label, node_hour in (("H200 SXM5 141GB", 32.00), ("B200 SXM6 180GB", 48.88), ("B300 SXM6 268GB", 60.00)):
        o = offers[f"8x {label} instant cluster"]
        assert (o["gpu_count"], o["price_unit"], o["price_per_hour"]) == (8, "instance_hour", node_hour)
        assert o["price_per_gpu_hour"] == round(node_hour / 8, 4)
        assert (o["billing"], o["tier"], o["self_service"]) == ("on-demand", "instant cluster", True)
    # The catalog keeps Verda's B300 at the 268 GB it states, not the model's 288.
    assert offers["8x B300 SXM6 268GB instant cluster"]["vram_gb"] == 268


def test_no_self_service_on_demand_8x_b200_at_or_below_massed_computes_43_46(crawl):
    # Published claim g-cite-massed-b200x8: cheapest 8x B200 on 2026-10-29 is $43.46/h.
    eight_b200 = [o for o in crawl("verda", CAPTURE).items
                  if o["gpu_model"] == "B200" and o["gpu_count"] == 8 and o["billing"] == "on-demand"]
    assert [o["price_per_hour"] for o in eight_b200] == [48.88]


def test_serverless_and_cpu_only_offers_are_not_gpu_rentals(crawl):
    result = crawl("verda", CAPTURE)
    page = source_exchanges("2026-10-29", "verda")[0]["body"].decode()
    # The page does list them (a naive reader would take "serverless spot" as B300 spot at $4.13).
    assert '"1x B300 SXM6 268GB serverless spot"' in page and '" on-demand"' in page
    assert not [i for i in result.items if "serverless" in i["offer_key"] or not i["gpu_label"].strip()]
    assert not [i for i in result.items if i["gpu_model"] == "B300" and i["billing"] == "spot"]
    b200_8x = [i["offer_key"] for i in result.items if i["gpu_label"] == "B200 SXM6 180GB" and i["gpu_count"] == 8]
    assert b200_8x == ["8x B200 SXM6 180GB instant cluster"]  # not the $53.77 serverless container


def test_offers_repeated_by_the_featured_grid_count_once(crawl):
    result = crawl("verda", CAPTURE)
    keys = [i["offer_key"] for i in result.items]
    assert len(keys) == len(set(keys)) == 11
    assert result.report["duplicates_dropped"] == 2  # the featured H100 on-demand + spot


def test_gb300_lookalike_is_not_a_b300(crawl):
    gb300 = by_key(crawl("verda", CAPTURE))["1x GB300 SXM6 288GB on-demand"]
    assert (gb300["gpu_model"], gb300["price_per_hour"], gb300["vram_gb"]) == ("GB300", 8.62, 288)
    assert collect.judge_crawl(crawl("verda", CAPTURE)).warnings == []


def test_page_without_json_ld_fails_naming_provider_and_what_is_missing(crawl, make_warc):
    ex = source_exchanges("2026-10-29", "verda")
    # A redesign that drops the structured data: prices only in the visible tables.
    ex[0]["body"] = re.sub(rb'<script type="application/ld\+json">.*?</script>', b"", ex[0]["body"], flags=re.S)
    outcome = collect.judge_crawl(crawl("verda", make_warc(ex)))
    assert outcome.status == "failed"
    assert "verda" in outcome.error and "application/ld+json" in outcome.error
    assert outcome.offers == []


def test_json_ld_without_offers_fails(crawl, make_warc):
    ex = source_exchanges("2026-10-29", "verda")
    # Organization and BreadcrumbList survive; the offer graph is gone.
    ex[0]["body"] = with_offers_graph(ex[0]["body"], lambda g: [n for n in g if n["@type"] != "Offer"])
    outcome = collect.judge_crawl(crawl("verda", make_warc(ex)))
    assert outcome.status == "failed"
    assert "verda" in outcome.error and "no schema.org Offer" in outcome.error


def test_offer_names_without_gpu_count_fail_instead_of_guessing(crawl, make_warc):
    ex = source_exchanges("2026-10-29", "verda")

    def drop_counts(graph):
        for n in graph:
            if n["@type"] == "Offer":
                n["name"] = re.sub(r"^\d+x ", "", n["name"])
        return graph

    ex[0]["body"] = with_offers_graph(ex[0]["body"], drop_counts)
    outcome = collect.judge_crawl(crawl("verda", make_warc(ex)))
    assert outcome.status == "failed"
    assert "'B200 SXM6 180GB instant cluster' has no leading '<N>x ' GPU count" in outcome.error


def test_description_contradicting_the_name_fails(crawl, make_warc):
    ex = source_exchanges("2026-10-29", "verda")

    def relabel(graph):
        for n in graph:
            if n.get("name") == "1x B200 SXM6 180GB spot":
                n["description"] = "Hourly on-demand instance price"
        return graph

    ex[0]["body"] = with_offers_graph(ex[0]["body"], relabel)
    outcome = collect.judge_crawl(crawl("verda", make_warc(ex)))
    assert outcome.status == "failed"
    assert "'1x B200 SXM6 180GB spot' is described as 'Hourly on-demand instance price'" in outcome.error
