"""The stdio transport: lines read and replies written by the event loop on pipes, the SDK's own
files on anything else; stray output on fd 1 never reaches the wire, and a malformed line is answered."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

from tabmcp.jsonrpc_check import MAX_MESSAGE_BYTES, TooLarge, too_large
from tabmcp.stdio_transport import READ_CHUNK, PipeLines

# A server that echoes each message it reads; it prints to stdout first (what a careless library does).
ECHO_SERVER = """
import anyio
from tabmcp.stdio_transport import checked_stdio_server

async def main():
    async with checked_stdio_server() as (read, write):
        print("stray output", flush=True)
        async with write:
            async for message in read:
                await write.send(message)

anyio.run(main)
"""

PING = {"jsonrpc": "2.0", "id": 7, "method": "ping"}


async def lines_of(chunks: list[bytes]) -> list[str]:
    reader = asyncio.StreamReader()
    for chunk in chunks:
        reader.feed_data(chunk)
    reader.feed_eof()
    return [line async for line in PipeLines(reader)]


def test_pipe_lines_are_split_across_reads_and_decoded_as_the_sdk_decodes_them() -> None:
    long = "x" * (READ_CHUNK * 2 + 5)  # longer than one read
    chunks = [b'{"a":', b' 1}\n{"b": "', long.encode() + b'"}\n', b"caf\xc3", b"\xa9 \xff\n", b"last"]
    lines = asyncio.run(lines_of(chunks))
    assert lines == ['{"a": 1}\n', f'{{"b": "{long}"}}\n', "café \ufffd\n", "last"]


def run_echo(stdin: int | None, text: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-c", ECHO_SERVER],
        input=text.encode() if stdin is None else None,
        stdin=stdin,
        capture_output=True,
        timeout=60,
        check=True,
    )


def test_over_pipes_replies_reach_stdout_and_stray_output_goes_to_stderr() -> None:
    done = run_echo(None, json.dumps(PING) + "\nnot json\n")
    replies = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert replies[0] == PING
    assert replies[1]["error"]["code"] == -32700 and replies[1]["id"] is None
    assert len(replies) == 2
    assert b"stray output" in done.stderr


def test_a_regular_file_as_stdin_is_read_as_the_sdk_reads_it(tmp_path: Path) -> None:
    messages = tmp_path / "in.jsonl"
    messages.write_text(json.dumps(PING) + "\n")
    with messages.open("rb") as source:
        done = run_echo(source.fileno(), "")
    assert [json.loads(line) for line in done.stdout.decode().splitlines()] == [PING]
    assert b"stray output" in done.stderr


def test_a_line_over_the_limit_is_dropped_as_it_arrives_and_the_next_one_is_read() -> None:
    async def lines(chunks: list[bytes]) -> list[object]:
        reader = asyncio.StreamReader()
        for chunk in chunks:
            reader.feed_data(chunk)
        reader.feed_eof()
        return [line async for line in PipeLines(reader, max_bytes=64)]

    head = b'{"jsonrpc": "2.0", "id": 9, "params": {"text": "'
    big = [head, b"x" * 40, b"y" * 40 + b'"}}\n{"ok": 1}\n', b"z" * 100, b"\nlast"]
    first, *rest = asyncio.run(lines(big))
    assert isinstance(first, TooLarge) and first.head.startswith(head)
    assert rest == ['{"ok": 1}\n', TooLarge(b"z" * 100), "last"]
    exact = b"a" * 64  # at the limit: read
    assert asyncio.run(lines([exact + b"\n" + b"b" * 65 + b"\n" + exact])) == [
        exact.decode() + "\n", TooLarge(b"b" * 65), exact.decode()
    ]


def test_a_message_over_the_limit_is_answered_with_its_id_and_the_server_reads_on() -> None:
    big = '{"jsonrpc": "2.0", "id": 41, "method": "ping", "params": {"pad": "' + "x" * (MAX_MESSAGE_BYTES + 1) + '"}}'
    done = run_echo(None, big + "\n" + json.dumps(PING) + "\n")
    replies = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert replies[0]["id"] == 41 and replies[0]["error"]["code"] == -32600
    assert f"over {MAX_MESSAGE_BYTES // 2**20} MiB" in replies[0]["error"]["message"]
    assert replies[1:] == [PING]


def test_the_id_of_a_message_too_large_is_read_only_at_its_top_level() -> None:
    assert too_large(b'{"jsonrpc": "2.0", "id": "a\\"b", "params": {"x').id == 'a"b'
    assert too_large(b'{"jsonrpc": "2.0", "params": {"id": 3}, "id": 5').id is None  # nested first: unknown
    assert too_large(b"not json at all").id is None
