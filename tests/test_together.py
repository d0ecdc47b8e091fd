"""Together AI spider on its recorded 2026-10-29 pricing page (Webflow HTML, per GPU-hour)."""

from pricewatch import collect
from tests.conftest import CAPTURES, source_exchanges

CAPTURE = CAPTURES / "2026-10-29" / "together.warc.gz"


def by_key(result):
    return {i["offer_key"]: i for i in result.items}


def test_gpu_cluster_tiers_are_read_by_column_name(crawl):
    offers = by_key(crawl("together", CAPTURE))
    # RESEARCH 2026-10-06: H100 $3.99 on-demand / $1.99 preemptible / $3.19 reserved, H200 $5.99.
    h100 = {t: offers[f"NVIDIA HGX H100 {t}"] for t in ("on-demand", "preemptible", "reserved")}
    assert {t: o["price_per_gpu_hour"] for t, o in h100.items()} == {
        "on-demand": 3.99, "preemptible": 1.99, "reserved": 3.19}
    assert {t: o["billing"] for t, o in h100.items()} == {
        "on-demand": "on-demand", "preemptible": "spot", "reserved": "reserved"}
    assert offers["NVIDIA HGX H200 on-demand"]["price_per_gpu_hour"] == 5.99
    # "All prices are per GPU per hour" and no count is stated: one GPU per offer.
    assert {(i["gpu_count"], i["price_unit"]) for i in offers.values()} == {(1, "gpu_hour")}
    assert offers["NVIDIA HGX H200 on-demand"]["price_per_hour"] == 5.99


def test_b200_takes_the_cluster_price_not_the_dedicated_inference_twin(crawl):
    body = source_exchanges("2026-10-29", "together")[0]["body"]
    twin = (b'<span>HGX B200</span></p></td><td class="is-right-border"><div class="opacity-70">'
            b'<p data-batch="" class="body-m text-weight-medium">$')
    assert body.count(twin) == 2 and b"$8.99" in body  # the trap really is on the page
    result = crawl("together", CAPTURE)
    b200 = [i for i in result.items if i["gpu_model"] == "B200"]
    assert [(i["offer_key"], i["price_per_gpu_hour"]) for i in b200] == [("NVIDIA HGX B200 on-demand", 8.19)]
    assert result.report["conflicting_duplicates"] == []


def test_b200_256_gpu_minimum_is_not_self_service(crawl):
    offers = by_key(crawl("together", CAPTURE))
    # The page: "HGX B200 clusters: 256-GPU minimum." (PROVIDERS.md §18).
    assert offers["NVIDIA HGX B200 on-demand"]["self_service"] is False
    assert offers["NVIDIA HGX H100 on-demand"]["self_service"] is True


def test_dash_is_not_offered_and_contact_us_is_unpriced(crawl):
    offers = by_key(crawl("together", CAPTURE))
    assert "NVIDIA HGX H200 preemptible" not in offers and "NVIDIA GB200 NVL72 on-demand" not in offers
    gb200 = offers["NVIDIA GB200 NVL72 reserved"]
    assert (gb200["is_priced"], gb200["price_text"], gb200["self_service"]) == (False, "Contact us", False)
    assert len(offers) == 6


def test_nothing_after_the_sandbox_anchor_is_read(crawl, make_warc):
    ex = source_exchanges("2026-10-29", "together")
    # Move the sandbox anchor right after the clusters anchor: the cluster table now lies past
    # the end of the section, so it must not be read (and an empty section is a failure).
    body = ex[0]["body"].replace(b'<div id="sandbox" class="section-anchor"></div>', b"")
    ex[0]["body"] = body.replace(b'<div id="gpu-clusters" class="section-anchor"></div>',
                                 b'<div id="gpu-clusters" class="section-anchor"></div>'
                                 b'<div id="sandbox" class="section-anchor"></div>')
    outcome = collect.judge_crawl(crawl("together", make_warc(ex)))
    assert outcome.status == "failed" and outcome.offers == []
    assert "together" in outcome.error


def test_missing_section_anchor_fails_naming_it(crawl, make_warc):
    ex = source_exchanges("2026-10-29", "together")
    ex[0]["body"] = ex[0]["body"].replace(b'id="gpu-clusters"', b'id="clusters"')
    outcome = collect.judge_crawl(crawl("together", make_warc(ex)))
    assert outcome.status == "failed"
    assert "together" in outcome.error and "gpu-clusters" in outcome.error
    assert outcome.offers == []


def test_missing_unit_note_fails_instead_of_assuming_per_gpu(crawl, make_warc):
    ex = source_exchanges("2026-10-29", "together")
    ex[0]["body"] = ex[0]["body"].replace(b"All prices are per GPU per hour", b"All prices are per node per hour")
    outcome = collect.judge_crawl(crawl("together", make_warc(ex)))
    assert outcome.status == "failed"
    assert "together" in outcome.error and "per GPU per hour" in outcome.error
