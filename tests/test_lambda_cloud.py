"""Lambda spider on its recorded 2026-10-29 pricing page (HubSpot HTML, per GPU-hour)."""

from pricewatch import collect
from tests.conftest import CAPTURES, source_exchanges

CAPTURE = CAPTURES / "2026-10-29" / "lambda_cloud.warc.gz"


def by_key(result):
    return {i["offer_key"]: i for i in result.items}


def test_each_tab_prices_the_same_plan_at_its_own_gpu_count(crawl):
    offers = by_key(crawl("lambda_cloud", CAPTURE))
    # PROVIDERS.md §3: B200 SXM6 8x $6.69 / 4x $6.79 / 2x $6.89 / 1x $6.99 per GPU-hour.
    b200 = {n: offers[f"{n}x NVIDIA B200 SXM6"] for n in (8, 4, 2, 1)}
    assert {n: o["price_per_gpu_hour"] for n, o in b200.items()} == {8: 6.69, 4: 6.79, 2: 6.89, 1: 6.99}
    assert {n: o["gpu_count"] for n, o in b200.items()} == {8: 8, 4: 4, 2: 2, 1: 1}
    # The page prints per GPU; the instance price is the 8 GPUs together.
    assert b200[8]["price_per_hour"] == 53.52
    assert (b200[8]["gpu_model"], b200[8]["form_factor"], b200[8]["vram_gb"]) == ("B200", "SXM", 180)
    assert b200[8]["price_unit"] == "gpu_hour"


def test_h100_rows_keep_their_form_factor(crawl):
    offers = by_key(crawl("lambda_cloud", CAPTURE))
    # RATECARD 2026-07: H100 SXM 8x $3.99, H100 PCIe 1x $3.29 per GPU-hour.
    sxm, pcie = offers["8x NVIDIA H100 SXM"], offers["1x NVIDIA H100 PCIe"]
    assert (sxm["price_per_gpu_hour"], sxm["gpu_count"], sxm["form_factor"]) == (3.99, 8, "SXM")
    assert (pcie["price_per_gpu_hour"], pcie["gpu_count"], pcie["form_factor"]) == (3.29, 1, "PCIe")


def test_islands_blob_copy_is_not_counted_twice(crawl):
    body = source_exchanges("2026-10-29", "lambda_cloud")[0]["body"]
    # The trap is really in the capture: every row again, unicode-escaped, in window.__islands.
    assert body.count(b'\\u003ctr data-plan=\\"NVIDIA B200 SXM6\\"') == 4
    result = crawl("lambda_cloud", CAPTURE)
    assert len(result.items) == 6
    assert result.report["duplicates_dropped"] == 0  # the copy was never read, not read and folded


def test_a_stale_islands_copy_cannot_change_or_conflict_with_the_table(crawl, make_warc):
    ex = source_exchanges("2026-10-29", "lambda_cloud")
    html, blob = ex[0]["body"].split(b"window.__islands", 1)
    # Only the escaped copy says $5.99: the rendered table must win, with no conflict.
    ex[0]["body"] = html + b"window.__islands" + blob.replace(b"$6.69", b"$5.99")
    result = crawl("lambda_cloud", make_warc(ex))
    assert by_key(result)["8x NVIDIA B200 SXM6"]["price_per_gpu_hour"] == 6.69
    assert collect.judge_crawl(result).status == "ok"


def test_one_click_clusters_table_before_the_anchor_is_not_an_offer(crawl):
    body = source_exchanges("2026-10-29", "lambda_cloud")[0]["body"]
    assert b'<tr data-plan="NVIDIA HGX B200">' in body  # the committed table is on the page
    result = crawl("lambda_cloud", CAPTURE)
    assert all(i["gpu_label"] != "NVIDIA HGX B200" for i in result.items)
    assert {i["billing"] for i in result.items} == {"on-demand"}
    assert 9.86 not in {i["price_per_gpu_hour"] for i in result.items}


def test_no_lambda_8x_b200_undercuts_the_cited_cheapest(crawl):
    # CLAIMS.md g-cite-massed-b200x8: $43.46/h at Massed Compute is the cheapest on 2026-10-29.
    offers = [i for i in crawl("lambda_cloud", CAPTURE).items
              if i["gpu_model"] == "B200" and i["gpu_count"] == 8 and i["billing"] == "on-demand"]
    assert offers and all(i["self_service"] and i["price_per_hour"] > 43.46 for i in offers)


def test_page_without_the_instances_heading_fails_naming_it(crawl, make_warc):
    ex = source_exchanges("2026-10-29", "lambda_cloud")
    ex[0]["body"] = ex[0]["body"].replace(b'<h2 class="h2">Instances pricing</h2>',
                                          b'<h2 class="h2">On-demand instances</h2>')
    outcome = collect.judge_crawl(crawl("lambda_cloud", make_warc(ex)))
    assert outcome.status == "failed"
    assert "lambda_cloud" in outcome.error and "Instances pricing" in outcome.error
    assert outcome.offers == []


def test_renamed_price_column_fails_instead_of_guessing_the_unit(crawl, make_warc):
    ex = source_exchanges("2026-10-29", "lambda_cloud")
    # A redesign that prints instance prices: "PRICE/HR" must not be read as per GPU.
    ex[0]["body"] = ex[0]["body"].replace(b'data-label="PRICE/GPU/HR*"', b'data-label="PRICE/HR"')
    outcome = collect.judge_crawl(crawl("lambda_cloud", make_warc(ex)))
    assert outcome.status == "failed"
    assert "lambda_cloud" in outcome.error and "PRICE/GPU/HR" in outcome.error


def test_tabs_that_no_longer_name_a_gpu_count_fail(crawl, make_warc):
    ex = source_exchanges("2026-10-29", "lambda_cloud")
    body = ex[0]["body"]
    for n in (8, 4, 2, 1):
        body = body.replace(f'tabindex="{0 if n == 8 else -1}">{n}x</button>'.encode(),
                            f'tabindex="{0 if n == 8 else -1}">{n} GPUs</button>'.encode())
    ex[0]["body"] = body
    outcome = collect.judge_crawl(crawl("lambda_cloud", make_warc(ex)))
    assert outcome.status == "failed"
    assert "lambda_cloud" in outcome.error and "tab" in outcome.error


def test_swapped_tab_labels_are_caught_by_the_vcpu_sizes(crawl, make_warc):
    ex = source_exchanges("2026-10-29", "lambda_cloud")
    # A redesign that labels the 8-GPU panel "1x" and the 1-GPU panel "8x": every row would
    # still parse, but 208 vCPUs for 1 GPU and 26 for 8 GPUs cannot both be right.
    ex[0]["body"] = (ex[0]["body"].replace(b">8x</button>", b">@@</button>")
                     .replace(b">1x</button>", b">8x</button>").replace(b">@@</button>", b">1x</button>"))
    outcome = collect.judge_crawl(crawl("lambda_cloud", make_warc(ex)))
    assert outcome.status == "failed"
    assert "lambda_cloud" in outcome.error and "vCPUs" in outcome.error
    assert outcome.offers == []
