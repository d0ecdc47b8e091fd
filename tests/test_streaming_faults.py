"""Fault suite of streamed bodies (spiders/streaming.py): a full disk, a digest that no longer
matches on replay, a cut or undecodable body, a truncated download, a body over its
download_maxsize. Each is one clear line and a failed provider (or region), never a partial
parse, and no temp file is left behind.

In-process where a plain function shows it (the real /dev/full for a full disk); the live
downloads are one real crawl against a raw-socket server (behind -m slow)."""

from __future__ import annotations

import gzip
import hashlib

import pytest
import scrapy

from pricewatch.collect import crawl_process, judge
from pricewatch.evidence.archive import ArchiveError, read_file
from pricewatch.evidence.streamed_body import Spool, SpoolError
from spiders.aws import parse_offer_file
from spiders.faults import DownloadFailed
from spiders.streaming import STREAM_META, CrawlSpool, spooled_replay
from tests.conftest import CAPTURES_SRC
from tests.test_replay_faults import rewrite_first_response
from tests.test_streaming import BODY, URL, archive, spooled

pytestmark = pytest.mark.fault
SRC = CAPTURES_SRC / "2026-09-28" / "aws"


def test_a_full_disk_while_spooling_is_an_error_never_a_short_body(tmp_path, fault):
    aborted = []
    spool = Spool(tmp_path, file=open("/dev/full", "wb"))   # every write: ENOSPC
    spool.on_error = lambda: aborted.append(True)            # the download handler aborts the connection
    for i in range(0, len(BODY), 4096):
        spool.write(BODY[i:i + 4096])
    with pytest.raises(SpoolError) as exc:
        spool.finish()
    assert "cannot write the body to disk (No space left on device)" in str(exc.value) and aborted == [True]
    # A spool folder that cannot hold a file: the request fails in one line, nothing served.
    (tmp_path / "not-a-folder").write_text("")
    (archived,) = read_file(_warc(tmp_path), hold_bytes=0)
    with pytest.raises(DownloadFailed) as failed:
        spooled_replay(CrawlSpool({"PRICEWATCH_SPOOL_DIR": str(tmp_path / "not-a-folder")}), archived,
                       scrapy.Request(URL, meta={STREAM_META: True}))
    assert "cannot spool the body to a temp file" in str(failed.value)
    fault("disk full while a streamed body is written to its temp file",
          expected="one line (No space left on device), the download aborted, no body passed on",
          observed=f"{exc.value}; {failed.value}")


def _warc(tmp_path):
    warc = tmp_path / "warc" / "aws.warc.gz"
    archive(warc, spooled(tmp_path, BODY))
    return warc


def test_a_replayed_payload_whose_digest_no_longer_matches_is_never_served(tmp_path, fault):
    warc = _warc(tmp_path)
    (archived,) = read_file(warc, hold_bytes=0)
    # The file changes after it was indexed: same length, one price changed (a disk, a copy).
    rewrite_first_response(warc, lambda rec: rec.replace(b'"55.0400000000"', b'"15.0400000000"', 1))
    spool = CrawlSpool({"PRICEWATCH_SPOOL_DIR": str(tmp_path / "spool")})
    with pytest.raises(DownloadFailed) as exc:
        spooled_replay(spool, archived, scrapy.Request(URL, meta={STREAM_META: True}))
    assert "archived record unusable" in str(exc.value) and "no longer matches its digest" in str(exc.value)
    assert list((tmp_path / "spool").rglob("*.body")) == []   # the partial copy is gone
    # Read again, the damaged record is refused when the archive is indexed (its WARC digest).
    with pytest.raises(ArchiveError) as indexed:
        read_file(warc, hold_bytes=0)
    assert "does not match its WARC-Payload-Digest" in str(indexed.value)
    fault("streamed replay: the record's payload changed after the archive was indexed",
          expected="one line: the record does not match its digest; nothing parsed, no temp file left",
          observed=f"{exc.value} | re-indexed: {indexed.value.reason}")


def test_a_cut_or_undecodable_spooled_body_fails_the_parse(tmp_path, fault):
    cut = parse_offer_file(spooled(tmp_path, BODY[: len(BODY) // 2]), URL)
    assert cut.errors and "not a JSON document we can read" in cut.errors[0]
    wire = gzip.compress(BODY)
    gz = parse_offer_file(spooled(tmp_path, wire[: len(wire) // 2], [("Content-Encoding", "gzip")]), URL)
    assert gz.errors and "cannot be read (the gzip body is cut off" in gz.errors[0]
    fault("a streamed body cut mid-document (no Content-Length; or its gzip stream cut)",
          expected="a layout error naming the file, the provider fails (never the offers read so far alone)",
          observed=f"{cut.errors[0]} | {gz.errors[0]}")


@pytest.mark.slow   # a real live crawl and its replay (~5 s)
def test_live_streamed_downloads_each_fault_one_line_and_no_temp_file_left(tmp_path, fault, monkeypatch):
    from tests.test_network_faults import SETTINGS, RawServer
    docs = {r: (SRC / f"{r}.json").read_bytes() for r in ("us-east-1", "us-east-2", "us-west-2", "ap-northeast-1",
                                                          "ap-south-1", "sa-east-1")}
    wire = gzip.compress(docs["sa-east-1"], mtime=0)

    def gzipped(conn):   # as a CDN serves it: Content-Encoding gzip
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
                     b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(wire) + wire)
    limit = max(len(d) for d in docs.values()) + 1000
    server = RawServer()
    server.routes.update({
        "/us-east-1/index.json": RawServer.whole(docs["us-east-1"], b"application/json"),
        "/us-east-2/index.json": RawServer.cut(docs["us-east-2"], len(docs["us-east-2"]) // 2, content_length=True),
        "/us-west-2/index.json": RawServer.whole(docs["us-west-2"] + b" " * 2 * limit, b"application/json"),
        "/ap-northeast-1/index.json": RawServer.cut(docs["ap-northeast-1"], len(docs["ap-northeast-1"]) // 2,
                                                    content_length=False),
        # Over the limit with no Content-Length: refused as the bytes arrive, not after.
        "/ap-south-1/index.json": RawServer.cut(docs["ap-south-1"] + b" " * 2 * limit, 10 * limit, content_length=False),
        "/sa-east-1/index.json": gzipped,
    })
    args = {"regions": ",".join(docs), "offers_url": server.url("/{region}/index.json"), "max_bytes": limit}
    settings = {**SETTINGS, "PRICEWATCH_SPOOL_DIR": str(tmp_path / "spool")}
    try:
        live = crawl_process.run_crawl("aws", tmp_path / "live", archive_dir=tmp_path / "archive",
                                 spider_args=args, settings=settings)
    finally:
        server.stop()
    outcome = judge.judge_crawl(live)
    failed = " | ".join(live.report.get("failed_urls", []))
    layout = " | ".join(live.report.get("layout_errors", []))
    assert outcome.status == "failed", outcome
    assert "us-east-2/index.json (body cut off before its Content-Length" in failed
    assert "us-west-2/index.json (body larger than its download_maxsize" in failed
    assert "ap-south-1/index.json (body larger than its download_maxsize" in failed
    assert "EC2 offer file ap-northeast-1: not a JSON document we can read" in layout
    assert list((tmp_path / "spool").rglob("*")) == []
    # The whole region was streamed and archived: its offers, and the same from the replay.
    east = [o for o in live.items if o["region"] == "us-east-1"]
    assert sorted(o["price_raw"] for o in east) == sorted(o["price_raw"] for o in parse_offer_file(docs["us-east-1"], URL).offers)
    # A gzip-encoded answer: parsed decoded, its evidence the bytes received (sha256 of the gzip).
    south = [o for o in live.items if o["region"] == "sa-east-1"]
    assert sorted(o["price_raw"] for o in south) == sorted(
        o["price_raw"] for o in parse_offer_file(docs["sa-east-1"], URL.replace("us-east-1", "sa-east-1")).offers)
    assert {o["capture"]["body_sha256"] for o in south} == {hashlib.sha256(wire).hexdigest()} and south
    (warc,) = (tmp_path / "archive").rglob("*.warc.gz")
    # Replayed with no payload held at indexing (as a 400 MB record is): copied out of the WARC.
    monkeypatch.setenv("PRICEWATCH_REPLAY_HOLD_BYTES", "0")
    replay = crawl_process.run_crawl("aws", tmp_path / "replay", replay=warc,
                               spider_args={**args, "regions": "us-east-1,sa-east-1"}, settings=settings)
    assert judge.judge_crawl(replay).status == "ok", replay.report

    def evidence(items):
        return sorted((o["offer_key"], o["price_raw"], o["capture"]["warc_file"], o["capture"]["warc_record_id"],
                       o["capture"]["body_sha256"], o["capture"]["source_url"]) for o in items)
    assert evidence(replay.items) == evidence(east + south) and len(east) == 10
    assert list((tmp_path / "spool").rglob("*")) == []
    fault("live streamed downloads: cut before Content-Length / over download_maxsize / cut without Content-Length",
          expected="each region one line (retried cut; refused size; layout error), provider failed, no temp file",
          observed=f"{outcome.error[:300]}")
