"""Massed Compute on its REAL recorded pricing page (vm.massedcompute.com/pricing, Next.js RSC
flight strings, recorded 2026-08-22; an excerpt: the keyed row segments spliced, wrapped in the
page's Next.js document shell; see tests/real/massedcompute/SOURCE.md and
captures/src/2026-08-22/massed_compute/exchanges.yaml).

Expected values are read off the recorded document (snippets quoted, as they stand in the
JS-escaped push strings) or SOURCE.md's asserted values, never off the parser's output. Prices
are USD per instance-hour: ``\\"$$43.46\\",[... \\"children\\":\\"/hr\\"]`` for the row's
``[\\"×\\",\\"8\\"]`` badge; the page prints no per-GPU price.
"""

import json
import re

import pytest

from pricewatch.collect import crawl_process, judge
from spiders.massed_compute import flight_stream, parse_pricing
from tests.conftest import CAPTURES, CAPTURES_SRC, ROOT
from tests.inprocess import by_key, run_parsed

URL = "https://vm.massedcompute.com/pricing"
BODY = (CAPTURES_SRC / "2026-08-22" / "massed_compute" / "pricing.html").read_text(encoding="utf-8")
REAL = (ROOT / "tests" / "real" / "massedcompute" / "pricing_rsc_excerpt.html").read_text(encoding="utf-8")
CAPTURE = CAPTURES / "2026-08-22" / "massed_compute.warc.gz"


def run(body: str = BODY) -> crawl_process.CrawlResult:
    return run_parsed("massed_compute", parse_pricing(body, URL), url=URL)


def judged(body: str) -> judge.ProviderOutcome:
    return judge.judge_crawl(run(body))


def offer(offers, label, count, variant=None):
    [match] = [o for o in offers.values()
               if (o["gpu_label"], o["gpu_count"], o.get("variant")) == (label, count, variant)]
    return match


@pytest.fixture(scope="module")
def offers() -> dict[str, dict]:
    return by_key(run())


def test_capture_body_is_the_recording_inside_the_documented_envelope_only():
    prefix = ('<!DOCTYPE html><html lang="en"><head><meta charSet="utf-8"/></head><body>'
              '<script>(self.__next_f=self.__next_f||[]).push([0])</script><script>self.__next_f.push([1,"')
    assert BODY == prefix + REAL + '"])</script></body></html>'


def test_real_page_is_ok_25_offers_23_priced_each_printed_twice():
    result = run()
    outcome = judge.judge_crawl(result)
    assert (outcome.status, outcome.error) == ("ok", None)
    # SOURCE.md: "50 row keys, 23 distinct priced (label, count) rows"; + 2 "Request" rows.
    assert len(re.findall(r'-x \d+-\d+\\",\{', REAL)) == 50
    assert len(result.items) == 25
    assert sum(o["is_priced"] for o in result.items) == 23
    assert result.report["conflicting_duplicates"] == []
    # 50 copies; the B200 and H100 SXM5 desktop rows' cells are deferred chunks the excerpt
    # does not hold ("$L2f".."$L32", "$L81".."$L84"): 48 copies read, 23 second copies dropped.
    assert result.report["duplicates_dropped"] == 23
    assert all((o["billing"], o["tier"], o["currency"], o["price_unit"]) == ("on-demand", "on-demand", "USD",
                                                                          "instance_hour") for o in result.items)
    # The page prints no per-GPU price beside the node price.
    assert "/GPU" not in REAL and all(o.get("stated_per_gpu") is None for o in result.items)


def test_cited_8x_b200_from_the_mobile_card_while_desktop_cells_are_deferred(offers):
    # Mobile card: \"B200 SXM6-mobile-x 8-0\" ... [\"×\",\"8\"] ... [\"$$43.46\",[... \"/hr\"]]
    # Desktop row: \"B200 SXM6-x 8-0\" ... \"children\":\"280\"}],\"$L2f\",\"$L30\",\"$L31\",\"$L32\"
    assert '\\"children\\":\\"280\\"}],\\"$L2f\\",\\"$L30\\",\\"$L31\\",\\"$L32\\"' in REAL
    assert "\\n2f:" not in REAL and not REAL.startswith("2f:")
    b200 = offer(offers, "B200 SXM6", 8)
    assert b200["offer_key"] == "8x B200 SXM6 on-demand"
    # SOURCE.md: "B200 SXM6 ×8: 43.46 → 5.4325/GPU-h".
    assert (b200["price_per_hour"], b200["price_per_gpu_hour"]) == (43.46, 5.4325)
    assert (b200["gpu_model"], b200["form_factor"], b200["vram_gb"]) == ("B200", "SXM", 180.0)


@pytest.mark.parametrize("label,count,variant,node,per_gpu,vram,model,form", [
    # SOURCE.md: "B300 SXM6 ×8: 52.80 → 6.60/GPU-h"
    ("B300 SXM6", 8, None, 52.80, 6.60, 288.0, "B300", "SXM"),
    # "H100 SXM5 (80GB) ×8: 25.12 → 3.14 (mobile copy only)"
    ("H100 SXM5 (80GB)", 8, None, 25.12, 3.14, 80.0, "H100", "SXM"),
    # "H200 NVL (141GB) ×1: 3.62"
    ("H200 NVL (141GB)", 1, None, 3.62, 3.62, 141.0, "H200", "NVL"),
    # "H100 (80GB) ×1: 2.73" -- the label says neither SXM nor PCIe
    ("H100 (80GB)", 1, None, 2.73, 2.73, 80.0, "H100", "unknown"),
    # "H100 NVL (94GB) NVLink ×8: 23.36 → 2.92" (its mobile card is the deferred chunks 7c..7f)
    ("H100 NVL (94GB)", 8, "NVLink", 23.36, 2.92, 94.0, "H100", "NVL"),
    # "L40 (48GB) ×1: 0.86"
    ("L40 (48GB)", 1, None, 0.86, 0.86, 48.0, "L40", "unknown"),
    # \"H100 NVL-mobile-x 1-0\" ... \"$$3.11\"
    ("H100 NVL", 1, None, 3.11, 3.11, 94.0, "H100", "NVL"),
    # \"A100 (80GB)-x 1-0\" ... \"$$1.35\"
    ("A100 (80GB)", 1, None, 1.35, 1.35, 80.0, "A100 80GB", "unknown"),
])
def test_source_md_values(offers, label, count, variant, node, per_gpu, vram, model, form):
    o = offer(offers, label, count, variant)
    assert (o["price_per_hour"], o["price_per_gpu_hour"]) == (node, per_gpu)
    assert (o["vram_gb"], o["gpu_model"], o["form_factor"]) == (vram, model, form)


def test_request_rows_are_unpriced_and_the_deferred_23_36_between_them_is_not_borrowed(offers):
    # The trap: chunk 7d (\"$$23.36\", the H100 NVL (94GB) NVLink ×8 card's price) is printed
    # after the \"H100 (80GB)-x 8-3\" key and before the next row key.
    trap_key, chunk = REAL.find('H100 (80GB)-x 8-3\\"'), REAL.find("7d:[")
    next_key = re.compile(r'-x \d+-\d+\\",\{').search(REAL, trap_key + 20).start()
    assert trap_key < chunk < next_key and "$$23.36" in REAL[chunk:chunk + 300]
    for label in ("H100 (80GB)", "L40 (48GB)"):
        o = offer(offers, label, 8)
        # SOURCE.md: "H100 (80GB) ×8 and L40 (48GB) ×8: "Request" (contact-us, no price)".
        assert (o["is_priced"], o["price_per_hour"], o["price_text"], o["self_service"]) == (False, None, "Request", False)


def test_config_suffixes_are_variants_of_the_base_label_and_keep_distinct_keys(offers):
    # \"RTX A6000 (48GB)-x 1-0\" $$0.57 RAM 48 GB; \"RTX A6000 (48GB) [ALT Config]-x 1-0\" $$0.55 RAM 32 GB;
    # \"RTX A6000 (48GB) [Premium]-x 1-0\" $$0.57 RAM 96 GB; \"RTX A6000 (48GB) NVLink-x 2-0\" $$1.24.
    plain, alt, premium = (offer(offers, "RTX A6000 (48GB)", 1, v) for v in (None, "ALT Config", "Premium"))
    nvlink = offer(offers, "RTX A6000 (48GB)", 2, "NVLink")
    assert [o["price_per_hour"] for o in (plain, alt, premium, nvlink)] == [0.57, 0.55, 0.57, 1.24]
    assert len({o["offer_key"] for o in (plain, alt, premium, nvlink)}) == 4
    assert all(o["gpu_model"] == "RTX A6000" for o in (plain, alt, premium, nvlink))
    # \"H200 NVL (141GB) NVLink-x 4-0\" $$15.28
    h200 = offer(offers, "H200 NVL (141GB)", 4, "NVLink")
    assert (h200["price_per_hour"], h200["gpu_model"]) == (15.28, "H200")


def test_rtx_a6000_printed_in_both_copies_is_one_offer():
    # SOURCE.md: "RTX A6000 (48GB) ×1 appears in both copies (dedupe to one)".
    assert REAL.count('RTX A6000 (48GB)-mobile-x 1-0\\"') == REAL.count('RTX A6000 (48GB)-x 1-0\\"') == 1
    items = [o for o in run().items if o["gpu_label"] == "RTX A6000 (48GB)" and o["gpu_count"] == 1
             and not o.get("variant")]
    assert len(items) == 1


def test_every_label_of_the_real_page_is_in_the_catalog_and_a_new_one_is_reported_not_guessed():
    assert run().report["unknown_labels"] == []
    # A GPU the page might list tomorrow: the real A30 row, renamed.
    assert BODY.count("A30 (24GB)-") == 2
    result = run_parsed("massed_compute", parse_pricing(BODY.replace("A30 (24GB)", "Zephyr Z9 (24GB)"), URL))
    assert result.report["unknown_labels"] == ["Zephyr Z9 (24GB)"]
    assert [o["gpu_model"] for o in result.items if o["gpu_label"] == "Zephyr Z9 (24GB)"] == [None]


# -- The full page: the desktop cells arrive as later flight lines -------------------------------

def b300_desktop_cells() -> list:
    """The real B300 desktop row's six <td> cells (Qty, vCPU, RAM, Storage, Price, action)."""
    stream = flight_stream(BODY)
    start = stream.index('"B300 SXM6-x 8-0",') + len('"B300 SXM6-x 8-0",')
    props, _ = json.JSONDecoder().raw_decode(stream, start)
    return props["children"]


def with_b200_desktop_chunks(price: str, extra_lines: str = "") -> str:
    """The page as served whole: the B200 desktop row's deferred cells 2f..32 as their own flight
    lines (the B300 row's real cells, with the B200's RAM/Storage and the given price)."""
    _, _, ram, storage, price_cell, action = b300_desktop_cells()
    price_cell = json.loads(json.dumps(price_cell).replace("$$52.80", price))
    lines = "".join(f"{cid}:{json.dumps(cell, ensure_ascii=False)}\n"
                    for cid, cell in zip(("2f", "30", "31", "32"), (ram, storage, price_cell, action)))
    script = "<script>self.__next_f.push([1," + json.dumps(lines + extra_lines) + "])</script>"
    return BODY.replace("</body>", script + "</body>")


def test_desktop_row_resolves_its_deferred_price_chunk_and_agrees_with_the_mobile_card():
    # A client-component module line for the "$L13" link (type position) and "$L32" as content
    # that resolves to a module: components, not prices.
    result = run(with_b200_desktop_chunks("$$43.46", '13:I["4235",["static/chunks/4235.js"],"default"]\n'))
    assert judge.judge_crawl(result).status == "ok"
    assert result.report["duplicates_dropped"] == 24  # the B200 desktop copy is now read, and agrees
    assert by_key(result)["8x B200 SXM6 on-demand"]["price_per_hour"] == 43.46


def test_desktop_row_with_another_price_in_its_chunk_is_a_conflict_not_a_silent_choice():
    outcome = judged(with_b200_desktop_chunks("$$44.10"))
    assert outcome.status == "failed"
    assert "same offer with two prices" in outcome.error and "8x B200 SXM6 on-demand" in outcome.error


def test_component_id_is_not_a_constant_of_ours():
    # The real page's link component is "$L13"; renumbered, nothing changes.
    assert run(BODY.replace("$L13", "$L9a")).items == run().items


def test_a_reference_resolving_to_a_module_line_is_a_component_not_content():
    # Chunk 7d (the H100 NVL ×8 card's price) replaced by a module line: the card then shows no
    # price, and the desktop row still gives 23.36; nothing borrowed, nothing broken.
    body = BODY.replace("7d:[", '7d:I["77",[],"Price"]\\n7x:[', 1)
    result = run(body)
    assert judge.judge_crawl(result).status == "ok"
    nvl8 = offer(by_key(result), "H100 NVL (94GB)", 8, "NVLink")
    assert nvl8["price_per_hour"] == 23.36


# -- Layout variants: each fails, naming what is missing ------------------------------------------

def test_page_without_flight_data_fails_naming_what_is_missing():
    outcome = judged("<html><body><div id='__next'>Loading prices...</div></body></html>")
    assert outcome.status == "failed" and outcome.offers == []
    assert "massed_compute" in outcome.error and "self.__next_f.push" in outcome.error


def test_renamed_row_keys_fail():
    outcome = judged(re.sub(r'-x (\d+)-(\d+)\\"', r'_row\1_\2\\"', BODY))
    assert outcome.status == "failed" and "no offer rows keyed" in outcome.error


def test_unit_switch_fails_naming_the_unit():
    outcome = judged(BODY.replace('\\"children\\":\\"/hr\\"', '\\"children\\":\\"/mo\\"'))
    assert outcome.status == "failed"
    assert "price unit '/mo', not '/hr'" in outcome.error


def test_price_without_the_rsc_dollar_fails():
    outcome = judged(re.sub(r"\$\$(\d+\.\d+)", r"\1 USD", BODY))
    assert outcome.status == "failed"
    assert "no price" in outcome.error and "Request" in outcome.error
    assert "RSC chunks" not in outcome.error  # B200's card has no price: not "only in chunks"


def test_deferred_price_chunk_missing_from_both_copies_fails_naming_the_reference():
    # Without the mobile card's inline price, the B200 row's price lives only in "$L31" (not here).
    body = BODY.replace('\\"children\\":[\\"$$43.46\\"', '\\"children\\":[\\"$L99\\"', 1)
    outcome = judged(body)
    assert outcome.status == "failed"
    assert "B200 SXM6" in outcome.error and "RSC chunks the page does not contain" in outcome.error
    assert "$L2f" in outcome.error


def test_quantity_badge_disagreeing_with_the_key_holds_that_row():
    # Issue 20 item 2: one row whose badge and key disagree is held (never priced), the provider
    # is suspect, the other rows load.
    body = BODY.replace('B300 SXM6-x 8-0\\",{', 'B300 SXM6-x 4-0\\",{', 1)
    result = run(body)
    outcome = judge.judge_crawl(result)
    assert outcome.status == "suspect" and "badge ×8 differs from the row key's 4" in outcome.error
    [held] = [i for i in result.items if not i["is_priced"] and i["gpu_count"] == 4]
    assert held["gpu_label"] == "B300 SXM6" and held["price_raw"] == "$52.80"


# -- The one replay through the engine -------------------------------------------------------------

def test_replay_of_the_shipped_real_capture(crawl):
    result = crawl("massed_compute", CAPTURE)
    assert judge.judge_crawl(result).status == "ok"
    offers = by_key(result)
    assert len(offers) == 25
    b200 = offers["8x B200 SXM6 on-demand"]
    assert (b200["price_per_hour"], b200["price_per_gpu_hour"], b200["gpu_count"]) == (43.46, 5.4325, 8)
    assert b200["capture"]["source_url"] == URL and b200["capture"]["captured_at"].startswith("2026-08-22")
