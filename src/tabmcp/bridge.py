"""The WebSocket server the extension connects to.

It correlates requests with answers by id, gives every request a timeout, answers ``ping``, and
turns every other frame into an item on ``events`` (consumed in order by the runtime), so that
nothing that awaits a browser answer ever runs on the reader loop itself. When the socket goes,
every pending request fails with ``DISCONNECTED`` and a ``LinkLost`` event is queued.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from dataclasses import dataclass

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from tabmcp import protocol as p
from tabmcp.record import NullRecorder, Recorder

log = logging.getLogger(__name__)


class BridgeError(Exception):
    """A request that failed; ``code`` is one of protocol.ErrorCode, ``message`` is for the model."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


@dataclass(frozen=True)
class LinkUp:
    hello: p.Hello


@dataclass(frozen=True)
class LinkLost:
    reason: str


BridgeEvent = LinkUp | LinkLost | p.TabCreated | p.TabUpdated | p.TabClosed | p.TabFocused | p.TabCrashed


class Bridge:
    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 8765,
        request_timeout: float = 30.0,
        recorder: Recorder | None = None,
    ) -> None:
        self.recorder = recorder or NullRecorder()
        self.host = host
        self.port = port
        self.request_timeout = request_timeout
        self.events: asyncio.Queue[BridgeEvent] = asyncio.Queue()
        self.hello: p.Hello | None = None
        self.start_error: str | None = None
        self._server: Server | None = None
        self._conn: ServerConnection | None = None
        self._pending: dict[str, tuple[asyncio.Future[p.Reply], str]] = {}
        self._ids = itertools.count(1)
        self._linked = asyncio.Event()

    # ------------------------------------------------------------- lifecycle

    async def start(self) -> None:
        try:
            self._server = await serve(self._handle, self.host, self.port, max_size=32 * 2**20)
        except OSError as exc:
            self.start_error = f"cannot listen on {self.host}:{self.port}: {exc.strerror or exc}"
            log.error("extension bridge not started: %s", self.start_error)
            return
        self.port = self._server.sockets[0].getsockname()[1]
        log.info("extension bridge listening on ws://%s:%d", self.host, self.port)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        self._fail_pending(p.ErrorCode.DISCONNECTED, "the server is shutting down")

    @property
    def url(self) -> str:
        return f"ws://{self.host}:{self.port}"

    @property
    def linked(self) -> bool:
        return self._linked.is_set()

    async def wait_linked(self, timeout: float) -> bool:
        try:
            await asyncio.wait_for(self._linked.wait(), timeout)
        except TimeoutError:
            return False
        return True

    # ------------------------------------------------------------- requests

    async def request(self, message: p.ServerRequest, timeout: float | None = None) -> p.Reply:
        """Send a request and wait for its answer; raise BridgeError on error, timeout or drop."""
        conn = self._conn
        if conn is None or not self.linked:
            raise BridgeError(p.ErrorCode.DISCONNECTED, "the browser extension is not connected")
        message = message.model_copy(update={"id": f"r{next(self._ids)}"})
        future: asyncio.Future[p.Reply] = asyncio.get_running_loop().create_future()
        self._pending[message.id] = (future, message.type)
        wait = self.request_timeout if timeout is None else timeout
        try:
            self.recorder.write("send", frame=message.model_dump(exclude_none=True))
            await conn.send(p.encode(message))
            reply = await asyncio.wait_for(future, wait)
        except TimeoutError:
            raise BridgeError(
                p.ErrorCode.TIMEOUT, f"the browser did not answer {message.type!r} within {wait:g} s"
            ) from None
        except ConnectionClosed:
            raise BridgeError(p.ErrorCode.DISCONNECTED, "the browser extension disconnected") from None
        finally:
            self._pending.pop(message.id, None)
        if isinstance(reply, p.Error):
            raise BridgeError(reply.code, reply.message)
        return reply

    def _fail_pending(self, code: str, why: str) -> None:
        for future, kind in list(self._pending.values()):
            if not future.done():
                future.set_exception(BridgeError(code, f"{why} while {kind!r} was pending"))
        self._pending.clear()

    # ------------------------------------------------------------- connection

    async def _handle(self, conn: ServerConnection) -> None:
        previous, self._conn = self._conn, conn
        if previous is not None:
            # a restarted service worker: what the old socket knew (and was asked) is gone with it
            self._drop("the extension reconnected")
            await previous.close(1000, "replaced by a newer connection")
        log.info("extension connected from %s", conn.remote_address)
        try:
            async for raw in conn:
                await self._receive(conn, raw)
        except ConnectionClosed:
            pass
        finally:
            if self._conn is conn:
                self._conn = None
                self._drop("the browser extension disconnected")

    def _drop(self, why: str) -> None:
        """The current link is gone: unlink, fail what was pending, and tell the runtime once."""
        self.recorder.write("closed")
        was_linked = self.linked
        self._linked.clear()
        self.hello = None
        self._fail_pending(p.ErrorCode.DISCONNECTED, why)
        if was_linked:
            self.events.put_nowait(LinkLost(why))
        log.info("extension link dropped: %s", why)

    async def _receive(self, conn: ServerConnection, raw: str | bytes) -> None:
        try:
            message = p.parse_extension_message(raw)
        except p.ProtocolError as exc:
            log.warning("rejected frame from extension: %s", exc.message)
            await conn.send(p.encode(p.ServerError(id=exc.frame_id, code=exc.code, message=exc.message)))
            return
        if not isinstance(message, p.Ping):
            self.recorder.write("recv", frame=message.model_dump(exclude_none=True))
        match message:
            case p.Ping():
                await conn.send(p.encode(p.Pong()))
            case p.Hello() if conn is self._conn:
                self.hello = message
                self._linked.set()
                self.events.put_nowait(LinkUp(message))
            case p.Connected() | p.Result() | p.ToolResult() | p.Error():
                self._resolve(message)
            case p.Disconnected():
                log.info("the browser says it is shutting down")
            case _:
                self.events.put_nowait(message)

    def _resolve(self, reply: p.Reply) -> None:
        entry = self._pending.get(reply.id) if reply.id else None
        if entry is None:
            if isinstance(reply, p.Error):
                log.warning("extension reported an error: %s %s", reply.code, reply.message)
            else:
                log.warning("late or unknown answer %r dropped", reply.id)
            return
        future, _ = entry
        if not future.done():
            future.set_result(reply)
