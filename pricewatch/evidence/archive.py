"""WARC evidence archive: every response a crawl sees is written here, and replays read it back.

A record reference (``CaptureRef``) is what a stored offer points to: the WARC file, the
WARC-Record-ID of the response record, and the sha256 of the response body.

Reading is strict: a file that is not gzip/WARC, is empty, is cut off (an incomplete gzip
member, a record shorter than its WARC ``Content-Length``) or whose record does not match its
``WARC-Payload-Digest`` / ``WARC-Block-Digest`` is bad as a whole and never served. A single
file that is bad raises ``ArchiveError`` (one line: the file and what is wrong); in a folder
the bad file is skipped with one warning line and listed in ``problems``.

The work is done in one module per job; this module is the public face that names them all:
pricewatch/evidence/warc_common.py (the shared types, dates and digests), pricewatch/evidence/warc_write.py
(writing), pricewatch/evidence/warc_read.py (reading and validating) and pricewatch/evidence/replay_index.py
(serving responses by URL).
"""

from __future__ import annotations

from pricewatch.evidence.replay_index import ReplayIndex, normalize_url
from pricewatch.evidence.warc_common import (
                                    PROVIDER_FIELD,
                                    WARC_CONFORMS_TO,
                                    WARC_FORMAT,
                                    WARC_VERSION,
                                    ArchivedResponse,
                                    ArchiveError,
                                    CaptureRef,
                                    parse_warc_date,
                                    provider_from_name,
                                    sha256_hex,
                                    warc_date,
)
from pricewatch.evidence.warc_read import (
                                    ArchiveContents,
                                    load_archive,
                                    logger,
                                    read_archive,
                                    read_file,
                                    warc_files,
)
from pricewatch.evidence.warc_write import WarcArchiveWriter, write_exchanges

__all__ = [
    "ArchiveContents", "ArchiveError", "ArchivedResponse", "CaptureRef", "PROVIDER_FIELD", "ReplayIndex",
    "WARC_CONFORMS_TO", "WARC_FORMAT", "WARC_VERSION", "WarcArchiveWriter", "load_archive", "normalize_url",
    "parse_warc_date", "provider_from_name", "read_archive", "read_file", "sha256_hex", "warc_date",
    "logger", "warc_files", "write_exchanges",
]
