"""The quality gate's screen (pricewatch/collect/gate.py screen), vectorised over a run's offers: one
batch with a reading for every verdict, each message written out by hand from the rules in the
module docstring and the bands in pricewatch/record/gpu_catalog.yaml. Pure function, no warehouse: ~10 ms."""

import pandas as pd

from pricewatch.collect.gate import screen


def _offer(provider, key, model, count, price, currency="USD"):
    return {"provider": provider, "offer_key": key, "gpu_model": model, "gpu_count": count, "billing": "on-demand",
            "currency": currency, "is_priced": True, "price_per_hour": price, "price_per_gpu_hour": price / count}


def test_one_batch_gets_every_verdict_with_its_message():
    offers = pd.DataFrame([
        _offer("acme", "1x H100 on-demand", "H100", 1, 2.0),              # -4.8 % from $2.10: trusted
        _offer("acme", "8x H100 on-demand", "H100", 8, 1e9),              # $1.25e8 per GPU-hour
        _offer("acme", "1x A100 80GB on-demand", "A100 80GB", 1, 2.0),    # +100 % from $1, nobody else
        _offer("acme", "1x L40S on-demand", "L40S", 1, 1.5),              # held at $1.5 last run, again now
        _offer("acme", "8x B200 on-demand", "B200", 8, 52.0),             # +30 % from $40 ...
        _offer("beta", "8x B200 on-demand", "B200", 8, 52.0),             # ... and at beta too
        _offer("acme", "8x H200 on-demand", "H200", 8, 20.0),             # never seen, below the cited $25
        _offer("acme", "1x H100 on-demand EUR", "H100", 1, 1e9, "EUR"),   # not USD: no band
        _offer("acme", "1x Mystery on-demand", None, 1, 1000.0),          # unknown GPU: the wide band
    ])
    previous = pd.DataFrame([
        {"provider": "acme", "offer_key": "1x H100 on-demand", "trusted_price": 2.1, "last_price": 2.1, "last_held": False},
        {"provider": "acme", "offer_key": "1x A100 80GB on-demand", "trusted_price": 1.0, "last_price": 1.0, "last_held": False},
        {"provider": "acme", "offer_key": "1x L40S on-demand", "trusted_price": 1.0, "last_price": 1.5, "last_held": True},
        {"provider": "acme", "offer_key": "8x B200 on-demand", "trusted_price": 40.0, "last_price": 40.0, "last_held": False},
        {"provider": "beta", "offer_key": "8x B200 on-demand", "trusted_price": 40.0, "last_price": 40.0, "last_held": False},
    ])
    # warehouse/sql/cited_prices.sql gives each (model, form factor) pair of the run's offers the
    # cited prices of its comparable class; these offers state no form factor.
    cited = pd.DataFrame([{"gpu_model": "H200", "form_factor": None, "gpu_count": 8, "billing": "on-demand",
                           "cited": "gamma 8x H200", "cited_price": 25.0}])
    out = screen(offers, previous, cited)
    assert list(zip(out["held_reason"], out["screen_note"])) == [
        (None, None),
        ("$1.25e+08 per GPU-hour is outside the plausible band $0.15-$24 for H100", None),
        ("moved +100.0% from the last trusted $1/h; held until the provider's next run confirms it", None),
        (None, "moved +50.0%, confirmed by the provider's next run"),
        (None, "moved +30.0%; B200 moved the same way at beta"),
        (None, "moved +30.0%; B200 moved the same way at acme"),
        ("first seen at $20/h, below the $25/h a published claim cites (gamma 8x H200); "
         "held until the provider's next run confirms it", None),
        (None, None),
        ("$1000 per GPU-hour is outside the plausible band $0.01-$250 for any GPU", None),
    ]
    assert list(out.columns[:len(offers.columns)]) == list(offers.columns)   # the offers as given, two columns added
    assert "held_reason" not in offers.columns                                 # the caller's frame is not changed


def test_an_empty_run_and_no_previous_readings():
    empty = pd.DataFrame(columns=["provider", "offer_key", "gpu_model", "gpu_count", "billing", "currency",
                                  "is_priced", "price_per_hour", "price_per_gpu_hour"])
    assert list(screen(empty, None).columns)[-2:] == ["held_reason", "screen_note"]
    first = screen(pd.DataFrame([_offer("acme", "1x H100 on-demand", "H100", 1, 2.0)]), None)
    assert first["held_reason"].tolist() == [None] and first["screen_note"].tolist() == [None]


def test_the_cited_prices_are_needed_only_for_an_offer_never_trusted():
    from pricewatch.collect.gate import may_cite
    offers = pd.DataFrame([_offer("acme", "1x H100 on-demand", "H100", 1, 2.0)])
    trusted = pd.DataFrame([{"provider": "acme", "offer_key": "1x H100 on-demand", "trusted_price": 2.1,
                             "last_price": 2.1, "last_held": False}])
    assert not may_cite(offers, trusted)
    assert may_cite(offers, None)                                    # first seen
    assert may_cite(offers, trusted.assign(trusted_price=None))      # seen, never trusted
    assert not may_cite(offers.assign(gpu_model=None), None)         # an unknown GPU is never compared


def test_a_first_seen_offer_is_compared_with_the_cited_prices_of_its_own_form_factor_only():
    # An H100 NVL first seen below a cited H100 SXM price is another comparable class: not held.
    offers = pd.DataFrame([{**_offer("acme", "8x H100 NVL on-demand", "H100", 8, 15.0), "form_factor": "NVL"},
                           {**_offer("acme", "8x H100 SXM on-demand", "H100", 8, 15.0), "form_factor": "SXM"}])
    cited = pd.DataFrame([{"gpu_model": "H100", "form_factor": "SXM", "gpu_count": 8, "billing": "on-demand",
                           "cited": "gamma 8x H100 SXM", "cited_price": 20.0}])
    out = screen(offers, None, cited)
    assert out["held_reason"].tolist() == [
        None,
        "first seen at $15/h, below the $20/h a published claim cites (gamma 8x H100 SXM); "
        "held until the provider's next run confirms it"]
