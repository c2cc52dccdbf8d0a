"""MCP glue: ``tools/list`` from state, dispatch of ``tools/call``, and the one notify path.

Built on the low-level ``mcp`` 2.3 ``Server`` because the tool list is computed per request.
``notify_tools_changed`` reaches both protocol eras: handshake-era sessions (kept in a registry
keyed by a connection-stable id, since the SDK builds a new session proxy per message) and
2026-07-28 ``subscriptions/listen`` streams (through the subscription bus).
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import Any

import mcp_types as types
from mcp.server import NotificationOptions, Server, ServerRequestContext
from mcp.server.models import InitializationOptions
from mcp.server.session import ServerSession
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ResourceUpdated, ToolsListChanged
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from tabmcp import __version__
from tabmcp import state as s
from tabmcp.bridge import Bridge
from tabmcp.config import Settings
from tabmcp.drivers.extension import ExtensionDriver
from tabmcp.drivers.launch import ChromiumLauncher
from tabmcp.introspect.api import PageTool, ToolHints
from tabmcp.introspect.registry import Registry
from tabmcp.record import recorder_for
from tabmcp.resources import BY_URI, RESOURCES
from tabmcp.runtime import Runtime
from tabmcp.tools import CATALOG, CoreTool, ToolContext, ToolFailure
from tabmcp.tools.base import Image, Output, Text
from tabmcp.tools.page_tools import call_page_tool

log = logging.getLogger(__name__)
INSTRUCTIONS = (
    "tabmcp drives a real browser. The tool list follows the browser's state: connect_browser first, "
    "then open or focus a tab; the focused tab adds tools made for its page. Re-read the tool list "
    "when notified that it changed."
)


class SessionRegistry:
    """Handshake-era sessions, keyed by something that lives as long as their connection."""

    def __init__(self) -> None:
        self._sessions: dict[str, ServerSession] = {}
        self._subscriptions: dict[str, set[str]] = {}  # session key -> resource URIs

    def remember(self, ctx: ServerRequestContext[Any, Any]) -> str:
        headers = getattr(ctx.request, "headers", None)
        session_id = headers.get("mcp-session-id") if headers is not None else None
        connection = ctx.session._connection  # private, but the only connection-stable handle in mcp 2.3
        key = session_id or f"conn-{id(connection)}"
        if key not in self._sessions:
            connection.exit_stack.callback(self._forget, key)
        self._sessions[key] = ctx.session
        return key

    def _forget(self, key: str) -> None:
        self._sessions.pop(key, None)
        self._subscriptions.pop(key, None)

    def subscribe(self, ctx: ServerRequestContext[Any, Any], uri: str) -> None:
        self._subscriptions.setdefault(self.remember(ctx), set()).add(uri)

    def unsubscribe(self, ctx: ServerRequestContext[Any, Any], uri: str) -> None:
        self._subscriptions.get(self.remember(ctx), set()).discard(uri)

    async def broadcast(self) -> None:
        for session in list(self._sessions.values()):
            with suppress(Exception):  # a connection that just died is not our problem
                await session.send_tool_list_changed()

    async def resource_updated(self, uri: str) -> None:
        for key, uris in list(self._subscriptions.items()):
            session = self._sessions.get(key)
            if session is not None and uri in uris:
                with suppress(Exception):
                    await session.send_resource_updated(uri)


def _hints(hints: ToolHints) -> types.ToolAnnotations:
    return types.ToolAnnotations(
        read_only_hint=hints.read_only,
        destructive_hint=hints.destructive,
        idempotent_hint=hints.idempotent,
        open_world_hint=hints.open_world,
    )


@functools.cache  # core tools never change; tools/list runs on every refresh of every client
def core_tool_listing(tool: CoreTool) -> types.Tool:
    return types.Tool(
        name=tool.name,
        title=tool.title,
        description=tool.description,
        input_schema=tool.input_schema(),
        annotations=_hints(tool.hints),
    )


def page_tool_listing(tool: PageTool) -> types.Tool:
    return types.Tool(
        name=tool.name,
        title=tool.title,
        description=tool.description,
        input_schema=tool.schema,
        annotations=_hints(tool.hints),
    )


def _result(data: dict[str, Any], *, error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(data, ensure_ascii=False))],
        structured_content=data,
        is_error=error,
    )


def _output(output: Output) -> types.CallToolResult:
    match output:
        case Text(text=text):
            return types.CallToolResult(content=[types.TextContent(type="text", text=text)])
        case Image(data=data, mime_type=mime_type, caption=caption):
            return types.CallToolResult(
                content=[
                    types.ImageContent(type="image", data=data, mime_type=mime_type),
                    types.TextContent(type="text", text=caption),
                ]
            )
        case dict():
            return _result(output)
    raise TypeError(f"a tool returned {type(output).__name__}")


def _error(message: str, data: dict[str, Any] | None = None) -> types.CallToolResult:
    return _result({**(data or {}), "error": message}, error=True)  # the specific message wins


class TabmcpServer(Server[Any]):
    """The low-level server, advertising ``tools.listChanged`` on every transport."""

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        return super().create_initialization_options(
            notification_options or NotificationOptions(tools_changed=True),
            experimental_capabilities,
            extensions,
        )


class App:
    """Everything one tabmcp process owns: bridge, driver, runtime, launcher, MCP server."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.bus = InMemorySubscriptionBus()
        self.sessions = SessionRegistry()
        self.recorder = recorder_for(settings.record)
        self.bridge = Bridge(settings.ws_host, settings.ws_port, settings.request_timeout, self.recorder)
        self.registry = Registry.discover(settings.introspectors_dir)
        self.launcher = ChromiumLauncher(settings)
        # tools switched off in the settings (evaluate) do not exist for this process at all
        self.catalog = [t for t in CATALOG if t.enabled(settings)]
        self.runtime = Runtime(
            settings,
            ExtensionDriver(self.bridge),
            self.registry,
            self.catalog,
            self.notify_tools_changed,
            self.recorder,
            notify_resources=self.notify_resources_updated,
        )
        self.server = TabmcpServer(
            "tabmcp",
            version=__version__,
            instructions=INSTRUCTIONS,
            on_list_tools=self.on_list_tools,
            on_call_tool=self.on_call_tool,
            on_list_resources=self.on_list_resources,
            on_read_resource=self.on_read_resource,
            on_subscribe_resource=self.on_subscribe_resource,
            on_unsubscribe_resource=self.on_unsubscribe_resource,
            on_subscriptions_listen=ListenHandler(self.bus),
            lifespan=self.lifespan,
        )
        self.server.middleware.append(self._remember_sessions)

    # ------------------------------------------------------------- lifecycle

    @asynccontextmanager
    async def lifespan(self, _server: Server[Any]) -> AsyncIterator[dict[str, Any]]:
        await self.bridge.start()
        events = asyncio.get_running_loop().create_task(self.runtime.run_events())
        try:
            yield {}
        finally:
            self.recorder.close()  # what follows is shutdown, not part of the session
            events.cancel()
            await self.launcher.close()
            await self.bridge.stop()

    async def _remember_sessions(self, ctx: ServerRequestContext[Any, Any], call_next: Any) -> Any:
        if (
            ctx.request_id is not None
            and ctx.method != "initialize"
            and ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS
        ):
            self.sessions.remember(ctx)
        return await call_next(ctx)

    async def notify_tools_changed(self) -> None:
        """The one notification path: every handshake-era session, and every listen stream."""
        await self.sessions.broadcast()
        await self.bus.publish(ToolsListChanged())

    async def notify_resources_updated(self, uris: frozenset[str]) -> None:
        for uri in sorted(uris):
            await self.sessions.resource_updated(uri)
            await self.bus.publish(ResourceUpdated(uri=uri))

    # ------------------------------------------------------------- resources

    async def on_list_resources(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return types.ListResourcesResult(
            resources=[
                types.Resource(
                    uri=r.uri, name=r.name, title=r.title, description=r.description, mime_type=r.mime_type
                )
                for r in RESOURCES
            ]
        )

    async def on_read_resource(
        self, ctx: ServerRequestContext[Any, Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        resource = BY_URI.get(uri)
        if resource is None:
            raise MCPError(INVALID_PARAMS, f"Unknown resource {uri!r}; resources: {', '.join(BY_URI)}")
        text = await resource.read(self._tool_context())
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type=resource.mime_type, text=text)]
        )

    async def on_subscribe_resource(
        self, ctx: ServerRequestContext[Any, Any], params: types.SubscribeRequestParams
    ) -> types.EmptyResult:
        uri = str(params.uri)
        if uri not in BY_URI:
            raise MCPError(INVALID_PARAMS, f"Unknown resource {uri!r}; resources: {', '.join(BY_URI)}")
        self.sessions.subscribe(ctx, uri)
        return types.EmptyResult()

    async def on_unsubscribe_resource(
        self, ctx: ServerRequestContext[Any, Any], params: types.UnsubscribeRequestParams
    ) -> types.EmptyResult:
        self.sessions.unsubscribe(ctx, str(params.uri))
        return types.EmptyResult()

    # ------------------------------------------------------------- tools

    def visible_core_tools(self) -> list[CoreTool]:
        return s.visible_core_tools(self.runtime.state, self.catalog)

    async def on_list_tools(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        tools = [core_tool_listing(t) for t in self.visible_core_tools()]
        tools += [page_tool_listing(t) for t in self.runtime.state.page_tools]
        return types.ListToolsResult(tools=tools)

    async def on_call_tool(
        self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        name, args = params.name, params.arguments or {}
        self.recorder.write("call", name=name, args=args)
        result = await self._run_call(name, args)
        self.recorder.write("result", name=name, isError=bool(result.is_error), tools=self.runtime.visible_tool_names())
        return result

    def client_of(self, ctx: ServerRequestContext[Any, Any]) -> str:
        """The client identity a call is accounted to (audit log, rate limit, workspace)."""
        return "local"

    async def _run_call(self, name: str, args: dict[str, Any]) -> types.CallToolResult:
        """One tool call, every failure turned into an ``isError`` result."""
        try:
            async with self.runtime.batch():
                return await self._dispatch_call(name, args)
        except ToolFailure as exc:
            return _error(exc.message, exc.data)
        except Exception as exc:  # the server keeps running whatever a handler does
            log.exception("tool %s failed", name)
            return _error(f"{name} failed unexpectedly: {type(exc).__name__}: {exc}", {"code": "INTERNAL"})

    async def _dispatch_call(self, name: str, args: dict[str, Any]) -> types.CallToolResult:
        """Run the tool by that name if the client can see it now (its list may be stale)."""
        tool_context = self._tool_context()
        core = next((t for t in self.visible_core_tools() if t.name == name), None)
        if core is not None:
            try:
                parsed = core.args_model.model_validate(args)
            except ValidationError as exc:
                return _error(f"Invalid arguments for {name}: {_validation_message(exc)}")
            return _output(await core.handler(tool_context, parsed))
        page = next((t for t in self.runtime.state.page_tools if t.name == name), None)
        if page is not None:
            return _output(await call_page_tool(tool_context, page, args))
        return self._unavailable(name)

    def _tool_context(self) -> ToolContext:
        return ToolContext(
            runtime=self.runtime,
            settings=self.settings,
            launcher=self.launcher,
            bridge_url=self.bridge.url,
            bridge_error=self.bridge.start_error,
        )

    def _unavailable(self, name: str) -> types.CallToolResult:
        state = self.runtime.state
        available = self.runtime.visible_tool_names()
        known = {t.name for t in self.catalog}
        why = (
            f"Tool '{name}' is not available in the current state ({state.mode})"
            if name in known
            else f"Unknown tool '{name}' (page tools change with the focused page)"
        )
        return _error(f"{why}. Available tools: {', '.join(available)}.", {"availableTools": available})


def _validation_message(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in exc.errors())


async def serve_stdio(settings: Settings) -> None:
    from mcp.server.stdio import stdio_server

    app = App(settings)
    async with stdio_server() as (read, write):
        await app.server.run(read, write, app.server.create_initialization_options())
