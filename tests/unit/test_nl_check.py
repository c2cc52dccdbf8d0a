"""``ai_assert`` / ``ai_wait_for`` without a model (``tabmcp.nl.check``): assertions settled from the
real agent's locate snapshot of tests/fixtures/pages/nl.html (recorded in tests/fixtures/snapshots),
passed or failed with the evidence the page shows, and ``unknown`` (left to the model) whenever the
page does not say it plainly."""

from __future__ import annotations

import pytest
from tests.unit.nl_fixtures import one

from tabmcp.nl.check import EVIDENCE_MAX, Verdict, check
from tabmcp.nl.page import PageView


def verdict(page: PageView, assertion: str, status: str) -> Verdict:
    found = check(page, assertion)
    assert found.status == status, f"{assertion!r}: {found}"
    assert found.passed is (status == "passed")
    assert len(found.evidence) <= EVIDENCE_MAX
    return found


# ----------------------------------------------------------------- a value next to a name


def test_a_price_on_a_card(shop: PageView) -> None:
    held = verdict(shop, "the price of Sauce Labs Onesie is 7.99", "passed")
    assert "Sauce Labs Onesie" in held.evidence and "$7.99" in held.evidence
    assert "Backpack" not in held.evidence
    verdict(shop, "the price of Sauce Labs Onesie is $7.99", "passed")
    wrong = verdict(shop, "the price of Sauce Labs Onesie is $8.99", "failed")
    assert "$7.99" in wrong.evidence  # what the page shows instead
    verdict(shop, "the price of Bike Light is 9.99", "passed")
    verdict(shop, "the price of Bike Light is 7.99", "failed")


def test_a_price_that_several_cards_name_is_not_guessed(shop: PageView) -> None:
    """All three cards say "Sauce Labs": no one card's price settles it."""
    verdict(shop, "the price of Sauce Labs is 9.99", "unknown")


def test_a_cell_next_to_a_row_name(shop: PageView) -> None:
    held = verdict(shop, "the owner of Fix bug is Bob", "passed")
    assert "'Fix bug'" in held.evidence and "'Owner'" in held.evidence and "'Bob'" in held.evidence
    wrong = verdict(shop, "the owner of Fix bug is Ann", "failed")
    assert "'Bob'" in wrong.evidence
    verdict(shop, "the hours of Review PR is 1.5", "passed")
    verdict(shop, "the hours for Write docs should be 4", "failed")


# ----------------------------------------------------------------- text on the page


def test_quoted_text_shown(shop: PageView) -> None:
    held = verdict(shop, 'the page shows "Cart: empty"', "passed")
    assert "Cart: empty" in held.evidence
    verdict(shop, '"Cart: empty" is visible', "passed")
    verdict(shop, "the page contains “Log in with Google”", "passed")


def test_quoted_text_absent_fails(shop: PageView) -> None:
    failed = verdict(shop, 'the page shows "Logged in"', "failed")
    assert "'Logged in'" in failed.evidence
    assert "it shows: Home Cart (0) Query Search" in failed.evidence  # what the page shows instead…
    assert failed.evidence.endswith("…")  # …cut to the evidence size


def test_unquoted_text_absent_is_for_the_model(shop: PageView) -> None:
    assert check(shop, "the login error is shown") == Verdict("unknown")
    assert check(shop, "a welcome message appears") == Verdict("unknown")


def test_unquoted_text_present_passes(shop: PageView) -> None:
    verdict(shop, "Cart: empty is shown", "passed")


def test_text_not_on_the_page(shop: PageView) -> None:
    held = verdict(shop, 'the page does not contain "Error"', "passed")
    assert "'Error'" in held.evidence
    failed = verdict(shop, 'the page does not contain "Cart: empty"', "failed")
    assert "Cart: empty" in failed.evidence
    verdict(shop, '"Logged in" is not visible', "passed")
    verdict(shop, '"Logout" is not shown', "passed")  # in the closed account menu


def test_waiting_for_text_that_is_not_there_yet(shop: PageView) -> None:
    failed = verdict(shop, '"3 reviews loaded" to appear', "failed")
    assert "'3 reviews loaded'" in failed.evidence
    verdict(shop, '"3 reviews loaded" appears', "failed")
    verdict(shop, '"Cart: empty" to disappear', "failed")


# ----------------------------------------------------------------- the title


@pytest.mark.parametrize(
    ("assertion", "status"),
    [
        ("the title is Swag Shop", "passed"),
        ('the title is "Swag Shop"', "passed"),
        ("the page title is swag shop", "passed"),
        ("the title is Shop", "failed"),
        ("the page title contains Shop", "passed"),
        ("the title contains Cart", "failed"),
        ("the title contains Sw", "failed"),  # whole words
    ],
)
def test_title(shop: PageView, assertion: str, status: str) -> None:
    assert verdict(shop, assertion, status).evidence == "the title is 'Swag Shop'"


# ----------------------------------------------------------------- counts


@pytest.mark.parametrize(
    ("assertion", "status"),
    [
        ("there are 3 todo items", "passed"),
        ("there are 4 todo items", "failed"),
        ("the todo list has 3 items", "passed"),
        ("the todo list has 2 items", "failed"),
        ("there are 3 tasks", "passed"),
    ],
)
def test_counts(shop: PageView, assertion: str, status: str) -> None:
    assert verdict(shop, assertion, status).evidence.endswith("has 3 items")


def test_a_count_of_nothing_named_is_for_the_model(shop: PageView) -> None:
    verdict(shop, "there are 3 reviews", "unknown")


# ----------------------------------------------------------------- states and values of elements


def test_checkbox_states(shop: PageView) -> None:
    news = one(shop, "checkbox", "Subscribe to newsletter")
    failed = verdict(shop, "the newsletter checkbox is checked", "failed")
    assert failed.evidence == f'{news.ref} checkbox "Subscribe to newsletter" [unchecked]'
    verdict(shop, "the newsletter checkbox is unchecked", "passed")
    verdict(shop, "the terms checkbox is not checked", "passed")


def test_enabled_and_disabled(shop: PageView, settings: PageView) -> None:
    login = one(shop, "button", "Login")
    held = verdict(shop, "the login button is enabled", "passed")
    assert held.evidence.startswith(f'{login.ref} button "Login"')
    verdict(shop, "the login button is disabled", "failed")
    verdict(settings, "the Submit order button is enabled", "passed")
    verdict(settings, "the Submit order button is disabled", "failed")


def test_a_state_of_an_ambiguous_element_is_for_the_model(settings: PageView) -> None:
    verdict(settings, "the Save button is enabled", "unknown")  # three Save buttons


def test_field_values(shop: PageView) -> None:
    user = one(shop, "textbox", "Username")
    held = verdict(shop, "the username field is empty", "passed")
    assert held.evidence == f'{user.ref} textbox "Username"'
    failed = verdict(shop, 'the username field is "bob"', "failed")
    assert "''" in failed.evidence
    verdict(shop, "the sort dropdown is Name (A to Z)", "passed")
    verdict(shop, 'the sort dropdown is "Price (low to high)"', "failed")


# ----------------------------------------------------------------- judgement


@pytest.mark.parametrize(
    "assertion", ["the page looks like a shop", "the products are sorted by price", "the user is logged in", ""]
)
def test_judgement_is_for_the_model(shop: PageView, assertion: str) -> None:
    assert check(shop, assertion) == Verdict("unknown")


def test_a_container_name_is_not_read_twice_and_amounts_may_carry_their_unit(shop: PageView) -> None:
    """A cell named "Edit" holds the button "Edit": the page shows "Edit" once per row, not "Edit Edit"."""
    verdict(shop, 'the page shows "Edit Edit"', "failed")
    verdict(shop, 'the page shows "Fix bug Bob 5 Edit"', "passed")
    verdict(shop, "the price of Sauce Labs Onesie is 7.99 dollars", "passed")
    verdict(shop, "the price of Sauce Labs Onesie is 8 dollars", "failed")
