"""GPU model and count of the hyperscalers' instance types: what the price lists do not say.

The price answers name an instance type (``p5.48xlarge``, ``Standard_ND96isr_H100_v5``,
``a3-highgpu-8g``); the GPU behind it comes from each cloud's published instance specs. One
table per cloud, each row citing where it comes from. A type that is not in its table is never
guessed: the spider reports it (source fact ``unknown_instance_types``) and makes no offer of it.

Sources (the providers' own spec pages, as of 2026):
- AWS: "Amazon EC2 accelerated computing instances" (docs.aws.amazon.com/ec2/latest/instancetypes/ac.html):
  P4d 8x A100 40 GB, P4de 8x A100 80 GB, P5 8x H100 80 GB (p5.4xlarge 1x), P5e/P5en 8x H200
  141 GB, P6-B200 8x B200 (1,440 GB in all: 180 GB per GPU), P6-B300 8x B300 (2.1 TB in all:
  ~268 GB per GPU, stored as 268: docs/catalog.md's VRAM rule), G6e L40S 48 GB, G6 L4 24 GB, G5 A10G
  24 GB, G4dn T4 16 GB, P3 V100 16 GB, P3dn V100 32 GB; GPUs per size as in that table.
  Added 2026-12 (issue 23): P6e-GB200 4x GB200 per p6e-gb200.36xlarge (740 GB in all: 185 GB per
  GPU; 18 instances make one 72-GPU UltraServer), G5g NVIDIA T4G 16 GB (1 GPU up to 8xlarge, 2 on
  16xlarge and metal: the GPU table of "Run GPU jobs", docs.aws.amazon.com/batch/latest/userguide/
  gpu-jobs.html), Gr6 1x L4 24 GB (gr6.4xlarge, gr6.8xlarge). Fractional sizes (a slice of one GPU,
  never a whole-GPU offer; :data:`AWS_FRACTIONAL`): G6f 1/8, 1/8, 1/4, 1/2 of an L4 (g6f.large,
  .xlarge, .2xlarge, .4xlarge: the "L4-3Q / -6Q / -12Q" profiles), Gr6f gr6f.4xlarge 1/2 of an L4.
- Azure: the VM size series pages (learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/):
  ND H100 v5 8x H100 80 GB, ND H200 v5 8x H200 141 GB, ND MI300X v5 8x MI300X 192 GB, NDasr A100 v4
  8x A100 40 GB, NDamsr A100 v4 8x A100 80 GB, NC A100 v4 1/2/4x A100 80 GB PCIe, NCads H100 v5
  1/2x H100 NVL 94 GB, NCasT4 v3 1/4x T4, NCv3 1/2/4x V100 16 GB, NDv2 8x V100 32 GB;
  NVadsA10 v5 (MicrosoftDocs/azure-docs articles/virtual-machines/nva10v5-series.md, "GPU
  partition"): NV36ads / NV36adms 1x A10 24 GB, NV72ads 2x A10; NV6ads 1/6, NV12ads 1/3,
  NV18ads 1/2 of an A10 are fractional (:data:`AZURE_FRACTIONAL`).
- Google Cloud: "GPU machine types" (cloud.google.com/compute/docs/gpus): a4 B200, a3-ultragpu
  H200 141 GB, a3-megagpu / a3-highgpu / a3-edgegpu H100 80 GB, a2-ultragpu A100 80 GB,
  a2-highgpu / a2-megagpu A100 40 GB, g2 L4, g4 RTX PRO 6000; the count is the ``-<n>g``
  suffix where the type has one, else the "GPUs: <n>" the pricing page prints beside it.
"""

from __future__ import annotations

import re
from typing import NamedTuple


class Gpus(NamedTuple):
    label: str           # the GPU as the cloud's spec page names it
    count: int           # GPUs per instance (0 for a GCP family: count from the type or page)
    vram_gb: float       # per GPU, as the spec page states it


def _sizes(label: str, vram: float, **counts: int) -> dict[str, Gpus]:
    return {size.replace("_", "."): Gpus(label, n, vram) for size, n in counts.items()}


# --- AWS EC2: family -> size -> GPUs ------------------------------------------------------------
_AWS_FAMILIES: dict[str, dict[str, Gpus]] = {
    "p4d": _sizes("NVIDIA A100", 40, **{"24xlarge": 8}),
    "p4de": _sizes("NVIDIA A100", 80, **{"24xlarge": 8}),
    "p5": _sizes("NVIDIA H100", 80, **{"48xlarge": 8, "4xlarge": 1}),
    "p5e": _sizes("NVIDIA H200", 141, **{"48xlarge": 8}),
    "p5en": _sizes("NVIDIA H200", 141, **{"48xlarge": 8}),
    "p6-b200": _sizes("NVIDIA B200", 180, **{"48xlarge": 8}),
    "p6-b300": _sizes("NVIDIA B300", 268, **{"48xlarge": 8}),
    "g6e": _sizes("NVIDIA L40S", 48, **{"xlarge": 1, "2xlarge": 1, "4xlarge": 1, "8xlarge": 1, "16xlarge": 1,
                                         "12xlarge": 4, "24xlarge": 4, "48xlarge": 8}),
    "g6": _sizes("NVIDIA L4", 24, **{"xlarge": 1, "2xlarge": 1, "4xlarge": 1, "8xlarge": 1, "16xlarge": 1,
                                      "12xlarge": 4, "24xlarge": 4, "48xlarge": 8}),
    "g5": _sizes("NVIDIA A10G", 24, **{"xlarge": 1, "2xlarge": 1, "4xlarge": 1, "8xlarge": 1, "16xlarge": 1,
                                        "12xlarge": 4, "24xlarge": 4, "48xlarge": 8}),
    "g4dn": _sizes("NVIDIA T4", 16, **{"xlarge": 1, "2xlarge": 1, "4xlarge": 1, "8xlarge": 1, "16xlarge": 1,
                                        "12xlarge": 4, "metal": 8}),
    "p3": _sizes("NVIDIA V100", 16, **{"2xlarge": 1, "8xlarge": 4, "16xlarge": 8}),
    "p3dn": _sizes("NVIDIA V100", 32, **{"24xlarge": 8}),
    "p6e-gb200": _sizes("NVIDIA GB200", 185, **{"36xlarge": 4}),
    "g5g": _sizes("NVIDIA T4G", 16, **{"xlarge": 1, "2xlarge": 1, "4xlarge": 1, "8xlarge": 1, "16xlarge": 2,
                                        "metal": 2}),
    "gr6": _sizes("NVIDIA L4", 24, **{"4xlarge": 1, "8xlarge": 1}),
}


class Fraction(NamedTuple):
    label: str           # the GPU a slice is cut from
    share: str           # the slice as the spec page prints it ("1/8")


#: Sizes that carry a slice of one GPU: known (not news), never a whole-GPU offer; the spiders
#: count them in the source fact ``fractional_gpu_types`` and make no offer of them.
AWS_FRACTIONAL: dict[str, Fraction] = {
    "g6f.large": Fraction("NVIDIA L4", "1/8"),
    "g6f.xlarge": Fraction("NVIDIA L4", "1/8"),
    "g6f.2xlarge": Fraction("NVIDIA L4", "1/4"),
    "g6f.4xlarge": Fraction("NVIDIA L4", "1/2"),
    "gr6f.4xlarge": Fraction("NVIDIA L4", "1/2"),
}


def aws_gpus(instance_type: str) -> Gpus | None:
    """The GPUs of an EC2 instance type, or None when the table does not know it."""
    family, _, size = instance_type.partition(".")
    return _AWS_FAMILIES.get(family, {}).get(size)


def aws_fraction(instance_type: str) -> Fraction | None:
    """The GPU slice of a fractional EC2 instance type, or None."""
    return AWS_FRACTIONAL.get(instance_type)



# --- Azure: armSkuName -> GPUs ------------------------------------------------------------------
AZURE_SKUS: dict[str, Gpus] = {
    "Standard_ND96isr_H100_v5": Gpus("NVIDIA H100", 8, 80),
    "Standard_ND96isr_H200_v5": Gpus("NVIDIA H200", 8, 141),
    "Standard_ND96isr_MI300X_v5": Gpus("AMD MI300X", 8, 192),
    "Standard_ND96asr_v4": Gpus("NVIDIA A100", 8, 40),
    "Standard_ND96amsr_A100_v4": Gpus("NVIDIA A100", 8, 80),
    "Standard_NC24ads_A100_v4": Gpus("NVIDIA A100", 1, 80),
    "Standard_NC48ads_A100_v4": Gpus("NVIDIA A100", 2, 80),
    "Standard_NC96ads_A100_v4": Gpus("NVIDIA A100", 4, 80),
    "Standard_NC40ads_H100_v5": Gpus("H100 NVL", 1, 94),
    "Standard_NC80adis_H100_v5": Gpus("H100 NVL", 2, 94),
    "Standard_NC4as_T4_v3": Gpus("NVIDIA T4", 1, 16),
    "Standard_NC8as_T4_v3": Gpus("NVIDIA T4", 1, 16),
    "Standard_NC16as_T4_v3": Gpus("NVIDIA T4", 1, 16),
    "Standard_NC64as_T4_v3": Gpus("NVIDIA T4", 4, 16),
    "Standard_NC6s_v3": Gpus("NVIDIA V100", 1, 16),
    "Standard_NC12s_v3": Gpus("NVIDIA V100", 2, 16),
    "Standard_NC24s_v3": Gpus("NVIDIA V100", 4, 16),
    "Standard_ND40rs_v2": Gpus("NVIDIA V100", 8, 32),
    "Standard_NV36ads_A10_v5": Gpus("NVIDIA A10", 1, 24),
    "Standard_NV36adms_A10_v5": Gpus("NVIDIA A10", 1, 24),
    "Standard_NV72ads_A10_v5": Gpus("NVIDIA A10", 2, 24),
}

AZURE_FRACTIONAL: dict[str, Fraction] = {
    "Standard_NV6ads_A10_v5": Fraction("NVIDIA A10", "1/6"),
    "Standard_NV12ads_A10_v5": Fraction("NVIDIA A10", "1/3"),
    "Standard_NV18ads_A10_v5": Fraction("NVIDIA A10", "1/2"),
}

#: The GPU series of the Virtual Machines price list, by the start of their ``armSkuName``
#: (NC, ND, NG, NV: learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/ names
#: these four families). The Retail Prices request asks for every size of these series, so a
#: size the table does not know yet arrives, and is reported, instead of never being asked for.
AZURE_GPU_SERIES = ("Standard_NC", "Standard_ND", "Standard_NG", "Standard_NV")


def azure_gpus(arm_sku: str) -> Gpus | None:
    return AZURE_SKUS.get(arm_sku)


def azure_fraction(arm_sku: str) -> Fraction | None:
    return AZURE_FRACTIONAL.get(arm_sku)


# --- Google Cloud: machine family -> GPU (count from the type's -<n>g or the page) ---------------
GCP_FAMILIES: dict[str, Gpus] = {
    "a4-highgpu": Gpus("NVIDIA B200", 0, 180),
    "a3-ultragpu": Gpus("NVIDIA H200", 0, 141),
    "a3-megagpu": Gpus("NVIDIA H100", 0, 80),
    "a3-highgpu": Gpus("NVIDIA H100", 0, 80),
    "a3-edgegpu": Gpus("NVIDIA H100", 0, 80),
    "a2-ultragpu": Gpus("NVIDIA A100", 0, 80),
    "a2-highgpu": Gpus("NVIDIA A100", 0, 40),
    "a2-megagpu": Gpus("NVIDIA A100", 0, 40),
    "g2-standard": Gpus("NVIDIA L4", 0, 24),
    "g4-standard": Gpus("NVIDIA RTX PRO 6000", 0, 96),
}
GCP_TYPE = re.compile(r"^(?P<family>[a-z]\d+-[a-z]+)-(?P<n>\d+)(?P<g>g?)$")


def gcp_family(machine_type: str) -> tuple[str, int | None] | None:
    """(family, GPU count from a ``-<n>g`` suffix or None) of a machine type, or None if it is not one."""
    m = GCP_TYPE.match(machine_type)
    if not m:
        return None
    return m["family"], int(m["n"]) if m["g"] else None
