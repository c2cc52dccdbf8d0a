"""The introspector registry on saved captures of TiddlyWiki (tests/fixtures/apps/tiddlywiki, made by its
make_captures.py): a single-page wiki whose open pages (tiddlers) stand one under another in a story
river, each an article with its own toolbar of icon buttons ("Edit this tiddler", a "close" titled
"Close this tiddler"), beside a sidebar that lists the open ones with a "close" each. What a person
asks there: edit this tiddler, close that one."""

from __future__ import annotations

import pytest
from tests.unit.saved_app import SavedApp

from tabmcp.introspect.api import PageTool, RowText, resolve_plan
from tabmcp.page.capture import REF_ATTR
from tabmcp.protocol import Target

APP = SavedApp("tiddlywiki")
captured, tools_of = APP.captured, APP.tools_of

ARTICLES = "//*[@role='article']"




def clicked_by(tool: PageTool) -> set[str]:
    """The refs of the buttons the tool's row target finds: each article's button of that mark."""
    (step,) = tool.plan
    assert isinstance(step.target, RowText)
    label = step.target.selector.split("aria-label=")[1].strip('"]')
    return {
        str(b.get(REF_ATTR)) for b in captured("story").tree.xpath(f"{ARTICLES}//button[@aria-label='{label}']")
    }


@pytest.mark.parametrize("name", ["edit_this_tiddler", "close_this_tiddler"])
def test_each_open_tiddlers_own_button_is_one_tool_that_takes_the_tiddler(name: str) -> None:
    tool = tools_of("story")[name]
    assert tool.schema["required"] == ["item"]
    assert "enum" not in tool.schema["properties"]["item"]  # the open tiddlers are not in the schema
    steps = resolve_plan(tool, {"item": "Mango"})
    assert [s.action for s in steps] == ["click"]
    target = steps[0].target
    assert isinstance(target, Target) and target.row == "Mango"
    assert target.css is not None and target.css.startswith('[role="article"] ')
    assert len(clicked_by(tool)) == 3  # one in each of the three open tiddlers


def test_the_sidebars_close_buttons_are_not_the_tiddlers() -> None:
    sidebar = {str(b.get(REF_ATTR)) for b in captured("story").tree.xpath("//*[@role='tablist']/..//button")}
    assert sidebar and not clicked_by(tools_of("story")["close_this_tiddler"]) & sidebar


def test_one_open_tiddler_keeps_a_plain_button() -> None:
    edit = tools_of("story_one")["edit_this_tiddler"]
    assert edit.schema["properties"] == {}


def test_the_tag_pills_are_in_the_capture_with_their_refs() -> None:
    """A tag pill is a ``<span aria-expanded>`` with no role: the page agent captures it as a control."""
    pills = captured("tags").tree.xpath(f"//span[@aria-expanded][@{REF_ATTR}]")
    assert {"City", "Fruit", "Stone Fruit"} <= {p.get("data-tabmcp-name") for p in pills}
