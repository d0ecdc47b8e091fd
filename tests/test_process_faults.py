"""`pricewatch run` killed or doubled, with real processes: a real `python -m pricewatch.cli run`
in a session of its own, its real Prefect server, real Scrapy crawls (one renders a page in
Chromium), a real DuckDB file.

Every process a run starts inherits a marker in its environment (PRICEWATCH_FAULT_MARK), so the
test finds the whole tree of that run in /proc (Chromium included) and proves none of it is left
after the signal, and that the run's own server port no longer answers.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest
from warcio.archiveiterator import ArchiveIterator
from werkzeug import Response

from pricewatch.collect import crawl_process
from pricewatch.evidence.archive import write_exchanges
from pricewatch.server import prefect_processes
from tests.conftest import ROOT, STANDIN_SETTINGS, clean_env, shipped, shipped_exchanges
from warehouse import db, migrate

# Real processes and real network waits: run by `pytest -m slow` (CI runs it after the suite)
# and by `pytest -m fault`, not by the default `pytest -q`.
pytestmark = [pytest.mark.slow, pytest.mark.fault]

MARK = "PRICEWATCH_FAULT_MARK"


class Run:
    """One `pricewatch run` subprocess, its output in a file (read while it runs)."""

    def __init__(self, tmp: Path, *args: str, env: dict | None = None, name: str = "run"):
        self.mark = uuid.uuid4().hex
        self.out = tmp / f"{name}.out"
        full_env = {**clean_env(os.environ), **(env or {}), MARK: self.mark}
        if "PREFECT_API_URL" not in (env or {}):
            full_env.pop("PREFECT_API_URL", None)   # the run starts its own server
            full_env["PRICEWATCH_RUN_SERVER"] = "own"   # even if a `pricewatch serve` is running here
        with open(self.out, "wb") as out:
            self.proc = subprocess.Popen([sys.executable, "-m", "pricewatch.cli", "run", *args], cwd=ROOT,
                                         env=full_env, stdout=out, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, start_new_session=True)

    def output(self) -> str:
        return self.out.read_text(errors="replace")

    def tree(self) -> dict[int, str]:
        """Every live process carrying this run's marker (the run itself included): pid -> command."""
        found = {}
        needle = f"{MARK}={self.mark}".encode()
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/environ", "rb") as f:
                    if needle not in f.read():
                        continue
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
                with open(f"/proc/{entry}/stat") as f:
                    if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                        continue   # exited, waiting for its parent to reap it
            except OSError:
                continue
            found[int(entry)] = cmd
        return found

    def wait_for(self, what: str, pattern: str, timeout_s: float = 90) -> dict[int, str]:
        """Waits until a process of the run's tree matches `pattern`; returns the tree then."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            tree = self.tree()
            if any(re.search(pattern, cmd) for cmd in tree.values()):
                return tree
            assert self.proc.poll() is None, f"run ended before {what}:\n{self.output()[-3000:]}"
            time.sleep(0.05)
        raise AssertionError(f"no {what} after {timeout_s} s:\n{self.output()[-3000:]}")

    def finish(self, timeout_s: float = 60) -> int:
        try:
            return self.proc.wait(timeout_s)
        finally:
            self.cleanup()

    def cleanup(self) -> None:
        """If the test failed midway: what the run left is not left for the next tests."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for pid in self.tree():
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass


def left_after(run: Run, timeout_s: float) -> dict[int, str]:
    """The processes of the run still alive `timeout_s` after it ended (polled)."""
    deadline = time.monotonic() + timeout_s
    while True:
        left = run.tree()
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


def kinds(tree: dict[int, str]) -> str:
    names = []
    for cmd in tree.values():
        for kind, pattern in (("pricewatch run", r"pricewatch\.cli run"), ("Prefect server", r"prefect server start"),
                              ("scrapy crawl", r"scrapy crawl|pricewatch\.collect\.crawl_group"), ("Chromium", r"chrom"), ("playwright driver", r"driver/node")):
            if re.search(pattern, cmd):
                names.append(kind)
                break
    return ", ".join(f"{n} x{names.count(n)}" if names.count(n) > 1 else n for n in dict.fromkeys(names))


def server_port(tree: dict[int, str]) -> int:
    [port] = {int(m.group(1)) for cmd in tree.values() if "prefect server start" in cmd
              for m in [re.search(r"--port (\d+)", cmd)] if m}
    return port


def replay_of(tmp: Path, *providers: str) -> Path:
    """One run's replay folder holding these providers' shipped captures."""
    folder = tmp / "replay"
    folder.mkdir()
    for p in providers:
        (folder / f"{p}.warc.gz").symlink_to(shipped(p))
    return folder


def warehouse_state(path: Path) -> str:
    """Opens the warehouse read-write at once (a stale lock would refuse it), migrates it as the
    next run would (a migration cut short must not wedge it) and says what it holds."""
    if not path.exists():
        return "no warehouse file (nothing was stored)"
    con = db.connect(path)   # wait_s=0: raises WarehouseLocked if anything still holds it
    try:
        applied = con.execute("SELECT count(*) FROM information_schema.tables "
                              "WHERE table_name = 'schema_migrations'").fetchone()[0]
        if applied:
            applied = con.execute("SELECT count(*) FROM schema_migrations").fetchone()[0]
        migrate.migrate(con)
        runs = con.execute("SELECT count(*) FROM runs").fetchone()[0]
        provider_runs = con.execute("SELECT count(*) FROM provider_runs").fetchone()[0]
        offers = con.execute("SELECT count(*) FROM offers").fetchone()[0]
    finally:
        con.close()
    return f"opens read-write, migrates (had {applied} migrations); runs {runs}, provider runs {provider_runs}, offers {offers}"


def tracebacks(text: str) -> list[str]:
    """The exception line of every traceback in an output."""
    found, lines = [], text.splitlines()
    for n, line in enumerate(lines):
        if line.startswith("Traceback"):
            found.append(next((ln[:160] for ln in lines[n + 1:] if ln and not ln[0].isspace()), "?"))
    return found


def last_line(text: str) -> str:
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return lines[-1] if lines else ""


def test_sigterm_mid_crawl_stops_the_run_and_leaves_nothing(tmp_path, fault):
    path, archive = tmp_path / "pw.duckdb", tmp_path / "archive"
    # A browser page (jarvislabs, rendered in Chromium) and an API (thunder_compute).
    replay = replay_of(tmp_path, "jarvislabs", "thunder_compute")
    run = Run(tmp_path, "--replay", str(replay), "--db", str(path), "--archive-dir", str(archive))
    try:
        # The crawls start with the run, while its own Prefect server is still coming up.
        tree = run.wait_for("Chromium rendering the page", r"chrom")
        port = server_port(tree)
        os.kill(run.proc.pid, signal.SIGTERM)
        signalled = time.monotonic()
        code = run.proc.wait(30)
        took = time.monotonic() - signalled
        left = left_after(run, 5)
    finally:
        run.cleanup()
    out = run.output()
    listening = prefect_processes.port_in_use("127.0.0.1", port)
    state = warehouse_state(path)
    written = sorted(str(p.relative_to(archive)) for p in archive.rglob("*")) if archive.exists() else []
    fault("SIGTERM of `pricewatch run` while Chromium renders a page",
          expected="run ends within a few s (exit 143, one error line); no Prefect server, scrapy or Chromium "
                   "of the run left, its port closed; warehouse opens read-write, interrupted run absent; no WARC",
          observed=f"exit {code} after {took:.1f} s: {last_line(out)!r}; of {kinds(tree)}: "
                   f"{kinds(left) or 'nothing'} left; port {port} {'listening' if listening else 'closed'}; "
                   f"warehouse: {state}; archive files: {len(written)}")
    assert code == 128 + signal.SIGTERM, out[-3000:]
    assert took < 10, took
    assert "Traceback" not in out
    assert last_line(out).startswith("error: run stopped by SIGTERM"), out[-2000:]
    assert not left, left
    assert not listening
    assert "runs 0," in state or "no warehouse file" in state, state
    assert not (path.parent / "spool").exists()
    assert written == []


def test_sigkill_leaves_no_server_listening_and_no_crawl(tmp_path, fault):
    path = tmp_path / "pw.duckdb"
    run = Run(tmp_path, "--replay", str(replay_of(tmp_path, "massed_compute", "thunder_compute")), "--db", str(path))
    try:
        tree = run.wait_for("a crawl", r"scrapy crawl|pricewatch\.collect\.crawl_group")
        port = server_port(tree)
        os.kill(run.proc.pid, signal.SIGKILL)
        run.proc.wait(10)
        killed = time.monotonic()
        left = left_after(run, 10)
        gone_in = time.monotonic() - killed
        listening = prefect_processes.port_in_use("127.0.0.1", port)
    finally:
        run.cleanup()
    state = warehouse_state(path)
    fault("SIGKILL of `pricewatch run` mid-crawl",
          expected="its own Prefect server and every crawl process get the parent-death signal: none left, "
                   "the port closed; warehouse opens read-write",
          observed=f"of {kinds(tree)}: {kinds(left) or 'nothing'} left after {gone_in:.1f} s; port {port} "
                   f"{'still listening' if listening else 'closed'}; warehouse: {state}")
    assert not left, left
    assert not listening
    assert "runs 0," in state or "no warehouse file" in state, state


def test_sigterm_while_the_load_waits_for_the_warehouse_lock(tmp_path, prefect_server, fault):
    """Mid-load: an analyst holds the warehouse, the run's load waits for the lock; SIGTERM then."""
    path = tmp_path / "pw.duckdb"
    holder = db.connect(path)
    migrate.migrate(holder)
    try:
        run = Run(tmp_path, "--replay", str(shipped("thunder_compute")), "--db", str(path),
                  env={"PREFECT_API_URL": prefect_server.api, "PRICEWATCH_HISTORY_WAIT_S": "0",
                       "PRICEWATCH_LOAD_WAIT_S": "60"})
        try:
            deadline = time.monotonic() + 60
            while not re.search(r"^  ok +thunder_compute ", run.output(), re.M):   # its progress line
                assert run.proc.poll() is None and time.monotonic() < deadline, run.output()[-3000:]
                time.sleep(0.05)
            time.sleep(1.0)   # the run builds its records and waits for the lock in the load
            assert run.proc.poll() is None, run.output()[-3000:]
            os.kill(run.proc.pid, signal.SIGTERM)
            signalled = time.monotonic()
            code = run.proc.wait(30)
            took = time.monotonic() - signalled
            left = left_after(run, 5)
        finally:
            run.cleanup()
    finally:
        holder.close()
    out = run.output()
    state = warehouse_state(path)
    fault("SIGTERM of `pricewatch run` while its load waits for the warehouse lock",
          expected="run ends within a few s (exit 143, one error line), nothing left running; the warehouse "
                   "opens read-write once the analyst lets go, the interrupted run absent (not half stored)",
          observed=f"exit {code} after {took:.1f} s: {last_line(out)!r}; {kinds(left) or 'nothing'} left; "
                   f"warehouse: {state}")
    assert code == 128 + signal.SIGTERM, out[-3000:]
    assert took < 10, took
    assert "Traceback" not in out
    assert last_line(out).startswith("error: run stopped by SIGTERM"), out[-2000:]
    assert not left, left
    assert state.startswith("opens read-write") and "runs 0, provider runs 0, offers 0" in state, state


def test_two_runs_at_once_on_one_warehouse(tmp_path, prefect_server, fault):
    """Three runs at once: two different replays and the first one again, on one DuckDB file."""
    exchanges = shipped_exchanges("thunder_compute")
    night = {"a": "2026-10-29T02:00:04Z", "b": "2026-10-30T02:00:04Z"}
    warcs = {k: write_exchanges(tmp_path / k / "thunder_compute.warc.gz",
                                [{**ex, "captured_at": at} for ex in exchanges], provider="thunder_compute")
             for k, at in night.items()}
    path = tmp_path / "pw.duckdb"
    env = {"PREFECT_API_URL": prefect_server.api}
    runs = [Run(tmp_path, "--replay", str(warcs[k]), "--db", str(path), env=env, name=f"run-{n}-{k}")
            for n, k in enumerate(("a", "b", "a"))]
    codes = [r.finish(120) for r in runs]
    outs = [r.output() for r in runs]
    con = db.connect(path, read_only=True)
    try:
        stored = con.execute("""SELECT r.run_id, strftime(r.observed_at, '%Y-%m-%d'),
                                       (SELECT count(*) FROM offers o WHERE o.run_id = r.run_id)
                                FROM runs r ORDER BY r.observed_at""").fetchall()
    finally:
        con.close()
    noop = [n for n, o in enumerate(outs) if "already loaded" in o]
    fault("two (three) `pricewatch run` at once on one warehouse: replays of two nights, the first twice",
          expected="all exit 0 without a traceback; both nights stored under different run ids with all their "
                   "offers; the repeated replay a no-op; nothing spooled",
          observed=f"exits {codes}; tracebacks: {[t for o in outs for t in tracebacks(o)] or 'none'}; stored "
                   + ", ".join(f"{d} ({n} offers)" for _, d, n in stored)
                   + f" under {len({r for r, _, _ in stored})} run ids; 'already loaded' in run(s) "
                   f"{noop or 'none'}; spool {'present' if (tmp_path / 'spool').exists() else 'none'}")
    assert codes == [0, 0, 0], "\n\n".join(o[-2000:] for o in outs)
    assert not any("Traceback" in o for o in outs)
    assert [(d, n) for _, d, n in stored] == [("2026-10-29", 25), ("2026-10-30", 25)]
    assert len({r for r, _, _ in stored}) == 2
    assert len(noop) == 1 and noop[0] in (0, 2), noop
    assert not (tmp_path / "spool").exists()


def test_a_stopped_live_crawl_leaves_whole_warc_files_and_no_offers(tmp_path, standin, fault):
    """What SIGTERM does to a live crawl (pricewatch.collect.crawl_process.stop_crawls, as `pricewatch run` calls
    it): the provider answered robots.txt and hangs on the price page when the run stops."""
    asked, release = threading.Event(), threading.Event()

    def hang(request):
        asked.set()
        release.wait(20)
        return Response(shipped_exchanges("massed_compute")[0]["body"], content_type="text/html")

    standin.expect_request("/robots.txt").respond_with_data("User-agent: *\nAllow: /\n")
    standin.expect_request("/pricing").respond_with_handler(hang)
    archive = tmp_path / "archive"
    results = []
    worker = threading.Thread(target=lambda: results.append(crawl_process.run_crawl(
        "massed_compute", tmp_path / "live", archive_dir=archive,
        spider_args={"pricing_url": standin.url_for("/pricing")}, settings=STANDIN_SETTINGS)))
    worker.start()
    try:
        assert asked.wait(30), results
        stopping = time.monotonic()
        stopped = crawl_process.stop_crawls("test: the run got SIGTERM")
        worker.join(15)
        took = time.monotonic() - stopping
    finally:
        release.set()
        crawl_process.resume_crawls()
        worker.join(15)
    [result] = results
    files = sorted(archive.rglob("*.warc.gz"))
    readable = {}
    for f in files:
        with open(f, "rb") as fh:   # every record whole to the end (warcio raises on a cut gzip member)
            readable[f.name] = [r.rec_headers.get_header("WARC-Target-URI") for r in ArchiveIterator(fh)
                                if r.rec_type == "response"]
    leftovers = [p.name for p in archive.rglob("*") if p.is_file() and p not in files]
    fault("live crawl stopped mid-download (the provider hangs on the price page when the run gets SIGTERM)",
          expected="crawl ends within a few s, failed with no offers (not retried); every WARC file non-empty "
                   "and readable to its last record; no partial file left",
          observed=f"{stopped} crawl stopped in {took:.1f} s: exit {result.returncode}, {len(result.items)} offers, "
                   f"retry: {bool(result.transient_failure())}; WARC files "
                   + (", ".join(f"{f.stat().st_size} B with responses {readable[f.name]}" for f in files) or "none")
                   + f"; other files: {leftovers or 'none'}")
    assert stopped == 1 and took < 6, took
    assert result.stopped and result.items == [] and result.transient_failure() is None
    assert all(f.stat().st_size > 0 for f in files) and not leftovers
    assert all(urls for urls in readable.values()), readable
