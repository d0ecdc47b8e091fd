"""Helpers of the several-machines tests (tests/test_bundles.py, test_bundle_faults.py,
test_several_machines.py): a night folder of shipped captures, an S3-compatible server on
localhost (moto's server mode), a PostgreSQL cluster for a Prefect server, and a warehouse
compared table by table with benchmarks/compare_replays.py's dump."""

from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

from tests.conftest import ROOT, shipped

BUCKET = "pricewatch-bundles"
PG_BIN = Path("/usr/lib/postgresql/15/bin")


def night_folder(folder: Path, providers: list[str]) -> Path:
    """One night: the providers' shipped captures side by side (symlinks), as one replay."""
    folder.mkdir(parents=True, exist_ok=True)
    for p in providers:
        (folder / f"{p}.warc.gz").symlink_to(shipped(p))
    return folder


def dump(db_file: Path) -> list[str]:
    """Every table and view, rows sorted, wall-clock columns left out (compare_replays.py)."""
    spec = importlib.util.spec_from_file_location("compare_replays", ROOT / "benchmarks" / "compare_replays.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.dump(Path(db_file))


def differences(a: Path, b: Path) -> list[str]:
    import difflib
    return [line for line in difflib.unified_diff(dump(a), dump(b), lineterm="", n=0)
            if line[:1] in "+-" and not line.startswith(("+++", "---"))]


class S3Server:
    """moto's S3 in server mode on a free localhost port, with one bucket; ``env`` is what a
    process needs to reach it (the standard AWS_* variables s3fs reads)."""

    def __init__(self, port: int | None = None):
        from moto.server import ThreadedMotoServer
        self.port = port or free_port()
        self._server = ThreadedMotoServer(ip_address="127.0.0.1", port=self.port, verbose=False)
        self.url = f"s3://{BUCKET}/nights"
        self.env = {"AWS_ACCESS_KEY_ID": "pricewatch-test", "AWS_SECRET_ACCESS_KEY": "pricewatch-test-secret",
                    "AWS_ENDPOINT_URL": f"http://127.0.0.1:{self.port}", "AWS_DEFAULT_REGION": "us-east-1",
                    # one try per request, short timeouts: a store that is down fails an attempt fast
                    "AWS_MAX_ATTEMPTS": "1", "AWS_RETRY_MODE": "standard"}

    @property
    def options(self) -> dict:
        """fsspec options for this process to reach it (the machines get ``env`` instead)."""
        return {"key": self.env["AWS_ACCESS_KEY_ID"], "secret": self.env["AWS_SECRET_ACCESS_KEY"],
                "client_kwargs": {"endpoint_url": self.env["AWS_ENDPOINT_URL"], "region_name": "us-east-1"}}

    def start(self, bucket: bool = True) -> "S3Server":
        self._server.start()
        # moto keeps its buckets in the process, not in the server: an earlier test's server in
        # this pytest worker left its objects in the same bucket. Start empty.
        import urllib.request
        urllib.request.urlopen(urllib.request.Request(f"{self.env['AWS_ENDPOINT_URL']}/moto-api/reset",
                                                      method="POST"), timeout=10).close()
        if bucket:
            import boto3
            boto3.client("s3", endpoint_url=self.env["AWS_ENDPOINT_URL"], region_name="us-east-1",
                         aws_access_key_id=self.env["AWS_ACCESS_KEY_ID"],
                         aws_secret_access_key=self.env["AWS_SECRET_ACCESS_KEY"]).create_bucket(Bucket=BUCKET)
        return self

    def stop(self) -> None:
        self._server.stop()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Postgres:
    """A throw-away PostgreSQL 15 cluster (Debian's postgresql) on a free port, owned by the
    postgres user when run as root (initdb refuses root)."""

    def __init__(self):
        import tempfile
        # Its own folder under /tmp: the postgres user cannot enter pytest's (mode 700, root's).
        self.folder = Path(tempfile.mkdtemp(prefix="pricewatch-pg-"))
        self.port = free_port()
        self.url = f"postgresql+asyncpg://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *args: str) -> None:
        cmd = [str(PG_BIN / args[0]), *args[1:]]
        if os.geteuid() == 0:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        subprocess.run(cmd, check=True, capture_output=True, timeout=120)

    def start(self) -> "Postgres":
        self.folder.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
        self._run("initdb", "-D", str(self.folder / "data"), "-A", "trust", "-U", "postgres")
        self._run("pg_ctl", "-D", str(self.folder / "data"), "-l", str(self.folder / "log"), "-w", "-o",
                  f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1", "start")
        return self

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.folder / "data"), "-m", "fast", "-w", "stop")
        except subprocess.CalledProcessError:
            pass
        shutil.rmtree(self.folder, ignore_errors=True)


def wait_for(check, timeout_s: float, step_s: float = 0.5, what: str = "condition"):
    started = time.monotonic()
    while time.monotonic() - started < timeout_s:
        value = check()
        if value:
            return value
        time.sleep(step_s)
    raise TimeoutError(f"{what} not met after {timeout_s:.0f} s")


__all__ = ["ROOT", "BUCKET", "night_folder", "dump", "differences", "S3Server", "Postgres", "wait_for", "free_port"]
