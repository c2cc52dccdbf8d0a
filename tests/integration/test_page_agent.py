"""The page-agent tools as a client uses them: `tabmcp serve` over stdio, a ClientSession, headless
Chromium with the real extension, the fixture pages of tests/fixtures/pages on 127.0.0.1.

Each test is one walk through one theme, so a browser is launched a handful of times, not per check.
Results are TOON text; the tests decode it with the reference implementation (`toon_format`).
"""

from __future__ import annotations

import base64
import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from PIL import Image
from toon_format import decode

from tabmcp.demo.client import StdioSession, text_of
from tabmcp.demo.sites import SiteServer
from tests.integration.conftest import CORE_FOCUSED, serve

# every test here runs on the extension and on the CDP driver (docs/scaling.md)
pytestmark = pytest.mark.usefixtures("driver_kind")

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"
PAGE_AGENT = CORE_FOCUSED[4:]


@pytest.fixture(scope="module")
def pages() -> Iterator[SiteServer]:
    with SiteServer(PAGES) as server:
        yield server


class Page:
    """A client session focused on one fixture page, with helpers that read TOON results."""

    def __init__(self, client: StdioSession) -> None:
        self.client = client

    async def ok(self, tool: str, **args: Any) -> str:
        result = await self.client.call(tool, args)
        assert not result.is_error, f"{tool}({args}) failed: {text_of(result)}"
        return text_of(result)

    async def data(self, tool: str, **args: Any) -> dict[str, Any]:
        return decode(await self.ok(tool, **args))

    async def error(self, tool: str, **args: Any) -> str:
        result = await self.client.call(tool, args)
        assert result.is_error, f"{tool}({args}) should have failed: {text_of(result)}"
        return text_of(result)

    async def snapshot(self, **args: Any) -> dict[str, Any]:
        return await self.data("snapshot", **args)

    async def ref(self, role: str, name: str, **args: Any) -> str:
        rows = [n for n in (await self.snapshot(**args))["nodes"] if n["role"] == role and n["name"] == name]
        assert len(rows) == 1, f"{role} {name!r}: {rows}"
        return str(rows[0]["ref"])


async def focused_on(client: StdioSession, url: str) -> Page:
    await client.call_ok("connect_browser", {"launch": True})
    await client.call_ok("open_tab", {"url": url})
    return Page(client)


def launched(server_log: object, tmp_path: Path) -> StdioSession:
    """A fresh server per test, entered inside the test: anyio's task groups must be left by the task
    that entered them, which an async pytest fixture's teardown is not."""
    return serve(server_log, ws_port="0", user_data_dir=str(tmp_path / "profile"))


def rows(snap: dict[str, Any], role: str | None = None) -> list[dict[str, Any]]:
    return [n for n in snap["nodes"] if role is None or n["role"] == role]


def names(snap: dict[str, Any], role: str | None = None) -> list[str]:
    return [str(n["name"]) for n in rows(snap, role)]


# ----------------------------------------------------------------- snapshot


async def test_snapshot_covers_frames_and_shadow_dom_and_leaves_hidden_out(
    server_log: object, tmp_path: Path, pages: SiteServer
) -> None:
    async with launched(server_log, tmp_path) as session:
        page = await focused_on(session, pages.url("frames.html"))
        assert (await session.tool_names())[4:10] == PAGE_AGENT
        assert "evaluate" not in await session.tool_names()  # off unless the settings enable it

        snap = await page.snapshot()
        assert snap["title"] == "Frames"
        buttons = {n["name"]: n["ref"] for n in rows(snap, "button")}
        assert buttons["Top button"].startswith("e")
        for frame in ("same", "cross", "inner"):  # same-origin, cross-origin, nested
            assert buttons[f"Frame button {frame}"].startswith("f"), buttons
        assert "Frame button hidden" not in buttons  # a display:none iframe is not shown
        assert len({ref for ref in buttons.values()}) == len(buttons)

        # a ref inside the cross-origin frame works like any other
        await page.ok("interact", action="click", target=buttons["Frame button cross"])
        full = await page.snapshot(mode="full")
        assert "clicked cross synthetic" in names(full)

        # refs are stable: the same element keeps its ref in the next snapshot
        again = {n["name"]: n["ref"] for n in rows(await page.snapshot(), "button")}
        assert again == buttons

        await page.ok("navigate", url=pages.url("shadow.html"))
        shadow = await page.snapshot(mode="full")
        assert shadow["title"] == "Shadow DOM"
        buttons_in_shadow = names(shadow, "button")
        assert {"Open shadow button", "Closed shadow button", "Fallback button"} <= set(buttons_in_shadow)
        assert "Unslotted button" not in buttons_in_shadow  # light DOM no slot shows is not rendered
        assert "Slotted link" in names(shadow, "link")
        await page.ok("interact", action="click", target="role=button[name=Open shadow button]")
        assert "open shadow clicked" in names(await page.snapshot(mode="full"))

        await page.ok("navigate", url=pages.url("semantics.html"))
        semantics = await page.snapshot(mode="full")
        shown = names(semantics)
        assert [n for n in shown if n.startswith("Hidden ")] == []  # every kind of hidden element (fixture)
        assert "Hidden" in shown and "Visible inside hidden" in shown  # the heading, and a visible child
        assert not [n for n in semantics["nodes"] if "s3cret" in str(n.get("value", ""))]


async def test_snapshot_budget_cursor_and_diff(server_log: object, tmp_path: Path, pages: SiteServer) -> None:
    async with launched(server_log, tmp_path) as session:
        page = await focused_on(session, pages.url("long-list.html"))
        first = await page.ok("snapshot", maxChars=4000)
        assert len(first) <= 4000
        data = decode(first)
        seen = [n["name"] for n in data["nodes"]]
        pages_read = 1
        while "next" in data:
            text = await page.ok("snapshot", cursor=data["next"], maxChars=4000)
            assert len(text) <= 4000
            data = decode(text)
            seen += [n["name"] for n in data["nodes"]]
            pages_read += 1
        assert pages_read > 5
        want = [f"{kind} {i}" for i in range(1, 3001) for kind in ("Row", "Details")]
        assert [n for n in seen if n.startswith(("Row ", "Details "))] == want  # every row once, in order

        expired = await page.error("snapshot", cursor="s999:10")
        assert "new snapshot" in expired.lower()

        # diff: nothing changed, then one change
        await page.snapshot()
        assert "no changes" in await page.ok("snapshot", diff=True)
        await page.ok("navigate", url=pages.url("actions.html"))
        new_page = await page.ok("snapshot", diff=True)
        assert "new page" in new_page
        check = await page.ref("checkbox", "Subscribe")
        await page.ok("interact", action="check", target=check)
        changed = decode(await page.ok("snapshot", diff=True))
        assert [n["ref"] for n in changed["changed"]] == [check]
        assert "checked" in str(changed["changed"][0]["states"]).split()
        await page.ok("navigate", go="reload")
        assert "new page" in await page.ok("snapshot", diff=True)  # same URL, new document


async def test_resources_and_their_updates(server_log: object, tmp_path: Path, pages: SiteServer) -> None:
    async with launched(server_log, tmp_path) as session:
        updated = session.resource_updates
        listed = await session.session.list_resources()
        assert {str(r.uri) for r in listed.resources} == {"tabs://list", "dom://current-page"}
        await session.session.subscribe_resource("tabs://list")
        await session.session.subscribe_resource("dom://current-page")

        page = await focused_on(session, pages.url("actions.html"))
        with anyio.fail_after(10):
            while not {"tabs://list", "dom://current-page"} <= set(updated):
                await anyio.sleep(0.05)

        tabs = await session.session.read_resource("tabs://list")
        assert '"Actions"' in tabs.contents[0].text
        current = await session.session.read_resource("dom://current-page")
        assert decode(current.contents[0].text)["title"] == "Actions"

        updated.clear()
        await page.ok("interact", action="click", target="role=button[name=Plain button]")
        with anyio.fail_after(10):
            while "dom://current-page" not in updated:
                await anyio.sleep(0.05)
        assert "tabs://list" not in updated  # nothing about the tabs changed


# ----------------------------------------------------------------- interact


async def test_interact_actions_on_real_controls(server_log: object, tmp_path: Path, pages: SiteServer) -> None:
    trusted_input = {"enable_trusted_input": "true"}  # off by default (tests/integration/test_guards.py)
    async with serve(server_log, ws_port="0", user_data_dir=str(tmp_path / "profile"), **trusted_input) as session:
        page = await focused_on(session, pages.url("actions.html"))

        done = await page.data("interact", action="click", target=await page.ref("button", "Plain button"))
        assert done["done"].startswith("click e")
        assert "navigated" not in done

        controlled = await page.ref("textbox", "Controlled")
        await page.ok("interact", action="fill", target=controlled, text="typed by tabmcp")
        assert "state: typed by tabmcp" in names(await page.snapshot(mode="full"))

        await page.ok("interact", action="select", target="role=combobox[name=Color]", value="Green")
        assert "color: g" in names(await page.snapshot(mode="full"))
        await page.ok("interact", action="select", target="css=#toppings", values=["ham", "olive"])
        assert "toppings: ham,olive" in names(await page.snapshot(mode="full"))

        key_field = await page.ref("textbox", "Key field")
        await page.ok("interact", action="type", target=key_field, text="abc")
        await page.ok("interact", action="press", target=key_field, key="Control+A")
        await page.ok("interact", action="press", target=key_field, key="Backspace")
        row = next(n for n in rows(await page.snapshot(), "textbox") if n["ref"] == key_field)
        assert row.get("value", "") == ""

        query = await page.ref("textbox", "Search query")
        await page.ok("interact", action="fill", target=query, text="mcp")
        await page.ok("interact", action="press", target=query, key="Enter")
        assert "submitted: mcp" in names(await page.snapshot(mode="full"))

        with_snapshot = await page.ok("interact", action="check", target="role=checkbox[name=Subscribe]", snapshot=True)
        assert "nodes[" in with_snapshot and "checked" in with_snapshot

        # what blocks an action is said, and named
        covered = await page.error("interact", action="click", target=await page.ref("button", "Covered button"))
        assert "ELEMENT_NOT_INTERACTABLE" in covered and "overlay" in covered
        disabled = await page.error("interact", action="click", target="role=button[name=Disabled action]")
        assert "ELEMENT_NOT_INTERACTABLE" in disabled and "disabled" in disabled
        missing = await page.error("interact", action="click", target="css=#no-such-thing")
        assert "ELEMENT_NOT_FOUND" in missing
        ambiguous = await page.error("interact", action="click", target="role=button[name=o]")
        assert "ELEMENT_AMBIGUOUS" in ambiguous and " e" in ambiguous
        bad_args = await page.error("interact", action="fill", target=controlled)
        assert "fill needs text" in bad_args
        bare = await page.error("interact", action="click", target="#no-such-thing")
        assert "write css=#no-such-thing" in bare and "role=<role>[name=<name>]" in bare

        # untrusted clicks are rejected by this page; trusted input goes through
        trusted_only = await page.ref("button", "Trusted only")
        await page.ok("interact", action="click", target=trusted_only)
        assert "rejected" in names(await page.snapshot(mode="full"))
        await page.ok("interact", action="click", target=trusted_only, trusted=True)
        full = names(await page.snapshot(mode="full"))
        assert "accepted" in full and "rejected" not in full, full

        # a stale ref: the page was reloaded, its old refs are gone
        await page.ok("navigate", go="reload")
        stale = await page.error("interact", action="click", target=trusted_only)
        assert "STALE_REF" in stale and "new snapshot" in stale


async def test_navigation_dialogs_waits_and_console(server_log: object, tmp_path: Path, pages: SiteServer) -> None:
    async with launched(server_log, tmp_path) as session:
        page = await focused_on(session, pages.url("navigation.html"))

        went = await page.data("interact", action="click", target="role=link[name=Go to target]")
        assert went["navigated"]["title"] == "Navigation target"
        assert "by=link" in went["navigated"]["url"]
        back = await page.data("navigate", go="back")
        assert back["title"] == "Navigation"
        forward = await page.data("navigate", go="forward", waitUntil="domcontentloaded")
        assert forward["title"] == "Navigation target"
        loaded = await page.data("navigate", url=pages.url("navigation.html"), waitUntil="networkidle")
        assert loaded["title"] == "Navigation"
        stayed = await page.data("interact", action="click", target="role=button[name=Plain button]")
        assert "navigated" not in stayed

        refused = await page.error("navigate", url="javascript:alert(1)")
        assert "INVALID_URL" in refused
        failed = await page.error("navigate", url="http://127.0.0.1:9/")
        assert "NAVIGATION_FAILED" in failed

        await page.ok("navigate", url=pages.url("dialogs.html"))
        dismissed = await page.data("interact", action="click", target="role=button[name=Confirm]")
        assert dismissed["dialogs"] == [{"type": "confirm", "message": "Are you sure?", "answer": "false"}]
        accepted = await page.data(
            "interact", action="click", target="role=button[name=Prompt]", dialog="accept", promptText="Ada"
        )
        assert accepted["dialogs"][0]["answer"] == "Ada"
        assert "prompt: Ada" in names(await page.snapshot(mode="full"))

        await page.ok("navigate", url=pages.url("delayed.html?delay=300"))
        await page.ok("wait_for", text="Loaded later")
        await page.ok("wait_for", textGone="Vanishing text")
        await page.ok("wait_for", target="role=button[name=Enable later]", state="enabled")
        await page.ok("wait_for", timeMs=50)
        timed_out = await page.error("wait_for", text="never shown anywhere", timeoutMs=300)
        assert "TIMEOUT" in timed_out

        await page.ok("navigate", url=pages.url("console.html"))
        messages: list[dict[str, Any]] = []
        with anyio.fail_after(10):  # the agent forwards console entries in batches, every 100 ms
            while not any("boom uncaught" in m["text"] for m in messages):
                messages += (await page.data("console"))["messages"]
        by_level = {m["level"]: m["text"] for m in messages}
        assert all(re.fullmatch(r"\d\d:\d\d:\d\d\.\d{3}", m["time"]) for m in messages)
        assert any("console.html" in m["source"] for m in messages if m["text"] == "careful now")
        assert "hello from console fixture" in by_level["log"]
        assert by_level["warning"] == "careful now"
        assert any("boom uncaught" in m["text"] for m in messages if m["level"] == "error")
        assert len([m for m in messages if m["text"] == "careful now"]) == 1  # each read returns new ones only
        assert [m for m in messages if m["level"] == "dialog"][-1]["text"].startswith("prompt")  # kept across pages
        assert (await page.data("console"))["messages"] == []  # only what is new since the last read
        await page.ok("interact", action="click", target="role=button[name=Log more]")
        again = (await page.data("console", level=["log"]))["messages"]
        assert [m["text"] for m in again] == ["clicked log"]


# ----------------------------------------------------------------- screenshot and evaluate


def image_of(result: types.CallToolResult) -> Image.Image:
    image = next(c for c in result.content if isinstance(c, types.ImageContent))
    return Image.open(io.BytesIO(base64.b64decode(image.data)))


async def test_screenshots_are_images_a_vision_model_can_take(
    server_log: object, tmp_path: Path, pages: SiteServer, driver_kind: str
) -> None:
    async with launched(server_log, tmp_path) as session:
        page = await focused_on(session, pages.url("long-list.html"))
        viewport = await session.call("screenshot", {})
        assert not viewport.is_error, text_of(viewport)
        shot = image_of(viewport)
        assert shot.format == "PNG" and max(shot.size) <= 2000

        full = await session.call("screenshot", {"fullPage": True, "format": "jpeg"})
        assert not full.is_error, text_of(full)
        tall = image_of(full)
        assert tall.format == "JPEG" and max(tall.size) <= 2000
        assert tall.size[1] > tall.size[0]  # 3000 rows: far taller than wide, scaled to fit
        assert "scaled from" in text_of(full)

        await page.ok("navigate", url=pages.url("actions.html"))
        element = await session.call("screenshot", {"target": "role=button[name=Plain button]"})
        assert not element.is_error, text_of(element)
        small = image_of(element)
        assert small.size[0] < shot.size[0] and small.size[1] < 200

        missing = await page.error("screenshot", target="css=#nothing-here")
        assert "ELEMENT_NOT_FOUND" in missing

        # a page the extension may not script, then a tab that is gone: errors to act on, server up
        await page.ok("navigate", url="about:blank")
        if driver_kind == "extension":  # chrome.scripting cannot enter about:blank (docs/scaling.md)
            blank = await page.error("snapshot")
            assert "NOT_SCRIPTABLE" in blank and "navigate elsewhere" in blank
        else:  # CDP scripts it like any page: there is nothing on it
            blank = text_of(await session.call("snapshot", {}))
            assert 'url: "about:blank"' in blank and "rows 0 of 0" in blank
        await session.call_ok("close_tab")
        gone = await page.error("interact", action="click", target="e1")
        assert "not available" in gone and "open_tab" in gone
        assert await session.tool_names() == ["list_tabs", "open_tab"]


async def test_evaluate_exists_only_when_enabled(server_log: object, tmp_path: Path, pages: SiteServer) -> None:
    settings = {"ws_port": "0", "user_data_dir": str(tmp_path / "profile"), "enable_evaluate": "true"}
    async with serve(server_log, **settings) as client:
        page = await focused_on(client, pages.url("actions.html"))
        assert "evaluate" in await client.tool_names()
        value = await page.ok("evaluate", expression="document.title + ' ' + (1 + 2)")
        assert value == 'type: string\nvalue: "Actions 3"'
        thrown = await page.error("evaluate", expression="(() => { throw new Error('nope') })()")
        assert "SCRIPT_ERROR" in thrown and "nope" in thrown
