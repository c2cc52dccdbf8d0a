"""The CDP driver's direct DevTools link against a stand-in browser endpoint (a local WebSocket and
HTTP server): what it sends, and how each way a command can end reaches the caller."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

import pytest
from websockets.asyncio.server import ServerConnection, serve

from tabmcp.drivers.cdp.direct import DirectLink, Unanswered, Unsent, _socket_url

Reply = Callable[[dict[str, Any]], list[dict[str, Any]] | None]  # a command -> the frames sent back (None: hang up)


@asynccontextmanager
async def endpoint(reply: Reply, seen: list[dict[str, Any]]) -> AsyncIterator[str]:
    async def handle(socket: ServerConnection) -> None:
        async for raw in socket:
            command = json.loads(raw)
            seen.append(command)
            frames = reply(command)
            if frames is None:
                await socket.close()
                return
            for frame in frames:
                await socket.send(json.dumps(frame))

    async with serve(handle, "127.0.0.1", 0) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        yield f"ws://127.0.0.1:{port}/devtools/browser/abc"


def browser(command: dict[str, Any]) -> list[dict[str, Any]] | None:
    """Attaches, evaluates (the expression as the value), fails ``throw`` and hangs up on ``bye``."""
    method, expression = command["method"], command["params"].get("expression")
    if method == "Target.attachToTarget" and command["params"]["targetId"] == "gone":
        return [{"id": command["id"], "error": {"code": -32602, "message": "No target with given id found"}}]
    if method == "Target.attachToTarget":
        return [{"id": command["id"], "result": {"sessionId": "S1"}}]
    if expression == "bye":
        return None
    if expression == "gone":
        return [{"id": command["id"], "error": {"code": -32000, "message": "Inspected target navigated or closed"}}]
    if expression == "throw":
        details = {"text": "Uncaught", "exception": {"description": "Error: boom"}}
        return [{"id": command["id"], "result": {"result": {}, "exceptionDetails": details}}]
    if expression == "detach":
        return [
            {"method": "Target.detachedFromTarget", "params": {"sessionId": "S1"}},
            {"id": command["id"], "result": {"result": {"type": "number", "value": 0}}},
        ]
    return [{"id": command["id"], "result": {"result": {"type": "object", "value": {"echo": expression}}}}]


async def attached(link: DirectLink, target: str = "T1") -> str:
    assert link.session_of(target) is None  # the first ask starts attaching
    for _ in range(200):
        session = link.session_of(target)
        if session is not None:
            return session
        await asyncio.sleep(0.01)
    raise AssertionError("never attached")


async def test_calls_go_to_the_attached_session_and_each_ending_reaches_the_caller() -> None:
    seen: list[dict[str, Any]] = []
    async with endpoint(browser, seen) as url:
        link = DirectLink()
        await link.connect(url)
        session = await attached(link)
        assert seen[0] == {"id": 1, "method": "Target.attachToTarget", "params": {"targetId": "T1", "flatten": True}}

        assert await link.evaluate(session, "hello") == {"echo": "hello"}
        sent = seen[-1]
        assert sent["sessionId"] == "S1" and sent["method"] == "Runtime.evaluate"
        evaluated = {"expression": "hello", "returnByValue": True, "awaitPromise": True, "userGesture": True}
        assert sent["params"] == evaluated

        with pytest.raises(Unanswered, match="navigated or closed"):
            await link.evaluate(session, "gone")
        with pytest.raises(Unanswered, match="boom"):
            await link.evaluate(session, "throw")
        await link.evaluate(session, "detach")
        assert link.session_of("T1") is None  # the target's detach forgot its session

        assert link.session_of("gone") is None
        for _ in range(100):  # the refused attach is not asked again
            await asyncio.sleep(0.01)
            assert link.session_of("gone") is None
        assert [c["params"].get("targetId") for c in seen].count("gone") == 1

        with pytest.raises(Unanswered):  # sent, and the link went away before the answer
            await link.evaluate(session, "bye")
        assert not link.open
        with pytest.raises(Unsent):  # never sent: the caller may take another way
            await link.evaluate(session, "hello")
        await link.close()


async def test_an_endpoint_that_cannot_be_opened_leaves_every_call_unsent() -> None:
    link = DirectLink()
    await link.connect("ws://127.0.0.1:9/devtools/browser/none")
    assert not link.open and link.session_of("T1") is None
    with pytest.raises(Unsent):
        await link.evaluate("S1", "1")


@contextmanager
def version_endpoint(listed: str) -> Iterator[str]:
    class Version(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = json.dumps({"webSocketDebuggerUrl": listed}).encode()
            self.send_response(200 if self.path == "/json/version" else 404)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            return None

    server = HTTPServer(("127.0.0.1", 0), Version)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


def test_an_http_endpoint_names_its_socket_at_the_address_it_was_reached_at() -> None:
    with version_endpoint("ws://0.0.0.0:9222/devtools/browser/xyz") as http:
        host = http.removeprefix("http://")
        assert _socket_url(http + "/") == f"ws://{host}/devtools/browser/xyz"
