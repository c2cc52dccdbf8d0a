"""The navigation policy as a real boundary: `tabmcp serve` with block/allow lists, a real browser
with the real extension, and pages that try to leave for a blocked origin every way a page can
(a link, a redirect, a form, a script, a popup, the user). Two origins on 127.0.0.1, told apart by
port: the blocked one counts every request it gets, and must get none."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page
from toon_format import decode as toon_decode

from tabmcp.demo.client import StdioSession, data_of, text_of
from tabmcp.pairing import EXTENSION_ID
from tabmcp.policy import NavigationPolicy
from tests.integration.conftest import OwnBrowser, eventually, serve

SECRET = "TOP SECRET CONTENT"
BROWSER_ERROR_PAGE = "chrome-error://chromewebdata/"  # where a navigation the browser blocked ends
START_PAGE = """<!doctype html><html><head><title>Start</title></head><body>
<h1>Start</h1>
<a id="out" href="{blocked}/secret.html">Secret link</a>
<a id="redir" href="/redirect">Redirecting link</a>
<button id="script" onclick="location.href='{blocked}/secret.html'">Go by script</button>
<button id="popup" onclick="window.open('{blocked}/secret.html')">Open popup</button>
<form id="send" action="{blocked}/post" method="post">
  <label>Message <input name="message"></label><button>Send message</button>
</form>
</body></html>"""
OTHER_PAGE = "<!doctype html><html><head><title>Other</title></head><body><p>Another allowed page</p></body></html>"
SECRET_PAGE = f"<!doctype html><html><head><title>Secret</title></head><body><h1>{SECRET}</h1></body></html>"

# A site introspector for the start page whose tools navigate: to the blocked origin (absolute), and
# to the redirect (relative: the server lets it through, the browser stops the redirect).
PLUGIN = """
from tabmcp.introspect.api import Introspector, PageTool, ToolHints, navigate

NO_ARGS = {"type": "object", "properties": {}, "additionalProperties": False}



class Leaving(Introspector):
    def tools(self, capture):
        link = capture.tree.find(".//a[@id='out']")
        if link is None:
            return []
        hints = ToolHints(read_only=False, destructive=False, idempotent=True)
        return [
            PageTool(name="go_secret", description="Open the secret page.", input_schema=NO_ARGS,
                     plan=(navigate(link.get("href")),), hints=hints),
            PageTool(name="go_redirect", description="Follow the redirect.", input_schema=NO_ARGS,
                     plan=(navigate("/redirect"),), hints=hints),
        ]


INTROSPECTORS = [Leaving(name="leaving", kind="site", url_patterns=["*/start.html"])]
"""


class Origin:
    """One origin on 127.0.0.1 serving ``routes``; every request is recorded in ``hits``."""

    def __init__(self) -> None:
        self.routes: dict[str, tuple[int, dict[str, str], str]] = {}
        self.hits: list[str] = []
        origin = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                origin.hits.append(f"{self.command} {self.path}")
                status, headers, body = origin.routes.get(self.path.split("?")[0], (404, {}, "not found"))
                payload = body.encode()
                self.send_response(status)
                for name, value in {"Content-Type": "text/html; charset=utf-8", **headers}.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_POST = do_GET

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class Sites:
    def __init__(self) -> None:
        self.allowed, self.blocked = Origin(), Origin()
        self.allowed.routes = {
            "/start.html": (200, {}, START_PAGE.format(blocked=self.blocked.url)),
            "/other.html": (200, {}, OTHER_PAGE),
            "/redirect": (302, {"Location": f"{self.blocked.url}/secret.html"}, ""),
        }
        self.blocked.routes = {"/secret.html": (200, {}, SECRET_PAGE), "/post": (200, {}, SECRET_PAGE)}
        self.start = f"{self.allowed.url}/start.html"
        self.secret = f"{self.blocked.url}/secret.html"


@pytest.fixture
def sites() -> Iterator[Sites]:
    made = Sites()
    yield made
    made.allowed.close()
    made.blocked.close()


async def refused(client: StdioSession, tool: str, args: dict[str, Any], code: str) -> str:
    """Call a tool that must fail with ``code``; its message."""
    result = await client.call(tool, args)
    assert result.is_error, f"{tool} {args} succeeded: {text_of(result)}"
    assert data_of(result).get("code") == code, text_of(result)
    return str(data_of(result)["error"])


async def page_at(browser: OwnBrowser, url: str) -> Page:
    """Playwright's page for the tab at ``url`` (it learns of tabs the extension opened a little later)."""
    found: list[Page] = []

    async def known() -> bool:
        found[:] = [p for p in browser.context.pages if p.url == url]
        return bool(found)

    await eventually(known, f"Playwright to know the page at {url}")
    return found[0]


async def shows_secret(browser: OwnBrowser) -> bool:
    for page in browser.context.pages:
        try:
            if SECRET in await page.content():
                return True
        except Exception:  # a page closing or navigating meanwhile
            continue
    return False


async def back_to_start(client: StdioSession, sites: Sites) -> None:
    """The server keeps working after a refusal: the focused tab can go on as before. (A popup the
    browser blocked just before may be named in this answer, after the page: its ``blocked`` lines.)"""
    result = await client.call("navigate", {"url": sites.start})
    assert not result.is_error, text_of(result)
    page = toon_decode("\n".join(line for line in text_of(result).splitlines() if not line.startswith("blocked: ")))
    assert page["url"] == sites.start, text_of(result)


def blocked_notes(result: types.CallToolResult) -> list[str]:
    if result.structured_content:
        return list(result.structured_content.get("blocked", []))
    return [line for line in text_of(result).splitlines() if line.startswith("blocked: ")]


async def test_a_block_list_holds_for_tools_links_redirects_forms_scripts_and_popups(
    sites: Sites, server_log: object, own_browser_port: int, tmp_path: Path
) -> None:
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "leaving.py").write_text(PLUGIN)
    settings = {
        "ws_port": str(own_browser_port),
        "block_urls": json.dumps([sites.blocked.url]),  # an origin: all of it
        "introspectors_dir": str(plugins),
    }
    async with OwnBrowser(own_browser_port) as browser, serve(server_log, **settings) as client:
        await client.call_ok("connect_browser")
        opened = await client.call_ok("open_tab", {"url": sites.start})
        assert {"go_secret", "go_redirect"} <= set(opened["toolsAvailable"])
        start_page = await page_at(browser, sites.start)

        # the model asks for the blocked origin itself: refused before the browser is asked
        why = await refused(client, "open_tab", {"url": sites.secret}, "NAVIGATION_BLOCKED")
        assert sites.secret in why and f"block_urls: {sites.blocked.url}" in why and "TABMCP_BLOCK_URLS" in why
        why = await refused(client, "navigate", {"url": sites.secret + "?again"}, "NAVIGATION_BLOCKED")
        assert "TABMCP_BLOCK_URLS" in why
        why = await refused(client, "go_secret", {}, "NAVIGATION_BLOCKED")
        assert "go_secret was not run" in why and sites.secret in why

        # an allowed URL that redirects to the blocked origin: the browser stops the redirect
        why = await refused(client, "navigate", {"url": f"{sites.allowed.url}/redirect"}, "NAVIGATION_BLOCKED")
        assert sites.secret in why and "blocked by tabmcp's navigation policy" in why
        assert not await shows_secret(browser)
        await back_to_start(client, sites)
        why = await refused(client, "go_redirect", {}, "NAVIGATION_BLOCKED")
        assert "step 1 (navigate)" in why and sites.secret in why
        await back_to_start(client, sites)

        # the page goes there itself: a link, a script, a form
        for target in ("#out", "#script"):
            click = {"action": "click", "target": f"css={target}"}
            why = await refused(client, "interact", click, "NAVIGATION_BLOCKED")
            assert sites.secret in why and "TABMCP_BLOCK_URLS" in why, why
            await back_to_start(client, sites)
        await client.call_ok("interact", {"action": "fill", "target": "css=input[name=message]", "text": "hello"})
        why = await refused(
            client, "interact", {"action": "click", "target": "role=button[name=Send message]"}, "NAVIGATION_BLOCKED"
        )
        assert f"{sites.blocked.url}/post" in why
        await back_to_start(client, sites)

        # a popup: the page's own tab is fine, the popup is stopped, and the next result says so
        popup = await client.call("interact", {"action": "click", "target": "css=#popup"})
        assert not popup.is_error, text_of(popup)
        notes = blocked_notes(popup)

        async def popup_reported() -> bool:
            notes.extend(blocked_notes(await client.call("list_tabs")))
            return bool(notes)

        await eventually(popup_reported, "a note about the blocked popup")
        assert sites.secret in notes[0] and "TABMCP_BLOCK_URLS" in notes[0], notes

        # the user sends the focused tab there (the address bar, a bookmark): blocked, and noted
        with pytest.raises(Exception, match="ERR_BLOCKED_BY_CLIENT"):
            await start_page.goto(sites.secret + "?typed")
        user_notes: list[str] = []

        async def user_reported() -> bool:
            user_notes.extend(blocked_notes(await client.call("list_tabs")))
            return bool(user_notes)

        await eventually(user_reported, "a note about the user's blocked navigation")
        assert "?typed" in user_notes[0], user_notes

        # through all of it the browser never reached the blocked origin, and the server still works
        assert sites.blocked.hits == []
        assert not await shows_secret(browser)
        await back_to_start(client, sites)
        assert data_of(await client.call("navigate", {"url": f"{sites.allowed.url}/other.html"}))["title"] == "Other"


async def test_browser_pages_and_files_need_an_explicit_opt_in(
    sites: Sites, server_log: object, own_browser_port: int
) -> None:
    async with OwnBrowser(own_browser_port) as browser:
        async with serve(server_log, ws_port=str(own_browser_port)) as client:
            await client.call_ok("connect_browser")
            for url in ("chrome://settings", "file:///etc/passwd"):
                why = await refused(client, "open_tab", {"url": url}, "INVALID_URL")
                assert "TABMCP_ALLOW_URLS" in why, why
            await client.call_ok("open_tab", {"url": sites.start})
            why = await refused(client, "navigate", {"url": "chrome://settings/"}, "INVALID_URL")
            assert "TABMCP_ALLOW_URLS" in why

            # the user takes the model's tab to a browser page: it is sent to about:blank, and the
            # next result says why
            start_page = await page_at(browser, sites.start)
            await start_page.goto("chrome://version")
            notes: list[str] = []

            async def stopped() -> bool:
                notes.extend(blocked_notes(await client.call("list_tabs")))
                return bool(notes) and start_page.url == "about:blank"

            await eventually(stopped, "the tab at chrome://version sent to about:blank, with a note")
            assert "chrome://version" in notes[0] and "about:blank" in notes[0], notes
            await back_to_start(client, sites)

        # the same pages, opted in (and, with an allow list, the test's own site too)
        allow = ["chrome://settings/*", "file:///etc/passwd", f"{sites.allowed.url}"]
        async with serve(server_log, ws_port=str(own_browser_port), allow_urls=json.dumps(allow)) as client:
            await client.call_ok("connect_browser")
            settings_tab = await client.call_ok("open_tab", {"url": "chrome://settings"})
            assert settings_tab["tab"]["url"].startswith("chrome://settings"), settings_tab
            passwd = await client.call_ok("open_tab", {"url": "file:///etc/passwd"})
            assert passwd["tab"]["url"] == "file:///etc/passwd", passwd
            assert "root:" in await (await page_at(browser, "file:///etc/passwd")).content()
            await client.call_ok("navigate", {"url": "chrome://settings/privacy"})
            # other browser pages stay closed
            why = await refused(client, "navigate", {"url": "chrome://version"}, "INVALID_URL")
            assert "chrome://version/*" in why
            assert data_of(await client.call("navigate", {"url": sites.start}))["title"] == "Start"


async def test_an_allow_list_lets_one_origin_through(sites: Sites, server_log: object, own_browser_port: int) -> None:
    allow = json.dumps([sites.allowed.url])
    async with (
        OwnBrowser(own_browser_port) as browser,
        serve(server_log, ws_port=str(own_browser_port), allow_urls=allow) as client,
    ):
        await client.call_ok("connect_browser")
        await client.call_ok("open_tab", {"url": sites.start})
        why = await refused(client, "open_tab", {"url": sites.secret}, "NAVIGATION_BLOCKED")
        assert f"allow_urls: {sites.allowed.url}" in why and "TABMCP_ALLOW_URLS" in why
        why = await refused(client, "navigate", {"url": "https://example.com/"}, "NAVIGATION_BLOCKED")
        # the browser refuses everything else too: the page's link, and a redirect out
        why = await refused(client, "interact", {"action": "click", "target": "css=#out"}, "NAVIGATION_BLOCKED")
        assert sites.secret in why and "TABMCP_ALLOW_URLS" in why, why
        await back_to_start(client, sites)
        why = await refused(client, "interact", {"action": "click", "target": "css=#redir"}, "NAVIGATION_BLOCKED")
        assert sites.secret in why, why
        await back_to_start(client, sites)
        assert data_of(await client.call("navigate", {"url": f"{sites.allowed.url}/other.html"}))["title"] == "Other"
        assert sites.blocked.hits == []
        assert not await shows_secret(browser)


async def test_pages_reached_without_asking_the_network_are_caught_too(
    sites: Sites, server_log: object, own_browser_port: int
) -> None:
    """History (a file, or a page the back/forward cache serves, is reached without a request the
    browser rules see) and tabs the user opened before the server came: the server checks where a
    tab is."""
    async with OwnBrowser(own_browser_port) as browser:
        # before tabmcp was there, the user's own browsing
        from_file, from_web, users = [await browser.context.new_page() for _ in range(3)]
        await from_file.goto("file:///etc/passwd")
        await from_web.goto(sites.secret)
        await users.goto(sites.secret + "?user")
        for page in (from_file, from_web):
            await page.goto(sites.start + f"?{id(page)}")
        settings = {"ws_port": str(own_browser_port), "block_urls": json.dumps([sites.blocked.url])}
        async with serve(server_log, **settings) as client:
            await client.call_ok("connect_browser")
            tabs = {t["url"]: t["id"] for t in (await client.call_ok("list_tabs"))["tabs"]}
            why = await refused(client, "focus_tab", {"tabId": tabs[sites.secret + "?user"]}, "NAVIGATION_BLOCKED")
            assert "shows a page tabmcp may not use" in why and "TABMCP_BLOCK_URLS" in why

            # back to a file: no request, so the server catches where the tab landed and sends it away
            await client.call_ok("focus_tab", {"tabId": tabs[sites.start + f"?{id(from_file)}"]})
            why = await refused(client, "navigate", {"go": "back"}, "NAVIGATION_BLOCKED")
            assert "file:///etc/passwd is a local file" in why and "sent the tab to about:blank" in why, why

            async def sent_away() -> bool:
                return from_file.url == "about:blank"

            await eventually(sent_away, "the tab at file:///etc/passwd sent to about:blank")
            assert "blocked" not in await client.call_ok("list_tabs")  # the failure said it: no note again

            # back to the blocked origin: the browser blocks the request
            await client.call_ok("focus_tab", {"tabId": tabs[sites.start + f"?{id(from_web)}"]})
            why = await refused(client, "navigate", {"go": "back"}, "NAVIGATION_BLOCKED")
            assert sites.secret in why, why
            assert SECRET not in await from_web.content()
            await back_to_start(client, sites)


# One pattern of every form the syntax has: the browser must take each as a declarativeNetRequest rule.
EVERY_FORM = {
    "block": [
        "*://*.bank.example/*",
        "https://mail.example.com/inbox/*",
        "http://127.0.0.1:8080",
        "https://example.org:443/a?b=*",
        "*://[::1]:*/admin*",
        "https://xn--bcher-kva.example/*",
        "*://*/*.exe",
    ],
    "allow": ["*://*/*", "https://*.example.com", "chrome://settings/*", "file:///tmp/*", "view-source:https://x.test"],
}


async def session_rules(browser: OwnBrowser) -> list[dict[str, Any]]:
    worker = browser.context.service_workers[0]
    return await worker.evaluate("chrome.declarativeNetRequest.getSessionRules()")


async def test_every_pattern_form_becomes_a_browser_rule_while_the_server_is_linked(
    server_log: object, own_browser_port: int
) -> None:
    policy = NavigationPolicy.from_patterns(**EVERY_FORM)
    settings = {"block_urls": json.dumps(EVERY_FORM["block"]), "allow_urls": json.dumps(EVERY_FORM["allow"])}
    async with OwnBrowser(own_browser_port) as browser:
        async with serve(server_log, ws_port=str(own_browser_port), **settings) as client:
            await client.call_ok("connect_browser")
            rules = await session_rules(browser)
            web_block = [p.regex for p in policy.block if p.web]
            web_allow = [p.regex for p in policy.allow if p.web]
            assert [r["condition"]["regexFilter"] for r in rules if r["priority"] == 3] == web_block
            assert [r["condition"]["regexFilter"] for r in rules if r["priority"] == 2] == web_allow
            assert [r["condition"]["regexFilter"] for r in rules if r["priority"] == 1] == ["^https?://"]
            assert all(r["condition"]["resourceTypes"] == ["main_frame", "sub_frame"] for r in rules)
        # the server went away: so did its rules, and the user's browser is unrestricted again

        async def cleared() -> bool:
            return await session_rules(browser) == []

        await eventually(cleared, "the session rules cleared after the server left")


async def stop_service_worker(browser: OwnBrowser) -> None:
    """Stop the extension's service worker as Chrome does to an idle one (its socket goes with it);
    the next browser event starts a new one."""
    page = await browser.context.new_page()
    await page.goto(f"chrome-extension://{EXTENSION_ID}/options.html")
    cdp = await browser.context.new_cdp_session(page)
    versions: list[dict[str, Any]] = []
    cdp.on("ServiceWorker.workerVersionUpdated", lambda event: versions.extend(event["versions"]))
    await cdp.send("ServiceWorker.enable")

    async def running() -> bool:
        return any(v["runningStatus"] == "running" and v["scriptURL"].endswith("/background.js") for v in versions)

    await eventually(running, "the extension's running service worker reported over CDP")
    for version in versions:
        if version["runningStatus"] == "running" and version["scriptURL"].endswith("/background.js"):
            await cdp.send("ServiceWorker.stopWorker", {"versionId": version["versionId"]})
    await cdp.detach()
    await page.close()


async def lands_blocked(page: Page, url: str, sites: Sites) -> None:
    """``page`` (at an allowed page, or a popup) ends its navigation to ``url`` at the browser's error
    page (or at about:blank, where the server sends its focused tab from there), and the blocked
    origin got no request."""

    async def ended() -> bool:
        return page.url in (BROWSER_ERROR_PAGE, "about:blank")

    await eventually(ended, f"the page to end its navigation to {url}")
    assert sites.blocked.hits == [], f"the browser asked the blocked origin for {url}"


async def navigate_itself(page: Page, url: str) -> None:
    """The page's own script sends it to ``url`` (not Playwright's navigation, not a tool)."""
    await page.evaluate("url => { setTimeout(() => { location.href = url; }, 0); }", url)


async def goto_from_refused(page: Page, url: str) -> None:
    """The test's own navigation away from a refused page. The server may be sending the same tab to
    about:blank at that moment (a relinked server restores the focus, and sends a focused tab at a
    refused page away): that navigation wins, and the test's goes once it is done. Leaving the
    browser's error page, Chromium may start the same navigation again in another process, which
    Playwright reports as interrupted by a navigation to ``url`` itself: the page still loads ``url``.
    The server's navigation may also cancel the test's outright (``net::ERR_ABORTED``): it goes again."""
    for attempt in range(3):
        try:
            await page.goto(url)
            return
        except PlaywrightError as exc:
            if f'interrupted by another navigation to "{url}"' in str(exc):
                await page.wait_for_url(url)
                return
            message = str(exc)
            cancelled = 'interrupted by another navigation to "about:blank"' in message or "net::ERR_ABORTED" in message
            if not cancelled or attempt == 2:
                raise


async def relinked(browser: OwnBrowser, client: StdioSession, tab_id: int) -> None:
    """The extension linked again (a new, confirmed link in the running worker), and the server is
    connected again with ``tab_id`` focused, without any connect_browser call."""

    async def linked_again() -> bool:
        for worker in browser.context.service_workers:
            try:
                if await worker.evaluate("Boolean(link && link.confirmed)"):
                    return True
            except Exception:  # a stopped worker Playwright has not dropped yet
                continue
        return False

    await eventually(linked_again, "the extension linked again")

    async def focused_again() -> bool:
        result = await client.call("list_tabs")
        return not result.is_error and data_of(result).get("focusedTabId") == tab_id

    await eventually(focused_again, f"the server connected again with tab {tab_id} focused")


async def tools_read(client: StdioSession, tab_id: int, count: int) -> None:
    """The server has read the focused tab's page: its ``count`` tools are listed (and notified)."""

    async def read() -> bool:
        tabs = (await client.call_ok("list_tabs"))["tabs"]
        return any(t["id"] == tab_id and t["toolCount"] == count for t in tabs)

    await eventually(read, f"the {count} tools of tab {tab_id} read")


async def test_the_policy_holds_and_the_link_comes_back_after_a_cut_off_and_a_worker_restart(
    sites: Sites, server_log: object, own_browser_port: int
) -> None:
    settings = {"ws_port": str(own_browser_port), "block_urls": json.dumps([sites.blocked.url]), "relink_grace": "60"}
    async with OwnBrowser(own_browser_port) as browser, serve(server_log, **settings) as client:
        # the rules reach the browser as it links, before the model has called anything

        async def rules_installed() -> bool:
            return bool(await session_rules(browser))

        await eventually(rules_installed, "the block rules installed when the browser linked")
        await client.call_ok("connect_browser")
        tab_id = (await client.call_ok("open_tab", {"url": sites.start}))["tab"]["id"]
        page = await page_at(browser, sites.start)

        # a cut-off: the extension floods the bridge, which closes the link with 1008 (too many messages)
        before = client.changes
        worker = browser.context.service_workers[0]
        flood = "(() => { const cut = link; for (let i = 0; i < 3000; i++) sendOn(cut, { type: 'ping' }); })()"
        await worker.evaluate(flood)
        await eventually(lambda: worker.evaluate("!link || !link.confirmed"), "the bridge to cut the link off")
        await navigate_itself(page, sites.secret + "?cut-off")
        await lands_blocked(page, sites.secret + "?cut-off", sites)
        await relinked(browser, client, tab_id)
        assert client.changes - before <= 1, f"{client.changes - before} list_changed for one relink"
        await goto_from_refused(page, sites.start)
        await navigate_itself(page, sites.secret + "?after-cut-off")
        await lands_blocked(page, sites.secret + "?after-cut-off", sites)

        # a worker restart: the page navigates itself while the worker is gone and starting again
        await goto_from_refused(page, sites.start)
        await tools_read(client, tab_id, 3)  # the start page's own notice is not the relink's
        before = client.changes
        await stop_service_worker(browser)
        await navigate_itself(page, sites.secret + "?restart")
        await lands_blocked(page, sites.secret + "?restart", sites)
        await relinked(browser, client, tab_id)
        assert client.changes - before <= 1, f"{client.changes - before} list_changed for one relink"
        # a tab the browser opens for the page, after the restart
        await goto_from_refused(page, sites.start)
        async with browser.context.expect_page() as popup_info:
            await page.evaluate("url => { window.open(url); }", sites.secret + "?popup")
        await lands_blocked(await popup_info.value, sites.secret + "?popup", sites)

        # through all of it the blocked origin got no request, and the model's tools still work
        assert sites.blocked.hits == []
        assert not await shows_secret(browser)
        await back_to_start(client, sites)
