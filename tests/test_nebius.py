"""Nebius on its two REAL recorded prices pages (nebius.com/prices; tests/real/nebius/SOURCE.md):

- ``prices.html``, 2026-08-22, an excerpt: the escaped-JSON blocks (``{\\"type\\":\\"highlight-table-block\\",
  \\"title\\":\\"NVIDIA GPU Instances\\",...}``) of the GPU table and of look-alike CPU-only, Storage and
  Other services tables; header ``Item | vCPUs | RAM, GB | Preemptible, GPU-hour | On-demand, GPU-hour``.
- ``ewyluda_prices.html``, late September 2026, the nearly whole rendered document (scripts stripped,
  2 invisible characters missing): ``On-demand, GPU-hour | GPU-hour (Effective October 1, 2026)`` and a
  separate "Preemptible NVIDIA GPU Instances" table (``Spot price, GPU-hour*``). It is the shipped
  capture ``captures/2026-09-28/nebius.warc.gz`` (captured_at 2026-09-28T12:00:00Z, a stand-in day).

Expected values are read off the recorded documents (snippets quoted) or SOURCE.md's asserted values,
never off the parser's output. Unit: USD per GPU-hour (the headers say "GPU-hour"), one GPU per row.
"""

import json
from collections import Counter
from datetime import date, datetime, timezone

import pytest

from pricewatch.collect import crawl_process, judge
from spiders.nebius import parse_prices
from tests.conftest import CAPTURES, CAPTURES_SRC, ROOT
from tests.inprocess import by_key, run_parsed

URL = "https://nebius.com/prices"
AUG = (ROOT / "tests" / "real" / "nebius" / "prices.html").read_text(encoding="utf-8")
SEP = (CAPTURES_SRC / "2026-09-28" / "nebius" / "prices.html").read_text(encoding="utf-8")
AUG_DAY, SEP_DAY, OCT_DAY = date(2026, 8, 22), date(2026, 9, 28), date(2026, 10, 1)
CAPTURE = CAPTURES / "2026-09-28" / "nebius.warc.gz"


def run(text: str, on: date) -> crawl_process.CrawlResult:
    at = datetime(on.year, on.month, on.day, 12, tzinfo=timezone.utc)
    return run_parsed("nebius", parse_prices(text, URL, on), url=URL, captured_at=at)


def judged(text: str, on: date = SEP_DAY) -> judge.ProviderOutcome:
    return judge.judge_crawl(run(text, on))


def offer(result, label, tier, variant=None):
    [match] = [o for o in result.items if (o["gpu_label"], o["tier"], o.get("variant")) == (label, tier, variant)]
    return match


@pytest.fixture(scope="module")
def aug():
    return run(AUG, AUG_DAY)


@pytest.fixture(scope="module")
def sep():
    return run(SEP, SEP_DAY)


# ---------- 2026-08-22 excerpt (escaped JSON) ----------

def test_aug_preemptible_column_before_on_demand_is_read_by_name(aug):
    # [\"NVIDIA HGX B300\",\"24\",\"346\",\"$4.30\",\"$7.85\"] under
    # [\"Item\",\"vCPUs\",\"RAM, GB\",\"Preemptible, GPU-hour\",\"On-demand, GPU-hour\"]
    b300 = offer(aug, "NVIDIA HGX B300", "on-demand")
    assert (b300["billing"], b300["price_per_hour"], b300["price_per_gpu_hour"]) == ("on-demand", 7.85, 7.85)
    assert (b300["gpu_count"], b300["price_unit"], b300["gpu_model"], b300["form_factor"]) == (1, "gpu_hour", "B300", "SXM")
    pre = offer(aug, "NVIDIA HGX B300", "preemptible")
    assert (pre["billing"], pre["price_per_gpu_hour"]) == ("spot", 4.30)
    # "RAM, GB" 346 is host RAM per GPU, not GPU memory: VRAM is the catalog's B300 size
    assert b300["vram_gb"] == 288
    # [\"NVIDIA HGX H100\",\"16\",\"200\",\"$2.15\",\"$3.85\"]
    assert offer(aug, "NVIDIA HGX H100", "on-demand")["price_per_gpu_hour"] == 3.85
    assert offer(aug, "NVIDIA HGX H100", "preemptible")["price_per_gpu_hour"] == 2.15
    # [\"NVIDIA HGX B200\",\"20\",\"224\",\"$3.95\",\"$7.15\"], [\"NVIDIA HGX H200\",\"16\",\"200\",\"$2.45\",\"$4.50\"]
    assert offer(aug, "NVIDIA HGX B200", "on-demand")["price_per_gpu_hour"] == 7.15
    assert offer(aug, "NVIDIA HGX H200", "preemptible")["price_per_gpu_hour"] == 2.45
    # [\"NVIDIA RTX PRO 6000\",\"24\",\"218\",\"$0.95\",\"$1.80\"]
    rtx = offer(aug, "NVIDIA RTX PRO 6000", "on-demand")
    assert (rtx["price_per_gpu_hour"], rtx["gpu_model"]) == (1.80, "RTX PRO 6000")


def test_aug_from_prices_are_floors_of_the_l40s_configurations(aug):
    # [\"NVIDIA L40S with Intel CPU\",\"16-192\",\"96-1152\",\"from $0.90\",\"from $1.82\"]
    intel = offer(aug, "NVIDIA L40S", "on-demand (from)", "Intel CPU")
    assert (intel["billing"], intel["price_per_gpu_hour"], intel["gpu_model"], intel["is_priced"]) == \
        ("on-demand", 1.82, "L40S", True)
    # [\"NVIDIA L40S with AMD CPU\",\"8-40\",\"32-160\",\"from $0.74\",\"from $1.55\"]
    amd = offer(aug, "NVIDIA L40S", "preemptible (from)", "AMD CPU")
    assert (amd["billing"], amd["price_per_gpu_hour"]) == ("spot", 0.74)
    assert offer(aug, "NVIDIA L40S", "on-demand (from)", "AMD CPU")["price_per_gpu_hour"] == 1.55
    assert intel["offer_key"] != offer(aug, "NVIDIA L40S", "on-demand (from)", "AMD CPU")["offer_key"]


def test_aug_contact_us_is_unpriced_and_dashes_are_no_offer(aug):
    # [\"NVIDIA GB300 NVL72\",\"112\",\"800\",\"––\",\"[Contact us](#ai-contact-form)\"]
    for label, model in (("NVIDIA GB300 NVL72", "GB300"), ("NVIDIA GB200 NVL72", "GB200")):
        o = offer(aug, label, "on-demand")
        assert (o["is_priced"], o["price_text"], o["self_service"], o["gpu_model"]) == (False, "Contact us", False, model)
        assert not [i for i in aug.items if i["gpu_label"] == label and i["billing"] == "spot"]


def test_aug_fourteen_prices_and_no_lookalike_tables(aug):
    # SOURCE.md: "14 prices = 7 items x 2 tiers", plus the two Contact-us rows (unpriced).
    assert sum(o["is_priced"] for o in aug.items) == 14 and len(aug.items) == 16
    assert Counter(o["tier"] for o in aug.items if o["is_priced"]) == \
        {"on-demand": 5, "preemptible": 5, "on-demand (from)": 2, "preemptible (from)": 2}
    # CPU-only ("AMD EPYC Genoa", "from $0.10"), Storage ("$0.0800") and Other services are not GPU offers
    assert {o["gpu_model"] for o in aug.items} == {"GB300", "B300", "GB200", "B200", "H200", "H100", "RTX PRO 6000", "L40S"}
    assert {o["gpu_count"] for o in aug.items} == {1}
    outcome = judge.judge_crawl(aug)
    assert (outcome.status, outcome.warnings) == ("ok", [])


# ---------- late-September 2026 document (rendered rows) ----------

def test_sep_effective_october_column_is_not_in_force_before_october(sep):
    # <p>NVIDIA HGX H100</p> ... <p>$3.85</p> ... <p>$4.50</p>  under
    # <p>On-demand, GPU-hour</p> <p>GPU-hour (Effective October 1, 2026)</p>; captured before 2026-10-01
    for label, price in (("NVIDIA HGX H100", 3.85), ("NVIDIA HGX H200", 4.50), ("NVIDIA HGX B200", 7.15),
                         ("NVIDIA HGX B300", 7.85), ("NVIDIA RTX PRO 6000", 1.80)):
        o = offer(sep, label, "on-demand")
        assert (o["billing"], o["price_per_gpu_hour"], o["gpu_count"], o["price_unit"]) == ("on-demand", price, 1, "gpu_hour")
    assert 9.50 not in {o["price_per_gpu_hour"] for o in sep.items}  # B300's October price


def test_sep_on_october_1_the_effective_column_is_the_price(sep):
    # SOURCE.md: from 2026-10-01 H100 is 4.50; B300 $7.85 -> $9.50, B200 $7.15 -> $8.50, H200 $4.50 -> $5.40,
    # RTX PRO 6000 $1.80 -> $1.80
    octo = run(SEP, OCT_DAY)
    for label, price in (("NVIDIA HGX H100", 4.50), ("NVIDIA HGX H200", 5.40), ("NVIDIA HGX B200", 8.50),
                         ("NVIDIA HGX B300", 9.50), ("NVIDIA RTX PRO 6000", 1.80)):
        o = offer(octo, label, "on-demand")
        assert o["price_per_gpu_hour"] == price
        assert o["offer_key"] == offer(sep, label, "on-demand")["offer_key"]  # same offer, a new price


def test_sep_preemptible_table_is_spot_from_prices(sep):
    # "Preemptible NVIDIA GPU Instances", <p>Spot price, GPU-hour*</p>: B300/B200 "from $0.99",
    # H200/H100/RTX PRO 6000 "from $0.79"; L40S Intel "from $0.74**", AMD "from $0.90**"
    for label, price in (("NVIDIA HGX B300", 0.99), ("NVIDIA HGX B200", 0.99), ("NVIDIA HGX H200", 0.79),
                         ("NVIDIA HGX H100", 0.79), ("NVIDIA RTX PRO 6000", 0.79)):
        o = offer(sep, label, "preemptible (from)")
        assert (o["billing"], o["price_per_gpu_hour"]) == ("spot", price)
    assert offer(sep, "NVIDIA L40S", "preemptible (from)", "Intel CPU")["price_per_gpu_hour"] == 0.74
    assert offer(sep, "NVIDIA L40S", "preemptible (from)", "AMD CPU")["price_per_gpu_hour"] == 0.90
    # <p>NVIDIA L40S with Intel CPU</p> <p>8-40</p> <p>32-160</p> <p>from $1.55</p>; AMD: from $1.82
    assert offer(sep, "NVIDIA L40S", "on-demand (from)", "Intel CPU")["price_per_gpu_hour"] == 1.55
    assert offer(sep, "NVIDIA L40S", "on-demand (from)", "AMD CPU")["price_per_gpu_hour"] == 1.82


def test_sep_contact_us_rows_and_lookalike_tables(sep):
    # GB300/GB200 NVL72: <a href="#ai-contact-form">Contact us</a> in both columns; absent from the
    # preemptible table. CPU-only "Price per hour (Effective October 1, 2026)" (from $0.10 -> from $0.13)
    # and Storage are not GPU offers.
    for label in ("NVIDIA GB300 NVL72", "NVIDIA GB200 NVL72"):
        o = offer(sep, label, "on-demand")
        assert (o["is_priced"], o["price_text"], o["self_service"]) == (False, "Contact us", False)
        assert [i["billing"] for i in sep.items if i["gpu_label"] == label] == ["on-demand"]
    assert len(sep.items) == 16 and sum(o["is_priced"] for o in sep.items) == 14
    assert not {0.10, 0.13, 0.05, 0.06} & {o["price_per_gpu_hour"] for o in sep.items}
    outcome = judge.judge_crawl(sep)
    assert (outcome.status, outcome.warnings) == ("ok", [])


# ---------- layout variants (in-process) ----------

def aug_variant(edit) -> str:
    """The Aug excerpt with its blocks rewritten by ``edit(blocks)``, re-escaped as recorded."""
    blocks = json.loads("[" + json.loads(f'"{AUG}"') + "]")
    edit(blocks)
    return json.dumps(json.dumps(blocks, ensure_ascii=False, separators=(",", ":"))[1:-1], ensure_ascii=False)[1:-1]


def gpu_rows(blocks):
    return next(b for b in blocks if b.get("title") == "NVIDIA GPU Instances")["table"]["content"]


def test_variant_helper_reproduces_the_recording():
    assert aug_variant(lambda blocks: None) == AUG


def test_moved_columns_are_read_by_header_name():
    def move(blocks):
        rows = gpu_rows(blocks)
        order = [rows[0].index(n) for n in ("On-demand, GPU-hour", "Item", "Preemptible, GPU-hour", "RAM, GB", "vCPUs")]
        rows[:] = [[r[i] for i in order] for r in rows]
    moved = run(aug_variant(move), AUG_DAY)
    assert offer(moved, "NVIDIA HGX H100", "on-demand")["price_per_gpu_hour"] == 3.85
    assert offer(moved, "NVIDIA HGX H100", "preemptible")["price_per_gpu_hour"] == 2.15


def test_unescaped_json_blocks_are_read_too():
    plain = json.loads(f'"{AUG}"')  # the same blocks one escape level down (e.g. a plain JSON script)
    assert {o["offer_key"]: o["price_per_gpu_hour"] for o in run(plain, AUG_DAY).items} == \
        {o["offer_key"]: o["price_per_gpu_hour"] for o in run(AUG, AUG_DAY).items}


def test_page_with_embedded_json_and_rendered_rows_is_read_from_the_json_once():
    both = run(SEP.replace("</body>", AUG + "</body>"), AUG_DAY)
    assert len(both.items) == 16 and offer(both, "NVIDIA HGX B300", "preemptible")["price_per_gpu_hour"] == 4.30


@pytest.mark.parametrize("old,new,message", [
    ("<p>On-demand, GPU-hour</p>", "<p>Pay as you go, GPU-hour</p>", "'Pay as you go, GPU-hour' names a tier we do not know"),
    ("<p>On-demand, GPU-hour</p>", "<p>On-demand, instance-hour</p>", "'On-demand, instance-hour' is not per GPU-hour"),
    ("<p>Spot price, GPU-hour*</p>", "<p>Spot price, hour*</p>", "'Spot price, hour' is not per GPU-hour"),
    ("(Effective October 1, 2026)", "(Effective 1st of October)", "cannot read the date of column"),
])
def test_sep_layout_changes_fail_naming_the_column(old, new, message):
    outcome = judged(SEP.replace(old, new, 1))
    assert outcome.status == "failed" and outcome.offers == []
    assert "nebius" in outcome.error and message in outcome.error


def test_sep_one_unreadable_price_cell_holds_that_offer_the_others_load(sep):
    # Issue 20 item 2. <p>NVIDIA HGX H100</p> ... <p>$3.85</p> under <p>On-demand, GPU-hour</p>,
    # changed to "€3.85" (the page is USD): that one offer is held (unpriced, the text kept), the
    # provider suspect, every other offer of the page loads as recorded.
    assert SEP.count("<p>$3.85</p>") == 1
    result = run(SEP.replace("<p>$3.85</p>", "<p>€3.85</p>"), SEP_DAY)
    outcome = judge.judge_crawl(result)
    assert outcome.status == "suspect" and outcome.trusted
    assert f"1 of {len(sep.items)} row(s) held" in outcome.error
    assert "price cell unreadable: '€3.85' (On-demand, GPU-hour)" in outcome.error
    h100 = offer(result, "NVIDIA HGX H100", "on-demand")
    assert (h100["is_priced"], h100["price_raw"], h100["price_per_gpu_hour"]) == (False, "€3.85", None)
    assert h100["offer_key"] == offer(sep, "NVIDIA HGX H100", "on-demand")["offer_key"]
    others = sorted((o["offer_key"], o["is_priced"], o["price_per_gpu_hour"]) for o in result.items if o is not h100)
    assert others == sorted((o["offer_key"], o["is_priced"], o["price_per_gpu_hour"]) for o in sep.items
                            if o["offer_key"] != h100["offer_key"])
    # read off the page: <p>NVIDIA HGX H200</p> ... <p>$4.50</p> on-demand
    assert offer(result, "NVIDIA HGX H200", "on-demand")["price_per_gpu_hour"] == 4.50


def test_renamed_on_demand_column_in_the_json_table_fails():
    def rename(blocks):
        rows = gpu_rows(blocks)
        rows[0] = ["Price, GPU-hour" if h == "On-demand, GPU-hour" else h for h in rows[0]]
    outcome = judged(aug_variant(rename), AUG_DAY)
    assert outcome.status == "failed" and "'Price, GPU-hour' names a tier we do not know" in outcome.error


def test_missing_on_demand_column_fails():
    def drop(blocks):
        rows = gpu_rows(blocks)
        i = rows[0].index("On-demand, GPU-hour")
        rows[:] = [r[:i] + r[i + 1:] for r in rows]
    outcome = judged(aug_variant(drop), AUG_DAY)
    assert outcome.status == "failed" and "no 'On-demand, GPU-hour' column in any GPU table" in outcome.error


def test_removed_gpu_tables_fail():
    outcome = judged(aug_variant(lambda blocks: blocks.remove(next(b for b in blocks if b.get("title") == "NVIDIA GPU Instances"))), AUG_DAY)
    assert outcome.status == "failed"
    assert "no GPU price table" in outcome.error and "'CPU-only instances'" in outcome.error


def test_page_without_any_table_fails():
    outcome = judged(SEP.replace("pc-highlight-table-block__root", "pc-removed"))
    assert outcome.status == "failed" and "no price tables" in outcome.error


# ---------- the one real replay ----------

def test_replay_of_the_shipped_real_capture(crawl):
    result = crawl("nebius", CAPTURE)
    assert judge.judge_crawl(result).status == "ok"
    offers = by_key(result)
    h100 = [o for o in offers.values() if o["gpu_label"] == "NVIDIA HGX H100"]
    assert sorted((o["tier"], o["price_per_gpu_hour"]) for o in h100) == [("on-demand", 3.85), ("preemptible (from)", 0.79)]
    assert len(result.items) == 16
    assert {o["capture"]["captured_at"][:10] for o in result.items} == {"2026-09-28"}
