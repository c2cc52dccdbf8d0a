"""A list with one row keeps the tool it has with two: a row's own form that carries the row's key is
a row tool even alone (rows.row_forms), so adding the second row sends no list_changed. Over the saved
capture of Roundup's issue page (one message, its "remove" form) and the same table grown a row."""

from __future__ import annotations

import json

from bench.apps.capture import saved_captures

from tabmcp.introspect.api import PageTool
from tabmcp.introspect.registry import Registry
from tabmcp.introspect.rows import ROW_ARG
from tabmcp.page.capture import PageCapture

MESSAGE = """<tr><th><a href="msg{n}" data-tabmcp-ref="m{n}a">msg{n} (view)</a></th><th>Author: {who}</th>
<th><form method="POST" action="issue1" data-tabmcp-ref="m{n}f">
<input type="hidden" name="@remove@messages" value="{n}" data-tabmcp-ref="m{n}h" data-tabmcp-hidden="1"/>
<input type="hidden" name="@csrf" value="X_Y7PGgUvq" data-tabmcp-ref="m{n}c" data-tabmcp-hidden="1"/>
<input type="submit" value="remove" data-tabmcp-ref="m{n}s" data-tabmcp-name="remove"/></form></th></tr>
<tr><td colspan="3">Text of message {n}</td></tr>"""


def listed(tools: tuple[PageTool, ...]) -> list[tuple[str, str | None, str, str]]:
    return [(t.name, t.title, t.description, json.dumps(t.input_schema, sort_keys=True)) for t in tools]


def messages(*who: str) -> tuple[PageTool, ...]:
    rows = "".join(MESSAGE.format(n=n, who=w) for n, w in enumerate(who, 1))
    head = "<tr><th colspan='3'>Messages</th></tr>"
    html = f"<html><body><table class='messages'><tbody>{head}{rows}</tbody></table></body></html>"
    return Registry.discover().page_tools(PageCapture(url="https://tracker.test/issue1", title="t", html=html))


def test_one_message_and_two_have_the_same_remove_tool() -> None:
    one, two = messages("bob"), messages("bob", "alice")
    assert listed(one) == listed(two)
    remove = one[0]
    assert remove.name == "remove" and list(remove.input_schema["properties"]) == [ROW_ARG]


def test_roundup_issue_page_with_one_message_lists_remove_by_row() -> None:
    capture = saved_captures("roundup")["issue"]
    tools = {t.name: t for t in Registry.discover().page_tools(capture)}
    assert list(tools["remove"].input_schema["properties"]) == [ROW_ARG]
    assert tools["remove"].input_schema["required"] == [ROW_ARG]


def test_a_lone_form_without_the_row_key_stays_a_plain_form() -> None:
    html = """<html><body><table><tr><td>Signed in as bob</td><td><form method="POST" action="/logout"
      data-tabmcp-ref="e1"><input type="hidden" name="csrf" value="a1b2" data-tabmcp-ref="e2" data-tabmcp-hidden="1"/>
      <button data-tabmcp-ref="e3" data-tabmcp-name="Log out">Log out</button></form></td></tr></table></body></html>"""
    tools = Registry.discover().page_tools(PageCapture(url="https://app.test/", title="t", html=html))
    assert [(t.name, t.input_schema["properties"]) for t in tools] == [("log_out", {})]
