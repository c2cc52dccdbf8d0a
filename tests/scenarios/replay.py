"""Replays a scenario (a session recording, see ``tabmcp.record``) against a fresh server.

The replayer plays the extension over a real WebSocket to the real bridge, and the client over
a real MCP ``Client`` (handshake era, or 2026-07-28 with ``subscriptions/listen``). Entries:

- ``call`` / ``result``: the client calls a tool (``connect_browser`` without ``launch``: the
  replayer is the browser); ``result`` awaits it and checks ``isError``
  and the visible tool names at that moment.
- ``send``: the server must send this frame next (compared field by field, ``id`` mapped). A
  ``controlled`` notice (which tabs are under control, for the extension's popup) is not a request:
  it is matched among the notices that arrived, in their order but not in the requests' (recordings
  made before it existed have none, and the notices they now get are not checked).
- ``recv``: the extension sends this frame (answers get the live id of the request they answer);
  a ``hello`` opens the WebSocket first (from tabmcp's extension Origin), and gets the replay
  server's pairing token, which recordings never hold.
- ``closed``: the extension's socket closes.
- ``notify``: one ``list_changed`` must arrive, after which ``tools`` must be what is listed.

``replay`` returns how many ``list_changed`` arrived in all: a caller compares it with the ``notify``
entries, so a notification the recording does not have fails the scenario.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import Client
from websockets.asyncio.client import ClientConnection, connect
from websockets.typing import Origin

from tabmcp import pairing
from tabmcp.config import Settings
from tabmcp.runtime import Runtime
from tabmcp.server import TabmcpServer, tabmcp_server

STEP_TIMEOUT = 10.0  # above every wait of the server itself (connect_browser waits 6 s for an extension)
REPLAY_TOKEN = "scenario-replay-pairing-token"
EXTENSION_ORIGIN = Origin(pairing.extension_origin(pairing.EXTENSION_ID))


class ReplayMismatch(AssertionError):
    pass


def load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


class NotificationCounter:
    def __init__(self) -> None:
        self.count = 0
        self._changed = anyio.Event()

    def bump(self) -> None:
        self.count += 1
        self._changed.set()
        self._changed = anyio.Event()

    async def reach(self, count: int, what: str) -> None:
        try:
            with anyio.fail_after(STEP_TIMEOUT):
                while self.count < count:
                    await self._changed.wait()
        except TimeoutError:
            raise ReplayMismatch(f"{what}: expected list_changed #{count}, got {self.count}") from None


@asynccontextmanager
async def mcp_client(server: TabmcpServer, era: str, counter: NotificationCounter) -> AsyncIterator[Client]:
    if era == "legacy":

        async def on_message(message: Any) -> None:
            if isinstance(message, types.ToolListChangedNotification):
                counter.bump()

        async with Client(server, mode="legacy", message_handler=on_message) as client:
            yield client
        return
    async with Client(server) as client, client.listen(tools_list_changed=True) as subscription:

        async def pump() -> None:
            async for _event in subscription:
                counter.bump()

        async with anyio.create_task_group() as tg:
            tg.start_soon(pump)
            yield client
            tg.cancel_scope.cancel()


class EventTally:
    """Counts the browser events handed to the runtime and those it has finished handling, by wrapping
    the real objects' methods, so that a replay waits until every event is handled (a frame's
    effects on the state are in place) rather than for a pause."""

    def __init__(self, runtime: Runtime) -> None:
        self.delivered = 0
        self.handled = 0
        self._changed = anyio.Event()
        view, deliver, on_event = runtime.driver, runtime.driver.deliver, runtime._on_event  # type: ignore[attr-defined]

        def counting_deliver(event: object) -> None:
            self.delivered += 1
            deliver(event)

        async def counting_on_event(event: object) -> None:
            try:
                await on_event(event)
            finally:
                self.handled += 1
                self._changed.set()
                self._changed = anyio.Event()

        view.deliver = counting_deliver
        runtime._on_event = counting_on_event  # type: ignore[method-assign]

    async def settled(self) -> None:
        while self.handled < self.delivered:
            await self._changed.wait()


class Extension:
    """The extension's side: a WebSocket to the bridge, frames from the server queued in order."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.ws: ClientConnection | None = None
        self.inbox: list[dict[str, Any]] = []
        self.notices: list[dict[str, Any]] = []  # `controlled` notices, apart from the requests
        self._arrived = anyio.Event()
        self._pongs = 0
        self._ponged = anyio.Event()

    async def open(self, tg: anyio.abc.TaskGroup) -> None:
        self.ws = await connect(self.url, origin=EXTENSION_ORIGIN)
        tg.start_soon(self._read, self.ws)

    async def _read(self, ws: ClientConnection) -> None:
        async for raw in ws:
            frame = json.loads(raw)
            if frame.get("type") == "pong":
                self._pongs += 1
                self._ponged.set()
                self._ponged = anyio.Event()
            else:
                (self.notices if frame.get("type") == "controlled" else self.inbox).append(frame)
                self._arrived.set()
                self._arrived = anyio.Event()

    async def next_frame(self, what: str) -> dict[str, Any]:
        try:
            with anyio.fail_after(STEP_TIMEOUT):
                while not self.inbox:
                    await self._arrived.wait()
        except TimeoutError:
            raise ReplayMismatch(f"{what}: the server sent nothing") from None
        return self.inbox.pop(0)

    async def notice(self, want: dict[str, Any], what: str) -> None:
        """Wait for the notice ``want``; the notices before it are passed over (each is the whole state)."""
        try:
            with anyio.fail_after(STEP_TIMEOUT):
                while want not in self.notices:
                    await self._arrived.wait()
        except TimeoutError:
            raise ReplayMismatch(f"{what}: the server did not send {want} (it sent {self.notices})") from None
        del self.notices[: self.notices.index(want) + 1]

    async def sync(self, server: TabmcpServer, tally: EventTally) -> None:
        """Wait until the server has handled every frame sent so far: the bridge answers a ping after
        the frames before it (one connection, in order), its event queue empties into the runtime's
        (the hub routes each event as it takes it), and the runtime finishes every event it was given.
        A call that reads the state (list_tabs counts the tools of loaded tabs) then sees what the
        recorded server saw."""
        if self.ws is None:
            return
        wanted = self._pongs + 1
        await self.ws.send(json.dumps({"type": "ping"}))
        with anyio.fail_after(STEP_TIMEOUT):
            while self._pongs < wanted:
                await self._ponged.wait()
            while not server.app.extension.bridge.events.empty():
                await anyio.sleep(0.01)
            await tally.settled()

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
            self.ws = None


async def replay(path: Path, era: str = "legacy") -> int:
    """Replay one scenario; returns how many list_changed notifications arrived. A mismatch raises
    ``ReplayMismatch`` itself (not inside the task group's ExceptionGroup)."""
    try:
        return await _replay(path, era)
    except BaseExceptionGroup as group:
        mismatch = _mismatch_in(group)
        if mismatch is None:
            raise
        raise mismatch from None


def _mismatch_in(group: BaseExceptionGroup) -> ReplayMismatch | None:
    for exc in group.exceptions:
        found = _mismatch_in(exc) if isinstance(exc, BaseExceptionGroup) else exc
        if isinstance(found, ReplayMismatch):
            return found
    return None


async def _replay(path: Path, era: str) -> int:
    entries = load(path)
    server = tabmcp_server(Settings(ws_port=0, request_timeout=STEP_TIMEOUT, pairing_token=REPLAY_TOKEN))
    counter = NotificationCounter()
    expected = 0
    ids: dict[str, str] = {}
    async with mcp_client(server, era, counter) as client, anyio.create_task_group() as tg:
        tally = EventTally(server.app.runtime)
        extension = Extension(server.app.extension.url)
        pending: dict[str, Any] = {}

        async def run_call(name: str, args: dict[str, Any]) -> None:
            pending["result"] = await client.call_tool(name, args)
            pending["done"].set()

        for n, entry in enumerate(entries, 1):
            where = f"{path.name}:{n} {entry['kind']}"
            match entry["kind"]:
                case "call":
                    await extension.sync(server, tally)
                    pending.clear()
                    pending["done"] = anyio.Event()
                    tg.start_soon(run_call, entry["name"], _without_launch(entry))
                case "result":
                    with anyio.move_on_after(STEP_TIMEOUT):
                        await pending["done"].wait()
                    if not pending["done"].is_set():
                        raise ReplayMismatch(f"{where}: {entry['name']} did not return")
                    result: types.CallToolResult = pending["result"]
                    if bool(result.is_error) != entry["isError"]:
                        text = "".join(c.text for c in result.content if isinstance(c, types.TextContent))
                        raise ReplayMismatch(f"{where}: isError {result.is_error}, expected {entry['isError']}: {text}")
                    await _check_tools(client, entry["tools"], where)
                case "send" if entry["frame"].get("type") == "controlled":
                    await extension.notice(entry["frame"], where)
                case "send":
                    got = await extension.next_frame(where + _call_outcome(pending))
                    want = dict(entry["frame"])
                    if "id" in want:
                        ids[want.pop("id")] = got.pop("id", "")
                    if got != want:
                        raise ReplayMismatch(f"{where}: server sent {got}, expected {want}")
                case "recv":
                    frame = dict(entry["frame"])
                    if frame.get("type") == "hello":
                        frame["token"] = REPLAY_TOKEN
                        if extension.ws is None:
                            await extension.open(tg)
                    if frame.get("id") in ids:
                        frame["id"] = ids[frame["id"]]
                    assert extension.ws is not None, f"{where}: frame before hello"
                    await extension.ws.send(json.dumps(frame))
                case "closed":
                    await extension.close()
                case "notify":
                    expected += 1
                    await counter.reach(expected, where)
                    await _check_tools(client, entry["tools"], where)
                case other:
                    raise ReplayMismatch(f"{where}: unknown entry kind {other!r}")
        await anyio.sleep(0.3)  # a notification that should not exist gets its chance to arrive
        await extension.close()
        tg.cancel_scope.cancel()
    return counter.count


def _without_launch(entry: dict[str, Any]) -> dict[str, Any]:
    """In a replay the replayer is the browser: a recorded launch=true would start a real one."""
    args = dict(entry.get("args", {}))
    if entry["name"] == "connect_browser":
        args["launch"] = False
    return args


def _call_outcome(pending: dict[str, Any]) -> str:
    """Why the server may have sent nothing: the running call already ended, and said this."""
    result = pending.get("result")
    if result is None:
        return ""
    return (
        " (the call already returned: "
        + "".join(c.text for c in result.content if isinstance(c, types.TextContent))[:300]
        + ")"
    )


async def _check_tools(client: Client, want: list[str], where: str) -> None:
    names = [t.name for t in (await client.list_tools()).tools]
    if names != want:
        raise ReplayMismatch(f"{where}: tools/list is {names}, expected {want}")
