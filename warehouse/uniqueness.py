"""The uniqueness of an offer within its run, (run_id, provider, offer_key), enforced at load:
`offers` has no primary key (migration 027: the key was 76 % of the file and no query used it),
so the load refuses a run whose offers repeat a key, naming them, before anything is stored."""

from __future__ import annotations

import pandas as pd


def _refuse_duplicates(offers: pd.DataFrame) -> None:
    """The uniqueness of (run_id, provider, offer_key), enforced at load (offers has no key):
    one set of the keys (no statement, no sort; for a backfill's many rows, of their 64-bit hashes:
    distinct hashes are distinct keys); only a batch that may repeat one pays for the exact check
    and the message naming them."""
    if not len(offers):
        return
    key = ["run_id", "provider", "offer_key"]
    if len(offers) > 20_000:
        if not pd.util.hash_pandas_object(offers[key], index=False).duplicated().any():
            return
    else:
        keys = list(zip(offers["run_id"].tolist(), offers["provider"].tolist(), offers["offer_key"].tolist()))
        if len(set(keys)) == len(keys):
            return
    if not offers.duplicated(key).any():   # a hash collision, no repeated key
        return
    duplicated = offers.duplicated(key, keep=False)
    named = sorted({f"{p} {k!r}" for p, k in offers.loc[duplicated, ["provider", "offer_key"]].itertuples(index=False)})
    run_id = offers.loc[duplicated, "run_id"].iloc[0]
    raise ValueError(f"run {run_id}: offer stored twice in one run: " + "; ".join(named[:3])
                     + (f" and {len(named) - 3} more" if len(named) > 3 else ""))


def _refuse_duplicates_by_run(runs: list[tuple], offers: pd.DataFrame) -> None:
    """_refuse_duplicates for a backfill's batch (offers: its runs' offers concatenated). When
    each run's offers carry that run's own run_id (as built runs do; the batch's run ids are
    distinct), a repeat can only be within one run: one set of its (provider, offer_key) per
    run, exact (290k offers in 200 runs: ~45 ms, vs ~75 ms for the batch's hashes); a run that
    repeats one is checked again by _refuse_duplicates for the message. Otherwise (a run's
    frame holding another run's rows) the whole batch at once."""
    for run, _, frame, _ in runs:
        if frame is not None and len(frame) and not (frame["run_id"].to_numpy() == run["run_id"]).all():
            _refuse_duplicates(offers)
            return
    for _, _, frame, _ in runs:
        if frame is not None and len(frame) and \
                len(set(zip(frame["provider"].tolist(), frame["offer_key"].tolist()))) != len(frame):
            _refuse_duplicates(frame)
