"""The introspector registry on saved captures of Django's admin (tests/fixtures/apps/djadmin, made by
its make_captures.py): a changelist whose one form runs an action on the rows ticked and saves a
column edited in place, and change/add forms titled by the page's heading with a group of rows added
inline (its own heading below the form's first fields)."""

from __future__ import annotations

import pytest
from tests.unit.saved_app import SavedApp

APP = SavedApp("djadmin")
captured, tools_of = APP.captured, APP.tools_of

CHANGELISTS = ["products", "products_search", "products_filtered", "products_sorted"]




@pytest.mark.parametrize("page", CHANGELISTS)
def test_the_action_form_takes_the_action_and_the_rows_not_each_rows_edited_cell(page: str) -> None:
    action = tools_of(page)["run_selected_action"]
    properties = action.schema["properties"]
    assert set(properties) == {"action", "rows"}  # not form-0-stock … form-49-stock
    assert {"delete_selected", "make_inactive"} <= set(properties["action"]["enum"])
    assert action.schema["required"] == ["action"]


@pytest.mark.parametrize(("page", "name"), [("product_change", "change_product"), ("product_add", "add_product")])
def test_a_form_is_named_by_the_page_heading_not_by_its_inline_groups(page: str, name: str) -> None:
    tools = tools_of(page)
    assert "reviews" not in tools  # the heading of the rows added inline, below the form's fields
    form = tools[name]
    properties = form.schema["properties"]
    assert {"name", "supplier", "category", "price", "review_set-0-author"} <= set(properties)
    assert properties["category"]["enum"] == ["tools", "garden", "kitchen", "toys"]


def test_the_login_form() -> None:
    log_in = tools_of("login")["log_in"]
    assert log_in.schema["required"] == ["username", "password"]


@pytest.mark.parametrize("page", CHANGELISTS)
def test_the_changelist_is_browsed_by_its_sortable_columns(page: str) -> None:
    browse = tools_of(page)["browse_list"]
    assert {"NAME", "PRICE", "ADDED"} <= set(browse.schema["properties"]["sort"]["enum"])
    assert "open_row" in tools_of(page)  # the rows, found with their edited column, open the record


@pytest.mark.parametrize("page", CHANGELISTS)
def test_the_filter_sidebar_is_one_argument_per_group(page: str) -> None:
    tool = tools_of(page)["filter_list"]
    properties = tool.schema["properties"]
    assert {"supplier", "category", "active", "added"} <= set(properties)
    assert properties["supplier"]["enum"][:3] == ["All", "Acme", "Borealis"]
    assert properties["added"]["enum"] == ["Any date", "Today", "Past 7 days", "This month", "This year"]
    assert not tool.schema.get("required")
    # each link is found by its text inside its group when the call runs: the links before it reload the page
    targets = {step.target.arg: step.target.selector for step in tool.plan}  # type: ignore[union-attr]
    assert targets["supplier"] == "details[data-filter-title='supplier'] a[href]"
    assert [s.action for s in tool.plan] == ["click"] * len(properties)


def test_the_group_the_page_is_filtered_by_says_which_link_it_shows() -> None:
    properties = tools_of("products_filtered")["filter_list"].schema["properties"]
    assert '"Borealis"' in properties["supplier"]["description"]
    assert '"All"' in properties["category"]["description"]
    # the date drill-down above the list (months of the year chosen), named by the parameter its links set
    assert {"March 2024", "‹ All dates"} <= set(properties["added_month"]["enum"])


def test_the_years_above_the_list_are_a_filter_not_its_pages() -> None:
    tools = tools_of("products")
    assert tools["filter_list"].schema["properties"]["added_year"]["enum"] == ["2023", "2024", "2025"]
    # the pager is the paginator's ?p= links: the years (numbers in a nav setting added__year) are no pages
    marked = captured("products").tree.xpath("//a[@data-tabmcp-list='pager']")
    assert [a.get("href") for a in marked] == ["?p=2", "?p=3", "?p=4", "?p=5", "?p=6"]


@pytest.mark.parametrize("page", ["index", "login", "product_change", "product_add", "product_delete"])
def test_no_filter_tool_without_a_list_to_filter(page: str) -> None:
    assert "filter_list" not in tools_of(page)
