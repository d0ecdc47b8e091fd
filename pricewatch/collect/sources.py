"""The sources table: what each spider says about its source, in one place (the spider class).

Every provider spider declares, beside its parser (``spiders/base.py`` PriceSpider):
``family`` (hyperscaler / neocloud / marketplace / aggregator / own), ``robots``, ``terms``,
``cadence``, ``enabled_by_default``, and (optional, NULL when absent) ``unit`` as published and
``capture`` (real / composed: what its shipped capture is, checked against the capture's
``exchanges.yaml`` by tests/test_sources.py). :func:`source_rows` reads them off the spider
classes; :func:`checked_rows` are what a load writes into the warehouse's ``sources`` table (migration 055,
warehouse/resources.py); :func:`default_providers` is the run's choice of sources
when none is named: a source whose terms forbid automated collection runs only when asked by
name (``pricewatch run --provider NAME``).
"""

from __future__ import annotations

import logging
from functools import lru_cache
from importlib import resources

from pricewatch.record import yaml_file
from warehouse.resources import write_sources

FAMILIES = ("hyperscaler", "neocloud", "marketplace", "aggregator", "own")
CAPTURE_KINDS = ("real", "composed")
#: The attributes every spider must declare (a non-empty value; family from FAMILIES).
REQUIRED = ("family", "robots", "terms", "cadence")
logger = logging.getLogger(__name__)


@lru_cache(maxsize=1)
def display_names() -> dict[str, str]:
    """rules/providers.yaml: how reports name each provider."""
    text = resources.files("rules").joinpath("providers.yaml").read_text("utf-8")
    return dict((yaml_file.safe_load(text) or {}).get("providers") or {})


def source_row(spider_cls) -> dict:
    """The sources row a spider class declares."""
    name = spider_cls.name
    urls = list(getattr(spider_cls, "source_urls", None) or ([spider_cls.pricing_url] if spider_cls.pricing_url
                                                            else [f"https://{d}/" for d in spider_cls.allowed_domains]))
    return {"provider": name, "display_name": display_names().get(name, name), "family": spider_cls.family,
            "urls": urls, "unit": getattr(spider_cls, "unit", None), "robots": spider_cls.robots,
            "terms": spider_cls.terms, "cadence": spider_cls.cadence,
            "enabled_by_default": bool(spider_cls.enabled_by_default),
            "capture_kind": getattr(spider_cls, "capture", None)}


def problems(row: dict) -> list[str]:
    """What is wrong with a declared row (empty: nothing)."""
    out = [f"{row['provider']}: {a} not declared" for a in REQUIRED if not str(row.get(a) or "").strip()]
    if row.get("family") not in FAMILIES:
        out.append(f"{row['provider']}: family {row.get('family')!r} is not one of {', '.join(FAMILIES)}")
    if row.get("capture_kind") not in (None, *CAPTURE_KINDS):
        out.append(f"{row['provider']}: capture {row.get('capture_kind')!r} is not real or composed")
    return out


def source_rows() -> list[dict]:
    """Every spider's row, by provider name."""
    from pricewatch.collect.replays import (
        spider_loader,  # the spider loader of the Scrapy project
    )
    loader = spider_loader()
    return [source_row(loader.load(name)) for name in sorted(loader.list())]


def default_providers(providers: list[str], rows: list[dict] | None = None) -> list[str]:
    """The providers a run reads when none is named: those enabled by default."""
    enabled = {r["provider"]: r["enabled_by_default"] for r in (rows if rows is not None else source_rows())}
    return [p for p in providers if enabled.get(p, True)]


def checked_rows(rows: list[dict] | None = None) -> list[dict]:
    """The rows the sources table may hold: a spider whose declaration is wrong is left out with
    a warning, never a failed load (tests/test_sources.py fails on it instead)."""
    rows = rows if rows is not None else source_rows()
    for row in [r for r in rows if problems(r)]:
        logger.warning("sources: %s", "; ".join(problems(row)))
    return [r for r in rows if not problems(r)]


def sync_sources(con, rows: list[dict] | None = None) -> int:
    """Rewrites the ``sources`` table from the spider classes' checked rows (inside the caller's
    transaction). Returns the number of rows written (0 when the table already says the same)."""
    return write_sources(con, checked_rows(rows))
