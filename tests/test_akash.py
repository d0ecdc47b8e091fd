"""Akash Network on its GPU pricing page (akash.network/pricing/gpus/): every GPU name and price text
is a public transcription's (api-evangelist/akash plans/plans.yml, read 2026-09-20, "every price_text
was found verbatim in the fetched page text"), the HTML around it composed (see
captures/src/2026-09-20/akash/exchanges.yaml).

Expected values are read off that transcription (quoted), never off the parser's output. Prices are
USD per GPU-hour, the lowest ask of the marketplace ("Prices stated as 'Starting at'"):
"- name: H100 80GB SXM5 / price_text: $2.71/hr".
"""

import pytest

from pricewatch.collect import crawl_process, judge
from spiders.akash import parse_gpus
from tests.conftest import CAPTURES_SRC, shipped
from tests.inprocess import run_parsed

URL = "https://akash.network/pricing/gpus/"
BODY = (CAPTURES_SRC / "2026-09-20" / "akash" / "gpus.html").read_text(encoding="utf-8")
TABLE = BODY[BODY.index("<table"):BODY.index("</table>") + len("</table>")]
# price_text as transcribed, name by name (plans.yml, in its order).
HOURLY = {"B300 288GB SXM6": 6.00, "B200 180GB HBM3e": 5.00, "H200 141GB SXM5": 4.45,
          "Pro 6000 SE 96GB PCIe": 2.04, "Pro 6000 WE 96GB PCIe": 1.45, "H100 80GB SXM5": 2.71,
          "A100 80GB SXM4": 1.71, "RTX 8000 48GB PCIe": 0.21, "RTX 5090 32GB PCIe": 0.67,
          "V100 32GB PCIe": 0.17, "RTX 4090 24GB PCIe": 0.39, "RTX 3090 24GB PCIe": 0.16,
          "RTX 6000 24GB PCIe": 0.17, "P40 24GB PCIe": 0.08, "RTX 3090 Ti 24GB PCIe": 0.25,
          "P2000 5GB PCIe": 0.25, "V100 16GB SXM2": 0.36, "RTX 4000 Ada 20GB PCIe": 0.41,
          "GTX 1050 2GB PCIe": 0.05, "GTX 1050 Ti 4GB PCIe": 0.03, "GTX 1070 Ti 8GB PCIe": 0.08,
          "RTX 3060 12GB PCIe": 0.14, "RTX 4080 16GB PCIe": 0.15, "T4 16GB PCIe": 0.15,
          "M4000 8GB PCIe": 0.06, "P4 8GB PCIe": 0.03}
# Legacy cards the catalog has no model for (yet): reported as new labels, never guessed.
UNKNOWN = {"RTX 8000 48GB PCIe", "P40 24GB PCIe", "P2000 5GB PCIe", "GTX 1050 2GB PCIe", "GTX 1050 Ti 4GB PCIe",
           "GTX 1070 Ti 8GB PCIe", "RTX 3060 12GB PCIe", "P4 8GB PCIe"}


def run(body: str = BODY) -> crawl_process.CrawlResult:
    return run_parsed("akash", parse_gpus(body, URL), url=URL)


def judged(body: str) -> judge.ProviderOutcome:
    return judge.judge_crawl(run(body))


def row(name: str, price: str) -> str:
    return f"<tr><td>{name}</td><td>{price}</td></tr>"


@pytest.fixture(scope="module")
def result() -> crawl_process.CrawlResult:
    return run()


def sku(result, name: str) -> dict:
    [found] = [o for o in result.items if o["sku"] == name]
    return found


def test_the_page_is_ok_with_26_gpu_prices(result):
    assert judge.judge_crawl(result).status == "ok"
    assert {o["sku"]: o["price_per_hour"] for o in result.items} == HOURLY
    h100 = sku(result, "H100 80GB SXM5")
    assert (h100["gpu_model"], h100["gpu_count"], h100["vram_gb"], h100["price_raw"], h100["price_unit"],
            h100["price_per_gpu_hour"]) == ("H100", 1, 80, "$2.71/hr", "gpu_hour", 2.71)
    assert all((o["billing"], o["tier"], o["currency"], o["self_service"]) == ("marketplace", "starting at", "USD", True)
               for o in result.items)
    assert set(result.report["unknown_labels"]) == UNKNOWN


def test_the_printed_name_gives_model_memory_and_form_factor(result):
    # "A100 80GB SXM4" is the A100 80GB; "Pro 6000 WE 96GB PCIe" the RTX PRO 6000; "RTX 6000 24GB PCIe"
    # (24 GB) the Quadro RTX 6000, not the 48 GB RTX 6000 Ada
    assert (sku(result, "A100 80GB SXM4")["gpu_model"], sku(result, "A100 80GB SXM4")["vram_gb"]) == ("A100 80GB", 80)
    assert sku(result, "Pro 6000 WE 96GB PCIe")["gpu_model"] == "RTX PRO 6000"
    assert sku(result, "RTX 6000 24GB PCIe")["gpu_model"] == "Quadro RTX 6000"
    # "B200 180GB HBM3e": the memory type is no interface; 180 GB per GPU
    assert sku(result, "B200 180GB HBM3e")["vram_gb"] == 180


def test_the_custom_quote_row_is_no_gpu(result):
    # "- name: Bulk Orders or Custom Configurations / price_text: Get a Custom Quote"
    assert row("Bulk Orders or Custom Configurations", "Get a Custom Quote") in BODY
    assert len(result.items) == 26 and not [o for o in result.items if "Bulk" in o["sku"]]


# --- per-row judgement -----------------------------------------------------------------------------

def test_one_garbled_price_cell_holds_that_row_the_others_load(result):
    edited = run(BODY.replace(row("T4 16GB PCIe", "$0.15/hr"), row("T4 16GB PCIe", "€0.15/hr")))
    outcome = judge.judge_crawl(edited)
    assert outcome.status == "suspect" and outcome.trusted
    assert "1 of 26 row(s) held" in outcome.error and "price cell unreadable: '€0.15/hr'" in outcome.error
    held = sku(edited, "T4 16GB PCIe")
    assert (held["is_priced"], held["price_raw"], held["price_per_hour"]) == (False, "€0.15/hr", None)
    assert sum(o["is_priced"] for o in edited.items) == 25
    assert sorted(o["offer_key"] for o in edited.items) == sorted(o["offer_key"] for o in result.items)


@pytest.mark.parametrize("cell", ["TBD", "$2.71", "<s>$2.71/hr</s>", "", "$2.7.1/hr"])
def test_unreadable_price_cells_are_held_never_priced(cell):
    edited = run(BODY.replace(row("H100 80GB SXM5", "$2.71/hr"), row("H100 80GB SXM5", cell)))
    outcome = judge.judge_crawl(edited)
    assert outcome.status == "suspect" and "1 of 26 row(s) held" in outcome.error
    assert sku(edited, "H100 80GB SXM5")["is_priced"] is False


def test_placeholders_are_never_prices():
    # the transcription's note: "some models listed as --/hr (Pro6000mq, RTX 3060 Ti)": no offer
    edited = run(BODY.replace(row("P4 8GB PCIe", "$0.03/hr"), row("P4 8GB PCIe", "--/hr")))
    assert judge.judge_crawl(edited).status == "ok" and len(edited.items) == 25
    contact = sku(run(BODY.replace(row("B300 288GB SXM6", "$6.00/hr"), row("B300 288GB SXM6", "Contact sales"))),
                  "B300 288GB SXM6")
    assert (contact["is_priced"], contact["price_text"], contact["self_service"]) == (False, "Contact sales", False)
    zero = sku(run(BODY.replace(row("M4000 8GB PCIe", "$0.06/hr"), row("M4000 8GB PCIe", "$0.00/hr"))),
               "M4000 8GB PCIe")
    assert (zero["is_priced"], zero["price_per_hour"]) == (False, None)


# --- changed layouts -----------------------------------------------------------------------------

def test_a_unit_switch_fails_the_page():
    outcome = judged(BODY.replace(row("H200 141GB SXM5", "$4.45/hr"), row("H200 141GB SXM5", "$3,249/mo")))
    assert outcome.status == "failed" and outcome.offers == []
    assert "$3,249/mo" in outcome.error and "H200 141GB SXM5" in outcome.error


@pytest.mark.parametrize("old, new, named", [
    ("<th>Starting at</th>", "<th>Price</th>", "no table headed GPU | Starting at"),
    ("<th>GPU</th>", "<th>Model</th>", "no table headed GPU | Starting at"),
    ("<td>RTX 4090 24GB PCIe</td>", "<td>RTX 4090 (24 GB)</td>", "not like '<model> <n>GB[ <interface>]'"),
    ("<td>$0.39/hr</td>", "<td>$0.39/hr</td><td>available</td>", "row(s) of 3 cells, not 2"),
    ("<tbody>", "<tbody></tbody><tfoot>", "no row"),
])
def test_layout_change_fails_naming_what_is_missing(old, new, named):
    assert TABLE.count(old) == 1
    outcome = judged(BODY.replace(old, new))
    assert outcome.status == "failed" and outcome.offers == []
    assert named in outcome.error


def test_every_gpu_without_an_offer_fails():
    body = BODY
    for name in HOURLY:
        body = body.replace(f"<td>{name}</td><td>${HOURLY[name]:.2f}/hr</td>", f"<td>{name}</td><td>--/hr</td>")
    outcome = judged(body)
    assert outcome.status == "failed" and "every price says '--/hr'" in outcome.error


def test_a_second_copy_is_read_once_and_two_that_differ_fail():
    assert len(run(BODY.replace(TABLE, TABLE + TABLE)).items) == 26
    outcome = judged(BODY.replace(TABLE, TABLE + TABLE.replace("<td>$2.71/hr</td>", "<td>$2.99/hr</td>")))
    assert outcome.status == "failed" and "differ" in outcome.error


# --- the one replay through the engine -------------------------------------------------------------

def test_replay_of_the_shipped_capture(crawl):
    result = crawl("akash", shipped("akash"))
    assert judge.judge_crawl(result).status == "ok" and len(result.items) == 26
    h100 = sku(result, "H100 80GB SXM5")
    assert (h100["price_per_hour"], h100["gpu_model"]) == (2.71, "H100")
    assert h100["capture"]["source_url"] == URL and h100["capture"]["captured_at"].startswith("2026-09-20T12:00:00")
