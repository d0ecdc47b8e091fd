"""Links to the archived evidence of a price, for people: never a server path.

``evidence_url``: ``<evidence_base_url>/<WARC path relative to the archive root>?record=<WARC-
Record-ID>`` (config ``[alerts] evidence_base_url``; None when unset). Offers store WARC paths
relative to the archive root (``<date>/<file>.warc.gz``); rows stored before that hold an
absolute path, of which the ``<date>/<file>`` tail is used.
``evidence_command``: the `pricewatch evidence` command that shows and checks the record.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from urllib.parse import quote

from pricewatch.evidence.warc_common import archive_relpath
from pricewatch.record.config import AlertConfig


def evidence_url(cfg: AlertConfig, warc_file: str | None, record_id: str | None) -> str | None:
    if not cfg.evidence_base_url or not warc_file:
        return None
    rel = archive_relpath(Path(warc_file)) if Path(warc_file).is_absolute() else warc_file
    url = f"{cfg.evidence_base_url.rstrip('/')}/{quote(rel)}"
    return url + (f"?record={quote(record_id, safe='')}" if record_id else "")


def evidence_command(target: str, provider: str | None = None, run_id: str | None = None) -> str:
    cmd = ["pricewatch", "evidence", target]
    if provider:
        cmd += ["--provider", provider]
    if run_id:
        cmd += ["--run", run_id]
    return shlex.join(cmd)
