"""The tool list mode (tool_modes.py): the setting wins; ``auto`` is static only for clients known to
ignore ``list_changed``, by the ``clientInfo.name`` they send."""

from __future__ import annotations

import pytest

from tabmcp.config import Settings
from tabmcp.tool_modes import IGNORES_LIST_CHANGED, choose_tools_mode
from tabmcp.tools.catalog import CATALOG


@pytest.mark.parametrize("name", ["claude-ai", "Claude-AI", " cursor-vscode ", "codex-mcp-client"])
def test_auto_is_static_for_clients_that_ignore_list_changed(name: str) -> None:
    choice = choose_tools_mode("auto", name)
    assert choice.mode == "static"
    assert name.strip() in choice.why and "ignore list_changed" in choice.why


@pytest.mark.parametrize("name", ["claude-code", "Visual Studio Code", "mcp", "", None, "claude-ai-fork"])
def test_auto_is_dynamic_for_other_or_unnamed_clients(name: str | None) -> None:
    assert choose_tools_mode("auto", name).mode == "dynamic"


@pytest.mark.parametrize("setting", ["dynamic", "static"])
def test_an_explicit_setting_wins_over_the_client_name(setting: str) -> None:
    for name in ("claude-ai", "claude-code", None):
        choice = choose_tools_mode(setting, name)  # type: ignore[arg-type]
        assert choice.mode == setting and choice.why == f"tools={setting}"


def test_known_names_are_lower_case_keys() -> None:
    assert all(key == key.lower().strip() for key in IGNORES_LIST_CHANGED)


def test_setting_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings().tools == "auto"
    monkeypatch.setenv("TABMCP_TOOLS", "static")
    assert Settings().tools == "static"
    monkeypatch.setenv("TABMCP_TOOLS", "sometimes")
    with pytest.raises(ValueError, match="auto"):
        Settings()


def test_the_proxies_exist_only_in_static_mode() -> None:
    """list_page_tools and call_page_tool are in the catalog (static mode lists it whole) but in no state
    of the state machine, so the dynamic list never shows them."""
    proxies = {t.name: t for t in CATALOG if t.static_only}
    assert set(proxies) == {"list_page_tools", "call_page_tool"}
    assert all(not t.available_in for t in proxies.values())
    assert proxies["list_page_tools"].hints.read_only
    schema = proxies["call_page_tool"].input_schema()
    assert schema["required"] == ["name"] and schema["properties"]["arguments"]["type"] == "object"
