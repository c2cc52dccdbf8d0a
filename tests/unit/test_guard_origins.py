"""screenshot_origins patterns."""

from __future__ import annotations

import pytest

from tabmcp.guard.origins import allowed, matches, origin_of


def test_origin_of() -> None:
    assert origin_of("https://Example.COM/path?q=1") == "https://example.com"
    assert origin_of("https://example.com:443/") == "https://example.com"
    assert origin_of("http://127.0.0.1:8123/x") == "http://127.0.0.1:8123"
    assert origin_of("http://[::1]:80/") == "http://[::1]"
    assert origin_of("about:blank") == ""


@pytest.mark.parametrize(
    ("url", "pattern", "expected"),
    [
        ("https://example.com/a", "https://example.com", True),
        ("https://example.com/a", "https://example.com/", True),
        ("https://example.com/a", "https://example.com:443", True),
        ("http://example.com/a", "https://example.com", False),  # another scheme is another origin
        ("https://example.com.evil.test/", "https://example.com", False),
        ("https://mail.example.com/", "https://*.example.com", True),
        ("https://example.com/", "https://*.example.com", False),
        ("https://evil.test/?https://x.example.com", "https://*.example.com", False),
        ("http://127.0.0.1:8123/page", "http://127.0.0.1:*", True),
        ("http://127.0.0.1:8123/page", "http://127.0.0.1", False),
        ("https://mail.example.com/inbox/1", "https://mail.example.com/inbox/*", True),
        ("https://mail.example.com/settings", "https://mail.example.com/inbox/*", False),
        ("http://docs.example.com:8080/", "*.example.com", True),  # a bare host: any scheme and port
        ("http://example.org/", "example.com", False),
        ("https://EXAMPLE.com/", "https://example.COM", True),
        ("https://example.com/", "", False),
    ],
)
def test_matches(url: str, pattern: str, expected: bool) -> None:
    assert matches(url, pattern) is expected


def test_no_patterns_allow_everything_and_some_allow_only_those() -> None:
    assert allowed("https://anything.test/", [])
    patterns = ["https://a.test", "b.test"]
    assert allowed("https://a.test/x", patterns)
    assert allowed("http://b.test:81/", patterns)
    assert not allowed("https://c.test/", patterns)
    assert not allowed("", patterns)
