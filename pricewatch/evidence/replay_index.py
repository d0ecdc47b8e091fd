"""The replay index: archived responses served by URL, as a flaky server would serve them."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from pricewatch.evidence.warc_common import ArchivedResponse
from pricewatch.evidence.warc_read import read_archive


@dataclass
class ReplayIndex:
    """Serves archived responses by URL. Several records for one URL are served in order
    (e.g. a 503 then a 200), the last one repeating, as a flaky server would behave.
    ``problems``: one line per bad WARC file that was skipped."""

    responses: dict[str, list[ArchivedResponse]] = field(default_factory=dict)
    _served: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    unreadable: bool = False  # set by a caller that could not load the archive at all

    @classmethod
    def load(cls, path: Path) -> "ReplayIndex":
        index = cls()
        for r in read_archive(path, index.problems):
            index.responses.setdefault(normalize_url(r.url), []).append(r)
        return index

    def hosts(self) -> set[str]:
        return {urlsplit(u).hostname or "" for u in self.responses}

    def next_response(self, url: str, held: bool = True) -> ArchivedResponse | None:
        """The next archived response for ``url``, or None. A payload too big to index held
        (``payload`` set, ``body`` empty) is read into ``body`` unless ``held`` is False (a
        caller that copies it out in chunks: spiders/replay.py for a streamed request);
        ``ArchiveError`` if it no longer matches its digest."""
        key = normalize_url(url)
        records = self.responses.get(key)
        if not records:
            return None
        i = self._served.get(key, 0)
        self._served[key] = i + 1
        found = records[min(i, len(records) - 1)]
        if held and found.payload is not None:
            return dataclasses.replace(found, body=found.payload.read(), payload=None)
        return found


def normalize_url(url: str) -> str:
    parts = urlsplit(url)
    path = parts.path or "/"
    return f"{parts.scheme}://{parts.netloc.lower()}{path}" + (f"?{parts.query}" if parts.query else "")
