"""What one tabmcp process owns: the extension's endpoint, the driver and its hub, the workspaces,
the launcher, the sessions and the one notify path. ``server.py`` answers MCP requests with it.

``shared``: several clients (Streamable HTTP), each in its own workspace; otherwise (stdio,
in-process tests) one client whose workspace sees every tab. ``notify_tools_changed`` reaches both
protocol eras: handshake-era sessions (``sessions.py``) and 2026-07-28 ``subscriptions/listen``
streams (through the subscription bus).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from mcp.server import Server, ServerRequestContext
from mcp.server.subscriptions import InMemorySubscriptionBus, ResourceUpdated, ToolsListChanged
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_REQUEST
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from tabmcp.config import Settings
from tabmcp.drivers.base import Driver
from tabmcp.drivers.cdp import CdpDriver
from tabmcp.drivers.extension import ExtensionEndpoint
from tabmcp.drivers.hub import DriverHub
from tabmcp.drivers.launch import ChromiumLauncher
from tabmcp.guard.guards import Guards
from tabmcp.introspect.registry import Registry
from tabmcp.policy import NavigationPolicy
from tabmcp.progress import NO_PROGRESS, Progress
from tabmcp.record import recorder_for
from tabmcp.rereads import ListRereads
from tabmcp.runtime import Runtime
from tabmcp.sessions import SessionRegistry, client_name_of, session_id_of, workspace_name_of
from tabmcp.told import Told
from tabmcp.tool_modes import choose_tools_mode
from tabmcp.tools.base import ToolContext
from tabmcp.tools.catalog import CATALOG
from tabmcp.workspaces import LOCAL, TooManyWorkspaces, Workspace, Workspaces, workspace_key

log = logging.getLogger(__name__)


class App:
    """Everything one tabmcp process owns: extension endpoint, driver hub, workspaces, launcher, sessions."""

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
        policy = NavigationPolicy.from_settings(settings)
        # the navigation policy's rules go to the extension with every connect (docs/security.md)
        self.extension = ExtensionEndpoint.from_settings(settings, policy.wire(), self.recorder)
        self.registry = Registry.discover(settings.introspectors_dir)
        self.launcher = ChromiumLauncher(settings, pairing_token=self.extension.token)
        # tools switched off in the settings (evaluate) do not exist for this process at all
        self.catalog = [t for t in CATALOG if t.enabled(settings)]
        self.guards = Guards(settings, catalog=self.catalog)
        self.driver: Driver = CdpDriver(settings, policy) if settings.uses_cdp else self.extension.driver
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
        # a 2026-07-28 request has no session: what its client was told is kept per workspace
        self._told: dict[str, Told] = {}

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
            await self.extension.start()
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
            await self.extension.stop()

    # ------------------------------------------------------------- sessions and workspaces

    def workspace_for(self, ctx: ServerRequestContext[Any, Any]) -> Workspace:
        """The workspace a request works in; raises MCPError for a bad name or past max_sessions."""
        if not self.shared:
            return self.workspaces.open(LOCAL)
        try:
            key, named = workspace_key(workspace_name_of(ctx), session_id_of(ctx))
            return self.workspaces.open(key, named=named, client_name=client_name_of(ctx))
        except (ValueError, TooManyWorkspaces) as exc:
            raise MCPError(INVALID_REQUEST, str(exc)) from None

    async def remember_session(self, ctx: ServerRequestContext[Any, Any], call_next: Any) -> Any:
        """The server's middleware: a handshake-era session is remembered with its workspace and its
        tool mode, so notices reach it (a 2026-07-28 request has no session to remember)."""
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

    def told_for(self, ctx: ServerRequestContext[Any, Any], workspace: Workspace) -> Told:
        """What this static-mode client was told of the focused page's tools (told.py)."""
        told = self.sessions.told(ctx)
        if told is None:
            told = self._told.setdefault(workspace.key, Told())
        return told

    def client_of(self, workspace: Workspace) -> str:
        """How the audit log names the client of a call: ``local`` over stdio, the workspace's label
        (its name, or the client's name and session) over HTTP. Limits and confirmations are kept
        per workspace key instead: labels are for people and need not be unique."""
        return workspace.label if self.shared else LOCAL

    def tool_context(self, runtime: Runtime, progress: Progress = NO_PROGRESS) -> ToolContext:
        return ToolContext(
            runtime=runtime,
            settings=self.settings,
            launcher=self.launcher,
            extension=self.extension.status,
            progress=progress,
        )

    async def _session_ended(self, session: str) -> None:
        await self.workspaces.detach(session)
        self.rereads.forget(workspace_key(None, session)[0])  # an anonymous workspace ends with its session
        self._told.pop(workspace_key(None, session)[0], None)

    # ------------------------------------------------------------- the one notify path

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
