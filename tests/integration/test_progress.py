"""Progress notifications (progress.py) as a client sees them: `tabmcp serve` over stdio, a real MCP
ClientSession calling with ``progress_callback`` (which sends ``_meta.progressToken``), headless
Chromium with the real extension. Launching, opening a page and each check of ``ai_wait_for`` report
growing progress; a call without a token gets none."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path
from typing import Any

from tabmcp.demo.client import StdioSession, text_of
from tabmcp.demo.sites import SiteServer
from tests.fake_model import fake_model
from tests.integration.conftest import serve

Seen = list[tuple[float, float | None, str | None]]


async def call_with_progress(
    client: StdioSession, tool: str, args: dict[str, Any], *, ok: bool = True
) -> tuple[Any, Seen]:
    seen: Seen = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    result = await client.session.call_tool(tool, args, progress_callback=on_progress)
    assert result.is_error != ok, f"{tool}: {text_of(result)}"
    return result, seen


def growing(seen: Seen) -> bool:
    values = [p for p, _, _ in seen]
    return all(b > a for a, b in pairwise(values))


async def test_long_calls_report_growing_progress(server_log: object, tmp_path: Path, sites: SiteServer) -> None:
    with fake_model() as model:  # ai_wait_for is listed with a model; page-text checks never ask it
        settings = {"nl_tools": "true", "nl_model_base_url": model.url, "nl_model": "fake-model"}
        async with serve(server_log, ws_port="0", user_data_dir=str(tmp_path / "profile"), **settings) as client:
            _, launch = await call_with_progress(client, "connect_browser", {"launch": True})
            messages = [m for _, _, m in launch]
            assert growing(launch) and len(launch) == 3, launch
            assert messages[0] == "launching the browser" and messages[1] == "the browser's extension linked"
            assert messages[2] is not None and messages[2].startswith("connected to ")
            assert [t for _, t, _ in launch] == [3, 3, 3]

            _, opened = await call_with_progress(client, "open_tab", {"url": sites.url("flights/index.html")})
            messages = [m or "" for _, _, m in opened]
            assert growing(opened)
            assert messages[0].startswith("opening http://127.0.0.1")
            assert "reading the page" in messages and any(m.startswith("finding the page's tools (") for m in messages)
            assert messages[-1].endswith("page tools found")

            result, waited = await call_with_progress(
                client,
                "ai_wait_for",
                {"assertion": 'the page shows "tabmcp-never-shown"', "timeoutMs": 1500, "checkIntervalMs": 300},
                ok=False,
            )
            checks = (result.structured_content or {}).get("checks")
            assert isinstance(checks, int) and checks >= 2
            assert [m for _, _, m in waited] == [f"check {n}: not yet" for n in range(1, checks + 1)]
            assert growing(waited)
            assert model.requests == []  # the page answered every check

            _, navigated = await call_with_progress(
                client, "navigate", {"url": sites.url("mail/index.html"), "waitUntil": "networkidle"}
            )
            messages = [m or "" for _, _, m in navigated]
            assert growing(navigated) and messages[0].startswith("loading http://127.0.0.1")
            assert "(until networkidle)" in messages[0] and "page loaded; finding its tools" in messages

            # no token, no progress: the same kind of calls, without a callback
            before = client.progress_notices
            assert before >= len(launch) + len(opened)  # the client sees every notice it is sent
            await client.call_ok("navigate", {"url": sites.url("flights/index.html"), "waitUntil": "networkidle"})
            await client.call_ok("focus_tab", {"tabId": (await client.call_ok("list_tabs"))["tabs"][0]["id"]})
            assert client.progress_notices == before
