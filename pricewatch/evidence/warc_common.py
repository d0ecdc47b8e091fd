"""What the WARC writer, reader and replay index share: the record reference an offer points
to (``CaptureRef``), an archived response, the one-line ``ArchiveError``, WARC dates and
digests, and the provider a WARC file's name says it holds (see pricewatch/evidence/archive.py)."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pricewatch.evidence.warc_members import StoredPayload

WARC_VERSION = "WARC/1.1"
WARC_FORMAT = "WARC File Format 1.1"
WARC_CONFORMS_TO = "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/"
PROVIDER_FIELD = "pricewatch-provider"


def sha256_hex(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


def warc_date(ts: datetime) -> str:
    return ts.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_warc_date(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(timezone.utc)


class ArchiveError(ValueError):
    """A WARC file that cannot be replayed: ``str(err)`` is one line, "<file>: <what is wrong>".

    ``hosts`` and ``providers`` say whose evidence the file held, as far as it could be read
    (hosts of the records before the fault, the provider its warcinfo record names), so a
    caller can report those providers as failed instead of silently absent."""

    def __init__(self, file, reason: str, hosts: set[str] | None = None, providers: set[str] | None = None):
        self.file = str(file)
        self.reason = reason
        self.hosts = set(hosts or ())
        self.providers = set(providers or ())
        super().__init__(f"{self.file}: {reason}")


@dataclass(frozen=True)
class CaptureRef:
    warc_file: str
    record_id: str
    body_sha256: str
    captured_at: datetime
    url: str

    def as_meta(self) -> dict:
        return {
            "warc_file": self.warc_file,
            "warc_record_id": self.record_id,
            "body_sha256": self.body_sha256,
            "captured_at": self.captured_at.isoformat(),
            "source_url": self.url,
        }


@dataclass
class ArchivedResponse:
    url: str
    status: int
    headers: list[tuple[str, str]]
    body: bytes
    ref: CaptureRef
    # A payload too big to hold (pricewatch/evidence/warc_read.py ``StoredPayload``): ``body`` is then
    # empty and the payload is copied out of the WARC file when served.
    payload: StoredPayload | None = None


# A live crawl's file: <provider>-<YYYYmmddTHHMMSSZ>-<pid>.warc.gz (spiders/middlewares.py).
_LIVE_NAME = re.compile(r"^([a-z0-9_]+)-\d{8}T\d{6}Z-\d+\.warc(\.gz)?$")
# A shipped capture: captures/<YYYY-MM-DD>/<provider>.warc.gz.
_CAPTURE_NAME = re.compile(r"^([a-z0-9_]+)\.warc(\.gz)?$")
_DATE_FOLDER = re.compile(r"^\d{4}-\d{2}-\d{2}(T\d{4,6}Z?)?$")


def archive_relpath(path: Path) -> str:
    """The path an offer stores for a WARC file: relative to the archive root, never an
    absolute path of the machine that crawled. An archive root is a folder of dated folders
    (``data/archive/``, ``captures/``), so a file in a dated folder is ``<date>/<name>``; a file
    anywhere else is its bare name (its root is its own folder)."""
    path = Path(path)
    if _DATE_FOLDER.match(path.parent.name):
        return f"{path.parent.name}/{path.name}"
    return path.name


def warc_candidates(stored: str, roots: list[Path] | tuple[Path, ...] = ()) -> list[Path]:
    """The existing files an offer's ``warc_file`` may name, best first (the caller keeps the
    one that holds the record). A relative path (today's rows) is looked up under each root in
    order: an archive root, a dated folder of one, or a replayed file. An absolute path (rows
    stored before paths became relative) comes first when it exists, then its ``<date>/<name>``
    tail is looked up like a relative path, so an archive moved to another machine resolves."""
    stored_path = Path(stored)
    found: list[Path] = []
    if stored_path.is_absolute():
        if stored_path.is_file():
            found.append(stored_path)
        rel = Path(archive_relpath(stored_path))
    else:
        rel = stored_path
    for root in roots:
        root = Path(root)
        base = root.parent if root.is_file() else root
        for candidate in (base / rel, base.parent / rel):
            if candidate.is_file() and candidate.resolve() not in {f.resolve() for f in found}:
                found.append(candidate)
    return found


def provider_from_name(path: Path) -> str | None:
    """The provider a WARC file's name says it holds, by our own naming: a live crawl's
    ``<provider>-<time>-<pid>.warc.gz`` or a capture's ``<date>/<provider>.warc.gz``."""
    path = Path(path)
    m = _LIVE_NAME.match(path.name)
    if m:
        return m.group(1)
    m = _CAPTURE_NAME.match(path.name)
    if m and _DATE_FOLDER.match(path.parent.name):
        return m.group(1)
    return None

