"""An editor's own toolbar is no page tool (introspect/chrome.py), on a real editor library: ProseMirror
(``make editors``) with a ``role=toolbar`` of formatting buttons outside the form that saves it, served
from tests/fixtures/pages/editors. The form's tool takes the editor's text; the page's other button stays."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tabmcp.demo.sites import SiteServer
from tests.integration.conftest import serve
from tests.integration.test_widgets import PAGES, SETTINGS, evaluate, ready, tool_named

pytestmark = pytest.mark.usefixtures("driver_kind")


@pytest.fixture(scope="module")
def site() -> Iterator[SiteServer]:
    assert (PAGES / "editors" / "node_modules").is_dir(), "the editors are not installed: run `make editors`"
    with SiteServer(PAGES) as server:
        yield server


async def test_a_toolbar_bound_to_the_editor_is_no_tool(server_log: object, tmp_path: Path, site: SiteServer) -> None:
    async with serve(server_log, ws_port="0", user_data_dir=str(tmp_path / "profile"), **SETTINGS) as client:
        await client.call_ok("connect_browser", {"launch": True})
        await client.call_ok("open_tab", {"url": site.url("editors/toolbar-prosemirror.html")})
        await ready(client, "editorReady")
        run = await tool_named(client, "run", "note")
        names = {t.name for t in await client.tools()}
        titles = {t.title for t in await client.tools()}
        assert "archive_note" in names  # an action of the page, not of its editor
        assert not {"bold", "italic", "code"} & names and not {"Bold", "Italic", "Code"} & titles
        result = await client.call(run.name, {"note": "Dear all, the new note."})
        assert not result.is_error
        assert await evaluate(client, "window.editorValue()") == "Dear all, the new note."
