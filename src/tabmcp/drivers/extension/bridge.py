"""The WebSocket server the extension connects to.

It correlates requests with answers by id, gives every request a timeout, answers ``ping``, and
turns every other frame into an item on ``events`` (consumed in order by the runtime), so that
nothing that awaits a browser answer ever runs on the reader loop itself. Page events (``pageEvents``
frames) are the exception: they go at once, on the reader loop, to ``page_events`` (the page host),
so that an event that arrived before an answer is applied before the call awaiting that answer
resumes. When the socket goes, every pending request fails with ``DISCONNECTED`` and a ``LinkLost``
event is queued.

Only tabmcp's extension may link (docs/security.md): the handshake's ``Origin`` must be an allowed
``chrome-extension://`` origin, and the first frame must be a ``hello`` carrying the pairing token
(``pairing.py``). Anything else is closed with a code and a reason the extension can show. Until its
hello is accepted a socket may send small frames only, and only a few such sockets may wait at once,
so that unpaired sockets cannot make the server hold much memory; refusals are logged at a bounded
rate (``logthrottle.py``). A linked socket that sends frames too large or too fast is cut off; the
bridge itself always keeps serving.

The same handler also serves a local Unix socket (``native/listener.py``), where the native
messaging host relays for an extension that cannot reach a TCP port (docs/native-messaging.md): the
host forwards Chrome's caller origin as ``Origin``, so every check above applies unchanged.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.frames import CloseCode
from websockets.http11 import Request, Response

from tabmcp import __version__, pairing
from tabmcp import protocol as p
from tabmcp.addresses import is_loopback, url_host
from tabmcp.config import Settings
from tabmcp.drivers.base import DriverError, NoAnswer, PageChanged
from tabmcp.drivers.host import FrameGone
from tabmcp.logthrottle import LogThrottle
from tabmcp.native import socket_path
from tabmcp.native.listener import ListenError, LocalSocket
from tabmcp.record import NullRecorder, Recorder
from tabmcp.tokenbucket import TokenBucket

log = logging.getLogger(__name__)

# Close codes (docs/protocol.md "Pairing and refusals"). 4000–4999 are the application's own.
CLOSE_REPLACED = 4000  # a newer socket of the same browser took the link over
CLOSE_NOT_PAIRED = 4001  # hello without the right pairing token
CLOSE_ORIGIN = 4003  # not an allowed chrome-extension:// origin
CLOSE_BUSY = 4009  # another browser is linked
CLOSE_POLICY = int(CloseCode.POLICY_VIOLATION)  # 1008: no hello first / in time, too many messages
CLOSE_TOO_BIG = int(CloseCode.MESSAGE_TOO_BIG)  # 1009: a frame over the limit (websockets)
CLOSE_TRY_LATER = int(CloseCode.TRY_AGAIN_LATER)  # 1013: too many sockets waiting to say hello

HELLO_MAX_BYTES = 64 * 1024  # the largest frame a socket may send before its hello is accepted
MAX_UNAUTHENTICATED = 16  # sockets that may wait for their hello at once; more are refused at once
REFUSAL_LOG_BURST = 5  # refusals logged in full per interval; the rest are counted
REFUSAL_LOG_INTERVAL = 10.0

MAX_REASON_BYTES = 123  # a close frame's payload is 125 bytes, 2 of them the code
PASTE_TOKEN = "run `tabmcp token` and paste it in the extension's options"
TOKEN_MISSING = f"pairing token missing: {PASTE_TOKEN}"
TOKEN_WRONG = f"wrong pairing token: {PASTE_TOKEN}"
NO_ORIGIN = "no Origin header: only the tabmcp browser extension may connect"
HELLO_FIRST = "the first frame must be hello, with the pairing token"
BUSY = "another browser is already linked to this tabmcp server; close that one first"
REPLACED = "replaced by a newer connection from this browser"
TOO_MANY = "too many messages"
TOO_MANY_WAITING = "too many connections waiting to say hello; try again"
BURST_SECONDS = 2.0  # a connection may send this many seconds' worth of frames at once
# how the extension's close reason starts when its user pressed Disconnect in the popup (background.js)
USER_DISCONNECT = "disconnected by the user"


# a plain HTTP GET (no WebSocket upgrade) from this machine is answered with this line, so that
# `tabmcp doctor` can tell a running tabmcp from another program holding the port
IDENTITY = re.compile(r"^tabmcp (?P<version>\S+) extension bridge, pid (?P<pid>\d+)$")


def identity() -> str:
    return f"tabmcp {__version__} extension bridge, pid {os.getpid()}"


def close_reason(text: str) -> str:
    """``text`` cut to what a close frame can carry (whole UTF-8 characters)."""
    data = text.encode("utf-8")
    if len(data) <= MAX_REASON_BYTES:
        return text
    return data[: MAX_REASON_BYTES - 3].decode("utf-8", "ignore") + "..."


class Refused(Exception):
    """A connection that may not link: closed with ``code`` and ``reason``."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = close_reason(reason)


@dataclass(frozen=True)
class LinkUp:
    hello: p.Hello


@dataclass(frozen=True)
class LinkLost:
    reason: str


# PageChanged: put here by the extension driver (its page session's), to keep one ordered stream
BridgeEvent = (
    LinkUp | LinkLost | p.TabCreated | p.TabUpdated | p.TabClosed | p.TabFocused | p.TabCrashed | p.UserSettings
    | p.NavigationBlocked | PageChanged
)


class Bridge:
    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 8765,
        request_timeout: float = 30.0,
        recorder: Recorder | None = None,
        *,
        token: str,
        extension_ids: Iterable[str] = (),
        allow_remote: bool = False,
        max_frame_bytes: int = 16 * 2**20,
        max_frames_per_second: float = 500,
        hello_timeout: float = 5.0,
        max_hello_bytes: int = HELLO_MAX_BYTES,
        max_unauthenticated: int = MAX_UNAUTHENTICATED,
        refusal_log_interval: float = REFUSAL_LOG_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
        native_socket: Path | None = None,
    ) -> None:
        if not token:
            raise ValueError("the bridge needs a pairing token")
        self.recorder = recorder or NullRecorder()
        # a frame is dumped for the recorder only when one records (a large answer's dump costs ms)
        self._recording = not isinstance(self.recorder, NullRecorder)
        self.host = host
        self.port = port
        self.request_timeout = request_timeout
        self.token = token
        self.allowed_origins = pairing.allowed_origins(extension_ids)
        self.allow_remote = allow_remote
        self.max_frame_bytes = max_frame_bytes
        self.max_frames_per_second = max_frames_per_second
        self.hello_timeout = hello_timeout
        self.max_hello_bytes = min(max_hello_bytes, max_frame_bytes)
        self.max_unauthenticated = max_unauthenticated
        self._unauthenticated = 0  # sockets between the WebSocket handshake and an accepted hello
        self._refusal_log = LogThrottle(REFUSAL_LOG_BURST, refusal_log_interval)
        self._refusal_summary: asyncio.TimerHandle | None = None
        self._clock = clock
        self.events: asyncio.Queue[BridgeEvent] = asyncio.Queue()
        # the page host's hooks, called synchronously in arrival order (they must not block): each
        # pageEvents frame, the id of each tab a tab event is about, each result (before its caller
        # resumes)
        self.page_events: Callable[[p.PageEvents], None] | None = None
        self.tab_news: Callable[[int], None] | None = None
        self.results: Callable[[p.Result], None] | None = None
        self.hello: p.Hello | None = None
        # why nothing listens (connect_browser reports it); with the native socket up, a TCP failure
        # alone is only logged (``tcp_error``): that socket is for machines where TCP is blocked
        self.start_error: str | None = None
        self.tcp_error: str | None = None
        self.native: LocalSocket | None = LocalSocket(native_socket) if native_socket is not None else None
        self.native_error: str | None = None
        # why the latest connection was refused (cleared when one links): for "no browser found" hints
        self.last_refusal: str | None = None
        # the last link ended because the browser's user pressed Disconnect (cleared when one links)
        self.user_disconnected = False
        self._server: Server | None = None
        self._conn: ServerConnection | None = None
        self._pending: dict[str, tuple[asyncio.Future[p.Reply], str]] = {}
        self._ids = itertools.count(1)
        self._linked = asyncio.Event()
        self._closing: set[asyncio.Task[None]] = set()

    @classmethod
    def from_settings(cls, settings: Settings, recorder: Recorder | None = None) -> Bridge:
        """The bridge a server runs: its pairing token (``pairing.resolve_token``), origins and limits.

        A token that cannot be read or stored (a read-only home) must not stop the MCP server: this
        run then uses a one-off token, which a browser tabmcp launches still gets.
        """
        try:
            token = pairing.resolve_token(settings.pairing_token, settings.config_dir)
        except OSError as exc:
            token = pairing.new_token()
            log.error(
                "cannot read or store the pairing token (%s); using a one-off token for this run: only a "
                "browser tabmcp launches can pair. Set TABMCP_PAIRING_TOKEN or --config-dir.",
                exc,
            )
        return cls(
            settings.ws_host,
            settings.ws_port,
            settings.request_timeout,
            recorder,
            token=token,
            extension_ids=settings.extension_ids,
            allow_remote=settings.ws_allow_remote,
            max_frame_bytes=settings.ws_max_frame_bytes,
            max_frames_per_second=settings.ws_max_frames_per_second,
            native_socket=socket_path(settings.native_socket, settings.config_dir) if settings.native_bridge else None,
        )

    # ------------------------------------------------------------- lifecycle

    async def start(self) -> None:
        self.tcp_error = await self._start_tcp()
        if self.native is not None:
            try:
                await self.native.start(self._handle, max_size=self.max_hello_bytes)
            except ListenError as exc:
                self.native_error = str(exc)
                log.warning("native messaging socket not started: %s", exc)
            else:
                log.info("extension bridge also listening on %s (native messaging)", self.native.path)
        if self.tcp_error is None:
            return
        if self.native is None or self.native_error is not None:
            self.start_error = "; ".join(e for e in (self.tcp_error, self.native_error) if e)
            log.error("extension bridge not started: %s", self.start_error)
        else:
            log.error("extension bridge not listening on TCP (native messaging only): %s", self.tcp_error)

    async def _start_tcp(self) -> str | None:
        """Listen on the TCP address; the reason it cannot, if it cannot."""
        if not self.allow_remote and not is_loopback(self.host):
            return (
                f"refusing to listen on {self.host}: the extension bridge binds a loopback address only "
                "(127.0.0.1, ::1, localhost) unless TABMCP_WS_ALLOW_REMOTE=true / --ws-allow-remote"
            )
        try:
            self._server = await serve(
                self._handle,
                self.host,
                self.port,
                max_size=self.max_hello_bytes,  # raised to max_frame_bytes once the hello is accepted
                process_request=self._identify,
            )
        except OSError as exc:
            return f"cannot listen on {self.host}:{self.port}: {exc.strerror or exc}"
        self.port = self._server.sockets[0].getsockname()[1]
        log.info("extension bridge listening on %s", self.url)
        if not is_loopback(self.host):
            log.warning("the extension bridge is reachable from other machines (%s)", self.host)
        return None

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        if self.native is not None:
            await self.native.stop()
        if self._refusal_summary is not None:
            self._refusal_summary.cancel()
            self._report_suppressed_refusals()
        self._fail_pending(p.ErrorCode.DISCONNECTED, "the server is shutting down")

    @property
    def url(self) -> str:
        return f"ws://{url_host(self.host)}:{self.port}"

    @property
    def waiting_for_hello(self) -> int:
        """Sockets past the WebSocket handshake whose hello has not been accepted yet."""
        return self._unauthenticated

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
        """Send a request and wait for its answer; raise DriverError on error, timeout or drop."""
        conn = self._conn
        if conn is None or not self.linked:
            raise DriverError(p.ErrorCode.DISCONNECTED, "the browser extension is not connected")
        message = message.model_copy(update={"id": f"r{next(self._ids)}"})
        text = p.encode(message)
        if (size := _utf8_size(text)) > self.max_frame_bytes:
            # sent, it would end the link for every call on it; refused, it fails this call alone
            raise DriverError(
                p.ErrorCode.FRAME_TOO_LARGE, too_large(f"the {message.type!r} request", size, self.max_frame_bytes)
            )
        future: asyncio.Future[p.Reply] = asyncio.get_running_loop().create_future()
        self._pending[message.id] = (future, message.type)
        wait = self.request_timeout if timeout is None else timeout
        try:
            if self._recording:
                self.recorder.write("send", frame=message.model_dump(exclude_none=True))
            await conn.send(text)
            reply = await asyncio.wait_for(future, wait)
        except TimeoutError:
            raise NoAnswer(f"the browser did not answer {message.type!r} within {wait:g} s") from None
        except ConnectionClosed:
            raise DriverError(p.ErrorCode.DISCONNECTED, "the browser extension disconnected") from None
        finally:
            self._pending.pop(message.id, None)
        if isinstance(reply, p.Error):
            raise FrameGone(reply.message) if reply.frameGone else DriverError(reply.code, reply.message)
        return reply

    async def notify(self, message: p.Controlled) -> bool:
        """Send a notice that gets no answer; False when no browser is linked to hear it (nothing is queued:
        a notice says how things are now, and a browser that links later starts from a clean slate)."""
        conn = self._conn
        if conn is None or not self.linked:
            return False
        self.recorder.write("send", frame=message.model_dump(exclude_none=True))
        try:
            await conn.send(p.encode(message))
        except ConnectionClosed:
            return False
        return True

    def _fail_pending(self, code: str, why: str) -> None:
        for future, kind in list(self._pending.values()):
            if not future.done():
                future.set_exception(DriverError(code, f"{why} while {kind!r} was pending"))
        self._pending.clear()

    # ------------------------------------------------------------- connection

    def _identify(self, conn: ServerConnection, request: Request) -> Response | None:
        """Answer a plain GET (not a WebSocket upgrade) with ``identity()``; let every upgrade through.

        It never reaches ``_handle``, so it is no refusal and changes no state. A web page cannot
        read the answer (no CORS header), and a DNS name rebound to 127.0.0.1 gets the usual
        upgrade error instead (the Host must be a loopback address).
        """
        if request.headers.get("Upgrade", "").lower() == "websocket":
            return None
        if not is_loopback(urlsplit("//" + request.headers.get("Host", "")).hostname or ""):
            return None
        return conn.respond(200, identity() + "\n")

    async def _handle(self, conn: ServerConnection) -> None:
        if self._unauthenticated >= self.max_unauthenticated:
            self._refuse_log(conn, f"{self.max_unauthenticated} others are waiting to say hello")
            self.last_refusal = TOO_MANY_WAITING
            await conn.close(CLOSE_TRY_LATER, TOO_MANY_WAITING)
            return
        self._unauthenticated += 1
        try:
            hello = await self._admit(conn)
        except Refused as refused:
            self._refuse_log(conn, refused.reason)
            self.last_refusal = refused.reason
            await conn.close(refused.code, refused.reason)
            return
        except ConnectionClosed:
            sent = conn.protocol.close_sent
            if sent is not None and sent.code == CLOSE_TOO_BIG:
                self._refuse_log(conn, f"a frame over {self.max_hello_bytes} bytes before hello")
            return  # it went away before saying hello
        finally:
            self._unauthenticated -= 1
        # paired: from now on a frame may be as large as a linked extension's may be
        conn.protocol.max_message_size = self.max_frame_bytes
        self._link(conn, hello)
        why = "the browser extension disconnected"
        budget = TokenBucket(self.max_frames_per_second, self.max_frames_per_second * BURST_SECONDS, self._clock())
        try:
            async for raw in conn:
                if self._conn is not conn:
                    continue  # replaced: what it still sends until it is closed is not news
                if budget.take(self._clock()) is not None:
                    why = f"the extension sent more than {self.max_frames_per_second:g} messages a second"
                    log.warning("cut off the extension: %s", why)
                    self._unlink(conn, why)  # pending calls fail now, not after the close handshake
                    await conn.close(CLOSE_POLICY, TOO_MANY)
                    break
                await self._receive(conn, raw)
        except ConnectionClosed:
            pass
        finally:
            said = conn.protocol.close_rcvd
            if said is not None and said.code == CloseCode.NORMAL_CLOSURE and said.reason:
                why = f"the browser extension disconnected: {said.reason}"
                if self._conn is conn and said.reason.startswith(USER_DISCONNECT):
                    self.user_disconnected = True
            sent = conn.protocol.close_sent
            if sent is not None and sent.code == CLOSE_TOO_BIG:
                why = f"the extension sent a frame over {self.max_frame_bytes} bytes (ws_max_frame_bytes)"
                log.warning("cut off the extension: %s", why)
            self._unlink(conn, why)

    def _refuse_log(self, conn: ServerConnection, why: str) -> None:
        """Log a refusal, unless too many came this interval: those are counted and summed up later."""
        loop = asyncio.get_running_loop()
        if self._refusal_log.take(loop.time()):
            log.warning("refused an extension connection from %s: %s", _peer(conn), why)
        elif self._refusal_summary is None:
            self._refusal_summary = loop.call_at(self._refusal_log.window_end(), self._report_suppressed_refusals)

    def _report_suppressed_refusals(self) -> None:
        self._refusal_summary = None
        if count := self._refusal_log.suppressed():
            log.warning(
                "refused %d more extension connections in %g s (not logged one by one)",
                count,
                self._refusal_log.interval,
            )

    async def _admit(self, conn: ServerConnection) -> p.Hello:
        """The connection's hello if it may link; raise Refused otherwise."""
        origins = conn.request.headers.get_all("Origin") if conn.request is not None else []
        if not origins:
            raise Refused(CLOSE_ORIGIN, NO_ORIGIN)
        if len(origins) > 1 or origins[0] not in self.allowed_origins:
            raise Refused(
                CLOSE_ORIGIN,
                f"origin not allowed: {', '.join(origins)[:60]} (allow an extension id with --extension-id)",
            )
        try:
            raw = await asyncio.wait_for(conn.recv(), self.hello_timeout)
        except TimeoutError:
            raise Refused(CLOSE_POLICY, f"no hello within {self.hello_timeout:g} s") from None
        try:
            hello = p.parse_extension_message(raw)
        except p.ProtocolError as exc:
            raise Refused(CLOSE_POLICY, f"{HELLO_FIRST} ({exc.message})") from None
        if not isinstance(hello, p.Hello):
            raise Refused(CLOSE_POLICY, f"{HELLO_FIRST}, not {hello.type!r}")
        if not hello.token:
            raise Refused(CLOSE_NOT_PAIRED, TOKEN_MISSING)
        if not pairing.tokens_match(hello.token, self.token):
            raise Refused(CLOSE_NOT_PAIRED, TOKEN_WRONG)
        if self._conn is not None and not self._same_browser(hello):
            raise Refused(CLOSE_BUSY, BUSY)
        return hello.model_copy(update={"token": None})  # the secret stops here

    def _same_browser(self, hello: p.Hello) -> bool:
        current = self.hello.instance if self.hello is not None else None
        return current is not None and hello.instance == current

    def _link(self, conn: ServerConnection, hello: p.Hello) -> None:
        previous = self._conn
        if previous is not None:
            # the same browser's restarted service worker: the old socket and what it was asked are gone
            self._unlink(previous, "the extension reconnected")
            closing = asyncio.get_running_loop().create_task(previous.close(CLOSE_REPLACED, REPLACED))
            self._closing.add(closing)
            closing.add_done_callback(self._closing.discard)
        self._conn = conn
        self.hello = hello
        self.last_refusal = None
        self.user_disconnected = False
        self.recorder.write("recv", frame=hello.model_dump(exclude_none=True))
        self._linked.set()
        self.events.put_nowait(LinkUp(hello))
        log.info("extension linked from %s (%s %s)", _peer(conn), hello.browser.name, hello.browser.version)

    def _unlink(self, conn: ServerConnection, why: str) -> None:
        if self._conn is conn:
            self._conn = None
            self._drop(why)

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
        if self._recording and not isinstance(message, p.Ping | p.Hello):
            self.recorder.write("recv", frame=message.model_dump(exclude_none=True))
        match message:
            case p.Ping():
                await conn.send(p.encode(p.Pong(maxFrameBytes=self.max_frame_bytes)))
            case p.Hello():
                log.warning("ignored a second hello on a linked connection")
            case p.Result() if self.results is not None:
                self.results(message)
                self._resolve(message)
            case p.Connected() | p.Result() | p.Error():
                self._resolve(message)
            case p.Disconnected():
                log.info("the browser says it is shutting down")
            case p.PageEvents():
                if self.page_events is not None:
                    self.page_events(message)
            case p.TabCreated(tab=p.TabInfo(id=tab_id)) | p.TabUpdated(tab=p.TabInfo(id=tab_id)):
                if self.tab_news is not None:
                    self.tab_news(tab_id)
                self.events.put_nowait(message)
            case p.TabClosed(tabId=tab_id) | p.TabCrashed(tabId=tab_id):
                if self.tab_news is not None:
                    self.tab_news(tab_id)
                self.events.put_nowait(message)
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


def too_large(what: str, size: int, limit: int) -> str:
    return (
        f"{what} is {size:,} bytes, over the browser link's {limit:,}-byte frame limit (ws_max_frame_bytes); "
        "ask for less: a shorter text, a smaller part of the page"
    )


def _utf8_size(text: str) -> int:
    """The bytes ``text`` takes on the wire as UTF-8."""
    return len(text) if text.isascii() else len(text.encode("utf-8"))


def _peer(conn: ServerConnection) -> str:
    address = conn.remote_address
    if isinstance(address, tuple) and len(address) >= 2:
        return f"{address[0]}:{address[1]}"
    return "the native messaging host (local socket)" if isinstance(address, str) else "?"
