"""The offer's fields, declared once: name, stored type, meaning, place in the key, who fills it,
and which derived shapes carry it.

Everything that names offer fields reads them from :data:`OFFER_FIELDS`:

=========  =====================================================================================
item       the Scrapy item spiders yield (``spiders/items.py`` builds ``OfferItem`` from it)
stored     the ``offers`` row: the columns ``pricewatch/collect/judge.py`` shapes (all but the
           two the load's quality gate adds) and the warehouse stores
snapshot   the columns of ``offers`` the claims read (``pricewatch/claims/snapshot.py``)
export     the offer columns of ``pricewatch export``'s "offers" dataset
=========  =====================================================================================

The key is :func:`pricewatch.record.offer.offer_key` over :data:`IDENTITY_FIELDS` (the fields
with a ``key`` place, in that order). The stored table and the export are *frozen, versioned*
formats declared where they are written (``warehouse/load.py`` OFFERS_TABLE_V1_FIELDS,
``pricewatch/export/datasets.py`` DATASETS v``EXPORT_VERSION``); tests/test_record_contract.py
checks them against this table, so a change here that would change a stored or exported shape
fails until it comes with a new version (a migration, EXPORT_VERSION + 1).

``meaning`` is the column's one description: for a stored column it is the text of its
comment in the warehouse (warehouse/tables/schema.yaml; the contract test checks they agree).
``note`` says, where it helps, how a spider fills the field.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Who fills a field: the provider spider, the normalize pipeline (spiders/pipelines.py), the
#: crawl judge when it shapes the run (pricewatch/collect/judge.py), or the load's quality gate.
FILLERS = ("spider", "pipeline", "judge", "load")
#: The shapes derived from the table (see the module docstring).
SETS = ("item", "stored", "snapshot", "export")


@dataclass(frozen=True)
class OfferField:
    name: str
    type: str | None          # the DuckDB type of the stored column; None: not stored
    filled_by: str            # one of FILLERS
    sets: frozenset[str]      # of SETS
    meaning: str
    key: int | None = None    # its place in the offer key (1 = first); None: not identity
    note: str = ""            # how a spider fills it, when the meaning does not say

    def __post_init__(self):
        if self.filled_by not in FILLERS or not self.sets <= set(SETS) or \
                (self.type is None) != ("stored" not in self.sets):
            raise ValueError(f"offer field {self.name}: filled_by, sets or type do not fit together")


def _table(*rows) -> tuple[OfferField, ...]:
    return tuple(OfferField(name, type_, by, frozenset(sets.split()), meaning, *rest)
                 for name, type_, by, sets, meaning, *rest in rows)


_S, _P = "item stored snapshot export", "DECIMAL(18,6)"

#: The offer's fields, in the order the judge shapes a run's offers row (the stored table's own
#: column order is its frozen format's: warehouse/load.py).
OFFER_FIELDS: tuple[OfferField, ...] = _table(
    # name, stored type, filled by, in, meaning[, key place[, note for spiders]]
    ("run_id", "VARCHAR", "judge", "stored snapshot export", "the run (runs.run_id)"),
    ("provider", "VARCHAR", "spider", _S, "provider (spider name)"),
    ("offer_key", "VARCHAR", "pipeline", _S,
     ("the offer's key within its provider (GPU count, provider id or label, VRAM printed, billing/tier, "
      "term, region, variant)"), None, "built by the normalize pipeline (offer_key); never set by a spider"),
    ("sku", None, "spider", "item", "the provider's own id of the offer, when it has one (\"a100xl\", a plan id)", 2),
    ("variant", None, "spider", "item",
     "what else tells two rows apart (a vCPU/RAM config), when the page has it", 9),
    ("gpu_label", "VARCHAR", "spider", _S, "the GPU label as the source printed it", 3,
     "exactly as the source prints it (in the key unless the offer has a sku)"),
    ("gpu_model", "VARCHAR", "pipeline", _S, "canonical GPU model (gpu_catalog); NULL = label unknown to the catalog"),
    ("gpu_count", "INTEGER", "spider", _S, "GPUs per instance", 1),
    ("vram_gb", "DOUBLE", "spider", _S, "VRAM per GPU, GB", 4,
     "per GPU, if the source says (GB; MiB figures are recognised), else from the catalog"),
    ("form_factor", "VARCHAR", "spider", _S, "SXM | PCIe | NVL | unknown", None,
     "only if the source states it apart from the label (else from the catalog)"),
    ("billing", "VARCHAR", "spider", _S, "on-demand | spot | reserved | marketplace", 5, "how it is paid for"),
    ("tier", "VARCHAR", "spider", _S, "the provider's own tier (prototyping, production, secure, community, ...)", 6,
     "default: billing"),
    ("reserved_term", "VARCHAR", "spider", "item stored export", "billing reserved: the term (\"1 month\", \"3 years\", ...)", 7),
    ("self_service", "BOOLEAN", "spider", _S, "false when a sales contact or a large minimum is required", None,
     "default: True"),
    ("region", "VARCHAR", "spider", "item stored export", "region, when the price is per region", 8),
    ("currency", "VARCHAR", "spider", _S, "ISO currency of the price", None, "default: USD"),
    ("price_unit", "VARCHAR", "spider", "item stored export",
     "the unit the source published: instance_hour | gpu_hour | gpu_second"),
    ("stated_per_gpu", None, "spider", "item", "a per-GPU price the source prints beside an instance price (checked)"),
    ("price_per_hour", _P, "pipeline", _S, "price per instance-hour (NULL when unpriced)"),
    ("price_per_gpu_hour", _P, "pipeline", _S, "price per GPU-hour"),
    ("is_priced", "BOOLEAN", "pipeline", _S, "false for Contact sales, placeholders, unresolved text"),
    ("price_text", "VARCHAR", "pipeline", _S, "the raw text of an unpriced offer (\"Contact us\", ...)"),
    ("price_raw", "VARCHAR", "spider", "item stored export",
     "the price cell's text, verbatim (NULL for rows loaded before migration 017)", None,
     "number or text as printed (\"$$43.46\", 1.09, \"Contact us\")"),
    ("availability", "VARCHAR", "spider", "item stored export", "availability as the source states it (regions, stock)",
     None, "as the source says (\"available\", \"sold out\", a count), or None"),
    ("is_aggregator", "BOOLEAN", "spider", _S, "true for re-sellers of other clouds (never the cheapest)"),
    ("capture", None, "spider", "item", "CaptureRef.as_meta() of the response the price came from",
     None, "the judge stores its source_url, warc_file, warc_record_id and body_sha256"),
    ("observed_at", "TIMESTAMP WITH TIME ZONE", "judge", "stored snapshot export",
     "when the prices were seen (UTC); for a replay the capture time or --as-of"),
    ("source_url", "VARCHAR", "judge", "stored snapshot export", "the page or API the value was read from"),
    ("warc_file", "VARCHAR", "judge", "stored snapshot export", "the WARC file holding the archived response"),
    ("warc_record_id", "VARCHAR", "judge", "stored snapshot export", "WARC-Record-ID of the archived response"),
    ("body_sha256", "VARCHAR", "judge", "stored export", "sha256 of the response body"),
    ("held_row", None, "spider", "item", "why the parser held this row (a price cell it could not read)",
     None, "set by spiders/base.py Parsed.hold, never by hand; the load stores it as held_reason"),
    ("held_reason", "VARCHAR", "load", "stored snapshot export", "why the quality gate holds this reading (NULL: trusted)"),
    ("screen_note", "VARCHAR", "load", "stored export", "why a large move was let through (confirmed, market moved)"),
)

FIELDS_BY_NAME: dict[str, OfferField] = {f.name: f for f in OFFER_FIELDS}


def names_in(shape: str) -> tuple[str, ...]:
    """The names of the fields in one derived shape (of SETS), in the table's order."""
    if shape not in SETS:
        raise KeyError(shape)
    return tuple(f.name for f in OFFER_FIELDS if shape in f.sets)


#: The fields that tell one offer from another, in key order (offer_key reads only these).
IDENTITY_FIELDS: tuple[str, ...] = tuple(f.name for f in sorted((f for f in OFFER_FIELDS if f.key), key=lambda f: f.key))
#: The Scrapy item's fields.
ITEM_FIELDS = names_in("item")
#: The offers row: every stored column, in the judge's order.
STORED_FIELDS = names_in("stored")
#: The columns of a run's offers frame as the judge shapes it (the load's gate adds the rest).
JUDGED_FIELDS = tuple(f.name for f in OFFER_FIELDS if "stored" in f.sets and f.filled_by != "load")
#: The columns of offers the claims' snapshot reads.
SNAPSHOT_FIELDS = names_in("snapshot")
#: The offer columns of the export's "offers" dataset.
EXPORT_FIELDS = names_in("export")
