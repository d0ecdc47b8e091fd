"""What a signal does to a `pricewatch run` (run_services): SIGTERM / SIGINT / SIGHUP stop the
crawls, end the flow and stop the run's Prefect server (pricewatch/server/run_server.py) within
seconds, with no crawl, browser or server left behind."""

from __future__ import annotations

import _thread
import os
import signal
import threading
import time
from contextlib import contextmanager, nullcontext
from typing import Callable, Iterator

from pricewatch.collect import crawl_process
from pricewatch.server.run_server import (
    STOP_DEADLINE_S,
    RunServer,
    configured_api_url,
    start_run_server,
    stop_run_server,
    wait_run_server,
)


class RunStopped(BaseException):
    """A signal stopped `pricewatch run` (a BaseException: no `except Exception` keeps the run
    going). Raised in the main thread once the crawls are being stopped."""

    def __init__(self, signum: int):
        self.signum = signum
        super().__init__(signal.Signals(signum).name)

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name


class RunGuard:
    """What SIGTERM, SIGINT and SIGHUP do to `pricewatch run`.

    Those signals are blocked in every thread of the run (threads inherit the mask; children
    unblock them, see pricewatch.collect.crawl_process.dies_with_parent) and taken by one watcher thread, so the
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
        self._mask = signal.pthread_sigmask(signal.SIG_BLOCK, crawl_process.RUN_SIGNALS)
        self._thread = threading.Thread(target=self._watch, name="pricewatch-signals", daemon=True)
        self._thread.start()
        return self

    def _raise(self, signum, frame):
        raise RunStopped(self.signum or signum)

    def _watch(self) -> None:
        deadline = None
        while not self._done.is_set():
            # Also takes the SIGTERM Prefect passes on once more while it stops (ignored).
            info = signal.sigtimedwait(crawl_process.RUN_SIGNALS, 0.2)
            if deadline is not None and time.monotonic() > deadline:
                self._exit_now()
            if info is None or self.signum is not None or info.si_signo not in crawl_process.RUN_SIGNALS:
                # (a wake-up with no signal of ours: under a tracer such as py-spy sigtimedwait can
                # return a si_signo that is no signal at all, which once stopped the run)
                continue
            self.signum = info.si_signo
            if self._closing:
                continue   # the run is ending anyway; the exit code still says it was stopped
            self.echo(f"{signal.Signals(self.signum).name} received: stopping the run")
            deadline = time.monotonic() + self.deadline_s
            _thread.interrupt_main(signal.SIGTERM)   # Prefect's handler in a flow, else ours
            crawl_process.stop_crawls(f"the run got {signal.Signals(self.signum).name}")

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
            info = signal.sigtimedwait(crawl_process.RUN_SIGNALS, 0)
            if info is None:
                break
            if info.si_signo in crawl_process.RUN_SIGNALS:
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
