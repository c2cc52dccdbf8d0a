"""``tabmcp serve --http HOST:PORT``: Streamable HTTP, stateful sessions, several clients at once.

The SDK's app does the protocol and the DNS-rebinding checks (a foreign Origin → 403, a foreign
Host → 421). In front of it, ``Gate`` asks for a bearer token (always when one is configured, and
one is required whenever the server is not bound to loopback) and turns the session cap into an
answer that says what to do. Each client works in its own workspace (``workspaces.py``).
"""

from __future__ import annotations

import hmac
import json
import logging
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from dataclasses import dataclass
from typing import Any

from mcp.server.transport_security import TransportSecuritySettings
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from tabmcp.addresses import is_loopback, url_host
from tabmcp.config import Settings
from tabmcp.jsonrpc_check import HEAD_BYTES, MAX_MESSAGE_BYTES, TooLarge, check_message, too_large

log = logging.getLogger(__name__)
ENDPOINT = "/mcp"
Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class HttpConfigError(ValueError):
    """A setting that makes HTTP unsafe or impossible: the server does not start."""


@dataclass(frozen=True)
class Endpoint:
    host: str
    port: int

    @property
    def loopback(self) -> bool:
        return is_loopback(self.host)

    @property
    def url(self) -> str:
        return f"http://{url_host(self.host)}:{self.port}{ENDPOINT}"


def parse_endpoint(value: str) -> Endpoint:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6; ``:PORT`` or a bare port means 127.0.0.1)."""
    text = value.strip()
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = "", text
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise HttpConfigError(f"--http wants HOST:PORT (for example 127.0.0.1:8766), not {value!r}")
    return Endpoint(host, int(port))


def transport_security(endpoint: Endpoint, settings: Settings) -> TransportSecuritySettings:
    """Host and Origin allow-lists: loopback names always, the bound address, and configured extras.
    Browsers send an Origin; a web page on another site must never reach a local MCP endpoint."""
    hosts = ["127.0.0.1:*", "localhost:*", "[::1]:*"]
    origins = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"]
    if not endpoint.loopback:
        bound = url_host(endpoint.host)
        hosts.append(f"{bound}:{endpoint.port}")
        origins.append(f"http://{bound}:{endpoint.port}")
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[*hosts, *settings.http_allowed_hosts],
        allowed_origins=[*origins, *settings.http_allowed_origins],
    )


MIN_HTTP_TOKEN_CHARS = 16


def required_token(endpoint: Endpoint, settings: Settings) -> str | None:
    """The bearer token clients must send, or None on loopback when none is configured. Off
    loopback the server does not start without one: anyone on the network could drive the browser."""
    token = settings.http_token
    if token is not None and len(token) < MIN_HTTP_TOKEN_CHARS:
        raise HttpConfigError(
            f"TABMCP_HTTP_TOKEN is too short ({len(token)} characters; use at least {MIN_HTTP_TOKEN_CHARS}, "
            "for example the output of `python -c 'import secrets; print(secrets.token_urlsafe(32))'`)."
        )
    if token is None and not endpoint.loopback:
        raise HttpConfigError(
            f"--http {endpoint.host}:{endpoint.port} is not a loopback address: set a bearer token "
            "(TABMCP_HTTP_TOKEN or --http-token) that every client must send, or bind to 127.0.0.1."
        )
    return token


async def _json_error(send: Send, status: int, message: str, headers: Sequence[tuple[bytes, bytes]] = ()) -> None:
    error = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": message}}
    await _json_reply(send, status, json.dumps(error).encode(), headers)


async def _json_reply(send: Send, status: int, body: bytes, headers: Sequence[tuple[bytes, bytes]] = ()) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *headers],
        }
    )
    await send({"type": "http.response.body", "body": body})


class Gate:
    """ASGI middleware in front of the SDK app: bearer token, a JSON-RPC error for a malformed POST body
    (``jsonrpc_check.py``), and a readable session cap."""

    def __init__(
        self,
        inner: ASGIApp,
        *,
        token: str | None,
        max_sessions: int,
        open_sessions: Callable[[], int],
        idle_timeout: float,
    ) -> None:
        self.inner = inner
        self.token = token
        self.max_sessions = max_sessions
        self.open_sessions = open_sessions
        self.idle_timeout = idle_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.inner(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        if self.token is not None and not self._authorized(headers.get("authorization", "")):
            log.warning("HTTP request without a valid bearer token from %s refused", scope.get("client"))
            await _json_error(
                send,
                401,
                "Unauthorized: send 'Authorization: Bearer <token>' with the server's HTTP token "
                "(TABMCP_HTTP_TOKEN / --http-token).",
                [(b"www-authenticate", b'Bearer realm="tabmcp"')],
            )
            return
        if scope.get("method") == "POST":
            body = await _read_body(receive)
            if body is None:
                return  # the client went away before it finished sending
            if isinstance(body, TooLarge):
                await _json_reply(send, 413, too_large(body.head).model_dump_json(by_alias=True).encode())
                return
            error = check_message(body)
            if error is not None:  # answered here: the SDK would answer -32602 with pydantic's dump of the input
                await _json_reply(send, 400, error.model_dump_json(by_alias=True, exclude_unset=True).encode())
                return
            receive = _replay(body, receive)
        opening = (
            scope.get("method") == "POST"
            and "mcp-session-id" not in headers
            # 2026-07-28 requests are sessionless: they never open a session, so the cap is not theirs
            and headers.get("mcp-protocol-version") not in MODERN_PROTOCOL_VERSIONS
        )
        if opening and self.open_sessions() >= self.max_sessions:
            log.warning("new HTTP session refused: %d sessions open", self.max_sessions)
            await _json_error(
                send,
                503,
                f"tabmcp serves at most {self.max_sessions} sessions at once (TABMCP_MAX_SESSIONS) and all are "
                f"taken. Close another client, or retry later: sessions idle for {self.idle_timeout:g} s are closed.",
            )
            return
        await self.inner(scope, receive, send)

    def _authorized(self, header: str) -> bool:
        scheme, _, presented = header.partition(" ")
        return (
            self.token is not None
            and scheme.lower() == "bearer"
            and hmac.compare_digest(presented.strip().encode(), self.token.encode())
        )


async def _read_body(receive: Receive) -> bytes | TooLarge | None:
    """The request's body; None when the client went away; past ``MAX_MESSAGE_BYTES``, its head."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunk = message.get("body", b"")
        size += len(chunk)
        chunks.append(chunk)
        if size > MAX_MESSAGE_BYTES:
            return TooLarge(b"".join(chunks)[:HEAD_BYTES])
        if not message.get("more_body", False):
            return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """``receive`` for the app behind the gate: the body already read, then the client's own events
    (the SDK waits on them for a disconnect)."""
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def replayed() -> MutableMapping[str, Any]:
        return pending.pop() if pending else await receive()

    return replayed


def build_http_app(settings: Settings, endpoint: Endpoint) -> tuple[Any, ASGIApp]:
    """The server (shared: one workspace per client) and the ASGI application that serves it."""
    from tabmcp.server import tabmcp_server

    token = required_token(endpoint, settings)
    server = tabmcp_server(settings, shared=True)
    inner = server.streamable_http_app(
        streamable_http_path=ENDPOINT,
        session_idle_timeout=settings.session_idle_timeout,
        max_sessions=settings.max_sessions,
        transport_security=transport_security(endpoint, settings),
        host=endpoint.host,
    )

    def open_sessions() -> int:
        manager = getattr(server, "_session_manager", None)  # the SDK keeps its sessions privately
        return len(getattr(manager, "_server_instances", {}))

    gate = Gate(
        inner,
        token=token,
        max_sessions=settings.max_sessions,
        open_sessions=open_sessions,
        idle_timeout=settings.session_idle_timeout,
    )
    return server, gate


async def serve_http(settings: Settings) -> None:
    import uvicorn

    endpoint = parse_endpoint(settings.http or "")
    _server, asgi = build_http_app(settings, endpoint)
    config = uvicorn.Config(asgi, host=endpoint.host, port=endpoint.port, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    log.info("MCP over Streamable HTTP at %s", endpoint.url)
    await server.serve()
