"""Every tool the built-in introspectors make can be listed and called: its plan resolves to valid
wire ``protocol.Step``s for arguments that fit its schema."""

from __future__ import annotations

from typing import Any

import pytest

from tabmcp.introspect.api import MAX_DESCRIPTION, MAX_TITLE, PageTool, resolve_plan
from tabmcp.introspect.registry import Registry
from tabmcp.introspect.text import PARAM_NAME, TOOL_NAME
from tabmcp.page.capture import PageCapture
from tabmcp.protocol import Step
from tabmcp.tools.catalog import CATALOG

# A page with a bit of everything the built-ins read, serialised the way the page agent writes it.
KITCHEN_SINK = """<html><head><title>Everything</title></head><body>
<header>
  <form role="search" action="/search" data-tabmcp-ref="e1">
    <input type="search" name="q" aria-label="Search everything" data-tabmcp-ref="e2">
    <select name="in" aria-label="In" data-tabmcp-ref="e3"><option value="all">All</option>
      <option value="docs">Docs</option></select>
  </form>
  <button data-tabmcp-ref="e4">New project</button>
  <button aria-label="Delete workspace" data-tabmcp-ref="e5"></button>
  <div role="button" data-tabmcp-ref="e6">Mark all as read</div>
</header>
<main>
<form id="profile" action="/profile" method="post" aria-label="Edit profile" data-tabmcp-ref="e10">
  <input type="hidden" name="csrf" value="x" data-tabmcp-ref="e11" data-tabmcp-hidden="1">
  <label for="em" data-tabmcp-ref="e12">Email</label>
  <input id="em" type="email" name="email" required="" data-tabmcp-ref="e13">
  <input type="url" name="site" aria-label="Website" data-tabmcp-ref="e14">
  <input type="number" name="age" min="13" max="120" aria-label="Age" data-tabmcp-ref="e15">
  <input type="range" name="volume" step="5" aria-label="Volume" data-tabmcp-ref="e16">
  <input type="date" name="born" aria-label="Birthday" data-tabmcp-ref="e17">
  <input type="time" name="wake" aria-label="Wake up" data-tabmcp-ref="e18">
  <input type="color" name="colour" aria-label="Colour" data-tabmcp-ref="e19">
  <textarea name="bio" maxlength="200" aria-label="Bio" data-tabmcp-ref="e20"></textarea>
  <select name="lang" aria-label="Language" data-tabmcp-ref="e21"><option value="en">English</option>
    <option value="fr">Français</option></select>
  <fieldset><legend>Plan</legend>
    <label data-tabmcp-ref="e22"><input type="radio" name="plan" value="free" data-tabmcp-ref="e23"> Free</label>
    <label data-tabmcp-ref="e24"><input type="radio" name="plan" value="pro" data-tabmcp-ref="e25"> Pro</label>
  </fieldset>
  <fieldset><legend>Notify me about</legend>
    <label data-tabmcp-ref="e26"><input type="checkbox" name="notify[]" value="mentions" data-tabmcp-ref="e27">
      Mentions</label>
    <label data-tabmcp-ref="e28"><input type="checkbox" name="notify[]" value="releases" data-tabmcp-ref="e29">
      Releases</label>
  </fieldset>
  <label data-tabmcp-ref="e30"><input type="checkbox" name="public" data-tabmcp-ref="e31"> Public profile</label>
  <button data-tabmcp-ref="e32">Save profile</button>
</form>
<form action="/logout" method="post" data-tabmcp-ref="e40"><button data-tabmcp-ref="e41">Sign out</button></form>
<form toolname="createIssue" tooldescription="Create an issue" toolautosubmit="" action="/issues" method="post"
  data-tabmcp-ref="e50">
  <input name="title" required="" toolparamdescription="Issue title" data-tabmcp-ref="e51">
  <select name="labels" multiple="" data-tabmcp-ref="e52"><option value="bug">bug</option></select>
</form>
<div><input type="search" placeholder="Filter files" data-tabmcp-ref="e60"></div>
</main></body></html>"""

WEBMCP = (
    {"name": "getWeather", "description": "Weather for a city", "inputSchema": {
        "type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}},
        "required": ["city"]}, "annotations": {"readOnlyHint": True}},
    {"name": "reset", "description": "Start over"},
)


def sample(schema: dict[str, Any]) -> Any:
    """A value that fits a property schema."""
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "integer":
        return schema.get("minimum", 1)
    if kind == "number":
        return schema.get("minimum", 1.5)
    if kind == "boolean":
        return True
    if kind == "array":
        return [sample(schema.get("items", {}))]
    return {"format": {"email": "ada@example.test", "uri": "https://a.test", "date": "2026-01-02"}}.get(
        "format", {}
    ).get(schema.get("format", ""), "x")


@pytest.fixture(scope="module")
def tools() -> tuple[PageTool, ...]:
    registry = Registry.discover()
    found = registry.page_tools(
        PageCapture(url="https://app.test/settings", title="t", html=KITCHEN_SINK, webmcp=WEBMCP),
        reserved={t.name for t in CATALOG},
    )
    assert registry.failures == {}
    return found


def test_the_kitchen_sink_gives_the_expected_tools(tools: tuple[PageTool, ...]) -> None:
    assert [(t.name, t.source) for t in tools] == [
        ("get_weather", "webmcp"),
        ("reset", "webmcp"),
        ("create_issue", "webmcp"),
        ("filter_files", "search"),  # the main content's box first, named for what its label says it does
        ("search", "search"),  # the header's site-wide box: "everything" says no more than "search"
        ("save_profile", "forms"),  # named for what its submit button says
        ("sign_out", "forms"),
        ("new_project", "actions"),
        ("delete_workspace", "actions"),
        ("mark_all_as_read", "actions"),
    ]


def test_every_tool_is_listable(tools: tuple[PageTool, ...]) -> None:
    for tool in tools:
        assert TOOL_NAME.match(tool.name), tool.name
        assert len(tool.description) <= MAX_DESCRIPTION
        assert tool.title is None or len(tool.title) <= MAX_TITLE
        assert tool.input_schema["type"] == "object"
        assert all(PARAM_NAME.match(p) for p in tool.input_schema.get("properties", {})), tool.input_schema


def test_every_tool_resolves_to_valid_wire_steps(tools: tuple[PageTool, ...]) -> None:
    for tool in tools:
        properties = tool.input_schema.get("properties", {})
        everything = {name: sample(schema) for name, schema in properties.items()}
        required_only = {name: everything[name] for name in tool.input_schema.get("required", [])}
        for args in (everything, required_only):
            steps = resolve_plan(tool, args)
            assert steps, tool.name
            for step in steps:
                assert isinstance(step, Step)
                assert Step.model_validate(step.model_dump()) == step  # what the driver sends validates again
