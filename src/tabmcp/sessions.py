"""The MCP sessions of one process: which client a request comes from, and the workspace it works in.

Handshake-era sessions are kept in a registry keyed by a connection-stable id (the SDK builds a new
session proxy per message), so a workspace's tool list change and resource updates reach its own
clients (``App.notify_tools_changed``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import suppress
from typing import Any

from mcp.server import ServerRequestContext
from mcp.server.session import ServerSession

from tabmcp.told import Told
from tabmcp.workspaces import LOCAL


class SessionRegistry:
    """Handshake-era sessions, keyed by something that lives as long as their connection, and the
    workspace each one works in (so a workspace's list change reaches its own clients)."""

    def __init__(self, on_end: Callable[[str], Awaitable[None]] | None = None) -> None:
        self._sessions: dict[str, ServerSession] = {}
        self._workspace: dict[str, str] = {}  # session key -> workspace key
        self._subscriptions: dict[str, set[str]] = {}  # session key -> resource URIs
        self._static: set[str] = set()  # sessions with the fixed tool list: no list_changed for them
        self._told: dict[str, Told] = {}  # static sessions: the page tools each was told (told.py)
        self._on_end = on_end

    def remember(self, ctx: ServerRequestContext[Any, Any], workspace: str = LOCAL, *, static: bool = False) -> str:
        key = self._key(ctx)
        if key not in self._sessions:
            ctx.session._connection.exit_stack.push_async_callback(self._forget, key)
        self._sessions[key] = ctx.session
        self._workspace[key] = workspace
        if static:
            self._static.add(key)
        else:
            self._static.discard(key)
        return key

    def knows(self, ctx: ServerRequestContext[Any, Any]) -> bool:
        return self._key(ctx) in self._sessions

    def told(self, ctx: ServerRequestContext[Any, Any]) -> Told | None:
        """The page tools this session was told (static mode), None for a request with no session."""
        key = self._key(ctx)
        if key not in self._sessions:
            return None
        return self._told.setdefault(key, Told())

    @staticmethod
    def _key(ctx: ServerRequestContext[Any, Any]) -> str:
        connection = ctx.session._connection  # private, but the only connection-stable handle in mcp 2.3
        return session_id_of(ctx) or f"conn-{id(connection)}"

    async def _forget(self, key: str) -> None:
        self._sessions.pop(key, None)
        self._workspace.pop(key, None)
        self._subscriptions.pop(key, None)
        self._static.discard(key)
        self._told.pop(key, None)
        if self._on_end is not None:
            await self._on_end(key)

    def _of(self, workspace: str | None) -> list[tuple[str, ServerSession]]:
        return [
            (key, session)
            for key, session in list(self._sessions.items())
            if workspace is None or self._workspace.get(key) == workspace
        ]

    def subscribe(self, ctx: ServerRequestContext[Any, Any], uri: str) -> None:
        """The session was remembered, with its workspace, by the server's middleware: only the key is
        looked up here (remembering it again would tie it to the default workspace)."""
        self._subscriptions.setdefault(self._key(ctx), set()).add(uri)

    def unsubscribe(self, ctx: ServerRequestContext[Any, Any], uri: str) -> None:
        self._subscriptions.get(self._key(ctx), set()).discard(uri)

    async def broadcast(self, workspace: str | None = None) -> None:
        """``tools/list_changed`` to every session of ``workspace`` (all sessions when None) whose
        tool list can change (not to static-mode sessions: their list is fixed)."""
        for key, session in self._of(workspace):
            if key in self._static:
                continue
            with suppress(Exception):  # a connection that just died is not our problem
                await session.send_tool_list_changed()

    async def resource_updated(self, uri: str, workspace: str | None = None) -> None:
        for key, session in self._of(workspace):
            if uri in self._subscriptions.get(key, ()):
                with suppress(Exception):
                    await session.send_resource_updated(uri)


def _headers(ctx: ServerRequestContext[Any, Any]) -> Any:
    return getattr(ctx.request, "headers", None)


def session_id_of(ctx: ServerRequestContext[Any, Any]) -> str | None:
    headers = _headers(ctx)
    return headers.get("mcp-session-id") if headers is not None else None


def workspace_name_of(ctx: ServerRequestContext[Any, Any]) -> str | None:
    """The workspace a client asks for: ``?workspace=`` on the endpoint URL or a ``Tabmcp-Workspace``
    header (URL parameters work in every client's config; not every client can set headers)."""
    request = ctx.request
    query = getattr(request, "query_params", None)
    name = query.get("workspace") if query is not None else None
    headers = _headers(ctx)
    if not name and headers is not None:
        name = headers.get("tabmcp-workspace")
    return name or None


def client_name_of(ctx: ServerRequestContext[Any, Any]) -> str | None:
    params = getattr(ctx.session, "client_params", None)
    info = getattr(params, "client_info", None)
    return getattr(info, "name", None)
