"""The CDP driver with several clients and with a navigation policy, all real: `tabmcp serve --http`
(or over stdio) with ``TABMCP_BROWSER=chromium``, the headless Chromium it launches, real MCP clients.

Isolation: over HTTP each client workspace opens its tabs in a browser context of its own (its own
cookies and localStorage) unless ``TABMCP_SHARE_BROWSER_CONTEXT`` is on; the context goes with the
workspace. A small page on one origin writes a cookie and a localStorage item from its query string
and shows what it can read in its headings, which the clients read back through ``snapshot``.

Besides the clients, a raw DevTools connection to the launched browser (its port from the
DevToolsActivePort file Chromium writes into the profile) reads which browser contexts and pages
exist and what cookies each context holds, attached to no page (the server's view is unchanged): it
is how "the context is gone" is observed directly rather than only through a fresh cookie jar. The
policy tests use it once more as the user's hands, typing a blocked URL into the model's tab.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
import websockets
from mcp import Client

from tabmcp.demo.client import StdioSession, data_of
from tabmcp.demo.sites import SiteServer
from tests.integration.conftest import eventually, kill_browser_using, serve
from tests.integration.http_harness import HttpServer, text_of
from tests.integration.test_load_outcomes import ON_LOAD, LoadSites, dialogs_of
from tests.integration.test_navigation_policy import PLUGIN, SECRET, Origin, Sites, blocked_notes, refused

STORE_PAGE = """<!doctype html><html><head><title>Store</title></head><body>
<h1 id="cookie">cookie</h1>
<h2 id="storage">storage</h2>
<a id="away" href="{elsewhere}/secret.html">Elsewhere</a>
<script>
const value = new URLSearchParams(location.search).get("set");
if (value) {{
  document.cookie = "who=" + value + "; path=/; max-age=3600";
  localStorage.setItem("who", value);
}}
document.getElementById("cookie").textContent = "cookie=[" + document.cookie + "]";
document.getElementById("storage").textContent = "storage=[" + (localStorage.getItem("who") || "") + "]";
</script>
</body></html>"""
FRAMED_PAGE = """<!doctype html><html><head><title>Framed</title></head><body>
<h1>Framed</h1><iframe id="inner" src="{secret}"></iframe></body></html>"""



# ----------------------------------------------------------------------------- the parts


class Store:
    """The store page on one origin, and a second origin (``elsewhere``) that counts its requests."""

    def __init__(self, root: Path) -> None:
        self.elsewhere = Origin()
        self.elsewhere.routes = {"/secret.html": (200, {}, f"<!doctype html><h1>{SECRET}</h1>")}
        (root / "store.html").write_text(STORE_PAGE.format(elsewhere=self.elsewhere.url))
        self.site = SiteServer(root)

    def url(self, value: str | None = None) -> str:
        return self.site.url("store.html" + (f"?set={value}" if value else ""))


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    root = tmp_path / "site"
    root.mkdir()
    made = Store(root)
    with made.site:
        yield made
    made.elsewhere.close()


class DevTools:
    """A raw DevTools connection to the browser tabmcp launched with ``profile``: browser-level
    commands only (and, for the user's hands, a session on one page it attaches to on request)."""

    def __init__(self, profile: Path) -> None:
        self.profile = profile
        self._ids = itertools.count(1)
        self._ws: Any = None

    async def __aenter__(self) -> DevTools:
        active = self.profile / "DevToolsActivePort"
        with anyio.fail_after(15):
            while not active.exists() or len(active.read_text().split()) < 2:
                await anyio.sleep(0.1)
        port, path = active.read_text().split()[:2]
        self._ws = await websockets.connect(f"ws://127.0.0.1:{port}{path}", max_size=None)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._ws.close()

    async def send(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        ident = next(self._ids)
        message: dict[str, Any] = {"id": ident, "method": method, "params": params}
        if session is not None:
            message["sessionId"] = session
        await self._ws.send(json.dumps(message))
        with anyio.fail_after(15):
            while True:
                answer = json.loads(await self._ws.recv())
                if answer.get("id") == ident:  # events (of an attached page) are skipped
                    if "error" in answer:
                        raise AssertionError(f"{method}: {answer['error']}")
                    return answer["result"]

    async def contexts(self) -> list[str]:
        """The browser contexts besides the default one (which is the profile's own)."""
        return list((await self.send("Target.getBrowserContexts"))["browserContextIds"])

    async def pages(self) -> dict[str, str]:
        """Each page's URL and the browser context it is in; not the blank pages the driver makes ahead
        for the next ``open_tab`` (no tabs: see ``blank_pages``)."""
        targets = (await self.send("Target.getTargets"))["targetInfos"]
        return {t["url"]: t["browserContextId"] for t in targets if t["type"] == "page" and t["url"] != "about:blank"}

    async def page_targets(self) -> dict[str, str]:
        """Each page target's id and URL, blank ones included."""
        targets = (await self.send("Target.getTargets"))["targetInfos"]
        return {t["targetId"]: t["url"] for t in targets if t["type"] == "page"}

    async def cookies(self, context: str | None = None) -> dict[str, str]:
        params = {"browserContextId": context} if context else {}
        return {c["name"]: c["value"] for c in (await self.send("Storage.getCookies", **params))["cookies"]}

    async def user_navigates(self, url_now: str, to: str) -> str:
        """The user sends the page at ``url_now`` to ``to`` (the address bar); the browser's error text."""
        targets = (await self.send("Target.getTargets"))["targetInfos"]
        target = next(t["targetId"] for t in targets if t["type"] == "page" and t["url"] == url_now)
        session = (await self.send("Target.attachToTarget", targetId=target, flatten=True))["sessionId"]
        try:
            error = str((await self.send("Page.navigate", session=session, url=to)).get("errorText", ""))

            async def shown() -> bool:  # the page, or Chrome's error page for it, is in: the user is done
                where = await self.send("Runtime.evaluate", session=session, expression="location.href")
                return where["result"].get("value") in (to, "chrome-error://chromewebdata/")

            # the target shows the URL before the error page commits; a navigation sent meanwhile would
            # be replaced by that commit
            await eventually(shown, f"the tab to show {to} (or Chrome's error page for it)", timeout=5)
        finally:
            await self.send("Target.detachFromTarget", sessionId=session)
        return error


@asynccontextmanager
async def launched_by_tabmcp(profile: Path) -> AsyncIterator[None]:
    """Whatever happens in the test, no Chromium with this profile outlives it."""
    try:
        yield
    finally:
        kill_browser_using(profile)



def ok(result: types.CallToolResult) -> dict[str, Any]:
    assert not result.is_error, text_of(result)
    return data_of(result)


async def stored(client: Client) -> tuple[str, str]:
    """What the client's focused page reads: its cookies and its localStorage item."""
    result = await client.call_tool("snapshot", {})
    assert not result.is_error, text_of(result)
    shown = text_of(result)
    cookie, storage = re.search(r"cookie=\[(.*?)\]", shown), re.search(r"storage=\[(.*?)\]", shown)
    assert cookie and storage, shown
    return cookie.group(1), storage.group(1)


async def open_store(client: Client, url: str) -> int:
    opened = ok(await client.call_tool("open_tab", {"url": url}))
    assert opened["tab"]["url"] == url and opened["focused"], opened
    return int(opened["tab"]["id"])


async def tab_ids(client: Client) -> list[int]:
    return sorted(t["id"] for t in ok(await client.call_tool("list_tabs", {}))["tabs"])


def cdp_server(log: object, profile: Path, **settings: str) -> HttpServer:
    return HttpServer(log, browser="chromium", user_data_dir=str(profile), **settings)  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- isolation over HTTP


async def test_each_http_client_has_its_own_cookies_and_storage(
    server_log: object, store: Store, tmp_path: Path
) -> None:
    profile = tmp_path / "profile"
    block = json.dumps([store.elsewhere.url])
    async with (
        launched_by_tabmcp(profile),
        cdp_server(server_log, profile, block_urls=block) as server,
        server.client(mode="legacy") as a,
        server.client(mode="legacy") as b,
    ):
        ok(await a.call_tool("connect_browser", {}))  # launches the browser
        ok(await b.call_tool("connect_browser", {}))  # the same browser, linked
        a_first = await open_store(a, store.url("alpha"))
        assert await stored(a) == ("who=alpha", "alpha")

        b_only = await open_store(b, store.url())
        assert await stored(b) == ("", "")  # the same origin, another jar and another localStorage

        a_second = await open_store(a, store.url())
        assert await stored(a) == ("who=alpha", "alpha")  # A's own second tab shares A's

        # B writes its own: each keeps its own value
        ok(await b.call_tool("navigate", {"url": store.url("beta")}))
        assert await stored(b) == ("who=beta", "beta")
        ok(await a.call_tool("navigate", {"go": "reload"}))
        assert await stored(a) == ("who=alpha", "alpha")

        # each lists its own tabs only, and cannot reach the other's
        assert await tab_ids(a) == sorted([a_first, a_second])
        assert await tab_ids(b) == [b_only]
        stolen = await b.call_tool("focus_tab", {"tabId": a_first})
        assert stolen.is_error and f"No tab with id {a_first}" in text_of(stolen)

        # in the browser: two contexts besides the default one, A's pages in one and B's in the
        # other, and the profile's own cookie jar untouched
        async with DevTools(profile) as devtools:
            contexts = await devtools.contexts()
            pages = await devtools.pages()
            assert len(contexts) == 2, (contexts, pages)
            assert pages[store.url("alpha")] == pages[store.url()] != pages[store.url("beta")], pages
            assert {pages[store.url("alpha")], pages[store.url("beta")]} == set(contexts)
            assert await devtools.cookies(pages[store.url("alpha")]) == {"who": "alpha"}
            assert await devtools.cookies(pages[store.url("beta")]) == {"who": "beta"}
            assert "who" not in await devtools.cookies()

        # the navigation policy holds in a workspace's own context as in the default one
        ok(await b.call_tool("navigate", {"url": store.url()}))
        away = await b.call_tool("interact", {"action": "click", "target": "css=#away"})
        assert away.is_error and data_of(away).get("code") == "NAVIGATION_BLOCKED", text_of(away)
        assert store.elsewhere.hits == []


async def test_a_shared_browser_context_shares_cookies_and_storage(
    server_log: object, store: Store, tmp_path: Path
) -> None:
    profile = tmp_path / "profile"
    async with (
        launched_by_tabmcp(profile),
        cdp_server(server_log, profile, share_browser_context="true") as server,
        server.client(mode="legacy") as a,
        server.client(mode="legacy") as b,
    ):
        ok(await a.call_tool("connect_browser", {}))
        ok(await b.call_tool("connect_browser", {}))
        a_tab = await open_store(a, store.url("alpha"))
        assert await stored(a) == ("who=alpha", "alpha")
        b_tab = await open_store(b, store.url())
        assert await stored(b) == ("who=alpha", "alpha")  # one profile: B reads what A wrote

        # the cookies are shared, the tabs are not
        assert await tab_ids(a) == [a_tab] and await tab_ids(b) == [b_tab]

        async with DevTools(profile) as devtools:
            assert await devtools.contexts() == []  # no context made: all in the default one
            assert await devtools.cookies() == {"who": "alpha"}


async def test_a_client_that_disconnects_takes_its_tabs_and_context_along(
    server_log: object, store: Store, tmp_path: Path
) -> None:
    profile = tmp_path / "profile"
    async with (
        launched_by_tabmcp(profile),
        cdp_server(server_log, profile) as server,
        server.client(mode="legacy") as b,
    ):
        ok(await b.call_tool("connect_browser", {}))
        b_tab = await open_store(b, store.url("beta"))
        async with DevTools(profile) as devtools:
            async with server.client(mode="legacy") as c:
                ok(await c.call_tool("connect_browser", {}))
                await open_store(c, store.url("gamma"))
                await open_store(c, store.url())
                assert await stored(c) == ("who=gamma", "gamma")
                pages = await devtools.pages()
                c_context = pages[store.url("gamma")]
                assert set(await devtools.contexts()) == {c_context, pages[store.url("beta")]}
            # C is gone: its session ended, its workspace closed its two tabs, then its context

            async def released() -> bool:
                return c_context not in await devtools.contexts()

            await eventually(released, "C's browser context closed")
            assert set((await devtools.pages()).keys()) == {store.url("beta")}, await devtools.pages()

            # a client that comes next starts with nothing C left
            async with server.client(mode="legacy") as d:
                ok(await d.call_tool("connect_browser", {}))
                await open_store(d, store.url())
                assert await stored(d) == ("", "")
                assert c_context not in await devtools.contexts()

        # B never noticed
        assert await tab_ids(b) == [b_tab]
        assert await stored(b) == ("who=beta", "beta")


async def test_a_named_workspace_keeps_its_context_until_it_idles_out(
    server_log: object, store: Store, tmp_path: Path
) -> None:
    profile = tmp_path / "profile"
    async with launched_by_tabmcp(profile), cdp_server(server_log, profile, session_idle_timeout="3") as server:
        async with server.client(mode="legacy", workspace="alice") as first:
            ok(await first.call_tool("connect_browser", {}))
            await open_store(first, store.url("delta"))
        async with DevTools(profile) as devtools:
            [alice_context] = await devtools.contexts()
            async with server.client(mode="legacy", workspace="alice") as again:
                # reconnected before the idle timeout: the same workspace, the same context
                await open_store(again, store.url())
                assert await stored(again) == ("who=delta", "delta")
                assert await devtools.contexts() == [alice_context]

            async def idled_out() -> bool:
                return await devtools.contexts() == [] and await devtools.pages() == {}

            await eventually(idled_out, "alice's tabs and context closed after the idle timeout")
            async with server.client(mode="legacy", workspace="alice") as later:
                ok(await later.call_tool("connect_browser", {}))
                await open_store(later, store.url())
                assert await stored(later) == ("", "")  # a new workspace under the old name: a fresh context
                assert alice_context not in await devtools.contexts()


# ----------------------------------------------------------------------------- the navigation policy


@pytest.fixture
def policy_sites() -> Iterator[Sites]:
    made = Sites()
    made.allowed.routes["/framed.html"] = (200, {}, FRAMED_PAGE.format(secret=made.secret))
    yield made
    made.allowed.close()
    made.blocked.close()


@pytest.fixture
def plugins(tmp_path: Path) -> Path:
    """test_navigation_policy's site introspector: page tools that navigate to the blocked origin."""
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "leaving.py").write_text(PLUGIN)
    return folder


def blocking(sites: Sites, profile: Path, plugins: Path) -> dict[str, str]:
    return {
        "browser": "chromium",
        "user_data_dir": str(profile),
        "block_urls": json.dumps([sites.blocked.url]),
        "introspectors_dir": str(plugins),
    }


async def noted(client: StdioSession, first: types.CallToolResult | None = None) -> list[str]:
    """The blocked-navigation notes a result carries, or the next list_tabs results do."""
    notes = blocked_notes(first) if first is not None else []

    async def arrived() -> bool:
        notes.extend(blocked_notes(await client.call("list_tabs")))
        return bool(notes)

    await eventually(arrived, "a note about a blocked navigation")
    return notes


async def back_to_start(client: StdioSession, sites: Sites) -> None:
    """The server goes on after a refusal: the focused tab goes where it is sent next."""
    result = await client.call("navigate", {"url": sites.start})
    assert not result.is_error, text_of(result)
    assert data_of(result)["url"] == sites.start, text_of(result)


async def test_open_tab_takes_a_page_made_ahead_with_the_policy_and_the_agent_in_it(
    server_log: object, tmp_path: Path
) -> None:
    """The headless browser tabmcp launched keeps a blank page made ahead for the next ``open_tab``: it
    is no tab, and an open that takes it is as one that made its page: a dialog the page shows on load
    is in the answer, a refused URL is refused before it loads."""
    sites, profile = LoadSites(), tmp_path / "profile"
    sites.allowed.routes["/away.html"] = (302, {"Location": f"{sites.blocked.url}/secret.html?away"}, "")
    settings = {"browser": "chromium", "user_data_dir": str(profile), "block_urls": json.dumps([sites.blocked.url])}
    try:
        async with launched_by_tabmcp(profile), serve(server_log, **settings) as client:
            await client.call_ok("connect_browser")
            await client.call_ok("open_tab", {"url": sites.url("plain.html")})
            async with DevTools(profile) as devtools:

                async def blank() -> list[str]:
                    return [i for i, url in (await devtools.page_targets()).items() if url == "about:blank"]

                async def made_ahead() -> bool:
                    return len(await blank()) == 1

                await eventually(made_ahead, "a blank page made ahead for the next open_tab")
                [spare] = await blank()
                listed = await client.call_ok("list_tabs")
                assert [t["url"] for t in listed["tabs"]] == [sites.url("plain.html")], listed

                opened = await client.call_ok("open_tab", {"url": sites.url("alert.html")})
                assert (await devtools.page_targets()).get(spare) == sites.url("alert.html")  # the page made ahead
                assert dialogs_of(opened) == ON_LOAD, opened

                await eventually(made_ahead, "the next blank page made once the opened page loaded")
                [spare] = await blank()
                result = await client.call("open_tab", {"url": sites.url("away.html")})  # the redirect is routed
                assert result.is_error and data_of(result).get("code") == "NAVIGATION_BLOCKED", text_of(result)
                assert "secret.html?away" in text_of(result), text_of(result)
                assert spare not in await devtools.page_targets()  # taken, and closed with the refused open
                assert sites.blocked.hits == []
                listed = await client.call_ok("list_tabs")
                assert sorted(t["url"] for t in listed["tabs"]) == [sites.url("alert.html"), sites.url("plain.html")]
    finally:
        sites.allowed.close()
        sites.blocked.close()


async def test_the_page_cannot_leave_for_a_blocked_origin_on_the_cdp_driver(
    policy_sites: Sites, plugins: Path, server_log: object, tmp_path: Path
) -> None:
    sites, profile = policy_sites, tmp_path / "profile"
    async with launched_by_tabmcp(profile), serve(server_log, **blocking(sites, profile, plugins)) as client:
        await client.call_ok("connect_browser")
        opened = await client.call_ok("open_tab", {"url": sites.start})
        assert {"go_secret", "go_redirect"} <= set(opened["toolsAvailable"])

        # asked for directly: refused before the browser goes there
        why = await refused(client, "open_tab", {"url": sites.secret}, "NAVIGATION_BLOCKED")
        assert f"block_urls: {sites.blocked.url}" in why and "TABMCP_BLOCK_URLS" in why
        why = await refused(client, "go_secret", {}, "NAVIGATION_BLOCKED")
        assert "go_secret was not run" in why and sites.secret in why

        # the page goes there itself: a link, a script, a form
        for target in ("#out", "#script"):
            click = {"action": "click", "target": f"css={target}"}
            why = await refused(client, "interact", click, "NAVIGATION_BLOCKED")
            assert sites.secret in why and "TABMCP_BLOCK_URLS" in why, (target, why)
            await back_to_start(client, sites)
        await client.call_ok("interact", {"action": "fill", "target": "css=input[name=message]", "text": "hello"})
        why = await refused(
            client, "interact", {"action": "click", "target": "role=button[name=Send message]"}, "NAVIGATION_BLOCKED"
        )
        assert f"{sites.blocked.url}/post" in why
        await back_to_start(client, sites)

        # a frame of an allowed page: the page loads, the frame does not, and the result says so
        framed = await client.call("navigate", {"url": f"{sites.allowed.url}/framed.html"})
        assert not framed.is_error and data_of(framed)["title"] == "Framed", text_of(framed)
        notes = await noted(client, framed)
        assert sites.secret in notes[0], notes

        # the user sends the tab there (the address bar): the browser refuses, the next result says so
        await back_to_start(client, sites)
        async with DevTools(profile) as devtools:
            error = await devtools.user_navigates(sites.start, sites.secret + "?typed")
            assert error == "net::ERR_BLOCKED_BY_CLIENT", error
        notes = await noted(client)
        assert "?typed" in notes[0], notes

        # through all of it the blocked origin got no request; the server works on
        assert sites.blocked.hits == []
        other = await client.call_ok("navigate", {"url": f"{sites.allowed.url}/other.html"})
        assert other["title"] == "Other", other
        snapshot = await client.call("snapshot", {"mode": "full"})
        assert not snapshot.is_error and "Another allowed page" in text_of(snapshot), text_of(snapshot)


async def test_a_redirect_into_a_blocked_origin_is_refused_in_the_browser(
    policy_sites: Sites, plugins: Path, server_log: object, tmp_path: Path
) -> None:
    """An allowed URL that answers with a redirect to the blocked origin, reached three ways."""
    sites, profile = policy_sites, tmp_path / "profile"
    async with launched_by_tabmcp(profile), serve(server_log, **blocking(sites, profile, plugins)) as client:
        await client.call_ok("connect_browser")
        await client.call_ok("open_tab", {"url": sites.start})

        why = await refused(client, "navigate", {"url": f"{sites.allowed.url}/redirect"}, "NAVIGATION_BLOCKED")
        assert sites.blocked.hits == [], "the browser followed the redirect to the blocked origin"
        assert sites.secret in why and "TABMCP_BLOCK_URLS" in why, why
        await back_to_start(client, sites)

        why = await refused(client, "go_redirect", {}, "NAVIGATION_BLOCKED")
        assert sites.blocked.hits == [], "the browser followed the redirect to the blocked origin"
        assert "step 1 (navigate)" in why and sites.secret in why, why
        await back_to_start(client, sites)

        why = await refused(client, "interact", {"action": "click", "target": "css=#redir"}, "NAVIGATION_BLOCKED")
        assert sites.blocked.hits == [], "the browser followed the redirect to the blocked origin"
        assert sites.secret in why and "TABMCP_BLOCK_URLS" in why, why
        await back_to_start(client, sites)
        snapshot = await client.call("snapshot", {"mode": "full"})
        assert not snapshot.is_error and "Start" in text_of(snapshot) and SECRET not in text_of(snapshot)


async def test_a_popup_into_a_blocked_origin_is_stopped_and_reported(
    policy_sites: Sites, plugins: Path, server_log: object, tmp_path: Path
) -> None:
    sites, profile = policy_sites, tmp_path / "profile"
    async with launched_by_tabmcp(profile), serve(server_log, **blocking(sites, profile, plugins)) as client:
        await client.call_ok("connect_browser")
        start = (await client.call_ok("open_tab", {"url": sites.start}))["tab"]["id"]

        # the page's own tab is fine, the popup is stopped, and a result says so
        popup = await client.call("interact", {"action": "click", "target": "css=#popup"})
        assert not popup.is_error, text_of(popup)
        notes = await noted(client, popup)
        assert sites.secret in notes[0] and "TABMCP_BLOCK_URLS" in notes[0], notes
        assert f"a popup tab {start}'s page opened" in notes[0], notes
        assert sites.blocked.hits == []

        # the popup is listed where it was refused (as Chrome's tab strip shows it), not at Chrome's
        # error page; the model's tab is where it was
        tabs = {t["id"]: t["url"] for t in (await client.call_ok("list_tabs"))["tabs"]}
        assert tabs.pop(start) == sites.start
        assert list(tabs.values()) == [sites.secret], tabs


async def test_an_allow_list_lets_one_origin_through_on_the_cdp_driver(
    policy_sites: Sites, server_log: object, tmp_path: Path
) -> None:
    sites, profile = policy_sites, tmp_path / "profile"
    settings = {"browser": "chromium", "user_data_dir": str(profile), "allow_urls": json.dumps([sites.allowed.url])}
    async with launched_by_tabmcp(profile), serve(server_log, **settings) as client:
        await client.call_ok("connect_browser")
        await client.call_ok("open_tab", {"url": sites.start})
        why = await refused(client, "open_tab", {"url": sites.secret}, "NAVIGATION_BLOCKED")
        assert f"allow_urls: {sites.allowed.url}" in why and "TABMCP_ALLOW_URLS" in why
        for target in ("#out", "#redir"):
            click = {"action": "click", "target": f"css={target}"}
            why = await refused(client, "interact", click, "NAVIGATION_BLOCKED")
            assert sites.blocked.hits == [], f"{target}: the browser reached the origin the allow list leaves out"
            assert sites.secret in why and "TABMCP_ALLOW_URLS" in why, (target, why)
            await back_to_start(client, sites)
        other = await client.call_ok("navigate", {"url": f"{sites.allowed.url}/other.html"})
        assert other["title"] == "Other", other
