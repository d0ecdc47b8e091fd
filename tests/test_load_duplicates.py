"""A run whose offers repeat a (provider, offer_key) is refused naming them (offers has no key:
warehouse/load.py checks each batch before it writes), for a nightly run and for a backfill's
many rows (checked by their hashes first). Pure function of the frame: ~0.1 s."""

import pandas as pd
import pytest

from warehouse.uniqueness import _refuse_duplicates


def _offers(n: int, run_id: str = "run-1") -> pd.DataFrame:
    return pd.DataFrame({"run_id": [run_id] * n, "provider": ["acme"] * n, "offer_key": [f"1x H100 #{i}" for i in range(n)]})


@pytest.mark.parametrize("n", [1_500, 30_000])   # a nightly run; a backfill's batch (hashed)
def test_a_repeated_offer_is_refused_naming_it_and_a_clean_batch_passes(n):
    clean = _offers(n)
    _refuse_duplicates(clean)
    twice = pd.concat([clean, clean.iloc[[7]]], ignore_index=True)
    with pytest.raises(ValueError, match=r"^run run-1: offer stored twice in one run: acme '1x H100 #7'$"):
        _refuse_duplicates(twice)
    many = pd.concat([clean, clean.iloc[[1, 2, 3, 4, 5]]], ignore_index=True)
    with pytest.raises(ValueError, match=r"acme '1x H100 #1'; acme '1x H100 #2'; acme '1x H100 #3' and 2 more$"):
        _refuse_duplicates(many)


def test_the_same_offer_in_two_runs_of_a_backfill_is_no_repeat():
    _refuse_duplicates(pd.concat([_offers(15_000, "run-1"), _offers(15_000, "run-2")], ignore_index=True))
