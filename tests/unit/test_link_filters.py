"""filter_list: groups of links that reload the list's own address with another query, one argument
each, found again by a selector the reloaded page keeps; menus to other pages, the pager, a group
with no such selector and a page with no list make none."""

from __future__ import annotations

from tabmcp.introspect.api import resolve_plan
from tabmcp.introspect.link_filters import LinkFiltersIntrospector
from tabmcp.page.capture import PageCapture
from tabmcp.protocol import Target

PAGE = """<html data-tabmcp-capture="compact"><body>
<nav id="menu"><ul><li><a href="/users/" data-tabmcp-ref="e1">Users</a></li>
<li><a href="/groups/" data-tabmcp-ref="e2">Groups</a></li></ul></nav>
<main><table data-tabmcp-items="20">
<thead><tr><th data-tabmcp-list="sort:Name"><a href="?o=1" data-tabmcp-ref="e3">Name</a></th></tr></thead>

<tbody><tr><td><a href="?o=1&amp;id=4" data-tabmcp-ref="e4">Ann</a></td></tr></tbody></table>
<p><a href="?p=2" data-tabmcp-ref="e5" data-tabmcp-list="pager">2</a>
<a href="?p=3" data-tabmcp-ref="e6" data-tabmcp-list="pager">3</a></p>
</main><aside id="filters"><h3>By role</h3><ul><li><a href="?q=a" data-tabmcp-ref="e7">All</a></li>
<li><a href="?q=a&amp;role=admin" data-tabmcp-ref="e8">Admins</a></li>
<li><a href="?q=a&amp;role=staff" data-tabmcp-ref="e9">Staff</a></li></ul>
<h3>Team</h3><ul class="teams">
<li><a href="?q=a&amp;team=1" data-tabmcp-ref="e10">Red</a></li>
<li><a href="?q=a&amp;team=2" data-tabmcp-ref="e11">Blue</a></li></ul>
<ul><li><a href="?q=a&amp;joined=1" data-tabmcp-ref="e12">Today</a></li>
<li><a href="?q=a&amp;joined=7" data-tabmcp-ref="e13">This week</a></li></ul>
</aside></body></html>"""


def tools(html: str, url: str = "http://app.test/users/?q=a") -> list:
    return LinkFiltersIntrospector().tools(PageCapture(url=url, title="Users", html=html))


def test_each_group_of_links_to_the_page_itself_is_one_argument() -> None:
    [tool] = tools(PAGE)
    assert tool.name == "filter_list" and tool.hints.read_only
    props = tool.schema["properties"]
    # the menu (other pages), the rows' and headers' links and the pager make none; the group under no
    # heading is named by the parameter its links set
    assert list(props) == ["role", "team", "joined"]
    assert props["role"]["enum"] == ["All", "Admins", "Staff"]
    assert '"All"' in props["role"]["description"]  # the page sets no role: its "All" link is the one shown
    assert props["team"]["enum"] == ["Red", "Blue"]


def test_a_call_follows_each_link_by_its_text_inside_its_group() -> None:
    [tool] = tools(PAGE)
    steps = resolve_plan(tool, {"team": "Blue", "role": "Admins"})
    assert [(s.action, s.target) for s in steps] == [
        ("click", Target(css="#filters ul:nth-of-type(1) a[href]", row="Admins")),  # a bare list: its place
        ("click", Target(css="ul.teams a[href]", row="Blue")),  # in the page's order, not the call's
    ]


def test_no_list_no_tool() -> None:
    bare = PAGE.replace('data-tabmcp-list="sort:Name"', "").replace('data-tabmcp-list="pager"', "")
    assert tools(bare) == []
