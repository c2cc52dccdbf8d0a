"""``tabmcp doctor``: the introspectors found, the plugins that failed, and what they make of a page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tabmcp.cli import main
from tabmcp.introspect import registry as registry_module

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "plugins"
GOOD = """
from tabmcp.introspect.api import Introspector


class Repo(Introspector):
    def tools(self, capture):
        return []


INTROSPECTORS = [Repo(name="repo", kind="site", url_patterns=["https://git.test/*/*"], predicate=lambda c: False)]
"""
EXPLODES_ON_PAGES = """
from tabmcp.introspect.api import Introspector


class Boom(Introspector):
    def tools(self, capture):
        raise KeyError("no such element")


INTROSPECTORS = [Boom(name="boom", kind="site")]
"""


@pytest.fixture(autouse=True)
def no_entry_points(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    monkeypatch.setattr(registry_module, "entry_points", lambda group: [])
    monkeypatch.delenv("TABMCP_INTROSPECTORS_DIR", raising=False)
    # the setup checks before the introspectors' pass (test_doctor_checks.py tests them)
    browser = tmp_path_factory.mktemp("browser") / "chromium"
    browser.write_text('#!/bin/sh\necho "Chromium 1.0"\n')
    browser.chmod(0o755)
    monkeypatch.setenv("TABMCP_BROWSER_PATH", str(browser))
    monkeypatch.setenv("TABMCP_WS_PORT", "0")
    monkeypatch.setenv("TABMCP_PAIRING_TOKEN", "doctor-test-token-abcdefghijklmnop")


def doctor(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str]]:
    code = main(["doctor", *args])
    return code, capsys.readouterr().out.splitlines()


def test_doctor_lists_the_builtins_and_passes(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = doctor(capsys)
    assert code == 0
    first = next(i for i, line in enumerate(lines) if line.startswith("ok   introspectors: "))
    rows = [line.split() for line in lines[first + 1 : lines.index("ok   plugins that failed to load: none")]]
    # the site introspectors of the introspectors/ package (if any) run first, then the built-ins
    assert [row for row in rows if row[2] == "built-in"] == [
        ["page", "webmcp", "built-in", "*"],
        ["generic", "search", "built-in", "*"],
        ["generic", "forms", "built-in", "*"],
        ["generic", "rows", "built-in", "*"],
        ["generic", "lists", "built-in", "*"],
        ["generic", "row_links", "built-in", "*"],
        ["generic", "link_filters", "built-in", "*"],
        ["generic", "actions", "built-in", "*"],
    ]
    assert all(row[0] == "site" and row[2].startswith("introspectors.") for row in rows if row[2] != "built-in")


def test_doctor_reports_a_broken_plugin_and_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "repo.py").write_text(GOOD)
    (tmp_path / "broken.py").write_text("import this_module_does_not_exist_xyz\n")

    code, lines = doctor(capsys, "--introspectors-dir", str(tmp_path))

    assert code == 1
    repo = next(line for line in lines if " repo " in line)
    assert repo.split()[:3] == ["site", "repo", str(tmp_path / "repo.py")]
    assert repo.endswith("https://git.test/*/* + predicate")
    assert "FAIL plugins that failed to load: 1" in lines
    broken = [line for line in lines if str(tmp_path / "broken.py") in line]
    assert len(broken) == 1
    assert "ModuleNotFoundError" in broken[0] and "this_module_does_not_exist_xyz" in broken[0]


def test_doctor_takes_the_folder_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "broken.py").write_text("raise RuntimeError('nope')\n")
    monkeypatch.setenv("TABMCP_INTROSPECTORS_DIR", str(tmp_path))
    code, lines = doctor(capsys)
    assert code == 1
    assert any("broken.py: RuntimeError: nope" in line for line in lines)


def test_doctor_reports_a_missing_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = doctor(capsys, "--introspectors-dir", str(tmp_path / "absent"))
    assert code == 1
    assert any("introspectors folder not found" in line for line in lines)


def test_doctor_shows_the_tools_of_a_saved_page(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = doctor(
        capsys,
        "--introspectors-dir", str(FIXTURES),
        "--page", str(FIXTURES / "shop_product.html"),
        "--url", "https://shop.acme.test/product/tr2",
    )
    assert code == 0, lines
    title = "ok   tools on shop_product.html as https://shop.acme.test/product/tr2: 4"
    listed = lines[lines.index(title) + 1 :][:4]
    rows = [re.match(r"^\s+(\S+\(.*?\))\s+(\S+)\s*(.*)$", line).groups() for line in listed]  # type: ignore[union-attr]
    assert rows == [
        ("add_to_cart(size, quantity?)", "acme_shop", "Add Trail Runner 2 to the cart"),
        ("read_reviews()", "acme_shop", ""),
        ("search_products(query)", "search", "Search products"),
        ("add_to_wishlist()", "actions", "Add to wishlist"),
    ]
    assert "ok   introspector failures on the page: none" in lines


def test_doctor_shows_an_introspector_failing_on_the_page(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "boom.py").write_text(EXPLODES_ON_PAGES)
    code, lines = doctor(capsys, "--introspectors-dir", str(tmp_path), "--page", str(FIXTURES / "shop_product.html"))
    assert code == 1
    assert "FAIL introspector failures on the page: 1" in lines
    assert "       boom: KeyError: 'no such element'" in lines


def test_doctor_says_when_the_page_cannot_be_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = doctor(capsys, "--page", str(tmp_path / "missing.html"))
    assert code == 1
    assert f"FAIL page {tmp_path / 'missing.html'}: cannot be read" in lines


def test_help_names_doctor(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "doctor" in capsys.readouterr().out
