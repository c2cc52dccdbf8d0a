"""The page agent's compact capture in a real Chromium (tests/fixtures/pages/capture.html): what it keeps,
what it leaves out, the names it computes, and that its size does not grow with the page's text."""

from __future__ import annotations

import xml.parsers.expat
from collections.abc import Callable
from typing import Any

from tabmcp.page.capture import ITEMS_ATTR, PageCapture
from tests.agent.conftest import AgentPage

OpenPage = Callable[..., AgentPage]


def capture(page: AgentPage, max_chars: int = 1_000_000) -> tuple[dict[str, Any], PageCapture]:
    raw = page.call("capture", {"maxChars": max_chars})
    return raw, PageCapture(url=raw["url"], title=raw["title"], html=raw["html"], truncated=raw["truncated"])


def one(cap: PageCapture, xpath: str) -> Any:
    found = cap.tree.xpath(xpath)
    assert len(found) == 1, (xpath, found)
    return found[0]


def test_the_capture_does_not_grow_with_the_page_text(open_page: OpenPage) -> None:
    plain, _ = capture(open_page("capture.html"))
    wordy_page = open_page("capture.html", "text=200")
    wordy, cap = capture(wordy_page)
    document = wordy_page.page.evaluate("() => document.documentElement.outerHTML.length")
    assert document > 200_000  # the page holds 200 paragraphs of text…
    assert len(wordy["html"]) == len(plain["html"]) < 12_000  # …the capture none of them
    assert "Plain page text" not in wordy["html"] and not wordy["truncated"]
    assert cap.tree.xpath("//div[@id='text'] | //p[not(.//a)]") == []  # nor the elements holding only text
    assert wordy["title"] == "Capture fixture" and wordy["version"]


def test_names_come_from_the_agents_name_code(open_page: OpenPage) -> None:
    _, cap = capture(open_page("capture.html"))
    assert cap.named and cap.tree.get("data-tabmcp-capture") == "compact-text"
    email = one(cap, "//input[@name='email']")
    assert cap.label_for(email) == "Email work address"  # both labels, as assistive technology reads them
    assert cap.label_for(one(cap, "//input[@name='nick']")) == "Nickname"
    assert cap.label_for(one(cap, "//select[@name='sort']")) == "Sort order"
    assert cap.aria_name(one(cap, "//form")) == "Account"
    assert cap.accessible_name(one(cap, "//nav//a")) == "Home"  # an image's alt names its link
    assert one(cap, "//nav//a/img").get("alt") == "Home"
    assert cap.accessible_name(one(cap, "//button[.='Save account']")) == "Save account"
    # a name that is the element's text is left out (the server reads the text); another one is written
    assert one(cap, "//button[.='Save account']").get("data-tabmcp-name") is None
    assert one(cap, "//nav//a").get("data-tabmcp-name") == "Home" and one(cap, "//form").get("data-tabmcp-name")
    long_link = one(cap, "//a[@id='long']")
    assert len(cap.accessible_name(long_link)) == 200 and len(long_link.text) == 200  # both capped


def test_refs_hidden_flags_and_password_values(open_page: OpenPage) -> None:
    page = open_page("capture.html")
    raw, cap = capture(page)
    save = one(cap, "//button[.='Save account']")
    assert cap.ref(save) and not cap.is_hidden(save)
    assert page.ref("Save account", "button") == cap.ref(save)  # the snapshot's refs are the same
    hidden_save = one(cap, "//button[contains(@class, 'gone')]")
    assert cap.is_hidden(hidden_save) and cap.label_for(hidden_save) == ""  # names only for what shows
    assert cap.is_hidden(one(cap, "//a[@href='/secret']"))
    assert cap.is_hidden(one(cap, "//input[@name='csrf']"))
    assert one(cap, "//input[@name='password']").get("value") == "********"
    assert "secret123" not in raw["html"]


def test_tables_and_lists_keep_their_shape_and_a_sample(open_page: OpenPage) -> None:
    _, cap = capture(open_page("capture.html"))
    table = one(cap, "//table[@id='prices']")
    assert table.get(ITEMS_ATTR) == "10"
    assert [" ".join(th.text_content().split()) for th in table.iter("th")] == ["Item", "Price", "Action"]
    text = " ".join(table.text_content().split())
    assert "Item 1 text" in text and "Item 3 text" in text and "Item 4 text" not in text
    assert [b.text for b in table.iter("button")] == [f"Buy {n}" for n in (1, 3, 5, 7, 9)]  # every control
    notes = one(cap, "//ul[@id='notes']")
    assert notes.get(ITEMS_ATTR) == "8" and len(notes) == 3
    assert [li.text for li in notes] == ["Note 1 text", "Note 2 text", "Note 3 text"]
    keyed = one(cap, "//ul[@id='keyed']")  # data-* keys of every item stay, their text only in the sample
    assert [s.get("data-key") for s in keyed.iter("span")] == [f"k{n}" for n in range(1, 7)]
    assert "Keyed 3 text" in keyed.text_content() and "Keyed 4 text" not in keyed.text_content()


def test_text_only_where_it_names_something(open_page: OpenPage) -> None:
    raw, cap = capture(open_page("capture.html"))
    assert one(cap, "//h1").text == "Capture fixture"
    assert one(cap, "//a[@href='/inline']").text == "link in text"
    assert "more words around it" not in raw["html"]  # the paragraph is kept only as the link's parent
    assert [o.text for o in cap.tree.iter("option")] == ["Newest", "Oldest", "Choose…", "Pro", "Medium", "Large"]


def test_open_shadow_roots_and_iframes(open_page: OpenPage) -> None:
    _, cap = capture(open_page("capture.html"))
    host = one(cap, "//shadow-panel")
    assert [e.tag for e in host] == ["h2", "button"]
    assert cap.accessible_name(host[1]) == "Shadow action" and cap.ref(host[1])
    frame = one(cap, "//iframe")
    assert frame.get("title") == "Child frame" and len(frame) == 0  # the frame's document is its own


def test_a_capped_capture_is_well_formed_and_says_so(open_page: OpenPage) -> None:
    raw, cap = capture(open_page("capture.html"), max_chars=1500)
    assert raw["truncated"] and len(raw["html"]) <= 1500
    assert raw["html"].endswith("</html>") and cap.tree.find(".//h1") is not None


ODD_MARKUP = """() => {
  const box = document.createElement('section');
  box.id = 'odd';
  box.innerHTML = `<button x-on:click="go()" @click="go()" :class="{a: 1}" xmlns="http://www.w3.org/1999/xhtml"
    title="it's &quot;quoted&quot; &amp; <b>" data-note="one
two">Odd\\u0001 name</button><button style="visibility: hidden">Invisible</button>
    <x=y><a href="/in-odd-tag">In an odd tag</a></x=y>`;
  box.querySelector('button').append(' \\uD800tail \\uD83D\\uDE00');
  document.body.append(box);
}"""


def test_the_capture_is_well_formed_xml_whatever_the_page_holds(open_page: OpenPage) -> None:
    page = open_page("capture.html")
    page.page.evaluate(ODD_MARKUP)
    raw, cap = capture(page)
    assert raw["html"].startswith("<?xml")
    xml.parsers.expat.ParserCreate().Parse(raw["html"].encode(), True)  # well-formed, strictly
    button = one(cap, "//section[@id='odd']/button[1]")
    assert button.get("x-on:click") == "go()" and button.get("xmlns") is None  # no namespaces
    assert button.get("@click") is None and button.get(":class") is None  # not XML names: left out
    assert button.get("title") == "it's \"quoted\" & <b>" and button.get("data-note") == "one\ntwo"
    assert button.text == "Odd name tail \U0001f600"  # control characters and a lone surrogate dropped
    assert cap.accessible_name(button) == "Odd name tail \U0001f600"
    assert cap.is_hidden(one(cap, "//button[.='Invisible']"))  # visibility: hidden is not rendered either
    link = one(cap, "//section[@id='odd']/tabmcp-element/a")  # a tag name XML cannot hold, renamed
    assert cap.accessible_name(link) == "In an odd tag" and cap.ref(link)


def test_required_fields_the_page_served_filled_are_marked_once(open_page: OpenPage) -> None:
    page = open_page("capture.html")
    _, cap = capture(page)
    served = {el.get("name") for el in cap.tree.xpath("//*[@data-tabmcp-served='1']")}
    # a value as served, a select showing a real option; not an empty field nor a placeholder option
    assert served == {"city", "size"}
    # the user types, and the page copies the value into the attribute (React does): the mark stays as served
    page.page.fill("input[name=zip]", "0150")
    page.page.evaluate("() => document.querySelector('input[name=zip]').setAttribute('value', '0150')")
    page.page.select_option("select[name=plan]", "pro")
    page.page.fill("input[name=city]", "")
    _, again = capture(page)
    assert {el.get("name") for el in again.tree.xpath("//*[@data-tabmcp-served='1']")} == served
    assert one(again, "//input[@name='zip']").get("value") == "0150"  # the live value is still captured
