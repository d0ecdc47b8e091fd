"""The published pages regenerated whole from their claims (rules/<page>/page.tmpl).

Expected texts are the published pages themselves (rules/published/, copies of
../shared/published/) and values read off them by a person; the number-coverage test finds the
numbers in each page's text with its own pattern, independently of rules/.
"""

import re
from decimal import Decimal

import pytest

from pricewatch.claims import pages
from pricewatch.claims.rules import load_rules
from pricewatch.reports.page_report import published_original

RULES = load_rules()
PAGES = sorted(RULES.pages)

# Digits that are names, not figures (reviewed by hand against both pages): GPU and model names,
# precisions, flags and paper ids, "per one hour" phrases, and configuration labels (a GPU and a
# count, e.g. "H200を2台", "B300 × 4、4 枚で"), which the cell's fits/from claims evaluate.
NAMES = re.compile("|".join([
    r"RTX PRO 6000", r"RTX 6000 Ada", r"RTX A6000", r"RTX [34]090", r"(?<![A-Za-z0-9])[ABHL]\d{2,3}S?(?![0-9])",
    r"Llama \d\.\d", r"Qwen2\.5", r"(?<![\d.,])\d+B(?![A-Za-z0-9])", r"分の1", r"ファインチューニング1回",
    r"\d+ ?ビット", r"\d+-bit", r"BF16", r"FP32", r"--load_in_4bit", r"fsdp2", r"zero3", r"ZeRO-3",
    r"arXiv:\d{4}\.\d{4,5}", r"arxiv\.org/abs/\d{4}\.\d{4,5}", r"/ja/gpus/[a-z0-9\-]+\.html\.md",
    r"GPU ?1 ?時間あたり", r"(?<![\d.,])1 ?時間あたり", r"GPU1基あたり", r"1 パラメータあたり", r"10億パラメータあたり",
    r"1つの(?:GPUモデル|コマンド)", r"(?<![\d.,])1時間(?=[\d.]+ドル)", r"Transformer Math 101", r"1基のGPU", r"GPU 1 枚", r"GPU1台",
    r"を[1-9]台", r"(?<![\d.,])[1-9]× ", r"× [1-9]", r"(?<![\d.,])[1-9] 枚", r"(?<![\d.,])[1-9] ?基", r"マシン 1 台",
    r"A100 80GB", r"H100 vs A100", r"80GB",
]))
NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def slot_spans(rendered: pages.RenderedPage) -> list[tuple[int, int, str]]:
    """(start, end, claim id) of every value slot in the page as published."""
    spans, pos = [], 0
    for seg in rendered.segments:
        for part in seg.parts:
            text = part if isinstance(part, str) else part.published
            if not isinstance(part, str) and not part.assertion:
                spans.append((pos, pos + len(text), part.claim_id))
            pos += len(text)
    return spans


@pytest.mark.parametrize("page_id", PAGES)
def test_rendering_the_published_values_gives_back_the_page_byte_for_byte(page_id):
    page = RULES.pages[page_id]
    assert pages.render_page(RULES, page).text.encode("utf-8") == published_original(page).encode("utf-8")


@pytest.mark.parametrize("page_id", PAGES)
def test_every_number_a_reader_sees_is_a_claim(page_id):
    page = RULES.pages[page_id]
    text = published_original(page)
    spans = slot_spans(pages.render_page(RULES, page))
    names = [(m.start(), m.end()) for m in NAMES.finditer(text)]
    uncovered = []
    for m in NUMBER.finditer(text):
        if any(a <= m.start() and m.end() <= b for a, b, _ in spans) or any(a <= m.start() and m.end() <= b for a, b in names):
            continue
        uncovered.append(f"{m.group(0)!r} in …{text[max(0, m.start() - 25):m.end() + 15]!r}")
    assert not uncovered, f"{len(uncovered)} number(s) of {page_id} without a claim:\n" + "\n".join(uncovered)


def test_the_numbers_the_issue_names_have_claims():
    # Read off page 1 by hand: leftovers, host sizes, the smallest fit, dates, "about 1%", 1/10,000.
    spans = {cid for _, _, cid in slot_spans(pages.render_page(RULES, RULES.pages["gpuwithcrypto-llama-70b-finetuning"]))}
    for cid in ("g-left.h200-x8-eleutherai", "g-left.b200-x8-huggingface", "g-host.gpus-min", "g-host.gpus-max",
                "g-dates.summary", "g-dates.survey", "g-sources.qlora", "g-ref.lora-adapter-percent",
                "g-ref.lora-reduction"):
        assert cid in spans, cid
    page2 = {cid for _, _, cid in slot_spans(pages.render_page(RULES, RULES.pages["arrakis-gpu-memory"]))}
    assert "a-dates.listing" in page2


def _rows(status: str, **overrides) -> dict[str, dict]:
    rows = {cid: {"status": status, "current_value": None, "current_text": None, "pick": None,
                  "reason": "source failing since 2026-11-05 02:00 UTC" if status == "unverifiable" else None}
            for cid in RULES.claims}
    for cid, row in overrides.items():
        rows[cid.replace("__", ".").replace("_", "-")] = row
    return rows


@pytest.mark.parametrize("page_id", PAGES)
def test_a_missing_input_never_renders_a_broken_sentence(page_id):
    page = RULES.pages[page_id]
    published = published_original(page)
    out = pages.render_page(RULES, page, _rows("unverifiable")).text
    # The published words are all there, in order; nothing is blanked, no "?" and no empty pick.
    assert out.replace(pages.UNVERIFIED, "") == published
    assert "（、" not in out and "?" not in out.replace("？", "")
    assert out.count(pages.UNVERIFIED) > 20


def test_a_moved_price_is_rewritten_and_a_sentence_whose_logic_fails_is_marked_for_an_editor():
    # GPUwithCrypto's 8x B200 at $40.00/h: the survey sentence says "$36.88/時間に対して$0.92/時間" today;
    # with 40.00 / 0.92 = 43.5 the "same ratio" no longer holds: the sentence is kept for an editor.
    rows = {cid: {"status": "holds", "current_value": None, "current_text": None, "pick": None, "reason": None}
            for cid in RULES.claims}
    rows["g-cfg-prices.b200-x8"] = {"status": "drifted", "current_value": Decimal("40.00"), "current_text": "$40.00",
                                    "pick": None, "reason": "published $36.88, now $40.00"}
    rows["g-ratio-full-vs-qlora.same"] = {"status": "drifted", "current_value": Decimal(0), "current_text": "✗",
                                          "pick": None, "reason": "44 vs 40"}
    page = RULES.pages["gpuwithcrypto-llama-70b-finetuning"]
    rendered = pages.render_page(RULES, page, rows)
    text = rendered.text
    assert "| 8× B200 | 1,440 GB | ✓ | ✓ | ✓ | ✓ | $40.00/時間 |" in text
    assert ("当社の価格でも比率は同じで、$40.00/時間に対して$0.92/時間です【要編集: g-ratio-full-vs-qlora.same: 44 vs 40】。"
            in text)
    assert [(s.claim_id, s.published, s.current) for s in rendered.changed] == \
        [("g-cfg-prices.b200-x8", "$36.88", "$40.00")] * 3      # the methods table, the fit table, the survey
    # The dates of the readings: unchanged here (no current date in these rows), never blanked.
    assert "2026年10月29日時点" in text
    diff = rendered.diff(published_original(page))
    changed = [l for l in diff.splitlines() if l[:1] in "+-" and l[:3] not in ("+++", "---")]
    assert len(changed) == 6
    view = pages.page_html(rendered)
    assert "<del>$36.88</del> → <ins>$40.00</ins>" in view and "要編集" in view


def test_a_page_printed_without_a_date_gets_the_date_of_its_readings():
    # Page 1 prints "価格確認日：" with no date under both price tables; regenerated, it states the day
    # the own prices were read (the observed_date claim holds; its current text is 2026年11月5日).
    rows = {cid: {"status": "holds", "current_value": None, "current_text": None, "pick": None, "reason": None}
            for cid in RULES.claims}
    rows["g-dates.fit-table-checked"] = {"status": "holds", "current_value": None, "current_text": "2026年11月5日",
                                         "pick": None, "reason": None}
    text = pages.render_page(RULES, RULES.pages["gpuwithcrypto-llama-70b-finetuning"], rows).text
    assert "| 8× B200 | 1,440 GB | ✓ | ✓ | ✓ | ✓ | $36.88/時間 |\n価格確認日：2026年11月5日\n" in text


def test_tables_are_cut_from_the_page_template():
    titles = [t.title for t in pages.tables_of(RULES.pages["gpuwithcrypto-llama-70b-finetuning"])]
    assert titles == ["手法ごとにどのGPUを使うか？", "手法ごとにGPUは何台必要ですか？", "仮定の時間に基づく実行コスト見積もり"]
    assert [t.title for t in pages.tables_of(RULES.pages["arrakis-gpu-memory"])] == ["モデルの推論", "モデルのファインチューニング"]


def test_a_new_per_gpu_price_prints_its_own_digits():
    # Page 1 prints "GPU1基あたり5.4325ドル"; a new $5.15 must read "5.15ドル", never "5.1500ドル".
    from pricewatch.claims.formatting import shown
    claim = RULES.claims["g-cite-massed-b200x8.per-gpu"]
    assert (shown(claim, Decimal("5.15"), bare=True), shown(claim, Decimal("5.4325"), bare=True)) == ("5.15", "5.4325")


def test_the_date_of_changed_readings_is_the_new_one():
    # g-cfg-prices.b200-x8 drifted: the fit table's "2026年10月29日時点" dates it, so the regenerated
    # page states the day of the new readings (2026年11月5日, the date claim's current text).
    rows = {cid: {"status": "holds", "current_value": None, "current_text": None, "pick": None, "reason": None}
            for cid in RULES.claims}
    rows["g-cfg-prices.b200-x8"] = {"status": "drifted", "current_value": Decimal("40.00"), "current_text": "$40.00",
                                    "pick": None, "reason": "published $36.88, now $40.00"}
    rows["g-dates.fit-table"] = {"status": "holds", "current_value": None, "current_text": "2026年11月5日",
                                 "pick": None, "reason": None}
    rows["g-dates.summary"] = {"status": "holds", "current_value": None, "current_text": "2026年11月5日",
                               "pick": None, "reason": None}
    text = pages.render_page(RULES, RULES.pages["gpuwithcrypto-llama-70b-finetuning"], rows).text
    assert "価格は構成全体の1時間あたりの当社価格、2026年11月5日時点。" in text
    assert "2026年10月29日時点で、GPUwithCryptoはA100 80GBを$0.92/時間" in text   # the A100 price did not move


def test_a_markdown_page_is_rendered_as_markdown_in_its_html_view():
    """issue 21 item 9: page 2 (a Markdown page) reads as a page in its HTML view: its headings
    and tables rendered (markdown-it, raw HTML off), its numbers still linked to their claims."""
    page = RULES.pages["arrakis-gpu-memory"]
    view = pages.page_html(pages.render_page(RULES, page, None))
    # arrakis-gpu-memory.ja.md starts "# モデルに必要な GPU メモリは？" and has "## モデルの推論" and a table
    assert view.startswith('<div class="page-view md"><h1>モデルに必要な GPU メモリは？</h1>')
    assert "<h2>モデルの推論</h2>" in view and "<table>" in view and "<th>モデルサイズ</th>" in view
    assert '<a class="slot" href="#claim-a-rule.16bit-bytes"' in view
    assert "| モデルサイズ |" not in view and "\ue000" not in view
