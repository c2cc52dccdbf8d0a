"""Workspaces: what one client has of the shared browser (its view, its runtime, its focus).

Over stdio there is one client and one workspace that sees every tab, as before. Over HTTP each
client identity (a workspace name the client asks for, else its MCP session) gets its own
workspace: its own state machine and focused tab, a ``DriverView`` limited to the tabs it may
see, and a tab group in the browser. A named workspace outlives the connection (a client that
reconnects finds its tabs again) until it has been idle for ``session_idle_timeout``; an
anonymous one ends with its session, and its tabs are closed with it.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from tabmcp import state as s
from tabmcp.config import Settings
from tabmcp.drivers.base import DriverError
from tabmcp.drivers.hub import DriverHub, DriverView, Share
from tabmcp.introspect.registry import Registry
from tabmcp.record import Recorder
from tabmcp.runtime import Runtime

log = logging.getLogger(__name__)
LOCAL = "local"
WORKSPACE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")
MAX_LABEL = 40  # a tab group's title (protocol.CreateTab.group)
NotifyFor = Callable[[str], Callable[[], Awaitable[None]]]
NotifyResourcesFor = Callable[[str], Callable[[frozenset[str]], Awaitable[None]]]


class TooManyWorkspaces(Exception):
    """Past ``max_sessions``: the client is told why instead of being served a shared workspace."""


@dataclass
class Workspace:
    key: str  # "local", "name:<name>" or "session:<mcp-session-id>"
    label: str  # what the user sees: the tab group's title, the audit log's client
    named: bool
    view: DriverView
    runtime: Runtime
    sessions: set[str] = field(default_factory=set)
    calls: set[asyncio.Task[object]] = field(default_factory=set)
    last_active: float = field(default_factory=time.monotonic)
    events: asyncio.Task[None] | None = None

    def touch(self) -> None:
        self.last_active = time.monotonic()


def workspace_key(name: str | None, session_id: str | None) -> tuple[str, bool]:
    """The key a request belongs to, and whether it is a named (reconnectable) workspace."""
    if name:
        if not WORKSPACE_NAME.match(name):
            raise ValueError(f"Invalid workspace name {name[:60]!r}: use 1-40 letters, digits, '_', '.' or '-'")
        return f"name:{name}", True
    if session_id:
        return f"session:{session_id}", False
    return LOCAL, False


def label_for(key: str, client_name: str | None) -> str:
    """A short tab-group title (at most ``MAX_LABEL`` characters, as ``CreateTab.group`` takes): the
    workspace name, else the client's name and its session's start."""
    kind, _, rest = key.partition(":")
    if kind == "name":
        return rest
    if kind == "session":
        return f"{(client_name or 'client')[:30]} {rest[:4]}"
    return (client_name or "tabmcp")[:MAX_LABEL]


class Workspaces:
    def __init__(
        self,
        settings: Settings,
        hub: DriverHub,
        registry: Registry,
        catalog: Sequence[s.Declared],
        notify_for: NotifyFor,
        notify_resources_for: NotifyResourcesFor,
        recorder: Recorder,
        *,
        shared: bool,
    ) -> None:
        self.settings = settings
        self.hub = hub
        self.registry = registry
        self.catalog = tuple(catalog)
        self.notify_for = notify_for
        self.notify_resources_for = notify_resources_for
        self.recorder = recorder
        self.shared = shared  # several clients (HTTP); otherwise one client that sees every tab
        self._all: dict[str, Workspace] = {}
        self._closing: set[asyncio.Task[None]] = set()

    def __contains__(self, key: str) -> bool:
        return key in self._all

    def get(self, key: str) -> Workspace | None:
        return self._all.get(key)

    def all(self) -> list[Workspace]:
        return list(self._all.values())

    def open(self, key: str, *, named: bool = False, client_name: str | None = None) -> Workspace:
        """The workspace for ``key``, made on first use (inside the event loop: it starts a task)."""
        workspace = self._all.get(key)
        if workspace is not None:
            workspace.touch()
            return workspace
        if self.shared and len(self._all) >= self.settings.max_sessions:
            raise TooManyWorkspaces(
                f"tabmcp already serves {len(self._all)} client workspaces, the most allowed "
                f"(TABMCP_MAX_SESSIONS={self.settings.max_sessions}). Close another client's session, "
                f"or wait: idle sessions close after {self.settings.session_idle_timeout:g} s."
            )
        share: Share = self.settings.share_tabs if self.shared else "all"
        label = label_for(key, client_name)
        view = self.hub.view(key, share, group=label if self.shared else None, label=label)
        runtime = Runtime(
            self.settings,
            view,
            self.registry,
            self.catalog,
            self.notify_for(key),
            self.recorder,
            notify_resources=self.notify_resources_for(key),
            on_focus=view.controls,
        )
        workspace = Workspace(key=key, label=label, named=named, view=view, runtime=runtime)
        self._all[key] = workspace
        self.start_events()
        log.info("workspace %s opened (%s, sees %s tabs)", label, key, share)
        return workspace

    def start_events(self) -> None:
        """Start each workspace's event loop once an asyncio loop runs (an App can be built before)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        for workspace in self._all.values():
            if workspace.events is None:
                workspace.events = loop.create_task(workspace.runtime.run_events())

    def attach(self, key: str, session: str) -> None:
        workspace = self._all.get(key)
        if workspace is not None:
            workspace.sessions.add(session)
            workspace.touch()

    async def detach(self, session: str) -> None:
        """A client session ended: an anonymous workspace ends with its last session."""
        for workspace in self.all():
            if session in workspace.sessions:
                workspace.sessions.discard(session)
                workspace.touch()
                if not workspace.named and not workspace.sessions and workspace.key != LOCAL:
                    # in a task of its own: this runs while the SDK unwinds the session under a
                    # bounded scope, and closing tabs waits on the browser
                    closing = asyncio.get_running_loop().create_task(
                        self.close(workspace.key, "its client disconnected")
                    )
                    self._closing.add(closing)
                    closing.add_done_callback(self._closing.discard)

    async def close(self, key: str, why: str) -> None:
        """End a workspace: its running calls are cancelled and the tabs it opened are closed."""
        workspace = self._all.pop(key, None)
        if workspace is None:
            return
        log.info("workspace %s closed: %s", workspace.label, why)
        for task in list(workspace.calls):
            task.cancel()
        if workspace.events is not None:
            workspace.events.cancel()
        workspace.runtime.stop_background_work()
        self.hub.drop_view(key)
        await self.hub.controls(key, None, workspace.label)  # its tab is no longer under control
        for tab_id in self.hub.owners.owned_by(key):
            self.hub.owners.forget(tab_id)
            try:
                await self.hub.driver.close_tab(tab_id)
            except DriverError as exc:
                log.info("tab %s of workspace %s not closed: %s", tab_id, workspace.label, exc.message)
        try:
            await self.hub.driver.release_workspace(key)
        except DriverError as exc:
            log.info("workspace %s not released by the driver: %s", workspace.label, exc.message)

    async def reap_idle(self, now: float | None = None) -> list[str]:
        """Close workspaces nobody has used for ``session_idle_timeout`` seconds."""
        now = time.monotonic() if now is None else now
        idle = [
            w.key
            for w in self.all()
            if w.key != LOCAL and not w.calls and now - w.last_active > self.settings.session_idle_timeout
        ]
        for key in idle:
            await self.close(key, f"idle for more than {self.settings.session_idle_timeout:g} s")
        return idle

    async def run_reaper(self, every: float = 30.0) -> None:
        while True:
            await asyncio.sleep(min(every, self.settings.session_idle_timeout))
            try:
                await self.reap_idle()
            except Exception:
                log.exception("closing idle workspaces failed")
