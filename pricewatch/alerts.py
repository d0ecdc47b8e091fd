"""Alerts: what changed in a run that the editor of the published pages must hear about.

`derive_alerts(con, run_id, config)` compares a run's snapshot with the one before it and
stores one alert per state change; `deliver_alerts(con, config)` sends the pending ones through
apprise (pricewatch/notify.py) and keeps what failed for the next delivery.

- price_changed     an offer the claims cited moved (old, new, percent, every claim citing it)
- offer_disappeared a cited offer is gone from a successful run of its provider, or unpriced
- undercut          a "cheapest" claim's pick is now a cheaper competitor, not the cited offer
- claim_status      claims of a page went holds / drifted / unverifiable (one alert per page
                    and new status, listing each claim)
- source_failing    a source failed N runs in a row (once per failure streak)
- source_recovered  that source works again
- new_gpu_label     a provider lists a GPU label the catalog does not know (once per label)

Only successful provider runs are observations: a failed provider run stores no offers, so it
can neither move a price nor make an offer disappear. A price move beyond the plausibility
bound makes every alert it causes `suspect` (details.held_for names the reading): held until
the provider's next successful run shows the same price (then `pending`) or another one (then
`suppressed`, and the move is judged again from the last trusted price).

An alert's fingerprint names the state change and the run it first appeared in, so deriving
the same run again adds nothing, while a price that moves back later alerts again.

Backfill. Runs are compared in snapshot order (view run_sequence), whatever the load order. A
run loaded after a newer one has already been derived (an older archive replayed late) is
history, not news: its alerts are stored with state `suppressed` and
details.suppressed_because = 'backfill' (naming the newer run), and are never delivered; nor
does a backfilled run decide suspect readings (the newer runs have judged them).

A first failed night does not page. A claim that is unverifiable only because its sources
failed fewer than `failed_runs_threshold` runs in a row is left out of claim_status alerts (a
status no one was told is not a status the claim had). Once a source reaches the threshold,
one alert per page lists those claims, naming the failing source and its error once.

Undercuts: the claims engine never picks a reading the quality gate holds; a pick that is
itself held is skipped here too, and a competitor offer seen for the first time that undercuts
a cited price by more than the plausibility bound is held as suspect like a jump.

Text. Every string a source printed (offer keys, labels, tiers, price text, errors quoting a
page) goes through pricewatch.text: `plain` in titles and in the stored body (what the CLI
shows), `markdown` in the body sent (apprise body_format Markdown; e-mail gets it as escaped
HTML). Bodies are cut at a line boundary (BODY_MAX_CHARS), saying how many lines were left out.

Delivery (deliver_alerts): at least once to a receiver that was down or refused, at most once
to one that was sent the whole alert but did not answer within `timeout_s` (it may well have
processed it; resending is how a slow receiver got every alert twice). Exactly once is not
possible over a plain webhook: every payload carries `alert_id` (JSON/form/XML field and
Idempotency-Key header, and the body's last line) so a receiver can drop a duplicate.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime, timezone
from decimal import Decimal

import duckdb

from pricewatch import notify, text
from pricewatch.config import AlertConfig, Config, load_config
from warehouse import db

CITING_ROLES = ("cited", "own")  # the page names this very offer; 'cheapest' picks may rotate
UTC_FMT = "%Y-%m-%d %H:%M UTC"
TITLE_MAX_CHARS = 250
BODY_MAX_CHARS = 3500      # under Slack's and most e-mail clients' limits; apprise splits further


class S(str):
    """A string a source printed: made inert for each output (pricewatch.text)."""


def _L(*parts) -> tuple[str, str]:
    """One body line as (plain, markdown): S parts escaped per output, the rest is ours."""
    return ("".join(text.plain(p) if isinstance(p, S) else str(p) for p in parts),
            "".join(text.markdown(p) if isinstance(p, S) else str(p) for p in parts))


def _cap(lines: list[str], limit: int = BODY_MAX_CHARS) -> str:
    """The lines joined, cut at a line boundary (never mid-word) when longer than limit."""
    body = "\n".join(lines)
    if len(body) <= limit:
        return body
    reserve = 90
    out, size = [], 0
    for ln in lines:
        if size + len(ln) + 1 > limit - reserve:
            break
        out.append(ln)
        size += len(ln) + 1
    if not out:   # one line longer than the limit: cut at the last space before it
        head = lines[0][: limit - reserve]
        out = [(head.rsplit(" ", 1)[0] if " " in head else head).rstrip() + " …"]
        left = len(lines) - 1
    else:
        left = len(lines) - len(out)
    if left:
        out.append(f"… and {left} more line(s): pricewatch alerts --json shows the alert in full.")
    return "\n".join(out)


def _render(lines: list) -> tuple[str, str]:
    """(plain body, Markdown body) of lines that are our own str or _L pairs."""
    pairs = [ln if isinstance(ln, tuple) else (ln, ln) for ln in lines]
    return _cap([p for p, _ in pairs]), _cap([m for _, m in pairs])


@dataclass
class Alert:
    kind: str
    subject: str
    change: str                  # with kind and subject: the fingerprint
    run_id: str
    title: str
    body: str
    details: dict
    notify_type: str = "warning"

    def __post_init__(self):
        if isinstance(self.title, tuple):
            self.title = self.title[0]
        self.title = text.plain(self.title, TITLE_MAX_CHARS)
        if isinstance(self.body, list):
            self.body, self.details["body_markdown"] = _render(self.body)

    def backfill(self, run: "_Run", newer: dict) -> None:
        """History, not news: stored suppressed, never delivered."""
        note = (f"Backfill: derived for the run of {run.observed_at:{UTC_FMT}}, older than the run of "
                f"{newer['observed_at']:{UTC_FMT}} already derived: stored as history, not sent.")
        self.body += "\n" + note
        if "body_markdown" in self.details:
            self.details["body_markdown"] += "\n" + note
        self.details.update(suppressed_because="backfill", newer_run_id=newer["run_id"])

    @property
    def fingerprint(self) -> str:
        return f"{self.kind}|{self.subject}|{self.change}"

    @property
    def alert_id(self) -> str:
        return hashlib.sha256(self.fingerprint.encode()).hexdigest()[:12]

    @property
    def state(self) -> str:
        if self.details.get("suppressed_because"):
            return "suppressed"
        return "suspect" if self.details.get("held_for") else "pending"


@dataclass
class _Run:
    run_id: str
    seq: int
    observed_at: datetime
    previous_eval: str | None      # the latest earlier run with claim evaluations
    claims: dict                   # claim_id -> this run's evaluation
    inputs: list[dict]             # claim inputs naming an offer, this run and previous_eval


def derive_alerts(con: duckdb.DuckDBPyConnection, run_id: str, config: Config | AlertConfig | None = None) -> dict:
    """Stores the alerts run_id raises; returns counts of what happened."""
    cfg = _alert_config(config)
    db.migrate(con)
    found = _rows(con, "SELECT seq, observed_at FROM run_sequence WHERE run_id = ?", [run_id])
    if not found:
        raise ValueError(f"run {run_id} is not in the warehouse")
    run = _load_run(con, run_id, found[0]["seq"], found[0]["observed_at"])
    counts = {"raised": 0, "suspect": 0, "confirmed": 0, "suppressed": 0}
    newer = _newer_derived(con, run)
    resolutions = {} if newer else _resolve_suspects(con, run, counts)
    moves = _moves(con, run, resolutions, cfg)
    _screen_first_seen(con, run, moves, cfg)
    alerts = (_price_alerts(con, run, moves, cfg) + _disappeared(con, run) + _undercut(con, run, moves, cfg)
              + _claim_status(con, run, moves, cfg) + _source_health(con, run, cfg) + _new_labels(con, run))
    if newer:
        for a in alerts:
            a.backfill(run, newer)
    now = datetime.now(timezone.utc)
    for a in alerts:
        inserted = con.execute(
            """INSERT INTO alerts (alert_id, run_id, kind, subject, fingerprint, state, notify_type,
                                   title, body, details, created_at, updated_at)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING alert_id""",
            [a.alert_id, a.run_id, a.kind, a.subject, a.fingerprint, a.state, a.notify_type, a.title,
             a.body, _dumps(a.details), now, now]).fetchall()
        if inserted:
            counts[{"suspect": "suspect", "suppressed": "suppressed"}.get(a.state, "raised")] += 1
    return counts


def _newer_derived(con, run: "_Run") -> dict | None:
    """The newest run after this one in snapshot order that has already been evaluated or
    derived: when there is one, this run is a backfill."""
    checks = [f"EXISTS (SELECT 1 FROM {t} x WHERE x.run_id = s.run_id)"
              for t in ("claim_evaluations", "alerts") if _has(con, t)]
    if not checks:
        return None
    found = _rows(con, f"""SELECT s.run_id, s.observed_at FROM run_sequence s
                           WHERE s.seq > ? AND ({' OR '.join(checks)}) ORDER BY s.seq DESC LIMIT 1""", [run.seq])
    return found[0] if found else None


def _load_run(con, run_id: str, seq: int, observed_at: datetime) -> _Run:
    if not _has(con, "claim_evaluations"):
        return _Run(run_id, seq, observed_at, None, {}, [])
    prev = _rows(con, """SELECT DISTINCT e.run_id, s.seq FROM claim_evaluations e JOIN run_sequence s USING (run_id)
                         WHERE s.seq < ? ORDER BY s.seq DESC LIMIT 1""", [seq])
    previous = prev[0]["run_id"] if prev else None
    claims = {r["claim_id"]: r for r in _rows(con, "SELECT * FROM claim_evaluations WHERE run_id = ?", [run_id])}
    runs = [r for r in (run_id, previous) if r]
    inputs = _rows(con, f"""SELECT * FROM claim_inputs WHERE offer_key IS NOT NULL
                            AND run_id IN ({', '.join('?' * len(runs))})""", runs)
    return _Run(run_id, seq, observed_at, previous, claims, inputs)


# --- price observations and suspect readings ---------------------------------------------

def _observations(con, run: _Run, provider: str, offer_key: str) -> tuple[dict | None, dict | None, bool]:
    """(this run's observation, the last one before it, whether the provider ran ok now)."""
    ok_now = bool(con.execute("SELECT count(*) FROM provider_runs WHERE run_id = ? AND provider = ? AND status = 'ok'",
                              [run.run_id, provider]).fetchone()[0])
    obs = _rows(con, """
        SELECT o.*, s.seq FROM offers o
        JOIN provider_runs pr USING (run_id, provider) JOIN run_sequence s USING (run_id)
        WHERE pr.status = 'ok' AND o.held_reason IS NULL AND o.provider = ? AND o.offer_key = ? AND s.seq <= ?
        ORDER BY s.seq DESC LIMIT 2""", [provider, offer_key, run.seq])
    cur = obs[0] if obs and obs[0]["run_id"] == run.run_id else None
    before = [o for o in obs if o["run_id"] != run.run_id]
    return cur, (before[0] if before else None), ok_now


def _resolve_suspects(con, run: _Run, counts: dict) -> dict[str, dict]:
    """Decides the suspect alerts of earlier runs with this run's observations. Returns, per
    held reading, {held, baseline..., outcome: confirmed | refuted}. An alert already resolved
    by this very run is read again (not changed), so deriving a run twice gives one answer."""
    held = _rows(con, """
        SELECT a.* FROM alerts a JOIN run_sequence s USING (run_id)
        WHERE s.seq < ? AND (a.state = 'suspect' OR json_extract_string(a.details, '$.resolved_by_run') = ?)
        ORDER BY s.seq, a.alert_id""", [run.seq, run.run_id])
    out: dict[str, dict] = {}
    for a in held:
        details = json.loads(a["details"])
        outcomes = {}
        for subject, reading in details["held_for"].items():
            provider, offer_key = subject.split("/", 1)
            cur, _, ok_now = _observations(con, run, provider, offer_key)
            if not ok_now or cur is None or not cur["is_priced"]:
                continue  # not observed: still undecided
            same = cur["price_per_hour"] == Decimal(str(reading["held_price"]))
            outcomes[subject] = "confirmed" if same else "refuted"
            out[subject] = {**reading, "outcome": outcomes[subject], "now": cur["price_per_hour"]}
        if "refuted" in outcomes.values():
            state = "suppressed"
        elif len(outcomes) == len(details["held_for"]):
            state = "pending"
        else:
            continue
        notes = [_L(S(s), f": {'confirmed' if o == 'confirmed' else 'not confirmed'} by the run of "
                    f"{run.observed_at:{UTC_FMT}} (${_money(out[s]['now'])}/h)") for s, o in sorted(outcomes.items())]
        details.update(resolved_by_run=run.run_id, resolution=state)
        if "body_markdown" in details:
            details["body_markdown"] = _cap((details["body_markdown"] + "\n" + "; ".join(m for _, m in notes)
                                             + ".").split("\n"))
        changed = con.execute(
            """UPDATE alerts SET state = ?, body = ?, details = ?, updated_at = ?
               WHERE alert_id = ? AND state = 'suspect' RETURNING alert_id""",
            [state, _cap((a["body"] + "\n" + "; ".join(p for p, _ in notes) + ".").split("\n")), _dumps(details),
             datetime.now(timezone.utc), a["alert_id"]]).fetchall()
        if changed:
            counts["confirmed" if state == "pending" else "suppressed"] += 1
    return out


def _moves(con, run: _Run, resolutions: dict, cfg: AlertConfig) -> dict[str, dict]:
    """Price moves of every offer a claim used (this run or the previous evaluation), from the
    last trusted price: a refuted suspect reading is not a price the offer ever had."""
    out = {}
    for provider, offer_key in sorted({(i["provider"], i["offer_key"]) for i in run.inputs}):
        subject = f"{provider}/{offer_key}"
        cur, before, ok_now = _observations(con, run, provider, offer_key)
        if not ok_now or cur is None or before is None or not cur["is_priced"]:
            continue  # failed source: nothing observed; gone or unpriced: see _disappeared
        res = resolutions.get(subject)
        if res and res["outcome"] == "confirmed":
            continue  # the held alerts carry this move
        if res:
            base = {"price_per_hour": _dec(res["old_price"]), "price_per_gpu_hour": res["old_price_per_gpu_hour"],
                    "price_text": None, "observed_at": datetime.fromisoformat(res["old_observed_at"]),
                    "run_id": res["old_run_id"]}
        else:
            base = {k: before[k] for k in ("price_per_hour", "price_per_gpu_hour", "price_text", "observed_at", "run_id")}
        old, new = base["price_per_hour"], cur["price_per_hour"]
        if old == new:
            continue
        pct = None if old is None else round(float((new - old) / old * 100), 2)
        # A move the quality gate let through (confirmed by a second run, or by the market)
        # has been checked already: it is not held a second time here.
        out[subject] = {"cur": cur, "base": base, "pct": pct,
                        "suspect": pct is not None and abs(pct) > cfg.plausibility_pct and not cur.get("screen_note")}
    return out


def _held(moves: dict, subjects) -> dict:
    """details.held_for: the suspect readings an alert waits on."""
    out = {}
    for s in sorted(set(subjects)):
        m = moves.get(s)
        if m and m["suspect"]:
            b = m["base"]
            out[s] = {"held_price": m["cur"]["price_per_hour"], "old_price": b["price_per_hour"],
                      "old_price_per_gpu_hour": b["price_per_gpu_hour"], "old_observed_at": b["observed_at"],
                      "old_run_id": b["run_id"], "percent": m["pct"], "first_seen": bool(m.get("first_seen"))}
    return out


def _hold_note(held: dict, cfg: AlertConfig) -> list:
    if not held:
        return []
    parts: list = ["Held as suspect: "]
    for n, (s, h) in enumerate(held.items()):
        how = (f" first seen at ${_money(h['held_price'])}/h, {h['percent']:+.2f}% from the price it undercuts"
               if h.get("first_seen") else f" moved {h['percent']:+.2f}%")
        parts += ([", "] if n else []) + [S(s), how]
    return [_L(*parts, f", beyond the {cfg.plausibility_pct:g}% plausibility bound; "
                       "sent only once the next run shows the same price.")]


def _screen_first_seen(con, run: "_Run", moves: dict, cfg: AlertConfig) -> None:
    """A competitor offer seen for the first time (no earlier trusted reading) that undercuts a
    cited price by more than the plausibility bound is held like a jump: a placeholder on a new
    tier is likelier than a two-thirds price cut. Added to moves as a suspect first-seen move."""
    if not run.previous_eval:
        return   # a first evaluation: everything is first seen, and nothing is news yet
    for cited, pick in _undercut_states(run, run.run_id).values():
        s = f"{pick['provider']}/{pick['offer_key']}"
        if s in moves:
            continue
        cur, before, ok_now = _observations(con, run, pick["provider"], pick["offer_key"])
        if not ok_now or cur is None or before is not None or not cur["is_priced"]:
            continue
        pct = round(float((pick["price_per_hour"] - cited["price_per_hour"]) / cited["price_per_hour"] * 100), 2)
        if -pct > cfg.plausibility_pct and not cur.get("screen_note"):
            moves[s] = {"cur": cur, "pct": pct, "suspect": True, "first_seen": True,
                        "base": {"price_per_hour": None, "price_per_gpu_hour": None, "price_text": None,
                                 "observed_at": None, "run_id": None}}


# --- prices -------------------------------------------------------------------------------

def _watched(run: _Run, roles=None) -> list[tuple[str, str]]:
    """The offers the pages cited before this run: the previous evaluation's inputs (this
    one's, for a first evaluation). An offer that only now became a "cheapest" pick is news
    as an undercut, not as a price change."""
    basis = run.previous_eval or run.run_id
    return sorted({(i["provider"], i["offer_key"]) for i in run.inputs
                   if i["run_id"] == basis and (roles is None or i["role"] in roles)})


def _citing_claims(run: _Run, provider: str, offer_key: str) -> list[dict]:
    """Every claim that uses the offer: in this run's evaluation, else in the previous one."""
    mine = [i for i in run.inputs if (i["provider"], i["offer_key"]) == (provider, offer_key)]
    current = [i for i in mine if i["run_id"] == run.run_id] or mine
    out = {}
    for i in current:
        ev = run.claims.get(i["claim_id"], {})
        out.setdefault((i["claim_id"], i["input_name"]), {
            "claim_id": i["claim_id"], "input": i["input_name"], "role": i["role"], "page": ev.get("page"),
            "status": ev.get("status"), "published_text": ev.get("published_text"),
            "current_text": ev.get("current_text"), "published_value": ev.get("published_value"),
            "current_value": ev.get("current_value")})
    return [out[k] for k in sorted(out)]


def _price_alerts(con, run: _Run, moves: dict, cfg: AlertConfig) -> list[Alert]:
    out = []
    for provider, offer_key in _watched(run):
        subject = f"{provider}/{offer_key}"
        if subject not in moves or moves[subject].get("first_seen"):
            continue
        m = moves[subject]
        cur, base, pct = m["cur"], m["base"], m["pct"]
        old, new = base["price_per_hour"], cur["price_per_hour"]
        claims = _citing_claims(run, provider, offer_key)
        held = _held(moves, [subject])
        was = S(f"${_money(old)}/h" if old is not None else repr(base.get("price_text") or "unpriced"))
        move = f" ({pct:+.2f}%)" if pct is not None else ""
        lines = [_L(S(provider), " offer ", S(offer_key), " (", S(cur["gpu_model"] or cur["gpu_label"]),
                    f" x{cur['gpu_count']}, ", S(cur["billing"]), ", tier ", S(cur["tier"]), ")"),
                 _L("was ", was, f" (seen {base['observed_at']:{UTC_FMT}}), now ${_money(new)}/h "
                    f"(seen {cur['observed_at']:{UTC_FMT}}){move}.")]
        if cur.get("screen_note"):
            lines.append(_L("Checked by the quality gate: ", S(cur["screen_note"]), "."))
        lines += _hold_note(held, cfg) + _claim_lines(claims) + [_evidence(cur)]
        details = {"provider": provider, "offer_key": offer_key, "gpu_model": cur["gpu_model"],
                   "gpu_count": cur["gpu_count"], "billing": cur["billing"], "tier": cur["tier"],
                   "old_price_per_hour": old, "new_price_per_hour": new,
                   "old_price_per_gpu_hour": base["price_per_gpu_hour"], "new_price_per_gpu_hour": cur["price_per_gpu_hour"],
                   "percent": pct, "old_observed_at": base["observed_at"], "new_observed_at": cur["observed_at"],
                   "old_run_id": base["run_id"], "claims": claims, "held_for": held,
                   "source_url": cur["source_url"], "warc_file": cur["warc_file"], "warc_record_id": cur["warc_record_id"]}
        out.append(Alert("price_changed", subject, run.run_id, run.run_id,
                         f"Price changed: {provider} {offer_key} {was} -> ${_money(new)}/h{move}", lines, details))
    return out


def _disappeared(con, run: _Run) -> list[Alert]:
    out = []
    for provider, offer_key in _watched(run, CITING_ROLES):
        cur, before, ok_now = _observations(con, run, provider, offer_key)
        if not ok_now or before is None or not before["is_priced"] or (cur is not None and cur["is_priced"]):
            continue
        if cur is None and con.execute("SELECT count(*) FROM offers WHERE run_id = ? AND provider = ? AND offer_key = ?",
                                       [run.run_id, provider, offer_key]).fetchone()[0]:
            continue  # listed, with a reading the quality gate holds: not gone
        # News once: only when the offer was there in the provider's previous successful run.
        prev_ok = _rows(con, """SELECT pr.run_id FROM provider_runs pr JOIN run_sequence s USING (run_id)
                                WHERE pr.provider = ? AND pr.status = 'ok' AND s.seq < ?
                                ORDER BY s.seq DESC LIMIT 1""", [provider, run.seq])
        if not prev_ok or prev_ok[0]["run_id"] != before["run_id"]:
            continue
        how = "is no longer listed" if cur is None else f"is no longer priced ({cur['price_text']!r})"
        claims = _citing_claims(run, provider, offer_key)
        lines = [_L(S(provider), " offer ", S(offer_key), " (", S(before["gpu_model"] or before["gpu_label"]),
                    f" x{before['gpu_count']}, tier ", S(before["tier"]), ") ", S(how),
                    f" as of {run.observed_at:{UTC_FMT}}; last seen at ${_money(before['price_per_hour'])}/h on "
                    f"{before['observed_at']:{UTC_FMT}}.")]
        lines += _claim_lines(claims) + [_evidence(before)]
        details = {"provider": provider, "offer_key": offer_key, "last_price_per_hour": before["price_per_hour"],
                   "last_seen_at": before["observed_at"], "last_run_id": before["run_id"],
                   "price_text": cur["price_text"] if cur else None, "claims": claims}
        out.append(Alert("offer_disappeared", f"{provider}/{offer_key}", run.run_id, run.run_id,
                         f"Cited offer gone: {provider} {offer_key} {how}", lines, details))
    return out


def _undercut_states(run: _Run, run_id: str) -> dict[tuple[str, str], tuple[dict, dict]]:
    """(claim, input prefix) -> (cited input, cheaper pick) where a claim's cheapest pick is an
    offer other than the one it cites, at a lower price."""
    groups: dict[tuple[str, str], dict[str, dict]] = {}
    for i in run.inputs:
        if i["run_id"] == run_id and i["role"] in ("cited", "cheapest"):
            prefix = i["input_name"].rsplit(": ", 1)[0] if ": " in i["input_name"] else ""
            groups.setdefault((i["claim_id"], prefix), {})[i["role"]] = i
    out = {}
    for key, g in groups.items():
        cited, pick = g.get("cited"), g.get("cheapest")
        if (cited and pick and cited["input_status"] == "ok" and pick["price_per_hour"] is not None
                and (pick["provider"], pick["offer_key"]) != (cited["provider"], cited["offer_key"])
                and pick["price_per_hour"] < cited["price_per_hour"]):
            out[key] = (cited, pick)
    return out


def _undercut(con, run: _Run, moves: dict, cfg: AlertConfig) -> list[Alert]:
    """One alert per (cited offer, competitor) that newly undercuts it, listing every claim
    whose cheapest pick moved that way. A pick whose reading the quality gate holds is no
    undercut (the claims engine never picks one; checked here again)."""
    now = _undercut_states(run, run.run_id)
    before = _undercut_states(run, run.previous_eval) if run.previous_eval else {}
    groups: dict[tuple[str, str], list] = {}
    for key, (cited, pick) in sorted(now.items()):
        old = before.get(key)
        if old and (old[1]["provider"], old[1]["offer_key"]) == (pick["provider"], pick["offer_key"]):
            continue
        if con.execute("""SELECT count(*) FROM offers WHERE run_id = ? AND provider = ? AND offer_key = ?
                          AND held_reason IS NOT NULL""",
                       [pick.get("offer_run_id"), pick["provider"], pick["offer_key"]]).fetchone()[0]:
            continue
        groups.setdefault((f"{cited['provider']}/{cited['offer_key']}", f"{pick['provider']}/{pick['offer_key']}"),
                          []).append((key, cited, pick))
    out = []
    for (cited_s, pick_s), items in sorted(groups.items()):
        _, cited, pick = items[0]
        pct = round(float((pick["price_per_hour"] - cited["price_per_hour"]) / cited["price_per_hour"] * 100), 2)
        claims = [c for c in _citing_claims(run, pick["provider"], pick["offer_key"])
                  if any(c["claim_id"] == k[0] for k, _, _ in items)]
        held = _held(moves, [pick_s])
        lines = [_L("The cheapest ", S(pick["gpu_model"]), f" x{pick['gpu_count']} ", S(pick["billing"]),
                    " offer is now ", S(pick["provider"]), " ", S(pick["offer_key"]),
                    f" at ${_money(pick['price_per_hour'])}/h, {-pct:.2f}% below the cited ", S(cited["provider"]),
                    " ", S(cited["offer_key"]), f" at ${_money(cited['price_per_hour'])}/h "
                    f"(seen {pick['observed_at']:{UTC_FMT}}).")]
        note = con.execute("SELECT screen_note FROM offers WHERE run_id = ? AND provider = ? AND offer_key = ?",
                           [pick.get("offer_run_id"), pick["provider"], pick["offer_key"]]).fetchone()
        if note and note[0]:
            lines.append(_L("Checked by the quality gate: ", S(note[0]), "."))
        lines += _hold_note(held, cfg) + _claim_lines(claims) + [_evidence(pick)]
        details = {"cited_provider": cited["provider"], "cited_offer_key": cited["offer_key"],
                   "cited_price_per_hour": cited["price_per_hour"], "provider": pick["provider"],
                   "offer_key": pick["offer_key"], "price_per_hour": pick["price_per_hour"],
                   "price_per_gpu_hour": pick["price_per_gpu_hour"], "percent": pct, "gpu_model": pick["gpu_model"],
                   "gpu_count": pick["gpu_count"], "claims": claims, "held_for": held,
                   "source_url": pick["source_url"], "warc_file": pick["warc_file"], "warc_record_id": pick["warc_record_id"]}
        out.append(Alert("undercut", cited_s, f"{pick_s}|{run.run_id}", run.run_id,
                         f"Undercut: {pick['provider']} {pick['offer_key']} ${_money(pick['price_per_hour'])}/h is below "
                         f"the cited {cited['provider']} {cited['offer_key']} ${_money(cited['price_per_hour'])}/h",
                         lines, details))
    return out


# --- claims -------------------------------------------------------------------------------

def _claim_status(con, run: _Run, moves: dict, cfg: AlertConfig) -> list[Alert]:
    """One alert per page and new status, listing each claim that changed (a price move
    often flips several cells of one table); claims resting on a suspect reading are held in
    an alert of their own. A claim unverifiable only because its sources failed fewer than
    failed_runs_threshold runs in a row is not news yet (nor is that status compared against
    later); once they reach it, the claims it made unverifiable share one alert per page that
    names those sources and their error once."""
    if not run.claims:
        return []
    refuted = set()
    for a in _rows(con, """SELECT run_id, details FROM alerts WHERE kind = 'claim_status' AND state = 'suppressed'
                           AND json_extract_string(details, '$.suppressed_because') IS NULL"""):
        refuted |= {(a["run_id"], c["claim_id"]) for c in json.loads(a["details"])["claims"]}
    history = _rows(con, """SELECT e.*, s.seq FROM claim_evaluations e JOIN run_sequence s USING (run_id)
                            WHERE s.seq < ? ORDER BY s.seq DESC""", [run.seq])
    streaks = _failure_streaks(con, run.seq)
    quiet_runs = {r for runs in streaks.values() for r, n in runs.items() if 0 < n < cfg.failed_runs_threshold}
    causes = _failing_causes(con, quiet_runs | {run.run_id})

    def cause(run_id: str, ev: dict) -> tuple[str, ...] | None:
        """The failing sources that alone make this evaluation unverifiable, else None."""
        found = causes.get((run_id, ev["claim_id"]))
        if ev["status"] != "unverifiable" or not found or found[1]:
            return None
        return found[0]

    def quiet(run_id: str, ev: dict) -> bool:
        c = cause(run_id, ev)
        return bool(c) and all(streaks.get(p, {}).get(run_id, 0) < cfg.failed_runs_threshold for p in c)

    before, verified = {}, set()
    for ev in history:  # a status only a refuted reading or a short outage gave is not a status the claim had
        if (ev["run_id"], ev["claim_id"]) not in refuted and not quiet(ev["run_id"], ev):
            before.setdefault(ev["claim_id"], ev)
            if ev["status"] != "unverifiable":
                verified.add(ev["claim_id"])
    # Never verified so far (its source not yet seen): its first real status is like a new claim's.
    before = {c: ev for c, ev in before.items() if c in verified}
    uses = {}
    for i in run.inputs:
        if i["run_id"] == run.run_id:
            uses.setdefault(i["claim_id"], set()).add(f"{i['provider']}/{i['offer_key']}")
    groups: dict[tuple, list[dict]] = {}
    for claim_id, ev in sorted(run.claims.items()):
        if quiet(run.run_id, ev):
            continue
        old = before.get(claim_id)
        # A claim seen for the first time only alerts when the page is already wrong.
        if (old is None and ev["status"] != "drifted") or (old is not None and old["status"] == ev["status"]):
            continue
        held = tuple(sorted(s for s in uses.get(claim_id, ()) if moves.get(s, {}).get("suspect")))
        item = {k: ev.get(k) for k in ("claim_id", "claim_group", "page", "kind", "status", "published_text",
                                        "current_text", "published_value", "current_value", "difference",
                                        "tolerance", "reason", "pick", "note")}
        item["previous_status"] = old["status"] if old else None
        groups.setdefault((ev["page"], ev["status"], held, cause(run.run_id, ev) or ()), []).append(item)
    out = []
    for (page, status, held_subjects, failing), items in sorted(groups.items()):
        olds = {i["previous_status"] or "new" for i in items}
        was = olds.pop() if len(olds) == 1 else "mixed"
        name = f"claim {items[0]['claim_id']}" if len(items) == 1 else f"{len(items)} claims"
        held = _held(moves, held_subjects)
        lines: list = [f"Page {page}: {name} now {status} as of {run.observed_at:{UTC_FMT}}."]
        if failing:
            lines.append("Because " + ("this source has" if len(failing) == 1 else "these sources have") +
                         f" failed {cfg.failed_runs_threshold} or more runs in a row:")
            lines += [_source_line(con, run, p, streaks) for p in failing]
            lines += [f"- {i['claim_id']}: {i['previous_status'] or 'new'} -> {status}" for i in items]
        else:
            for i in items:
                # The engine's reason says why (published vs now, which input is missing, since when).
                why = ((S(i["reason"]),) if i.get("reason")
                       else ("published ", S(_shown(i, "published")), ", now ", S(_shown(i, "current"))))
                lines.append(_L(f"- {i['claim_id']}: {i['previous_status'] or 'new'} -> {status}: ", *why))
        lines += _hold_note(held, cfg)
        change = f"{status}|{','.join(held_subjects)}|{run.run_id}" + (f"|failing:{','.join(failing)}" if failing else "")
        title = f"{page}: {name} {was} -> {status}" + (f" ({', '.join(failing)} failing)" if failing else "")
        out.append(Alert("claim_status", page, change, run.run_id, title, lines,
                         {"page": page, "status": status, "claims": items, "held_for": held,
                          "failing_sources": list(failing)},
                         "success" if status == "holds" else "warning"))
    return out


def _failure_streaks(con, upto_seq: int) -> dict[str, dict[str, int]]:
    """provider -> {run_id: how many runs in a row it had failed by that run (0: it worked)};
    a provider not attempted in a run neither failed nor worked there."""
    out: dict[str, dict[str, int]] = {}
    streak: dict[str, int] = {}
    for provider, run_id, status in con.execute(
            """SELECT pr.provider, pr.run_id, pr.status FROM provider_runs pr JOIN run_sequence s USING (run_id)
               WHERE pr.status <> 'not attempted' AND s.seq <= ? ORDER BY s.seq""", [upto_seq]).fetchall():
        streak[provider] = 0 if status == "ok" else streak.get(provider, 0) + 1
        out.setdefault(provider, {})[run_id] = streak[provider]
    return out


def _failing_causes(con, run_ids: set[str]) -> dict[tuple[str, str], tuple[tuple[str, ...], bool]]:
    """(run, claim) -> (sources whose failure made an input unusable, whether any other input
    was unusable for another reason: missing, unpriced, never seen)."""
    if not run_ids:
        return {}
    out = {}
    for run_id, claim_id, failed, other in con.execute(f"""
            SELECT run_id, claim_id, list(DISTINCT provider ORDER BY provider) FILTER (WHERE input_status = 'failed'),
                   bool_or(input_status NOT IN ('ok', 'failed'))
            FROM claim_inputs WHERE input_status <> 'ok' AND run_id IN ({', '.join('?' * len(run_ids))})
            GROUP BY 1, 2""", sorted(run_ids)).fetchall():
        out[(run_id, claim_id)] = (tuple(failed or ()), bool(other))
    return out


def _source_line(con, run: _Run, provider: str, streaks: dict) -> tuple[str, str]:
    """One line per failing source: how long, since when, its latest error (once)."""
    rows = _rows(con, """SELECT pr.run_id, pr.status, pr.error, pr.observed_at FROM provider_runs pr
                         JOIN run_sequence s USING (run_id)
                         WHERE pr.provider = ? AND s.seq <= ? AND pr.status <> 'not attempted' ORDER BY s.seq DESC""",
                    [provider, run.seq])
    streak = _streak(rows)
    since = f" since {streak[-1]['observed_at']:{UTC_FMT}}" if streak else ""
    error = _unprefixed(provider, streak[0]["error"] if streak else None)
    return _L("- ", S(provider), f": {len(streak)} failed runs in a row{since}; latest error: ", S(error))


# --- sources ------------------------------------------------------------------------------

def _source_health(con, run: _Run, cfg: AlertConfig) -> list[Alert]:
    out = []
    # A provider that was not attempted (not in a replayed archive, or disabled) did not fail.
    for (provider,) in con.execute("""SELECT DISTINCT provider FROM provider_runs
                                      WHERE run_id = ? AND status <> 'not attempted' ORDER BY 1""",
                                   [run.run_id]).fetchall():
        history = _rows(con, """
            SELECT pr.run_id, pr.status, pr.error, pr.observed_at FROM provider_runs pr JOIN run_sequence s USING (run_id)
            WHERE pr.provider = ? AND s.seq <= ? AND pr.status <> 'not attempted' ORDER BY s.seq DESC""",
                        [provider, run.seq])
        if history[0]["status"] == "ok":
            streak = _streak(history[1:])
            if len(streak) >= cfg.failed_runs_threshold:
                out.append(Alert("source_recovered", provider, f"{streak[-1]['run_id']}|{run.run_id}", run.run_id,
                                 f"Source {provider} works again after {len(streak)} failed runs",
                                 [f"{provider} succeeded in the run of {run.observed_at:{UTC_FMT}} after {len(streak)} "
                                  f"failed runs in a row since {streak[-1]['observed_at']:{UTC_FMT}}."],
                                 {"provider": provider, "failed_runs": len(streak), "since_run_id": streak[-1]["run_id"]},
                                 "success"))
            continue
        streak = _streak(history)
        if len(streak) < cfg.failed_runs_threshold:
            continue
        first = streak[-1]
        last_ok = next((h for h in history if h["status"] == "ok"), None)
        since_ok = (f"its latest prices are those of {last_ok['observed_at']:{UTC_FMT}}" if last_ok
                    else "it has never succeeded")
        lines: list = [f"{provider} has failed {len(streak)} runs in a row (threshold {cfg.failed_runs_threshold}) "
                       f"since {first['observed_at']:{UTC_FMT}}; {since_ok}.", "Errors, newest first (each once):"]
        distinct: dict[tuple, list[dict]] = {}
        for h in streak:
            distinct.setdefault((h["status"], _unprefixed(provider, h["error"])), []).append(h)
        for (status, error), runs in distinct.items():
            when = (f"{runs[0]['observed_at']:{UTC_FMT}}" if len(runs) == 1 else
                    f"{len(runs)} runs, {runs[-1]['observed_at']:{UTC_FMT}} to {runs[0]['observed_at']:{UTC_FMT}}")
            lines.append(_L(f"- {status} ({when}): ", S(error)))
        details = {"provider": provider, "failed_runs": len(streak), "threshold": cfg.failed_runs_threshold,
                   "since_run_id": first["run_id"], "since": first["observed_at"],
                   "last_ok_at": last_ok["observed_at"] if last_ok else None,
                   "errors": [{"run_id": h["run_id"], "status": h["status"], "error": h["error"]} for h in streak]}
        # Keyed on the streak's first run: one alert per streak, however long it lasts.
        out.append(Alert("source_failing", provider, first["run_id"], run.run_id,
                         f"Source {provider} failed {len(streak)} runs in a row", lines, details, "failure"))
    return out


def _new_labels(con, run: _Run) -> list[Alert]:
    """One alert per GPU label a provider prints that the catalog does not know: news (a new
    GPU, or a new way of naming one) for whoever keeps warehouse/gpu_catalog.yaml. Its offers
    are stored with gpu_model NULL meanwhile; the fingerprint has no run, so it is said once."""
    out = []
    for provider, labels in con.execute("""SELECT provider, unknown_labels FROM provider_runs
                                           WHERE run_id = ? AND status IN ('ok', 'suspect') ORDER BY 1""",
                                        [run.run_id]).fetchall():
        for label in sorted(set(labels or [])):
            n = con.execute("SELECT count(*) FROM offers WHERE run_id = ? AND provider = ? AND gpu_label = ?",
                            [run.run_id, provider, label]).fetchone()[0]
            out.append(Alert("new_gpu_label", f"{provider}/{label}", "", run.run_id,
                             f"New GPU label at {provider}: {label}",
                             [_L(S(provider), f" lists {n} offer(s) as ", S(repr(label)), ", a GPU label "
                                 f"warehouse/gpu_catalog.yaml does not know (seen {run.observed_at:{UTC_FMT}}). They are "
                                 "stored with no canonical model and are left out of comparisons until the catalog "
                                 "maps the label.")],
                             {"provider": provider, "label": label, "offers": n}, "info"))
    return out


def _unprefixed(provider: str, error: str | None) -> str:
    """A provider run's error without the provider's name in front (the line names it already)."""
    if not error:
        return "no error text"
    return error[len(provider) + 2:] if error.startswith(f"{provider}: ") else error


def _streak(history: list[dict]) -> list[dict]:
    """The provider runs (newest first) that did not succeed, back to the last success."""
    out = []
    for h in history:
        if h["status"] == "ok":
            break
        out.append(h)
    return out


# --- delivery -----------------------------------------------------------------------------

def deliver_alerts(con: duckdb.DuckDBPyConnection, config: Config | AlertConfig | None = None) -> dict:
    """Sends every pending alert, oldest first, to each alert URL that has not got it yet.

    One attempt per alert and URL per delivery, each bounded by `timeout_s`; what happens next
    depends on what is known (pricewatch.notify, Delivery.outcome):

    - accepted: recorded in alert_deliveries; never sent to that URL again.
    - unconfirmed (the whole request went out, no answer within timeout_s): recorded as
      delivered too, with a note (details.unconfirmed, last_error), and not sent again: the
      receiver may well have processed it, and resending is how a slow receiver got every alert
      twice. At most once per URL; receivers can dedupe by `alert_id`, sent with every alert.
    - unreachable or rejected (refused, no such host, HTTP 500): stays pending with the
      (redacted) error; the next delivery, i.e. the next run, retries only the URLs that failed.

    A URL that was unreachable or did not answer in time is not tried again for the other alerts
    of this delivery (they wait for the next run), so a dead receiver costs one timeout, not one
    per alert. An alert becomes `sent` once every configured URL has it."""
    cfg = _alert_config(config)
    db.migrate(con)
    pending = _rows(con, "SELECT * FROM alerts WHERE state = 'pending' ORDER BY created_at, alert_id")
    result = {"sent": 0, "failed": 0, "unconfirmed": 0, "pending": len(pending), "error": None}
    if not pending:
        return result
    if not cfg.urls:
        result["error"] = notify.SendResult(()).error
        return result
    targets = {notify.target_id(u): u for u in cfg.urls}
    benched: dict[str, str] = {}     # URL -> why it is not tried again in this delivery
    errors = set()
    for a in pending:
        done = {t for (t,) in con.execute("SELECT target FROM alert_deliveries WHERE alert_id = ?",
                                          [a["alert_id"]]).fetchall()}
        todo = [t for t in targets if t not in done]
        now_try = [t for t in todo if t not in benched]
        details = json.loads(a["details"])
        markdown = details.get("body_markdown")
        sent = notify.send(a["title"], (markdown or a["body"]) + f"\nAlert id: {a['alert_id']}", a["notify_type"],
                           [targets[t] for t in now_try], timeout_s=cfg.timeout_s,
                           body_format="markdown" if markdown else "text",
                           idempotency_key=a["alert_id"]) if now_try else notify.SendResult(())
        now = datetime.now(timezone.utc)
        missing, problems, unconfirmed = [], [], dict(details.get("unconfirmed") or {})
        for d in sent.deliveries:
            if d.reached:
                con.execute("INSERT INTO alert_deliveries VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                            [a["alert_id"], d.target, d.label, now])
            if d.outcome == "unconfirmed":
                unconfirmed[d.label] = f"{d.error} ({now:{UTC_FMT}})"
                problems.append(f"unconfirmed: {d.label}: {d.error}")
                benched[d.target] = f"{d.label}: not tried: it did not answer in time earlier in this delivery"
            elif not d.reached:
                missing.append(d.target)
                problems.append(f"{d.label}: {d.error}")
                if d.outcome == "unreachable":
                    benched[d.target] = f"{d.label}: not tried: {d.error} earlier in this delivery"
        for t in todo:
            if t not in now_try:
                missing.append(t)
                problems.append(benched[t])
        ok = not missing
        if unconfirmed:
            details["unconfirmed"] = unconfirmed
            result["unconfirmed"] += sum(1 for d in sent.deliveries if d.outcome == "unconfirmed")
        error = "; ".join(problems) or None
        con.execute("""UPDATE alerts SET attempts = attempts + ?, updated_at = ?, last_error = ?, details = ?,
                       state = CASE WHEN ? THEN 'sent' ELSE state END,
                       delivered_at = CASE WHEN ? THEN ? ELSE delivered_at END
                       WHERE alert_id = ?""",
                    [1 if now_try else 0, now, error, _dumps(details), ok, ok, now, a["alert_id"]])
        result["sent" if ok else "failed"] += 1
        if not ok:
            errors.update(p for p in problems if not p.startswith("unconfirmed: "))
    result["pending"] = result["failed"]
    result["error"] = "; ".join(sorted(errors)) or None
    return result


def list_alerts(con: duckdb.DuckDBPyConnection, pending_only: bool = False, limit: int | None = None) -> list[dict]:
    if not _has(con, "alerts"):
        return []
    where = "WHERE state = 'pending'" if pending_only else ""
    rows = _rows(con, f"""SELECT alert_id, created_at, run_id, kind, state, notify_type, subject, title, body,
                                 details, attempts, last_error, delivered_at
                          FROM alerts {where} ORDER BY created_at DESC, alert_id
                          {'LIMIT ' + str(int(limit)) if limit else ''}""")
    for r in rows:
        r["details"] = json.loads(r["details"])
    return rows


# --- helpers ------------------------------------------------------------------------------

def _alert_config(config) -> AlertConfig:
    if config is None:
        return load_config().alerts
    return config.alerts if isinstance(config, Config) else config


def _has(con, name: str) -> bool:
    return bool(con.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = ?",
                            [name]).fetchone()[0])


def _rows(con, sql: str, params=()) -> list[dict]:
    cur = con.execute(sql, list(params))
    cols = [c[0] for c in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def _claim_lines(claims: list[dict]) -> list:
    if not claims:
        return ["Cited by: no claim in the current evaluation."]
    return ["Cited by:"] + [
        _L(f"- {c['claim_id']} ({c['page'] or 'page ?'}, {c['role']} input '", S(c["input"]),
           f"'): now {c['status'] or '?'}",
           *((", published ", S(_shown(c, "published")), ", current ", S(_shown(c, "current")))
             if c.get("status") else ()))
        for c in claims]


def _evidence(offer: dict) -> tuple[str, str]:
    return _L("Evidence: ", S(offer["source_url"]), " (WARC ", S(offer["warc_file"]), ", record ",
              S(offer["warc_record_id"]), ")")


def _shown(item: dict, which: str) -> str:
    text, value = item.get(f"{which}_text"), item.get(f"{which}_value")
    return text if text else ("-" if value is None else f"{Decimal(str(value)).normalize():f}")


def _dec(v) -> Decimal | None:
    return None if v is None else Decimal(str(v))


def _money(v) -> str:
    """1.09, 43.46, 5.4325: cents always, more digits only when the source has them."""
    d = Decimal(str(v)).normalize()
    return f"{d:,.2f}" if d.as_tuple().exponent >= -2 else f"{d:,f}"


def _dumps(details: dict) -> str:
    def default(v):
        if isinstance(v, Decimal):
            return float(v)
        if isinstance(v, datetime):
            return v.isoformat()
        return str(v)
    return json.dumps(details, default=default, ensure_ascii=False)
