"""`tabmcp native-host` as Chrome runs it (a process with framed stdin/stdout, the origin as argv[1])
against the real Bridge listening on a Unix socket: relay, origin forwarding, server absent then
present, refusals, chunking of big server frames, and exit when Chrome closes stdin."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import stat
import struct
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tabmcp import pairing
from tabmcp import protocol as p
from tabmcp.drivers.extension.bridge import Bridge, LinkLost, LinkUp
from tabmcp.native import framing

WAIT = 15.0  # a Python process starting on a busy machine; never reached when things work
TOKEN = "unit-test-pairing-token-0123456789"
ORIGIN = f"{pairing.extension_origin(pairing.EXTENSION_ID)}/"  # as Chrome passes it
HELLO = {
    "type": "hello",
    "extension": {"version": "0.1.0"},
    "browser": {"name": "Chromium", "version": "156.0"},
    "token": TOKEN,
    "instance": "browser-1",
}


class Host:
    """The host process, spoken to as Chrome does."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc

    @classmethod
    async def start(cls, socket: Path, origin: str | None = ORIGIN) -> Host:
        args = [sys.executable, "-m", "tabmcp", "native-host", *([origin] if origin else []), "--socket", str(socket)]
        proc = await asyncio.create_subprocess_exec(
            *args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            env={**os.environ, "TABMCP_LOG_LEVEL": "DEBUG"},
        )
        return cls(proc)

    async def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(framing.frame(json.dumps(message).encode()))
        await self.proc.stdin.drain()

    async def recv(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        header = await asyncio.wait_for(self.proc.stdout.readexactly(4), WAIT)
        (length,) = struct.unpack("<I", header)
        assert length <= framing.HOST_TO_CHROME_MAX
        return json.loads(await asyncio.wait_for(self.proc.stdout.readexactly(length), WAIT))

    async def exit_code(self) -> int:
        return await asyncio.wait_for(self.proc.wait(), WAIT)

    async def close(self) -> None:
        if self.proc.returncode is None:
            self.proc.kill()
            await self.proc.wait()


@pytest.fixture
def socket(tmp_path: Path) -> Path:
    return tmp_path / "tabmcp" / "bridge.sock"


@pytest.fixture
async def bridge(socket: Path) -> AsyncIterator[Bridge]:
    bridge = Bridge(port=0, request_timeout=10.0, token=TOKEN, native_socket=socket)
    await bridge.start()
    assert bridge.start_error is None and bridge.native_error is None
    yield bridge
    await bridge.stop()


async def next_event(bridge: Bridge) -> object:
    return await asyncio.wait_for(bridge.events.get(), WAIT)


async def linked_host(bridge: Bridge, socket: Path) -> Host:
    host = await Host.start(socket)
    assert await host.recv() == {"type": "nativeStatus", "state": "open"}
    await host.send(HELLO)
    await host.send({"type": "ping"})
    assert (await host.recv())["type"] == "pong"  # answered only after the hello was accepted
    assert isinstance(await next_event(bridge), LinkUp)
    return host


async def test_the_socket_is_private(bridge: Bridge, socket: Path) -> None:
    assert stat.S_ISSOCK(socket.stat().st_mode)
    assert stat.S_IMODE(socket.stat().st_mode) == 0o600
    assert stat.S_IMODE(socket.parent.stat().st_mode) == 0o700


async def test_requests_and_answers_go_through_and_stdin_eof_ends_the_link(bridge: Bridge, socket: Path) -> None:
    host = await linked_host(bridge, socket)
    try:
        request = asyncio.create_task(bridge.request(p.Connect()))
        asked = await host.recv()
        assert asked["type"] == "connect"
        await host.send({"type": "connected", "id": asked["id"], "browser": HELLO["browser"], "tabs": []})
        reply = await asyncio.wait_for(request, WAIT)
        assert isinstance(reply, p.Connected)
        assert bridge.hello is not None and bridge.hello.instance == "browser-1"

        assert host.proc.stdin is not None
        host.proc.stdin.close()  # Chrome closes the port
        assert await host.exit_code() == 0
        assert isinstance(await next_event(bridge), LinkLost)
        assert not bridge.linked
    finally:
        await host.close()


async def test_a_server_frame_over_one_mib_arrives_in_chunks(bridge: Bridge, socket: Path) -> None:
    host = await linked_host(bridge, socket)
    try:
        expression = "'" + "é" * 700_000 + "'"  # 1.4 MB of UTF-8
        cdp = p.Cdp(tabId=1, method="Runtime.evaluate", params={"expression": expression})
        request = asyncio.create_task(bridge.request(cdp))
        first = await host.recv()
        assert first["type"] == "nativeChunk" and first["part"] == 0 and first["parts"] > 1
        parts = [first] + [await host.recv() for _ in range(first["parts"] - 1)]
        frame = json.loads(b"".join(base64.b64decode(c["data"]) for c in parts).decode("utf-8"))
        assert frame["type"] == "cdp" and frame["params"]["expression"] == expression
        # the other way has no 1 MiB limit: a 2 MB answer goes through whole
        await host.send({"type": "result", "id": frame["id"], "data": {"value": "x" * 2_000_000}})
        reply = await asyncio.wait_for(request, WAIT)
        assert isinstance(reply, p.Result) and len(reply.data["value"]) == 2_000_000
    finally:
        await host.close()


async def test_no_server_yet_is_reported_then_linked_when_it_starts(socket: Path) -> None:
    host = await Host.start(socket)
    bridge = Bridge(port=0, token=TOKEN, native_socket=socket)
    try:
        waiting = await host.recv()
        assert waiting["type"] == "nativeStatus" and waiting["state"] == "serverNotFound"
        assert str(socket) in waiting["message"] and "tabmcp serve" in waiting["message"]
        await bridge.start()
        assert await host.recv() == {"type": "nativeStatus", "state": "open"}
        await host.send(HELLO)
        assert isinstance(await next_event(bridge), LinkUp)
    finally:
        await host.close()
        await bridge.stop()


async def test_chrome_leaving_while_no_server_ends_the_host(socket: Path) -> None:
    host = await Host.start(socket)
    try:
        assert (await host.recv())["state"] == "serverNotFound"
        assert host.proc.stdin is not None
        host.proc.stdin.close()
        assert await host.exit_code() == 0
    finally:
        await host.close()


async def test_a_refusal_reaches_the_extension_with_its_code(bridge: Bridge, socket: Path) -> None:
    host = await Host.start(socket)
    try:
        assert (await host.recv())["state"] == "open"
        await host.send({**HELLO, "token": "wrong-token-wrong-token"})
        closed = await host.recv()
        assert closed["type"] == "nativeStatus" and closed["state"] == "closed"
        assert closed["code"] == 4001 and "wrong pairing token" in closed["reason"]
        assert await host.exit_code() == 0
        assert not bridge.linked
    finally:
        await host.close()


async def test_before_hello_the_local_socket_reads_small_frames_only(bridge: Bridge, socket: Path) -> None:
    host = await Host.start(socket)
    try:
        assert (await host.recv())["state"] == "open"
        await host.send({**HELLO, "padding": "x" * (64 * 1024)})  # the hello limit holds here too
        closed = await host.recv()
        assert closed["type"] == "nativeStatus" and closed["state"] == "closed" and closed["code"] == 1009
        assert not bridge.linked
    finally:
        await host.close()


async def test_the_caller_origin_is_what_the_bridge_checks(bridge: Bridge, socket: Path) -> None:
    host = await Host.start(socket, origin="chrome-extension://abcdefghijklmnopabcdefghijklmnop/")
    try:
        assert (await host.recv())["state"] == "open"
        closed = await host.recv()  # refused before any hello: the origin is not allowed
        assert closed["state"] == "closed" and closed["code"] == 4003 and "origin not allowed" in closed["reason"]
        assert await host.exit_code() == 0
    finally:
        await host.close()


async def test_started_without_an_origin_it_explains_and_exits(socket: Path) -> None:
    host = await Host.start(socket, origin=None)
    try:
        closed = await host.recv()
        assert closed["state"] == "closed" and "caller origin" in closed["reason"]
        assert await host.exit_code() == 2
    finally:
        await host.close()


async def test_a_second_server_finds_the_socket_busy_and_a_dead_ones_socket_is_replaced(socket: Path) -> None:
    first = Bridge(port=0, token=TOKEN, native_socket=socket)
    second = Bridge(port=0, token=TOKEN, native_socket=socket)
    await first.start()
    try:
        await second.start()
        assert second.native_error is not None and "another tabmcp server" in second.native_error
        assert second.start_error is None  # its TCP bridge is up: it still serves
        assert socket.is_socket()  # the first one's socket was left alone
    finally:
        await second.stop()
        await first.stop()
    assert not socket.exists()  # a stopped server leaves no socket behind
    # a crashed server's socket file (no lock held) is replaced
    import socket as sockets

    stale = sockets.socket(sockets.AF_UNIX)
    stale.bind(str(socket))
    stale.close()
    third = Bridge(port=0, token=TOKEN, native_socket=socket)
    await third.start()
    try:
        assert third.native_error is None
        host = await Host.start(socket)
        try:
            assert (await host.recv())["state"] == "open"
        finally:
            await host.close()
    finally:
        await third.stop()


async def test_tcp_blocked_but_native_up_is_not_a_start_error(socket: Path) -> None:
    first = Bridge(port=0, token=TOKEN)
    await first.start()
    bridge = Bridge(port=first.port, token=TOKEN, native_socket=socket)
    try:
        await bridge.start()
        assert bridge.tcp_error is not None and str(first.port) in bridge.tcp_error
        assert bridge.start_error is None  # the native socket serves
        other = Bridge(port=first.port, token=TOKEN, native_socket=socket)
        await other.start()  # neither door: now it is an error, naming both
        assert other.start_error is not None
        assert str(first.port) in other.start_error and "another tabmcp server" in other.start_error
        await other.stop()
    finally:
        await bridge.stop()
        await first.stop()
