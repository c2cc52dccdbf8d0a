"""The worked example of docs/introspectors.md, run for real: tests/fixtures/plugins/shop.py loaded
through folder discovery and checked on its saved page; the doc must show these files as they are."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tabmcp.introspect.api import PlanError, resolve_plan
from tabmcp.introspect.registry import Registry
from tabmcp.page.capture import PageCapture
from tabmcp.protocol import Step, Target

ROOT = Path(__file__).resolve().parents[2]
PLUGINS = ROOT / "tests" / "fixtures" / "plugins"
DOC = ROOT / "docs" / "introspectors.md"


# doc-example-test: begin
def test_the_shop_introspector_on_its_saved_page() -> None:
    registry = Registry.discover(PLUGINS)  # the folder a user names with --introspectors-dir
    assert registry.errors == []
    page = PageCapture(
        url="https://shop.acme.test/product/tr2",
        title="Trail Runner 2 – Acme Shop",
        html=(PLUGINS / "shop_product.html").read_text(),
    )

    tools = registry.page_tools(page)

    # the site's tools first; the generic form tool for the buy form is gone (claimed),
    # the generic search and the wishlist button stay
    assert [(t.name, t.source) for t in tools] == [
        ("add_to_cart", "acme_shop"),
        ("read_reviews", "acme_shop"),
        ("search_products", "search"),
        ("add_to_wishlist", "actions"),
    ]
    add_to_cart = tools[0]
    assert add_to_cart.input_schema["required"] == ["size"]
    assert resolve_plan(add_to_cart, {"size": "42", "quantity": 2}) == [
        Step(action="check", target=Target(ref="e13"), value=True),
        Step(action="fill", target=Target(css="#qty"), value="2"),
        Step(action="submit", target=Target(ref="e6")),
        Step(action="wait_for", condition={"text": "Added to cart"}),
        Step(
            action="extract",
            target=Target(css="#cart li"),
            label="cart",
            fields={"item": ".name", "quantity": ".qty"},
            limit=20,
        ),
    ]
# doc-example-test: end


def shop_tools(url: str = "https://shop.acme.test/product/tr2") -> dict[str, object]:
    page = PageCapture(url=url, title="t", html=(PLUGINS / "shop_product.html").read_text())
    return {t.name: t for t in Registry.discover(PLUGINS).page_tools(page)}


def test_the_model_gets_clear_errors_from_the_pydantic_model_and_the_page() -> None:
    add_to_cart = shop_tools()["add_to_cart"]
    with pytest.raises(PlanError, match="quantity: Input should be less than or equal to 10"):
        resolve_plan(add_to_cart, {"size": "42", "quantity": 11})  # type: ignore[arg-type]
    with pytest.raises(PlanError, match=r"size must be one of: 40, 41, 42$"):
        resolve_plan(add_to_cart, {"size": "43"})  # type: ignore[arg-type]  # sold out on this page
    steps = resolve_plan(add_to_cart, {"size": "40"})  # type: ignore[arg-type]
    assert steps[1] == Step(action="fill", target=Target(css="#qty"), value="1")  # the model's default


def test_the_predicate_matches_a_product_page_on_any_url_and_nothing_else() -> None:
    assert "add_to_cart" in shop_tools("http://127.0.0.1:8000/saved.html")
    registry = Registry.discover(PLUGINS)
    gone = "<html><body><h1>Gone</h1></body></html>"
    other = PageCapture(url="https://shop.acme.test/product/x", title="t", html=gone)
    assert registry.page_tools(other) == ()  # URL matches, but the introspector finds no buy form


def doc_block(marker: str) -> str:
    text = DOC.read_text()
    found = re.search(rf"<!-- {re.escape(marker)} -->\n```python\n(.*?)```\n<!-- /{re.escape(marker)} -->", text, re.S)
    assert found, f"docs/introspectors.md has no block marked {marker}"
    return found.group(1)


def test_the_doc_shows_the_example_plugin_as_it_is() -> None:
    assert doc_block("example: tests/fixtures/plugins/shop.py") == (PLUGINS / "shop.py").read_text()


def test_the_doc_shows_the_example_test_as_it_is() -> None:
    source = Path(__file__).read_text()
    test = source.split("# doc-example-test: begin\n")[1].split("# doc-example-test: end\n")[0]
    assert doc_block("example: tests/unit/test_introspect_example.py") == test
