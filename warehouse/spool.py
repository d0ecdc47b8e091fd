"""The spool: a run the warehouse could not take yet, kept on disk for the next load."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from datetime import date, datetime, timezone
from pathlib import Path

import duckdb
import pandas as pd

from warehouse.load import load_run
from warehouse.resources import LoadResources

# --- the spool: a run the warehouse could not take yet ---------------------------------------
#
# <folder of the database>/spool/<run_id>/ holds one run: manifest.json (the run row, why it
# was spooled, the row counts) and one Parquet file per non-empty frame. It is written in a
# hidden folder next to it and renamed into place, so a spool folder is complete or absent;
# the next load stores every spooled run (oldest snapshot first, each in its own transaction,
# a run already stored is a no-op) and removes its folder only after that commit.

SPOOL_FORMAT = 1
_FRAMES = ("provider_runs", "offers", "facts")


def spool_dir(db_path: str | os.PathLike) -> Path:
    return Path(db_path).resolve().parent / "spool"


def _safe_name(run_id: str) -> str:
    if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,120}", run_id):
        return run_id
    return "run-" + hashlib.sha256(run_id.encode()).hexdigest()[:16]


def _encode(value):
    if isinstance(value, datetime):
        return {"datetime": value.isoformat()}
    if isinstance(value, date):
        return {"date": value.isoformat()}
    return value


def _decode(value):
    if isinstance(value, dict) and len(value) == 1:
        if "datetime" in value:
            return datetime.fromisoformat(value["datetime"])
        if "date" in value:
            return date.fromisoformat(value["date"])
    return value


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _sql_path(path: Path) -> str:
    return "'" + str(path).replace("'", "''") + "'"


def spool_run(db_path: str | os.PathLike, run: dict, provider_runs: pd.DataFrame, offers: pd.DataFrame,
              facts: pd.DataFrame | None, reason: str) -> Path:
    """Keeps a run that could not be loaded under spool/<run_id>/ (atomically) and returns it."""
    root = spool_dir(db_path)
    root.mkdir(parents=True, exist_ok=True)
    final = root / _safe_name(run["run_id"])
    if (final / "manifest.json").exists():
        return final  # the same run is already kept (a rerun of the same replay)
    tmp = root / f".incoming-{final.name}-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    mem = duckdb.connect()
    try:
        counts = {}
        for name, frame in zip(_FRAMES, (provider_runs, offers, facts)):
            counts[name] = 0 if frame is None else len(frame)
            if frame is None or not len(frame) or not len(frame.columns):
                continue
            mem.register("spooled_frame", frame)
            mem.execute(f"COPY (SELECT * FROM spooled_frame) TO {_sql_path(tmp / (name + '.parquet'))} (FORMAT parquet)")
            mem.unregister("spooled_frame")
            _fsync(tmp / f"{name}.parquet")
    finally:
        mem.close()
    manifest = {"format": SPOOL_FORMAT, "run_id": run["run_id"], "reason": reason,
                "spooled_at": datetime.now(timezone.utc).isoformat(), "counts": counts,
                "run": {k: _encode(v) for k, v in run.items()}}
    (tmp / "manifest.json").write_text(json.dumps(manifest, indent=1, default=str))
    _fsync(tmp / "manifest.json")
    _fsync(tmp)
    try:
        os.rename(tmp, final)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
        if not (final / "manifest.json").exists():
            raise
    _fsync(root)
    return final


def read_spool(path: str | os.PathLike) -> tuple[dict, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The run row and frames of one spool folder, as spool_run got them."""
    path = Path(path)
    manifest = json.loads((path / "manifest.json").read_text())
    if manifest.get("format") != SPOOL_FORMAT:
        raise ValueError(f"spool {path}: format {manifest.get('format')!r} is not {SPOOL_FORMAT}")
    run = {k: _decode(v) for k, v in manifest["run"].items()}
    mem = duckdb.connect()
    try:
        mem.execute("SET TimeZone = 'UTC'")
        frames = []
        for name in _FRAMES:
            f = path / f"{name}.parquet"
            frames.append(mem.execute(f"SELECT * FROM read_parquet({_sql_path(f)})").df() if f.exists()
                          else pd.DataFrame())
    finally:
        mem.close()
    return run, frames[0], frames[1], frames[2]


def spooled_runs(db_path: str | os.PathLike) -> list[Path]:
    """Complete spool folders, oldest snapshot first (a folder being written is hidden)."""
    root = spool_dir(db_path)
    if not root.is_dir():
        return []
    found = []
    for d in root.iterdir():
        if d.name.startswith(".") or not (d / "manifest.json").is_file():
            continue
        try:
            run = json.loads((d / "manifest.json").read_text())["run"]
            key = (str(_decode(run["observed_at"])), str(_decode(run.get("started_at"))), run["run_id"])
        except (ValueError, KeyError, TypeError):
            key = ("", "", d.name)
        found.append((key, d))
    return [d for _, d in sorted(found)]


def load_spooled(con: duckdb.DuckDBPyConnection, db_path: str | os.PathLike, *, resources: LoadResources) -> list[dict]:
    """Stores every spooled run, oldest first, each in its own transaction; a folder is removed
    only after its run is in the warehouse (already there counts: the commit happened before a
    crash). A spool that cannot be stored stays, with its error, and the others go on.
    Returns one {run_id, path, loaded, error} per spool folder."""
    out = []
    for path in spooled_runs(db_path):
        try:
            run, provider_runs, offers, facts = read_spool(path)
            loaded = load_run(con, run, provider_runs, offers, facts, resources=resources)
        except Exception as exc:
            line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            out.append({"run_id": path.name, "path": str(path), "loaded": False,
                        "error": f"spooled run {path.name} not loaded ({line}); kept in {path}"})
            continue
        shutil.rmtree(path)
        out.append({"run_id": run["run_id"], "path": str(path), "loaded": loaded, "error": None})
    return out
