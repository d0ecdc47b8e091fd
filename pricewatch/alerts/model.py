"""The Alert record (with its fingerprint, id and state) and the run it is derived from.

An alert's fingerprint names the state change and the run it first appeared in, so deriving
the same run again adds nothing, while a price that moves back later alerts again.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime

from pricewatch.alerts.render import TITLE_MAX_CHARS, UTC_FMT, _render
from pricewatch.record import text


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
        if self.details.get("muted_by"):
            return "muted"
        return "suspect" if self.details.get("held_for") else "pending"


@dataclass
class _Run:
    run_id: str
    seq: int
    observed_at: datetime
    previous_eval: str | None      # the latest earlier run with claim evaluations
    claims: dict                   # claim_id -> this run's evaluation
    inputs: list[dict]             # claim inputs naming an offer, this run and previous_eval
    # (provider, offer_key) -> its trusted reading in this run (if any) and its last trusted
    # reading before it, newest first (observe.prefetch, bounded reads); providers that ran ok
    # in this run.
    observations: dict = field(default_factory=dict)
    ok_providers: set | None = None
