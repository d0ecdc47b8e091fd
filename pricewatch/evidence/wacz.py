"""WACZ packages of the WARC evidence (the ``wacz`` package of the Webrecorder project).

A WACZ is one zip a web-archive viewer (ReplayWeb.page, pywb) opens as is: the WARC files
under ``archive/``, a CDXJ index of every record (``indexes/index.cdx.gz``), the list of pages
(``pages/pages.jsonl``: here every document a price was read from, not the scripts and
stylesheets), and ``datapackage.json`` with the sha256 of every file in it
(``datapackage-digest.json`` holds the sha256 of that).

Where: a live crawl packages its own WARC file when it closes, beside it
(``data/archive/<date>/<provider>-<time>-<pid>.wacz``, spiders/middlewares.py);
``pricewatch evidence --open`` packages the files it shows on the fly. Shipped captures are
not packaged in the repository (a WACZ holds its creation time, so it is not reproducible).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
from pathlib import Path

from pricewatch.evidence.warc_common import ArchiveError, warc_date
from pricewatch.evidence.warc_read import read_file

# Responses that are parts of a page, not documents a price is read from.
_PART_TYPES = ("text/css", "javascript", "image/", "font/")


def wacz_path(warc: Path) -> Path:
    """Where the WACZ of one WARC file goes: beside it, same stem."""
    name = Path(warc).name
    for suffix in (".warc.gz", ".warc"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    return Path(warc).with_name(name + ".wacz")


def pages_of(files: list[Path]) -> list[dict]:
    """One page per document response a price could be read from (status 200, not robots.txt,
    not a stylesheet, script, image or font), in archive order."""
    pages = []
    for file in files:
        for r in read_file(file):
            ctype = next((v.lower() for k, v in r.headers if k.lower() == "content-type"), "")
            if r.status != 200 or r.url.endswith("/robots.txt") or any(t in ctype for t in _PART_TYPES):
                continue
            pages.append({"url": r.url, "ts": warc_date(r.ref.captured_at), "title": r.url})
    return pages


def package(files: list[Path], out: Path, title: str, description: str = "") -> Path:
    """Writes the WACZ of ``files`` to ``out`` (beside it first, then moved into place: a
    reader never sees half a zip). Raises ``ArchiveError`` for a bad WARC file (read strictly
    first: a damaged file is never packaged as evidence) and ``ValueError`` when two files share
    a name (a WACZ keeps only the base name under ``archive/``)."""
    files = [Path(f) for f in files]
    names = [f.name for f in files]
    if len(set(names)) != len(names):
        raise ValueError(f"WARC files with the same name cannot share a WACZ: {sorted(names)}")
    pages = pages_of(files)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.parent / f".{out.name}.{os.getpid()}.part"
    with tempfile.TemporaryDirectory(prefix="pricewatch-wacz-") as work:
        pages_file = Path(work) / "pages.jsonl"
        header = {"format": "json-pages-1.0", "id": "pages", "title": "Documents prices were read from"}
        pages_file.write_text("\n".join(json.dumps(p) for p in [header] + pages) + "\n")
        argv = ["create", "-o", str(tmp), "--hash-type", "sha256", "--title", title,
                "--desc", description or title] + (["--pages", str(pages_file)] if pages else []) + [str(f) for f in files]
        rc, said = _wacz(argv)
    if rc != 0 or not tmp.exists():
        tmp.unlink(missing_ok=True)
        raise ArchiveError(out, f"WACZ not written: {said.strip().splitlines()[-1:] or rc}")
    os.replace(tmp, out)
    return out


def validate(path: Path) -> tuple[bool, str]:
    """``wacz validate`` on a file: (valid, what it said). Checks the required contents, the
    datapackage (frictionless), that every file is listed, and every file's sha256."""
    rc, said = _wacz(["validate", "-f", str(path)])
    return rc == 0 and "is valid" in said, said


def _wacz(argv: list[str]) -> tuple[int, str]:
    # The wacz package is a command-line tool: its functions print instead of returning.
    from wacz.main import main
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        try:
            rc = main(argv)
        except SystemExit as exc:  # argparse
            rc = exc.code if isinstance(exc.code, int) else 1
        except Exception as exc:  # noqa: BLE001 - its errors are reported as a line, not a traceback
            print(f"{type(exc).__name__}: {exc}")
            rc = 1
    return int(rc or 0), buf.getvalue()


def package_run(warc_files: list[Path], archive_dir: Path, run_id: str) -> Path | None:
    """One WACZ of every WARC file a run's crawls wrote (``CrawlResult.report["warc_files"]``),
    in the dated folder of the first: ``<archive_dir>/<date>/run-<run_id>.wacz``. None when the
    run wrote no WARC (nothing received)."""
    files = sorted({Path(f) for f in warc_files if Path(f).is_file()})
    if not files:
        return None
    out = Path(archive_dir) / files[0].parent.name / f"run-{run_id}.wacz"
    return package(files, out, title=f"pricewatch run {run_id}",
                   description=f"every response the crawls of run {run_id} received")
