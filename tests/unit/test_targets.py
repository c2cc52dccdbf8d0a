"""The target string that names an element in interact, wait_for and screenshot (tools/targets.py)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from tabmcp.server import _validation_message
from tabmcp.tools.act import InteractArgs
from tabmcp.tools.targets import MAX_SHOWN, MAX_TARGET, Target, parse_target

EVERY_FORM = ("snapshot ref (e12", "css=<selector>", "role=<role>[name=<name>]", "role=button[name=Save]")


@pytest.mark.parametrize(
    ("raw", "wire"),
    [
        ("e12", {"ref": "e12"}),
        ("f1e3", {"ref": "f1e3"}),
        ("  E5 ", {"ref": "e5"}),
        ("ref=e3", {"ref": "e3"}),
        ("css=#save", {"css": "#save"}),
        ("css=form button[type=submit]", {"css": "form button[type=submit]"}),
        ("css = .a > .b", {"css": ".a > .b"}),
        ("role=button", {"role": "button"}),
        ("role=button[name=Save]", {"role": "button", "name": "Save"}),
        ("role=Button[name = Save draft ]", {"role": "button", "name": "Save draft"}),
        ('role=link[name="Go to target"]', {"role": "link", "name": "Go to target"}),
        ("role=link[name='It''s']", {"role": "link", "name": "It''s"}),
        ("role=button[name=a]b]", {"role": "button", "name": "a]b"}),
        ("ROLE=textbox[name=Email]", {"role": "textbox", "name": "Email"}),
    ],
)
def test_each_form_parses_to_what_the_drivers_take(raw: str, wire: dict[str, str]) -> None:
    assert parse_target(raw).wire() == wire


def test_a_target_shows_itself_in_the_accepted_form() -> None:
    assert str(parse_target(" E5")) == "e5"
    assert str(parse_target("css=#x")) == "css=#x"
    assert str(parse_target('role=button[name="Save"]')) == "role=button[name=Save]"
    assert str(Target(role="link")) == "role=link"
    assert str(Target(css="x" * 500)).endswith("…") and len(str(Target(css="x" * 500))) < 80


@pytest.mark.parametrize(
    ("raw", "said"),
    [
        ("", "target is empty"),
        ("   ", "target is empty"),
        ("e", '"e" is not a target'),
        ("e0", '"e0" is not a target'),
        ("f1", '"f1" is not a target'),
        ("Save", '"Save" is not a target'),
        ("xpath=//a", "unknown target form xpath="),
        ("text=Hello", "unknown target form text="),
        ("ref=save", "unknown target form ref=|is not a target"),
    ],
)
def test_a_bad_target_names_every_accepted_form(raw: str, said: str) -> None:
    with pytest.raises(ValueError, match=said) as info:
        parse_target(raw)
    assert all(form in str(info.value) for form in EVERY_FORM)


def test_an_empty_css_or_role_says_what_goes_after_it() -> None:
    with pytest.raises(ValueError, match=r"css= needs a selector after it, e\.g\. css=#save"):
        parse_target("css=")
    with pytest.raises(ValueError, match=r"role= is not a role target: give role=<role> or role=<role>\[name=<name>\]"):
        parse_target("role=")
    with pytest.raises(ValueError, match=r"role=\[name=Save\] is not a role target"):
        parse_target("role=[name=Save]")
    with pytest.raises(ValueError, match=r"empty name: give one \(role=button\[name=Save\]\) or none"):
        parse_target('role=button[name=""]')


def test_a_bare_css_selector_is_answered_with_its_css_form() -> None:
    with pytest.raises(ValueError, match="for a CSS selector write css=#login button"):
        parse_target("#login button")


@pytest.mark.parametrize("raw", ["css=" + "a" * 5_000_000, "x" * (MAX_TARGET + 1), "role=" + "b" * 100_000])
def test_a_huge_target_is_refused_without_being_echoed(raw: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_target(raw)
    message = str(info.value)
    assert f"at most {MAX_TARGET}" in message or "not a role target" in message
    assert len(message) < 400
    assert "a" * (MAX_SHOWN + 1) not in message and "b" * (MAX_SHOWN + 1) not in message


def test_a_long_bad_target_is_shown_cut() -> None:
    with pytest.raises(ValueError) as info:
        parse_target("q" * 1_500)
    assert "q" * MAX_SHOWN + "…" in str(info.value) and "q" * (MAX_SHOWN + 1) not in str(info.value)


def test_a_target_as_long_as_allowed_still_parses() -> None:
    selector = "#" + "a" * (MAX_TARGET - len("css=#"))
    assert parse_target(f"css={selector}").css == selector


def test_a_bad_target_reaches_the_model_as_the_parser_says_it() -> None:
    with pytest.raises(ValidationError) as info:
        InteractArgs.model_validate({"action": "click", "target": "xpath=" + "/a" * 1_000_000})
    message = _validation_message(info.value)
    assert message.startswith("target: target is 2000006 characters long (at most 2000): give a snapshot ref")
    assert "Value error" not in message and len(message) < 400
    with pytest.raises(ValidationError) as info:
        InteractArgs.model_validate({"action": "click", "ref": "e4"})
    assert _validation_message(info.value).startswith('arguments: ref is not an argument: give "target": "e4"')
