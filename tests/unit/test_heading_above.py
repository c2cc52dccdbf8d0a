"""The heading above a control, read through the capture's per-container scan: sibling forms share it and
get what a walk of their own siblings gives, within the same budget."""

from __future__ import annotations

from tabmcp.introspect.purpose import MAX_WALK, heading_above
from tabmcp.page.capture import PageCapture


def _capture(body: str) -> PageCapture:
    return PageCapture("http://127.0.0.1/", "", f"<html><body><main>{body}</main></body></html>")


def test_sibling_forms_share_the_scan_and_each_gets_its_own_section() -> None:
    body = (
        "<h1>Account</h1><form id='a'><input name='x'></form>"
        "<section><h3>Card title</h3><h2>Billing</h2></section><form id='b'><input name='y'></form>"
        "<div><h2>Shipping</h2></div><!-- a comment --><p>text</p><form id='c'><input name='z'></form>"
    )
    capture = _capture(body)
    found = {f.get("id"): heading_above(f, capture=capture) for f in capture.tree.iter("form")}
    # the highest-ranked heading before each form wins; of equal rank, the nearest
    assert found == {"a": "Account", "b": "Account", "c": "Account"}
    inner = _capture(
        "<div><h2>Billing</h2><h3>Card</h3><form id='b'></form></div><h2>Shipping</h2><form id='c'></form>"
    )
    found = {f.get("id"): heading_above(f, capture=inner) for f in inner.tree.iter("form")}
    assert found == {"b": "Billing", "c": "Shipping"}
    assert len(inner.memo("heading_above")) == 2  # one scan per container, shared by later walks


def test_the_budget_is_the_same_with_the_shared_scan() -> None:
    # a heading beyond MAX_WALK siblings is out of reach; one just inside it is found
    filler = "<p>x</p>" * (MAX_WALK - 2)
    near = _capture(f"<h2>Orders</h2>{filler}<form id='f'></form>")
    far = _capture(f"<h2>Orders</h2><p>x</p>{filler}<form id='f'></form>")
    for capture, expected in ((near, "Orders"), (far, "")):
        form = next(capture.tree.iter("form"))
        assert heading_above(form, capture=capture) == expected
        assert heading_above(form) == expected
    # headings inside a sibling cost the budget too: two of them push the section's heading out of reach
    costly = _capture(f"<h2>Orders</h2><div><h4>a</h4><h4>b</h4></div>{filler[:-16]}<form id='f'></form>")
    form = next(costly.tree.iter("form"))
    assert heading_above(form, capture=costly) == heading_above(form) == "a"
