"""extract (every visible match of a selector, as text or as field objects) and watchChanges/summary
(what a page tool's plan did: the changed text, a navigation, the page's main result list)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.agent.conftest import AgentPage, Browser, eventually

OpenPage = Callable[..., AgentPage]

VISIBLE_TITLES = [
    "Red apple", "Green apple", "Banana", "Cherry", "Date", "Elderberry", "Fig", "Grape", "Honeydew", "Kiwi",
    "Lemon", "Mango",
]  # fmt: skip
SHADOW_TITLES = ["Shadow melon", "Shadow nectarine"]


def extract(page: AgentPage, **arg: Any) -> dict[str, Any]:
    return page.call("extract", arg)


def test_extract_text_items_in_document_order_with_shadow_roots(open_page: OpenPage) -> None:
    page = open_page("extract-results.html")
    answer = extract(page, css=".item .title", limit=100)
    assert answer["ok"] is True
    # the hidden item is skipped; the shadow root's items come where their host is
    assert answer["items"] == VISIBLE_TITLES + SHADOW_TITLES

    whole = extract(page, css="#results .item", limit=2)["items"]
    assert whole == ["Red apple 1.20", "Green apple 1.10"]
    assert extract(page, css=".no-such-thing")["items"] == []

    rows = open_page("long-list.html")
    default = extract(rows, css="#rows a")["items"]
    assert default == [f"Row {n}" for n in range(1, 21)]  # the default limit is 20
    assert len(extract(rows, css="#rows a", limit=100)["items"]) == 100


def test_extract_fields_objects(open_page: OpenPage) -> None:
    page = open_page("extract-results.html")
    items = extract(page, css=".item", fields={"name": ".title", "price": ".price"}, limit=100)["items"]
    assert items[0] == {"name": "Red apple", "price": "1.20"}
    assert {"name": "Date", "price": ""} in items  # a field with no match is empty
    assert items[-2:] == [{"name": "Shadow melon", "price": "5.00"}, {"name": "Shadow nectarine", "price": "6.00"}]
    assert "Hidden pear" not in [i["name"] for i in items]


def test_extract_bad_selectors_and_limits(open_page: OpenPage) -> None:
    page = open_page("extract-results.html")
    bad = extract(page, css="li[")
    assert bad["ok"] is False and bad["code"] == "BAD_MESSAGE"
    assert '"li["' in bad["message"] and "not a valid CSS selector" in bad["message"]
    bad_field = extract(page, css=".item", fields={"name": "::nope("})
    assert bad_field["code"] == "BAD_MESSAGE" and 'field "name"' in bad_field["message"]
    assert extract(page, css=".item", limit=0)["code"] == "BAD_MESSAGE"
    assert extract(page, css="")["code"] == "BAD_MESSAGE"


def test_summary_reports_the_text_a_change_added(open_page: OpenPage) -> None:
    page = open_page("extract-plain.html")
    watch = page.call("watchChanges")
    doc_id = page.call("snapshot")["docId"]
    assert watch["ok"] is True and watch["token"].startswith(f"{doc_id}:")
    page.page.click("#save")
    page.page.click("#reveal")
    summary = page.call("summary", {"token": watch["token"], "results": True})
    assert summary["navigated"] is False
    assert summary["changed"] == "Note shown Saved 3 items"  # document order
    assert summary["url"] == page.page.url and summary["title"] == "Extract plain"
    assert summary["text"].startswith("Plain article First paragraph")
    assert "results" not in summary  # paragraphs are not a result list, nor cards of form fields

    # a watch that saw nothing visible happen (typing into a field is not news): no "changed"
    quiet = page.call("watchChanges")
    page.page.fill("#comment", "typing is not news")
    assert "changed" not in page.call("summary", {"token": quiet["token"], "results": False})


def test_summary_waits_for_the_page_to_settle(open_page: OpenPage) -> None:
    page = open_page("extract-plain.html")
    watch = page.call("watchChanges")
    page.page.click("#count")  # adds "Step 1" at once, then a line every 50 ms until "Counting done"
    summary = page.call("summary", {"token": watch["token"], "results": False})
    assert summary["changed"] == "Step 1 Step 2 Step 3 Step 4 Step 5 Counting done"


def test_summary_after_a_navigation(open_page: OpenPage) -> None:
    page = open_page("extract-plain.html")
    watch = page.call("watchChanges")
    page.page.click("#to-results")
    eventually(lambda: page.page.url.split("?")[0].endswith("extract-results.html"), "the results page")
    page.page.wait_for_load_state("load")
    summary = page.call("summary", {"token": watch["token"], "results": True})
    assert summary["navigated"] is True
    assert "changed" not in summary
    assert summary["title"] == "Extract results"
    assert summary["text"].startswith("Products Query Search Showing all products Red apple 1.20")
    # the main list, not the navigation's or the footer's; hidden items skipped, every one shown
    assert summary["results"] == [
        "Red apple 1.20",
        "Green apple 1.10",
        "Banana 0.50",
        "Cherry 3.00",
        "Date",
        "Elderberry 4.50",
        "Fig 2.25",
        "Grape 2.80",
        "Honeydew 3.90",
        "Kiwi 0.70",
        "Lemon 0.40",
        "Mango 1.80",
    ]
    assert "pages" not in summary  # no pagination, and every row fits


def test_summary_results_of_a_table_and_of_card_runs(open_page: OpenPage) -> None:
    page = open_page("extract-plain.html")
    page.page.evaluate("""() => {
      document.querySelector('main').insertAdjacentHTML('beforeend', `
        <table id="flights"><thead><tr><th>Flight</th><th>Price</th></tr></thead>
        <tbody><tr><td>LH 123</td><td>240 EUR</td></tr><tr><td>AF 456</td><td>199 EUR</td></tr></tbody></table>`);
    }""")
    # a table's rows keyed by its column headers
    assert page.call("summary", {"token": None, "results": True})["results"] == [
        {"Flight": "LH 123", "Price": "240 EUR"},
        {"Flight": "AF 456", "Price": "199 EUR"},
    ]
    page.page.evaluate("""() => {
      document.getElementById('flights').remove();
      document.querySelector('main').insertAdjacentHTML('beforeend', `<section>
        <div class="card result"><h3>First card</h3><p>With a longer description of the first card</p></div>
        <div class="card result"><h3>Second card</h3><p>Another description for the second card</p></div>
        <div class="card result" style="display: none"><h3>Hidden card</h3></div>
        <div class="card result"><h3>Third card</h3><p>The third card's description</p></div></section>`);
    }""")
    assert page.call("summary", {"token": None, "results": True})["results"] == [
        "First card With a longer description of the first card",
        "Second card Another description for the second card",
        "Third card The third card's description",
    ]


def test_summary_without_an_argument_is_unchanged(open_page: OpenPage) -> None:
    page = open_page("extract-plain.html")
    summary = page.call("summary")
    assert set(summary) == {"url", "title", "text"}
    assert summary["title"] == "Extract plain" and "First paragraph" in summary["text"]


def test_no_watch_after_the_summary_and_text_only_once(browser: Browser, open_page: OpenPage) -> None:
    page = open_page("extract-plain.html")
    watch = page.call("watchChanges")
    page.page.click("#save")
    first = page.call("summary", {"token": watch["token"], "results": False})
    assert first["changed"] == "Saved 3 items"
    page.page.click("#save")
    # the watch ended with its summary: a second read has nothing to report, and is not navigated
    again = page.call("summary", {"token": watch["token"], "results": False})
    assert again["navigated"] is False and "changed" not in again


def test_summary_text_counts_what_shows_not_a_templates_indentation(open_page: OpenPage) -> None:
    # a record's page whose source is mostly indentation: its values and what follows them are read
    page = open_page("indented-record.html")
    text = page.call("summary", {"token": None})["text"]
    assert "poetry 1975 548 1.5 A mystery story about an orchard, a clock and a mirror." in text
    assert text.endswith("Links from other tables")


def test_summary_waits_for_a_frame_whose_document_has_no_content_yet(open_page: OpenPage) -> None:
    """A frame's new document can be in place before anything is parsed into it (a slow response, a
    document opened to be written): the summary waits for it to load rather than skip it as empty."""
    page = open_page("frame-written.html")
    watch = page.call("watchChanges")
    page.page.click("#open")
    summary = page.call("summary", {"token": watch["token"], "results": False})
    assert summary.get("frames") == ["The message body, written late."], summary
