"""A DevTools connection of the CDP driver's own, beside Playwright's, for the page agent's calls in a
tab's main frame.

Playwright's calls travel from this process to its node driver and on to the browser, and back the
same way: two process hops more than a WebSocket straight to the browser (docs/decisions.md, "Click
by ref"). So the host attaches one flat session per page target here and evaluates the agent's entry with
``Runtime.evaluate`` in the main frame's main world (where Playwright evaluates it too). Nothing is
enabled on these sessions: no events come back but the target's detach.

What this link does not carry: the page's events and the agents' reports (console, dialogs,
``toolsChanged``) stay on Playwright's connection, so an answer here may arrive before a report the
page sent earlier. The agent numbers its reports and each answer says how many came before it; the
host holds the answer until those have arrived (``CdpHost._reports_before``), so answers and reports
reach the session in the page's order.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import urllib.request
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import websockets

log = logging.getLogger(__name__)
CONNECT_TIMEOUT_S = 5.0


class Unsent(Exception):
    """The command never reached the browser (no link, no session): the caller may use another way."""


class Unanswered(Exception):
    """The command was sent but got no result (the document went away, the target closed)."""


class DirectLink:
    """One WebSocket to the browser's DevTools endpoint; a flat session per attached target."""

    def __init__(self) -> None:
        self._socket: Any = None
        self._reader: asyncio.Task[None] | None = None
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._sessions: dict[str, str] = {}  # target id -> session id
        self._attaching: dict[str, asyncio.Task[str | None]] = {}
        self._refused: set[str] = set()  # targets an attach failed for: not asked again

    @property
    def open(self) -> bool:
        return self._socket is not None

    async def connect(self, endpoint: str) -> None:
        """Open the link to the browser's endpoint (``ws://…``, or ``http://host:port`` whose
        ``/json/version`` names it); when it cannot be opened every call is Unsent."""
        try:
            if endpoint.startswith(("http://", "https://")):
                endpoint = await asyncio.to_thread(_socket_url, endpoint)
            self._socket = await asyncio.wait_for(
                websockets.connect(endpoint, max_size=None, ping_interval=None), CONNECT_TIMEOUT_S
            )
        except (OSError, TimeoutError, ValueError, KeyError, websockets.WebSocketException) as exc:
            log.info("no direct DevTools link (agent calls go through Playwright): %s", exc)
            return
        self._reader = asyncio.get_running_loop().create_task(self._read(self._socket))

    async def close(self) -> None:
        socket, self._socket = self._socket, None
        if self._reader is not None:
            self._reader.cancel()
            self._reader = None
        if socket is not None:
            with contextlib.suppress(Exception):
                await socket.close()
        self._fail_pending()
        self._sessions.clear()
        self._refused.clear()
        for task in self._attaching.values():
            task.cancel()
        self._attaching.clear()

    def _fail_pending(self) -> None:
        for future in self._pending.values():
            if not future.done():
                future.set_exception(Unanswered("the direct DevTools link closed"))
        self._pending.clear()

    async def _read(self, socket: Any) -> None:
        try:
            async for raw in socket:
                message = json.loads(raw)
                future = self._pending.pop(message.get("id"), None) if "id" in message else None
                if future is not None and not future.done():
                    future.set_result(message)
                elif message.get("method") == "Target.detachedFromTarget":
                    gone = message.get("params", {}).get("sessionId")
                    for target, session in list(self._sessions.items()):
                        if session == gone:
                            del self._sessions[target]
        except (websockets.WebSocketException, OSError, ValueError) as exc:
            log.debug("the direct DevTools link ended: %s", exc)
        finally:
            if self._socket is socket:
                self._socket = None
                self._sessions.clear()
            self._fail_pending()

    async def _send(self, method: str, params: dict[str, Any], session: str | None = None) -> dict[str, Any]:
        socket = self._socket
        if socket is None:
            raise Unsent("no direct DevTools link")
        command_id = next(self._ids)
        frame: dict[str, Any] = {"id": command_id, "method": method, "params": params}
        if session is not None:
            frame["sessionId"] = session
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[command_id] = future
        try:
            await socket.send(json.dumps(frame))
        except (websockets.WebSocketException, OSError) as exc:
            self._pending.pop(command_id, None)
            raise Unsent(str(exc)) from None
        try:
            reply = await future
        finally:
            self._pending.pop(command_id, None)
        if "error" in reply:
            raise Unanswered(str(reply["error"].get("message") or reply["error"]))
        result = reply.get("result")
        return result if isinstance(result, dict) else {}

    def session_of(self, target_id: str) -> str | None:
        """The session attached to the target, or None (not yet, or no more); the first ask starts
        attaching in the background."""
        session = self._sessions.get(target_id)
        if session is None and self.open and target_id not in self._attaching and target_id not in self._refused:
            task = asyncio.get_running_loop().create_task(self._attach(target_id))
            self._attaching[target_id] = task
        return session

    async def attached(self, target_id: str) -> str | None:
        """``session_of``, once an attach it starts or finds under way has answered."""
        session = self.session_of(target_id)
        attaching = self._attaching.get(target_id)
        if session is None and attaching is not None:
            return await asyncio.shield(attaching)
        return session

    async def _attach(self, target_id: str) -> str | None:
        try:
            answer = await self._send("Target.attachToTarget", {"targetId": target_id, "flatten": True})
        except (Unsent, Unanswered) as exc:
            log.debug("no direct session for target %s: %s", target_id, exc)
            self._refused.add(target_id)
            return None
        finally:
            self._attaching.pop(target_id, None)
        session = answer.get("sessionId")
        if isinstance(session, str) and self.open:
            log.debug("direct DevTools session %s for target %s", session, target_id)
            self._sessions[target_id] = session
            return session
        return None

    def forget(self, target_id: str) -> None:
        """The target closed: its session goes with it."""
        self._sessions.pop(target_id, None)
        self._refused.discard(target_id)

    async def evaluate(self, session: str, expression: str) -> Any:
        """``expression``'s value in the target's main frame (a promise awaited, as by a user's gesture,
        as Playwright evaluates); Unanswered for a thrown exception or a document that went away."""
        params = {"expression": expression, "returnByValue": True, "awaitPromise": True, "userGesture": True}
        result = await self._send("Runtime.evaluate", params, session)
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            raise Unanswered(str(details.get("exception", {}).get("description") or details.get("text")))
        return result.get("result", {}).get("value")


def _socket_url(endpoint: str) -> str:
    """The browser's WebSocket address as its HTTP endpoint lists it, at the host and port that
    endpoint was reached at (a browser behind a tunnel or in a container names its own)."""
    with urllib.request.urlopen(endpoint.rstrip("/") + "/json/version", timeout=CONNECT_TIMEOUT_S) as answer:
        url = json.loads(answer.read())["webSocketDebuggerUrl"]
    if not isinstance(url, str):
        raise ValueError(f"{endpoint}/json/version names no WebSocket")
    given, listed = urlsplit(endpoint), urlsplit(url)
    scheme = "wss" if given.scheme == "https" else "ws"
    return urlunsplit((scheme, given.netloc, listed.path, listed.query, ""))
