"""Civo on its REAL recorded pricing page (www.civo.com/pricing, recorded 2026-08-22, an excerpt:
the NVIDIA GPUs section between two look-alike tables; see tests/real/civo/SOURCE.md and
captures/src/2026-08-22/civo/exchanges.yaml).

Expected values are read off the recorded document (snippets quoted) or SOURCE.md's asserted
values, never off the parser's output. Prices are USD per instance-hour: each row is a size of
N GPUs ("8 x NVIDIA H100 - 80GB" ... "$23.92<span>per hour</span>").
"""

from collections import Counter

import pytest

from pricewatch.collect import crawl_process, judge
from spiders.civo import parse_pricing
from tests.conftest import CAPTURES_SRC, shipped
from tests.inprocess import run_parsed

URL = "https://www.civo.com/pricing"
BODY = (CAPTURES_SRC / "2026-08-22" / "civo" / "pricing.html").read_text(encoding="utf-8")


def run(body: str = BODY) -> crawl_process.CrawlResult:
    return run_parsed("civo", parse_pricing(body, URL), url=URL)


def judged(body: str) -> judge.ProviderOutcome:
    return judge.judge_crawl(run(body))


@pytest.fixture(scope="module")
def offers() -> list[dict]:
    return run().items


def one(offers, label, count, billing, term=None):
    [match] = [o for o in offers if (o["gpu_label"], o["gpu_count"], o["billing"], o["reserved_term"])
               == (label, count, billing, term)]
    return match


def test_real_page_is_ok_with_83_prices(offers):
    outcome = judge.judge_crawl(run())
    assert (outcome.status, outcome.error) == ("ok", None)
    # SOURCE.md: "17 rows x 5 surfaces = 85, minus 2 genuine N/A (B200 on-demand and 6-month) = 83 prices."
    assert len(offers) == 83 and all(o["is_priced"] for o in offers)
    assert Counter(o["billing"] for o in offers) == {"on-demand": 16, "reserved": 67}
    assert Counter(o["reserved_term"] for o in offers if o["billing"] == "reserved") == {
        "6 months": 16, "12 months": 17, "24 months": 17, "36 months": 17}
    assert all((o["currency"], o["price_unit"]) == ("USD", "instance_hour") for o in offers)
    # SOURCE.md: labels NVIDIA L40S 48GB, A100 40GB, A100 80GB, H100 SXM, H200 SXM, B200 (the captions).
    assert {(o["gpu_label"], o["gpu_model"]) for o in offers} == {
        ("NVIDIA L40S 48GB", "L40S"), ("NVIDIA A100 40GB", "A100 40GB"), ("NVIDIA A100 80GB", "A100 80GB"),
        ("NVIDIA H100 SXM", "H100"), ("NVIDIA H200 SXM", "H200"), ("NVIDIA B200", "B200")}


def test_h200_small_on_demand_and_every_term(offers):
    # SOURCE.md: 'H200 SXM "Small" (1 x NVIDIA H200 - 141GB HBM3e): on-demand $3.49; 6 mo $3.29;
    # 12 mo $3.19; 24 mo $3.09; 36 mo $2.99.'
    h200 = one(offers, "NVIDIA H200 SXM", 1, "on-demand")
    assert (h200["price_per_hour"], h200["vram_gb"], h200["form_factor"], h200["self_service"]) == (3.49, 141, "SXM", True)
    for term, price in (("6 months", 3.29), ("12 months", 3.19), ("24 months", 3.09), ("36 months", 2.99)):
        assert one(offers, "NVIDIA H200 SXM", 1, "reserved", term)["price_per_hour"] == price


def test_prices_are_per_instance_hour(offers):
    # SOURCE.md: 'L40S "Extra Large" on-demand $10.32 = 8 x $1.29'; "8 x NVIDIA H100 - 80GB": $23.92.
    l40s = one(offers, "NVIDIA L40S 48GB", 8, "on-demand")
    assert (l40s["price_per_hour"], l40s["price_per_gpu_hour"]) == (10.32, 1.29)
    h100 = one(offers, "NVIDIA H100 SXM", 8, "on-demand")
    assert (h100["price_per_hour"], h100["price_per_gpu_hour"], h100["vram_gb"]) == (23.92, 2.99, 80)
    # SOURCE.md: "A100 40GB Small on-demand 1.09; A100 80GB Small on-demand 1.79" (same family, told apart).
    assert one(offers, "NVIDIA A100 40GB", 1, "on-demand")["price_per_hour"] == 1.09
    assert one(offers, "NVIDIA A100 80GB", 1, "on-demand")["price_per_hour"] == 1.79


def test_b200_is_commitment_only(offers):
    # '<div ... class="price-value">N/A<span>per hour</span></div>' in the B200 on-demand and
    # 6_months cells; SOURCE.md: "12 mo $35.92 (4.49/GPU), 24 mo $31.92 (3.99/GPU), 36 mo $30.32
    # (3.79/GPU). The headline "$3.79/GPU" is the 36-month price, not on-demand."
    b200 = [o for o in offers if o["gpu_label"] == "NVIDIA B200"]
    assert {o["billing"] for o in b200} == {"reserved"}
    assert {o["reserved_term"]: o["price_per_gpu_hour"] for o in b200} == {
        "12 months": 4.49, "24 months": 3.99, "36 months": 3.79}
    assert not [o for o in offers if o["price_text"] == "N/A"]


def test_monthly_copies_and_look_alike_tables_are_not_read(offers):
    # "$17,461.60<span>per month</span>" (8x H100 monthly, hidden); RAM Optimized "$0.107137 per hour";
    # Object store "$0.000015 per hour": none is an offer.
    assert "Civo RAM Optimized compute instance pricing" in BODY and "Object store pricing" in BODY
    figures = {o["price_per_hour"] for o in offers}
    assert not figures & {17461.60, 0.107137, 0.000015, 941.70}


# --- faults: each fails with a short message, never a false price ------------------------------

def test_a_switch_to_per_gpu_hour_fails():
    body = BODY.replace("$23.92<span>per hour</span>", "$2.99<span>per GPU hour</span>")
    outcome = judged(body)
    assert outcome.status == "failed" and outcome.offers == []
    assert "per GPU hour" in outcome.error and "NVIDIA H100 SXM" in outcome.error


def test_a_struck_through_old_price_is_never_read():
    # A "was" price beside the current one: only the current one is read.
    old = 'class="price-value">$1.29<span>per hour</span>'
    assert BODY.count(old) == 1
    body = BODY.replace(old, 'class="price-value"><s>$1.49</s>$1.29<span>per hour</span>')
    assert one(run(body).items, "NVIDIA L40S 48GB", 1, "on-demand")["price_per_hour"] == 1.29
    # A cell with only the struck price is held by name (issue 20 item 2): that offer, not the page.
    body = BODY.replace(old, 'class="price-value"><s>$1.29</s><span>per hour</span>')
    outcome = judged(body)
    assert outcome.status == "suspect" and "struck through only: $1.29" in outcome.error


def test_placeholder_price_text_holds_that_offer_the_others_load():
    # Issue 20 item 2. H200 SXM "Small" (<div class="product-detail">1 x NVIDIA H200 - 141GB HBM3e</div>),
    # On-demand: <div id="price-value-hourly" data-option="hourly" class="price-value">$3.49<span>per
    # hour</span></div>, changed to "TBA": that one offer is held (unpriced, "TBA" kept), the
    # provider suspect, the 82 other prices load as on the real page.
    real = run().items
    result = run(BODY.replace("$3.49<span>per hour</span>", "TBA<span>per hour</span>"))
    outcome = judge.judge_crawl(result)
    assert outcome.status == "suspect" and outcome.trusted
    assert "1 of 83 row(s) held" in outcome.error and "on-demand price cell unreadable: 'TBA'" in outcome.error
    held = one(result.items, "NVIDIA H200 SXM", 1, "on-demand")
    assert (held["is_priced"], held["price_raw"], held["price_per_hour"]) == (False, "TBA", None)
    others = sorted((o["offer_key"], o["price_per_hour"]) for o in result.items if o is not held)
    assert others == sorted((o["offer_key"], o["price_per_hour"]) for o in real if o["offer_key"] != held["offer_key"])
    assert all(o["is_priced"] for o in result.items if o is not held) and len(outcome.offers) == 83
    # the same row's 6-month price, read off the page: $3.29
    assert one(result.items, "NVIDIA H200 SXM", 1, "reserved", "6 months")["price_per_hour"] == 3.29


@pytest.mark.parametrize("old, new, named", [
    ('id="nvidia-gpus"', 'id="gpus"', 'section id="nvidia-gpus"'),
    ("<th width=\"15%\">On-demand</th>", "<th width=\"15%\">Hourly</th>", "On-demand"),
    ('<div class="product-detail">1 x NVIDIA H100 - 80GB</div>', '<div class="product-detail">NVIDIA H100</div>',
     "product detail"),
    ("Commitment - 12 months", "Commitment - 1 year", "1 year"),
    ("GPU pricing</caption>", "pricing</caption>", "caption"),
])
def test_layout_change_fails_naming_what_is_missing(old, new, named):
    assert old in BODY
    outcome = judged(BODY.replace(old, new))
    assert outcome.status == "failed" and outcome.offers == []
    assert "civo" in outcome.error and named in outcome.error


# --- the one real replay through the engine ----------------------------------------------------

def test_replay_of_the_real_capture(crawl):
    result = crawl("civo", shipped("civo"))
    assert judge.judge_crawl(result).status == "ok"
    assert len(result.items) == 83
    h100 = one(result.items, "NVIDIA H100 SXM", 8, "reserved", "36 months")
    # "8 x NVIDIA H100 - 80GB", <div id="36_months"> ... "$19.92<span>per hour</span>"
    assert (h100["price_per_hour"], h100["price_per_gpu_hour"]) == (19.92, 2.49)
    assert h100["capture"]["source_url"] == URL
    assert h100["capture"]["captured_at"].startswith("2026-08-22T12:00:00")
