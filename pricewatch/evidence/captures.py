"""Builds WARC captures from their readable sources (``captures/src/<date>/<provider>/``).

Each provider folder holds ``exchanges.yaml`` (URL, time, status, headers, body file per
response) and the bodies. The WARC is what replays read; the sources are what reviewers read.
"""

from __future__ import annotations

from pathlib import Path


from pricewatch.record import yaml_file
from pricewatch.evidence.archive import write_exchanges


def load_exchanges(provider_dir: Path) -> list[dict]:
    provider_dir = Path(provider_dir)
    spec = yaml_file.safe_load((provider_dir / "exchanges.yaml").read_text())
    out = []
    for ex in spec["exchanges"]:
        body = (provider_dir / ex["body_file"]).read_bytes() if "body_file" in ex else ex.get("body", "").encode()
        out.append({**ex, "body": body, "status": ex.get("status", 200)})
    return out


def build_captures(src_date_dir: Path, out_dir: Path, providers: list[str] | None = None) -> list[Path]:
    """One ``<provider>.warc.gz`` per provider folder of a dated source folder."""
    written = []
    for provider_dir in sorted(p for p in Path(src_date_dir).iterdir() if (p / "exchanges.yaml").exists()):
        if providers and provider_dir.name not in providers:
            continue
        out = Path(out_dir) / f"{provider_dir.name}.warc.gz"
        out.parent.mkdir(parents=True, exist_ok=True)
        written.append(write_exchanges(out, load_exchanges(provider_dir)))
    return written
