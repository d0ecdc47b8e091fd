"""The published numbers are reproduced: replaying captures/ (every dated folder, every provider
in it, oldest first) into a real DuckDB and evaluating the claims gives every number of both
published pages, and status `holds` for all of them.

Expected values are read from the pages themselves (rules/published/, copies of ../shared/published), never from the rules.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from decimal import Decimal

import pytest

from pricewatch.claims.evaluate import evaluate_claims
from pricewatch.claims.rules import load_rules
from pricewatch.collect import judge, replays, store
from tests.conftest import CAPTURES, ROOT
from warehouse import db, migrate

PUBLISHED = ROOT / "rules" / "published"
PAGE1 = (PUBLISHED / "gpuwithcrypto-llama-70b-finetuning.ja.txt").read_text(encoding="utf-8")
PAGE2 = (PUBLISHED / "arrakis-gpu-memory.ja.md").read_text(encoding="utf-8")
CLAIMS_MD = (PUBLISHED / "CLAIMS.md").read_text(encoding="utf-8")


def num(text: str) -> Decimal:
    return Decimal(text.replace(",", "").replace("$", ""))


@pytest.fixture(scope="session")
def replayed(tmp_path_factory, crawl):
    """`pricewatch run --replay captures` minus Prefect: one run per dated folder, oldest first,
    each evaluated right after loading (as the nightly flow does)."""
    base = tmp_path_factory.mktemp("claims-replay")
    path = base / "pricewatch.duckdb"
    con = db.connect(path)
    migrate.migrate(con)
    # The shipped captures span 2026-08-22 (most real recordings) to 2026-12-02 (stored copies of
    # Koyeb's and Replicate's pages read that day): replayed in order, the last snapshot finds most
    # sources older than the default 48 h staleness limit, and claims resting on them are
    # unverifiable (test_stale_sources_make_their_claims_unverifiable). These tests check the
    # recomputed values, so the limit is 125 days here (2026-08-22 to 2026-12-02 is 102 days).
    con.execute("UPDATE mart_settings SET stale_after_hours = 3000")
    runs = {}
    try:
        for batch in replays.replay_batches(CAPTURES):
            providers = replays.providers_in_archive(batch)
            # Each provider's shipped WARC, through the session's crawl cache: the same subprocess
            # replay its own tests use, run once.
            with ThreadPoolExecutor(max_workers=2) as pool:
                results = list(pool.map(lambda p: crawl(p, batch / f"{p}.warc.gz"), providers))
            outcomes = [judge.judge_crawl(r) for r in results]
            run, prs, offers, facts = judge.build_run(outcomes, "replay", datetime.now(timezone.utc), None, batch,
                                                        captured_at=replays.archive_capture_times(batch),
                                                        known_providers=replays.all_providers())
            store.load_run(con, run, prs, offers, facts)
            evaluate_claims(con, run["run_id"])
            runs[batch.name] = {"run_id": run["run_id"], "outcomes": {o.provider: o for o in outcomes}}
    finally:
        con.close()
    return {"db": path, "runs": runs}


def _rows(replayed, date: str) -> dict[str, dict]:
    con = db.connect(replayed["db"], read_only=True)
    try:
        cur = con.execute("SELECT * FROM claim_evaluations WHERE run_id = ?", [replayed["runs"][date]["run_id"]])
        cols = [d[0] for d in cur.description]
        rows = {}
        for values in cur.fetchall():
            row = dict(zip(cols, values))
            row["inputs"] = [dict(zip(("input_name", "role", "provider", "offer_key", "price_per_hour", "used",
                                       "source_url", "input_status"), i)) for i in con.execute(
                "SELECT input_name, role, provider, offer_key, price_per_hour, used, source_url, input_status "
                "FROM claim_inputs WHERE run_id = ? AND claim_id = ?", [row["run_id"], row["claim_id"]]).fetchall()]
            rows[row["claim_id"]] = row
        return rows
    finally:
        con.close()


@pytest.fixture(scope="session")
def final(replayed):
    """Every claim as of the last replayed run (2026-10-31 17:40 UTC: Arrakis's capture)."""
    return _rows(replayed, "2026-10-31")


def current(rows, claim_id) -> Decimal:
    row = rows[claim_id]
    assert row["status"] == "holds", (claim_id, row["reason"])
    return Decimal(row["current_value"]).normalize()


def pipe_table(text: str, header_start: str) -> list[list[str]]:
    lines = text.splitlines()
    i = next(n for n, l in enumerate(lines) if l.startswith(header_start))
    out = []
    for line in lines[i:]:
        if not line.startswith("|"):
            break
        out.append([c.strip() for c in line.strip().strip("|").split("|")])
    return [out[0]] + out[2:]  # header, rows (no separator)


def config(label: str) -> tuple[str, int]:
    """'A100 80GBを4台' -> ('a100-80gb', 4); '8× H200' -> ('h200', 8)."""
    m = re.fullmatch(r"(.+)を(\d+)台", label) or re.fullmatch(r"(\d+)× (.+)", label)
    gpu, n = (m.group(1), m.group(2)) if "台" in label else (m.group(2), m.group(1))
    return gpu.lower().replace(" ", "-"), int(n)


# ---------------------------------------------------------------- every claim, all statuses
def test_every_claim_id_of_claims_md_is_evaluated_and_holds(final):
    ids = re.findall(r"^\| ([ag]-[a-z0-9-]+) \|", CLAIMS_MD, re.M)
    assert len(ids) == 19 and "g-fit-table" in ids and "a-listing-count" in ids
    groups = {r["claim_group"] for r in final.values()}
    assert set(ids) <= groups, set(ids) - groups
    not_holding = {cid: (r["status"], r["reason"]) for cid, r in final.items() if r["status"] != "holds"}
    assert not_holding == {}
    assert len(final) == len(load_rules().claims) >= 200


def test_before_the_arrakis_capture_page_2_prices_are_unverifiable_and_page_1_holds(replayed):
    first = _rows(replayed, "2026-10-29")
    page1 = {cid: r for cid, r in first.items() if r["page"] == "gpuwithcrypto-llama-70b-finetuning"}
    assert {r["status"] for r in page1.values()} == {"holds"}
    row = first["a-inference-table.8b.16bit.from"]
    assert row["status"] == "unverifiable" and "no successful arrakis run" in row["reason"]
    # Memory arithmetic does not need prices: it holds on day one.
    assert first["a-inference-table.8b.16bit.gb"]["status"] == "holds"


# ---------------------------------------------------------------- page 1
def test_page1_fit_table_every_cell(final):
    header, *rows = pipe_table(PAGE1, "| 構成 | 合計VRAM |")
    columns = ["qlora", "lora", "full-8bit", "full-adamw"]
    assert len(rows) == 10
    for label, total, *marks, price in rows:
        gpu, n = config(label)
        key = f"g-fit-table.{gpu}-x{n}"
        assert current(final, f"{key}.total-vram") == num(total.removesuffix(" GB")), label
        for col, mark in zip(columns, marks):
            assert current(final, f"{key}.{col}") == (1 if mark == "✓" else 0), (label, col)
        assert current(final, f"g-cfg-prices.{gpu}-x{n}") == num(price.removesuffix("/時間")), label
    # The page's own explanation: 8× H200 (1,128 GB) is ✗ for AdamW because of the 1,260 GB column.
    assert final["g-fit-table.h200-x8.full-adamw"]["current_text"] == "✗"


def test_page1_config_prices_match_claims_md(final):
    line = CLAIMS_MD[CLAIMS_MD.index("| g-cfg-prices |"):].splitlines()[0]
    prices = re.findall(r"(L40S|A100|H100|H200|B200)×(\d) \$([\d.]+)", line)
    assert len(prices) == 10
    for gpu, n, price in prices:
        gpu = "a100-80gb" if gpu == "A100" else gpu.lower()
        assert current(final, f"g-cfg-prices.{gpu}-x{n}") == num(price)


def test_page1_run_costs(final):
    header, *rows = pipe_table(PAGE1, "| 方法 | 構成 |")
    method = {"QLoRA": "qlora", "LoRA": "lora", "フル、8-bit Adam": "full-8bit", "フル、AdamW": "full-adamw"}
    assert len(rows) == 6
    for m, label, hours, gpu_hours, cost in rows:
        gpu, n = config(label)
        key = f"g-run-costs.{method[m]}-{gpu}-x{n}"
        assert current(final, key) == num(cost), label
        assert current(final, f"{key}.gpu-hours") == num(gpu_hours) == n * int(hours)


def test_page1_memory_numbers(final):
    assert current(final, "g-mem-qlora") == num(re.search(r"70 × 0.75 = ([\d.]+) GB", PAGE1).group(1)) == Decimal("52.5")
    assert current(final, "g-mem-qlora.per-b-params").quantize(Decimal("0.01")) == num(
        re.search(r"48 ÷ 65 = 10億パラメータあたり([\d.]+) GB", PAGE1).group(1))
    assert current(final, "g-mem-lora.floor") == num(re.search(r"70 × 2バイト = ([\d,]+) GB", PAGE1).group(1))
    assert current(final, "g-mem-lora") == num(re.search(r"140 × 1.2 = ([\d,]+) GB", PAGE1).group(1))
    assert current(final, "g-mem-full-adamw.eleutherai") == num(re.search(r"70 × 16 = ([\d,]+) GB", PAGE1).group(1))
    assert current(final, "g-mem-full-adamw.huggingface") == num(re.search(r"18バイトと数えます：([\d,]+) GB", PAGE1).group(1))
    assert current(final, "g-mem-full-8bit") == num(re.search(r"70 × 12 = ([\d,]+) GB", PAGE1).group(1))
    assert current(final, "g-mem-4bit-weights") == num(re.search(r"70Bの重みだけで([\d,]+) GB", PAGE1).group(1))
    assert current(final, "g-mem-4bit-weights.rtx4090") == 0  # "RTX 4090の24 GBを超えます"


def test_page1_survey_cheapest_citation_and_ratio(final, replayed):
    m = re.search(r"最安価格は1時間([\d.]+)ドルでした（Massed Compute、GPU1基あたり([\d.]+)ドル）", PAGE1)
    assert current(final, "g-cite-massed-b200x8") == num(m.group(1))
    assert current(final, "g-cite-massed-b200x8.per-gpu") == num(m.group(2))
    assert current(final, "g-cite-thunder-a100") == num(re.search(r"Thunder Computeで1時間([\d.]+)ドル", PAGE1).group(1))
    about = num(re.search(r"ハードウェア1時間あたりで約(\d+)倍", PAGE1).group(1))
    # CLAIMS.md: "43.46 / 1.09 = 39.9; own prices 36.88 / 0.92 = 40.1; 'about 40×' holds while it rounds to 40".
    survey, own = current(final, "g-ratio-full-vs-qlora"), current(final, "g-ratio-full-vs-qlora.own")
    assert survey.quantize(Decimal("0.1")) == Decimal("39.9") and own.quantize(Decimal("0.1")) == Decimal("40.1")
    assert survey.quantize(Decimal(1)) == own.quantize(Decimal(1)) == about
    # The cited offer and the current cheapest pick are both recorded; with every tracked
    # competitor of the capture compared, Massed Compute stays the cheapest self-service on-demand 8× B200.
    row = final["g-cite-massed-b200x8"]
    roles = {i["role"]: i for i in row["inputs"]}
    assert (roles["cited"]["provider"], roles["cited"]["offer_key"]) == ("massed_compute", "8x B200 SXM6 on-demand")
    assert (roles["cheapest"]["provider"], roles["cheapest"]["offer_key"]) == ("massed_compute", "8x B200 SXM6 on-demand")
    assert row["pick"] == "Massed Compute"
    # Independently of the engine: every self-service on-demand 8× B200 price in force, but those
    # whose newest reading the quality gate holds (Lambda's 2026-08-22 page moved +34% from its
    # 2026-01-09 capture: held, so its January price is not current and is not compared).
    con = db.connect(replayed["db"], read_only=True)
    try:
        cheapest, providers = con.execute(
            "SELECT min(price_per_hour), count(DISTINCT provider) FROM latest_offers WHERE held_reading_reason IS NULL "
            "AND gpu_model = 'B200' "
            "AND gpu_count = 8 AND billing = 'on-demand' AND self_service AND NOT is_aggregator AND is_priced "
            # Verda's serverless containers are billed per GPU-hour but are not instances.
            "AND provider <> 'gpuwithcrypto' AND tier <> 'serverless'").fetchone()
    finally:
        con.close()
    assert cheapest == num(m.group(1))
    assert f"from {providers} provider(s)" in row["note"]


def test_page1_own_prices_specs_and_blocks(final):
    own = dict(re.findall(r"([A-Z]\d+)が\$([\d.]+)/時間", PAGE1))  # "当社の価格ではA100が$0.92/時間、H100が$2.32/時間"
    assert current(final, "g-own-a100") == num(own["A100"]) and current(final, "g-own-a100.h100") == num(own["H100"])
    m = re.search(r"([\d.]+)倍（密で([\d.]+)対(\d+) TFLOPS）、帯域幅は([\d,]+) GB/s（SXM）対([\d,]+) GB/s", PAGE1)
    assert current(final, "g-spec-h100-a100").quantize(Decimal("0.1")) == num(m.group(1))
    assert current(final, "g-spec-h100-a100.h100-tflops") == num(m.group(2))
    assert current(final, "g-spec-h100-a100.a100-tflops") == num(m.group(3))
    assert current(final, "g-spec-h100-a100.h100-bandwidth") == num(m.group(4))
    assert current(final, "g-spec-h100-a100.a100-bandwidth") == num(m.group(5))
    blocks = re.search(r"1つのGPUモデルにつき([\d、]+)時間のブロック", PAGE1).group(1).split("、")
    assert final["g-blocks"]["current_text"] == ", ".join(blocks)
    topup, coins = re.search(r"\$(\d+)のチャージから([A-Z, ]+)で支払え", PAGE1).groups()
    assert current(final, "g-blocks.topup") == num(topup)
    assert final["g-blocks.coins"]["current_text"] == coins.strip()


# ---------------------------------------------------------------- page 2
CELL = re.compile(r"^(?P<gb>[\d,.]+) GB：(?P<rest>.*)$")
COLUMN = {"16 ビット": "16bit", "8 ビット": "8bit", "4 ビット": "4bit", "QLoRA": "qlora", "LoRA": "lora",
          "フルファインチューニング": "full"}


def page2_cells():
    for start, group in (("| モデルサイズ | 16 ビット", "a-inference-table"), ("| モデルサイズ | QLoRA", "a-finetune-table")):
        header, *rows = pipe_table(PAGE2, start)
        for model, *cells in rows:
            size = re.match(r"(\d+)B", model).group(1)
            for col, cell in zip(header[1:], cells):
                yield f"{group}.{size}b.{COLUMN[col]}", cell


def test_page2_tables_every_cell(final):
    cells = list(page2_cells())
    assert len(cells) == 30
    for key, cell in cells:
        m = CELL.match(cell)
        assert current(final, f"{key}.gb") == num(m.group("gb")), cell
        rest = m.group("rest")
        if "8 GPU マシン 1 台を超える" in rest:
            assert current(final, f"{key}.fits") == 0
            continue
        named = re.findall(r"\[([^\]]+)\]\(", rest)
        price = re.search(r"\$([\d.]+) から", rest).group(1)
        pick = re.search(r"、([^、]+?) は GPU 1 時間あたり", rest)
        assert current(final, f"{key}.fits") == 1, cell
        assert current(final, f"{key}.from") == num(price), cell
        assert final[f"{key}.from"]["pick"] == (pick.group(1) if pick else named[0]), cell


def test_page2_claims_md_examples(final):
    # "8B 16-bit 19 GB → RTX 4090 or RTX 3090, from $0.19; 70B 8-bit 84 GB → RTX PRO 6000 from $1.90;
    #  405B 16-bit 972 GB → B300 × 4 from $18.40"
    assert (current(final, "a-inference-table.8b.16bit.gb"), current(final, "a-inference-table.8b.16bit.from")) == (19, Decimal("0.19"))
    assert (current(final, "a-inference-table.70b.8bit.gb"), current(final, "a-inference-table.70b.8bit.from")) == (84, Decimal("1.9"))
    assert (current(final, "a-inference-table.405b.16bit.gb"), current(final, "a-inference-table.405b.16bit.from")) == (972, Decimal("18.4"))
    assert current(final, "a-finetune-table.405b.qlora.gb") == 284  # 283.5 shown whole


def test_page2_text_numbers(final):
    h100, rtx4090 = re.search(r"H100 の最安値は GPU 1 時間あたり \$([\d.]+)、RTX 4090 は \$([\d.]+)", PAGE2).groups()
    assert current(final, "a-cheapest-h100") == num(h100) and current(final, "a-cheapest-4090") == num(rtx4090)
    machines, gpus = re.search(r"([\d,]+) 台のマシンに ([\d,]+) 基の GPU", PAGE2).groups()
    assert current(final, "a-listing-count") == num(gpus) and current(final, "a-listing-count.machines") == num(machines)
    assert current(final, "a-memory-rules.qlora-bytes").quantize(Decimal("0.1")) == num(
        re.search(r"48 GB の GPU 1 枚でファインチューニングしました（\[arXiv:2305.14314\]\([^)]+\)）。パラメータあたり約 ([\d.]+) バイト", PAGE2).group(1))


def test_page2_cheaper_fit_is_a_note_not_a_drift(final):
    # CLAIMS.md: "405B QLoRA names H100 × 4 although one B300 is cheaper": keep the pick, say so.
    row = final["a-finetune-table.405b.qlora.from"]
    assert row["status"] == "holds" and row["pick"] == "H100"
    assert "1× B300" in row["note"] and "$4.60" in row["note"]


# ---------------------------------------------------------------- tables, CLI, report
def table_lines(text: str) -> list[str]:
    return [l for l in text.splitlines() if l.startswith("|")]


def _cli(*args) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "250"}
    return subprocess.run([sys.executable, "-m", "pricewatch.cli", *args], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=120)


def test_report_re_renders_both_pages_tables_with_current_prices(replayed, tmp_path):
    done = _cli("report", "--db", str(replayed["db"]), "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    page1 = (tmp_path / "gpuwithcrypto-llama-70b-finetuning.tables.md").read_text(encoding="utf-8")
    page2 = (tmp_path / "arrakis-gpu-memory.tables.md").read_text(encoding="utf-8")
    assert table_lines(page1) == table_lines(PAGE1)
    assert table_lines(page2) == table_lines(PAGE2)
    assert "価格確認日：2026年10月29日" in page1  # page 1's prices were observed on 2026-10-29
    report = (tmp_path / "claims-report.md").read_text(encoding="utf-8")
    assert "Every claim holds." in report
    # "as of" the last snapshot (2026-12-02 12:00: Koyeb's and Replicate's pages), and when the readings it
    # uses were seen: Massed Compute's page of 2026-08-22 12:00 to Arrakis's of 2026-10-31 17:40.
    assert ("The snapshot of 2026-12-02 12:00 UTC uses the latest reading of each source: the readings the claims "
            "use were seen from 2026-08-22 12:00 to 2026-10-31 17:40 UTC.") in report
    assert "https://vm.massedcompute.com/pricing" in report and "https://arrakis.cloud/ja/gpus.html.md" in report
    assert "`g-cite-massed-b200x8`" in report and "captured 2026-10-29" in report
    # The whole pages, regenerated: every claim holds, so each is the published page, except the
    # two "価格確認日：" lines page 1 printed without a date, now filled with the day the prices
    # were read (captures of 2026-10-29).
    assert (tmp_path / "arrakis-gpu-memory.ja.md").read_text(encoding="utf-8") == PAGE2
    assert (tmp_path / "arrakis-gpu-memory.diff").read_text(encoding="utf-8") == ""
    regenerated = (tmp_path / "gpuwithcrypto-llama-70b-finetuning.ja.txt").read_text(encoding="utf-8")
    assert regenerated == PAGE1.replace("価格確認日：\n", "価格確認日：2026年10月29日\n")
    diff = (tmp_path / "gpuwithcrypto-llama-70b-finetuning.diff").read_text(encoding="utf-8")
    assert [l for l in diff.splitlines() if l.startswith("+") and not l.startswith("+++")] == ["+価格確認日：2026年10月29日"] * 2
    view = (tmp_path / "gpuwithcrypto-llama-70b-finetuning.html").read_text(encoding="utf-8")
    assert "<del></del> → <ins>2026年10月29日</ins>" in view


def test_claims_cli_json_lists_every_claim_with_its_inputs(replayed):
    done = _cli("claims", "--db", str(replayed["db"]), "--json")
    assert done.returncode == 0, done.stderr
    items = {c["claim_id"]: c for c in json.loads(done.stdout)}
    assert len(items) == len(load_rules().claims)
    thunder = items["g-cite-thunder-a100"]
    assert (thunder["status"], thunder["published_value"], thunder["current_value"]) == ("holds", 1.09, 1.09)
    assert thunder["inputs"][0]["offer_key"] == "1x a100xl 80GB on-demand/prototyping"
    assert thunder["inputs"][0]["source_url"].startswith("https://api.thundercompute.com")
    table = _cli("claims", "--db", str(replayed["db"]), "--status", "holds", "--page", "arrakis-gpu-memory")
    assert table.returncode == 0 and "a-listing-count" in table.stdout and "g-cite" not in table.stdout


def test_evaluating_a_run_again_changes_nothing(replayed):
    con = db.connect(replayed["db"])
    try:
        before = con.execute("SELECT count(*), max(evaluated_at) FROM claim_evaluations").fetchone()
        inputs = con.execute("SELECT count(*) FROM claim_inputs").fetchone()
        for run in replayed["runs"].values():
            assert evaluate_claims(con, run["run_id"])["evaluated"] == 0
        assert con.execute("SELECT count(*), max(evaluated_at) FROM claim_evaluations").fetchone() == before
        assert con.execute("SELECT count(*) FROM claim_inputs").fetchone() == inputs
    finally:
        con.close()


def test_the_quality_gate_holds_no_reading_of_the_real_captures_but_the_one_real_outlier(replayed):
    # Every price of the shipped captures is a real page's price: none may be held as implausible
    # (a band too narrow would silently freeze a real price), except the one listing its origin
    # itself calls a real outlier: GPU.ai's 4x RTX 5090 at $154.67/h ($38.6675 per GPU-hour, in
    # tests/real/gpuai/pricing_page1.json), stored as evidence and never used.
    con = db.connect(replayed["db"], read_only=True)
    try:
        held = con.execute("SELECT provider, offer_key, held_reason FROM offers WHERE held_reason IS NOT NULL "
                           "ORDER BY provider, offer_key").fetchall()
        statuses = dict(con.execute("SELECT status, count(*) FROM provider_runs GROUP BY 1").fetchall())
    finally:
        con.close()
    outliers = [h for h in held if "plausible band" in h[2]]
    assert outliers == [("gpu_ai", "4x 79ff8ac1608a on-demand/community @ca-central #container",
                         "$38.6675 per GPU-hour is outside the plausible band $0.1-$3 for RTX 5090")]
    # and the real moves the gate holds for a second reading (issue 21's shipped history): Lambda's
    # 8x page of 2026-08-22 against its Internet Archive capture of 2026-01-09 (8x B200 $4.99 ->
    # $6.69 per GPU-hour, +34.1%; H100 $2.99 -> $3.99; A100 80GB $1.79 -> $2.79; A100 40GB
    # $1.29 -> $1.99; V100 $0.55 -> $0.79): no later Lambda recording confirms them
    moves = sorted((h[1], h[2].split(";")[0]) for h in held if h not in outliers)
    assert moves == [("8x NVIDIA A100 SXM 40GB on-demand", "moved +54.3% from the last trusted $10.32/h"),
                     ("8x NVIDIA A100 SXM 80GB on-demand", "moved +55.9% from the last trusted $14.32/h"),
                     ("8x NVIDIA B200 SXM6 180GB on-demand", "moved +34.1% from the last trusted $39.92/h"),
                     ("8x NVIDIA H100 SXM 80GB on-demand", "moved +33.4% from the last trusted $23.92/h"),
                     ("8x NVIDIA Tesla V100 16GB on-demand", "moved +43.6% from the last trusted $4.4/h")]
    assert {h[0] for h in held if h not in outliers} == {"lambda_cloud"}
    assert set(statuses) == {"ok", "not attempted"}


def test_stale_sources_make_their_claims_unverifiable(replayed, tmp_path):
    """With the default 48 h limit, the last snapshot (2026-10-31 17:40 UTC) finds Massed Compute's
    last good data from 2026-08-22 12:00 UTC and GPUwithCrypto's from 2026-10-29 02:00 UTC: the
    claims resting on them are unverifiable, never holds, and "cheapest" compares no stale source."""
    import shutil
    copy = tmp_path / "stale.duckdb"
    shutil.copy(replayed["db"], copy)
    con = db.connect(copy)
    try:
        con.execute("UPDATE mart_settings SET stale_after_hours = 48")
        run_id = replayed["runs"]["2026-10-31"]["run_id"]
        con.execute("DELETE FROM claim_inputs WHERE run_id = ?", [run_id])
        con.execute("DELETE FROM claim_evaluations WHERE run_id = ?", [run_id])
        evaluate_claims(con, run_id)
        rows = {r[0]: r[1:] for r in con.execute(
            "SELECT claim_id, status, reason, note FROM claim_evaluations WHERE run_id = ?", [run_id]).fetchall()}
    finally:
        con.close()
    status, reason, note = rows["g-cite-massed-b200x8"]
    assert status == "unverifiable" and reason.startswith("massed_compute is stale: its last good data is 1686 h old")
    assert "not compared (stale): " in note and "massed_compute" in note
    assert rows["g-own-a100"][0] == "unverifiable" and "gpuwithcrypto is stale" in rows["g-own-a100"][1]
    # Arrakis was read in this very run: page 2's prices still hold.
    assert rows["a-cheapest-h100"][0] == "holds"
    assert not any(s == "holds" and "stale" in (r or "") for s, r, _ in rows.values())


def test_claims_reevaluate_with_unchanged_rules_changes_nothing(replayed, tmp_path):
    import shutil
    copy = tmp_path / "re.duckdb"
    shutil.copy(replayed["db"], copy)
    done = _cli("claims", "--db", str(copy), "--reevaluate", "--status", "drifted")
    assert "rules unchanged since the latest snapshot was evaluated: nothing to re-evaluate" in done.stdout, done.stderr


def test_editing_a_rules_count_and_hours_relabels_every_cell_that_depends_on_them(replayed, tmp_path):
    """Issue 21 item 4: configuration labels, hour and GPU-hour columns come from the rules, and
    each sentence that states a relation asserts it. Edited here: the LoRA run on H200 from 2 GPUs
    x 12 h to 3 x 14 h, the QLoRA run on A100 80GB from 10 h to 12 h, the methods table's H200
    configuration from 2 to 4 GPUs and the fit table's H200 row from 2 to 3. Expected texts by hand
    from the page's own prices (H200 $3.07, A100 80GB $0.92 per GPU-hour) and blocks (10, 24, 168, 720)."""
    import shutil

    from pricewatch.claims import pages
    from pricewatch.claims.evaluate import reevaluate_latest

    rules_dir = tmp_path / "rules"
    shutil.copytree(ROOT / "rules", rules_dir)
    folder = rules_dir / "gpuwithcrypto-llama-70b-finetuning"
    prices = (folder / "prices.yaml").read_text(encoding="utf-8")
    for old, new in [("{kind: run_cost, gpu: H200, count: 2, hours: 12}", "{kind: run_cost, gpu: H200, count: 3, hours: 14}"),
                     ("{kind: run_cost, gpu: A100 80GB, count: 1, hours: 10}", "{kind: run_cost, gpu: A100 80GB, count: 1, hours: 12}"),
                     ("{kind: config_price, gpu: H200, count: 2}", "{kind: config_price, gpu: H200, count: 4}")]:
        assert prices.count(old) == 1, old
        prices = prices.replace(old, new)
    (folder / "prices.yaml").write_text(prices, encoding="utf-8")
    fit = (folder / "fit-table.yaml").read_text(encoding="utf-8")
    old = "{kind: total_vram, gpu: H200, count: 2}"
    assert fit.count(old) == 1
    (folder / "fit-table.yaml").write_text(fit.replace(old, "{kind: total_vram, gpu: H200, count: 3}"), encoding="utf-8")
    edited = load_rules(rules_dir)

    copy = tmp_path / "edited.duckdb"
    shutil.copy(replayed["db"], copy)
    con = db.connect(copy)
    try:
        done = reevaluate_latest(con, edited, force=True)
        cur = con.execute("SELECT * FROM claim_evaluations WHERE run_id = ? AND rules_version = ?",
                          [done["run_id"], edited.version])
        cols = [d[0] for d in cur.description]
        rows = {r["claim_id"]: r for r in (dict(zip(cols, v)) for v in cur.fetchall())}
    finally:
        con.close()
    page = edited.pages["gpuwithcrypto-llama-70b-finetuning"]
    text = pages.render_page(edited, page, rows).text
    # The run-costs table: label, assumed hours, GPU-hours and cost follow the edited rules.
    assert "| LoRA | H200を3台 | 14 | 42 | $128.94 |" in text            # 3 x 14 = 42; 42 x 3.07
    assert "| QLoRA | A100 80GBを1台 | 12 | 12 | $11.04 |" in text        # 12 x 0.92
    # The methods table and the fit table relabel their H200 configuration.
    assert "H200を4台（$12.28/時間）" in text                              # 4 x 3.07
    assert "| H200を3台 | 423 GB |" in text                                # 3 x 141 GB
    # 12 GPU-hours is no block we sell: the sentence that says the runs are blocks needs an editor.
    blocks = next(line for line in text.splitlines() if "GPU時間のブロックに対応しています" in line)
    assert "当社の12・24・168 GPU時間のブロックに対応しています【要編集: g-run-costs.blocks:" in blocks
    assert rows["g-run-costs.blocks"]["status"] == "drifted" and "12 not among g-blocks" in rows["g-run-costs.blocks"]["note"]
    # Unchanged rules keep their published labels.
    assert "| 8× B200 | 1,440 GB |" in text and "| LoRA | B200を1台 | 24 | 24 | $110.64 |" in text


def test_each_relation_the_page_states_is_asserted_and_holds(final):
    """Issue 21 item 4: the page's rule numbers are the sums and ratios it prints (48 ÷ 65 = 0.74,
    rounded to 0.75; 2 + 12 + 2 = 16; 6 + 8 + 4 = 18; 6 + 2 + 4 = 12; the 10/24/168-hour runs are
    blocks of 10, 24, 168, 720; page 2's 0.7 bytes is 48 / 65 to one decimal)."""
    for cid in ("g-rule.qlora-gb-per-b.follows", "g-rule.full-eleutherai-bytes.sum", "g-rule.full-huggingface-bytes.sum",
                "g-rule.full-8bit-bytes.sum", "g-run-costs.blocks", "a-rule.qlora-bytes.follows"):
        assert final[cid]["status"] == "holds" and final[cid]["current_value"] == 1, (cid, final[cid]["reason"])
    assert "10, 24, 168 are all among g-blocks (10, 24, 168, 720)" in final["g-run-costs.blocks"]["note"]


def test_re_running_the_latest_night_after_a_rules_edit_re_evaluates_that_night(replayed, tmp_path):
    """Issue 21 item 5: a night run again after a rules/ edit (its run id is the same: replays are
    deterministic) evaluates its own snapshot under the new rules and tells the change there;
    the night before it is never evaluated again."""
    import shutil

    rules_dir = tmp_path / "rules"
    shutil.copytree(ROOT / "rules", rules_dir)
    prices = rules_dir / "gpuwithcrypto-llama-70b-finetuning" / "prices.yaml"
    text = prices.read_text(encoding="utf-8")
    assert text.count("    published: 6.14\n") == 1          # 2× H200: $6.14 per hour
    prices.write_text(text.replace("    published: 6.14\n", "    published: 6.15\n"), encoding="utf-8")
    edited = load_rules(rules_dir)
    latest, before = [replayed["runs"][d]["run_id"] for d in sorted(replayed["runs"])[-1:-3:-1]]
    copy = tmp_path / "rerun.duckdb"
    shutil.copy(replayed["db"], copy)
    con = db.connect(copy)
    try:
        done = evaluate_claims(con, latest, rules=edited)
        assert done["rule_changes"]["run_id"] == latest
        assert [c["claim_id"] for c in done["rule_changes"]["changed"]] == ["g-cfg-prices.h200-x2"]
        by_run = dict(con.execute("SELECT run_id, count(*) FROM claim_evaluations WHERE rules_version = ? GROUP BY 1",
                                  [edited.version]).fetchall())
        assert by_run == {latest: len(edited.claims)} and before not in by_run
    finally:
        con.close()
