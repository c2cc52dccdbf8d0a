"""One tool per search: boxes sending the same query to the same search are one tool; boxes over
different things are named for what they search (``introspect/search_scope.py``)."""

from __future__ import annotations

import pytest
from bench.apps.capture import saved_captures

from tabmcp.introspect.registry import Registry
from tabmcp.introspect.search_scope import Scope, same_search, scope_of, topic
from tabmcp.page.capture import PageCapture


def page(body: str, url: str) -> PageCapture:
    return PageCapture(url=url, title="Test page", html=f"<html><head></head><body>{body}</body></html>")


SIDEBAR = """<aside aria-label="Sidebar"><form role="search" action="/admin/pages/search/" method="get"
  data-tabmcp-ref="s1"><input type="text" name="q" placeholder="Search" data-tabmcp-ref="s2"></form></aside>"""


def own_search(action: str, placeholder: str = "Search…") -> str:
    return f"""<main><form role="search" action="{action}" method="get" data-tabmcp-ref="m1">
  <input type="text" name="q" placeholder="{placeholder}" data-tabmcp-ref="m2">
  <button type="submit" data-tabmcp-ref="m3">Search</button></form><ul><li>a row</li></ul></main>"""


def tools(body: str, url: str) -> list[tuple[str, str]]:
    return [(t.name, t.description) for t in Registry.discover().page_tools(page(body, url))]


def scope(action: str, url: str, field: str = "q", method: str = "get") -> Scope:
    capture = page(f'<form action="{action}" method="{method}"><input name="{field}"></form>', url)
    form = capture.tree.xpath("//form")[0]
    result = scope_of(capture, form.xpath(".//input")[0], form)
    assert result is not None
    return result


def test_topic_is_what_the_destination_names_without_ids_or_search_words() -> None:
    assert topic("/admin/pages/3/results") == "pages"
    assert topic("/admin/users/results") == "users"
    assert topic("/-/search") == ""
    assert topic("/issue") == "issue"


def test_the_sites_box_on_its_results_page_and_the_pages_own_box_are_one_search() -> None:
    url = "http://app.test/admin/pages/search/?q=harbor"
    site, own = scope("/admin/pages/search/", url), scope("/admin/pages/search/results/", url)
    assert site.own and own.own
    assert same_search(site, own)
    # the one kept is the page's own (it has the page's filters); the sidebar's form is its, not a form tool
    assert [name for name, _ in tools(SIDEBAR + own_search("/admin/pages/search/results/"), url)] == ["search"]


def test_two_boxes_over_one_section_of_the_site_are_one_search() -> None:
    url = "http://app.test/admin/"
    assert same_search(scope("/admin/pages/1/", url), scope("/admin/pages/search/", url))
    listed = tools(SIDEBAR + own_search("/admin/pages/1/", "Search all pages…"), url)
    assert [name for name, _ in listed] == ["search_pages"]


def test_a_box_over_this_pages_list_and_the_sites_box_are_two_tools_named_for_what_they_search() -> None:
    url = "http://app.test/admin/users/"
    own, site = scope("/admin/users/results/", url), scope("/admin/pages/search/", url)
    assert own.own and not site.own and not same_search(own, site)
    # each named for where its query goes: neither is "the" search of the page
    assert [name for name, _ in tools(SIDEBAR + own_search("/admin/users/results/"), url)] == [
        "search_users", "search_pages"]


def test_the_sites_box_over_what_this_page_lists_too_says_it_searches_all_of_it() -> None:
    listed = [name for name, _ in tools(SIDEBAR + own_search("/admin/pages/3/results/"), "http://app.test/admin/pages/3/")]
    assert listed == ["search", "search_all_pages"]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (("/search", "q", "get"), ("/search", "text", "get")),  # another field
        (("/search", "q", "get"), ("/search", "q", "post")),  # another method
        (("/books/", "q", "get"), ("/authors/", "q", "get")),  # other sections
        (("/-/search", "q", "get"), ("/find", "q", "get")),  # neither names what it searches
    ],
)
def test_boxes_that_differ_in_what_they_send_or_where_are_two_searches(
    a: tuple[str, str, str], b: tuple[str, str, str]
) -> None:
    url = "http://app.test/home"
    assert not same_search(scope(a[0], url, a[1], a[2]), scope(b[0], url, b[1], b[2]))


def test_a_page_at_the_sites_root_does_not_make_every_search_its_own() -> None:
    assert not scope("/admin/pages/search/", "http://app.test/").own
    assert scope("/", "http://app.test/").own


# ------------------------------------------------------------- the saved captures of a real admin


def names(app: str, name: str) -> list[str]:
    return [t.name for t in Registry.discover().page_tools(saved_captures(app)[name]) if "search" in t.name]


@pytest.mark.parametrize(("name", "expected"), [
    ("dashboard", ["search"]),  # "Search all pages" and the sidebar's page search: one
    ("search", ["search"]),  # the sidebar's search on its own results page: one
    ("explorer", ["search", "search_all_pages"]),  # this section's list, and all pages
    ("users", ["search_users", "search_pages"]),  # the users list, and the site's pages
    ("edit", ["search"]),  # the sidebar's alone
])
def test_wagtail_lists_one_tool_per_search(name: str, expected: list[str]) -> None:
    assert names("wagtail", name) == expected


# ------------------------------------------------------------- a chrome form the page's own form sends again

QUICK = """<header><search><form action="issue" method="get" data-tabmcp-ref="h1">
  <input type="hidden" name="@sort" value="activity">
  <input name="@search_text" aria-label="Search" data-tabmcp-ref="h2">
  <input type="submit" value="Search" data-tabmcp-ref="h3"></form></search></header>"""
ADVANCED = """<main><h1>Search issues</h1><form action="issue" method="get" data-tabmcp-ref="m1">
  <label>All text <input name="@search_text" data-tabmcp-ref="m2"></label>
  <label>Title <input name="title" data-tabmcp-ref="m3"></label>
  <input type="submit" value="Search" data-tabmcp-ref="m4"></form></main>"""


def test_a_quick_search_the_pages_advanced_search_sends_too_is_one_tool() -> None:
    listed = Registry.discover().page_tools(page(QUICK + ADVANCED, "http://app.test/issue?@template=search"))
    assert [(t.name, t.element_ref) for t in listed] == [("search", "m1")]  # the form tool, named by its button
    assert set(listed[0].schema["properties"]) >= {"search_text", "title"}


@pytest.mark.parametrize(("body", "why"), [
    (QUICK + ADVANCED.replace('action="issue"', 'action="user"'), "another place"),
    (QUICK + ADVANCED.replace('method="get"', 'method="post"'), "another method"),
    (QUICK + ADVANCED.replace('name="@search_text"', 'name="text"'), "not the quick search's field"),
    (QUICK.replace("<header>", "<main>").replace("</header>", "</main>") + ADVANCED, "both the page's own"),
    (QUICK + ADVANCED.replace("<main>", "<div>").replace("</main>", "</div>"), "no main content to tell"),
])
def test_forms_that_send_other_things_stay_two_tools(body: str, why: str) -> None:
    listed = Registry.discover().page_tools(page(body, "http://app.test/issue?@template=search"))
    assert len(listed) == 2, why


def test_a_header_login_on_the_login_page_is_the_login_form_again() -> None:
    header = """<header><form action="/login" method="post" data-tabmcp-ref="h1">
      <input name="user" aria-label="User" data-tabmcp-ref="h2"><input type="password" name="pw" aria-label="Password"
      data-tabmcp-ref="h3"><button data-tabmcp-ref="h4">Log in</button></form></header>"""
    own = """<main><form action="/login" method="post" data-tabmcp-ref="m1">
      <label>User <input name="user" data-tabmcp-ref="m2"></label><label>Password <input type="password" name="pw"
      data-tabmcp-ref="m3"></label><label><input type="checkbox" name="remember" data-tabmcp-ref="m4"> Remember me
      </label><button data-tabmcp-ref="m5">Log in</button></form></main>"""
    listed = Registry.discover().page_tools(page(header + own, "http://app.test/login"))
    assert [t.element_ref for t in listed] == ["m1"]


def test_roundup_lists_one_search_on_its_search_page() -> None:
    capture = saved_captures("roundup")["search"]
    listed = [t for t in Registry.discover().page_tools(capture) if "search" in t.name]
    assert len(listed) == 1 and "title" in listed[0].schema["properties"]  # the advanced search, with its fields
