"""Loading the published claims from ``rules/`` (data only; see rules/README.md).

A folder per published page: ``page.yaml`` (what the page's claims share: its own price list,
the GPUs it names, its memory rules), ``page.tmpl`` (the whole page, every number a slot) and any number
of claim files (``claims: [...]``). Everything is validated on load, so a typo in a rule fails
the run that reads it, naming the file and the claim, instead of producing a wrong status.
"""

from __future__ import annotations

import hashlib
import re
from decimal import Decimal
from functools import lru_cache
from importlib.resources import files
from pathlib import Path
from typing import Annotated, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, Strict, ValidationError

from pricewatch.record import yaml_file
from pricewatch.record.catalog import load_catalog

RULES_DIR = Path(str(files("rules")))   # the rules package (data only), wherever it is installed
#: A slot of page.tmpl: {id} a value, {id|pick} what a cheapest/from claim picks, {id|bare} a price
#: without "$", {id|config_ja} / {id|config_x} / {id|count} the configuration the claim computes
#: ("H200を2台", "8× H200", "4"), {?id} a claim the sentence asserts (renders nothing; a sentence
#: whose assertion no longer holds is marked for an editor).
SLOT = re.compile(r"\{(?P<assert>\?)?(?P<id>[a-z0-9][a-z0-9._\-]*)"
                  r"(?:\|(?P<mod>pick|bare|ja_list|config_ja|config_x|count))?\}")
#: The slots that print a claim's configuration (its rule's GPU and count), not its value.
CONFIG_MODIFIERS = ("config_ja", "config_x", "count")
UNITS = ("usd", "gb", "gb_per_s", "tflops", "ratio", "bytes", "hours", "count", "mark", "text")


from pricewatch.claims.kinds import (
    Among,
    CheapestOffer,
    ClaimRef,
    Compute,
    ConfigPrice,
    Constant,
    CountOf,
    Difference,
    Fits,
    FromPrice,
    Less,
    Memory,
    ObservedDate,
    OwnPrice,
    Parameter,
    PickSource,
    Product,
    Ratio,
    RuleParam,
    RunCost,
    Same,
    SmallestFit,
    Sum,
    Tolerance,
    TotalVram,
    _Strict,
)


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
    # the comparable class the page's own price of it compares ("H100 SXM"); default: the one
    # class the price list's offers of the model have (pricewatch/claims/classes.py)
    class_: str | None = Field(None, alias="class")


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
    url: str | None = None              # where the page is published (alerts name it)


class Page(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    page: PageInfo
    gpus: dict[str, GpuName]
    memory: MemoryRules | None = None
    claims: list[Claim] = []
    #: page.tmpl: the whole page in its own format, every number a {claim id} (see rules/README.md).
    template: str = ""

    def vram(self, gpu: str) -> Decimal:
        g = self.gpus[gpu]
        if g.vram_gb is not None:
            return g.vram_gb
        return Decimal(str(load_catalog().models[g.model]["vram_gb"]))


class Record(_Strict):
    """A recorded copy of figures from a document the pages cite (rules/sources/*.yaml)."""
    id: str
    document: str                  # title
    publisher: str
    url: str
    table: str | None = None       # the table or section the figures are in
    read: str                      # the date the copy was taken (YYYY-MM-DD)
    copied: str                    # how the copy was made (fetched, transcribed, ...)
    figures: dict[str, Decimal | str]
    excerpt: str                   # the document's own words around the figures


class RuleSet(BaseModel):
    pages: dict[str, Page]
    providers: dict[str, str] = {}
    records: dict[str, Record] = {}
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
        return yaml_file.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise RulesError(f"{path}: not valid YAML: {exc}") from exc


def load_rules(root: str | Path | None = None) -> RuleSet:
    root = Path(root or RULES_DIR)
    pages = {}
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and (p / "page.yaml").exists()):
        template = folder / "page.tmpl"
        template_text = template.read_text(encoding="utf-8") if template.exists() else ""
        data = {"id": folder.name, **_read(folder / "page.yaml")}
        data.setdefault("claims", [])
        for f in sorted(folder.glob("*.yaml")):
            if f.name == "page.yaml":
                continue
            extra = _read(f)
            unknown = set(extra) - {"claims"}
            if unknown:
                raise RulesError(f"{f}: unknown top-level keys {sorted(unknown)} (expected claims:; the page itself is page.tmpl)")
            for c in extra.get("claims") or []:
                data["claims"].append({**c, "page": folder.name, "file": f"{folder.name}/{f.name}"}
                                      if isinstance(c, dict) else c)
        data["template"] = template_text
        try:
            pages[folder.name] = Page.model_validate(data)
        except ValidationError as exc:
            raise RulesError(f"{folder}: {_explain(exc, data)}") from exc
    providers_file = root / "providers.yaml"
    providers = _read(providers_file).get("providers", {}) if providers_file.exists() else {}
    records = {}
    for f in sorted((root / "sources").glob("*.yaml")) if (root / "sources").is_dir() else []:
        for entry in _read(f).get("records") or []:
            try:
                rec = Record.model_validate(entry)
            except ValidationError as exc:
                raise RulesError(f"{f}: record {entry.get('id', '?') if isinstance(entry, dict) else '?'}: "
                                 f"{exc.errors()[0]['loc']}: {exc.errors()[0]['msg']}") from exc
            if rec.id in records:
                raise RulesError(f"{f}: record id {rec.id!r} twice")
            records[rec.id] = rec
    rules = RuleSet(pages=pages, providers=providers, records=records, version=rules_version(root))
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


def cached_rules(root: str | None = None) -> RuleSet:
    """rules/ parsed once per version (rules_version: the sha256 of its files, ~1 ms), so a
    long-lived process reads an edited rules/ again and never evaluates with stale rules."""
    root = str(root or RULES_DIR)
    return _parsed(root, rules_version(root))


@lru_cache(maxsize=4)
def _parsed(root: str, version: str) -> RuleSet:
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
    if isinstance(c, (Fits, FromPrice, SmallestFit)) and c.needs is not None:
        return term_refs(c.needs)
    if isinstance(c, (Same,)):
        return term_refs(c.of) + term_refs(c.to)
    if isinstance(c, Less):
        return term_refs(c.of) + term_refs(c.than)
    if isinstance(c, Parameter):
        return [c.of]
    if isinstance(c, Difference):
        return term_refs(c.of) + term_refs(c.minus)
    if isinstance(c, ObservedDate):
        return list(c.of)
    if isinstance(c, CountOf):
        return list(c.claims)
    if isinstance(c, PickSource):
        return [c.of]
    if isinstance(c, Among):
        return [r for t in c.of for r in term_refs(t)] + [c.listed]
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
            if isinstance(comp, Constant):
                rec = rules.records.get(comp.record)
                if rec is None:
                    problems.append(f"{c.file} claim {c.id!r}: record {comp.record!r} not in rules/sources/")
                elif comp.figure != "read" and comp.figure not in rec.figures:
                    problems.append(f"{c.file} claim {c.id!r}: record {comp.record!r} has no figure {comp.figure!r}")
            if isinstance(comp, (Memory, RuleParam)) and (page.memory is None or comp.method not in page.memory.methods):
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
        for m in SLOT.finditer(page.template):
            if m.group("id") not in claims:
                problems.append(f"{page.id}/page.tmpl: unknown claim {m.group(0)}")
            elif m.group("mod") in CONFIG_MODIFIERS and getattr(claims[m.group("id")].compute, "count", None) is None:
                problems.append(f"{page.id}/page.tmpl: {m.group(0)} prints a configuration, but claim "
                                f"{m.group('id')!r} ({claims[m.group('id')].file}) computes none (no GPU count)")
            elif m.group("mod") in ("config_ja", "config_x") and not getattr(claims[m.group("id")].compute, "gpu", None):
                problems.append(f"{page.id}/page.tmpl: {m.group(0)} names a GPU, but claim "
                                f"{m.group('id')!r} ({claims[m.group('id')].file}) computes on no single GPU")
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
