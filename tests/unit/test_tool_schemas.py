"""The core tools as a client sees them in tools/list, and the URL check of open_tab."""

from __future__ import annotations

import importlib
import json
import pkgutil
import re
from typing import Any

import pytest
from pydantic import BaseModel, Field

from tabmcp import tools
from tabmcp.config import Settings
from tabmcp.introspect.api import ToolHints
from tabmcp.server import core_tool_listing
from tabmcp.state import Mode
from tabmcp.tools.base import DECLARATION, Args, CoreTool, ToolFailure
from tabmcp.tools.catalog import CATALOG
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


def test_the_catalog_holds_the_tab_tools_once_each() -> None:
    names = [t.name for t in CATALOG]
    assert sorted(names) == sorted(set(names))
    assert {"connect_browser", "list_tabs", "open_tab", "focus_tab", "close_tab"} <= set(names)


def test_every_declared_tool_is_in_the_catalog() -> None:
    """A handler declared with @tool but left out of tools/catalog.py would never be offered."""
    declared = set()
    for info in pkgutil.iter_modules(tools.__path__, "tabmcp.tools."):
        module = importlib.import_module(info.name)
        declared |= {
            getattr(value, DECLARATION) for value in vars(module).values() if hasattr(value, DECLARATION)
        }
    assert declared == set(CATALOG)


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
    # unknown arguments are an error the model reads, without listing additionalProperties
    assert "additionalProperties" not in schema
    assert core.args_model.model_config.get("extra") == "forbid"


@pytest.mark.parametrize("core", CATALOG, ids=lambda t: t.name)
def test_core_tool_schema_lists_no_bounds_or_obvious_defaults(core: CoreTool) -> None:
    for name, prop in core.input_schema()["properties"].items():
        assert not {"minimum", "maximum"} & set(prop), f"{core.name}.{name}"
        assert prop.get("default", ...) is not False, f"{core.name}.{name}"
        enum = prop.get("enum")
        if isinstance(enum, list) and "default" in prop:
            assert enum[0] != prop["default"], f"{core.name}.{name}: the first enum value is the default"


def test_bounds_left_out_of_the_listing_are_still_checked() -> None:
    wait_for = BY_NAME["wait_for"].args_model
    with pytest.raises(ValueError, match="less than or equal to 30000"):
        wait_for.model_validate({"timeMs": 60_000})
    with pytest.raises(ValueError, match="greater than or equal to 0"):
        wait_for.model_validate({"text": "x", "timeoutMs": -1})
    with pytest.raises(ValueError, match="less than or equal to 100"):
        BY_NAME["screenshot"].args_model.model_validate({"format": "jpeg", "quality": 101})


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
    assert schema["properties"]["focus"] == {"type": "boolean", "default": True}


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


def listing_chars(core: CoreTool) -> int:
    """As tools/list sends it with the default settings: with Claude Code's alwaysLoad where marked."""
    listing = core_tool_listing(core, core.name in Settings().always_load)
    return len(json.dumps(listing.model_dump(mode="json", by_alias=True, exclude_none=True)))


FOCUSED_CORE = [t for t in CATALOG if t.enabled(Settings()) and Mode.FOCUSED in t.available_in and not t.static_only]


def test_the_focused_core_tools_are_the_ten() -> None:
    assert [t.name for t in FOCUSED_CORE] == [
        *("list_tabs", "open_tab", "focus_tab", "close_tab", "snapshot"),
        *("interact", "navigate", "wait_for", "screenshot", "console"),
    ]


def test_the_focused_core_tool_list_stays_under_4000_characters() -> None:
    # Playwright MCP lists 21,332 characters of tools at start, Chrome DevTools MCP 29,981
    # (docs/benchmarks.md); the ten core tools a focused tab brings stay under 4,000
    # (docs/decisions.md, "One target string"), their _meta included.
    sizes = {t.name: listing_chars(t) for t in FOCUSED_CORE}
    assert sum(sizes.values()) <= 4_000, sizes


def test_core_listings_carry_no_title_and_only_the_hints_mcp_does_not_assume() -> None:
    listed = {t.name: core_tool_listing(t).model_dump(mode="json", by_alias=True, exclude_none=True) for t in CATALOG}
    assert all("title" not in tool for tool in listed.values())
    assert listed["snapshot"]["annotations"] == {"readOnlyHint": True}
    assert listed["interact"]["annotations"] == {"destructiveHint": False}
    assert listed["focus_tab"]["annotations"] == {"destructiveHint": False, "idempotentHint": True}
    assert listed["close_tab"]["annotations"] == {"destructiveHint": True}


@pytest.mark.parametrize("core", CATALOG, ids=lambda t: t.name)
def test_optional_arguments_are_listed_without_null_noise(core: CoreTool) -> None:
    schema = core.input_schema()
    for name, prop in schema["properties"].items():
        assert {"type": "null"} not in prop.get("anyOf", []), f"{core.name}.{name}"
    required = schema.get("required", [])
    assert list(schema["properties"])[: len(required)] == required  # what must be given comes first


def test_interact_validates_what_each_action_needs() -> None:
    interact = BY_NAME["interact"].args_model
    assert interact.model_validate({"action": "click", "target": "e5"}).wire(100)["target"] == {"ref": "e5"}
    for bad, said in (
        ({"action": "click"}, "click needs a target"),
        ({"action": "fill", "target": "e1"}, "fill needs text"),
        ({"action": "press"}, "press needs key"),
        ({"action": "select", "target": "e1"}, "select needs value"),
        ({"action": "click", "target": "e1", "css": "#x"}, 'css is not an argument: give "target": "css=#x"'),
        ({"action": "click", "name": "Save"}, r'give "target": "role=<role>\[name=Save\]"'),
        ({"action": "click", "target": "Save"}, '"Save" is not a target'),
        ({"action": "scroll"}, "scroll needs an element"),
    ):
        with pytest.raises(ValueError, match=said):
            interact.model_validate(bad)
    assert interact.model_validate({"action": "press", "key": "Control+A"}).wire_target() is None  # type: ignore[attr-defined]
    assert interact.model_validate({"action": "scroll", "direction": "down"}).wire(100)["direction"] == "down"  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("args", "wire"),
    [
        ({"action": "click", "target": "role=button[name=Save]"}, {"role": "button", "name": "Save"}),
        ({"action": "check", "target": "css=#agree"}, {"css": "#agree"}),
        ({"action": "hover", "target": "f2e7"}, {"ref": "f2e7"}),
    ],
)
def test_interact_sends_the_target_as_the_drivers_take_it(args: dict[str, Any], wire: dict[str, str]) -> None:
    assert BY_NAME["interact"].args_model.model_validate(args).wire(100)["target"] == wire  # type: ignore[attr-defined]


def test_wait_for_and_screenshot_take_the_same_target() -> None:
    wait_for = BY_NAME["wait_for"].args_model.model_validate({"target": "role=button[name=Go]", "state": "enabled"})
    assert wait_for.condition() == {"target": {"role": "button", "name": "Go"}, "state": "enabled"}  # type: ignore[attr-defined]
    shot = BY_NAME["screenshot"].args_model.model_validate({"target": "css=.card"})
    assert shot.wire_target() == {"css": ".card"}  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="give exactly one of text"):
        BY_NAME["wait_for"].args_model.model_validate({"state": "visible"})
    with pytest.raises(ValueError, match="state needs a target: a snapshot ref"):
        BY_NAME["wait_for"].args_model.model_validate({"text": "Saved", "state": "visible"})
    with pytest.raises(ValueError, match="unknown target form xpath="):
        BY_NAME["screenshot"].args_model.model_validate({"target": "xpath=//a"})


def test_the_after_action_snapshot_is_one_enum() -> None:
    for name in ("interact", "navigate"):
        assert BY_NAME[name].input_schema()["properties"]["snapshot"] == {"enum": [False, True, "diff"]}
    model = BY_NAME["navigate"].args_model
    assert model.model_validate({"go": "back", "snapshot": "diff"}).snapshot == "diff"  # type: ignore[attr-defined]
    with pytest.raises(ValueError):
        model.model_validate({"go": "back", "snapshot": "full"})
