"""The page-agent requests end to end, one level below MCP: a real Bridge, headless Chromium with
the real extension, and ``ExtensionDriver`` called directly (docs/page-agent.md §2 to §7).

One browser serves the whole module (starting Chromium is the slow part); each test opens its
own tabs. The pages are written here, next to what the tests expect of them, and served from a
scratch folder on 127.0.0.1; ``localhost`` on the same port is another site, so an iframe from
there is cross-origin (out of process).
"""

from __future__ import annotations

import base64
import io
import json
import re
import socket
import struct
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from PIL import Image

from tabmcp import protocol as p
from tabmcp.demo.sites import SiteServer
from tests.integration.conftest import DRIVERS, eventually, free_port
from tests.integration.linked import Linked, fails, linked_browser

pytestmark = pytest.mark.asyncio(loop_scope="module")

INNER = """<!doctype html><title>Inner</title>
<h2 id="heading">Inner</h2>
<button id="inner-button">Inner button</button>
<label><span id="label"></span> <input id="field"></label>
<script>
  const who = new URLSearchParams(location.search).get('who');
  document.getElementById('label').textContent = who + ' field';
  document.getElementById('inner-button').addEventListener('click', (event) => {
    document.getElementById('heading').textContent = `Inner clicked ${who}${event.isTrusted ? ' trusted' : ''}`;
  });
  console.log('inner loaded', who);
</script>
"""

PAGES: dict[str, str] = {
    "frames.html": """<!doctype html><title>Frames</title>
<h1>Outer</h1>
<button id="outer" onclick="this.textContent = 'Outer clicked'">Outer button</button>
<iframe id="same" src="inner.html?who=same" width="360" height="160"></iframe>
<iframe id="cross" src="http://localhost:{port}/inner.html?who=cross" width="360" height="160"></iframe>
<div style="display: none"><iframe src="inner.html?who=hidden"></iframe></div>
""",
    "inner.html": INNER,
    # a rich-text editor's way: an iframe made by script, its document written with open()/write()
    # after the agent started in its blank document (the rewrite erases every listener of its window)
    "written.html": """<!doctype html><title>Written frame</title>
<button id="make">Make editor</button>
<script>
  document.getElementById('make').addEventListener('click', () => {
    const frame = document.createElement('iframe');
    document.body.appendChild(frame);
    frame.contentWindow.document.body.textContent = 'blank';  // the blank document is in use first
    const doc = frame.contentWindow.document;
    doc.open();
    doc.write('<textarea placeholder="Body text"></textarea>');
    doc.close();
  });
</script>
""",
    "trusted.html": """<!doctype html><title>Trusted</title>
<button id="guard">Guarded</button>
<p id="result">nothing yet</p>
<input id="typed" aria-label="Typed">
<script>
  document.getElementById('guard').addEventListener('click', (event) => {
    document.getElementById('result').textContent = event.isTrusted ? 'trusted click' : 'untrusted click rejected';
  });
  document.getElementById('typed').addEventListener('keydown', (event) => {
    const result = document.getElementById('result');
    if (event.key === 'Enter') result.textContent = `entered ${event.target.value} ${event.isTrusted}`;
  });
</script>
<div style="height: 40px"></div>
<iframe id="cross" src="http://localhost:{port}/inner.html?who=cross" width="360" height="160"></iframe>
""",
    # a popup's trigger drawn as a span with aria-expanded and no role (a wiki's tag pill)
    "pill.html": """<!doctype html><title>Pill</title>
<p>Tags: <span id="pill" aria-expanded="false">Fruit</span> <span id="plain">Plain text</span></p>
<ul id="tagged" hidden><li><a href="#Apple">Apple</a></li><li><a href="#Kiwi">Kiwi</a></li></ul>
<script>
  document.getElementById('pill').addEventListener('click', (event) => {
    event.currentTarget.setAttribute('aria-expanded', 'true');
    document.getElementById('tagged').hidden = false;
  });
</script>
""",
    "nav1.html": """<!doctype html><title>Nav 1</title>
<a href="nav2.html">Next page</a> <a href="#section">Jump</a>
<button onclick="this.textContent = 'Pressed'">Stay</button>
<h2 id="section">Section</h2>
""",
    "nav2.html": """<!doctype html><title>Nav 2</title><h1>Second</h1><a href="nav1.html">Back to one</a>""",
    "overtake.html": """<!doctype html><title>Overtake</title>
<script>addEventListener('load', () => setTimeout(() => { location.href = 'nav2.html'; }, 1500));</script>
""",
    "dialogs.html": """<!doctype html><title>Dialogs</title>
<button id="ask" onclick="this.textContent = confirm('Sure?') ? 'Said yes' : 'Said no'">Ask</button>
<button id="name" onclick="this.textContent = 'Name ' + prompt('Your name?', 'nobody')">Name</button>
""",
    "idle.html": """<!doctype html><title>Idle waiting</title>
<script>
  addEventListener('load', () => fetch('data.json').then((r) => r.json()).then((d) => { document.title = d.title; }));
</script>
""",
    "data.json": json.dumps({"title": "Idle done"}),
    "console1.html": """<!doctype html><title>Console 1</title>
<script>
  console.log('first page log', 42);
  console.warn('first page warning');
  console.error('first page error');
</script>
<a href="console2.html">Next</a>
""",
    "console2.html": """<!doctype html><title>Console 2</title>
<script>console.info('second page info');</script>
""",
    "waits.html": """<!doctype html><title>Waits</title>
<button id="later" disabled>Later</button>
<input type="checkbox" id="box" aria-label="Box">
<p id="going">Going away soon</p>
<div id="shy" style="display: none">Shy text</div>
""",
    "locate.html": """<!doctype html><title>Locate</title>
<div class="card"><b>Red apple</b> $1.20 <button>Add</button></div>
<div class="card"><b>Green pear</b> $0.90 <button>Add</button></div>
<input id="q" placeholder="Find fruit" aria-label="Query">
<button style="display: none">Add</button>
<div id="box" role="region" aria-label="Box" tabindex="0" style="height: 60px; overflow: auto">
  <p style="height: 400px; margin: 0">Tall</p>
</div>
<div style="height: 2000px"></div>
<iframe id="same" src="inner.html?who=same" width="360" height="160"></iframe>
""",
    "shots.html": """<!doctype html><title>Shots</title>
<body style="margin: 0">
<div id="red" style="width: 200px; height: 100px; background: rgb(255, 0, 0)"></div>
<div id="tall" style="width: 120px; height: 3000px; background: rgb(0, 0, 255)"></div>
</body>
""",
}


Env = Linked


@asynccontextmanager
async def pages_and_browser(kind: str) -> AsyncIterator[Env]:
    with tempfile.TemporaryDirectory(prefix="tabmcp-driver-") as scratch:
        root = Path(scratch)
        (root / "pages").mkdir()
        with SiteServer(root / "pages") as sites:
            port = sites.httpd.server_address[1]
            for name, text in PAGES.items():
                (root / "pages" / name).write_text(text.replace("{port}", str(port)), encoding="utf-8")
            async with linked_browser(root, sites.base_url, kind) as linked:
                yield linked


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=DRIVERS)
async def env(request: pytest.FixtureRequest) -> AsyncIterator[Env]:
    """Every test here runs on both drivers: the same requests, the same answers (docs/scaling.md)."""
    async with pages_and_browser(request.param) as linked:
        yield linked


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def extension_env() -> AsyncIterator[Env]:
    """For the tests of the extension itself (its own field checks, its debugger sessions)."""
    async with pages_and_browser("extension") as linked:
        yield linked



def rows(snapshot: dict[str, Any], role: str | None = None, name: str | None = None) -> list[dict[str, Any]]:
    return [
        n for n in snapshot["nodes"]
        if (role is None or n["role"] == role) and (name is None or n["name"].lower() == name.lower())
    ]


def one(snapshot: dict[str, Any], role: str, name: str) -> dict[str, Any]:
    found = rows(snapshot, role, name)
    assert len(found) == 1, (role, name, snapshot["nodes"])
    return found[0]


def png_size(data: str) -> tuple[int, int]:
    raw = base64.b64decode(data)
    assert raw[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", raw[16:24])


def cropped(image: dict[str, Any]) -> Image.Image:
    picture = Image.open(io.BytesIO(base64.b64decode(image["data"]))).convert("RGB")
    assert picture.size == (image["width"], image["height"])
    clip = image.get("clip")
    if clip:
        picture = picture.crop((clip["x"], clip["y"], clip["x"] + clip["width"], clip["y"] + clip["height"]))
    return picture


def share_of(picture: Image.Image, colour: tuple[int, int, int]) -> float:
    raw = picture.tobytes()
    pixels = [raw[i : i + 3] for i in range(0, len(raw), 3)]
    return sum(1 for p in pixels if all(abs(a - b) <= 8 for a, b in zip(p, colour, strict=True))) / len(pixels)


# ----------------------------------------------------------------- snapshot and frames


async def test_snapshot_splices_same_and_cross_origin_frames_with_prefixed_refs(env: Env) -> None:
    tab = await env.open("frames.html")
    snap = await env.driver.snapshot(tab)
    assert snap["url"] == env.url("frames.html")
    assert snap["title"] == "Frames"
    assert snap["frames"] == 3  # the main frame and two visible iframes; the hidden one is left out
    assert not any("frameToken" in n for n in snap["nodes"])

    outer = one(snap, "button", "Outer button")
    assert outer["ref"].startswith("e")
    frames = rows(snap, "iframe")
    assert len(frames) == 2
    inner_buttons = rows(snap, "button", "Inner button")
    assert len(inner_buttons) == 2
    prefixes = {b["ref"].split("e")[0] for b in inner_buttons}
    assert prefixes == {"f1", "f2"}  # numbered in document order: same-origin first, then cross
    names = [n["ref"] for n in snap["nodes"]]
    for frame_row, field_name, button in zip(frames, ("same field", "cross field"), inner_buttons, strict=True):
        field = one(snap, "textbox", field_name)
        # each child's rows come right after its iframe row, deeper than it
        assert names.index(frame_row["ref"]) < names.index(button["ref"])
        assert field["ref"].startswith(button["ref"].split("e")[0])
        assert button["depth"] >= frame_row["depth"] + 1
    assert not rows(snap, "textbox", "hidden field")

    again = await env.driver.snapshot(tab)  # same elements, same refs
    assert [n["ref"] for n in again["nodes"]] == names
    await env.driver.close_tab(tab)


async def test_locate_snapshots_add_hints_and_the_group_around_each_control(env: Env) -> None:
    """The natural-language tools' snapshot (docs/nl-tools.md): full rows plus hint and context."""
    tab = await env.open("locate.html")
    snap = await env.driver.snapshot(tab, "locate")
    adds = [n for n in rows(snap, "button", "Add") if n["ref"].startswith("e")]
    assert [n["context"] for n in adds] == ["Red apple $1.20 Add", "Green pear $0.90 Add"]  # not the hidden third
    assert one(snap, "textbox", "Query")["hint"] == "Find fruit"
    assert "Red apple $1.20" in [n["name"] for n in rows(snap, "text")]
    inner = one(snap, "textbox", "same field")  # rows from a frame carry their fields too
    assert inner["ref"].startswith("f1") and inner["context"] == "same field"
    assert "context" not in one(snap, "button", "Inner button")  # its group is the whole body: none
    full = await env.driver.snapshot(tab, "full")  # the other modes are unchanged
    assert not any("hint" in n or "context" in n for n in full["nodes"])
    assert [n["ref"] for n in full["nodes"]] == [n["ref"] for n in snap["nodes"]]
    await env.driver.close_tab(tab)


async def test_a_scroll_says_where_the_page_or_the_element_now_is(env: Env) -> None:
    tab = await env.open("locate.html")
    box = one(await env.driver.snapshot(tab), "region", "Box")["ref"]
    done = await env.driver.act(tab, {"action": "scroll", "direction": "down", "amount": 100, "target": {"ref": box}})
    assert done["scroll"] == {"x": 0, "y": 100}
    far = await env.driver.act(tab, {"action": "scroll", "direction": "down", "amount": 10**6, "target": {"ref": box}})
    assert far["scroll"]["y"] == 340  # clamped at the end: 400 px of content in a 60 px box
    page = await env.driver.act(tab, {"action": "scroll", "direction": "down", "amount": 500})
    assert page["scroll"] == {"x": 0, "y": 500}
    clicked = await env.driver.act(tab, {"action": "click", "target": {"ref": box}})
    assert clicked.get("scroll") is None  # only a scroll reports one
    await env.driver.close_tab(tab)


async def test_the_active_tab_is_the_one_shown_last(env: Env) -> None:
    first = await env.open("nav1.html")
    second = await env.open("nav2.html")
    active = await env.driver.active_tab()
    assert active is not None and active.id == second
    await env.driver.focus_tab(first)
    active = await env.driver.active_tab()
    assert active is not None and active.id == first and active.url == env.url("nav1.html")
    await env.driver.close_tab(first)
    await env.driver.close_tab(second)


async def test_acting_on_frame_refs(env: Env) -> None:
    tab = await env.open("frames.html")
    snap = await env.driver.snapshot(tab)
    cross_field = one(snap, "textbox", "cross field")
    same_button = next(b for b in rows(snap, "button", "Inner button") if b["ref"].startswith("f1"))

    done = await env.driver.act(tab, {"action": "click", "target": {"ref": same_button["ref"]}})
    assert done["navigated"] is False
    await env.driver.act(tab, {"action": "fill", "target": {"ref": cross_field["ref"]}, "text": "over the border"})

    after = await env.driver.snapshot(tab)
    assert one(after, "heading", "Inner clicked same")["ref"].startswith("f1")
    assert one(after, "textbox", "cross field")["value"] == "over the border"
    await env.driver.close_tab(tab)


async def test_a_frame_whose_document_was_written_by_script_is_in_the_snapshot(env: Env) -> None:
    tab = await env.open("written.html")
    await env.driver.snapshot(tab)
    await env.driver.act(tab, {"action": "click", "target": {"css": "#make"}})
    snap = await env.driver.snapshot(tab)
    body = one(snap, "textbox", "Body text")
    assert body["ref"].startswith("f1")  # spliced after its iframe's row, not left out as unmatched
    names = [n["ref"] for n in snap["nodes"]]
    assert names.index(one(snap, "iframe", "")["ref"]) < names.index(body["ref"])
    await env.driver.act(tab, {"action": "fill", "target": {"ref": body["ref"]}, "text": "Eggs and milk"})
    assert one(await env.driver.snapshot(tab), "textbox", "Body text")["value"] == "Eggs and milk"
    await env.driver.close_tab(tab)


async def test_a_popup_trigger_without_a_role_is_a_button(env: Env) -> None:
    tab = await env.open("pill.html")
    snap = await env.driver.snapshot(tab)
    pill = one(snap, "button", "Fruit")
    assert "collapsed" in pill["states"]
    assert not rows(snap, "button", "Plain text")
    await env.driver.act(tab, {"action": "click", "target": {"ref": pill["ref"]}})
    after = await env.driver.snapshot(tab)
    assert "expanded" in one(after, "button", "Fruit")["states"]
    assert one(after, "link", "Kiwi")
    await env.driver.close_tab(tab)


async def test_css_and_role_targets_across_frames(env: Env) -> None:
    tab = await env.open("frames.html")
    await env.driver.snapshot(tab)

    # one match overall, in a cross-origin frame
    await env.driver.act(tab, {"action": "fill", "target": {"role": "textbox", "name": "Cross Field"}, "text": "x1"})
    await env.driver.act(tab, {"action": "click", "target": {"role": "button", "name": "outer"}})  # substring
    after = await env.driver.snapshot(tab)
    assert one(after, "textbox", "cross field")["value"] == "x1"
    assert one(after, "button", "Outer clicked")

    # several matches, in several frames: the refs say where
    message = await fails(env.driver.act(tab, {"action": "click", "target": {"css": "#inner-button"}}),
                          "ELEMENT_AMBIGUOUS")
    assert "f1e" in message and "f2e" in message
    await fails(env.driver.act(tab, {"action": "click", "target": {"role": "button", "name": "Inner button"}}),
                "ELEMENT_AMBIGUOUS")
    await fails(env.driver.act(tab, {"action": "click", "target": {"css": "#nowhere"}}), "ELEMENT_NOT_FOUND")
    await fails(env.driver.act(tab, {"action": "click", "target": {"role": "button", "name": "No such"}}),
                "ELEMENT_NOT_FOUND")
    await env.driver.close_tab(tab)


async def test_refs_go_stale_after_a_reload(env: Env) -> None:
    tab = await env.open("frames.html")
    snap = await env.driver.snapshot(tab)
    outer = one(snap, "button", "Outer button")["ref"]
    inner = rows(snap, "button", "Inner button")[0]["ref"]
    await env.driver.navigate(tab, go="reload")

    for ref in (outer, inner):
        message = await fails(env.driver.act(tab, {"action": "click", "target": {"ref": ref}}), "STALE_REF")
        assert "snapshot" in message
    await fails(env.driver.act(tab, {"action": "click", "target": {"ref": "f99e1"}}), "STALE_REF")
    await fails(env.driver.act(tab, {"action": "click", "target": {"ref": "button"}}), "ELEMENT_NOT_FOUND")

    fresh = one(await env.driver.snapshot(tab), "button", "Outer button")["ref"]
    await env.driver.act(tab, {"action": "click", "target": {"ref": fresh}})
    assert one(await env.driver.snapshot(tab), "button", "Outer clicked")
    await env.driver.close_tab(tab)


# ----------------------------------------------------------------- navigation


async def test_navigate_with_each_wait_and_through_history(env: Env) -> None:
    tab = await env.open("nav1.html")
    page = await env.driver.navigate(tab, url=env.url("nav2.html"))
    assert page == {"url": env.url("nav2.html"), "title": "Nav 2"}
    page = await env.driver.navigate(tab, url=env.url("nav1.html"), wait_until="domcontentloaded")
    assert page["url"] == env.url("nav1.html")

    # networkidle: after load, the page's own fetch has finished (and set the title)
    page = await env.driver.navigate(tab, url=env.url("idle.html"), wait_until="networkidle")
    assert page == {"url": env.url("idle.html"), "title": "Idle done"}

    assert (await env.driver.navigate(tab, go="back"))["url"] == env.url("nav1.html")
    assert (await env.driver.navigate(tab, go="back", wait_until="domcontentloaded"))["url"] == env.url("nav2.html")
    assert (await env.driver.navigate(tab, go="forward", wait_until="networkidle"))["url"] == env.url("nav1.html")
    assert (await env.driver.navigate(tab, go="reload"))["title"] == "Nav 1"
    # a same-document navigation is done at once
    assert (await env.driver.navigate(tab, url=env.url("nav1.html#section")))["url"] == env.url("nav1.html#section")
    assert (await env.driver.navigate(tab, go="back"))["url"] == env.url("nav1.html")
    await env.driver.close_tab(tab)


async def test_navigation_failures(env: Env) -> None:
    tab = await env.open("nav1.html")
    message = await fails(env.driver.navigate(tab, url=f"http://127.0.0.1:{free_port()}/"), "NAVIGATION_FAILED")
    assert "net::ERR_" in message
    await fails(env.driver.navigate(tab, url="javascript:alert(1)"), "INVALID_URL")
    await fails(env.driver.navigate(tab, url="not a url"), "INVALID_URL")
    await env.driver.close_tab(tab)

    fresh = await env.open("nav2.html")
    await fails(env.driver.navigate(fresh, go="back"), "NAVIGATION_FAILED")
    await fails(env.driver.navigate(fresh, go="forward"), "NAVIGATION_FAILED")
    await env.driver.close_tab(fresh)


async def test_a_navigation_the_page_overtakes_ends_where_the_page_went(env: Env) -> None:
    """The page's own navigation (as a user's would) replaces one the server asked for while that
    one still waits for its server: the answer says where the tab is now, on both drivers."""
    with socket.socket() as silent:  # accepts connections (the backlog) and never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        tab = await env.open("overtake.html")
        asked = f"http://127.0.0.1:{silent.getsockname()[1]}/never"
        page = await env.driver.navigate(tab, url=asked, timeout_ms=10_000)
    assert page == {"url": env.url("nav2.html"), "title": "Nav 2"}
    await env.driver.close_tab(tab)


async def test_actions_that_navigate_wait_for_the_page(env: Env) -> None:
    tab = await env.open("nav1.html")
    stay = await env.driver.act(tab, {"action": "click", "target": {"role": "button", "name": "Stay"}})
    assert stay["navigated"] is False
    assert stay["url"] == env.url("nav1.html")

    jump = await env.driver.act(tab, {"action": "click", "target": {"role": "link", "name": "Jump"}})
    assert jump["navigated"] is True
    assert jump["url"] == env.url("nav1.html#section")

    moved = await env.driver.act(tab, {"action": "click", "target": {"role": "link", "name": "Next page"}})
    nav2 = {"navigated": True, "url": env.url("nav2.html"), "title": "Nav 2", "dialogs": [], "sensitive": False}
    assert moved == nav2
    assert one(await env.driver.snapshot(tab), "heading", "Second")

    # trusted: no agent watches the Navigation API, the browser's report is waited for
    back = await env.driver.act(
        tab, {"action": "click", "target": {"role": "link", "name": "Back to one"}, "trusted": True}, "domcontentloaded"
    )
    assert back["navigated"] is True and back["url"] == env.url("nav1.html")
    await env.driver.close_tab(tab)


# ----------------------------------------------------------------- waiting


async def later(env: Env, tab: int, script: str) -> None:
    """Change the page a moment from now, while a wait is running."""
    await env.driver.evaluate(tab, f"setTimeout(() => {{ {script} }}, 300); true", 5000)


async def test_wait_for_each_condition(env: Env) -> None:
    tab = await env.open("waits.html")
    wait = env.driver.wait_for

    await later(env, tab, "document.body.insertAdjacentHTML('beforeend', '<p>Arrived late</p>')")
    assert (await wait(tab, {"text": "Arrived late"}, 5000))["met"] is True
    await later(env, tab, "document.getElementById('going').remove()")
    assert (await wait(tab, {"textGone": "Going away soon"}, 5000))["met"] is True

    await later(env, tab, "document.getElementById('shy').style.display = 'block'")
    await wait(tab, {"target": {"css": "#shy"}, "state": "visible"}, 5000)
    await later(env, tab, "document.getElementById('shy').style.display = 'none'")
    await wait(tab, {"target": {"css": "#shy"}, "state": "hidden"}, 5000)

    await later(env, tab, "document.getElementById('later').disabled = false")
    await wait(tab, {"target": {"role": "button", "name": "Later"}, "state": "enabled"}, 5000)
    await later(env, tab, "document.getElementById('later').disabled = true")
    await wait(tab, {"target": {"role": "button", "name": "Later"}, "state": "disabled"}, 5000)

    box = one(await env.driver.snapshot(tab), "checkbox", "Box")["ref"]
    await later(env, tab, "document.getElementById('box').checked = true")
    await wait(tab, {"target": {"ref": box}, "state": "checked"}, 5000)
    await later(env, tab, "document.getElementById('box').checked = false")
    await wait(tab, {"target": {"ref": box}, "state": "unchecked"}, 5000)
    await later(env, tab, "document.getElementById('box').focus()")
    await wait(tab, {"target": {"ref": box}, "state": "focused"}, 5000)

    await later(env, tab, "document.body.insertAdjacentHTML('beforeend', '<span id=\"new\">new</span>')")
    await wait(tab, {"target": {"css": "#new"}, "state": "attached"}, 5000)
    await later(env, tab, "document.getElementById('box').remove()")
    await wait(tab, {"target": {"ref": box}, "state": "detached"}, 5000)

    waited = await wait(tab, {"timeMs": 250}, 5000)
    assert waited["met"] is True and waited["elapsedMs"] >= 250

    message = await fails(wait(tab, {"text": "Never shows up"}, 300), "TIMEOUT")
    assert "Never shows up" in message
    await fails(wait(tab, {"target": {"css": "#later"}, "state": "enabled"}, 300), "TIMEOUT")
    await env.driver.close_tab(tab)


async def test_wait_for_text_in_a_cross_origin_frame_and_across_a_navigation(env: Env) -> None:
    tab = await env.open("nav1.html")
    await env.driver.evaluate(tab, f"setTimeout(() => {{ location.href = '{env.url('frames.html')}'; }}, 200); 1", 5000)
    # the text is in the cross-origin frame of the next page
    assert (await env.driver.wait_for(tab, {"text": "cross field"}, 10_000))["met"] is True
    await env.driver.close_tab(tab)


# ----------------------------------------------------------------- screenshots


async def test_screenshots_of_each_kind(env: Env) -> None:
    tab = await env.open("shots.html")
    view = (await env.driver.evaluate(tab, "[innerWidth, innerHeight, devicePixelRatio]", 5000))["json"]

    viewport = await env.driver.screenshot(tab, "viewport")
    assert viewport["mimeType"] == "image/png"
    assert png_size(viewport["data"]) == (viewport["width"], viewport["height"])
    assert viewport["width"] == round(view[0] * view[2])
    assert "clip" not in viewport

    jpeg = await env.driver.screenshot(tab, "viewport", fmt="jpeg", quality=60)
    assert jpeg["mimeType"] == "image/jpeg"
    assert base64.b64decode(jpeg["data"])[:3] == b"\xff\xd8\xff"
    assert Image.open(io.BytesIO(base64.b64decode(jpeg["data"]))).size == (jpeg["width"], jpeg["height"])

    full = await env.driver.screenshot(tab, "full")
    assert png_size(full["data"]) == (full["width"], full["height"])
    assert full["height"] >= 3100 > viewport["height"]

    red = await env.driver.screenshot(tab, "element", {"css": "#red"})
    assert red["clip"]["width"] == round(200 * view[2]) and red["clip"]["height"] == round(100 * view[2])
    assert share_of(cropped(red), (255, 0, 0)) > 0.98

    tall = await env.driver.screenshot(tab, "element", {"css": "#tall"})  # taller than the viewport
    assert "clip" not in tall
    assert (tall["width"], tall["height"]) == (120, 3000)
    assert (tall["area"]["width"], tall["area"]["height"]) == (120, 3000)  # the page area it shows
    assert share_of(cropped(tall), (0, 0, 255)) > 0.98
    await env.driver.close_tab(tab)


async def test_element_screenshot_inside_a_cross_origin_frame(env: Env) -> None:
    tab = await env.open("trusted.html")
    shot = await env.driver.screenshot(tab, "element", {"role": "button", "name": "Inner button"})
    picture = cropped(shot)
    # the button, not the page around it: about its size, and not mostly page-white
    assert 40 <= picture.size[0] <= 200 and 10 <= picture.size[1] <= 60
    assert share_of(picture, (255, 255, 255)) < 0.9
    # named with its frame's ref, which resolves: the screenshot's words are the snapshot's
    element = shot["element"]
    assert (element["role"], element["name"]) == ("button", "Inner button")
    assert re.fullmatch(r"f[1-9]\d*e[1-9]\d*", element["ref"]), element
    again = await env.driver.screenshot(tab, "element", {"ref": element["ref"]}, marks=True)
    assert again["element"] == element
    assert again["marks"] == []  # the marks are the main frame's: none inside the frame's button
    await env.driver.close_tab(tab)


# ----------------------------------------------------------------- console


async def test_console_keeps_entries_from_load_on_and_across_navigations(env: Env) -> None:
    tab = await env.open("console1.html")
    got: dict[str, Any] = {}

    async def has(count: int) -> bool:
        got.update(await env.driver.console(tab, 0))
        return len(got["entries"]) >= count

    await eventually(lambda: has(3), "the first page's three console entries")
    first = got["entries"]
    assert [(e["level"], e["text"]) for e in first] == [
        ("log", "first page log 42"),
        ("warning", "first page warning"),
        ("error", "first page error"),
    ]
    assert [e["seq"] for e in first] == [1, 2, 3]
    assert all(e["source"].startswith(env.url("console1.html")) for e in first)

    await env.driver.act(tab, {"action": "click", "target": {"role": "link", "name": "Next"}})
    await eventually(lambda: has(4), "the second page's entry")
    assert [e["text"] for e in got["entries"]] == [e["text"] for e in first] + ["second page info"]
    assert got["lastSeq"] == 4 and got["dropped"] == 0

    newer = await env.driver.console(tab, 2)
    assert [e["seq"] for e in newer["entries"]] == [3, 4]
    errors = await env.driver.console(tab, 0, ["error", "warning"])
    assert [e["level"] for e in errors["entries"]] == ["warning", "error"]
    assert errors["lastSeq"] == 4

    await env.driver.evaluate(tab, "alert('Hello there'); 1", 5000)
    await eventually(lambda: has(5), "the alert as a dialog entry")
    dialog = got["entries"][-1]
    assert dialog["level"] == "dialog" and "Hello there" in dialog["text"]
    await env.driver.close_tab(tab)


async def test_console_entries_of_subframes_reach_the_tab(env: Env) -> None:
    tab = await env.open("frames.html")

    async def inner_logs() -> set[str]:
        return {e["text"] for e in (await env.driver.console(tab, 0))["entries"]}

    expected = {"inner loaded same", "inner loaded cross", "inner loaded hidden"}

    async def all_there() -> bool:
        return expected <= await inner_logs()

    await eventually(all_there, "every frame's console entry")
    await env.driver.close_tab(tab)


# ----------------------------------------------------------------- trusted input


async def test_trusted_click_passes_a_page_that_rejects_synthetic_clicks(env: Env) -> None:
    tab = await env.open("trusted.html")
    await env.driver.act(tab, {"action": "click", "target": {"css": "#guard"}})
    text = (await env.driver.evaluate(tab, "document.getElementById('result').textContent", 5000))["json"]
    assert text == "untrusted click rejected"

    await env.driver.act(tab, {"action": "click", "target": {"css": "#guard"}, "trusted": True})
    text = (await env.driver.evaluate(tab, "document.getElementById('result').textContent", 5000))["json"]
    assert text == "trusted click"

    # trusted typing and a trusted key press
    await env.driver.act(tab, {"action": "fill", "target": {"role": "textbox", "name": "Typed"}, "text": "hello",
                               "trusted": True})
    await env.driver.act(tab, {"action": "press", "target": {"role": "textbox", "name": "Typed"}, "key": "Enter",
                               "trusted": True})
    text = (await env.driver.evaluate(tab, "document.getElementById('result').textContent", 5000))["json"]
    assert text == "entered hello true"
    await env.driver.close_tab(tab)


async def test_trusted_click_inside_a_cross_origin_frame_lands_on_the_element(env: Env) -> None:
    tab = await env.open("trusted.html")
    await env.driver.evaluate(tab, "scrollTo(0, 0); 1", 5000)
    await env.driver.act(tab, {"action": "click", "target": {"role": "button", "name": "Inner button"},
                               "trusted": True})
    assert one(await env.driver.snapshot(tab), "heading", "Inner clicked cross trusted")
    await env.driver.close_tab(tab)


# ----------------------------------------------------------------- evaluate, closed tabs


async def test_evaluate_values_and_errors(env: Env) -> None:
    tab = await env.open("nav1.html")
    assert await env.driver.evaluate(tab, "document.title", 5000) == {"type": "string", "json": "Nav 1"}
    assert await env.driver.evaluate(tab, "({a: [1, null], b: 'x'})", 5000) == {
        "type": "object", "json": {"a": [1, None], "b": "x"}
    }
    assert await env.driver.evaluate(tab, "null", 5000) == {"type": "null", "json": None}
    assert await env.driver.evaluate(tab, "undefined", 5000) == {"type": "undefined"}
    assert await env.driver.evaluate(tab, "new Promise((r) => setTimeout(() => r(7), 50))", 5000) == {
        "type": "number", "json": 7
    }
    message = await fails(env.driver.evaluate(tab, "(() => { throw new TypeError('boom') })()", 5000), "SCRIPT_ERROR")
    assert "TypeError: boom" in message
    await fails(env.driver.evaluate(tab, "new Promise(() => {})", 300), "TIMEOUT")
    await fails(env.driver.evaluate(tab, "while (true) {}", 300), "TIMEOUT")
    assert (await env.driver.evaluate(tab, "1 + 1", 5000))["json"] == 2  # the page survived the loop
    await env.driver.close_tab(tab)


async def test_a_closed_tab_is_no_tab_for_every_request(env: Env) -> None:
    tab = await env.open("nav1.html")
    await env.driver.close_tab(tab)
    d = env.driver
    for call in (
        d.snapshot(tab),
        d.act(tab, {"action": "click", "target": {"css": "a"}}),
        d.navigate(tab, url=env.url("nav2.html")),
        d.navigate(tab, go="back"),
        d.wait_for(tab, {"text": "x"}, 500),
        d.wait_for(tab, {"timeMs": 10}, 500),
        d.screenshot(tab, "viewport"),
        d.screenshot(tab, "full"),
        d.console(tab, 0),
        d.evaluate(tab, "1", 1000),
    ):
        await fails(call, "NO_TAB")


async def test_requests_the_wire_refuses_fail_before_the_browser(env: Env) -> None:
    tab = await env.open("nav1.html")
    await fails(env.driver.act(tab, {"action": "fill", "target": {"css": "a"}}), "BAD_MESSAGE")  # no text
    await fails(env.driver.navigate(tab), "BAD_MESSAGE")
    await fails(env.driver.screenshot(tab, "element"), "BAD_MESSAGE")
    await fails(env.driver.wait_for(tab, {"text": "a", "timeMs": 3}), "BAD_MESSAGE")
    await env.driver.close_tab(tab)


@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings")  # the frames are wrong on purpose
async def test_the_extension_refuses_invalid_frames_itself(extension_env: Env) -> None:
    """Frames built without validation (as a buggy server would send them) still get an answer."""
    env = extension_env
    tab = await env.open("nav1.html")
    assert env.bridge is not None
    bridge = env.bridge
    for frame in (
        p.CallAgent.model_construct(type="callAgent", id="", tabId=tab, method=""),
        p.CallAgent.model_construct(type="callAgent", id="", tabId=tab, method="snapshot", frameIds=["main"]),
        p.Cdp.model_construct(type="cdp", id="", tabId=tab, method="Runtime.evaluate", params=[1]),
        p.Goto.model_construct(type="goto", id="", tabId=tab),
        p.Go.model_construct(type="go", id="", tabId=tab, where="sideways"),
        p.CaptureViewport.model_construct(type="captureViewport", id="", tabId=tab, format="gif"),
        p.CreateTab.model_construct(type="createTab", id="", url=7),
        p.Frames.model_construct(type="frames", id="", tabId="seven"),
    ):
        await fails(bridge.request(frame), "BAD_MESSAGE")
    await env.driver.close_tab(tab)


async def test_dialogs_follow_the_action_policy_untrusted_and_trusted(env: Env) -> None:
    tab = await env.open("dialogs.html")
    said = await env.driver.act(tab, {"action": "click", "target": {"css": "#ask"}})
    assert said["dialogs"] == [{"type": "confirm", "message": "Sure?", "answer": False}]
    said = await env.driver.act(tab, {"action": "click", "target": {"css": "#ask"}, "dialog": "accept"})
    assert said["dialogs"] == [{"type": "confirm", "message": "Sure?", "answer": True}]
    named = await env.driver.act(
        tab, {"action": "click", "target": {"css": "#name"}, "dialog": "accept", "promptText": "Ada", "trusted": True}
    )
    assert named["dialogs"] == [{"type": "prompt", "message": "Your name?", "answer": "Ada"}]
    snap = await env.driver.snapshot(tab)
    assert one(snap, "button", "Said yes") and one(snap, "button", "Name Ada")
    await env.driver.close_tab(tab)


async def test_the_console_ring_buffer_keeps_the_newest_thousand(env: Env) -> None:
    tab = await env.open("nav2.html")
    for start in (0, 600):  # two bursts: the agent forwards each whole
        await env.driver.evaluate(tab, f"for (let i = {start}; i < {start + 600}; i++) console.log('n' + i); 1", 5000)

        async def arrived(last: int = start + 600) -> bool:
            return (await env.driver.console(tab, 0))["lastSeq"] >= last

        await eventually(arrived, f"{start + 600} entries")
    everything = await env.driver.console(tab, 0)
    assert everything["lastSeq"] == 1200
    assert len(everything["entries"]) == 1000
    assert everything["entries"][0] == {**everything["entries"][0], "seq": 201, "text": "n200"}
    assert everything["dropped"] == 200
    recent = await env.driver.console(tab, 1150)
    assert [e["text"] for e in recent["entries"]] == [f"n{i}" for i in range(1150, 1200)]
    assert recent["dropped"] == 0
    await env.driver.close_tab(tab)


async def service_worker_eval(env: Env, expression: str) -> Any:
    workers = [w for w in env.context.service_workers if w.url.endswith("/background.js")]
    assert workers, "the extension's service worker is not running"
    return await workers[0].evaluate(expression)


async def test_the_debugger_detaches_when_idle_and_after_an_outside_detach(extension_env: Env) -> None:
    env = extension_env
    tab = await env.open("nav1.html")

    async def attached() -> bool:
        # the worker's own session table: getTargets() also counts Playwright's CDP session as "attached"
        return bool(await service_worker_eval(env, f"debuggees.has({tab})"))

    assert not await attached()
    await env.driver.evaluate(tab, "1", 5000)
    assert await attached()
    # someone else detaches it (the user cancelled the infobar, DevTools took over): re-attached on next use
    await service_worker_eval(env, f"chrome.debugger.detach({{tabId: {tab}}})")
    assert (await env.driver.evaluate(tab, "2", 5000))["json"] == 2
    assert await attached()

    async def detached() -> bool:
        return not await attached()

    await eventually(detached, "the idle debugger session to detach", timeout=30)
    assert (await env.driver.evaluate(tab, "3", 5000))["json"] == 3
    await env.driver.close_tab(tab)
