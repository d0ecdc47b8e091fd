"""Massed Compute spider on its recorded 2026-10-29 pricing page (Next.js flight data)."""

from pricewatch import collect
from tests.conftest import CAPTURES, source_exchanges

CAPTURE = CAPTURES / "2026-10-29" / "massed_compute.warc.gz"


def by_key(result):
    return {i["offer_key"]: i for i in result.items}


def test_reads_the_cited_8x_b200_price_per_instance_and_per_gpu(crawl):
    result = crawl("massed_compute", CAPTURE)
    b200 = by_key(result)["B200 SXM6 x8"]
    # Published page 1, 2026-10-29: "8x B200 $43.46/h at Massed Compute ($5.4325 per GPU)".
    assert b200["price_per_hour"] == 43.46
    assert b200["price_per_gpu_hour"] == 5.4325
    assert (b200["gpu_model"], b200["gpu_count"], b200["form_factor"], b200["tier"]) == ("B200", 8, "SXM", "on-demand")


def test_other_rows_match_their_dated_values_and_form_factors(crawl):
    offers = by_key(crawl("massed_compute", CAPTURE))
    # PROVIDERS.md dated values: H100 SXM5 8x $25.12 ($3.14/GPU), H100 (80GB) 1x $2.73,
    # H100 NVL $3.11, A100 80GB $1.35.
    assert offers["H100 SXM5 x8"]["price_per_gpu_hour"] == 3.14
    assert offers["H100 (80GB) x1"]["price_per_hour"] == 2.73
    # "H100 (80GB)" does not say SXM or PCIe; NVL is kept apart, with its 94 GB.
    assert offers["H100 (80GB) x1"]["form_factor"] == "unknown"
    assert (offers["H100 NVL x1"]["form_factor"], offers["H100 NVL x1"]["vram_gb"]) == ("NVL", 94)
    assert offers["A100 80GB x1"]["price_per_hour"] == 1.35


def test_each_row_printed_twice_is_one_offer(crawl):
    result = crawl("massed_compute", CAPTURE)
    keys = [i["offer_key"] for i in result.items]
    assert len(keys) == len(set(keys)) == 8
    assert result.report["duplicates_dropped"] == 8  # the mobile cards


def test_contact_us_and_unresolved_reference_are_unpriced_not_zero_and_steal_no_price(crawl):
    offers = by_key(crawl("massed_compute", CAPTURE))
    b300, l40s = offers["B300 SXM6 x8"], offers["L40S x1"]
    assert b300["is_priced"] is False and b300["price_per_hour"] is None
    assert b300["price_text"] == "Contact us"
    assert l40s["is_priced"] is False and "$L2f" in l40s["price_text"]
    judged = collect.judge_crawl(crawl("massed_compute", CAPTURE))
    assert judged.status == "ok"


def test_page_without_flight_data_fails_naming_provider_and_what_is_missing(crawl, make_warc):
    ex = source_exchanges("2026-10-29", "massed_compute")
    # A redesign that renders the table client-side: no self.__next_f.push in the HTML.
    ex[0]["body"] = b"<html><body><div id='__next'>Loading prices...</div></body></html>"
    outcome = collect.judge_crawl(crawl("massed_compute", make_warc(ex)))
    assert outcome.status == "failed"
    assert "massed_compute" in outcome.error and "self.__next_f.push" in outcome.error
    assert outcome.offers == []


def test_flight_data_without_offer_rows_fails(crawl, make_warc):
    ex = source_exchanges("2026-10-29", "massed_compute")
    # Row keys renamed (e.g. "gpu-row-0"): the parser must not guess.
    ex[0]["body"] = ex[0]["body"].replace(b"-x 8-0", b"_row8").replace(b"-x 1-", b"_row1_").replace(b"-x 8-", b"_row8_")
    outcome = collect.judge_crawl(crawl("massed_compute", make_warc(ex)))
    assert outcome.status == "failed"
    assert "no offer rows" in outcome.error
