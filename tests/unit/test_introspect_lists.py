"""The lists introspector: browse_list's arguments come from the capture's marks (the page agent's
lists.js), never from the rows, and its plan is one browse step with the call's arguments."""

from __future__ import annotations

import pytest

from tabmcp.introspect.api import PlanError, resolve_plan
from tabmcp.introspect.lists import ListIntrospector
from tabmcp.page.capture import PageCapture

MARKED = """<html data-tabmcp-capture="compact"><body><main><table data-tabmcp-items="20"><thead><tr>
<th data-tabmcp-list="sort:Username"><a href="?o=-1" data-tabmcp-ref="e1" data-tabmcp-name="Username">Username</a></th>
<th data-tabmcp-list="sort:Email address"><a href="?o=2.1" data-tabmcp-ref="e2">Email address</a></th>
<th>Joined</th></tr></thead><tbody><tr><td>user01</td><td>a@b</td><td>2024</td></tr></tbody></table>
<p><a href="?p=2" data-tabmcp-ref="e3" data-tabmcp-list="pager">2</a></p>
<select name="per_page" data-tabmcp-ref="e4" data-tabmcp-list="perpage"><option>20</option><option>50</option></select>
<a href="?page_size=100" data-tabmcp-ref="e5" data-tabmcp-list="perpage:100" data-tabmcp-hidden="1">100 items</a>
</main></body></html>"""


def tools(html: str) -> list:
    return ListIntrospector().tools(PageCapture(url="http://app.test/users/", title="Users", html=html))


def test_the_marks_make_the_arguments() -> None:
    [tool] = tools(MARKED)
    assert tool.name == "browse_list" and tool.hints.read_only and tool.hints.idempotent
    props = tool.schema["properties"]
    assert props["page"] == {"type": "integer", "minimum": 1, "description": props["page"]["description"]}
    assert "how to get the next" in props["page"]["description"]
    assert props["sort"]["enum"] == ["Username", "Email address"]  # headers marked sortable only
    assert props["order"]["enum"] == ["ascending", "descending"]
    assert props["per_page"]["enum"] == ["20", "50", "100"]  # the select's options, then a link's size
    assert "user01" not in str(tool.schema) and "required" not in tool.schema


def test_the_plan_is_one_browse_step_with_the_calls_arguments() -> None:
    [tool] = tools(MARKED)
    [step] = resolve_plan(tool, {"sort": "Username", "order": "descending", "page": 2})
    assert step.action == "browse" and step.args == {"sort": "Username", "order": "descending", "page": 2}
    with pytest.raises(PlanError, match="sort must be one of: Username, Email address"):
        resolve_plan(tool, {"sort": "Joined"})
    with pytest.raises(PlanError, match="page"):
        resolve_plan(tool, {"page": "two"})


def test_only_a_pager_gives_page_alone_and_no_marks_no_tool() -> None:
    [tool] = tools('<html><body><a href="?p=2" data-tabmcp-list="pager">2</a></body></html>')
    assert list(tool.schema["properties"]) == ["page"]
    assert "sorting" not in tool.description
    [more] = tools('<html><body><button data-tabmcp-list="more">Load more</button></body></html>')
    assert list(more.schema["properties"]) == ["page"]
    [long] = tools('<html><body><ol data-tabmcp-items="3000" data-tabmcp-list="long"></ol></body></html>')
    assert list(long.schema["properties"]) == ["page"]  # read a hundred rows a page
    assert tools("<html><body><table><tr><th>Name</th></tr></table></body></html>") == []


def test_the_same_kind_of_page_keeps_the_same_tool() -> None:
    """Other rows, another page, another sort: the marks say the same, so the schema is the same."""
    other = MARKED.replace("user01", "user77").replace("?p=2", "?p=3").replace(">2<", ">3<").replace("?o=-1", "?o=1")
    assert tools(other)[0].schema == tools(MARKED)[0].schema
