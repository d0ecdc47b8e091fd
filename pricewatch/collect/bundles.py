"""Run bundles: the one seam between a crawl and the load (docs/machines.md). A bundle is one
provider's crawl of one night: its items (offers and facts, each exactly as the spider yielded
it), its crawl report and the WARC evidence its items cite, in a storage URL reached through
fsspec (``file://`` folder by default, ``s3://bucket/prefix`` for any S3-compatible store):

    <storage>/<night>/<bundle_id>/items.parquet          kind, offer_key, record (the item's JSON)
    <storage>/<night>/<bundle_id>/report.json            the crawl report
    <storage>/<night>/<bundle_id>/evidence/<date>/<file> the WARC files its items cite
    <storage>/<night>/<bundle_id>/manifest.json          written last: the bundle exists from then on

Complete or absent: on a local folder the parts are written in a hidden folder renamed into
place; on an object store the manifest object, written after every part, is what makes the
bundle visible (``complete`` lists manifests only). Named by content: ``bundle_id`` is the
sha256 of what the load reads (night, provider, mode, replay, as_of, the items, the evidence
files' sha256, a failure line), so a crawl written twice is one bundle and the second write a
no-op. The manifest lists every part's sha256: a part that does not match refuses the bundle.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import tempfile
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path

import duckdb
import fsspec
import pandas as pd

from pricewatch.collect.crawl_process import CrawlResult

FORMAT = "pricewatch-bundle"
VERSION = 1
MANIFEST = "manifest.json"
DEFAULT_STORAGE = "data/bundles"   # relative to the working folder, as data/pricewatch.duckdb
_NIGHT = re.compile(r"^\d{4}-\d{2}-\d{2}(T\d{4,6}Z?)?$")


class BundleRefused(ValueError):
    """A bundle the load must not read (a part missing or not matching the manifest)."""


def storage_url(url: str | None = None) -> str:
    """The storage URL: ``url``, else $PRICEWATCH_BUNDLES, else the folder data/bundles; a bare
    path is a ``file://`` folder (made absolute)."""
    url = url or os.environ.get("PRICEWATCH_BUNDLES") or DEFAULT_STORAGE
    if "://" not in url:
        return "file://" + str(Path(url).resolve())
    return url


def storage_options() -> dict:
    """fsspec options for the store: the JSON object in $PRICEWATCH_STORAGE_OPTIONS (the flows
    also take them from a Prefect Secret block: flows/bundle_tasks.py). S3 keys and an endpoint
    can come from the standard AWS_* variables too, which s3fs reads itself."""
    raw = os.environ.get("PRICEWATCH_STORAGE_OPTIONS")
    return json.loads(raw) if raw else {}


def open_storage(url: str | None = None, options: dict | None = None) -> tuple[fsspec.AbstractFileSystem, str]:
    """(filesystem, root path) of the storage URL."""
    fs, root = fsspec.core.url_to_fs(storage_url(url), **(options if options is not None else storage_options()))
    return fs, root.rstrip("/")


def night_key(when: datetime) -> str:
    """A night's name: its UTC start to the minute, 2026-12-01T0200Z (a crawl every 15 minutes
    is a night each)."""
    return when.astimezone(timezone.utc).strftime("%Y-%m-%dT%H%MZ")


def replay_night(replay: Path, captured_at: dict[str, datetime]) -> str:
    """A replay's night: its dated folder's name (captures/2026-10-29), else its first capture."""
    name = Path(replay).name
    if _NIGHT.match(name):
        return name
    return night_key(min(captured_at.values())) if captured_at else "replay"


@dataclass
class Bundle:
    """One bundle as the load reads it."""

    bundle_id: str
    night: str
    provider: str
    manifest: dict
    result: CrawlResult | None            # None: the crawl gave no result (``error``)
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    captured_at: datetime | None = None
    path: str = ""

    @property
    def mode(self) -> str:
        return self.manifest["mode"]

    @property
    def replay(self) -> str | None:
        return self.manifest.get("replay")

    @property
    def as_of(self) -> str | None:
        return self.manifest.get("as_of")


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _canonical(obj) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str).encode()


def _identity(m: dict) -> str:
    keys = ("version", "night", "provider", "mode", "replay", "as_of", "error", "items_sha256", "evidence")
    return _sha(_canonical({k: m.get(k) for k in keys}))[:32]


def _items_frame(result: CrawlResult | None) -> tuple[pd.DataFrame, bytes]:
    records = list((result.items if result else [])) + list((result.facts if result else []))
    texts = [json.dumps(r, sort_keys=True) for r in records]
    frame = pd.DataFrame({"kind": ["fact" if "fact" in r else "offer" for r in records],
                          "offer_key": [r.get("offer_key") for r in records],
                          "record": texts}, columns=["kind", "offer_key", "record"])
    frame = frame.astype({"kind": "string", "offer_key": "string", "record": "string"})
    return frame, "\n".join(texts).encode()


@lru_cache(maxsize=1)
def _scratch() -> duckdb.DuckDBPyConnection:
    """One in-memory DuckDB per process for the items' Parquet: a new one costs ~30 ms of CPU,
    a cursor on it (one per call: bundles are written and read from task threads) ~0.3 ms."""
    return duckdb.connect()


def _parquet_bytes(frame: pd.DataFrame) -> bytes:
    with tempfile.TemporaryDirectory(prefix="pricewatch-bundle-") as tmp:
        out = Path(tmp) / "items.parquet"
        con = _scratch().cursor()
        try:
            con.register("items_frame", frame)
            con.execute(f"COPY (SELECT * FROM items_frame) TO '{out}' (FORMAT parquet)")
        finally:
            con.close()
        return out.read_bytes()


def evidence_files(result: CrawlResult | None, replay: Path | None) -> dict[str, Path]:
    """The WARC files a crawl's items cite, by the path the items store (``<date>/<name>``):
    a live crawl's own files (its report's warc_files), a replay's capture files."""
    from pricewatch.evidence.warc_common import archive_relpath, warc_candidates
    if result is None:
        return {}
    out: dict[str, Path] = {}
    for f in (result.report or {}).get("warc_files") or []:
        if Path(f).is_file():
            out[archive_relpath(Path(f))] = Path(f)
    cited = {r["capture"]["warc_file"] for r in list(result.items) + list(result.facts) if r.get("capture")}
    for ref in sorted(cited - set(out)):
        found = warc_candidates(ref, [replay] if replay else [])
        if found:
            out[ref] = found[0]
    return out


def write_bundle(url: str | None, night: str, provider: str, result: CrawlResult | None, *,
                 mode: str, replay: str | None = None, as_of: str | None = None, error: str | None = None,
                 warnings: list[str] | None = None, captured_at: datetime | None = None,
                 options: dict | None = None) -> str:
    """Writes one provider's crawl as a bundle (see the module doc); returns its id. A bundle
    already complete under that id is left as it is."""
    if not _NIGHT.match(night) and not night.startswith("replay"):
        raise ValueError(f"night {night!r} is not a night's name (2026-12-01T0200Z or 2026-12-01)")
    fs, root = open_storage(url, options)
    frame, items_text = _items_frame(result)
    evidence = evidence_files(result, Path(replay) if replay else None)
    ev_sha = {rel: _sha(Path(p).read_bytes()) for rel, p in sorted(evidence.items())}
    parts: dict[str, bytes] = {"items.parquet": _parquet_bytes(frame),
                               "report.json": json.dumps((result.report if result else {}) or {}, sort_keys=True,
                                                         indent=1, default=str).encode()}
    manifest = {
        "format": FORMAT, "version": VERSION, "night": night, "provider": provider, "mode": mode,
        "replay": replay, "as_of": as_of, "error": error, "items_sha256": _sha(items_text),
        "evidence": ev_sha, "warnings": list(warnings or []),
        "captured_at": captured_at.isoformat() if captured_at else None,
        "counts": {"offers": len(result.items) if result else 0, "facts": len(result.facts) if result else 0},
        "crawl": None if result is None else {
            "returncode": result.returncode, "duration_s": result.duration_s, "log_tail": result.log_tail,
            "attempts": result.attempts, "killed_after_s": result.killed_after_s, "stopped": result.stopped},
        # Informational only: nothing the load stores depends on where or when it was written.
        "written_at": datetime.now(timezone.utc).isoformat(), "written_by": socket.gethostname(),
    }
    bundle_id = _identity(manifest)
    manifest["bundle_id"] = bundle_id
    manifest["files"] = {name: _sha(data) for name, data in parts.items()}
    manifest["files"].update({f"evidence/{rel}": sha for rel, sha in ev_sha.items()})
    final = f"{root}/{night}/{bundle_id}"
    if fs.exists(f"{final}/{MANIFEST}"):
        return bundle_id
    local = _is_local(fs)
    target = f"{root}/{night}/.incoming-{bundle_id}-{uuid.uuid4().hex[:8]}" if local else final
    fs.makedirs(target, exist_ok=True)
    for name, data in parts.items():
        fs.pipe_file(f"{target}/{name}", data)
    for rel, path in sorted(evidence.items()):
        dest = f"{target}/evidence/{rel}"
        if local:
            Path(dest).parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(path, dest)   # the same file, not a copy (a night's WARC files can be large)
                continue
            except OSError:
                pass
        fs.put_file(str(path), dest)
    fs.pipe_file(f"{target}/{MANIFEST}", json.dumps(manifest, indent=1, sort_keys=True).encode())
    if local:
        try:
            os.rename(target, final)
        except OSError:   # written meanwhile by another writer of the same content
            fs.rm(target, recursive=True)
            if not fs.exists(f"{final}/{MANIFEST}"):
                raise
    return bundle_id


def _is_local(fs) -> bool:
    protocol = fs.protocol if isinstance(fs.protocol, str) else fs.protocol[0]
    return protocol in ("file", "local")


@dataclass(frozen=True)
class BundleRef:
    night: str
    bundle_id: str
    path: str


def complete(url: str | None = None, options: dict | None = None, nights: list[str] | None = None) -> list[BundleRef]:
    """Every complete bundle in the store (a manifest present), by night then id; a bundle
    being written (no manifest yet, or a hidden folder) is not listed."""
    fs, root = open_storage(url, options)
    out = []
    for m in fs.glob(f"{root}/*/*/{MANIFEST}"):
        bundle_dir = m.rsplit("/", 1)[0]
        night_dir, bundle_id = bundle_dir.rsplit("/", 1)
        night = night_dir.rsplit("/", 1)[1]
        if bundle_id.startswith(".") or night.startswith("."):
            continue
        if nights is None or night in nights:
            out.append(BundleRef(night, bundle_id, bundle_dir))
    return sorted(out, key=lambda r: (r.night, r.bundle_id))


def manifest_of(ref: BundleRef, url: str | None = None, options: dict | None = None) -> dict:
    """A complete bundle's manifest, unchecked (what it says it holds)."""
    fs, _ = open_storage(url, options)
    return json.loads(fs.cat_file(f"{ref.path}/{MANIFEST}"))


def read_bundle(ref: BundleRef, url: str | None = None, options: dict | None = None) -> Bundle:
    """A complete bundle, every part checked against its manifest (BundleRefused: one line)."""
    fs, _ = open_storage(url, options)
    where = f"bundle {ref.night}/{ref.bundle_id}"
    try:
        manifest = json.loads(fs.cat_file(f"{ref.path}/{MANIFEST}"))
    except ValueError as exc:
        raise BundleRefused(f"{where}: manifest unreadable ({exc})") from None
    provider = manifest.get("provider", "?")
    where = f"{provider}: {where}"
    if manifest.get("format") != FORMAT or manifest.get("version") != VERSION:
        raise BundleRefused(f"{where}: format {manifest.get('format')!r} version {manifest.get('version')!r} "
                            f"is not {FORMAT} {VERSION}")
    if _identity(manifest) != ref.bundle_id or manifest.get("bundle_id") != ref.bundle_id:
        raise BundleRefused(f"{where}: manifest does not match the bundle's name (content changed)")
    data = {}
    for name, sha in sorted(manifest.get("files", {}).items()):
        try:
            blob = fs.cat_file(f"{ref.path}/{name}")
        except FileNotFoundError:
            raise BundleRefused(f"{where}: {name} missing") from None
        if _sha(blob) != sha or (name.startswith("evidence/") and manifest["evidence"].get(name[9:]) != sha):
            raise BundleRefused(f"{where}: {name} checksum does not match the manifest "
                                f"(sha256 {_sha(blob)[:12]}, manifest {sha[:12]})")
        if not name.startswith("evidence/"):
            data[name] = blob
    records = _read_items(data["items.parquet"])
    if _sha("\n".join(records).encode()) != manifest["items_sha256"]:
        raise BundleRefused(f"{where}: items do not match the manifest's items_sha256")
    items, facts = [], []
    for text in records:
        rec = json.loads(text)
        (facts if "fact" in rec else items).append(rec)
    crawl = manifest.get("crawl")
    result = None
    if crawl is not None:
        result = CrawlResult(provider, crawl["returncode"], items, json.loads(data["report.json"]),
                             crawl["duration_s"], crawl.get("log_tail") or "", crawl.get("attempts") or 1,
                             facts=facts, killed_after_s=crawl.get("killed_after_s"), stopped=crawl.get("stopped"))
    cap = manifest.get("captured_at")
    return Bundle(ref.bundle_id, ref.night, provider, manifest, result, manifest.get("error"),
                  list(manifest.get("warnings") or []), datetime.fromisoformat(cap) if cap else None, ref.path)


def _read_items(blob: bytes) -> list[str]:
    with tempfile.TemporaryDirectory(prefix="pricewatch-bundle-") as tmp:
        path = Path(tmp) / "items.parquet"
        path.write_bytes(blob)
        con = _scratch().cursor()
        try:
            return [r[0] for r in con.execute(f"SELECT record FROM read_parquet('{path}')").fetchall()]
        finally:
            con.close()


def place_evidence(bundle: Bundle, archive_dir: Path, url: str | None = None, options: dict | None = None) -> list[Path]:
    """A live bundle's WARC files at <archive_dir>/<the path its items store>, where the
    evidence lookup finds them on the loading machine (a file already there is kept)."""
    fs, _ = open_storage(url, options)
    placed = []
    for rel in sorted(bundle.manifest.get("evidence") or {}):
        dest = Path(archive_dir) / rel
        if not dest.exists():
            dest.parent.mkdir(parents=True, exist_ok=True)
            tmp = dest.with_name(f".{dest.name}.{os.getpid()}.part")
            fs.get_file(f"{bundle.path}/evidence/{rel}", str(tmp))
            os.replace(tmp, dest)
        placed.append(dest)
    return placed
