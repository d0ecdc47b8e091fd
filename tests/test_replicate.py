"""Replicate on its COMPOSED pricing-page capture (replicate.com/pricing: every cell's text the stored
copy's, the markup composed; see captures/src/2026-12-02/replicate/exchanges.yaml).

Expected values are read off the stored page by hand (quoted). Unit: the "$X/hr" line of the Price
cell = USD per hour of the whole hardware ("2x Nvidia A100 (80GB) GPU ... $10.08/hr").
"""

import pytest

from pricewatch.collect import crawl_process, judge
from spiders.replicate import ReplicateSpider, parse_pricing
from tests.conftest import CAPTURES_SRC, shipped
from tests.inprocess import run_parsed

TEXT = (CAPTURES_SRC / "2026-12-02" / "replicate" / "pricing.html").read_text(encoding="utf-8")
URL = ReplicateSpider.pricing_url


def run(text: str = TEXT) -> crawl_process.CrawlResult:
    return run_parsed("replicate", parse_pricing(text, URL), url=URL)


def by_sku(result) -> dict[str, dict]:
    return {o["sku"]: o for o in result.items}


def cell(old: str, new: str, text: str = TEXT) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


@pytest.fixture(scope="module")
def result() -> crawl_process.CrawlResult:
    return run()


def test_every_gpu_row_per_instance_hour(result):
    outcome = judge.judge_crawl(result)
    assert (outcome.status, outcome.error) == ("ok", None)
    got = {s: (o["gpu_model"], o["gpu_count"], o["vram_gb"], o["price_per_hour"], o["price_per_gpu_hour"])
           for s, o in by_sku(result).items()}
    # "Nvidia A100 (80GB) GPU gpu-a100-large $0.001400/sec $5.04/hr 1x 10x 80GB 144GB"
    assert got["gpu-a100-large"] == ("A100 80GB", 1, 80, 5.04, 5.04)
    # "8x Nvidia A100 (80GB) GPU gpu-a100-large-8x $0.011200/sec $40.32/hr 8x 80x 640GB 960GB"
    assert got["gpu-a100-large-8x"] == ("A100 80GB", 8, 80, 40.32, 5.04)
    # "4x Nvidia L40S GPU gpu-4x-l40s $0.003900/sec $14.04/hr 4x 40x 192GB 288GB"
    assert got["gpu-4x-l40s"] == ("L40S", 4, 48, 14.04, 3.51)
    # "Nvidia T4 GPU gpu-t4 $0.000225/sec $0.81/hr 1x 4x 16GB 16GB"
    assert got["gpu-t4"] == ("T4", 1, 16, 0.81, 0.81)
    assert len(got) == 18   # 14 rows above "Additional hardware" but the CPU row, 4 H100 rows
    assert {(o["billing"], o["currency"], o["price_unit"]) for o in result.items} == {("on-demand", "USD", "instance_hour")}
    assert by_sku(result)["gpu-a100-large-2x"]["price_raw"] == "$10.08/hr"


def test_a_size_in_brackets_is_the_variant_a_memory_size_is_the_label(result):
    # "Nvidia A40 (Large) GPU gpu-a40-large $2.61/hr ... 48GB" and "Nvidia A40 GPU gpu-a40-small $2.07/hr ... 48GB"
    large, small = by_sku(result)["gpu-a40-large"], by_sku(result)["gpu-a40-small"]
    assert (large["gpu_label"], large["variant"], large["price_per_hour"]) == ("A40", "Large", 2.61)
    assert (small["gpu_label"], small["variant"], small["price_per_hour"]) == ("A40", None, 2.07)
    assert by_sku(result)["gpu-a100-large"]["gpu_label"] == "A100 (80GB)"


def test_additional_hardware_is_priced_but_not_self_service(result):
    # "Additional hardware" / "8x Nvidia H100 GPU gpu-h100-8x $0.012200/sec $43.92/hr Flux fine-tunes run on
    # H100s; additional H100 capacity is reserved for committed spend contracts."
    h100 = by_sku(result)["gpu-h100-8x"]
    assert (h100["gpu_model"], h100["gpu_count"], h100["price_per_hour"], h100["price_per_gpu_hour"]) == ("H100", 8, 43.92, 5.49)
    assert (h100["tier"], h100["self_service"]) == ("additional hardware", False)
    assert by_sku(result)["gpu-a100-large"]["self_service"] is True
    facts = {f["fact"]: f["value_text"] for f in result.facts}
    assert facts["additional_hardware_note"].endswith("additional H100 capacity is reserved for committed spend contracts.")


def test_the_cpu_row_is_not_an_offer(result):
    # "CPU cpu $0.000100/sec $0.36/hr - 4x - 8GB"
    assert "cpu" not in by_sku(result)
    assert {f["fact"]: f["value_text"] for f in result.facts}["cpu_only_hardware"] == "cpu"


def test_the_hourly_price_is_read_to_its_printed_digits():
    # The stored internal.replicate.com/pricing copy: "Nvidia L40S GPU gpu-l40s $0.000972/sec $3.4992/hr".
    o = by_sku(run(cell("<p>$0.000975/sec</p><p>$3.51/hr</p>", "<p>$0.000972/sec</p><p>$3.4992/hr</p>")))["gpu-l40s"]
    assert (o["price_raw"], o["price_per_hour"]) == ("$3.4992/hr", 3.4992)


@pytest.mark.parametrize("new, why", [
    ("<p>$0.001400/sec</p><p>TBD</p>", "Price cell unreadable: '$0.001400/sec TBD'"),
    ("<p>$0.001400/sec</p><p>€5.04/hr</p>", "Price cell unreadable"),
    ("<p>$0.001900/sec</p><p>$5.04/hr</p>", "'$0.001900/sec' x 3600 disagrees with $5.04/hr"),
])
def test_one_unreadable_price_cell_is_held_the_others_load(new, why):
    result = run(cell("<p>$0.001400/sec</p><p>$5.04/hr</p>", new))
    assert judge.judge_crawl(result).status == "suspect"
    held = by_sku(result)["gpu-a100-large"]
    assert held["is_priced"] is False and why in held["held_row"]
    assert sum(o["is_priced"] for o in result.items) == 17


def test_contact_sales_is_unpriced_and_a_dash_is_no_offer():
    o = by_sku(run(cell("<td><p>$0.000225/sec</p><p>$0.81/hr</p></td>", "<td>Contact sales</td>")))["gpu-t4"]
    assert (o["is_priced"], o["self_service"]) == (False, False)
    assert "gpu-t4" not in by_sku(run(cell("<td><p>$0.000225/sec</p><p>$0.81/hr</p></td>", "<td>—</td>")))


def test_identical_copies_are_read_once():
    table = TEXT[TEXT.index("<table>"):TEXT.index("</table>") + len("</table>")]
    assert len(run(TEXT.replace("</main>", table + "</main>")).items) == 18


@pytest.mark.parametrize("text, message", [
    (cell("<p>$0.81/hr</p>", "<p>$0.81/mo</p>"), "Price cell(s) not '$X/sec' and '$X/hr'"),
    (cell("<th>GPU RAM</th>", "<th>VRAM</th>"), "column headings are not Hardware | Price | GPU"),
    (TEXT.replace("<th>Hardware</th>", "<th>Instance</th>"), "no table with a Hardware column"),
    (cell(">Additional hardware<", ">Enterprise hardware<"), "section row(s) we do not know: Enterprise hardware"),
    (cell("$14.04/hr</p></td><td>4x</td>", "$14.04/hr</p></td><td>2x</td>"),
     "GPU cell(s) disagree with the hardware name's count"),
    (cell("$14.04/hr</p></td><td>4x</td><td>40x</td><td>192GB</td>", "$14.04/hr</p></td><td>4x</td><td>40x</td><td>190GB</td>"),
     "GPU RAM cell(s) not a whole share per GPU"),
    (cell("<p>Nvidia T4 GPU</p>", "<p>T4 Tensor Core</p>"), "hardware name(s) not like '[<n>x ]Nvidia <GPU> GPU'"),
    (TEXT.replace("</main>", TEXT[TEXT.index("<table>"):TEXT.index("</table>") + 8].replace("$0.81/hr", "$0.91/hr")
                  + "</main>"), "2 hardware tables that differ"),
])
def test_changed_layouts_fail(text, message):
    outcome = judge.judge_crawl(run(text))
    assert outcome.status == "failed" and message in outcome.error


def test_replay_of_the_composed_capture(crawl):
    result = crawl("replicate", shipped("replicate"))
    assert judge.judge_crawl(result).status == "ok" and len(result.items) == 18
