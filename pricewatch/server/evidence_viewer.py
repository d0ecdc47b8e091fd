"""`pricewatch evidence --open`: the archived records served for replay in a browser.

The WARC files the evidence came from are packaged as one WACZ (pricewatch/evidence/wacz.py) and
served on 127.0.0.1 with ReplayWeb.page (Webrecorder's web-archive viewer, which runs in the
browser: ``ui.js`` and its service worker ``sw.js``), which replays the page from the archive
as the crawler received it, scripts and API answers included. The viewer comes from its npm
package (``replaywebpage``, pinned), fetched once with npm into ``$PRICEWATCH_VIEWER_DIR``
(default ``~/.cache/pricewatch/replaywebpage-<version>``). Without it (no npm) the page still
lists every record, with its archived body as stored (``/raw/<n>``, served sandboxed: no
script of an archived page runs) and the WACZ to download.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import signal
import subprocess
import tarfile
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote

from pricewatch.evidence import wacz
from pricewatch.evidence.warc_common import warc_date

VIEWER_PACKAGE = "replaywebpage"
VIEWER_VERSION = "2.5.3"
VIEWER_FILES = ("ui.js", "sw.js")


def viewer_dir() -> Path:
    default = Path.home() / ".cache" / "pricewatch" / f"{VIEWER_PACKAGE}-{VIEWER_VERSION}"
    return Path(os.environ.get("PRICEWATCH_VIEWER_DIR") or default)


def ensure_viewer(fetch: bool = True, timeout_s: float = 180) -> tuple[Path | None, str]:
    """The folder holding ReplayWeb.page's ui.js and sw.js, fetched with npm when missing
    (``fetch``); (None, why) when it cannot be had."""
    folder = viewer_dir()
    if all((folder / f).is_file() for f in VIEWER_FILES):
        return folder, "cached"
    if not fetch:
        return None, f"ReplayWeb.page is not in {folder}"
    npm = shutil.which("npm")
    if not npm:
        return None, "npm not found: ReplayWeb.page cannot be fetched"
    with tempfile.TemporaryDirectory(prefix="pricewatch-viewer-") as tmp:
        try:
            done = subprocess.run([npm, "pack", f"{VIEWER_PACKAGE}@{VIEWER_VERSION}", "--pack-destination", tmp],
                                  capture_output=True, text=True, timeout=timeout_s, cwd=tmp)
        except subprocess.TimeoutExpired:
            return None, f"npm pack {VIEWER_PACKAGE} timed out after {timeout_s:.0f} s"
        tarballs = list(Path(tmp).glob("*.tgz"))
        if done.returncode != 0 or not tarballs:
            return None, f"npm pack {VIEWER_PACKAGE} failed: {(done.stderr or done.stdout).strip()[-200:]}"
        folder.mkdir(parents=True, exist_ok=True)
        with tarfile.open(tarballs[0]) as tar:
            for name in VIEWER_FILES:
                member = tar.extractfile(f"package/{name}")
                (folder / f".{name}.part").write_bytes(member.read())
                os.replace(folder / f".{name}.part", folder / name)
    return folder, f"fetched {VIEWER_PACKAGE}@{VIEWER_VERSION} with npm"


class EvidenceServer:
    """Serves the evidence of ``blocks`` (pricewatch.evidence.lookup.Evidence with a record found) on
    127.0.0.1: ``/`` the list and the viewer, ``/evidence.wacz``, ``/raw/<n>``. ``viewer``:
    ReplayWeb.page's folder (None: the list only)."""

    def __init__(self, blocks, workdir: Path, port: int = 0, viewer: Path | None = None):
        self.blocks = blocks
        files = sorted({b.file.resolve() for b in blocks}, key=str)
        self.wacz = wacz.package(files, Path(workdir) / "evidence.wacz", title="pricewatch evidence",
                                 description="; ".join(b.title for b in blocks)[:500])
        self.viewer = viewer
        self.routes: dict[str, tuple[bytes, str, dict]] = {
            "/": (self.index().encode(), "text/html; charset=utf-8", {}),
            "/evidence.wacz": (self.wacz.read_bytes(), "application/wacz+zip", {}),
        }
        for n, b in enumerate(blocks):
            ctype = next((v for k, v in b.exchange.response.headers if k.lower() == "content-type"),
                         "application/octet-stream")
            # As archived, and inert: a sandboxed document runs no script and reaches nothing.
            self.routes[f"/raw/{n}"] = (b.exchange.response.body, ctype,
                                        {"Content-Security-Policy": "sandbox; default-src 'none'"})
        if viewer:
            self.routes["/ui.js"] = self.routes["/replay/ui.js"] = ((viewer / "ui.js").read_bytes(),
                                                                    "application/javascript", {})
            # The viewer's own app page, loaded in the embed's frame (as ReplayWeb.page's index.html).
            self.routes["/replay/"] = (b'<!doctype html><html><head><meta charset="utf-8"><script src="./ui.js">'
                                       b'</script></head><body><replay-app-main></replay-app-main></body></html>',
                                       "text/html; charset=utf-8", {})
            self.routes["/replay/sw.js"] = ((viewer / "sw.js").read_bytes(), "application/javascript",
                                            {"Service-Worker-Allowed": "/"})
        routes = self.routes

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - http.server's names
                self._answer(with_body=True)

            def do_HEAD(self):  # noqa: N802
                self._answer(with_body=False)

            def _answer(self, with_body: bool) -> None:
                path = self.path.split("?", 1)[0]
                body, ctype, extra = routes.get(path, (b"not found", "text/plain", {}))
                status, start, end = (200 if path in routes else 404), 0, len(body)
                # The viewer reads the WACZ (a zip) by byte ranges.
                m = re.match(r"bytes=(\d*)-(\d*)$", self.headers.get("Range", ""))
                if m and path in routes and body:
                    if m.group(1):
                        start, end = int(m.group(1)), min(int(m.group(2)) + 1 if m.group(2) else len(body), len(body))
                    else:
                        start = max(0, len(body) - int(m.group(2) or 0))
                    status = 206
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(end - start))
                self.send_header("Accept-Ranges", "bytes")
                if status == 206:
                    self.send_header("Content-Range", f"bytes {start}-{end - 1}/{len(body)}")
                for k, v in extra.items():
                    self.send_header(k, v)
                self.end_headers()
                if with_body:
                    self.wfile.write(body[start:end])

            def log_message(self, *args):  # quiet: the URL is printed once
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()

    def index(self) -> str:
        first = self.blocks[0].exchange.response
        rows = []
        for n, b in enumerate(self.blocks):
            r = b.exchange.response
            ts = warc_date(r.ref.captured_at)
            replay = (f' · <a href="?url={quote(r.url, safe="")}&amp;ts={_ts14(ts)}">replay</a>'
                      if self.viewer else "")
            rows.append(f"<li><b>{html.escape(b.title)}</b><br>{html.escape(r.url)} at {ts}, HTTP {r.status}, "
                        f"sha256 <code>{html.escape(b.recomputed_sha256 or '')}</code>, printed "
                        f"<mark>{html.escape(b.printed or '')}</mark><br>"
                        f'<a href="raw/{n}">archived body</a>{replay}</li>')
        viewer = ""
        if self.viewer:
            viewer = (
                '<script src="ui.js"></script>'
                f'<replay-web-page id="rwp" source="evidence.wacz" replaybase="./replay/" '
                f'url="{html.escape(first.url)}" ts="{_ts14(warc_date(first.ref.captured_at))}" '
                'style="display:block;height:80vh;border:1px solid #999"></replay-web-page>'
                "<script>const q = new URLSearchParams(location.search), v = document.getElementById('rwp');"
                "if (q.get('url')) { v.setAttribute('url', q.get('url')); v.setAttribute('ts', q.get('ts') || ''); }"
                "</script>")
        return ("<!doctype html><html><head><meta charset='utf-8'><title>pricewatch evidence</title></head>"
                "<body style='font-family:sans-serif'><h1>pricewatch evidence</h1><ul>" + "".join(rows) + "</ul>"
                '<p><a href="evidence.wacz">evidence.wacz</a> (open it in any WACZ viewer)'
                + ("" if self.viewer else " · the replay viewer (ReplayWeb.page) is not available here")
                + "</p>" + viewer + "</body></html>")

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _ts14(warc_ts: str) -> str:
    return "".join(ch for ch in warc_ts if ch.isdigit())[:14]


def serve_until_stopped(blocks, port: int = 0, echo=print) -> None:
    """Packages and serves ``blocks`` until Ctrl-C / SIGTERM, printing the URL."""
    if not blocks:
        echo("nothing to serve: no archived record was found")
        return
    viewer, how = ensure_viewer()
    if viewer is None:
        echo(f"note: {how}; serving the records without the replay viewer")
    with tempfile.TemporaryDirectory(prefix="pricewatch-evidence-") as tmp:
        server = EvidenceServer(blocks, Path(tmp), port=port, viewer=viewer)
        echo(f"serving the evidence for replay at {server.url} (Ctrl-C stops)")
        previous = signal.signal(signal.SIGTERM, _interrupt)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass
        finally:
            signal.signal(signal.SIGTERM, previous)
            server.close()


def _interrupt(signum, frame):
    raise KeyboardInterrupt
