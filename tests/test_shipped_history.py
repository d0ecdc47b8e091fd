"""The shipped history moves (issue 21 item 8): later or earlier real recordings of three
providers, each dated by its own recording, replayed beside the recordings shipped before.

Each provider's dated captures (captures/<date>/<provider>.warc.gz, oldest first) go through the
session `crawl` fixture (the real Scrapy replay), are judged and loaded night by night into one
warehouse, as `pricewatch run --replay captures` loads them. The expected prices were read off
the two real documents by a person; the snippets are quoted below and checked to be in the
recorded bytes.

* runpod, 2026-08-25 (getcomputable/gpu-index gputypes.json @ 5cf4f703) -> 2026-09-28
  (ewyluda/gpu-price-index runpod.json @ d789fed5):
    2026-08-25  "id": "NVIDIA H100 80GB HBM3", ... "securePrice": 3.29   /  "id": "NVIDIA L40S", ... "securePrice": 0.99
    2026-09-28  "id": "NVIDIA H100 80GB HBM3", ... "securePrice": 3.49   /  "id": "NVIDIA L40S", ... "securePrice": 1.09
  price_changes: H100 secure 3.29 -> 3.49 (+6.08%), L40S secure 0.99 -> 1.09 (+10.1%).
* nebius, 2026-08-22 (gpu-index prices.html @ 055204ad) -> ~2026-09-28 (ewyluda nebius.html @ eb72cc64):
    2026-08-22  [\"NVIDIA L40S with Intel CPU\",\"16-192\",\"96-1152\",\"from $0.90\",\"from $1.82\"]
                [\"NVIDIA L40S with AMD CPU\",\"8-40\",\"32-160\",\"from $0.74\",\"from $1.55\"]
    2026-09-28  NVIDIA L40S with Intel CPU | 8-40 | 32-160 | from $1.55     (on-demand table)
                NVIDIA L40S with AMD CPU | 16-192 | 96-1152 | from $1.82
  The page swapped the rows' CPU names (the vCPU ranges went with the prices): by offer
  (Intel / AMD) the "from" prices changed, Intel 1.82 -> 1.55, AMD 1.55 -> 1.82 on demand and
  Intel 0.90 -> 0.74, AMD 0.74 -> 0.90 preemptible. H100 on demand is $3.85 on both days.
* lambda_cloud, 2026-01-09 (Internet Archive capture 20260109103934 of lambda.ai/pricing, cut by
  henryzhangpku/gpu-price-index @ c4ae7ff9) -> 2026-08-22 (gpu-index pricing.html @ 055204ad), 8x tab:
    2026-01-09  data-plan="NVIDIA H100 SXM" ... <td data-label="PRICE/GPU/HR*">$2.99</td>
    2026-08-22  data-plan="NVIDIA H100 SXM" ... <td data-label="PRICE/GPU/HR*">$3.99</td>
  (B200 SXM6 $4.99 -> $6.69, A100 SXM 80 GB $1.79 -> $2.79, 40 GB $1.29 -> $1.99, V100 $0.55 ->
  $0.79). Every one of these moves is 33-56%, above the quality gate's bound, and no other provider
  moved those GPUs the same way that night: the gate holds them (held_offers) until a later Lambda
  run confirms them, and none is shipped, so they are not in price_changes.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone

import pytest

from pricewatch.collect import judge, replays, store
from tests.conftest import CAPTURES, CAPTURES_SRC
from warehouse import db

PROVIDERS = ("runpod", "nebius", "lambda_cloud")


def _dates(provider: str) -> list[str]:
    return sorted(p.parent.name for p in CAPTURES.glob(f"*/{provider}.warc.gz"))


def _snippet(path, pattern: str) -> None:
    text = (CAPTURES_SRC / path).read_text(encoding="utf-8")
    assert re.search(pattern, text, re.S), f"{path}: {pattern!r} not in the recording"


@pytest.fixture(scope="module")
def history(tmp_path_factory, crawl):
    con = db.connect(tmp_path_factory.mktemp("shipped-history") / "pricewatch.duckdb")
    nights = sorted({d for p in PROVIDERS for d in _dates(p)})
    for night in nights:
        batch = CAPTURES / night
        results = [crawl(p, batch / f"{p}.warc.gz") for p in PROVIDERS if (batch / f"{p}.warc.gz").exists()]
        outcomes = [judge.judge_crawl(r) for r in results]
        run, prs, offers, facts = judge.build_run(outcomes, "replay", datetime.now(timezone.utc), None, None,
                                                    captured_at=replays.archive_capture_times(batch),
                                                    known_providers=replays.all_providers())
        store.load_run(con, run, prs, offers, facts)
    yield con, nights
    con.close()


def _changes(con, provider: str) -> dict[str, tuple]:
    rows = con.execute("""SELECT offer_key, event, old_price_per_hour, new_price_per_hour, changed_at
                          FROM price_changes WHERE provider = ?""", [provider]).fetchall()
    return {k: (e, float(o), float(n), c.astimezone(timezone.utc).date().isoformat()) for k, e, o, n, c in rows}


def test_each_provider_has_two_real_recordings_dated_by_their_own_capture(history):
    _, nights = history
    assert _dates("runpod") == ["2026-08-25", "2026-09-28"]
    assert _dates("nebius") == ["2026-08-22", "2026-09-28"]
    assert _dates("lambda_cloud") == ["2026-01-09", "2026-08-22"]
    assert nights == ["2026-01-09", "2026-08-22", "2026-08-25", "2026-09-28"]
    for date, provider in [("2026-01-09", "lambda_cloud"), ("2026-08-25", "runpod"), ("2026-08-22", "nebius")]:
        head = (CAPTURES_SRC / date / provider / "exchanges.yaml").read_text(encoding="utf-8")
        assert head.startswith("# REAL recording")
    assert 'captured_at: "2026-01-09T10:39:34Z"' in (CAPTURES_SRC / "2026-01-09/lambda_cloud/exchanges.yaml").read_text()


def test_every_night_of_the_three_providers_loads_ok(history):
    con, _ = history
    rows = con.execute("""SELECT provider, count(*), bool_and(status = 'ok') FROM provider_runs
                          WHERE list_contains(?::VARCHAR[], provider) AND status <> 'not attempted'
                          GROUP BY provider ORDER BY provider""",
                       [list(PROVIDERS)]).fetchall()
    assert rows == [("lambda_cloud", 2, True), ("nebius", 2, True), ("runpod", 2, True)]


def test_runpod_secure_prices_moved_between_august_and_september(history):
    con, _ = history
    _snippet("2026-08-25/runpod/gputypes.json",
             r'"id": "NVIDIA H100 80GB HBM3",\s*"displayName": "H100 SXM",\s*"memoryInGb": 80,\s*"securePrice": 3\.29,')
    _snippet("2026-09-28/runpod/graphql_gpuTypes.json",
             r'"id": "NVIDIA H100 80GB HBM3",\s*"displayName": "H100 SXM",\s*"memoryInGb": 80,\s*"securePrice": 3\.49,')
    _snippet("2026-08-25/runpod/gputypes.json", r'"id": "NVIDIA L40S",\s*"displayName": "L40S",\s*"memoryInGb": 48,\s*"securePrice": 0\.99,')
    _snippet("2026-09-28/runpod/graphql_gpuTypes.json", r'"id": "NVIDIA L40S",\s*"displayName": "L40S",\s*"memoryInGb": 48,\s*"securePrice": 1\.09,')
    changes = _changes(con, "runpod")
    assert changes == {
        "1x NVIDIA H100 80GB HBM3 on-demand/secure": ("changed", 3.29, 3.49, "2026-09-28"),
        "1x NVIDIA L40S 48GB on-demand/secure": ("changed", 0.99, 1.09, "2026-09-28"),
    }
    pct = con.execute("""SELECT change_pct FROM price_changes WHERE provider = 'runpod'
                         AND offer_key = '1x NVIDIA H100 80GB HBM3 on-demand/secure'""").fetchone()[0]
    assert float(pct) == pytest.approx(6.08)


def test_nebius_l40s_rows_swapped_their_cpu_names(history):
    con, _ = history
    _snippet("2026-08-22/nebius/prices.html",
             r'\[\\"NVIDIA L40S with Intel CPU\\",\\"16-192\\",\\"96-1152\\",\\"from \$0\.90\\",\\"from \$1\.82\\"\]')
    _snippet("2026-08-22/nebius/prices.html",
             r'\[\\"NVIDIA L40S with AMD CPU\\",\\"8-40\\",\\"32-160\\",\\"from \$0\.74\\",\\"from \$1\.55\\"\]')
    _snippet("2026-09-28/nebius/prices.html", r"<p>NVIDIA L40S with Intel CPU</p>.*?<p>8-40</p>.*?<p>from \$1\.55</p>")
    _snippet("2026-09-28/nebius/prices.html", r"<p>NVIDIA L40S with AMD CPU</p>.*?<p>16-192</p>.*?<p>from \$1\.82</p>")
    assert _changes(con, "nebius") == {
        "1x NVIDIA L40S on-demand/on-demand (from) #Intel CPU": ("changed", 1.82, 1.55, "2026-09-28"),
        "1x NVIDIA L40S on-demand/on-demand (from) #AMD CPU": ("changed", 1.55, 1.82, "2026-09-28"),
        "1x NVIDIA L40S spot/preemptible (from) #Intel CPU": ("changed", 0.90, 0.74, "2026-09-28"),
        "1x NVIDIA L40S spot/preemptible (from) #AMD CPU": ("changed", 0.74, 0.90, "2026-09-28"),
    }
    # H100 on demand: $3.85 on both days (the "Effective October 1, 2026" $4.50 is not in force
    # on 2026-09-28), one spell.
    spells = con.execute("""SELECT count(*), min(price_per_hour) FROM price_spells
                            WHERE provider = 'nebius' AND offer_key = '1x NVIDIA HGX H100 on-demand'""").fetchone()
    assert (spells[0], float(spells[1])) == (1, 3.85)


def test_lambda_jumps_are_held_by_the_gate_not_changes(history):
    con, _ = history
    _snippet("2026-01-09/lambda_cloud/pricing.html",
             r'data-plan="NVIDIA H100 SXM">.*?<td data-label="PRICE/GPU/HR\*">\$2\.99</td>')
    _snippet("2026-08-22/lambda_cloud/pricing.html",
             r'data-plan="NVIDIA H100 SXM">.*?<td data-label="PRICE/GPU/HR\*">\$3\.99</td>')
    assert _changes(con, "lambda_cloud") == {}
    held = {k: (float(p), float(g), r) for k, p, g, r in con.execute(
        """SELECT offer_key, price_per_hour, price_per_gpu_hour, held_reason FROM held_offers
           WHERE provider = 'lambda_cloud'""").fetchall()}
    expected = {  # offer: (Jan per GPU, Aug per GPU)
        "8x NVIDIA H100 SXM 80GB on-demand": (2.99, 3.99),
        "8x NVIDIA B200 SXM6 180GB on-demand": (4.99, 6.69),
        "8x NVIDIA A100 SXM 80GB on-demand": (1.79, 2.79),
        "8x NVIDIA A100 SXM 40GB on-demand": (1.29, 1.99),
        "8x NVIDIA Tesla V100 16GB on-demand": (0.55, 0.79),
    }
    assert set(held) == set(expected)
    for key, (jan, aug) in expected.items():
        per_hour, per_gpu, reason = held[key]
        assert per_gpu == pytest.approx(aug) and per_hour == pytest.approx(8 * aug)
        pct = (aug - jan) / jan * 100
        assert reason == (f"moved {pct:+.1f}% from the last trusted ${8 * jan:g}/h; "
                          "held until the provider's next run confirms it")
