"""The core tools as a client sees them in tools/list, and the URL check of open_tab."""

from __future__ import annotations

import re
from typing import Any

import pytest
from pydantic import BaseModel, Field

from tabmcp.introspect.api import ToolHints
from tabmcp.state import Mode
from tabmcp.tools import CATALOG, CoreTool, ToolFailure
from tabmcp.tools.base import Args
from tabmcp.tools.tabs import check_url

TOOL_NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
BY_NAME = {t.name: t for t in CATALOG}


def title_keys(schema: Any, path: str = "$") -> list[str]:
    """Where a schema keyword "title" occurs (a property that happens to be called "title" is fine)."""
    found: list[str] = []
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "title":
                found.append(path)
            if key == "properties" and isinstance(value, dict):
                for prop, sub in value.items():
                    found += title_keys(sub, f"{path}.properties.{prop}")
            else:
                found += title_keys(value, f"{path}.{key}")
    elif isinstance(schema, list):
        for i, item in enumerate(schema):
            found += title_keys(item, f"{path}[{i}]")
    return found


def test_the_catalog_holds_the_seed_tools_once_each() -> None:
    names = [t.name for t in CATALOG]
    assert sorted(names) == sorted(set(names))
    assert {"connect_browser", "list_tabs", "open_tab", "focus_tab", "close_tab"} <= set(names)


@pytest.mark.parametrize("core", CATALOG, ids=lambda t: t.name)
def test_core_tool_is_well_formed(core: CoreTool) -> None:
    assert TOOL_NAME.match(core.name)
    assert core.description.strip()
    assert core.title.strip()
    assert isinstance(core.hints, ToolHints)
    assert core.available_in or core.static_only  # a static-only tool is in no state (tool_modes.py)
    assert not (core.available_in and core.static_only)
    assert core.available_in <= set(Mode)


@pytest.mark.parametrize("core", CATALOG, ids=lambda t: t.name)
def test_core_tool_schema_is_an_object_without_title_noise(core: CoreTool) -> None:
    schema = core.input_schema()
    assert schema["type"] == "object"
    assert isinstance(schema.get("properties"), dict)
    assert title_keys(schema) == []
    assert schema.get("additionalProperties") is False  # unknown arguments are an error


class Bookmark(BaseModel):
    url: str


class TitledArgs(Args):
    title: str = Field(description="A property that happens to be called title")
    bookmark: Bookmark | None = None


async def _unused(ctx: Any, args: Any) -> dict[str, Any]:
    return {}


def test_title_stripping_keeps_a_property_named_title() -> None:
    core = CoreTool("t", "T", "d", TitledArgs, frozenset({Mode.FOCUSED}), ToolHints(), _unused)
    schema = core.input_schema()
    assert set(schema["properties"]) == {"title", "bookmark"}
    assert schema["properties"]["title"]["type"] == "string"
    assert schema["required"] == ["title"]
    assert title_keys(schema) == []  # including the nested model's definition


def test_focus_tab_takes_the_wire_name_tab_id() -> None:
    schema = BY_NAME["focus_tab"].input_schema()
    assert list(schema["properties"]) == ["tabId"]
    assert schema["properties"]["tabId"]["type"] == "integer"
    assert schema["required"] == ["tabId"]


def test_focus_tab_arguments_validate_under_the_wire_name() -> None:
    model = BY_NAME["focus_tab"].args_model
    assert model.model_validate({"tabId": 7}).tab_id == 7  # type: ignore[attr-defined]
    with pytest.raises(ValueError):
        model.model_validate({"tabId": 7, "url": "https://x.test/"})


def test_close_tab_id_is_optional() -> None:
    schema = BY_NAME["close_tab"].input_schema()
    assert "tabId" in schema["properties"]
    assert "tabId" not in schema.get("required", [])


def test_open_tab_requires_a_url_and_focuses_by_default() -> None:
    schema = BY_NAME["open_tab"].input_schema()
    assert schema["required"] == ["url"]
    assert schema["properties"]["url"]["type"] == "string"
    assert schema["properties"]["focus"] == {
        "type": "boolean",
        "default": True,
        "description": schema["properties"]["focus"]["description"],
    }


def test_annotations_follow_what_the_tools_do() -> None:
    assert BY_NAME["list_tabs"].hints.read_only
    assert not BY_NAME["open_tab"].hints.read_only
    assert BY_NAME["close_tab"].hints.destructive
    assert not BY_NAME["focus_tab"].hints.destructive


@pytest.mark.parametrize(
    "url",
    [
        "http://example.com",
        "https://example.com/path?q=1#x",
        "HTTPS://EXAMPLE.COM/",
        " https://x.test/ ",
        "http://127.0.0.1:8800/flights.html",
        "about:blank",
    ],
)
def test_check_url_accepts_openable_urls(url: str) -> None:
    check_url(url)  # raises ToolFailure otherwise


@pytest.mark.parametrize(
    "url",
    [
        "notaurl",
        "javascript:alert(1)",
        "ftp://x",
        "http://",
        "https://",
        "file:///etc/passwd",
        "chrome://settings",
        "data:text/html,<b>x</b>",
        "example.com",
        "about:config",
        "",
    ],
)
def test_check_url_rejects_everything_else(url: str) -> None:
    with pytest.raises(ToolFailure) as info:
        check_url(url)
    assert info.value.data == {"code": "INVALID_URL"}
    assert "http" in info.value.message


def focused_listing_chars() -> int:
    import json

    from tabmcp.config import Settings
    from tabmcp.server import core_tool_listing

    listed = [t for t in CATALOG if t.enabled(Settings()) and Mode.FOCUSED in t.available_in]
    return sum(len(json.dumps(core_tool_listing(t).model_dump(by_alias=True, exclude_none=True))) for t in listed)


def test_the_focused_tool_list_stays_far_smaller_than_the_peers() -> None:
    # Playwright MCP lists 21,332 characters of tools at start, Chrome DevTools MCP 29,981
    # (../shared/notes/anchors.md); ours, with every page-agent tool, must stay under half of the smaller.
    assert focused_listing_chars() < 10_000


@pytest.mark.parametrize("core", CATALOG, ids=lambda t: t.name)
def test_optional_arguments_are_listed_without_null_noise(core: CoreTool) -> None:
    schema = core.input_schema()
    for name, prop in schema["properties"].items():
        assert {"type": "null"} not in prop.get("anyOf", []), f"{core.name}.{name}"
    required = schema.get("required", [])
    assert list(schema["properties"])[: len(required)] == required  # what must be given comes first


def test_interact_validates_what_each_action_needs() -> None:
    interact = BY_NAME["interact"].args_model
    assert interact.model_validate({"action": "click", "ref": "e5"})
    for bad in (
        {"action": "click"},
        {"action": "fill", "ref": "e1"},
        {"action": "press"},
        {"action": "select", "ref": "e1"},
        {"action": "click", "ref": "e1", "css": "#x"},
        {"action": "click", "name": "Save"},
        {"action": "scroll"},
    ):
        with pytest.raises(ValueError):
            interact.model_validate(bad)
    assert interact.model_validate({"action": "press", "key": "Control+A"}).target() is None
    assert interact.model_validate({"action": "scroll", "direction": "down"}).wire(100)["direction"] == "down"
