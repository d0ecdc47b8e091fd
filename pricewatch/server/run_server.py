"""The Prefect server of one `pricewatch run`. Prefect's own temporary server is a child that
outlives a killed run, so without PREFECT_API_URL the run starts its own `prefect server start`
that dies with it (Linux parent-death signal), on a PREFECT_HOME no other run's server is using
(a few reusable slots, each held by a lock)."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from pricewatch.server import home_template
from pricewatch.server.prefect_processes import (
    free_port,
    prefect_cmd,
    start_group,
    stop_group,
    wait_healthy,
)
from pricewatch.server.serve import served_api_url

MAX_HOME_DB_MB = 256
HOME_SLOTS = 8
LOCK_NAME = ".pricewatch-run-server.lock"
#: After a signal, the run gets this long to end on its own before it exits anyway.
STOP_DEADLINE_S = float(os.environ.get("PRICEWATCH_STOP_DEADLINE_S", "20"))


def _throwaway_root() -> Path:
    return Path(tempfile.gettempdir()) / f"pricewatch-prefect-{os.getuid()}"


def _own_dir(path: Path) -> bool:
    """A folder only we can write (a shared temp dir: nobody else's folder is used)."""
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = path.stat()
    except OSError:
        return False
    return st.st_uid == os.getuid() and not st.st_mode & 0o022


def _try_lock(home: Path) -> int | None:
    fd = os.open(home / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


@dataclass
class RunHome:
    """The PREFECT_HOME of a run's server, locked (flock) for as long as the run or its server
    lives: the server inherits the lock, so two servers never share one SQLite database."""
    path: Path
    lock_fd: int
    reused: bool          # its database already existed (a restart: ~7 s instead of ~14 s)
    throwaway: bool       # removed when the run ends
    seeded: bool = False  # its new database is a copy of the migrated template (home_template.py)

    def release(self) -> None:
        try:
            os.close(self.lock_fd)
        except OSError:
            pass
        if self.throwaway:
            shutil.rmtree(self.path, ignore_errors=True)


def claim_home() -> RunHome:
    """$PREFECT_HOME when it is set and free; else the first free slot of a throw-away folder
    under the system temp dir (kept between runs: restarting on an existing database is about
    twice as fast as migrating a new one); else a new folder removed at the end."""
    wanted = os.environ.get("PREFECT_HOME")
    if wanted:
        home = Path(wanted).expanduser()
        home.mkdir(parents=True, exist_ok=True)
        fd = _try_lock(home)
        if fd is not None:
            return RunHome(home, fd, (home / "prefect.db").exists(), False)
    root = _throwaway_root()
    if _own_dir(root):
        for n in range(HOME_SLOTS):
            home = root / f"slot-{n}"
            home.mkdir(mode=0o700, exist_ok=True)
            fd = _try_lock(home)
            if fd is None:
                continue
            db_file = home / "prefect.db"
            if db_file.exists() and db_file.stat().st_size > MAX_HOME_DB_MB * 2**20:
                for child in home.iterdir():
                    if child.name != LOCK_NAME:
                        shutil.rmtree(child) if child.is_dir() else child.unlink()
            return RunHome(home, fd, db_file.exists(), False)
    home = Path(tempfile.mkdtemp(prefix="pricewatch-prefect-"))
    return RunHome(home, _try_lock(home), False, True)


def _run_server_env(api_url: str, home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update({
        "PREFECT_HOME": str(home),
        "PREFECT_API_URL": api_url,
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_UI_ENABLED": "false",
        "PREFECT_CLI_PROMPT": "false",
        # The services Prefect's temporary server runs (task run recorder, event persister...),
        # not the scheduler and the rest a long-lived server needs.
        "PREFECT__SERVER_EPHEMERAL": "1",
    })
    return env


@dataclass
class RunServer:
    api_url: str
    proc: subprocess.Popen
    home: RunHome
    log: Path
    started_at: float = field(default_factory=time.monotonic)
    healthy_after_s: float | None = None


def start_run_server() -> RunServer:
    """`prefect server start` on loopback for one run: a process group of its own that the
    kernel TERMs when this process dies (PR_SET_PDEATHSIG), so a killed run leaves no server
    listening. Returns once it is starting; ``wait_run_server`` waits until it answers."""
    home = claim_home()
    try:
        if not home.reused and _own_dir(_throwaway_root()):
            home.seeded = home_template.seed_home(home.path, _throwaway_root())
        port = free_port()
        api_url = f"http://127.0.0.1:{port}/api"
        log = home.path / "server.log"
        proc = start_group(prefect_cmd("server", "start", "--host", "127.0.0.1", "--port", str(port), "--no-ui"),
                           _run_server_env(api_url, home.path), log, dies_with_parent=True,
                           pass_fds=(home.lock_fd,), log_mode="wb")
    except BaseException:
        home.release()
        raise
    return RunServer(api_url, proc, home, log)


def wait_run_server(server: RunServer, timeout_s: float = 120) -> RunServer:
    try:
        wait_healthy(server.api_url, server.proc, timeout_s=timeout_s)
    except RuntimeError as exc:
        tail = _tail(server.log)
        raise RuntimeError(f"{exc} (PREFECT_HOME={server.home.path}){': ' + tail if tail else ''}") from None
    server.healthy_after_s = time.monotonic() - server.started_at
    if not (server.home.reused or server.home.seeded) and _own_dir(_throwaway_root()):
        home_template.keep_template(server.home.path, _throwaway_root())   # it migrated a new one
    return server


def stop_run_server(server: RunServer, grace_s: float = 5) -> None:
    try:
        _drain_prefect(timeout_s=5)
        stop_group(server.proc, grace_s=grace_s)
    finally:
        server.home.release()


def _drain_prefect(timeout_s: float) -> None:
    """Sends this process's queued Prefect logs and events while the server is still up (at
    interpreter exit Prefect would retry them against a stopped server)."""
    if "prefect.logging.handlers" not in sys.modules:
        return
    try:
        from prefect.events.worker import EventsWorker
        from prefect.logging.handlers import APILogWorker
        APILogWorker.drain_all(timeout=timeout_s)
        EventsWorker.drain_all(timeout=timeout_s)
    except Exception:  # noqa: BLE001 - best effort: the run's result does not depend on it
        pass


def _tail(path: Path, lines: int = 3) -> str:
    try:
        text = path.read_text(errors="replace").strip().splitlines()
    except OSError:
        return ""
    return " / ".join(line.strip() for line in text[-lines:] if line.strip())


def configured_api_url() -> str | None:
    """The Prefect server the user pointed us at (PREFECT_API_URL, in the environment or the
    active Prefect profile), or None."""
    if os.environ.get("PREFECT_API_URL"):
        return os.environ["PREFECT_API_URL"]
    from prefect.settings import get_current_settings
    return get_current_settings().api.url or None


def early_server() -> RunServer | None:
    """Called first thing by `pricewatch run`, so the server starts while the run imports
    Scrapy, Prefect and the spiders and reads its archive (~5 s of a ~10 s start): the run's own
    server, unless PREFECT_API_URL is set or a `pricewatch serve` of this checkout is running
    (its API is then put in PREFECT_API_URL). PRICEWATCH_RUN_SERVER=own: always a server of the
    run's own. A server named only by the active Prefect profile is found later
    (run_services), and this one is then stopped unused."""
    if os.environ.get("PREFECT_API_URL"):
        return None
    if os.environ.get("PRICEWATCH_RUN_SERVER") != "own":
        served = served_api_url()
        if served:
            os.environ["PREFECT_API_URL"] = served
            return None
    return start_run_server()
