"""A box that opens one item by its key ("Show issue: [number]") takes the place of the list's
``open_row`` only when it opens the list's own items: it sits with the list, or it names the kind of
item the rows open (their addresses). A site-wide box for another kind (issues, in the sidebar of a
list of users) leaves the list its tool. Over small captures in the agent's compact form."""

from __future__ import annotations

from tabmcp.introspect.api import PageTool
from tabmcp.introspect.row_links import TOOL_NAME, RowLinksIntrospector
from tabmcp.page.capture import PageCapture

BOX = """<form method="GET" action="/" data-tabmcp-ref="b1"><input type="submit" value="Show {kind}:"
data-tabmcp-ref="b2" data-tabmcp-name="Show {kind}:"/><input type="text" name="@number" data-tabmcp-ref="b3"/></form>"""


def rows(kind: str, whole: bool = False) -> str:
    """A table of three rows whose title links open ``/{kind}N`` (``whole``: buttons without an address)."""
    cells = []
    for n, name in enumerate(("alice", "bob", "carol"), 1):
        mark = f"open:tbody > tr {'button' if whole else 'a'}" if n == 1 else "open"
        opener = (f'<button data-tabmcp-list="{mark}" data-tabmcp-ref="r{n}">{name}</button>' if whole
                  else f'<a href="{kind}{n}" data-tabmcp-list="{mark}" data-tabmcp-ref="r{n}">{name}</a>')
        cells.append(f"<tr><td>{opener}</td><td>{name} example</td></tr>")
    return f"<table><thead><tr><th>Name</th><th>Real name</th></tr></thead><tbody>{''.join(cells)}</tbody></table>"


def tools(sidebar: str, main: str, url: str = "https://tracker.test/user") -> list[PageTool]:
    html = f"<html><body><nav>{sidebar}</nav><main>{main}</main></body></html>"
    return RowLinksIntrospector().tools(PageCapture(url=url, title="t", html=html))


def test_a_sidebar_box_for_another_kind_of_item_leaves_the_list_its_tool() -> None:
    assert [t.name for t in tools(BOX.format(kind="issue"), rows("user"))] == [TOOL_NAME]


def test_a_sidebar_box_for_the_lists_own_items_opens_them_instead() -> None:
    assert tools(BOX.format(kind="issue"), rows("issue"), url="https://tracker.test/issue") == []
    assert tools(BOX.format(kind="issues"), rows("/tracker/issue")) == []  # plural, a deeper address


def test_a_box_with_the_list_opens_its_items_whatever_it_names() -> None:
    assert tools("", BOX.format(kind="record") + rows("user")) == []


def test_rows_with_no_address_cannot_be_told_apart_from_the_box() -> None:
    assert tools(BOX.format(kind="issue"), rows("user", whole=True)) == []


def test_without_a_box_the_list_has_its_tool() -> None:
    assert [t.name for t in tools("", rows("issue"))] == [TOOL_NAME]
