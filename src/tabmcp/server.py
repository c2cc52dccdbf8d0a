"""The MCP server: the low-level ``mcp`` 2.3 ``Server`` handlers over an App (``app.py``):
``tools/list`` from the caller's workspace state, dispatch of ``tools/call``, and the resources.

Built on the low-level ``Server`` because the tool list is computed per request.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
from typing import Any

import mcp_types as types
from mcp.server import NotificationOptions, Server, ServerRequestContext
from mcp.server.models import InitializationOptions
from mcp.server.subscriptions import ListenHandler
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS
from pydantic import ValidationError

from tabmcp import __version__, trace
from tabmcp import state as s
from tabmcp.app import App
from tabmcp.call_limits import bounded_answer, oversized_argument
from tabmcp.config import Settings
from tabmcp.echo import APOSTROPHE, MAX_QUOTED, escaped, quote
from tabmcp.introspect.api import PageTool
from tabmcp.progress import NO_PROGRESS, Progress, progress_token
from tabmcp.resources import BY_URI, RESOURCES
from tabmcp.results import error_result, json_result
from tabmcp.runtime import Runtime
from tabmcp.told import Told
from tabmcp.tools.base import CoreTool, Image, Output, Text, ToolFailure
from tabmcp.tools.listing import ALWAYS_LOAD, annotations_of, page_tool_listing
from tabmcp.tools.page_proxy import NEWS_KEY, page_tools_news
from tabmcp.tools.page_tools import call_page_tool

log = logging.getLogger(__name__)
INSTRUCTIONS = (
    "tabmcp drives a real browser. The tool list follows the browser's state: connect_browser first, "
    "then open or focus a tab; the focused tab adds tools made for its page. Re-read the tool list "
    "when notified that it changed."
)


@functools.cache  # core tools never change; tools/list runs on every refresh of every client
def core_tool_listing(tool: CoreTool, always_load: bool = False) -> types.Tool:
    """A core tool as tools/list shows it, with no title: on every list, and its name says it
    (the title stays for what tabmcp says to the user, as in confirmation questions)."""
    return types.Tool(
        name=tool.name,
        description=tool.description,
        input_schema=tool.input_schema(),
        annotations=annotations_of(tool.hints),
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
    """The low-level server over an App, advertising ``tools.listChanged`` on every transport: its
    handlers answer tools/list and resources from the caller's workspace, and dispatch tools/call."""

    def __init__(self, app: App) -> None:
        self.app = app
        super().__init__(
            "tabmcp",
            version=__version__,
            instructions=INSTRUCTIONS,
            on_list_tools=self.on_list_tools,
            on_call_tool=self.on_call_tool,
            on_list_resources=self.on_list_resources,
            on_read_resource=self.on_read_resource,
            on_subscribe_resource=self.on_subscribe_resource,
            on_unsubscribe_resource=self.on_unsubscribe_resource,
            on_subscriptions_listen=ListenHandler(app.bus),
            lifespan=app.lifespan,
        )
        self.middleware.append(app.remember_session)

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
        text = await resource.read(self.app.tool_context(self.app.workspace_for(ctx).runtime))
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type=resource.mime_type, text=text)]
        )

    async def on_subscribe_resource(
        self, ctx: ServerRequestContext[Any, Any], params: types.SubscribeRequestParams
    ) -> types.EmptyResult:
        uri = str(params.uri)
        if uri not in BY_URI:
            raise MCPError(INVALID_PARAMS, f"Unknown resource {quote(uri)}; resources: {', '.join(BY_URI)}")
        self.app.sessions.subscribe(ctx, uri)  # the middleware has tied the session to its workspace
        return types.EmptyResult()

    async def on_unsubscribe_resource(
        self, ctx: ServerRequestContext[Any, Any], params: types.UnsubscribeRequestParams
    ) -> types.EmptyResult:
        self.app.sessions.unsubscribe(ctx, str(params.uri))
        return types.EmptyResult()

    # ------------------------------------------------------------- tools

    def visible_core_tools(self, runtime: Runtime) -> list[CoreTool]:
        return s.visible_core_tools(runtime.state, self.app.catalog)

    async def on_list_tools(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        workspace = self.app.workspace_for(ctx)
        runtime = workspace.runtime
        if self.app.static_for(ctx):  # the same list in every state; page tools through call_page_tool
            return types.ListToolsResult(tools=[core_tool_listing(t) for t in self.app.catalog])
        self.app.rereads.listed(workspace.key)
        runtime.listed()
        always = self.app.always_load
        tools = [core_tool_listing(t, t.name in always) for t in self.visible_core_tools(runtime)]
        tools += [page_tool_listing(t, always_load="page" in always) for t in runtime.state.page_tools]
        return types.ListToolsResult(tools=tools)

    async def on_call_tool(
        self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        name, args = params.name, params.arguments or {}
        try:
            workspace = self.app.workspace_for(ctx)
        except MCPError as exc:
            return error_result(exc.error.message)
        runtime = workspace.runtime
        static = self.app.static_for(ctx)
        progress = progress_for(ctx)
        self.app.recorder.write("call", name=name, args=args)
        call = asyncio.current_task()
        if call is not None:
            workspace.calls.add(call)  # cancelled if the workspace closes under it
        mark = self.app.rereads.mark(workspace.key)
        traced = trace.start() if self.app.settings.trace_phases else None
        try:
            with trace.phase("call"):  # the server's part: the rest of the client's time is the pipe's
                # rate limit, confirmation of destructive calls, audit log (guard/guards.py)
                result = await self.app.guards.call(
                    ctx,
                    workspace.key,
                    params,
                    runtime,
                    lambda: self._run_call(runtime, name, args, static=static, progress=progress),
                    label=self.app.client_of(workspace),
                )
                if not static:  # the answer waits for the client's re-read of a list the call changed
                    with trace.phase("rereads") as span:
                        held = await self.app.rereads.settle(workspace.key, mark)
                        span.note(heldMs=round(held * 1000, 2))
                    if held:
                        log.debug("%s answered after the client re-read the tool list (%.0f ms)", name, held * 1000)
                if isinstance(result, types.CallToolResult):  # the last check before it leaves: the frame limit
                    with trace.phase("answer"):
                        result = bounded_answer(result, name, self.app.settings.ws_max_frame_bytes)
                # after the limit: an answer refused as too large still tells the page tools (a few kB)
                if static and isinstance(result, types.CallToolResult):
                    told = self.app.told_for(ctx, workspace)
                    if name == "list_page_tools" and not result.is_error:
                        told.tell(runtime.state.page_tools)
                    else:
                        result = with_page_tools_news(result, told, runtime.state.page_tools)
        finally:
            workspace.calls.discard(call)  # type: ignore[arg-type]
            workspace.touch()
            phases = trace.stop(traced) if traced is not None else None
        if phases is not None and isinstance(result, types.CallToolResult):
            result.meta = {**(result.meta or {}), trace.META_KEY: phases}
        is_error = bool(getattr(result, "is_error", False))  # an InputRequiredResult asks the user first
        self.app.recorder.write("result", name=name, isError=is_error, tools=runtime.visible_tool_names())
        return result

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
        tool_context = self.app.tool_context(runtime, progress)
        callable_now = [*self.visible_core_tools(runtime), *(t for t in self.app.catalog if static and t.static_only)]
        core = next((t for t in callable_now if t.name == name), None)
        if core is not None:
            try:
                parsed = core.args_model.model_validate(args)
            except ValidationError as exc:
                return error_result(f"Invalid arguments for {name}: {_validation_message(exc)}")
            output = await core.handler(tool_context, parsed)
            with trace.phase("answer"):
                return _output(output)
        page = next((t for t in runtime.state.page_tools if t.name == name), None)
        if page is not None:
            output = await call_page_tool(tool_context, page, args)
            with trace.phase("answer"):
                return _output(output)
        return self._unavailable(runtime, name, static=static)

    def _unavailable(self, runtime: Runtime, name: str, *, static: bool = False) -> types.CallToolResult:
        state = runtime.state
        available = runtime.visible_tool_names()
        known = {t.name: t for t in self.app.catalog}
        if static:  # page tools are reached through call_page_tool, which works in every state
            pages = [t.name for t in state.page_tools]
            available = [n for n in available if n not in pages] + [t.name for t in self.app.catalog if t.static_only]
        data: dict[str, Any] = {"availableTools": available}
        if name not in known and not static and runtime.client_view.had(name):
            # a page tool the client still lists: the page lost it, and a change that only takes tools
            # away sends no list_changed (notices.py)
            tab = state.focused_tab
            where = f" ({tab.url})" if tab is not None and tab.url else ""
            pages = [t.name for t in state.page_tools]
            why = (
                f"The page tool {quote(name, mark=APOSTROPHE)} is no longer on the focused page{where}: the page "
                "changed since the tool list was read, and nothing was done. Its page tools now: "
                f"{', '.join(pages) or 'none'} (tools/list has them in full)"
            )
            data["code"] = "TOOL_NOT_FOUND"
            return error_result(f"{why}. Available tools: {', '.join(available)}.", data)
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


def with_page_tools_news(
    result: types.CallToolResult, told: Told, tools: tuple[PageTool, ...]
) -> types.CallToolResult:
    """``result`` and, when the focused page's tools now differ from what the client was told, the
    difference as one more text block (and in structured content, for clients that read only that)."""
    delta = told.delta(tools)
    if not delta:
        return result
    told.tell(tools)
    news = page_tools_news(delta)
    block = types.TextContent(type="text", text=json.dumps({NEWS_KEY: news}, ensure_ascii=False))
    structured = result.structured_content
    return result.model_copy(
        update={
            "content": [*result.content, block],
            "structured_content": {**structured, NEWS_KEY: news} if structured is not None else None,
        }
    )


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


def tabmcp_server(settings: Settings, *, shared: bool = False) -> TabmcpServer:
    """A server with its own App: one client (stdio, in-process tests), or ``shared`` by several (HTTP)."""
    return TabmcpServer(App(settings, shared=shared))


async def serve_stdio(settings: Settings) -> None:
    from tabmcp.stdio_transport import checked_stdio_server

    server = tabmcp_server(settings)
    async with checked_stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())
