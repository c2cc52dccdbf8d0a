"""The extension's end of a process as the rest of tabmcp sees it: ``ExtensionEndpoint`` (a real bridge
on a free loopback port) and ``ExtensionStatus``, what connect_browser reports of the link."""

from __future__ import annotations

from pathlib import Path

from tabmcp.config import Settings
from tabmcp.drivers.extension import ExtensionEndpoint, ExtensionStatus
from tabmcp.policy import NavigationPolicy

TOKEN = "endpoint-test-token-endpoint-test-token-0123"


def settings(tmp_path: Path, port: int = 0) -> Settings:
    return Settings(ws_port=port, native_bridge=False, pairing_token=TOKEN, config_dir=tmp_path)


async def test_the_endpoint_listens_and_its_status_says_where(tmp_path: Path) -> None:
    policy = NavigationPolicy.from_settings(Settings(block_urls=["*://blocked.test/*"]))
    endpoint = ExtensionEndpoint.from_settings(settings(tmp_path), policy.wire())
    assert endpoint.token == TOKEN
    await endpoint.start()
    try:
        assert endpoint.url.startswith("ws://127.0.0.1:") and not endpoint.url.endswith(":0")
        status = endpoint.status
        assert (status.url, status.start_error, status.tcp_error) == (endpoint.url, None, None)
        assert (status.last_refusal, status.user_disconnected) == (None, False)
        assert not endpoint.driver.linked
        assert endpoint.driver.policy is not None  # the rules go to the extension with every connect
    finally:
        await endpoint.stop()


async def test_a_taken_port_is_a_start_error_not_an_exception(tmp_path: Path) -> None:
    first = ExtensionEndpoint.from_settings(settings(tmp_path))
    await first.start()
    try:
        port = int(first.url.rsplit(":", 1)[1])
        second = ExtensionEndpoint.from_settings(settings(tmp_path, port))
        await second.start()
        try:
            assert second.status.start_error is not None and str(port) in second.status.start_error
        finally:
            await second.stop()
    finally:
        await first.stop()


def test_a_status_without_a_bridge_says_nothing() -> None:
    status = ExtensionStatus()
    assert (status.url, status.start_error, status.tcp_error, status.last_refusal) == ("", None, None, None)
    assert status.user_disconnected is False
