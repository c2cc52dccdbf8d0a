"""The real Bridge on an ephemeral port, with a real WebSocket client playing the extension.

The client is a paired extension: tabmcp's own Origin and the bridge's token in its hello
(refusals are test_bridge_security.py's)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed
from websockets.typing import Origin

from tabmcp import pairing
from tabmcp import protocol as p
from tabmcp.drivers.base import DriverError
from tabmcp.drivers.extension.bridge import Bridge, LinkLost, LinkUp
from tabmcp.drivers.extension.host import ExtensionHost
from tabmcp.drivers.host import FrameGone, FrameNavigation, PopupOpened

WAIT = 2.0  # upper bound for anything that should happen "at once"
TOKEN = "unit-test-pairing-token-0123456789"
ORIGIN = Origin(pairing.extension_origin(pairing.EXTENSION_ID))
BROWSER = {"name": "Chromium", "version": "126.0"}
HELLO = {
    "type": "hello",
    "extension": {"version": "0.1.0"},
    "browser": BROWSER,
    "token": TOKEN,
    "instance": "browser-1",
}
TAB = {"id": 7, "windowId": 1, "title": "Inbox", "url": "https://mail.test/", "status": "complete"}


def connect(url: str) -> ws_connect:
    """A WebSocket from tabmcp's extension (its Origin); it still has to say hello with the token."""
    return ws_connect(url, origin=ORIGIN)


@pytest.fixture
async def bridge() -> AsyncIterator[Bridge]:
    bridge = Bridge(port=0, request_timeout=5.0, token=TOKEN)
    await bridge.start()
    assert bridge.start_error is None
    assert bridge.port != 0
    yield bridge
    await bridge.stop()


async def send(ws: ClientConnection, frame: dict[str, Any] | str) -> None:
    await ws.send(frame if isinstance(frame, str) else json.dumps(frame))


async def recv(ws: ClientConnection) -> dict[str, Any]:
    return json.loads(await asyncio.wait_for(ws.recv(), WAIT))


async def next_event(bridge: Bridge) -> object:
    return await asyncio.wait_for(bridge.events.get(), WAIT)


async def say_hello(bridge: Bridge, ws: ClientConnection) -> None:
    await send(ws, HELLO)
    event = await next_event(bridge)
    assert isinstance(event, LinkUp)


async def still_open(ws: ClientConnection) -> None:
    await send(ws, {"type": "ping"})
    assert (await recv(ws))["type"] == "pong"


# ----------------------------------------------------------------- link


async def test_ping_is_answered_with_pong(bridge: Bridge) -> None:
    async with connect(bridge.url) as ws:
        await say_hello(bridge, ws)
        await send(ws, {"type": "ping"})
        # the pong tells the extension how large an answer may be (larger ones it refuses to send)
        assert await recv(ws) == {"type": "pong", "maxFrameBytes": bridge.max_frame_bytes}
        assert bridge.events.empty()  # a ping is not news for the runtime


async def test_hello_links_the_extension(bridge: Bridge) -> None:
    assert not bridge.linked
    async with connect(bridge.url) as ws:
        await send(ws, HELLO)
        event = await next_event(bridge)
        assert isinstance(event, LinkUp)
        assert event.hello.extension.version == "0.1.0"
        assert event.hello.browser.name == "Chromium"
        assert bridge.linked
        assert await bridge.wait_linked(0.1)


async def test_tab_events_are_queued_in_order(bridge: Bridge) -> None:
    async with connect(bridge.url) as ws:
        await say_hello(bridge, ws)
        await send(ws, {"type": "tabCreated", "tab": TAB})
        await send(ws, {"type": "tabClosed", "tabId": 7})
        created, closed = await next_event(bridge), await next_event(bridge)
    assert isinstance(created, p.TabCreated)
    assert created.tab.url == "https://mail.test/"
    assert isinstance(closed, p.TabClosed)
    assert closed.tabId == 7



async def test_page_events_reach_the_host_before_the_answer_that_followed_them(bridge: Bridge) -> None:
    host = ExtensionHost(bridge)
    seen: list[object] = []
    host.subscribe(seen.append)
    async with connect(bridge.url) as ws:
        await say_hello(bridge, ws)
        pending = asyncio.create_task(host.tab_url(7))
        frame = await recv(ws)
        navigation = {"type": "frameNavigation", "tabId": 7, "frameId": 0, "kind": "load", "url": "https://mail.test/"}
        popup = {"type": "popupOpened", "tabId": 8, "openerId": 7}
        await send(ws, {"type": "pageEvents", "events": [navigation, popup]})
        await send(ws, {"type": "result", "id": frame["id"], "data": {"tab": TAB}})
        assert await asyncio.wait_for(pending, WAIT) == ("https://mail.test/", TAB["title"], False)
        # the events were the host's before the call resumed, and none went to the runtime's queue
        assert seen == [FrameNavigation(7, 0, "load", "https://mail.test/"), PopupOpened(8, 7)]
        assert bridge.events.empty()  # say_hello took the LinkUp


async def test_a_frame_gone_error_raises_frame_gone(bridge: Bridge) -> None:
    async with connect(bridge.url) as ws:
        await say_hello(bridge, ws)
        pending = asyncio.create_task(ExtensionHost(bridge).call_agent(7, [3], "snapshot"))
        frame = await recv(ws)
        assert (frame["type"], frame["frameIds"], frame["method"]) == ("callAgent", [3], "snapshot")
        error = {"type": "error", "id": frame["id"], "code": "NOT_SCRIPTABLE", "message": "No frame with id 3"}
        await send(ws, {**error, "frameGone": True})
        with pytest.raises(FrameGone):
            await asyncio.wait_for(pending, WAIT)



async def test_the_tab_an_agent_call_left_answers_until_news_of_the_tab(bridge: Bridge) -> None:
    host = ExtensionHost(bridge)
    async with connect(bridge.url) as ws:
        await say_hello(bridge, ws)
        call = asyncio.create_task(host.call_agent(7, [0], "act", {"action": "click"}))
        frame = await recv(ws)
        await send(ws, {"type": "result", "id": frame["id"], "data": {"answers": {"0": {"ok": True}}, "tab": TAB}})
        assert await asyncio.wait_for(call, WAIT) == {0: {"ok": True}}
        # no request: the answer carried the tab
        assert await asyncio.wait_for(host.tab_url(7), WAIT) == ("https://mail.test/", TAB["title"], False)
        # a page event of the tab: it may have changed, so it is asked again
        seen: list[object] = []
        host.subscribe(seen.append)
        await send(ws, {"type": "pageEvents", "events": [{"type": "requestEnded", "tabId": 7, "requestId": "1"}]})
        async with asyncio.timeout(WAIT):
            while not seen:
                await asyncio.sleep(0.01)
        asked = asyncio.create_task(host.tab_url(7))
        frame = await recv(ws)
        assert frame["type"] == "tabUrl"
        await send(ws, {"type": "result", "id": frame["id"], "data": {"tab": {**TAB, "title": "Later"}}})
        assert (await asyncio.wait_for(asked, WAIT))[1] == "Later"


# ----------------------------------------------------------------- requests


async def test_request_resolves_with_the_matching_answer(bridge: Bridge) -> None:
    async with connect(bridge.url) as ws:
        await say_hello(bridge, ws)
        pending = asyncio.create_task(bridge.request(p.Connect()))
        frame = await recv(ws)
        assert frame["type"] == "connect"
        assert frame["id"]
        await send(ws, {"type": "connected", "id": frame["id"], "browser": BROWSER, "tabs": [TAB]})
        reply = await asyncio.wait_for(pending, WAIT)
    assert isinstance(reply, p.Connected)
    assert [t.id for t in reply.tabs] == [7]


async def test_concurrent_requests_are_correlated_by_id(bridge: Bridge) -> None:
    async with connect(bridge.url) as ws:
        await say_hello(bridge, ws)
        first = asyncio.create_task(bridge.request(p.FocusTab(tabId=1)))
        second = asyncio.create_task(bridge.request(p.FocusTab(tabId=2)))
        frames = [await recv(ws), await recv(ws)]
        assert frames[0]["id"] != frames[1]["id"]
        for frame in reversed(frames):  # answered out of order
            await send(ws, {"type": "result", "id": frame["id"], "data": {"tabId": frame["tabId"]}})
        one, two = await asyncio.wait_for(asyncio.gather(first, second), WAIT)
    assert isinstance(one, p.Result)
    assert isinstance(two, p.Result)
    assert (one.data, two.data) == ({"tabId": 1}, {"tabId": 2})


async def test_an_error_answer_raises_bridge_error_with_its_code(bridge: Bridge) -> None:
    async with connect(bridge.url) as ws:
        await say_hello(bridge, ws)
        pending = asyncio.create_task(bridge.request(p.FocusTab(tabId=99)))
        frame = await recv(ws)
        await send(ws, {"type": "error", "id": frame["id"], "code": "NO_TAB", "message": "No tab with id 99"})
        with pytest.raises(DriverError) as info:
            await asyncio.wait_for(pending, WAIT)
    assert info.value.code == "NO_TAB"
    assert info.value.message == "No tab with id 99"


async def test_no_answer_times_out(bridge: Bridge) -> None:
    async with connect(bridge.url) as ws:
        await say_hello(bridge, ws)
        loop = asyncio.get_running_loop()
        started = loop.time()
        with pytest.raises(DriverError) as info:
            await bridge.request(p.TabUrl(tabId=7), timeout=0.2)
        elapsed = loop.time() - started
    assert info.value.code == p.ErrorCode.TIMEOUT
    assert 0.15 <= elapsed < 2.5  # the request's own 0.2 s, generously; not the bridge's 5 s default
    assert "tabUrl" in info.value.message


async def test_a_late_answer_is_dropped(bridge: Bridge) -> None:
    async with connect(bridge.url) as ws:
        await say_hello(bridge, ws)
        late = asyncio.create_task(bridge.request(p.TabUrl(tabId=7), timeout=0.2))
        frame = await recv(ws)
        with pytest.raises(DriverError):
            await late
        await send(ws, {"type": "result", "id": frame["id"], "data": {"capture": "too late"}})
        await still_open(ws)
        assert bridge.events.empty()

        fresh = asyncio.create_task(bridge.request(p.CloseTab(tabId=7)))
        answer = await recv(ws)
        assert answer["id"] != frame["id"]
        await send(ws, {"type": "result", "id": answer["id"], "data": {"tabId": 7}})
        reply = await asyncio.wait_for(fresh, WAIT)
    assert isinstance(reply, p.Result)
    assert reply.data == {"tabId": 7}


async def test_disconnect_fails_pending_requests_at_once(bridge: Bridge) -> None:
    ws = await connect(bridge.url)
    await say_hello(bridge, ws)
    pending = asyncio.create_task(bridge.request(p.Connect(), timeout=30))
    await recv(ws)
    await ws.close()
    with pytest.raises(DriverError) as info:
        await asyncio.wait_for(pending, WAIT)
    assert info.value.code == p.ErrorCode.DISCONNECTED
    assert isinstance(await next_event(bridge), LinkLost)
    assert not bridge.linked


async def test_request_without_an_extension_fails_at_once(bridge: Bridge) -> None:
    with pytest.raises(DriverError) as info:
        await asyncio.wait_for(bridge.request(p.Connect()), 0.5)
    assert info.value.code == p.ErrorCode.DISCONNECTED


async def test_a_socket_that_has_not_said_hello_is_not_linked(bridge: Bridge) -> None:
    async with connect(bridge.url):
        await asyncio.sleep(0.1)
        assert not bridge.linked
        with pytest.raises(DriverError) as info:
            await asyncio.wait_for(bridge.request(p.Connect()), 0.5)
    assert info.value.code == p.ErrorCode.DISCONNECTED


# ----------------------------------------------------------------- bad frames


async def test_malformed_json_is_answered_and_the_connection_stays_open(bridge: Bridge) -> None:
    async with connect(bridge.url) as ws:
        await say_hello(bridge, ws)
        await send(ws, '{"type": "ping"')
        error = await recv(ws)
        assert error["type"] == "error"
        assert error["code"] == "BAD_MESSAGE"
        assert "id" not in error
        await still_open(ws)


async def test_unknown_type_is_answered_with_the_id_echoed(bridge: Bridge) -> None:
    async with connect(bridge.url) as ws:
        await say_hello(bridge, ws)
        await send(ws, {"type": "teleport", "id": "x7"})
        error = await recv(ws)
        assert (error["type"], error["code"], error["id"]) == ("error", "UNKNOWN_TYPE", "x7")
        await still_open(ws)


async def test_an_invalid_frame_is_answered_with_bad_message(bridge: Bridge) -> None:
    async with connect(bridge.url) as ws:
        await say_hello(bridge, ws)
        await send(ws, {"type": "tabClosed"})
        error = await recv(ws)
        assert error["code"] == "BAD_MESSAGE"
        assert "tabId" in error["message"]
        await still_open(ws)
        assert bridge.events.empty()


async def test_a_frame_with_an_unhashable_type_does_not_drop_the_connection(bridge: Bridge) -> None:
    # Regression (see test_protocol.py::test_an_unhashable_type_is_a_protocol_error): such a frame
    # must be answered with an error frame, not end the reader loop and close the socket (1011).
    async with connect(bridge.url) as ws:
        await say_hello(bridge, ws)
        await send(ws, {"type": ["hello"], "id": "x8"})
        error = await recv(ws)
        assert error["type"] == "error"
        await still_open(ws)


# ----------------------------------------------------------------- replacement


async def test_a_newer_socket_of_the_same_browser_replaces_the_first(bridge: Bridge) -> None:
    # what a restarted service worker looks like: same instance id, new socket
    first = await connect(bridge.url)
    await say_hello(bridge, first)
    pending = asyncio.create_task(bridge.request(p.Connect(), timeout=30))
    await recv(first)

    async with connect(bridge.url) as second:
        await asyncio.sleep(0.1)
        assert bridge.linked and not pending.done()  # a socket that has not said hello changes nothing
        await send(second, HELLO)
        with pytest.raises(DriverError) as info:
            await asyncio.wait_for(pending, WAIT)
        assert info.value.code == p.ErrorCode.DISCONNECTED

        with pytest.raises(ConnectionClosed) as closed:
            await asyncio.wait_for(first.recv(), WAIT)
        assert closed.value.rcvd is not None
        assert (closed.value.rcvd.code, closed.value.rcvd.reason) == (
            4000,
            "replaced by a newer connection from this browser",
        )
        # the old link is lost (the runtime goes DISCONNECTED), then the new one is up
        lost = await next_event(bridge)
        assert isinstance(lost, LinkLost) and "reconnected" in lost.reason
        assert isinstance(await next_event(bridge), LinkUp)

        request = asyncio.create_task(bridge.request(p.Connect()))
        frame = await recv(second)
        await send(second, {"type": "connected", "id": frame["id"], "tabs": []})
        assert isinstance(await asyncio.wait_for(request, WAIT), p.Connected)


async def test_a_taken_port_is_reported_not_raised(bridge: Bridge) -> None:
    second = Bridge(port=bridge.port, token=TOKEN)
    await second.start()  # a second `tabmcp serve` on the same port: the MCP side must still run
    assert second.start_error is not None
    assert f"127.0.0.1:{bridge.port}" in second.start_error
    with pytest.raises(DriverError) as info:
        await second.request(p.Connect())
    assert info.value.code == p.ErrorCode.DISCONNECTED
    await second.stop()


# ----------------------------------------------------------------- the extension's UI (popup, options)


async def test_settings_are_queued_and_notices_are_sent_without_an_id(bridge: Bridge) -> None:
    async with connect(bridge.url) as ws:
        await say_hello(bridge, ws)
        await send(ws, {"type": "settings", "followTabSwitches": True})
        settings = await next_event(bridge)
        assert isinstance(settings, p.UserSettings) and settings.followTabSwitches is True
        assert await bridge.notify(p.Controlled(tabs=[p.ControlledTab(tabId=7, group="tabmcp")]))
        assert await recv(ws) == {"type": "controlled", "tabs": [{"tabId": 7, "group": "tabmcp"}]}
        await still_open(ws)  # a notice is not a request: nothing is pending, nothing times out
    await next_event(bridge)  # LinkLost
    assert not await bridge.notify(p.Controlled())  # no browser: nothing sent, nothing raised


async def test_the_users_disconnect_is_told_apart_from_a_vanished_browser(bridge: Bridge) -> None:
    ws = await connect(bridge.url)
    await say_hello(bridge, ws)
    await ws.close(1000, "disconnected by the user (the extension popup)")
    lost = await next_event(bridge)
    assert isinstance(lost, LinkLost)
    assert lost.reason == "the browser extension disconnected: disconnected by the user (the extension popup)"
    assert bridge.user_disconnected
    async with connect(bridge.url) as again:  # Connect pressed: a new link clears it
        await say_hello(bridge, again)
        assert not bridge.user_disconnected
        await again.close()  # gone without a word: not the user's doing
    assert (await next_event(bridge)).reason == "the browser extension disconnected"  # type: ignore[attr-defined]
    assert not bridge.user_disconnected
