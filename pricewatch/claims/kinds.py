"""The computation kinds a claim can have (``compute.kind`` in rules/, see rules/README.md) and
the tolerances, as strict pydantic models: one definition, validated when rules/ is read."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, model_validator


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
    # The comparable class compared ("H100 SXM"; warehouse/macros/comparable_class.sql). Default:
    # the cited offer's; without a cited offer, the one class the GPU's offers have.
    class_: str | None = Field(None, alias="class")

    @model_validator(mode="after")
    def class_of_the_model(self):
        if self.class_ is not None and not self.class_.startswith(self.gpu):
            raise ValueError(f"class {self.class_!r} is not a class of {self.gpu!r}")
        return self


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
    element: int | None = None     # the n-th (0-based) number of a listed fact ("10, 24, 168, 720")


class Constant(_Strict):
    """A figure the page cites from a document (a paper, a datasheet): checked against the
    recorded copy of that figure in rules/sources/ (``record``: its id), never against the page."""
    kind: Literal["constant"]
    record: str                    # id of a record in rules/sources/*.yaml
    figure: str                    # the figure's name in that record, or "read": the date it was read


class Difference(_Strict):
    """of - minus: what is left ("8× H200 leaves only 8 GB for activations")."""
    kind: Literal["difference"]
    of: Term
    minus: Term


class Same(_Strict):
    """✓ while two terms are the same after rounding ("the ratio is the same at our prices")."""
    kind: Literal["same"]
    of: Term
    to: Term
    rounds_to: int = Field(default=0, ge=0, le=6)
    # rounded to the nearest multiple of step instead ("48 ÷ 65 = 0.74, rounded to 0.75": 0.05)
    step: Decimal | None = Field(default=None, gt=0)


class RuleParam(_Strict):
    """A number of the page's own memory rules as the page prints it (0.75 GB per billion
    parameters, a 20 % margin): a rule edited in page.yaml changes the printed figure too."""
    kind: Literal["rule_param"]
    method: str
    field: Literal["bytes_per_param", "margin", "margin_percent"]


class ObservedDate(_Strict):
    """The date the inputs of other claims were observed ("prices as of 2026-10-29"): holds
    while every claim it dates holds (the page stays true as of its date); when one of them
    changed, the regenerated page shows the date of the new readings."""
    kind: Literal["observed_date"]
    of: list[str] = Field(min_length=1)     # claim ids
    format: Literal["ja_date", "iso_date", "ja_minute_utc"] = "ja_date"


class Less(_Strict):
    """✓ while one term is below another ("if the budget is fixed, the A100": it is cheaper)."""
    kind: Literal["less"]
    of: Term
    than: Term


class Parameter(_Strict):
    """A parameter of another claim's computation as the page prints it (the assumed hours of a
    run-cost row): one definition for the number shown and the number computed with."""
    kind: Literal["parameter"]
    of: str                         # claim id
    field: Literal["hours", "count", "params_b"]


class SmallestFit(_Strict):
    """The GPU (a name from gpus:) with the least VRAM that holds ``needs`` on one GPU, among
    those the page's own price list offers ("the smallest GPU we rent that fits QLoRA")."""
    kind: Literal["smallest_fit"]
    needs: Term


class PickSource(_Strict):
    """The line of the sources list (出典) for the provider a price claim cites or picks now:
    "<name>の料金 <page> — <name> (read <date>)". It follows the pick: when the cheapest offer
    moves to another provider the line names that provider (and drifts, so the page is
    regenerated with it); while the provider is the same it holds, and shows the new read date
    once the readings it dates changed (like observed_date)."""
    kind: Literal["pick_source"]
    of: str                                   # a cited_offer / cheapest_offer claim id
    pages: dict[str, str] = Field(default_factory=dict)   # provider -> its price page as printed


class Among(_Strict):
    """✓ while every term is one of the numbers another claim lists ("the assumed 10, 24 and 168
    GPU-hours are our 10/24/168/720-hour blocks"): a run-cost edit that leaves the blocks is seen."""
    kind: Literal["among"]
    of: list[Term] = Field(min_length=1)
    listed: str                     # claim id of a listed fact ("10, 24, 168, 720")


class CountOf(_Strict):
    """How many claims are listed (the page's count of its sources, "出典 (12)")."""
    kind: Literal["count_of"]
    claims: list[str] = Field(min_length=1)


Compute = Annotated[Union[OwnPrice, ConfigPrice, RunCost, CitedOffer, CheapestOffer, Ratio, Product, Sum,
                          Memory, Fits, TotalVram, FromPrice, Fact, Constant, Difference, Same, RuleParam,
                          ObservedDate, Less, Parameter, SmallestFit, CountOf, PickSource, Among],
                    Field(discriminator="kind")]


class RoundsTo(_Strict):
    rounds_to: int = Field(ge=0, le=6)


class Percent(_Strict):
    percent: Decimal = Field(gt=0)


Tolerance = Union[Literal["exact", "cents"], RoundsTo, Percent]
