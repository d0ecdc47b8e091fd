"""Which comparable class a "cheapest" claim, or a page's own price of a GPU, compares (issue 23
item 3): like with like, never an H100 NVL against an H100 SXM. An offer's class comes from the
warehouse's one definition (warehouse/macros/comparable_class.sql, through Snapshot.comparable_class);
this module only chooses which class a claim means:

* the class the rule names (``class:`` on a cheapest_offer claim, or on the page's ``gpus`` entry);
* else the cited offer's class (its reading in the snapshot, or its latest stored one);
* else the one class the offers in question have. Offers of several classes and no class named is
  a problem to state, never a mix to pick from.
"""

from __future__ import annotations

from collections.abc import Iterable

from pricewatch.claims.snapshot import Snapshot


def chosen_class(snap: Snapshot, offers: Iterable[dict], named: str | None = None,
                 cited: tuple[str, str] | None = None) -> tuple[str | None, str | None]:
    """(class, problem): the class compared, or why none can be (offers of several classes)."""
    if named is not None:
        return named, None
    if cited is not None:
        state = snap.state(cited[0])
        offer = state.offers.get(cited[1]) if state else None
        found = snap.comparable_class(offer) if offer else snap.last_class(*cited)
        if found is not None:
            return found, None
    classes = sorted({snap.comparable_class(o) for o in offers})
    if len(classes) > 1:
        return None, (f"offers of {len(classes)} comparable classes ({', '.join(classes)}) and the rule names "
                      "none (class:)")
    return (classes[0] if classes else None), None
