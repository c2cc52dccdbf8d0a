"""The description locator (``tabmcp.nl.locate``) on near-duplicate elements: reading a description
(``read``), scoring one element (``score``, on hand-made rows) and deciding on a whole page
(``decide``, on the real agent's locate snapshots of tests/fixtures/pages/nl.html and nl-dupes.html,
recorded in tests/fixtures/snapshots)."""

from __future__ import annotations

import pytest
from tests.unit.nl_fixtures import one, rows

from tabmcp.nl.locate import FOUND_AT, Decision, Purpose, decide, read, score
from tabmcp.nl.page import PageView, Row


def found(page: PageView, description: str, purpose: Purpose = "any") -> Row:
    """The element ``decide`` found, failing with its candidates when it did not find one."""
    decision = decide(page, description, purpose)
    shown = [c.shown() for c in decision.candidates]
    assert decision.outcome == "found", f"{description!r}: {decision.outcome} ({decision.why}) {shown}"
    assert decision.best is not None
    assert decision.confidence >= FOUND_AT
    return decision.best.row


def refs(decision: Decision) -> list[str]:
    return [c.row.ref for c in decision.candidates]


# ----------------------------------------------------------------- read


def test_read_splits_role_words_from_name_words() -> None:
    wanted = read("the login button")
    assert wanted.roles == {"button"}
    assert wanted.words == ("login",)
    assert wanted.role_words == ("button",)
    assert wanted.quoted == "" and wanted.ordinal is None and wanted.ref is None


def test_read_role_phrases_name_several_roles() -> None:
    box = read("the search box")
    assert box.words == ("search",)
    assert {"searchbox", "textbox"} <= box.roles
    assert "button" not in box.roles
    radio = read("the radio button")
    assert radio.roles == {"radio"}  # the longer phrase wins: not a button
    assert radio.words == ()


def test_read_keeps_where_words_out_of_the_roles() -> None:
    wanted = read("the Edit button in the Fix bug row")
    assert wanted.roles == {"button"}  # "row" says where, not what
    assert wanted.words == ("edit", "fix", "bug")


def test_read_a_name_with_a_where_word_and_no_role() -> None:
    assert read("Save for later").words == ("save", "later")


def test_read_quoted_text() -> None:
    wanted = read('the "Save for later" link')
    assert wanted.quoted == "Save for later"
    assert wanted.roles == {"link"}  # the "for" inside the quotes does not end the what-part
    assert wanted.words == ("save", "later")
    assert read("the “Add to cart” button").quoted == "Add to cart"


@pytest.mark.parametrize(
    ("text", "ordinal"),
    [
        ("the second Add to cart button", 2),
        ("the first edit button", 1),
        ("the last edit button", -1),
        ("the 2nd Save button", 2),
        ("the 3rd checkbox", 3),
        ("the tenth row", 10),
        ("the Save button", None),
    ],
)
def test_read_ordinals(text: str, ordinal: int | None) -> None:
    wanted = read(text)
    assert wanted.ordinal == ordinal
    assert not {"second", "first", "last", "2", "3", "nd", "rd"} & set(wanted.words)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("sign in", ("signin",)),
        ("Log in with Google", ("login", "google")),
        ("the log-out link", ("logout",)),
        ("check out", ("checkout",)),
        ("the e-mail field", ("email",)),
    ],
)
def test_read_phrasal_verbs_are_one_word(text: str, words: tuple[str, ...]) -> None:
    assert read(text).words == words


@pytest.mark.parametrize("text", ["e18", " e7 ", "f2e5"])
def test_read_a_ref(text: str) -> None:
    wanted = read(text)
    assert wanted.ref == text.strip()
    assert wanted.words == () and not wanted.roles


def test_read_not_a_ref() -> None:
    assert read("e18 button").ref is None
    assert read("e0").ref is None


# ----------------------------------------------------------------- score, on hand-made rows


def test_input_prefers_editable_roles() -> None:
    field = Row(0, "e1", "searchbox", "Search")
    button = Row(1, "e2", "button", "Search")
    wanted = read("search")
    assert score(field, wanted, "any") == score(button, wanted, "any")
    assert score(field, wanted, "input") > score(button, wanted, "input")
    assert score(button, wanted, "input") == pytest.approx(0.3 * score(button, wanted, "any"))
    assert score(field, wanted, "input") == score(field, wanted, "any")


def test_click_prefers_controls_over_headings() -> None:
    heading = Row(0, "e1", "heading", "Login")
    button = Row(1, "e2", "button", "Login")
    wanted = read("login")
    assert score(heading, wanted, "any") == score(button, wanted, "any")
    assert score(heading, wanted, "click") == pytest.approx(0.75 * score(button, wanted, "click"))


def test_disabled_ranks_lower_for_acting_on() -> None:
    enabled = Row(0, "e1", "button", "Submit")
    disabled = Row(1, "e2", "button", "Submit", states=("disabled",))
    wanted = read("the submit button")
    for purpose in ("click", "hover", "check", "select"):
        assert score(disabled, wanted, purpose) < score(enabled, wanted, purpose), purpose
    field = Row(2, "e3", "textbox", "Name")
    locked = Row(3, "e4", "textbox", "Name", states=("disabled",))
    assert score(locked, read("name"), "input") < score(field, read("name"), "input")


def test_named_role_beats_a_near_role() -> None:
    button = Row(0, "e1", "button", "Login")
    link = Row(1, "e2", "link", "Login")
    heading = Row(2, "e3", "heading", "Login")
    wanted = read("the login button")
    assert score(button, wanted) > score(link, wanted) > score(heading, wanted)


def test_quoted_text_not_in_the_name_halves_the_score() -> None:
    row = Row(0, "e1", "button", "Save")
    plain = score(row, read("the Save all button"))
    assert plain > 0
    assert score(row, read('the "Save all" button')) == pytest.approx(0.5 * plain)


def test_quoted_text_in_the_name_or_hint_adds_to_the_score() -> None:
    row = Row(0, "e1", "button", "Save all")
    assert score(row, read('the "Save all" button')) >= score(row, read("the Save all button"))
    field = Row(1, "e2", "searchbox", "Query", hint="Search products")
    plain = score(field, read("the Search products box"))
    assert score(field, read('the "Search products" box')) == pytest.approx(min(1.0, plain + 0.1))


def test_precision_prefers_the_shorter_name() -> None:
    wanted = read("add to cart")
    exact = Row(0, "e1", "button", "Add to cart")
    longer = Row(1, "e2", "button", "Add to cart and pay now")
    assert score(exact, wanted) > score(longer, wanted)


def test_context_tells_duplicates_apart() -> None:
    wanted = read("Add to cart for the Sauce Labs Onesie")
    onesie = Row(0, "e1", "button", "Add to cart", context="Sauce Labs Onesie $7.99 Add to cart")
    backpack = Row(1, "e2", "button", "Add to cart", context="Sauce Labs Backpack $29.99 Add to cart")
    assert score(onesie, wanted) > score(backpack, wanted)


def test_nothing_said_scores_nothing() -> None:
    assert score(Row(0, "e1", "button", "Save"), read("the")) == 0.0


# ----------------------------------------------------------------- decide: nl.html


def test_the_login_button_is_the_button(shop: PageView) -> None:
    login = one(shop, "button", "Login")
    assert found(shop, "the login button") == login
    assert found(shop, "the login button", "click") == login
    assert found(shop, "sign in", "click") == login


def test_the_login_heading_is_the_heading(shop: PageView) -> None:
    assert found(shop, "the Login heading") == one(shop, "heading", "Login")


def test_log_in_with_google_is_the_link(shop: PageView) -> None:
    google = one(shop, "link", "Log in with Google")
    assert found(shop, "Log in with Google") == google
    assert found(shop, "Log in with Google", "click") == google
    assert found(shop, 'the "Log in with Google" link', "click") == google


@pytest.mark.parametrize(
    ("description", "product"),
    [
        ("Add to cart for the Sauce Labs Onesie", "Sauce Labs Onesie"),
        ("Bike Light add to cart", "Sauce Labs Bike Light"),
        ("Add to cart for the Sauce Labs Backpack", "Sauce Labs Backpack"),
        ("the Onesie's add to cart button", "Sauce Labs Onesie"),
    ],
)
def test_add_to_cart_by_product(shop: PageView, description: str, product: str) -> None:
    assert found(shop, description, "click") == one(shop, "button", "Add to cart", within=product)


def test_the_add_to_cart_button_is_ambiguous(shop: PageView) -> None:
    decision = decide(shop, "the Add to cart button", "click")
    assert decision.outcome == "ambiguous"
    add = rows(shop, "button", "Add to cart")
    assert len(add) == 3
    assert sorted(refs(decision)) == sorted(r.ref for r in add)
    shown = [c.shown() for c in decision.candidates]
    for item, row in zip(shown, sorted(add, key=lambda r: r.index), strict=True):
        assert item["ref"] == row.ref
        assert item["role"] == "button"
        assert item["name"] == "Add to cart"
        assert item["context"] == row.context
    contexts = " | ".join(str(item["context"]) for item in shown)
    for product in ("Sauce Labs Backpack", "Sauce Labs Bike Light", "Sauce Labs Onesie"):
        assert product in contexts


@pytest.mark.parametrize(
    ("description", "row_text"),
    [
        ("the first edit button", "Write docs"),
        ("the second edit button", "Fix bug"),
        ("the last edit button", "Review PR"),
        ("the 3rd edit button", "Review PR"),  # not the row that shows a 3
    ],
)
def test_edit_buttons_by_ordinal(shop: PageView, description: str, row_text: str) -> None:
    assert found(shop, description, "click") == one(shop, "button", "Edit", within=row_text)


def test_add_to_cart_by_ordinal(shop: PageView) -> None:
    bike = one(shop, "button", "Add to cart", within="Bike Light")
    assert found(shop, "the second Add to cart button", "click") == bike
    assert found(shop, "the 2nd Add to cart button", "click") == bike
    onesie = one(shop, "button", "Add to cart", within="Onesie")
    assert found(shop, "the last Add to cart button", "click") == onesie


def test_an_ordinal_past_the_end_is_not_found(shop: PageView) -> None:
    decision = decide(shop, "the fourth edit button", "click")
    assert decision.outcome == "not_found"
    assert "only 3" in decision.why
    assert sorted(refs(decision)) == sorted(r.ref for r in rows(shop, "button", "Edit"))


def test_the_edit_button_in_a_row(shop: PageView) -> None:
    assert found(shop, "the Edit button in the Fix bug row", "click") == one(shop, "button", "Edit", within="Fix bug")


def test_the_search_box_is_the_field_and_search_is_the_button(shop: PageView) -> None:
    box = next(r for r in shop.elements if r.role == "searchbox")
    assert box.hint == "Search products"  # the recording: named "Query", found by its placeholder and role
    assert found(shop, "the search box", "input") == box
    assert found(shop, "the search box", "click") == box
    assert found(shop, "Search", "click") == one(shop, "button", "Search")
    assert found(shop, "Search") == one(shop, "button", "Search")


@pytest.mark.parametrize(
    ("description", "purpose", "role", "name"),
    [
        ("username field", "input", "textbox", "Username"),
        ("the username", "input", "textbox", "Username"),
        ("pasword", "input", "textbox", "Password"),
        ("pasword", "any", "textbox", "Password"),
        ("newsletter checkbox", "check", "checkbox", "Subscribe to newsletter"),
        ("the terms checkbox", "check", "checkbox", "I accept the terms"),
        ("the sort dropdown", "select", "combobox", "Sort by"),
        ("the account menu", "hover", "generic", "Account menu"),
        ("the cart link", "click", "link", "Cart (0)"),
        ("the Load reviews button", "click", "button", "Load reviews"),
        ("the scroll box", "scroll", "region", "Scroll box"),
    ],
)
def test_fields_and_controls(shop: PageView, description: str, purpose: Purpose, role: str, name: str) -> None:
    assert found(shop, description, purpose) == one(shop, role, name)


def test_a_ref_resolves_directly(shop: PageView) -> None:
    onesie = one(shop, "button", "Add to cart", within="Onesie")
    decision = decide(shop, onesie.ref, "click")
    assert decision.outcome == "found"
    assert decision.best is not None and decision.best.row == onesie
    assert decision.confidence == 1.0


def test_an_unknown_ref_is_not_found(shop: PageView) -> None:
    assert shop.by_ref("e999") is None
    decision = decide(shop, "e999", "click")
    assert decision.outcome == "not_found"
    assert decision.candidates == ()
    assert "e999" in decision.why


def test_nothing_like_it_is_not_found(shop: PageView) -> None:
    decision = decide(shop, "the blue elephant", "click")
    assert decision.outcome == "not_found"
    assert decision.confidence < 0.45


def test_a_quoted_text_that_is_not_there_is_not_found(shop: PageView) -> None:
    assert decide(shop, 'the "Sign up" link', "click").outcome == "not_found"


def test_an_empty_description_is_not_found(shop: PageView) -> None:
    decision = decide(shop, "the", "click")
    assert decision.outcome == "not_found"
    assert decision.candidates == ()


# ----------------------------------------------------------------- decide: nl-dupes.html


def test_the_email_field_is_not_confirm_email(settings: PageView) -> None:
    email = one(settings, "textbox", "Email")
    assert found(settings, "the email field", "input") == email
    assert found(settings, "the e-mail field") == email
    assert found(settings, "the confirm email field", "input") == one(settings, "textbox", "Confirm email")


@pytest.mark.parametrize(
    ("description", "section"),
    [
        ("the Save button in the Password section", "Password"),
        ("the Save button in the Profile section", "Profile"),
        ("save the notifications", "Notifications"),
        ("the second Save button", "Password"),
        ("the third Save button", "Notifications"),
    ],
)
def test_save_buttons_by_section(settings: PageView, description: str, section: str) -> None:
    save = one(settings, "button", "Save", within=section)
    assert save.section == section
    assert found(settings, description, "click") == save


def test_the_save_button_is_ambiguous(settings: PageView) -> None:
    saves = rows(settings, "button", "Save")
    assert [r.section for r in saves] == ["Profile", "Password", "Notifications"]
    for description in ("the Save button", 'the "Save" button', "Save"):
        decision = decide(settings, description, "click")
        assert decision.outcome == "ambiguous", description
        assert refs(decision) == [r.ref for r in saves], description


@pytest.mark.parametrize(
    ("description", "role", "name", "address"),
    [
        ("delete the Work address", "link", "Delete", "Work:"),
        ("the Delete link for Home", "link", "Delete", "Home:"),
        ("the Edit link for Work", "link", "Edit", "Work:"),
    ],
)
def test_address_links(settings: PageView, description: str, role: str, name: str, address: str) -> None:
    assert found(settings, description, "click") == one(settings, role, name, within=address)


def test_the_close_button_by_its_label(settings: PageView) -> None:
    close = one(settings, "button", "Close")
    assert close.hint == "Close settings"  # its title, as the recording shows it
    assert found(settings, "the close button", "click") == close
    assert found(settings, "close settings", "click") == close


def test_the_site_search(settings: PageView) -> None:
    box = one(settings, "searchbox", "Search site")
    assert found(settings, "the site search", "input") == box
    assert found(settings, "the site search") == box
    assert found(settings, "Search", "click") == one(settings, "button", "Search")


def test_new_and_current_password(settings: PageView) -> None:
    assert found(settings, "new password", "input") == one(settings, "textbox", "New password")
    assert found(settings, "the current password field", "input") == one(settings, "textbox", "Current password")
    decision = decide(settings, "the password field", "input")
    assert decision.outcome == "ambiguous"
    assert sorted(c.row.name for c in decision.candidates) == ["Current password", "New password"]


def test_submit_order_and_the_disabled_submit(settings: PageView) -> None:
    order = one(settings, "button", "Submit order")
    old = one(settings, "button", "Submit")
    assert old.states == ("disabled",)
    assert found(settings, "Submit order", "click") == order
    # "Submit" names the disabled button exactly and the enabled one in part: not settled silently
    decision = decide(settings, "Submit", "click")
    assert decision.outcome == "ambiguous"
    assert sorted(refs(decision)) == sorted([old.ref, order.ref])


# ----------------------------------------------------------------- hidden duplicates


def test_hidden_duplicates_are_not_in_the_recordings(shop: PageView, settings: PageView) -> None:
    assert len(rows(shop, "button", "Login")) == 1  # the display:none Login button is left out
    assert len(rows(settings, "button", "Save")) == 3  # the visibility:hidden Save is left out
    assert not [r for r in settings.rows if "Delete account" in r.name]
    assert not [r for r in shop.rows if r.name == "Logout"]  # in the closed account menu


SHOP_DESCRIPTIONS = [
    "the login button",
    "Login",
    "the second login button",
    "the last login button",
    "the hidden login button",
    "the logout link",
]
SETTINGS_DESCRIPTIONS = [
    "the Save button",
    "the last Save button",
    "the fourth Save button",
    "Delete account",
    "the delete account button",
    "the Delete button",
]


def test_hidden_duplicates_are_never_candidates(shop: PageView, settings: PageView) -> None:
    login = one(shop, "button", "Login")
    for description in SHOP_DESCRIPTIONS:
        for purpose in ("any", "click"):
            decision = decide(shop, description, purpose)
            for candidate in decision.candidates:
                assert candidate.row.name != "Logout", description
                if candidate.row.role == "button" and candidate.row.name == "Login":
                    assert candidate.row == login, description
    saves = {r.ref for r in rows(settings, "button", "Save")}
    for description in SETTINGS_DESCRIPTIONS:
        for purpose in ("any", "click"):
            decision = decide(settings, description, purpose)
            for candidate in decision.candidates:
                assert "account" not in candidate.row.name.lower(), description
                if candidate.row.name == "Save":
                    assert candidate.row.ref in saves, description


def test_the_last_save_button_is_the_visible_one(settings: PageView) -> None:
    assert found(settings, "the last Save button", "click") == one(settings, "button", "Save", within="Notifications")


def test_a_hidden_button_is_not_replaced_by_a_lookalike(settings: PageView) -> None:
    """Only the hidden "Delete account" button says "account": the address Delete links are not it."""
    decision = decide(settings, "Delete account", "click")
    assert decision.outcome != "found"
    assert all(c.row.name == "Delete" for c in decision.candidates)


def test_a_word_nothing_near_the_best_fit_says_keeps_even_a_lone_match_from_being_found() -> None:
    """One Delete link, and a description that says "account": the link is offered, not clicked."""
    page = PageView.from_snapshot(
        {
            "url": "http://127.0.0.1:8000/one.html",
            "title": "One address",
            "nodes": [
                {"ref": "e1", "role": "heading", "name": "Saved addresses", "states": ["level=2"]},
                {"ref": "e2", "role": "link", "name": "Edit", "context": "Home: 12 Oak Street Edit Delete"},
                {"ref": "e3", "role": "link", "name": "Delete", "context": "Home: 12 Oak Street Edit Delete"},
            ],
        }
    )
    guarded = decide(page, "the Delete account button", "click")
    assert guarded.outcome == "ambiguous" and "'account'" in guarded.why
    assert refs(guarded) == ["e3"]  # offered to pick by ref
    assert found(page, "the Delete link for Home").ref == "e3"  # every word accounted for: found
    assert found(page, "delete the address").ref == "e3"  # "address" is the heading's word


def test_apostrophes_inside_words_do_not_quote() -> None:
    wanted = read("Bob's Edit button in Fix bug's row")
    assert wanted.quoted == "" and wanted.roles == {"button"}
    assert read("the 'Save for later' link").quoted == "Save for later"
