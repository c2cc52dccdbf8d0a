"""The CDP driver's own DevTools link (drivers/cdp/direct.py): the agent's calls in a tab's main frame
go over it, and a click answered there keeps every meaning it has through Playwright: each action runs
once, a console read right after sees what the click logged, a dialog real input opened is reported
with the action, a click that navigates says so, and a frame's calls still work (through Playwright)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest
from toon_format import decode

from tabmcp.demo.client import StdioSession, text_of
from tabmcp.demo.sites import SiteServer
from tests.integration.conftest import serve

COUNTER = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Count 0</title></head><body>
<button id="add">Add one</button> <output id="count">0</output>
<input id="key" aria-label="Key box"> <button id="leave">Leave</button>
<iframe src="child.html" title="child" width="300" height="80"></iframe>
<script>
  let count = 0;
  document.getElementById('add').addEventListener('click', () => {
    count += 1;
    document.getElementById('count').textContent = String(count);
    document.title = `Count ${count}`;
    console.log(`added ${count}`);
  });
  document.getElementById('key').addEventListener('keydown', (e) => { if (e.key === 'Enter') alert('key pressed'); });
  document.getElementById('leave').addEventListener('click', () => { location.href = 'next.html'; });
</script></body></html>"""
CHILD = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Child</title></head><body>
<button id="inner">Inner</button> <output id="inner-count">0</output>
<script>
  let n = 0;
  document.getElementById('inner').addEventListener('click', () => {
    document.getElementById('inner-count').textContent = `inner ${++n}`;
  });
</script></body></html>"""
NEXT = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Next page</title></head><body></body></html>'
UNTITLED = '<!doctype html><html lang="en"><head><meta charset="utf-8"></head><body><p>No title</p></body></html>'
SPACED = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>  Spaced
   out  </title></head><body><p>Spaced</p></body></html>"""


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SiteServer]:
    root = tmp_path_factory.mktemp("direct")
    named = {"counter.html": COUNTER, "child.html": CHILD, "next.html": NEXT, "untitled.html": UNTITLED}
    for name, text in {**named, "spaced.html": SPACED}.items():
        (root / name).write_text(text, encoding="utf-8")
    with SiteServer(root) as server:
        yield server


async def data(client: StdioSession, tool: str, **args: Any) -> dict[str, Any]:
    result = await client.call(tool, args)
    assert not result.is_error, f"{tool}({args}) failed: {text_of(result)}"
    return decode(text_of(result))


def ref_of(snapshot: dict[str, Any], name: str) -> str:
    refs = [n["ref"] for n in snapshot["nodes"] if n["name"] == name and n.get("ref")]
    assert len(refs) == 1, snapshot
    return str(refs[0])


async def test_agent_calls_in_the_main_frame_over_the_direct_link(
    server_log: IO[str], tmp_path: Path, pages: SiteServer
) -> None:
    async with serve(server_log, ws_port="0", browser="chromium", user_data_dir=str(tmp_path / "profile")) as client:
        await client.call_ok("connect_browser", {"launch": True})
        await client.call_ok("open_tab", {"url": pages.url("counter.html")})
        snapshot = await data(client, "snapshot")
        add = ref_of(snapshot, "Add one")

        for _ in range(5):
            clicked = await data(client, "interact", action="click", target=add)
            assert clicked == {"done": f"click {add}"}
        logged = [m["text"] for m in (await data(client, "console"))["messages"]]
        assert logged == [f"added {n}" for n in range(1, 6)]  # each click ran once, and its log is read at once
        assert (await data(client, "snapshot"))["title"] == "Count 5"

        pressed = await data(client, "interact", action="press", key="Enter", target=ref_of(snapshot, "Key box"))
        assert pressed["dialogs"] == [{"type": "alert", "message": "key pressed", "answer": "null"}]  # as TOON shows it

        inner = ref_of(snapshot, "Inner")
        assert inner.startswith("f1")
        await data(client, "interact", action="click", target=inner)
        await data(client, "wait_for", text="inner 1")

        left = await data(client, "interact", action="click", target=ref_of(snapshot, "Leave"))
        assert left["navigated"]["title"] == "Next page"
        assert left["navigated"]["url"].endswith("/next.html")

    server_log.seek(0)
    assert "direct DevTools session" in server_log.read()  # the calls above did take the direct link


async def test_the_title_is_the_documents_own_beside_the_direct_link(
    server_log: IO[str], tmp_path: Path, pages: SiteServer
) -> None:
    """A navigation's answer reads the tab's title, on a tab whose agent calls take the direct link:
    the document's title as a script reads it, none for a page without one (not the URL the browser
    shows in its tab strip), whitespace collapsed."""
    async with serve(server_log, ws_port="0", browser="chromium", user_data_dir=str(tmp_path / "profile")) as client:
        await client.call_ok("connect_browser", {"launch": True})
        await client.call_ok("open_tab", {"url": pages.url("counter.html")})
        await data(client, "snapshot")  # the tab's first main-frame call: its direct session is attached
        for _ in range(2):  # the second round surely on the direct session
            assert (await data(client, "navigate", url=pages.url("untitled.html")))["title"] == ""
            assert (await data(client, "navigate", url=pages.url("spaced.html")))["title"] == "Spaced out"
            assert (await data(client, "navigate", url=pages.url("next.html")))["title"] == "Next page"
        await data(client, "wait_for", timeMs=0)  # reads the title to check the tab is still there

    server_log.seek(0)
    assert "direct DevTools session" in server_log.read()
