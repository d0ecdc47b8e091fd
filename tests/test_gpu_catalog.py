"""One canonical GPU catalog for every GPU label the providers' REAL pages and APIs print.

Every recording under ``tests/real`` is read here with plain, explicit extraction code (JSON
fields, regexes over the HTML): the labels a parser sees, each with the VRAM the recording
states for it (or None), must resolve to a catalog model, except the few listed in
``DELIBERATELY_UNKNOWN`` with the reason. Expected resolutions below are read off the
recordings (quoted in comments), never copied from the catalog's output.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from pricewatch.record.catalog import GpuCatalog, label_key, load_catalog

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT / "tests" / "real"        # copies of the real recordings (see its README.md)
SAMPLES = ROOT / "tests" / "samples"  # copies of ../shared/sources/samples

Label = tuple[str, float | None]      # (label as printed, VRAM per GPU in GB as stated, or None)


def _read(rel: str) -> str:
    return (REAL / rel).read_text(encoding="utf-8")


def _json(rel: str):
    return json.loads(_read(rel))


def _text(fragment: str) -> str:
    """Visible text of an HTML fragment (tags dropped, entities and NBSP read as spaces)."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).replace("\u00a0", " ").split())


# --- one extractor per recording: yields (label, vram GB or None) --------------------------

def aws_ewyluda() -> Iterator[Label]:
    # The price map carries only "Instance Type" (p5.48xlarge ...); the GPU comes from AWS's
    # instance-family specs (p4d = 8x A100 40 GB, p4de = 8x A100 80 GB, p5 = H100 80 GB,
    # p5en = H200 141 GB, p6-b200 = B200 179 GB, p6-b300 = B300 ~268 GB, g6e = L40S 48 GB).
    family = {"p4d": ("NVIDIA A100", 40), "p4de": ("NVIDIA A100", 80), "p5": ("NVIDIA H100", 80),
              "p5en": ("NVIDIA H200", 141), "p6-b200": ("NVIDIA B200", 179), "p6-b300": ("NVIDIA B300", 268),
              "g6e": ("NVIDIA L40S", 48)}
    for doc in _json("aws/ewyluda_aws.json").values():
        for offers in doc["regions"].values():
            for offer in offers.values():
                yield family[offer["Instance Type"].split(".")[0]]


def azure_ewyluda() -> Iterator[Label]:
    # The GPU token of armSkuName ("Standard_ND96isr_H100_v5") or of productName for the SKU
    # without one ("Standard_ND96asr_v4" / "Virtual Machines NDasr A100 v4 Series"); VRAM from
    # Azure's series specs: NCads A100 v4 80 GB (PCIe), NDasr A100 v4 40 GB, NDamsr A100 v4 80 GB,
    # NCads H100 v5 94 GB (H100 NVL), NDsr H100 v5 80 GB, NDsr H200 v5 141 GB, ND MI300X v5 192 GB.
    vram = {"NC": {"A100": 80, "H100": 94}, "ND": {"A100": 80, "H100": 80, "H200": 141, "MI300X": 192}}
    for item in _json("azure/ewyluda_azure.json"):
        sku, product = item["armSkuName"], item["productName"]
        gpu = re.search(r"_(A100|H100|H200|MI300X)_", sku) or re.search(r" (A100|H100|H200|MI300X) ", product)
        gb = 40 if "NDasr" in product else vram[sku.split("_")[1][:2]][gpu.group(1)]
        yield gpu.group(1), gb


def civo_pricing() -> Iterator[Label]:
    t = _read("civo/pricing_excerpt.html")
    for caption in re.findall(r"<caption>(NVIDIA [^<]*) GPU pricing</caption>", t):  # "NVIDIA H100 SXM"
        yield caption, None
    for detail in re.findall(r'class="product-detail">\d+ x ([^<]*)<', t):           # "NVIDIA A100 - 40GB"
        name, size = detail.split(" - ")
        yield name, float(re.match(r"\d+", size).group())


def computepulse() -> Iterator[Label]:
    for name in ("b300_listings", "h100_listings", "rtx4090_listings", "mi325x_listings", "b300_available_probe"):
        for row in _json(f"computepulse/{name}.json")["data"]:
            yield row["gpu_model"], row["vram_gb"]
            if row["gpu_variant"]:                                   # "SXM" / "PCIe"
                yield f"{row['gpu_model']} {row['gpu_variant']}", row["vram_gb"]


def computepulse_supply() -> Iterator[Label]:
    for row in _json("computepulse_supply/supply_selling.json")["data"]:
        yield row["gpu_model"], None
        yield row["gpu_key"], None


def coreweave_pricing() -> Iterator[Label]:
    t = _read("coreweave/pricing.html")
    for row in t.split('class="table-row-v2')[1:]:
        name = re.search(r'class="table-model-name">([^<]*)</h3>', row).group(1)
        vram = re.search(r'<div class="table-meta-value">([^<]*)</div>\s*<div>VRAM</div>', row)
        if not name.startswith(("AMD Genoa", "Intel")):             # CPU rows share the markup
            yield name, float(vram.group(1))


def crusoe_pricing() -> Iterator[Label]:
    for item in _read("crusoe/pricing.html").split('<div class="pricing_gpu-item">')[1:]:
        m = re.search(r'class="pricing-item-heading">([^<]*)</h4>.*?pricing-tag is-dark">(\d+)GB</div>'
                      r'<div class="pricing-tag[^"]*">([^<]*)</div>', item, re.S)
        if m:                                                       # "NVIDIA H100" + tag "HGX", 80
            yield f"{m.group(1)} {m.group(3)}".strip(), float(m.group(2))


def deepinfra_pricing() -> Iterator[Label]:
    t = _read("deepinfra/pricing.html")
    for name, gb in re.findall(r"<td[^>]*>([A-Z][A-Z0-9 ]+)</td><td[^>]*>(\d+)GB</td>", t):
        yield name, float(gb)                                       # "B300", 270


def digitalocean_droplets() -> Iterator[Label]:
    t = _read("digitalocean/droplets_pricing.html")
    for cell in re.findall(r"<td>((?:NVIDIA|AMD) [^<]*)</td>", t):  # "NVIDIA B300, air-cooled (8x)"
        label = re.sub(r"\s*\(\d+x\)$", "", cell)                   # the count is not the GPU
        yield label.split(",")[0], None                             # ", air-cooled": a variant (spider's job)


def e2e_pricing() -> Iterator[Label]:
    t = _read("e2e/pricing_us.html")
    table = re.search(r"<table.*?</table>", t, re.S).group()
    for name, gb in re.findall(r'<span[^>]*>((?:NVIDIA|AMD) [^<]*)</span></td><td[^>]*>(\d+)</td>', table):
        yield name, float(gb)
    for name, gb in re.findall(r'"name":"((?:NVIDIA|AMD) [^"]*) GPU Cloud Instance","category".*?'
                               r'"description":"(\d+) GB VRAM', t):
        yield name, float(gb)


def fal_pricing() -> Iterator[Label]:
    for name, gb in re.findall(r'<span class="ml-4">([^<]+)</span></div></td><td[^>]*>(\d+)GB</td>',
                               _read("fal/pricing.html")):
        yield name, float(gb)


def gcp_tables() -> Iterator[Label]:
    # GPU column next to the machine type; the A100 memory is in the machine family
    # (a2-ultragpu = A100 80GB, a2-highgpu / a2-megagpu = A100 40GB, per the origin's tests).
    cells = [_text(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", _read("gcp/ewyluda_gpus_pricing_tables.html"), re.S)]
    for machine, gpu in zip(cells, cells[1:]):
        if re.fullmatch(r"[a-z]\d+-[a-z]+-\d+g?", machine) and gpu.lower().startswith("nvidia"):
            yield gpu, (80 if "ultragpu" in machine else 40) if "A100" in gpu else None


def gmicloud_pricing() -> Iterator[Label]:
    for name in re.findall(r"<h3[^>]*>((?:NVIDIA|AMD) [^<]*)</h3>", _read("gmicloud/pricing_excerpt.html")):
        yield name, None                                            # "NVIDIA H100 GPU"


def gpuai_pricing() -> Iterator[Label]:
    for page in ("pricing_page1", "pricing_page2"):
        for row in _json(f"gpuai/{page}.json")["data"]:
            yield row["gpu_type"], None                             # "a100_40gb", "rtx_6000_ada"


def hotaisle_pricing() -> Iterator[Label]:
    for name in re.findall(r">(MI3\d\dX)<", _read("hotaisle/pricing_excerpt.html"), re.I):
        yield name, 192 if name.upper() == "MI300X" else None       # "MI300x" ... "192GB HBM3 Memory"


def hyperbolic_options() -> Iterator[Label]:
    for row in _json("hyperbolic/rental_options.json"):
        yield row["gpuType"], None                                  # "h100"
        yield f"{row['gpuType']} {row['gpuFormFactor']}", None      # "h100 sxm5"


def hyperstack_pricing() -> Iterator[Label]:
    t = _read("hyperstack/gpu-pricing.html")
    rows = re.findall(r'item_col1">\s*<span>([^<]*)</span>.*?item_col2">\s*<span>([^<]*)</span>', t, re.S)
    # The on-demand table states VRAM (GB); the reservation and spot tables repeat the
    # labels without it, so a label takes the VRAM the on-demand table gives it.
    vram = {name: float(v) for name, v in rows if v.strip().isdigit()}
    for name, _ in rows:
        if name.startswith("NVIDIA"):
            yield name, vram.get(name)


def lambda_pricing() -> Iterator[Label]:
    for plan, row in re.findall(r'<tr[^>]*data-plan="([^"]*)"(.*?)</tr>', _read("lambda/pricing.html"), re.S):
        vram = re.search(r'data-label="VRAM/GPU"[^>]*>(\d+) GB<', row)
        yield plan, float(vram.group(1)) if vram else None          # "NVIDIA A100 SXM", 40 / 80


def latitude_pricing() -> Iterator[Label]:
    t = _read("latitude/pricing_excerpt.html").replace('\\"', '"')
    for gpu in re.findall(r'"gpu":(\{[^{}]+\})', t):
        g = json.loads(gpu)
        yield g["type"], g["vram_per_gpu"]                          # "NVIDIA HGX B300", 288


def lium_api() -> Iterator[Label]:
    for row in _json("lium/executors.json"):
        yield row["machine_name"], None                             # "NVIDIA B300 SXM6 AC"
    for row in _json("lium/machines.json"):
        yield row["name"], None
    for row in _json("lium/capacity.json"):
        yield row["base_model"], None                               # "RTX 6000 Ada Generation"


def massedcompute_rsc() -> Iterator[Label]:
    # Row keys \"<label>-x <count>-<index>\"; the spider drops the "-mobile" copy marker and
    # the bracketed configuration note ("[ALT Config]", "[Premium]": same GPU, another host
    # config -> the offer's variant), the memory in parentheses is the GPU's.
    for key in re.findall(r'\\"([^"\\]+?)(?:-mobile)?-x \d+-\d+\\"', _read("massedcompute/pricing_rsc_excerpt.html")):
        label = re.sub(r"\s*\[[^\]]*\]", "", key)
        gb = re.search(r"\((\d+)GB\)", label)
        yield label, float(gb.group(1)) if gb else None


def nebius_prices() -> Iterator[Label]:
    for name in re.findall(r'\[\\"(NVIDIA [^"\\]*)\\",', _read("nebius/prices.html")):
        yield name, None                                            # "NVIDIA HGX B300"
    for name in re.findall(r'<div class="pc-highlight-table-block__row"><div class="pc-highlight-table-block__cell">'
                           r'<div><p>(NVIDIA [^<]*)</p>', _read("nebius/ewyluda_prices.html")):
        yield name, None


# Oracle rows whose GPU metric is not a public GPU rental: software licences and Cloud@Customer
# rows (on-premises look-alikes, SOURCE.md). The shape-generation names ("Compute - GPU Standard -
# V2") are rentals Oracle prices per GPU-hour: read, and left unknown below.
_OCI_SKIP = re.compile(r"NVIDIA AI Enterprise|Cloud@Customer")


def oracle_products() -> Iterator[Label]:
    for rel in ("oracle/products_usd.json", "oracle/ewyluda_products_gpu.json"):
        for item in _json(rel)["items"]:
            name = item["displayName"]
            if item["metricName"] == "GPU Per Hour" and not _OCI_SKIP.search(name):
                yield re.split(r"GPU(?: - |\.)", name)[-1], None    # "OCI - Compute - GPU - H100" -> "H100"


def runpod_graphql() -> Iterator[Label]:
    for rel in ("runpod/ewyluda_runpod.json", "runpod/gputypes.json"):
        for t in _json(rel)["data"]["gpuTypes"]:
            if t["id"] == "unknown":      # RunPod's placeholder entry (0 GB, nothing offered): not a GPU
                continue
            yield t["id"], t["memoryInGb"]
            yield t["displayName"], t["memoryInGb"]


def scaleway_servers() -> Iterator[Label]:
    for page in ("servers_page1", "servers_page2"):
        for server in _json(f"scaleway/{page}.json")["servers"].values():
            if server.get("gpu"):
                info = server["gpu_info"]                           # gpu_memory in bytes (GiB-sized)
                yield info["gpu_name"], info["gpu_memory"] / 2**30


def sesterce_homepage() -> Iterator[Label]:
    for name in re.findall(r'class="bbg-model">([^<]*)<', _read("sesterce/homepage_excerpt.html")):
        yield name, None                                            # "B300", "A100" (family: no memory)


def sesterce_console() -> Iterator[Label]:
    t = _read("sesterce_console/compute_excerpt.html").replace('\\"', '"')
    for name in re.findall(r'\{"label":"([^"]+)","value":"[^"]+"\}', t.split('"availableRegions"')[0]):
        if name != "CPU":
            yield name, None                                        # the GPU filter's options
    for name, count, total in re.findall(r'"gpuName":"([^"]+)","gpuCount":(\d+),.*?"vRamGB":(\d+)', t):
        if int(count):
            yield name, int(total) / int(count)


def shadeform_homepage() -> Iterator[Label]:
    t = _read("shadeform/homepage_excerpt.html").replace('\\"', '"')
    for gpu, vram in re.findall(r'"gpu_type":"([^"]+)","interconnect":"[^"]*","nvlink":\w+,'
                                r'"os_options":\[[^\]]*\],"vram_per_gpu_in_gb":(\d+)', t):
        if gpu != "CPU":
            yield gpu, float(vram)                                  # "RTX6000", 24


def tensorpool_pricing() -> Iterator[Label]:
    t = _read("tensorpool/pricing.html")
    names = re.findall(r'<div class="mb-2">([^<]+?) - <strong>', t) + re.findall(r'font-jetbrains border-t[^"]*">([^<$]+)</div>', t)
    for name in names:
        if name not in ("CPU", "ON-DEMAND"):
            yield name, None                                        # "B300 SXM"


def together_pricing() -> Iterator[Label]:
    for cell in re.findall(r'<td><p class="body-l text-weight-medium">(.*?)</p></td>', _read("together/pricing.html")):
        yield _text(cell), None                                     # "NVIDIA HGX B200"


def vast_bundles() -> Iterator[Label]:
    for name in ("h100_sxm_asc", "h100_sxm_desc", "b300_asc", "h200_nvl_asc", "ewyluda_vast"):
        data = _json(f"vast/{name}.json")
        for offer in data["offers"] if isinstance(data, dict) else data:
            yield offer["gpu_name"], offer["gpu_ram"]               # MiB per GPU: 81559


def verda_jsonld() -> Iterator[Label]:
    for name in re.findall(r'"name":"(\d+x [^"]+)"', _read("verda/pricing_jsonld.html")):
        label = re.sub(r"^\d+x | (on-demand|spot|serverless continuous|serverless spot|instant cluster)$", "", name)
        yield label, float(re.search(r"(\d+)GB$", label).group(1))  # "B200 CC SXM6 180GB", 180


def voltagepark_api() -> Iterator[Label]:
    for loc in _json("voltagepark/locations.json")["results"]:
        yield loc["specs_per_node"]["gpu_model"], None              # "h100-sxm5-80gb"
    for preset in _json("voltagepark/instant_deploy_presets.json"):
        for gpu in preset["resources"]["gpus"]:
            yield gpu, None


def _parsed_labels(parse, path: str) -> Iterator[Label]:
    """The labels a spider's own parser reads off a recording (Internet Archive excerpts whose
    markup the peers' regexes above were not written for)."""
    for o in parse(_read(path), "https://example.test/").offers:
        yield o["gpu_label"], o.get("vram_gb")


def paperspace_cards() -> Iterator[Label]:
    from spiders.paperspace import parse_pricing
    yield from _parsed_labels(parse_pricing, "paperspace/paperspace_20240123092147.html")


def fluidstack_table() -> Iterator[Label]:
    from spiders.fluidstack import parse_pricing
    yield from _parsed_labels(parse_pricing, "fluidstack/fluidstack_20250109013724.html")


def lambda_archive() -> Iterator[Label]:
    from spiders.lambda_cloud import parse_pricing
    yield from _parsed_labels(parse_pricing, "lambda/henryzhangpku_lambda_20260109103934.html")


EXTRACTORS = {
    "aws/ewyluda_aws.json": aws_ewyluda,
    "azure/ewyluda_azure.json": azure_ewyluda,
    "civo/pricing_excerpt.html": civo_pricing,
    "computepulse/*.json": computepulse,
    "computepulse_supply/supply_selling.json": computepulse_supply,
    "coreweave/pricing.html": coreweave_pricing,
    "crusoe/pricing.html": crusoe_pricing,
    "deepinfra/pricing.html": deepinfra_pricing,
    "digitalocean/droplets_pricing.html": digitalocean_droplets,
    "e2e/pricing_us.html": e2e_pricing,
    "fal/pricing.html": fal_pricing,
    "gcp/ewyluda_gpus_pricing_tables.html": gcp_tables,
    "gmicloud/pricing_excerpt.html": gmicloud_pricing,   # gmicloud/idcs_excerpt.json: data centres, no GPU
    "gpuai/pricing_page*.json": gpuai_pricing,
    "hotaisle/pricing_excerpt.html": hotaisle_pricing,
    "hyperbolic/rental_options.json": hyperbolic_options,
    "hyperstack/gpu-pricing.html": hyperstack_pricing,
    "lambda/pricing.html": lambda_pricing,
    "lambda/henryzhangpku_lambda_*.html": lambda_archive,
    "paperspace/*.html": paperspace_cards,
    "fluidstack/*.html": fluidstack_table,
    "latitude/pricing_excerpt.html": latitude_pricing,
    "lium/*.json": lium_api,
    "massedcompute/pricing_rsc_excerpt.html": massedcompute_rsc,
    "nebius/*.html": nebius_prices,
    "oracle/*.json": oracle_products,
    "runpod/*.json": runpod_graphql,
    "scaleway/servers_page*.json": scaleway_servers,     # availability_page*.json: server names only
    "sesterce/homepage_excerpt.html": sesterce_homepage,
    "sesterce_console/compute_excerpt.html": sesterce_console,
    "shadeform/homepage_excerpt.html": shadeform_homepage,
    "tensorpool/pricing.html": tensorpool_pricing,
    "together/pricing.html": together_pricing,
    "vast/*.json": vast_bundles,
    "verda/pricing_jsonld.html": verda_jsonld,
    "voltagepark/*.json": voltagepark_api,
}

# Labels a real recording prints that the catalog leaves unknown on purpose (normalized key -> why).
DELIBERATELY_UNKNOWN = {
    "a100": "A100 family, 40 or 80 GB: resolved only with the source's VRAM (Sesterce, Lium capacity, "
            "Compute Pulse supply print none)",
    "v100": "V100 family, 16 or 32 GB: Sesterce's filter option and GPU.ai's gpu_type 'v100' print no memory",
    "rtx 4000": "DigitalOcean 'NVIDIA RTX 4000': Quadro RTX 4000 (8 GB) or RTX 4000 Ada (20 GB); the page gives no memory",
    "rtx 6000": "DigitalOcean 'NVIDIA RTX 6000': Quadro RTX 6000 (24 GB) or RTX 6000 Ada (48 GB); the page gives no memory",
    "rtx5000": "Paperspace 'RTX5000' ('NVIDIA RTX5000 GPU', no memory printed): Quadro RTX 5000 (16 GB) or "
               "RTX 5000 Ada (32 GB); news until the page prints which",
    # Oracle's part names (docs/catalog.md "Oracle's part names"): its own stored documents, searched
    # 2026-12-02, do not tie these parts to a GPU; news, never guessed (tests/test_oracle_cloud.py).
    "h100t": "Oracle 'OCI - Compute - GPU - H100T': a distinct H100 variant Oracle does not explain",
    "e3": "Oracle 'Compute - GPU - E3': a shape generation, not a GPU name",
    "e4": "Oracle 'OCI - Compute - GPU - E4': a shape generation, not a GPU name",
    label_key("Compute - Bare Metal GPU Standard - X7"): "Oracle: an X7 (Intel host) GPU shape generation, no GPU named",
    label_key("Compute - Virtual Machine GPU Standard - X7"): "Oracle: the VM of that X7 generation, no GPU named",
    label_key("Compute - GPU Standard - V2"): "Oracle: a GPU shape generation 'V2', no GPU named",
}


def real_labels() -> list[tuple[str, str, float | None]]:
    """(recording, label, VRAM hint) for every GPU label of every real recording."""
    out = []
    for pattern, extract in EXTRACTORS.items():
        labels = list(extract())
        assert labels, f"{pattern}: the extractor found no GPU label (recording changed?)"
        out += [(pattern, label, vram) for label, vram in labels]
    return out


def test_every_real_recording_is_read():
    covered = {p for pattern in EXTRACTORS for p in REAL.glob(pattern)}
    no_gpu_label = {REAL / "gmicloud/idcs_excerpt.json", REAL / "scaleway/availability_page1.json",
                    REAL / "scaleway/availability_page2.json"}
    data = {p for p in REAL.rglob("*") if p.suffix in (".json", ".html")}
    assert sorted(map(str, data - covered - no_gpu_label)) == []


def test_every_label_of_every_real_recording_resolves():
    catalog = load_catalog()
    unresolved = sorted({(src, label, vram) for src, label, vram in real_labels()
                         if catalog.resolve(label, vram) is None and label_key(label) not in DELIBERATELY_UNKNOWN},
                        key=str)
    assert unresolved == []


def test_the_deliberately_unknown_labels_are_still_printed_and_still_unknown():
    catalog = load_catalog()
    seen = {label_key(label) for _, label, vram in real_labels() if catalog.resolve(label, vram) is None}
    assert seen == set(DELIBERATELY_UNKNOWN)


def sample_labels() -> list[tuple[str, str, float | None]]:
    """(source, label, vram hint in GB) for every GPU label in tests/samples (older real samples)."""
    out = []
    for t in json.loads((SAMPLES / "runpod.graphql_gpuTypes.excerpt.json").read_text()):
        if t["id"] != "unknown":
            out += [("runpod id", t["id"], t["memoryInGb"]), ("runpod displayName", t["displayName"], t["memoryInGb"])]
    for o in json.loads((SAMPLES / "vastai.bundles_offer.json").read_text()):
        out.append(("vast gpu_name", o["gpu_name"], o["gpu_ram"]))
    for t in json.loads((SAMPLES / "verda.instance_types.fixture.json").read_text()):
        if t.get("gpu", {}).get("number_of_gpus"):
            label = re.sub(r"^\d+x\s+", "", t["gpu"]["description"])
            out.append(("verda gpu.description", label, t["gpu_memory"]["size_in_gigabytes"] / t["gpu"]["number_of_gpus"]))
    for m in json.loads((SAMPLES / "jarvislabs.server_meta.fixture.json").read_text())["server_meta"]:
        out.append(("jarvislabs gpu_type", m["gpu_type"], float(m["vram"])))
    for s in json.loads((SAMPLES / "thundercompute.v1_specs.json").read_text())["specs"].values():
        out.append(("thunder displayName", s["displayName"], s["vramGB"]))
    return out


def test_every_label_in_the_samples_resolves():
    catalog = load_catalog()
    assert [(src, label) for src, label, vram in sample_labels() if catalog.resolve(label, vram) is None] == []


# --- specific resolutions, read off the recordings -------------------------------------------

@pytest.mark.parametrize("label, vram, expected", [
    # runpod/ewyluda_runpod.json: {"id": "NVIDIA B300 SXM6 AC", "displayName": "B300", "memoryInGb": 288}
    ("NVIDIA B300 SXM6 AC", 288, ("B300", 288, "SXM")),
    ("B300", 288, ("B300", 288, "unknown")),
    # verda/pricing_jsonld.html: "1x B200 CC SXM6 180GB on-demand" (confidential computing = same B200)
    ("B200 CC SXM6 180GB", 180, ("B200", 180, "SXM")),
    ("RTX PRO 6000 CC 96GB", 96, ("RTX PRO 6000", 96, "unknown")),
    ("B300 SXM6 268GB", 268, ("B300", 268, "SXM")),
    # lambda/pricing.html: data-plan="NVIDIA A100 SXM" ... data-label="VRAM/GPU">40 GB / 80 GB
    ("NVIDIA A100 SXM", 40, ("A100 40GB", 40, "SXM")),
    ("NVIDIA A100 SXM", 80, ("A100 80GB", 80, "SXM")),
    ("NVIDIA A100 PCIe", 40, ("A100 40GB", 40, "PCIe")),
    ("NVIDIA Tesla V100", 16, ("V100 16GB", 16, "unknown")),
    ("NVIDIA Quadro RTX 6000", 24, ("Quadro RTX 6000", 24, "unknown")),
    ("NVIDIA GH200", 96, ("GH200", 96, "unknown")),
    # vast: {"gpu_name": "RTX 4090", "gpu_ram": 24564} (MiB) / "A100 SXM4" 40960 and 81920 MiB
    ("RTX 4090", 24564, ("RTX 4090", 24, "unknown")),
    ("A100 SXM4", 40960, ("A100 40GB", 40, "SXM")),
    ("A100 SXM4", 39936, ("A100 40GB", 40, "SXM")),
    ("A100 SXM4", 81920, ("A100 80GB", 80, "SXM")),
    ("H100 SXM", 81559, ("H100", 80, "SXM")),
    ("B300", 275040, ("B300", 288, "unknown")),         # vast/b300_asc.json: 268.6 GB of a 288 GB B300
    # coreweave/pricing.html: "NVIDIA HGX B300" VRAM 270; "NVIDIA A100" VRAM 80
    ("NVIDIA HGX B300", 270, ("B300", 288, "SXM")),
    ("NVIDIA A100", 80, ("A100 80GB", 80, "unknown")),
    # massedcompute: \"H100 NVL (94GB) NVLink-x 8-..\" / \"DGX A100 (80GB)-x ..\"
    ("H100 NVL (94GB) NVLink", 94, ("H100", 94, "NVL")),
    ("DGX A100 (80GB)", 80, ("A100 80GB", 80, "SXM")),
    ("RTX A6000 (48GB)", 48, ("RTX A6000", 48, "unknown")),
    # hyperstack: "NVIDIA RTX Pro 6000 SE" 96 / "NVIDIA H100 NVLink" 80
    ("NVIDIA RTX Pro 6000 SE", 96, ("RTX PRO 6000", 96, "unknown")),
    ("NVIDIA H100 NVLink", 80, ("H100", 80, "unknown")),
    # shadeform: "gpu_type":"RTX6000" ... "vram_per_gpu_in_gb":24 vs "RTX6000Ada" 48
    ("RTX6000", 24, ("Quadro RTX 6000", 24, "unknown")),
    ("RTX6000Ada", 48, ("RTX 6000 Ada", 48, "unknown")),
    # runpod: "NVIDIA RTX PRO 6000 Blackwell Server Edition MIG 1g.24gb" 24: a slice, not the GPU
    ("NVIDIA RTX PRO 6000 Blackwell Server Edition MIG 1g.24gb", 24, ("RTX PRO 6000 MIG 24GB", 24, "unknown")),
    # hotaisle: "MI300x" ... "192GB HBM3 Memory"; crusoe "AMD MI355X" 288GB
    ("MI300x", 192, ("MI300X", 192, "unknown")),
    ("AMD MI355X", 288, ("MI355X", 288, "unknown")),
    # scaleway: "gpu_name": "H100-PCIe"; RENDER-S "P100"
    ("H100-PCIe", 80, ("H100", 80, "PCIe")),
    ("P100", 16, ("Tesla P100", 16, "unknown")),
])
def test_real_labels_resolve_to_model_vram_and_form_factor(label, vram, expected):
    m = load_catalog().resolve(label, vram)
    assert m is not None, label
    assert (m.model, m.vram_gb, m.form_factor) == expected


def test_a_family_label_without_vram_stays_unknown_and_a_made_up_label_too():
    catalog = load_catalog()
    assert catalog.resolve("A100") is None                   # sesterce homepage: bbg-model "A100"
    assert catalog.resolve("NVIDIA A100 SXM") is None        # lambda: 40 and 80 GB rows
    assert catalog.resolve("V100") is None
    assert catalog.resolve("NVIDIA RTX 6000") is None        # digitalocean: no memory printed
    assert catalog.resolve("A100", 60) is None               # a size that fits neither A100
    assert catalog.resolve("NVIDIA Z900 Hyper") is None
    assert catalog.resolve("NVIDIA Z900 Hyper", 80) is None


def test_a_stated_vram_never_changes_an_unambiguous_label():
    # A B300 printed as 262, 268, 269 or 270 GB is still the B300; the size is the model's.
    for vram in (262, 268, 269, 270, 288, None):
        assert load_catalog().resolve("B300", vram).model == "B300"


def test_plausible_band_per_model():
    catalog = load_catalog()
    for model in catalog.models:
        low, high = catalog.plausible_band(model)
        assert 0 < low < high, model
    assert catalog.plausible_band("No Such GPU") is None
    low, high = catalog.plausible_band("H100")
    assert low <= 1.49 and high >= 12.29   # supply_selling H100 1.49; azure ND96isr_H100_v5 98.32 / 8


def real_prices() -> Iterator[tuple[str, str, float | None, float]]:
    """(recording, label, VRAM, USD per GPU-hour) read from the recordings that state a per-GPU price plainly."""
    for rel in ("runpod/ewyluda_runpod.json", "runpod/gputypes.json"):
        for t in _json(rel)["data"]["gpuTypes"]:
            for flag, price in (("secureCloud", "securePrice"), ("communityCloud", "communityPrice")):
                # RunPod prints 0 / 0.5 for a tier it does not offer (PROVIDERS.md); the ewyluda
                # projection dropped the *Cloud flags, so its 0.5 placeholders are skipped here
                # (e.g. "NVIDIA H200 NVL" securePrice 3.79, communityPrice 0.5).
                placeholder = flag not in t and t.get(price) == 0.5
                if t.get(flag, True) and t.get(price) and not placeholder and t["id"] != "unknown":
                    yield rel, t["id"], t["memoryInGb"], t[price]
    for name in ("h100_sxm_asc", "h100_sxm_desc", "b300_asc", "h200_nvl_asc", "ewyluda_vast"):
        data = _json(f"vast/{name}.json")
        for o in data["offers"] if isinstance(data, dict) else data:
            yield name, o["gpu_name"], o["gpu_ram"], o["dph_total"] / o["num_gpus"]
    for row in _json("lium/executors.json"):
        yield "lium", row["machine_name"], None, row["price_per_gpu"]
    for name in ("b300_listings", "h100_listings", "rtx4090_listings", "b300_available_probe"):
        for row in _json(f"computepulse/{name}.json")["data"]:
            yield name, row["gpu_model"], row["vram_gb"], row["price_per_gpu_hour"]
    t = _read("shadeform/homepage_excerpt.html").replace('\\"', '"')
    for count, gpu, cents in re.findall(r'"num_gpus":(\d+),"gpu_type":"([^"]+)","interconnect":"[^"]*",'
                                        r'"nvlink":\w+,"hourly_price":(\d+)', t):
        if gpu != "CPU" and int(count):
            yield "shadeform", gpu, None, int(cents) / 100 / int(count)
    for rel in ("oracle/products_usd.json", "oracle/ewyluda_products_gpu.json"):
        for item in _json(rel)["items"]:
            name = item["displayName"]
            if item["metricName"] == "GPU Per Hour" and not _OCI_SKIP.search(name):
                yield rel, re.split(r"GPU(?: - |\.)", name)[-1], None, item["currencyCodeLocalizations"][0]["prices"][0]["value"]


def test_every_plain_per_gpu_price_in_the_recordings_lies_in_its_models_band():
    catalog = load_catalog()
    outside = []
    for src, label, vram, price in real_prices():
        match = catalog.resolve(label, vram)
        if match is None:
            continue
        low, high = catalog.plausible_band(match.model)
        if not low <= price <= high:
            outside.append((src, label, round(price, 4), match.model, (low, high)))
    assert outside == []


def test_catalog_loads_as_a_package_resource_and_from_a_path(tmp_path):
    import yaml

    path = tmp_path / "cat.yaml"
    path.write_text(yaml.safe_dump({"models": [{"model": "X1", "vendor": "ACME", "vram_gb": 8,
                                                "usd_per_gpu_hour": [0.1, 1], "aliases": [{"label": "Acme X1"}]}]}))
    other = load_catalog(str(path))
    assert other.resolve("ACME X1").model == "X1"
    assert isinstance(load_catalog(), GpuCatalog) and "H100" in load_catalog().models


def test_labels_rows_feed_the_warehouse_alias_table():
    rows = load_catalog().labels()
    assert {"alias_key", "gpu_model", "form_factor", "vram_gb", "ambiguous"} <= set(rows[0])
    keys = [(r["alias_key"], r["gpu_model"]) for r in rows]
    assert len(keys) == len(set(keys))                       # the table's primary key
    assert {r["gpu_model"] for r in rows if r["alias_key"] == "a100 sxm"} == {"A100 40GB", "A100 80GB"}
