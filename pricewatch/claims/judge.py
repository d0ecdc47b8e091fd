"""A claim's status from its outcome: holds, drifted (and why) or unverifiable."""

from __future__ import annotations

from decimal import Decimal

from pricewatch.claims import kinds as K
from pricewatch.claims import rules as R
from pricewatch.claims.formatting import display, quantize
from pricewatch.claims.result import Outcome


def judge(claim: R.Claim, o: Outcome) -> tuple[str, Decimal | None, str | None]:
    """(status, difference, reason) of an outcome against the published value."""
    if o.unverifiable:
        return "unverifiable", None, o.unverifiable
    pub, cur, diff = claim.published, o.value, None
    if claim.compute.kind in ("observed_date", "pick_source"):
        # A date states when the readings were taken: it is never itself wrong (what it dates may
        # be). A page that left the date blank ("価格確認日：") is filled in by the regenerated page.
        # A sources-list line (pick_source) is wrong only when it names another provider than the
        # one cited or picked now (its outcome's drift).
        ok = True
    elif isinstance(pub, bool) or claim.unit == "mark":
        ok = bool(cur) == bool(pub)
    elif isinstance(pub, str) or isinstance(cur, str):
        ok = str(cur) == str(pub)
    else:
        cur = Decimal(cur)
        diff = cur - pub
        tol = claim.tol
        if tol == "exact":
            ok = cur == pub
        elif tol == "cents":
            ok = quantize(cur, 2) == pub
        elif isinstance(tol, K.RoundsTo):
            ok = quantize(cur, tol.rounds_to) == pub
        else:
            ok = abs(diff) <= abs(pub) * tol.percent / 100
    if ok and not o.drift:
        return "holds", diff, None
    reason = [] if ok else [f"published {display(claim, pub)}, now {display(claim, cur)}" +
                            (f": {o.note}" if isinstance(pub, bool) and o.note else "")]
    if o.drift:
        reason.append(o.drift)
    return "drifted", diff, "; ".join(reason)


def tolerance_text(claim: R.Claim) -> str:
    tol = claim.tol
    if isinstance(tol, K.RoundsTo):
        return f"rounds to {tol.rounds_to} decimal{'s' if tol.rounds_to != 1 else ''}"
    if isinstance(tol, K.Percent):
        return f"±{tol.percent}%"
    return tol
