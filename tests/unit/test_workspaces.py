"""Workspaces without a browser: tab ownership, event routing per view, and the guard on tab ids."""

from __future__ import annotations

import asyncio
import contextlib
from types import SimpleNamespace
from typing import Any

import pytest

from tabmcp import state as s
from tabmcp.config import Settings
from tabmcp.drivers.base import DriverError, LinkChanged, OpenedTab, PageChanged, UserSettings
from tabmcp.drivers.hub import DriverHub, TabOwners
from tabmcp.introspect.registry import Registry
from tabmcp.protocol import ErrorCode
from tabmcp.record import NullRecorder
from tabmcp.sessions import SessionRegistry
from tabmcp.tools.base import ToolContext
from tabmcp.tools.browser import ConnectArgs, connect_browser
from tabmcp.tools.catalog import CATALOG
from tabmcp.workspaces import LOCAL, MAX_LABEL, TooManyWorkspaces, Workspaces, label_for, workspace_key


class Browser:
    """The driver's side as the hub sees it: tabs it opens, and calls it receives."""

    def __init__(self) -> None:
        self.linked = True
        self.next_id = 100
        self.tabs: dict[int, s.Tab] = {}
        self.calls: list[tuple[str, Any]] = []

    async def connect(self) -> tuple[s.Browser, list[s.Tab]]:
        return s.Browser(), list(self.tabs.values())

    async def open_tab(
        self, url: str, focus: bool, group: str | None = None, workspace: str | None = None, timeout_ms: int = 15_000
    ) -> OpenedTab:
        self.next_id += 1
        tab = s.Tab(self.next_id, url=url, status="complete")
        self.tabs[tab.id] = tab
        self.calls.append(("open", group))
        self.opened_for = workspace
        return OpenedTab(tab)

    async def release_workspace(self, workspace: str) -> None:
        self.calls.append(("release", workspace))

    async def show_controlled(self, tabs: Any) -> None:
        self.calls.append(("controlled", list(tabs)))

    async def close_tab(self, tab_id: int) -> None:
        self.calls.append(("close", tab_id))
        self.tabs.pop(tab_id, None)

    async def snapshot(self, tab_id: int, mode: str = "interactive") -> dict[str, Any]:
        self.calls.append(("snapshot", tab_id))
        return {"nodes": []}

    async def active_tab(self) -> s.Tab | None:
        return self.tabs.get(self.next_id)  # the newest tab is the one shown


def drain(view: Any) -> list[object]:
    events = []
    while not view._events.empty():
        events.append(view._events.get_nowait())
    return events


def test_ownership_decides_visibility_per_share_mode() -> None:
    owners = TabOwners()
    owners.claim(1, "a")
    assert owners.visible(1, "a", "own") and not owners.visible(1, "b", "own")
    assert not owners.visible(2, "a", "own")  # the user's tab
    assert owners.visible(2, "a", "user") and not owners.visible(1, "b", "user")
    assert owners.visible(1, "b", "all")
    assert owners.owned_by("a") == [1]
    owners.forget(1)
    assert owners.owned_by("a") == []


async def test_events_reach_only_the_views_that_may_see_the_tab() -> None:
    browser = Browser()
    hub = DriverHub(browser)  # type: ignore[arg-type]
    a, b, user = hub.view("a", "own"), hub.view("b", "own"), hub.view("u", "user")
    mine = (await a.open_tab("http://a.test/", True)).tab
    hub.route(s.TabUpdated(s.Tab(mine.id, url="http://a.test/x", status="complete")))
    hub.route(s.TabCreated(s.Tab(500, url="http://user.test/")))  # the user opened a tab
    hub.route(s.TabCreated(s.Tab(501, url="http://popup.test/", opener_id=mine.id)))  # a's page opened a popup
    hub.route(PageChanged(mine.id))
    hub.route(LinkChanged(up=False, reason="gone"))

    seen_a, seen_b, seen_user = drain(a), drain(b), drain(user)
    tabs_a = {e.tab.id for e in seen_a if isinstance(e, s.TabCreated | s.TabUpdated)}
    assert tabs_a == {mine.id, 501}  # its own tab and the popup its page opened
    assert hub.owners.owner(501) == "a"
    assert [type(e) for e in seen_b] == [LinkChanged]  # b sees nothing of a's or the user's tabs
    assert {e.tab.id for e in seen_user if isinstance(e, s.TabCreated)} == {500}
    assert any(isinstance(e, PageChanged) for e in seen_a) and not any(isinstance(e, PageChanged) for e in seen_user)


async def test_a_claimed_tab_is_withdrawn_from_views_that_saw_it_as_the_users() -> None:
    browser = Browser()
    hub = DriverHub(browser)  # type: ignore[arg-type]
    a, user = hub.view("a", "own"), hub.view("u", "user")
    hub.route(s.TabCreated(s.Tab(101, url="http://a.test/", status="loading")))  # before a's open_tab returns
    hub.route(s.TabUpdated(s.Tab(101, url="http://a.test/", status="complete")))
    await a.open_tab("http://a.test/", True)  # the browser gives it id 101
    assert [type(e) for e in drain(user)] == [s.TabCreated, s.TabUpdated, s.TabClosed]
    briefing = drain(a)
    assert isinstance(briefing[-1], s.TabUpdated) and briefing[-1].tab.status == "complete"


async def test_a_view_refuses_tabs_it_may_not_see_with_the_answer_for_a_missing_tab() -> None:
    browser = Browser()
    hub = DriverHub(browser)  # type: ignore[arg-type]
    a, b = hub.view("a", "own"), hub.view("b", "own")
    tab = (await a.open_tab("http://a.test/", True)).tab
    with pytest.raises(DriverError) as refused:
        await b.snapshot(tab.id)
    assert refused.value.code == ErrorCode.NO_TAB and str(tab.id) in refused.value.message
    await a.snapshot(tab.id)
    assert ("snapshot", tab.id) in browser.calls and browser.calls.count(("snapshot", tab.id)) == 1
    _, visible = await b.connect()
    assert visible == []
    _, visible = await a.connect()
    assert [t.id for t in visible] == [tab.id]
    del browser.tabs[tab.id]  # closed while the link was down: forgotten at the next connect
    await a.connect()
    assert hub.owners.owned_by("a") == []


async def test_the_browsers_active_tab_is_named_only_to_a_client_that_may_see_it() -> None:
    browser = Browser()
    hub = DriverHub(browser)  # type: ignore[arg-type]
    a, b = hub.view("a", "own"), hub.view("b", "own")
    assert await a.active_tab() is None
    tab = (await a.open_tab("http://a.test/", True)).tab
    shown = await a.active_tab()
    assert shown is not None and shown.id == tab.id
    with pytest.raises(DriverError) as refused:
        await b.active_tab()  # another client's tab: neither named nor focused
    assert refused.value.code == ErrorCode.NO_TAB and str(tab.id) not in refused.value.message


def test_workspace_keys_and_labels() -> None:
    assert workspace_key("alice", "abc") == ("name:alice", True)
    assert workspace_key(None, "abc123") == ("session:abc123", False)
    assert workspace_key(None, None) == (LOCAL, False)
    with pytest.raises(ValueError, match="Invalid workspace name"):
        workspace_key("no spaces", None)
    assert label_for("name:alice", "Claude Code") == "alice"
    assert label_for("session:abc123", "Claude Code") == "Claude Code abc1"


def make_workspaces(browser: Browser, **settings: Any) -> Workspaces:
    async def nothing(*_: object) -> None:
        return None

    return Workspaces(
        Settings(**settings),
        DriverHub(browser),  # type: ignore[arg-type]
        Registry([]),
        CATALOG,
        lambda _key: nothing,
        lambda _key: nothing,
        NullRecorder(),
        shared=True,
    )


async def test_closing_a_workspace_closes_its_tabs_and_cancels_its_calls() -> None:
    browser = Browser()
    workspaces = make_workspaces(browser)
    a = workspaces.open("session:a")
    b = workspaces.open("session:b")
    tab_a = (await a.view.open_tab("http://a.test/", True)).tab
    tab_b = (await b.view.open_tab("http://b.test/", True)).tab
    assert browser.calls[:2] == [("open", a.label), ("open", b.label)]  # each in its client's tab group
    assert browser.opened_for == "session:b"  # and, on the CDP driver, its own browser context
    running = asyncio.get_running_loop().create_task(asyncio.sleep(60))
    a.calls.add(running)  # type: ignore[arg-type]
    refreshing = asyncio.get_running_loop().create_task(asyncio.sleep(60))
    a.runtime._background.add(refreshing)  # type: ignore[arg-type]  # work the runtime started itself
    workspaces.attach("session:a", "s1")
    await workspaces.detach("s1")  # its only session ended
    for _ in range(5):
        await asyncio.sleep(0)
    assert running.cancelled() and refreshing.cancelled()
    assert ("close", tab_a.id) in browser.calls and ("close", tab_b.id) not in browser.calls
    assert browser.calls.index(("release", "session:a")) > browser.calls.index(("close", tab_a.id))
    assert ("release", "session:b") not in browser.calls
    assert "session:a" not in workspaces and "session:b" in workspaces
    await workspaces.close("session:b", "test over")


async def test_named_workspaces_outlive_their_sessions_until_idle() -> None:
    browser = Browser()
    workspaces = make_workspaces(browser, session_idle_timeout=60)
    alice = workspaces.open("name:alice", named=True)
    workspaces.attach(alice.key, "s1")
    await workspaces.detach("s1")
    assert "name:alice" in workspaces
    assert await workspaces.reap_idle(now=alice.last_active + 30) == []
    assert await workspaces.reap_idle(now=alice.last_active + 61) == ["name:alice"]


async def test_the_number_of_workspaces_is_capped_with_a_readable_error() -> None:
    workspaces = make_workspaces(Browser(), max_sessions=1)
    workspaces.open("session:a")
    with pytest.raises(TooManyWorkspaces, match="TABMCP_MAX_SESSIONS=1"):
        workspaces.open("session:b")
    assert workspaces.open("session:a") is workspaces.get("session:a")  # the existing one still works
    await workspaces.close("session:a", "test over")


def test_a_long_client_name_still_makes_a_tab_group_title() -> None:
    assert len(label_for(LOCAL, "c" * 100)) == MAX_LABEL  # OpenTab.group takes 40 characters
    assert len(label_for("session:abcdef", "c" * 100)) <= MAX_LABEL


class FakeSession:
    def __init__(self) -> None:
        self._connection = SimpleNamespace(exit_stack=contextlib.AsyncExitStack())
        self.sent: list[str] = []

    async def send_resource_updated(self, uri: str) -> None:
        self.sent.append(uri)

    async def send_tool_list_changed(self) -> None:
        self.sent.append("tools")


async def test_a_subscription_keeps_the_session_in_its_workspace() -> None:
    session = FakeSession()
    ctx: Any = SimpleNamespace(session=session, request=SimpleNamespace(headers={"mcp-session-id": "s1"}))
    registry = SessionRegistry()
    registry.remember(ctx, "name:alice")  # as the server's middleware does for every request
    registry.subscribe(ctx, "tabs://list")
    await registry.resource_updated("tabs://list", "name:alice")
    await registry.broadcast("name:alice")
    await registry.broadcast(LOCAL)  # another workspace's change is not this session's news
    assert session.sent == ["tabs://list", "tools"]


class SlowLaunch:
    """A launcher whose browser links a moment after it is started (as a real one does)."""

    def __init__(self, driver: Any) -> None:
        self.driver = driver
        self.lock = asyncio.Lock()
        self.launches = 0

    async def launch(self, server_url: str) -> None:
        self.launches += 1
        await asyncio.sleep(0)  # another client's call runs meanwhile
        self.driver.linked = True

    async def until_linked(self, linked: Any) -> bool:
        return bool(await linked)


async def test_two_clients_asking_to_launch_at_once_get_one_browser() -> None:
    driver = SimpleNamespace(linked=False, connect=Browser().connect)

    async def wait_linked(timeout: float) -> bool:
        return bool(driver.linked)

    driver.wait_linked = wait_linked
    launcher = SlowLaunch(driver)

    def context() -> ToolContext:
        async def dispatch(event: object) -> None:
            return None

        runtime: Any = SimpleNamespace(driver=driver, dispatch=dispatch, state=s.BrowserState())
        return ToolContext(runtime=runtime, settings=Settings(), launcher=launcher)  # type: ignore[arg-type]

    args = ConnectArgs(launch=True)
    first, second = await asyncio.gather(connect_browser(context(), args), connect_browser(context(), args))
    assert first["connected"] and second["connected"]
    assert launcher.launches == 1  # the second client connected to the browser the first launched


async def test_the_browser_hears_every_workspaces_controlled_tab() -> None:
    """The popup shows one controlled tab per client: a focus moving in one workspace sends the whole
    set, with each tab's group title; a closed workspace's tab drops out."""
    browser = Browser()
    workspaces = make_workspaces(browser)
    a = workspaces.open("session:a")
    b = workspaces.open("session:b")
    tab_a = (await a.view.open_tab("http://a.test/", True)).tab
    tab_b = (await b.view.open_tab("http://b.test/", True)).tab
    await a.runtime.dispatch(s.ExtensionConnected(s.Browser(), (tab_a,)))
    await b.runtime.dispatch(s.ExtensionConnected(s.Browser(), (tab_b,)))

    def controlled() -> list[Any]:
        return [call[1] for call in browser.calls if call[0] == "controlled"]

    await a.runtime.dispatch(s.TabFocused(tab_a.id))
    assert controlled() == [[(tab_a.id, a.label)]]
    await a.runtime.dispatch(s.TabFocused(tab_a.id))  # no change: nothing sent
    await b.runtime.dispatch(s.TabFocused(tab_b.id))
    assert controlled()[-1] == sorted([(tab_a.id, a.label), (tab_b.id, b.label)])
    assert len(controlled()) == 2
    await b.runtime.dispatch(s.TabClosed(tab_b.id))  # the focused tab closed: no focus left there
    assert controlled()[-1] == [(tab_a.id, a.label)]
    await workspaces.close("session:a", "test over")
    assert controlled()[-1] == []
    await workspaces.close("session:b", "test over")


async def test_the_extensions_follow_option_reaches_workspaces_opened_later() -> None:
    hub = DriverHub(Browser())  # type: ignore[arg-type]
    early = hub.view("session:a", "own")
    hub.route(UserSettings(follow_tab_switches=True))
    late = hub.view("session:b", "own")
    assert drain(early) == [UserSettings(follow_tab_switches=True)]
    assert drain(late) == [UserSettings(follow_tab_switches=True)]
    hub.route(LinkChanged(up=False))  # the browser went: its choice goes with it
    assert drain(hub.view("session:c", "own")) == []
    assert hub.view("session:d", "own", group="team").label == "team"  # a shared browser's workspace group
    assert hub.view("local", "all").label == "tabmcp"  # stdio: the tabs go in a "tabmcp" group
