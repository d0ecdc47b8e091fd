"""Canonical GPU catalog: maps every raw label a provider uses to one model, its VRAM and form factor.

The catalog itself is data (``pricewatch/record/gpu_catalog.yaml``, a package resource of
``pricewatch.record``); this module only matches labels. Matching is exact on a normalized key, never
fuzzy: an unknown label is reported, not guessed. A label that names a family (``A100 SXM``)
is resolved by the VRAM the source states, read as a nominal size (81920 MiB -> 80 GB);
without a VRAM figure it stays unknown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources


from pricewatch.record import yaml_file
from pricewatch.record.offer import nominal_vram

FORM_FACTORS = ("SXM", "PCIe", "NVL", "unknown")
# What a model's ``classes_by`` may say (gpu_catalog.yaml): it splits into comparable classes by form factor.
CLASSES_BY = ("form_factor",)

# Vendor / marketing words that never change which GPU a label means.
_NOISE = {"nvidia", "amd", "geforce", "tesla", "gpu", "instinct"}


def label_key(label: str) -> str:
    s = label.lower().replace("\u00a0", " ")
    s = re.sub(r"(\d+)\s*gb\b", r"\1gb", s)  # "80 GB" -> "80gb"
    s = re.sub(r"[^a-z0-9.]+", " ", s)
    return " ".join(w for w in s.split() if w not in _NOISE)


@dataclass(frozen=True)
class GpuMatch:
    model: str
    vendor: str
    vram_gb: float
    form_factor: str


@dataclass(frozen=True)
class _Alias:
    models: tuple[str, ...]
    form_factor: str
    vram_gb: float | None


class GpuCatalog:
    def __init__(self, data: dict):
        self.models: dict[str, dict] = {}
        self._aliases: dict[str, _Alias] = {}
        for m in data["models"]:
            band = m.get("usd_per_gpu_hour")
            if band is not None and not (len(band) == 2 and 0 < band[0] < band[1]):
                raise ValueError(f"gpu catalog: bad usd_per_gpu_hour {band!r} for {m['model']!r}")
            if m.get("classes_by", "form_factor") not in CLASSES_BY:
                raise ValueError(f"gpu catalog: bad classes_by {m['classes_by']!r} for {m['model']!r}")
            self.models[m["model"]] = m
            self._add(m["model"], _Alias((m["model"],), "unknown", None))
            for a in m.get("aliases", []):
                self._add(a["label"], _Alias((m["model"],), a.get("form_factor", "unknown"), a.get("vram_gb")))
        # Labels that name a family without saying which memory size (e.g. "A100 SXM4"):
        # resolved by the VRAM the source reports, otherwise left unknown.
        for a in data.get("ambiguous_aliases", []):
            unknown = [m for m in a["models"] if m not in self.models]
            if unknown or len(a["models"]) < 2:
                raise ValueError(f"gpu catalog: ambiguous alias {a['label']!r} needs 2+ known models, not {unknown}")
            self._add(a["label"], _Alias(tuple(a["models"]), a.get("form_factor", "unknown"), None))

    def _add(self, label: str, alias: _Alias) -> None:
        key = label_key(label)
        if alias.form_factor not in FORM_FACTORS:
            raise ValueError(f"gpu catalog: bad form factor {alias.form_factor!r} for {label!r}")
        if key in self._aliases and self._aliases[key] != alias:
            raise ValueError(f"gpu catalog: label {label!r} maps to two entries")
        self._aliases[key] = alias

    def resolve(self, label: str, vram_gb: float | None = None) -> GpuMatch | None:
        """The model a label means; ``vram_gb`` (GB, or MiB when > 1024) decides a family label."""
        alias = self._aliases.get(label_key(label))
        if alias is None:
            return None
        model = alias.models[0]
        if len(alias.models) > 1:
            vram = nominal_vram(vram_gb)
            if vram is None:
                return None
            fits = [m for m in alias.models if abs(self.models[m]["vram_gb"] - vram) <= 0.1 * vram]
            if len(fits) != 1:
                return None
            model = fits[0]
        entry = self.models[model]
        return GpuMatch(model, entry["vendor"], float(alias.vram_gb or entry["vram_gb"]), alias.form_factor)

    def plausible_band(self, model: str) -> tuple[float, float] | None:
        """(low, high) USD per GPU-hour outside which a price for ``model`` is almost surely misread."""
        band = (self.models.get(model) or {}).get("usd_per_gpu_hour")
        return (float(band[0]), float(band[1])) if band else None

    def rows(self) -> list[dict]:
        """Rows for the warehouse's gpu_catalog table (classes_by_form_factor: the model splits into
        comparable classes, read by the macro comparable_class, warehouse/macros/comparable_class.sql)."""
        return [{"gpu_model": m["model"], "vendor": m["vendor"], "vram_gb": float(m["vram_gb"]),
                 "classes_by_form_factor": m.get("classes_by") == "form_factor"} for m in self.models.values()]

    def labels(self) -> list[dict]:
        """Rows for the warehouse's gpu_aliases table."""
        rows = []
        for key, alias in sorted(self._aliases.items()):
            for m in alias.models:
                rows.append({"alias_key": key, "gpu_model": m, "form_factor": alias.form_factor,
                             "vram_gb": alias.vram_gb or self.models[m]["vram_gb"],
                             "ambiguous": len(alias.models) > 1})
        return rows


@lru_cache(maxsize=4)
def load_catalog(path: str | None = None) -> GpuCatalog:
    """The catalog from ``path``, or the ``gpu_catalog.yaml`` resource of pricewatch.record."""
    if path:
        with open(path, encoding="utf-8") as fh:
            return GpuCatalog(yaml_file.safe_load(fh))
    return GpuCatalog(yaml_file.safe_load(resources.files("pricewatch.record").joinpath("gpu_catalog.yaml").read_text("utf-8")))
