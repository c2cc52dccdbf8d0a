"""Finding introspector plugins and turning their tools into a valid, small, unshadowed list."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tabmcp.introspect.api import Introspector, PageTool, PlanStep
from tabmcp.introspect.forms import FormIntrospector
from tabmcp.introspect.registry import Registry, unique_name
from tabmcp.page.capture import PageCapture
from tabmcp.protocol import Target
from tabmcp.tools import CATALOG

TOOL_NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
CORE_NAMES = {t.name for t in CATALOG}

GOOD_PLUGIN = """
from tabmcp.introspect.api import Introspector, PageTool, PlanStep
from tabmcp.protocol import Target


class ShopIntrospector(Introspector):
    def tools(self, capture):
        return [
            PageTool(
                name="add_to_cart",
                description="Add the product on this page to the cart",
                input_schema={"type": "object", "properties": {}},
                plan=(PlanStep("click", target=Target(ref="e5")),),
                element_ref="e5",
            )
        ]


INTROSPECTORS = [ShopIntrospector(name="shop", kind="site", url_patterns=["http://shop.test/*"])]
"""
BROKEN_PLUGIN = 'raise RuntimeError("this plugin is broken")\n'
WRONG_TYPE_PLUGIN = """
from tabmcp.introspect.api import Introspector


class Forgot(Introspector):
    pass


INTROSPECTORS = [Forgot]  # the class, not an instance
"""

SEARCH_FORM = """<html><body>
<form action="/search" data-tabmcp-ref="e1">
  <input name="q" aria-label="Search" value="" data-tabmcp-ref="e2">
  <button data-tabmcp-ref="e3">Search</button>
</form>
<form action="/subscribe" method="post" data-tabmcp-ref="e4">
  <input type="email" name="email" aria-label="Email" value="" data-tabmcp-ref="e5">
  <button data-tabmcp-ref="e6">Subscribe</button>
</form>
</body></html>"""


def page_tool(name: str, element_ref: str | None = None) -> PageTool:
    return PageTool(
        name=name,
        description=f"{name} (test)",
        input_schema={"type": "object", "properties": {}},
        plan=(PlanStep("click", target=Target(ref=element_ref or "e99")),),
        element_ref=element_ref,
    )


@dataclass
class Fixed(Introspector):
    """An introspector that returns the tools it was given."""

    given: Sequence[PageTool] = field(default_factory=list)

    def tools(self, capture: PageCapture) -> list[PageTool]:
        return list(self.given)


@dataclass
class Exploding(Introspector):
    def tools(self, capture: PageCapture) -> list[PageTool]:
        raise RuntimeError("boom")


def capture(html: str = "<html><body></body></html>", url: str = "https://site.test/") -> PageCapture:
    return PageCapture(url=url, title="Test", html=html)


def write_plugins(folder: Path) -> None:
    (folder / "shop.py").write_text(textwrap.dedent(GOOD_PLUGIN))
    (folder / "broken.py").write_text(BROKEN_PLUGIN)
    (folder / "wrong_type.py").write_text(textwrap.dedent(WRONG_TYPE_PLUGIN))
    (folder / "notes.txt").write_text("not a python module")


# ----------------------------------------------------------------- discovery


def test_discover_loads_good_plugins_and_reports_broken_ones(tmp_path: Path) -> None:
    write_plugins(tmp_path)
    registry = Registry.discover(tmp_path)

    assert len(registry.errors) == 2, registry.errors
    broken, wrong = sorted(registry.errors)
    assert "broken.py" in broken
    assert "this plugin is broken" in broken
    assert "wrong_type.py" in wrong
    assert "INTROSPECTORS" in wrong

    names = [i.name for i in registry.introspectors]
    assert names[0] == "forms"  # built-in generic introspectors come first
    assert names.count("shop") == 1


def test_a_discovered_plugin_runs_only_on_its_urls(tmp_path: Path) -> None:
    write_plugins(tmp_path)
    registry = Registry.discover(tmp_path)

    on_shop = registry.page_tools(capture(url="http://shop.test/item/42"))
    assert [t.name for t in on_shop] == ["add_to_cart"]
    assert on_shop[0].source == "shop"
    assert registry.page_tools(capture(url="http://elsewhere.test/item/42")) == ()


def test_discover_without_a_folder_has_the_builtin_form_introspector() -> None:
    registry = Registry.discover()
    assert any(isinstance(i, FormIntrospector) for i in registry.introspectors)
    assert registry.errors == []


def test_a_dataclass_plugin_written_in_house_style_loads(tmp_path: Path) -> None:
    # Regression: @dataclass resolves string annotations through sys.modules[cls.__module__], so a
    # plugin file must be registered in sys.modules before it runs (registry._load_file), or a
    # dataclass subclass with a field of its own fails with "'NoneType' has no attribute '__dict__'".
    (tmp_path / "mail.py").write_text(
        textwrap.dedent("""
            from __future__ import annotations

            from dataclasses import dataclass

            from tabmcp.introspect.api import Introspector


            @dataclass
            class MailIntrospector(Introspector):
                folder: str = "inbox"

                def tools(self, capture):
                    return []


            INTROSPECTORS = [MailIntrospector(name="mail", kind="site")]
        """)
    )
    registry = Registry.discover(tmp_path)
    assert registry.errors == []
    assert [i.name for i in registry.introspectors].count("mail") == 1


# ----------------------------------------------------------------- page_tools


def test_a_site_tool_replaces_the_generic_form_tool_for_the_same_element() -> None:
    site = Fixed(name="acme", kind="site", given=[page_tool("search_products", element_ref="e1")])
    registry = Registry([FormIntrospector(), site])

    tools = registry.page_tools(capture(SEARCH_FORM))

    assert [(t.name, t.element_ref, t.source) for t in tools] == [
        ("search_products", "e1", "acme"),  # site tools first, and the search form is theirs
        ("subscribe", "e4", "forms"),  # the generic tool for the other form stays
    ]


def test_without_a_site_tool_the_generic_form_tools_are_listed() -> None:
    tools = Registry([FormIntrospector()]).page_tools(capture(SEARCH_FORM))
    assert [t.name for t in tools] == ["search", "subscribe"]


def test_a_generic_tool_does_not_displace_another_generic_tool() -> None:
    generic = Fixed(name="buttons", kind="generic", given=[page_tool("press_search", element_ref="e1")])
    tools = Registry([FormIntrospector(), generic]).page_tools(capture(SEARCH_FORM))
    assert [t.name for t in tools] == ["search", "subscribe", "press_search"]


def test_tool_names_are_sanitised() -> None:
    long_name = "find_" + "very_" * 11  # 60 characters
    given = [page_tool("Search Flights!"), page_tool("123go"), page_tool(long_name)]
    site = Fixed(name="s", kind="site", given=given)
    names = [t.name for t in Registry([site]).page_tools(capture())]

    assert names[:2] == ["search_flights", "page_123go"]
    assert long_name.startswith(names[2])
    assert len(names[2]) <= 40
    assert all(TOOL_NAME.match(n) for n in names), names


def test_colliding_names_get_numbered() -> None:
    given = [page_tool("search"), page_tool("Search"), page_tool("search!")]
    site = Fixed(name="s", kind="site", given=given)
    assert [t.name for t in Registry([site]).page_tools(capture())] == ["search", "search_2", "search_3"]


def test_page_tools_never_take_a_core_tool_name() -> None:
    html = """<html><body><form action="/tabs" data-tabmcp-ref="e1">
      <input name="filter" aria-label="Filter" value="" data-tabmcp-ref="e2">
      <button data-tabmcp-ref="e3">List tabs</button></form></body></html>"""
    site = Fixed(name="s", kind="site", given=[page_tool("Open Tab"), page_tool("close_tab")])

    tools = Registry([FormIntrospector(), site]).page_tools(capture(html), reserved=CORE_NAMES)

    names = [t.name for t in tools]
    assert len(names) == 3
    assert not set(names) & CORE_NAMES, names
    assert all(TOOL_NAME.match(n) for n in names)
    assert "list_tabs_2" in names  # still recognisable


def test_limit_caps_the_number_of_tools() -> None:
    site = Fixed(name="s", kind="site", given=[page_tool(f"tool_{i}") for i in range(10)])
    tools = Registry([site]).page_tools(capture(), limit=3)
    assert [t.name for t in tools] == ["tool_0", "tool_1", "tool_2"]


def test_an_introspector_that_raises_is_skipped() -> None:
    after = Fixed(name="after", kind="generic", given=[page_tool("still_here")])
    registry = Registry([Exploding(name="bad", kind="site"), FormIntrospector(), after])
    names = [t.name for t in registry.page_tools(capture(SEARCH_FORM))]
    assert names == ["search", "subscribe", "still_here"]


def test_an_introspector_whose_match_raises_is_skipped() -> None:
    class BadMatch(Fixed):
        def matches(self, capture: PageCapture) -> bool:
            raise ValueError("bad pattern")

    registry = Registry([BadMatch(name="bad", given=[page_tool("never")]), Fixed(given=[page_tool("ok")])])
    assert [t.name for t in registry.page_tools(capture())] == ["ok"]


# ----------------------------------------------------------------- unique_name


@pytest.mark.parametrize(
    ("wanted", "expected"),
    [
        ("search_flights", "search_flights"),
        ("Search Flights!", "search_flights"),
        ("  Sign-in / Register  ", "sign_in_register"),
        ("123go", "page_123go"),
        ("", "page_tool"),
        ("!!!", "page_tool"),
    ],
)
def test_unique_name_makes_valid_names(wanted: str, expected: str) -> None:
    assert unique_name(wanted, set()) == expected


def test_unique_name_truncates_to_forty_characters() -> None:
    name = unique_name("x" * 60, set())
    assert name == "x" * 40


def test_unique_name_numbers_collisions_within_forty_characters() -> None:
    taken = {"x" * 40}
    second = unique_name("x" * 60, taken)
    assert second == "x" * 38 + "_2"
    taken.add(second)
    assert unique_name("x" * 60, taken) == "x" * 38 + "_3"


def test_unique_name_skips_taken_numbers() -> None:
    assert unique_name("search", {"search", "search_2", "search_3"}) == "search_4"


@pytest.mark.parametrize("wanted", ["a" * 39 + "_b", "_" * 50, "9" * 45, "a-" * 30, "Ä" * 10, "tab\n\tname"])
def test_unique_name_is_always_valid_even_when_colliding(wanted: str) -> None:
    taken: set[str] = set()
    for _ in range(12):
        name = unique_name(wanted, taken)
        assert TOOL_NAME.match(name), name
        assert name not in taken
        taken.add(name)
