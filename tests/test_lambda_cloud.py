"""Lambda spider on the REAL recorded lambda.ai/pricing (2026-08-22, excerpt: the two pricing
islands + window.__islands blobs; tests/real/lambda/SOURCE.md). Expected values are read off the
recorded markup (quoted) or SOURCE.md's asserted values, never off the parser's output."""

import pytest

from pricewatch.collect import crawl_process, judge
from spiders.lambda_cloud import parse_pricing
from tests.conftest import CAPTURES, CAPTURES_SRC, ROOT
from tests.inprocess import by_key, run_parsed

URL = "https://lambda.ai/pricing"
BODY = CAPTURES_SRC / "2026-08-22" / "lambda_cloud" / "pricing.html"
CAPTURE = CAPTURES / "2026-08-22" / "lambda_cloud.warc.gz"


@pytest.fixture(scope="module")
def page() -> str:
    return BODY.read_text(encoding="utf-8")


def run(text: str) -> crawl_process.CrawlResult:
    return run_parsed("lambda_cloud", parse_pricing(text, URL), url=URL)


def failed(text: str) -> judge.ProviderOutcome:
    outcome = judge.judge_crawl(run(text))
    assert outcome.status == "failed"
    assert outcome.error.startswith("lambda_cloud:")
    return outcome


def ondemand(result):
    return [i for i in result.items if i["billing"] == "on-demand"]


def test_the_shipped_capture_is_the_real_recording():
    assert BODY.read_bytes() == (ROOT / "tests" / "real" / "lambda" / "pricing.html").read_bytes()


def test_every_on_demand_row_is_an_offer_with_its_tab_gpu_count(page):
    # SOURCE.md: "22 on-demand instance rows". Counted in the markup: tab 8x has B200 SXM6,
    # H100 SXM, A100 SXM (80 GB), A100 SXM (40 GB), Tesla V100; 4x and 2x have B200 SXM6,
    # H100 SXM, A100 PCIe, A6000; 1x has 9 rows (B200 SXM6 ... Quadro RTX 6000).
    result = run(page)
    offers = ondemand(result)
    assert len(offers) == 22
    per_tab = {n: sum(1 for o in offers if o["gpu_count"] == n) for n in (8, 4, 2, 1)}
    assert per_tab == {8: 5, 4: 4, 2: 4, 1: 9}
    assert {o["price_unit"] for o in offers} == {"gpu_hour"}
    assert all(o["self_service"] and o["tier"] == "on-demand" and o["currency"] == "USD" for o in offers)
    assert result.report["duplicates_dropped"] == 0 and result.report["conflicting_duplicates"] == []
    assert judge.judge_crawl(result).status == "ok"


def test_b200_is_priced_per_gpu_at_each_tab_count(page):
    # SOURCE.md: NVIDIA B200 SXM6: 8x $6.69, 4x $6.79, 2x $6.89, 1x $6.99 (180 GB).
    # Markup (8x tab): <td data-label="VRAM/GPU">180 GB</td><td data-label="vCPUs">208</td>
    #   ... <td data-label="PRICE/GPU/HR*">$6.69</td>
    b200 = {o["gpu_count"]: o for o in ondemand(run(page)) if o["gpu_label"] == "NVIDIA B200 SXM6"}
    assert {n: o["price_per_gpu_hour"] for n, o in b200.items()} == {8: 6.69, 4: 6.79, 2: 6.89, 1: 6.99}
    # Per GPU-hour times the tab's GPU count: 8 x 6.69 = 53.52 for the 8x instance.
    assert {n: o["price_per_hour"] for n, o in b200.items()} == {8: 53.52, 4: 27.16, 2: 13.78, 1: 6.99}
    assert {(o["gpu_model"], o["form_factor"], o["vram_gb"]) for o in b200.values()} == {("B200", "SXM", 180)}


def test_two_a100_sxm_rows_of_the_8x_tab_are_two_offers_told_apart_by_vram(page):
    # The reported defect: SOURCE.md "Two 'NVIDIA A100 SXM' rows in the 8x tab: 80 GB $2.79,
    # 40 GB $1.99". Markup: data-plan="NVIDIA A100 SXM" ... VRAM/GPU 80 GB ... $2.79 and
    # data-plan="NVIDIA A100 SXM" ... VRAM/GPU 40 GB ... $1.99. A key without VRAM saw one
    # offer with two prices and failed the whole provider.
    result = run(page)
    a100 = {o["vram_gb"]: o for o in ondemand(result)
            if o["gpu_label"] == "NVIDIA A100 SXM" and o["gpu_count"] == 8}
    assert {v: o["price_per_gpu_hour"] for v, o in a100.items()} == {80: 2.79, 40: 1.99}
    assert a100[80]["offer_key"] != a100[40]["offer_key"]
    assert a100[80]["form_factor"] == a100[40]["form_factor"] == "SXM"
    assert result.report["conflicting_duplicates"] == []
    # The 1x tab's A100 SXM is 40 GB ($1.99, 30 vCPUs): its own offer.
    one = [o for o in ondemand(result) if o["gpu_label"] == "NVIDIA A100 SXM" and o["gpu_count"] == 1]
    assert [(o["vram_gb"], o["price_per_gpu_hour"]) for o in one] == [(40, 1.99)]


def test_other_named_rows_keep_label_vram_and_price(page):
    offers = {(o["gpu_label"], o["gpu_count"]): o for o in ondemand(run(page))}
    # SOURCE.md: Tesla V100 8x $0.79; GH200 1x $2.29 (96 GB); Quadro RTX 6000 1x $0.69.
    # Markup: V100 "16 GB", Quadro RTX 6000 "24 GB"; H100 SXM 8x $3.99, H100 PCIe 1x $3.29 (80 GB).
    expect = {("NVIDIA Tesla V100", 8): (16, 0.79), ("NVIDIA GH200", 1): (96, 2.29),
              ("NVIDIA Quadro RTX 6000", 1): (24, 0.69), ("NVIDIA H100 SXM", 8): (80, 3.99),
              ("NVIDIA H100 PCIe", 1): (80, 3.29), ("NVIDIA A10", 1): (24, 1.29),
              ("NVIDIA A6000", 4): (48, 1.09), ("NVIDIA A100 PCIe", 2): (40, 1.99)}
    assert {k: (offers[k]["vram_gb"], offers[k]["price_per_gpu_hour"]) for k in expect} == expect
    assert offers[("NVIDIA H100 SXM", 8)]["form_factor"] == "SXM"
    assert offers[("NVIDIA H100 PCIe", 1)]["form_factor"] == "PCIe"
    assert offers[("NVIDIA GH200", 1)]["gpu_model"] == "GH200"


def test_a_label_the_catalog_does_not_know_is_news_not_a_failure(page):
    # A GPU Lambda might list tomorrow: the real row of the Quadro RTX 6000, renamed.
    assert page.count('data-plan="NVIDIA Quadro RTX 6000"') == 1
    result = run(page.replace('data-plan="NVIDIA Quadro RTX 6000"', 'data-plan="NVIDIA Zephyr Z9"'))
    assert result.report["unknown_labels"] == ["NVIDIA Zephyr Z9"]
    new = [o for o in result.items if o["gpu_label"] == "NVIDIA Zephyr Z9"]
    assert [(o["gpu_model"], o["price_per_gpu_hour"]) for o in new] == [(None, 0.69)]
    assert judge.judge_crawl(result).status == "ok"


def test_one_click_clusters_are_reserved_sales_booked_offers_with_their_term(page):
    # SOURCE.md: "NVIDIA HGX B200 16 GPUs $9.86, 64 $9.36, '256+' $8.87 (duration '2 weeks –
    # 1 year'); NVIDIA H100 16 $6.16, 64 $5.85, 256 $5.54". Markup: <td data-label="DURATION">
    # 2 weeks – 1 year</td><td data-label="GPU COUNT">256+</td> ... "Talk to our team".
    clusters = [o for o in run(page).items if o["billing"] == "reserved"]
    got = {(o["gpu_label"], o["gpu_count"]): o["price_per_gpu_hour"] for o in clusters}
    assert got == {("NVIDIA HGX B200", 16): 9.86, ("NVIDIA HGX B200", 64): 9.36, ("NVIDIA HGX B200", 256): 8.87,
                   ("NVIDIA H100", 16): 6.16, ("NVIDIA H100", 64): 5.85, ("NVIDIA H100", 256): 5.54}
    assert {o["reserved_term"] for o in clusters} == {"2 weeks – 1 year"}
    assert {o["self_service"] for o in clusters} == {False}
    assert {o["price_unit"] for o in clusters} == {"gpu_hour"}
    # Per GPU-hour for the whole cluster: 16 x $9.86.
    assert {o["price_per_hour"] for o in clusters if o["gpu_count"] == 16} == {157.76, 98.56}


def test_unpriced_one_year_plus_rows_are_not_offers(page):
    # SOURCE.md: 2 committed rows "1 year+" have an em-dash price cell. Markup:
    # <td data-label="DURATION">1 year+</td><td data-label="GPU COUNT">16+</td>
    # <td data-label="PRICE/GPU/HR*">—</td>
    assert '<td data-label="DURATION">1 year+</td>' in page
    result = run(page)
    assert all(o["reserved_term"] != "1 year+" for o in result.items)
    assert all(o["is_priced"] for o in result.items)
    assert len(result.items) == 22 + 6


def test_no_cluster_price_leaks_into_the_on_demand_offers(page):
    prices = {o["price_per_gpu_hour"] for o in ondemand(run(page))}
    assert not prices & {9.86, 9.36, 8.87, 6.16, 5.85, 5.54}


def test_the_islands_blob_copies_are_never_read(page):
    # SOURCE.md: "30 plain data-plan rows and 30 escaped data-plan=\"…\" copies".
    assert page.count('data-plan="') == 30 and page.count('data-plan=\\"') == 30
    # A stale copy in the blob (only it says $5.99) cannot change or conflict with the table.
    stale = page.replace('\\u003E$6.69\\u003C', '\\u003E$5.99\\u003C')
    assert stale != page
    result = run(stale)
    assert {o["price_per_gpu_hour"] for o in result.items if o["gpu_label"] == "NVIDIA B200 SXM6"
            and o["gpu_count"] == 8} == {6.69}
    assert result.report["duplicates_dropped"] == 0
    assert judge.judge_crawl(result).status == "ok"


def test_a_page_whose_rendered_tables_are_gone_does_not_fall_back_to_the_blob(page):
    # Cut the rendered on-demand island; its escaped copy in the script stays.
    start = page.index('<div data-hs-island="true" id="island-adac26na8ba91R19">')
    end = page.index("<script", start)
    outcome = failed(page[:start] + page[end:])
    assert 'no <tr data-plan> rows after "Instances pricing"' in outcome.error


def test_renamed_instances_heading_fails_naming_it(page):
    text = page.replace('<h2 class="h2">Instances pricing</h2>', '<h2 class="h2">On-demand instances</h2>')
    outcome = failed(text)
    assert '"Instances pricing"' in outcome.error and "On-demand instances" in outcome.error


def test_renamed_clusters_heading_fails_instead_of_dropping_its_offers(page):
    text = page.replace('<h2 class="h2">1-Click Clusters<br>pricing</h2>', '<h2 class="h2">Clusters</h2>')
    outcome = failed(text)
    assert "heading we do not know ('Clusters')" in outcome.error


def test_renamed_price_column_fails_instead_of_guessing_the_unit(page):
    # A redesign that prints instance prices: "PRICE/HR" must not be read as per GPU.
    outcome = failed(page.replace('data-label="PRICE/GPU/HR*"', 'data-label="PRICE/HR"'))
    assert "PRICE/GPU/HR" in outcome.error


def test_a_price_in_another_currency_holds_its_row(page):
    # One cell in another currency is one row that cannot be read (issue 20 item 2): that offer is
    # held unpriced with the text printed, the provider is suspect, the other rows load.
    result = run(page.replace('data-label="PRICE/GPU/HR*">$6.69<', 'data-label="PRICE/GPU/HR*">€6.69<'))
    outcome = judge.judge_crawl(result)
    assert outcome.status == "suspect"
    assert "'€6.69'" in outcome.error and "not a $ amount" in outcome.error and "1 of 28 row(s) held" in outcome.error
    [held] = [i for i in result.items if not i["is_priced"]]
    assert (held["gpu_label"], held["gpu_count"], held["price_raw"]) == ("NVIDIA B200 SXM6", 8, "€6.69")
    assert len(outcome.offers) == 28


def test_rows_without_vram_fail_naming_the_cell(page):
    # VRAM is part of the offer's identity (the two 8x A100 SXM rows): a row without it is an error.
    outcome = failed(page.replace('data-label="VRAM/GPU"', 'data-label="MEMORY"'))
    assert "VRAM/GPU" in outcome.error


def test_tabs_that_no_longer_name_a_gpu_count_fail(page):
    text = page
    for n in (8, 4, 2, 1):
        text = text.replace(f'tab-button">{n}x</button>', f'tab-button">{n} GPUs</button>')
    outcome = failed(text)
    assert "do not name a GPU count" in outcome.error and "'8 GPUs'" in outcome.error


def test_swapped_tab_labels_are_caught_by_the_vcpu_sizes(page):
    # The 8-GPU panel labelled "1x" and the 1-GPU panel "8x": every row still parses, but
    # 208 vCPUs for 1 B200 and 26 for 8 cannot both be right.
    text = (page.replace('tab-button">8x</button>', "@@").replace('tab-button">1x</button>', 'tab-button">8x</button>')
            .replace("@@", 'tab-button">1x</button>'))
    outcome = failed(text)
    assert "vCPUs" in outcome.error


def test_replay_of_the_real_capture(crawl):
    result = crawl("lambda_cloud", CAPTURE)
    assert judge.judge_crawl(result).status == "ok"
    offers = by_key(result)
    assert len(offers) == 28
    b200 = [o for o in offers.values() if o["gpu_label"] == "NVIDIA B200 SXM6" and o["gpu_count"] == 8]
    assert [(o["price_per_gpu_hour"], o["price_per_hour"]) for o in b200] == [(6.69, 53.52)]
    a100 = sorted((o["vram_gb"], o["price_per_gpu_hour"]) for o in offers.values()
                  if o["gpu_label"] == "NVIDIA A100 SXM" and o["gpu_count"] == 8)
    assert a100 == [(40, 1.99), (80, 2.79)]
    assert all(o["capture"]["captured_at"].startswith("2026-08-22") for o in offers.values())
