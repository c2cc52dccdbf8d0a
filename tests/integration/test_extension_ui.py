"""The extension's own UI in a real browser: its popup, options page, toolbar badge and tab group.

Headless Chromium with the real extension plays the user's own browser (``OwnBrowser``); the server
is a real ``tabmcp serve`` driven by a real MCP client over stdio. The extension's pages are opened
as tabs (``chrome-extension://<id>/popup.html``), their content checked in each state of the link,
and screenshots of them saved to tests/artifacts/extension-ui-*.png.
"""

from __future__ import annotations

import re

import anyio
from playwright.async_api import BrowserContext, Page, expect

from tabmcp import pairing
from tabmcp.demo.client import text_of
from tabmcp.demo.sites import SiteServer
from tests.integration.conftest import ARTIFACTS, CORE_FOCUSED, OwnBrowser, eventually, page_at, serve, tab_id_for

POPUP_URL = f"chrome-extension://{pairing.EXTENSION_ID}/popup.html"
OPTIONS_URL = f"chrome-extension://{pairing.EXTENSION_ID}/options.html"
WAIT_MS = 15_000
QUIET = 0.7
GROUP_COLORS = ["blue", "red", "yellow", "green", "pink", "purple", "cyan", "orange"]
# the badge per state (text, RGBA background): docs/extension.md
BADGE = {
    "connected": ["ON", [26, 127, 55, 255]],
    "server not found": ["!", [207, 34, 46, 255]],
    "not paired": ["KEY", [191, 135, 0, 255]],
    "disconnected": ["OFF", [87, 96, 106, 255]],
}


def group_color(title: str) -> str:
    """The colour background.js gives a tab group of this title (a stable hash of it)."""
    value = 0
    for ch in title:
        value = (value * 31 + ord(ch)) & 0xFFFFFFFF
    return GROUP_COLORS[value % len(GROUP_COLORS)]


async def open_page(context: BrowserContext, url: str, width: int = 360, height: int = 520) -> Page:
    page = await context.new_page()
    await page.set_viewport_size({"width": width, "height": height})
    await page.goto(url)
    return page


async def badge(page: Page) -> list[object]:
    """The toolbar badge's text and colour, read from an extension page."""
    return await page.evaluate(
        "Promise.all([chrome.action.getBadgeText({}), chrome.action.getBadgeBackgroundColor({})])"
    )


async def expect_badge(page: Page, state: str) -> None:
    async def shows() -> bool:
        return await badge(page) == BADGE[state]

    await eventually(shows, f"the badge of state {state!r} ({BADGE[state]})")


async def group_of(page: Page, tab_id: int) -> dict[str, object] | None:
    """The tab group (title, colour) the tab is in, or None."""
    return await page.evaluate(
        """async (tabId) => {
            const tab = await chrome.tabs.get(tabId);
            if (tab.groupId === -1) return null;
            const group = await chrome.tabGroups.get(tab.groupId);
            return { title: group.title, color: group.color };
        }""",
        tab_id,
    )


async def counts(popup: Page) -> tuple[int, int]:
    return int(await popup.inner_text("#messagesIn")), int(await popup.inner_text("#messagesOut"))


async def shoot(page: Page, name: str, selector: str = "main") -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    await page.locator(selector).screenshot(path=ARTIFACTS / f"extension-ui-{name}.png")


def server_log_text(server_log: object) -> str:
    server_log.flush()  # type: ignore[attr-defined]
    server_log.seek(0)  # type: ignore[attr-defined]
    return server_log.read()  # type: ignore[attr-defined]


async def test_the_popup_follows_the_link_through_every_state(
    sites: SiteServer, server_log: object, own_browser_port: int
) -> None:
    async with OwnBrowser(own_browser_port) as browser:
        popup = await open_page(browser.context, POPUP_URL)
        status = popup.locator("#status")

        # nothing listens at the address yet
        await expect(status).to_have_text("server not found", timeout=WAIT_MS)
        await expect(popup.locator("#detail")).to_contain_text(f"ws://127.0.0.1:{own_browser_port}")
        await expect(popup.locator("#server")).to_have_text(f"ws://127.0.0.1:{own_browser_port}")
        await expect(popup.locator("#since")).to_have_text("—")
        await expect(popup.locator("#connect")).to_be_visible()
        await expect_badge(popup, "server not found")
        await shoot(popup, "popup-server-not-found")

        async with serve(server_log, ws_port=str(own_browser_port)) as client:
            # the same popup page changes by itself once the server is there
            await expect(status).to_have_text("connected", timeout=WAIT_MS)
            await expect(popup.locator("#since")).to_have_text(re.compile(r"^\d.*\(\d+s ago\)$"))
            await expect(popup.locator("#noTab")).to_be_visible()
            await expect(popup.locator("#connect")).to_be_hidden()
            await expect_badge(popup, "connected")

            await client.call_ok("connect_browser")
            flights_url = sites.url("flights.html")
            opened = await client.call_ok("open_tab", {"url": flights_url})
            flights = opened["tab"]["id"]
            await expect(popup.locator("#tabs .tab-title")).to_have_text("SkyHop – search flights")
            await expect(popup.locator("#tabs .tab-url")).to_have_text(flights_url)
            await expect(popup.locator("#noTab")).to_be_hidden()
            assert await group_of(popup, flights) == {"title": "tabmcp", "color": group_color("tabmcp")}
            title = await popup.evaluate("chrome.action.getTitle({})")
            assert title == 'tabmcp: connected (controls "SkyHop – search flights")'

            # a tool call crosses the link: both counts rise
            await eventually(lambda: _positive(popup), "message counts shown")
            before_in, before_out = await counts(popup)
            await client.call_ok("snapshot")

            async def rose() -> bool:
                now_in, now_out = await counts(popup)
                return now_in > before_in and now_out > before_out

            await eventually(rose, f"message counts above {before_in} in / {before_out} out")
            await shoot(popup, "popup-connected")

            # a tab the user opened, focused by the client: shown, and put in the client's group
            mail_page = await browser.context.new_page()
            await mail_page.goto(sites.url("mail.html"))
            mail = await tab_id_for(client, sites.url("mail.html"))
            assert await group_of(popup, mail) is None
            await client.call_ok("focus_tab", {"tabId": mail})
            await expect(popup.locator("#tabs .tab-title")).to_have_text("Postbox – inbox")
            await expect(popup.locator("#tabs li")).to_have_count(1)
            await eventually(lambda: _in_group(popup, mail), "the focused user tab in the tabmcp group")
            # the page's own title changes: the popup follows it
            await mail_page.evaluate("document.title = 'Postbox – 3 unread'")
            await expect(popup.locator("#tabs .tab-title")).to_have_text("Postbox – 3 unread")

            # Disconnect: the link closes, the client sees the browser go, and it stays gone
            changes = client.changes
            await popup.click("#disconnect")
            await expect(status).to_have_text("disconnected")
            await client.wait_changes(changes + 1)
            assert await client.tool_names() == ["connect_browser"]
            await expect_badge(popup, "disconnected")
            await expect(popup.locator("#noTab")).to_be_visible()
            await expect(popup.locator("#disconnect")).to_be_hidden()
            await expect(popup.locator("#since")).to_have_text("—")
            await shoot(popup, "popup-disconnected")
            assert "the browser extension disconnected: disconnected by the user" in server_log_text(server_log)
            # connect_browser waits for a running extension (6 s, past the reconnect back-off): none comes,
            # and the model learns why and what to ask the user
            nothing = await client.call("connect_browser")
            assert nothing.is_error and "Ask the user to press Connect in that popup" in text_of(nothing)
            await expect(status).to_have_text("disconnected")

            # Connect: linked again at once, and the client can connect
            await popup.click("#connect")
            await expect(status).to_have_text("connected", timeout=WAIT_MS)
            await expect_badge(popup, "connected")
            again = await client.call_ok("connect_browser")
            assert again["connected"] is True
            await client.call_ok("focus_tab", {"tabId": flights})
            await expect(popup.locator("#tabs .tab-title")).to_have_text("SkyHop – search flights")


async def _positive(popup: Page) -> bool:
    return min(await counts(popup)) > 0


async def _in_group(popup: Page, tab_id: int) -> bool:
    return await group_of(popup, tab_id) == {"title": "tabmcp", "color": group_color("tabmcp")}


async def test_a_wrong_token_shows_not_paired(server_log: object, own_browser_port: int) -> None:
    async with (
        serve(server_log, ws_port=str(own_browser_port)),
        OwnBrowser(own_browser_port, token="not-the-servers-token-0123456789") as browser,
    ):
        popup = await open_page(browser.context, POPUP_URL)
        await expect(popup.locator("#status")).to_have_text("not paired", timeout=WAIT_MS)
        await expect(popup.locator("#detail")).to_have_text(re.compile("^wrong pairing token: run `tabmcp token`"))
        await expect(popup.locator("#noTab")).to_be_visible()
        await expect_badge(popup, "not paired")
        await shoot(popup, "popup-not-paired")

        options = await open_page(browser.context, OPTIONS_URL, width=800, height=760)
        await expect(options.locator("#linkStatus")).to_have_text(re.compile("^not paired: wrong pairing token"))
        await expect(options.locator("#serverUrl")).to_have_value(f"ws://127.0.0.1:{own_browser_port}")
        await expect(options.locator("#followTabSwitches")).not_to_be_checked()
        await shoot(options, "options-not-paired")


async def test_follow_my_tab_switches_from_the_options_page(
    sites: SiteServer, server_log: object, own_browser_port: int
) -> None:
    """The server's own follow setting is off: only the user's option makes focus follow."""
    async with (
        OwnBrowser(own_browser_port) as browser,
        serve(server_log, ws_port=str(own_browser_port)) as client,
    ):
        await client.call_ok("connect_browser")
        await client.call_ok("open_tab", {"url": sites.url("flights.html")})
        mail = (await client.call_ok("open_tab", {"url": sites.url("mail.html")}))["tab"]["id"]
        flights_page = await page_at(browser.context, sites.url("flights.html"))
        popup = await open_page(browser.context, POPUP_URL)  # opened now: activating it is not followed
        await expect(popup.locator("#tabs .tab-title")).to_have_text("Postbox – inbox")

        # off (the default): the user's switch is not followed
        await flights_page.bring_to_front()
        await anyio.sleep(QUIET)
        assert (await client.call_ok("list_tabs"))["focusedTabId"] == mail

        options = await open_page(browser.context, OPTIONS_URL, width=800, height=760)
        await expect(options.locator("#linkStatus")).to_have_text("connected", timeout=WAIT_MS)
        await options.check("#followTabSwitches")
        await expect(options.locator("#followSaved")).to_have_text("On: tabmcp follows your tab switches.")
        assert await options.evaluate("chrome.storage.local.get('followTabSwitches')") == {"followTabSwitches": True}
        worker = browser.context.service_workers[0]
        await eventually(lambda: _sent_follow(worker, True), "the settings frame with followTabSwitches=true sent")
        await shoot(options, "options-follow-on")

        # on: the user activates the flights tab and the client's focus follows, with list_changed
        before = client.changes
        await flights_page.bring_to_front()
        await client.wait_changes(before + 1)
        assert await client.tool_names() == [*CORE_FOCUSED, "search_flights"]
        flights = (await client.call_ok("list_tabs"))["focusedTabId"]
        assert flights != mail
        await expect(popup.locator("#tabs .tab-title")).to_have_text("SkyHop – search flights")

        # off again: the next switch is not followed
        await options.uncheck("#followTabSwitches")
        await eventually(lambda: _sent_follow(worker, False), "the settings frame with followTabSwitches=false sent")
        mail_page = await page_at(browser.context, sites.url("mail.html"))
        await mail_page.bring_to_front()
        await anyio.sleep(QUIET)
        assert (await client.call_ok("list_tabs"))["focusedTabId"] == flights


async def _sent_follow(worker: object, value: bool) -> bool:
    sent = await worker.evaluate("sentSettings")  # type: ignore[attr-defined]
    return sent == {"type": "settings", "followTabSwitches": value}
