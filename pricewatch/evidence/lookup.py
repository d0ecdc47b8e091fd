"""`pricewatch evidence OFFER|CLAIM`: a stored price, one command from its archived proof.

For an offer (a row id, or an offer key with ``--provider``) or a claim (its latest
evaluation's inputs, one block each): the WARC file and record the price came from, the
request that asked for it, the response's status and headers, an excerpt of the body around
the text the page printed, and the body's sha256 recomputed and compared with the one stored
at load. A stored sha256 the archive does not match, or a record the archive does not hold,
is an error (exit 1), never a quiet "not shown".

Finding the file: offers store WARC paths relative to an archive root
(``<date>/<file>.warc.gz``; rows stored before that hold absolute paths, which still resolve).
The roots tried, in order: ``--archive`` (repeatable), what the run replayed (``runs.
replay_source``), ``$PRICEWATCH_ARCHIVE_DIR``, ``archive/`` beside the database, then
``data/archive`` and ``captures`` of the working directory. ``--open`` serves the records for
replay in a browser (pricewatch/server/evidence_viewer.py).
"""

from __future__ import annotations

import gzip
import json
import os
import re
import zlib
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

from pricewatch.evidence.warc_common import (
    ArchiveError,
    sha256_hex,
    warc_candidates,
    warc_date,
)
from pricewatch.evidence.warc_read import Exchange, read_exchange
from warehouse.sql_files import query_sql

EXCERPT_CHARS = 160  # either side of the printed text


def _query(name: str) -> str:
    """The text of pricewatch/evidence/sql/<name>.sql (the one loader: warehouse/sql_files.py)."""
    return query_sql(name, package="pricewatch.evidence")


@dataclass
class Evidence:
    """One stored reading and its archived proof (``exchange`` None: not found, see ``problem``)."""

    title: str
    row: dict
    file: Path | None = None
    exchange: Exchange | None = None
    recomputed_sha256: str | None = None
    printed: str | None = None
    excerpt: tuple[str, str, str] | None = None   # before, the printed text as found, after
    found_in: str | None = None                   # "response body" | "conversion <id> (...)"
    problem: str | None = None                    # an error: the evidence does not check out
    note: str | None = None                       # not an error (e.g. no evidence stored: input missing)
    tried: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.problem is None

    def as_dict(self) -> dict:
        ex = self.exchange
        return {
            "title": self.title, "ok": self.ok, "problem": self.problem, "note": self.note,
            "stored": {k: _jsonable(v) for k, v in self.row.items()},
            "file": str(self.file) if self.file else None,
            "record": None if ex is None else {
                "url": ex.response.url, "warc_date": warc_date(ex.response.ref.captured_at),
                "status": ex.response.status, "status_line": ex.status_line,
                "headers": ex.response.headers, "request_line": ex.request_line,
                "request_headers": ex.request_headers, "warcinfo": ex.warcinfo,
                "derived": [{"type": t, "record_id": i, "content_type": c, "bytes": len(b)} for t, i, c, b in ex.derived],
            },
            "sha256": {"stored": self.row.get("body_sha256"), "recomputed": self.recomputed_sha256},
            "printed": self.printed, "found_in": self.found_in,
            "excerpt": None if self.excerpt is None else "".join(self.excerpt), "match": self.excerpt and self.excerpt[1],
        }


def _jsonable(v):
    if isinstance(v, Decimal):
        return float(v)
    return v.isoformat() if hasattr(v, "isoformat") else v


def _rows(con, name: str, params: list) -> list[dict]:
    cur = con.execute(_query(name), params)
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def archive_roots(db_file: str | Path | None, extra: list[Path] | None = None,
                  replay_source: str | None = None) -> list[Path]:
    roots = list(extra or [])
    if replay_source:
        roots.append(Path(replay_source))
    if os.environ.get("PRICEWATCH_ARCHIVE_DIR"):
        roots.append(Path(os.environ["PRICEWATCH_ARCHIVE_DIR"]))
    if db_file:
        roots.append(Path(db_file).parent / "archive")
    return roots + [Path("data/archive"), Path("captures")]


def of_offer(con, db_file=None, row_id: int | None = None, provider: str | None = None,
             offer_key: str | None = None, run_id: str | None = None,
             roots: list[Path] | None = None) -> Evidence:
    """The evidence of one offer reading: by row id (``offers.rowid``), or the provider's
    latest (or ``run_id``'s) reading of ``offer_key``. Raises ``LookupError`` when no row."""
    found = _rows(con, "evidence_of_offer", [row_id, provider, offer_key, run_id])
    if not found:
        what = f"row {row_id}" if row_id is not None else f"{provider} offer {offer_key!r}" + (
            f" in run {run_id}" if run_id else "")
        raise LookupError(f"no stored offer: {what}")
    row = found[0]
    title = f"offer {row['provider']} / {row['offer_key']} (row {row['offer_row']}, run {row['run_id']})"
    return check(title, row, archive_roots(db_file, roots, row.get("replay_source")))


def of_claim(con, claim_id: str, db_file=None, roots: list[Path] | None = None) -> list[Evidence]:
    """One block per input of the claim's latest evaluation. Raises ``LookupError``."""
    found = _rows(con, "evidence_of_claim", [claim_id])
    if not found:
        raise LookupError(f"no evaluation of claim {claim_id!r} (see `pricewatch claims`)")
    out = []
    for row in found:
        what = f"offer {row['offer_key']}" if row["offer_key"] else f"fact {row['fact']}"
        title = (f"claim {claim_id} ({row['status']}, published {row['published_text']}): "
                 f"{row['input_name']} = {row['provider']} {what}{' (used)' if row['used'] else ''}")
        if not row.get("warc_record_id"):
            out.append(Evidence(title, row, note=f"no evidence stored: input {row['input_status']}"))
            continue
        out.append(check(title, row, archive_roots(db_file, roots, row.get("replay_source"))))
    return out


def check(title: str, row: dict, roots: list[Path]) -> Evidence:
    """Finds the row's WARC record under ``roots``, recomputes its sha256, finds the printed text."""
    ev = Evidence(title, row, printed=_printed(row))
    candidates = warc_candidates(row["warc_file"], roots)
    ev.tried = [str(r) for r in roots]
    errors = []
    for candidate in candidates:
        try:
            exchange = read_exchange(candidate, row["warc_record_id"])
        except ArchiveError as exc:
            errors.append(str(exc))
            continue
        if exchange is not None:
            ev.file, ev.exchange = candidate, exchange
            break
    if ev.exchange is None:
        where = "; ".join(errors) if errors else (
            f"{len(candidates)} file(s) named {row['warc_file']} hold no record {row['warc_record_id']}"
            if candidates else f"{row['warc_file']} is under none of: {', '.join(ev.tried)} (pass --archive DIR)")
        ev.problem = f"{title}: evidence not found: {where}"
        return ev
    body = ev.exchange.response.body
    ev.recomputed_sha256 = sha256_hex(body)
    stored = row.get("body_sha256")
    if stored and stored != ev.recomputed_sha256:
        ev.problem = (f"{title}: SHA256 MISMATCH: stored {stored}, the archived body in {ev.file} "
                      f"(record {row['warc_record_id']}) is {ev.recomputed_sha256}")
    if ev.exchange.response.url != row.get("source_url"):
        ev.problem = ev.problem or (f"{title}: the record is of {ev.exchange.response.url}, "
                                    f"the offer names {row.get('source_url')}")
    body_text = _text(body, ev.exchange.response.headers)
    value = _number(row.get("price_per_hour"))
    searches = [(ev.printed, body_text, "response body")] + [
        (ev.printed, _text(data, [("Content-Type", ctype)]),
         f"{kind} record {rid} ({ctype}: the DOM the browser rendered from this response)")
        for kind, rid, ctype, data in ev.exchange.derived] + [
        # A price a page's script printed from this (JSON) response: the value here, the text there.
        (value, body_text, f"response body (the value; the page printed {ev.printed!r})")] + [
        (ev.printed, _text(data, [("Content-Type", ctype)]),
         f"{kind} record {rid} ({ctype}: the DOM the browser rendered from the page that loaded this response)")
        for kind, rid, ctype, data in ev.exchange.others]
    for wanted, text, where in searches:
        hit = find_printed(text, wanted)
        if hit:
            ev.excerpt, ev.found_in = hit, where
            break
    else:
        if ev.printed:
            ev.note = f"the printed text {ev.printed!r} is not in the archived body"
    return ev


def _number(value) -> str | None:
    """A stored price as a page or an API would write it: 0.890000 -> "0.89", 43.46 -> "43.46"."""
    if value is None:
        return None
    text = format(Decimal(str(value)).normalize(), "f")
    return text if "." in text or text.isdigit() else None


def _printed(row: dict) -> str | None:
    """What the page printed for this reading: the price cell verbatim, else the unpriced text,
    else a source fact's value."""
    for key in ("price_raw", "price_text", "value_text"):
        if row.get(key):
            return str(row[key])
    if row.get("value_num") is not None:
        return f"{row['value_num']:g}"
    return None


def _text(body: bytes, headers: list[tuple[str, str]]) -> str:
    h = {k.lower(): v for k, v in headers}
    enc = h.get("content-encoding", "").lower()
    try:
        if "gzip" in enc:
            body = gzip.decompress(body)
        elif "deflate" in enc:
            body = zlib.decompress(body)
        elif "br" in enc:
            import brotli
            body = brotli.decompress(body)
    except Exception:  # noqa: BLE001 - shown as archived then
        pass
    m = re.search(r"charset=([\w-]+)", h.get("content-type", ""), re.I)
    try:
        return body.decode(m.group(1) if m else "utf-8", "replace")
    except LookupError:
        return body.decode("utf-8", "replace")


def find_printed(text: str, printed: str | None, width: int = EXCERPT_CHARS) -> tuple[str, str, str] | None:
    """(before, match, after) around the first place ``printed`` appears in ``text``; its words
    may be split by whitespace or markup (``$2.49<span>/hr</span>``); a JSON string escape
    (``\\u0024``) is not decoded."""
    if not printed or not printed.strip():
        return None
    tokens = printed.split()
    pattern = r"(?:\s|<[^>]{0,200}>)+".join(re.escape(t) for t in tokens)
    # A number is matched whole: 0.89 is not in 10.89 or 0.895.
    pattern = (r"(?<![\d.])" if tokens[0][0].isdigit() else "") + pattern + (r"(?!\d)" if tokens[-1][-1].isdigit() else "")
    m = re.search(pattern, text)
    if not m:
        return None
    before = text[max(0, m.start() - width):m.start()]
    after = text[m.end():m.end() + width]
    return (("…" if m.start() > width else "") + before, m.group(0),
            after + ("…" if m.end() + width < len(text) else ""))


def dumps(evidence: list[Evidence]) -> str:
    return json.dumps([e.as_dict() for e in evidence], indent=2, ensure_ascii=False)
