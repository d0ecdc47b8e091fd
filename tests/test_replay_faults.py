"""Fault suite: corrupt, truncated, empty, damaged and foreign WARC archives.

Every archive here is a real WARC written by pricewatch (``write_exchanges``, from the shipped
captures' sources), then damaged byte by byte the way a disk, a copy or a killed crawl damages
one. Reading it must give one line naming the file and what is wrong, never a traceback, and a
damaged record must never be served as if it were complete."""

from __future__ import annotations

import gzip
import io
import random
from pathlib import Path

import pytest
from warcio.archiveiterator import ArchiveIterator

from pricewatch.collect import crawl_process, judge
from pricewatch.collect.replays import (
    archive_capture_times,
    providers_in_archive,
    scan_archive,
)
from pricewatch.evidence.archive import (
    ArchiveError,
    ReplayIndex,
    WarcArchiveWriter,
    read_archive,
    write_exchanges,
)
from tests.conftest import shipped_exchanges

pytestmark = pytest.mark.fault


# --- helpers: a real capture, and its gzip members -----------------------------------------

def capture(path: Path, provider: str = "thunder_compute") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_exchanges(path, shipped_exchanges(provider))


def members(path: Path) -> list[tuple[str, int, int]]:
    """(record type, offset, length) of each gzip member (one record each)."""
    with open(path, "rb") as fh:
        it = ArchiveIterator(fh)
        out = []
        for record in it:
            record.raw_stream.read()
            out.append((record.rec_type, it.get_record_offset(), it.get_record_length()))
    return out


def first_response(path: Path) -> tuple[bytes, int, int]:
    data = path.read_bytes()
    _, offset, length = next(m for m in members(path) if m[0] == "response")
    return data, offset, length


def rewrite_first_response(path: Path, change) -> None:
    """Recompresses the first response record after ``change(record bytes)``."""
    data, offset, length = first_response(path)
    record = gzip.decompress(data[offset:offset + length])
    path.write_bytes(data[:offset] + gzip.compress(change(record), mtime=0) + data[offset + length:])


def one_line(err: Exception, path: Path) -> str:
    msg = str(err)
    assert "\n" not in msg and msg.startswith(f"{path}: "), msg
    return msg


def every_reader_says(path: Path) -> str:
    """read_archive, ReplayIndex.load and providers_in_archive all raise the same one line;
    archive_capture_times (read after the crawls) never raises."""
    messages = set()
    for read in (read_archive, ReplayIndex.load, providers_in_archive):
        with pytest.raises(ArchiveError) as exc:
            read(path)
        messages.add(one_line(exc.value, path))
    assert archive_capture_times(path) == {}
    assert len(messages) == 1, messages
    return messages.pop()


# --- the faults ----------------------------------------------------------------------------

def test_empty_warc_file(tmp_path, fault):
    path = tmp_path / "thunder_compute-20261029T020000Z-1.warc.gz"
    path.write_bytes(b"")
    msg = every_reader_says(path)
    assert "empty" in msg and "0 bytes" in msg
    # The name says whose file it was: that provider fails with the line, it is not "absent".
    scan = scan_archive(path)
    assert scan.providers == [] and list(scan.failed) == ["thunder_compute"]
    fault("empty WARC file (0 bytes)",
          expected="one line naming the file: empty; its provider failed, not absent",
          observed=f"{msg}; failed: {list(scan.failed)}")


def test_random_bytes_are_not_a_warc(tmp_path, fault):
    path = tmp_path / "capture.warc.gz"
    noise = random.Random(9).randbytes(4096)
    assert not noise.startswith((b"\x1f\x8b", b"WARC/"))
    path.write_bytes(noise)
    msg = every_reader_says(path)
    assert "not a WARC file" in msg
    fault("WARC file of random bytes", expected="one line naming the file: not a WARC file", observed=msg)


def test_truncated_gzip_member_is_never_served(tmp_path, fault):
    path = capture(tmp_path / "capture.warc.gz")
    data, offset, length = first_response(path)
    path.write_bytes(data[:offset + length // 2])    # a copy or a crawl cut in the first response
    msg = every_reader_says(path)
    assert "cut off" in msg and "incomplete" in msg
    # In a folder it is skipped: nothing of it is served, the records before the cut included.
    index = ReplayIndex.load(tmp_path)
    assert index.responses == {} and index.problems == [msg]
    fault("WARC cut off inside a gzip member",
          expected="one line: cut off; no record of the file is served",
          observed=f"{msg}; served {len(index.responses)} response(s)")


def test_record_shorter_than_its_content_length(tmp_path, fault):
    path = capture(tmp_path / "capture.warc.gz")
    data, offset, length = first_response(path)
    declared = int(gzip.decompress(data[offset:offset + length]).split(b"\r\nContent-Length: ")[1].split(b"\r\n")[0])
    # Drop 10 bytes of the body, keep the record's WARC Content-Length (a complete gzip member).
    rewrite_first_response(path, lambda rec: rec[:-14] + b"\r\n\r\n")
    msg = every_reader_says(path)
    # 10 body bytes missing: the blank lines that end a record are read as its last 4 bytes.
    assert f"is cut off: {declared - 10 + 4} of the {declared} bytes" in msg
    assert "https://api.thundercompute.com:8443/v1/pricing" in msg
    fault("WARC record whose payload is shorter than its Content-Length",
          expected=f"one line: the record is cut off (fewer than its {declared} bytes), not replayed",
          observed=msg)


def test_payload_that_does_not_match_its_digest(tmp_path, fault):
    path = capture(tmp_path / "capture.warc.gz")
    # Same length, one price changed: a flipped byte on disk, or a hand-edited capture.
    rewrite_first_response(path, lambda rec: rec.replace(b'"a100xl_x1_prototyping": 1.09',
                                                         b'"a100xl_x1_prototyping": 0.09', 1))
    msg = every_reader_says(path)
    assert "does not match its WARC-Payload-Digest" in msg
    # Digests are checked when present: the same edit without digest headers reads.
    bare = capture(tmp_path / "bare" / "capture.warc.gz")
    rewrite_first_response(bare, lambda rec: b"".join(
        line for line in io.BytesIO(rec).readlines() if not line.startswith(b"WARC-") or b"Digest" not in line)
        .replace(b'"a100xl_x1_prototyping": 1.09', b'"a100xl_x1_prototyping": 0.09', 1))
    assert b"0.09" in read_archive(bare)[0].body
    fault("WARC record whose payload does not match its WARC-Payload-Digest",
          expected="one line: damaged content, not replayed (a record without digests is read)",
          observed=msg)


def test_folder_with_one_bad_file_still_replays_the_good_provider(tmp_path, fault):
    folder = tmp_path / "night"
    good = capture(folder / "night-2.warc.gz", "thunder_compute")
    bad = capture(folder / "night-1.warc.gz", "vultr")
    data, offset, length = first_response(bad)
    bad.write_bytes(data[:offset + length - 20])     # vultr's crawl killed while writing
    scan = scan_archive(folder)
    assert scan.providers == ["thunder_compute"]
    assert len(scan.problems) == 1 and scan.problems[0].startswith(f"{bad}: cut off")
    assert scan.failed == {"vultr": f"vultr: replay archive unreadable: {scan.problems[0]}"}
    assert providers_in_archive(folder) == ["thunder_compute"]            # no raise for a folder
    assert list(archive_capture_times(folder)) == ["thunder_compute"]
    # The good provider's real crawl replays the folder: one warning line for the bad file.
    result = crawl_process.run_crawl("thunder_compute", tmp_path / "crawl", replay=folder)
    outcome = judge.judge_crawl(result)
    log = (tmp_path / "crawl" / "thunder_compute.log").read_text()
    warned = [line for line in log.splitlines() if str(bad) in line]
    assert result.returncode == 0 and outcome.status == "ok" and outcome.offers, outcome.error
    # Stored relative to the archive root (here the file's own folder: not a dated one).
    assert {o["capture"]["warc_file"] for o in outcome.offers} == {good.name}
    assert len(warned) == 1 and "WARNING" in warned[0] and "Traceback" not in log
    fault("folder of WARCs, one cut off (vultr), one good (thunder_compute)",
          expected="bad file skipped with one warning line; thunder_compute ok; vultr failed with that line",
          observed=f"thunder_compute {outcome.status} ({len(outcome.offers)} offers), warnings {len(warned)}; "
                   f"{scan.failed['vultr']}")


def test_single_bad_file_given_to_a_crawl(tmp_path, fault):
    path = capture(tmp_path / "capture.warc.gz")
    data, offset, length = first_response(path)
    path.write_bytes(data[:offset + length // 2])
    result = crawl_process.run_crawl("thunder_compute", tmp_path / "crawl", replay=path)
    outcome = judge.judge_crawl(result)
    log = (tmp_path / "crawl" / "thunder_compute.log").read_text()
    assert result.returncode == 0 and "Traceback" not in log
    assert outcome.status == "failed" and not outcome.offers
    assert f"replay archive unreadable: {path.name}: cut off: the gzip member" in outcome.error
    assert f"replay archive unreadable: {path}: cut off" in log
    fault("crawl replaying a single cut-off WARC file",
          expected="no traceback; provider failed: replay archive unreadable, naming the file",
          observed=outcome.error)


def test_archive_with_hosts_no_spider_knows(tmp_path, fault):
    stamp = "2026-10-29T02:00:00Z"
    path = write_exchanges(tmp_path / "foreign.warc.gz", [
        {"url": "https://b.example/prices", "captured_at": stamp, "body": "{}"},
        {"url": "https://a.example/", "captured_at": stamp, "body": "<html></html>"},
    ])
    scan = scan_archive(path)
    assert providers_in_archive(path) == [] and scan.failed == {} and scan.problems == []
    msg = scan.no_provider_message()
    assert msg == f"no known provider has responses in {path}; hosts: a.example, b.example"
    fault("archive whose hosts no spider knows",
          expected="one line: no known provider has responses in <path>; hosts: a.example, b.example",
          observed=msg)


def test_a_writer_that_wrote_nothing_leaves_no_file(tmp_path, fault):
    path = tmp_path / "archive" / "2026-10-29" / "thunder_compute-20261029T020000Z-1.warc.gz"
    writer = WarcArchiveWriter(path)
    writer.close()                                    # a crawl that received nothing
    left = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert left == []
    assert not write_exchanges(tmp_path / "none.warc.gz", []).exists()
    # One record: the file says what wrote it, and replays.
    writer = WarcArchiveWriter(path)
    writer.write("https://api.thundercompute.com:8443/v1/pricing", 200, "OK",
                 [("Content-Type", "application/json")], b'{"pricing": {}}')
    writer.close()
    with open(path, "rb") as fh:
        first = next(iter(ArchiveIterator(fh)))
        info = first.content_stream().read().decode()
    assert first.rec_type == "warcinfo" and first.rec_headers.protocol == "WARC/1.1"
    assert "software: pricewatch" in info and "format: WARC File Format 1.1" in info
    assert "pricewatch-provider: thunder_compute" in info
    assert [r.url for r in read_archive(path)] == ["https://api.thundercompute.com:8443/v1/pricing"]
    fault("archive writer closed before any response (crawl with no network)",
          expected="no 0-byte WARC left; a written WARC starts with a warcinfo record (pricewatch, WARC/1.1)",
          observed=f"{len(left)} file(s) left; warcinfo {first.rec_type == 'warcinfo'}, "
                   f"provider {'pricewatch-provider: thunder_compute' in info}")
