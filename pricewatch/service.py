"""`pricewatch serve`: a local Prefect server, the work pool, the deployments of prefect.yaml and
a process worker, as child processes that all stop on Ctrl-C or SIGTERM.

It only runs the stock Prefect commands (listed in the README) in order, each in its own
process group: Prefect's worker ignores SIGTERM when SIGINT was inherited as ignored (started
from a script with `&`), so each child gets a session of its own and is stopped by signalling
its whole group, TERM first, KILL after a grace period.

`pricewatch run` (run_services): the Prefect server of one CLI run, and what a signal does to
the run. Prefect's own temporary server is a child that outlives a killed run, so without
PREFECT_API_URL the run starts its own `prefect server start` that dies with it (Linux
parent-death signal), on a PREFECT_HOME no other run's server is using; SIGTERM / SIGINT /
SIGHUP stop the crawls, end the flow and stop the server within seconds.
"""

from __future__ import annotations

import _thread
import fcntl
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from pricewatch import crawl

POOL = "pricewatch-local"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_in_use(host: str, port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex((host, port)) == 0


def checkout_root() -> Path:
    """The folder holding prefect.yaml: the current one, else the checkout this package runs from."""
    for candidate in (Path.cwd(), Path(__file__).resolve().parent.parent):
        if (candidate / "prefect.yaml").is_file() and (candidate / "flows").is_dir():
            return candidate
    raise FileNotFoundError("prefect.yaml not found: run from the pricewatch checkout")


def enter_checkout(directory: str | None = None) -> dict[str, str]:
    """Prefect pull step (prefect.yaml): run the flow from this machine's pricewatch checkout,
    `directory`, else $PRICEWATCH_HOME, else the checkout the installed package lives in."""
    root = Path(directory or os.environ.get("PRICEWATCH_HOME") or Path(__file__).resolve().parent.parent)
    if not ((root / "prefect.yaml").is_file() and (root / "flows" / "nightly.py").is_file()):
        raise FileNotFoundError(f"{root} is not a pricewatch checkout (no prefect.yaml / flows/nightly.py): "
                                "set PRICEWATCH_HOME in the worker's environment to the checkout")
    os.chdir(root)
    return {"directory": str(root)}


def prefect_env(api_url: str, home: Path, checkout: Path, base: dict | None = None) -> dict[str, str]:
    env = dict(os.environ if base is None else base)
    env.update({
        "PREFECT_API_URL": api_url,
        "PREFECT_HOME": str(home),
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_CLI_PROMPT": "false",
        # Where the pull step of prefect.yaml finds the flows (see enter_checkout).
        "PRICEWATCH_HOME": str(checkout),
    })
    return env


def prefect_cmd(*args: str) -> list[str]:
    # The interpreter running us, not whatever `prefect` is first on PATH (a pyenv shim's pid
    # is not the worker's).
    return [sys.executable, "-m", "prefect", *args]


def start_group(cmd: list[str], env: dict, log_path: Path, cwd: Path | None = None,
                dies_with_parent: bool = False, pass_fds: tuple[int, ...] = (),
                log_mode: str = "ab") -> subprocess.Popen:
    """Starts ``cmd`` in a session (process group) of its own, output to ``log_path``.
    dies_with_parent: the kernel TERMs it when this process dies, even by SIGKILL."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, log_mode) as log:
        return subprocess.Popen(cmd, env=env, cwd=cwd, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True, pass_fds=pass_fds,
                                preexec_fn=crawl.dies_with_parent() if dies_with_parent else None)


def stop_group(proc: subprocess.Popen, grace_s: float = 15) -> int | None:
    """TERM the process group, wait, then KILL it. Returns the exit code."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            proc.wait(grace_s)
        except subprocess.TimeoutExpired:
            pass
    try:  # also whatever the leader left behind in its group (a flow run subprocess)
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    return proc.wait()


def wait_healthy(api_url: str, proc: subprocess.Popen | None = None, timeout_s: float = 120) -> float:
    """Polls /api/health until the server answers; returns the seconds it took."""
    started = time.monotonic()
    while time.monotonic() - started < timeout_s:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"Prefect server exited with code {proc.returncode} before it was healthy")
        try:
            with urllib.request.urlopen(f"{api_url}/health", timeout=2) as resp:
                if resp.status == 200:
                    return time.monotonic() - started
        except OSError:
            pass
        time.sleep(0.3)
    raise TimeoutError(f"Prefect server at {api_url} not healthy after {timeout_s:.0f} s")


def run_prefect(args: list[str], env: dict, cwd: Path, timeout_s: float = 180,
                ok_if: str | None = None) -> subprocess.CompletedProcess:
    proc = subprocess.run(prefect_cmd(*args), env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=timeout_s, start_new_session=True)
    output = proc.stdout + proc.stderr
    if proc.returncode != 0 and not (ok_if and ok_if in output):
        raise RuntimeError(f"`prefect {' '.join(args)}` exited {proc.returncode}:\n{output[-3000:]}")
    return proc


def ensure_pool(env: dict, cwd: Path, pool: str = POOL) -> None:
    # `deploy` refuses a work pool that does not exist yet; an existing one keeps its settings.
    run_prefect(["work-pool", "create", pool, "--type", "process"], env, cwd, ok_if="already exists")


def deploy(env: dict, cwd: Path) -> None:
    run_prefect(["--no-prompt", "deploy", "--all"], env, cwd)


@dataclass
class Stack:
    """The processes `pricewatch serve` started, stopped in reverse order."""

    procs: list[tuple[str, subprocess.Popen]] = field(default_factory=list)

    def add(self, name: str, proc: subprocess.Popen) -> subprocess.Popen:
        self.procs.append((name, proc))
        return proc

    def exited(self) -> tuple[str, int] | None:
        for name, proc in self.procs:
            if proc.poll() is not None:
                return name, proc.returncode
        return None

    def stop(self) -> None:
        for _, proc in reversed(self.procs):
            stop_group(proc)
        self.procs.clear()


class Shutdown(Exception):
    pass


def _raise_shutdown(signum, frame):
    raise Shutdown(signal.Signals(signum).name)


def serve(host: str, port: int, home: Path, api_url: str | None, pool: str = POOL,
          echo=print) -> int:
    """Runs until Ctrl-C / SIGTERM or until a child dies. Returns the exit code."""
    checkout = checkout_root()
    home = home if home.is_absolute() else checkout / home
    home.mkdir(parents=True, exist_ok=True)
    logs = home / "logs"
    own_server = api_url is None
    if own_server and port_in_use(host, port):
        # Otherwise we would deploy to whatever already answers there.
        raise RuntimeError(f"{host}:{port} is in use: pick another --port, or --api-url http://{host}:{port}/api "
                           "to deploy to the Prefect server already running there")
    api_url = api_url or f"http://{host}:{port}/api"
    env = prefect_env(api_url, home, checkout)
    stack = Stack()
    previous = {s: signal.signal(s, _raise_shutdown) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        if own_server:
            echo(f"starting Prefect server on {host}:{port} (PREFECT_HOME={home}; log {logs / 'server.log'})")
            server = stack.add("server", start_group(prefect_cmd("server", "start", "--host", host, "--port", str(port)),
                                                     env, logs / "server.log", checkout))
            echo(f"server healthy after {wait_healthy(api_url, server):.1f} s")
        else:
            wait_healthy(api_url, timeout_s=30)
        t = time.monotonic()
        ensure_pool(env, checkout, pool)
        deploy(env, checkout)
        echo(f"work pool {pool!r} ready, prefect.yaml deployed ({time.monotonic() - t:.1f} s)")
        stack.add("worker", start_group(prefect_cmd("worker", "start", "--pool", pool),
                                                 env, logs / "worker.log", checkout))
        write_serve_record(home, api_url)
        ui = api_url.removesuffix("/api")
        echo(f"Prefect UI: {ui}  (runs: {ui}/runs, deployments: {ui}/deployments)")
        echo(f"pids: {' '.join(f'{n}={p.pid}' for n, p in stack.procs)}")
        echo("trigger a run now:  PREFECT_API_URL=%s prefect deployment run 'collect-prices/nightly'" % api_url)
        echo("Ctrl-C stops the worker and the server.")
        while True:
            dead = stack.exited()
            if dead:
                echo(f"{dead[0]} exited with code {dead[1]} (see {logs / (dead[0] + '.log')}); stopping")
                return 1
            time.sleep(0.5)
    except Shutdown as sig:
        echo(f"{sig}: stopping worker{' and server' if own_server else ''}")
        return 0
    finally:
        # A second Ctrl-C while stopping must not leave children behind.
        for s in previous:
            signal.signal(s, signal.SIG_IGN)
        (home / SERVE_RECORD).unlink(missing_ok=True)
        stack.stop()
        for s, handler in previous.items():
            signal.signal(s, handler)


#: What `pricewatch serve` leaves in its PREFECT_HOME while it runs: the server `pricewatch run`
#: then uses instead of starting one (see running_api_url).
SERVE_RECORD = "pricewatch-serve.json"
SERVE_HOME = ".prefect"   # `pricewatch serve --home` default, relative to the checkout


def write_serve_record(home: Path, api_url: str) -> None:
    (home / SERVE_RECORD).write_text(json.dumps({"api_url": api_url, "pid": os.getpid()}))


def served_api_url(home: Path | None = None, timeout_s: float = 1.0) -> str | None:
    """The API of a `pricewatch serve` running on ``home`` (default <checkout>/.prefect, as
    `pricewatch serve` without --home): its record there, its process alive, /api/health
    answering; else None."""
    try:
        home = home if home is not None else checkout_root() / SERVE_HOME
        record = json.loads((Path(home) / SERVE_RECORD).read_text())
        os.kill(int(record["pid"]), 0)
        url = str(record["api_url"])
        with urllib.request.urlopen(f"{url}/health", timeout=timeout_s) as resp:
            return url if resp.status == 200 else None
    except (OSError, ValueError, KeyError, TypeError, FileNotFoundError):
        return None


# --- `pricewatch run`: its own Prefect server, and what a signal does to it -------------------

#: A reused PREFECT_HOME whose database grew past this is started afresh (a CLI run's history
#: is not kept: the server is this run's only).
MAX_HOME_DB_MB = 256
HOME_SLOTS = 8
LOCK_NAME = ".pricewatch-run-server.lock"
#: After a signal, the run gets this long to end on its own before it exits anyway.
STOP_DEADLINE_S = float(os.environ.get("PRICEWATCH_STOP_DEADLINE_S", "20"))


class RunStopped(BaseException):
    """A signal stopped `pricewatch run` (a BaseException: no `except Exception` keeps the run
    going). Raised in the main thread once the crawls are being stopped."""

    def __init__(self, signum: int):
        self.signum = signum
        super().__init__(signal.Signals(signum).name)

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name


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


class RunGuard:
    """What SIGTERM, SIGINT and SIGHUP do to `pricewatch run`.

    Those signals are blocked in every thread of the run (threads inherit the mask; children
    unblock them, see pricewatch.crawl.dies_with_parent) and taken by one watcher thread, so the
    run reacts at once wherever the main thread is (inside a DuckDB call, in Prefect's engine,
    which installs its own SIGTERM handler during a flow). On the first one it: interrupts the
    main thread (Prefect's handler marks the flow run Crashed, then RunStopped leaves it; a load
    in progress rolls back), stops every crawl (TERM, TERM again after 1 s, KILL after 3 s;
    their partial items are not data), and, if the run has not ended STOP_DEADLINE_S later, calls ``on_deadline`` and
    exits the process."""

    def __init__(self, on_deadline: Callable[[], None] | None = None, echo: Callable[[str], None] = print,
                 deadline_s: float = STOP_DEADLINE_S):
        self.on_deadline = on_deadline
        self.echo = echo
        self.deadline_s = deadline_s
        self.signum: int | None = None
        self._done = threading.Event()
        self._closing = False
        self._thread: threading.Thread | None = None
        self.server: RunServer | None = None

    def __enter__(self) -> "RunGuard":
        self._previous = signal.signal(signal.SIGTERM, self._raise)
        self._mask = signal.pthread_sigmask(signal.SIG_BLOCK, crawl.RUN_SIGNALS)
        self._thread = threading.Thread(target=self._watch, name="pricewatch-signals", daemon=True)
        self._thread.start()
        return self

    def _raise(self, signum, frame):
        raise RunStopped(self.signum or signum)

    def _watch(self) -> None:
        deadline = None
        while not self._done.is_set():
            # Also takes the SIGTERM Prefect passes on once more while it stops (ignored).
            info = signal.sigtimedwait(crawl.RUN_SIGNALS, 0.2)
            if deadline is not None and time.monotonic() > deadline:
                self._exit_now()
            if info is None or self.signum is not None:
                continue
            self.signum = info.si_signo
            if self._closing:
                continue   # the run is ending anyway; the exit code still says it was stopped
            self.echo(f"{signal.Signals(self.signum).name} received: stopping the run")
            deadline = time.monotonic() + self.deadline_s
            _thread.interrupt_main(signal.SIGTERM)   # Prefect's handler in a flow, else ours
            crawl.stop_crawls(f"the run got {signal.Signals(self.signum).name}")

    def _exit_now(self) -> None:
        self.echo(f"the run did not stop within {self.deadline_s:g} s of "
                  f"{signal.Signals(self.signum).name}: exiting now")
        if self.on_deadline is not None:
            try:
                self.on_deadline()
            except BaseException:  # noqa: BLE001 - exiting regardless
                pass
        os._exit(128 + self.signum)

    def closing(self) -> None:
        """The run is cleaning up: a signal now is recorded, not raised into the cleanup."""
        self._closing = True

    def __exit__(self, *exc) -> None:
        self._closing = True
        self._done.set()
        if self._thread is not None:
            self._thread.join(1)
        # Take what is still pending before unblocking: it would kill us with the default action.
        while True:
            info = signal.sigtimedwait(crawl.RUN_SIGNALS, 0)
            if info is None:
                break
            self.signum = self.signum or info.si_signo
        signal.signal(signal.SIGTERM, self._previous)
        signal.pthread_sigmask(signal.SIG_SETMASK, self._mask)


def _stopped_by(exc: BaseException, guard: RunGuard) -> bool:
    if guard.signum is None:
        return False
    if isinstance(exc, (RunStopped, KeyboardInterrupt)):
        return True
    try:
        from prefect.exceptions import TerminationSignal
    except ImportError:
        return False
    return isinstance(exc, TerminationSignal)


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


@contextmanager
def run_services(echo: Callable[[str], None] = print, attempts: int = 3,
                 server: RunServer | None = None, guard: RunGuard | None = None) -> Iterator[RunGuard]:
    """Around the flows of one `pricewatch run`: the signal guard, and a Prefect server of the
    run's own unless PREFECT_API_URL names one (then nothing is started). Inside, Prefect talks
    to that server; the server is stopped at the end whatever happens (normal end, error,
    signal). A signal leaves as RunStopped (its signal number in ``signum``). ``server``: the
    run's own server already starting (early_server), used as the first attempt. ``guard``: a
    RunGuard the caller entered already (signals handled from before the server is up)."""
    api_url = configured_api_url()
    own = api_url is None
    if not own and server is not None:
        stop_run_server(server)   # the profile names a server: the early one is not needed
        server = None
    env_before = os.environ.get("PREFECT_API_URL")

    def stop_server() -> None:
        server, guard.server = guard.server, None
        if server is not None:
            stop_run_server(server)

    if guard is None:
        guard = RunGuard(on_deadline=stop_server, echo=echo)
        entered = guard
    else:
        guard.on_deadline, entered = stop_server, nullcontext(guard)
    try:
        with entered:
            try:
                for attempt in range(1, attempts + 1) if own else ():
                    guard.server, server = (server or start_run_server()), None
                    try:
                        api_url = wait_run_server(guard.server).api_url
                        break
                    except RuntimeError:
                        # Exited before it answered (its port taken meanwhile): once more.
                        stop_server()
                        if attempt == attempts:
                            raise
                if own:   # read by a prefect not imported yet; temporary_settings covers one that is
                    os.environ["PREFECT_API_URL"] = api_url
                from prefect.settings import PREFECT_API_URL, temporary_settings
                with temporary_settings({PREFECT_API_URL: api_url}):
                    yield guard
            finally:
                guard.closing()
                stop_server()
                if own:
                    if env_before is None:
                        os.environ.pop("PREFECT_API_URL", None)
                    else:
                        os.environ["PREFECT_API_URL"] = env_before
    except BaseException as exc:
        if _stopped_by(exc, guard) and not isinstance(exc, RunStopped):
            raise RunStopped(guard.signum) from None
        raise
    if guard.signum is not None:
        raise RunStopped(guard.signum)
