"""The rows that open something (rowlinks.js) in a real Chromium: the capture marks each row's opener
and writes a selector that finds one opener per row; a row target on that selector opens the row the
text names, whether the row's title is a link or the row is a div the app's script listens to."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.agent.conftest import AgentPage, eventually

OpenPage = Callable[..., AgentPage]


def open_marks(page: AgentPage) -> tuple[str, int]:
    """The selector the capture wrote (`open:<css>`) and how many openers it marked."""
    html = page.call("capture", {})["html"]
    marks: list[str] = page.page.evaluate(
        """(html) => [...new DOMParser().parseFromString(html, 'text/html').querySelectorAll('[data-tabmcp-list]')]
          .map((el) => el.getAttribute('data-tabmcp-list')).filter((m) => m.startsWith('open'))""",
        html,
    )
    first = [m for m in marks if m.startswith("open:")]
    return (first[0].removeprefix("open:") if first else "", len(marks))


def texts(page: AgentPage, css: str) -> list[str]:
    return page.page.evaluate("(css) => [...document.querySelectorAll(css)].map((el) => el.textContent.trim())", css)


def click_row(page: AgentPage, css: str, row: str) -> dict[str, Any]:
    return page.act("click", target={"css": css, "row": row})


def test_result_titles_are_the_openers_not_the_rows_other_links(open_page: OpenPage) -> None:
    page = open_page("lists/results.html")
    css, count = open_marks(page)
    assert count == 3
    assert texts(page, css) == ["Runbook: failover", "Replica setup", "Backups"]  # not "Edit", not the nav
    found = page.call("find", {"target": {"css": css, "row": "replica setup"}})
    assert found["total"] == 1 and found["matches"][0]["name"].startswith("Replica setup")
    # a text in the row's snippet picks it too; one no row shows names the closest rows
    assert page.call("find", {"target": {"css": css, "row": "backed up nightly"}})["total"] == 1
    # the row's parts as an answer lists them, joined by " | ": each part in the row
    joined = "Backups | The replica is backed up nightly."
    assert page.call("find", {"target": {"css": css, "row": joined}})["total"] == 1
    assert page.call("find", {"target": {"css": css, "row": "Backups | how the replica is built"}})["total"] == 0
    miss = click_row(page, css, "Runbook: restore")
    assert miss["ok"] is False and miss["code"] == "ELEMENT_NOT_FOUND"
    assert '"Runbook: failover' in miss["message"]
    many = click_row(page, css, "replica")  # in every row's text, no title says exactly that
    assert many["ok"] is False and many["code"] == "ELEMENT_AMBIGUOUS"
    out = click_row(page, css, "Runbook: failover")
    assert out["ok"] is True and out["navigation"]["url"].endswith("?page=runbook")  # the title's link


def test_rows_a_script_listens_to_open_beside_the_list(open_page: OpenPage) -> None:
    page = open_page("lists/spa-mail.html")
    css, count = open_marks(page)
    assert count == 5  # the rows themselves: no link in them, the hand cursor says they are clicked
    assert len(texts(page, css)) == 5
    many = click_row(page, css, "Contract draft")
    assert many["ok"] is False and many["code"] == "ELEMENT_AMBIGUOUS"
    assert "Contract draft v1042" in many["message"]  # each row named by its own text, not the list's
    assert click_row(page, css, "contract draft v1042")["ok"] is True
    eventually(lambda: page.text("#body") == "The latest draft, with the new terms.", "the message shown")
    # a search that leaves one row: the selector still finds it, and it still opens
    page.page.fill("#q", "lunch")
    eventually(lambda: len(texts(page, css)) == 1, "one row left")
    assert click_row(page, css, "Lunch on Friday?")["ok"] is True
    eventually(lambda: page.text("#subject") == "Lunch on Friday?", "the other message shown")


def test_a_plain_data_table_has_no_openers(open_page: OpenPage) -> None:
    page = open_page("lists/data-table.html")
    assert open_marks(page) == ("", 0)


def test_an_admin_list_opens_by_its_row_header_link(open_page: OpenPage) -> None:
    page = open_page("lists/admin.html")
    css, _ = open_marks(page)
    assert texts(page, css)[:2] == ["user01", "user02"]  # the sort links of the header row are not rows
    assert len(texts(page, css)) == 20


def test_a_table_row_opens_its_own_record_not_a_related_one(open_page: OpenPage) -> None:
    # each row's own page is under the table's address and its link shows only the id; the author
    # column's links (words) go to another table's rows
    page = open_page("lists/records/")
    css, count = open_marks(page)
    assert count == 12
    assert texts(page, css)[:3] == ["1", "2", "3"]
    out = click_row(page, css, "The Book of Things 7")
    assert out["ok"] is True and out["navigation"]["url"].endswith("/lists/records/7")


def test_results_written_as_linked_titles(open_page: OpenPage) -> None:
    page = open_page("lists/title-results.html")
    css, count = open_marks(page)
    assert count == 3
    assert texts(page, css) == ["Runbooks/Database Failover", "Handbook/On-Call", "Home"]  # not the sidebar's
    out = click_row(page, css, "home")  # the title saying exactly that, not "Home" in another row
    assert out["ok"] is True and out["navigation"]["url"].endswith("?page=home")


def test_buttons_of_a_dialog_are_no_rows(open_page: OpenPage) -> None:
    page = open_page("lists/data-table.html")
    page.page.evaluate("""() => document.body.insertAdjacentHTML('beforeend', `<div role=dialog>
      <button type=button>Keep the draft and leave this page now</button>
      <button type=button>Keep editing the draft on this page</button>
      <button type=button>Discard the changes made to this draft</button></div>`)""")
    assert open_marks(page) == ("", 0)
