"""A migrated, empty Prefect database to start a run's server on a new PREFECT_HOME with.

A Prefect server on a new home first runs every migration of its SQLite database: on 2 cores
that is most of a ~16-20 s start, against ~8 s on an existing database. So the first time a
run's server (pricewatch/server/run_server.py) has migrated a new database, a copy of it is kept,
made the moment the server first answers (before any flow run writes to it), one per Prefect
version, in the run servers' folder of this user (<temp dir>/pricewatch-prefect-<uid>/).
A later server on a new home starts on a copy of it and finds nothing left to migrate. Its
flow runs, tasks and artifacts are its own: the copy holds only what the migrations wrote.
Not used when the server's database is not the home's SQLite file
(PREFECT_API_DATABASE_CONNECTION_URL set)."""

from __future__ import annotations

import os
import shutil
import sqlite3
from importlib import metadata
from pathlib import Path

DB_NAME = "prefect.db"


def _usable(root: Path) -> bool:
    if os.environ.get("PREFECT_API_DATABASE_CONNECTION_URL") or os.environ.get(
            "PREFECT_SERVER_DATABASE_CONNECTION_URL"):
        return False
    try:
        st = root.stat()
    except OSError:
        return False
    # Only a folder this user alone can write (the shared temp dir's other users cannot plant one).
    return st.st_uid == os.getuid() and not st.st_mode & 0o022


def template_path(root: Path) -> Path:
    return root / f"template-prefect-{metadata.version('prefect')}.db"


def seed_home(home: Path, root: Path) -> bool:
    """Copies the template into ``home`` when home has no database yet; True if it did."""
    target = home / DB_NAME
    if target.exists() or not _usable(root):
        return False
    template = template_path(root)
    if not template.is_file():
        return False
    tmp = home / f".{DB_NAME}.seeding"
    shutil.copyfile(template, tmp)
    os.replace(tmp, target)
    return True


def keep_template(home: Path, root: Path) -> bool:
    """After a server migrated ``home``'s new database and answers: a consistent copy of it
    (SQLite's online backup, safe while the server writes) becomes the template, unless one
    exists. True if it was written."""
    source = home / DB_NAME
    if not _usable(root) or not source.is_file():
        return False
    template = template_path(root)
    if template.exists():
        return False
    tmp = root / f".{template.name}.{os.getpid()}.tmp"
    try:
        src = sqlite3.connect(f"file:{source}?mode=ro", uri=True, timeout=5)
        try:
            dst = sqlite3.connect(tmp)
            try:
                src.backup(dst)
            finally:
                dst.close()
        finally:
            src.close()
        os.replace(tmp, template)
    except (OSError, sqlite3.Error):
        tmp.unlink(missing_ok=True)
        return False
    return True
