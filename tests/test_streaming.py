"""Streamed bodies (spiders/streaming.py, pricewatch/evidence/streamed_body.py): a body spooled to a
temp file gives the same offers and the same WARC evidence as the body held in memory, live
(written from the file) and replayed (a record too big to hold, copied out of the WARC file in
chunks). In-process on the shipped AWS us-east-1 offer file (a few KB); the 400 MB figures are
benchmarks/bench_hyperscaler_stream.py's.

The document is the COMPOSED capture captures/src/2026-09-28/aws/us-east-1.json, whose prices
are the real recording's (tests/test_aws.py quotes them)."""

from __future__ import annotations

import gzip
import hashlib
from datetime import datetime, timezone

import scrapy
from warcio.archiveiterator import ArchiveIterator

from pricewatch.evidence.archive import (
    ReplayIndex,
    WarcArchiveWriter,
    normalize_url,
    read_file,
)
from pricewatch.evidence.streamed_body import Spool
from spiders.aws import OFFERS, parse_offer_file
from spiders.streaming import STREAM_META, CrawlSpool, StreamedResponse, spooled_replay
from tests.conftest import CAPTURES_SRC

BODY = (CAPTURES_SRC / "2026-09-28" / "aws" / "us-east-1.json").read_bytes()
URL = OFFERS.format(region="us-east-1")
HEADERS = [("Content-Type", "application/json"), ("Content-Length", str(len(BODY)))]
WHEN = datetime(2026, 9, 28, 12, 0, tzinfo=timezone.utc)
RECORD_ID = "<urn:uuid:8d1c6d0e-0000-4000-8000-000000000013>"


def spooled(folder, data: bytes, headers=HEADERS):
    spool = Spool(folder)
    for i in range(0, len(data), 4096):   # as a download arrives: in chunks
        spool.write(data[i:i + 4096])
    return spool.finish(list(headers))


def archive(path, body=None, data: bytes = BODY, headers=HEADERS):
    """One response record written from memory (``body`` None) or from a spooled body."""
    writer = WarcArchiveWriter(path, provider="aws")
    if body is None:
        ref = writer.write(URL, 200, "OK", headers, data, captured_at=WHEN, record_id=RECORD_ID)
    else:
        ref = writer.write_streamed(URL, 200, "OK", headers, body, captured_at=WHEN, record_id=RECORD_ID)
    writer.close()
    return ref


def record_digests(path) -> dict:
    with open(path, "rb") as fh:
        (h,) = [r.rec_headers for r in ArchiveIterator(fh) if r.rec_type == "response"]
    return {k: h.get_header(k) for k in ("WARC-Record-ID", "WARC-Payload-Digest", "WARC-Block-Digest",
                                         "Content-Length", "WARC-Target-URI", "WARC-Date")}


def test_a_spooled_body_parses_to_the_same_offers_as_the_body_in_memory(tmp_path):
    body = spooled(tmp_path, BODY)
    assert (body.size, body.sha256) == (len(BODY), hashlib.sha256(BODY).hexdigest())
    streamed, held = parse_offer_file(body, URL), parse_offer_file(BODY, URL)
    assert not streamed.errors and streamed.offers == held.offers
    # "p5 48xlarge US East N. Virginia Linux": "price": "55.0400000000" (the real recording)
    assert {(o["sku"], o["price_raw"]) for o in streamed.offers if o["billing"] == "on-demand"} >= {
        ("p5.48xlarge", "55.0400000000"), ("p4d.24xlarge", "21.9576420000")}


def test_a_streamed_record_is_the_same_evidence_as_one_written_from_memory(tmp_path):
    body = spooled(tmp_path, BODY)
    memory = archive(tmp_path / "memory" / "aws.warc.gz")
    streamed = archive(tmp_path / "streamed" / "aws.warc.gz", body)
    # The offer's evidence (file name, record id, sha256 of the body, time, URL) is the same,
    # and so are the record's digests (sha1 of the payload and of the block) and length.
    assert streamed == memory and streamed.body_sha256 == hashlib.sha256(BODY).hexdigest()
    assert record_digests(tmp_path / "streamed" / "aws.warc.gz") == record_digests(tmp_path / "memory" / "aws.warc.gz")
    # Read back strictly: held in memory, or (too big to hold) indexed where it is.
    (held,) = read_file(tmp_path / "streamed" / "aws.warc.gz")
    (indexed,) = read_file(tmp_path / "streamed" / "aws.warc.gz", hold_bytes=0)
    assert held.body == BODY and held.payload is None and held.ref == indexed.ref
    assert indexed.body == b"" and (indexed.payload.size, indexed.payload.sha256) == (len(BODY), streamed.body_sha256)
    assert indexed.payload.read() == BODY


def test_a_gzip_body_is_archived_as_received_and_parsed_decoded(tmp_path):
    wire = gzip.compress(BODY, mtime=0)
    headers = [("Content-Type", "application/json"), ("Content-Encoding", "gzip")]
    body = spooled(tmp_path, wire, headers)
    # The evidence is of the bytes received (as in the in-memory path, archived before
    # Scrapy's decompression); the parser reads the document.
    assert body.sha256 == hashlib.sha256(wire).hexdigest() and body.read_all() == BODY
    assert parse_offer_file(body, URL).offers == parse_offer_file(BODY, URL).offers
    assert archive(tmp_path / "s" / "aws.warc.gz", body, headers=headers) == \
        archive(tmp_path / "m" / "aws.warc.gz", data=wire, headers=headers)


def test_a_replayed_record_too_big_to_hold_is_served_from_a_temp_file(tmp_path):
    body = spooled(tmp_path, BODY)
    warc = tmp_path / "aws.warc.gz"
    archive(warc, body)
    (archived,) = read_file(warc, hold_bytes=0)
    spool = CrawlSpool({"PRICEWATCH_SPOOL_DIR": str(tmp_path / "spool")})
    response = spooled_replay(spool, archived, scrapy.Request(URL, meta={STREAM_META: True}))
    assert isinstance(response, StreamedResponse) and response.body == b"" and response.status == 200
    assert response.streamed.read_all() == BODY and response.streamed.sha256 == archived.ref.body_sha256
    assert parse_offer_file(response.streamed, URL).offers == parse_offer_file(BODY, URL).offers
    # Scrapy's Response.replace (used by middlewares) keeps the spooled body.
    assert response.replace(status=200).streamed is response.streamed
    response.streamed.remove()
    assert list((tmp_path / "spool").rglob("*.body")) == []
    spool.close()
    assert list((tmp_path / "spool").iterdir()) == []


def test_the_replay_index_reads_a_payload_not_held_for_callers_that_want_the_body(tmp_path):
    warc = tmp_path / "aws.warc.gz"
    archive(warc, spooled(tmp_path, BODY))
    index = ReplayIndex(responses={normalize_url(URL): read_file(warc, hold_bytes=0)})
    # A streamed request copies it out itself; any other caller (a browser page) gets the body.
    assert index.next_response(URL, held=False).payload.size == len(BODY)
    served = index.next_response(URL)
    assert served.body == BODY and served.payload is None
