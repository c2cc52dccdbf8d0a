"""Malformed JSON-RPC, as a broken or hostile client sends it, over raw stdio and raw HTTP: every
message with an id gets its error reply (never silence), and the server keeps serving after each."""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2

from tabmcp.demo.client import tabmcp_command
from tests.integration.conftest import PAIRING_TOKEN, free_port
from tests.integration.http_harness import HttpServer

REPLY_S = 30.0  # a bound on waiting, not a speed target: each reply comes at once on a healthy server
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}},
}
LIST_TOOLS = {"jsonrpc": "2.0", "id": 99, "method": "tools/list"}
# line sent -> (code, id) of the error reply it must get
MALFORMED: list[tuple[str, int, Any]] = [
    ('{"jsonrpc": "1.0", "id": 1, "method": "tools/list"}', -32600, 1),
    ('{"id": 2, "method": "tools/list"}', -32600, 2),
    ('{"jsonrpc": 2, "id": 3, "method": "tools/list"}', -32600, 3),
    ('{"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": "x"}', -32600, 4),
    ('{"jsonrpc": "2.0", "id": {"a": 1}, "method": "tools/list"}', -32600, None),
    ('{"jsonrpc": "2.0", "id": null, "method": "tools/list"}', -32600, None),
    ('{"jsonrpc": "2.0", "id": 1.5, "method": "tools/list"}', -32600, None),
    ('[{"jsonrpc": "2.0", "id": 6, "method": "tools/list"}]', -32600, None),
    ('{"jsonrpc": "2.0", "method": 5}', -32600, None),
    ("garbage", -32700, None),
    ('{"jsonrpc": "2.0", "id": 8, "meth', -32700, None),
]


class RawStdio:
    """`tabmcp serve` over stdio with a test writing and reading the lines itself."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc

    async def send(self, line: str | dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        text = line if isinstance(line, str) else json.dumps(line)
        self.proc.stdin.write(text.encode() + b"\n")
        await self.proc.stdin.drain()

    async def reply(self) -> str:
        assert self.proc.stdout is not None
        line = await asyncio.wait_for(self.proc.stdout.readline(), REPLY_S)
        assert line, "the server closed stdout"
        return line.decode()


@asynccontextmanager
async def raw_stdio(errlog: Any) -> AsyncIterator[RawStdio]:
    command, prefix = tabmcp_command()
    with tempfile.TemporaryDirectory(prefix="tabmcp-raw-") as config:
        env = {
            **os.environ,
            "TABMCP_CONFIG_DIR": config,
            "TABMCP_PAIRING_TOKEN": PAIRING_TOKEN,
            "TABMCP_WS_PORT": str(free_port()),
            "TABMCP_NATIVE_BRIDGE": "false",
        }
        proc = await asyncio.create_subprocess_exec(
            command,
            *prefix,
            "serve",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=errlog,
            env=env,
            limit=2**28,  # a reply as large as a big input must be read, to be measured
        )
        try:
            client = RawStdio(proc)
            await client.send(INITIALIZE)
            assert json.loads(await client.reply())["id"] == 0
            await client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            yield client
        finally:
            if proc.returncode is None:
                proc.terminate()
                await asyncio.wait_for(proc.wait(), 15)


async def test_every_malformed_line_gets_its_error_and_the_server_keeps_serving(server_log: object) -> None:
    async with raw_stdio(server_log) as client:
        for line, code, request_id in MALFORMED:
            await client.send(line)
            reply = json.loads(await client.reply())
            assert reply["jsonrpc"] == "2.0" and "result" not in reply, line
            assert (reply["error"]["code"], reply["id"]) == (code, request_id), line
            await client.send(LIST_TOOLS)  # and the next good request is answered
            assert [t["name"] for t in json.loads(await client.reply())["result"]["tools"]] == ["connect_browser"]


async def test_the_errors_say_what_is_wrong(server_log: object) -> None:
    async with raw_stdio(server_log) as client:
        messages = []
        for line in ('[{"jsonrpc": "2.0", "id": 6, "method": "tools/list"}]', MALFORMED[0][0], MALFORMED[3][0]):
            await client.send(line)
            messages.append(json.loads(await client.reply())["error"]["message"])
    assert "batch" in messages[0]
    assert '"jsonrpc" must be "2.0"' in messages[1] and '"1.0"' in messages[1]
    assert '"params" must be an object' in messages[2]


async def test_a_huge_unknown_tool_name_gets_a_short_answer(server_log: object) -> None:
    name = "x" * (20 * 2**20)  # past the 16 MiB frame limit
    async with raw_stdio(server_log) as client:
        await client.send({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": name}})
        reply = await client.reply()
        await client.send(LIST_TOOLS)
        assert json.loads(await client.reply())["id"] == 99
    assert len(reply) < 2_000
    answer = json.loads(reply)["result"]
    assert answer["isError"] and "Unknown tool" in answer["structuredContent"]["error"]
    assert f"({len(name):,} characters)" in answer["structuredContent"]["error"]


async def test_a_huge_method_name_gets_a_short_method_not_found(server_log: object) -> None:
    async with raw_stdio(server_log) as client:
        await client.send({"jsonrpc": "2.0", "id": 6, "method": "m" * 2**20})
        reply = await client.reply()
    assert len(reply) < 2_000
    assert json.loads(reply)["error"]["code"] == -32601 and json.loads(reply)["id"] == 6


HTTP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


async def test_malformed_http_bodies_get_400_and_their_json_rpc_error(server_log: object) -> None:
    async with HttpServer(server_log) as server, httpx2.AsyncClient(timeout=REPLY_S) as http:  # type: ignore[arg-type]
        opened = await http.post(server.url, json=INITIALIZE, headers=HTTP_HEADERS)
        session = {
            **HTTP_HEADERS,
            "mcp-session-id": opened.headers["mcp-session-id"],
            "mcp-protocol-version": "2025-11-25",
        }
        for headers in (HTTP_HEADERS, session):  # before a session exists, and inside one
            for line, code, request_id in MALFORMED:
                answer = await http.post(server.url, content=line, headers=headers)
                assert answer.status_code == 400, line
                assert answer.json()["error"]["code"] == code and answer.json()["id"] == request_id, line
        listed = await http.post(server.url, json=LIST_TOOLS, headers=session)
    assert listed.status_code == 200 and '"connect_browser"' in listed.text
