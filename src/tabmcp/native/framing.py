"""Chrome's native messaging framing, and the envelopes the host adds for the extension. Pure.

Each message is UTF-8 JSON preceded by its length as a 32-bit unsigned integer in native byte
order (little-endian on every platform Chrome runs on). Chrome refuses a message over 1 MiB from
the host (it closes the port), while the extension may send up to 64 MiB. So a server frame bigger
than that is cut into ``nativeChunk`` envelopes that the extension's native transport joins again;
the bridge protocol itself never sees them.
"""

from __future__ import annotations

import base64
import json
import struct
from typing import Any

HEADER = struct.Struct("<I")
HOST_TO_CHROME_MAX = 1024 * 1024  # Chrome's kMaximumNativeMessageSize: larger ones close the port
CHROME_TO_HOST_MAX = 64 * 1024 * 1024  # the most Chrome sends the host in one message
CHUNK_BYTES = 512 * 1024  # raw bytes per chunk: base64 (x4/3) plus the envelope stays well under 1 MiB
CHUNK = "nativeChunk"
STATUS = "nativeStatus"


class FrameTooLarge(ValueError):
    """A length prefix over the limit: the stream cannot be trusted past it, so the host stops."""


def frame(payload: bytes) -> bytes:
    """``payload`` with its length prefix."""
    return HEADER.pack(len(payload)) + payload


class FrameReader:
    """Splits a byte stream into message payloads, whatever sizes the reads come in."""

    def __init__(self, max_bytes: int = CHROME_TO_HOST_MAX) -> None:
        self.max_bytes = max_bytes
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[bytes]:
        """The messages ``data`` completed (none while a message is still partial)."""
        self._buffer += data
        messages: list[bytes] = []
        while len(self._buffer) >= HEADER.size:
            (length,) = HEADER.unpack_from(self._buffer)
            if length > self.max_bytes:
                raise FrameTooLarge(f"a message of {length} bytes announced; the limit is {self.max_bytes}")
            end = HEADER.size + length
            if len(self._buffer) < end:
                break
            messages.append(bytes(self._buffer[HEADER.size : end]))
            del self._buffer[:end]
        return messages

    @property
    def pending(self) -> int:
        """Bytes of an incomplete message held (a stream that ends here ended mid-message)."""
        return len(self._buffer)


def to_extension(text: str, limit: int = HOST_TO_CHROME_MAX, chunk_bytes: int = CHUNK_BYTES) -> list[bytes]:
    """The framed messages that carry one server frame (JSON text) to the extension.

    A frame that fits goes as it is; a bigger one as ``nativeChunk`` envelopes of base64 slices of
    its UTF-8 bytes (base64, so each envelope's size is known in advance whatever the text holds).
    """
    data = text.encode("utf-8")
    if HEADER.size + len(data) <= limit:
        return [frame(data)]
    parts = [data[i : i + chunk_bytes] for i in range(0, len(data), chunk_bytes)]
    framed = []
    for index, part in enumerate(parts):
        envelope = {"type": CHUNK, "part": index, "parts": len(parts), "data": base64.b64encode(part).decode("ascii")}
        payload = json.dumps(envelope, separators=(",", ":")).encode("ascii")
        if HEADER.size + len(payload) > limit:
            raise ValueError(f"chunk of {len(payload)} bytes over the {limit}-byte limit: lower chunk_bytes")
        framed.append(frame(payload))
    return framed


def status(state: str, **fields: Any) -> bytes:
    """A framed ``nativeStatus`` message: what the host tells the extension about its server link."""
    return frame(json.dumps({"type": STATUS, "state": state, **fields}, separators=(",", ":")).encode("utf-8"))
