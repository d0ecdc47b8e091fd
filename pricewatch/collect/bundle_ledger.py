"""Which bundles a warehouse has loaded, kept beside it (<warehouse folder>/bundle-loads/), and
the loader's lock: a second loader waits for the first, then refuses with one line.

One file per run built from bundles, <run_id>.json: {"run_id", "night", "bundles": [ids],
"state": "intent" | "loaded"}. The intent is written before the run's load transaction and
turned "loaded" after it committed; an intent left by a crash is settled by the warehouse itself
(its run there: loaded; not there: dropped, the bundles load again). A run's id is a function of
its bundles, so loading the same bundles again is a no-op in the warehouse too: a bundle is
loaded exactly once. A refused bundle has refused-<bundle_id>.json (its one line) and is not
read again; it stays in the store for inspection.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

LEDGER = "bundle-loads"


class LoaderBusy(RuntimeError):
    """Another loader holds this warehouse's bundle loads."""


def ledger_dir(db_path: str | os.PathLike) -> Path:
    return Path(db_path).resolve().parent / LEDGER


def _write(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
    os.replace(tmp, path)


def record_intent(db_path, run_id: str, night: str, bundle_ids: list[str]) -> None:
    _write(ledger_dir(db_path) / f"{run_id}.json",
           {"run_id": run_id, "night": night, "bundles": sorted(bundle_ids), "state": "intent"})


def record_loaded(db_path, run_id: str) -> None:
    path = ledger_dir(db_path) / f"{run_id}.json"
    data = json.loads(path.read_text())
    data.update(state="loaded", loaded_at=datetime.now(timezone.utc).isoformat())
    _write(path, data)


def record_refused(db_path, bundle_id: str, night: str, line: str) -> None:
    _write(ledger_dir(db_path) / f"refused-{bundle_id}.json",
           {"bundle_id": bundle_id, "night": night, "refused": line,
            "at": datetime.now(timezone.utc).isoformat()})


def settle(db_path, stored_run_ids: set[str]) -> None:
    """Intents of a load cut short: loaded if their run is in the warehouse, else dropped."""
    for path in sorted(ledger_dir(db_path).glob("*.json")):
        if path.name.startswith("refused-"):
            continue
        data = json.loads(path.read_text())
        if data.get("state") == "intent":
            if data["run_id"] in stored_run_ids:
                record_loaded(db_path, data["run_id"])
            else:
                path.unlink()


def done(db_path) -> dict[str, str]:
    """bundle_id -> "loaded" or "refused" (those the load does not read again)."""
    out: dict[str, str] = {}
    for path in sorted(ledger_dir(db_path).glob("*.json")):
        data = json.loads(path.read_text())
        if path.name.startswith("refused-"):
            out[data["bundle_id"]] = "refused"
        elif data.get("state") == "loaded":
            out.update({b: "loaded" for b in data["bundles"]})
    return out


def pending_intents(db_path) -> list[str]:
    return [json.loads(p.read_text())["run_id"] for p in sorted(ledger_dir(db_path).glob("*.json"))
            if not p.name.startswith("refused-") and json.loads(p.read_text()).get("state") == "intent"]


@contextmanager
def loader_lock(db_path, wait_s: float):
    """The one loader of this warehouse: waits up to ``wait_s`` for another to finish, then
    raises LoaderBusy naming its pid. (The DuckDB file has one writer anyway; this keeps a
    second loader from interleaving whole nights with the first.)"""
    folder = ledger_dir(db_path)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / ".loader.lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    started = time.monotonic()
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() - started >= wait_s:
                    holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "?"
                    raise LoaderBusy(f"another loader (pid {holder}) is loading bundles into "
                                     f"{Path(db_path).resolve()}; waited {time.monotonic() - started:.0f} s, "
                                     "not loading (the bundles stay for the next load)") from None
                time.sleep(0.5)
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield
    finally:
        os.close(fd)   # releases the lock
