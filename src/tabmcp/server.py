"""MCP glue: ``tools/list`` from state, dispatch of ``tools/call``, and the one notify path.

Built on the low-level ``mcp`` 2.3 ``Server`` because the tool list is computed per request.
``notify_tools_changed`` reaches both protocol eras: handshake-era sessions (kept in a registry
keyed by a connection-stable id, since the SDK builds a new session proxy per message) and
2026-07-28 ``subscriptions/listen`` streams (through the subscription bus).
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress
from typing import Any

import mcp_types as types
from mcp.server import NotificationOptions, Server, ServerRequestContext
from mcp.server.models import InitializationOptions
from mcp.server.session import ServerSession
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ResourceUpdated, ToolsListChanged
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, INVALID_REQUEST
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from tabmcp import __version__
from tabmcp import state as s
from tabmcp.call_limits import bounded_answer, oversized_argument
from tabmcp.config import Settings
from tabmcp.drivers.base import Driver
from tabmcp.drivers.cdp import CdpDriver
from tabmcp.drivers.extension import ExtensionDriver
from tabmcp.drivers.extension.bridge import Bridge
from tabmcp.drivers.hub import DriverHub
from tabmcp.drivers.launch import ChromiumLauncher
from tabmcp.echo import APOSTROPHE, MAX_QUOTED, escaped, quote
from tabmcp.guard import Guards
from tabmcp.introspect.registry import Registry
from tabmcp.policy import NavigationPolicy
from tabmcp.progress import NO_PROGRESS, Progress, progress_token
from tabmcp.record import recorder_for
from tabmcp.rereads import ListRereads
from tabmcp.resources import BY_URI, RESOURCES
from tabmcp.results import error_result, json_result
from tabmcp.runtime import Runtime
from tabmcp.tool_modes import choose_tools_mode
from tabmcp.tools.base import CoreTool, Image, Output, Text, ToolContext, ToolFailure
from tabmcp.tools.catalog import CATALOG
from tabmcp.tools.listing import ALWAYS_LOAD, core_annotations, page_tool_listing
from tabmcp.tools.page_tools import call_page_tool
from tabmcp.workspaces import LOCAL, TooManyWorkspaces, Workspace, Workspaces, workspace_key

log = logging.getLogger(__name__)
INSTRUCTIONS = (
    "tabmcp drives a real browser. The tool list follows the browser's state: connect_browser first, "
    "then open or focus a tab; the focused tab adds tools made for its page. Re-read the tool list "
    "when notified that it changed."
)


class SessionRegistry:
    """Handshake-era sessions, keyed by something that lives as long as their connection, and the
    workspace each one works in (so a workspace's list change reaches its own clients)."""

    def __init__(self, on_end: Callable[[str], Awaitable[None]] | None = None) -> None:
        self._sessions: dict[str, ServerSession] = {}
        self._workspace: dict[str, str] = {}  # session key -> workspace key
        self._subscriptions: dict[str, set[str]] = {}  # session key -> resource URIs
        self._static: set[str] = set()  # sessions with the fixed tool list: no list_changed for them
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

    @staticmethod
    def _key(ctx: ServerRequestContext[Any, Any]) -> str:
        connection = ctx.session._connection  # private, but the only connection-stable handle in mcp 2.3
        return session_id_of(ctx) or f"conn-{id(connection)}"

    async def _forget(self, key: str) -> None:
        self._sessions.pop(key, None)
        self._workspace.pop(key, None)
        self._subscriptions.pop(key, None)
        self._static.discard(key)
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


@functools.cache  # core tools never change; tools/list runs on every refresh of every client
def core_tool_listing(tool: CoreTool, always_load: bool = False) -> types.Tool:
    """A core tool as tools/list shows it, with no title: on every list, and its name says it
    (the title stays for what tabmcp says to the user, as in confirmation questions)."""
    return types.Tool(
        name=tool.name,
        description=tool.description,
        input_schema=tool.input_schema(),
        annotations=core_annotations(tool.hints),
        meta=ALWAYS_LOAD if always_load else None,
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
            return json_result(output)
    raise TypeError(f"a tool returned {type(output).__name__}")


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
    """Everything one tabmcp process owns: bridge, driver hub, workspaces, launcher, MCP server.

    ``shared``: several clients (Streamable HTTP), each in its own workspace; otherwise (stdio,
    in-process tests) one client whose workspace sees every tab."""

    def __init__(self, settings: Settings, *, shared: bool = False) -> None:
        self.settings = settings
        self.shared = shared
        self.bus = InMemorySubscriptionBus()
        self.sessions = SessionRegistry(on_end=self._session_ended)
        self.rereads = ListRereads(settings.list_reread_wait)
        self.always_load = frozenset(settings.always_load)
        unknown = sorted(self.always_load - {"page"} - {t.name for t in CATALOG})
        if unknown:  # a typo would silently defer the tool: say so once
            log.warning("always_load names no tool: %s (use 'page' or core tool names)", ", ".join(unknown))
        self.recorder = recorder_for(settings.record, settings.secrets)
        self.bridge = Bridge.from_settings(settings, self.recorder)
        self.registry = Registry.discover(settings.introspectors_dir)
        self.launcher = ChromiumLauncher(settings, pairing_token=self.bridge.token)
        # tools switched off in the settings (evaluate) do not exist for this process at all
        self.catalog = [t for t in CATALOG if t.enabled(settings)]
        self.guards = Guards(settings, catalog=self.catalog)
        # the navigation policy's rules go to the extension with every connect (docs/security.md)
        self.driver: Driver = (
            CdpDriver(settings, NavigationPolicy.from_settings(settings))
            if settings.uses_cdp
            else ExtensionDriver(self.bridge, NavigationPolicy.from_settings(settings).wire())
        )
        self.hub = DriverHub(self.driver)
        self.workspaces = Workspaces(
            settings,
            self.hub,
            self.registry,
            self.catalog,
            self._notifier,
            self._resource_notifier,
            self.recorder,
            shared=shared,
        )
        self._tasks: list[asyncio.Task[None]] = []
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

    @property
    def runtime(self) -> Runtime:
        """The one client's runtime (stdio and in-process use; with several clients, see workspaces)."""
        if self.shared:
            raise RuntimeError("a shared App has one runtime per workspace: use workspace_for(ctx)")
        return self.workspaces.open(LOCAL).runtime

    @asynccontextmanager
    async def lifespan(self, _server: Server[Any]) -> AsyncIterator[dict[str, Any]]:
        if not self.settings.uses_cdp:  # the CDP driver needs no bridge: nothing listens for an extension
            await self.bridge.start()
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self.hub.run())]
        if self.shared:
            self._tasks.append(loop.create_task(self.workspaces.run_reaper()))
        else:
            self.workspaces.open(LOCAL)
        self.workspaces.start_events()
        try:
            yield {}
        finally:
            self.recorder.close()  # what follows is shutdown, not part of the session
            for task in self._tasks:
                task.cancel()
            for workspace in self.workspaces.all():
                if workspace.events is not None:
                    workspace.events.cancel()
            await self.launcher.close()
            if isinstance(self.driver, CdpDriver):
                await self.driver.close()
            await self.bridge.stop()

    def workspace_for(self, ctx: ServerRequestContext[Any, Any]) -> Workspace:
        """The workspace a request works in; raises MCPError for a bad name or past max_sessions."""
        if not self.shared:
            return self.workspaces.open(LOCAL)
        try:
            key, named = workspace_key(workspace_name_of(ctx), session_id_of(ctx))
            return self.workspaces.open(key, named=named, client_name=client_name_of(ctx))
        except (ValueError, TooManyWorkspaces) as exc:
            raise MCPError(INVALID_REQUEST, str(exc)) from None

    async def _remember_sessions(self, ctx: ServerRequestContext[Any, Any], call_next: Any) -> Any:
        if (
            ctx.request_id is not None
            and ctx.method != "initialize"
            and ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS
        ):
            workspace = self.workspace_for(ctx)
            choice = choose_tools_mode(self.settings.tools, client_name_of(ctx))
            if not self.sessions.knows(ctx):
                log.info("tool list for this client: %s (%s)", choice.mode, choice.why)
            session = self.sessions.remember(ctx, workspace.key, static=choice.mode == "static")
            self.workspaces.attach(workspace.key, session)
        return await call_next(ctx)

    def static_for(self, ctx: ServerRequestContext[Any, Any]) -> bool:
        """Whether this client gets the fixed tool list (tool_modes.py): by the setting, or in ``auto``
        by the name it gave in ``initialize`` (a 2026-07-28 client has none: dynamic)."""
        return choose_tools_mode(self.settings.tools, client_name_of(ctx)).mode == "static"

    async def _session_ended(self, session: str) -> None:
        await self.workspaces.detach(session)
        self.rereads.forget(workspace_key(None, session)[0])  # an anonymous workspace ends with its session

    def _notifier(self, workspace: str) -> Callable[[], Awaitable[None]]:
        async def notify() -> None:
            await self.notify_tools_changed(workspace)

        return notify

    def _resource_notifier(self, workspace: str) -> Callable[[frozenset[str]], Awaitable[None]]:
        async def notify(uris: frozenset[str]) -> None:
            await self.notify_resources_updated(uris, workspace)

        return notify

    async def notify_tools_changed(self, workspace: str | None = None) -> None:
        """The one notification path: the workspace's handshake-era sessions, and every listen
        stream (a 2026-07-28 stream is not tied to a workspace: a spurious notice costs a re-read)."""
        await self.sessions.broadcast(workspace if self.shared else None)
        if self.settings.tools != "static":  # with tools=static, no client's list ever changes
            await self.bus.publish(ToolsListChanged())
            self.rereads.notified(workspace or LOCAL)

    async def notify_resources_updated(self, uris: frozenset[str], workspace: str | None = None) -> None:
        for uri in sorted(uris):
            await self.sessions.resource_updated(uri, workspace if self.shared else None)
            await self.bus.publish(ResourceUpdated(uri=uri))

    # ------------------------------------------------------------- resources

    async def on_list_resources(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return types.ListResourcesResult(
            resources=[
                types.Resource(uri=r.uri, name=r.name, title=r.title, description=r.description, mime_type=r.mime_type)
                for r in RESOURCES
            ]
        )

    async def on_read_resource(
        self, ctx: ServerRequestContext[Any, Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        resource = BY_URI.get(uri)
        if resource is None:
            raise MCPError(INVALID_PARAMS, f"Unknown resource {quote(uri)}; resources: {', '.join(BY_URI)}")
        text = await resource.read(self._tool_context(self.workspace_for(ctx).runtime))
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type=resource.mime_type, text=text)]
        )

    async def on_subscribe_resource(
        self, ctx: ServerRequestContext[Any, Any], params: types.SubscribeRequestParams
    ) -> types.EmptyResult:
        uri = str(params.uri)
        if uri not in BY_URI:
            raise MCPError(INVALID_PARAMS, f"Unknown resource {quote(uri)}; resources: {', '.join(BY_URI)}")
        self.sessions.subscribe(ctx, uri)  # the middleware has tied the session to its workspace
        return types.EmptyResult()

    async def on_unsubscribe_resource(
        self, ctx: ServerRequestContext[Any, Any], params: types.UnsubscribeRequestParams
    ) -> types.EmptyResult:
        self.sessions.unsubscribe(ctx, str(params.uri))
        return types.EmptyResult()

    # ------------------------------------------------------------- tools

    def visible_core_tools(self, runtime: Runtime) -> list[CoreTool]:
        return s.visible_core_tools(runtime.state, self.catalog)

    async def on_list_tools(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        workspace = self.workspace_for(ctx)
        runtime = workspace.runtime
        if self.static_for(ctx):  # the same list in every state; page tools through call_page_tool
            return types.ListToolsResult(tools=[core_tool_listing(t) for t in self.catalog])
        self.rereads.listed(workspace.key)
        always = self.always_load
        tools = [core_tool_listing(t, t.name in always) for t in self.visible_core_tools(runtime)]
        tools += [page_tool_listing(t, always_load="page" in always) for t in runtime.state.page_tools]
        return types.ListToolsResult(tools=tools)

    async def on_call_tool(
        self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        name, args = params.name, params.arguments or {}
        try:
            workspace = self.workspace_for(ctx)
        except MCPError as exc:
            return error_result(exc.error.message)
        runtime = workspace.runtime
        static = self.static_for(ctx)
        progress = progress_for(ctx)
        self.recorder.write("call", name=name, args=args)
        call = asyncio.current_task()
        if call is not None:
            workspace.calls.add(call)  # cancelled if the workspace closes under it
        mark = self.rereads.mark(workspace.key)
        try:
            # rate limit, confirmation of destructive calls, audit log (guard/__init__.py)
            result = await self.guards.call(
                ctx,
                workspace.key,
                params,
                runtime,
                lambda: self._run_call(runtime, name, args, static=static, progress=progress),
                label=self.client_of(workspace),
            )
            if not static:  # the answer waits for the client's re-read of a list the call changed
                held = await self.rereads.settle(workspace.key, mark)
                if held:
                    log.debug("%s answered after the client re-read the tool list (%.0f ms)", name, held * 1000)
        finally:
            workspace.calls.discard(call)  # type: ignore[arg-type]
            workspace.touch()
        if isinstance(result, types.CallToolResult):  # the last check before it leaves: never past the frame limit
            result = bounded_answer(result, name, self.settings.ws_max_frame_bytes)
        is_error = bool(getattr(result, "is_error", False))  # an InputRequiredResult asks the user first
        self.recorder.write("result", name=name, isError=is_error, tools=runtime.visible_tool_names())
        return result

    def client_of(self, workspace: Workspace) -> str:
        """How the audit log names the client of a call: ``local`` over stdio, the workspace's label
        (its name, or the client's name and session) over HTTP. Limits and confirmations are kept
        per workspace key instead: labels are for people and need not be unique."""
        return workspace.label if self.shared else LOCAL

    async def _run_call(
        self,
        runtime: Runtime,
        name: str,
        args: dict[str, Any],
        *,
        static: bool = False,
        progress: Progress = NO_PROGRESS,
    ) -> types.CallToolResult:
        """One tool call, every failure turned into an ``isError`` result."""
        try:
            async with runtime.batch():
                return await self._dispatch_call(runtime, name, args, static=static, progress=progress)
        except ToolFailure as exc:
            return error_result(exc.message, exc.data)
        except Exception as exc:  # the server keeps running whatever a handler does
            log.exception("tool %s failed", name)
            return error_result(f"{name} failed unexpectedly: {type(exc).__name__}: {exc}", {"code": "INTERNAL"})

    async def _dispatch_call(
        self,
        runtime: Runtime,
        name: str,
        args: dict[str, Any],
        *,
        static: bool = False,
        progress: Progress = NO_PROGRESS,
    ) -> types.CallToolResult:
        """Run the tool by that name if it works now (the client's list may be stale, or static)."""
        oversized = oversized_argument(args)
        if oversized is not None:  # refused before it reaches a browser, whichever tool it names
            shown = escaped(name, MAX_QUOTED)
            return error_result(f"Invalid arguments for {shown}: {oversized}", {"code": "INVALID_ARGUMENT"})
        tool_context = self._tool_context(runtime, progress)
        callable_now = [*self.visible_core_tools(runtime), *(t for t in self.catalog if static and t.static_only)]
        core = next((t for t in callable_now if t.name == name), None)
        if core is not None:
            try:
                parsed = core.args_model.model_validate(args)
            except ValidationError as exc:
                return error_result(f"Invalid arguments for {name}: {_validation_message(exc)}")
            return _output(await core.handler(tool_context, parsed))
        page = next((t for t in runtime.state.page_tools if t.name == name), None)
        if page is not None:
            return _output(await call_page_tool(tool_context, page, args))
        return self._unavailable(runtime, name, static=static)

    def _tool_context(self, runtime: Runtime, progress: Progress = NO_PROGRESS) -> ToolContext:
        return ToolContext(
            runtime=runtime,
            settings=self.settings,
            launcher=self.launcher,
            bridge_url=self.bridge.url,
            bridge_error=self.bridge.start_error,
            bridge_tcp_error=self.bridge.tcp_error,
            bridge_refusal=lambda: self.bridge.last_refusal,
            progress=progress,
            bridge_user_disconnected=lambda: self.bridge.user_disconnected,
        )

    def _unavailable(self, runtime: Runtime, name: str, *, static: bool = False) -> types.CallToolResult:
        state = runtime.state
        available = runtime.visible_tool_names()
        known = {t.name: t for t in self.catalog}
        if static:  # page tools are reached through call_page_tool, which works in every state
            pages = [t.name for t in state.page_tools]
            available = [n for n in available if n not in pages] + [t.name for t in self.catalog if t.static_only]
        data: dict[str, Any] = {"availableTools": available}
        if name not in known:
            why = f"Unknown tool {quote(name, mark=APOSTROPHE)} (page tools change with the focused page)"
            if static:
                why += "; page tools are listed by list_page_tools and run by call_page_tool"
        elif known[name].static_only:
            why = f"Tool '{name}' is for clients with a fixed tool list (tools=static); here page tools are listed"
        else:
            why = f"Tool '{name}' is not available in the current state ({state.mode})"
            hint = _how_to_reach(known[name], state.mode, available)
            if hint:
                why += f": {hint}"
                data["code"] = "NOT_CONNECTED"
        return error_result(f"{why}. Available tools: {', '.join(available)}.", data)


def _how_to_reach(tool: CoreTool, mode: s.Mode, available: list[str]) -> str:
    """What gets a stale call's tool back: the browser link, or a tab to work on."""
    if mode == s.Mode.DISCONNECTED:
        return "not connected to a browser; call connect_browser first"
    if s.Mode.FOCUSED in tool.available_in and mode != s.Mode.FOCUSED:
        ways = [t for t in ("ai_connect_current_tab", "ai_connect_new_tab", "focus_tab", "open_tab") if t in available]
        return "not connected to a tab; call " + " or ".join(ways) + " first"
    return ""


def progress_for(ctx: ServerRequestContext[Any, Any]) -> Progress:
    """The call's progress reporter: the SDK's own ``report_progress`` (it knows how to reach the caller on
    every transport) when the caller sent a progress token, else one that does nothing."""
    if progress_token(ctx.meta, ctx.params) is None:
        return NO_PROGRESS
    return Progress(ctx.session.report_progress)


MAX_VALIDATION_ERRORS = 10  # of one call: a thousand unknown keys need not be listed one by one


def _validation_message(exc: ValidationError) -> str:
    """Where and what, from pydantic's messages: never the input (a bad argument may be megabytes),
    and without the "Value error, " pydantic puts before a validator's own words."""
    return "; ".join(
        f"{escaped('.'.join(map(str, e['loc'])), MAX_QUOTED) or 'arguments'}: {e['msg'].removeprefix('Value error, ')}"
        for e in exc.errors()[:MAX_VALIDATION_ERRORS]
    )


async def serve_stdio(settings: Settings) -> None:
    from tabmcp.stdio_transport import checked_stdio_server

    app = App(settings)
    async with checked_stdio_server() as (read, write):
        await app.server.run(read, write, app.server.create_initialization_options())
