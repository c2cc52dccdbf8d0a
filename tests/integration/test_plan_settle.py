"""When a page tool's plan is over: the page's own work, measured (docs/page-agent.md §11).

The summary is read once the requests and short timers the call started are done and a frame went by
without a change, within a bound: a page that fetches and then renders answers with the render, one
that changed at once answers with that change, and neither a clock that ticks in every frame nor a
request that never ends holds the answer. One level below MCP (``run_steps`` on each driver); the
page is tests/fixtures/pages/settle.html, whose requests to ``held/<name>`` this module's server
holds until the test lets them go.
"""

from __future__ import annotations

import asyncio
import functools
import tempfile
import threading
from collections import defaultdict
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import pytest
import pytest_asyncio

from tabmcp import protocol as p
from tests.integration.conftest import DRIVERS
from tests.integration.linked import Linked, linked_browser

pytestmark = pytest.mark.asyncio(loop_scope="module")

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"
HOLD_S = 30.0  # a held answer the test never lets go ends with the server thread's wait, not the test
NO_HANG_S = 20.0  # a hang guard, far above the settle bounds (2 s for requests, then 1.5 s in the page)


class Held:
    """The answers to ``/held/<name>``: each request is noted as arrived and waits until released."""

    def __init__(self) -> None:
        self.arrived: defaultdict[str, threading.Event] = defaultdict(threading.Event)
        self.released: defaultdict[str, threading.Event] = defaultdict(threading.Event)
        self.bodies: dict[str, str] = {}

    def release(self, name: str, body: str) -> None:
        self.bodies[name] = body
        self.released[name].set()

    async def wait_arrived(self, name: str) -> None:
        if not await anyio.to_thread.run_sync(self.arrived[name].wait, NO_HANG_S):
            raise AssertionError(f"the page did not request held/{name}")


class Handler(SimpleHTTPRequestHandler):
    held: Held

    def do_GET(self) -> None:
        if not self.path.startswith("/held/"):
            super().do_GET()
            return
        name = self.path.removeprefix("/held/")
        self.held.arrived[name].set()
        self.held.released[name].wait(HOLD_S)
        body = self.held.bodies.get(name, "").encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def held_server(held: Held) -> Iterator[str]:
    handler = functools.partial(type("BoundHandler", (Handler,), {"held": held}), directory=str(PAGES))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        for released in list(held.released.values()):
            released.set()  # a request still held (one that never ends) is answered, its thread ends
        httpd.shutdown()
        httpd.server_close()


class Env(Linked):
    held: Held

    async def click(self, tab: int, css: str) -> dict[str, Any]:
        step = p.Step.model_validate({"action": "click", "target": {"css": css}})
        return await self.driver.run_steps(tab, "test_tool", [step])


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=DRIVERS)
async def env(request: pytest.FixtureRequest) -> AsyncIterator[Env]:
    held = Held()
    with tempfile.TemporaryDirectory(prefix="tabmcp-settle-") as scratch, held_server(held) as base:
        async with linked_browser(Path(scratch), base, request.param) as linked:
            env = Env(linked.bridge, linked.driver, linked.context, linked.base, linked.kind)
            env.held = held
            yield env


async def test_a_page_that_fetches_then_renders_answers_with_the_render(env: Env) -> None:
    tab = await env.open("settle.html")
    run = asyncio.ensure_future(env.click(tab, "#fetch"))
    await env.held.wait_arrived("search")
    env.held.release("search", "3 results")  # the page renders only once its request came back
    result = await run
    assert result["page"]["changed"] == "Searching Rendered 3 results"
    await env.driver.close_tab(tab)


async def test_an_xhr_then_render_is_in_the_answer(env: Env) -> None:
    tab = await env.open("settle.html")
    run = asyncio.ensure_future(env.click(tab, "#xhr"))
    await env.held.wait_arrived("xhr")
    env.held.release("xhr", "2 items")
    result = await run
    assert result["page"]["changed"] == "Requesting Loaded 2 items"
    await env.driver.close_tab(tab)


async def test_a_change_made_at_once_is_reported(env: Env) -> None:
    tab = await env.open("settle.html")
    result = await env.click(tab, "#now")
    assert result["page"]["changed"] == "Changed at once"
    assert result["page"]["navigated"] is False
    await env.driver.close_tab(tab)


async def test_a_page_that_changes_in_every_frame_still_answers(env: Env) -> None:
    tab = await env.open("settle.html")
    with anyio.fail_after(NO_HANG_S):
        result = await env.click(tab, "#tick")
    assert result["page"]["changed"].startswith("Clock started")  # then the clock's count so far
    await env.driver.close_tab(tab)


async def test_a_request_that_never_ends_does_not_hold_the_answer(env: Env) -> None:
    tab = await env.open("settle.html")
    with anyio.fail_after(NO_HANG_S):
        result = await env.click(tab, "#hang")
    await env.held.wait_arrived("never")
    assert result["page"]["changed"] == "Waiting forever"
    await env.driver.close_tab(tab)
