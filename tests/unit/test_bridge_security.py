"""Who may link to the bridge, and what a linked socket may send: a real Bridge, a real WebSocket
client per case. After every refusal or cut-off, a correctly paired extension still links and a
request round-trips: one bad connection never takes the bridge down."""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import logging
import os
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed
from websockets.typing import Origin

import tabmcp
from tabmcp import pairing
from tabmcp import protocol as p
from tabmcp.drivers.base import DriverError
from tabmcp.drivers.extension.bridge import (
    BUSY,
    IDENTITY,
    MAX_REASON_BYTES,
    NO_ORIGIN,
    REFUSAL_LOG_BURST,
    TOKEN_MISSING,
    TOKEN_WRONG,
    TOO_MANY,
    TOO_MANY_WAITING,
    Bridge,
    LinkLost,
    LinkUp,
    close_reason,
    is_loopback,
)
from tabmcp.record import SessionRecorder
from tabmcp.tokenbucket import TokenBucket

WAIT = 3.0  # upper bound for anything that should happen "at once"
TOKEN = "security-test-token-abcdefghijklmnop"
OWN_ORIGIN = Origin(pairing.extension_origin(pairing.EXTENSION_ID))
OTHER_ID = "abcdefghijklmnopabcdefghijklmnop"


BRIDGE_LOGGER = "tabmcp.drivers.extension.bridge"
def hello(token: str | None = TOKEN, instance: str | None = "browser-a") -> dict[str, Any]:
    frame: dict[str, Any] = {"type": "hello", "extension": {"version": "0.1.0"}, "browser": {"name": "Chromium"}}
    if token is not None:
        frame["token"] = token
    if instance is not None:
        frame["instance"] = instance
    return frame


class FakeClock:
    """The flood budget's clock, moved by hand: no test depends on how fast the machine is."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def bridge(clock: FakeClock) -> AsyncIterator[Bridge]:
    bridge = Bridge(
        port=0,
        request_timeout=5.0,
        token=TOKEN,
        extension_ids=[OTHER_ID],
        max_frame_bytes=64 * 1024,
        max_frames_per_second=5,  # burst: 10 frames
        hello_timeout=0.5,
        clock=clock,
    )
    await bridge.start()
    assert bridge.start_error is None
    yield bridge
    await bridge.stop()


def extension(bridge: Bridge, origin: str | None = OWN_ORIGIN) -> connect:
    return connect(bridge.url, origin=Origin(origin) if origin else None)


async def send(ws: ClientConnection, frame: dict[str, Any] | str) -> None:
    await ws.send(frame if isinstance(frame, str) else json.dumps(frame))


async def recv(ws: ClientConnection) -> dict[str, Any]:
    return json.loads(await asyncio.wait_for(ws.recv(), WAIT))


async def closed_with(ws: ClientConnection) -> tuple[int, str]:
    """The close code and reason the server sent (reading until the socket closes)."""
    with pytest.raises(ConnectionClosed) as info:
        while True:
            await asyncio.wait_for(ws.recv(), WAIT)
    assert info.value.rcvd is not None, "the server closed without a close frame"
    return info.value.rcvd.code, info.value.rcvd.reason


async def link(bridge: Bridge, ws: ClientConnection, instance: str = "browser-a") -> None:
    await send(ws, hello(instance=instance))
    event = await asyncio.wait_for(bridge.events.get(), WAIT)
    assert isinstance(event, LinkUp)


async def round_trip(bridge: Bridge, ws: ClientConnection) -> None:
    """The bridge asks, the extension answers, the answer reaches the caller."""
    pending = asyncio.create_task(bridge.request(p.FocusTab(tabId=3)))
    frame = await recv(ws)
    assert frame["type"] == "focusTab"
    await send(ws, {"type": "result", "id": frame["id"], "data": {"tabId": 3}})
    reply = await asyncio.wait_for(pending, WAIT)
    assert isinstance(reply, p.Result) and reply.data == {"tabId": 3}


async def a_paired_extension_still_links(bridge: Bridge, instance: str = "browser-b") -> None:
    assert not bridge.linked
    async with extension(bridge) as ws:
        await link(bridge, ws, instance)
        await round_trip(bridge, ws)
    assert isinstance(await asyncio.wait_for(bridge.events.get(), WAIT), LinkLost)


def refusals(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING and r.name == BRIDGE_LOGGER]


# ----------------------------------------------------------------- pairing


async def test_a_wrong_token_is_refused_with_what_to_do(bridge: Bridge, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    async with extension(bridge) as ws:
        await send(ws, hello(token="not-the-token-but-long-enough"))
        code, reason = await closed_with(ws)
    assert (code, reason) == (4001, TOKEN_WRONG)
    assert "tabmcp token" in reason and "options" in reason
    assert not bridge.linked and bridge.events.empty()
    assert any("wrong pairing token" in m for m in refusals(caplog))
    assert "not-the-token" not in caplog.text and TOKEN not in caplog.text  # no token is ever logged
    assert bridge.last_refusal == TOKEN_WRONG  # what connect_browser can tell the user
    await a_paired_extension_still_links(bridge)
    assert bridge.last_refusal is None


async def test_a_hello_without_a_token_is_refused(bridge: Bridge, caplog: pytest.LogCaptureFixture) -> None:
    async with extension(bridge) as ws:
        await send(ws, hello(token=None))
        assert await closed_with(ws) == (4001, TOKEN_MISSING)
    assert any("pairing token missing" in m for m in refusals(caplog))
    await a_paired_extension_still_links(bridge)


async def test_an_empty_token_counts_as_missing(bridge: Bridge) -> None:
    async with extension(bridge) as ws:
        await send(ws, hello(token=""))
        assert await closed_with(ws) == (4001, TOKEN_MISSING)
    await a_paired_extension_still_links(bridge)


async def test_a_token_that_only_starts_right_is_wrong(bridge: Bridge) -> None:
    async with extension(bridge) as ws:
        await send(ws, hello(token=TOKEN + "x"))
        assert await closed_with(ws) == (4001, TOKEN_WRONG)
    await a_paired_extension_still_links(bridge)


# ----------------------------------------------------------------- origin


@pytest.mark.parametrize(
    "origin",
    ["https://evil.example", "chrome-extension://zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", "null"],
)
async def test_a_foreign_origin_is_refused_even_with_the_token(
    bridge: Bridge, origin: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with extension(bridge, origin) as ws:
        with contextlib.suppress(ConnectionClosed):  # the server may have closed already
            await send(ws, hello())  # right token, wrong origin: refused all the same
        code, reason = await closed_with(ws)
    assert code == 4003
    assert reason.startswith("origin not allowed") and origin in reason and "--extension-id" in reason
    assert any("origin not allowed" in m for m in refusals(caplog))
    assert bridge.events.empty()
    await a_paired_extension_still_links(bridge)


async def test_no_origin_is_refused(bridge: Bridge) -> None:
    async with extension(bridge, origin=None) as ws:
        assert await closed_with(ws) == (4003, NO_ORIGIN)
    await a_paired_extension_still_links(bridge)


async def test_a_configured_extension_id_is_allowed(bridge: Bridge) -> None:
    async with extension(bridge, pairing.extension_origin(OTHER_ID)) as ws:
        await link(bridge, ws)
        await round_trip(bridge, ws)


async def test_a_very_long_origin_still_gives_a_valid_close_reason(bridge: Bridge) -> None:
    async with extension(bridge, "https://" + "é" * 300 + ".example") as ws:
        code, reason = await closed_with(ws)
    assert code == 4003 and len(reason.encode()) <= MAX_REASON_BYTES
    await a_paired_extension_still_links(bridge)


# ----------------------------------------------------------------- hello first


async def test_a_frame_before_hello_is_refused(bridge: Bridge) -> None:
    async with extension(bridge) as ws:
        await send(ws, {"type": "tabClosed", "tabId": 1})
        code, reason = await closed_with(ws)
    assert code == 1008 and "first frame must be hello" in reason and "tabClosed" in reason
    assert bridge.events.empty()  # the frame never reached the runtime
    await a_paired_extension_still_links(bridge)


async def test_malformed_json_before_hello_is_refused(bridge: Bridge) -> None:
    async with extension(bridge) as ws:
        await send(ws, '{"type": "hello", "token": ')
        code, reason = await closed_with(ws)
    assert code == 1008 and "first frame must be hello" in reason and "not valid JSON" in reason
    await a_paired_extension_still_links(bridge)


async def test_no_hello_in_time_is_refused(bridge: Bridge) -> None:
    async with extension(bridge) as ws:
        assert await closed_with(ws) == (1008, "no hello within 0.5 s")
    await a_paired_extension_still_links(bridge)


async def test_the_token_stops_at_the_bridge(clock: FakeClock, tmp_path: Path) -> None:
    """Neither the runtime's LinkUp nor a session recording ever holds the pairing token."""
    recording = tmp_path / "session.jsonl"
    recorder = SessionRecorder(recording)
    bridge = Bridge(port=0, token=TOKEN, recorder=recorder, clock=clock)
    await bridge.start()
    try:
        async with extension(bridge) as ws:
            await send(ws, hello())
            up = await asyncio.wait_for(bridge.events.get(), WAIT)
            assert isinstance(up, LinkUp) and up.hello.token is None and up.hello.instance == "browser-a"
            assert bridge.hello is not None and bridge.hello.token is None
    finally:
        await bridge.stop()
        recorder.close()
    recorded = recording.read_text()
    assert '"hello"' in recorded and TOKEN not in recorded


# ----------------------------------------------------------------- a second extension


async def test_another_browser_is_refused_and_the_link_is_unaffected(
    bridge: Bridge, caplog: pytest.LogCaptureFixture
) -> None:
    async with extension(bridge) as first:
        await link(bridge, first, "browser-a")
        pending = asyncio.create_task(bridge.request(p.FocusTab(tabId=3)))
        asked = await recv(first)
        async with extension(bridge) as second:
            await send(second, hello(instance="browser-b"))
            assert await closed_with(second) == (4009, BUSY)
        assert any("another browser is already linked" in m for m in refusals(caplog))
        # the current link did not notice: still linked, its pending request is answered
        assert bridge.linked and bridge.events.empty()
        await send(first, {"type": "result", "id": asked["id"], "data": {"tabId": 3}})
        assert isinstance(await asyncio.wait_for(pending, WAIT), p.Result)
        await round_trip(bridge, first)
    assert isinstance(await asyncio.wait_for(bridge.events.get(), WAIT), LinkLost)
    await a_paired_extension_still_links(bridge)  # once the first browser is gone, another may link


async def test_an_extension_without_an_instance_id_cannot_replace_the_link(bridge: Bridge) -> None:
    async with extension(bridge) as first:
        await link(bridge, first, "browser-a")
        async with extension(bridge) as second:
            await send(second, hello(instance=None))
            assert (await closed_with(second))[0] == 4009
        await round_trip(bridge, first)


async def test_the_same_browser_reconnecting_replaces_its_old_socket(bridge: Bridge) -> None:
    first = await extension(bridge)
    await link(bridge, first, "browser-a")
    pending = asyncio.create_task(bridge.request(p.Connect(), timeout=30))
    await recv(first)
    async with extension(bridge) as second:
        await send(second, hello(instance="browser-a"))
        with pytest.raises(DriverError) as info:
            await asyncio.wait_for(pending, WAIT)
        assert info.value.code == p.ErrorCode.DISCONNECTED and "reconnected" in info.value.message
        assert (await closed_with(first))[0] == 4000
        assert isinstance(await asyncio.wait_for(bridge.events.get(), WAIT), LinkLost)
        assert isinstance(await asyncio.wait_for(bridge.events.get(), WAIT), LinkUp)
        await round_trip(bridge, second)


# ----------------------------------------------------------------- limits


async def test_an_oversized_frame_cuts_the_link_and_fails_pending_calls(
    bridge: Bridge, caplog: pytest.LogCaptureFixture
) -> None:
    async with extension(bridge) as ws:
        await link(bridge, ws)
        pending = asyncio.create_task(bridge.request(p.TabUrl(tabId=3), timeout=30))
        asked = await recv(ws)
        big = {"type": "result", "id": asked["id"], "data": {"capture": "x" * (65 * 1024)}}
        await send(ws, big)
        code, _reason = await closed_with(ws)
    assert code == 1009
    with pytest.raises(DriverError) as info:
        await asyncio.wait_for(pending, WAIT)
    assert info.value.code == p.ErrorCode.DISCONNECTED
    assert "frame over 65536 bytes" in info.value.message and "tabUrl" in info.value.message
    lost = await asyncio.wait_for(bridge.events.get(), WAIT)
    assert isinstance(lost, LinkLost) and "65536 bytes" in lost.reason
    assert any("frame over 65536 bytes" in m for m in refusals(caplog))
    await a_paired_extension_still_links(bridge)


async def test_a_request_over_the_frame_limit_fails_alone_and_is_never_sent(bridge: Bridge) -> None:
    async with extension(bridge) as ws:
        await link(bridge, ws)
        with pytest.raises(DriverError) as info:
            await bridge.request(p.Goto(tabId=3, url="https://a.test/" + "é" * (33 * 1024)))  # 66 KiB as UTF-8
        assert info.value.code == p.ErrorCode.FRAME_TOO_LARGE
        assert "'goto' request is 67," in info.value.message and "65,536-byte frame limit" in info.value.message
        await round_trip(bridge, ws)  # the next frame the extension sees is the next request
        assert bridge.linked


async def test_an_oversized_hello_is_refused(bridge: Bridge) -> None:
    async with extension(bridge) as ws:
        await send(ws, {**hello(), "padding": "x" * (65 * 1024)})
        assert (await closed_with(ws))[0] == 1009
    await a_paired_extension_still_links(bridge)


async def test_before_hello_only_small_frames_are_read_and_after_it_large_ones(clock: FakeClock) -> None:
    bridge = Bridge(port=0, token=TOKEN, max_frame_bytes=2 * 2**20, clock=clock)  # hello limit: 64 KiB
    await bridge.start()
    try:
        async with extension(bridge) as ws:
            await send(ws, "x" * (64 * 1024 + 1))
            code, _reason = await closed_with(ws)
        assert code == 1009
        assert not bridge.linked and bridge.events.empty()
        async with extension(bridge) as ws:
            await link(bridge, ws)
            pending = asyncio.create_task(bridge.request(p.TabUrl(tabId=3), timeout=30))
            asked = await recv(ws)
            large = "y" * 2**20  # 16 times the hello limit, half the linked one
            await send(ws, {"type": "result", "id": asked["id"], "data": {"capture": large}})
            reply = await asyncio.wait_for(pending, WAIT)
            assert isinstance(reply, p.Result) and reply.data == {"capture": large}
            await round_trip(bridge, ws)
    finally:
        await bridge.stop()


async def until(condition: Callable[[], bool], what: str, within: float = WAIT) -> None:
    """Wait for ``condition`` to hold, polling; fail saying ``what`` did not happen."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while not condition():
        assert loop.time() < deadline, f"{what} did not happen within {within:g} s"
        await asyncio.sleep(0.01)


async def test_sockets_waiting_for_hello_are_capped_and_the_link_is_unaffected(clock: FakeClock) -> None:
    bridge = Bridge(port=0, token=TOKEN, hello_timeout=30, max_unauthenticated=3, clock=clock)
    await bridge.start()
    try:
        async with extension(bridge) as linked, contextlib.AsyncExitStack() as stack:
            await link(bridge, linked)
            for _ in range(3):
                await stack.enter_async_context(extension(bridge))
            await until(lambda: bridge.waiting_for_hello == 3, "three sockets waiting for hello")
            async with extension(bridge) as surplus:
                assert await closed_with(surplus) == (1013, TOO_MANY_WAITING)
            await round_trip(bridge, linked)  # the linked browser works on while the others wait
            assert bridge.last_refusal == TOO_MANY_WAITING
        await until(lambda: bridge.waiting_for_hello == 0, "the waiting sockets leaving")
        await asyncio.wait_for(bridge.events.get(), WAIT)  # the first link's LinkLost
        await a_paired_extension_still_links(bridge)  # a place frees up when one goes
    finally:
        await bridge.stop()


async def refuse_wrong_tokens(bridge: Bridge, count: int) -> None:
    for _ in range(count):
        async with extension(bridge) as ws:
            await send(ws, hello(token="not-the-token-but-long-enough"))
            assert (await closed_with(ws))[0] == 4001


def refused_one_by_one(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [m for m in refusals(caplog) if m.startswith("refused an extension connection")]


def refused_in_sum(caplog: pytest.LogCaptureFixture) -> list[int]:
    return [int(m.split()[1]) for m in refusals(caplog) if m.startswith("refused ") and " more " in m]


async def test_refusals_are_logged_a_few_at_a_time_then_counted(
    clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    bridge = Bridge(port=0, token=TOKEN, refusal_log_interval=600, clock=clock)
    await bridge.start()
    try:
        await refuse_wrong_tokens(bridge, 20)
        assert len(refused_one_by_one(caplog)) == REFUSAL_LOG_BURST
        await a_paired_extension_still_links(bridge)
    finally:
        await bridge.stop()  # what was counted is not lost with the server
    assert refused_in_sum(caplog) == [20 - REFUSAL_LOG_BURST]


async def test_the_count_of_unlogged_refusals_comes_when_the_interval_ends(
    clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    bridge = Bridge(port=0, token=TOKEN, refusal_log_interval=0.5, clock=clock)
    await bridge.start()
    try:
        await refuse_wrong_tokens(bridge, 20)
        # every refusal is either a line of its own or in a sum, which comes without another refusal
        await until(lambda: len(refused_one_by_one(caplog)) + sum(refused_in_sum(caplog)) == 20, "the sum")
        assert len(refused_one_by_one(caplog)) < 20
    finally:
        await bridge.stop()


async def test_a_flood_cuts_the_link(bridge: Bridge, clock: FakeClock, caplog: pytest.LogCaptureFixture) -> None:
    async with extension(bridge) as ws:
        await link(bridge, ws)
        pending = asyncio.create_task(bridge.request(p.Connect(), timeout=30))
        await recv(ws)
        for _ in range(11):  # the burst is 10 frames, and the clock does not move
            await send(ws, {"type": "tabClosed", "tabId": 1})
        assert await closed_with(ws) == (1008, TOO_MANY)
    with pytest.raises(DriverError) as info:
        await asyncio.wait_for(pending, WAIT)
    assert info.value.code == p.ErrorCode.DISCONNECTED and "messages a second" in info.value.message
    frames = []
    while not bridge.events.empty():
        frames.append(bridge.events.get_nowait())
    assert len([f for f in frames if isinstance(f, p.TabClosed)]) == 10  # what came within the budget
    assert isinstance(frames[-1], LinkLost)
    assert any("more than 5 messages a second" in m for m in refusals(caplog))
    await a_paired_extension_still_links(bridge)


async def test_a_steady_sender_within_the_rate_is_not_cut(bridge: Bridge, clock: FakeClock) -> None:
    async with extension(bridge) as ws:
        await link(bridge, ws)
        for _ in range(40):  # 40 frames over 20 s of the bridge's clock: 2 a second, under 5
            await send(ws, {"type": "ping"})
            assert await recv(ws) == {"type": "pong", "maxFrameBytes": bridge.max_frame_bytes}
            clock.now += 0.5
        await round_trip(bridge, ws)


async def test_malformed_json_after_hello_gets_an_error_frame_and_the_link_stays(bridge: Bridge) -> None:
    async with extension(bridge) as ws:
        await link(bridge, ws)
        await send(ws, "{not json")
        error = await recv(ws)
        assert (error["type"], error["code"]) == ("error", "BAD_MESSAGE")
        assert "not valid JSON" in error["message"]
        assert bridge.linked
        await round_trip(bridge, ws)


async def test_an_unknown_type_after_hello_gets_an_error_frame_and_the_link_stays(bridge: Bridge) -> None:
    async with extension(bridge) as ws:
        await link(bridge, ws)
        await send(ws, {"type": "rootShell", "id": "z1"})
        error = await recv(ws)
        assert (error["type"], error["code"], error["id"]) == ("error", "UNKNOWN_TYPE", "z1")
        assert bridge.linked
        await round_trip(bridge, ws)


# ----------------------------------------------------------------- binding


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.10", "example.com"])
async def test_the_bridge_refuses_a_non_loopback_address(host: str) -> None:
    bridge = Bridge(host, 0, token=TOKEN)
    await bridge.start()
    assert bridge.start_error is not None
    assert host in bridge.start_error and "TABMCP_WS_ALLOW_REMOTE" in bridge.start_error
    with pytest.raises(DriverError) as info:
        await bridge.request(p.Connect())
    assert info.value.code == p.ErrorCode.DISCONNECTED
    await bridge.stop()


async def test_a_non_loopback_address_needs_allow_remote() -> None:
    bridge = Bridge("0.0.0.0", 0, token=TOKEN, allow_remote=True)
    await bridge.start()
    try:
        assert bridge.start_error is None and bridge.port != 0
        async with connect(f"ws://127.0.0.1:{bridge.port}", origin=OWN_ORIGIN) as ws:
            await send(ws, hello(token="wrong-token-wrong-token"))
            assert (await closed_with(ws))[0] == 4001  # the token still applies
    finally:
        await bridge.stop()


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "127.0.0.2"])
async def test_loopback_addresses_need_nothing(host: str) -> None:
    bridge = Bridge(host, 0, token=TOKEN)
    await bridge.start()
    try:
        assert bridge.start_error is None
    finally:
        await bridge.stop()


def test_what_counts_as_loopback() -> None:
    assert all(is_loopback(h) for h in ("127.0.0.1", "127.9.9.9", "::1", "[::1]", "localhost", "LOCALHOST"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "::", "10.0.0.1", "example.com", "localhost.evil.example"))


def test_a_bridge_without_a_token_cannot_be_built() -> None:
    with pytest.raises(ValueError):
        Bridge(port=0, token="")


# ----------------------------------------------------------------- pure parts


def test_every_close_reason_fits_a_close_frame() -> None:
    for reason in (TOKEN_MISSING, TOKEN_WRONG, NO_ORIGIN, BUSY, TOO_MANY):
        assert len(reason.encode()) <= MAX_REASON_BYTES
    cut = close_reason("ü" * 200)
    assert len(cut.encode()) <= MAX_REASON_BYTES and cut.endswith("...")
    assert close_reason("short") == "short"


def test_the_frame_budget_allows_a_burst_then_the_rate() -> None:
    budget = TokenBucket(rate=10, burst=20, now=0.0)
    assert all(budget.take(0.0) is None for _ in range(20))
    assert budget.take(0.0) == pytest.approx(0.1)  # refused: one frame's worth is 0.1 s away
    assert budget.take(0.1) is None  # 0.1 s later: one more frame's worth
    assert budget.take(0.1) is not None
    assert all(budget.take(100.0) is None for _ in range(20))  # refilled, but never past the burst
    assert budget.take(100.0) is not None


def test_a_zero_rate_means_no_limit() -> None:
    budget = TokenBucket(rate=0, burst=0, now=0.0)
    assert all(budget.take(0.0) is None for _ in range(1000))


# ----------------------------------------------------------------- identity (tabmcp doctor's port probe)


def http_get(port: int, host_header: str) -> tuple[int, str]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT)
    try:
        connection.request("GET", "/", headers={"Host": host_header})
        response = connection.getresponse()
        return response.status, response.read().decode()
    finally:
        connection.close()


async def test_a_plain_get_from_this_machine_learns_what_listens(bridge: Bridge) -> None:
    status, body = await asyncio.to_thread(http_get, bridge.port, f"127.0.0.1:{bridge.port}")
    assert status == 200
    found = IDENTITY.match(body.strip())
    assert found is not None and found["pid"] == str(os.getpid()) and found["version"] == tabmcp.__version__
    assert await asyncio.to_thread(http_get, bridge.port, f"localhost:{bridge.port}") == (status, body)
    assert bridge.last_refusal is None  # a probe is no refused extension: connect_browser's hint stays true
    await a_paired_extension_still_links(bridge)


async def test_a_rebound_name_learns_nothing(bridge: Bridge) -> None:
    status, body = await asyncio.to_thread(http_get, bridge.port, f"evil.example:{bridge.port}")
    assert status != 200
    assert "tabmcp" not in body
