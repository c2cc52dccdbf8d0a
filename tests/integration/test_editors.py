"""Code and rich-text editors, and keys, through interact as a client uses it: `tabmcp serve` over stdio on
both drivers, the editors installed from npm (``make editors``) and served from tests/fixtures/pages/editors.
In tabmcp's own browser fill/clear/type/press use real input by default; trusted=false takes the page
agent's synthetic input. After each action the editor's own model is read (evaluate) and the snapshot's
value compared with it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from tabmcp.demo.client import StdioSession, text_of
from tabmcp.demo.sites import SiteServer
from tests.integration.conftest import OwnBrowser, serve
from tests.integration.test_page_agent import Page, names, rows

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"
EDITORS = ["cm5", "cm6", "monaco", "ace", "prosemirror"]
START = {"prosemirror": "Dear team,\nthe default note."}
QUERY = "select * from users;\n-- default query"


@pytest.fixture(scope="module")
def pages() -> Iterator[SiteServer]:
    assert (PAGES / "editors" / "node_modules").is_dir(), "the editors are not installed: run `make editors`"
    with SiteServer(PAGES) as server:
        yield server


async def model(client: StdioSession) -> str | None:
    """The editor's own document (its library's API), read in the page."""
    result = await client.call("evaluate", {"expression": "window.editorReady ? window.editorValue() : null"})
    assert not result.is_error, text_of(result)
    return json.loads(text_of(result).split("value: ", 1)[1])


async def shown(page: Page) -> list[str]:
    return [r.get("value", "") for r in rows(await page.snapshot(), "textbox")]


async def holds(page: Page, wanted: str) -> None:
    """Until the editor's model is ``wanted`` and the snapshot shows it as the editor's value (on one
    line): editors apply input, and draw it, a frame or so later."""
    line = [" ".join(wanted.split())]
    with anyio.move_on_after(10):
        while (now := await model(page.client)) != wanted or await shown(page) != line:
            await page.ok("wait_for", timeMs=50)
    assert now == wanted, f"the editor holds {now!r}, not {wanted!r}"
    assert await shown(page) == line


@pytest.mark.usefixtures("driver_kind")
@pytest.mark.parametrize("trusted", [None, False], ids=["default", "synthetic"])
async def test_editors_edit_like_a_person(
    server_log: object, tmp_path: Path, pages: SiteServer, trusted: bool | None
) -> None:
    extra = {} if trusted is None else {"trusted": trusted}
    profile = str(tmp_path / "profile")
    # the polls below call tools many times a second: no rate limit for this client
    settings = {"enable_evaluate": "true", "rate_limit_per_minute": "0"}
    async with serve(server_log, ws_port="0", user_data_dir=profile, **settings) as client:
        await client.call_ok("connect_browser", {"launch": True})
        page = Page(client)
        for name in EDITORS:
            await client.call_ok("open_tab", {"url": pages.url(f"editors/{name}.html")})
            await page.ok("wait_for", target="role=textbox", state="attached")
            await holds(page, START.get(name, QUERY))
            ref = rows(await page.snapshot(), "textbox")[0]["ref"]

            await page.ok("interact", action="fill", target=ref, text="select count(*) from orders", **extra)
            await holds(page, "select count(*) from orders")
            await page.ok("interact", action="type", target=ref, text=" where paid", **extra)
            await holds(page, "select count(*) from orders where paid")
            await page.ok("interact", action="press", target=ref, key="Control+A", **extra)
            await page.ok("interact", action="press", key="x", **extra)
            await holds(page, "x")
            await page.ok("interact", action="clear", target=ref, **extra)
            await holds(page, "")
            # lines stay as given: no auto-indent or bracket closing added to filled text
            await page.ok("interact", action="fill", target=ref, text="select (1)\n  from t", **extra)
            await holds(page, "select (1)\n  from t")
            await page.ok("close_tab")


async def trust_of(page: Page) -> str:
    """What the keys page saw of the field's last input event."""
    said = [n for n in names(await page.snapshot(mode="full")) if n.endswith(" input") or n == "no input yet"]
    assert len(said) == 1, said
    return said[0]


@pytest.mark.usefixtures("driver_kind")
async def test_keys_are_real_input_by_default_in_tabmcps_own_browser(
    server_log: object, tmp_path: Path, pages: SiteServer
) -> None:
    async with serve(server_log, ws_port="0", user_data_dir=str(tmp_path / "profile")) as client:
        await client.call_ok("connect_browser", {"launch": True})
        await client.call_ok("open_tab", {"url": pages.url("keys.html")})
        page = Page(client)
        await page.ok("interact", action="fill", target="css=#field", text="abc")
        assert await trust_of(page) == "trusted input"
        await page.ok("interact", action="type", target="css=#field", text="d", trusted=False)
        assert await trust_of(page) == "synthetic input"
        await page.ok("interact", action="press", target="css=#field", key="Backspace")
        assert await trust_of(page) == "trusted input"
        # a date takes no typed text: filled by the agent, as before
        await page.ok("interact", action="fill", target="css=#day", text="2024-05-01")
        assert [r.get("value") for r in rows(await page.snapshot()) if r["name"] == "Day"] == ["2024-05-01"]

        # Enter in a form's field submits it; Escape closes a modal dialog (real keys)
        await page.ok("interact", action="fill", target="role=textbox[name=User]", text="ada")
        await page.ok("interact", action="press", key="Enter")
        assert "signed in as ada" in names(await page.snapshot(mode="full"))
        await page.ok("interact", action="click", target="role=button[name=Open dialog]")
        await page.ok("interact", action="press", key="Escape")
        assert "dialog closed" in names(await page.snapshot(mode="full"))


async def test_the_users_own_browser_keeps_real_input_opt_in(
    server_log: object, pages: SiteServer, own_browser_port: int
) -> None:
    port = str(own_browser_port)
    async with OwnBrowser(own_browser_port), serve(server_log, ws_port=port) as client:
        await client.call_ok("connect_browser")  # the user's browser, not launched by tabmcp
        await client.call_ok("open_tab", {"url": pages.url("keys.html")})
        page = Page(client)
        await page.ok("interact", action="fill", target="css=#field", text="abc")
        assert await trust_of(page) == "synthetic input"
        refused = await page.error("interact", action="fill", target="css=#field", text="x", trusted=True)
        assert "CAPABILITY_DISABLED" in refused
        assert "ask the user to start tabmcp with --enable-trusted-input" in refused


async def test_the_user_may_allow_real_input_in_their_own_browser(
    server_log: object, pages: SiteServer, own_browser_port: int
) -> None:
    port = str(own_browser_port)
    async with OwnBrowser(own_browser_port), serve(server_log, ws_port=port, enable_trusted_input="true") as client:
        await client.call_ok("connect_browser")
        await client.call_ok("open_tab", {"url": pages.url("keys.html")})
        page = Page(client)
        await page.ok("interact", action="fill", target="css=#field", text="abc")  # on: the default too
        assert await trust_of(page) == "trusted input"
