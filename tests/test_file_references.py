"""Every comment, docstring and doc that names a file of this repository names one that exists.

A path such as ``pricewatch/collect/gate.py`` or ``warehouse/sql/load_offers.sql`` written in the
code or the docs is checked against the tree; a file that moved leaves no stale pointer behind.
Landed migrations are left out (they are never edited: users' warehouses ran them as they are),
and so are the recorded historic schemas the upgrade test rebuilds and the shipped captures."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOPS = ("pricewatch", "spiders", "flows", "warehouse", "tests", "benchmarks", "rules", "docs", "captures", ".ci")
REF = re.compile(r"(?<![\w./-])((?:" + "|".join(re.escape(t) for t in TOPS)
                 + r")/[\w./<>*-]*?\.(?:py|sql|yaml|yml|md|toml|json|txt|html|tmpl|png))(?![\w/])")
OTHER_REPO = re.compile(r"(?<![\w/])[\w.-]+/[\w.-]+\s+(?:\(|its\s+)?$")
SKIP = ("warehouse/migrations/", "tests/fixtures/", "captures/", "tests/real/", "tests/rendered/")


def scanned() -> list[Path]:
    files = [ROOT / "README.md", ROOT / "ARCHITECTURE.md", ROOT / "prefect.yaml", ROOT / "pyproject.toml"]
    for top in ("pricewatch", "spiders", "flows", "warehouse", "tests", "benchmarks", "docs", "rules"):
        files += [p for p in (ROOT / top).rglob("*") if p.suffix in (".py", ".sql", ".yaml", ".yml", ".md", ".txt", ".html")]
    return [p for p in files if p.is_file() and not str(p.relative_to(ROOT)).startswith(SKIP)]


def missing() -> list[str]:
    out = []
    for path in scanned():
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            for m in REF.finditer(line):
                ref = m.group(1)
                if any(c in ref for c in "<>*") or "NNN" in ref:
                    continue   # a pattern (captures/<date>/<provider>.warc.gz, migrations/NNN_*.sql)
                if OTHER_REPO.search(line[:m.start()]):
                    continue   # a file of another repository ("ewyluda/gpu-price-index tests/...")
                if not (ROOT / ref).exists():
                    out.append(f"{path.relative_to(ROOT)}:{n}: {ref}")
    return out


def test_every_named_file_exists():
    assert missing() == []
