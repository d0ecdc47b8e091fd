"""A backfill's batch is checked for repeated offers run by run (warehouse/load.py
_refuse_duplicates_by_run): a repeat within one run is refused naming it, the same offer in
two runs is none, and a run's frame holding another run's rows is checked with the whole batch
(a repeat across the two frames is then one). Pure function of the frames: a few ms."""

import pandas as pd
import pytest

from warehouse.uniqueness import _refuse_duplicates_by_run


def _run(run_id: str, keys: list[str], rows_run_id: str | None = None) -> tuple:
    offers = pd.DataFrame({"run_id": [rows_run_id or run_id] * len(keys), "provider": ["acme"] * len(keys),
                           "offer_key": keys})
    return ({"run_id": run_id}, None, offers, None)


def _check(runs):
    _refuse_duplicates_by_run(runs, pd.concat([r[2] for r in runs], ignore_index=True))


def test_a_repeat_within_one_run_of_a_backfill_is_refused_naming_it():
    clean = [f"1x H100 #{i}" for i in range(50)]
    _check([_run("run-1", clean), _run("run-2", clean), _run("run-3", clean)])   # the same offers each night: no repeat
    with pytest.raises(ValueError, match=r"^run run-2: offer stored twice in one run: acme '1x H100 #7'$"):
        _check([_run("run-1", clean), _run("run-2", clean + ["1x H100 #7"]), _run("run-3", clean)])


def test_a_frame_holding_another_runs_rows_is_checked_with_the_whole_batch():
    # run-2's frame carries run-1's rows: offer #3 is then in run-1 twice, across the two frames
    with pytest.raises(ValueError, match=r"^run run-1: offer stored twice in one run: acme '1x H100 #3'$"):
        _check([_run("run-1", ["1x H100 #3", "1x H100 #4"]), _run("run-2", ["1x H100 #3"], rows_run_id="run-1")])
    _check([_run("run-1", ["1x H100 #3"]), _run("run-2", ["1x H100 #4"], rows_run_id="run-1")])
