"""Launch and bridge failures are isError results a model can act on; the server keeps running."""

from __future__ import annotations

from tabmcp.demo.client import text_of
from tests.integration.conftest import free_port, serve


async def test_a_browser_that_cannot_start(server_log: object) -> None:
    async with serve(server_log, ws_port="0", browser_path="/nonexistent/chromium") as client:
        failed = await client.call("connect_browser", {"launch": True})
        assert failed.is_error
        assert "/nonexistent/chromium" in text_of(failed)
        assert (failed.structured_content or {}).get("connected") is False
        assert await client.tool_names() == ["connect_browser"]  # still running, state unchanged
        assert client.changes == 0


async def test_a_browser_that_exits_at_once(server_log: object) -> None:
    """An executable that runs and exits (a broken install): said at once, not after the launch timeout."""
    async with serve(server_log, ws_port="0", browser_path="/bin/false", launch_timeout="120") as client:
        failed = await client.call("connect_browser", {"launch": True})
        assert failed.is_error
        assert "exited before its extension connected" in text_of(failed)
        assert await client.tool_names() == ["connect_browser"]
        assert client.changes == 0


async def test_two_servers_on_one_port(server_log: object) -> None:
    port = str(free_port())
    async with serve(server_log, ws_port=port) as first, serve(server_log, ws_port=port) as second:
        assert await first.tool_names() == ["connect_browser"]
        refused = await second.call("connect_browser", {"launch": True})
        assert refused.is_error
        assert "bridge is not running" in text_of(refused) and port in text_of(refused)
        assert await second.tool_names() == ["connect_browser"]
