"""The generic search introspector: search boxes become search(query)."""

from __future__ import annotations

from tabmcp.introspect.api import Arg, Fmt, PageTool, PlanStep, ToolHints, resolve_plan
from tabmcp.introspect.registry import Registry
from tabmcp.introspect.search import SearchIntrospector
from tabmcp.page.capture import PageCapture
from tabmcp.protocol import Step, Target


def capture(body: str, url: str = "https://mail.example.test/inbox") -> PageCapture:
    return PageCapture(url=url, title="Test page", html=f"<html><head></head><body>{body}</body></html>")


def search_tools(body: str) -> list[PageTool]:
    return SearchIntrospector().tools(capture(body))


# src/tabmcp/demo/sites/mail.html's header as the agent serialises it
MAIL_SEARCH = """<header><form role="search" action="mail.html" method="get" aria-label="Search mail"
  data-tabmcp-ref="e1"><input type="search" name="q" aria-label="Search mail" placeholder="Search mail" value=""
  data-tabmcp-ref="e2"><button data-tabmcp-ref="e3">Search</button></form></header>"""


def test_a_search_form_becomes_search_query() -> None:
    (tool,) = search_tools(MAIL_SEARCH)
    assert tool.name == "search_mail"  # what its label says it searches
    assert tool.title == "Search mail"
    assert tool.input_schema == {
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "minLength": 1,
                "description": 'What to search for (the page\'s search box "Search mail")',
            }
        },
        "required": ["query"],
        "additionalProperties": False,
    }
    assert tool.plan == (
        PlanStep("fill", target=Target(ref="e2"), value=Arg("query")),
        PlanStep("submit", target=Target(ref="e1")),
    )
    assert tool.hints == ToolHints(read_only=True, idempotent=True)
    assert tool.element_ref == "e1"
    assert 'mail.example.test\'s search box "Search mail"' in tool.description
    assert "untrusted" in tool.description


def test_the_search_tool_wins_the_form_over_the_form_introspector() -> None:
    tools = Registry.discover().page_tools(capture(MAIL_SEARCH))
    assert [(t.name, t.source) for t in tools] == [("search_mail", "search")]
    assert resolve_plan(tools[0], {"query": "invoice"}) == [
        Step(action="fill", target=Target(ref="e2"), value="invoice"),
        Step(action="submit", target=Target(ref="e1")),
    ]


def test_a_type_search_input_without_a_form_presses_enter() -> None:
    (tool,) = search_tools('<div><input type="search" placeholder="Filter repositories" data-tabmcp-ref="e1"></div>')
    assert tool.plan == (
        PlanStep("fill", target=Target(ref="e1"), value=Arg("query")),
        PlanStep("press", target=Target(ref="e1"), key="Enter"),
    )
    assert tool.element_ref == "e1"
    assert tool.title == "Filter repositories"  # the label says what the box does


def test_the_common_q_input_is_a_search_box() -> None:
    body = '<form action="/s" data-tabmcp-ref="e1"><input name="q" title="Find docs" data-tabmcp-ref="e2"></form>'
    (tool,) = search_tools(body)
    assert tool.plan[0].target == Target(ref="e2")
    assert tool.element_ref == "e1"


def test_a_q_textarea_is_a_search_box_too() -> None:
    body = """<form action="/search" method="GET" data-tabmcp-ref="e1">
      <textarea name="q" role="combobox" title="Search" data-tabmcp-ref="e2"></textarea></form>"""
    (tool,) = search_tools(body)
    assert tool.plan == (
        PlanStep("fill", target=Target(ref="e2"), value=Arg("query")),
        PlanStep("submit", target=Target(ref="e1")),
    )


def test_a_search_landmark_without_a_form_claims_the_landmark() -> None:
    body = """<div role="search" aria-label="Site search" data-tabmcp-ref="e1">
      <input type="text" data-tabmcp-ref="e2"><button data-tabmcp-ref="e3">Go</button></div>"""
    (tool,) = search_tools(body)
    assert tool.element_ref == "e1"  # the Go button inside is not listed again as an action
    assert tool.title == "Search: Site search"
    assert [t.name for t in Registry.discover().page_tools(capture(body))] == ["search"]


def test_a_landmark_prefers_the_search_input_over_other_text_inputs() -> None:
    body = """<search><form action="/s" data-tabmcp-ref="e1"><input name="scope" value="all" data-tabmcp-ref="e2">
      <input type="search" name="term" data-tabmcp-ref="e3"></form></search>"""
    (tool,) = search_tools(body)
    assert tool.plan[0].target == Target(ref="e3")
    assert tool.input_schema["properties"]["scope"] == {"type": "string"}  # the form's other field, optional
    assert tool.input_schema["required"] == ["query"]


def test_other_fields_of_the_search_form_are_optional_arguments() -> None:
    body = """<form role="search" action="/search" data-tabmcp-ref="e1">
      <input type="search" name="q" aria-label="Search code" data-tabmcp-ref="e2">
      <select name="type" aria-label="Type" data-tabmcp-ref="e3"><option value="code">Code</option>
        <option value="issues">Issues</option></select>
      <input name="query" aria-label="Clashing name" data-tabmcp-ref="e4"></form>"""
    (tool,) = search_tools(body)
    assert list(tool.input_schema["properties"]) == ["query", "type", "query_2"]
    assert resolve_plan(tool, {"query": "parser", "type": "issues"}) == [
        Step(action="fill", target=Target(ref="e2"), value="parser"),
        Step(action="select", target=Target(ref="e3"), value="issues"),
        Step(action="submit", target=Target(ref="e1")),
    ]


def test_a_second_search_box_is_named_for_what_it_searches() -> None:
    body = MAIL_SEARCH + """<aside><form action="/help" data-tabmcp-ref="e10">
      <input type="search" aria-label="Search help articles" data-tabmcp-ref="e11"></form></aside>"""
    tools = search_tools(body)
    assert [t.name for t in tools] == ["search_mail", "search_help_articles"]
    assert [t.rank for t in tools] == [10, 11]


def test_hidden_disabled_readonly_and_unreferenced_boxes_are_skipped() -> None:
    body = """<input type="search" data-tabmcp-ref="e1" data-tabmcp-hidden="1">
      <input type="search" disabled="" data-tabmcp-ref="e2"><input type="search" readonly="" data-tabmcp-ref="e3">
      <input type="search"><input type="checkbox" name="q" data-tabmcp-ref="e4">"""
    assert search_tools(body) == []


def test_a_webmcp_declared_search_form_is_the_pages_own_tool() -> None:
    declared = '<form toolname="search_mail" tooldescription="Search" role="search"'
    body = MAIL_SEARCH.replace('<form role="search"', declared)
    assert search_tools(body) == []


def test_without_a_label_the_description_names_the_site() -> None:
    (tool,) = search_tools('<input type="search" data-tabmcp-ref="e1">')
    assert tool.title == "Search"
    assert tool.input_schema["properties"]["query"]["description"] == "What to search for"
    assert tool.description.startswith("Search with mail.example.test's search box: ")


# ----------------------------------------------------------------- live searches


def test_a_form_that_sends_nothing_is_a_live_search() -> None:
    # a docs site's search: no action, no submit button; the page shows results as the query is typed
    html = """<div role="dialog"><div role="search"><form name="search" data-tabmcp-ref="e1">
      <input type="text" name="query" aria-label="Search" placeholder="Search" data-tabmcp-ref="e2"></form>
      <div class="output"></div></div></div>"""
    (tool,) = search_tools(html)
    assert tool.plan == (
        PlanStep("fill", target=Target(ref="e2"), value=Arg("query")),
        PlanStep("results", target=Target(ref="e2"), value=Fmt("{result}"), key="Enter"),
    )
    assert set(tool.input_schema["properties"]) == {"query", "result"}
    assert tool.input_schema["required"] == ["query"]
    assert "as it is typed" in tool.description and "opens the one" in tool.description
    listed = resolve_plan(tool, {"query": "bandwidth"})
    assert listed[1] == Step(action="results", target=Target(ref="e2"), value="", key="Enter")
    opened = resolve_plan(tool, {"query": "bandwidth", "result": "Configuration"})
    assert opened[1].value == "Configuration"


def test_a_box_naming_the_listbox_it_fills_is_live_and_a_form_that_sends_is_not() -> None:
    listbox = """<input type="search" aria-label="Jump to a page" role="combobox" aria-controls="pages"
      data-tabmcp-ref="e1"><ul id="pages" role="listbox"></ul>"""
    (tool,) = search_tools(listbox)
    assert [s.action for s in tool.plan] == ["fill", "results"]
    # the box names nothing that is on the page: Enter, as before
    (alone,) = search_tools(listbox.replace('id="pages"', 'id="other"'))
    assert [s.action for s in alone.plan] == ["fill", "press"]
    # an autocomplete in a form without an action, beside a submit button the library handles itself
    autocomplete = f'<form role="search" data-tabmcp-ref="f1">{listbox}<button data-tabmcp-ref="b1">Go</button></form>'
    (tool,) = search_tools(autocomplete)
    assert [s.action for s in tool.plan] == ["fill", "results"]
    # Algolia Autocomplete: an ARIA 1.1 combobox around the box, naming its listbox only while open, the
    # box labelled by the label that holds the submit button
    algolia = """<form role="search" action="" data-tabmcp-ref="f1"><div role="combobox" aria-haspopup="listbox"
      aria-expanded="false"><label id="l1"><button type="submit" data-tabmcp-ref="b1">Submit</button></label>
      <input type="search" aria-labelledby="l1" placeholder="Search the guides" data-tabmcp-ref="e1"></div></form>"""
    (tool,) = search_tools(algolia)
    assert [s.action for s in tool.plan] == ["fill", "results"] and tool.name == "search_guides"
    # outside a search landmark, a combobox (Choices.js, Tom Select in a form) holds a field of its own
    assert search_tools(algolia.replace('role="search" ', "")) == []
    # an ARIA combobox that names its listbox only while it is open
    closed = autocomplete.replace('aria-controls="pages"', 'aria-autocomplete="both" aria-haspopup="listbox"')
    (tool,) = search_tools(closed)
    assert [s.action for s in tool.plan] == ["fill", "results"]
    # a form that is sent somewhere: its results are the page it is sent to, even with suggestions
    (sent,) = search_tools(autocomplete.replace('role="search"', 'role="search" action="/search"'))
    assert [s.action for s in sent.plan] == ["fill", "submit"]
    (plain,) = search_tools(MAIL_SEARCH)
    assert "result" not in plain.input_schema["properties"]
    # a form without an action but with its own submit button: the page's script takes the submit
    (button,) = search_tools(MAIL_SEARCH.replace('action="mail.html" ', ""))
    assert [s.action for s in button.plan] == ["fill", "submit"]
