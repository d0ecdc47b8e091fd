"""One canonical GPU catalog for every raw label the sources use (real samples and every capture)."""

from __future__ import annotations

import json
import re


import pytest

from pricewatch import collect
from pricewatch.catalog import load_catalog
from tests.conftest import CAPTURES, ROOT

SAMPLES = ROOT / "tests" / "samples"  # copies of ../shared/sources/samples


def sample_labels() -> list[tuple[str, str, float | None]]:
    """(source, label, vram hint in GB) for every GPU label in the real samples."""
    out = []
    for t in json.loads((SAMPLES / "runpod.graphql_gpuTypes.excerpt.json").read_text()):
        if t["id"] == "unknown":  # RunPod's placeholder entry (0 GB, nothing offered): not a GPU
            continue
        out += [("runpod id", t["id"], t["memoryInGb"]), ("runpod displayName", t["displayName"], t["memoryInGb"])]
    for o in json.loads((SAMPLES / "vastai.bundles_offer.json").read_text()):
        out.append(("vast gpu_name", o["gpu_name"], o["gpu_ram"] / 1024))
    for t in json.loads((SAMPLES / "verda.instance_types.fixture.json").read_text()):
        if t.get("gpu", {}).get("number_of_gpus"):
            label = re.sub(r"^\d+x\s+", "", t["gpu"]["description"])
            out.append(("verda gpu.description", label, t["gpu_memory"]["size_in_gigabytes"] / t["gpu"]["number_of_gpus"]))
    for m in json.loads((SAMPLES / "jarvislabs.server_meta.fixture.json").read_text())["server_meta"]:
        out.append(("jarvislabs gpu_type", m["gpu_type"], float(m["vram"])))
    for s in json.loads((SAMPLES / "thundercompute.v1_specs.json").read_text())["specs"].values():
        out.append(("thunder displayName", s["displayName"], s["vramGB"]))
    return out


def test_every_label_in_the_real_samples_resolves_to_a_catalog_model():
    catalog = load_catalog()
    unknown = [(src, label) for src, label, vram in sample_labels() if catalog.resolve(label, vram) is None]
    assert unknown == []


@pytest.mark.parametrize("label, vram, expected", [
    ("NVIDIA H100 80GB HBM3", None, ("H100", 80, "SXM")),      # RunPod's id of its SXM part
    ("H100 SXM5", None, ("H100", 80, "SXM")),
    ("NVIDIA H100 PCIe", None, ("H100", 80, "PCIe")),
    ("H100 NVL", None, ("H100", 94, "NVL")),
    ("NVIDIA H100", None, ("H100", 80, "unknown")),             # a bare name says nothing of the form factor
    ("A100-SXM4-80GB", None, ("A100 80GB", 80, "SXM")),
    ("a100xl", None, ("A100 80GB", 80, "unknown")),              # Thunder Compute's token
    ("A100 SXM4", 40.0, ("A100 40GB", 40, "SXM")),              # family label: the source's VRAM decides
    ("A100 SXM4", 79.6, ("A100 80GB", 80, "SXM")),
    ("NVIDIA HGX B200", None, ("B200", 180, "SXM")),
    ("B300 SXM6 262GB", None, ("B300", 262, "SXM")),
    ("RTX PRO 6000 96GB", None, ("RTX PRO 6000", 96, "unknown")),
])
def test_labels_map_to_model_vram_and_form_factor(label, vram, expected):
    m = load_catalog().resolve(label, vram)
    assert (m.model, m.vram_gb, m.form_factor) == expected


def test_a_family_label_without_vram_is_left_unknown_not_guessed():
    assert load_catalog().resolve("A100 SXM4") is None
    assert load_catalog().resolve("NVIDIA Z900 Hyper") is None


def test_every_label_in_every_shipped_capture_is_known(crawl):
    unknown = {}
    for date_dir in collect.replay_batches(CAPTURES):
        for provider in collect.providers_in_archive(date_dir):
            result = crawl(provider, date_dir)
            if result.report.get("unknown_labels"):
                unknown[f"{date_dir.name}/{provider}"] = result.report["unknown_labels"]
    assert unknown == {}
