"""fal.ai on its REAL recorded pricing page (fal.ai/pricing, Next.js HTML, recorded 2026-08-22, an
excerpt: the "Serverless & Compute Pricing" section with its GPU table and two look-alike model-API
tables, then a slice of the RSC flight data repeating the GPU rows; see tests/real/fal/SOURCE.md and
captures/src/2026-08-22/fal/exchanges.yaml).

Expected values are read off the recorded document (snippets quoted) or SOURCE.md's asserted
values, never off the parser's output. Prices are USD per GPU-hour ("<td ...>$8.50/h</td>"), two
columns: "List Price" and "As low as" (a floor).
"""

import pytest

from pricewatch.collect import crawl_process, judge
from spiders.fal import parse_pricing
from tests.conftest import CAPTURES_SRC, shipped
from tests.inprocess import run_parsed

URL = "https://fal.ai/pricing"
BODY = (CAPTURES_SRC / "2026-08-22" / "fal" / "pricing.html").read_text(encoding="utf-8")
GPU_TABLE = BODY[BODY.index("<table"):BODY.index("</table>") + len("</table>")]
LIST, FLOOR = "on-demand", "on-demand (as low as)"


def run(body: str = BODY) -> crawl_process.CrawlResult:
    return run_parsed("fal", parse_pricing(body, URL), url=URL)


def judged(body: str) -> judge.ProviderOutcome:
    return judge.judge_crawl(run(body))


@pytest.fixture(scope="module")
def result() -> crawl_process.CrawlResult:
    return run()


def prices(result, tier: str) -> dict[str, float]:
    return {o["gpu_label"]: o["price_per_gpu_hour"] for o in result.items if o["tier"] == tier and o["is_priced"]}


def offer(result, label: str, tier: str) -> dict:
    [found] = [o for o in result.items if o["gpu_label"] == label and o["tier"] == tier]
    return found


def test_real_page_is_ok_with_ten_prices(result):
    outcome = judge.judge_crawl(result)
    assert (outcome.status, outcome.error) == ("ok", None)
    # SOURCE.md: "(List / As low as): B300 288 GB $8.50 / $4.49; B200 180 GB $6.25 / $3.49; H200 141 GB
    # $4.50 / $2.10; H100 80 GB $4.50 / $1.89; RTX PRO 6000 96 GB $2.99 / $1.10. 10 prices in all."
    assert prices(result, LIST) == {"B300": 8.50, "B200": 6.25, "H200": 4.50, "H100": 4.50, "RTX PRO 6000": 2.99}
    assert prices(result, FLOOR) == {"B300": 4.49, "B200": 3.49, "H200": 2.10, "H100": 1.89, "RTX PRO 6000": 1.10}
    assert len(result.items) == 10
    assert {o["gpu_label"]: o["vram_gb"] for o in result.items} == {
        "B300": 288, "B200": 180, "H200": 141, "H100": 80, "RTX PRO 6000": 96}
    assert all((o["billing"], o["gpu_count"], o["currency"], o["price_unit"]) == ("on-demand", 1, "USD", "gpu_hour")
               for o in result.items)
    assert offer(result, "B300", LIST)["price_raw"] == "$8.50"      # "<td ...>$8.50/h</td>"
    assert result.report["unknown_labels"] == []
    assert offer(result, "RTX PRO 6000", LIST)["gpu_model"] == "RTX PRO 6000"


def test_as_low_as_is_a_floor_never_the_list_price(result):
    # Header '<th ...>List Price</th><th ...>As low as</th>'; below the table: "Competitive pricing for
    # custom deployments — Contact support@fal.ai to get started."
    listed, floor = offer(result, "B300", LIST), offer(result, "B300", FLOOR)
    assert (listed["self_service"], floor["self_service"]) == (True, False)
    assert listed["offer_key"] != floor["offer_key"]
    assert not [o for o in result.items if o["tier"] == LIST and o["price_per_gpu_hour"] in (4.49, 3.49, 2.10, 1.89, 1.10)]


def test_h100_and_h200_share_a_list_price_and_stay_two_offers(result):
    # H200 "$4.50/h" and H100 "$4.50/h" in the List Price column.
    assert BODY.count('">$4.50/h</td>') == 2
    at_450 = [o for o in result.items if o["tier"] == LIST and o["price_per_gpu_hour"] == 4.50]
    assert sorted(o["gpu_model"] for o in at_450) == ["H100", "H200"]


def test_prose_model_tables_and_rsc_copy_are_not_read(result):
    # Prose "as low as <!-- -->$1.89/hr for H100"; model tables "Output per $1" (Wan 2.5 "$<!-- -->0.05"
    # per second, Seedream V4 "$<!-- -->0.03" per image); RSC row key "GPU-B300" with "$$8.50/h".
    assert "$1.89/hr for H100" in BODY and BODY.count("Output per $1") == 2 and "Seedream V4" in BODY
    assert BODY.count("$8.50/h") == 2 and BODY.count("GPU-B300") == 1
    assert {o["gpu_label"] for o in result.items} == {"B300", "B200", "H200", "H100", "RTX PRO 6000"}
    assert all(o["price_per_gpu_hour"] >= 1.0 for o in result.items)
    assert len({(o["gpu_label"], o["tier"]) for o in result.items}) == len(result.items) == 10


def test_a_second_copy_of_the_table_is_read_once():
    # The copy goes right after the table (the recording ends inside a <script>: text appended there
    # would be script, not markup).
    def doubled(copy: str) -> str:
        return BODY.replace(GPU_TABLE, GPU_TABLE + copy, 1)
    assert len(parse_pricing(doubled(GPU_TABLE), URL).offers) == 10
    assert len(run(doubled(GPU_TABLE)).items) == 10
    outcome = judged(doubled(GPU_TABLE.replace('">$8.50/h</td>', '">$9.00/h</td>')))
    assert outcome.status == "failed" and "differ" in outcome.error


# --- per-row judgement (issue 20 item 2) -----------------------------------------------------------

def test_one_garbled_price_cell_holds_that_offer_the_others_load(result):
    # H200 "As low as" "$2.10/h" changed to "2.10 EUR/h" (the page is USD).
    edited = run(BODY.replace('">$2.10/h</td>', '">2.10 EUR/h</td>'))
    outcome = judge.judge_crawl(edited)
    assert outcome.status == "suspect" and outcome.trusted
    assert f"1 of {len(result.items)} row(s) held" in outcome.error
    assert "As low as price cell unreadable: '2.10 EUR/h'" in outcome.error
    held = offer(edited, "H200", FLOOR)
    assert (held["is_priced"], held["price_raw"], held["price_per_gpu_hour"]) == (False, "2.10 EUR/h", None)
    assert offer(edited, "H200", LIST)["price_per_gpu_hour"] == 4.50          # the same row's list price loads
    assert sum(o["is_priced"] for o in edited.items) == 9
    assert sorted(o["offer_key"] for o in edited.items) == sorted(o["offer_key"] for o in result.items)


@pytest.mark.parametrize("cell", ["TBD", "<s>$2.99/h</s>", "", "$2.99"])
def test_unreadable_price_cells_are_held_never_priced(cell):
    outcome = judged(BODY.replace('">$2.99/h</td>', f'">{cell}</td>'))
    assert outcome.status == "suspect" and "1 of 10 row(s) held" in outcome.error
    assert "RTX PRO 6000" in outcome.error and "List Price price cell unreadable" in outcome.error


def test_placeholders_are_never_prices():
    # "Contact us" where the B300 floor was: an offer without a public price.
    contact = offer(run(BODY.replace('">$4.49/h</td>', '">Contact us</td>')), "B300", FLOOR)
    assert (contact["is_priced"], contact["price_per_hour"], contact["price_text"], contact["self_service"]) == (
        False, None, "Contact us", False)
    # "—" where the H100 floor was: no floor for that GPU (no offer), the run stays ok.
    edited = run(BODY.replace('">$1.89/h</td>', '">—</td>'))
    assert judge.judge_crawl(edited).status == "ok" and len(edited.items) == 9
    assert not [o for o in edited.items if o["gpu_label"] == "H100" and o["tier"] == FLOOR]
    # A 0 in the right unit is unpriced with its text ("Unpriced is not zero").
    zero = offer(run(BODY.replace('">$2.99/h</td>', '">$0.00/h</td>')), "RTX PRO 6000", LIST)
    assert (zero["is_priced"], zero["price_per_hour"], zero["price_text"]) == (False, None, "$0.00")


# --- changed layouts -----------------------------------------------------------------------------

def test_a_unit_switch_fails_the_page():
    outcome = judged(BODY.replace('">$8.50/h</td>', '">$8.50/mo</td>'))
    assert outcome.status == "failed" and outcome.offers == []
    assert "$8.50/mo" in outcome.error and "B300" in outcome.error


@pytest.mark.parametrize("old, new, named", [
    (">List Price</th>", ">Price</th>", "column headings"),
    (">As low as</th>", ">Reserved</th>", "column headings"),
    (">GPU</th>", ">Chip</th>", "no table headed GPU"),
    (">288GB<", ">288 GB VRAM<", "VRAM cell"),
])
def test_layout_change_fails_naming_what_is_missing(old, new, named):
    assert BODY.count(old) == 1
    outcome = judged(BODY.replace(old, new))
    assert outcome.status == "failed" and outcome.offers == []
    assert "fal" in outcome.error and named in outcome.error


def test_a_client_rendered_page_fails_closed():
    outcome = judged("<html><body><div>loading...</div></body></html>")
    assert outcome.status == "failed" and "no table headed GPU" in outcome.error


# --- the one real replay through the engine ----------------------------------------------------

def test_replay_of_the_real_capture(crawl):
    result = crawl("fal", shipped("fal"))
    assert judge.judge_crawl(result).status == "ok"
    h100 = offer(result, "H100", LIST)
    assert (h100["price_per_gpu_hour"], h100["gpu_model"], h100["vram_gb"], h100["self_service"]) == (
        4.50, "H100", 80, True)
    assert offer(result, "H100", FLOOR)["price_per_gpu_hour"] == 1.89
    assert h100["capture"]["source_url"] == URL and h100["capture"]["captured_at"].startswith("2026-08-22T12:00:00")
    assert len(result.items) == 10
