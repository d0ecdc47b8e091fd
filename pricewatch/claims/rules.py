"""Loading the published claims from ``rules/`` (data only; see rules/README.md).

A folder per published page: ``page.yaml`` (what the page's claims share: its own price list,
the GPUs it names, its memory rules), ``tables.yaml`` (its tables as templates) and any number
of claim files (``claims: [...]``). Everything is validated on load, so a typo in a rule fails
the run that reads it, naming the file and the claim, instead of producing a wrong status.
"""

from __future__ import annotations

import hashlib
import re
from decimal import Decimal
from importlib.resources import files
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal, Union

import yaml
from pydantic import BaseModel, ConfigDict, Field, Strict, ValidationError, model_validator

from pricewatch.catalog import load_catalog

RULES_DIR = Path(str(files("rules")))   # the rules package (data only), wherever it is installed
PLACEHOLDER = re.compile(r"\{([a-z0-9][a-z0-9._\-]*)(?:\|(pick|bare))?\}")
UNITS = ("usd", "gb", "gb_per_s", "tflops", "ratio", "bytes", "hours", "count", "mark", "text")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ClaimRef(_Strict):
    claim: str


Term = Union[ClaimRef, Decimal]


class OfferRef(_Strict):
    provider: str
    offer: str


class OwnPrice(_Strict):
    kind: Literal["own_price"]
    gpu: str


class ConfigPrice(_Strict):
    kind: Literal["config_price"]
    gpu: str
    count: int = Field(ge=1)


class RunCost(_Strict):
    kind: Literal["run_cost"]
    gpu: str
    count: int = Field(ge=1)
    hours: Decimal


class CitedOffer(_Strict):
    kind: Literal["cited_offer"]
    provider: str
    offer: str
    price: Literal["per_hour", "per_gpu_hour"] = "per_hour"


class CheapestOffer(_Strict):
    kind: Literal["cheapest_offer"]
    gpu: str                       # catalog model
    count: int = Field(ge=1)
    billing: Literal["on-demand", "spot", "reserved", "marketplace"] = "on-demand"
    self_service: bool | None = True   # None: either
    include_aggregators: bool = False
    exclude_providers: list[str] = []
    exclude_tiers: list[str] = []      # provider tiers that are not what the claim compares (serverless)
    cites: OfferRef | None = None
    price: Literal["per_hour", "per_gpu_hour"] = "per_hour"


class Ratio(_Strict):
    kind: Literal["ratio"]
    of: Term
    to: Term


class Product(_Strict):
    kind: Literal["product"]
    of: list[Term]


class Sum(_Strict):
    kind: Literal["sum"]
    of: list[Term]


class Memory(_Strict):
    kind: Literal["memory"]
    method: str
    params_b: Decimal


class Fits(_Strict):
    kind: Literal["fits"]
    gpu: str | None = None         # a GPU the page names, or "any" (any GPU the page names)
    gpus: list[str] | None = None  # several named GPUs: each of them must hold it
    count: int = Field(ge=1)
    needs: Term

    @model_validator(mode="after")
    def one_of(self):
        if (self.gpu is None) == (self.gpus is None):
            raise ValueError("fits needs either gpu or gpus")
        return self

    def named(self) -> list[str]:
        return self.gpus if self.gpus is not None else [self.gpu]


class TotalVram(_Strict):
    kind: Literal["total_vram"]
    gpu: str
    count: int = Field(ge=1)


class FromPrice(_Strict):
    kind: Literal["from_price"]
    gpus: list[str]
    count: int = Field(ge=1)
    needs: Term | None = None      # the GB the cell needs: used to look for a cheaper fit


class Fact(_Strict):
    kind: Literal["fact"]
    fact: str
    provider: str | None = None    # default: the page's own price source


class Constant(_Strict):
    kind: Literal["constant"]
    value: Decimal
    source: str | None = None


Compute = Annotated[Union[OwnPrice, ConfigPrice, RunCost, CitedOffer, CheapestOffer, Ratio, Product, Sum,
                          Memory, Fits, TotalVram, FromPrice, Fact, Constant], Field(discriminator="kind")]


class RoundsTo(_Strict):
    rounds_to: int = Field(ge=0, le=6)


class Percent(_Strict):
    percent: Decimal = Field(gt=0)


Tolerance = Union[Literal["exact", "cents"], RoundsTo, Percent]


class Says(_Strict):
    ja: str
    en: str


class Claim(_Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9.\-]*$")
    group: str | None = None
    says: Says
    published: Annotated[bool, Strict()] | Decimal | str   # only YAML true/false is a ✓/✗ (1 stays a number)
    published_pick: str | None = None   # from/cheapest claims: what the page names as the cheapest
    unit: Literal[UNITS]
    tolerance: Tolerance | None = None
    cited_date: str | None = None
    compute: Compute
    page: str = ""                      # filled in from the folder
    file: str = ""

    @property
    def claim_group(self) -> str:
        return self.group or self.id.split(".", 1)[0]

    @property
    def tol(self) -> Tolerance:
        if self.tolerance is not None:
            return self.tolerance
        return "cents" if self.unit == "usd" else "exact"


class GpuName(_Strict):
    model: str
    vram_gb: Decimal | None = None      # as the page states it; default: the catalog's


class MemoryMethod(_Strict):
    bytes_per_param: Decimal
    margin: Decimal = Decimal(1)


class RoundingStep(_Strict):
    below_gb: Decimal | None = None
    decimals: int = Field(ge=0, le=6)


class MemoryRules(_Strict):
    rounding: Literal["none"] | list[RoundingStep] = "none"
    methods: dict[str, MemoryMethod]


class PageInfo(_Strict):
    title: Says
    publisher: str
    original: str
    prices_dated: str
    own_prices: str                     # provider id of the page's own price list


class Table(_Strict):
    id: str
    title: str
    template: str


class Page(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    page: PageInfo
    gpus: dict[str, GpuName]
    memory: MemoryRules | None = None
    tables: list[Table] = []
    claims: list[Claim] = []

    def vram(self, gpu: str) -> Decimal:
        g = self.gpus[gpu]
        if g.vram_gb is not None:
            return g.vram_gb
        return Decimal(str(load_catalog().models[g.model]["vram_gb"]))


class RuleSet(BaseModel):
    pages: dict[str, Page]
    providers: dict[str, str] = {}
    #: sha256 (16 hex digits) of every file of rules/ as read: an evaluation records it, and a
    #: snapshot is evaluated again when it changes (pricewatch/claims/evaluate.py).
    version: str = "unrecorded"

    @property
    def claims(self) -> dict[str, Claim]:
        return {c.id: c for p in self.pages.values() for c in p.claims}

    def provider_name(self, provider: str) -> str:
        return self.providers.get(provider, provider)


class RulesError(ValueError):
    pass


def _read(path: Path) -> dict:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise RulesError(f"{path}: not valid YAML: {exc}") from exc


def load_rules(root: str | Path | None = None) -> RuleSet:
    root = Path(root or RULES_DIR)
    pages = {}
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and (p / "page.yaml").exists()):
        data = {"id": folder.name, **_read(folder / "page.yaml")}
        data.setdefault("claims", [])
        for f in sorted(folder.glob("*.yaml")):
            if f.name == "page.yaml":
                continue
            extra = _read(f)
            unknown = set(extra) - {"claims", "tables"}
            if unknown:
                raise RulesError(f"{f}: unknown top-level keys {sorted(unknown)} (expected claims: or tables:)")
            for c in extra.get("claims") or []:
                data["claims"].append({**c, "page": folder.name, "file": f"{folder.name}/{f.name}"}
                                      if isinstance(c, dict) else c)
            data.setdefault("tables", []).extend(extra.get("tables") or [])
        try:
            pages[folder.name] = Page.model_validate(data)
        except ValidationError as exc:
            raise RulesError(f"{folder}: {_explain(exc, data)}") from exc
    providers_file = root / "providers.yaml"
    providers = _read(providers_file).get("providers", {}) if providers_file.exists() else {}
    rules = RuleSet(pages=pages, providers=providers, version=rules_version(root))
    _check(rules)
    return rules


def rules_version(root: str | Path | None = None) -> str:
    """The version of rules/: sha256 over every file's path and bytes (data files only; an
    edited sentence, rule, template or published copy is a new version)."""
    root = Path(root or RULES_DIR)
    h = hashlib.sha256()
    for f in sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in (".yaml", ".yml", ".md", ".txt", ".tmpl")):
        h.update(f.relative_to(root).as_posix().encode() + b"\0" + f.read_bytes().replace(b"\r\n", b"\n") + b"\0")
    return h.hexdigest()[:16]


@lru_cache(maxsize=2)
def cached_rules(root: str | None = None) -> RuleSet:
    return load_rules(root)


def _explain(exc: ValidationError, data: dict) -> str:
    msgs = []
    for err in exc.errors()[:10]:
        loc = list(err["loc"])
        where = ".".join(map(str, loc))
        if loc[:1] == ["claims"] and len(loc) > 1 and isinstance(loc[1], int):
            c = data["claims"][loc[1]]
            where = f"{c.get('file', '?')} claim {c.get('id', loc[1])!r}: " + ".".join(map(str, loc[2:]))
        msgs.append(f"{where}: {err['msg']}")
    return "; ".join(msgs)


def term_refs(term) -> list[str]:
    return [term.claim] if isinstance(term, ClaimRef) else []


def refs(claim: Claim) -> list[str]:
    c = claim.compute
    if isinstance(c, Ratio):
        return term_refs(c.of) + term_refs(c.to)
    if isinstance(c, (Product, Sum)):
        return [r for t in c.of for r in term_refs(t)]
    if isinstance(c, (Fits, FromPrice)) and c.needs is not None:
        return term_refs(c.needs)
    return []


def _check(rules: RuleSet) -> None:
    """Cross-references: ids unique, every referenced claim / GPU / memory method exists, no cycles."""
    seen: dict[str, str] = {}
    problems = []
    catalog = load_catalog()
    for page in rules.pages.values():
        for name, g in page.gpus.items():
            if g.model not in catalog.models:
                problems.append(f"{page.id}/page.yaml: GPU {name!r} maps to {g.model!r}, not in the catalog")
        for c in page.claims:
            if c.id in seen:
                problems.append(f"{c.file}: claim id {c.id!r} also in {seen[c.id]}")
            seen[c.id] = c.file
            comp = c.compute
            gpus = []
            if isinstance(comp, (OwnPrice, ConfigPrice, RunCost, TotalVram)):
                gpus = [comp.gpu]
            elif isinstance(comp, Fits):
                gpus = [g for g in comp.named() if g != "any"]
            elif isinstance(comp, FromPrice):
                gpus = comp.gpus
            for g in gpus:
                if g not in page.gpus:
                    problems.append(f"{c.file} claim {c.id!r}: GPU {g!r} is not in {page.id}/page.yaml gpus")
            if isinstance(comp, Memory) and (page.memory is None or comp.method not in page.memory.methods):
                problems.append(f"{c.file} claim {c.id!r}: memory method {comp.method!r} not in {page.id}/page.yaml")
            if isinstance(comp, CheapestOffer) and comp.gpu not in catalog.models:
                problems.append(f"{c.file} claim {c.id!r}: GPU model {comp.gpu!r} not in the catalog")
            if c.unit == "mark" and not isinstance(c.published, bool):
                problems.append(f"{c.file} claim {c.id!r}: a ✓/✗ claim publishes true or false")
            if c.unit != "text" and isinstance(c.published, str):
                problems.append(f"{c.file} claim {c.id!r}: published {c.published!r} is not a number")
    claims = rules.claims
    for c in claims.values():
        for r in refs(c):
            if r not in claims:
                problems.append(f"{c.file} claim {c.id!r}: refers to unknown claim {r!r}")
    for page in rules.pages.values():
        for t in page.tables:
            for ref, _ in PLACEHOLDER.findall(t.template):
                if ref not in claims and ref not in ("snapshot_date", "snapshot_date_ja"):
                    problems.append(f"{page.id}/tables.yaml table {t.id!r}: unknown claim {{{ref}}}")
    if not problems:
        state: dict[str, int] = {}

        def visit(cid, path):
            if state.get(cid) == 2:
                return
            if state.get(cid) == 1:
                problems.append("claims refer to each other in a circle: " + " -> ".join(path + [cid]))
                return
            state[cid] = 1
            for r in refs(claims[cid]):
                visit(r, path + [cid])
            state[cid] = 2

        for cid in claims:
            visit(cid, [])
    if problems:
        raise RulesError("rules/ has problems:\n  " + "\n  ".join(problems))
