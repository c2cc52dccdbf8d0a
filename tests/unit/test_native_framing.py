"""Chrome's native messaging framing, both directions, and the chunks over its 1 MiB limit (pure)."""

from __future__ import annotations

import base64
import json
import struct

import pytest

from tabmcp.native import framing


def unframe(data: bytes) -> list[dict[str, object]]:
    reader = framing.FrameReader()
    messages = [json.loads(m) for m in reader.feed(data)]
    assert reader.pending == 0
    return messages


def test_a_frame_is_a_little_endian_length_then_the_payload() -> None:
    framed = framing.frame(b'{"type":"ping"}')
    assert framed[:4] == struct.pack("<I", 15)
    assert framed[4:] == b'{"type":"ping"}'


def test_reader_splits_a_stream_whatever_the_read_sizes() -> None:
    messages = [json.dumps({"type": "hello", "n": i, "text": "é" * i}).encode() for i in range(5)]
    stream = b"".join(framing.frame(m) for m in messages)
    for step in (1, 3, 4, 7, len(stream)):
        reader = framing.FrameReader()
        got = []
        for start in range(0, len(stream), step):
            got += reader.feed(stream[start : start + step])
        assert got == messages, step
        assert reader.pending == 0


def test_reader_holds_a_partial_message_until_it_is_whole() -> None:
    reader = framing.FrameReader()
    framed = framing.frame(b'{"a":1}')
    assert reader.feed(framed[:2]) == []  # half a header
    assert reader.feed(framed[2:6]) == []  # header and part of the payload
    assert reader.pending == 6
    assert reader.feed(framed[6:]) == [b'{"a":1}']
    assert reader.pending == 0


def test_reader_refuses_an_announced_length_over_its_limit() -> None:
    reader = framing.FrameReader(max_bytes=100)
    assert reader.feed(framing.frame(b"x" * 100)) == [b"x" * 100]  # the limit itself is fine
    with pytest.raises(framing.FrameTooLarge, match="101 bytes"):
        reader.feed(struct.pack("<I", 101))


def test_a_frame_that_fits_goes_to_the_extension_as_it_is() -> None:
    text = json.dumps({"type": "snapshot", "id": "r1", "tabId": 1})
    assert framing.to_extension(text) == [framing.frame(text.encode())]


def test_a_frame_over_chromes_limit_is_chunked_and_joins_back() -> None:
    # non-ASCII and characters JSON escapes: the chunks slice bytes, so nothing is split or inflated unseen
    text = json.dumps({"type": "evaluate", "id": "r9", "tabId": 3, "expression": ('"é\\\n' * 400_000)})
    assert len(text.encode()) > framing.HOST_TO_CHROME_MAX
    framed = framing.to_extension(text)
    assert len(framed) > 1
    assert all(len(f) <= framing.HOST_TO_CHROME_MAX for f in framed)
    envelopes = unframe(b"".join(framed))
    assert [e["type"] for e in envelopes] == [framing.CHUNK] * len(framed)
    assert [e["part"] for e in envelopes] == list(range(len(framed)))
    assert {e["parts"] for e in envelopes} == {len(framed)}
    joined = b"".join(base64.b64decode(str(e["data"])) for e in envelopes)
    assert joined.decode("utf-8") == text


def test_the_limit_counts_the_header() -> None:
    fits = "x" * (100 - 4)
    assert len(framing.to_extension(fits, limit=100, chunk_bytes=10)) == 1
    assert len(framing.to_extension(fits + "x", limit=100, chunk_bytes=10)) == 10  # 97 bytes in 10-byte slices


def test_a_chunk_size_that_cannot_fit_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="lower chunk_bytes"):
        framing.to_extension("x" * 500, limit=200, chunk_bytes=300)


def test_status_messages() -> None:
    assert unframe(framing.status("closed", code=4001, reason="wrong pairing token")) == [
        {"type": "nativeStatus", "state": "closed", "code": 4001, "reason": "wrong pairing token"}
    ]
