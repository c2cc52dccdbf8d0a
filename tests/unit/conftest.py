"""Fixtures shared by the unit tests of the natural-language tools: the recorded locate snapshots
(tests/fixtures/snapshots) of the two near-duplicate pages, read once per module."""

from __future__ import annotations

import pytest
from tests.unit.nl_fixtures import view

from tabmcp.nl.page import PageView


@pytest.fixture(scope="module")
def shop() -> PageView:
    """tests/fixtures/pages/nl.html: the shop."""
    return view("nl")


@pytest.fixture(scope="module")
def settings() -> PageView:
    """tests/fixtures/pages/nl-dupes.html: the account settings."""
    return view("nl-dupes")
