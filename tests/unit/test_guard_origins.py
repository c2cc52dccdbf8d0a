"""screenshot_origins: the navigation policy's patterns, checked against the page's URL."""

from __future__ import annotations

import pytest

from tabmcp.config import Settings
from tabmcp.guard.origins import ScreenshotOrigins, origin_of
from tabmcp.policy import PolicyError


def test_origin_of() -> None:
    assert origin_of("https://Example.COM/path?q=1") == "https://example.com"
    assert origin_of("https://example.com:443/") == "https://example.com"
    assert origin_of("http://127.0.0.1:8123/x") == "http://127.0.0.1:8123"
    assert origin_of("http://[::1]:80/") == "http://[::1]"
    assert origin_of("about:blank") == ""
    assert origin_of("chrome://settings/") == ""


@pytest.mark.parametrize(
    ("url", "pattern", "expected"),
    [
        ("https://example.com/a", "https://example.com", True),
        ("https://example.com/a", "https://example.com/", True),
        ("https://example.com/a", "https://example.com:443", True),
        ("http://example.com/a", "https://example.com", False),  # another scheme is another origin
        ("http://example.com/a", "*://example.com", True),  # unless the pattern says both
        ("https://example.com.evil.test/", "https://example.com", False),
        ("https://mail.example.com/", "https://*.example.com", True),
        ("https://example.com/", "https://*.example.com", True),  # as in the policy: the domain too
        ("https://badexample.com/", "https://*.example.com", False),
        ("https://evil.test/?https://x.example.com", "https://*.example.com", False),
        ("http://127.0.0.1:8123/page", "http://127.0.0.1:*", True),
        ("http://127.0.0.1:8123/page", "http://127.0.0.1:8124", False),
        ("http://127.0.0.1:8123/page", "http://127.0.0.1", True),  # no port: any port, as in the policy
        ("https://mail.example.com/inbox/1", "https://mail.example.com/inbox/*", True),
        ("https://mail.example.com/settings", "https://mail.example.com/inbox/*", False),
        ("https://EXAMPLE.com/", "https://example.COM", True),
        ("chrome://settings/", "*://*/*", False),  # * is http and https, never a browser page
        ("about:blank", "*://*/*", False),
        ("not a url", "*://*/*", False),
    ],
)
def test_patterns_match_as_the_navigation_policys_do(url: str, pattern: str, expected: bool) -> None:
    assert ScreenshotOrigins.from_patterns([pattern]).allows(url) is expected


def test_no_patterns_allow_everything_and_some_allow_only_those() -> None:
    assert ScreenshotOrigins().allows("https://anything.test/")
    allowed = ScreenshotOrigins.from_settings(Settings(screenshot_origins=["https://a.test", "*://b.test"]))
    assert allowed.allows("https://a.test/x")
    assert allowed.allows("http://b.test:81/")
    assert not allowed.allows("https://c.test/")
    assert not allowed.allows("")
    assert allowed.shown() == "https://a.test, *://b.test"


def test_invalid_patterns_are_refused_naming_the_setting() -> None:
    with pytest.raises(PolicyError) as info:
        ScreenshotOrigins.from_patterns(["b.test", "https://ok.test", "ftp://x.test"])
    message = str(info.value)
    assert message.startswith("invalid URL patterns: TABMCP_SCREENSHOT_ORIGINS: 'b.test' has no scheme")
    assert "TABMCP_SCREENSHOT_ORIGINS: 'ftp://x.test'" in message and "ok.test" not in message


def test_tabmcp_serve_refuses_to_start_with_an_invalid_screenshot_pattern(capsys: pytest.CaptureFixture[str]) -> None:
    from tabmcp.cli import main

    assert main(["serve", "--screenshot-origin", "*.example.com"]) == 2
    assert "TABMCP_SCREENSHOT_ORIGINS: '*.example.com' has no scheme" in capsys.readouterr().err
