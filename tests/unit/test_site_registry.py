"""The three site introspectors together: found by the registry, matching only their own sites, and
winning their elements over the generic introspectors on the captured demo sites."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from introspectors import code_repo, flight_search, mail_inbox

from tabmcp.introspect.api import Introspector
from tabmcp.introspect.registry import Registry
from tabmcp.page.capture import PageCapture

ROOT = Path(__file__).resolve().parents[2]
CAPTURES = ROOT / "tests" / "fixtures" / "captures"
INDEX = json.loads((CAPTURES / "captures.json").read_text(encoding="utf-8"))
SITES: dict[str, Introspector] = {
    "mail": mail_inbox.INTROSPECTORS[0],
    "flights": flight_search.INTROSPECTORS[0],
    "repo": code_repo.INTROSPECTORS[0],
}
TOOL_NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
# pages of the other tests and the older demo pages: no site introspector may claim them
OTHER_PAGES = sorted((ROOT / "tests" / "fixtures" / "pages").glob("*.html")) + sorted(
    (ROOT / "src" / "tabmcp" / "demo" / "sites").glob("*.html")
)


def capture(state: str) -> PageCapture:
    meta = INDEX[state]
    return PageCapture(url=meta["url"], title=meta["title"], html=(CAPTURES / f"{state}.html").read_text("utf-8"))


def test_the_registry_loads_the_site_modules() -> None:
    registry = Registry.discover()
    assert registry.errors == []
    found = {i.name: i for i in registry.introspectors}
    for name in ("mail_inbox", "flight_search", "code_repo"):
        assert found[name].kind == "site"
    assert "sitekit" not in found  # the helper module is not a plugin


@pytest.mark.parametrize("state", sorted(INDEX))
def test_each_introspector_matches_only_its_own_site(state: str) -> None:
    cap = capture(state)
    own = state.split("_")[0]
    for site, introspector in SITES.items():
        expected = site == own and state != "flights_review"  # the review page has no search and no results
        assert introspector.matches(cap) is expected, (site, state)


@pytest.mark.parametrize("page", OTHER_PAGES, ids=lambda p: p.name)
def test_no_site_introspector_claims_an_unrelated_page(page: Path) -> None:
    cap = PageCapture(f"http://127.0.0.1:8000/{page.name}", page.stem, page.read_text("utf-8"))
    for site, introspector in SITES.items():
        assert not introspector.matches(cap), site
        assert introspector.tools(cap) == [], site


@pytest.mark.parametrize(
    ("state", "source"),
    [
        ("mail_inbox", "mail_inbox"),
        ("mail_compose", "mail_inbox"),
        ("flights_form", "flight_search"),
        ("flights_results", "flight_search"),
        ("repo_code", "code_repo"),
        ("repo_issues", "code_repo"),
        ("repo_fork", "code_repo"),
    ],
)
def test_site_tools_come_first_and_no_generic_tool_duplicates_them(state: str, source: str) -> None:
    tools = Registry.discover().page_tools(capture(state), limit=30)
    names = [t.name for t in tools]
    assert all(TOOL_NAME.match(n) for n in names) and len(set(names)) == len(names)
    sources = [t.source for t in tools]
    mine = sources.count(source)
    assert mine > 0 and sources[:mine] == [source] * mine  # the site's tools lead the list
    # the forms the site tools drive (search box, flight search, issue search, fork form) are theirs alone
    assert not {"forms", "search"} & set(sources), list(zip(names, sources, strict=True))


def test_the_generic_form_tool_still_serves_the_review_page() -> None:
    tools = Registry.discover().page_tools(capture("flights_review"), limit=30)
    assert [t.source for t in tools] == ["forms"]
