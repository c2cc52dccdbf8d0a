"""The page agent's lists and status (lists.js, status.js) in a real Chromium, over pages built the
way real apps build theirs: the main list's rows keyed by column, its pages (numbered links with
`?p=`, a zero-based `?page=`, a row offset beside a page size, arrow links under "Page 1 / 8", a
"Load more" button), sortable headers, page sizes, the capture's marks for them, and the page's
banners and field errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.agent.conftest import AgentPage, eventually

OpenPage = Callable[..., AgentPage]


def summary(page: AgentPage, **request: Any) -> dict[str, Any]:
    return page.call("summary", {"token": None, "results": True, **request})


def browse(tab: AgentPage, **args: Any) -> dict[str, Any]:
    return tab.call("browse", {"args": args})


def query(url: str) -> dict[str, str]:
    return {k: v[-1] for k, v in parse_qs(urlsplit(url).query).items()}


def marks(page: AgentPage) -> list[str]:
    """The list's marks but the rows' openers (test_row_links.py)."""
    html = page.call("capture", {})["html"]
    return page.page.evaluate(
        """(html) => [...new DOMParser().parseFromString(html, 'text/html').querySelectorAll('[data-tabmcp-list]')]
          .map((el) => el.getAttribute('data-tabmcp-list')).filter((m) => !m.startsWith('open'))""",
        html,
    )


def test_an_admin_list_rows_pages_and_sort(open_page: OpenPage) -> None:
    page = open_page("lists/admin.html")
    out = summary(page)
    assert len(out["results"]) == 20  # every row, not the first ten
    # the checkbox column (empty in every row) is left out; the row's header cell counts as a cell
    assert out["results"][0] == {"Username": "user01", "Email address": "user01@example.test"}
    assert out["pages"] == {"page": 1, "next": True, "last": 3}  # the "9" in the site's nav is not the list's
    assert out["status"] == ["The user “ada” was changed successfully."]
    assert marks(page) == ["sort:Username", "sort:Email address", "pager", "pager"]

    assert browse(page, page=1) == {"ok": True, "done": True, "skip": 0}
    assert query(browse(page, page=3)["url"]) == {"p": "3"}
    assert query(browse(page, page=7)["url"]) == {"p": "7"}  # beyond the links: the page parameter
    assert browse(page, sort="Username")["done"] is True  # sorted by it already
    assert browse(page, sort="Username", order="ascending")["done"] is True
    assert query(browse(page, sort="Username", order="descending")["url"]) == {"o": "-1"}  # the column's own link
    assert query(browse(page, sort="email address", page=2)["url"]) == {"o": "2.1"}  # sort first: it starts again
    wrong = browse(page, sort="Password")
    assert wrong["ok"] is False and wrong["message"] == "sort must be one of: Username, Email address"


def test_a_zero_based_page_parameter_and_page_size_links(open_page: OpenPage) -> None:
    page = open_page("lists/zero-based.html")
    out = summary(page)
    assert out["pages"] == {"page": 1, "next": True, "last": 3}  # the active item; » is the next page here
    assert query(browse(page, page=2)["url"]) == {"page": "1"}
    assert query(browse(page, page=6)["url"]) == {"page": "5"}  # the links' text and value differ by one
    # the page-size links sit in a closed dropdown: followed by their URL, marked with their size
    assert [m for m in marks(page) if m.startswith("perpage")] == ["perpage:20", "perpage:50", "perpage:100"]
    assert browse(page, per_page="20")["done"] is True  # the active one
    assert query(browse(page, per_page="50")["url"]) == {"page_size": "50"}
    # the sort order from the header's icon
    assert browse(page, sort="Title", order="ascending")["done"] is True
    assert query(browse(page, sort="Author")["url"]) == {"sort": "1"}


def test_a_row_offset_beside_a_page_size(open_page: OpenPage) -> None:
    page = open_page("lists/offset.html")
    out = summary(page)
    assert len(out["results"]) == 50 and out["results"][0] == {"ID": "1", "Title": "Issue 1"}
    assert out["pages"] == {"page": 1, "next": True}
    assert query(browse(page, page=2)["url"])["@startwith"] == "50"
    assert query(browse(page, page=3)["url"])["@startwith"] == "100"


def test_arrow_links_under_a_page_of_pages(open_page: OpenPage) -> None:
    page = open_page("lists/page-of.html")
    assert summary(page)["pages"] == {"page": 1, "next": True, "of": 8}
    assert query(browse(page, page=2)["url"]) == {"page": "2"}  # the single arrow
    assert query(browse(page, page=5)["url"]) == {"page": "5"}  # fitted from › (2) and » (8)
    assert "perpage" in marks(page)  # the select of numbers labelled "Rows"
    no_page = browse(page, page=0)
    assert no_page["ok"] is False and "whole number" in no_page["message"]


def test_load_more_pages_answer_only_the_new_rows(open_page: OpenPage) -> None:
    page = open_page("lists/load-more.html")
    out = summary(page)
    assert out["pages"] == {"page": 1, "next": True, "loadMore": True}
    assert marks(page) == ["more"]
    assert browse(page, page=2) == {"ok": True, "clicked": True}
    eventually(lambda: page.page.locator("#feed li").count() == 20, "the second ten posts")
    done = browse(page, page=2)
    assert done == {"ok": True, "done": True, "skip": 10}
    second = summary(page, skip=10)
    assert second["results"][0] == "Post number 11" and len(second["results"]) == 10


def test_banners_and_field_errors(open_page: OpenPage) -> None:
    page = open_page("lists/status.html")
    watch = page.call("watchChanges")
    # the browser's own validation refuses a number below min: its message, for this call only
    page.page.evaluate("""() => { const age = document.getElementById('a'); age.value = '12';
      document.getElementById('profile').requestSubmit(); }""")
    out = page.call("summary", {"token": watch["token"], "results": True})
    errors = {e["field"]: e["message"] for e in out["errors"]}
    assert errors == {
        "age": errors["age"],  # Chromium's words: "Value must be greater than or equal to 18."
        "username": "This field is required.",  # Django's errorlist beside its field
        "user[email]": "Enter a valid email.",  # Bootstrap's invalid-feedback
        "repo": "The name bad! is invalid.",  # aria-invalid: its form's nearest error, not its help text
        "code": "Six digits, please.",  # aria-errormessage
    }
    assert "18" in errors["age"]
    # the success alert and the form's own note; the red "Drop" link is neither
    # the site's own message class ("ok-message") too; a class on every item of a list, a lone count, not
    assert out["status"] == ["Profile saved.", "Please correct the errors below.", "Welcome alice! clear this message"]
    page.page.evaluate("() => { document.getElementById('toast').textContent = 'Copied to clipboard'; }")
    later = page.call("summary", {"token": None})
    assert "Copied to clipboard" in later["status"]
    assert "age" not in {e["field"] for e in later["errors"]}  # an old refusal is not this call's


def test_a_list_longer_than_an_answer_is_read_in_pages_of_a_hundred(open_page: OpenPage) -> None:
    page = open_page("long-list.html")  # 3,000 rows, no pagination
    first = summary(page)
    assert len(first["results"]) == 100 and first["results"][0] == "Row 1 Details 1"
    assert first["pages"] == {"page": 1, "next": True, "shown": "rows 1-100 of 3000"}
    assert "long" in marks(page)  # so browse_list takes a page here too
    assert browse(page, page=2) == {"ok": True, "done": True, "skip": 100}
    second = summary(page, skip=100)
    assert second["results"][0] == "Row 101 Details 101"
    assert second["pages"] == {"page": 2, "next": True, "shown": "rows 101-200 of 3000"}
    last = summary(page, skip=2900)
    assert last["pages"] == {"page": 30, "next": False, "shown": "rows 2901-3000 of 3000"}
    beyond = browse(page, page=31)
    assert beyond["ok"] is False and beyond["message"] == "page 31 does not exist: the list has 30 pages"


def test_an_arrow_that_shows_where_the_header_link_goes(open_page: OpenPage) -> None:
    # ▼ on the column sorted ascending, its link sorting descending: the link and the address say which
    page = open_page("lists/records/", query="_sort=rating")
    assert browse(page, sort="rating", order="ascending")["done"] is True
    assert browse(page, sort="rating")["done"] is True  # sorted by it already
    assert query(browse(page, sort="rating", order="descending")["url"])["_sort_desc"] == "rating"
    # ▲ on the column sorted descending, as the address says
    page = open_page("lists/records/desc.html", query="_sort_desc=rating")
    assert browse(page, sort="rating", order="descending")["done"] is True
    assert query(browse(page, sort="rating", order="ascending")["url"])["_sort"] == "rating"


def test_results_in_definition_lists_by_day_not_the_menu_bar(open_page: OpenPage) -> None:
    # a menu bar of links in a div.nav, a sheet of label/value pairs, an editor's height select, a
    # dl of properties without links: none is the list; the events of the days' lists are, in order,
    # each day's heading before its first event
    page = open_page("lists/days.html")
    out = summary(page)
    assert out["results"] == [
        "11/26/26: Today 18:33 Ticket #43 (Import trims spaces) created by ana",
        "18:20 Ticket #42 (Import skips the header) updated by ben",
        "11/25/26: Yesterday 09:10 Minutes edited by ana",
    ]
    assert "perpage" not in marks(page)
    assert browse(page, per_page=12)["code"] == "ELEMENT_NOT_FOUND"
