"""How descriptions and page texts are compared (tabmcp.nl.words): tokens, similarity, numbers."""

from __future__ import annotations

import pytest

from tabmcp.nl.words import (
    Bag,
    contains_phrase,
    fold,
    normal,
    number_in,
    numbers_in,
    plain_number,
    similarity,
    stem,
    tokens,
)


def test_tokens_fold_case_and_accents_and_keep_numbers_whole() -> None:
    assert tokens("Café au lait: 3.50 EUR, e-mail!") == ["cafe", "au", "lait", "3.50", "eur", "e", "mail"]
    assert tokens("1,234 items") == ["1,234", "items"]
    assert tokens("  ...  ") == []


def test_fold_drops_accents_and_lowers_case() -> None:
    assert fold("Crème Brûlée ÉTÉ") == "creme brulee ete"
    assert fold("Ångström") == "angstrom"


def test_normal_joins_folded_words_with_one_space() -> None:
    assert normal("  Log   In!  ") == "log in"
    assert normal("Résumé — Upload") == "resume upload"


@pytest.mark.parametrize(
    ("word", "stemmed"),
    [("names", "name"), ("policies", "policy"), ("loading", "load"), ("clicked", "click"), ("class", "class"),
     ("bus", "bus"), ("red", "red")],
)  # fmt: skip
def test_stem_strips_plurals_and_common_endings_of_long_enough_words(word: str, stemmed: str) -> None:
    assert stem(word) == stemmed


def test_similarity_ranks_how_alike_two_tokens_are() -> None:
    assert similarity("save", "save") == 1.0
    assert similarity("names", "name") == 0.95  # same stem
    assert similarity("login", "signin") == 0.85  # synonyms, both ways
    assert similarity("signin", "login") == 0.85
    assert similarity("cart", "basket") == 0.85
    assert similarity("email", "mail") == 0.85
    assert similarity("pass", "password") == pytest.approx(0.8 * (4 / 8) ** 0.5)  # a prefix, by its share
    assert similarity("pasword", "password") == pytest.approx(0.84)  # a typo: 0.9 * the spelling ratio
    assert similarity("cat", "dog") == 0.0
    assert similarity("ab", "abc") == 0.0  # prefixes shorter than 3 letters say nothing


def test_numbers_are_equal_or_not_alike_at_all() -> None:
    assert similarity("12", "12") == 1.0
    assert similarity("12", "13") == 0.0
    assert similarity("12", "123") == 0.0  # not a "prefix"
    assert similarity("2", "two") == 0.0


def test_bag_best_matches_a_word_or_two_neighbours_joined() -> None:
    bag = Bag.of("Log in")
    assert bag.words == ("log", "in")
    assert bag.joined == ("login",)
    assert bag.best("login") == pytest.approx(0.95)  # "log"+"in", a little below a single word
    assert bag.best("log") == 1.0
    assert bag.best("signin") == pytest.approx(0.95 * 0.85)  # a synonym of the joined pair
    assert Bag.of("Save").best("login") == 0.0
    assert Bag.of("").best("login") == 0.0


def test_bag_content_leaves_out_stopwords() -> None:
    assert Bag.of("Add it to the cart").content() == ["add", "cart"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("$7.99", [7.99]),
        ("1,234 items", [1234.0]),
        ("7,99 €", [7.99]),  # a decimal comma
        ("12,345.67", [12345.67]),
        ("-3 C", [-3.0]),
        ("−3 °C", [-3.0]),  # a typographic minus
        ("v2 and 2px", []),  # parts of words, not numbers
        ("Cart (0)", [0.0]),
        ("page 3 of 10", [3.0, 10.0]),
        ("no numbers here", []),
    ],
)
def test_numbers_in_reads_every_number_a_text_states(text: str, expected: list[float]) -> None:
    assert numbers_in(text) == pytest.approx(expected)


def test_number_in_wants_exactly_one_number() -> None:
    assert number_in("Total: $7.99") == pytest.approx(7.99)
    assert number_in("1,234 items") == 1234.0
    assert number_in("Cart (0)") == 0.0
    assert number_in("3 items, 4 left") is None  # two: which one is meant is not clear
    assert number_in("Empty") is None


def test_contains_phrase_wants_the_words_together_and_in_order() -> None:
    assert contains_phrase("Add to cart now", "add to cart")
    assert contains_phrase("Café Olé!", "cafe ole")  # folded on both sides
    assert not contains_phrase("Add to carton", "add to cart")  # whole words only
    assert not contains_phrase("to cart add", "add to cart")
    assert not contains_phrase("anything", "")  # an empty phrase is never found
    assert not contains_phrase("anything", "!!")


def test_plain_number_makes_whole_floats_ints() -> None:
    assert plain_number(7.0) == 7 and isinstance(plain_number(7.0), int)
    assert plain_number(7.5) == 7.5 and isinstance(plain_number(7.5), float)
    assert plain_number(-3.0) == -3 and isinstance(plain_number(-3.0), int)
