"""PageCapture's lookups, the ones every introspector relies on: the index, visibility, names."""

from __future__ import annotations

from tabmcp.page.capture import PageCapture

PAGE = """<html><body>
<div id="dup" data-tabmcp-ref="e1">first</div><div id="dup">second</div>
<form id="f" action="/s" data-tabmcp-ref="e2">
  <label for="q" data-tabmcp-ref="e3">Query</label><input id="q" name="q" data-tabmcp-ref="e4">
  <input name="elsewhere" form="other" data-tabmcp-ref="e5">
</form>
<label for="q" data-tabmcp-ref="e6">Search words</label>
<select name="late" form="f" aria-labelledby="lab1 lab2" data-tabmcp-ref="e7"></select>
<span id="lab1">Sort</span><span id="lab2">order <i hidden>secret</i><b data-tabmcp-hidden="1">gone</b></span>
<button form="f" aria-label="  Go  " data-tabmcp-ref="e8">x</button>
<section hidden><p id="inside-hidden">text</p></section>
<div data-tabmcp-ref="e9" data-tabmcp-hidden="1"><span id="under-hidden-ref">text</span>
  <a href="/x" data-tabmcp-ref="e10" data-tabmcp-hidden="1">x</a></div>
<div data-tabmcp-ref="e11"><span id="under-shown-ref">text</span></div>
<input type="hidden" name="csrf" data-tabmcp-ref="e12">
</body></html>"""


def test_the_index_finds_the_first_element_per_id_and_each_ref() -> None:
    capture = PageCapture(url="http://x.test/", title="t", html=PAGE)
    assert capture.by_id("dup") is not None and capture.by_id("dup").text == "first"
    assert capture.by_ref("e4") is capture.by_id("q")
    assert capture.by_ref("e99") is None and capture.by_id("nope") is None


def test_form_controls_include_form_attribute_ones_in_document_order() -> None:
    capture = PageCapture(url="http://x.test/", title="t", html=PAGE)
    form = capture.by_id("f")
    assert [c.get("name") for c in capture.controls_of(form)] == ["q", "late"]
    assert capture.form_of(capture.by_ref("e7")) is form
    assert capture.form_of(capture.by_ref("e5")) is None  # names a form that does not exist


def test_labels_and_aria_names() -> None:
    capture = PageCapture(url="http://x.test/", title="t", html=PAGE)
    assert capture.label_for(capture.by_ref("e4")) == "Query; Search words"
    assert capture.aria_name(capture.by_ref("e7")) == "Sort order"  # hidden parts of the label left out
    assert capture.accessible_name(capture.by_ref("e8")) == "Go"


def test_is_hidden_judges_elements_without_a_ref_by_their_nearest_referenced_ancestor() -> None:
    capture = PageCapture(url="http://x.test/", title="t", html=PAGE)
    assert capture.is_hidden(capture.by_id("inside-hidden"))  # inside a hidden attribute
    assert capture.is_hidden(capture.by_id("under-hidden-ref"))
    assert not capture.is_hidden(capture.by_id("under-shown-ref"))
    assert capture.is_hidden(capture.by_ref("e10"))
    assert not capture.is_hidden(capture.by_ref("e11"))
    assert capture.is_hidden(capture.by_ref("e12"))  # <input type=hidden>


def test_by_refs_finds_a_few_refs_without_the_whole_index_and_agrees_with_it() -> None:
    capture = PageCapture(url="http://x.test/", title="t", html=PAGE)
    found = capture.by_refs(["e4", "e1", "e99", ""])
    assert "by_ref" not in capture.index.__dict__  # one pass over the ref attributes, no index
    assert set(found) == {"e1", "e4"} and found["e4"].get("id") == "q"
    assert capture.by_refs(["e1"]) == {"e1": capture.by_ref("e1")}  # the same elements once it is built
    assert capture.by_refs(["e1 e4"]) == {}  # a ref is one token


COMPACT = """<html data-tabmcp-capture="compact"><body>
<form aria-label="Account" data-tabmcp-ref="e1" data-tabmcp-name="Account">
<label for="email" data-tabmcp-ref="e2">Email</label><label for="email" data-tabmcp-ref="e3">work address</label>
<input id="email" name="email" data-tabmcp-ref="e4" data-tabmcp-name="Email work address">
<button class="gone" data-tabmcp-ref="e5" data-tabmcp-hidden="1">Hidden</button>
<button aria-label="Close" data-tabmcp-ref="e7"></button>
<button data-tabmcp-ref="e6" data-tabmcp-name="Save">Save <span>now</span></button></form>
<table data-tabmcp-items="40"><tr><th>Item</th></tr><tr><td>First</td></tr></table></body></html>"""


def test_a_compact_capture_is_named_by_the_agent() -> None:
    capture = PageCapture(url="http://x.test/", title="t", html=COMPACT)
    assert capture.named
    assert capture.label_for(capture.by_ref("e4")) == "Email work address"  # not recomputed from the labels
    assert capture.aria_name(capture.by_ref("e1")) == "Account"
    assert capture.accessible_name(capture.by_ref("e6")) == "Save"  # the agent's name, not the text
    assert capture.accessible_name(capture.by_ref("e5")) == ""  # not rendered: no name
    assert capture.accessible_name(capture.by_ref("e7")) == ""  # the agent found none: not read again
    assert capture.tree.find(".//table").get("data-tabmcp-items") == "40"


TEXT_NAMED = """<?xml version='1.0'?><html data-tabmcp-capture='compact-text'><body>
<form aria-label='Account' data-tabmcp-ref='e1' data-tabmcp-name='Account'>
<label for='email' data-tabmcp-ref='e2'>Email <b>work</b></label>
<input id='email' name='email' data-tabmcp-ref='e3' data-tabmcp-name='Email work'/>
<select name='plan' data-tabmcp-ref='e4' data-tabmcp-name=''><option>A</option></select>
<button data-tabmcp-ref='e5'> Save  <span>now</span> </button>
<button data-tabmcp-ref='e6' data-tabmcp-hidden='1'>Hidden</button>
<a href='/x' data-tabmcp-ref='e7' data-tabmcp-name='Close'>X</a></form>
<nav>Not named</nav></body></html>"""


def test_a_name_the_agent_left_out_is_the_elements_text() -> None:
    capture = PageCapture(url="http://x.test/", title="t", html=TEXT_NAMED)
    by_ref = capture.by_ref
    assert capture.accessible_name(by_ref("e5")) == "Save now"  # no name written: the text, spaces collapsed
    assert capture.label_for(by_ref("e2")) == "Email work"  # a label is named by its text
    assert capture.label_for(by_ref("e4")) == ""  # an empty name is written when the text is not
    assert capture.accessible_name(by_ref("e7")) == "Close"  # a name other than the text is written
    assert capture.label_for(by_ref("e3")) == "Email work" and capture.aria_name(by_ref("e1")) == "Account"
    assert capture.accessible_name(by_ref("e6")) == ""  # not rendered: no name
    assert capture.aria_name(capture.tree.find(".//nav")) == ""  # no ref: the agent names none
    # a capture from before names were left out: a missing name is none
    older = PageCapture(url="http://x.test/", title="t", html=TEXT_NAMED.replace("compact-text", "compact"))
    assert older.accessible_name(older.by_ref("e5")) == ""


def test_the_agents_xml_keeps_the_nesting_the_page_had() -> None:
    # A script can put a form in a form or a div in a p; an HTML parser would move them, the XML
    # the agent writes (it starts with an XML declaration) keeps them where the page had them.
    html = (
        "<?xml version='1.0'?><html data-tabmcp-capture='compact'><body><form id='outer' data-tabmcp-ref='e1'>"
        "<p><div id='in-p'/></p><form id='inner' data-tabmcp-ref='e2'><input name='q' x-on:input='go()'"
        " data-tabmcp-ref='e3' data-tabmcp-name='Query &amp; more'/></form></form></body></html>"
    )
    capture = PageCapture(url="http://x.test/", title="t", html=html)
    assert capture.by_id("in-p").getparent().tag == "p"
    assert capture.by_id("inner").getparent() is capture.by_id("outer")
    query = capture.by_ref("e3")
    assert capture.label_for(query) == "Query & more" and query.get("x-on:input") == "go()"
